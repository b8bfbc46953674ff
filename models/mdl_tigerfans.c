/* mdl_tigerfans: the TigerFans model as a pluggable mdl_type: reads the
 * parameters (tf_params), declares the outputs (per phase, component,
 * operation kind, TigerBeetle batches), runs replications (tf_sim) and adds
 * the analytic view: asymptotic bounds and an MVA approximation per phase,
 * with a warning when a simulated throughput lies outside the bounds.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/mdl.h"
#include "models/mdl_theory.h"
#include "models/tf_params.h"
#include "models/tf_prog.h"
#include "models/tf_sim.h"

typedef struct tfmodel {
    tf_params p;
    size_t phase0, kind0, comp0, batch0, pool0, run0;
} tfmodel;

enum { PM_THR, PM_MEAN, PM_P50, PM_P90, PM_P99, PM_ERR, PM_WALL, PM_CCPU, PM_SCPU, PM_CBUSY, PM_SBUSY,
       PM_PCPU, PM_N };
static const char *const pm_names[PM_N] = {
    "throughput", "latency_mean", "p50",        "p90",         "p99",        "errors",
    "walltime",   "client_cpu",   "server_cpu", "client_busy", "server_busy", "postgres_cpu"};

static void free_model(void *m)
{
    tfmodel *t = m;
    if (!t)
        return;
    tf_params_fini(&t->p);
    free(t);
}

/* Lower bounds of one replication: every request of a phase takes at
 * least one event per round trip of its program (PostgreSQL, Redis,
 * TigerBeetle) plus its response, and the server's loop CPU of its program
 * on one of server.workers single-threaded loops. */
static int check_size(const void *model, const sim_cfg *cfg, const mdl_limits *lim, sim_err *err)
{
    const tf_params *p = &((const tfmodel *)model)->p;
    tf_prog g[TF_EP_N];
    tf_prog_build(g, p);
    double events = 0, cpu = 0, per_req = INFINITY;
    int nph = 0;
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        if (!p->phase_on[ph])
            continue;
        int eps[2], ne = 0;
        if (ph == TF_CHECKOUT)
            eps[ne++] = TF_EP_CHECKOUT;
        else if (ph == TF_RESERVE)
            eps[ne++] = TF_EP_RESERVE;
        else if (ph == TF_COMMIT)
            eps[ne++] = TF_EP_COMMIT;
        else {
            if (p->succeed_rate > 0)
                eps[ne++] = TF_EP_WEBHOOK;
            if (p->succeed_rate < 1)
                eps[ne++] = TF_EP_WEBHOOK_FAIL;
        }
        double ev = INFINITY, c = INFINITY;
        for (int k = 0; k < ne; k++) {
            const tf_prog *pr = &g[eps[k]];
            double e1 = 1, c1 = 0;
            for (int i = 0; i < pr->n; i++) {
                int code = pr->u[i].code;
                e1 += code == TF_U_PG || code == TF_U_REDIS || code == TF_U_TB;
                if (code == TF_U_CPU)
                    c1 += pr->u[i].cpu;
            }
            ev = fmin(ev, e1);
            c = fmin(c, c1);
        }
        events += (double)p->total * ev;
        cpu += (double)p->total * c;
        per_req = fmin(per_req, ev);
        nph++;
    }
    char why[160];
    snprintf(why, sizeof why, "%ld requests in each of %d phases, each at least %.0f events and "
             "its server CPU on one of %ld loops", p->total, nph, per_req, p->workers);
    return mdl_check_size(cfg, "client", "total", events, cpu / (double)p->workers, why, lim, err);
}

