/* val_calib: simulation-based calibration of the TigerFans model against
 * measured benchmark points (throughput per phase and operation timings
 * per concurrency): the engine (simulate the points, the objective, the
 * fit) and `tfsim calibrate` as opts -> run -> tables.
 *
 * Method: minimise the sum over points of squared log errors of the four
 * phase throughputs plus kind_weight times the squared log errors of the
 * kind means, over the chosen parameters in log space, with GSL's
 * Nelder-Mead simplex (gsl_multimin_fminimizer_nmsimplex2).  Every
 * evaluation simulates every point with the same seed (common random
 * numbers), so the objective is a deterministic, nearly smooth function;
 * the points of an evaluation are simulated on `jobs` threads, each point
 * on one thread with its own seeds, so that the result does not depend on
 * jobs.  Parameters are config keys ("section.key") of the registry
 * (models/tf_params.c: bounds and the default set come from its rows);
 * values are plain numbers in the key's base unit (seconds, rows, cores);
 * a distribution key is fitted through its mean (its family and shape
 * stay those of the base config).
 *
 * The fit, in three steps, so that a full calibration costs about 40
 * evaluations' worth of simulation rather than 150:
 *  1. a start from the light-load demands: the fitted parameters the
 *     registry marks as demands (CPU and service costs) are scaled
 *     together by one factor (1/4..4, GSL's Brent minimiser) so that the
 *     lowest concurrency's point matches best (a few evaluations of that
 *     point alone), so that a file from another machine does not start the
 *     simplex from this machine's costs; then the holds table's cost per
 *     row (postgres.row_cost, when fitted and the points have rows) alone,
 *     scaled the same way (1/16..16) to every fitted point: the lowest
 *     concurrency has too few rows to tell it;
 *  2. with 8 fitted points or more, a coarse simplex (step `step`,
 *     tolerance 3 tol) on 4 points spread over the concurrencies (the
 *     lowest, the highest, two between): a third of an evaluation's cost;
 *  3. the simplex on every fitted point from there (step / 3, tolerance
 *     tol).
 * Each simplex also stops when its best value has improved by less than
 * 0.2% over max(parameters + 1, 10) iterations: improvements the
 * simulation's noise cannot tell apart.  Held-out points (weight 0) are
 * simulated only for the report.
 *
 * Cache: a calibration is identified by its key, a hash of what decides
 * its result: the points (data, weights, database states), the
 * architecture, the model version (a fingerprint of reference simulations,
 * so that any change of the model's results changes it), the fitting
 * method's version (VAL_CALIB_METHOD), the fitted keys with their bounds
 * and start values, the base config and the fit options.
 * A val_calib_cache (callbacks, e.g. the results database) returns the
 * fitted values stored under a key; the same key always gives the same
 * values as a fresh fit.
 *
 * Cost: evaluations x points x replications simulations (about 20 ms each
 * with 1000 requests per phase) / jobs.
 * Ownership: the caller owns every array; the base config is borrowed;
 * val_calibration owns what it holds (val_calib_fini).
 */
#ifndef VAL_CALIB_H
#define VAL_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "models/tf_params.h"
#include "models/tf_sim.h"
#include "sim/sim_cfg.h"
#include "sim/sim_err.h"
#include "sim/sim_table.h"
#include "validate/val_series.h"
#include "validate/val_tigerbench.h"

/* The fitting method's version, part of a calibration's key: bump it with
 * any change of how a fit proceeds (steps, stopping rules), so that a fit
 * stored by an older tfsim is not taken for what this one would find. */
#define VAL_CALIB_METHOD 5

#define VAL_CALIB_MAX_PARAMS 32
#define VAL_CALIB_MAX_POINTS 256

/* The components whose CPU per request a calibration can fit to. */
enum { VAL_CALIB_CPU_CLIENT = 0, VAL_CALIB_CPU_SERVER, VAL_CALIB_CPU_PG, VAL_CALIB_NCPU };

