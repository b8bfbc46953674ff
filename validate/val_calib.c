/* val_calib: calibration of the TigerFans model against TigerBench points
 * (see the header).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "validate/val_calib.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_multimin.h>

#include "models/mdl.h"
#include "models/mdl_sweep.h"
#include "sim/sim_dist.h"
#include "sim/sim_stats.h"
#include "sim/sim_str.h"
#include "validate/val_cpu.h"
#include "validate/val_min.h"

static const char *const kind_names[TF_NKINDS] = {
    "accounting.hold",        "accounting.commit_order",       "paymentsession.save",
    "paymentsession.get",     "paymentsession.fulfill",        "paymentsession.remove_pending",
    "db.add_order"};

void val_calib_opts_init(val_calib_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->reps = 2;
    o->max_iter = 150;
    o->kind_weight = 0.25;
    /* the simulated throughputs of 2 replications of 1000 requests move by
     * a few percent from seed to seed: a simplex of 1% (log units) is as
     * fine as the objective can tell apart */
    o->tol = 0.01;
    o->step = 0.15;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = n >= 1 && n <= 64 ? (int)n : 1;
    o->light_start = 1;
}

/* ---- one point's config and simulation ---- */

/* "key=value" of a parameter at its value: numbers exactly (%.17g), a
 * distribution as its base spec scaled to the mean `value`. */
int val_calib_param_text(const val_calib_param *p, char *buf, size_t len, sim_err *err)
{
    if (!p->spec[0]) {
        snprintf(buf, len, "%s=%.17g", p->key, p->value);
        return SIM_OK;
    }
    sim_dist d;
    char msg[256];
    if (sim_dist_parse(p->spec, &d, msg, sizeof msg))
        return sim_err_set(err, SIM_EINPUT, "%s: %s", p->key, msg);
    double m = sim_dist_mean(&d);
    int rc = SIM_OK;
    if (!(m > 0))
        rc = sim_err_set(err, SIM_EINPUT, "%s: a distribution of mean 0 cannot be fitted", p->key);
    else {
        sim_dist_scale(&d, p->value / m);
        int n = snprintf(buf, len, "%s=", p->key);
        sim_dist_format(&d, buf + n, len - (size_t)n);
    }
    sim_dist_fini(&d);
    return rc;
}

static int build_cfg(sim_cfg *c, const sim_cfg *base, const val_calib_param *params, size_t np,
                     const val_calib_point *pt, const val_calib_opts *o, int jobs, sim_err *err)
{
    if (mdl_cfg_copy(c, base, err))
        return err->code;
    char buf[1024];
    /* the point's state first: a fitted parameter (a target's holds rows)
     * may set it */
    snprintf(buf, sizeof buf, "client.concurrency=%ld", pt->concurrency);
    sim_cfg_set(c, buf, err);
    snprintf(buf, sizeof buf, "postgres.holds_rows=%.0f", pt->holds_rows);
    sim_cfg_set(c, buf, err);
    snprintf(buf, sizeof buf, "inventory.goodies=%.0f", pt->goodies);
    sim_cfg_set(c, buf, err);
    for (size_t i = 0; i < np; i++)
        if (val_calib_param_text(&params[i], buf, sizeof buf, err) || sim_cfg_set(c, buf, err))
            return err->code;
    snprintf(buf, sizeof buf, "run.seed=%llu", (unsigned long long)o->seed);
    sim_cfg_set(c, buf, err);
    snprintf(buf, sizeof buf, "run.replications=%u", o->reps);
    sim_cfg_set(c, buf, err);
    sim_cfg_set(c, "run.target_ci=0", err);
    /* replications in parallel too when there are fewer points than
     * threads (sim_rep's results do not depend on its jobs) */
    snprintf(buf, sizeof buf, "run.jobs=%d", jobs);
    sim_cfg_set(c, buf, err);
    return err->code;
}

static int simulate_point(const sim_cfg *base, const val_calib_param *params, size_t np,
                          const val_calib_point *pt, const val_calib_opts *o, int jobs,
                          val_calib_sim *out, sim_err *err)
{
    sim_cfg *c = sim_cfg_new();
    mdl_scenario sc;
    memset(&sc, 0, sizeof sc);
    sim_rep_result res;
    memset(&res, 0, sizeof res);
    int rc = build_cfg(c, base, params, np, pt, o, jobs, err);
    if (rc == SIM_OK)
        rc = mdl_scenario_init(&sc, c, err);
    if (rc == SIM_OK && strcmp(sc.type->name, "tigerfans"))
        rc = sim_err_set(err, SIM_EINPUT, "calibration needs a tigerfans model config");
    if (rc == SIM_OK)
        rc = sim_rep_run(&sc.plan, &sc.layout, sc.type->replicate, sc.model, sc.seed, &res, err);
    if (rc == SIM_OK) {
        for (int i = 0; i < TF_NPHASES; i++) {
            long j = sim_layout_find(&sc.layout, "phase", tf_phase_names[i], "throughput");
            out->thr[i] = res.mean[j];
            out->thr_ci[i] = res.half[j];
            for (int l = 0; l < 2; l++)
                out->busy[l][i] = res.mean[sim_layout_find(&sc.layout, "phase", tf_phase_names[i],
                                                           l ? "server_busy" : "client_busy")];
            static const char *const cpu_cols[VAL_CALIB_NCPU] = {"client_cpu", "server_cpu",
                                                                 "postgres_cpu"};
            for (int l = 0; l < VAL_CALIB_NCPU; l++)
                out->cpu[l][i] =
                    res.mean[sim_layout_find(&sc.layout, "phase", tf_phase_names[i], cpu_cols[l])];
        }
        for (int i = 0; i < TF_NKINDS; i++) {
            long j = sim_layout_find(&sc.layout, "kind", tf_kind_names[i], "mean");
            out->kind[i] = res.mean[j];
        }
    }
    sim_rep_result_fini(&res);
    mdl_scenario_fini(&sc);
    sim_cfg_free(c);
    return rc;
}

/* The points of one evaluation, shared by the worker threads. */
typedef struct sim_work {
    const sim_cfg *base;
    const val_calib_param *params;
    size_t np;
    const val_calib_point *pts;
    size_t npts;
    const val_calib_opts *o;
    val_calib_sim *sims;
    int inner;
    int *rc;
    sim_err *errs;
    size_t next;
    pthread_mutex_t lock;
} sim_work;

static void *sim_worker(void *arg)
{
    sim_work *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        size_t k = w->next++;
        pthread_mutex_unlock(&w->lock);
        if (k >= w->npts)
            return NULL;
        sim_err_clear(&w->errs[k]);
        w->rc[k] = simulate_point(w->base, w->params, w->np, &w->pts[k], w->o, w->inner,
                                  &w->sims[k], &w->errs[k]);
    }
}

int val_calib_simulate(const sim_cfg *base, const val_calib_param *params, size_t np,
                       const val_calib_point *pts, size_t npts, const val_calib_opts *o,
                       val_calib_sim *sims, sim_err *err)
{
    int all = o->jobs < 1 ? 1 : o->jobs > 64 ? 64 : o->jobs, jobs = all;
    if ((size_t)jobs > npts)
        jobs = (int)(npts ? npts : 1);
    int inner = all / jobs;
    if (jobs == 1) {
        for (size_t k = 0; k < npts; k++)
            if (simulate_point(base, params, np, &pts[k], o, inner, &sims[k], err))
                return err->code;
        return SIM_OK;
    }
    sim_work w = {base, params, np, pts, npts, o, sims, inner, calloc(npts, sizeof(int)),
                  calloc(npts, sizeof(sim_err)), 0, PTHREAD_MUTEX_INITIALIZER};
    assert(w.rc && w.errs);
    pthread_t th[64];
    int started = 0;
    for (; started < jobs; started++)
        if (pthread_create(&th[started], NULL, sim_worker, &w) != 0)
            break;
    if (started == 0)
        sim_worker(&w); /* no thread to be had: do it here */
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    pthread_mutex_destroy(&w.lock);
    int rc = SIM_OK;
    /* the first failing point in point order: the same message whatever jobs is */
    for (size_t k = 0; k < npts && rc == SIM_OK; k++)
        if (w.rc[k]) {
            rc = w.rc[k];
            sim_err_set(err, w.errs[k].code, "%s", w.errs[k].msg);
        }
    free(w.rc);
    free(w.errs);
    return rc;
}

