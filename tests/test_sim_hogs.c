/* Tests for sim_hogs: hand-worked round-robin schedules (ticks, slices,
 * queue order), work that pauses while its hog waits, blocking and waking,
 * the fan-out a main thread waits for, fairness over a long run, and the
 * processor-sharing share the hogs take. */
#include "tests/test_util.h"

#include "sim/sim_hogs.h"

typedef struct world {
    sim s;
    sim_hogs h;
    sim_ps ps;
    double done[8];
    int ndone;
} world;

typedef struct act {
    world *w;
    int id;
    double work;
    int slot;    /* where done() writes its time */
    int kind;    /* 0 wake, 1 block, 2 run, 3 wake taking a core at once */
} act;

static void on_done(sim *s, void *obj)
{
    act *a = obj;
    a->w->done[a->slot] = s->now;
    a->w->ndone++;
}

static void on_act(sim *s, void *obj)
{
    act *a = obj;
    if (a->kind == 0)
        sim_hogs_wake(&a->w->h, s, a->id);
    else if (a->kind == 1)
        sim_hogs_block(&a->w->h, s, a->id);
    else if (a->kind == 3)
        sim_hogs_wake_preempt(&a->w->h, s, a->id);
    else
        sim_hogs_run(&a->w->h, s, a->id, a->work, a, on_done);
}

static void world_init(world *w, int cores, double tick, double slice, int n, double ps_cores)
{
    memset(w, 0, sizeof *w);
    sim_init(&w->s, 16);
    if (ps_cores > 0)
        sim_ps_init(&w->ps, ps_cores);
    sim_hogs_init(&w->h, cores, tick, slice, n, ps_cores > 0 ? &w->ps : NULL);
    for (int i = 0; i < 8; i++)
        w->done[i] = NAN;
}

static void world_fini(world *w, int with_ps)
{
    sim_hogs_fini(&w->h);
    if (with_ps)
        sim_ps_fini(&w->ps);
    sim_fini(&w->s);
}

/* Three hogs on one core, tick 1, slice 0.5: hog 0 runs [0,1), hog 1
 * [1,2), hog 2 [2,3), hog 0 again from 3.  Work of 1.5 given to hog 0 at 0
 * is done at 3.5; work 0 given to hog 2 at 0.2 is done when it first runs,
 * at 2. */
static void test_round_robin_one_core(void **state)
{
    (void)state;
    world w;
    world_init(&w, 1, 1.0, 0.5, 3, 0);
    act a[5] = {{&w, 0, 0, 0, 0}, {&w, 1, 0, 0, 0}, {&w, 2, 0, 0, 0},
                {&w, 0, 1.5, 0, 2}, {&w, 2, 0, 1, 2}};
    for (int i = 0; i < 4; i++)
        sim_at(&w.s, 0, 0, on_act, &a[i]);
    sim_at(&w.s, 0.2, 0, on_act, &a[4]);
    sim_run(&w.s, 3.9);
    assert_close(w.done[0], 3.5, 1e-12);
    assert_close(w.done[1], 2.0, 1e-12);
    assert_int_equal(sim_hogs_state(&w.h, 0), SIM_HOG_RUNNING);
    assert_int_equal(sim_hogs_state(&w.h, 1), SIM_HOG_WAITING);
    world_fini(&w, 0);
}

/* A hog placed after the tick's start has not used its slice at the next
 * tick and keeps its core until the one after: hog 1 gets the core at 3.8
 * when hog 0 blocks; hog 2 wakes at 3.9 and waits; at tick 4 hog 1 has run
 * 0.2 < 1.5 and stays; at 8 it yields to hog 2. */
static void test_slice(void **state)
{
    (void)state;
    world w;
    world_init(&w, 1, 4.0, 1.5, 3, 0);
    act a[6] = {{&w, 0, 0, 0, 0}, {&w, 1, 0, 0, 0}, {&w, 0, 0, 0, 1},
                {&w, 2, 0, 0, 0}, {&w, 2, 0, 0, 2}, {&w, 1, 0, 1, 2}};
    sim_at(&w.s, 0, 0, on_act, &a[0]);
    sim_at(&w.s, 0, 0, on_act, &a[1]);
    sim_at(&w.s, 3.8, 0, on_act, &a[2]);   /* hog 0 blocks: hog 1 runs */
    sim_at(&w.s, 3.85, 0, on_act, &a[5]);  /* hog 1: done at once */
    sim_at(&w.s, 3.9, 0, on_act, &a[3]);   /* hog 2 wakes: waits */
    sim_at(&w.s, 3.9, 1, on_act, &a[4]);   /* its work: when it runs */
    sim_run(&w.s, 9);
    assert_close(w.done[1], 3.85, 1e-12);
    assert_close(w.done[0], 8.0, 1e-12);
    assert_int_equal(sim_hogs_state(&w.h, 1), SIM_HOG_WAITING);
    world_fini(&w, 0);
}

