#include "validate/val_calib.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>

#include "models/mdl.h"
#include "models/mdl_sweep.h"
#include "validate/val_tigerbench.h"

static int build_cfg(sim_cfg *c, const sim_cfg *base, const char *const *ov, size_t nov,
                     const val_calib_param *params, size_t np, const val_calib_point *pt,
                     const val_calib_opts *o, sim_err *err)
{
    if (mdl_cfg_copy(c, base, err))
        return err->code;
    char buf[256];
    for (size_t i = 0; i < nov; i++)
        if (sim_cfg_set(c, ov[i], err))
            return err->code;
    for (size_t i = 0; i < np; i++) {
        char val[128];
        if (params[i].tmpl[0])
            snprintf(val, sizeof val, params[i].tmpl, params[i].value);
        else
            snprintf(val, sizeof val, "%.12g", params[i].value);
        snprintf(buf, sizeof buf, "%s=%s", params[i].key, val);
        if (sim_cfg_set(c, buf, err))
            return err->code;
    }
    snprintf(buf, sizeof buf, "client.concurrency=%ld", pt->concurrency);
    sim_cfg_set(c, buf, err);
    snprintf(buf, sizeof buf, "postgres.holds_rows=%.0f", pt->holds_rows);
    sim_cfg_set(c, buf, err);
    snprintf(buf, sizeof buf, "inventory.goodies=%.0f", pt->goodies);
    sim_cfg_set(c, buf, err);
    snprintf(buf, sizeof buf, "run.seed=%llu", (unsigned long long)o->seed);
    sim_cfg_set(c, buf, err);
    snprintf(buf, sizeof buf, "run.replications=%u", o->reps);
    sim_cfg_set(c, buf, err);
    snprintf(buf, sizeof buf, "run.target_ci=0");
    sim_cfg_set(c, buf, err);
    snprintf(buf, sizeof buf, "run.jobs=%d", o->jobs > 0 ? o->jobs : 1);
    sim_cfg_set(c, buf, err);
    return err->code;
}