static int setup(const sim_cfg *cfg, const sim_cfg_key *s, size_t n, const mdl_limits *lim,
                 void **out, sim_layout *lay, sim_err *err)
{
    tfmodel *m = calloc(1, sizeof *m);
    assert(m && "out of memory");
    *out = m;
    if (tf_params_read(&m->p, cfg, s, n, err))
        return err->code;
    m->p.lim = *lim;
    m->phase0 = lay->n;
    for (int i = 0; i < TF_NPHASES; i++)
        for (int j = 0; j < PM_N; j++) {
            size_t k = sim_layout_add(
                lay, "phase", tf_phase_names[i], pm_names[j], NAN,
                (j == PM_THR || j == PM_P99) && m->p.phase_on[i] ? SIM_METRIC_WATCH : 0,
                j == PM_THR ? "%.1f" : j == PM_ERR ? "%.0f" : j == PM_CBUSY || j == PM_SBUSY ? "%.3f" : "%.2f");
            if (j != PM_THR && j != PM_ERR && j != PM_WALL && j != PM_CBUSY && j != PM_SBUSY)
                sim_layout_text_unit(lay, k, 1e3, "ms"); /* latencies: seconds, shown in ms */
        }
    m->comp0 = lay->n;
    for (int i = 0; i < TF_NCOMPS; i++) {
        sim_layout_add(lay, "component", tf_comp_names[i], "utilisation", NAN, 0, "%.3f");
        sim_layout_add(lay, "component", tf_comp_names[i], "cores", NAN, 0, "%.2f");
        sim_layout_add(lay, "component", tf_comp_names[i], "mean_queue", NAN, 0, "%.2f");
    }
    m->kind0 = lay->n;
    for (int i = 0; i < TF_NKINDS; i++) {
        sim_layout_text_unit(lay, sim_layout_add(lay, "kind", tf_kind_names[i], "mean", NAN, 0, "%.2f"),
                             1e3, "ms");
        sim_layout_text_unit(lay, sim_layout_add(lay, "kind", tf_kind_names[i], "sd", NAN, 0, "%.2f"),
                             1e3, "ms");
        sim_layout_add(lay, "kind", tf_kind_names[i], "count", NAN, 0, "%.0f");
    }
    m->batch0 = lay->n;
    sim_layout_add(lay, "batch", "tb.batch_size", "mean", NAN, 0, "%.2f");
    sim_layout_add(lay, "batch", "tb.batch_size", "sd", NAN, 0, "%.2f");
    sim_layout_add(lay, "batch", "tb.batch_size", "count", NAN, 0, "%.0f");
    m->pool0 = lay->n;
    for (int i = 0; i < TF_NPHASES; i++) {
        sim_layout_add(lay, "pool", tf_phase_names[i], "passes", NAN, 0, "%.3g");
        sim_layout_add(lay, "pool", tf_phase_names[i], "conns", NAN, 0, "%.1f");
        sim_layout_add(lay, "pool", tf_phase_names[i], "idle", NAN, 0, "%.1f");
    }
    m->run0 = lay->n;
    sim_layout_add(lay, "run", "totals", "rollbacks", NAN, 0, "%.0f");
    sim_layout_add(lay, "run", "totals", "holds_rows_end", NAN, 0, "%.0f");
    sim_layout_add(lay, "run", "totals", "events", NAN, 0, "%.0f");
    sim_layout_add(lay, "run", "totals", "pool_passes", NAN, 0, "%.3g");
    sim_layout_add(lay, "run", "totals", "pool_retries", NAN, 0, "%.3g");
    sim_layout_add(lay, "run", "totals", "pool_conns", NAN, 0, "%.0f");
    sim_layout_add(lay, "run", "totals", "redis_threaded_writes", NAN, 0, "%.3f");
    return SIM_OK;
}

static int replicate(const void *model, uint64_t seed, uint32_t rep, double *v, sim_err *err)
{
    const tfmodel *m = model;
    tf_out o;
    int rc = tf_sim_run(&m->p, seed, rep, &o, err);
    if (rc)
        return rc;
    double *x = v + m->phase0;
    for (int i = 0; i < TF_NPHASES; i++, x += PM_N) {
        const tf_phase_out *ph = &o.phase[i];
        x[PM_THR] = ph->throughput;
        x[PM_MEAN] = ph->mean;
        x[PM_P50] = ph->p50;
        x[PM_P90] = ph->p90;
        x[PM_P99] = ph->p99;
        x[PM_ERR] = m->p.phase_on[i] ? ph->errors : NAN;
        x[PM_WALL] = ph->walltime;
        x[PM_CCPU] = ph->cpu_client;
        x[PM_SCPU] = ph->cpu_server;
        x[PM_CBUSY] = ph->busy_client;
        x[PM_SBUSY] = ph->busy_server;
        x[PM_PCPU] = ph->cpu_pg;
    }
    x = v + m->comp0;
    for (int i = 0; i < TF_NCOMPS; i++) {
        *x++ = o.util[i];
        *x++ = o.cores[i];
        *x++ = o.queue[i];
    }
    x = v + m->kind0;
    for (int i = 0; i < TF_NKINDS; i++) {
        *x++ = o.kind_mean[i];
        *x++ = o.kind_sd[i];
        *x++ = o.kind_n[i];
    }
    x = v + m->batch0;
    x[0] = o.batch_mean;
    x[1] = o.batch_sd;
    x[2] = o.batches;
    x = v + m->pool0;
    for (int i = 0; i < TF_NPHASES; i++) {
        *x++ = o.phase[i].pool_passes;
        *x++ = o.phase[i].pool_conns;
        *x++ = o.phase[i].pool_idle;
    }
    x = v + m->run0;
    x[0] = o.rollbacks;
    x[1] = o.holds_rows_end;
    x[2] = o.events;
    x[3] = o.pool_passes;
    x[4] = o.pool_retries;
    x[5] = o.pool_conns;
    x[6] = o.redis_threaded_writes;
    return SIM_OK;
}

/* A station of k servers with demand d per request, for MVA (Seidmann's
 * approximation): a single-server queue of d/k plus a delay of d(k-1)/k
 * (exact at concurrency 1 and in the limit); below one server, one slower
 * server.  Appends to st (up to two entries); returns how many. */
