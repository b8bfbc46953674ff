/* val_live: the live driver's engine: the TigerFans endpoint programs of
 * tf_prog run as coroutines on one single-threaded event loop, against a
 * backend that performs the round trips (real servers in val_live_srv, a
 * fake clock in the unit tests).
 *
 * Semantics (those of the simulator, tf_sim): the load generator runs the
 * configured phases in order (checkout, webhook, reserve, commit), `total`
 * requests each, as a sliding window of `concurrency` requests or as waves
 * of `concurrency` requests (the next wave starts when the whole wave has
 * finished); benchmark mode = window for checkout and reserve, waves for
 * webhook and commit.  A request starts by joining the loop's ready queue.
 * The loop runs the ready coroutines one at a time, each until its next
 * await, in the order they became ready (a reply when it arrived, a
 * semaphore waiter when the permit was released, a new request when it
 * started; at one instant a new request after the others, as it comes
 * through the client), and collects the replies after each one: the
 * simulator's loop (a unit test checks that both give the same numbers on
 * deterministic inputs).  asyncio collects I/O once per batch of ready
 * callbacks instead, which changes that order a little under contention.
 * Program steps:
 *   TF_U_CPU   busy CPU on the loop: spin for cpu_scale x the step's cpu
 *              seconds + cpu_per_step (the stand-in for the Python
 *              server's serial work)
 *   TF_U_KB/KE a kind timer starts / stops: like TigerFans' timers, a
 *              kind's time runs from the call to the moment the coroutine
 *              runs again, so it includes the wait for the loop
 *   GATE, POOL the DB gate (postgres.gate permits) and the connection pool
 *              (pool_size + pool_overflow permits): FIFO semaphores that
 *              yield only when they must wait; each pool permit carries a
 *              connection index (one connection per PG transaction)
 *   TF_U_PG    one PostgreSQL round trip on the request's connection
 *   TF_U_REDIS one Redis round trip
 *   TF_U_END   the response: the request's latency is recorded and the
 *              load generator starts what follows
 * A hold's insert is skipped (no round trip) when the capacity read by the
 * hold is used up; a hold that found no ticket makes the request an error
 * (not counted in the throughput), as in the simulator.
 * Phase throughput = successful requests / phase wall time.
 *
 * Supports architectures with PostgreSQL accounting (pg_pg, pg_redis), one
 * worker (one event loop) and the client modes benchmark, window and
 * waves.  Invariants: at most `concurrency` requests in flight; gate and
 * pool never exceed their permits; waves never overlap (witnesses in
 * val_live_out, for tests).
 * Cost: O(1) per program step besides the backend; memory O(concurrency +
 * total) (the holds each checkout and reserve made, for the webhook and
 * commit phases that post them).
 */
#ifndef VAL_LIVE_H
#define VAL_LIVE_H

#include <signal.h>
#include <stdint.h>

#include "models/tf_params.h"
#include "models/tf_prog.h"
#include "models/tf_sim.h"
#include "sim/sim_err.h"
#include "sim/sim_table.h"

/* Most requests per phase the live driver accepts (memory for the holds). */
#define VAL_LIVE_MAX_TOTAL 10000000L

/* Round-trip classes for the per-call statistics: the PostgreSQL
 * statements (enum tf_pg_query) then the Redis operations (enum
 * tf_redis_op). */
enum { VAL_LIVE_PG0 = 0, VAL_LIVE_REDIS0 = TF_Q_COMMIT + 1, VAL_LIVE_NCLASS = VAL_LIVE_REDIS0 + TF_R_REMOVE + 1 };
/* "pg.ping", ..., "redis.remove" */
extern const char *const val_live_class_names[VAL_LIVE_NCLASS];
/* on_call's flags: a COMMIT whose transaction ran sums (a hold's) */
enum { VAL_LIVE_AFTER_SUMS = 1 };

