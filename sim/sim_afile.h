/* sim_afile: an output file that appears whole or not at all.
 *
 * Role: the files the commands write (--manifest, fit --config-out,
 * calibrate --out, ...) are written to a temporary file in the same
 * directory (PATH.tmp-XXXXXX) and renamed over PATH only when everything
 * was written, flushed and synced: on a full disk, a write error or a crash
 * the old PATH is untouched and no empty or partial PATH appears.  A PATH
 * that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is
 * written directly (a rename would replace the device node); a symbolic
 * link to a regular file has its target replaced, the link stays.
 *
 * Invariants: after sim_afile_open succeeded, exactly one of
 * sim_afile_commit and sim_afile_abort must be called; both remove the
 * temporary file unless it was renamed.  The new file gets the mode of the
 * file it replaces, or 0666 less the umask.
 * Cost: one extra fsync and rename per file.
 */
#ifndef SIM_AFILE_H
#define SIM_AFILE_H

#include <stdio.h>

#include "sim/sim_err.h"

typedef struct sim_afile {
    FILE *f;     /* write here (owned; closed by commit or abort) */
    char *path;  /* final path (owned) */
    char *tmp;   /* temporary path (owned), NULL when writing PATH directly */
} sim_afile;

/* Where writing path ends: *direct = 1 when path exists and is not a
 * regular file (a device, a FIFO: write it in place, never rename over
 * it), else 0; the path returned is path's target when path is a symbolic
 * link to a regular file (the link stays), else a copy of path.  Owned by
 * the caller (free).  For writers that keep their own temporary file (the
 * HTTP probe keeps its rows in FILE.part after a failure). */
char *sim_afile_target(const char *path, int *direct);

/* Start writing path.  Returns SIM_OK (write to a->f) or SIM_EFAIL with
 * "PATH: cannot create: reason" in err (a is then empty). */
int sim_afile_open(sim_afile *a, const char *path, sim_err *err);

/* Flush, sync and close a->f, then rename the temporary file over path.
 * SIM_OK, or SIM_EFAIL with "PATH: write failed: reason" (the temporary
 * file is removed, path is untouched).  a is empty afterwards. */
int sim_afile_commit(sim_afile *a, sim_err *err);

/* Give up: close and remove the temporary file (path untouched). */
void sim_afile_abort(sim_afile *a);

/* Write all n bytes at p (borrowed) to the file descriptor fd, retrying
 * after a signal and after short writes: for writers that keep their own
 * descriptor (the probes' rows, appended as they come).  0, or -1 with
 * errno set by write(2). */
int sim_afile_write_all(int fd, const void *p, size_t n);

#endif
