/* Tests for sim.c: event order with equal times and priorities, events
 * scheduled from callbacks, the max_events and t_end bounds, sim_stop,
 * max_pending, the progress hook, sim_reset, cur_seq. */
#include "tests/test_util.h"

#include "sim/sim.h"

typedef struct rec {
    int ids[256];
    double at[256];
    int n;
} rec;

static rec g;

typedef struct ev {
    int id;
    uint64_t seq;
} ev;

static void log_ev(sim *s, void *obj)
{
    ev *e = obj;
    assert_int_equal(s->cur_seq, e->seq);
    if (g.n)
        assert_true(s->now >= g.at[g.n - 1]); /* time never goes back */
    g.ids[g.n] = e->id;
    g.at[g.n++] = s->now;
}

/* (time, prio, insertion) order. */
static void test_order(void **state)
{
    (void)state;
    g.n = 0;
    sim s;
    sim_init(&s, 4);
    static ev e[8];
    /* id = expected position */
    static const struct {
        double t;
        unsigned prio;
        int id;
    } plan[] = {{2, 0, 6}, {1, 5, 3}, {1, 0, 0}, {1, 1, 2}, {1, 0, 1}, {1, 5, 4}, {1.5, 9, 5}, {2, 1, 7}};
    for (int i = 0; i < 8; i++) {
        e[i].id = plan[i].id;
        e[i].seq = sim_at(&s, plan[i].t, plan[i].prio, log_ev, &e[i]);
    }
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(g.n, 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(g.ids[i], i);
    assert_close(s.now, 2, 0);
    assert_int_equal(s.nevents, 8);
    sim_fini(&s);
}

/* Events scheduled from a callback at the current time: they run after
 * the already-scheduled events with the same time and priority, but
 * before those with a higher priority number. */
static ev spawn_child = {100, 0};

static void spawner(sim *s, void *obj)
{
    log_ev(s, obj);
    spawn_child.seq = sim_after(s, 0, 1, log_ev, &spawn_child);
}

static void test_schedule_now(void **state)
{
    (void)state;
    g.n = 0;
    sim s;
    sim_init(&s, 4);
    static ev a = {1, 0}, b = {2, 0}, c = {3, 0};
    a.seq = sim_at(&s, 1, 1, spawner, &a);
    b.seq = sim_at(&s, 1, 1, log_ev, &b);
    c.seq = sim_at(&s, 1, 2, log_ev, &c);
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_EMPTY);
    static const int want[] = {1, 2, 100, 3};
    assert_int_equal(g.n, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(g.ids[i], want[i]);
    sim_fini(&s);
}

/* A chain: each event schedules the next one 1 time unit later. */
static int chain_left;
static void chain(sim *s, void *obj)
{
    (void)obj;
    if (--chain_left > 0)
        sim_after(s, 1, 0, chain, NULL);
}

static void test_max_events(void **state)
{
    (void)state;
    sim s;
    sim_init(&s, 4);
    chain_left = 20;
    sim_at(&s, 0, 0, chain, NULL);
    s.max_events = 10;
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_EVENTS);
    assert_int_equal(s.nevents, 10);
    assert_close(s.now, 9, 0);
    assert_int_equal(sim_calendar_size(&s.cal), 1);
    /* still at the bound: returns at once */
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_EVENTS);
    assert_int_equal(s.nevents, 10);
    s.max_events = 0;
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(s.nevents, 20);
    assert_close(s.now, 19, 0);
    sim_fini(&s);
}

static void test_t_end(void **state)
{
    (void)state;
    sim s;
    sim_init(&s, 4);
    chain_left = 10;
    sim_at(&s, 1, 0, chain, NULL); /* events at 1, 2, ..., 10 */
    assert_int_equal(sim_run(&s, 5.5), SIM_RUN_TIME);
    assert_int_equal(s.nevents, 5);
    assert_close(s.now, 5.5, 0);
    /* an event exactly at t_end runs */
    assert_int_equal(sim_run(&s, 7), SIM_RUN_TIME);
    assert_int_equal(s.nevents, 7);
    assert_close(s.now, 7, 0);
    /* a t_end before now runs nothing and leaves the clock alone
     * (regression: it used to set now back to t_end) */
    assert_int_equal(sim_run(&s, 3), SIM_RUN_TIME);
    assert_int_equal(s.nevents, 7);
    assert_close(s.now, 7, 0);
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(s.nevents, 10);
    assert_close(s.now, 10, 0);
    /* an empty calendar returns EMPTY whatever t_end is */
    assert_int_equal(sim_run(&s, 100), SIM_RUN_EMPTY);
    sim_fini(&s);
}

