/* Tests for sim_cq, the calendar queue: pop order against a naive twin (a
 * plain array scanned for the least (time, prio, seq)) on long random
 * sequences with fixed seeds: many equal times, bursts, negative times and
 * pushes below the last popped time, growth to 1e5 and shrinking back,
 * hold phases with exponential, uniform and constant increments, a shift
 * of the increments' scale (the width re-fitted); small known cases. */
#include "tests/test_util.h"

#include "sim/sim_cq.h"

#define FEL sim_cq
#define FEL_INIT(q, cap) sim_cq_init(q, cap)
#define FEL_PUSH(q, t, prio, fn, obj) sim_cq_push(q, t, prio, fn, obj)
#define FEL_POP(q, e) sim_cq_pop(q, e)
#define FEL_FINI(q) sim_cq_fini(q)
#include "tests/fel_cases.h"

/* The twin: events in arrival order, unsorted; a pop scans for the least
 * one and moves the last into its place.  The scan is cut into blocks of
 * TWIN_B, each with the index of its least element, so that 1e5 pending
 * stay quick: a pop scans the block minima, then rescans two blocks. */
#define TWIN_B 128
typedef struct twin {
    twin_ev *a;
    size_t *bmin; /* bmin[b]: index of the least element of block b */
    size_t n, cap;
} twin;

static void twin_rescan(twin *w, size_t b)
{
    size_t lo = b * TWIN_B, hi = lo + TWIN_B < w->n ? lo + TWIN_B : w->n;
    if (lo >= hi)
        return;
    size_t m = lo;
    for (size_t i = lo + 1; i < hi; i++)
        if (twin_less(&w->a[i], &w->a[m]))
            m = i;
    w->bmin[b] = m;
}

static void twin_push(twin *w, twin_ev e)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : TWIN_B;
        w->a = realloc(w->a, w->cap * sizeof *w->a);
        w->bmin = realloc(w->bmin, (w->cap / TWIN_B) * sizeof *w->bmin);
        assert_true(w->a && w->bmin);
    }
    size_t i = w->n++, b = i / TWIN_B;
    w->a[i] = e;
    if (i % TWIN_B == 0 || twin_less(&e, &w->a[w->bmin[b]]))
        w->bmin[b] = i;
}

/* Index of the least element (w->n > 0). */
static size_t twin_least(const twin *w)
{
    size_t m = w->bmin[0];
    for (size_t b = 1; b * TWIN_B < w->n; b++)
        if (twin_less(&w->a[w->bmin[b]], &w->a[m]))
            m = w->bmin[b];
    return m;
}

static twin_ev twin_pop(twin *w)
{
    assert_true(w->n > 0);
    size_t m = twin_least(w);
    twin_ev x = w->a[m];
    w->a[m] = w->a[--w->n];
    twin_rescan(w, m / TWIN_B);
    twin_rescan(w, w->n / TWIN_B); /* the block that lost its last element */
    return x;
}

static double rnd_unit(void) { return (double)(rnd_u64() >> 11) * 0x1.0p-53; }
static double rnd_exp(double mean) { return -mean * log1p(-rnd_unit()); }

/* The queue under test and its twin, fed the same operations. */
typedef struct pair {
    sim_cq q;
    twin w;
    uint64_t pushes, pops;
    double last_t; /* time of the last pop */
} pair;

static void pair_init(pair *p, size_t cap_hint)
{
    sim_cq_init(&p->q, cap_hint);
    memset(&p->w, 0, sizeof p->w);
    p->pushes = p->pops = 0;
    p->last_t = 0;
}

static void pair_fini(pair *p)
{
    sim_cq_fini(&p->q);
    free(p->w.a);
    free(p->w.bmin);
}

/* The payload encodes the sequence number so that it can be checked. */
static void pair_push(pair *p, double t, unsigned prio)
{
    uint64_t seq = sim_cq_push(&p->q, t, prio, (p->pushes & 1) ? fn_b : fn_a,
                               (void *)(uintptr_t)(p->pushes + 1));
    assert_int_equal(seq, p->pushes); /* 0, 1, 2, ... */
    twin_push(&p->w, (twin_ev){t, prio, seq});
    p->pushes++;
    assert_int_equal(sim_cq_size(&p->q), p->w.n);
}

