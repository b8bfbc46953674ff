#include "validate/val_http.h"

#include <assert.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/mdl.h"
#include "models/mdl_sweep.h"
#include "models/tf_sim.h"
#include "sim/sim_rep.h"
#include "validate/val_min.h"

const char *const val_http_default_keys[] = {"client.cpu", "client.pool_poll_cpu",
                                             "client.pool_idle_cpu", "server.cpu_request", NULL};

void val_http_opts_init(val_http_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->reps = 2;
    o->max_iter = 300;
    o->tol = 1e-3;
    o->thr_weight = 0.25;
}

static int set(sim_cfg *c, sim_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int set(sim_cfg *c, sim_err *err, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return sim_cfg_set(c, buf, err);
}

static int point_cfg(sim_cfg *c, const sim_cfg *base, const val_calib_param *params, size_t np,
                     const val_http_point *pt, const val_http_opts *o, sim_err *err)
{
    if (mdl_cfg_copy(c, base, err))
        return err->code;
    for (size_t i = 0; i < np; i++)
        if (set(c, err, "%s=%.12g", params[i].key, params[i].value))
            return err->code;
    if (set(c, err, "client.concurrency=%ld", pt->concurrency) ||
        set(c, err, "client.total=%ld", pt->total) ||
        set(c, err, "architecture.stub_latency=const(%.9g)", pt->await) ||
        set(c, err, "run.seed=%llu", (unsigned long long)o->seed) ||
        set(c, err, "run.replications=%u", o->reps) || set(c, err, "run.target_ci=0"))
        return err->code;
    return SIM_OK;
}

int val_http_simulate(const sim_cfg *base, const val_calib_param *params, size_t np,
                      const val_http_point *pts, size_t npts, const val_http_opts *o,
                      val_http_sim *sims, sim_err *err)
{
    for (size_t k = 0; k < npts; k++) {
        sim_cfg *c = sim_cfg_new();
        mdl_scenario sc;
        memset(&sc, 0, sizeof sc);
        sim_rep_result res;
        memset(&res, 0, sizeof res);
        int rc = point_cfg(c, base, params, np, &pts[k], o, err);
        if (rc == SIM_OK)
            rc = mdl_scenario_init(&sc, c, err);
        if (rc == SIM_OK && strcmp(sc.type->name, "tigerfans"))
            rc = sim_err_set(err, SIM_EINPUT, "the HTTP fit needs a tigerfans model config");
        if (rc == SIM_OK)
            rc = sim_rep_run(&sc.plan, &sc.layout, sc.type->replicate, sc.model, sc.seed, &res, err);
        if (rc == SIM_OK) {
            val_http_sim *s = &sims[k];
            for (int i = 0; i < TF_NPHASES; i++) {
                s->thr[i] = res.mean[sim_layout_find(&sc.layout, "phase", tf_phase_names[i],
                                                     "throughput")];
                s->ccpu[i] = res.mean[sim_layout_find(&sc.layout, "phase", tf_phase_names[i],
                                                      "client_cpu")];
                s->scpu[i] = res.mean[sim_layout_find(&sc.layout, "phase", tf_phase_names[i],
                                                      "server_cpu")];
            }
            s->passes = res.mean[sim_layout_find(&sc.layout, "run", "totals", "pool_passes")];
            s->retries = res.mean[sim_layout_find(&sc.layout, "run", "totals", "pool_retries")];
        }
        sim_rep_result_fini(&res);
        mdl_scenario_fini(&sc);
        sim_cfg_free(c);
        if (rc)
            return rc;
    }
    return SIM_OK;
}

static double sq_log(double sim, double meas)
{
    if (!(meas > 0) || !(sim > 0))
        return 0;
    double d = log(sim / meas);
    return d * d;
}

double val_http_objective(const val_http_point *pts, const val_http_sim *sims, size_t npts,
                          double thr_weight)
{
    double f = 0;
    for (size_t k = 0; k < npts; k++) {
        if (!(pts[k].weight > 0))
            continue;
        for (int i = 0; i < TF_NPHASES; i++)
            f += pts[k].weight * (sq_log(sims[k].ccpu[i], pts[k].ccpu[i]) +
                                  sq_log(sims[k].scpu[i], pts[k].scpu[i]) +
                                  thr_weight * sq_log(sims[k].thr[i], pts[k].thr[i]));
    }
    return f;
}

typedef struct fit_ctx {
    const sim_cfg *base;
    const val_http_point *pts;
    size_t npts;
    const val_http_opts *o;
    val_http_sim *sims;
} fit_ctx;

static double fit_objective(void *arg, const val_calib_param *params, size_t np, int *failed,
                            sim_err *err)
{
    fit_ctx *c = arg;
    if (val_http_simulate(c->base, params, np, c->pts, c->npts, c->o, c->sims, err)) {
        *failed = 1;
        return 0;
    }
    return val_http_objective(c->pts, c->sims, c->npts, c->o->thr_weight);
}

int val_http_fit(const sim_cfg *base, val_calib_param *params, size_t np,
                 const val_http_point *pts, size_t npts, const val_http_opts *o, double *fval,
                 unsigned *iters, sim_err *err)
{
    val_http_sim *sims = calloc(npts, sizeof *sims);
    assert(sims && "out of memory");
    fit_ctx c = {base, pts, npts, o, sims};
    val_min_opts mo = {o->max_iter, o->tol, o->progress, o->progress_ctx};
    int rc = val_min_run(fit_objective, &c, params, np, &mo, fval, iters, err);
    free(sims);
    return rc;
}