static double sq_log_err(double sim, double meas)
{
    if (!(meas > 0) || !isfinite(meas))
        return 0;
    if (!(sim > 0) || !isfinite(sim))
        return 25; /* a point the model cannot produce: a large, finite penalty */
    double e = log(sim / meas);
    return e * e;
}

/* The weight of point p's throughput of phase ph in the objective. */
static double point_weight(const val_calib_point *p, int ph)
{
    return p->phase_out[ph] ? 0 : p->weight;
}

double val_calib_objective(const val_calib_point *pts, const val_calib_sim *sims, size_t npts,
                           double kw)
{
    double f = 0;
    for (size_t k = 0; k < npts; k++) {
        if (pts[k].weight <= 0)
            continue;
        for (int i = 0; i < TF_NPHASES; i++) {
            f += point_weight(&pts[k], i) * sq_log_err(sims[k].thr[i], pts[k].thr[i]);
            for (int l = 0; l < VAL_CALIB_NCPU && pts[k].cpu_weight > 0; l++)
                f += point_weight(&pts[k], i) * pts[k].cpu_weight *
                     sq_log_err(sims[k].cpu[l][i], pts[k].cpu[l][i]);
        }
        for (int i = 0; i < TF_NKINDS; i++)
            f += pts[k].weight * kw * sq_log_err(sims[k].kind[i], pts[k].kind[i]);
    }
    return f;
}

/* ---- the fit ---- */

typedef struct fit_ctx {
    const sim_cfg *base;
    val_calib_param *params;
    size_t np;
    const val_calib_point *pts;
    size_t npts;
    const val_calib_opts *o;
    val_calib_sim *sims;
    sim_err *err;
    int failed;
    unsigned evals;
    double done;         /* share of the work done, for progress */
    const double *scale; /* light start: the log scale applies to params with scale[i] */
} fit_ctx;


static double evaluate(fit_ctx *c)
{
    if (val_calib_simulate(c->base, c->params, c->np, c->pts, c->npts, c->o, c->sims, c->err)) {
        c->failed = 1;
        return GSL_POSINF;
    }
    c->evals++;
    if (c->o->progress)
        c->o->progress(c->o->progress_ctx, c->evals, c->done);
    return val_calib_objective(c->pts, c->sims, c->npts, c->o->kind_weight);
}

static double objective(const gsl_vector *x, void *arg)
{
    fit_ctx *c = arg;
    if (c->failed)
        return GSL_POSINF;
    assert(x->stride == 1);
    double penalty = val_min_apply(c->params, c->np, x->data);
    return evaluate(c) + penalty;
}

/* Light start: the demands (scale[i] = 1) times exp(s), at the lowest
 * concurrency only; the others at their start values (x0). */
typedef struct light_ctx {
    fit_ctx *c;
    const double *x0;
} light_ctx;

static double light_objective(double s, void *arg)
{
    light_ctx *l = arg;
    fit_ctx *c = l->c;
    if (c->failed)
        return GSL_POSINF;
    for (size_t i = 0; i < c->np; i++)
        c->params[i].value = val_min_value(&c->params[i], l->x0[i] + (c->scale[i] ? s : 0));
    return evaluate(c);
}

int val_calib_scale(const sim_cfg *base, val_calib_param *params, size_t np, const int *which,
                    const val_calib_point *pts, size_t npts, const val_calib_opts *o,
                    double range, double *factor, unsigned *evals, sim_err *err)
{
    double scale[VAL_CALIB_MAX_PARAMS], x0[VAL_CALIB_MAX_PARAMS];
    int any = 0;
    assert(np <= VAL_CALIB_MAX_PARAMS && range > 1);
    for (size_t i = 0; i < np; i++) {
        scale[i] = which[i] != 0;
        any |= which[i] != 0;
        x0[i] = log(params[i].value);
    }
    *factor = 1;
    if (!any || npts == 0)
        return SIM_OK;
    val_calib_sim *sims = calloc(npts, sizeof *sims);
    assert(sims);
    fit_ctx c = {base, params, np, pts, npts, o, sims, err, 0, 0, 0, scale};
    light_ctx l = {&c, x0};
    /* a grid of factors 1/range..range, widened while the best is at an
     * end (up to MORE steps more on each side), brackets the best, then
     * Brent inside the bracket */
    enum { NG = 9, MORE = 8 };
    double g[NG + 2 * MORE], f[NG + 2 * MORE];
    double h = 2 * log(range) / (NG - 1);
    int lo = MORE, hi = MORE + NG - 1, best = lo;
    for (int i = lo; i <= hi && !c.failed; i++) {
        g[i] = -log(range) + h * (i - lo);
        f[i] = light_objective(g[i], &l);
        if (f[i] < f[best])
            best = i;
    }
    while (!c.failed && ((best == lo && lo > 0) || (best == hi && hi < NG + 2 * MORE - 1))) {
        int i = best == lo ? --lo : ++hi;
        g[i] = g[best] + (best == lo + 1 ? -h : h);
        f[i] = light_objective(g[i], &l);
        if (f[i] < f[best])
            best = i;
        else
            break;
    }
    double sbest = g[best];
    if (!c.failed && best > lo && best < hi) {
        gsl_function fn = {light_objective, &l};
        gsl_min_fminimizer *m = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
        assert(m);
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        if (gsl_min_fminimizer_set_with_values(m, &fn, g[best], f[best], g[best - 1], f[best - 1],
                                               g[best + 1], f[best + 1]) == GSL_SUCCESS) {
            for (int it = 0; it < 12 && !c.failed; it++) {
                if (gsl_min_fminimizer_iterate(m) != GSL_SUCCESS)
                    break;
                if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(m),
                                          gsl_min_fminimizer_x_upper(m), 0.01, 0) == GSL_SUCCESS)
                    break;
            }
            sbest = gsl_min_fminimizer_x_minimum(m);
        }
        gsl_set_error_handler(old);
        gsl_min_fminimizer_free(m);
    }
    if (evals)
        *evals += c.evals;
    free(sims);
    if (c.failed)
        return err->code;
    for (size_t i = 0; i < np; i++)
        params[i].value = val_min_value(&params[i], x0[i] + (scale[i] ? sbest : 0));
    *factor = exp(sbest);
    return SIM_OK;
}

/* Scale the fitted demands together so that the lowest concurrency's
 * point matches best (factors 1/4..4).  Leaves params at the best scale. */
static int light_start(const sim_cfg *base, val_calib_param *params, size_t np,
                       const val_calib_point *pts, size_t npts, const val_calib_opts *o,
                       unsigned *evals, sim_err *err)
{
    /* with host.cpu_scale fitted, it is the host's speed: the costs it
     * multiplies stay (scaling both would move those twice) */
    int host = val_calib_has_key(params, np, TF_PARAMS_HOST_SCALE), which[VAL_CALIB_MAX_PARAMS];
    for (size_t i = 0; i < np; i++) {
        const tf_param *r = tf_params_find(params[i].key);
        which[i] = r && r->demand && !(host && tf_params_host_scaled(r));
    }
    /* the fitted point of lowest concurrency with throughputs */
    size_t k0 = npts;
    for (size_t k = 0; k < npts; k++) {
        int thr = 0;
        for (int i = 0; i < TF_NPHASES; i++)
            thr |= !isnan(pts[k].thr[i]) && point_weight(&pts[k], i) > 0;
        if (thr && (k0 == npts || pts[k].concurrency < pts[k0].concurrency))
            k0 = k;
    }
    if (k0 == npts)
        return SIM_OK;
    val_calib_point p0 = pts[k0];
    p0.weight = 1;
    double f;
    return val_calib_scale(base, params, np, which, &p0, 1, o, 4, &f, evals, err);
}