static void on_preempt(sim *s, void *obj) { sim_hogs_preempt(obj, s); }

/* Wake-up preemption: three hogs on one core, tick 4, wake_slice 0.5.
 * Hog 0 runs from 0; wake-ups at 0.3 (hog 0 has run 0.3 < 0.5: nothing),
 * 0.7 (hog 0 yields to hog 1), 1.0 (hog 1 has run 0.3: nothing), 1.3
 * (hog 1 yields to hog 2).  Work 1.0 given to hog 0 at 0 has 0.3 left
 * after 0.7; hog 0 is next at the tick at 4 (hog 2 has run 2.7 by then),
 * so it is done at 4.3.  Work 0 given to hog 2 is done at 1.3.  With
 * wake_slice 0 the same wake-ups change nothing: hog 0 runs to the tick
 * at 4 and its work is done at 1.0; hog 2 has not run by 5. */
static void test_wake_preempt(void **state)
{
    (void)state;
    for (int on = 0; on < 2; on++) {
        world w;
        world_init(&w, 1, 4.0, 1.5, 3, 0);
        if (on)
            sim_hogs_set_wake_slice(&w.h, 0.5);
        act a[5] = {{&w, 0, 0, 0, 0}, {&w, 1, 0, 0, 0}, {&w, 2, 0, 0, 0},
                    {&w, 0, 1.0, 0, 2}, {&w, 2, 0, 1, 2}};
        for (int i = 0; i < 5; i++)
            sim_at(&w.s, 0, 0, on_act, &a[i]);
        const double wakes[4] = {0.3, 0.7, 1.0, 1.3};
        for (int i = 0; i < 4; i++)
            sim_at(&w.s, wakes[i], 0, on_preempt, &w.h);
        sim_run(&w.s, 5);
        if (on) {
            assert_close(w.done[0], 4.3, 1e-12);
            assert_close(w.done[1], 1.3, 1e-12);
        } else {
            assert_close(w.done[0], 1.0, 1e-12);
            assert_true(isnan(w.done[1])); /* hog 2 runs only at the tick at 8 */
            assert_int_equal(sim_hogs_state(&w.h, 2), SIM_HOG_WAITING);
        }
        world_fini(&w, 0);
    }
}

/* A hog woken with sim_hogs_wake_preempt takes a core at once: on two
 * cores with hogs 0 (since 0) and 1 (since 0.5) running and hog 2 waiting,
 * hog 3 woken at 1 takes hog 0's core (the longest held); hog 0 queues
 * behind hog 2.  At the tick at 4 hog 1 (held since 0.5) yields to hog 2,
 * then hog 3 (held since 1) to hog 0.  Work 0 given to hog 3 at 1 is done
 * at 1; work 0 given to hog 0 at 2 when it runs again, at 4.  Woken when
 * every runner got its core at that same instant, it queues. */
static void test_wake_take(void **state)
{
    (void)state;
    world w;
    world_init(&w, 2, 4.0, 1.5, 4, 0);
    act a[6] = {{&w, 0, 0, 0, 0}, {&w, 1, 0, 0, 0}, {&w, 2, 0, 0, 0},
                {&w, 3, 0, 0, 3}, {&w, 3, 0, 0, 2}, {&w, 0, 0, 1, 2}};
    sim_at(&w.s, 0, 0, on_act, &a[0]);
    sim_at(&w.s, 0.5, 0, on_act, &a[1]);
    sim_at(&w.s, 0.5, 0, on_act, &a[2]);
    sim_at(&w.s, 1.0, 0, on_act, &a[3]);
    sim_at(&w.s, 1.0, 1, on_act, &a[4]);
    sim_at(&w.s, 2.0, 0, on_act, &a[5]);
    sim_run(&w.s, 1.5);
    assert_int_equal(sim_hogs_state(&w.h, 3), SIM_HOG_RUNNING);
    assert_int_equal(sim_hogs_state(&w.h, 0), SIM_HOG_WAITING);
    assert_int_equal(sim_hogs_state(&w.h, 1), SIM_HOG_RUNNING);
    assert_close(w.done[0], 1.0, 1e-12);
    sim_run(&w.s, 5);
    assert_close(w.done[1], 4.0, 1e-12);
    assert_int_equal(sim_hogs_state(&w.h, 0), SIM_HOG_RUNNING);
    assert_int_equal(sim_hogs_state(&w.h, 2), SIM_HOG_RUNNING);
    assert_int_equal(sim_hogs_state(&w.h, 1), SIM_HOG_WAITING);
    assert_int_equal(sim_hogs_state(&w.h, 3), SIM_HOG_WAITING);
    world_fini(&w, 0);

    world_init(&w, 1, 4.0, 1.5, 2, 0);
    act b[2] = {{&w, 0, 0, 0, 0}, {&w, 1, 0, 0, 3}};
    sim_at(&w.s, 1.0, 0, on_act, &b[0]);
    sim_at(&w.s, 1.0, 0, on_act, &b[1]);
    sim_run(&w.s, 1.5);
    assert_int_equal(sim_hogs_state(&w.h, 0), SIM_HOG_RUNNING);
    assert_int_equal(sim_hogs_state(&w.h, 1), SIM_HOG_WAITING);
    world_fini(&w, 0);
}

