#include "validate/val_fit.h"

#include "sim/sim_afile.h"
#include "sim/sim_cfg.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_psi.h>

#include "sim/sim_rng.h"

/* Shift searches use at most this many order statistics. */
#define SHIFT_SUBSAMPLE 20000

static const char *const family_names[VAL_FIT_NFAM] = {
    "exponential",         "lognormal",         "gamma",         "weibull",
    "shifted exponential", "shifted lognormal", "shifted gamma", "shifted weibull",
    "empirical"};

const char *val_fit_family_name(val_fit_family f)
{
    assert(f >= 0 && f < VAL_FIT_NFAM);
    return family_names[f];
}

void val_fit_opts_init(val_fit_opts *o)
{
    o->alpha = 0.01;
    o->quantiles = 100;
    o->max_samples = 1000000;
    o->seed = 1;
}

/* ---- distribution functions ---- */

static double base_logpdf(const sim_dist *d, double z)
{
    switch (d->kind) {
    case SIM_DIST_EXP:
        return -log(d->a) - z / d->a;
    case SIM_DIST_LOGNORMAL: {
        double lz = log(z), u = (lz - d->a) / d->b;
        return -lz - log(d->b) - 0.5 * log(2 * M_PI) - 0.5 * u * u;
    }
    case SIM_DIST_GAMMA:
        return (d->a - 1) * log(z) - z / d->b - gsl_sf_lngamma(d->a) - d->a * log(d->b);
    case SIM_DIST_WEIBULL: {
        double lr = log(z) - log(d->b);
        return log(d->a) - log(d->b) + (d->a - 1) * lr - exp(d->a * lr);
    }
    default:
        assert(0 && "no density for this kind");
        return NAN;
    }
}

double val_fit_logpdf(const sim_dist *d, double x)
{
    double z = x - d->shift;
    if (z < 0 || (z == 0 && d->kind != SIM_DIST_EXP))
        return -INFINITY;
    return base_logpdf(d, z);
}

/* P(X <= x) and P(X > x), each computed directly for precision in the tails. */
static void cdf_pq(const sim_dist *d, double x, double *P, double *Q)
{
    double z = x - d->shift;
    if (d->kind == SIM_DIST_EMPIRICAL) {
        const double *q = d->q;
        size_t m = d->nq;
        double f;
        if (z <= q[0])
            f = 0;
        else if (z >= q[m - 1])
            f = 1;
        else {
            size_t lo = 0, hi = m - 1;  /* q[lo] < z < q[hi] */
            while (hi - lo > 1) {
                size_t mid = (lo + hi) / 2;
                if (q[mid] <= z)
                    lo = mid;
                else
                    hi = mid;
            }
            double w = q[lo + 1] - q[lo];
            f = ((double)lo + (w > 0 ? (z - q[lo]) / w : 1)) / (double)(m - 1);
        }
        *P = f;
        *Q = 1 - f;
        return;
    }
    if (z <= 0) {
        *P = 0;
        *Q = 1;
        return;
    }
    switch (d->kind) {
    case SIM_DIST_EXP:
        *P = gsl_cdf_exponential_P(z, d->a);
        *Q = gsl_cdf_exponential_Q(z, d->a);
        break;
    case SIM_DIST_LOGNORMAL:
        *P = gsl_cdf_lognormal_P(z, d->a, d->b);
        *Q = gsl_cdf_lognormal_Q(z, d->a, d->b);
        break;
    case SIM_DIST_GAMMA:
        *P = gsl_cdf_gamma_P(z, d->a, d->b);
        *Q = gsl_cdf_gamma_Q(z, d->a, d->b);
        break;
    case SIM_DIST_WEIBULL:
        *P = gsl_cdf_weibull_P(z, d->b, d->a);
        *Q = gsl_cdf_weibull_Q(z, d->b, d->a);
        break;
    default:
        assert(0 && "no distribution function for this kind");
    }
}

double val_fit_cdf(const sim_dist *d, double x)
{
    double P, Q;
    cdf_pq(d, x, &P, &Q);
    return P;
}

/* ---- maximum likelihood for the base families (z > 0) ---- */

static double mean_of(const double *z, size_t m)
{
    double s = 0;
    for (size_t i = 0; i < m; i++)
        s += z[i];
    return s / (double)m;
}

static double mean_log(const double *z, size_t m)
{
    double s = 0;
    for (size_t i = 0; i < m; i++)
        s += log(z[i]);
    return s / (double)m;
}

static int fit_exp(const double *z, size_t m, sim_dist *d, char *why, size_t wl)
{
    double mu = mean_of(z, m);
    if (!(mu > 0)) {
        snprintf(why, wl, "mean is not positive");
        return -1;
    }
    *d = sim_dist_const(0);
    d->kind = SIM_DIST_EXP;
    d->a = mu;
    return 0;
}

static int fit_lognormal(const double *z, size_t m, sim_dist *d, char *why, size_t wl)
{
    double mu = mean_log(z, m), s2 = 0;
    for (size_t i = 0; i < m; i++) {
        double u = log(z[i]) - mu;
        s2 += u * u;
    }
    s2 /= (double)m;
    if (!(s2 > 0) || !isfinite(mu)) {
        snprintf(why, wl, "no spread in log space");
        return -1;
    }
    *d = sim_dist_const(0);
    d->kind = SIM_DIST_LOGNORMAL;
    d->a = mu;
    d->b = sqrt(s2);
    return 0;
}

