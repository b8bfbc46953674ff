#include "sim/sim_ps.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

/* Each job's rate with m jobs present (spinners included): min(1, K/m),
 * K/m < 1 exactly when m > K (a quotient of doubles a < b rounds below 1),
 * so the division is done only then; with stacking, cap(m)/m (sim_ps.h). */
static inline double rate_of(const sim_ps *p, size_t jobs)
{
    double m = (double)jobs;
    if (p->stacking > 0 && jobs > 1) {
        double full = m <= p->cores ? m : p->cores;
        double spread = p->cores >= 1 ? p->cores * (1 - pow(1 - 1 / p->cores, m)) : full;
        return (full - p->stacking * (full - spread)) / m;
    }
    return m <= p->cores ? 1.0 : p->cores / m;
}

static void fill_rates(sim_ps *p)
{
    for (size_t m = 0; m < SIM_PS_RATES; m++)
        p->rates[m] = rate_of(p, m);
}

void sim_ps_set_stacking(sim_ps *p, double stacking)
{
    assert(stacking >= 0 && stacking <= 2);
    assert(p->n == 0 && p->spin == 0);
    p->stacking = stacking;
    fill_rates(p);
}

void sim_ps_init(sim_ps *p, double cores)
{
    assert(cores > 0);
    p->cores = cores;
    p->stacking = 0;
    fill_rates(p);
    p->v = 0;
    p->t_last = 0;
    p->cap = 16;
    p->heap = malloc(p->cap * sizeof *p->heap);
    assert(p->heap && "out of memory");
    p->n = 0;
    p->rate = 0;
    p->order = 0;
    p->spin = 0;
    p->is_armed = 0;
    p->armed = 0;
    p->timer = -1;
    p->weight = 1;
    p->heap2 = NULL;
    p->n2 = p->cap2 = 0;
    p->v2 = p->rate2 = 0;
    p->completions = 0;
    sim_tavg_init(&p->njobs, 0, 0);
    sim_tavg_init(&p->nbusy, 0, 0);
    p->resp_sum = 0;
}

void sim_ps_fini(sim_ps *p)
{
    free(p->heap);
    p->heap = NULL;
    free(p->heap2);
    p->heap2 = NULL;
}

void sim_ps_set_weight(sim_ps *p, double weight)
{
    assert(weight >= 1 && isfinite(weight));
    assert(p->n == 0 && p->n2 == 0 && p->spin == 0);
    p->weight = weight;
}

void sim_ps_reset_stats(sim_ps *p, double now)
{
    p->completions = 0;
    sim_tavg_restart(&p->njobs, now);
    sim_tavg_restart(&p->nbusy, now);
    p->resp_sum = 0;
}

/* x / rate, without the division when the rate is 1 (the same value). */
static inline double per_rate(const sim_ps *p, double x)
{
    return p->rate == 1.0 ? x : x / p->rate;
}


static void advance(sim_ps *p, double now)
{
    double dt = now - p->t_last;
    p->v += dt * p->rate;
    p->v2 += dt * p->rate2;
    p->t_last = now;
}

static void heap_push_in(sim_ps_job **heap, size_t *np, size_t *capp, sim_ps_job j)
{
    if (*np == *capp) {
        *capp = *capp ? 2 * *capp : 16;
        *heap = realloc(*heap, *capp * sizeof **heap);
        assert(*heap && "out of memory");
    }
    sim_ps_job *h = *heap;
    size_t i = (*np)++;
    while (i > 0) {
        size_t q = (i - 1) / 2;
        if (!(j.k < h[q].k))
            break;
        h[i] = h[q];
        i = q;
    }
    h[i] = j;
}

/* Remove the heap top (*np > 0) into *top; the old last node, h[n] after
 * the decrement, fills the hole. */
static inline __attribute__((always_inline)) void heap_pop_in(sim_ps_job *h, size_t *np,
                                                             sim_ps_job *top)
{
    *top = h[0];
    size_t n = --*np;
    if (n) {
        const sim_cal_key x = h[n].k;
        size_t i = 0;
        for (;;) {
            size_t l = 2 * i + 1;
            if (l >= n)
                break;
            size_t m = l + 1 < n && h[l + 1].k < h[l].k ? l + 1 : l;
            if (!(h[m].k < x))
                break;
            h[i] = h[m];
            i = m;
        }
        h[i] = h[n];
    }
}

static inline __attribute__((always_inline)) void heap_pop(sim_ps *p, sim_ps_job *top)
{
    heap_pop_in(p->heap, &p->n, top);
}

/* Time from now to the next completion with favoured jobs present (n2 >
 * 0), and which heap holds it (*fav; the others' first on a tie). */