/* One round trip the engine asks the backend for. */
typedef struct val_live_call {
    int code;           /* TF_U_PG or TF_U_REDIS */
    int op;             /* enum tf_pg_query or enum tf_redis_op */
    int kind;           /* enum tf_kind of the operation it belongs to */
    int nth;            /* calls of this op before it within the operation (0, 1, ...) */
    unsigned conn;      /* TF_U_PG: the request's pool connection */
    int cls;            /* ticket class of the request, [0, classes) */
    uint64_t id;        /* order number: webhook i works on checkout i's session */
    long long holds[2]; /* ids of the order's ticket and goodie holds (0: none) */
    int npost;          /* holds commit_order posts: 2, or 1 (the ticket's) in the
                           pg_pg webhook, which reads try_goodie as a boolean */
} val_live_call;

typedef struct val_live val_live;

/* The backend.  Every function gets ctx.  Failures return SIM_EFAIL with
 * a message naming the server and what failed. */
typedef struct val_live_io {
    void *ctx;
    double (*now)(void *ctx);                 /* seconds, monotonic */
    void (*spin)(void *ctx, double seconds);  /* busy CPU on the loop's thread */
    /* Send the round trip c (borrowed for the call) for request tag. */
    int (*start)(void *ctx, const val_live_call *c, unsigned tag, sim_err *err);
    /* Collect replies: report each complete round trip with val_live_done.
     * block = 1: wait until at least one completes (bounded by the
     * backend's timeout); block = 0: only what has already arrived. */
    int (*wait)(void *ctx, val_live *e, int block, sim_err *err);
    /* Called when phase completes, before the next one starts (may be
     * NULL): a backend that reads the servers' counters marks the phase's
     * share of them (val_live_out's ph_ figures). */
    void (*phase_end)(void *ctx, int phase);
} val_live_io;

/* Report the reply of request tag's round trip: value = the first column
 * of a PostgreSQL result (capacity, sum, new hold id; 0 if none); t = when
 * it arrived (io->now's clock; a real backend passes the time it read it). */
void val_live_done(val_live *e, unsigned tag, long long value, double t);

typedef struct val_live_opts {
    double cpu_scale;      /* factor on the programs' CPU steps (default 1) */
    double cpu_per_step;   /* seconds added to every CPU step (default 0) */
    const volatile sig_atomic_t *stop;  /* set (e.g. by SIGINT) to stop; may be NULL */
    /* Called after each phase (may be NULL). */
    void (*progress)(void *ctx, int phase, double ok, double wall);
    void *progress_ctx;
    /* Called for every round trip with its class, its latency, the holds
     * rows made so far (preloaded ones included) and its flags
     * (VAL_LIVE_AFTER_SUMS) (may be NULL). */
    void (*on_call)(void *ctx, int cls, double latency, double rows, int flags);
    void *on_call_ctx;
} val_live_opts;

void val_live_opts_init(val_live_opts *o);

/* Statistics of one round-trip class: latency from the send to the moment
 * the loop reads the complete reply (before the coroutine waits for its
 * turn; when the loop is busy, it reads replies only between turns). */
typedef struct val_live_cstat {
    double n, mean, sd, min;
} val_live_cstat;

