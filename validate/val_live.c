#include "validate/val_live.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_rep.h"
#include "sim/sim_stats.h"

const char *const val_live_class_names[VAL_LIVE_NCLASS] = {
    "pg.ping",   "pg.begin",  "pg.select", "pg.lock_ticket", "pg.lock_goodie", "pg.sum",
    "pg.insert_ticket", "pg.insert_goodie", "pg.update", "pg.insert", "pg.order", "pg.commit",
    "redis.save", "redis.get", "redis.fulfill1", "redis.fulfill2", "redis.remove"};

void val_live_opts_init(val_live_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cpu_scale = 1;
}

#define NONE UINT_MAX

typedef struct lreq {
    const tf_prog *g;
    int ep, phase, pc;
    int kind;              /* open kind timer, or -1 */
    int nth[TF_Q_COMMIT + 1]; /* calls per op (PG query or Redis op) in the open kind */
    uint64_t index, id;
    int cls, soldout;
    long long cap, used;   /* the resource the hold is reading */
    long long *holds;      /* [2]: made (hold) or to post (commit_order, order) */
    unsigned conn;         /* pool connection held, or NONE */
    int call_class;        /* class of the round trip in flight, or -1 */
    int txn_sums;          /* its transaction ran sums (since its BEGIN) */
    double t0, kind_t0, t_call;
    long long value;       /* reply of the last round trip */
} lreq;

/* FIFO of request slots (each slot is at most once in a ring). */
typedef struct ring {
    unsigned *v, cap, head, len;
} ring;

static void ring_init(ring *r, unsigned cap)
{
    r->v = malloc(cap * sizeof *r->v);
    assert(r->v && "out of memory");
    r->cap = cap;
    r->head = r->len = 0;
}

static void ring_push(ring *r, unsigned x)
{
    assert(r->len < r->cap);
    r->v[(r->head + r->len++) % r->cap] = x;
}

static unsigned ring_pop(ring *r)
{
    assert(r->len > 0);
    unsigned x = r->v[r->head];
    r->head = (r->head + 1) % r->cap;
    r->len--;
    return x;
}

typedef struct sema {
    long permits, in_use, max_in_use;
    ring wait;
} sema;

/* The ready queue: coroutines in the order they became ready (time; at
 * the same instant wake-ups before new requests, which come through the
 * client; then first come first), a binary heap (each slot at most once). */
typedef struct rentry {
    double t;
    int late;
    uint64_t seq;
    unsigned slot;
} rentry;

typedef struct rqueue {
    rentry *v;
    unsigned len, cap;
    uint64_t seq;
} rqueue;

static int rq_less(const rentry *a, const rentry *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    return a->late != b->late ? a->late < b->late : a->seq < b->seq;
}