/* Find the root of f in a bracket grown from [lo, hi] (f(lo) and f(hi) of
 * opposite signs after growing by factors of 4 within [lmin, hmax]). */
static int brent_root(gsl_function *f, double lo, double hi, double lmin, double hmax, double *root)
{
    double flo = GSL_FN_EVAL(f, lo), fhi = GSL_FN_EVAL(f, hi);
    while (isfinite(flo) && isfinite(fhi) && flo * fhi > 0) {
        if (fabs(flo) < fabs(fhi)) {
            if (lo <= lmin)
                return -1;
            lo = fmax(lo / 4, lmin);
            flo = GSL_FN_EVAL(f, lo);
        } else {
            if (hi >= hmax)
                return -1;
            hi = fmin(hi * 4, hmax);
            fhi = GSL_FN_EVAL(f, hi);
        }
    }
    if (!isfinite(flo) || !isfinite(fhi))
        return -1;
    if (flo == 0 || fhi == 0) {
        *root = flo == 0 ? lo : hi;
        return 0;
    }
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    assert(s);
    if (gsl_root_fsolver_set(s, f, lo, hi) != GSL_SUCCESS) {
        gsl_root_fsolver_free(s);
        return -1;
    }
    int status = GSL_CONTINUE;
    for (int it = 0; it < 200 && status == GSL_CONTINUE; it++) {
        if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
            break;
        status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 0, 1e-12);
    }
    *root = gsl_root_fsolver_root(s);
    gsl_root_fsolver_free(s);
    return status == GSL_SUCCESS ? 0 : -1;
}

static double gamma_eq(double k, void *arg)
{
    double s0 = *(const double *)arg;
    return log(k) - gsl_sf_psi(k) - s0;
}

static int fit_gamma(const double *z, size_t m, sim_dist *d, char *why, size_t wl)
{
    double mz = mean_of(z, m);
    /* s0 = ln(mean) - mean(ln) >= 0 (Jensen), 0 only when all are equal */
    double s0 = log(mz) - mean_log(z, m);
    if (!(s0 > 1e-12) || !isfinite(s0)) {
        snprintf(why, wl, "no spread");
        return -1;
    }
    /* A close start for the shape (Minka's approximation). */
    double k0 = (3 - s0 + sqrt((s0 - 3) * (s0 - 3) + 24 * s0)) / (12 * s0), k;
    gsl_function f = {gamma_eq, &s0};
    if (brent_root(&f, k0 / 2, k0 * 2, 1e-6, 1e8, &k)) {
        snprintf(why, wl, "shape equation has no root");
        return -1;
    }
    *d = sim_dist_const(0);
    d->kind = SIM_DIST_GAMMA;
    d->a = k;
    d->b = mz / k;
    return 0;
}

typedef struct weib_ctx {
    const double *l;   /* ln(z / mean z) */
    size_t m;
    double lbar, lmax;
} weib_ctx;

/* The Weibull likelihood equation for the shape k, increasing in k:
 * sum(w l) / sum(w) - 1/k - mean(l), w = exp(k (l - lmax)). */
static double weib_eq(double k, void *arg)
{
    const weib_ctx *c = arg;
    double sw = 0, swl = 0;
    for (size_t i = 0; i < c->m; i++) {
        double w = exp(k * (c->l[i] - c->lmax));
        sw += w;
        swl += w * c->l[i];
    }
    return swl / sw - 1 / k - c->lbar;
}

static int fit_weibull(const double *z, size_t m, sim_dist *d, char *why, size_t wl)
{
    double mz = mean_of(z, m);
    double *l = malloc(m * sizeof *l);
    assert(l);
    weib_ctx c = {l, m, 0, -INFINITY};
    for (size_t i = 0; i < m; i++) {
        l[i] = log(z[i] / mz);
        c.lbar += l[i];
        if (l[i] > c.lmax)
            c.lmax = l[i];
    }
    c.lbar /= (double)m;
    int rc = -1;
    double k;
    gsl_function f = {weib_eq, &c};
    if (!(c.lmax - c.lbar > 1e-12) || !isfinite(c.lbar)) {
        snprintf(why, wl, "no spread");
    } else if (brent_root(&f, 0.5, 4, 1e-3, 1e4, &k)) {
        snprintf(why, wl, "shape equation has no root");
    } else {
        double sw = 0;
        for (size_t i = 0; i < m; i++)
            sw += exp(k * (l[i] - c.lmax));
        *d = sim_dist_const(0);
        d->kind = SIM_DIST_WEIBULL;
        d->a = k;
        d->b = mz * exp(c.lmax + log(sw / (double)m) / k);
        rc = 0;
    }
    free(l);
    return rc;
}

typedef int (*fit_fn)(const double *z, size_t m, sim_dist *d, char *why, size_t wl);

static fit_fn base_fit(val_fit_family f)
{
    switch (f) {
    case VAL_FIT_EXP:
    case VAL_FIT_SEXP:
        return fit_exp;
    case VAL_FIT_LOGNORMAL:
    case VAL_FIT_SLOGNORMAL:
        return fit_lognormal;
    case VAL_FIT_GAMMA:
    case VAL_FIT_SGAMMA:
        return fit_gamma;
    case VAL_FIT_WEIBULL:
    case VAL_FIT_SWEIBULL:
        return fit_weibull;
    default:
        assert(0 && "not a parametric family");
        return NULL;
    }
}

static double loglik(const sim_dist *d, const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += val_fit_logpdf(d, x[i]);
    return s;
}