/* The holds table's cost per row (the registry's per_row keys,
 * postgres.row_cost, when fitted) alone,
 * scaled (factors 1/16..16) to the whole objective over the points, the
 * other keys at their values.  The light start looks at the lowest
 * concurrency, where a series has few holds rows, so it cannot tell this
 * cost, and the simplex stays near its start: a live series (2026-12-02,
 * Debian's client) fitted from the embedded 29 ns (an upstream fit) ended
 * at objective 1.67 with row_cost unmoved, and from the 120 ns a probe of
 * this VM's PostgreSQL measured at 0.26. */
static int rows_start(const sim_cfg *base, val_calib_param *params, size_t np,
                      const val_calib_point *pts, size_t npts, const val_calib_opts *o,
                      unsigned *evals, sim_err *err)
{
    int which[VAL_CALIB_MAX_PARAMS], any = 0;
    for (size_t i = 0; i < np; i++) {
        const tf_param *r = tf_params_find(params[i].key);
        which[i] = r && r->per_row;
        any |= which[i];
    }
    int rows = 0;
    for (size_t k = 0; k < npts; k++)
        rows |= pts[k].holds_rows > 0;
    if (!any || !rows)
        return SIM_OK;
    double f;
    return val_calib_scale(base, params, np, which, pts, npts, o, 16, &f, evals, err);
}

/* One Nelder-Mead run over c's points from params' values: initial step
 * `step` (log units), until the simplex is smaller than tol, the best value
 * stagnates (improves by less than STALL_REL over STALL_ITERS(np)
 * iterations), or max_iter; the share done runs from done0 to done1. */
#define STALL_REL 2e-3
#define STALL_ITERS(np) ((unsigned)(np) + 1 > 10 ? (unsigned)(np) + 1 : 10)
static int simplex(fit_ctx *c, double step, double tol, unsigned max_iter, double done0,
                   double done1, unsigned *iters, double *fval)
{
    size_t np = c->np;
    gsl_multimin_function f = {objective, np, c};
    gsl_vector *x = gsl_vector_alloc(np), *st = gsl_vector_alloc(np);
    assert(x && st);
    for (size_t i = 0; i < np; i++) {
        gsl_vector_set(x, i, log(c->params[i].value));
        gsl_vector_set(st, i, step);
    }
    gsl_multimin_fminimizer *m =
        gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, np);
    assert(m);
    c->done = done0;
    int rc = SIM_OK;
    if (gsl_multimin_fminimizer_set(m, &f, x, st) != GSL_SUCCESS || c->failed)
        rc = c->failed ? c->err->code
                       : sim_err_set(c->err, SIM_EFAIL, "calibration: cannot start the simplex");
    double size0 = gsl_multimin_fminimizer_size(m);
    /* GSL's set does not fill m->fval (only iterate does): the first
     * iteration's value is the first best */
    double best = GSL_POSINF;
    unsigned it = 0, since = 0;
    while (rc == SIM_OK && it < max_iter) {
        it++;
        /* the share done: iterations, or the simplex shrinking towards tol */
        double size = gsl_multimin_fminimizer_size(m);
        double conv = size < size0 && size0 > tol ? log(size0 / size) / log(size0 / tol) : 0;
        double sh = fmax((double)it / max_iter, fmax(conv, (double)since / STALL_ITERS(np)));
        c->done = done0 + (done1 - done0) * fmin(1, sh);
        int status = gsl_multimin_fminimizer_iterate(m);
        if (c->failed) {
            rc = c->err->code;
            break;
        }
        if (status != GSL_SUCCESS)
            break; /* the simplex cannot improve further */
        if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), tol) == GSL_SUCCESS)
            break;
        if (m->fval < best * (1 - STALL_REL)) {
            best = m->fval;
            since = 0;
        } else if (++since >= STALL_ITERS(np)) {
            break; /* improvements below what the simulation's noise can tell */
        }
    }
    if (rc == SIM_OK) {
        for (size_t i = 0; i < np; i++)
            c->params[i].value = val_min_value(&c->params[i], gsl_vector_get(m->x, i));
        *fval = m->fval;
    }
    *iters += it;
    gsl_multimin_fminimizer_free(m);
    gsl_vector_free(x);
    gsl_vector_free(st);
    return rc;
}

/* Points of a first, coarser simplex: four spread over the fitted points
 * by concurrency (the lowest, the highest and two between), a third of
 * an evaluation's cost. */
#define COARSE_POINTS 4
#define COARSE_FROM 8
/* Restarts of the last simplex go on while each improves the objective
 * by more than VAL_MIN_RESTART_GAIN and iterations are left (o->max_iter
 * bounds the whole fit); RESTARTS only bounds the loop. */
#define RESTARTS 64

int val_calib_fit(const sim_cfg *base, val_calib_param *params, size_t np,
                  const val_calib_point *pts, size_t npts, const val_calib_opts *o,
                  double *fval, unsigned *iters, unsigned *evals, sim_err *err)
{
    assert(np >= 1 && np <= VAL_CALIB_MAX_PARAMS);
    for (size_t i = 0; i < np; i++)
        if (!(params[i].lo > 0 && params[i].hi > params[i].lo && params[i].value > 0))
            return sim_err_set(err, SIM_EINPUT, "%s: calibration bounds must satisfy 0 < lo < hi "
                               "and the start value must be > 0", params[i].key);
    /* only the points that count (held-out points are only reported) */
    val_calib_point *act = calloc(npts ? npts : 1, sizeof *act);
    val_calib_sim *sims = calloc(npts ? npts : 1, sizeof *sims);
    assert(act && sims);
    size_t na = 0;
    for (size_t k = 0; k < npts; k++)
        if (pts[k].weight > 0)
            act[na++] = pts[k];
    unsigned ev = 0;
    int rc = o->light_start ? light_start(base, params, np, act, na, o, &ev, err) : SIM_OK;
    if (rc == SIM_OK && o->light_start)
        rc = rows_start(base, params, np, act, na, o, &ev, err);
    fit_ctx c = {base, params, np, act, na, o, sims, err, 0, ev, 0, NULL};
    double step = o->step > 0 ? o->step : 0.15, f = NAN;
    double d0 = o->light_start ? 0.1 : 0;
    *iters = 0;
    if (rc == SIM_OK && na >= COARSE_FROM) {
        /* the coarse simplex on a spread subset (act is in concurrency order) */
        val_calib_point sub[COARSE_POINTS];
        for (int i = 0; i < COARSE_POINTS; i++)
            sub[i] = act[(size_t)i * (na - 1) / (COARSE_POINTS - 1)];
        c.pts = sub;
        c.npts = COARSE_POINTS;
        rc = simplex(&c, step, 3 * o->tol, o->max_iter, d0, 0.5, iters, &f);
        c.pts = act;
        c.npts = na;
        step /= 3;
        d0 = 0.5;
    }
    if (rc == SIM_OK)
        rc = simplex(&c, step, o->tol, o->max_iter, d0, 1, iters, &f);
    /* Restarts: a fresh simplex (the same step) around the point found,
     * while that gains more than VAL_MIN_RESTART_GAIN and the iterations last.
     * Nelder-Mead's simplex can collapse along a valley before its end,
     * and the stall rule above cannot tell that from the end: a fit of 9
     * keys on 6 concurrencies of a live TigerFans series stopped at
     * objective 1.72; with three restarts it ended at 0.36.  Three were
     * not enough either: pg_pg of a live series measured on another
     * machine (2026-12-06, seed 2) stopped at 1.21 after the third, which
     * had gained 14%; with the restarts bounded by the iterations alone it
     * ends at 0.60 (docs/calibration.md, "Restarts until they stop
     * gaining"). */
    for (int r = 0; rc == SIM_OK && r < RESTARTS && *iters < o->max_iter; r++) {
        double before = f;
        rc = simplex(&c, step, o->tol, o->max_iter - *iters, 1, 1, iters, &f);
        if (rc == SIM_OK && !(f < before * (1 - VAL_MIN_RESTART_GAIN)))
            break;
    }
    if (rc == SIM_OK)
        *fval = f;
    if (evals)
        *evals = c.evals;
    free(act);
    free(sims);
    return rc;
}

