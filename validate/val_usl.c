/* val_usl: USL and Amdahl fits (see the header).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "validate/val_usl.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>

#include "sim/sim_rng.h"

enum { P_LAMBDA = 0, P_SIGMA = 1, P_KAPPA = 2, NPAR = 3 };

/* One sub-fit: which parameters are free (the others are held at 0). */
typedef struct fitctx {
    const double *n, *x;
    size_t m;
    int idx[NPAR]; /* position in the parameter vector, -1 when held at 0 */
    int nfree;
} fitctx;

double val_usl_x(double lambda, double sigma, double kappa, double n)
{
    return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

double val_usl_eval(const val_usl_result *r, double n)
{
    return val_usl_x(r->lambda, r->sigma, r->kappa, n);
}

const char *val_usl_model_name(val_usl_model m) { return m == VAL_USL_AMDAHL ? "amdahl" : "usl"; }

static void unpack(const fitctx *c, const gsl_vector *v, double p[NPAR])
{
    for (int k = 0; k < NPAR; k++)
        p[k] = c->idx[k] >= 0 ? gsl_vector_get(v, (size_t)c->idx[k]) : 0.0;
}

static int f_fn(const gsl_vector *v, void *data, gsl_vector *f)
{
    const fitctx *c = data;
    double p[NPAR];
    unpack(c, v, p);
    for (size_t i = 0; i < c->m; i++) {
        double N = c->n[i], D = 1 + p[P_SIGMA] * (N - 1) + p[P_KAPPA] * N * (N - 1);
        if (!(D > 0))
            return GSL_EDOM; /* the model has a pole here: reject the step */
        gsl_vector_set(f, i, p[P_LAMBDA] * N / D - c->x[i]);
    }
    return GSL_SUCCESS;
}

/* Jacobian columns for the parameters in idx (all three for covariance). */
static void jac(const double p[NPAR], const double *n, size_t m, const int idx[NPAR],
                gsl_matrix *J)
{
    for (size_t i = 0; i < m; i++) {
        double N = n[i], D = 1 + p[P_SIGMA] * (N - 1) + p[P_KAPPA] * N * (N - 1);
        double d[NPAR] = {N / D, -p[P_LAMBDA] * N * (N - 1) / (D * D),
                          -p[P_LAMBDA] * N * N * (N - 1) / (D * D)};
        for (int k = 0; k < NPAR; k++)
            if (idx[k] >= 0)
                gsl_matrix_set(J, i, (size_t)idx[k], d[k]);
    }
}

static int df_fn(const gsl_vector *v, void *data, gsl_matrix *J)
{
    const fitctx *c = data;
    double p[NPAR];
    unpack(c, v, p);
    jac(p, c->n, c->m, c->idx, J);
    return GSL_SUCCESS;
}

/* Start values from the linear fit N/X = a + b N + c N^2, where a =
 * (1-sigma)/lambda, b = (sigma-kappa)/lambda, c = kappa/lambda (c = 0 for
 * Amdahl); negative sigma or kappa are clamped to 0. */
static void start(const double *n, const double *x, size_t m, val_usl_model model,
                  double p[NPAR])
{
    size_t q = model == VAL_USL_AMDAHL ? 2 : 3;
    gsl_matrix *A = gsl_matrix_alloc(m, q);
    gsl_vector *y = gsl_vector_alloc(m), *b = gsl_vector_alloc(q);
    gsl_matrix *cov = gsl_matrix_alloc(q, q);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(m, q);
    assert(A && y && b && cov && w);
    for (size_t i = 0; i < m; i++) {
        gsl_matrix_set(A, i, 0, 1.0);
        gsl_matrix_set(A, i, 1, n[i]);
        if (q == 3)
            gsl_matrix_set(A, i, 2, n[i] * n[i]);
        gsl_vector_set(y, i, n[i] / x[i]);
    }
    double chisq, xmax = 0;
    for (size_t i = 0; i < m; i++)
        xmax = fmax(xmax, x[i] / n[i]);
    int rc = gsl_multifit_linear(A, y, b, cov, &chisq, w);
    double a0 = gsl_vector_get(b, 0), b0 = gsl_vector_get(b, 1);
    double c0 = q == 3 ? gsl_vector_get(b, 2) : 0.0;
    if (rc == GSL_SUCCESS && a0 + b0 + c0 > 0) {
        p[P_LAMBDA] = 1 / (a0 + b0 + c0);
        p[P_KAPPA] = fmax(0.0, c0 * p[P_LAMBDA]);
        p[P_SIGMA] = fmax(0.0, b0 * p[P_LAMBDA] + c0 * p[P_LAMBDA]);
    } else {
        p[P_LAMBDA] = xmax;
        p[P_SIGMA] = p[P_KAPPA] = 0;
    }
    gsl_multifit_linear_free(w);
    gsl_matrix_free(cov);
    gsl_matrix_free(A);
    gsl_vector_free(y);
    gsl_vector_free(b);
}

/* One constrained sub-fit with the parameters in free_mask (bit k =
 * parameter k) free.  Returns 0 and the solution in p, its SSE and
 * iteration count; -1 when it fails to converge. */
static int subfit(const double *n, const double *x, size_t m, int free_mask,
                  const double p0[NPAR], double p[NPAR], double *sse, size_t *iters)
{
    fitctx c = {.n = n, .x = x, .m = m, .nfree = 0};
    for (int k = 0; k < NPAR; k++)
        c.idx[k] = (free_mask >> k) & 1 ? c.nfree++ : -1;
    gsl_vector *v = gsl_vector_alloc((size_t)c.nfree);
    assert(v);
    for (int k = 0; k < NPAR; k++)
        if (c.idx[k] >= 0)
            gsl_vector_set(v, (size_t)c.idx[k], p0[k]);
    gsl_multifit_nlinear_fdf fdf = {.f = f_fn, .df = df_fn, .fvv = NULL, .n = m,
                                    .p = (size_t)c.nfree, .params = &c};
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, m, (size_t)c.nfree);
    assert(w);
    int info, rc = gsl_multifit_nlinear_init(v, &fdf, w);
    if (rc == GSL_SUCCESS)
        rc = gsl_multifit_nlinear_driver(500, 1e-12, 1e-12, 0.0, NULL, NULL, &info, w);
    /* ENOPROG: no step improves the fit any more, i.e. converged to the
     * precision the data allow. */
    int ok = rc == GSL_SUCCESS || rc == GSL_ENOPROG;
    if (ok) {
        unpack(&c, gsl_multifit_nlinear_position(w), p);
        gsl_vector *f = gsl_multifit_nlinear_residual(w);
        double s = 0;
        for (size_t i = 0; i < m; i++)
            s += gsl_vector_get(f, i) * gsl_vector_get(f, i);
        *sse = s;
        *iters = gsl_multifit_nlinear_niter(w);
        ok = isfinite(s) && isfinite(p[P_LAMBDA]) && isfinite(p[P_SIGMA]) &&
             isfinite(p[P_KAPPA]);
    }
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(v);
    return ok ? 0 : -1;
}

