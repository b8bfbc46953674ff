/* mdl_queueing: textbook queueing models used to validate the kernel
 * against theory: an open tandem of FIFO multi-server stations fed by a
 * renewal arrival process (M/M/1, M/M/c, M/D/1, M/G/1, Jackson tandems),
 * and a closed network of N customers cycling through a think (delay)
 * station and FIFO stations.
 *
 * Per replication: 1 + K random streams (arrivals or think times: stream 0;
 * station k's service: stream k + 1).  Two calendar events per customer per
 * station visit at most (arrival/think end and service completion).
 * Warm-up: `warmup = auto` runs one pilot replication (its own stream set)
 * and applies MSER-5 to its response-time series; the truncation point is
 * used, in customers, by every replication.  `ci = batch_means` runs one
 * long replication and reports batch-means CIs for the mean response.
 * Memory: run.max_pending bounds the servers plus the closed network's
 * customers (checked at setup) and the customers in an open network (the
 * run stops with an error when more are in the system).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/mdl.h"
#include "models/mdl_theory.h"
#include "sim/sim.h"
#include "sim/sim_dist.h"
#include "sim/sim_pool.h"
#include "sim/sim_rng.h"
#include "sim/sim_station.h"
#include "sim/sim_stats.h"

#define MAX_STATIONS 32

static const sim_cfg_key schema[] = {
    {"queueing", "network", SIM_CFG_ENUM, "open", 0, 0, "open|closed", NULL,
     "open: renewal arrivals at [arrivals]; closed: [closed] customers cycle forever"},
    {"queueing", "customers", SIM_CFG_INT, "200000", 1, 1e12, NULL, "customers",
     "departures (open) or completed cycles (closed) measured per replication, after warm-up"},
    {"queueing", "warmup", SIM_CFG_STR, "auto", 0, 0, NULL, "customers",
     "departures discarded before measuring: a count, or auto (MSER-5 on a pilot run)"},
    {"queueing", "ci", SIM_CFG_ENUM, "replications", 0, 0, "replications|batch_means", NULL,
     "confidence intervals from independent replications or from batch means of one long run"},
    {"queueing", "batches", SIM_CFG_INT, "30", 2, 1000, NULL, "batches",
     "number of batches for ci = batch_means"},
    {"arrivals", "rate", SIM_CFG_RATE, "1", 1e-12, 1e12, NULL, "1/s",
     "open network: arrival rate (Poisson unless interarrival is given)"},
    {"arrivals", "interarrival", SIM_CFG_STR, "", 0, 0, NULL, "s",
     "open network: interarrival-time distribution (default exp with mean 1/rate)"},
    {"closed", "customers", SIM_CFG_INT, "10", 1, 1e7, NULL, "customers",
     "closed network: population N"},
    {"closed", "think", SIM_CFG_DIST, "exp(mean=1)", 0, 0, NULL, "s",
     "closed network: think time between cycles (delay station)"},
    {"station.*", "servers", SIM_CFG_INT, "1", 1, 1e6, NULL, "servers", "identical servers"},
    {"station.*", "service", SIM_CFG_DIST, NULL, 0, 0, NULL, "s", "service-time distribution"},
};

typedef struct qmodel {
    int closed;
    int batch_means;
    int nbatches;
    uint64_t customers, warmup;
    int auto_warmup;
    double rate;
    sim_dist inter;
    long population;
    sim_dist think;
    int k;
    char names[MAX_STATIONS][48];
    int servers[MAX_STATIONS];
    sim_dist service[MAX_STATIONS];
    mdl_limits lim;
    /* layout indices */
    size_t first_station_metric, per_station;
    size_t net_first;
    int has_net;          /* a network row: closed, several stations or batch means */
} qmodel;

enum { M_THR, M_RESP, M_WAIT, M_LQ, M_L, M_UTIL, M_P50, M_P90, M_P99, M_N };
static const char *const metric_names[M_N] = {"throughput", "mean_response", "mean_wait",
                                              "mean_queue", "mean_in_system", "utilisation",
                                              "p50", "p90", "p99"};

