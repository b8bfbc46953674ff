/* rep_progress: a one-line progress bar with ETA for long commands (sweeps).
 *
 * Role: draws "label [#####.....] 7/11  64%  elapsed 0:12  ETA 0:07" on a
 * stream (stderr), redrawing the same line with '\r'.  It draws only when
 * the caller says the stream is a terminal (cli_stderr_tty()); otherwise
 * every call is a no-op, so that logs and pipes stay clean.
 *
 * Invariants: done <= total; the caller passes the time (seconds on any
 * monotonic clock, e.g. rep_progress_now()), so output is deterministic in
 * tests.  Points skipped (already stored, on resume) count as done but not
 * in the rate, so the ETA reflects the work still to do.  Redraws at most
 * every REP_PROGRESS_MIN_DT seconds, and always on the last step.
 * Cost: O(1) per call; no allocation.
 */
#ifndef REP_PROGRESS_H
#define REP_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#define REP_PROGRESS_MIN_DT 0.1
#define REP_PROGRESS_WIDTH 30  /* characters of bar */

typedef struct rep_progress {
    FILE *out;        /* borrowed; not closed */
    int enabled;
    char label[48];
    size_t total, done, skipped;
    double t0, last_draw;
} rep_progress;

/* Start a bar over `total` steps in caller-provided storage p.  out is
 * borrowed for the life of the bar; enabled = is out a terminal. */
void rep_progress_init(rep_progress *p, FILE *out, int enabled, const char *label, size_t total,
                       double now);
/* n more steps done by real work at time now. */
void rep_progress_step(rep_progress *p, size_t n, double now);
/* n steps that needed no work (resumed); not counted in the rate. */
void rep_progress_skip(rep_progress *p, size_t n);
/* Draw the final state and end the line. */
void rep_progress_fini(rep_progress *p, double now);

/* Seconds on the monotonic clock. */
double rep_progress_now(void);

#endif