/* Blocking gives the core to the head of the queue at once; waking takes
 * an idle core at once; a waiting hog that blocks leaves the queue. */
static void test_block_wake(void **state)
{
    (void)state;
    world w;
    world_init(&w, 2, 1.0, 0.0, 4, 0);
    act wk[4], bl[2], rn[2];
    for (int i = 0; i < 4; i++) {
        wk[i] = (act){&w, i, 0, 0, 0};
        sim_at(&w.s, 0, 0, on_act, &wk[i]);
    }
    /* queue [2, 3]; hog 3 blocks while waiting, hog 0 blocks at 0.25:
     * hog 2 takes core 0 at 0.25 */
    bl[0] = (act){&w, 3, 0, 0, 1};
    bl[1] = (act){&w, 0, 0, 0, 1};
    rn[0] = (act){&w, 2, 0, 0, 2};
    rn[1] = (act){&w, 3, 0, 1, 2};
    sim_at(&w.s, 0.1, 0, on_act, &bl[0]);
    sim_at(&w.s, 0.2, 0, on_act, &rn[0]);
    sim_at(&w.s, 0.25, 0, on_act, &bl[1]);
    /* hog 3 wakes again at 0.5: no core idle, it waits for the tick at 1
     * (hog 1 has held its core longest) */
    act wk3 = {&w, 3, 0, 0, 0};
    sim_at(&w.s, 0.5, 0, on_act, &wk3);
    sim_at(&w.s, 0.5, 1, on_act, &rn[1]);
    sim_run(&w.s, 1.5);
    assert_close(w.done[0], 0.25, 1e-12);
    assert_close(w.done[1], 1.0, 1e-12);
    assert_int_equal(sim_hogs_state(&w.h, 1), SIM_HOG_WAITING);
    assert_int_equal(sim_hogs_state(&w.h, 2), SIM_HOG_RUNNING);
    assert_int_equal(sim_hogs_state(&w.h, 0), SIM_HOG_BLOCKED);
    world_fini(&w, 0);
}

/* The fan-out of Redis's threaded I/O: a main thread (hog 0) and three
 * spinning threads on two cores, tick 4 ms, slice 1.5 ms.  At t = 1 ms the
 * main thread (running since 0, with thread 1) hands work to threads 1..3
 * and waits: thread 1 runs at once, threads 2 and 3 at the tick at 4 ms
 * (where the main thread and thread 1 yield), and the main thread sees
 * their work done when it runs again, at 8 ms. */
typedef struct fan {
    world *w;
    int left;
    double seen;
} fan;

static void fan_main_sees(sim *s, void *obj)
{
    fan *f = obj;
    f->seen = s->now;
}

static void fan_thread_done(sim *s, void *obj)
{
    fan *f = obj;
    f->w->done[f->w->ndone++] = s->now;
    if (--f->left == 0)
        sim_hogs_run(&f->w->h, s, 0, 0, f, fan_main_sees);
}

static void fan_out(sim *s, void *obj)
{
    fan *f = obj;
    f->left = 3;
    for (int j = 1; j <= 3; j++)
        sim_hogs_run(&f->w->h, s, j, 0, f, fan_thread_done);
}

static void test_fan_out(void **state)
{
    (void)state;
    world w;
    world_init(&w, 2, 0.004, 0.0015, 4, 0);
    act wk[4];
    for (int i = 0; i < 4; i++) {
        wk[i] = (act){&w, i, 0, 0, 0};
        sim_at(&w.s, 0, 0, on_act, &wk[i]);
    }
    fan f = {&w, 0, NAN};
    sim_at(&w.s, 0.001, 0, fan_out, &f);
    sim_run(&w.s, 0.02);
    assert_int_equal(w.ndone, 3);
    assert_close(w.done[0], 0.001, 1e-12);
    assert_close(w.done[1], 0.004, 1e-12);
    assert_close(w.done[2], 0.004, 1e-12);
    assert_close(f.seen, 0.008, 1e-12);
    world_fini(&w, 0);
}