/* ---- one replication ---- */

typedef struct cust {
    double t0;    /* entered the current cycle / the network */
    int stage;
} cust;

typedef struct rep {
    sim s;        /* first member: callbacks recover the rep from the sim */
    const qmodel *m;
    gsl_rng *rng_arr;
    gsl_rng *rng_svc[MAX_STATIONS];
    sim_station st[MAX_STATIONS];
    sim_pool pool;
    uint64_t departures;   /* from the last station, since the start */
    uint64_t target;       /* warmup + customers */
    double t_measure;      /* when warm-up ended */
    int measuring;
    sim_welford cycle;     /* network response (closed: cycle excluding think) */
    sim_series *series;    /* response series of the last station (pilot / batch means) */
    int overflow;          /* more customers in the system than run.max_pending */
} rep;

static void enter(rep *r, cust *c, int k);
static void think_done(sim *s, void *obj);

static void done_station(sim *s, void *obj)
{
    rep *r = (rep *)s;
    cust *c = obj;
    if (c->stage + 1 < r->m->k) {
        enter(r, c, c->stage + 1);
        return;
    }
    /* left the last station */
    r->departures++;
    double resp = s->now - c->t0;
    if (r->measuring && r->m->has_net) /* only the network row reports it */
        sim_welford_add(&r->cycle, resp);
    if (r->series)
        sim_series_add(r->series, resp);
    if (!r->measuring && r->departures >= r->m->warmup) {
        r->measuring = 1;
        r->t_measure = s->now;
        for (int i = 0; i < r->m->k; i++)
            sim_station_reset_stats(&r->st[i], s->now);
        sim_welford_init(&r->cycle);
    }
    if (r->departures >= r->target) {
        sim_stop(s);
        return;
    }
    if (r->m->closed) {
        sim_fn next = think_done;
        sim_after(s, sim_dist_sample(&r->m->think, r->rng_arr), 1, next, c);
        return;
    }
    sim_pool_put(&r->pool, c);
}

static void enter(rep *r, cust *c, int k)
{
    c->stage = k;
    double svc = sim_dist_sample(&r->m->service[k], r->rng_svc[k]);
    sim_station_arrive(&r->st[k], &r->s, c, svc, done_station);
}

static void arrival(sim *s, void *obj)
{
    (void)obj;
    rep *r = (rep *)s;
    /* waiting customers sit in the stations' queues, not in the calendar:
     * run.max_pending bounds them too (memory) */
    if (r->m->lim.max_pending && r->pool.live >= r->m->lim.max_pending) {
        r->overflow = 1;
        sim_stop(s);
        return;
    }
    cust *c = sim_pool_get(&r->pool);
    c->t0 = s->now;
    enter(r, c, 0);
    sim_after(s, sim_dist_sample(&r->m->inter, r->rng_arr), 1, arrival, NULL);
}

static void think_done(sim *s, void *obj)
{
    rep *r = (rep *)s;
    cust *c = obj;
    c->t0 = s->now;
    enter(r, c, 0);
}

/* Run one replication; fills values (when not NULL) and, for the pilot,
 * the response series. */
