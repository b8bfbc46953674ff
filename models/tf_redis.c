/* tf_redis: the Redis server (main thread, event-loop cycles, threaded I/O). */
#include "models/tf_redis.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

enum { MAIN = 0 };

void tf_redis_init(tf_redis *r, const tf_params *p, sim_ps *cpu, gsl_rng *rng)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->cpu = cpu;
    r->rng = rng;
    assert(rng || !(p->redis_wake_wait > 0 && p->redis_wake_wait < 1));
    assert(rng || !(p->wake_affine && p->redis_affine_share > 0 && p->redis_affine_share < 1));
    sim_queue_init(&r->wait, 64);
    r->n_io = (int)p->redis_io_threads;
    assert(r->n_io >= 1);
    /* On the host the threads take turns on its cores; with
     * host.redis_cores = c (their fair share among the host's threads) on
     * ceil(c) cores, each turn a tick x ceil(c) / c long: the other
     * threads' turns come in between.  Off the host each has a core of its
     * own. */
    int cores = r->n_io;
    double turn = p->sched_tick;
    if (cpu) {
        cores = (int)floor(cpu->cores + 0.5);
        if (cores < 1)
            cores = 1;
        if (p->redis_cores > 0 && p->redis_cores < cores) {
            cores = (int)ceil(p->redis_cores);
            turn = p->sched_tick * cores / p->redis_cores;
        }
    }
    sim_hogs_init(&r->hogs, cores, turn, p->sched_slice, r->n_io, cpu);
    if (cpu)
        sim_hogs_set_wake_slice(&r->hogs, p->sched_wake_slice);
    r->io = calloc((size_t)r->n_io, sizeof *r->io);
    for (int b = 0; b < 2; b++) {
        r->cap[b] = 16;
        r->buf[b] = malloc(16 * sizeof(sim_job));
        assert(r->buf[b] && "out of memory");
    }
    r->batch = r->buf[0];
    assert(r->io && "out of memory");
    for (int i = 0; i < r->n_io; i++)
        r->io[i] = (tf_redis_io){r, i};
    sim_tavg_init(&r->nbusy, 0, 0);
    sim_tavg_init(&r->nwait, 0, 0);
    sim_tavg_init(&r->threads_on, 0, 0);
}

void tf_redis_fini(tf_redis *r)
{
    sim_queue_fini(&r->wait);
    sim_hogs_fini(&r->hogs);
    free(r->io);
    free(r->buf[0]);
    free(r->buf[1]);
    memset(r, 0, sizeof *r);
}

double tf_redis_utilisation(const tf_redis *r, double now) { return sim_tavg_mean(&r->nbusy, now); }
double tf_redis_queue(const tf_redis *r, double now) { return sim_tavg_mean(&r->nwait, now); }
double tf_redis_threads_on(const tf_redis *r, double now) { return sim_tavg_mean(&r->threads_on, now); }

double tf_redis_threaded_writes(const tf_redis *r)
{
    return r->writes ? (double)r->threaded_writes / (double)r->writes : NAN;
}

void tf_redis_host_wake(tf_redis *r, sim *s)
{
    if (r->active)
        sim_hogs_preempt(&r->hogs, s);
}

/* ---- placement: on the sender's core or not ---- */

/* Draws a spell of placement state `on` (idle core-seconds). */
static double spell(tf_redis *r, int on)
{
    const double q = r->p->redis_affine_share;
    return gsl_ran_exponential(r->rng, 2 * r->p->affine_period * (on ? q : 1 - q));
}

/* The host's idle core-seconds since the placement's clock last moved
 * (its cores times the time, less the busy cores' area; across a reset
 * of the host's statistics, only the time since the reset); the time
 * itself when Redis has no host. */
static double idle_since(tf_redis *r, sim *s)
{
    if (!r->cpu)
        return s->now - r->place_t;
    const sim_tavg *b = &r->cpu->nbusy;
    const double area = sim_tavg_area(b, s->now);
    double from = r->place_t, busy = area - r->place_area;
    if (b->t0 >= r->place_t) {
        from = b->t0;
        busy = area;
    }
    r->place_area = area;
    const double idle = r->cpu->cores * (s->now - from) - busy;
    return idle > 0 ? idle : 0;
}

/* Moves the placement's clock to s->now: it runs on the host's idle
 * cores (Linux's load balancer moves threads when a core goes idle).
 * Only for a share strictly between 0 and 1 (tf_redis_on_senders_core). */