typedef struct val_calib_point {
    long concurrency;
    double holds_rows, goodies;     /* state of the database at this point */
    double thr[TF_NPHASES];         /* measured mean throughput (NaN: absent) */
    double kind[TF_NKINDS];         /* measured mean kind time (NaN: absent) */
    double weight;                  /* 1 for points fitted, 0 for points only reported */
    int phase_out[TF_NPHASES];      /* 1: that phase's throughput only reported
                                       (`--phases`); 0 (zeroed storage): fitted */
    /* measured CPU seconds per request of each phase on the load
     * generator, the server and PostgreSQL (VAL_CALIB_CPU_*; `--cpu`);
     * 0 (zeroed storage): not measured, no term */
    double cpu[VAL_CALIB_NCPU][TF_NPHASES];
    double cpu_weight;              /* their weight relative to a throughput's */
} val_calib_point;

typedef struct val_calib_param {
    char key[64];      /* "section.key" */
    char spec[512];    /* distribution keys: the base spec, whose mean `value` sets
                          (family and shape kept); "" for numbers */
    double value;      /* start value in, fitted value out */
    double lo, hi;     /* bounds (> 0; the search is in log space) */
} val_calib_param;

typedef struct val_calib_opts {
    uint64_t seed;
    unsigned reps;        /* replications per point per evaluation */
    unsigned max_iter;    /* simplex iterations */
    double kind_weight;   /* weight of the kind timings in the objective */
    double tol;           /* stop when the simplex size falls below this (log units) */
    double step;          /* initial simplex step (log units) */
    int jobs;             /* threads simulating the points of an evaluation */
    int light_start;      /* start from the light-load demands (see above) */
    /* Called after every evaluation: evaluations so far and the estimated
     * share of the work done (0..1); may be NULL. */
    void (*progress)(void *ctx, unsigned evals, double done);
    void *progress_ctx;
} val_calib_opts;

/* The defaults (one place): seed 1, 2 replications, 150 iterations, kind
 * weight 0.25, tolerance and step as documented in docs/calibration.md, jobs = the
 * online CPUs, light start on. */
void val_calib_opts_init(val_calib_opts *o);

/* Simulated values at one point. */
typedef struct val_calib_sim {
    double thr[TF_NPHASES], thr_ci[TF_NPHASES];
    double kind[TF_NKINDS];
    /* share of each phase's time [0] the load generator's loop and [1] the
     * server's loops were busy (tf_phase_out busy_client, busy_server) */
    double busy[2][TF_NPHASES];
    double cpu[VAL_CALIB_NCPU][TF_NPHASES]; /* CPU s per request (tf_phase_out cpu_*) */
} val_calib_sim;

/* Fill pts (up to max) with the points of architecture arch: one per
 * concurrency with phase rows (measured throughputs and kinds), or, when
 * the file has only kind rows for arch, one per concurrency with kind rows
 * (throughputs NaN).  Database state from the series (val_series, built
 * from the same file).  Returns SIM_OK and the count in *n, or SIM_EINPUT
 * naming the file. */
int val_calib_points(const val_tigerbench *tb, const val_series *ser, const char *arch,
                     val_calib_point *pts, size_t max, size_t *n, sim_err *err);

/* "section.key=value" of a parameter at its value (numbers exactly, a
 * distribution as its spec scaled to the mean) into buf (len bytes). */
int val_calib_param_text(const val_calib_param *p, char *buf, size_t len, sim_err *err);

/* A key "section.key": its section's length (up to its last dot; 0 without
 * one), and whether two keys share a section.  The INI writers (calibrate's
 * and fit's --config-out) give each section once, in the order of first
 * appearance. */
size_t val_calib_section_len(const char *key);
int val_calib_same_section(const char *a, const char *b);

/* Simulate every point with the base config, the point's state, then the
 * parameter values.  Fills sims[npts]. */
int val_calib_simulate(const sim_cfg *base, const val_calib_param *params, size_t nparams,
                       const val_calib_point *pts, size_t npts, const val_calib_opts *o,
                       val_calib_sim *sims, sim_err *err);