/* ---- points, parameters, base config ---- */

int val_calib_points(const val_tigerbench *tb, const val_series *ser, const char *arch,
                     val_calib_point *pts, size_t max, size_t *n, sim_err *err)
{
    const val_tigerbench_arch *a;
    *n = 0;
    if (val_tigerbench_arch_get(tb, arch, &a, err))
        return err->code;
    int rows = a->nphases ? VAL_TIGERBENCH_PHASE_ROWS : VAL_TIGERBENCH_KIND_ROWS;
    long cs[512];
    size_t nc = val_tigerbench_concurrencies(a, rows, cs, 512);
    if (nc == 0)
        return sim_err_set(err, SIM_EINPUT, "%s: architecture %s has no rows",
                           val_tigerbench_name(tb), arch);
    for (size_t i = 0; i < nc && i < 512; i++) {
        if (*n == max)
            return sim_err_set(err, SIM_EINPUT, "%s: more than %zu concurrencies",
                               val_tigerbench_name(tb), max);
        val_calib_point *p = &pts[(*n)++];
        memset(p, 0, sizeof *p);
        p->concurrency = cs[i];
        p->weight = 1;
        for (int k = 0; k < TF_NPHASES; k++) {
            const val_tigerbench_phase *ph = val_tigerbench_phase_get(a, tf_phase_names[k], cs[i]);
            p->thr[k] = ph ? ph->x_mean : NAN;
        }
        for (int k = 0; k < TF_NKINDS; k++) {
            const val_tigerbench_kind *kd = val_tigerbench_kind_get(a, kind_names[k], cs[i]);
            p->kind[k] = kd ? kd->mean : NAN;
        }
        if (val_series_state(ser, arch, cs[i], &p->holds_rows, &p->goodies, NULL, NULL, err))
            return err->code;
    }
    return SIM_OK;
}

int val_calib_value(const sim_cfg *cfg, const char *key, double *v, char *spec, size_t spec_len,
                    sim_err *err)
{
    char sec[64];
    const char *dot = strrchr(key, '.');
    if (!dot || (size_t)(dot - key) >= sizeof sec)
        return sim_err_set(err, SIM_EINPUT, "%s: expected SECTION.KEY", key);
    memcpy(sec, key, (size_t)(dot - key));
    sec[dot - key] = '\0';
    if (spec_len)
        spec[0] = '\0';
    size_t n;
    sim_cfg_key *s = mdl_schema(NULL, &n);
    const sim_cfg_key *k = sim_cfg_spec(s, n, sec, dot + 1);
    int rc;
    if (!k) {
        rc = sim_err_set(err, SIM_EINPUT, "%s: no such config key", key);
    } else if (k->type == SIM_CFG_DIST) {
        sim_dist d;
        rc = sim_cfg_dist(cfg, s, n, sec, dot + 1, &d, err);
        if (rc == SIM_OK) {
            *v = sim_dist_mean(&d);
            if (spec_len)
                sim_dist_format(&d, spec, spec_len);
            sim_dist_fini(&d);
        }
    } else if (k->type != SIM_CFG_NUM && k->type != SIM_CFG_DUR && k->type != SIM_CFG_INT &&
               k->type != SIM_CFG_RATE) {
        rc = sim_err_set(err, SIM_EINPUT, "%s: not a numeric key (calibration fits numbers)", key);
    } else {
        rc = sim_cfg_num(cfg, s, n, sec, dot + 1, v, err);
    }
    free(s);
    return rc;
}

int val_calib_params(const char *list, const sim_cfg *cfg, val_calib_param *params, size_t max,
                     size_t *n, sim_err *err)
{
    *n = 0;
    size_t nreg;
    const tf_param *reg = tf_params_registry(&nreg);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list ? list : "");
    char keys[64][96];
    size_t nk = 0;
    if (list) {
        char *save = NULL;
        for (char *t = strtok_r(buf, ", ", &save); t && nk < 64; t = strtok_r(NULL, ", ", &save))
            snprintf(keys[nk++], sizeof keys[0], "%s", t);
    } else {
        /* httpcore 0.16's passes have no idle x connections term */
        int h016 = tf_params_cfg_httpcore016(cfg);
        for (size_t i = 0; i < nreg && nk < 64; i++)
            if (reg[i].fit) {
                tf_params_key(&reg[i], keys[nk], sizeof keys[0]);
                if (!(h016 && !strcmp(keys[nk], "client.pool_idle_cpu")))
                    nk++;
            }
    }
    if (nk == 0)
        return sim_err_set(err, SIM_EINPUT, "--fit: no parameter given");
    for (size_t i = 0; i < nk; i++) {
        for (size_t j = 0; j < i; j++)
            if (!strcmp(keys[i], keys[j]))
                return sim_err_set(err, SIM_EINPUT, "--fit: %s given twice", keys[i]);
        if (*n == max)
            return sim_err_set(err, SIM_EINPUT, "--fit: more than %zu parameters", max);
        if (strlen(keys[i]) >= sizeof params[0].key)
            return sim_err_set(err, SIM_EINPUT, "--fit: %.40s...: no such config key", keys[i]);
        val_calib_param *p = &params[(*n)++];
        memset(p, 0, sizeof *p);
        snprintf(p->key, sizeof p->key, "%.63s", keys[i]);
        double v;
        if (val_calib_value(cfg, keys[i], &v, p->spec, sizeof p->spec, err))
            return sim_err_prefix(err, "--fit: "), err->code;
        const tf_param *r = tf_params_find(keys[i]);
        /* the simplex moves by fractions: an integer key would fail at
         * its first point, after the fit had started */
        if (r && r->k.type == SIM_CFG_INT)
            return sim_err_set(err, SIM_EINPUT,
                               "--fit: %s: an integer key (a fit moves real numbers: "
                               "durations, factors, distributions); set it with --set",
                               keys[i]);
        p->lo = 1e-9;
        p->hi = 1e9;
        if (r)
            tf_params_fit_bounds(r, &p->lo, &p->hi);
        if (!(v > p->lo)) {
            /* off (0) or at its floor: start in the middle of the key's
             * fit range in log units, where the simplex sees its effect
             * (near the floor a key such as client.cold changes the
             * simulation by less than its noise, and the fit stays there);
             * a key without a fit range starts just above its floor */
            if (r && r->fit_lo > 0 && r->fit_hi > r->fit_lo)
                v = sqrt(p->lo * p->hi);
            else
                v = p->lo * 10 < p->hi ? p->lo * 10 : p->lo;
        }
        if (v > p->hi)
            v = p->hi;
        p->value = v;
    }
    return SIM_OK;
}

int val_calib_base(const char *base_path, const val_tigerbench *tb, const char *arch,
                   const sim_cfg *ov, sim_cfg *cfg, sim_err *err)
{
    const val_tigerbench_arch *a;
    if (val_tigerbench_arch_get(tb, arch, &a, err))
        return err->code;
    return val_calib_base_arch(base_path, val_tigerbench_name(tb), a, ov, cfg, err);
}

int val_calib_arch_modelled(const char *name, const val_tigerbench_arch *a, sim_err *err)
{
    if (strcmp(a->accounting, "pg") && strcmp(a->accounting, "tb"))
        return sim_err_set(err, SIM_EINPUT, "%s: architecture %s: accounting '%s' is not one tfsim "
                           "models (pg, tb)", name, a->name, a->accounting);
    if (strcmp(a->payments, "pg") && strcmp(a->payments, "redis"))
        return sim_err_set(err, SIM_EINPUT, "%s: architecture %s: payments '%s' is not one tfsim "
                           "models (pg, redis)", name, a->name, a->payments);
    return SIM_OK;
}