static void place_advance(tf_redis *r, sim *s)
{
    if (!r->place_drawn) {
        r->place_drawn = 1;
        r->on_sender = gsl_rng_uniform(r->rng) < r->p->redis_affine_share;
        r->place_left = spell(r, r->on_sender);
        r->place_area = r->cpu ? sim_tavg_area(&r->cpu->nbusy, s->now) : 0;
    } else {
        double dt = idle_since(r, s);
        while (dt >= r->place_left) {
            dt -= r->place_left;
            r->on_sender = !r->on_sender;
            r->place_left = spell(r, r->on_sender);
        }
        r->place_left -= dt;
    }
    r->place_t = s->now;
}

int tf_redis_on_senders_core(tf_redis *r, sim *s)
{
    const double q = r->p->redis_affine_share;
    if (!r->p->wake_affine || q <= 0)
        return 0;
    if (q >= 1)
        return 1;
    place_advance(r, s);
    return r->on_sender;
}

/* ---- the I/O threads on and off ---- */

static void on_cron(sim *s, void *obj);

static void arm_cron(tf_redis *r, sim *s)
{
    if (r->cron_armed)
        return;
    r->cron_seq = sim_at(s, sim_next_multiple(s, 1 / r->p->redis_hz), 0, on_cron, r);
    r->cron_armed = 1;
}

static void threads_start(tf_redis *r, sim *s)
{
    assert(!r->active);
    r->active = 1;
    sim_tavg_set(&r->threads_on, s->now, 1);
    for (int j = 1; j < r->n_io; j++)
        sim_hogs_wake(&r->hogs, s, j);
    arm_cron(r, s);
}

static void threads_stop(tf_redis *r, sim *s)
{
    assert(r->active);
    r->active = 0;
    sim_tavg_set(&r->threads_on, s->now, 0);
    for (int j = 1; j < r->n_io; j++)
        sim_hogs_block(&r->hogs, s, j);
}

/* serverCron: with no client pending (the main thread idle), the threads
 * stop (stopThreadedIOIfNeeded).  In a cycle they would stop and start
 * again within it: no change. */
static void on_cron(sim *s, void *obj)
{
    tf_redis *r = obj;
    if (!r->cron_armed || s->cur_seq != r->cron_seq)
        return;
    r->cron_armed = 0;
    if (!r->active)
        return;
    if (!r->in_cycle && !r->busy)
        threads_stop(r, s);
    else
        arm_cron(r, s);
}

/* ---- a cycle's commands ---- */

/* Take every waiting command into the cycle's batch (one of two buffers:
 * the previous cycle's replies may still be going out). */
static void take_batch(tf_redis *r)
{
    r->cur_b ^= 1;
    long k = (long)sim_queue_len(&r->wait);
    if (k > r->cap[r->cur_b]) {
        while (r->cap[r->cur_b] < k)
            r->cap[r->cur_b] *= 2;
        r->buf[r->cur_b] = realloc(r->buf[r->cur_b], (size_t)r->cap[r->cur_b] * sizeof(sim_job));
        assert(r->buf[r->cur_b] && "out of memory");
    }
    r->batch = r->buf[r->cur_b];
    r->nbatch = 0;
    while (sim_queue_pop(&r->wait, &r->batch[r->nbatch]))
        r->nbatch++;
    r->next = 0;
    r->cycles++;
}

static void reply(sim *s, const sim_job *j)
{
    if (j->fn)
        j->fn(s, j->obj);
}

/* ---- threads off: the main thread runs the commands one by one, then
 * writes the replies ---- */

static void off_done(sim *s, void *obj);
static void threaded_cycle(tf_redis *r, sim *s);

static void off_next(tf_redis *r, sim *s)
{
    sim_job j = r->batch[r->next++];
    if (r->next == 1)
        j.x += r->p->redis_cycle_cpu; /* the cycle's own work, with its first command */
    r->busy = 1;
    sim_tavg_set(&r->nbusy, s->now, 1);
    sim_tavg_set(&r->nwait, s->now, (double)(sim_queue_len(&r->wait) + (size_t)(r->nbatch - r->next)));
    if (r->cpu)
        sim_ps_submit(r->cpu, s, r, j.x, off_done);
    else
        sim_after(s, j.x, 0, off_done, r);
}

static void off_cycle(tf_redis *r, sim *s)
{
    take_batch(r);
    off_next(r, s);
}