static void pair_pop(pair *p)
{
    sim_event e, pk;
    if (p->w.n == 0) {
        assert_int_equal(sim_cq_peek(&p->q, &pk), 0);
        assert_int_equal(sim_cq_pop(&p->q, &e), 0);
        return;
    }
    int peeked = p->pops % 3 == 0;
    if (peeked)
        assert_int_equal(sim_cq_peek(&p->q, &pk), 1);
    twin_ev x = twin_pop(&p->w);
    assert_int_equal(sim_cq_pop(&p->q, &e), 1);
    if (e.t != x.t || (e.key & SIM_SEQ_MASK) != x.seq || (e.key >> 48) != x.prio)
        fail_msg("pop %llu: got (t=%.17g, prio=%llu, seq=%llu), twin says (t=%.17g, prio=%u, seq=%llu)",
                 (unsigned long long)p->pops, e.t, (unsigned long long)(e.key >> 48),
                 (unsigned long long)(e.key & SIM_SEQ_MASK), x.t, x.prio, (unsigned long long)x.seq);
    if (peeked) {
        assert_true(pk.key == e.key && pk.fn == e.fn && pk.obj == e.obj);
        assert_memory_equal(&pk.t, &e.t, sizeof e.t);
    }
    assert_false(e.t == 0 && signbit(e.t)); /* -0 pops as +0 */
    assert_ptr_equal(e.obj, (void *)(uintptr_t)(x.seq + 1));
    assert_true(e.fn == ((x.seq & 1) ? fn_b : fn_a));
    assert_int_equal(sim_cq_size(&p->q), p->w.n);
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

/* Priorities: mostly 0..2 (ties), sometimes the extremes. */
static unsigned draw_prio(void)
{
    unsigned r = rnd_below(20);
    return r < 18 ? r % 3 : (r == 18 ? 0 : SIM_PRIO_MAX);
}

/* A time.  mode 0: on a grid of `grid` half steps in [-grid/8, grid/2)
 * (many equal times, negative times, times below the last popped one);
 * mode 1: the last popped time plus 0..grid-1 quarter steps, as a
 * simulation does; mode 2: the last popped time plus exp(grid);
 * mode 3: anywhere in [-grid, grid) (no ties). */
static double draw_time(const pair *p, int mode, unsigned grid)
{
    switch (mode) {
    case 0:
        return (double)((int)rnd_below(grid + grid / 4) - (int)(grid / 4)) * 0.5;
    case 1:
        return p->last_t + (double)rnd_below(grid) * 0.25;
    case 2:
        return p->last_t + rnd_exp(grid);
    default:
        return (2 * rnd_unit() - 1) * grid;
    }
}

/* Random interleaving of pushes (probability p_push) and pops, with a
 * burst of equal times now and then; then drain. */
static void random_workload(uint64_t seed, size_t ops, double p_push, unsigned grid, int mode)
{
    rs = seed;
    pair p;
    pair_init(&p, 4);
    for (size_t i = 0; i < ops; i++) {
        if (rnd_below(200) == 0) {
            /* a burst: many events at one time, mixed priorities */
            double t = draw_time(&p, mode, grid);
            for (unsigned j = rnd_below(300); j > 0; j--)
                pair_push(&p, t, draw_prio());
        } else if (rnd_unit() < p_push) {
            pair_push(&p, draw_time(&p, mode, grid), draw_prio());
        } else {
            pair_pop(&p);
        }
    }
    pair_drain(&p);
    pair_fini(&p);
}

static void test_random_small(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++)
        for (int mode = 0; mode < 4; mode++) {
            random_workload(seed, 40, 0.55, 4, mode);
            random_workload(seed, 300, 0.6, seed & 1 ? 3 : 40, mode);
        }
}

static void test_random_1e3(void **state)
{
    (void)state;
    for (uint64_t seed = 11; seed <= 14; seed++)
        for (int mode = 0; mode < 4; mode++)
            random_workload(seed, 20000, 0.55, seed & 1 ? 20 : 400, mode);
}

static void test_random_1e4(void **state)
{
    (void)state;
    for (int mode = 0; mode < 4; mode++)
        random_workload(21 + (uint64_t)mode, 60000, 0.6, mode == 2 ? 1 : 2000, mode);
}

enum { INC_EXP, INC_UNIFORM, INC_CONST };

static double increment(int kind, double scale)
{
    switch (kind) {
    case INC_EXP:
        return rnd_exp(scale);
    case INC_UNIFORM:
        return 2 * scale * rnd_unit();
    default:
        return scale;
    }
}

/* Hold model at `pending` events: pop the least, push it back later by an
 * increment of the given kind; the pool and the buckets must not move
 * (no allocation after warm-up). */
static void hold_phase(pair *p, size_t holds, int kind, double scale)
{
    const sim_cq_item *item = p->q.item;
    const sim_cq_bucket *b = p->q.b;
    for (size_t i = 0; i < holds; i++) {
        pair_pop(p);
        pair_push(p, p->last_t + increment(kind, scale), draw_prio());
    }
    assert_ptr_equal(p->q.item, item);
    assert_ptr_equal(p->q.b, b);
}

static void test_hold(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 2, 10, 100, 1000, 20000};
    for (int kind = INC_EXP; kind <= INC_CONST; kind++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            rs = 1000 + (uint64_t)(kind * 10) + s;
            pair p;
            pair_init(&p, 1);
            for (size_t i = 0; i < sizes[s]; i++)
                pair_push(&p, increment(kind, 1.0), draw_prio());
            hold_phase(&p, sizes[s] < 1000 ? 20000 : 3 * sizes[s], kind, 1.0);
            pair_drain(&p);
            pair_fini(&p);
        }
}

/* The increments' scale moves by 1e4 up at a constant count (far more
 * empty buckets per pop), then every event is replaced by one in a narrow
 * band beyond them all (far more events per bucket): both times the width
 * must be re-fitted (no resize would do it). */
