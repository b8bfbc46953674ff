#include "models/tf_sim.h"
#include "models/tf_prog.h"
#include "models/tf_pool.h"
#include "models/tf_redis.h"

#include <gsl/gsl_randist.h>

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "models/mdl.h"
#include "sim/sim.h"
#include "sim/sim_batcher.h"
#include "sim/sim_pool.h"
#include "sim/sim_ps.h"
#include "sim/sim_queue.h"
#include "sim/sim_rng.h"
#include "sim/sim_sem.h"
#include "sim/sim_stats.h"

const char *const tf_kind_names[TF_NKINDS] = {
    "accounting.hold",          "accounting.commit_order", "paymentsession.save",
    "paymentsession.get",       "paymentsession.fulfill",  "paymentsession.remove_pending",
    "db.add_order"};

const char *const tf_comp_names[TF_NCOMPS] = {"client_loop", "server_loop", "host_cpu",
                                              "db_gate",     "db_pool",     "postgres_cpu",
                                              "wal_flush",   "redis",       "tigerbeetle",
                                              "redis_io_threads"};

/* Backend CPU a hold's sum costs beyond a simple statement, with rows in
 * the holds table: its set-up plus its share (scan_fraction / 4 sums) of
 * the rows at row_cost each. */
static double sum_extra(const tf_params *p, double rows)
{
    return p->pg_sum_cpu + rows * p->pg_row_cost * p->pg_scan_fraction / 4;
}

void tf_sim_demand(const tf_params *p, int phase, tf_demand *d)
{
    tf_prog g[TF_EP_N];
    tf_prog_build(g, p);
    int ep = phase == TF_CHECKOUT ? TF_EP_CHECKOUT
             : phase == TF_WEBHOOK ? (p->succeed_rate > 0 ? TF_EP_WEBHOOK : TF_EP_WEBHOOK_FAIL)
             : phase == TF_RESERVE ? TF_EP_RESERVE
                                   : TF_EP_COMMIT;
    memset(d, 0, sizeof *d);
    d->client = (p->client_cpu + p->client_sent_cpu) * p->client_cpu_scale;
    d->latency = 2 * p->net_rtt / 2;
    for (int i = 0; i < g[ep].n; i++) {
        const tf_uop *u = &g[ep].u[i];
        switch (u->code) {
        case TF_U_CPU:
            d->server += u->cpu;
            break;
        case TF_U_PG: {
            double c = u->arg == TF_Q_COMMIT ? p->pg_commit_cpu : p->pg_query_cpu;
            if (u->arg == TF_Q_SUM)
                c += sum_extra(p, p->holds_rows);
            d->pg += c;
            d->latency += p->net_rtt + (u->arg == TF_Q_COMMIT ? sim_dist_mean(&p->pg_flush) : 0);
            break;
        }
        case TF_U_REDIS:
            d->redis += sim_dist_mean(&p->redis_service) + (u->arg == TF_R_SAVE ? p->redis_save_extra : 0);
            d->latency += p->net_rtt;
            break;
        case TF_U_SLEEP:
            d->latency += sim_dist_mean(&p->stub_latency);
            break;
        case TF_U_TB:
            d->latency += sim_dist_mean(&p->tb_base) + p->tb_per_transfer * u->arg;
            d->server += p->tb_batch_cpu;
            break;
        default:
            break;
        }
    }
}

/* ---- state ---- */

struct tfs;

typedef struct loop {
    struct tfs *T;
    sim_queue ready;   /* bursts waiting: obj = request (or NULL), fn = continuation */
    /* asyncio's passes (client/server.asyncio_passes; passes = 1): `ready`
     * is the pass under way, what its bursts schedule waits in `soon`,
     * arrivals (I/O, timers) in `io`; when `ready` is empty the next pass
     * is soon then io, and the last `hops` bursts of `ready` are arrivals
     * whose callback only schedules the burst (into soon) */
    int passes;
    sim_queue soon, io;
    size_t hops;
    int busy;
    long live;         /* requests on this loop (crowding) */
    double crowding;
    sim_dist_buf *shape; /* its bursts' CPU factors (server.cpu_shape), drawn ahead */
    int on_host;
    sim_job cur;
    double cur_start, cur_cost;
    double cpu;        /* CPU seconds of the bursts finished so far */
    sim_tavg busy_t, queue_t;
    /* Wake-ups: a burst that arrives while the loop is idle (not running,
     * nothing ready, not inside a burst's continuation) first pays `wake`
     * CPU (the thread slept; on a VM its vCPU halted).  next_wake: the
     * wake-up the next burst started pays; cur_wake: the running one's. */
    double wake, next_wake, cur_wake;
    /* client.cold: the first burst of CPU after the loop idled pays its CPU
     * times cold (1 - e^(-gap / cold_tau)) more, gap: from idle_t (its last
     * burst ended with nothing ready) to the wake-up (cold_due set then) */
    double cold, cold_tau, idle_t, cold_gap;
    int cold_due;
    int in_cont;
    /* wake_affine: statements whose backend was woken on this loop's core
     * while it ran (obj = request); they start when the burst ends */
    sim_queue stacked;
    int hold;          /* > 0: queue bursts without starting them (client_hold) */
    /* CPU a burst adds when it starts, from the state it then finds (the
     * client's pool passes, the server's cold code paths); NULL: none */
    double (*at_start)(struct loop *l, const sim_job *j);
    double path_last[TF_NPATHS]; /* when each code path last started on it (server.cold) */
} loop;

typedef struct worker {
    loop lp;
    sim_sem gate, pool;
    sim_sem rlock;     /* redis-py's connection pool lock (redis.pool_lock) */
    sim_batcher tb;
} worker;

#define MAX_MARKS 8

typedef struct req {
    struct tfs *T;
    const tf_prog *g;
    int pc, ep, phase, w;
    double t0;          /* client start */
    double kind_t0;
    int newconn, soldout, cancel_sent, goodie, rollback;
    tf_pool_req pr;     /* its place in the client's connection pool */
    int claim;          /* outcome of its last claim (tf_pool_claim) */
    long turns;         /* loop turns left before its claim */
    long sturns;        /* server loop turns left in a TF_U_TURNS step */
    long lock_conn;     /* the connection whose lock it holds for its claim */
    int pass_kind;      /* httpcore 0.16: the pass it holds the pool lock for (PASS_*) */
    sim_fn after;       /* the burst after its turns (turns_then) */
    double after_cost;
    int cls;            /* ticket class */
    int locks;          /* bit 0: ticket class row, bit 1: goodie row */
    int nmarks;
    double mark_off[MAX_MARKS];
    int mark_code[MAX_MARKS], mark_kind[MAX_MARKS];
    int wave;
    int awake;          /* the next burst finds the loop's core awake (no wake-up) */
    double path_cpu[TF_NPATHS]; /* its queued server burst's nominal CPU per code path
                                   (kept only with server.cold) */
    int sent_busy;      /* its loop had more to run when it sent its Redis command */
    int txn_sums;       /* its transaction ran sums (since its BEGIN) */
    int timer_late;     /* its stub timer waits for its sleeping loop's poll (timer_due) */
} req;

