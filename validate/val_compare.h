/* val_compare: `tfsim compare`: the live driver and the simulator side by
 * side over the values of one config key, with an Amdahl prediction.
 *
 * Steps:
 *  1. Calibration (a light-load probe of the operations): the live run at
 *     concurrency 1 (the first value with concurrency 1, run first; without
 *     one, a run of its own without stand-in CPU, calib_total requests per
 *     phase).  With one request in flight every round trip is timed without
 *     queueing (send to reply), by class, with the CPU used by the loop's
 *     thread, by the PostgreSQL backends of the run and by the host.
 *     Optionally (demands_at) a second run under load without stand-in CPU.
 *  2. Live runs: one per value, with the stand-in CPU asked for.  The
 *     loaded run for the wake-ups is the demands_at run, or else the point
 *     with the largest concurrency above 1 (none: no wake-up costs).
 *  3. Simulation of every value from the same config with the calibrated
 *     parameters (mapping below), `reps` replications (CI), after all live
 *     runs (so that they do not compete for the CPU).
 *  4. Amdahl: per phase from the live point at concurrency 1 (when the key
 *     is client.concurrency and 1 is among the values), as val_scaling's
 *     amdahl_pred: R1 = 1/X(1), sigma1 = (R1 - sum of the phase's kind
 *     means at N = 1) / R1, X(N) = X(1) N / (1 + sigma1 (N - 1)).
 *
 * Mapping of the calibration onto the model's keys (one event loop, no
 * HTTP: the load generator runs inside the live driver's loop):
 *   o_rt = loop CPU seconds (but the spin) / round trips: the driver's own
 *          work per round trip (libpq/hiredis, poll, bookkeeping), which the
 *          measured latencies contain and which is taken out of them
 *   L_s  = mean latency of the simple statements (all but sums, COMMIT)
 *          less o_rt
 *   f    = PostgreSQL backend CPU / (sum of the statements' latencies
 *          less o_rt, COMMIT counted as L_s): the share of a round trip
 *          that is backend CPU (1 when the backends' CPU cannot be read)
 *   wake-ups: CPU per operation = base + wake x share, from concurrency 1
 *          and the loaded run (two equations; wake 0 when the shares differ
 *          by less than 0.1 or the loaded run costs more): for the loop,
 *          share = times its thread slept (voluntary context switches) per
 *          round trip, CPU = o_rt; for PostgreSQL, share = statements sent
 *          with no other in flight / statements, CPU = backend CPU per
 *          statement; p = its wake / its CPU at concurrency 1
 *   o_rt'  = the loop's base; server.wake_cpu its wake (the simulated loop
 *          wakes for every reply at concurrency 1, and only when idle)
 *   postgres.query_cpu     (1 - p) f L_s;  postgres.commit_cpu the same
 *   postgres.wake_cpu      p f L_s (charged when a statement finds a host
 *                          core idle)
 *   postgres.busy_cost     when the loaded run's CPU per statement exceeds
 *                          concurrency 1's (a host dearer when its cores
 *                          are full; on this VM on some days, not others),
 *                          loaded / concurrency-1 - 1, at most 3 (charged
 *                          as a factor when a statement finds every host
 *                          core busy); else 0.  Exactly one of it and
 *                          postgres.wake_cpu can be above 0
 *   host.rtt               L_s + o_rt - o_rt' - server.wake_cpu - f L_s
 *                          (the rest of the round trip: at concurrency 1
 *                          the simulated round trip takes what the
 *                          measured one took)
 *   postgres.row_cost      4 f b / scan_fraction, b the slope of the sums'
 *                          latency against the holds rows made so far
 *                          (least squares, >= 30 sums spread over >= 100
 *                          rows); else 4 f (mean sum latency - L_s) /
 *                          (scan_fraction x mean holds rows of the run)
 *   postgres.sum_cpu       f (a0 - o_rt - L_s), a0 that line at no rows
 *                          (0 without the line)
 *   postgres.flush_wait    the loaded run's seconds per WAL flush less
 *                          concurrency 1's (pg_stat_wal's sync and write
 *                          time over its fdatasync calls, when the server
 *                          has track_wal_io_timing = on), over the loaded
 *                          run's threads waiting for a CPU less
 *                          concurrency 1's (the loop's and the backends'
 *                          schedstat waits over the run's time), at least
 *                          0, at most 10 ms (charged to a flush per
 *                          simulated thread waiting for a core when it
 *                          starts: its backend waits behind them after
 *                          the disk); 0 without the figures
 *   postgres.commit_wake   the mean latency of the COMMITs of transactions
 *                          that ran sums (holds) less the other COMMITs'
 *                          (at least 0; 0 without both)
 *   postgres.flush         ML fit (val_fit) of the COMMIT latencies (but
 *                          those after sums, unless they are all) less
 *                          o_rt' + wake + rtt + f L_s: the lowest-AIC family,
 *                          scaled to the sample mean
 *   postgres.jitter        1 (means only; latency tails are in the fits)
 *   redis.service          the same fit of the Redis round trips but the
 *                          saves, less o_rt' + rtt (+ wake when Redis is
 *                          off the host); all of them when only saves ran
 *   redis.save_extra       the saves' mean round trip less the others'
 *                          (0 without both)
 *   host.redis_on_host     true when round trips went to Redis and its CPU
 *                          could be read (INFO cpu, only for a server on
 *                          this machine: unix socket or loopback address)
 *   redis.io_threads, redis.io_threads_do_reads
 *                          the server's io-threads and io-threads-do-reads
 *                          (CONFIG GET in the calibration run; left as the
 *                          config has them when the server does not say)
 *   host.wake_affine       true with the backends on the host (a statement
 *                          stacked on its busy loop's core waits for the
 *                          loop's burst when no core is idle)
 *   CPU steps, exactly what the live driver spins (scale s, per step c):
 *   server.cpu_request     s x cpu_request + 2c (split so that the part
 *                          before the first await is s x its part + c)
 *   server.cpu_checkout, cpu_webhook   s x theirs
 *   postgres.loop_cpu_txn  s x loop_cpu_txn + 2c (c per half)
 *   postgres.loop_cpu_query, redis.loop_cpu   s x theirs + c + o_rt'
 *   fixed values, from the `live` column of the parameter registry
 *   (models/tf_params.c), so that a new parameter says its own:
 *   server.cpu_shape = 1, crowding = 0, accept_cpu = 0 (no HTTP)
 *   client.cpu = 0, crowding = 0, connect_cpu = 0, pool_* = 0,
 *          send_yields = recv_yields = 0, keepalive_expiry = 0 (never):
 *          the live driver has no HTTP layer; the load generator's
 *          per-request work is on the loop and inside o_rt;
 *          client_on_host = true;
 *          postgres.jitter = 1
 *   host.cores             online CPUs minus the cores other processes used
 *                          during that point's live run (cores_auto), or the
 *                          given number; at least 1
 *   host.postgres_on_host  true (false when f could not be measured)
 * Everything else (gate, pool, pre_ping, holds_rows, row_locks, phases,
 * total, modes, inventory) comes from the config.
 *
 * Ownership: val_compare owns its points (val_compare_fini); the base
 * config and the options are borrowed.  Cost: the live runs' wall time
 * plus values x reps simulations.
 */
