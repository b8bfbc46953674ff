/* fel_cases.h: the known answers every future-event list of the kernel
 * gives (sim_calendar, the heap in use; sim_cq, the calendar queue kept as
 * a measurement), written once for both.  Randomised checks against a
 * naive twin stay in each test file: their structures differ.
 *
 * The includer defines, before including this file:
 *   FEL                      the list's type
 *   FEL_INIT(q, cap)         initialise *q (caller storage) for cap events
 *   FEL_PUSH(q, t, prio, fn, obj)
 *   FEL_POP(q, e)            1 and the least event into *e, or 0 when empty
 *   FEL_FINI(q)
 * It also gives both files their twin's event and order (twin_ev,
 * twin_less), the workloads' generator (splitmix64: rs, rnd_u64,
 * rnd_below) and two event functions (fn_a, fn_b).  Each test owns its
 * list. */
#ifndef FEL_CASES_H
#define FEL_CASES_H

#include <math.h>
#include <stdint.h>

typedef struct twin_ev {
    double t;
    unsigned prio;
    uint64_t seq;
} twin_ev;

/* The order every list keeps: (time, priority, insertion sequence). */
static int twin_less(const twin_ev *x, const twin_ev *y)
{
    if (x->t != y->t)
        return x->t < y->t;
    if (x->prio != y->prio)
        return x->prio < y->prio;
    return x->seq < y->seq;
}

/* Small deterministic generator for the workloads (splitmix64). */
static uint64_t rs;
static uint64_t rnd_u64(void)
{
    uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static unsigned rnd_below(unsigned n) { return (unsigned)(rnd_u64() % n); }

static void fn_a(struct sim *s, void *obj)
{
    (void)s;
    (void)obj;
}
static void fn_b(struct sim *s, void *obj)
{
    (void)s;
    (void)obj;
}

/* Equal times and priorities come out in insertion order. */
static void fel_test_fifo_ties(void **state)
{
    (void)state;
    FEL q;
    FEL_INIT(&q, 2);
    for (uintptr_t i = 0; i < 1000; i++)
        FEL_PUSH(&q, 1.0, 7, fn_a, (void *)(i + 1));
    sim_event e;
    for (uintptr_t i = 0; i < 1000; i++) {
        assert_int_equal(FEL_POP(&q, &e), 1);
        assert_ptr_equal(e.obj, (void *)(i + 1));
        assert_int_equal(e.key >> 48, 7);
    }
    assert_int_equal(FEL_POP(&q, &e), 0);
    FEL_FINI(&q);
}

/* Lower priority first at equal times, whatever the insertion order. */
static void fel_test_prio(void **state)
{
    (void)state;
    FEL q;
    FEL_INIT(&q, 8);
    FEL_PUSH(&q, 2.0, 0, fn_a, (void *)5);
    FEL_PUSH(&q, 1.0, SIM_PRIO_MAX, fn_a, (void *)3);
    FEL_PUSH(&q, 1.0, 1, fn_a, (void *)2);
    FEL_PUSH(&q, 1.0, 0, fn_a, (void *)1);
    FEL_PUSH(&q, 1.0, SIM_PRIO_MAX, fn_a, (void *)4);
    sim_event e;
    for (uintptr_t i = 1; i <= 5; i++) {
        assert_int_equal(FEL_POP(&q, &e), 1);
        assert_ptr_equal(e.obj, (void *)i);
    }
    assert_int_equal(FEL_POP(&q, &e), 0);
    FEL_FINI(&q);
}

/* Times of every sign and size, -0 == +0, infinities: popped values are
 * bit-identical to what was pushed (apart from -0) and in double order. */
static const double fel_times[] = {INFINITY, 1e300,   3.5,     1.0,   5e-324, 0.0,
                                   -0.0,     -5e-324, -1e-300, -2.25, -1e300, -INFINITY};
#define FEL_NTIMES (sizeof fel_times / sizeof fel_times[0])

static void fel_test_time_encoding(void **state)
{
    (void)state;
    FEL q;
    FEL_INIT(&q, 1);
    for (size_t i = 0; i < FEL_NTIMES; i++)
        FEL_PUSH(&q, fel_times[i], 0, fn_a, (void *)(i + 1));
    sim_event e;
    for (size_t i = FEL_NTIMES; i-- > 0;) {
        assert_int_equal(FEL_POP(&q, &e), 1);
        if (fel_times[i] == 0) {
            /* +0 (pushed first) then -0, both popped as +0: equal times
             * keep insertion order */
            assert_true(e.t == 0 && !signbit(e.t));
            assert_ptr_equal(e.obj, (void *)(uintptr_t)(i == 6 ? 6 : 7));
        } else {
            assert_memory_equal(&e.t, &fel_times[i], sizeof e.t);
            assert_ptr_equal(e.obj, (void *)(i + 1));
        }
    }
    assert_int_equal(FEL_POP(&q, &e), 0);
    FEL_FINI(&q);
}

#endif