/* key = value with origin "FILE: column" when value differs from cfg's
 * (schema: the n keys of mdl_schema, borrowed). */
static int file_setting(sim_cfg *cfg, const sim_cfg_key *schema, size_t n, const char *file,
                        const char *column, const char *section, const char *key, double value,
                        sim_err *err)
{
    double now;
    if (sim_cfg_num(cfg, schema, n, section, key, &now, err))
        return err->code;
    if (now == value)
        return SIM_OK;
    char line[256], origin[SIM_CFG_MAX_LINE];
    snprintf(line, sizeof line, "%s.%s=%.17g", section, key, value);
    snprintf(origin, sizeof origin, "%s: %s", file, column);
    return sim_cfg_set_as(cfg, line, origin, err);
}

long val_calib_file_pool(const val_tigerbench_arch *a)
{
    /* tigerfans/infra/sql.py: pool_size = DB_POOL_SIZE, and the DB gate
     * DB_GATE_LIMIT defaults to it (a semaphore of max(1, limit));
     * pool_size 0 would be SQLAlchemy's unbounded pool, under a gate of 1 */
    return a->db_pool_size < 0 ? -1 : a->db_pool_size > 0 ? a->db_pool_size : 1;
}

int val_calib_file_settings(const char *name, const val_tigerbench_arch *a, sim_cfg *cfg,
                            sim_err *err)
{
    size_t n;
    sim_cfg_key *schema = mdl_schema(NULL, &n); /* owned: freed below */
    long pool = val_calib_file_pool(a);
    int rc = SIM_OK;
    if (pool > 0)
        rc = file_setting(cfg, schema, n, name, "db_pool_size", "postgres", "pool_size",
                          (double)pool, err) ||
             file_setting(cfg, schema, n, name, "db_pool_size", "postgres", "gate", (double)pool,
                          err);
    if (!rc && !isnan(a->succeed_rate) && !(a->mixed & VAL_TIGERBENCH_MIXED_SUCCEED))
        rc = file_setting(cfg, schema, n, name, "arg_succeed_rate", "client", "succeed_rate",
                          a->succeed_rate, err);
    if (!rc && a->total > 0 && !(a->mixed & VAL_TIGERBENCH_MIXED_TOTAL))
        rc = file_setting(cfg, schema, n, name, "total", "client", "total", (double)a->total, err);
    free(schema);
    return rc ? err->code : SIM_OK;
}

int val_calib_base_arch(const char *base_path, const char *name, const val_tigerbench_arch *a,
                        const sim_cfg *ov, sim_cfg *cfg, sim_err *err)
{
    if (val_calib_arch_modelled(name, a, err))
        return err->code;
    if (base_path && sim_cfg_load(cfg, base_path, err))
        return err->code;
    char buf[128];
    sim_cfg_set(cfg, "model.type=tigerfans", err);
    snprintf(buf, sizeof buf, "architecture.accounting=%s", a->accounting);
    sim_cfg_set(cfg, buf, err);
    snprintf(buf, sizeof buf, "architecture.payments=%s", a->payments);
    sim_cfg_set(cfg, buf, err);
    if (val_calib_file_settings(name, a, cfg, err))
        return err->code;
    for (size_t i = 0; ov && i < sim_cfg_count(ov); i++) {
        const sim_cfg_entry *e = sim_cfg_at(ov, i);
        char line[SIM_CFG_MAX_LINE];
        snprintf(line, sizeof line, "%s.%s=%s", e->section, e->key, e->value);
        if (sim_cfg_set_as(cfg, line, e->origin, err))
            return err->code;
    }
    return err->code;
}

/* ---- hashing: the model version and the cache key ---- */

/* Hash numbers through their exact text, so that the key does not depend
 * on the bytes of a double's representation. */
static uint64_t fnv_num(double v, uint64_t h)
{
    char b[40];
    int n = snprintf(b, sizeof b, "%.17g;", v);
    return sim_str_fnv(b, (size_t)n, h);
}

/* A text field with its terminating NUL as the separator (not
 * sim_str_fnv_field's 0xff): the calibration keys stored in results
 * databases were made so. */
static uint64_t fnv_str(const char *s, uint64_t h)
{
    return sim_str_fnv(s, strlen(s) + 1, h);
}

static char model_version[17];
static pthread_once_t model_once = PTHREAD_ONCE_INIT;

/* Reference simulations of the embedded defaults, one per architecture,
 * and pg_redis again with Redis on a 2-core host (its wake-ups and I/O
 * threads), at a concurrency beyond the DB gate, on a table with rows:
 * their outputs change whenever the model's results do. */
static void model_version_compute(void)
{
    static const char *const archs[][3] = {{"pg", "pg", NULL},
                                           {"pg", "redis", NULL},
                                           {"tb", "redis", NULL},
                                           {"pg", "redis", "host.redis_on_host=true"}};
    uint64_t h = SIM_STR_FNV0;
    for (int a = 0; a < 4; a++) {
        sim_cfg *c = sim_cfg_new();
        sim_err err;
        sim_err_clear(&err);
        char buf[128];
        sim_cfg_set(c, "model.type=tigerfans", &err);
        snprintf(buf, sizeof buf, "architecture.accounting=%s", archs[a][0]);
        sim_cfg_set(c, buf, &err);
        snprintf(buf, sizeof buf, "architecture.payments=%s", archs[a][1]);
        sim_cfg_set(c, buf, &err);
        sim_cfg_set(c, "client.concurrency=30", &err);
        sim_cfg_set(c, "client.total=150", &err);
        sim_cfg_set(c, "postgres.holds_rows=50000", &err);
        sim_cfg_set(c, "inventory.goodies=100", &err);
        sim_cfg_set(c, "run.replications=1", &err);
        sim_cfg_set(c, "run.jobs=1", &err);
        if (archs[a][2]) {
            sim_cfg_set(c, archs[a][2], &err);
            sim_cfg_set(c, "host.cores=2", &err);
        }
        mdl_scenario sc;
        memset(&sc, 0, sizeof sc);
        sim_rep_result res;
        memset(&res, 0, sizeof res);
        int rc = mdl_scenario_init(&sc, c, &err);
        if (rc == SIM_OK)
            rc = sim_rep_run(&sc.plan, &sc.layout, sc.type->replicate, sc.model, sc.seed, &res,
                             &err);
        h = fnv_num(rc, h);
        for (size_t i = 0; rc == SIM_OK && i < res.n; i++)
            h = fnv_num(res.mean[i], h);
        sim_rep_result_fini(&res);
        mdl_scenario_fini(&sc);
        sim_cfg_free(c);
    }
    /* and the registry's defaults */
    size_t n;
    const tf_param *r = tf_params_registry(&n);
    for (size_t i = 0; i < n; i++)
        h = fnv_str(r[i].k.def ? r[i].k.def : "", fnv_str(r[i].k.key, fnv_str(r[i].k.section, h)));
    snprintf(model_version, sizeof model_version, "%016" PRIx64, h);
}

const char *val_calib_model_version(void)
{
    pthread_once(&model_once, model_version_compute);
    return model_version;
}

static uint64_t points_hash(const val_calib_point *pts, size_t n, uint64_t h)
{
    for (size_t k = 0; k < n; k++) {
        h = fnv_num((double)pts[k].concurrency, h);
        h = fnv_num(pts[k].holds_rows, h);
        h = fnv_num(pts[k].goodies, h);
        h = fnv_num(pts[k].weight, h);
        for (int i = 0; i < TF_NPHASES; i++) /* only when --phases set them (older keys hold) */
            if (pts[k].phase_out[i])
                h = fnv_num(100 + i, h);
        for (int i = 0; i < TF_NPHASES; i++)
            h = fnv_num(pts[k].thr[i], h);
        for (int i = 0; i < TF_NKINDS; i++)
            h = fnv_num(pts[k].kind[i], h);
    }
    return h;
}

