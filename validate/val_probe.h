/* val_probe: what the Redis, PostgreSQL and TigerBeetle probes share: their
 * options, the pacing of one measurement phase, the per-phase latency
 * summary and the clocks; and the poll(2) loop of one phase that the Redis
 * and PostgreSQL probes drive their non-blocking connections with.
 *
 * A probe runs phases: one phase = one operation at one concurrency level,
 * `warmup` unrecorded operations and then `count` recorded ones (or as many
 * as fit in `seconds`).  Every recorded operation becomes one row of the
 * samples CSV (if a writer is given) and one value of the phase summary.
 *
 * Invariants: a phase summary keeps O(1) memory whatever its length
 * (Welford mean plus a log-bucketed histogram, quantiles within 0.4%, see
 * sim_stats.h); latencies are measured on CLOCK_MONOTONIC, timestamps are
 * CLOCK_REALTIME.  Cost: O(1) per recorded operation, 80 KiB per phase.
 */
#ifndef VAL_PROBE_H
#define VAL_PROBE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/sim_err.h"
#include "sim/sim_table.h"
#include "validate/val_samples.h"

#define VAL_PROBE_MAX_LEVELS 16
#define VAL_PROBE_MAX_CONC 1024u

/* Called after each phase (on the probe's thread). */
typedef void (*val_probe_progress_fn)(void *ctx, const char *op, unsigned level, uint64_t n,
                                      double wall_s);

typedef struct val_probe_opts {
    unsigned levels[VAL_PROBE_MAX_LEVELS]; /* concurrency levels (batch sizes for TigerBeetle) */
    size_t nlevels;
    uint64_t count;       /* recorded operations per phase, when seconds == 0 */
    double seconds;       /* > 0: record for this long per phase instead */
    uint64_t warmup;      /* unrecorded operations at the start of each phase */
    double timeout;       /* seconds allowed for a connection and for each reply */
    const char *ops;      /* comma-separated subset of the probe's operations, NULL = all */
    val_samples_writer *out;             /* samples CSV, or NULL; borrowed */
    val_probe_progress_fn progress;      /* may be NULL */
    void *progress_ctx;
    const volatile sig_atomic_t *stop;   /* set (e.g. by SIGINT) to stop early; may be NULL */
} val_probe_opts;

/* Defaults: levels 1,4,16,64; count 1000; seconds 0; warmup 100; timeout 5 s. */
void val_probe_opts_init(val_probe_opts *o);

/* Parse "1,4,16" into o->levels (each in [1, max]).  Returns 0, or -1 with
 * a reason written to why (len bytes). */
int val_probe_parse_levels(const char *s, unsigned max, val_probe_opts *o, char *why, size_t len);

/* Check o->ops against the probe's operation names: SIM_EINPUT naming the
 * unknown one and listing the known ones. */
int val_probe_check_ops(const val_probe_opts *o, const char *const *known, size_t n, sim_err *err);
/* Is operation name selected by o->ops? */
int val_probe_wants(const val_probe_opts *o, const char *name);

/* Should the probe stop (o->stop set)? */
int val_probe_stopped(const val_probe_opts *o);

/* Clocks, in seconds. */
double val_probe_mono(void);
double val_probe_epoch(void);

/* Pacing of one phase: which operations to start and which to record. */
typedef struct val_probe_pace {
    const val_probe_opts *o;
    uint64_t issued;     /* operations started so far */
    double t_start;      /* when the first recorded operation started (0: not yet) */
} val_probe_pace;

void val_probe_pace_init(val_probe_pace *p, const val_probe_opts *o);
/* May another operation start at time now?  If so returns 1 and its index
 * (0, 1, 2, ...) in *index; operations with index < warmup are not
 * recorded.  Returns 0 when the phase has started all its operations. */
int val_probe_pace_next(val_probe_pace *p, double now, uint64_t *index);
static inline int val_probe_pace_records(const val_probe_pace *p, uint64_t index)
{
    return index >= p->o->warmup;
}

/* Per-phase summaries of one probe run. */
typedef struct val_probe_result val_probe_result;

/* New empty result owned by the caller (val_probe_result_free). */
val_probe_result *val_probe_result_new(void);
void val_probe_result_free(val_probe_result *r);

/* Start a phase: later records go to (op, level).  op is copied; it must
 * pass val_samples_op_ok. */
void val_probe_phase_begin(val_probe_result *r, const char *op, unsigned level);
/* Record one operation of the current phase: latency in seconds; also
 * written to o->out if set.  Returns SIM_OK or SIM_EFAIL (write error). */