/* Scale the parameters with which[i] != 0 together by one factor in
 * 1/range..range (log scale: a grid of 9 then GSL's Brent minimiser) to
 * minimise the objective at pts; the others stay.  Leaves params at the
 * best factor (*factor).  *evals (may be NULL) counts evaluations. */
int val_calib_scale(const sim_cfg *base, val_calib_param *params, size_t np, const int *which,
                    const val_calib_point *pts, size_t npts, const val_calib_opts *o,
                    double range, double *factor, unsigned *evals, sim_err *err);

/* The objective for given simulated values (weighted squared log errors:
 * the throughputs, the kinds times kind_weight, the measured CPU per
 * request times each point's cpu_weight). */
double val_calib_objective(const val_calib_point *pts, const val_calib_sim *sims, size_t npts,
                           double kind_weight);

/* Fit params (values updated in place).  *objective receives the final
 * objective, *iters the iterations used, *evals (may be NULL) the
 * evaluations. */
int val_calib_fit(const sim_cfg *base, val_calib_param *params, size_t nparams,
                  const val_calib_point *pts, size_t npts, const val_calib_opts *o,
                  double *objective, unsigned *iters, unsigned *evals, sim_err *err);

/* The parameters to fit: the comma-separated keys in list (NULL: the
 * registry's default set), start values from cfg, bounds from the
 * registry.  SIM_EINPUT for an unknown or non-numeric key. */
int val_calib_params(const char *list, const sim_cfg *cfg, val_calib_param *params, size_t max,
                     size_t *n, sim_err *err);

/* Current value of "section.key" in cfg (schema default if unset): the
 * number, or a distribution's mean (its spec into spec when spec_len > 0). */
int val_calib_value(const sim_cfg *cfg, const char *key, double *v, char *spec, size_t spec_len,
                    sim_err *err);

/* The config a calibration or prediction of architecture arch starts
 * from: base_path (NULL: the embedded defaults), arch's backends, the
 * settings the file records for arch (val_calib_file_settings), then the
 * overrides in ov (may be NULL: --set wins over the file, a what-if).
 * SIM_EINPUT when arch is not in tb or its backends are not modelled. */
/* The settings TigerBench's CSV records for a's runs, into cfg, each
 * only where it differs from cfg's value (origin "name: column"):
 * db_pool_size -> postgres.pool_size and postgres.gate (TigerFans'
 * DB_GATE_LIMIT defaults to DB_POOL_SIZE: tigerfans/infra/sql.py),
 * arg_succeed_rate -> client.succeed_rate, the requests per repetition
 * -> client.total (the last two only when every row agrees).
 * webhook_mode and redis_max_conn have no model key (predict notes them). */
int val_calib_file_settings(const char *name, const val_tigerbench_arch *a, sim_cfg *cfg,
                            sim_err *err);
/* The pool size and DB gate a's db_pool_size means for the simulation
 * (0, SQLAlchemy's unbounded pool, under TigerFans' gate of max(1, 0): 1);
 * -1 when the file has no db_pool_size. */
long val_calib_file_pool(const val_tigerbench_arch *a);
int val_calib_base(const char *base_path, const val_tigerbench *tb, const char *arch,
                   const sim_cfg *ov, sim_cfg *cfg, sim_err *err);
/* The same for an architecture given as a record (borrowed; it need not be
 * in any file: val_tigerbench_arch_named); name is the file named in
 * messages. */
int val_calib_base_arch(const char *base_path, const char *name, const val_tigerbench_arch *a,
                        const sim_cfg *ov, sim_cfg *cfg, sim_err *err);
/* SIM_OK when tfsim models a's backends (accounting pg or tb, payments pg
 * or redis); else SIM_EINPUT naming name (the file) and a. */
int val_calib_arch_modelled(const char *name, const val_tigerbench_arch *a, sim_err *err);

/* The model version: 16 hex digits fingerprinting reference simulations
 * of the embedded defaults (static storage, computed once). */
const char *val_calib_model_version(void);