void val_calib_key(val_calibration *c)
{
    uint64_t d = points_hash(c->pts, c->npts, SIM_STR_FNV0);
    snprintf(c->data_hash, sizeof c->data_hash, "%016" PRIx64, d);
    uint64_t h = fnv_str(c->data_hash, SIM_STR_FNV0);
    h = fnv_str(c->arch, h);
    h = fnv_str(val_calib_model_version(), h);
    for (size_t i = 0; i < c->np; i++) {
        h = fnv_str(c->params[i].key, h);
        h = fnv_str(c->params[i].spec, h);
        h = fnv_num(c->start[i], h);
        h = fnv_num(c->params[i].lo, h);
        h = fnv_num(c->params[i].hi, h);
    }
    /* the base config: its entries in order (what the fit starts from) */
    for (size_t i = 0; i < sim_cfg_count(c->cfg); i++) {
        const sim_cfg_entry *e = sim_cfg_at(c->cfg, i);
        h = fnv_str(e->value, fnv_str(e->key, fnv_str(e->section, h)));
    }
    /* the CPU targets, when there are any (none: the key as before) */
    for (size_t k = 0; c->ncpu && k < c->npts; k++) {
        h = fnv_num(c->pts[k].cpu_weight, h);
        for (int l = 0; l < VAL_CALIB_NCPU; l++)
            for (int ph = 0; ph < TF_NPHASES; ph++)
                h = fnv_num(c->pts[k].cpu[l][ph], h);
    }
    const val_calib_opts *o = &c->fit_opts;
    h = fnv_num(VAL_CALIB_METHOD, h);
    h = fnv_num((double)o->seed, h);
    h = fnv_num(o->reps, h);
    h = fnv_num(o->max_iter, h);
    h = fnv_num(o->kind_weight, h);
    h = fnv_num(o->tol, h);
    h = fnv_num(o->step, h);
    h = fnv_num(o->light_start, h);
    snprintf(c->key, sizeof c->key, "%016" PRIx64, h);
}

/* ---- tfsim calibrate ---- */

void val_calib_run_opts_init(val_calib_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->series.rows0 = 0;
    o->series.goodies0 = 1e5;
    val_calib_opts_init(&o->fit_opts);
    o->fit_now = 1;
    o->own_demands = 1;
    o->cpu_weight = 0.25;
}

/* The CPU split of o->cpu_file into c's points of c->arch (c->ncpu: the
 * figures found); SIM_EINPUT when the file has none of them. */
static int cpu_targets(const val_calib_run_opts *o, val_calibration *c, sim_err *err)
{
    static const int comp[VAL_CALIB_NCPU] = {VAL_CPU_CLIENT, VAL_CPU_SERVER, VAL_CPU_POSTGRES};
    val_cpu cpu;
    if (val_cpu_read(o->cpu_file, &cpu, err))
        return err->code;
    c->ncpu = 0;
    for (size_t k = 0; k < c->npts; k++) {
        val_calib_point *p = &c->pts[k];
        p->cpu_weight = o->cpu_weight;
        for (int ph = 0; ph < TF_NPHASES; ph++)
            for (int l = 0; l < VAL_CALIB_NCPU; l++) {
                double v = val_cpu_mean(&cpu, c->arch, p->concurrency, ph, comp[l]);
                /* a component that took no CPU (0 ms) says nothing to fit */
                p->cpu[l][ph] = v > 0 && !isnan(p->thr[ph]) ? v : 0;
                c->ncpu += p->cpu[l][ph] > 0;
            }
    }
    val_cpu_fini(&cpu);
    if (c->ncpu == 0)
        return sim_err_set(err, SIM_EINPUT, "%s: no rows of architecture %s at the "
                           "concurrencies and phases of %s", o->cpu_file, c->arch, o->file);
    return SIM_OK;
}

void val_calib_fini(val_calibration *c)
{
    val_series_fini(&c->series);
    val_tigerbench_free(c->tb);
    sim_cfg_free(c->cfg);
    c->tb = NULL;
    c->cfg = NULL;
}

static int weights(val_calibration *c, const char *points, double other, sim_err *err)
{
    if (!points)
        return SIM_OK;
    for (size_t k = 0; k < c->npts; k++)
        c->pts[k].weight = other;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", points);
    char *save = NULL;
    int nfit = 0;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        long v;
        const char *why;
        size_t k = 0;
        if (sim_parse_long(t, &v, &why))
            return sim_err_set(err, SIM_EINPUT, "--points: '%s' is not a concurrency", t);
        while (k < c->npts && c->pts[k].concurrency != v)
            k++;
        if (k == c->npts)
            return sim_err_set(err, SIM_EINPUT, "--points: %s has no concurrency %ld for %s",
                               c->file, v, c->arch);
        c->pts[k].weight = 1;
        nfit++;
    }
    if (nfit < 1)
        return sim_err_set(err, SIM_EINPUT, "--points: no point given");
    return SIM_OK;
}

/* --phases: the throughputs of the phases not named are only reported, at
 * every point; NULL leaves every phase fitted. */
static int fitted_phases(val_calibration *c, const char *phases, sim_err *err)
{
    if (!phases)
        return SIM_OK;
    int on[TF_NPHASES] = {0}, n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", phases);
    char *save = NULL;
    for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        int ph = 0;
        while (ph < TF_NPHASES && strcmp(t, tf_phase_names[ph]))
            ph++;
        if (ph == TF_NPHASES)
            return sim_err_set(err, SIM_EINPUT, "--phases: '%s' is not a phase (checkout, "
                               "reserve, webhook, commit)", t);
        n += !on[ph];
        on[ph] = 1;
    }
    if (n < 1)
        return sim_err_set(err, SIM_EINPUT, "--phases: no phase given");
    int any = 0;
    for (size_t k = 0; k < c->npts; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            c->pts[k].phase_out[ph] = !on[ph];
            any |= on[ph] && c->pts[k].weight > 0 && !isnan(c->pts[k].thr[ph]);
        }
    if (!any)
        return sim_err_set(err, SIM_EINPUT, "--phases: %s has no throughput of %s for %s at the "
                           "fitted points", c->file, phases, c->arch);
    return SIM_OK;
}

const char *val_calib_kind_backend(const val_tigerbench_arch *a, int kind)
{
    if (kind == TF_K_HOLD || kind == TF_K_COMMIT_ORDER)
        return a->accounting;
    if (kind == TF_K_ADD_ORDER)
        return "pg";
    return a->payments;
}

int val_calib_arch_own(const val_tigerbench_arch *a)
{
    int bits = TF_OWN_PG;
    bits |= !strcmp(a->accounting, "tb") ? TF_OWN_TB : TF_OWN_PG_ACCOUNTING;
    if (!strcmp(a->payments, "redis"))
        bits |= TF_OWN_REDIS;
    return bits;
}

val_calib_opts val_calib_light_opts(const val_calib_opts *from)
{
    val_calib_opts o = *from;
    o.kind_weight = 1; /* timings only: no throughput at a light-load point */
    o.reps = 4;
    o.light_start = 0;
    o.progress = NULL;
    return o;
}

int val_calib_own_param(const sim_cfg *cfg, const tf_param *r, val_calib_param *q, sim_err *err)
{
    memset(q, 0, sizeof *q);
    tf_params_key(r, q->key, sizeof q->key);
    tf_params_fit_bounds(r, &q->lo, &q->hi);
    if (val_calib_value(cfg, q->key, &q->value, q->spec, sizeof q->spec, err))
        return err->code;
    q->value = fmin(q->hi, fmax(q->lo, q->value));
    return SIM_OK;
}