typedef struct tfs {
    sim s;              /* first member: callbacks recover tfs from the sim */
    const tf_params *p;
    tf_prog g[TF_EP_N];
    gsl_rng *r_client, *r_server, *r_pg, *r_redis, *r_tb, *r_flush, *r_arr, *r_hook, *r_wake;
    /* samples drawn ahead from streams that nothing else draws from:
     * server.cpu_shape of the client's bursts (r_client) and of the
     * workers' (r_server, shared by their loops), postgres.jitter (r_pg) */
    sim_dist_buf client_shape, server_shape, pg_jitter;
    sim_ps host;
    loop client;
    worker *w;
    long nworkers, next_worker;
    tf_redis redis;     /* on the host's CPU when redis_on_host */
    sim_batcher wal;
    sim_pool reqs;
    /* the client's connection pool (a new client every phase) */
    tf_pool pool;
    /* httpcore 0.16's pool lock (an anyio Lock around every pass): held,
     * and the requests waiting for it (FIFO, obj = request) */
    int plock;
    sim_queue plock_wait;
    double pool_passes, pool_retries, pool_conns;  /* totals over the phases */
    /* the load generator's costs on this machine (x client.cpu_scale) */
    double c_cpu, c_sent, c_connect, c_pool, c_pool_conn, c_pool_idle, c_pool_poll, c_pool_req;
    long inflight, inflight_max, wave_overlaps;
    int limit_hit;      /* stopped: too many requests in flight (run.max_pending) */
    /* database state */
    double rows, tickets, goodies;
    sim_sem *class_lock;  /* one per ticket class (row locks) */
    sim_sem goodie_lock;
    gsl_rng *r_class;
    uint64_t rollbacks;
    /* load generator */
    int phase;          /* current phase, or TF_NPHASES when done */
    long issued, done, wave_left;
    double phase_t0;
    /* statistics */
    sim_welford lat_w[TF_NPHASES];
    sim_hist lat_h[TF_NPHASES];
    double ok[TF_NPHASES], errors[TF_NPHASES], wall[TF_NPHASES];
    /* the loops' busy time: its integral at the phase's start (client,
     * servers summed), and its share of each phase's time */
    double busy_a0[2], busy[2][TF_NPHASES];
    double ppass[TF_NPHASES], pconn[TF_NPHASES], pidle[TF_NPHASES]; /* the pool per phase */
    sim_welford kind[TF_NKINDS];
    sim_tavg pg_busy;
    double cpu[3][TF_NPHASES];  /* CPU seconds of the client's, the servers' bursts, and
                                   PostgreSQL's statements (started in the phase) */
    long pg_running;
    double pg_cpu;     /* backend CPU given so far, s */
    long stacked;
    double wal_wait;   /* flushes' waits for a core so far, s (postgres.flush_wait) */
    sim_queue tails;   /* flushed COMMITs waiting to run their tail (commit_tail) */
    int tail_busy;     /* a COMMIT's tail is running */
} tfs;

/* ---- event loops ---- */

/* loop_start, loop_run and step run at every burst: always inlined into
 * their callers (GCC -O2 kept them out of line; issue 18: TigerFans pg_pg
 * at concurrency 100 about 3% less CPU time; inlining the PostgreSQL
 * path's helpers as well gained nothing more). */
#define TF_HOT static inline __attribute__((always_inline))

TF_HOT void loop_start(loop *l);
static void pg_start(sim *s, void *obj);
static void client_turn(sim *s, void *obj);
static void client_claimed(sim *s, void *obj);
static void server_turn(sim *s, void *obj);

static void loop_burst_done(sim *s, void *obj)
{
    loop *l = obj;
    l->busy = 0;
    l->cpu += l->cur_cost;
    sim_tavg_set(&l->busy_t, l->T->s.now, 0);
    /* the loop yields its core: the backends stacked on it run (before the
     * loop takes its next burst: they find that core free) */
    sim_job b;
    while (sim_queue_pop(&l->stacked, &b))
        pg_start(s, b.obj);
    sim_job j = l->cur;
    l->in_cont = 1; /* what the continuation queues finds the loop awake */
    if (j.fn)
        j.fn(&l->T->s, j.obj);
    l->in_cont = 0;
    if (!l->busy)
        loop_start(l);
    if (!l->busy) {
        l->idle_t = l->T->s.now;
        tf_redis_waker_idle(&l->T->redis, s, l); /* it sleeps: Redis woken on its core runs */
    }
}

/* A loop or a backend on the host wakes up: Redis's spinning threads may
 * take turns (host.sched_wake_slice); nothing at all while it is 0. */
static void host_wake(tfs *T)
{
    if (T->p->redis_on_host && T->p->sched_wake_slice > 0)
        tf_redis_host_wake(&T->redis, &T->s);
}

/* Bursts queued on the loop: ready, and with passes the next pass's. */
static inline size_t loop_pending(const loop *l)
{
    return sim_queue_len(&l->ready) + sim_queue_len(&l->soon) + sim_queue_len(&l->io);
}

/* asyncio's next pass (`ready` is empty): what the last one scheduled,
 * then the arrivals since, each as its callback's hop.  O(queued). */
static void loop_next_pass(loop *l)
{
    sim_job j;
    while (sim_queue_pop(&l->soon, &j))
        sim_queue_push(&l->ready, j);
    l->hops = sim_queue_len(&l->io);
    while (sim_queue_pop(&l->io, &j))
        sim_queue_push(&l->ready, j);
}

TF_HOT void loop_start(loop *l)
{
    tfs *T = l->T;
    sim_job j;
    while (!l->busy && !l->hold) {
        if (l->passes && sim_queue_len(&l->ready) == 0)
            loop_next_pass(l);
        if (!sim_queue_pop(&l->ready, &j))
            break;
        if (sim_queue_len(&l->ready) < l->hops) {
            /* an arrival's callback (the protocol's data_received, a
             * timer's): it wakes its task for the next pass */
            l->hops--;
            sim_queue_push(&l->soon, j);
            continue;
        }
        sim_tavg_set(&l->queue_t, T->s.now, (double)loop_pending(l));
        l->busy = 1;
        double nominal = j.x + (l->at_start ? l->at_start(l, &j) : 0);
        if (l->cold_due && nominal > 0) {
            nominal *= 1 + l->cold * -expm1(-l->cold_gap / l->cold_tau);
            l->cold_due = 0;
        }
        if (nominal == 0 && l->next_wake == 0 &&
            (j.fn == client_turn || j.fn == client_claimed || j.fn == server_turn)) {
            /* a yield of the client's pool code or of redis-py's (no CPU): its continuation
             * runs now, as a burst of no length would, without an event */
            l->cur = j;
            l->cur_start = T->s.now;
            l->cur_cost = 0;
            l->in_cont = 1;
            if (j.fn)
                j.fn(&T->s, j.obj);
            l->in_cont = 0;
            l->busy = 0;
            continue;
        }
        sim_tavg_set(&l->busy_t, T->s.now, 1);
        double cost = nominal * (1 + l->crowding * (double)l->live);
        if (cost > 0)
            cost *= sim_dist_buf_next(l->shape);
        l->cur_wake = l->next_wake;
        l->next_wake = 0;
        cost += l->cur_wake;
        if (T->phase < TF_NPHASES)
            T->cpu[l == &T->client ? 0 : 1][T->phase] += cost;
        l->cur = j;
        l->cur_start = T->s.now;
        l->cur_cost = cost;
        if (l->on_host)
            sim_ps_submit_favoured(&T->host, &T->s, l, cost, loop_burst_done);
        else
            sim_after(&T->s, cost, 0, loop_burst_done, l);
        return;
    }
}

/* Queue a burst of nominal CPU `cost`; fn(s, obj) runs when it is done.
 * front: the coroutine keeps the loop (runs before other ready bursts);
 * awake: the loop's core is known to be awake (no wake-up even if idle). */
TF_HOT void loop_run(loop *l, void *obj, double cost, sim_fn fn, int front, int awake)
{
    sim_job j = {obj, fn, l->T->s.now, cost};
    if (!l->busy && !l->in_cont && loop_pending(l) == 0) {
        if (!awake) {
            l->next_wake = l->wake;
            if (l->on_host)
                host_wake(l->T);
        }
        if (l->cold > 0 && !l->cold_due) {
            l->cold_gap = l->T->s.now - l->idle_t;
            l->cold_due = 1;
        }
    }
    if (front)
        sim_queue_push_front(&l->ready, j);
    else if (!l->passes)
        sim_queue_push(&l->ready, j);
    else
        sim_queue_push(l->in_cont ? &l->soon : &l->io, j);
    sim_tavg_set(&l->queue_t, l->T->s.now, (double)loop_pending(l));
    loop_start(l);
}

/* server.cold: the extra CPU of a server burst from how long each code
 * path it runs has not run on this loop (never: fully cold); the paths it
 * runs are warm from now.  Bursts that are not a request's step (the
 * batcher's flush, a connection's accept) run none.  O(TF_NPATHS). */
static double server_at_start(loop *l, const sim_job *j)
{
    const tf_params *p = l->T->p;
    const req *r = j->obj;
    if (!r)
        return 0;
    const double now = l->T->s.now;
    double extra = 0;
    for (int c = 0; c < TF_NPATHS; c++)
        if (r->path_cpu[c] > 0) {
            extra += r->path_cpu[c] * p->cold * -expm1(-(now - l->path_last[c]) / p->cold_tau);
            l->path_last[c] = now;
        }
    return extra;
}