int val_probe_record(val_probe_result *r, const val_probe_opts *o, double latency_s, sim_err *err);
/* End the current phase; wall_s = its measured duration (first recorded
 * start to last completion).  Calls o->progress. */
void val_probe_phase_end(val_probe_result *r, const val_probe_opts *o, double wall_s);

/* The server's CPU during the last phase begun (its summary then shows
 * it): seconds per operation, and CPU seconds per second (cores), both
 * over the whole phase with its warm-up. */
void val_probe_phase_server_cpu(val_probe_result *r, double per_op, double cores);
/* The share of the last phase's replies that the server's I/O threads
 * wrote (Redis: INFO stats io_threaded_writes_processed over the replies;
 * the summary then shows it as threaded_writes). */
void val_probe_phase_threaded_writes(val_probe_result *r, double share);

/* Summary table: operation, concurrency (or the given level name),
 * n, mean_ms, p50_ms, p99_ms, max_ms, ops_per_s, and when the server's CPU
 * was measured server_cpu_us (per operation) and server_cores (CPU seconds
 * per second), both over the whole phase with its warm-up, and when
 * known threaded_writes (val_probe_phase_threaded_writes); one row per
 * phase with at least one recorded operation.  Owned by the caller
 * (sim_table_free). */
sim_table *val_probe_table(const val_probe_result *r, const char *level_name);

/* Append text to a message already in e (e.g. a note about cleanup). */
void val_probe_err_append(sim_err *e, const char *text);

/* ---- The phase loop of the poll-driven probes (Redis, PostgreSQL) ----
 * One phase keeps one operation in flight on each of C non-blocking
 * connections, all driven from one thread by a poll(2) loop.  The loop
 * owns the pacing, the poll set, the reply deadlines, the stop flag and
 * the phase summary; the probe supplies the protocol as two callbacks. */

/* What the loop reads and writes of one connection: the first member of
 * each probe's connection struct. */
typedef struct val_probe_conn {
    int fd;             /* socket; set by the probe when it connects */
    int busy;           /* an operation is in flight */
    int want_write;     /* requests still buffered: wait for POLLOUT too (probe sets it) */
    int op;             /* the operation in flight, index into val_probe_loop.ops */
    uint64_t index;     /* its index in the phase (val_probe_pace_next) */
    double t_op;        /* when it started (val_probe_mono) */
    double deadline;    /* when the reply now awaited is due; the probe moves it
                         * on at each further round trip */
} val_probe_conn;

typedef struct val_probe_loop val_probe_loop;

struct val_probe_loop {
    /* Set by the probe before the first phase; all borrowed. */
    const val_probe_opts *o;
    val_probe_result *res;
    const char *where;           /* the server as messages name it ("redis at ...") */
    const char *kind;            /* phases are recorded as "<kind>.<operation>" */
    const char *const *ops;      /* operation names */
    void *ctx;                   /* the probe, for the callbacks */
    /* The connections (as many as the largest level), owned by the probe:
     * an array of its connection structs, conn_size bytes each, each one
     * starting with its val_probe_conn. */
    void *conns;
    size_t conn_size;
    /* Send the first request of the operation the loop has just started on
     * connection i (busy, op, index, t_op and deadline set).  SIM_OK, or
     * SIM_EFAIL naming the connection. */
    int (*start)(val_probe_loop *l, unsigned i, sim_err *err);
    /* poll revents arrived on busy connection i: send, read, and call
     * val_probe_loop_done when its operation completes.  SIM_OK, or an
     * error naming the connection. */
    int (*ready)(val_probe_loop *l, unsigned i, short revents, sim_err *err);

    /* Kept by the loop. */
    uint64_t ndone;              /* operations completed in the run (all phases) */
    val_probe_pace pace;         /* of the current phase */
    unsigned busy;               /* connections with an operation in flight */
    double t_last;               /* when the last operation completed */
};

/* Run one phase: operation op on connections 0..C-1 until the pacing has
 * started all operations and every one has completed; its summary goes to
 * l->res.  *issued = operations started.  Returns SIM_OK; SIM_EFAIL for a
 * reply not due by its deadline ("<where>: connection <i>: no reply
 * within ..."), a failed poll, o->stop ("interrupted"), or what a callback
 * returned.  Cost: one poll() and O(C) per round. */
int val_probe_loop_phase(val_probe_loop *l, int op, unsigned C, uint64_t *issued, sim_err *err);

/* From l->ready: the operation on connection i completed at time now.
 * Records it (unless warm-up), counts it and starts the next operation of
 * the phase on i, if any.  Returns SIM_OK or an error from recording or
 * from l->start. */
int val_probe_loop_done(val_probe_loop *l, unsigned i, double now, sim_err *err);

#endif