/* The demands of the backends c's architecture runs that no fitted key
 * covers (Redis sessions, TigerBeetle accounting: by default the fit has
 * none of their keys), from the architecture's own timings at its lowest
 * concurrency, as predict fits a target's: each backend's registry rows
 * with a fit range scaled together (val_calib_scale, GSL's Brent) to its
 * timings there.  Without this the fit starts from the embedded values,
 * which a light load on another machine contradicts, and the fit's
 * objective (timings at every point) pulls the fitted keys to make up for
 * them.  The values go into c->cfg and c->own. */
static int light_own(val_calibration *c, sim_err *err)
{
    const val_tigerbench_arch *a = val_tigerbench_find(c->tb, c->arch);
    if (!a)
        return SIM_OK;
    int bits = val_calib_arch_own(a) & (TF_OWN_REDIS | TF_OWN_TB);
    for (size_t i = 0; i < c->np; i++) {
        const tf_param *r = tf_params_find(c->params[i].key);
        if (r)
            bits &= ~r->own;
    }
    /* the point of lowest concurrency with a timing */
    const val_calib_point *p0 = NULL;
    for (size_t k = 0; k < c->npts; k++) {
        int any = 0;
        for (int i = 0; i < TF_NKINDS; i++)
            any |= !isnan(c->pts[k].kind[i]);
        if (any && (!p0 || c->pts[k].concurrency < p0->concurrency))
            p0 = &c->pts[k];
    }
    if (!bits || !p0)
        return SIM_OK;
    static const struct {
        int bit;
        const char *backend;
    } groups[] = {{TF_OWN_TB, "tb"}, {TF_OWN_REDIS, "redis"}};
    size_t nreg;
    const tf_param *reg = tf_params_registry(&nreg);
    val_calib_opts lo = val_calib_light_opts(&c->fit_opts);
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        if (!(bits & groups[g].bit))
            continue;
        val_calib_point gp = *p0;
        gp.weight = 1;
        gp.cpu_weight = 0; /* timings only */
        int anyk = 0;
        for (int i = 0; i < TF_NPHASES; i++)
            gp.thr[i] = NAN;
        for (int k = 0; k < TF_NKINDS; k++) {
            if (strcmp(val_calib_kind_backend(a, k), groups[g].backend))
                gp.kind[k] = NAN;
            anyk |= !isnan(gp.kind[k]);
        }
        if (!anyk)
            continue; /* no timing of this backend to fit it to */
        size_t first = c->nown;
        for (size_t i = 0; i < nreg && c->nown < VAL_CALIB_MAX_PARAMS; i++) {
            if (!(reg[i].own & groups[g].bit))
                continue;
            if (val_calib_own_param(c->cfg, &reg[i], &c->own[c->nown], err))
                return err->code;
            c->nown++;
        }
        size_t n = c->nown - first;
        if (n == 0)
            continue;
        int which[VAL_CALIB_MAX_PARAMS];
        for (size_t i = 0; i < n; i++)
            which[i] = 1;
        double f;
        unsigned ev = 0;
        if (val_calib_scale(c->cfg, c->own + first, n, which, &gp, 1, &lo, 8, &f, &ev, err))
            return err->code;
        for (size_t i = first; i < c->nown; i++) {
            char line[1024];
            if (val_calib_param_text(&c->own[i], line, sizeof line, err) ||
                sim_cfg_set(c->cfg, line, err))
                return err->code;
        }
        c->own_c = p0->concurrency;
    }
    return SIM_OK;
}

int val_calib_has_key(const val_calib_param *params, size_t np, const char *key)
{
    for (size_t i = 0; i < np; i++)
        if (!strcmp(params[i].key, key))
            return 1;
    return 0;
}

size_t val_calib_set_fitted(const val_calib_run_opts *o, const val_calibration *c, char *buf,
                            size_t len)
{
    size_t n = 0, used = 0;
    if (len)
        buf[0] = 0;
    if (o->fit || !o->overrides)
        return 0;
    for (size_t i = 0; i < c->np; i++) {
        const tf_param *r = tf_params_find(c->params[i].key);
        const sim_cfg_entry *e = r ? sim_cfg_find(o->overrides, r->k.section, r->k.key) : NULL;
        if (!e || !e->origin || strcmp(e->origin, "--set"))
            continue;
        n++;
        if (used < len) {
            int w = snprintf(buf + used, len - used, "%s%s=%s", used ? ", " : "",
                             c->params[i].key, e->value);
            used += w < 0 ? 0 : (size_t)w;
        }
    }
    return n;
}

int val_calib_prepare(const val_calib_run_opts *o, val_calibration *c, sim_err *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->what, sizeof c->what, "calibration");
    snprintf(c->arch, sizeof c->arch, "%s", o->arch);
    snprintf(c->file, sizeof c->file, "%s", o->file);
    snprintf(c->config, sizeof c->config, "%s", o->config ? o->config : "");
    c->fit_opts = o->fit_opts;
    c->mape_fit = c->mape_out = NAN;
    c->cfg = sim_cfg_new();
    if (val_tigerbench_read(o->file, &c->tb, err) ||
        val_series_build(c->tb, &o->series, &c->series, err) ||
        val_calib_base(o->config, c->tb, o->arch, o->overrides, c->cfg, err) ||
        val_calib_points(c->tb, &c->series, o->arch, c->pts, VAL_CALIB_MAX_POINTS, &c->npts, err))
        return err->code;
    int any_thr = 0;
    for (size_t k = 0; k < c->npts; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++)
            any_thr |= !isnan(c->pts[k].thr[ph]);
    if (!any_thr)
        return sim_err_set(err, SIM_EINPUT, "%s: architecture %s has no phase throughput rows to "
                           "fit", o->file, o->arch);
    if (o->cpu_file && cpu_targets(o, c, err))
        return err->code;
    if (weights(c, o->points, o->other_weight, err) || fitted_phases(c, o->phases, err) ||
        val_calib_params(o->fit, c->cfg, c->params, VAL_CALIB_MAX_PARAMS, &c->np, err))
        return err->code;
    for (size_t i = 0; i < c->np; i++)
        c->start[i] = c->params[i].value;
    if (o->own_demands && light_own(c, err))
        return err->code;
    val_calib_key(c);
    return SIM_OK;
}

int val_calib_solve(const val_calib_cache *cache, int refit, val_calibration *c, sim_err *err)
{
    int found = 0;
    if (cache && cache->load && !refit) {
        found = cache->load(cache->ctx, c->key, c->params, c->np, &c->objective, &c->iters, err);
        if (found < 0 || (found > 0 && found != 1))
            return err->code;
    }
    c->cached = found > 0;
    if (!c->cached && val_calib_fit(c->cfg, c->params, c->np, c->pts, c->npts, &c->fit_opts,
                                    &c->objective, &c->iters, &c->evals, err))
        return err->code;
    sim_err_clear(&c->save_err);
    /* a cache that cannot store is no reason to lose the fit: the caller
     * reports it after the results */
    if (!c->cached && cache && cache->save)
        c->save_status = cache->save(cache->ctx, c, &c->save_err);
    return SIM_OK;
}

int val_calib_finish(val_calibration *c, int fitted, sim_err *err)
{
    if (val_calib_simulate(c->cfg, c->params, c->np, c->pts, c->npts, &c->fit_opts, c->sims, err))
        return err->code;
    if (!fitted)
        c->objective = val_calib_objective(c->pts, c->sims, c->npts, c->fit_opts.kind_weight);
    sim_mape fit, out;
    sim_mape_init(&fit);
    sim_mape_init(&out);
    for (size_t k = 0; k < c->npts; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++)
            sim_mape_add(point_weight(&c->pts[k], ph) >= 1 ? &fit : &out, c->sims[k].thr[ph],
                         c->pts[k].thr[ph]);
    c->mape_fit = sim_mape_mean(&fit);
    c->mape_out = sim_mape_mean(&out);
    c->n_fit = (int)fit.n;
    c->n_out = (int)out.n;
    return SIM_OK;
}