static void loop_init(loop *l, tfs *T, double crowding, double wake, sim_dist_buf *shape,
                      int on_host, int passes)
{
    memset(l, 0, sizeof *l);
    l->T = T;
    l->wake = wake;
    l->passes = passes;
    sim_queue_init(&l->ready, 64);
    sim_queue_init(&l->soon, passes ? 64 : 1);
    sim_queue_init(&l->io, passes ? 64 : 1);
    sim_queue_init(&l->stacked, 8);
    l->crowding = crowding;
    l->shape = shape;
    l->on_host = on_host;
    sim_tavg_init(&l->busy_t, 0, 0);
    sim_tavg_init(&l->queue_t, 0, 0);
}

/* ---- the request interpreter ---- */

TF_HOT void step(tfs *T, req *r, int on_loop);
static void client_done(tfs *T, req *r);

static inline tfs *T_of(sim *s) { return (tfs *)s; }

static void record_kind(tfs *T, int kind, double dt) { sim_welford_add(&T->kind[kind], dt); }

/* Apply the kind marks of the burst that just ended, at their place in it
 * (after its wake-up, if it had one). */
static void apply_marks(tfs *T, req *r, const loop *l)
{
    double stretch = 0, t0 = l->cur_start;
    double nominal = l->cur.x;
    if (nominal > 0)
        stretch = (T->s.now - l->cur_start) / nominal;
    if (l->cur_wake > 0) {
        /* time per unit of CPU, times the step's multiplier */
        double per = (T->s.now - l->cur_start) / l->cur_cost;
        t0 += l->cur_wake * per;
        stretch = nominal > 0 ? per * (l->cur_cost - l->cur_wake) / nominal : 0;
    }
    for (int i = 0; i < r->nmarks; i++) {
        double t = t0 + r->mark_off[i] * stretch;
        if (r->mark_code[i] == TF_U_KB)
            r->kind_t0 = t;
        else
            record_kind(T, r->mark_kind[i], t - r->kind_t0);
    }
    r->nmarks = 0;
}

static void after_burst(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    apply_marks(T, r, &T->w[r->w].lp);
    step(T, r, 1);
}

static void resume(sim *s, void *obj) { step(T_of(s), obj, 0); }

/* The stub's asyncio.sleep comes due.  If its loop sleeps (nothing to
 * run), the loop is in its poll, whose timeout was set when it went to
 * sleep (idle_t) to that timer's due time rounded up to
 * server.timer_resolution: the timer fires then, server.timer_slack
 * later.  A busy loop finds it at its next turn. */
static void timer_due(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    const loop *l = &T->w[r->w].lp;
    const double res = T->p->timer_resolution;
    if (!r->timer_late && !l->busy && loop_pending(l) == 0 &&
        (res > 0 || T->p->timer_slack > 0)) {
        double wait = s->now - l->idle_t, fire = s->now + T->p->timer_slack;
        if (res > 0)
            fire = l->idle_t + ceil(wait / res * (1 - 1e-12)) * res + T->p->timer_slack;
        if (fire > s->now) {
            r->timer_late = 1;
            sim_after(s, fire - s->now, 0, timer_due, r);
            return;
        }
    }
    resume(s, r);
}

/* One turn of a TF_U_TURNS step ends (a burst of no CPU at the back of the
 * server loop's ready queue): the next turn, or the program goes on. */
static void server_turn(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    if (--r->sturns > 0)
        loop_run(&T->w[r->w].lp, r, 0, server_turn, 0, 0);
    else
        step(T, r, 1);
}

/* ---- PostgreSQL ---- */

static double pg_cost(tfs *T, req *r, int q)
{
    const tf_params *p = T->p;
    double c = p->pg_query_cpu;
    r->txn_sums = tf_q_txn_sums(q, r->txn_sums);
    switch (q) {
    case TF_Q_SUM:
        c += sum_extra(p, T->rows);
        break;
    case TF_Q_INSERT_TICKET:
        if (T->tickets >= 1) {
            T->tickets--;
            T->rows++;
        } else {
            r->soldout = 1;
        }
        break;
    case TF_Q_INSERT_GOODIE:
        if (T->goodies >= 1 && !r->soldout) {
            T->goodies--;
            T->rows++;
        }
        break;
    case TF_Q_ORDER:
        /* Once goodies are gone, holds carry goodie id '0' and the order
         * INSERT fails on a duplicate: the transaction rolls back. */
        r->rollback = T->goodies < 1 && T->p->payments == TF_PG;
        break;
    case TF_Q_COMMIT:
        /* with commit_tail a COMMIT's CPU runs after the flush (tail_start) */
        c = p->pg_commit_tail && !r->rollback ? 0 : p->pg_commit_cpu;
        break;
    default:
        break;
    }
    return c * sim_dist_buf_next(&T->pg_jitter);
}

/* A backend that starts or ends work now finds a CPU idle (it halted and
 * is woken): a host core idle with the backends on the host, else no
 * backend running. */
static int pg_core_idle(const tfs *T)
{
    return T->p->pg_on_host ? sim_ps_present(&T->host) < T->host.cores : T->pg_running == 0;
}

static void pg_reply(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    sim_after(s, T->p->net_rtt / 2, 0, resume, r);
}

/* Row locks are released when the transaction ends (commit or rollback). */
static void release_locks(tfs *T, req *r)
{
    if (r->locks & 1)
        sim_sem_release(&T->class_lock[r->cls], &T->s);
    if (r->locks & 2)
        sim_sem_release(&T->goodie_lock, &T->s);
    r->locks = 0;
}

/* A backend runs c seconds of CPU for r (on the host's cores, or a core
 * of its own), counted as PostgreSQL's; done(s, r) when it has, which
 * calls pg_ran first. */
static void pg_run(sim *s, tfs *T, req *r, double c, sim_fn done)
{
    T->pg_cpu += c;
    if (T->phase < TF_NPHASES)
        T->cpu[2][T->phase] += c;
    T->pg_running++;
    sim_tavg_set(&T->pg_busy, s->now, (double)T->pg_running);
    if (T->p->pg_on_host) {
        host_wake(T); /* the backend wakes for the work */
        sim_ps_submit(&T->host, s, r, c, done);
    } else {
        sim_after(s, c, 0, done, r);
    }
}

static void pg_ran(sim *s, tfs *T)
{
    T->pg_running--;
    sim_tavg_set(&T->pg_busy, s->now, (double)T->pg_running);
}

/* The COMMIT is done (its flush, and with commit_tail its tail): the
 * locks go; a COMMIT after sums whose backend finds a host core idle (it
 * halted during the flush after a busy spell) wakes postgres.commit_wake
 * later. */
static void commit_reply(sim *s, tfs *T, req *r)
{
    release_locks(T, r);
    const tf_params *p = T->p;
    if (p->pg_commit_wake > 0 && r->txn_sums && pg_core_idle(T)) {
        sim_after(s, p->pg_commit_wake + p->net_rtt / 2, 0, resume, r);
        return;
    }
    pg_reply(s, r);
}

/* postgres.commit_tail: a COMMIT's backend CPU runs after its flush, and
 * the COMMITs one flush served run theirs one after another (the flush's
 * waiters wake together and take turns for a core): T->tails holds those
 * waiting, T->tail_busy says one runs. */
static void tail_start(sim *s, tfs *T, req *r);

static void tail_done(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    pg_ran(s, T);
    T->tail_busy = 0;
    sim_job j;
    if (sim_queue_pop(&T->tails, &j))
        tail_start(s, T, j.obj);
    commit_reply(s, T, r);
}

static void tail_start(sim *s, tfs *T, req *r)
{
    T->tail_busy = 1;
    pg_run(s, T, r, T->p->pg_commit_cpu * sim_dist_buf_next(&T->pg_jitter), tail_done);
}

/* The flush is done. */
static void pg_flushed(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    if (T->p->pg_commit_tail) {
        if (T->tail_busy) {
            sim_job j = {r, NULL, s->now, 0};
            sim_queue_push(&T->tails, j);
        } else {
            tail_start(s, T, r);
        }
        return;
    }
    commit_reply(s, T, r);
}

static void pg_backend_done(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    pg_ran(s, T);
    const tf_uop *u = &r->g->u[r->pc - 1];
    if (u->arg == TF_Q_COMMIT && !r->rollback) {
        sim_batcher_submit(&T->wal, s, r, 1, pg_flushed);
        return;
    }
    if (u->arg == TF_Q_COMMIT)
        release_locks(T, r);
    pg_reply(s, r);
}