static void test_refit(void **state)
{
    (void)state;
    rs = 5;
    pair p;
    pair_init(&p, 1);
    for (size_t i = 0; i < 2000; i++)
        pair_push(&p, rnd_exp(1), 0);
    hold_phase(&p, 20000, INC_EXP, 1.0);
    double w0 = p.q.w;
    hold_phase(&p, 40000, INC_EXP, 1e4);
    double w1 = p.q.w;
    assert_true(w1 > 100 * w0);
    double far = 0;
    for (size_t i = 0; i < p.w.n; i++)
        far = fmax(far, p.w.a[i].t);
    for (size_t i = 0; i < 4000; i++) {
        pair_pop(&p);
        pair_push(&p, far + 1 + rnd_unit(), draw_prio());
    }
    assert_true(p.q.w < w1 / 100);
    pair_drain(&p);
    pair_fini(&p);
}

/* Growth to 1e5 pending (exp increments from a moving time, ties from a
 * coarse grid), a hold phase, shrinking back to 10, growth again. */
static void test_grow_shrink_1e5(void **state)
{
    (void)state;
    rs = 99;
    pair p;
    pair_init(&p, 1);
    for (int round = 0; round < 2; round++) {
        while (p.w.n < 100000) {
            if (rnd_below(4))
                pair_push(&p, p.last_t + (round ? floor(rnd_exp(50)) : rnd_exp(1)), draw_prio());
            else
                pair_pop(&p);
        }
        assert_true(p.q.nb >= 100000 / 2);
        /* constant increments on integer times: long runs of ties */
        hold_phase(&p, round ? 20000 : 100000, round ? INC_CONST : INC_UNIFORM, 1.0);
        while (p.w.n > 10) {
            if (rnd_below(4))
                pair_pop(&p);
            else
                pair_push(&p, p.last_t + rnd_exp(1), draw_prio());
        }
        assert_true(p.q.nb <= 32);
    }
    pair_drain(&p);
    pair_fini(&p);
}

/* 2e4 pushes in random order, two thirds at one time with mixed
 * priorities (the calendar queue's worst case: one long list), drained. */
static void test_bulk_2e4(void **state)
{
    (void)state;
    rs = 7;
    pair p;
    pair_init(&p, 1);
    for (size_t i = 0; i < 20000; i++)
        pair_push(&p, i % 3 ? 5.0 : (double)rnd_below(50) - 10, draw_prio());
    pair_drain(&p);
    pair_fini(&p);
}

/* The known answers' times of every sign and size among 300 ordinary
 * ones (the width fitted to those), against the twin. */
static void test_time_encoding_mixed(void **state)
{
    (void)state;
    const size_t n = FEL_NTIMES;
    const double *ts = fel_times;
    rs = 3;
    pair p;
    pair_init(&p, 1);
    for (int i = 0; i < 300; i++)
        pair_push(&p, 10 + i * 0.01, draw_prio());
    for (size_t i = 0; i < n; i++)
        pair_push(&p, ts[i], draw_prio());
    for (int i = 0; i < 200; i++) {
        pair_pop(&p);
        pair_push(&p, ts[rnd_below((unsigned)n)], draw_prio());
    }
    pair_drain(&p);
    pair_fini(&p);
}

/* clear keeps the memory and the sequence counter. */
static void test_clear(void **state)
{
    (void)state;
    sim_cq q;
    sim_cq_init(&q, 0);
    for (int i = 0; i < 5000; i++)
        sim_cq_push(&q, (double)(i % 17), 0, fn_a, NULL);
    const sim_cq_item *item = q.item;
    sim_cq_clear(&q);
    assert_int_equal(sim_cq_size(&q), 0);
    sim_event e;
    assert_int_equal(sim_cq_pop(&q, &e), 0);
    assert_int_equal(sim_cq_push(&q, -3.0, 0, fn_a, NULL), 5000);
    assert_int_equal(sim_cq_push(&q, -4.0, 0, fn_b, NULL), 5001);
    assert_ptr_equal(q.item, item);
    assert_int_equal(sim_cq_pop(&q, &e), 1);
    assert_true(e.t == -4.0 && e.fn == fn_b && (e.key & SIM_SEQ_MASK) == 5001);
    assert_int_equal(sim_cq_pop(&q, &e), 1);
    assert_true(e.t == -3.0 && e.fn == fn_a);
    assert_int_equal(sim_cq_pop(&q, &e), 0);
    sim_cq_fini(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fel_test_fifo_ties),
        cmocka_unit_test(fel_test_prio),
        cmocka_unit_test(fel_test_time_encoding),
        cmocka_unit_test(test_time_encoding_mixed),
        cmocka_unit_test(test_clear),
        cmocka_unit_test(test_random_small),
        cmocka_unit_test(test_random_1e3),
        cmocka_unit_test(test_random_1e4),
        cmocka_unit_test(test_hold),
        cmocka_unit_test(test_refit),
        cmocka_unit_test(test_bulk_2e4),
        cmocka_unit_test(test_grow_shrink_1e5),
    };
    return cmocka_run_group_tests_name("sim_cq", tests, NULL, NULL);
}