static int stop_after;
static void stopper(sim *s, void *obj)
{
    (void)obj;
    if (s->nevents == (uint64_t)stop_after)
        sim_stop(s);
    sim_after(s, 1, 0, stopper, NULL);
}

static void test_stop(void **state)
{
    (void)state;
    sim s;
    sim_init(&s, 4);
    stop_after = 3;
    sim_at(&s, 0, 0, stopper, NULL);
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_STOPPED);
    assert_int_equal(s.nevents, 3);
    assert_close(s.now, 2, 0);
    /* a new run clears the stop request */
    stop_after = 6;
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_STOPPED);
    assert_int_equal(s.nevents, 6);
    assert_int_equal(sim_run(&s, 10.5), SIM_RUN_TIME);
    assert_int_equal(s.nevents, 11);
    sim_fini(&s);
}

/* Progress every 2^22 events. */
static uint64_t ticks_left;
static void tick(sim *s, void *obj)
{
    (void)obj;
    if (--ticks_left)
        sim_after(s, 0, 0, tick, NULL);
}

static int nprogress;
static uint64_t progress_at[4];
static void progress(uint64_t total)
{
    if (nprogress < 4)
        progress_at[nprogress] = total;
    nprogress++;
}

/* The process-wide progress hook: called every 2^20 events of a run loop
 * with the running total (the earlier tests here ran far fewer events, so
 * they added nothing). */
static void test_progress(void **state)
{
    (void)state;
    sim s;
    sim_init(&s, 4);
    sim_set_progress_hook(progress);
    ticks_left = 2 * (UINT64_C(1) << 20) + 3;
    sim_at(&s, 0, 0, tick, NULL);
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_EMPTY);
    sim_set_progress_hook(NULL);
    assert_int_equal(nprogress, 2);
    assert_int_equal(progress_at[0], UINT64_C(1) << 20);
    assert_int_equal(progress_at[1], UINT64_C(2) << 20);
    sim_fini(&s);
}

/* Each event schedules two: max_pending stops the run with
 * SIM_RUN_MEMORY once more than that many are pending. */
static void fork_ev(sim *s, void *obj)
{
    sim_after(s, 1, 0, fork_ev, obj);
    sim_after(s, 1, 0, fork_ev, obj);
}

static void test_max_pending(void **state)
{
    (void)state;
    sim s;
    sim_init(&s, 4);
    s.max_pending = 100;
    sim_at(&s, 0, 0, fork_ev, NULL);
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_MEMORY);
    assert_int_equal(sim_calendar_size(&s.cal), 101);
    assert_int_equal(s.nevents, 100);
    sim_fini(&s);
}

/* sim_reset: time 0, empty calendar; sequence numbers keep growing. */
static void test_reset(void **state)
{
    (void)state;
    g.n = 0;
    sim s;
    sim_init(&s, 4);
    static ev a = {1, 0};
    sim_at(&s, 3, 0, log_ev, &a);
    uint64_t seq = sim_at(&s, 4, 0, log_ev, &a);
    assert_int_equal(sim_run(&s, 3.5), SIM_RUN_TIME);
    assert_int_equal(g.n, 1);
    sim_reset(&s);
    g.n = 0;
    assert_close(s.now, 0, 0);
    assert_int_equal(sim_calendar_size(&s.cal), 0);
    a.seq = sim_after(&s, 1, 0, log_ev, &a);
    assert_true(a.seq > seq);
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_EMPTY);
    assert_close(s.now, 1, 0);
    assert_int_equal(s.nevents, 2); /* counters kept */
    sim_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_schedule_now),
        cmocka_unit_test(test_max_events),
        cmocka_unit_test(test_t_end),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_max_pending),
        cmocka_unit_test(test_reset),
    };
    return cmocka_run_group_tests_name("sim_core", tests, NULL, NULL);
}