static void pg_execute(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    const tf_uop *u = &r->g->u[r->pc - 1];
    double c = pg_cost(T, r, u->arg);
    /* an idle CPU wakes up for the statement: one of the host's cores is
     * idle (backends on the host), or else no backend is running */
    if (pg_core_idle(T))
        c += T->p->pg_wake_cpu;
    else if (T->p->pg_on_host && T->p->pg_busy_cost > 0)
        c *= 1 + T->p->pg_busy_cost;
    pg_run(s, T, r, c, pg_backend_done);
}

/* The backend runs the statement; SELECT ... FOR UPDATE first waits for
 * the row lock (held by another transaction until it ends). */
static void pg_start(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    const tf_uop *u = &r->g->u[r->pc - 1];
    if (T->p->row_locks && (u->arg == TF_Q_LOCK_TICKET || u->arg == TF_Q_LOCK_GOODIE)) {
        int bit = u->arg == TF_Q_LOCK_TICKET ? 1 : 2;
        sim_sem *lock = bit == 1 ? &T->class_lock[r->cls] : &T->goodie_lock;
        r->locks |= bit;
        if (!sim_sem_acquire(lock, s, r, pg_execute))
            return;
    }
    pg_execute(s, r);
}

/* A statement reaches its backend.  wake_affine: if its loop is running a
 * burst and no host core is idle, Linux wakes the backend on the loop's
 * core (a synchronous wake-up), where it waits until the burst ends. */
static void pg_arrive(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    loop *l = &T->w[r->w].lp;
    if (T->p->wake_affine && T->p->pg_on_host && l->busy && sim_ps_present(&T->host) >= T->host.cores) {
        sim_job j = {r, NULL, s->now, 0};
        sim_queue_push(&l->stacked, j);
        T->stacked++;
        return;
    }
    pg_start(s, r);
}

/* A flush that starts with threads waiting for a host core (the host's
 * jobs beyond its cores) takes postgres.flush_wait longer per waiting
 * thread: its backend waits behind them for a core after the disk. */
static double wal_latency(void *ctx, unsigned items)
{
    (void)items;
    tfs *T = ctx;
    double x = sim_dist_sample(&T->p->pg_flush, T->r_flush);
    if (T->p->pg_flush_wait > 0 && T->p->pg_on_host) {
        double q = sim_ps_present(&T->host) - T->host.cores;
        if (q > 0) {
            x += q * T->p->pg_flush_wait;
            T->wal_wait += q * T->p->pg_flush_wait;
        }
    }
    return x;
}

/* ---- Redis ---- */

static void redis_done(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    /* on the host, Redis ran on the core its loop slept on: no wake-up */
    r->awake = T->p->redis_on_host;
    sim_after(s, T->p->net_rtt / 2, 0, resume, r);
}

static void redis_arrive(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    const tf_uop *u = &r->g->u[r->pc - 1];
    double x = sim_dist_sample(&T->p->redis_service, T->r_redis);
    if (u->arg == TF_R_SAVE)
        x += T->p->redis_save_extra;
    loop *l = &T->w[r->w].lp;
    tf_redis_arrive_from(&T->redis, s, r, x, redis_done, l, r->sent_busy,
                         l->busy || loop_pending(l) > 0);
}

/* ---- TigerBeetle ---- */

static double tb_latency(void *ctx, unsigned items)
{
    tfs *T = ((loop *)ctx)->T;
    return sim_dist_sample(&T->p->tb_base, T->r_tb) + T->p->tb_per_transfer * items;
}

static void tb_done(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    const tf_uop *u = &r->g->u[r->pc - 1];
    /* A hold that found no ticket voids the goodie's pending transfer. */
    if (u->arg == 2 && r->soldout && !r->cancel_sent && T->w[r->w].tb.cap >= 1) {
        r->cancel_sent = 1;
        sim_batcher_submit(&T->w[r->w].tb, s, r, 1, tb_done);
        return;
    }
    resume(s, r);
}

static void tb_batch_done(void *ctx, unsigned items, double latency)
{
    (void)items;
    (void)latency;
    loop *l = ctx;
    /* the auto-batcher's flush task runs on the worker's loop */
    loop_run(l, NULL, l->T->p->tb_batch_cpu, NULL, 0, 0);
}

/* ---- interpreter ---- */

/* The worker's semaphore a TF_U_*_ACQ / _REL step takes or gives back:
 * the DB gate, the SQLAlchemy pool, redis-py's pool lock. */
static inline sim_sem *worker_sem(worker *w, int code)
{
    switch (code) {
    case TF_U_GATE_ACQ:
    case TF_U_GATE_REL:
        return &w->gate;
    case TF_U_POOL_ACQ:
    case TF_U_POOL_REL:
        return &w->pool;
    default:
        assert(code == TF_U_RLOCK_ACQ || code == TF_U_RLOCK_REL);
        return &w->rlock;
    }
}

static void sem_granted(sim *s, void *obj)
{
    req *r = obj;
    step(T_of(s), r, 0);
}

TF_HOT void step(tfs *T, req *r, int on_loop)
{
    const tf_params *p = T->p;
    worker *w = &T->w[r->w];
    double cpu = 0;
    const int paths = p->cold > 0; /* server.cold reads the burst's paths */
    r->nmarks = 0;
    if (paths)
        memset(r->path_cpu, 0, sizeof r->path_cpu);
    for (;;) {
        const tf_uop *u = &r->g->u[r->pc];
        if (u->code == TF_U_CPU) {
            cpu += u->cpu;
            if (paths)
                r->path_cpu[u->arg] += u->cpu;
            r->pc++;
            continue;
        }
        if (u->code == TF_U_JSOLD) {
            r->pc = r->soldout ? u->arg : r->pc + 1;
            continue;
        }
        if (u->code == TF_U_KB || u->code == TF_U_KE) {
            assert(r->nmarks < MAX_MARKS);
            r->mark_off[r->nmarks] = cpu;
            r->mark_code[r->nmarks] = u->code;
            r->mark_kind[r->nmarks] = u->arg;
            r->nmarks++;
            r->pc++;
            continue;
        }
        /* a yield point or a semaphore: finish the CPU first */
        if (cpu > 0 || !on_loop) {
            loop_run(&w->lp, r, cpu, after_burst, on_loop, r->awake);
            r->awake = 0;
            return;
        }
        /* marks with no CPU before them happen now */
        for (int i = 0; i < r->nmarks; i++) {
            if (r->mark_code[i] == TF_U_KB)
                r->kind_t0 = T->s.now;
            else
                record_kind(T, r->mark_kind[i], T->s.now - r->kind_t0);
        }
        r->nmarks = 0;
        r->pc++;
        switch (u->code) {
        case TF_U_GATE_ACQ:
        case TF_U_POOL_ACQ:
        case TF_U_RLOCK_ACQ:
            /* a waiter resumes at the back of the loop's queue (sem_granted) */
            if (!sim_sem_acquire(worker_sem(w, u->code), &T->s, r, sem_granted))
                return;
            continue;
        case TF_U_GATE_REL:
        case TF_U_POOL_REL:
        case TF_U_RLOCK_REL:
            sim_sem_release(worker_sem(w, u->code), &T->s);
            continue;
        case TF_U_PG:
            sim_after(&T->s, p->net_rtt / 2, 0, pg_arrive, r);
            return;
        case TF_U_REDIS:
            /* the loop has more to run: Redis, woken on its core, waits */
            r->sent_busy = w->lp.busy || loop_pending(&w->lp) > 0;
            sim_after(&T->s, p->net_rtt / 2, 0, redis_arrive, r);
            return;
        case TF_U_TB:
            if (u->arg == 2 && (r->ep == TF_EP_CHECKOUT || r->ep == TF_EP_RESERVE)) {
                /* a hold: the ticket account decides sold-out */
                if (T->tickets >= 1)
                    T->tickets--;
                else
                    r->soldout = 1;
                if (!r->soldout && T->goodies >= 1)
                    T->goodies--;
            }
            sim_batcher_submit(&w->tb, &T->s, r, (unsigned)u->arg, tb_done);
            return;
        case TF_U_SLEEP: {
            /* asyncio.sleep(0) is a bare yield, no timer: with passes the
             * task's next step waits for the next pass (call_soon), else
             * for the burst queued at once; a delay arms a timer */
            double x = sim_dist_sample(&p->stub_latency, T->r_tb);
            if (x == 0 && w->lp.passes) {
                on_loop = 0;
                continue;
            }
            r->timer_late = 0;
            sim_after(&T->s, x, 0, x > 0 ? timer_due : resume, r);
            return;
        }
        case TF_U_TURNS:
            assert(u->arg > 0);
            r->sturns = u->arg;
            /* a reply's turns (server.io_turns): the loop is as awake as
             * the burst after the reply would have found it */
            loop_run(&w->lp, r, 0, server_turn, 0, r->awake);
            r->awake = 0;
            return;
        case TF_U_END:
            w->lp.live--;
            client_done(T, r);
            return;
        default:
            assert(0 && "bad micro-op");
            return;
        }
    }
}