/* Standard errors from s^2 (J'J)^-1 over the model's parameters. */
static void std_errors(const double *n, size_t m, val_usl_result *r)
{
    int idx[NPAR] = {0, 1, r->model == VAL_USL_AMDAHL ? -1 : 2};
    size_t q = (size_t)r->p;
    gsl_matrix *J = gsl_matrix_alloc(m, q), *cov = gsl_matrix_alloc(q, q);
    assert(J && cov);
    double p[NPAR] = {r->lambda, r->sigma, r->kappa};
    jac(p, n, m, idx, J);
    double se[NPAR] = {NAN, NAN, 0.0};
    if (gsl_multifit_nlinear_covar(J, 0.0, cov) == GSL_SUCCESS) {
        double s2 = r->sse / (double)(m - q);
        for (size_t k = 0; k < q; k++) {
            double d = gsl_matrix_get(cov, k, k);
            se[k] = d > 0 && isfinite(d) ? sqrt(s2 * d) : NAN;
        }
    }
    r->se_lambda = se[P_LAMBDA];
    r->se_sigma = se[P_SIGMA];
    r->se_kappa = se[P_KAPPA];
    gsl_matrix_free(J);
    gsl_matrix_free(cov);
}

static void goodness(const double *x, size_t m, val_usl_result *r)
{
    double mean = 0, sst = 0;
    for (size_t i = 0; i < m; i++)
        mean += x[i] / (double)m;
    for (size_t i = 0; i < m; i++)
        sst += (x[i] - mean) * (x[i] - mean);
    double p = r->p, M = (double)m;
    r->r2 = sst > 0 ? 1 - r->sse / sst : NAN;
    r->adj_r2 = sst > 0 ? 1 - (r->sse / sst) * (M - 1) / (M - p) : NAN;
    r->aicc = M * log(fmax(r->sse, DBL_MIN) / M) + 2 * p;
    if (M - p - 1 > 0)
        r->aicc += 2 * p * (p + 1) / (M - p - 1);
}