static void rq_push(rqueue *q, double t, int late, unsigned slot)
{
    assert(q->len < q->cap);
    unsigned i = q->len++;
    rentry x = {t, late, q->seq++, slot};
    while (i > 0 && rq_less(&x, &q->v[(i - 1) / 2])) {
        q->v[i] = q->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->v[i] = x;
}

static unsigned rq_pop(rqueue *q)
{
    assert(q->len > 0);
    unsigned slot = q->v[0].slot;
    rentry x = q->v[--q->len];
    unsigned i = 0;
    for (;;) {
        unsigned c = 2 * i + 1;
        if (c >= q->len)
            break;
        if (c + 1 < q->len && rq_less(&q->v[c + 1], &q->v[c]))
            c++;
        if (!rq_less(&q->v[c], &x))
            break;
        q->v[i] = q->v[c];
        i = c;
    }
    if (q->len > 0)
        q->v[i] = x;
    return slot;
}

struct val_live {
    const tf_params *p;
    const val_live_opts *o;
    const val_live_io *io;
    tf_prog g[TF_EP_N];
    unsigned nslots;
    lreq *r;
    unsigned *free_slots, nfree;
    rqueue ready;
    sema gate, pool;
    unsigned *free_conns, nconns_free;
    long long *holds_co, *holds_rs;  /* 2 per request of the checkout / reserve phase */
    /* load generator */
    int phase;             /* current phase, TF_NPHASES when done */
    long issued, done, wave_left, inflight;
    double phase_t0;
    /* statistics */
    sim_welford lat_w[TF_NPHASES];
    sim_hist lat_h[TF_NPHASES];
    double ok[TF_NPHASES], errors[TF_NPHASES], wall[TF_NPHASES];
    int ran[TF_NPHASES];
    sim_welford kind[TF_NKINDS], pkind[TF_NPHASES][TF_NKINDS];
    sim_welford cls_w[VAL_LIVE_NCLASS], commit_sums_w;
    double spin, rows, t_start;
    long inflight_max, wave_overlaps;
    uint64_t calls;
    uint64_t idle_waits;  /* waits for I/O with nothing ready */
    long pg_inflight;     /* PostgreSQL statements sent, reply not yet read */
    uint64_t pg_alone;    /* statements sent while no other was in flight */
};

unsigned val_live_slots(const tf_params *p)
{
    return (unsigned)(p->concurrency < p->total ? p->concurrency : p->total);
}

unsigned val_live_pool_size(const tf_params *p)
{
    long n = p->pool_size + p->pool_overflow;
    if (p->gate < n)
        n = p->gate;
    if ((long)val_live_slots(p) < n)
        n = (long)val_live_slots(p);
    return (unsigned)n;
}

int val_live_check(const tf_params *p, sim_err *err)
{
    if (p->accounting == TF_TB)
        return sim_err_set(err, SIM_EINPUT,
                           "architecture.accounting = tb: the live driver needs a TigerBeetle "
                           "server for that, which this build does not drive; use accounting = pg "
                           "(pg_pg, pg_redis)");
    if (p->accounting == TF_STUB)
        return sim_err_set(err, SIM_EINPUT,
                           "architecture.accounting = stub: the stand-in server is measured with "
                           "`tfsim probe http`, not with the live driver");
    if (p->workers != 1)
        return sim_err_set(err, SIM_EINPUT, "server.workers = %ld: the live driver has one event "
                           "loop (workers = 1)", p->workers);
    for (int i = 0; i < TF_NPHASES; i++)
        if (p->phase_on[i] && p->phase_mode[i] != TF_MODE_WINDOW && p->phase_mode[i] != TF_MODE_WAVES)
            return sim_err_set(err, SIM_EINPUT,
                               "client.mode: the live driver runs the modes benchmark, window and "
                               "waves (not poisson or closed)");
    if (p->total > VAL_LIVE_MAX_TOTAL)
        return sim_err_set(err, SIM_EINPUT, "client.total: %ld is above the live driver's limit %ld",
                           p->total, VAL_LIVE_MAX_TOTAL);
    return SIM_OK;
}

/* ---- semaphores: FIFO, yield only when they must wait ---- */

static void sema_init(sema *s, long permits, unsigned slots)
{
    s->permits = permits;
    s->in_use = s->max_in_use = 0;
    ring_init(&s->wait, slots);
}

/* Take a permit for slot i now (1) or queue it (0). */
static int sema_acquire(sema *s, unsigned i)
{
    if (s->in_use < s->permits) {
        if (++s->in_use > s->max_in_use)
            s->max_in_use = s->in_use;
        return 1;
    }
    ring_push(&s->wait, i);
    return 0;
}

/* Release a permit: the first waiter gets it (returned) or NONE. */
static unsigned sema_release(sema *s)
{
    if (s->wait.len > 0)
        return ring_pop(&s->wait);
    s->in_use--;
    assert(s->in_use >= 0);
    return NONE;
}

/* ---- the load generator ---- */

static void start_phase(val_live *e);

static int phase_ep(const val_live *e, uint64_t index)
{
    switch (e->phase) {
    case TF_CHECKOUT:
        return TF_EP_CHECKOUT;
    case TF_WEBHOOK: {
        /* the same share of failed payments as the simulator, spread evenly */
        double s = e->p->succeed_rate;
        return floor((double)(index + 1) * s) > floor((double)index * s) ? TF_EP_WEBHOOK
                                                                         : TF_EP_WEBHOOK_FAIL;
    }
    case TF_RESERVE:
        return TF_EP_RESERVE;
    default:
        return TF_EP_COMMIT;
    }
}

static void client_start(val_live *e)
{
    assert(e->nfree > 0);
    unsigned i = e->free_slots[--e->nfree];
    lreq *r = &e->r[i];
    uint64_t index = (uint64_t)e->issued++;
    memset(r, 0, sizeof *r);
    r->ep = phase_ep(e, index);
    r->g = &e->g[r->ep];
    r->phase = e->phase;
    r->index = index;
    r->kind = -1;
    r->conn = NONE;
    r->call_class = -1;
    r->t0 = e->io->now(e->io->ctx);
    r->cls = (int)(index % (uint64_t)e->p->classes);
    /* Orders are numbered by the request that made them: webhook i posts
     * what checkout i held, commit i what reserve i held. */
    int reserve_side = e->phase == TF_RESERVE || e->phase == TF_COMMIT;
    r->id = 1 + index + (reserve_side ? (uint64_t)e->p->total : 0);
    r->holds = (reserve_side ? e->holds_rs : e->holds_co) + 2 * index;
    if (++e->inflight > e->inflight_max)
        e->inflight_max = e->inflight;
    rq_push(&e->ready, r->t0, 1, i);
}

static void start_wave(val_live *e)
{
    long n = e->p->concurrency;
    if (n > e->p->total - e->issued)
        n = e->p->total - e->issued;
    e->wave_left = n;
    if (e->inflight > 0)
        e->wave_overlaps++;
    for (long k = 0; k < n; k++)
        client_start(e);
}

static void end_phase(val_live *e)
{
    double now = e->io->now(e->io->ctx);
    e->wall[e->phase] = now - e->phase_t0;
    e->ran[e->phase] = 1;
    if (e->io->phase_end)
        e->io->phase_end(e->io->ctx, e->phase);
    if (e->o->progress)
        e->o->progress(e->o->progress_ctx, e->phase, e->ok[e->phase], e->wall[e->phase]);
    e->phase++;
    start_phase(e);
}

static void start_phase(val_live *e)
{
    const tf_params *p = e->p;
    while (e->phase < TF_NPHASES && !p->phase_on[e->phase])
        e->phase++;
    if (e->phase >= TF_NPHASES)
        return;
    e->issued = e->done = 0;
    e->phase_t0 = e->io->now(e->io->ctx);
    if (p->phase_mode[e->phase] == TF_MODE_WAVES) {
        start_wave(e);
    } else {
        long c = (long)val_live_slots(p);
        for (long k = 0; k < c; k++)
            client_start(e);
    }
}

static void client_done(val_live *e, unsigned i)
{
    lreq *r = &e->r[i];
    int ph = r->phase;
    double lat = e->io->now(e->io->ctx) - r->t0;
    if (r->soldout) {
        e->errors[ph]++;
    } else {
        e->ok[ph]++;
        sim_welford_add(&e->lat_w[ph], lat);
        sim_hist_add(&e->lat_h[ph], lat);
    }
    assert(r->conn == NONE);
    e->inflight--;
    e->done++;
    e->free_slots[e->nfree++] = i;
    if (e->done >= e->p->total) {
        end_phase(e);
        return;
    }
    if (e->p->phase_mode[ph] == TF_MODE_WINDOW) {
        if (e->issued < e->p->total)
            client_start(e);
    } else if (--e->wave_left == 0 && e->issued < e->p->total) {
        start_wave(e);
    }
}

/* ---- the interpreter ---- */

static void give_conn(val_live *e, unsigned i)
{
    assert(e->nconns_free > 0);
    e->r[i].conn = e->free_conns[--e->nconns_free];
}

/* Run request i until its next await.  Returns SIM_OK or the backend's error. */
static int run(val_live *e, unsigned i, sim_err *err)
{
    const val_live_io *io = e->io;
    lreq *r = &e->r[i];
    if (r->call_class >= 0) {
        /* a round trip ended: take what it returned */
        const tf_uop *u = &r->g->u[r->pc - 1];
        if (u->code == TF_U_PG) {
            switch (u->arg) {
            case TF_Q_LOCK_TICKET:
            case TF_Q_LOCK_GOODIE:
                r->cap = r->value;
                r->used = 0;
                break;
            case TF_Q_SUM:
                r->used += r->value;
                break;
            case TF_Q_INSERT_TICKET:
                r->holds[0] = r->value;
                e->rows++;
                break;
            case TF_Q_INSERT_GOODIE:
                r->holds[1] = r->value;
                e->rows++;
                break;
            default:
                break;
            }
        }
        r->call_class = -1;
    }
    for (;;) {
        const tf_uop *u = &r->g->u[r->pc++];
        switch (u->code) {
        case TF_U_CPU: {
            double c = e->o->cpu_scale * u->cpu + e->o->cpu_per_step;
            if (c > 0) {
                io->spin(io->ctx, c);
                e->spin += c;
            }
            continue;
        }
        case TF_U_KB:
            r->kind = u->arg;
            r->kind_t0 = io->now(io->ctx);
            memset(r->nth, 0, sizeof r->nth);
            continue;
        case TF_U_KE: {
            double dt = io->now(io->ctx) - r->kind_t0;
            sim_welford_add(&e->kind[u->arg], dt);
            sim_welford_add(&e->pkind[r->phase][u->arg], dt);
            r->kind = -1;
            continue;
        }
        case TF_U_JSOLD:
            if (r->soldout)
                r->pc = u->arg;
            continue;
        case TF_U_GATE_ACQ:
            if (sema_acquire(&e->gate, i))
                continue;
            return SIM_OK;
        case TF_U_GATE_REL: {
            unsigned w = sema_release(&e->gate);
            if (w != NONE)
                rq_push(&e->ready, io->now(io->ctx), 0, w);
            continue;
        }
        case TF_U_POOL_ACQ:
            if (!sema_acquire(&e->pool, i))
                return SIM_OK;
            give_conn(e, i);
            continue;
        case TF_U_POOL_REL: {
            e->free_conns[e->nconns_free++] = r->conn;
            r->conn = NONE;
            unsigned w = sema_release(&e->pool);
            if (w != NONE) {
                give_conn(e, w);
                rq_push(&e->ready, io->now(io->ctx), 0, w);
            }
            continue;
        }
        case TF_U_PG:
        case TF_U_REDIS: {
            int pg = u->code == TF_U_PG;
            if (pg && (u->arg == TF_Q_INSERT_TICKET || u->arg == TF_Q_INSERT_GOODIE) &&
                (r->soldout || r->cap - r->used < 1)) {
                /* nothing left of this resource: no insert */
                if (u->arg == TF_Q_INSERT_TICKET)
                    r->soldout = 1;
                continue;
            }
            assert(r->kind >= 0);
            assert(!pg || r->conn != NONE);
            val_live_call c = {u->code, u->arg, r->kind, r->nth[u->arg]++, r->conn, r->cls, r->id,
                               {r->holds[0], r->holds[1]},
                               e->p->payments == TF_PG && r->phase == TF_WEBHOOK ? 1 : 2};
            r->call_class = pg ? VAL_LIVE_PG0 + u->arg : VAL_LIVE_REDIS0 + u->arg;
            if (pg)
                r->txn_sums = tf_q_txn_sums(u->arg, r->txn_sums);
            r->value = 0;
            r->t_call = io->now(io->ctx);
            if (pg) {
                e->pg_alone += e->pg_inflight == 0;
                e->pg_inflight++;
            }
            return io->start(io->ctx, &c, i, err);
        }
        case TF_U_TURNS:
        case TF_U_RLOCK_ACQ:
        case TF_U_RLOCK_REL:
            /* redis-py's connection check and send turns: the driver's
             * hiredis client sends at once (tfsim compare simulates it
             * with redis.pool_turns = 0 and redis.send_turns = 0) */
            continue;
        case TF_U_END:
            client_done(e, i);
            return SIM_OK;
        default:
            assert(0 && "micro-step the live driver cannot run");
            return SIM_OK;
        }
    }
}

void val_live_done(val_live *e, unsigned tag, long long value, double t)
{
    assert(tag < e->nslots);
    lreq *r = &e->r[tag];
    assert(r->call_class >= 0);
    double dt = t - r->t_call;
    sim_welford_add(&e->cls_w[r->call_class], dt);
    int flags = r->call_class == VAL_LIVE_PG0 + TF_Q_COMMIT && r->txn_sums ? VAL_LIVE_AFTER_SUMS : 0;
    if (flags & VAL_LIVE_AFTER_SUMS)
        sim_welford_add(&e->commit_sums_w, dt);
    if (e->o->on_call)
        e->o->on_call(e->o->on_call_ctx, r->call_class, dt, e->rows, flags);
    e->calls++;
    if (r->call_class < VAL_LIVE_REDIS0)
        e->pg_inflight--;
    r->value = value;
    rq_push(&e->ready, t, 0, tag);
}

/* ---- results ---- */

/* A round-trip class's statistics (NaN but the count when empty). */
static val_live_cstat cstat_of(const sim_welford *w)
{
    if (!w->n)
        return (val_live_cstat){0, NAN, NAN, NAN};
    return (val_live_cstat){(double)w->n, w->mean, sim_welford_sd(w), w->min};
}

static void collect(val_live *e, val_live_out *o)
{
    double nan = NAN;
    for (int i = 0; i < TF_NPHASES; i++) {
        tf_phase_out *ph = &o->phase[i];
        o->phase_ran[i] = e->ran[i];
        if (!e->ran[i]) {
            ph->throughput = ph->walltime = ph->mean = ph->p50 = ph->p90 = ph->p99 = nan;
            ph->ok = ph->errors = nan;
        } else {
            ph->walltime = e->wall[i];
            ph->ok = e->ok[i];
            ph->errors = e->errors[i];
            ph->throughput = e->wall[i] > 0 ? e->ok[i] / e->wall[i] : nan;
            ph->mean = e->lat_w[i].n ? e->lat_w[i].mean : nan;
            ph->p50 = e->lat_w[i].n ? sim_hist_quantile(&e->lat_h[i], 0.50) : nan;
            ph->p90 = e->lat_w[i].n ? sim_hist_quantile(&e->lat_h[i], 0.90) : nan;
            ph->p99 = e->lat_w[i].n ? sim_hist_quantile(&e->lat_h[i], 0.99) : nan;
        }
        for (int k = 0; k < TF_NKINDS; k++)
            o->phase_kind_mean[i][k] = e->pkind[i][k].n ? e->pkind[i][k].mean : nan;
    }
    for (int k = 0; k < TF_NKINDS; k++) {
        o->kind_n[k] = (double)e->kind[k].n;
        o->kind_mean[k] = e->kind[k].n ? e->kind[k].mean : nan;
        o->kind_sd[k] = e->kind[k].n ? sim_welford_sd(&e->kind[k]) : nan;
    }
    for (int c = 0; c < VAL_LIVE_NCLASS; c++)
        o->call[c] = cstat_of(&e->cls_w[c]);
    o->commit_after_sums = cstat_of(&e->commit_sums_w);
    o->spin = e->spin;
    o->elapsed = e->io->now(e->io->ctx) - e->t_start;
    o->calls = (double)e->calls;
    o->idle_waits = (double)e->idle_waits;
    o->pg_alone = (double)e->pg_alone;
    double req = 0;
    for (int i = 0; i < TF_NPHASES; i++)
        req += e->ok[i] + e->errors[i];
    o->requests = req;
    o->holds_rows_end = e->rows;
    o->loop_cpu = o->pg_cpu = o->redis_cpu = o->host_cpu = o->cores = o->loop_sleeps = nan;
    o->redis_threaded_writes = o->pg_flushes = o->pg_flush_time = nan;
    o->loop_wait = o->pg_wait = nan;
    for (int i = 0; i < TF_NPHASES; i++)
        o->ph_elapsed[i] = o->ph_flushes[i] = o->ph_flush_time[i] = o->ph_wait[i] = o->ph_threaded[i] = nan;
    o->gate_max = e->gate.max_in_use;
    o->pool_max = e->pool.max_in_use;
    o->inflight_max = e->inflight_max;
    o->wave_overlaps = e->wave_overlaps;
}

static void engine_free(val_live *e)
{
    for (int i = 0; i < TF_NPHASES; i++)
        sim_hist_fini(&e->lat_h[i]);
    free(e->r);
    free(e->free_slots);
    free(e->ready.v);
    free(e->gate.wait.v);
    free(e->pool.wait.v);
    free(e->free_conns);
    free(e->holds_co);
    free(e->holds_rs);
}

int val_live_run_io(const tf_params *p, const val_live_opts *o, const val_live_io *io,
                    val_live_out *out, sim_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = val_live_check(p, err);
    if (rc)
        return rc;
    val_live e;
    memset(&e, 0, sizeof e);
    e.p = p;
    e.o = o;
    e.io = io;
    tf_prog_build(e.g, p);
    e.nslots = val_live_slots(p);
    e.r = calloc(e.nslots, sizeof *e.r);
    e.free_slots = malloc(e.nslots * sizeof *e.free_slots);
    assert(e.r && e.free_slots && "out of memory");
    for (unsigned i = 0; i < e.nslots; i++)
        e.free_slots[i] = e.nslots - 1 - i;
    e.nfree = e.nslots;
    e.ready.cap = e.nslots;
    e.ready.v = malloc(e.nslots * sizeof *e.ready.v);
    assert(e.ready.v && "out of memory");
    sema_init(&e.gate, p->gate, e.nslots);
    sema_init(&e.pool, p->pool_size + p->pool_overflow, e.nslots);
    unsigned nconn = val_live_pool_size(p);
    e.free_conns = malloc(nconn * sizeof *e.free_conns);
    assert(e.free_conns && "out of memory");
    for (unsigned i = 0; i < nconn; i++)
        e.free_conns[i] = nconn - 1 - i;
    e.nconns_free = nconn;
    e.holds_co = calloc(2 * (size_t)p->total, sizeof *e.holds_co);
    e.holds_rs = calloc(2 * (size_t)p->total, sizeof *e.holds_rs);
    assert(e.holds_co && e.holds_rs && "out of memory");
    for (int i = 0; i < TF_NPHASES; i++) {
        sim_welford_init(&e.lat_w[i]);
        sim_hist_init(&e.lat_h[i]);
        for (int k = 0; k < TF_NKINDS; k++)
            sim_welford_init(&e.pkind[i][k]);
    }
    for (int k = 0; k < TF_NKINDS; k++)
        sim_welford_init(&e.kind[k]);
    for (int c = 0; c < VAL_LIVE_NCLASS; c++)
        sim_welford_init(&e.cls_w[c]);
    sim_welford_init(&e.commit_sums_w);
    e.rows = p->holds_rows;
    e.t_start = io->now(io->ctx);

    start_phase(&e);
    /* The loop: run the first ready coroutine to its next await, then
     * collect the replies that arrived meanwhile (each joins the ready
     * queue), or wait for one when nothing is ready. */
    while (rc == SIM_OK && e.phase < TF_NPHASES) {
        if (o->stop && *o->stop) {
            rc = sim_err_set(err, SIM_EFAIL, "interrupted");
            break;
        }
        if (e.ready.len > 0)
            rc = run(&e, rq_pop(&e.ready), err);
        if (rc == SIM_OK && e.phase < TF_NPHASES) {
            e.idle_waits += e.ready.len == 0;
            rc = io->wait(io->ctx, &e, e.ready.len == 0, err);
        }
    }
    if (rc != SIM_OK && e.phase < TF_NPHASES) {
        /* keep what the interrupted phase completed */
        e.wall[e.phase] = io->now(io->ctx) - e.phase_t0;
        e.ran[e.phase] = 2;
    }
    collect(&e, out);
    engine_free(&e);
    return rc;
}

/* ---- the result table ---- */

enum { PM_THR, PM_MEAN, PM_P50, PM_P90, PM_P99, PM_ERR, PM_WALL, PM_N };
static const char *const pm_names[PM_N] = {"throughput", "latency_mean", "p50", "p90",
                                           "p99",        "errors",       "walltime"};

void val_live_table(const val_live_out *o, int text, sim_table *t)
{
    sim_layout l;
    sim_layout_init(&l);
    size_t cap = TF_NPHASES * PM_N + 6 + 3 * TF_NKINDS + 3 * VAL_LIVE_NCLASS + 3 + 10 + 5 * TF_NPHASES, n = 0;
    double *v = malloc(cap * sizeof *v);
    assert(v && "out of memory");
#define ADD(scope, name, metric, fmt, x) (sim_layout_add(&l, scope, name, metric, NAN, 0, fmt), v[n++] = (x))
    for (int i = 0; i < TF_NPHASES; i++) {
        if (!o->phase_ran[i])
            continue;
        const tf_phase_out *ph = &o->phase[i];
        double x[PM_N] = {ph->throughput, ph->mean, ph->p50, ph->p90, ph->p99, ph->errors, ph->walltime};
        for (int j = 0; j < PM_N; j++)
            ADD("phase", tf_phase_names[i], pm_names[j],
                j == PM_THR ? "%.1f" : j == PM_ERR ? "%.0f" : "%.4g", x[j]);
    }
    double el = o->elapsed > 0 ? o->elapsed : NAN;
    ADD("component", "server_loop", "utilisation", "%.3f", o->loop_cpu / el);
    ADD("component", "server_loop", "cpu_wait", "%.3f", o->loop_wait / el);
    ADD("component", "postgres_cpu", "utilisation", "%.3f", o->pg_cpu / el / o->cores);
    ADD("component", "postgres_cpu", "cpu_wait", "%.3f", o->pg_wait / el);
    ADD("component", "redis", "utilisation", "%.3f", o->redis_cpu / el);
    ADD("component", "host_cpu", "utilisation", "%.3f", o->host_cpu / el / o->cores);
    for (int k = 0; k < TF_NKINDS; k++) {
        ADD("kind", tf_kind_names[k], "mean", "%.4g", o->kind_mean[k]);
        ADD("kind", tf_kind_names[k], "sd", "%.4g", o->kind_sd[k]);
        ADD("kind", tf_kind_names[k], "count", "%.0f", o->kind_n[k]);
    }
    for (int c = 0; c < VAL_LIVE_NCLASS; c++) {
        if (!(o->call[c].n > 0))
            continue;
        ADD("round_trip", val_live_class_names[c], "mean", "%.4g", o->call[c].mean);
        ADD("round_trip", val_live_class_names[c], "sd", "%.4g", o->call[c].sd);
        ADD("round_trip", val_live_class_names[c], "count", "%.0f", o->call[c].n);
    }
    if (o->commit_after_sums.n > 0) {
        ADD("round_trip", "pg.commit_after_sums", "mean", "%.4g", o->commit_after_sums.mean);
        ADD("round_trip", "pg.commit_after_sums", "sd", "%.4g", o->commit_after_sums.sd);
        ADD("round_trip", "pg.commit_after_sums", "count", "%.0f", o->commit_after_sums.n);
    }
    ADD("run", "totals", "holds_rows_end", "%.0f", o->holds_rows_end);
    ADD("run", "totals", "round_trips", "%.0f", o->calls);
    ADD("run", "totals", "idle_waits", "%.0f", o->idle_waits);
    ADD("run", "totals", "loop_sleeps", "%.0f", o->loop_sleeps);
    ADD("run", "totals", "pg_alone", "%.0f", o->pg_alone);
    ADD("run", "totals", "spin", "%.4g", o->spin);
    ADD("run", "totals", "elapsed", "%.4g", o->elapsed);
    ADD("run", "totals", "redis_threaded_writes", "%.3f", o->redis_threaded_writes);
    ADD("run", "totals", "pg_wal_flushes", "%.0f", o->pg_flushes);
    ADD("run", "totals", "pg_wal_flush_ms", "%.4g",
        o->pg_flushes > 0 ? 1e3 * o->pg_flush_time / o->pg_flushes : NAN);
    /* the servers' counters per complete phase, where the backend read them */
    for (int i = 0; i < TF_NPHASES; i++) {
        const double pel = o->ph_elapsed[i];
        if (o->phase_ran[i] != 1 || !(pel > 0))
            continue;
        ADD("run", tf_phase_names[i], "elapsed", "%.4g", pel);
        ADD("run", tf_phase_names[i], "cpu_wait", "%.3f", o->ph_wait[i] / pel);
        ADD("run", tf_phase_names[i], "threaded_writes", "%.0f", o->ph_threaded[i]);
        ADD("run", tf_phase_names[i], "pg_wal_flushes", "%.0f", o->ph_flushes[i]);
        ADD("run", tf_phase_names[i], "pg_wal_flush_ms", "%.4g",
            o->ph_flushes[i] > 0 ? 1e3 * o->ph_flush_time[i] / o->ph_flushes[i] : NAN);
    }
#undef ADD
    assert(n <= cap);
    sim_rep_result r = {0};
    r.n = n;
    r.reps = 1;
    r.converged = 1;
    r.mean = v;
    r.half = malloc(n * sizeof *r.half);
    assert(r.half && "out of memory");
    for (size_t i = 0; i < n; i++)
        r.half[i] = NAN;
    if (text)
        sim_rep_table_text(&l, &r, t);
    else
        sim_rep_table(&l, &r, t);
    sim_rep_result_fini(&r);
    sim_layout_fini(&l);
}