/* ---- shifted forms: profile likelihood over the shift ---- */

typedef struct shift_ctx {
    fit_fn fit;
    const double *x;   /* sorted (sub)sample */
    size_t m;
    double *z;         /* scratch, m values */
    double gmax;
} shift_ctx;

/* Profile log-likelihood at shift g (-inf if the base fit fails). */
static double profile(shift_ctx *c, double g, sim_dist *out)
{
    for (size_t i = 0; i < c->m; i++)
        c->z[i] = c->x[i] - g;
    char why[96];
    sim_dist d;
    if (c->fit(c->z, c->m, &d, why, sizeof why))
        return -INFINITY;
    d.shift = g;
    if (out)
        *out = d;
    double ll = loglik(&d, c->x, c->m);
    return isfinite(ll) ? ll : -INFINITY;
}

static double neg_profile_t(double t, void *arg)
{
    shift_ctx *c = arg;
    double ll = profile(c, t * c->gmax, NULL);
    return isfinite(ll) ? -ll : 1e300;
}

/* The shift maximising the profile likelihood; *at_zero when it is 0. */
static int best_shift(shift_ctx *c, double *gbest)
{
    static const double grid[] = {0,   0.1,  0.2,  0.3,  0.4,   0.5,   0.6, 0.7, 0.8,
                                  0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1};
    enum { NG = sizeof grid / sizeof grid[0] };
    double f[NG];
    int b = -1;
    for (int j = 0; j < NG; j++) {
        f[j] = neg_profile_t(grid[j], c);
        if (f[j] < 1e300 && (b < 0 || f[j] < f[b]))
            b = j;
    }
    if (b < 0)
        return -1;
    double t = grid[b];
    if (b > 0 && b < NG - 1 && f[b] < f[b - 1] && f[b] < f[b + 1]) {
        gsl_min_fminimizer *s = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
        assert(s);
        gsl_function fn = {neg_profile_t, c};
        if (gsl_min_fminimizer_set_with_values(s, &fn, grid[b], f[b], grid[b - 1], f[b - 1], grid[b + 1],
                                               f[b + 1]) == GSL_SUCCESS) {
            int status = GSL_CONTINUE;
            for (int it = 0; it < 100 && status == GSL_CONTINUE; it++) {
                if (gsl_min_fminimizer_iterate(s) != GSL_SUCCESS)
                    break;
                status = gsl_min_test_interval(gsl_min_fminimizer_x_lower(s), gsl_min_fminimizer_x_upper(s),
                                               1e-9, 1e-6);
            }
            if (gsl_min_fminimizer_f_minimum(s) <= f[b])
                t = gsl_min_fminimizer_x_minimum(s);
        }
        gsl_min_fminimizer_free(s);
    }
    *gbest = t * c->gmax;
    return 0;
}

/* ---- goodness of fit ---- */

/* Kolmogorov's limiting distribution: P(K > lambda). */
static double ks_q(double lambda)
{
    if (lambda <= 0)
        return 1;
    double s = 0;
    if (lambda < 1.18) {
        for (int j = 1; j < 100; j++) {
            double u = (2 * j - 1) * M_PI / lambda;
            double t = exp(-u * u / 8);
            s += t;
            if (t < 1e-17 * s)
                break;
        }
        s = 1 - sqrt(2 * M_PI) / lambda * s;
    } else {
        for (int j = 1; j < 100; j++) {
            double t = exp(-2.0 * j * j * lambda * lambda);
            s += (j % 2 ? 2 : -2) * t;
            if (t < 1e-17)
                break;
        }
    }
    return fmin(1, fmax(0, s));
}

/* KS D and p, Anderson-Darling A2 of d against the sorted sample xs. */
static void goodness(const sim_dist *d, const double *xs, size_t n, double *ks_d, double *ks_p, double *ad)
{
    double D = 0, A = 0, nn = (double)n;
    double *P = malloc(n * sizeof *P), *Q = malloc(n * sizeof *Q);
    assert(P && Q);
    for (size_t i = 0; i < n; i++) {
        cdf_pq(d, xs[i], &P[i], &Q[i]);
        double lo = P[i] - (double)i / nn, hi = (double)(i + 1) / nn - P[i];
        if (lo > D)
            D = lo;
        if (hi > D)
            D = hi;
    }
    for (size_t i = 0; i < n; i++) {
        double p = fmax(P[i], 1e-300), q = fmax(Q[n - 1 - i], 1e-300);
        A += (2.0 * (double)i + 1) * (log(p) + log(q));
    }
    free(P);
    free(Q);
    *ks_d = D;
    double sq = sqrt(nn);
    *ks_p = ks_q((sq + 0.12 + 0.11 / sq) * D);
    *ad = -nn - A / nn;
}

/* ---- one sample ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void empirical(const double *xs, size_t n, unsigned nq, sim_dist *d)
{
    *d = sim_dist_const(0);
    d->kind = SIM_DIST_EMPIRICAL;
    d->nq = (size_t)nq + 1;
    d->q = malloc(d->nq * sizeof *d->q);
    assert(d->q);
    for (size_t j = 0; j < d->nq; j++) {
        double h = (double)(n - 1) * (double)j / (double)nq;
        size_t lo = (size_t)h;
        if (lo >= n - 1)
            d->q[j] = xs[n - 1];
        else
            d->q[j] = xs[lo] + (h - (double)lo) * (xs[lo + 1] - xs[lo]);
    }
}

/* The spec of a fit, if it parses back (else NULL); owned by the caller. */
static char *spec_text(const sim_dist *d)
{
    int n = sim_dist_format(d, NULL, 0);
    assert(n > 0);
    char *s = malloc((size_t)n + 1);
    assert(s);
    sim_dist_format(d, s, (size_t)n + 1);
    sim_dist chk;
    char msg[200];
    if (sim_dist_parse(s, &chk, msg, sizeof msg)) {
        free(s);
        return NULL;
    }
    sim_dist_fini(&chk);
    return s;
}