/* ---- client (load generator) ----
 *
 * TigerFans' load generator (bench/load_phases.py) opens a new
 * httpx.AsyncClient per phase with Limits(max_connections=C,
 * max_keepalive_connections=C): every connection is kept alive for the
 * whole phase.  Its httpcore pool (tf_pool) is run on the client loop:
 *   start     build the request (client.cpu / 2), enter the pool, pass;
 *   claim     client.pool_yields loop turns later (anyio Event.wait's
 *             checkpoint, then the connection's two anyio locks) the
 *             request checks its connection: IDLE -> send; NEW -> connect
 *             (client.connect_cpu, a round trip) and send; taken by another
 *             request -> back to the queue and another pass;
 *   response  read it (client.cpu / 2), release the connection, pass.
 * A pass costs pool_cpu + n (pool_conn_cpu + idle pool_idle_cpu) + idle
 * pool_poll_cpu with the pool's n connections and idle ones when the burst
 * starts: httpcore walks every connection at every pass, polls the socket
 * of every idle one, and counts all of them once for every idle one.
 * With client.httpcore = 0.16 (Debian 12) every pass is its own burst
 * under a simulated pool lock (plock_acquire: a turn to take a free lock,
 * two for a hand-over), a start's or a retry's pass assigns only its own
 * request (tf_pool_pass_one), the response's pass comes after the release,
 * and the request is done only then (client_finish). */

static void phase_next_request(tfs *T);
static void start_phase(tfs *T);

static void server_arrive(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    r->w = (int)(T->next_worker++ % T->nworkers);
    worker *w = &T->w[r->w];
    w->lp.live++;
    r->pc = 0;
    /* uvicorn accepts a new connection on the worker's loop */
    if (r->newconn)
        loop_run(&w->lp, r, T->p->connect_cpu_server, after_burst, 0, 0);
    else
        step(T, r, 0);
}

static double client_cost(tfs *T, double base)
{
    return base * (1 + T->p->client_crowding * (double)T->inflight);
}

static req *req_of_preq(tf_pool_req *pr) { return (req *)((char *)pr - offsetof(req, pr)); }

/* The CPU of a pool pass with the pool's state now (before the pass). */
static double pool_cost(const tfs *T)
{
    double n = (double)T->pool.n, idle = (double)T->pool.idle, live = (double)T->pool.live;
    return T->c_pool + n * (T->c_pool_conn + idle * T->c_pool_idle) + idle * T->c_pool_poll +
           live * T->c_pool_req;
}

/* One pool pass, priced with the pool's state before it. */
static double pool_pass(tfs *T, const tf_pool_req *caller)
{
    double cost = pool_cost(T);
    tf_pool_pass(&T->pool, caller, T->s.now);
    return cost;
}

static void client_started(sim *s, void *obj);
static void client_turn(sim *s, void *obj);
static void client_claimed(sim *s, void *obj);
static void client_sent(sim *s, void *obj);
static void client_received(sim *s, void *obj);
static void client_pass(sim *s, void *obj);

/* httpcore 0.16's passes, each under the pool lock */
enum { PASS_START = 1, PASS_RETRY, PASS_RELEASE };

/* After n more turns of the client loop (the coroutine yields: it goes
 * to the back of the loop's ready queue), run a burst of `cost` whose end
 * calls fn. */
static void turns_then(tfs *T, req *r, long n, double cost, sim_fn fn)
{
    r->turns = n;
    r->after = fn;
    r->after_cost = cost;
    if (n > 0)
        loop_run(&T->client, r, 0, client_turn, 0, 0);
    else
        loop_run(&T->client, r, cost, fn, 0, 0);
}

/* A request the pool assigned a connection takes the connection's lock
 * (or waits for it) and checks it client.pool_yields loop turns later. */
static void claim_later(tfs *T, req *r)
{
    if (!tf_pool_lock(&T->pool, &r->pr))
        return; /* tf_pool_unlock hands it the lock */
    turns_then(T, r, T->p->pool_yields - 1, 0, client_claimed);
}

/* A burst's continuation queues what follows while the client loop is
 * held, then lets it run: a burst that ran at once (a yield runs its
 * continuation without an event) could make another pool pass before the
 * requests the first pass assigned are queued. */
static void client_hold(tfs *T) { T->client.hold++; }

static void client_release(tfs *T)
{
    assert(T->client.hold > 0);
    if (--T->client.hold == 0)
        loop_start(&T->client);
}

/* Queue the claims of the requests the last pass assigned (the loop must
 * be held since that pass). */
static void wake_assigned(tfs *T)
{
    assert(T->client.hold > 0);
    tf_pool *p = &T->pool;
    for (long i = 0; i < p->nwoken; i++)
        claim_later(T, req_of_preq(p->woken[i]));
    p->nwoken = 0;
}

/* The client loop's bursts make their pool moves when they start. */
static double client_at_start(loop *l, const sim_job *j)
{
    tfs *T = l->T;
    req *r = j->obj;
    if (!r)
        return 0;
    int h016 = T->p->httpcore016;
    if (j->fn == client_started) {
        if (h016)
            return 0; /* its pass comes with the pool lock */
        tf_pool_enter(&T->pool, &r->pr);
        return pool_pass(T, &r->pr);
    }
    if (j->fn == client_claimed) {
        r->lock_conn = r->pr.conn;
        r->claim = tf_pool_claim(&T->pool, &r->pr);
        if (r->claim == 2)
            return T->c_connect;
        if (r->claim == 1 || h016)
            return 0;
        return pool_pass(T, &r->pr); /* ConnectionNotAvailable: retry */
    }
    if (j->fn == client_received) {
        tf_pool_release(&T->pool, &r->pr, T->s.now);
        return h016 ? 0 : pool_pass(T, NULL);
    }
    if (j->fn == client_pass) {
        if (r->pass_kind == PASS_START)
            tf_pool_enter(&T->pool, &r->pr); /* _requests.append, then the pass */
        double cost = pool_cost(T);
        if (r->pass_kind == PASS_RELEASE)
            tf_pool_pass(&T->pool, NULL, T->s.now); /* every waiting request */
        else
            tf_pool_pass_one(&T->pool, &r->pr, T->s.now); /* its own request only */
        return cost;
    }
    return 0;
}

/* httpcore 0.16: take the pool lock for a pass of this kind.  anyio's
 * Lock.acquire yields once when it takes a free lock (still holding it);
 * a waiter is handed the lock at a release, then wakes (a turn) and passes
 * a checkpoint (another) before its pass. */
static void plock_acquire(tfs *T, req *r, int kind)
{
    r->pass_kind = kind;
    if (T->plock) {
        sim_queue_push(&T->plock_wait, (sim_job){r, client_pass, T->s.now, 0});
        return;
    }
    T->plock = 1;
    turns_then(T, r, 0, 0, client_pass);
}

static void plock_release(tfs *T)
{
    assert(T->plock);
    sim_job w;
    if (sim_queue_pop(&T->plock_wait, &w))
        turns_then(T, w.obj, 1, 0, client_pass); /* the lock is now w's */
    else
        T->plock = 0;
}

static void client_finish(tfs *T, req *r);

/* httpcore 0.16: a pass under the pool lock is done (its CPU was the
 * burst's, priced in client_at_start). */
static void client_pass(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    client_hold(T);
    plock_release(T);
    if (r->pass_kind == PASS_RELEASE) {
        wake_assigned(T); /* the waiting requests this response's pass assigned */
        client_finish(T, r);
    } else if (r->pr.state == TF_PREQ_ASSIGNED) {
        claim_later(T, r);
    } /* else a response's pass will assign it a connection */
    client_release(T);
}