static int run_rep(const qmodel *m, uint64_t seed, uint32_t repno, uint64_t warmup,
                   sim_series *series, const sim_layout *lay, double *values, sim_err *err)
{
    (void)lay;
    rep *r = calloc(1, sizeof *r);
    assert(r && "out of memory");
    qmodel mm = *m;
    mm.warmup = warmup;
    r->m = &mm;
    sim_init(&r->s, 1024);
    mdl_limits_apply(&m->lim, &r->s);
    r->rng_arr = sim_rng_new_kind(m->lim.rng, seed, repno, 0);
    for (int i = 0; i < m->k; i++) {
        r->rng_svc[i] = sim_rng_new_kind(m->lim.rng, seed, repno, (uint32_t)i + 1);
        sim_station_init(&r->st[i], m->servers[i]);
    }
    sim_pool_init(&r->pool, sizeof(cust), 1024);
    r->target = warmup + m->customers;
    r->series = series;
    r->measuring = warmup == 0;
    sim_welford_init(&r->cycle);
    if (m->closed) {
        for (long i = 0; i < m->population; i++) {
            cust *c = sim_pool_get(&r->pool);
            sim_after(&r->s, sim_dist_sample(&m->think, r->rng_arr), 1, think_done, c);
        }
    } else {
        sim_after(&r->s, sim_dist_sample(&m->inter, r->rng_arr), 1, arrival, NULL);
    }
    int st = sim_run(&r->s, m->lim.max_sim_time);
    int rc = st == SIM_RUN_STOPPED ? SIM_OK : mdl_check_run(st, repno, &m->lim, err);
    char who[32];
    mdl_rep_name(repno, who, sizeof who);
    if (r->overflow)
        rc = sim_err_set(err, SIM_EFAIL,
                         "%s stopped: more than %llu customers in the system (limit "
                         "run.max_pending)",
                         who, (unsigned long long)m->lim.max_pending);
    if (rc == SIM_OK && st != SIM_RUN_STOPPED)
        rc = sim_err_set(err, SIM_EFAIL, "%s ended before %llu departures", who,
                         (unsigned long long)r->target);
    if (rc == SIM_OK && values) {
        double now = r->s.now, span = now - r->t_measure;
        for (int i = 0; i < m->k; i++) {
            const sim_station *q = &r->st[i];
            double *v = values + m->first_station_metric + (size_t)i * m->per_station;
            double lq = sim_tavg_mean(&q->nwait, now), busy = sim_tavg_mean(&q->nbusy, now);
            v[M_THR] = span > 0 ? (double)q->completions / span : NAN;
            v[M_RESP] = q->resp.mean;
            v[M_WAIT] = q->waitw.mean;
            v[M_LQ] = lq;
            v[M_L] = lq + busy;
            v[M_UTIL] = busy / q->c;
            v[M_P50] = sim_hist_quantile(&q->resp_h, 0.50);
            v[M_P90] = sim_hist_quantile(&q->resp_h, 0.90);
            v[M_P99] = sim_hist_quantile(&q->resp_h, 0.99);
        }
        if (m->has_net) {
            double *v = values + m->net_first;
            v[0] = span > 0 ? (double)r->cycle.n / span : NAN;
            v[1] = r->cycle.mean;
        }
        if (m->batch_means) {
            double *v = values + m->net_first;
            double mean, half;
            if (sim_series_batch_means(series, warmup, m->nbatches, 0.95, &mean, &half) == 0) {
                v[2] = mean;
                v[3] = half;
            } else {
                v[2] = v[3] = NAN;
            }
        }
    }
    for (int i = 0; i < m->k; i++) {
        gsl_rng_free(r->rng_svc[i]);
        sim_station_fini(&r->st[i]);
    }
    gsl_rng_free(r->rng_arr);
    sim_pool_fini(&r->pool);
    sim_fini(&r->s);
    free(r);
    return rc;
}

static int replicate(const void *model, uint64_t seed, uint32_t repno, double *values,
                     sim_err *err)
{
    const qmodel *m = model;
    if (!m->batch_means)
        return run_rep(m, seed, repno, m->warmup, NULL, NULL, values, err);
    sim_series series;
    sim_series_init(&series);
    int rc = run_rep(m, seed, repno, m->warmup, &series, NULL, values, err);
    sim_series_fini(&series);
    return rc;
}

/* ---- setup ---- */


static void free_model(void *p)
{
    qmodel *m = p;
    if (!m)
        return;
    sim_dist_fini(&m->inter);
    sim_dist_fini(&m->think);
    for (int i = 0; i < m->k; i++)
        sim_dist_fini(&m->service[i]);
    free(m);
}

static int check_size(const void *model, const sim_cfg *cfg, const mdl_limits *lim, sim_err *err);