static void fit_family(val_fit_family f, const double *xs, size_t n, val_fit_one *r)
{
    int shifted = f >= VAL_FIT_SEXP && f <= VAL_FIT_SWEIBULL;
    fit_fn fit = base_fit(f);
    r->k = (f == VAL_FIT_EXP ? 1 : 2) + shifted;
    if (f != VAL_FIT_EXP && f != VAL_FIT_SEXP && xs[0] <= 0 && !shifted) {
        snprintf(r->why, sizeof r->why, "needs positive values");
        return;
    }
    double g = 0;
    if (f == VAL_FIT_SEXP) {
        /* closed form: shift = min - mean/n with mean = n (xbar - min) / (n - 1) */
        double nn = (double)n, mu = nn * (mean_of(xs, n) - xs[0]) / (nn - 1);
        g = xs[0] - mu / nn;
        if (!(g > 0)) {
            snprintf(r->why, sizeof r->why, "estimated shift is not positive");
            return;
        }
    } else if (shifted) {
        /* The shift stays below min(x) by a margin, so that the smallest
         * values do not dominate the likelihood. */
        double q05 = xs[(size_t)(0.05 * (double)(n - 1))];
        double margin = fmax(0.02 * (q05 - xs[0]), 1e-6 * mean_of(xs, n));
        double gmax = xs[0] - margin;
        if (!(gmax > 0)) {
            snprintf(r->why, sizeof r->why, "no room for a shift below the minimum");
            return;
        }
        size_t step = n > SHIFT_SUBSAMPLE ? (n + SHIFT_SUBSAMPLE - 1) / SHIFT_SUBSAMPLE : 1;
        size_t m = (n + step - 1) / step;
        double *sub = malloc(m * sizeof *sub), *z = malloc(m * sizeof *z);
        assert(sub && z);
        for (size_t i = 0; i < m; i++)
            sub[i] = xs[i * step];
        shift_ctx c = {fit, sub, m, z, gmax};
        int rc = best_shift(&c, &g);
        free(sub);
        free(z);
        if (rc) {
            snprintf(r->why, sizeof r->why, "no shift gives a finite likelihood");
            return;
        }
        if (!(g > 0)) {
            snprintf(r->why, sizeof r->why, "best shift is 0 (same as unshifted)");
            return;
        }
    }
    double *z = malloc(n * sizeof *z);
    assert(z);
    for (size_t i = 0; i < n; i++)
        z[i] = xs[i] - g;
    int rc = fit(z, n, &r->d, r->why, sizeof r->why);
    free(z);
    if (rc)
        return;
    r->d.shift = g;
    if (!isfinite(sim_dist_mean(&r->d)) || !isfinite(sim_dist_var(&r->d))) {
        snprintf(r->why, sizeof r->why, "fit has no finite mean or variance");
        return;
    }
    r->loglik = loglik(&r->d, xs, n);
    if (!isfinite(r->loglik)) {
        snprintf(r->why, sizeof r->why, "likelihood is not finite");
        return;
    }
    char *spec = spec_text(&r->d);
    if (!spec) {
        snprintf(r->why, sizeof r->why, "parameters out of the range of a spec");
        return;
    }
    free(spec);
    r->aic = 2.0 * r->k - 2 * r->loglik;
    goodness(&r->d, xs, n, &r->ks_d, &r->ks_p, &r->ad);
    r->ok = 1;
}

int val_fit_sample(const double *x, size_t n, const val_fit_opts *o, val_fit_report *rep, sim_err *err)
{
    memset(rep, 0, sizeof *rep);
    rep->chosen = -1;
    if (n < VAL_FIT_MIN_N)
        return sim_err_set(err, SIM_EINPUT, "only %zu samples (at least %d are needed to fit)", n, VAL_FIT_MIN_N);
    assert(o->quantiles >= 1 && o->quantiles <= VAL_FIT_MAX_QUANTILES && o->alpha >= 0 && o->alpha < 1);
    sim_rng_setup();
    double *xs = malloc(n * sizeof *xs);
    assert(xs);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || x[i] < 0) {
            free(xs);
            return sim_err_set(err, SIM_EINPUT, "sample %zu is %g (latencies must be finite and >= 0)", i + 1,
                               x[i]);
        }
        xs[i] = x[i];
    }
    qsort(xs, n, sizeof *xs, cmp_double);
    rep->n = n;
    rep->min = xs[0];
    rep->max = xs[n - 1];
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++)
        s += xs[i];
    rep->mean = s / (double)n;
    for (size_t i = 0; i < n; i++)
        s2 += (xs[i] - rep->mean) * (xs[i] - rep->mean);
    rep->sd = sqrt(s2 / (double)(n - 1));

    for (int f = 0; f < VAL_FIT_NFAM; f++) {
        val_fit_one *r = &rep->fam[f];
        r->d = sim_dist_const(0);
        r->loglik = r->aic = r->ks_d = r->ks_p = r->ad = NAN;
        if (f == VAL_FIT_EMPIRICAL)
            continue;
        if (rep->max == rep->min) {
            snprintf(r->why, sizeof r->why, "all samples are equal");
            continue;
        }
        fit_family((val_fit_family)f, xs, n, r);
        if (r->ok && r->ks_p >= o->alpha && (rep->chosen < 0 || r->aic < rep->fam[rep->chosen].aic))
            rep->chosen = f;
    }
    val_fit_one *e = &rep->fam[VAL_FIT_EMPIRICAL];
    empirical(xs, n, o->quantiles, &e->d);
    double p_unused, ad_unused;
    goodness(&e->d, xs, n, &e->ks_d, &p_unused, &ad_unused);
    e->k = (int)o->quantiles + 1;
    e->ok = 1;
    free(xs);
    char *spec = spec_text(&e->d);
    if (!spec) {
        val_fit_report_fini(rep);
        memset(rep, 0, sizeof *rep);
        rep->chosen = -1;
        return sim_err_set(err, SIM_EINPUT, "the sample's quantiles do not make a distribution "
                           "spec (latencies out of range)");
    }
    free(spec);
    if (rep->chosen < 0)
        rep->chosen = VAL_FIT_EMPIRICAL;
    return SIM_OK;
}

