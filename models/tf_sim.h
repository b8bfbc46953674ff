/* tf_sim: one replication of the TigerFans system.
 *
 * Role: simulate the benchmark (or open/closed load) against the server as
 * docs/DESIGN.md section 2 describes it: a load generator with its own Python
 * event loop; W server workers, each a single-threaded event loop running
 * every CPU step of its requests one at a time; all loops (and, when
 * co-located, PostgreSQL backends) share the host's K cores by processor
 * sharing; per worker a PostgreSQL gate semaphore and connection pool, a
 * TigerBeetle auto-batcher (one batch in flight) and a Redis client;
 * one PostgreSQL server (backend CPU per statement, group-commit WAL
 * flush, holds table that grows with every hold) and one single-threaded
 * Redis server.
 *
 * Each endpoint is compiled at setup into a program of micro-steps (CPU,
 * semaphore, round trip, batch submit, kind marks): consecutive CPU steps
 * run as one burst on the loop, and every await (round trip, blocked
 * semaphore, batch) yields the loop, so other requests' bursts interleave.
 * Operation timings ("kinds") are measured the way TigerFans measures them:
 * from the call to the moment the coroutine runs again.
 *
 * Wake-ups (server.wake_cpu, postgres.wake_cpu; 0 by default): a burst
 * that arrives at an idle server loop (not running, nothing ready, not the
 * continuation of the burst that just ended) costs wake_cpu more, before
 * its own CPU; a statement that finds one of the host's cores idle
 * (backends on the host), or else no backend running, costs pg_wake_cpu
 * more backend CPU.  An idle thread woken by I/O
 * pays for its sleep (on a VM the vCPU halted: an IPI, a context switch,
 * cold caches); a busy one finds the next event ready, so the cost fades
 * with load.
 *
 * Placement (host.wake_affine; off by default): a statement that reaches
 * its backend while the worker's loop is running a burst and no host core
 * is idle waits until that burst ends, then runs.  Linux wakes a thread on
 * its waker's core when the waker's core is busy and the others are too
 * (a synchronous wake-up over a socket), and it runs when the waker yields.
 * It starts as the burst ends, before the loop takes its next one, so it
 * finds the loop's core free and pays postgres.wake_cpu as any statement
 * that finds a core idle (it stands for the switch of that core from the
 * loop to the backend).  Without wake_affine the statement shares the
 * cores at once (processor sharing).
 *
 * Redis: tf_redis (its main thread's event-loop cycles and, with
 * redis.io_threads > 1, its threaded I/O; see tf_redis.h).  With
 * host.redis_on_host (off by default) its service (redis.service, plus
 * redis.save_extra for a save) is work on the host's cores, so Redis
 * competes with the loops and backends under load; it is woken on the
 * core of the loop that sent the command and runs when that loop sleeps;
 * its spinning I/O threads take turns on the host's cores.  Its reply
 * finds the loop's core awake (Redis ran there while the loop slept): no
 * wake_cpu.  Off the host, Redis has cores of its own.
 *
 * Cost: about 10-30 calendar events per request; memory O(concurrency);
 * nothing is allocated per event in steady state (request and burst pools).
 */
#ifndef TF_SIM_H
#define TF_SIM_H

#include <stdint.h>

#include "models/tf_params.h"
#include "sim/sim_err.h"

enum tf_kind {
    TF_K_HOLD = 0,
    TF_K_COMMIT_ORDER,
    TF_K_SAVE,
    TF_K_GET,
    TF_K_FULFILL,
    TF_K_REMOVE,
    TF_K_ADD_ORDER,
    TF_NKINDS
};
extern const char *const tf_kind_names[TF_NKINDS];

enum tf_comp {
    TF_C_CLIENT = 0, /* load generator loop */
    TF_C_SERVER,     /* server loops (mean over workers) */
    TF_C_HOST,       /* host CPU */
    TF_C_GATE,       /* DB gate (mean over workers) */
    TF_C_POOL,       /* DB pool */
    TF_C_PGCPU,      /* PostgreSQL backend CPU (its share of the host's cores) */
    TF_C_WAL,        /* WAL flush */
    TF_C_REDIS,
    TF_C_TB,         /* TigerBeetle batcher busy (a batch in flight) */
    TF_C_REDIS_IO,   /* Redis's I/O threads started (share of time); queue: threads
                        waiting for a core (tf_redis) */
    TF_NCOMPS
};
extern const char *const tf_comp_names[TF_NCOMPS];

typedef struct tf_phase_out {
    double throughput, walltime;
    double mean, p50, p90, p99;  /* request latency, seconds */
    double errors, ok;
    /* CPU seconds per request of the phase on the client loop and on the
     * server loops (every burst that started during the phase) */
    double cpu_client, cpu_server;
    /* PostgreSQL's backend CPU seconds per request of the phase (every
     * statement that started during the phase, its wake-up included) */
    double cpu_pg;
    /* share of the phase's wall time the load generator's loop, and the
     * server's loops (mean over workers), were running a burst: near 1
     * the loop holds the phase */
    double busy_client, busy_server;
    /* the load generator's connection pool (tf_pool) in the phase: its
     * passes per request as httpcore's housekeeping counts them (with
     * client.httpcore = 0.16 a retry's pass is not one), and the mean
     * connections open and idle when a pass starts, over every pass (NaN
     * without a pass) */
    double pool_passes, pool_conns, pool_idle;
} tf_phase_out;

typedef struct tf_out {
    tf_phase_out phase[TF_NPHASES];
    double kind_mean[TF_NKINDS], kind_sd[TF_NKINDS], kind_n[TF_NKINDS];
    /* per component: utilisation = busy share of its own capacity (one
     * thread for a loop or Redis, the permits of the gate and pool, the
     * host's cores for host_cpu and postgres_cpu), 0..1, NaN when the
     * component did not run or has no capacity in the model (PostgreSQL
     * off the host); queue = mean number waiting (postgres_cpu: backends
     * running); cores = CPU cores it used on the host on average (CPU
     * seconds / elapsed; host_cpu: all of them; redis: all its threads,
     * the I/O threads' spinning too), NaN when not on the host */
    double util[TF_NCOMPS], queue[TF_NCOMPS], cores[TF_NCOMPS];
    double batch_mean, batch_sd, batches;
    double rollbacks, holds_rows_end, events;
    /* invariant witnesses, for tests: most permits ever held, most requests
     * in flight at the client, waves started before the last one ended;
     * statements stacked on a busy loop's core */
    long gate_max, pool_max, gate_permits, pool_permits, inflight_max, wave_overlaps;
    long stacked;  /* statements that waited for their loop's burst (wake_affine) */
    /* the client's pool, per request over all phases: passes, retries
     * (ConnectionNotAvailable), connections opened */
    double pool_passes, pool_retries, pool_conns;
    double redis_threaded_writes;  /* share of Redis's replies written in threaded cycles */
} tf_out;

/* Service demands of one request of a phase at light load (no queueing),
 * for the analytic view: CPU on the client loop, on the server loops
 * (total, before dividing by workers), PostgreSQL backend CPU, Redis
 * service, and the pure latency of everything else (round trips, WAL
 * flushes, TigerBeetle batches). */
typedef struct tf_demand {
    double client, server, pg, redis, latency;
} tf_demand;
void tf_sim_demand(const tf_params *p, int phase, tf_demand *d);

/* Run one replication; seed/rep select the random streams.  Returns
 * SIM_OK, or SIM_EFAIL when a resource bound stopped it. */
int tf_sim_run(const tf_params *p, uint64_t seed, uint32_t rep, tf_out *out, sim_err *err);

#endif
