#include "sim/sim_afile.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void clear(sim_afile *a)
{
    free(a->path);
    free(a->tmp);
    memset(a, 0, sizeof *a);
}

/* The path to write for `path`, given its stat (exists: stat succeeded):
 * the target of a symbolic link to a regular file (the link stays), else
 * path itself; *direct set when path exists and is not a regular file (a
 * device or FIFO: written in place).  Returns a heap copy, owned by the
 * caller. */
static char *target_of(const char *path, const struct stat *st, int exists, int *direct)
{
    struct stat lst;
    *direct = exists && !S_ISREG(st->st_mode);
    int link = exists && S_ISREG(st->st_mode) && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    char *target = link ? realpath(path, NULL) : NULL;
    char *p = target ? target : strdup(path);
    assert(p && "out of memory");
    return p;
}

char *sim_afile_target(const char *path, int *direct)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    return target_of(path, &st, exists, direct);
}

int sim_afile_open(sim_afile *a, const char *path, sim_err *err)
{
    memset(a, 0, sizeof *a);
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return sim_err_set(err, SIM_EFAIL, "%s: cannot create: %s", path, strerror(EISDIR));
    int direct;
    a->path = target_of(path, &st, exists, &direct);
    if (direct) {
        a->f = fopen(a->path, "w");
        if (!a->f) {
            int e = errno;
            clear(a);
            return sim_err_set(err, SIM_EFAIL, "%s: cannot create: %s", path, strerror(e));
        }
        return SIM_OK;
    }
    size_t n = strlen(a->path) + 16;
    a->tmp = malloc(n);
    assert(a->tmp);
    snprintf(a->tmp, n, "%s.tmp-XXXXXX", a->path);
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        int e = errno;
        clear(a);
        return sim_err_set(err, SIM_EFAIL, "%s: cannot create: %s", path, strerror(e));
    }
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0 || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(a->tmp);
        clear(a);
        return sim_err_set(err, SIM_EFAIL, "%s: cannot create: %s", path, strerror(e));
    }
    return SIM_OK;
}

int sim_afile_commit(sim_afile *a, sim_err *err)
{
    assert(a->f);
    int e = 0;
    errno = 0;
    if (fflush(a->f) != 0 || ferror(a->f))
        e = errno ? errno : EIO;
    if (!e && a->tmp && fsync(fileno(a->f)) != 0)
        e = errno;
    if (fclose(a->f) != 0 && !e)
        e = errno ? errno : EIO;
    a->f = NULL;
    if (!e && a->tmp && rename(a->tmp, a->path) != 0)
        e = errno;
    if (e && a->tmp)
        unlink(a->tmp);
    int rc = SIM_OK;
    if (e)
        rc = sim_err_set(err, SIM_EFAIL, "%s: write failed: %s", a->path, strerror(e));
    clear(a);
    return rc;
}

void sim_afile_abort(sim_afile *a)
{
    if (a->f)
        fclose(a->f);
    if (a->tmp)
        unlink(a->tmp);
    clear(a);
}

int sim_afile_write_all(int fd, const void *p, size_t n)
{
    const char *b = p;
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        b += w;
        n -= (size_t)w;
    }
    return 0;
}
