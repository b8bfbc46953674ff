/* val_http: the HTTP layer's loop costs from a `tfsim probe http`
 * measurement, fitted by simulation, and the simulation of every measured
 * point against it.
 *
 * Role: turns the probe's per-phase figures (throughput, CPU seconds per
 * request of the load generator and of the stand-in server) into the
 * model's client costs (client.cpu and
 * the connection pool's pass costs, client.pool_*) and the stand-in
 * server's (server.cpu_request): every point (latency, concurrency) is
 * simulated with the stub architecture (architecture.accounting = stub,
 * one await of the latency asked per request; the model adds what the
 * stand-in's loop adds to it: the poll's rounding when the loop sleeps,
 * server.timer_resolution and timer_slack, and the queue when it is busy)
 * and the fit minimises
 *   sum of squared log errors of the client's and the server's CPU per
 *   request + thr_weight x squared log errors of the phase throughputs
 * over the points with weight 1 (others are reported as held out), with
 * val_min's simplex in log space and common random numbers.  CPU per
 * request is what the load generator's own code costs; throughput also
 * depends on whatever else runs on the machine, so it weighs less by
 * default.
 * Cost: iterations x points x replications simulations of 4 x total
 * requests.
 * Ownership: the caller owns every array; the base config is borrowed.
 */
#ifndef VAL_HTTP_H
#define VAL_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "models/tf_params.h"
#include "sim/sim_cfg.h"
#include "sim/sim_err.h"
#include "sim/sim_table.h"
#include "validate/val_calib.h"
#include "validate/val_probe_http.h"

/* One measured (latency, concurrency): its four phases. */
typedef struct val_http_point {
    double latency_ms;            /* the stand-in's configured latency */
    long concurrency;
    long total;                   /* requests per phase */
    double thr[TF_NPHASES];       /* measured throughput (NaN: phase absent) */
    double ccpu[TF_NPHASES];      /* client CPU seconds per request */
    double scpu[TF_NPHASES];      /* server CPU seconds per request */
    /* the client's pool at its passes (NaN: not measured): passes per
     * request, mean connections open and idle at a pass; reported, not fitted */
    double ppass[TF_NPHASES], pconn[TF_NPHASES], pidle[TF_NPHASES];
    double weight;                /* 1: fitted; 0: held out (only reported) */
} val_http_point;

typedef struct val_http_sim {
    double thr[TF_NPHASES], ccpu[TF_NPHASES], scpu[TF_NPHASES];
    double ppass[TF_NPHASES], pconn[TF_NPHASES], pidle[TF_NPHASES]; /* the pool per phase */
    double passes, retries;       /* pool passes and retries per request */
} val_http_sim;

typedef struct val_http_opts {
    uint64_t seed;
    unsigned reps;        /* replications per point per evaluation */
    unsigned max_iter;    /* simplex iterations (0: only simulate) */
    double tol;           /* simplex size to stop at (log units) */
    double thr_weight;    /* weight of the throughput errors */
    void (*progress)(unsigned iter, double objective, void *ctx);
    void *progress_ctx;
} val_http_opts;

/* Defaults: seed 1, 2 replications, 300 iterations, tol 1e-3,
 * thr_weight 0.25, no progress. */
void val_http_opts_init(val_http_opts *o);

/* The keys fitted by default and their bounds (base units), NULL-ended. */
extern const char *const val_http_default_keys[];

/* Simulate every point with base + params (values as given).  base must
 * describe the stub architecture (or the caller's own stand-in). */
int val_http_simulate(const sim_cfg *base, const val_calib_param *params, size_t np,
                      const val_http_point *pts, size_t npts, const val_http_opts *o,
                      val_http_sim *sims, sim_err *err);

/* The objective (see above) over the points with weight > 0; absent
 * figures (NaN) are skipped. */
double val_http_objective(const val_http_point *pts, const val_http_sim *sims, size_t npts,
                          double thr_weight);

/* The points of a probe measurement: one per (latency, concurrency), in
 * the order first seen, its phases' figures averaged over the runs (CPU
 * per request = the runs' CPU over their requests); weight 1 when its
 * latency is in fit_lat[0..nfit) (nfit 0: every point), else 0.  At most
 * max points; SIM_EINPUT when there are none or more than max. */
int val_http_points(const val_probe_http_result *res, const double *fit_lat, size_t nfit,
                    val_http_point *pts, size_t max, size_t *npts, sim_err *err);

/* Per point and phase: measured and simulated throughput, client and
 * server CPU per request (ms), their errors (%), and whether the point
 * was fitted.  Owned by the caller (sim_table_free). */
sim_table *val_http_table(const val_http_point *pts, const val_http_sim *sims, size_t npts);

/* The errors over a set of points (val_http_mape). */
typedef struct val_http_errs {
    double thr, ccpu;          /* MAPE (%) of throughput and of client CPU per request */
    double thr_max, ccpu_max;  /* their largest absolute errors (%) */
    long n, within;            /* throughputs compared, and those within SIM_MAPE_WITHIN */
} val_http_errs;

/* Errors over the fitted (which = 1) or held-out (which = 0) points'
 * phases; NaN (n = 0) when there are none. */
void val_http_mape(const val_http_point *pts, const val_http_sim *sims, size_t npts, int which,
                   val_http_errs *e);

/* Fit params (values updated in place) on the weighted points. */
int val_http_fit(const sim_cfg *base, val_calib_param *params, size_t np,
                 const val_http_point *pts, size_t npts, const val_http_opts *o, double *fval,
                 unsigned *iters, sim_err *err);

#endif