/* ---- tfsim calibrate: opts -> run -> tables ---- */

struct val_calibration;

/* Where calibrations are kept between runs (e.g. the results database).
 * load: the values stored under key into params[0..np) (same keys in the
 * same order), *objective, *iters; returns 1 when found, 0 when not, or an
 * error code.  save: store c under its key (c->key); SIM_OK or an error.
 * Either may be NULL. */
typedef struct val_calib_cache {
    int (*load)(void *ctx, const char *key, val_calib_param *params, size_t np,
                double *objective, unsigned *iters, sim_err *err);
    int (*save)(void *ctx, const struct val_calibration *c, sim_err *err);
    void *ctx;
} val_calib_cache;

typedef struct val_calib_run_opts {
    const char *file;          /* TigerBench CSV */
    const char *arch;
    const char *config;        /* base config, or NULL: the embedded defaults */
    const sim_cfg *overrides;  /* --set (borrowed; may be NULL) */
    const char *fit;           /* keys to fit, comma-separated; NULL: the default set */
    const char *points;        /* concurrencies fitted, comma-separated; NULL: all */
    const char *phases;        /* phases whose throughputs are fitted, comma-separated;
                                  NULL: all (the kinds are fitted at every fitted point) */
    double other_weight;       /* weight of the other points (0: held out) */
    val_series_opts series;    /* rows0, goodies0 */
    val_calib_opts fit_opts;
    int fit_now;               /* 0: only simulate the start values (--iter 0) */
    const val_calib_cache *cache; /* may be NULL */
    int refit;                 /* ignore what the cache holds (still save) */
    int own_demands;           /* 1 (default): the demands of backends no fitted key covers
                                  from the architecture's own lowest-concurrency timings
                                  (val_calibration.own); 0: the config's */
    const char *cpu_file;      /* --cpu: the CPU split of the same runs (val_cpu.h), fitted
                                  as well where it has rows of arch; NULL: none */
    double cpu_weight;         /* their weight relative to a throughput's (default 0.25) */
} val_calib_run_opts;

/* The defaults of calibrate and predict (one place). */
void val_calib_run_opts_init(val_calib_run_opts *o);

typedef struct val_calibration {
    char what[32];                      /* "calibration", or what else was fitted */
    char arch[VAL_TIGERBENCH_NAME_MAX];
    char file[512];
    char config[512];                   /* base config path ("" for the defaults) */
    val_tigerbench *tb;                 /* owned */
    val_series series;                  /* owned */
    sim_cfg *cfg;                       /* the base config with arch's backends; owned */
    val_calib_point pts[VAL_CALIB_MAX_POINTS];
    size_t npts;
    val_calib_param params[VAL_CALIB_MAX_PARAMS];
    double start[VAL_CALIB_MAX_PARAMS];
    size_t np;
    /* the demands of backends the architecture runs and no fitted key
     * covers (Redis, TigerBeetle), from its own timings at concurrency
     * own_c before the fit (val_calib_prepare); set in cfg, written to the
     * INI after the fitted keys */
    val_calib_param own[VAL_CALIB_MAX_PARAMS];
    size_t nown;
    long own_c;
    val_calib_sim sims[VAL_CALIB_MAX_POINTS]; /* at the fitted values */
    val_calib_opts fit_opts;
    double objective;
    unsigned iters, evals;
    int cached;                         /* the values came from the cache */
    char key[17], data_hash[17];
    double mape_fit, mape_out;          /* phase throughput, percent (NaN: no points) */
    int n_fit, n_out;
    int ncpu;                           /* measured CPU figures fitted (--cpu) */
    int save_status;                    /* the cache's save: SIM_OK or its error (save_err) */
    sim_err save_err;
} val_calibration;

/* Run a calibration: read the file, the series, the points, the
 * parameters; the cache, else the fit (and save); simulate the points at
 * the values.  c is caller storage, filled (val_calib_fini, also after a
 * failure).  SIM_EINPUT for bad input (file:line), SIM_EFAIL otherwise; a
 * cache that fails to save leaves SIM_OK with c->save_status set. */