int val_calib_simulate(const sim_cfg *base, const char *const *ov, size_t nov,
                       const val_calib_param *params, size_t np, const val_calib_point *pts,
                       size_t npts, const val_calib_opts *o, val_calib_sim *sims, sim_err *err)
{
    for (size_t k = 0; k < npts; k++) {
        sim_cfg *c = sim_cfg_new();
        mdl_scenario sc;
        memset(&sc, 0, sizeof sc);
        sim_rep_result res;
        memset(&res, 0, sizeof res);
        int rc = build_cfg(c, base, ov, nov, params, np, &pts[k], o, err);
        if (rc == SIM_OK)
            rc = mdl_scenario_init(&sc, c, err);
        if (rc == SIM_OK && strcmp(sc.type->name, "tigerfans"))
            rc = sim_err_set(err, SIM_EINPUT, "calibration needs a tigerfans model config");
        if (rc == SIM_OK)
            rc = sim_rep_run(&sc.plan, &sc.layout, sc.type->replicate, sc.model, sc.seed, &res, err);
        if (rc == SIM_OK) {
            for (int i = 0; i < TF_NPHASES; i++) {
                long j = sim_layout_find(&sc.layout, "phase", tf_phase_names[i], "throughput");
                sims[k].thr[i] = res.mean[j];
                sims[k].thr_ci[i] = res.half[j];
            }
            for (int i = 0; i < TF_NKINDS; i++) {
                long j = sim_layout_find(&sc.layout, "kind", tf_kind_names[i], "mean");
                sims[k].kind[i] = res.mean[j];
            }
        }
        sim_rep_result_fini(&res);
        mdl_scenario_fini(&sc);
        sim_cfg_free(c);
        if (rc)
            return rc;
    }
    return SIM_OK;
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

double val_calib_objective(const val_calib_point *pts, const val_calib_sim *sims, size_t npts,
                           double kw)
{
    double f = 0;
    for (size_t k = 0; k < npts; k++) {
        if (pts[k].weight <= 0)
            continue;
        for (int i = 0; i < TF_NPHASES; i++)
            f += pts[k].weight * sq_log_err(sims[k].thr[i], pts[k].thr[i]);
        for (int i = 0; i < TF_NKINDS; i++)
            f += pts[k].weight * kw * sq_log_err(sims[k].kind[i], pts[k].kind[i]);
    }
    return f;
}

typedef struct fit_ctx {
    const sim_cfg *base;
    const char *const *ov;
    size_t nov;
    val_calib_param *params;
    size_t np;
    const val_calib_point *pts;
    size_t npts;
    const val_calib_opts *o;
    val_calib_sim *sims;
    sim_err *err;
    int failed;
} fit_ctx;

static double clamp_exp(const val_calib_param *p, double x)
{
    double v = exp(x);
    if (v < p->lo)
        v = p->lo;
    if (v > p->hi)
        v = p->hi;
    return v;
}

static double objective(const gsl_vector *x, void *arg)
{
    fit_ctx *c = arg;
    if (c->failed)
        return GSL_POSINF;
    double penalty = 0;
    for (size_t i = 0; i < c->np; i++) {
        double xi = gsl_vector_get(x, i);
        double lo = log(c->params[i].lo), hi = log(c->params[i].hi);
        if (xi < lo)
            penalty += (lo - xi) * (lo - xi) * 100;
        if (xi > hi)
            penalty += (xi - hi) * (xi - hi) * 100;
        c->params[i].value = clamp_exp(&c->params[i], xi);
    }
    if (val_calib_simulate(c->base, c->ov, c->nov, c->params, c->np, c->pts, c->npts, c->o,
                           c->sims, c->err)) {
        c->failed = 1;
        return GSL_POSINF;
    }
    return val_calib_objective(c->pts, c->sims, c->npts, c->o->kind_weight) + penalty;
}

int val_calib_fit(const sim_cfg *base, const char *const *ov, size_t nov, val_calib_param *params,
                  size_t np, const val_calib_point *pts, size_t npts, const val_calib_opts *o,
                  double *fval, unsigned *iters, sim_err *err)
{
    assert(np >= 1);
    for (size_t i = 0; i < np; i++)
        if (!(params[i].lo > 0 && params[i].hi > params[i].lo && params[i].value > 0))
            return sim_err_set(err, SIM_EINPUT, "%s: calibration bounds must satisfy 0 < lo < hi "
                               "and the start value must be > 0", params[i].key);
    val_calib_sim *sims = calloc(npts, sizeof *sims);
    assert(sims);
    fit_ctx c = {base, ov, nov, params, np, pts, npts, o, sims, err, 0};
    gsl_multimin_function f = {objective, np, &c};
    gsl_vector *x = gsl_vector_alloc(np), *step = gsl_vector_alloc(np);
    assert(x && step);
    for (size_t i = 0; i < np; i++) {
        gsl_vector_set(x, i, log(params[i].value));
        gsl_vector_set(step, i, 0.3);
    }
    gsl_multimin_fminimizer *m =
        gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, np);
    assert(m);
    int rc = SIM_OK;
    if (gsl_multimin_fminimizer_set(m, &f, x, step) != GSL_SUCCESS || c.failed) {
        rc = c.failed ? err->code : sim_err_set(err, SIM_EFAIL, "calibration: cannot start the simplex");
    }
    unsigned it = 0;
    while (rc == SIM_OK && it < o->max_iter) {
        it++;
        int st = gsl_multimin_fminimizer_iterate(m);
        if (c.failed) {
            rc = err->code;
            break;
        }
        if (st != GSL_SUCCESS)
            break; /* the simplex cannot improve further */
        if (o->progress)
            o->progress(it, m->fval, o->progress_ctx);
        if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), o->tol) == GSL_SUCCESS)
            break;
    }
    if (rc == SIM_OK) {
        for (size_t i = 0; i < np; i++)
            params[i].value = clamp_exp(&params[i], gsl_vector_get(m->x, i));
        *fval = m->fval;
        *iters = it;
    }
    gsl_multimin_fminimizer_free(m);
    gsl_vector_free(x);
    gsl_vector_free(step);
    free(sims);
    return rc;
}

static const char *const kind_names[TF_NKINDS] = {
    "accounting.hold",    "accounting.commit_order", "paymentsession.save", "paymentsession.get",
    "paymentsession.fulfill", "paymentsession.remove_pending", "db.add_order"};

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