static void client_started(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    if (T->p->httpcore016) {
        plock_acquire(T, r, PASS_START);
        return;
    }
    client_hold(T);
    wake_assigned(T);
    if (r->pr.state == TF_PREQ_ASSIGNED)
        claim_later(T, r);
    /* else it waits for a pass to assign it a connection */
    client_release(T);
}

static void client_turn(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    if (--r->turns > 0)
        loop_run(&T->client, r, 0, client_turn, 0, 0);
    else
        loop_run(&T->client, r, r->after_cost, r->after, 0, 0);
}

/* The request is written (client.send_yields turns after its claim). */
static void client_sent(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    sim_after(s, T->p->net_rtt * (r->newconn ? 1.5 : 0.5), 0, server_arrive, r);
}

/* The request's bytes leave at its write (anyio's send: a checkpoint, then
 * the socket write); its coroutine runs one more turn, client.sent_cpu,
 * before it waits for the response (strace of the load generator: one
 * loop turn between the write and the blocking epoll_wait), while the
 * server already works on the request. */
static void client_write(sim *s, void *obj)
{
    tfs *T = T_of(s);
    client_sent(s, obj);
    if (T->c_sent > 0)
        loop_run(&T->client, NULL, T->c_sent, NULL, 0, 1);
}

static void client_claimed(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    client_hold(T);
    if (r->claim == 0 && !T->p->httpcore016)
        wake_assigned(T); /* what its retry's pass assigned */
    /* the next request waiting for this connection's lock checks it in its
     * next turn */
    tf_pool_req *w = tf_pool_unlock(&T->pool, r->lock_conn);
    if (w)
        loop_run(&T->client, req_of_preq(w), 0, client_claimed, 0, 0);
    switch (r->claim) {
    case 2: /* connected (one more round trip), then written */
    case 1:
        r->newconn = r->claim == 2;
        if (T->p->send_yields > 0)
            turns_then(T, r, T->p->send_yields, 0, client_write);
        else
            client_sent(s, r);
        break;
    default:
        if (T->p->httpcore016)
            plock_acquire(T, r, PASS_RETRY); /* ConnectionNotAvailable: retry */
        else if (r->pr.state == TF_PREQ_ASSIGNED)
            claim_later(T, r);
        break;
    }
    client_release(T);
}

static void client_start(tfs *T, int ep)
{
    if (T->p->lim.max_pending && T->reqs.live >= T->p->lim.max_pending) {
        /* requests in flight wait in queues, not in the calendar: bound
         * their memory with the same limit */
        T->limit_hit = 1;
        sim_stop(&T->s);
        return;
    }
    req *r = sim_pool_get(&T->reqs);
    r->T = T;
    r->ep = ep;
    r->g = &T->g[ep];
    r->phase = T->phase;
    r->t0 = T->s.now;
    r->cls = (int)gsl_rng_uniform_int(T->r_class, (unsigned long)T->p->classes);
    r->pr.conn = -1;
    memset(r->path_cpu, 0, sizeof r->path_cpu); /* its accept burst runs no path */
    T->inflight++;
    if (T->inflight > T->inflight_max)
        T->inflight_max = T->inflight;
    T->issued++;
    loop_run(&T->client, r, client_cost(T, T->c_cpu / 2), client_started, 0, 0);
}

static void client_received(sim *s, void *obj)
{
    tfs *T = T_of(s);
    req *r = obj;
    if (T->p->httpcore016) {
        plock_acquire(T, r, PASS_RELEASE); /* its connection is IDLE: the pool's pass */
        return;
    }
    client_hold(T);
    wake_assigned(T);
    client_finish(T, r);
    client_release(T);
}

/* The request is done for the load generator (its connection released);
 * the loop is held. */
static void client_finish(tfs *T, req *r)
{
    double lat = T->s.now - r->t0;
    int ph = r->phase;
    if (r->soldout) {
        T->errors[ph]++;
    } else {
        T->ok[ph]++;
        sim_welford_add(&T->lat_w[ph], lat);
        sim_hist_add(&T->lat_h[ph], lat);
    }
    if (r->rollback)
        T->rollbacks++;
    T->inflight--;
    T->done++;
    sim_pool_put(&T->reqs, r);
    phase_next_request(T);
}

static void response_arrives(sim *s, void *obj)
{
    tfs *T = T_of(s);
    turns_then(T, obj, T->p->recv_yields, client_cost(T, T->c_cpu / 2), client_received);
}

static void client_done(tfs *T, req *r) { sim_after(&T->s, T->p->net_rtt / 2, 0, response_arrives, r); }

/* ---- load generator ---- */

static int phase_ep(tfs *T)
{
    switch (T->phase) {
    case TF_CHECKOUT:
        return TF_EP_CHECKOUT;
    case TF_WEBHOOK:
        return gsl_rng_uniform(T->r_hook) < T->p->succeed_rate ? TF_EP_WEBHOOK : TF_EP_WEBHOOK_FAIL;
    case TF_RESERVE:
        return TF_EP_RESERVE;
    default:
        return TF_EP_COMMIT;
    }
}

static void start_wave(tfs *T)
{
    long n = T->p->concurrency;
    if (n > T->p->total - T->issued)
        n = T->p->total - T->issued;
    T->wave_left = n;
    if (T->inflight > 0)
        T->wave_overlaps++;
    for (long i = 0; i < n; i++)
        client_start(T, phase_ep(T));
}

static void poisson_arrival(sim *s, void *obj)
{
    (void)obj;
    tfs *T = T_of(s);
    if (T->issued >= T->p->total)
        return;
    client_start(T, phase_ep(T));
    if (T->issued < T->p->total)
        sim_after(s, gsl_ran_exponential(T->r_arr, 1 / T->p->rate), 1, poisson_arrival, NULL);
}

static void think_over(sim *s, void *obj)
{
    (void)obj;
    tfs *T = T_of(s);
    if (T->issued < T->p->total)
        client_start(T, phase_ep(T));
}

/* The integral of the client loop's busy flag, and of the server loops'
 * summed, up to now. */
static void busy_areas(tfs *T, double a[2])
{
    a[0] = sim_tavg_area(&T->client.busy_t, T->s.now);
    a[1] = 0;
    for (long i = 0; i < T->nworkers; i++)
        a[1] += sim_tavg_area(&T->w[i].lp.busy_t, T->s.now);
}

static void end_phase(sim *s, void *obj)
{
    (void)obj;
    tfs *T = T_of(s);
    T->wall[T->phase] = s->now - T->phase_t0;
    double a[2];
    busy_areas(T, a);
    for (int l = 0; l < 2; l++)
        T->busy[l][T->phase] = T->wall[T->phase] > 0 ? (a[l] - T->busy_a0[l]) / T->wall[T->phase] /
                                                           (l ? (double)T->nworkers : 1)
                                                     : NAN;
    /* the pool's counters are the phase's until start_phase resets them;
     * passes as httpcore's housekeeping counts them (0.16 runs it at a
     * start and a close, not at a retry) */
    double np = (double)T->pool.passes, nr = T->ok[T->phase] + T->errors[T->phase];
    double nh = np - (T->p->httpcore016 ? (double)T->pool.retries : 0);
    T->ppass[T->phase] = nr > 0 ? nh / nr : NAN;
    T->pconn[T->phase] = np > 0 ? T->pool.sum_n / np : NAN;
    T->pidle[T->phase] = np > 0 ? T->pool.sum_idle / np : NAN;
    T->phase++;
    start_phase(T);
}

static void phase_next_request(tfs *T)
{
    const tf_params *p = T->p;
    if (T->done >= p->total) {
        /* the next phase starts after the current event (all callbacks done) */
        sim_after(&T->s, 0, 2, end_phase, NULL);
        return;
    }
    switch (p->phase_mode[T->phase]) {
    case TF_MODE_WINDOW:
        if (T->issued < p->total)
            client_start(T, phase_ep(T));
        break;
    case TF_MODE_WAVES:
        if (--T->wave_left == 0 && T->issued < p->total)
            start_wave(T);
        break;
    case TF_MODE_CLOSED:
        if (T->issued < p->total)
            sim_after(&T->s, sim_dist_sample(&p->think, T->r_arr), 1, think_over, NULL);
        break;
    default: /* poisson: arrivals are already scheduled */
        break;
    }
}

