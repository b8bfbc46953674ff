/* Shared includes and helpers for the cmocka unit tests. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <cmocka.h>

/* |a - b| <= tol, with a readable failure message. */
#define assert_close(a, b, tol) \
    do { \
        double a_ = (a), b_ = (b), t_ = (tol); \
        if (!(fabs(a_ - b_) <= t_)) \
            fail_msg("%s = %.9g, expected %.9g within %.3g", #a, a_, b_, t_); \
    } while (0)

/* Relative closeness: |a - b| <= rel * |b|. */
#define assert_rel(a, b, rel) assert_close(a, b, fabs((double)(b)) * (rel))

/* Directories made by test_tmpdir, removed with their contents when the
 * test binary exits (also after a failed test, which skips its own
 * cleanup); not by a forked child that exits. */
#define TEST_TMPDIR_MAX 256
static char test_tmpdirs[TEST_TMPDIR_MAX][32];
static int test_ntmpdirs;
static pid_t test_tmpdir_owner;

static inline void test_tmpdir_cleanup(void)
{
    if (getpid() != test_tmpdir_owner)
        return;
    for (int i = 0; i < test_ntmpdirs; i++) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "rm -rf '%.31s'", test_tmpdirs[i]);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", test_tmpdirs[i]);
    }
    test_ntmpdirs = 0;
}

/* Path of a fresh temporary directory for one test (static buffer; the
 * directory is removed at exit). */
static inline const char *test_tmpdir(void)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "/tmp/tfsim-test-XXXXXX");
    if (!mkdtemp(buf))
        fail_msg("mkdtemp failed");
    if (!test_tmpdir_owner) {
        test_tmpdir_owner = getpid();
        atexit(test_tmpdir_cleanup);
    }
    if (test_ntmpdirs < TEST_TMPDIR_MAX)
        snprintf(test_tmpdirs[test_ntmpdirs++], sizeof test_tmpdirs[0], "%s", buf);
    return buf;
}

/* A scratch directory shared by a test file's tests: test_dir_setup, as a
 * cmocka group setup, makes it (removed at exit with test_tmpdir's);
 * test_dir_path(name) names a file in it (one of four static buffers, so
 * that a call may take two or three paths). */
static char test_dir[64];

static inline int test_dir_setup(void **state)
{
    (void)state;
    snprintf(test_dir, sizeof test_dir, "%s", test_tmpdir());
    return 0;
}

static inline const char *test_dir_path(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", test_dir, name);
    return buf[k];
}

/* Write text to path; fails the test on error. */
static inline void test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

#endif