void val_fit_report_fini(val_fit_report *rep)
{
    for (int f = 0; f < VAL_FIT_NFAM; f++)
        sim_dist_fini(&rep->fam[f].d);
}

/* ---- a samples file ---- */

typedef struct acc {
    char op[VAL_SAMPLES_OP_MAX + 1];
    unsigned conc;
    size_t op_rank;      /* order of first appearance of op */
    double *x;
    size_t n, cap;
    uint64_t seen;
} acc;

static int cmp_acc(const void *a, const void *b)
{
    const acc *x = a, *y = b;
    if (x->op_rank != y->op_rank)
        return x->op_rank < y->op_rank ? -1 : 1;
    return (x->conc > y->conc) - (x->conc < y->conc);
}

/* The groups being read: an array, and two open-addressing indexes over it
 * (index + 1, 0 = empty; power-of-two sizes, at most half full): by
 * (operation, concurrency), and by operation (its first group). */
typedef struct groups {
    acc *g;
    size_t n, cap, nops;
    size_t *by_key, *by_op, nslot;
} groups;

static size_t op_hash(const char *op, unsigned conc)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)op; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    h = (h ^ conc) * 1099511628211ULL;
    return (size_t)(h ^ (h >> 29));
}

/* Slot for (op, conc) in by_key, or for op in by_op when conc == 0. */
static size_t *group_slot(const groups *gs, const char *op, unsigned conc)
{
    size_t *tab = conc ? gs->by_key : gs->by_op, mask = gs->nslot - 1;
    for (size_t i = op_hash(op, conc) & mask;; i = (i + 1) & mask) {
        if (!tab[i])
            return &tab[i];
        const acc *a = &gs->g[tab[i] - 1];
        if ((!conc || a->conc == conc) && !strcmp(a->op, op))
            return &tab[i];
    }
}

static void groups_rehash(groups *gs)
{
    free(gs->by_key);
    free(gs->by_op);
    gs->nslot = gs->nslot ? 2 * gs->nslot : 64;
    gs->by_key = calloc(gs->nslot, sizeof *gs->by_key);
    gs->by_op = calloc(gs->nslot, sizeof *gs->by_op);
    assert(gs->by_key && gs->by_op);
    for (size_t i = 0; i < gs->n; i++) {
        *group_slot(gs, gs->g[i].op, gs->g[i].conc) = i + 1;
        size_t *o = group_slot(gs, gs->g[i].op, 0);
        if (!*o)
            *o = i + 1;
    }
}

/* The group of (op, conc), added if new; NULL past VAL_FIT_MAX_GROUPS. */
static acc *group_of(groups *gs, const char *op, unsigned conc)
{
    if (gs->nslot) {
        size_t i = *group_slot(gs, op, conc);
        if (i)
            return &gs->g[i - 1];
    }
    if (gs->n == VAL_FIT_MAX_GROUPS)
        return NULL;
    if (gs->n == gs->cap) {
        gs->cap = gs->cap ? 2 * gs->cap : 16;
        gs->g = realloc(gs->g, gs->cap * sizeof *gs->g);
        assert(gs->g);
    }
    if (2 * (gs->n + 1) > gs->nslot)
        groups_rehash(gs);
    acc *a = &gs->g[gs->n];
    memset(a, 0, sizeof *a);
    snprintf(a->op, sizeof a->op, "%s", op);
    a->conc = conc;
    size_t *o = group_slot(gs, op, 0);
    a->op_rank = *o ? gs->g[*o - 1].op_rank : gs->nops++;
    if (!*o)
        *o = gs->n + 1;
    *group_slot(gs, op, conc) = ++gs->n;
    return a;
}

static void groups_fini(groups *gs)
{
    for (size_t i = 0; i < gs->n; i++)
        free(gs->g[i].x);
    free(gs->g);
    free(gs->by_key);
    free(gs->by_op);
}