static size_t multi_server(mdl_mva_station *st, double d, double k)
{
    if (!(d > 0))
        return 0;
    st[0] = (mdl_mva_station){d / k, 0};
    if (k <= 1)
        return 1;
    st[1] = (mdl_mva_station){d * (k - 1) / k, 1};
    return 2;
}

/* Analytic view per phase, from the light-load demands of tf_sim_demand
 * (no crowding, no table growth).  The resources: the client loop and
 * Redis (one thread each), the server loops (W threads) and the host's K
 * cores, which run the CPU of every process on the host; round trips,
 * flushes and TigerBeetle batches are delays.
 *   bound = min(N/D, 1/Dmax): D the whole demand of a request, Dmax the
 *   largest demand per server (client, server/W, Redis, host CPU/K).
 *   mva = MVA of these stations.  A request holds a loop and a core at
 *   once, which product-form MVA cannot express, so it is solved twice:
 *   with the threads (client, server loops, Redis; the backends' CPU a
 *   delay) and with the cores (the host's K cores take all host CPU; what
 *   runs elsewhere keeps its own station), and the smaller throughput is
 *   kept.  Multi-server stations use Seidmann's approximation.  Both
 *   solutions have response time D at N = 1 and never exceed the bound. */
static void analytic(const tf_params *p, int ph, double *bound, double *mva)
{
    tf_demand d;
    tf_sim_demand(p, ph, &d);
    double w = (double)p->workers, k = p->cores;
    double host = d.client * p->client_on_host + d.server + d.pg * p->pg_on_host +
                  d.redis * p->redis_on_host;
    double dsum = d.client + d.server + d.pg + d.redis + d.latency;
    double dmax = d.client;
    double per_server[] = {d.server / w, d.redis, host / k};
    for (size_t i = 0; i < 3; i++)
        if (per_server[i] > dmax)
            dmax = per_server[i];
    *bound = mdl_bound_throughput(dsum, dmax, 0, p->concurrency);

    mdl_mva_station st[8];
    double x1, x2, r;
    /* threads: the loops and Redis queue, the backends' CPU is a delay */
    size_t n = 0;
    st[n++] = (mdl_mva_station){d.client, 0};
    n += multi_server(st + n, d.server, w);
    st[n++] = (mdl_mva_station){d.redis, 0};
    st[n++] = (mdl_mva_station){d.pg, 1};
    mdl_mva(st, n, d.latency, p->concurrency, &x1, &r, NULL, NULL);
    /* cores: all host CPU on K cores; the client and Redis, when not on
     * the host, keep their one thread; PostgreSQL off the host is a delay */
    n = multi_server(st, host, k);
    st[n++] = (mdl_mva_station){p->client_on_host ? 0 : d.client, 0};
    st[n++] = (mdl_mva_station){p->redis_on_host ? 0 : d.redis, 0};
    st[n++] = (mdl_mva_station){p->pg_on_host ? 0 : d.pg, 1};
    mdl_mva(st, n, d.latency, p->concurrency, &x2, &r, NULL, NULL);
    *mva = x1 < x2 ? x1 : x2;
}

static void annotate(const void *model, const sim_layout *lay, const sim_rep_result *res,
                     sim_table *t, sim_table *notes)
{
    const tfmodel *m = model;
    const tf_params *p = &m->p;
    int cb = sim_table_col(t, "bound_throughput", "%.1f");
    int cm = sim_table_col(t, "mva_throughput", "%.1f");
    int cs = sim_table_find_col(t, "scope"), cn = sim_table_find_col(t, "name");
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *scope = NULL, *name = NULL;
        sim_table_cell(t, r, cs, NULL, &scope);
        sim_table_cell(t, r, cn, NULL, &name);
        if (!scope || strcmp(scope, "phase"))
            continue;
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            if (strcmp(name, tf_phase_names[ph]) || !p->phase_on[ph])
                continue;
            double bound, mva;
            analytic(p, ph, &bound, &mva);
            sim_table_num_at(t, r, cb, bound);
            sim_table_num_at(t, r, cm, mva);
            long k = sim_layout_find(lay, "phase", name, "throughput");
            double x = res->mean[k];
            if (p->phase_mode[ph] != TF_MODE_POISSON && x > bound * 1.02)
                mdl_note(notes, "warning",
                         "%s: simulated throughput %.1f/s lies above the asymptotic bound %.1f/s "
                         "(min(N/D, 1/Dmax) from light-load demands): check the config",
                         name, x, bound);
        }
    }
    mdl_note(notes, "info",
             "architecture %s, %ld worker(s), concurrency %ld, %ld requests per phase; "
             "bound_throughput = min(N/D, 1/Dmax), mva_throughput = MVA (the loops and Redis, "
             "and the host's cores, solved apart, the smaller kept), both from light-load "
             "demands (no crowding, no table growth)",
             p->arch, p->workers, p->concurrency, p->total);
}

const mdl_type mdl_tigerfans_type = {
    "tigerfans", "the TigerFans ticketing system (FastAPI + TigerBeetle/PostgreSQL + Redis)",
    tf_params_schema, setup, free_model, replicate, annotate, check_size,
};
