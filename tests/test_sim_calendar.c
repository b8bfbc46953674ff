/* Tests for sim_calendar: pop order against a naive twin (an array kept
 * sorted by (time, prio, seq)) on random workloads with many equal times
 * and priorities, also with movable timers; sequence numbers, growth, the
 * time encoding. */
#include "tests/test_util.h"

#include "sim/sim_calendar.h"

#define FEL sim_calendar
#define FEL_INIT(q, cap) sim_calendar_init(q, cap)
#define FEL_PUSH(q, t, prio, fn, obj) sim_calendar_push(q, t, prio, fn, obj)
#define FEL_POP(q, e) sim_calendar_pop(q, e)
#define FEL_FINI(q) sim_calendar_fini(q)
#include "tests/fel_cases.h"

/* The twin: events sorted in decreasing (t, prio, seq) order, so the least
 * one is at the end; insertion by binary search and memmove. */
typedef struct twin {
    twin_ev *a;
    size_t n, cap;
} twin;

static void twin_push(twin *w, twin_ev e)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->a = realloc(w->a, w->cap * sizeof *w->a);
        assert_non_null(w->a);
    }
    /* first index whose element is less than e (elements are decreasing) */
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (twin_less(&w->a[mid], &e))
            hi = mid;
        else
            lo = mid + 1;
    }
    memmove(&w->a[lo + 1], &w->a[lo], (w->n - lo) * sizeof *w->a);
    w->a[lo] = e;
    w->n++;
}

static twin_ev twin_pop(twin *w)
{
    assert_true(w->n > 0);
    return w->a[--w->n];
}

/* The calendar under test and its twin, fed the same operations. */
typedef struct pair {
    sim_calendar c;
    twin w;
    uint64_t pushes, pops;
    double last_t; /* time of the last pop */
} pair;

static void pair_init(pair *p, size_t cap_hint)
{
    sim_calendar_init(&p->c, cap_hint);
    memset(&p->w, 0, sizeof p->w);
    p->pushes = p->pops = 0;
    p->last_t = 0;
}

static void pair_fini(pair *p)
{
    sim_calendar_fini(&p->c);
    free(p->w.a);
}

/* The payload encodes the sequence number so that it can be checked. */
static void pair_push(pair *p, double t, unsigned prio)
{
    uint64_t seq = sim_calendar_push(&p->c, t, prio, (p->pushes & 1) ? fn_b : fn_a,
                                     (void *)(uintptr_t)(p->pushes + 1));
    assert_int_equal(seq, p->pushes); /* unique and increasing: 0, 1, 2, ... */
    twin_push(&p->w, (twin_ev){t, prio, seq});
    p->pushes++;
    assert_int_equal(sim_calendar_size(&p->c), p->w.n);
}

static void pair_pop(pair *p)
{
    sim_event e;
    if (p->w.n == 0) {
        assert_int_equal(sim_calendar_pop(&p->c, &e), 0);
        return;
    }
    /* peek on every third pop only, so that pops also meet the root left
     * empty by the previous pop (peek fills it) */
    double peek = p->pops % 3 == 0 ? sim_calendar_peek_time(&p->c) : NAN;
    twin_ev x = twin_pop(&p->w);
    assert_int_equal(sim_calendar_pop(&p->c, &e), 1);
    if (e.t != x.t || (e.key & SIM_SEQ_MASK) != x.seq || (e.key >> 48) != x.prio)
        fail_msg("pop %llu: got (t=%.17g, prio=%llu, seq=%llu), twin says (t=%.17g, prio=%u, seq=%llu)",
                 (unsigned long long)p->pops, e.t, (unsigned long long)(e.key >> 48),
                 (unsigned long long)(e.key & SIM_SEQ_MASK), x.t, x.prio, (unsigned long long)x.seq);
    assert_true(isnan(peek) || peek == e.t);
    assert_ptr_equal(e.obj, (void *)(uintptr_t)(x.seq + 1));
    assert_true(e.fn == ((x.seq & 1) ? fn_b : fn_a));
    assert_int_equal(sim_calendar_size(&p->c), p->w.n);
    p->last_t = e.t;
    p->pops++;
}

static void pair_drain(pair *p)
{
    while (p->w.n)
        pair_pop(p);
    pair_pop(p); /* both empty */
    assert_int_equal(p->pops, p->pushes);
}

