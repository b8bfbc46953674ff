#include "sim/sim_hogs.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

void sim_hogs_init(sim_hogs *h, int cores, double tick, double slice, int n, sim_ps *ps)
{
    assert(cores >= 1 && n >= 1 && tick > 0 && slice >= 0);
    h->cores = cores;
    h->n = n;
    h->tick = tick;
    h->slice = slice;
    h->wake_slice = 0;
    h->t = calloc((size_t)n, sizeof *h->t);
    h->on = malloc((size_t)cores * sizeof *h->on);
    h->q = malloc((size_t)n * sizeof *h->q);
    h->defer = malloc((size_t)cores * sizeof *h->defer);
    assert(h->t && h->on && h->q && h->defer && "out of memory");
    for (int c = 0; c < cores; c++)
        h->on[c] = -1;
    h->qhead = h->qlen = 0;
    h->tick_armed = 0;
    h->tick_seq = 0;
    h->ps = ps;
    sim_tavg_init(&h->runnable, 0, 0);
    sim_tavg_init(&h->waiting, 0, 0);
}

void sim_hogs_fini(sim_hogs *h)
{
    free(h->t);
    free(h->on);
    free(h->q);
    free(h->defer);
    h->t = NULL;
    h->on = h->q = h->defer = NULL;
}

void sim_hogs_reset_stats(sim_hogs *h, double now)
{
    sim_tavg_restart(&h->runnable, now);
    sim_tavg_restart(&h->waiting, now);
}

static void counts(sim_hogs *h, double now)
{
    int r = 0;
    for (int i = 0; i < h->n; i++)
        r += h->t[i].state != SIM_HOG_BLOCKED;
    sim_tavg_set(&h->runnable, now, r);
    sim_tavg_set(&h->waiting, now, h->qlen);
}

static void work_done(sim *s, void *obj)
{
    sim_hog *t = obj;
    if (!t->has_work || t->seq != s->cur_seq)
        return; /* stale: the hog lost its core after this was armed */
    t->has_work = 0;
    t->seq = 0;
    t->left = 0;
    t->fn(s, t->obj);
}

static void give_core(sim_hogs *h, sim *s, int id, int core)
{
    sim_hog *t = &h->t[id];
    assert(h->on[core] < 0);
    h->on[core] = id;
    t->state = SIM_HOG_RUNNING;
    t->core = core;
    t->t_on = s->now;
    if (h->ps)
        sim_ps_spin(h->ps, s, 1);
    if (t->has_work) {
        t->t_work = s->now;
        t->seq = sim_after(s, t->left, 0, work_done, t);
    }
}

static void take_core(sim_hogs *h, sim *s, int id)
{
    sim_hog *t = &h->t[id];
    assert(t->state == SIM_HOG_RUNNING && h->on[t->core] == id);
    h->on[t->core] = -1;
    if (h->ps)
        sim_ps_spin(h->ps, s, -1);
    if (t->has_work) {
        t->left -= s->now - t->t_work;
        if (t->left < 0)
            t->left = 0;
        t->seq = 0; /* its completion event goes stale */
    }
    t->core = -1;
}

/* The running hog that has held its core longest, if it got it before
 * now and has held it at least `least` seconds; -1 if none.  O(cores). */
static int longest_runner(const sim_hogs *h, double now, double least)
{
    int best = -1;
    for (int c = 0; c < h->cores; c++) {
        int id = h->on[c];
        if (id < 0)
            continue;
        const sim_hog *t = &h->t[id];
        if (t->t_on >= now || now - t->t_on < least * (1 - 1e-9))
            continue;
        if (best < 0 || t->t_on < h->t[best].t_on)
            best = id;
    }
    return best;
}

static void on_tick(sim *s, void *obj);

static void arm_tick(sim_hogs *h, sim *s)
{
    if (h->tick_armed || h->qlen == 0)
        return;
    h->tick_seq = sim_at(s, sim_next_multiple(s, h->tick), 0, on_tick, h);
    h->tick_armed = 1;
}

static void enqueue(sim_hogs *h, sim *s, int id)
{
    assert(h->qlen < h->n);
    h->q[(h->qhead + h->qlen) % h->n] = id;
    h->qlen++;
    h->t[id].state = SIM_HOG_WAITING;
    h->t[id].core = -1;
    arm_tick(h, s);
}

