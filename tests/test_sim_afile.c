/* Tests for sim/sim_afile: output files that appear whole or not at all. */
#include "tests/test_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/sim_afile.h"

static char dir[32];

static const char *path_of(const char *name)
{
    static char buf[2][128];
    static int k;
    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = calloc(1, 4096);
    assert_non_null(buf);
    size_t n = fread(buf, 1, 4095, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Files in dir. */
static int nfiles(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void test_commit_and_abort(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    const char *p = path_of("out.txt");
    sim_afile a;
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_afile_open(&a, p, &err), SIM_OK);
    fputs("first\n", a.f);
    /* nothing at the path until the commit */
    assert_int_equal(access(p, F_OK), -1);
    assert_int_equal(nfiles(), 1);
    assert_int_equal(sim_afile_commit(&a, &err), SIM_OK);
    char *t = slurp(p);
    assert_string_equal(t, "first\n");
    free(t);
    assert_int_equal(nfiles(), 1);
    mode_t mask = umask(0);
    umask(mask);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
    /* a replacement keeps the old mode; an abandoned one leaves the old
     * file and no temporary file */
    assert_int_equal(chmod(p, 0640), 0);
    assert_int_equal(sim_afile_open(&a, p, &err), SIM_OK);
    fputs("second\n", a.f);
    sim_afile_abort(&a);
    t = slurp(p);
    assert_string_equal(t, "first\n");
    free(t);
    assert_int_equal(nfiles(), 1);
    assert_int_equal(sim_afile_open(&a, p, &err), SIM_OK);
    fputs("third\n", a.f);
    assert_int_equal(sim_afile_commit(&a, &err), SIM_OK);
    t = slurp(p);
    assert_string_equal(t, "third\n");
    free(t);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    /* through a symbolic link: the target is replaced, the link stays */
    char lp[1100];
    snprintf(lp, sizeof lp, "%s", path_of("link.txt"));
    assert_int_equal(symlink(p, lp), 0);
    assert_int_equal(sim_afile_open(&a, lp, &err), SIM_OK);
    fputs("fourth\n", a.f);
    assert_int_equal(sim_afile_commit(&a, &err), SIM_OK);
    assert_int_equal(lstat(lp, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    t = slurp(p);
    assert_string_equal(t, "fourth\n");
    free(t);
    assert_int_equal(unlink(lp), 0);
}

static void test_failures(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    sim_afile a;
    sim_err err;
    /* a directory, a missing directory */
    sim_err_clear(&err);
    assert_int_equal(sim_afile_open(&a, dir, &err), SIM_EFAIL);
    assert_non_null(strstr(err.msg, "cannot create: Is a directory"));
    sim_err_clear(&err);
    assert_int_equal(sim_afile_open(&a, path_of("no/such/file"), &err), SIM_EFAIL);
    assert_non_null(strstr(err.msg, "no/such/file: cannot create: No such file or directory"));
    /* a device is written directly (a rename would replace it); a full
     * disk is a write error at the commit */
    sim_err_clear(&err);
    assert_int_equal(sim_afile_open(&a, "/dev/full", &err), SIM_OK);
    assert_null(a.tmp);
    for (int i = 0; i < 10000; i++)
        fputs("0123456789", a.f);
    assert_int_equal(sim_afile_commit(&a, &err), SIM_EFAIL);
    assert_string_equal(err.msg, "/dev/full: write failed: No space left on device");
    assert_int_equal(nfiles(), 0);
}

/* sim_afile_write_all: every byte reaches the file, across a pipe whose
 * reader takes what it can (short writes are the writer's to finish), and
 * a descriptor that cannot be written reports -1 with errno. */
static void test_write_all(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    enum { N = 200000 }; /* over a pipe's 64 KiB: the writer blocks and resumes */
    char *src = malloc(N), *got = malloc(N);
    assert_non_null(src);
    assert_non_null(got);
    for (int i = 0; i < N; i++)
        src[i] = (char)('a' + i % 26);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the writer */
        close(fds[0]);
        _exit(sim_afile_write_all(fds[1], src, N) == 0 ? 0 : 1);
    }
    close(fds[1]);
    size_t have = 0;
    ssize_t r;
    while ((r = read(fds[0], got + have, N - have)) > 0)
        have += (size_t)r;
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(have, N);
    assert_memory_equal(got, src, N);
    /* a file, two pieces appended */
    const char *p = path_of("w.txt");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(sim_afile_write_all(fd, "head,", 5), 0);
    assert_int_equal(sim_afile_write_all(fd, "tail\n", 5), 0);
    close(fd);
    char *text = slurp(p);
    assert_string_equal(text, "head,tail\n");
    free(text);
    unlink(p);
    /* a descriptor that is not open */
    errno = 0;
    assert_int_equal(sim_afile_write_all(-1, "x", 1), -1);
    assert_int_equal(errno, EBADF);
    free(src);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit_and_abort),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_write_all),
    };
    return cmocka_run_group_tests_name("sim_afile", tests, NULL, NULL);
}