static void off_done(sim *s, void *obj)
{
    tf_redis *r = obj;
    r->busy = 0;
    sim_tavg_set(&r->nbusy, s->now, 0);
    if (r->next < r->nbatch) {
        off_next(r, s);
        return;
    }
    /* the cycle ends: its clients have replies pending */
    const sim_job *done = r->batch;
    long k = r->nbatch;
    r->writes += (uint64_t)k;
    if (r->n_io > 1 && k >= r->n_io * r->p->redis_io_per_thread)
        threads_start(r, s);
    /* the next cycle starts before the replies are handed on (same
     * instant): the order of a one-server FIFO station */
    if (sim_queue_len(&r->wait) > 0) {
        if (r->active)
            threaded_cycle(r, s);
        else
            off_cycle(r, s);
    }
    for (long i = 0; i < k; i++)
        reply(s, &done[i]);
}

/* ---- threads on: a cycle hands out reads, runs the commands, hands out
 * the writes ---- */

static void cycle_end(sim *s, void *obj);
static void reads_seen(sim *s, void *obj);

/* The main thread, spinning, sees every thread done when it is on a core. */
static void list_done(sim *s, void *obj)
{
    tf_redis *r = ((tf_redis_io *)obj)->r;
    int id = ((tf_redis_io *)obj)->id;
    if (r->writing)
        for (long i = id; i < r->nbatch; i += r->n_io)
            reply(s, &r->batch[i]); /* this thread's clients: i mod N == id */
    if (--r->pending == 0)
        sim_hogs_run(&r->hogs, s, MAIN, 0, r, r->writing ? cycle_end : reads_seen);
}

/* Hand the non-empty lists 1..N-1 to their threads; 0 when there are none. */
static int hand_out(tf_redis *r, sim *s)
{
    long lists = r->nbatch < r->n_io ? r->nbatch : r->n_io;
    r->pending = (int)(lists - 1);
    for (int j = 1; j < lists; j++)
        sim_hogs_run(&r->hogs, s, j, 0, &r->io[j], list_done);
    return r->pending > 0;
}

static void exec_done(sim *s, void *obj)
{
    tf_redis *r = obj;
    r->writes += (uint64_t)r->nbatch;
    if (r->nbatch >= r->n_io * r->p->redis_io_per_thread) {
        /* threaded writes: the main thread writes list 0 now */
        r->writing = 1;
        r->threaded_writes += (uint64_t)r->nbatch;
        for (long i = 0; i < r->nbatch; i += r->n_io)
            reply(s, &r->batch[i]);
        if (!hand_out(r, s))
            cycle_end(s, r);
        return;
    }
    /* too few clients pending: the threads stop, the main thread writes */
    threads_stop(r, s);
    r->writing = 0;
    for (long i = 0; i < r->nbatch; i++)
        reply(s, &r->batch[i]);
    cycle_end(s, r);
}

static void reads_seen(sim *s, void *obj)
{
    tf_redis *r = obj;
    double work = r->p->redis_cycle_cpu;
    for (long i = 0; i < r->nbatch; i++)
        work += r->batch[i].x;
    sim_hogs_run(&r->hogs, s, MAIN, work, r, exec_done);
}

/* The main thread, on its core, returns from epoll_wait with every command
 * that has arrived: they are the cycle's. */
static void cycle_start(sim *s, void *obj)
{
    tf_redis *r = obj;
    take_batch(r);
    sim_tavg_set(&r->nwait, s->now, 0);
    r->writing = 0;
    if (r->p->redis_io_do_reads && hand_out(r, s))
        return; /* reads_seen when the threads have read */
    reads_seen(s, r);
}

static void threaded_cycle(tf_redis *r, sim *s)
{
    assert(r->active && !r->in_cycle && !r->busy && sim_queue_len(&r->wait) > 0);
    r->in_cycle = 1;
    sim_tavg_set(&r->nbusy, s->now, 1);
    r->threaded_cycles++;
    if (sim_hogs_state(&r->hogs, MAIN) == SIM_HOG_BLOCKED) {
        if (r->p->redis_wake_preempt && r->cpu) {
            sim_hogs_wake_preempt(&r->hogs, s, MAIN);
        } else {
            sim_hogs_wake(&r->hogs, s, MAIN);
            sim_hogs_preempt(&r->hogs, s); /* the woken main thread's own wake-up */
        }
    }
    sim_hogs_run(&r->hogs, s, MAIN, 0, r, cycle_start);
}

