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

/* Path of a fresh temporary directory for one test (static buffer). */
static inline const char *test_tmpdir(void)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "/tmp/tfsim-test-XXXXXX");
    if (!mkdtemp(buf))
        fail_msg("mkdtemp failed");
    return buf;
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
