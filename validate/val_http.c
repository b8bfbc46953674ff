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
#include "sim/sim_stats.h"
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
    /* the stand-in server does the same work on every endpoint (it parses
     * the JSON body; no HMAC, no validation): no endpoint's extra CPU; the
     * probe measured this machine's client: its costs at speed factor 1 */
    if (set(c, err, "server.cpu_checkout=0") || set(c, err, "server.cpu_webhook=0") ||
        set(c, err, "client.cpu_scale=1") ||
        set(c, err, "client.concurrency=%ld", pt->concurrency) ||
        set(c, err, "client.total=%ld", pt->total) ||
        /* the latency asked: the stand-in's measured await adds the poll's
         * rounding up to the millisecond while its loop sleeps and its wait
         * for the loop's other work while it is busy (with a server in
         * series, most of it); the model makes both (server.timer_*, the
         * loop's queue), so the measured mean would count them twice */
        set(c, err, "architecture.stub_latency=const(%.9g)", pt->latency_ms / 1000) ||
        set(c, err, "run.seed=%llu", (unsigned long long)o->seed) ||
        set(c, err, "run.replications=%u", o->reps) || set(c, err, "run.target_ci=0"))
        return err->code;
    return SIM_OK;
}

/* The mean over the replications of one phase's value in a section of
 * the tigerfans layout ("phase" or "pool"). */
static double phase_mean(const sim_rep_result *res, const sim_layout *lay, const char *section,
                         int phase, const char *col)
{
    long k = sim_layout_find(lay, section, tf_phase_names[phase], col);
    assert(k >= 0 && "the tigerfans layout has every phase's row");
    return res->mean[k];
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
                s->thr[i] = phase_mean(&res, &sc.layout, "phase", i, "throughput");
                s->ccpu[i] = phase_mean(&res, &sc.layout, "phase", i, "client_cpu");
                s->scpu[i] = phase_mean(&res, &sc.layout, "phase", i, "server_cpu");
                s->ppass[i] = phase_mean(&res, &sc.layout, "pool", i, "passes");
                s->pconn[i] = phase_mean(&res, &sc.layout, "pool", i, "conns");
                s->pidle[i] = phase_mean(&res, &sc.layout, "pool", i, "idle");
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

int val_http_points(const val_probe_http_result *res, const double *fit_lat, size_t nfit,
                    val_http_point *pts, size_t max, size_t *npts, sim_err *err)
{
    /* sums per point and phase: throughput (over runs), CPU and requests */
    typedef struct acc {
        double thr, runs, ccpu, scpu, req;
        double ppass, pconn, pidle, pruns; /* the pool, over the runs that measured it */
    } acc;
    size_t n = 0;
    acc *a = calloc(max ? max * TF_NPHASES : 1, sizeof *a);
    assert(a && "out of memory");
    for (size_t i = 0; i < res->n; i++) {
        const val_http_row *r = &res->rows[i];
        size_t k = 0;
        while (k < n && !(pts[k].latency_ms == r->latency_ms &&
                          pts[k].concurrency == (long)r->concurrency))
            k++;
        if (k == n) {
            if (n == max) {
                free(a);
                return sim_err_set(err, SIM_EINPUT, "more than %zu (latency, concurrency) points "
                                   "in the probe measurement", max);
            }
            memset(&pts[n], 0, sizeof pts[n]);
            pts[n].latency_ms = r->latency_ms;
            pts[n].concurrency = (long)r->concurrency;
            pts[n].total = (long)r->total;
            pts[n].weight = nfit ? 0 : 1;
            for (size_t j = 0; j < nfit; j++)
                if (fabs(fit_lat[j] - r->latency_ms) < 1e-9)
                    pts[n].weight = 1;
            n++;
        }
        assert(r->phase >= 0 && r->phase < TF_NPHASES);
        acc *x = &a[k * TF_NPHASES + (size_t)r->phase];
        double req = (double)(r->ok + r->errors);
        x->thr += r->throughput;
        x->runs += 1;
        x->ccpu += r->client_cpu;
        x->scpu += r->server_cpu;
        x->req += req;
        if (isfinite(r->pool_passes) && isfinite(r->pool_conns) && isfinite(r->pool_idle)) {
            x->ppass += r->pool_passes;
            x->pconn += r->pool_conns;
            x->pidle += r->pool_idle;
            x->pruns += 1;
        }
    }
    if (n == 0) {
        free(a);
        return sim_err_set(err, SIM_EINPUT, "the probe measurement has no rows");
    }
    for (size_t k = 0; k < n; k++) {
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            const acc *x = &a[k * TF_NPHASES + (size_t)ph];
            pts[k].thr[ph] = x->runs > 0 ? x->thr / x->runs : NAN;
            pts[k].ccpu[ph] = x->req > 0 ? x->ccpu / x->req : NAN;
            pts[k].scpu[ph] = x->req > 0 ? x->scpu / x->req : NAN;
            pts[k].ppass[ph] = x->pruns > 0 ? x->ppass / x->pruns : NAN;
            pts[k].pconn[ph] = x->pruns > 0 ? x->pconn / x->pruns : NAN;
            pts[k].pidle[ph] = x->pruns > 0 ? x->pidle / x->pruns : NAN;
        }
    }
    free(a);
    *npts = n;
    return SIM_OK;
}

