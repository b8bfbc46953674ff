#include "validate/val_min.h"

#include <assert.h>
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>

typedef struct min_ctx {
    val_min_fn f;
    void *ctx;
    val_calib_param *params;
    size_t np;
    sim_err *err;
    int failed;
} min_ctx;

double val_min_value(const val_calib_param *p, double x)
{
    double v = exp(x);
    return v < p->lo ? p->lo : v > p->hi ? p->hi : v;
}

double val_min_apply(val_calib_param *params, size_t np, const double *x)
{
    double penalty = 0;
    for (size_t i = 0; i < np; i++) {
        double lo = log(params[i].lo), hi = log(params[i].hi);
        if (x[i] < lo)
            penalty += (lo - x[i]) * (lo - x[i]) * 100;
        if (x[i] > hi)
            penalty += (x[i] - hi) * (x[i] - hi) * 100;
        params[i].value = val_min_value(&params[i], x[i]);
    }
    return penalty;
}

static double objective(const gsl_vector *x, void *arg)
{
    min_ctx *c = arg;
    if (c->failed)
        return GSL_POSINF;
    assert(x->stride == 1);
    double penalty = val_min_apply(c->params, c->np, x->data);
    double v = c->f(c->ctx, c->params, c->np, &c->failed, c->err);
    return c->failed ? GSL_POSINF : v + penalty;
}

/* One simplex from params' values (first steps of 0.3) until it is
 * smaller than o->tol, cannot improve, or max_iter more iterations;
 * leaves the best point in params and its value in *fval. */
static int simplex(min_ctx *c, const val_min_opts *o, unsigned max_iter, double *fval,
                   unsigned *iters)
{
    size_t np = c->np;
    gsl_multimin_function fn = {objective, np, c};
    gsl_vector *x = gsl_vector_alloc(np), *step = gsl_vector_alloc(np);
    gsl_multimin_fminimizer *m =
        gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, np);
    assert(x && step && m && "out of memory");
    for (size_t i = 0; i < np; i++) {
        gsl_vector_set(x, i, log(c->params[i].value));
        gsl_vector_set(step, i, 0.3);
    }
    int rc = SIM_OK;
    if (gsl_multimin_fminimizer_set(m, &fn, x, step) != GSL_SUCCESS || c->failed)
        rc = c->failed ? c->err->code
                       : sim_err_set(c->err, SIM_EFAIL, "fit: cannot start the simplex");
    unsigned it = 0;
    while (rc == SIM_OK && it < max_iter) {
        it++;
        int st = gsl_multimin_fminimizer_iterate(m);
        if (c->failed) {
            rc = c->err->code;
            break;
        }
        if (st != GSL_SUCCESS)
            break; /* the simplex cannot improve further */
        if (o->progress)
            o->progress(*iters + it, m->fval, o->progress_ctx);
        if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), o->tol) == GSL_SUCCESS)
            break;
    }
    if (rc == SIM_OK) {
        for (size_t i = 0; i < np; i++)
            c->params[i].value = val_min_value(&c->params[i], gsl_vector_get(m->x, i));
        *fval = m->fval;
    }
    *iters += it;
    gsl_multimin_fminimizer_free(m);
    gsl_vector_free(x);
    gsl_vector_free(step);
    return rc;
}

int val_min_run(val_min_fn f, void *ctx, val_calib_param *params, size_t np, const val_min_opts *o,
                double *fval, unsigned *iters, sim_err *err)
{
    assert(np >= 1);
    for (size_t i = 0; i < np; i++)
        if (!(params[i].lo > 0 && params[i].hi > params[i].lo && params[i].value >= params[i].lo &&
              params[i].value <= params[i].hi))
            return sim_err_set(err, SIM_EINPUT, "%s: a fitted value must satisfy 0 < lo <= value "
                               "<= hi (lo %g, value %g, hi %g)", params[i].key, params[i].lo,
                               params[i].value, params[i].hi);
    min_ctx c = {f, ctx, params, np, err, 0};
    unsigned it = 0;
    double v = GSL_POSINF;
    int rc = simplex(&c, o, o->max_iter, &v, &it);
    /* Restarts: a fresh simplex around the point found.  Nelder-Mead's
     * simplex can collapse before the minimum; the HTTP layer's four keys
     * fitted to every point of a probe measured on another machine
     * (2026-12-06) stopped at objective 14.5 after 81 iterations, and one
     * restart from there ends at 5.3 (docs/load-generator.md, "On another
     * machine"). */
    while (rc == SIM_OK && it < o->max_iter) {
        double before = v;
        rc = simplex(&c, o, o->max_iter - it, &v, &it);
        if (rc == SIM_OK && !(v < before * (1 - VAL_MIN_RESTART_GAIN)))
            break;
    }
    if (rc == SIM_OK) {
        *fval = v;
        *iters = it;
    }
    return rc;
}
