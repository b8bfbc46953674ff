/* Tests for sim_sem: permits never exceeded, FIFO grants without
 * overtaking, statistics by hand, a random workload against a FIFO twin. */
#include "tests/test_util.h"

#include <gsl/gsl_randist.h>

#include "sim/sim_rng.h"
#include "sim/sim_sem.h"

typedef struct user {
    struct world *w;
    int id;
    double want, hold, got;
} user;

typedef struct world {
    sim s;
    sim_sem m;
    int order[4096]; /* ids in grant order */
    int ngrants;
} world;

static void check_invariants(const sim_sem *m)
{
    assert_true(m->in_use >= 0 && m->in_use <= m->permits);
    assert_true(sim_queue_len(&m->wait) == 0 || m->in_use == m->permits);
    assert_true(m->max_in_use <= m->permits);
}

static void on_release(sim *s, void *obj)
{
    user *u = obj;
    sim_sem_release(&u->w->m, s);
    check_invariants(&u->w->m);
}

static void granted(sim *s, void *obj)
{
    user *u = obj;
    world *w = u->w;
    u->got = s->now;
    w->order[w->ngrants++] = u->id;
    check_invariants(&w->m);
    sim_after(s, u->hold, 0, on_release, u);
}

static void on_want(sim *s, void *obj)
{
    user *u = obj;
    if (sim_sem_acquire(&u->w->m, s, u, granted))
        granted(s, u);
    check_invariants(&u->w->m);
}

static void world_init(world *w, long permits)
{
    sim_init(&w->s, 16);
    sim_sem_init(&w->m, permits);
    w->ngrants = 0;
}

static void world_fini(world *w)
{
    sim_sem_fini(&w->m);
    sim_fini(&w->s);
}

static void schedule(world *w, user *u, int n)
{
    for (int i = 0; i < n; i++) {
        u[i].w = w;
        u[i].id = i;
        u[i].got = NAN;
        sim_at(&w->s, u[i].want, 0, on_want, &u[i]);
    }
}

/* 2 permits; users want at 0, 0, 0.5, 1 and hold 2, 3, 1, 1.
 * u0: 0-2, u1: 0-3, u2 waits 0.5-2 holds 2-3, u3 waits 1-3 holds 3-4.
 * Waits: 0, 0, 1.5, 2.  Permits in use: 2 on [0,4) minus [3,4) has 1:
 * u1 and u2 release at 3, u3 takes one: 1 on [3,4).  Area over [0,4]:
 * 2*3 + 1 = 7.  Waiting: 1 on [0.5,1), 2 on [1,2), 1 on [2,3): 0.5+2+1 = 3.5. */
static void test_by_hand(void **state)
{
    (void)state;
    user u[] = {{.want = 0, .hold = 2}, {.want = 0, .hold = 3}, {.want = 0.5, .hold = 1}, {.want = 1, .hold = 1}};
    world w;
    world_init(&w, 2);
    schedule(&w, u, 4);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    static const double got[] = {0, 0, 2, 3};
    for (int i = 0; i < 4; i++) {
        assert_close(u[i].got, got[i], 1e-12);
        assert_int_equal(w.order[i], i);
    }
    assert_int_equal(w.m.in_use, 0);
    assert_int_equal(w.m.max_in_use, 2);
    assert_int_equal(w.m.grants, 4);
    assert_int_equal(w.m.delayed, 2);
    assert_close(w.m.waitw.mean, 3.5 / 4, 1e-12);
    assert_close(w.m.waitw.max, 2, 1e-12);
    assert_close(sim_tavg_mean(&w.m.busy, 4), 7.0 / 4, 1e-12);
    assert_close(sim_tavg_mean(&w.m.nwait, 4), 3.5 / 4, 1e-12);
    sim_sem_reset_stats(&w.m, 4);
    assert_int_equal(w.m.grants, 0);
    assert_int_equal(w.m.max_in_use, 0);
    world_fini(&w);
}

/* FIFO: 1 permit, 20 users arrive one after another while it is held;
 * they get it in arrival order. */
static void test_fifo(void **state)
{
    (void)state;
    user u[20];
    for (int i = 0; i < 20; i++)
        u[i] = (user){.want = i * 0.01, .hold = 1};
    world w;
    world_init(&w, 1);
    schedule(&w, u, 20);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(w.order[i], i);
        assert_close(u[i].got, i, 1e-12);
    }
    world_fini(&w);
}

/* No overtaking: when the holder releases and, in the same event, a new
 * user asks, the permit has already been handed to the oldest waiter. */
static world *g_w;
static user g_late;

static void release_then_ask(sim *s, void *obj)
{
    user *u = obj;
    sim_sem_release(&g_w->m, s);
    assert_int_equal(g_w->m.in_use, 1); /* handed over, not freed */
    g_late.w = g_w;
    g_late.id = 2;
    g_late.hold = 1;
    assert_int_equal(sim_sem_acquire(&g_w->m, s, &g_late, granted), 0);
    (void)u;
}

static void test_no_overtaking(void **state)
{
    (void)state;
    world w;
    g_w = &w;
    world_init(&w, 1);
    user u[2] = {{.want = 0, .hold = 1}, {.want = 0.5, .hold = 1}};
    u[0].w = u[1].w = &w;
    u[0].id = 0;
    u[1].id = 1;
    assert_int_equal(sim_sem_acquire(&w.m, &w.s, &u[0], granted), 1);
    u[0].got = 0;
    w.order[w.ngrants++] = 0;
    sim_at(&w.s, 0.5, 0, on_want, &u[1]);
    sim_at(&w.s, 1, 0, release_then_ask, &u[0]);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.ngrants, 3);
    assert_int_equal(w.order[1], 1);
    assert_int_equal(w.order[2], 2);
    assert_close(u[1].got, 1, 0);
    assert_close(g_late.got, 2, 0);
    world_fini(&w);
}

/* Random users on 3 permits: grants follow the FIFO twin (a user starts
 * at max(want, the earliest time one of the permits comes back), in order
 * of asking), and in-use never exceeds the permits (checked in every
 * callback). */
static void test_random_vs_twin(void **state)
{
    (void)state;
    enum { N = 2000, P = 3 };
    static user u[N];
    gsl_rng *r = sim_rng_new(77, 0, 0);
    double t = 0;
    for (int i = 0; i < N; i++) {
        t += gsl_ran_exponential(r, 1.0 / 2.5);
        u[i] = (user){.want = t, .hold = gsl_ran_exponential(r, 1.0)};
    }
    gsl_rng_free(r);
    world w;
    world_init(&w, P);
    schedule(&w, u, N);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    double back[P] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < N; i++) {
        int k0 = 0;
        for (int k = 1; k < P; k++)
            if (back[k] < back[k0])
                k0 = k;
        double start = fmax(u[i].want, back[k0]);
        if (fabs(u[i].got - start) > 1e-9 * start)
            fail_msg("user %d: granted at %.12g, twin says %.12g", i, u[i].got, start);
        back[k0] = start + u[i].hold;
        assert_int_equal(w.order[i], i);
    }
    assert_int_equal(w.m.grants, N);
    assert_int_equal(w.m.max_in_use, P);
    assert_int_equal(w.m.in_use, 0);
    world_fini(&w);
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_no_overtaking),
        cmocka_unit_test(test_random_vs_twin),
    };
    return cmocka_run_group_tests_name("sim_sem", tests, NULL, NULL);
}