static int setup(const sim_cfg *cfg, const sim_cfg_key *s, size_t n, const mdl_limits *lim,
                 void **out, sim_layout *lay, sim_err *err)
{
    qmodel *m = calloc(1, sizeof *m);
    assert(m && "out of memory");
    *out = m;
    m->lim = *lim;
    const char *net, *ci, *wu, *inter;
    long customers, batches;
    char w[512];
    if (sim_cfg_str(cfg, s, n, "queueing", "network", &net, err) ||
        sim_cfg_str(cfg, s, n, "queueing", "ci", &ci, err) ||
        sim_cfg_str(cfg, s, n, "queueing", "warmup", &wu, err) ||
        sim_cfg_int(cfg, s, n, "queueing", "customers", &customers, err) ||
        sim_cfg_int(cfg, s, n, "queueing", "batches", &batches, err) ||
        sim_cfg_num(cfg, s, n, "arrivals", "rate", &m->rate, err) ||
        sim_cfg_str(cfg, s, n, "arrivals", "interarrival", &inter, err) ||
        sim_cfg_int(cfg, s, n, "closed", "customers", &m->population, err) ||
        sim_cfg_dist(cfg, s, n, "closed", "think", &m->think, err))
        return err->code;
    m->closed = !strcmp(net, "closed");
    m->batch_means = !strcmp(ci, "batch_means");
    m->nbatches = (int)batches;
    m->customers = (uint64_t)customers;
    if (!strcmp(wu, "auto")) {
        m->auto_warmup = 1;
    } else {
        long v;
        const char *why;
        if (sim_parse_long(wu, &v, &why) || v < 0)
            return sim_err_set(err, SIM_EINPUT, "%s: queueing.warmup: '%s': expected auto or a "
                               "non-negative count", sim_cfg_where(cfg, "queueing", "warmup", w,
                               sizeof w), wu);
        m->warmup = (uint64_t)v;
    }
    if (*inter) {
        char msg[256];
        if (sim_dist_parse(inter, &m->inter, msg, sizeof msg))
            return sim_err_set(err, SIM_EINPUT, "%s: arrivals.interarrival: %s",
                               sim_cfg_where(cfg, "arrivals", "interarrival", w, sizeof w), msg);
        if (sim_dist_mean(&m->inter) <= 0)
            return sim_err_set(err, SIM_EINPUT, "%s: arrivals.interarrival: mean must be > 0",
                               sim_cfg_where(cfg, "arrivals", "interarrival", w, sizeof w));
        m->rate = 1 / sim_dist_mean(&m->inter);
    } else {
        m->inter.kind = SIM_DIST_EXP;
        m->inter.a = 1 / m->rate;
    }
    const char *secs[MAX_STATIONS + 1];
    size_t ns = sim_cfg_sections(cfg, "station.*", secs, MAX_STATIONS + 1);
    if (ns == 0)
        return sim_err_set(err, SIM_EINPUT, "%s: no [station.NAME] section: a queueing model needs "
                           "at least one station", sim_cfg_name(cfg));
    if (ns > MAX_STATIONS) {
        const sim_cfg_entry *e = NULL;
        for (size_t i = 0; i < sim_cfg_count(cfg) && !e; i++)
            if (!strcmp(sim_cfg_at(cfg, i)->section, secs[MAX_STATIONS]))
                e = sim_cfg_at(cfg, i);
        assert(e);
        char at[512];
        sim_cfg_where(cfg, e->section, e->key, at, sizeof at);
        return sim_err_set(err, SIM_EINPUT, "%s: [%s]: more than %d [station.*] sections", at,
                           secs[MAX_STATIONS], MAX_STATIONS);
    }
    for (size_t i = 0; i < ns; i++) {
        long c;
        snprintf(m->names[i], sizeof m->names[i], "%s", secs[i] + strlen("station."));
        if (sim_cfg_int(cfg, s, n, secs[i], "servers", &c, err) ||
            sim_cfg_dist(cfg, s, n, secs[i], "service", &m->service[i], err))
            return err->code;
        m->servers[i] = (int)c;
        m->k = (int)i + 1;
        double rho = m->rate * sim_dist_mean(&m->service[i]) / (double)c;
        if (!m->closed && !(rho < 1))
            return sim_err_set(err, SIM_EINPUT,
                               "%s: %s.service: utilisation rho = %.4g >= 1 with arrivals.rate = "
                               "%g: an open model has no steady state",
                               sim_cfg_where(cfg, secs[i], "service", w, sizeof w), secs[i], rho,
                               m->rate);
    }
    /* every server and every closed-network customer can hold a pending
     * event, and each costs memory up front: bound them before any run */
    uint64_t holders = m->closed ? (uint64_t)m->population : 0;
    for (int i = 0; i < m->k; i++)
        holders += (uint64_t)m->servers[i];
    if (lim->max_pending && holders > lim->max_pending) {
        /* refused before it runs, as the other limits' estimates are: bad
         * input, named where the largest holder was set */
        if (m->closed)
            sim_cfg_where(cfg, "closed", "customers", w, sizeof w);
        else
            sim_cfg_where(cfg, "run", "max_pending", w, sizeof w);
        return sim_err_set(err, SIM_EINPUT,
                           "%s: %s: the stations' servers%s (%llu) could hold more pending events "
                           "than run.max_pending = %llu allows (memory); raise the limit or lower "
                           "them",
                           w, m->closed ? "closed.customers" : "run.max_pending",
                           m->closed ? " plus closed.customers" : "", (unsigned long long)holders,
                           (unsigned long long)lim->max_pending);
    }
    if (m->batch_means && m->customers < (uint64_t)m->nbatches * 100)
        return sim_err_set(err, SIM_EINPUT, "queueing.customers: batch means need at least 100 "
                           "customers per batch (%d batches)", m->nbatches);

    /* Analytic values. */
    mdl_open_result th[MAX_STATIONS];
    int has[MAX_STATIONS] = {0};
    double netx = NAN, netr = NAN, mva_q[MAX_STATIONS], mva_res[MAX_STATIONS];
    if (!m->closed) {
        int poisson = m->inter.kind == SIM_DIST_EXP && m->inter.shift == 0;
        for (int i = 0; i < m->k && poisson; i++) {
            const sim_dist *d = &m->service[i];
            double sm = sim_dist_mean(d), sv = sim_dist_var(d);
            int expo = d->kind == SIM_DIST_EXP && d->shift == 0;
            if (expo)
                has[i] = mdl_theory_mmc(m->rate, sm, m->servers[i], &th[i]) == 0;
            else if (m->servers[i] == 1)
                has[i] = mdl_theory_mg1(m->rate, sm, sv, &th[i]) == 0;
            poisson = expo; /* Burke: the output of an M/M/c queue is Poisson */
        }
        int all = 1;
        netr = 0;
        for (int i = 0; i < m->k; i++) {
            all &= has[i];
            if (has[i])
                netr += th[i].response;
        }
        if (!all)
            netr = NAN;
        netx = m->rate;
    } else {
        int product = 1;
        mdl_mva_station st[MAX_STATIONS];
        for (int i = 0; i < m->k; i++) {
            const sim_dist *d = &m->service[i];
            product &= d->kind == SIM_DIST_EXP && d->shift == 0 && m->servers[i] == 1;
            st[i].demand = sim_dist_mean(d);
            st[i].delay = 0;
        }
        if (product) {
            mdl_mva(st, (size_t)m->k, sim_dist_mean(&m->think), m->population, &netx, &netr,
                    mva_q, mva_res);
            for (int i = 0; i < m->k; i++) {
                has[i] = 1;
                double sm = st[i].demand;
                th[i].rho = netx * sm;
                th[i].response = mva_res[i];
                th[i].wait = mva_res[i] - sm;
                th[i].l = mva_q[i];
                th[i].lq = mva_q[i] - th[i].rho;
                th[i].p99 = NAN;
            }
        }
    }

    m->per_station = M_N;
    m->first_station_metric = lay->n;
    for (int i = 0; i < m->k; i++) {
        double tv[M_N];
        for (int j = 0; j < M_N; j++)
            tv[j] = NAN;
        if (has[i]) {
            tv[M_THR] = m->closed ? netx : m->rate;
            tv[M_RESP] = th[i].response;
            tv[M_WAIT] = th[i].wait;
            tv[M_LQ] = th[i].lq;
            tv[M_L] = th[i].l;
            tv[M_UTIL] = th[i].rho;
            tv[M_P99] = th[i].p99;
        }
        for (int j = 0; j < M_N; j++)
            sim_layout_add(lay, "station", m->names[i], metric_names[j], tv[j],
                           (j == M_RESP || j == M_P99) ? SIM_METRIC_WATCH : 0,
                           j == M_THR || j == M_UTIL ? "%.4f" : "%.5g");
    }
    m->net_first = lay->n;
    /* one station in an open network: its row says it all (one row per station) */
    m->has_net = m->closed || m->k > 1 || m->batch_means;
    if (m->has_net) {
        sim_layout_add(lay, "network", "all", "throughput", netx, SIM_METRIC_WATCH, "%.4f");
        sim_layout_add(lay, "network", "all", "mean_response", netr, SIM_METRIC_WATCH, "%.5g");
    }
    if (m->batch_means) {
        sim_layout_add(lay, "network", "all", "mean_response_bm", netr, 0, "%.5g");
        sim_layout_add(lay, "network", "all", "mean_response_bm_ci", NAN, 0, "%.5g");
    }

    if (m->auto_warmup) {
        /* the pilot is a replication of the same size: refuse first what
         * it could not finish either */
        if (check_size(m, cfg, lim, err))
            return err->code;
        sim_series series;
        sim_series_init(&series);
        /* pilot: the last replication number, never used by the run itself */
        int rc = run_rep(m, 0x5eed5eedULL, MDL_PILOT_REP, 0, &series, NULL, NULL, err);
        m->warmup = rc == SIM_OK ? sim_series_mser(&series) : 0;
        sim_series_fini(&series);
        if (rc) {
            sim_err_prefix(err, "queueing.warmup = auto: ");
            return rc;
        }
    }
    return SIM_OK;
}

