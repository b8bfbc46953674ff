/* mdl_redis_bench: `redis-benchmark` against the Redis server of the
 * TigerFans model (tf_redis), as a pluggable mdl_type ("redis_bench").
 *
 * What it simulates: one client process with one single-threaded event
 * loop (redis-benchmark) and client.concurrency connections; each request
 * is one command (e.g. GET): the loop spends client.cpu on it (reading the
 * previous reply and writing the request), half a round trip (host.rtt)
 * later it reaches the server, which serves it for redis.service, and half
 * a round trip after the reply leaves, the request is done.  client.mode
 * closed (and window, waves, benchmark): every connection sends its next
 * request when its reply is in (after client.think); poisson: requests
 * arrive at client.rate, each on a connection of its own.  With
 * client.session (e.g. "ctccctct": a command, a think, three commands, a
 * think, a command, a think) every connection runs that session over and
 * over, or with mode = waves once per wave, the next wave starting when
 * every connection has ended its session (a Python client's
 * asyncio.gather of sessions: scripts/cold_paths.py redis-load).
 * client.total requests are measured; throughput = requests / time of the
 * last reply.
 * The client's loop and the server run on the host's cores when
 * host.client_on_host / host.redis_on_host; the server's threaded I/O is
 * tf_redis's.  It reads the tigerfans model's keys (the same schema): the
 * ones of other components are ignored.
 *
 * Outputs: bench row (throughput, latency mean, p50, p90, p99), component
 * rows client_loop, redis (main thread), redis_io_threads (share of time
 * started), host_cpu, and run totals (cycles, threaded cycles, events).
 */
#include <assert.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/mdl.h"
#include "models/tf_params.h"
#include "models/tf_redis.h"
#include "sim/sim.h"
#include "sim/sim_pool.h"
#include "sim/sim_ps.h"
#include "sim/sim_rng.h"
#include "sim/sim_station.h"
#include "sim/sim_stats.h"

typedef struct rbmodel {
    tf_params p;
    size_t out0;
} rbmodel;

enum { O_THR, O_MEAN, O_P50, O_P90, O_P99, O_CLIENT, O_REDIS, O_REDIS_Q, O_IO, O_HOST,
       O_CYC, O_TCYC, O_TW, O_EV, O_N };

typedef struct rb {
    sim s;              /* first member: callbacks recover rb from the sim */
    const tf_params *p;
    sim_ps host;
    sim_station client; /* the client's event loop */
    tf_redis redis;
    gsl_rng *r_client, *r_redis, *r_arr, *r_wake;
    sim_pool reqs;
    long issued, done;
    double t_last;
    sim_welford lat;
    sim_hist lat_h;
    int open;           /* poisson arrivals */
    int limit_hit;
    struct rreq **conn; /* client.session: the connections (owned array; the
                           requests are the pool's) */
    long nconn, wave_left;
} rb;

typedef struct rreq {
    rb *B;
    double t0;
    int sent_busy;      /* the client's loop had more to run when it sent it */
    int step;           /* client.session: the next letter of its session */
} rreq;

static void free_model(void *m)
{
    rbmodel *t = m;
    if (!t)
        return;
    tf_params_fini(&t->p);
    free(t);
}

static int setup(const sim_cfg *cfg, const sim_cfg_key *s, size_t n, const mdl_limits *lim,
                 void **out, sim_layout *lay, sim_err *err)
{
    rbmodel *m = calloc(1, sizeof *m);
    assert(m && "out of memory");
    *out = m;
    if (tf_params_read(&m->p, cfg, s, n, err))
        return err->code;
    m->p.lim = *lim;
    m->out0 = lay->n;
    sim_layout_add(lay, "bench", "requests", "throughput", NAN, SIM_METRIC_WATCH, "%.1f");
    sim_layout_add(lay, "bench", "requests", "latency_mean", NAN, 0, "%.4g");
    sim_layout_add(lay, "bench", "requests", "p50", NAN, 0, "%.4g");
    sim_layout_add(lay, "bench", "requests", "p90", NAN, 0, "%.4g");
    sim_layout_add(lay, "bench", "requests", "p99", NAN, SIM_METRIC_WATCH, "%.4g");
    sim_layout_add(lay, "component", "client_loop", "utilisation", NAN, 0, "%.3f");
    sim_layout_add(lay, "component", "redis", "utilisation", NAN, 0, "%.3f");
    sim_layout_add(lay, "component", "redis", "mean_queue", NAN, 0, "%.3g");
    sim_layout_add(lay, "component", "redis_io_threads", "utilisation", NAN, 0, "%.3f");
    sim_layout_add(lay, "component", "host_cpu", "utilisation", NAN, 0, "%.3f");
    sim_layout_add(lay, "run", "totals", "cycles", NAN, 0, "%.0f");
    sim_layout_add(lay, "run", "totals", "threaded_cycles", NAN, 0, "%.0f");
    sim_layout_add(lay, "run", "totals", "threaded_writes", NAN, 0, "%.3f");
    sim_layout_add(lay, "run", "totals", "events", NAN, 0, "%.0f");
    return SIM_OK;
}