val_fit_result *val_fit_file(const char *path, const val_fit_opts *o, sim_err *err)
{
    assert(o->max_samples >= VAL_FIT_MIN_N);
    val_samples_reader *rd = val_samples_open(path, err);
    if (!rd)
        return NULL;
    groups gs = {0};
    gsl_rng *rng = sim_rng_new(o->seed, 0, 0);
    val_sample s;
    int rc;
    while ((rc = val_samples_next(rd, &s, err)) == 1) {
        acc *a = group_of(&gs, s.op, s.concurrency);
        if (!a) {
            sim_err_set(err, SIM_EINPUT,
                        "%s:%llu: more than %d (operation, concurrency) groups, the most tfsim "
                        "fit takes (split the file by operation)",
                        path, (unsigned long long)val_samples_line(rd), VAL_FIT_MAX_GROUPS);
            rc = -1;
            break;
        }
        double v = s.latency_us * 1e-6;
        a->seen++;
        if (a->n < o->max_samples) {
            if (a->n == a->cap) {
                /* small first: most groups of a file with many are small */
                a->cap = a->cap ? 2 * a->cap : 8;
                if (a->cap > o->max_samples)
                    a->cap = o->max_samples;
                a->x = realloc(a->x, a->cap * sizeof *a->x);
                assert(a->x);
            }
            a->x[a->n++] = v;
        } else {
            /* reservoir sampling (Algorithm R) */
            uint64_t j = (uint64_t)(gsl_rng_uniform(rng) * (double)a->seen);
            if (j < a->n)
                a->x[j] = v;
        }
    }
    gsl_rng_free(rng);
    char nk[VAL_SAMPLES_NOTES][VAL_SAMPLES_OP_MAX + 1], nv[VAL_SAMPLES_NOTES][VAL_SAMPLES_OP_MAX + 1];
    const char *k_, *v_;
    size_t nn = val_samples_notes(rd, 0, &k_, &v_);
    for (size_t i = 0; i < nn; i++) {
        val_samples_notes(rd, i, &k_, &v_);
        assert(strlen(k_) <= VAL_SAMPLES_OP_MAX && strlen(v_) <= VAL_SAMPLES_OP_MAX);
        memcpy(nk[i], k_, strlen(k_) + 1);
        memcpy(nv[i], v_, strlen(v_) + 1);
    }
    val_samples_reader_free(rd);
    val_fit_result *res = NULL;
    if (rc == 0 && gs.n == 0)
        sim_err_set(err, SIM_EINPUT, "%s: no samples (only a header)", path);
    if (rc == 0 && gs.n > 0) {
        qsort(gs.g, gs.n, sizeof *gs.g, cmp_acc);
        res = calloc(1, sizeof *res);
        assert(res);
        res->source = strdup(path);
        memcpy(res->note_key, nk, sizeof nk);
        memcpy(res->note_val, nv, sizeof nv);
        res->nnotes = nn;
        res->g = calloc(gs.n, sizeof *res->g);
        assert(res->source && res->g);
        res->n = gs.n;
        size_t fitted = 0;
        for (size_t i = 0; i < gs.n; i++) {
            acc *a = &gs.g[i];
            val_fit_group *out = &res->g[i];
            memcpy(out->op, a->op, sizeof out->op);
            out->concurrency = a->conc;
            out->seen = a->seen;
            out->n = a->n;
            if (a->n >= VAL_FIT_MIN_N) {
                val_fit_report *rep = malloc(sizeof *rep);
                assert(rep);
                sim_err e2;
                sim_err_clear(&e2);
                if (val_fit_sample(a->x, a->n, o, rep, &e2) == SIM_OK) {
                    out->rep = rep;
                    fitted++;
                } else {
                    val_fit_report_fini(rep);
                    free(rep);
                }
            }
            free(a->x); /* done with it: keep the peak at one copy */
            a->x = NULL;
        }
        if (fitted == 0) {
            size_t big = 0;
            for (size_t i = 0; i < gs.n; i++)
                big += gs.g[i].n >= VAL_FIT_MIN_N;
            if (big)
                sim_err_set(err, SIM_EINPUT, "%s: no (operation, concurrency) group could be fitted "
                            "(latencies out of range)", path);
            else
                sim_err_set(err, SIM_EINPUT, "%s: no (operation, concurrency) group has the %d "
                            "samples a fit needs", path, VAL_FIT_MIN_N);
            val_fit_result_free(res);
            res = NULL;
        }
    }
    groups_fini(&gs);
    return res;
}

void val_fit_result_free(val_fit_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        if (r->g[i].rep)
            val_fit_report_fini(r->g[i].rep);
        free(r->g[i].rep);
    }
    free(r->g);
    free(r->source);
    free(r);
}

/* ---- presentation ---- */

static void params_text(const val_fit_one *r, val_fit_family f, char *buf, size_t len)
{
    const sim_dist *d = &r->d;
    int n = 0;
    switch (d->kind) {
    case SIM_DIST_EXP:
        n = snprintf(buf, len, "mean=%.4gms", d->a * 1e3);
        break;
    case SIM_DIST_LOGNORMAL:
        n = snprintf(buf, len, "median=%.4gms sigma=%.4g", exp(d->a) * 1e3, d->b);
        break;
    case SIM_DIST_GAMMA:
        n = snprintf(buf, len, "shape=%.4g scale=%.4gms", d->a, d->b * 1e3);
        break;
    case SIM_DIST_WEIBULL:
        n = snprintf(buf, len, "shape=%.4g scale=%.4gms", d->a, d->b * 1e3);
        break;
    case SIM_DIST_EMPIRICAL:
        n = snprintf(buf, len, "%zu quantiles", d->nq);
        break;
    default:
        assert(0 && "unexpected kind");
    }
    if (f >= VAL_FIT_SEXP && f <= VAL_FIT_SWEIBULL && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " shift=%.4gms", d->shift * 1e3);
}