/* A time on a coarse grid (many equal times).  mode 0: anywhere in
 * [-grid/4, grid) (times below the current least event, negative times);
 * mode 1: the last popped time plus a grid step, as a simulation does. */
static double draw_time(const pair *p, int mode, unsigned grid)
{
    if (mode == 0)
        return (double)((int)rnd_below(grid + grid / 4) - (int)(grid / 4)) * 0.5;
    return p->last_t + (double)rnd_below(grid) * 0.25;
}

/* Priorities: mostly 0..2 (ties), sometimes the extremes. */
static unsigned draw_prio(void)
{
    unsigned r = rnd_below(20);
    return r < 18 ? r % 3 : (r == 18 ? 0 : SIM_PRIO_MAX);
}

/* Random interleaving of pushes (probability p_push) and pops; then drain. */
static void random_workload(uint64_t seed, size_t ops, double p_push, unsigned grid, int mode)
{
    rs = seed;
    pair p;
    pair_init(&p, 4);
    for (size_t i = 0; i < ops; i++) {
        if ((double)(rnd_u64() >> 11) * 0x1.0p-53 < p_push)
            pair_push(&p, draw_time(&p, mode, grid), draw_prio());
        else
            pair_pop(&p);
    }
    pair_drain(&p);
    pair_fini(&p);
}

/* ---- timers: movable events beside the heap ---- */

static void twin_remove(twin *w, uint64_t seq)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->a[i].seq == seq) {
            memmove(&w->a[i], &w->a[i + 1], (w->n - i - 1) * sizeof *w->a);
            w->n--;
            return;
        }
    fail_msg("seq %llu not in the twin", (unsigned long long)seq);
}

/* Random pushes, pops, timer sets (replacing a pending firing) and timer
 * clears against the twin, where setting a timer removes its pending
 * firing and inserts the new one: the pop order must be the twin's. */
static void timer_workload(uint64_t seed, size_t ops, unsigned grid)
{
    rs = seed;
    pair p;
    pair_init(&p, 4);
    uint64_t tseq[SIM_CAL_TIMERS];
    int tarmed[SIM_CAL_TIMERS] = {0};
    for (int k = 0; k < SIM_CAL_TIMERS; k++)
        assert_int_equal(sim_calendar_timer_new(&p.c), k);
    assert_int_equal(sim_calendar_timer_new(&p.c), -1);
    size_t removed = 0;
    for (size_t i = 0; i < ops; i++) {
        unsigned r = rnd_below(10);
        int k = (int)rnd_below(SIM_CAL_TIMERS);
        if (r < 4) {
            pair_push(&p, draw_time(&p, 1, grid), draw_prio());
        } else if (r < 7) {
            if (p.w.n) {
                uint64_t next = p.w.a[p.w.n - 1].seq;
                pair_pop(&p);
                for (int j = 0; j < SIM_CAL_TIMERS; j++)
                    if (tarmed[j] && tseq[j] == next)
                        tarmed[j] = 0;
            }
        } else if (r < 9) {
            if (tarmed[k]) {
                twin_remove(&p.w, tseq[k]);
                removed++;
            }
            double t = draw_time(&p, 1, grid);
            unsigned prio = draw_prio();
            uint64_t seq = sim_calendar_timer_set(&p.c, k, t, prio, (p.pushes & 1) ? fn_b : fn_a,
                                                  (void *)(uintptr_t)(p.pushes + 1));
            assert_int_equal(seq, p.pushes); /* numbered with the pushes */
            twin_push(&p.w, (twin_ev){t, prio, seq});
            p.pushes++;
            tseq[k] = seq;
            tarmed[k] = 1;
            assert_int_equal(sim_calendar_size(&p.c), p.w.n);
        } else if (tarmed[k]) {
            sim_calendar_timer_clear(&p.c, k);
            twin_remove(&p.w, tseq[k]);
            removed++;
            tarmed[k] = 0;
            assert_int_equal(sim_calendar_size(&p.c), p.w.n);
        }
    }
    while (p.w.n)
        pair_pop(&p);
    pair_pop(&p); /* both empty */
    assert_int_equal(p.pops + removed, p.pushes);
    pair_fini(&p);
}