#ifndef VAL_COMPARE_H
#define VAL_COMPARE_H

#define VAL_COMPARE_MAX_LIVE_REPS 100 /* live runs per point at most */

#include <stddef.h>

#include "sim/sim_cfg.h"
#include "sim/sim_err.h"
#include "sim/sim_table.h"
#include "validate/val_live.h"
#include "validate/val_live_srv.h"

typedef struct val_compare_opts {
    const char *key;          /* the varied "section.key" */
    char *const *values;      /* its values (borrowed) */
    size_t n;
    unsigned reps;            /* simulation replications per point (>= 2 for a CI; 0: config's) */
    long calib_total;         /* requests per phase of a calibration run of its own (0: the
                                 config's total) */
    long demands_at;          /* > 0: the loaded run for the wake-ups is a run at this
                                 concurrency (0: the largest value's live run) */
    double cores;             /* > 0: host.cores for the simulation; 0: online CPUs minus
                                 the background measured at each point */
    unsigned live_reps;       /* live runs per point (0 or 1: one), in rounds of one run per
                                 point; the live figure of a phase is the median of its
                                 complete runs */
    val_live_opts live;       /* stand-in CPU, stop flag, phase progress */
    const val_live_srv *srv;  /* the servers (borrowed) */
    /* Called before each step ("calibration", "live 3/5: client.concurrency=4",
     * "simulation"); may be NULL. */
    void (*step)(void *ctx, const char *what);
    void *step_ctx;
} val_compare_opts;