static double next_dt_mixed(const sim_ps *p, int *fav)
{
    double d = p->n ? (p->heap[0].finish - p->v) / p->rate : INFINITY;
    double d2 = (p->heap2[0].finish - p->v2) / p->rate2;
    *fav = d2 < d;
    return *fav ? d2 : d;
}

static void on_complete(sim *s, void *obj);
static inline void arm_in(sim_ps *p, sim *s, double dt);

/* The first arming without a timer yet: take one (or note that none is
 * free), then arm as arm_in. */
static __attribute__((noinline)) void arm_first(sim_ps *p, sim *s, double dt)
{
    int id = sim_timer_new(s);
    p->timer = id >= 0 ? id : -2;
    arm_in(p, s, dt);
}

/* Arm the completion of the heap top, due in dt >= 0 (unless the armed
 * event comes first). */
static inline __attribute__((always_inline)) void arm_in(sim_ps *p, sim *s, double dt)
{
    double t = s->now + dt;
    /* the armed event comes first: it stays, and re-arms when it fires */
    int keep = p->is_armed && p->armed_t <= t;
    if (__builtin_expect(p->timer >= 0, 1)) {
        /* the CPU's timer: its earlier firing, if any, is replaced */
        if (keep)
            return;
        p->armed = sim_timer_set(s, p->timer, t, 0, on_complete, p);
        p->armed_t = t;
        p->is_armed = 1;
        return;
    }
    if (p->timer == -1) {
        arm_first(p, s, dt);
        return;
    }
    if (keep)
        return;
    /* without a free timer, an event whose predecessor goes stale */
    p->armed = sim_after(s, dt, 0, on_complete, p);
    p->armed_t = t;
    p->is_armed = 1;
}

static inline __attribute__((always_inline)) void arm(sim_ps *p, sim *s)
{
    if (p->n == 0 && p->n2 == 0) {
        if (p->is_armed && p->timer >= 0)
            sim_timer_clear(s, p->timer);
        p->is_armed = 0;
        return;
    }
    int fav;
    double dt = __builtin_expect(p->n2 == 0, 1) ? per_rate(p, p->heap[0].finish - p->v)
                                                 : next_dt_mixed(p, &fav);
    arm_in(p, s, dt < 0 ? 0 : dt);
}

/* The job set changed (n or spin): the rate, min(1, K/m) with m = jobs +
 * spinners, 0 without jobs, from the table that init fills for small m (a
 * division costs as much as the rest of a submit), and the counts over
 * time, m computed once.  Every change of the job set comes here before
 * anything reads the rate. */
static inline __attribute__((always_inline)) void set_counts(sim_ps *p, double now)
{
    size_t m = p->n + p->n2 + (size_t)p->spin;
    double r = m < SIM_PS_RATES ? p->rates[m] : rate_of(p, m);
    if (__builtin_expect(p->n2 == 0, 1)) {
        p->rate = p->n == 0 ? 0 : r;
        p->rate2 = 0;
    } else {
        /* cap(m) = m r cores: the others at ro each, the favoured at
         * weight x ro, at most 1 each (then the others share the rest) */
        double cap = r * (double)m, others = (double)(p->n + (size_t)p->spin);
        double ro = cap / (p->weight * (double)p->n2 + others), rf = p->weight * ro;
        if (rf > 1) {
            rf = 1;
            ro = others > 0 ? (cap - (double)p->n2) / others : 0;
        }
        p->rate = p->n == 0 ? 0 : ro;
        p->rate2 = rf;
    }
    double n = (double)m;
    /* sim_tavg_set on both, the interval computed once: they change
     * together (here, in init and in reset_stats), so they share t_last
     * and the one assertion covers both */
    assert(now >= p->njobs.t_last);
    double dt = now - p->njobs.t_last;
    p->njobs.area += p->njobs.v * dt;
    p->njobs.t_last = now;
    p->njobs.v = n;
    p->nbusy.area += p->nbusy.v * dt;
    p->nbusy.t_last = now;
    /* cores in use: min(m, K), or cap(m) = m x its rate with stacking */
    p->nbusy.v = p->stacking > 0 ? n * r : n < p->cores ? n : p->cores;
}

/* The rest of a completion that finds more jobs at their finish point
 * (within eps of V) after the first, top, has left: they leave too, in
 * finish order, up to 16 in all; then as on_complete. */
static __attribute__((noinline)) void complete_many(sim_ps *p, sim *s, const sim_ps_job *top,
                                                    double eps)
{
    size_t k = 1;
    sim_ps_job done[16];
    done[0] = *top;
    do
        heap_pop(p, &done[k++]);
    while (p->n && p->heap[0].finish <= p->v + eps && k < 16);
    if (done[k - 1].finish > p->v)
        p->v = done[k - 1].finish;
    if (p->n == 0)
        p->v = 0;
    p->completions += k;
    set_counts(p, s->now);
    arm(p, s);
    for (size_t i = 0; i < k; i++) {
        p->resp_sum += s->now - done[i].t;
        if (done[i].fn)
            done[i].fn(s, done[i].obj);
    }
}