int val_calib_run(const val_calib_run_opts *o, val_calibration *c, sim_err *err);
void val_calib_fini(val_calibration *c);
/* The backend ("pg", "tb", "redis") a timing kind (TF_K_*) runs on in
 * architecture a: the hold and commit_order on its accounting, add_order
 * on PostgreSQL, the sessions on its payments.  Returns a's string. */
const char *val_calib_kind_backend(const val_tigerbench_arch *a, int kind);
/* The TF_OWN_* bits of the backends architecture a runs: PostgreSQL
 * statements always, TigerBeetle or PostgreSQL accounting, Redis sessions. */
int val_calib_arch_own(const val_tigerbench_arch *a);
/* The options of a light-load fit of own demands (timings at one point):
 * from's, with timings only (kind_weight 1), 4 replications, no light
 * start, no progress. */
val_calib_opts val_calib_light_opts(const val_calib_opts *from);
/* q (caller storage) for registry row r: its key, fit bounds, and its
 * value in cfg clamped to them.  SIM_OK, or the error of reading cfg. */
int val_calib_own_param(const sim_cfg *cfg, const tf_param *r, val_calib_param *q, sim_err *err);

/* 1 when params[0..np) holds key ("section.key"). */
int val_calib_has_key(const val_calib_param *params, size_t np, const char *key);

/* The default set's keys (o->fit NULL) that a --set of o->overrides names
 * (origin "--set"): the fit starts from the value and moves it.  Writes
 * "key=value, ..." into buf (caller's, len bytes) and returns how many;
 * 0 with an explicit --fit (its keys are the user's choice). */
size_t val_calib_set_fitted(const val_calib_run_opts *o, const val_calibration *c, char *buf,
                            size_t len);

/* val_calib_run in its three steps, for callers that decide in between
 * (predict): prepare (read, series, points, parameters at their start
 * values, the own demands of backends no fitted key covers, key); solve
 * (the cache, else the fit, then save: c->cached, c->save_status); finish
 * (simulate the points at the values, MAPE; fitted = 0: the objective
 * there). */
int val_calib_prepare(const val_calib_run_opts *o, val_calibration *c, sim_err *err);
int val_calib_solve(const val_calib_cache *cache, int refit, val_calibration *c, sim_err *err);
int val_calib_finish(val_calibration *c, int fitted, sim_err *err);
/* The key (and data hash) of c from its points, parameters (key, spec,
 * start, bounds), architecture, base config, fit options and the model
 * version; called by prepare, again after changing any of them. */
void val_calib_key(val_calibration *c);

/* Tables of a calibration, appended to t:
 * params: parameter, start, fitted;
 * points: phase, concurrency, measured, simulated, simulated_ci, error_pct,
 *         fitted (yes / weighted / held out: the point's weight times its
 *         phase's), holds_rows, client_busy, server_busy (the loops' busy
 *         shares at the fitted values); with CPU targets (ncpu > 0) also
 *         client_cpu_ms, sim_client_cpu_ms, server_cpu_ms,
 *         sim_server_cpu_ms, postgres_cpu_ms, sim_postgres_cpu_ms;
 * kinds:  kind, concurrency, measured_ms, simulated_ms, error_pct. */
void val_calib_params_table(const val_calibration *c, sim_table *t);
void val_calib_points_table(const val_calibration *c, sim_table *t);
void val_calib_kinds_table(const val_calibration *c, sim_table *t);

/* The calibration as an INI text that reproduces the fit: the fitted values
 * (each exact: %.17g or the distribution's exact spec), the architecture's
 * own demands, and what the fit ran with beside its base config (the
 * architecture, each --set no fitted or own key replaces, at its last
 * value), every section once, in the order its first key comes; a comment
 * header and, when include is not NULL, `include = include`.  Into buf
 * (len bytes; NULL with len 0 to measure); returns the length snprintf
 * would have written. */
size_t val_calib_ini(const val_calibration *c, const char *include, char *buf, size_t len);

#endif
