/* val_calib: simulation-based calibration of TigerFans model parameters
 * against measured benchmark points (throughput per phase and operation
 * timings per concurrency), and the light-load fit of a target
 * architecture's own parameters for prediction.
 *
 * Method: minimise the sum over points of squared log errors of the four
 * phase throughputs plus kind_weight times the squared log errors of the
 * kind means, over the chosen parameters in log space, with GSL's
 * Nelder-Mead simplex (gsl_multimin_fminimizer_nmsimplex2).  Every
 * evaluation simulates every point with the same seed (common random
 * numbers), so the objective is a deterministic, nearly smooth function.
 * Parameters are config keys ("section.key"); values are plain numbers in
 * the key's base unit (seconds, rows, cores).
 *
 * Cost: evaluations x points x replications simulations (about 10 ms each
 * at concurrency 100 with 1000 requests per phase).
 * Ownership: the caller owns every array; the base config is borrowed.
 */
#ifndef VAL_CALIB_H
#define VAL_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "models/tf_params.h"
#include "models/tf_sim.h"
#include "sim/sim_cfg.h"
#include "sim/sim_err.h"
#include "validate/val_series.h"

typedef struct val_calib_point {
    long concurrency;
    double holds_rows, goodies;     /* state of the database at this point */
    double thr[TF_NPHASES];         /* measured mean throughput (NaN: absent) */
    double kind[TF_NKINDS];         /* measured mean kind time (NaN: absent) */
    double weight;                  /* 1 for points fitted, 0 for points only reported */
} val_calib_point;

typedef struct val_calib_param {
    char key[64];      /* "section.key" */
    char tmpl[96];     /* "" (the value is written as a number) or a printf
                          template with one %.9g, e.g. "gamma(shape=8, mean=%.9g)" */
    double value;      /* start value in, fitted value out */
    double lo, hi;     /* bounds (> 0; the search is in log space) */
} val_calib_param;

typedef struct val_calib_opts {
    uint64_t seed;
    unsigned reps;        /* replications per point per evaluation */
    unsigned max_iter;    /* simplex iterations */
    double kind_weight;   /* weight of the kind timings in the objective */
    double tol;           /* stop when the simplex size falls below this (log units) */
    int jobs;
    void (*progress)(unsigned iter, double objective, void *ctx);
    void *progress_ctx;
} val_calib_opts;

/* Simulated values at one point. */
typedef struct val_calib_sim {
    double thr[TF_NPHASES], thr_ci[TF_NPHASES];
    double kind[TF_NKINDS];
} val_calib_sim;

struct val_tigerbench;
/* Fill pts (up to max) with the points of architecture arch: one per
 * concurrency with phase rows (measured throughputs and kinds), or, when
 * the file has only kind rows for arch, one per concurrency with kind rows
 * (throughputs NaN).  Database state from the series (val_series, built
 * from the same file).  Returns SIM_OK and the count in *n, or SIM_EINPUT
 * naming the file. */
int val_calib_points(const struct val_tigerbench *tb, const val_series *ser, const char *arch,
                     val_calib_point *pts, size_t max, size_t *n, sim_err *err);

/* Simulate every point with the base config plus `overrides` (an array of
 * "section.key=value" strings, may be NULL) and the parameter values.
 * Fills sims[npoints]. */
int val_calib_simulate(const sim_cfg *base, const char *const *overrides, size_t noverrides,
                       const val_calib_param *params, size_t nparams,
                       const val_calib_point *pts, size_t npts, const val_calib_opts *o,
                       val_calib_sim *sims, sim_err *err);

/* The objective for given simulated values (weighted squared log errors). */
double val_calib_objective(const val_calib_point *pts, const val_calib_sim *sims, size_t npts,
                           double kind_weight);

/* Fit params (values updated in place).  *objective receives the final
 * objective, *iters the iterations used. */
int val_calib_fit(const sim_cfg *base, const char *const *overrides, size_t noverrides,
                  val_calib_param *params, size_t nparams, const val_calib_point *pts,
                  size_t npts, const val_calib_opts *o, double *objective, unsigned *iters,
                  sim_err *err);

#endif