int val_calib_run(const val_calib_run_opts *o, val_calibration *c, sim_err *err)
{
    if (val_calib_prepare(o, c, err))
        return err->code;
    if (o->fit_now && val_calib_solve(o->cache, o->refit, c, err))
        return err->code;
    return val_calib_finish(c, o->fit_now, err);
}

/* ---- tables and the INI ---- */

void val_calib_params_table(const val_calibration *c, sim_table *t)
{
    for (size_t i = 0; i < c->np; i++) {
        sim_table_row(t);
        sim_table_set_str(t, "parameter", c->params[i].key);
        sim_table_set_num(t, "start", c->start[i]);
        sim_table_set_num(t, "fitted", c->params[i].value);
    }
}

void val_calib_points_table(const val_calibration *c, sim_table *t)
{
    for (size_t k = 0; k < c->npts; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            const val_calib_point *p = &c->pts[k];
            if (isnan(p->thr[ph]))
                continue;
            sim_table_row(t);
            sim_table_set_str(t, "phase", tf_phase_names[ph]);
            sim_table_set_num(t, "concurrency", (double)p->concurrency);
            sim_table_set_num(t, "measured", p->thr[ph]);
            sim_table_set_num(t, "simulated", c->sims[k].thr[ph]);
            sim_table_set_num(t, "simulated_ci", c->sims[k].thr_ci[ph]);
            sim_table_set_num(t, "error_pct", sim_mape_add(NULL, c->sims[k].thr[ph], p->thr[ph]));
            const double w = point_weight(p, ph);
            sim_table_set_str(t, "fitted", w >= 1 ? "yes" : w > 0 ? "weighted" : "held out");
            sim_table_set_num(t, "holds_rows", p->holds_rows);
            sim_table_set_num(t, "client_busy", c->sims[k].busy[0][ph]);
            sim_table_set_num(t, "server_busy", c->sims[k].busy[1][ph]);
            static const char *const cols[VAL_CALIB_NCPU][2] = {
                {"client_cpu_ms", "sim_client_cpu_ms"},
                {"server_cpu_ms", "sim_server_cpu_ms"},
                {"postgres_cpu_ms", "sim_postgres_cpu_ms"}};
            for (int l = 0; c->ncpu && l < VAL_CALIB_NCPU; l++) {
                sim_table_set_num(t, cols[l][0], p->cpu[l][ph] > 0 ? 1e3 * p->cpu[l][ph] : NAN);
                sim_table_set_num(t, cols[l][1], 1e3 * c->sims[k].cpu[l][ph]);
            }
        }
}

void val_calib_kinds_table(const val_calibration *c, sim_table *t)
{
    for (size_t k = 0; k < c->npts; k++)
        for (int i = 0; i < TF_NKINDS; i++) {
            const val_calib_point *p = &c->pts[k];
            if (isnan(p->kind[i]))
                continue;
            sim_table_row(t);
            sim_table_set_str(t, "kind", tf_kind_names[i]);
            sim_table_set_num(t, "concurrency", (double)p->concurrency);
            sim_table_set_num(t, "measured_ms", 1e3 * p->kind[i]);
            sim_table_set_num(t, "simulated_ms", 1e3 * c->sims[k].kind[i]);
            sim_table_set_num(t, "error_pct", sim_mape_add(NULL, c->sims[k].kind[i], p->kind[i]));
        }
}

/* One key of the INI: its section (dotted key up to the last '.'), name
 * and value. */
typedef struct ini_item {
    char key[128];
    char value[1024];
} ini_item;

static int item_of_param(const val_calib_param *p, ini_item *it)
{
    char kv[1024];
    sim_err e;
    sim_err_clear(&e);
    if (val_calib_param_text(p, kv, sizeof kv, &e) != SIM_OK)
        return 0;
    const char *eq = strchr(kv, '=');
    snprintf(it->key, sizeof it->key, "%.*s", (int)(eq - kv), kv);
    snprintf(it->value, sizeof it->value, "%s", eq + 1);
    return 1;
}

static int has_key(const ini_item *its, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(its[i].key, key))
            return 1;
    return 0;
}

size_t val_calib_section_len(const char *key)
{
    const char *dot = strrchr(key, '.');
    return dot ? (size_t)(dot - key) : 0;
}

int val_calib_same_section(const char *a, const char *b)
{
    size_t la = val_calib_section_len(a);
    return la == val_calib_section_len(b) && !strncmp(a, b, la);
}

size_t val_calib_ini(const val_calibration *c, const char *include, char *buf, size_t len)
{
    size_t o = 0;
#define PUT(...)                                                                      \
    o += (size_t)snprintf(o < len ? buf + o : NULL, o < len ? len - o : 0, __VA_ARGS__)
    PUT("; calibrated by tfsim calibrate from %s, architecture %s\n", c->file, c->arch);
    PUT("; objective %.6g (sum of squared log errors), MAPE over fitted points %.2f%%\n",
        c->objective, c->mape_fit);
    PUT("; calibration key %s (data %s, model %s)\n", c->key, c->data_hash,
        val_calib_model_version());
    /* The keys, each once: the fitted ones, the architecture's own demands
     * (not fitted under load), then what the fit ran with beside its base
     * config (the architecture, and each --set the fit did not replace: its
     * last value), so that the file reproduces the fit. */
    size_t ncfg = c->cfg ? sim_cfg_count(c->cfg) : 0;
    ini_item *its = calloc(c->np + c->nown + ncfg + 1, sizeof *its);
    assert(its && "out of memory");
    size_t n = 0, nfit, nown_end;
    for (size_t i = 0; i < c->np; i++)
        n += (size_t)item_of_param(&c->params[i], &its[n]);
    nfit = n;
    for (size_t i = 0; i < c->nown; i++)
        if (!has_key(its, n, c->own[i].key))
            n += (size_t)item_of_param(&c->own[i], &its[n]);
    nown_end = n;
    for (size_t i = 0; i < ncfg; i++) {
        const sim_cfg_entry *e = sim_cfg_at(c->cfg, i);
        char key[128];
        snprintf(key, sizeof key, "%s.%s", e->section, e->key);
        if (e->line != 0 || !strcmp(key, "model.type") || has_key(its, n, key))
            continue;
        int later = 0; /* a later --set of the same key wins */
        for (size_t j = i + 1; j < ncfg && !later; j++) {
            const sim_cfg_entry *f = sim_cfg_at(c->cfg, j);
            later = f->line == 0 && !strcmp(f->section, e->section) && !strcmp(f->key, e->key);
        }
        if (later)
            continue;
        snprintf(its[n].key, sizeof its[n].key, "%s", key);
        snprintf(its[n].value, sizeof its[n].value, "%s", e->value);
        n++;
    }
    if (nown_end > nfit) {
        PUT("; not fitted under load: from %s's own timings at concurrency %ld:", c->arch, c->own_c);
        for (size_t i = nfit; i < nown_end; i++)
            PUT(" %s", its[i].key);
        PUT("\n");
    }
    if (n > nown_end) {
        PUT("; set for the fit:");
        for (size_t i = nown_end; i < n; i++)
            PUT(" %s=%s", its[i].key, its[i].value);
        PUT("\n");
    }
    if (include)
        PUT("include = %s\n", include);
    /* one section at a time, in the order of first appearance (a file
     * gives each section once) */
    for (size_t i = 0; i < n; i++) {
        int first = 1;
        for (size_t j = 0; j < i && first; j++)
            first = !val_calib_same_section(its[j].key, its[i].key);
        if (!first)
            continue;
        size_t sl = val_calib_section_len(its[i].key);
        PUT("\n[%.*s]\n", (int)sl, its[i].key);
        for (size_t j = i; j < n; j++)
            if (val_calib_same_section(its[j].key, its[i].key))
                PUT("%s = %s\n", its[j].key + sl + 1, its[j].value);
    }
    free(its);
#undef PUT
    return o;
}