sim_table *val_fit_table(const val_fit_result *r, int chosen_only)
{
    sim_table *t = sim_table_new("distribution fits");
    assert(t);
    int c_op = sim_table_col(t, "operation", NULL);
    int c_c = sim_table_col(t, "concurrency", "%.0f");
    int c_n = sim_table_col(t, "n", "%.0f");
    int c_f = sim_table_col(t, "family", NULL);
    int c_p = sim_table_col(t, "params", NULL);
    int c_m = sim_table_col(t, "mean_ms", "%.4f");
    int c_d = sim_table_col(t, "ks_d", "%.4f");
    int c_kp = sim_table_col(t, "ks_p", "%.3g");
    int c_ad = sim_table_col(t, "ad", "%.3g");
    int c_aic = sim_table_col(t, "aic", "%.1f");
    int c_ch = sim_table_col(t, "chosen", NULL);
    sim_table_group_by(t, c_op);
    char buf[160];
    for (size_t i = 0; i < r->n; i++) {
        const val_fit_group *g = &r->g[i];
        if (!g->rep) {
            sim_table_row(t);
            sim_table_str(t, c_op, g->op);
            sim_table_num(t, c_c, g->concurrency);
            sim_table_num(t, c_n, (double)g->n);
            sim_table_str(t, c_f, "-");
            if (g->n < VAL_FIT_MIN_N)
                snprintf(buf, sizeof buf, "too few samples (need %d)", VAL_FIT_MIN_N);
            else
                snprintf(buf, sizeof buf, "cannot be fitted (latencies out of range)");
            sim_table_str(t, c_p, buf);
            continue;
        }
        for (int f = 0; f < VAL_FIT_NFAM; f++) {
            const val_fit_one *x = &g->rep->fam[f];
            if ((f == VAL_FIT_EMPIRICAL || chosen_only) && g->rep->chosen != f)
                continue;
            sim_table_row(t);
            sim_table_str(t, c_op, g->op);
            sim_table_num(t, c_c, g->concurrency);
            sim_table_num(t, c_n, (double)g->rep->n);
            sim_table_str(t, c_f, family_names[f]);
            if (!x->ok) {
                sim_table_str(t, c_p, x->why);
                continue;
            }
            params_text(x, (val_fit_family)f, buf, sizeof buf);
            sim_table_str(t, c_p, buf);
            sim_table_num(t, c_m, sim_dist_mean(&x->d) * 1e3);
            sim_table_num(t, c_d, x->ks_d);
            sim_table_num(t, c_kp, x->ks_p);
            sim_table_num(t, c_ad, x->ad);
            sim_table_num(t, c_aic, x->aic);
            sim_table_str(t, c_ch, g->rep->chosen == f ? "*" : "");
        }
    }
    return t;
}

/* Section and key of an operation: "a.b.c" -> "fit.a.b", "c". */
static void section_key(const char *op, char *sec, size_t sl, char *key, size_t kl)
{
    const char *dot = strrchr(op, '.');
    if (dot && dot != op && dot[1]) {
        snprintf(sec, sl, "fit.%.*s", (int)(dot - op), op);
        snprintf(key, kl, "%s", dot + 1);
    } else {
        snprintf(sec, sl, "fit");
        snprintf(key, kl, "%s", op);
        for (char *p = key; *p; p++)
            if (*p == '.')
                *p = '_';
    }
}

/* One group's lines of the fragment. */
typedef struct frag_item {
    char sec[VAL_SAMPLES_OP_MAX + 8];
    size_t i;  /* group index */
} frag_item;