/* What the calibration measured and what it maps onto (see above). */
typedef struct val_compare_calib {
    double o_rt, l_simple, l_sum, l_commit, l_redis, f, rows_avg, background;
    double rtt, query_cpu, row_cost, sum_cpu;
    double commit_wake;                 /* postgres.commit_wake */
    double wake, pg_wake;               /* server.wake_cpu, postgres.wake_cpu */
    double pg_busy;                     /* postgres.busy_cost */
    double flush_wait;                  /* postgres.flush_wait */
    long loaded_at;                     /* concurrency of the loaded run (0: none) */
    /* measured: CPU per round trip of the loop and per statement, loop
     * sleeps per round trip, share of statements sent alone; _1 at
     * concurrency 1, _n in the loaded run (NaN: none) */
    double o_rt_1, o_rt_n, pg_stmt_1, pg_stmt_n;
    double loop_sleep_1, loop_sleep_n, pg_alone_1, pg_alone_n;
    double flush_1, flush_n;            /* seconds per WAL flush (pg_stat_wal) */
    double wait_1, wait_n;              /* threads waiting for a CPU (schedstat) */
    char flush[2048], redis_service[2048];  /* distribution specs */
    double save_extra;                  /* redis.save_extra */
    long redis_io_threads;              /* the server's io-threads (0: unknown) */
    int redis_io_reads;                 /* its io-threads-do-reads (-1: unknown) */
    int pg_on_host, redis_on_host;
    /* Redis served round trips from this machine but refused INFO cpu (an
     * ACL): its CPU is unknown and it is simulated off the host */
    int redis_cpu_unknown;
} val_compare_calib;

typedef struct val_compare_point {
    char value[128];
    long concurrency;              /* client.concurrency of the point */
    val_live_out live;             /* the representative live run (the median elapsed
                                      time); phase throughputs: the median over the
                                      point's runs */
    val_live_out pooled;           /* the point's runs pooled (val_compare_pool): what
                                      the calibration and the loaded run read */
    unsigned live_runs;            /* live runs made (the rest cut short by a failure) */
    double live_lo[TF_NPHASES], live_hi[TF_NPHASES]; /* range of the runs' throughputs */
    double background;             /* cores used by other processes during the first run */
    double cores;                  /* host.cores simulated */
    double sim[TF_NPHASES], sim_half[TF_NPHASES];
    /* threads runnable but waiting for a CPU, time average over the run:
     * live, the loop and the backends (schedstat; NaN: unknown); simulated,
     * the host's jobs beyond its cores (processor sharing) */
    double live_wait, sim_wait;
    /* share of Redis's replies its I/O threads wrote: live, INFO stats of
     * the representative run; simulated, the run row's
     * redis_threaded_writes (NaN: no Redis, or unknown) */
    double live_threaded, sim_threaded;
    unsigned reps;                 /* simulation replications run */
    double amdahl[TF_NPHASES];
} val_compare_point;

typedef struct val_compare {
    val_compare_calib cal;
    val_compare_point *pts;        /* n, owned */
    size_t n;
    int phase_on[TF_NPHASES];
    double ncpu;                   /* online CPUs */
    double mape, max_err, mape_amdahl;  /* percent; NaN without values */
    long npoints;                  /* the points in mape */
    long within;                   /* of them, simulated within SIM_MAPE_WITHIN % of live */
    long beyond;                   /* the others outside their live runs' range (a miss the
                                      machine's own run-to-run spread does not cover) */
} val_compare;

/* Run the comparison over base (the loaded config with the user's
 * overrides; borrowed).  c is caller storage, filled; free with
 * val_compare_fini (also after a failure: the points measured so far are
 * kept).  Returns SIM_OK; SIM_EINPUT for a config or value that the live
 * driver or the model rejects (checked before anything runs); SIM_EFAIL
 * for a server failure (message naming the server) or a failed
 * simulation. */