/* Fairness: five hogs on two cores for 1000 ticks: each runs 2/5 of the
 * time (measured by the work each gets done). */
typedef struct meter {
    world *w;
    int id;
    double got;
} meter;

static void meter_step(sim *s, void *obj)
{
    meter *m = obj;
    m->got += 1e-3;
    sim_hogs_run(&m->w->h, s, m->id, 1e-3, m, meter_step);
}

static void meter_start(sim *s, void *obj)
{
    meter *m = obj;
    sim_hogs_wake(&m->w->h, s, m->id);
    sim_hogs_run(&m->w->h, s, m->id, 1e-3, m, meter_step);
}

static void test_fair_share(void **state)
{
    (void)state;
    world w;
    world_init(&w, 2, 0.004, 0.0015, 5, 0);
    meter m[5];
    for (int i = 0; i < 5; i++) {
        m[i] = (meter){&w, i, 0};
        sim_at(&w.s, 0, 0, meter_start, &m[i]);
    }
    sim_run(&w.s, 4.0);
    double sum = 0;
    for (int i = 0; i < 5; i++) {
        assert_close(m[i].got, 4.0 * 2 / 5, 0.01);
        sum += m[i].got;
    }
    /* the two cores were never idle */
    assert_close(sum, 8.0, 0.006);
    assert_close(sim_tavg_mean(&w.h.waiting, 4.0), 3.0, 1e-9);
    world_fini(&w, 0);
}

/* With a sim_ps, every hog on a core is a spinning job there: one hog on a
 * one-core CPU halves a job's speed while it runs; a second hog, waiting
 * for that core, takes nothing more. */
typedef struct psjob {
    world *w;
    double done;
} psjob;

static void psjob_done(sim *s, void *obj) { ((psjob *)obj)->done = s->now; }

static void psjob_start(sim *s, void *obj)
{
    psjob *j = obj;
    sim_ps_submit(&j->w->ps, s, j, 1.0, psjob_done);
}

static void test_ps_share(void **state)
{
    (void)state;
    world w;
    world_init(&w, 1, 1.0, 0.5, 1, 1.0);
    act wk = {&w, 0, 0, 0, 0}, bl = {&w, 0, 0, 0, 1};
    psjob j = {&w, NAN};
    sim_at(&w.s, 0, 0, on_act, &wk);
    sim_at(&w.s, 0, 1, psjob_start, &j);
    sim_at(&w.s, 1.0, 0, on_act, &bl);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    /* 0.5 of work by t = 1, then alone */
    assert_close(j.done, 1.5, 1e-12);
    assert_int_equal(w.ps.spin, 0);
    world_fini(&w, 1);
}

/* Two hogs on one core: only the one on the core spins on the sim_ps, so
 * the job still runs at half speed (with both counted: a third). */
static void test_ps_waiting_hog(void **state)
{
    (void)state;
    world w;
    world_init(&w, 1, 1.0, 0.5, 2, 1.0);
    act w0 = {&w, 0, 0, 0, 0}, w1 = {&w, 1, 0, 0, 0}, b0 = {&w, 0, 0, 0, 1}, b1 = {&w, 1, 0, 0, 1};
    psjob j = {&w, NAN};
    sim_at(&w.s, 0, 0, on_act, &w0);
    sim_at(&w.s, 0, 0, on_act, &w1);
    sim_at(&w.s, 0, 1, psjob_start, &j);
    sim_at(&w.s, 0.5, 0, on_act, &b1); /* the waiting one leaves: nothing changes */
    sim_at(&w.s, 1.0, 0, on_act, &b0);
    assert_int_equal(sim_run(&w.s, 0.25), SIM_RUN_TIME);
    assert_int_equal(w.ps.spin, 1);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_close(j.done, 1.5, 1e-12);
    assert_int_equal(w.ps.spin, 0);
    world_fini(&w, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_robin_one_core),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_wake_preempt),
        cmocka_unit_test(test_wake_take),
        cmocka_unit_test(test_block_wake),
        cmocka_unit_test(test_fan_out),
        cmocka_unit_test(test_ps_waiting_hog),
        cmocka_unit_test(test_fair_share),
        cmocka_unit_test(test_ps_share),
    };
    return cmocka_run_group_tests_name("sim_hogs", tests, NULL, NULL);
}