typedef struct val_live_out {
    /* per phase, as tf_sim reports it (NaN for phases not run; a phase cut
     * short by a failure reports what it completed, wall up to the stop) */
    tf_phase_out phase[TF_NPHASES];
    int phase_ran[TF_NPHASES];       /* 1 complete, 2 cut short */
    double kind_mean[TF_NKINDS], kind_sd[TF_NKINDS], kind_n[TF_NKINDS];
    double phase_kind_mean[TF_NPHASES][TF_NKINDS]; /* the same per phase (NaN: none) */
    val_live_cstat call[VAL_LIVE_NCLASS];
    val_live_cstat commit_after_sums; /* the COMMITs (among call's) of transactions that ran sums */
    double spin;                     /* seconds spun in CPU steps */
    double elapsed;                  /* seconds from the first phase's start to the end */
    double calls, requests;          /* round trips and requests completed */
    double idle_waits;               /* times the loop waited for I/O with no coroutine
                                        ready (it went idle unless a reply was there) */
    double pg_alone;                 /* PostgreSQL statements sent while no other one
                                        was in flight (sent, reply not yet read) */
    double holds_rows_end;           /* holds rows when the run ended */
    /* filled by the real backend (NaN otherwise): CPU seconds used by the
     * loop's thread, by the PostgreSQL backends of the run's connections,
     * by the Redis server (NaN unless it runs on this machine: a unix
     * socket or a loopback address), and by the whole host (all cores),
     * during the run;
     * times the loop's thread blocked (voluntary context switches: it slept
     * and a reply woke it) */
    double loop_cpu, pg_cpu, redis_cpu, host_cpu, loop_sleeps;
    /* share of the run's Redis round trips whose replies the server's I/O
     * threads wrote (INFO stats io_threaded_writes_processed over the
     * round trips; NaN without Redis or the counter) */
    double redis_threaded_writes;
    /* the PostgreSQL server's WAL flushes (fdatasync) during the run and
     * the seconds they took, writes included (pg_stat_wal; the time needs
     * track_wal_io_timing = on; NaN: unknown; the whole server's) */
    double pg_flushes, pg_flush_time;
    /* seconds the loop's thread and the backends were runnable but waited
     * for a CPU (schedstat; on Linux this includes waking a halted vCPU) */
    double loop_wait, pg_wait;
    /* the same per phase that completed (NaN: unknown or not run), over
     * the ph_elapsed seconds from the counters' reading before the phase
     * to the one after its last reply: WAL flushes and their seconds, the
     * loop's and the backends' seconds waiting for a CPU, and Redis's
     * threaded writes (a count) */
    double ph_elapsed[TF_NPHASES], ph_flushes[TF_NPHASES], ph_flush_time[TF_NPHASES];
    double ph_wait[TF_NPHASES], ph_threaded[TF_NPHASES];
    double cores;                    /* online CPUs of the host (NaN: unknown) */
    /* the Redis server's io-threads and io-threads-do-reads (CONFIG GET;
     * 0 and -1: unknown or no Redis) */
    long redis_io_threads;
    int redis_io_reads;
    /* invariant witnesses */
    long gate_max, pool_max, inflight_max, wave_overlaps;
} val_live_out;

/* Connections the engine uses for params p: the pool's connection indices
 * are [0, val_live_pool_size(p)) (at most gate, pool permits and
 * concurrency: one per transaction in flight). */
unsigned val_live_pool_size(const tf_params *p);
/* Most round trips in flight at once (one per request in flight). */
unsigned val_live_slots(const tf_params *p);

/* Check that the live driver can run p: SIM_EINPUT naming the key
 * otherwise (TigerBeetle accounting, more than one worker, poisson/closed
 * modes, a total above VAL_LIVE_MAX_TOTAL). */
int val_live_check(const tf_params *p, sim_err *err);

/* Run the phases of p against io.  out (caller storage) is always filled
 * with what was measured, also on failure.  Returns SIM_OK, SIM_EINPUT
 * (val_live_check), or the backend's SIM_EFAIL; SIM_EFAIL "interrupted"
 * when o->stop was set. */
int val_live_run_io(const tf_params *p, const val_live_opts *o, const val_live_io *io,
                    val_live_out *out, sim_err *err);

/* Append the results to t (borrowed) in the layout of `tfsim run` with one
 * replication: columns scope, name, then the metrics; rows phase (per phase
 * run: throughput, latency_mean, p50, p90, p99, errors, walltime),
 * component (utilisation of server_loop, postgres_cpu, redis and host_cpu:
 * CPU seconds / elapsed, over the cores for postgres_cpu and host_cpu;
 * cpu_wait of server_loop and postgres_cpu: seconds runnable but waiting
 * for a CPU / elapsed, the mean number of those threads waiting),
 * kind (mean, sd, count), round_trip (per class seen: mean, sd, count: send
 * to reply, without the wait for the loop) and run totals (holds_rows_end,
 * round_trips, idle_waits, loop_sleeps, pg_alone, spin, elapsed,
 * redis_threaded_writes, pg_wal_flushes, pg_wal_flush_ms) and, for each
 * complete phase whose servers' counters the backend read, run PHASE
 * (elapsed, cpu_wait: the loop and backends waiting for a CPU, time
 * average; threaded_writes: Redis's count; pg_wal_flushes;
 * pg_wal_flush_ms).  text: values formatted for people. */
void val_live_table(const val_live_out *o, int text, sim_table *t);

#endif