static void start_phase(tfs *T)
{
    const tf_params *p = T->p;
    while (T->phase < TF_NPHASES && !p->phase_on[T->phase])
        T->phase++;
    if (T->phase >= TF_NPHASES) {
        sim_stop(&T->s);
        return;
    }
    T->issued = T->done = 0;
    T->phase_t0 = T->s.now;
    busy_areas(T, T->busy_a0);
    /* every phase opens a new client: no connection yet */
    T->pool_passes += (double)T->pool.passes;
    T->pool_retries += (double)T->pool.retries;
    T->pool_conns += (double)T->pool.created;
    assert(!T->plock && sim_queue_len(&T->plock_wait) == 0 && "no pass outlives its phase");
    tf_pool_reset(&T->pool);
    long c = p->concurrency < p->total ? p->concurrency : p->total;
    switch (p->phase_mode[T->phase]) {
    case TF_MODE_WAVES:
        start_wave(T);
        break;
    case TF_MODE_POISSON:
        sim_after(&T->s, gsl_ran_exponential(T->r_arr, 1 / p->rate), 1, poisson_arrival, NULL);
        break;
    default: /* window and closed start with c requests in flight */
        for (long i = 0; i < c; i++)
            client_start(T, phase_ep(T));
        break;
    }
}

/* ---- results ---- */

static void collect(tfs *T, tf_out *o)
{
    const tf_params *p = T->p;
    double now = T->s.now;
    memset(o, 0, sizeof *o);
    for (int i = 0; i < TF_NPHASES; i++) {
        tf_phase_out *ph = &o->phase[i];
        if (!p->phase_on[i]) {
            ph->throughput = ph->walltime = ph->mean = ph->p50 = ph->p90 = ph->p99 = ph->cpu_client =
                ph->cpu_server = ph->cpu_pg = ph->busy_client = ph->busy_server = ph->pool_passes =
                    ph->pool_conns = ph->pool_idle = NAN;
            continue;
        }
        ph->walltime = T->wall[i];
        ph->ok = T->ok[i];
        ph->errors = T->errors[i];
        ph->throughput = T->wall[i] > 0 ? T->ok[i] / T->wall[i] : NAN;
        ph->mean = T->lat_w[i].n ? T->lat_w[i].mean : NAN;
        ph->p50 = sim_hist_quantile(&T->lat_h[i], 0.50);
        ph->p90 = sim_hist_quantile(&T->lat_h[i], 0.90);
        ph->p99 = sim_hist_quantile(&T->lat_h[i], 0.99);
        double n = T->ok[i] + T->errors[i];
        ph->cpu_client = n > 0 ? T->cpu[0][i] / n : NAN;
        ph->cpu_server = n > 0 ? T->cpu[1][i] / n : NAN;
        ph->cpu_pg = n > 0 ? T->cpu[2][i] / n : NAN;
        ph->busy_client = T->busy[0][i];
        ph->busy_server = T->busy[1][i];
        ph->pool_passes = T->ppass[i];
        ph->pool_conns = T->pconn[i];
        ph->pool_idle = T->pidle[i];
    }
    for (int k = 0; k < TF_NKINDS; k++) {
        o->kind_n[k] = (double)T->kind[k].n;
        o->kind_mean[k] = T->kind[k].n ? T->kind[k].mean : NAN;
        o->kind_sd[k] = T->kind[k].n ? sim_welford_sd(&T->kind[k]) : NAN;
    }
    double nw = (double)T->nworkers;
    for (int i = 0; i < TF_NCOMPS; i++)
        o->cores[i] = NAN;
    o->util[TF_C_CLIENT] = sim_tavg_mean(&T->client.busy_t, now);
    o->queue[TF_C_CLIENT] = sim_tavg_mean(&T->client.queue_t, now);
    if (p->client_on_host)
        o->cores[TF_C_CLIENT] = now > 0 ? T->client.cpu / now : NAN;
    double server_cpu = 0;
    for (long i = 0; i < T->nworkers; i++) {
        worker *w = &T->w[i];
        server_cpu += w->lp.cpu;
        o->util[TF_C_SERVER] += sim_tavg_mean(&w->lp.busy_t, now) / nw;
        o->queue[TF_C_SERVER] += sim_tavg_mean(&w->lp.queue_t, now) / nw;
        o->util[TF_C_GATE] += sim_tavg_mean(&w->gate.busy, now) / (double)w->gate.permits / nw;
        o->queue[TF_C_GATE] += sim_tavg_mean(&w->gate.nwait, now) / nw;
        o->util[TF_C_POOL] += sim_tavg_mean(&w->pool.busy, now) / (double)w->pool.permits / nw;
        o->queue[TF_C_POOL] += sim_tavg_mean(&w->pool.nwait, now) / nw;
        o->batches += (double)w->tb.batches;
    }
    o->cores[TF_C_SERVER] = now > 0 ? server_cpu / now : NAN;
    o->util[TF_C_HOST] = sim_ps_utilisation(&T->host, now);
    o->queue[TF_C_HOST] = sim_tavg_mean(&T->host.njobs, now);
    o->cores[TF_C_HOST] = sim_tavg_mean(&T->host.nbusy, now);
    /* PostgreSQL: the backends' CPU as a share of the host's cores (they
     * have no capacity of their own: any number runs at once); off the
     * host they are pure delays, limited by nothing the model knows */
    o->util[TF_C_PGCPU] = NAN;
    if (p->pg_on_host && now > 0) {
        o->cores[TF_C_PGCPU] = T->pg_cpu / now;
        o->util[TF_C_PGCPU] = T->pg_cpu / now / p->cores;
    }
    o->queue[TF_C_PGCPU] = sim_tavg_mean(&T->pg_busy, now);
    o->util[TF_C_WAL] = NAN;
    o->queue[TF_C_WAL] = NAN;
    if (T->wal.batches) {
        /* busy share: flushes x mean flush time (and their waits for a
         * core) / elapsed */
        o->util[TF_C_WAL] = ((double)T->wal.batches * sim_dist_mean(&p->pg_flush) + T->wal_wait) / now;
        o->queue[TF_C_WAL] = T->wal.size.mean;
    }
    o->util[TF_C_REDIS] = tf_redis_utilisation(&T->redis, now);
    o->queue[TF_C_REDIS] = tf_redis_queue(&T->redis, now);
    o->util[TF_C_REDIS_IO] = tf_redis_threads_on(&T->redis, now);
    o->queue[TF_C_REDIS_IO] = sim_tavg_mean(&T->redis.hogs.waiting, now);
    /* Redis on the host: the CPU of all its threads (commands, and with
     * I/O threads the spinning), what the host's cores gave beyond the
     * loops and the backends */
    if (p->redis_on_host && now > 0) {
        double others = o->cores[TF_C_SERVER] + (isnan(o->cores[TF_C_CLIENT]) ? 0 : o->cores[TF_C_CLIENT]) +
                        (isnan(o->cores[TF_C_PGCPU]) ? 0 : o->cores[TF_C_PGCPU]);
        double rest = o->cores[TF_C_HOST] - others;
        o->cores[TF_C_REDIS] = rest > 0 ? rest : 0;
    }
    /* TigerBeetle: batches in flight over time (one at most per worker) */
    sim_welford bs;
    sim_welford_init(&bs);
    double tb_busy = 0;
    for (long i = 0; i < T->nworkers; i++) {
        sim_welford_merge(&bs, &T->w[i].tb.size);
        tb_busy += (double)T->w[i].tb.batches * (sim_dist_mean(&p->tb_base) +
                                                 p->tb_per_transfer * T->w[i].tb.size.mean);
    }
    o->util[TF_C_TB] = bs.n ? tb_busy / now / nw : NAN;
    o->queue[TF_C_TB] = NAN;
    o->batch_mean = bs.n ? bs.mean : NAN;
    o->batch_sd = bs.n ? sim_welford_sd(&bs) : NAN;
    o->rollbacks = (double)T->rollbacks;
    o->holds_rows_end = T->rows;
    o->events = (double)T->s.nevents;
    for (long i = 0; i < T->nworkers; i++) {
        if (T->w[i].gate.max_in_use > o->gate_max)
            o->gate_max = T->w[i].gate.max_in_use;
        if (T->w[i].pool.max_in_use > o->pool_max)
            o->pool_max = T->w[i].pool.max_in_use;
    }
    o->gate_permits = p->gate;
    o->stacked = T->stacked;
    {
        double n = 0;
        for (int i = 0; i < TF_NPHASES; i++)
            n += T->ok[i] + T->errors[i];
        double passes = T->pool_passes + (double)T->pool.passes;
        double retries = T->pool_retries + (double)T->pool.retries;
        double conns = T->pool_conns + (double)T->pool.created;
        o->pool_passes = n > 0 ? passes / n : NAN;
        o->pool_retries = n > 0 ? retries / n : NAN;
        o->pool_conns = conns;
    }
    o->redis_threaded_writes = tf_redis_threaded_writes(&T->redis);
    o->pool_permits = p->pool_size + p->pool_overflow;
    o->inflight_max = T->inflight_max;
    o->wave_overlaps = T->wave_overlaps;
}