static void annotate(const void *model, const sim_layout *lay, const sim_rep_result *res,
                     sim_table *results, sim_table *notes)
{
    (void)lay;
    (void)res;
    (void)results;
    const qmodel *m = model;
    mdl_note(notes, "info", "warm-up: %llu departures discarded per replication (%s)",
             (unsigned long long)m->warmup, m->auto_warmup ? "MSER-5 on a pilot run" : "fixed");
    if (m->closed) {
        double d = 0, dmax = 0;
        for (int i = 0; i < m->k; i++) {
            double di = sim_dist_mean(&m->service[i]) / m->servers[i];
            d += sim_dist_mean(&m->service[i]);
            if (di > dmax)
                dmax = di;
        }
        double bound = mdl_bound_throughput(d, dmax, sim_dist_mean(&m->think), m->population);
        long k = sim_layout_find(lay, "network", "all", "throughput");
        double x = res->mean[k];
        mdl_note(notes, x > bound * 1.001 ? "warning" : "info",
                 "asymptotic bound: throughput <= min(N/(D+Z), 1/Dmax) = %.6g; simulated %.6g",
                 bound, x);
    }
}

static const sim_cfg_key *get_schema(size_t *n)
{
    *n = sizeof schema / sizeof schema[0];
    return schema;
}

/* Each customer counted is at least one departure, and in an open
 * network one arrival too. */
static int check_size(const void *model, const sim_cfg *cfg, const mdl_limits *lim, sim_err *err)
{
    const qmodel *m = model;
    char why[96];
    double per = m->closed ? 1 : 2;
    snprintf(why, sizeof why, "%.0f event%s per customer", per, per > 1 ? "s" : "");
    return mdl_check_size(cfg, "queueing", "customers",
                          per * ((double)m->customers + (double)m->warmup), 0, why, lim, err);
}

const mdl_type mdl_queueing_type = {
    "queueing", "textbook open and closed queueing networks (validation against theory)",
    get_schema, setup, free_model, replicate, annotate, check_size,
};