/* A heap's top job, top, has left it: its virtual time *v reaches the
 * job's finish point (rounding may have left it a hair short), and
 * restarts at 0 when the heap is empty (n jobs left), so that it stays
 * small (precise). */
static inline __attribute__((always_inline)) void reach(double *v, size_t n,
                                                        const sim_ps_job *top)
{
    *v = top->finish > *v ? top->finish : *v;
    if (n == 0)
        *v = 0;
}

/* One job, top, has left its heap (V updated): count it, set the rates
 * and the next completion, then call its callback (the CPU state is
 * consistent by then). */
static inline __attribute__((always_inline)) void leave(sim_ps *p, sim *s, const sim_ps_job *top)
{
    p->completions++;
    set_counts(p, s->now);
    arm(p, s);
    p->resp_sum += s->now - top->t;
    if (top->fn)
        top->fn(s, top->obj);
}

/* A completion with favoured jobs present: the earlier of the two heaps'
 * tops leaves (one job per event; others due at the same time get their
 * own events, at once). */
static __attribute__((noinline)) void complete_mixed(sim_ps *p, sim *s)
{
    int fav;
    double dt = next_dt_mixed(p, &fav);
    if (dt > 4 * DBL_EPSILON * (s->now > 1.0 ? s->now : 1.0)) {
        arm_in(p, s, dt); /* fired early: arrivals slowed the top job down */
        return;
    }
    sim_ps_job top;
    if (fav) {
        heap_pop_in(p->heap2, &p->n2, &top);
        reach(&p->v2, p->n2, &top);
    } else {
        heap_pop(p, &top);
        reach(&p->v, p->n, &top);
    }
    leave(p, s, &top);
}

static void on_complete(sim *s, void *obj)
{
    sim_ps *p = obj;
    if (!p->is_armed || s->cur_seq != p->armed)
        return; /* stale: the job set changed after this event was armed */
    advance(p, s->now);
    p->is_armed = 0;
    if (__builtin_expect(p->n2 != 0, 0)) {
        complete_mixed(p, s);
        return;
    }
    double dt = per_rate(p, p->heap[0].finish - p->v);
    double due = s->now + dt;
    if (due - s->now > 4 * DBL_EPSILON * (s->now > 1.0 ? s->now : 1.0)) {
        arm_in(p, s, dt); /* fired early: arrivals slowed the top job down */
        return;
    }
    /* The armed event is for the heap top: it leaves now even if rounding
     * left V a hair short; then everything else whose finish point is
     * reached (within a few ulps of rounding) leaves too, in finish order
     * (complete_many; rare).  Anything later gets its own event.
     * Callbacks run after the CPU state is consistent. */
    double av = fabs(p->v);
    double eps = 4 * DBL_EPSILON * (av > 1.0 ? av : 1.0);
    sim_ps_job top;
    heap_pop(p, &top);
    if (p->n && p->heap[0].finish <= p->v + eps) {
        complete_many(p, s, &top, eps);
        return;
    }
    reach(&p->v, p->n, &top);
    leave(p, s, &top);
}

/* Work submitted to a heap whose virtual time is *v (advanced to now
 * first): its finish point is *v + work. */
static inline __attribute__((always_inline)) void submit_in(sim_ps *p, sim *s, sim_ps_job **heap,
                                                           size_t *np, size_t *capp, double *v,
                                                           void *obj, double work, sim_fn fn)
{
    assert(work >= 0 && isfinite(work));
    advance(p, s->now);
    double finish = *v + work;
    sim_ps_job j = {(sim_cal_key)sim_calendar_time_bits(finish) << 64 | p->order++, finish, s->now,
                    obj, fn};
    heap_push_in(heap, np, capp, j);
    set_counts(p, s->now);
    arm(p, s);
}

void sim_ps_submit(sim_ps *p, sim *s, void *obj, double work, sim_fn fn)
{
    submit_in(p, s, &p->heap, &p->n, &p->cap, &p->v, obj, work, fn);
}

void sim_ps_submit_favoured(sim_ps *p, sim *s, void *obj, double work, sim_fn fn)
{
    if (p->weight == 1) /* ordinary: the same schedule as sim_ps_submit */
        submit_in(p, s, &p->heap, &p->n, &p->cap, &p->v, obj, work, fn);
    else
        submit_in(p, s, &p->heap2, &p->n2, &p->cap2, &p->v2, obj, work, fn);
}

void sim_ps_spin(sim_ps *p, sim *s, long delta)
{
    assert(p->spin + delta >= 0);
    advance(p, s->now);
    p->spin += delta;
    set_counts(p, s->now);
    arm(p, s);
}