static void free_state(tfs *T)
{
    for (long i = 0; i < T->nworkers; i++) {
        worker *w = &T->w[i];
        sim_queue_fini(&w->lp.ready);
        sim_queue_fini(&w->lp.soon);
        sim_queue_fini(&w->lp.io);
        sim_queue_fini(&w->lp.stacked);
        sim_sem_fini(&w->gate);
        sim_sem_fini(&w->pool);
        sim_sem_fini(&w->rlock);
        sim_batcher_fini(&w->tb);
    }
    free(T->w);
    sim_queue_fini(&T->client.ready);
    sim_queue_fini(&T->client.soon);
    sim_queue_fini(&T->client.io);
    sim_queue_fini(&T->client.stacked);
    sim_queue_fini(&T->plock_wait);
    sim_queue_fini(&T->tails);
    sim_ps_fini(&T->host);
    tf_redis_fini(&T->redis);
    sim_batcher_fini(&T->wal);
    sim_pool_fini(&T->reqs);
    tf_pool_fini(&T->pool);
    for (int i = 0; i < TF_NPHASES; i++)
        sim_hist_fini(&T->lat_h[i]);
    for (long i = 0; i < T->p->classes; i++)
        sim_sem_fini(&T->class_lock[i]);
    free(T->class_lock);
    sim_sem_fini(&T->goodie_lock);
    gsl_rng *rs[] = {T->r_client, T->r_server, T->r_pg,   T->r_redis, T->r_tb,
                     T->r_flush,  T->r_arr,    T->r_hook, T->r_class, T->r_wake};
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
        gsl_rng_free(rs[i]);
    sim_fini(&T->s);
    free(T);
}

/* ---- one replication ---- */

int tf_sim_run(const tf_params *p, uint64_t seed, uint32_t rep, tf_out *out, sim_err *err)
{
    tfs *T = calloc(1, sizeof *T);
    assert(T && "out of memory");
    T->p = p;
    tf_prog_build(T->g, p);
    sim_init(&T->s, 1024);
    mdl_limits_apply(&p->lim, &T->s);
    T->r_client = sim_rng_new_kind(p->lim.rng, seed, rep, 0);
    T->r_server = sim_rng_new_kind(p->lim.rng, seed, rep, 1);
    T->r_pg = sim_rng_new_kind(p->lim.rng, seed, rep, 2);
    T->r_redis = sim_rng_new_kind(p->lim.rng, seed, rep, 3);
    T->r_tb = sim_rng_new_kind(p->lim.rng, seed, rep, 4);
    T->r_flush = sim_rng_new_kind(p->lim.rng, seed, rep, 5);
    T->r_arr = sim_rng_new_kind(p->lim.rng, seed, rep, 6);
    T->r_hook = sim_rng_new_kind(p->lim.rng, seed, rep, 7);
    T->r_class = sim_rng_new_kind(p->lim.rng, seed, rep, 8);
    T->r_wake = sim_rng_new_kind(p->lim.rng, seed, rep, 9);
    T->class_lock = calloc((size_t)p->classes, sizeof *T->class_lock);
    assert(T->class_lock && "out of memory");
    for (long i = 0; i < p->classes; i++)
        sim_sem_init(&T->class_lock[i], 1);
    sim_sem_init(&T->goodie_lock, 1);
    sim_ps_init(&T->host, p->cores);
    if (p->stacking > 0)
        sim_ps_set_stacking(&T->host, p->stacking);
    sim_ps_set_weight(&T->host, p->loop_weight);
    /* the streams of these samples are drawn from nowhere else (drawn ahead) */
    sim_dist_buf_init(&T->client_shape, &p->cpu_shape, T->r_client);
    sim_dist_buf_init(&T->server_shape, &p->cpu_shape, T->r_server);
    sim_dist_buf_init(&T->pg_jitter, &p->pg_jitter, T->r_pg);
    loop_init(&T->client, T, 0, 0, &T->client_shape, p->client_on_host, p->client_passes);
    T->client.at_start = client_at_start;
    T->client.cold = p->client_cold;
    T->client.cold_tau = p->client_cold_tau;
    T->c_cpu = p->client_cpu * p->client_cpu_scale;
    T->c_sent = p->client_sent_cpu * p->client_cpu_scale;
    T->c_connect = p->connect_cpu_client * p->client_cpu_scale;
    T->c_pool = p->pool_cpu * p->client_cpu_scale;
    T->c_pool_conn = p->pool_conn_cpu * p->client_cpu_scale;
    /* httpcore 0.16 does not count the pool for every idle connection */
    T->c_pool_idle = p->httpcore016 ? 0 : p->pool_idle_cpu * p->client_cpu_scale;
    T->c_pool_poll = p->pool_poll_cpu * p->client_cpu_scale;
    T->c_pool_req = p->pool_req_cpu * p->client_cpu_scale;
    sim_queue_init(&T->plock_wait, 64);
    sim_queue_init(&T->tails, 16);
    /* Limits(C, C); every request of a window or wave can be in the pool */
    tf_pool_init(&T->pool, p->max_connections > 0 ? p->max_connections : p->concurrency,
                 p->concurrency < p->total ? p->concurrency : p->total, p->keepalive_expiry);
    tf_pool_set_mru(&T->pool, p->httpcore016);
    T->nworkers = p->workers;
    T->w = calloc((size_t)p->workers, sizeof *T->w);
    assert(T->w && "out of memory");
    for (long i = 0; i < p->workers; i++) {
        worker *w = &T->w[i];
        loop_init(&w->lp, T, p->crowding, p->wake_cpu, &T->server_shape, 1, p->server_passes);
        if (p->cold > 0) {
            w->lp.at_start = server_at_start;
            for (int c = 0; c < TF_NPATHS; c++)
                w->lp.path_last[c] = -INFINITY;
        }
        sim_sem_init(&w->gate, p->gate);
        sim_sem_init(&w->pool, p->pool_size + p->pool_overflow);
        sim_sem_init(&w->rlock, 1);
        sim_batcher_init(&w->tb, (unsigned)p->tb_batch_max, tb_latency, &w->lp);
        w->tb.on_done = tb_batch_done;
    }
    tf_redis_init(&T->redis, p, p->redis_on_host ? &T->host : NULL, T->r_wake);
    sim_batcher_init(&T->wal, 1u << 30, wal_latency, T);
    sim_pool_init(&T->reqs, sizeof(req), 256);
    for (int i = 0; i < TF_NPHASES; i++) {
        sim_welford_init(&T->lat_w[i]);
        sim_hist_init(&T->lat_h[i]);
    }
    for (int i = 0; i < TF_NKINDS; i++)
        sim_welford_init(&T->kind[i]);
    sim_tavg_init(&T->pg_busy, 0, 0);
    T->rows = p->holds_rows;
    T->tickets = p->tickets;
    T->goodies = p->goodies;

    start_phase(T);
    int st = sim_run(&T->s, p->lim.max_sim_time);
    int rc = SIM_OK;
    if (T->limit_hit)
        st = SIM_RUN_MEMORY;
    if (st != SIM_RUN_STOPPED) {
        rc = mdl_check_run(st, rep, &p->lim, err);
        if (rc == SIM_OK)
            rc = sim_err_set(err, SIM_EFAIL, "replication %u: the simulation ran dry in phase %s "
                             "(a bug)", rep, tf_phase_names[T->phase < TF_NPHASES ? T->phase : 0]);
    }
    if (rc == SIM_OK)
        collect(T, out);
    free_state(T);
    return rc;
}