static int dequeue(sim_hogs *h)
{
    assert(h->qlen > 0);
    int id = h->q[h->qhead];
    h->qhead = (h->qhead + 1) % h->n;
    h->qlen--;
    return id;
}

/* Running hog id gives its core to the head of the run queue (id is then
 * neither running nor queued: the caller queues it). */
static void hand_over(sim_hogs *h, sim *s, int id)
{
    int core = h->t[id].core;
    take_core(h, s, id);
    give_core(h, s, dequeue(h), core);
}

static void on_tick(sim *s, void *obj)
{
    sim_hogs *h = obj;
    if (!h->tick_armed || s->cur_seq != h->tick_seq)
        return;
    h->tick_armed = 0;
    /* round robin: while hogs wait, the one that has held its core longest
     * (at least a slice, and not placed at this tick) yields it to the head
     * of the queue; the yielding hogs queue after the ones that waited */
    int nout = 0;
    int *defer = h->defer;
    while (h->qlen > 0) {
        int best = longest_runner(h, s->now, h->slice);
        if (best < 0)
            break;
        hand_over(h, s, best);
        defer[nout++] = best;
    }
    for (int i = 0; i < nout; i++)
        enqueue(h, s, defer[i]);
    counts(h, s->now);
    arm_tick(h, s);
}

void sim_hogs_set_wake_slice(sim_hogs *h, double wake_slice)
{
    assert(wake_slice >= 0 && isfinite(wake_slice));
    h->wake_slice = wake_slice;
}

void sim_hogs_preempt(sim_hogs *h, sim *s)
{
    if (h->qlen == 0 || h->wake_slice <= 0)
        return;
    int best = longest_runner(h, s->now, h->wake_slice);
    if (best < 0)
        return;
    hand_over(h, s, best);
    enqueue(h, s, best);
    counts(h, s->now);
}

/* The first idle core, or -1.  O(cores). */
static int idle_core(const sim_hogs *h)
{
    for (int c = 0; c < h->cores; c++)
        if (h->on[c] < 0)
            return c;
    return -1;
}

void sim_hogs_wake(sim_hogs *h, sim *s, int id)
{
    assert(id >= 0 && id < h->n && h->t[id].state == SIM_HOG_BLOCKED);
    int core = idle_core(h);
    if (core >= 0)
        give_core(h, s, id, core);
    else
        enqueue(h, s, id);
    counts(h, s->now);
}

void sim_hogs_wake_preempt(sim_hogs *h, sim *s, int id)
{
    assert(id >= 0 && id < h->n && h->t[id].state == SIM_HOG_BLOCKED);
    int core = idle_core(h);
    int best = core < 0 ? longest_runner(h, s->now, 0) : -1;
    if (best >= 0) {
        core = h->t[best].core;
        take_core(h, s, best);
    }
    if (core >= 0)
        give_core(h, s, id, core);
    else
        enqueue(h, s, id);
    if (best >= 0)
        enqueue(h, s, best);
    counts(h, s->now);
}

void sim_hogs_block(sim_hogs *h, sim *s, int id)
{
    assert(id >= 0 && id < h->n);
    sim_hog *t = &h->t[id];
    assert(t->state != SIM_HOG_BLOCKED && !t->has_work);
    if (t->state == SIM_HOG_RUNNING) {
        int core = t->core;
        take_core(h, s, id);
        if (h->qlen > 0)
            give_core(h, s, dequeue(h), core);
    } else {
        int k = 0;
        while (h->q[(h->qhead + k) % h->n] != id)
            k++;
        for (; k + 1 < h->qlen; k++)
            h->q[(h->qhead + k) % h->n] = h->q[(h->qhead + k + 1) % h->n];
        h->qlen--;
    }
    t->state = SIM_HOG_BLOCKED;
    t->core = -1;
    counts(h, s->now);
}

void sim_hogs_run(sim_hogs *h, sim *s, int id, double work, void *obj, sim_fn fn)
{
    assert(id >= 0 && id < h->n && work >= 0 && isfinite(work) && fn);
    sim_hog *t = &h->t[id];
    assert(t->state != SIM_HOG_BLOCKED && !t->has_work);
    t->has_work = 1;
    t->left = work;
    t->obj = obj;
    t->fn = fn;
    t->seq = 0;
    if (t->state == SIM_HOG_RUNNING) {
        t->t_work = s->now;
        t->seq = sim_after(s, work, 0, work_done, t);
    }
}