static inline rb *B_of(sim *s) { return (rb *)s; }

static void send_request(rb *B, rreq *q);

static void think_over(sim *s, void *obj) { send_request(B_of(s), obj); }

static void session_next(rb *B, rreq *q);

static void session_think_over(sim *s, void *obj) { session_next(B_of(s), obj); }

/* Every connection starts its session (waves: a new wave). */
static void start_sessions(rb *B)
{
    B->wave_left = B->nconn;
    for (long i = 0; i < B->nconn; i++) {
        B->conn[i]->step = 0;
        session_next(B, B->conn[i]);
    }
}

/* Run connection q's session from its step: a think schedules the rest
 * after it, a command is sent (the reply continues it); at the session's
 * end the connection starts the next one, or with waves the last to end
 * starts the next wave. */
static void session_next(rb *B, rreq *q)
{
    const char *pat = B->p->session;
    while (pat[q->step] == 't') {
        q->step++;
        double think = sim_dist_sample(&B->p->think, B->r_client);
        if (think > 0) {
            sim_after(&B->s, think, 1, session_think_over, q);
            return;
        }
    }
    if (pat[q->step] == 'c') {
        q->step++;
        send_request(B, q);
        return;
    }
    q->step = 0;
    if (B->p->mode != TF_MODE_WAVES)
        session_next(B, q); /* the pattern has a command: it stops there */
    else if (--B->wave_left == 0)
        start_sessions(B);
}

static void reply_in(sim *s, void *obj)
{
    rb *B = B_of(s);
    rreq *q = obj;
    double lat = s->now - q->t0;
    sim_welford_add(&B->lat, lat);
    sim_hist_add(&B->lat_h, lat);
    B->done++;
    B->t_last = s->now;
    if (B->done >= B->p->total) {
        sim_stop(s);
        return;
    }
    if (B->conn) {
        session_next(B, q);
        return;
    }
    if (B->open || B->issued >= B->p->total) {
        sim_pool_put(&B->reqs, q);
        return;
    }
    double think = sim_dist_sample(&B->p->think, B->r_client);
    if (think > 0)
        sim_after(s, think, 1, think_over, q);
    else
        send_request(B, q);
}

static void reply_leaves(sim *s, void *obj) { sim_after(s, B_of(s)->p->net_rtt / 2, 0, reply_in, obj); }

static void at_server_from_client(sim *s, void *obj)
{
    rb *B = B_of(s);
    rreq *q = obj;
    tf_redis_arrive_from(&B->redis, s, q, sim_dist_sample(&B->p->redis_service, B->r_redis),
                         reply_leaves, &B->client, q->sent_busy, B->client.busy > 0);
}

static void sent(sim *s, void *obj)
{
    rb *B = B_of(s);
    ((rreq *)obj)->sent_busy = B->client.busy > 0;
    sim_after(s, B->p->net_rtt / 2, 0, at_server_from_client, obj);
    if (B->client.busy == 0)
        tf_redis_waker_idle(&B->redis, s, &B->client); /* the loop sleeps */
}

static void send_request(rb *B, rreq *q)
{
    if (B->issued >= B->p->total)
        return;
    B->issued++;
    q->t0 = B->s.now;
    sim_station_arrive(&B->client, &B->s, q, B->p->client_cpu, sent);
}

static void new_request(rb *B)
{
    if (B->p->lim.max_pending && B->reqs.live >= B->p->lim.max_pending) {
        B->limit_hit = 1;
        sim_stop(&B->s);
        return;
    }
    rreq *q = sim_pool_get(&B->reqs);
    q->B = B;
    send_request(B, q);
}

static void arrival(sim *s, void *obj)
{
    (void)obj;
    rb *B = B_of(s);
    if (B->issued >= B->p->total)
        return;
    new_request(B);
    if (B->issued < B->p->total)
        sim_after(s, gsl_ran_exponential(B->r_arr, 1 / B->p->rate), 1, arrival, NULL);
}

