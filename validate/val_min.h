/* val_min: bounded minimisation in log space for simulation-based fits.
 *
 * Role: the search shared by the fits that tune positive model parameters
 * against measurements (val_http; the same method as val_calib): GSL's
 * Nelder-Mead simplex (gsl_multimin_fminimizer_nmsimplex2) over the
 * logarithms of the parameters, a quadratic penalty outside [lo, hi] and
 * values clamped into it, first steps of 0.3 (about 35%).  The objective
 * is called with the parameters' current values in params[i].value.
 * Cost: iterations x (one or two objective calls); no allocation besides
 * GSL's workspace.
 * Ownership: params is the caller's (values updated in place: the best
 * point found); ctx is passed through.
 */
#ifndef VAL_MIN_H
#define VAL_MIN_H

#include <stddef.h>

#include "sim/sim_err.h"
#include "validate/val_calib.h"

/* The objective: returns the value at params[].value, or sets *failed
 * (with err set) to stop the search. */
typedef double (*val_min_fn)(void *ctx, const val_calib_param *params, size_t np, int *failed,
                             sim_err *err);

typedef struct val_min_opts {
    unsigned max_iter;   /* simplex iterations */
    double tol;          /* stop when the simplex is smaller than this (log units) */
    void (*progress)(unsigned iter, double objective, void *ctx);
    void *progress_ctx;
} val_min_opts;

/* A simplex is restarted around the point it found while the restart
 * improves the objective by more than this share and iterations are left
 * (val_min_run, and val_calib's fits): Nelder-Mead's simplex can collapse
 * before the minimum, and a fresh one around the point found can tell. */
#define VAL_MIN_RESTART_GAIN 0.01

/* A parameter's value at log-space coordinate x, clamped into [lo, hi]. */
double val_min_value(const val_calib_param *p, double x);

/* Set every params[i].value from the log-space coordinates x[0..np)
 * (clamped) and return the penalty for leaving the bounds: 100 x the
 * squared log distance outside [lo, hi], summed. */
double val_min_apply(val_calib_param *params, size_t np, const double *x);

/* Minimise f over params (0 < lo < hi, lo <= value <= hi).  Returns SIM_OK
 * with the best values in params, *fval and *iters; SIM_EINPUT for bad
 * bounds; the objective's error when it failed. */
int val_min_run(val_min_fn f, void *ctx, val_calib_param *params, size_t np, const val_min_opts *o,
                double *fval, unsigned *iters, sim_err *err);

#endif