static void cycle_end(sim *s, void *obj)
{
    tf_redis *r = obj;
    r->in_cycle = 0;
    if (r->active && sim_queue_len(&r->wait) > 0) {
        threaded_cycle(r, s);
        return;
    }
    /* the main thread sleeps in epoll_wait, or goes on without threads */
    sim_hogs_block(&r->hogs, s, MAIN);
    sim_tavg_set(&r->nbusy, s->now, 0);
    if (sim_queue_len(&r->wait) > 0)
        off_cycle(r, s);
}

/* The woken main thread gets its core: the first cycle starts. */
static void unstack(tf_redis *r, sim *s)
{
    r->stacked = NULL;
    r->releasing = 0;
    r->stack_seq = 0;
    if (r->active)
        threaded_cycle(r, s);
    else
        off_cycle(r, s);
}

static void stack_tick(sim *s, void *obj)
{
    tf_redis *r = obj;
    if (r->stacked && s->cur_seq == r->stack_seq)
        unstack(r, s);
}

/* The loop sleeps: once the commands it sent last have arrived (half a
 * round trip), the main thread runs. */
void tf_redis_waker_idle(tf_redis *r, sim *s, const void *waker)
{
    r->slept = waker;
    r->slept_t = s->now;
    if (r->stacked && r->stacked == waker && !r->releasing) {
        r->releasing = 1;
        r->stack_seq = sim_after(s, r->p->net_rtt / 2, 0, stack_tick, r);
    }
}

/* Does this wake-up wait for the next tick (redis.wake_wait)?  A draw
 * only for a share strictly between 0 and 1. */
static int stalls(tf_redis *r)
{
    double q = r->p->redis_wake_wait;
    return q >= 1 || (q > 0 && gsl_rng_uniform(r->rng) < q);
}

/* The woken main thread waits on holder (a loop's core, or r itself)
 * until the release at t; releasing: no loop's sleep is to come first. */
static void stack_until(tf_redis *r, sim *s, const void *holder, int releasing, double t)
{
    r->stacked = holder;
    r->releasing = releasing;
    r->stack_seq = sim_at(s, t, 0, stack_tick, r);
    sim_tavg_set(&r->nwait, s->now, (double)sim_queue_len(&r->wait));
}

void tf_redis_arrive(tf_redis *r, sim *s, void *obj, double service, sim_fn done)
{
    tf_redis_arrive_from(r, s, obj, service, done, NULL, 0, 0);
}

void tf_redis_arrive_from(tf_redis *r, sim *s, void *obj, double service, sim_fn done,
                          const void *waker, int sent_busy, int busy_now)
{
    assert(service >= 0);
    sim_job j = {obj, done, s->now, service};
    sim_queue_push(&r->wait, j);
    int idle = !r->busy && !r->in_cycle && !r->stacked && r->cpu;
    int asleep = idle && !r->active;
    if (idle && r->p->wake_affine && waker && sent_busy && tf_redis_on_senders_core(r, s)) {
        /* woken on the busy loop's core: it runs when the loop sleeps (the
         * loop's last commands in) or at the next tick; a loop that has
         * slept since sent its last commands before it slept: they are in
         * half a round trip after it slept (a release then, or now).  The
         * same whether the I/O threads are started or not: the wake-up's
         * placement is the sender's. */
        if (busy_now)
            stack_until(r, s, waker, 0, sim_next_multiple(s, r->p->sched_tick));
        else if (r->slept == waker && r->slept_t + r->p->net_rtt / 2 > s->now)
            stack_until(r, s, waker, 1, r->slept_t + r->p->net_rtt / 2);
        else
            stack_until(r, s, waker, 1, s->now);
        return;
    }
    if (asleep && stalls(r)) {
        /* this wake-up waits for the next tick, whatever its sender does;
         * the commands that arrive meanwhile join (stacked on r itself:
         * no loop's sleep releases it) */
        stack_until(r, s, r, 1, sim_next_multiple(s, r->p->sched_tick));
        return;
    }
    if (!r->busy && !r->in_cycle && !r->stacked) {
        /* the main thread is idle: this command wakes it */
        if (r->active)
            threaded_cycle(r, s);
        else
            off_cycle(r, s);
        return;
    }
    sim_tavg_set(&r->nwait, s->now,
                 (double)(sim_queue_len(&r->wait) + (size_t)(r->in_cycle ? 0 : r->nbatch - r->next)));
}