static int replicate(const void *model, uint64_t seed, uint32_t rep, double *v, sim_err *err)
{
    const rbmodel *m = model;
    const tf_params *p = &m->p;
    rb *B = calloc(1, sizeof *B);
    assert(B && "out of memory");
    B->p = p;
    sim_init(&B->s, 1024);
    mdl_limits_apply(&p->lim, &B->s);
    B->r_client = sim_rng_new_kind(p->lim.rng, seed, rep, 0);
    B->r_redis = sim_rng_new_kind(p->lim.rng, seed, rep, 3);
    B->r_arr = sim_rng_new_kind(p->lim.rng, seed, rep, 6);
    B->r_wake = sim_rng_new_kind(p->lim.rng, seed, rep, 9);
    sim_ps_init(&B->host, p->cores);
    if (p->stacking > 0)
        sim_ps_set_stacking(&B->host, p->stacking);
    sim_station_init(&B->client, 1);
    if (p->client_on_host)
        sim_station_run_on(&B->client, &B->host);
    tf_redis_init(&B->redis, p, p->redis_on_host ? &B->host : NULL, B->r_wake);
    sim_pool_init(&B->reqs, sizeof(rreq), 256);
    sim_welford_init(&B->lat);
    sim_hist_init(&B->lat_h);
    B->open = p->mode == TF_MODE_POISSON;
    if (B->open) {
        sim_after(&B->s, gsl_ran_exponential(B->r_arr, 1 / p->rate), 1, arrival, NULL);
    } else if (p->session[0]) {
        B->nconn = p->concurrency;
        B->conn = calloc((size_t)B->nconn, sizeof *B->conn);
        assert(B->conn && "out of memory");
        for (long i = 0; i < B->nconn; i++) {
            B->conn[i] = sim_pool_get(&B->reqs);
            B->conn[i]->B = B;
        }
        start_sessions(B);
    } else {
        for (long i = 0; i < p->concurrency && i < p->total; i++)
            new_request(B);
    }
    int st = sim_run(&B->s, p->lim.max_sim_time);
    int rc = SIM_OK;
    if (B->limit_hit)
        st = SIM_RUN_MEMORY;
    if (st != SIM_RUN_STOPPED) {
        rc = mdl_check_run(st, rep, &p->lim, err);
        if (rc == SIM_OK)
            rc = sim_err_set(err, SIM_EFAIL, "replication %u: the simulation ran dry (a bug)", rep);
    }
    if (rc == SIM_OK) {
        double now = B->s.now;
        double *x = v + m->out0;
        x[O_THR] = B->t_last > 0 ? (double)B->done / B->t_last : NAN;
        x[O_MEAN] = B->lat.n ? B->lat.mean : NAN;
        x[O_P50] = sim_hist_quantile(&B->lat_h, 0.50);
        x[O_P90] = sim_hist_quantile(&B->lat_h, 0.90);
        x[O_P99] = sim_hist_quantile(&B->lat_h, 0.99);
        x[O_CLIENT] = sim_station_utilisation(&B->client, now);
        x[O_REDIS] = tf_redis_utilisation(&B->redis, now);
        x[O_REDIS_Q] = tf_redis_queue(&B->redis, now);
        x[O_IO] = tf_redis_threads_on(&B->redis, now);
        x[O_HOST] = sim_ps_utilisation(&B->host, now);
        x[O_CYC] = (double)B->redis.cycles;
        x[O_TCYC] = (double)B->redis.threaded_cycles;
        x[O_TW] = tf_redis_threaded_writes(&B->redis);
        x[O_EV] = (double)B->s.nevents;
    }
    tf_redis_fini(&B->redis);
    sim_station_fini(&B->client);
    sim_ps_fini(&B->host);
    free(B->conn);
    sim_pool_fini(&B->reqs);
    sim_hist_fini(&B->lat_h);
    gsl_rng_free(B->r_client);
    gsl_rng_free(B->r_redis);
    gsl_rng_free(B->r_arr);
    gsl_rng_free(B->r_wake);
    sim_fini(&B->s);
    free(B);
    return rc;
}

static void annotate(const void *model, const sim_layout *lay, const sim_rep_result *res,
                     sim_table *t, sim_table *notes)
{
    (void)lay;
    (void)res;
    (void)t;
    const rbmodel *m = model;
    const tf_params *p = &m->p;
    mdl_note(notes, "info",
             "redis-benchmark: %ld %s, %ld requests; Redis io-threads %ld (reads %s), %s, "
             "the threads start at %ld clients pending",
             p->mode == TF_MODE_POISSON ? 0 : p->concurrency,
             p->mode == TF_MODE_POISSON ? "clients (open loop)"
             : !p->session[0]          ? "clients (closed loop)"
             : p->mode == TF_MODE_WAVES ? "clients (waves of sessions)"
                                        : "clients (sessions, closed loop)",
             p->total, p->redis_io_threads, p->redis_io_do_reads ? "too" : "no",
             p->redis_on_host ? "on the host's cores" : "on cores of its own",
             p->redis_io_threads * p->redis_io_per_thread);
}

/* Lower bounds of one replication: every request is at least three events
 * (sent, at the server, its reply in) and the client's CPU on its loop. */
static int check_size(const void *model, const sim_cfg *cfg, const mdl_limits *lim, sim_err *err)
{
    const tf_params *p = &((const rbmodel *)model)->p;
    char why[160];
    snprintf(why, sizeof why, "%ld requests, each at least 3 events and its client CPU on one loop",
             p->total);
    return mdl_check_size(cfg, "client", "total", 3.0 * (double)p->total,
                          (double)p->total * p->client_cpu, why, lim, err);
}

const mdl_type mdl_redis_bench_type = {
    "redis_bench", "redis-benchmark against the Redis server of the tigerfans model (its keys)",
    tf_params_schema, setup, free_model, replicate, annotate, check_size,
};