static void peak(val_usl_result *r)
{
    if (r->sigma >= 1) {
        r->n_peak = 1;
        r->x_peak = r->lambda;
    } else if (r->kappa > 0) {
        r->n_peak = sqrt((1 - r->sigma) / r->kappa);
        r->x_peak = val_usl_eval(r, r->n_peak);
    } else {
        r->n_peak = INFINITY;
        r->x_peak = r->sigma > 0 ? r->lambda / r->sigma : INFINITY;
    }
}

int val_usl_fit(const double *n, const double *x, size_t m, val_usl_model model,
                val_usl_result *out, sim_err *err)
{
    sim_rng_setup();
    int p = model == VAL_USL_AMDAHL ? 2 : 3;
    const char *what = model == VAL_USL_AMDAHL ? "Amdahl fit" : "USL fit";
    for (size_t i = 0; i < m; i++) {
        if (!(isfinite(n[i]) && n[i] >= 1))
            return sim_err_set(err, SIM_EINPUT, "%s: point %zu: concurrency %g must be >= 1",
                               what, i + 1, n[i]);
        if (!(isfinite(x[i]) && x[i] > 0))
            return sim_err_set(err, SIM_EINPUT, "%s: point %zu: throughput %g must be > 0", what,
                               i + 1, x[i]);
    }
    size_t distinct = 0;
    for (size_t i = 0; i < m; i++) {
        size_t j = 0;
        while (j < i && n[j] != n[i])
            j++;
        distinct += j == i;
    }
    if (distinct < (size_t)p + 1)
        return sim_err_set(err, SIM_EINPUT,
                           "%s: %zu distinct concurrencies, need at least %d to fit %d parameters "
                           "with a residual degree of freedom",
                           what, distinct, p + 1, p);

    double p0[NPAR];
    start(n, x, m, model, p0);
    /* Active set: the first mask is the unconstrained fit; then the faces. */
    static const int usl_masks[] = {7, 3, 5, 1}, amdahl_masks[] = {3, 1};
    const int *masks = model == VAL_USL_AMDAHL ? amdahl_masks : usl_masks;
    size_t nmask = model == VAL_USL_AMDAHL ? 2 : 4;
    double best[NPAR] = {0}, best_sse = INFINITY;
    size_t best_it = 0;
    int best_mask = 0;
    for (size_t k = 0; k < nmask; k++) {
        double q[NPAR], sse;
        size_t it;
        if (subfit(n, x, m, masks[k], p0, q, &sse, &it))
            continue;
        if (!(q[P_LAMBDA] > 0 && q[P_SIGMA] >= 0 && q[P_KAPPA] >= 0))
            continue;
        if (sse < best_sse) {
            best_sse = sse;
            memcpy(best, q, sizeof best);
            best_it = it;
            best_mask = masks[k];
        }
        if (k == 0)
            break; /* the unconstrained optimum is feasible */
    }
    if (!isfinite(best_sse))
        return sim_err_set(err, SIM_EFAIL, "%s: the least-squares fit did not converge", what);

    val_usl_result *r = out;
    r->model = model;
    r->lambda = best[P_LAMBDA];
    r->sigma = best[P_SIGMA];
    r->kappa = best[P_KAPPA];
    r->sigma_at_bound = !(best_mask & 2);
    r->kappa_at_bound = model == VAL_USL_USL && !(best_mask & 4);
    r->m = m;
    r->p = p;
    r->sse = best_sse;
    r->iterations = best_it;
    std_errors(n, m, r);
    goodness(x, m, r);
    peak(r);
    return SIM_OK;
}

const val_usl_result *val_usl_better(const val_usl_result *a, const val_usl_result *b,
                                     double *delta)
{
    if (delta)
        *delta = fabs(a->aicc - b->aicc);
    return a->aicc <= b->aicc ? a : b;
}