sim_table *val_http_table(const val_http_point *pts, const val_http_sim *sims, size_t npts)
{
    sim_table *t = sim_table_new("the HTTP layer: probe http measured against simulated");
    assert(t && "out of memory");
    int cl = sim_table_col(t, "latency_ms", "%g"), cc = sim_table_col(t, "concurrency", "%.0f");
    int cp = sim_table_col(t, "phase", NULL), cf = sim_table_col(t, "fitted", NULL);
    int ctm = sim_table_col(t, "throughput", "%.1f"), cts = sim_table_col(t, "sim_throughput", "%.1f");
    int cte = sim_table_col(t, "throughput_error_pct", "%.1f");
    int ccm = sim_table_col(t, "client_cpu_ms", "%.3f"), ccs = sim_table_col(t, "sim_client_cpu_ms", "%.3f");
    int cce = sim_table_col(t, "client_cpu_error_pct", "%.1f");
    int csm = sim_table_col(t, "server_cpu_ms", "%.3f"), css = sim_table_col(t, "sim_server_cpu_ms", "%.3f");
    int cse = sim_table_col(t, "server_cpu_error_pct", "%.1f");
    int cpm = sim_table_col(t, "pool_passes", "%.2f"), cps = sim_table_col(t, "sim_pool_passes", "%.2f");
    int cnm = sim_table_col(t, "pool_conns", "%.1f"), cns = sim_table_col(t, "sim_pool_conns", "%.1f");
    int cim = sim_table_col(t, "pool_idle", "%.1f"), cis = sim_table_col(t, "sim_pool_idle", "%.1f");
    for (size_t k = 0; k < npts; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            if (!isfinite(pts[k].thr[ph]))
                continue;
            sim_table_row(t);
            sim_table_num(t, cl, pts[k].latency_ms);
            sim_table_num(t, cc, (double)pts[k].concurrency);
            sim_table_str(t, cp, tf_phase_names[ph]);
            sim_table_str(t, cf, pts[k].weight > 0 ? "yes" : "no");
            sim_table_num(t, ctm, pts[k].thr[ph]);
            sim_table_num(t, cts, sims[k].thr[ph]);
            sim_table_num(t, cte, sim_mape_add(NULL, sims[k].thr[ph], pts[k].thr[ph]));
            sim_table_num(t, ccm, pts[k].ccpu[ph] * 1e3);
            sim_table_num(t, ccs, sims[k].ccpu[ph] * 1e3);
            sim_table_num(t, cce, sim_mape_add(NULL, sims[k].ccpu[ph], pts[k].ccpu[ph]));
            sim_table_num(t, csm, pts[k].scpu[ph] * 1e3);
            sim_table_num(t, css, sims[k].scpu[ph] * 1e3);
            sim_table_num(t, cse, sim_mape_add(NULL, sims[k].scpu[ph], pts[k].scpu[ph]));
            sim_table_num(t, cpm, pts[k].ppass[ph]);
            sim_table_num(t, cps, sims[k].ppass[ph]);
            sim_table_num(t, cnm, pts[k].pconn[ph]);
            sim_table_num(t, cns, sims[k].pconn[ph]);
            sim_table_num(t, cim, pts[k].pidle[ph]);
            sim_table_num(t, cis, sims[k].pidle[ph]);
        }
    return t;
}

void val_http_mape(const val_http_point *pts, const val_http_sim *sims, size_t npts, int which,
                   val_http_errs *e)
{
    sim_mape mt, mc;
    sim_mape_init(&mt);
    sim_mape_init(&mc);
    for (size_t k = 0; k < npts; k++) {
        if ((pts[k].weight > 0) != (which != 0))
            continue;
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            if (isfinite(pts[k].thr[ph])) /* no band: only `within` counts */
                sim_mape_add_range(&mt, sims[k].thr[ph], pts[k].thr[ph], -INFINITY, INFINITY);
            if (isfinite(pts[k].ccpu[ph]))
                sim_mape_add(&mc, sims[k].ccpu[ph], pts[k].ccpu[ph]);
        }
    }
    e->thr = sim_mape_mean(&mt);
    e->ccpu = sim_mape_mean(&mc);
    e->thr_max = mt.n ? mt.max : NAN;
    e->ccpu_max = mc.n ? mc.max : NAN;
    e->n = mt.n;
    e->within = mt.within;
}