static int cmp_item(const void *a, const void *b)
{
    const frag_item *x = a, *y = b;
    int c = strcmp(x->sec, y->sec);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* A run of items of one section, placed by its first group. */
typedef struct frag_run {
    size_t start, len;
} frag_run;

static const frag_item *run_items;

static int cmp_run(const void *a, const void *b)
{
    size_t x = run_items[((const frag_run *)a)->start].i, y = run_items[((const frag_run *)b)->start].i;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int val_fit_write_config(const val_fit_result *r, const char *path, sim_err *err)
{
    /* sections in order of their first group; groups in order within */
    frag_item *it = malloc((r->n ? r->n : 1) * sizeof *it);
    frag_run *runs = malloc((r->n ? r->n : 1) * sizeof *runs);
    char (*keys)[VAL_SAMPLES_OP_MAX + 16] = malloc(2 * (r->n ? r->n : 1) * sizeof *keys);
    char **kp = malloc(2 * (r->n ? r->n : 1) * sizeof *kp);
    assert(it && runs && keys && kp);
    char key[VAL_SAMPLES_OP_MAX + 1];
    for (size_t i = 0; i < r->n; i++) {
        section_key(r->g[i].op, it[i].sec, sizeof it[i].sec, key, sizeof key);
        it[i].i = i;
    }
    qsort(it, r->n, sizeof *it, cmp_item);
    size_t nr = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (i == 0 || strcmp(it[i].sec, it[i - 1].sec))
            runs[nr++] = (frag_run){i, 0};
        runs[nr - 1].len++;
    }
    run_items = it;
    qsort(runs, nr, sizeof *runs, cmp_run);
    run_items = NULL;
    /* two operations may map onto one key ("_x" and ".x" are both [fit] _x;
     * "a.b" at concurrency 1 and "a.b_c1" are both b_c1 of [fit.a]) */
    int rc = SIM_OK;
    for (size_t k = 0; k < nr && rc == SIM_OK; k++) {
        size_t nk = 0;
        for (size_t m = runs[k].start; m < runs[k].start + runs[k].len; m++) {
            const val_fit_group *g = &r->g[it[m].i];
            if (!g->rep)
                continue;
            section_key(g->op, it[m].sec, sizeof it[m].sec, key, sizeof key);
            snprintf(keys[nk], sizeof keys[nk], "%s", key);
            kp[nk] = keys[nk];
            nk++;
            snprintf(keys[nk], sizeof keys[nk], "%s_c%u", key, g->concurrency);
            kp[nk] = keys[nk];
            nk++;
        }
        qsort(kp, nk, sizeof *kp, cmp_str);
        for (size_t j = 1; j < nk; j++) {
            /* the plain key repeats for each concurrency of one operation:
             * compare only keys of different operations */
            if (strcmp(kp[j], kp[j - 1]))
                continue;
            const char *dup = kp[j];
            size_t owners = 0;
            const char *a = NULL, *b = NULL;
            for (size_t m = runs[k].start; m < runs[k].start + runs[k].len && owners < 2; m++) {
                const val_fit_group *g = &r->g[it[m].i];
                if (!g->rep)
                    continue;
                char k1[VAL_SAMPLES_OP_MAX + 16], k2[VAL_SAMPLES_OP_MAX + 16];
                char sec[VAL_SAMPLES_OP_MAX + 8];
                section_key(g->op, sec, sizeof sec, key, sizeof key);
                snprintf(k1, sizeof k1, "%s", key);
                snprintf(k2, sizeof k2, "%s_c%u", key, g->concurrency);
                if ((!strcmp(k1, dup) || !strcmp(k2, dup)) && (!a || strcmp(a, g->op))) {
                    if (!a)
                        a = g->op;
                    else
                        b = g->op;
                    owners++;
                }
            }
            if (b) {
                rc = sim_err_set(err, SIM_EINPUT,
                                 "%s: operations %s and %s both map onto key %s of [%s]: rename "
                                 "one to write a config fragment",
                                 r->source, a, b, dup, it[runs[k].start].sec);
                break;
            }
        }
    }
    sim_afile af;
    if (rc == SIM_OK && sim_afile_open(&af, path, err) == SIM_OK) {
        FILE *f = af.f;
        fprintf(f, "# tfsim fit of %s: service-time distributions in seconds (sim_dist specs).\n"
                   "# Chosen: lowest AIC among the families passing Kolmogorov-Smirnov at the\n"
                   "# chosen level; empirical quantiles when none passes.  KEY is the fit at the\n"
                   "# lowest concurrency measured, KEY_cC the fit at concurrency C.  Include this\n"
                   "# file in a scenario; a distribution key may then name a fit as\n"
                   "# fit.SECTION.KEY (e.g. redis.service = fit.redis.paymentsession.save).\n",
                r->source);
        for (size_t k = 0; k < nr; k++) {
            fprintf(f, "\n[%s]\n", it[runs[k].start].sec);
            const char *prev_op = NULL;
            for (size_t m = runs[k].start; m < runs[k].start + runs[k].len; m++) {
                /* groups of one operation are adjacent, by concurrency */
                const val_fit_group *g = &r->g[it[m].i];
                if (!g->rep)
                    continue;
                int first = !prev_op || strcmp(prev_op, g->op);
                prev_op = g->op;
                char sec[VAL_SAMPLES_OP_MAX + 8];
                section_key(g->op, sec, sizeof sec, key, sizeof key);
                const val_fit_one *x = &g->rep->fam[g->rep->chosen];
                char *spec = spec_text(&x->d);
                assert(spec && "a chosen fit parses back (checked when fitted)");
                fprintf(f, "# %s at concurrency %u: %s, n=%zu", g->op, g->concurrency,
                        family_names[g->rep->chosen], g->rep->n);
                if (g->rep->chosen != VAL_FIT_EMPIRICAL)
                    fprintf(f, ", KS p=%.3g", x->ks_p);
                fprintf(f, "\n");
                /* VAL_FIT_MAX_QUANTILES keeps the longest spec on one line */
                assert(strlen(key) + strlen(spec) + 16 < SIM_CFG_MAX_LINE);
                if (first)
                    fprintf(f, "%s = %s\n", key, spec);
                fprintf(f, "%s_c%u = %s\n", key, g->concurrency, spec);
                free(spec);
            }
        }
        /* the server's settings that the samples recorded, by section */
        for (size_t i = 0; i < r->nnotes; i++) {
            const char *dot = strchr(r->note_key[i], '.');
            if (!dot || dot == r->note_key[i] || !dot[1])
                continue;
            size_t sl = (size_t)(dot - r->note_key[i]);
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                seen = !strncmp(r->note_key[j], r->note_key[i], sl + 1);
            if (seen)
                continue;
            fprintf(f, "\n# the measured server's settings (notes in %s)\n[%.*s]\n", r->source, (int)sl,
                    r->note_key[i]);
            for (size_t j = i; j < r->nnotes; j++)
                if (!strncmp(r->note_key[j], r->note_key[i], sl + 1))
                    fprintf(f, "%s = %s\n", r->note_key[j] + sl + 1, r->note_val[j]);
        }
        rc = sim_afile_commit(&af, err);
    } else if (rc == SIM_OK) {
        rc = err->code;
    }
    free(it);
    free(runs);
    free(keys);
    free(kp);
    return rc;
}