int val_compare_run(const sim_cfg *base, const val_compare_opts *o, val_compare *c, sim_err *err);
void val_compare_fini(val_compare *c);

/* Fill the points' amdahl values and c's error summary (mape, max_err,
 * mape_amdahl) from the points' live and simulated throughputs (run by
 * val_compare_run; exported for tests).  key: the varied key (Amdahl only
 * for client.concurrency, from the point with concurrency 1). */
void val_compare_analyse(val_compare *c, const char *key);

/* A distribution spec for the model from measured times x[0..n) (borrowed)
 * less `minus` (what the model already charges around them; each at least
 * 100 ns), written into spec (len bytes): the lowest-AIC parametric fit
 * (val_fit), scaled to the sample mean, since the model needs the mean
 * right and a smooth tail (an empirical fit interpolates up to the largest
 * sample and can move the mean a lot).  The constant mean instead with
 * fewer than VAL_FIT_MIN_N samples, no fit, or when more than a quarter of
 * the samples are at most `minus`: they all become 100 ns, and a family
 * fitted to such a spike is degenerate (e.g. a lognormal with sigma 5,
 * whose rare huge draws the model would then make).  Returns SIM_OK or the
 * fit's error (err). */
int val_compare_fit_spec(const double *x, size_t n, double minus, char *spec, size_t len, sim_err *err);

/* postgres.busy_cost from the backends' CPU per statement at concurrency 1
 * (stmt_1) and in the loaded run (stmt_n), seconds: stmt_n / stmt_1 - 1 when
 * the loaded run costs more, at most 3; 0 when it costs less or the same
 * (then the difference is a wake-up cost) or either is missing (NaN) */
double val_compare_busy_cost(double stmt_1, double stmt_n);

/* postgres.flush_wait from the seconds per WAL flush and the threads
 * waiting for a CPU (time averages) at concurrency 1 (flush_1, wait_1) and
 * in the loaded run (flush_n, wait_n): (flush_n - flush_1) / (wait_n -
 * wait_1), seconds per waiting thread, at most 10 ms, when the loaded
 * run's flushes take longer and at least 0.1 more threads wait in it;
 * else, or when one is missing (NaN: no pg_stat_wal, track_wal_io_timing
 * off, no schedstat), 0 */
double val_compare_flush_wait(double flush_1, double wait_1, double flush_n, double wait_n);

/* The seconds per WAL flush (*flush) and the threads waiting for a CPU
 * (*wait, time average) of run o (borrowed) over its complete phases in
 * which Redis's I/O threads wrote nothing (ph_threaded 0, or NaN: no
 * Redis; the phase's other counters known), where postgres.flush_wait's
 * price holds: where the I/O threads spin, a flush's backend woken after
 * its write waits for a spinning thread's time slice instead.  When no
 * phase is known to be quiet, the whole run's figures (NaN where
 * unknown). */
void val_compare_quiet_flush(const val_live_out *o, double *flush, double *wait);

/* runs[0..n) (borrowed, n >= 1) of one configuration pooled into *out:
 * counts, CPU seconds, waits, WAL flushes and elapsed times (the per-phase
 * ones too) summed, each
 * round-trip class's statistics pooled (count, mean and sd over all its
 * round trips, least minimum); the rest (phases, kinds, settings, the
 * holds rows) from runs[0].  A NaN in any run makes the sum NaN. */
void val_compare_pool(const val_live_out *runs, unsigned n, val_live_out *out);

/* The simulation overrides for stand-in scale s and per-step c, cores:
 * appended as "section.key=value" lines (each ending in '\n') to buf (len
 * bytes).  Returns the length written (truncated to fit). */
size_t val_compare_overrides(const val_compare_calib *cal, const tf_params *p, double s, double c,
                             double cores, char *buf, size_t len);

/* Append to t: one row per phase and point (scope "point": value, phase,
 * live, simulated, simulated_ci, amdahl, sim_err_pct, amdahl_err_pct,
 * background_cores) and one per phase plus "all" (scope "mape": the mean
 * absolute percentage errors of the simulation and of Amdahl, and the
 * largest absolute error).  key names the value column. */
void val_compare_table(const val_compare *c, const char *key, sim_table *t);

#endif