static void test_timers(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 100; seed++)
        timer_workload(seed, 400, seed & 1 ? 4 : 40);
    timer_workload(7, 20000, 100);
    /* clear drops the pending firings; the timers stay handed out */
    sim_calendar c;
    sim_calendar_init(&c, 4);
    int id = sim_calendar_timer_new(&c);
    sim_calendar_timer_set(&c, id, 1.0, 0, fn_a, NULL);
    sim_calendar_push(&c, 2.0, 0, fn_b, NULL);
    assert_int_equal(sim_calendar_size(&c), 2);
    assert_true(sim_calendar_peek_time(&c) == 1.0);
    sim_calendar_clear(&c);
    assert_int_equal(sim_calendar_size(&c), 0);
    sim_event e;
    assert_int_equal(sim_calendar_pop(&c, &e), 0);
    sim_calendar_timer_set(&c, id, 3.0, 0, fn_a, NULL);
    assert_int_equal(sim_calendar_pop(&c, &e), 1);
    assert_true(e.t == 3.0 && e.fn == fn_a);
    sim_calendar_fini(&c);
}

static void test_random_small(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        random_workload(seed, 40, 0.55, 4, (int)(seed & 1));
        random_workload(seed, 200, 0.6, 10, (int)(seed & 1));
    }
}

static void test_random_1e3(void **state)
{
    (void)state;
    /* pending grows to about ops * (2 p_push - 1) = 1e3 */
    for (uint64_t seed = 11; seed <= 16; seed++)
        random_workload(seed, 10000, 0.55, seed & 1 ? 20 : 400, (int)(seed & 1));
}

static void test_random_1e4(void **state)
{
    (void)state;
    for (uint64_t seed = 21; seed <= 22; seed++)
        random_workload(seed, 50000, 0.6, seed & 1 ? 30 : 2000, (int)(seed & 1));
}

/* 1e5 pending: fill (times on a grid of 1000 values: ~100 ties each), hold
 * (pop the least, push at its time plus 0..3 quarter steps, as the hold
 * model does), drain. */
static void test_hold_1e5(void **state)
{
    (void)state;
    rs = 99;
    pair p;
    pair_init(&p, 16);
    for (size_t i = 0; i < 100000; i++)
        pair_push(&p, (double)rnd_below(1000), draw_prio());
    assert_true(p.c.cap >= 100000);
    for (size_t i = 0; i < 200000; i++) {
        pair_pop(&p);
        pair_push(&p, p.last_t + 0.25 * rnd_below(4), draw_prio());
    }
    pair_drain(&p);
    pair_fini(&p);
}

/* Push 1e5 in random order (all equal times, then a few distinct ones),
 * pop all. */
static void test_bulk_1e5(void **state)
{
    (void)state;
    rs = 7;
    pair p;
    pair_init(&p, 1);
    for (size_t i = 0; i < 100000; i++)
        pair_push(&p, i % 3 ? 5.0 : (double)rnd_below(50), draw_prio());
    pair_drain(&p);
    pair_fini(&p);
}

/* Growth from capacity 1 and reuse after clear: clear keeps the memory and
 * the sequence counter. */
static void test_growth_and_clear(void **state)
{
    (void)state;
    sim_calendar c;
    sim_calendar_init(&c, 0);
    assert_int_equal(c.cap, 1);
    for (int i = 0; i < 5000; i++)
        sim_calendar_push(&c, (double)(i % 17), 0, fn_a, NULL);
    size_t cap = c.cap;
    assert_true(cap >= 5000);
    sim_calendar_clear(&c);
    assert_int_equal(sim_calendar_size(&c), 0);
    sim_event e;
    assert_int_equal(sim_calendar_pop(&c, &e), 0);
    assert_int_equal(sim_calendar_push(&c, 1.0, 0, fn_a, NULL), 5000);
    assert_int_equal(c.cap, cap);
    assert_int_equal(sim_calendar_pop(&c, &e), 1);
    assert_int_equal(e.key & SIM_SEQ_MASK, 5000);
    sim_calendar_fini(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fel_test_fifo_ties),
        cmocka_unit_test(fel_test_prio),
        cmocka_unit_test(fel_test_time_encoding),
        cmocka_unit_test(test_growth_and_clear),
        cmocka_unit_test(test_timers),
        cmocka_unit_test(test_random_small),
        cmocka_unit_test(test_random_1e3),
        cmocka_unit_test(test_random_1e4),
        cmocka_unit_test(test_bulk_1e5),
        cmocka_unit_test(test_hold_1e5),
    };
    return cmocka_run_group_tests_name("sim_calendar", tests, NULL, NULL);
}
