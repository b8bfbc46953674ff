/* Tests for tf_redis: cycles (replies at a cycle's end), the threshold of
 * the I/O threads (2 x io_threads clients pending: 7 do not start them, 8
 * do), a threaded cycle's hand-outs on two cores worked out by hand
 * (ticks of 4 ms; longer turns with host.redis_cores = 1.3), the threads stopping below the threshold and at
 * serverCron, and the main thread woken on a busy loop's core (also once
 * the loop slept before the commands arrived, and with the threads on),
 * only while it sits on that core (host.redis_affine_share: the spells'
 * shares and lengths from a fixed seed). */
#include "tests/test_util.h"

#include "models/tf_redis.h"
#include "sim/sim_rng.h"

typedef struct world {
    sim s;
    sim_ps host;
    tf_params p;
    tf_redis r;
    double reply[64];
    int nreply;
} world;

typedef struct cmd {
    world *w;
    double service;
    const void *waker;
    int waker_busy;
    int asleep_now;  /* sent while its loop was busy, which sleeps before it arrives */
} cmd;

static void on_reply(sim *s, void *obj)
{
    world *w = ((cmd *)obj)->w;
    w->reply[w->nreply++] = s->now;
}

static void on_arrive(sim *s, void *obj)
{
    cmd *c = obj;
    tf_redis_arrive_from(&c->w->r, s, c, c->service, on_reply, c->waker,
                         c->waker_busy || c->asleep_now, c->waker_busy);
}

static void world_init(world *w, long io_threads, int on_host, double cores)
{
    memset(w, 0, sizeof *w);
    sim_init(&w->s, 64);
    sim_ps_init(&w->host, cores);
    w->p.redis_io_threads = io_threads;
    w->p.redis_io_do_reads = 1;
    w->p.redis_io_per_thread = 2;
    w->p.redis_hz = 10;
    w->p.sched_tick = 0.004;
    w->p.sched_slice = 0.0015;
    w->p.net_rtt = 20e-6;
    w->p.wake_affine = 1;
    w->p.redis_affine_share = 1;
    w->p.affine_period = 0.2;
    tf_redis_init(&w->r, &w->p, on_host ? &w->host : NULL, NULL);
}

static void world_fini(world *w)
{
    tf_redis_fini(&w->r);
    sim_ps_fini(&w->host);
    sim_fini(&w->s);
}

/* k commands of `service` each at time t. */
static void burst(world *w, cmd *c, int k, double t, double service)
{
    for (int i = 0; i < k; i++) {
        c[i] = (cmd){w, service, NULL, 0, 0};
        sim_at(&w->s, t, 0, on_arrive, &c[i]);
    }
}

/* Threads off: a lone command is answered after its service; a burst is
 * one cycle for the first (it woke the thread) and one for the rest, each
 * answered at its cycle's end. */
static void test_cycles(void **state)
{
    (void)state;
    world w;
    world_init(&w, 1, 1, 2);
    cmd a[1], b[5];
    burst(&w, a, 1, 0.001, 10e-6);
    burst(&w, b, 5, 0.002, 10e-6);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.nreply, 6);
    assert_close(w.reply[0], 0.001 + 10e-6, 1e-12);
    /* the first of the burst wakes the thread: a cycle of 1; the other 4
     * arrived meanwhile: one cycle, answered together at its end */
    assert_close(w.reply[1], 0.002 + 10e-6, 1e-12);
    for (int i = 2; i < 6; i++)
        assert_close(w.reply[i], 0.002 + 50e-6, 1e-12);
    assert_int_equal(w.r.cycles, 3);
    assert_int_equal(w.r.threaded_cycles, 0);
    world_fini(&w);
}

/* The threshold is io_threads x 2 clients pending at a cycle's end: off
 * the host (a core per thread) a cycle of 7 leaves the threads off, one of
 * 8 starts them; the next cycle of 2 stops them again. */
static void test_threshold(void **state)
{
    (void)state;
    for (int k = 7; k <= 8; k++) {
        world w;
        world_init(&w, 4, 0, 2);
        cmd one[1], b[8], two[2];
        burst(&w, one, 1, 0.0, 5e-6);       /* wakes the thread: cycle of 1 */
        burst(&w, b, k, 1e-6, 5e-6);        /* arrive during it: one cycle */
        burst(&w, two, 2, 0.001, 5e-6);
        sim_run(&w.s, 0.0009);
        assert_int_equal(w.r.active, k == 8);
        sim_run(&w.s, 0.05);
        assert_int_equal(w.nreply, k + 3);
        assert_int_equal(w.r.active, 0);
        assert_int_equal(w.r.threaded_cycles, k == 8 ? 1 : 0);
        world_fini(&w);
    }
}

/* The threads started at 90 us by a cycle of 8 (after a lone command at
 * 0), then a burst of 8 at 1 ms; runs to `until`. */
static void threaded_burst(world *w, cmd a[9], cmd b[8], double until)
{
    burst(w, a, 1, 0.0, 10e-6);
    burst(w, a + 1, 8, 1e-6, 10e-6);
    burst(w, b, 8, 0.001, 10e-6);
    sim_run(&w->s, 0.0009);
    assert_true(w->r.active);
    assert_int_equal(w->nreply, 9);
    sim_run(&w->s, until);
    assert_int_equal(w->nreply, 17);
}

/* On the host (2 cores, tick 4 ms, slice 1.5 ms) with the threads started
 * at 90 us by a cycle of 8: a burst of 8 at 1 ms wakes the main thread,
 * which waits behind two spinning threads for the tick at 4 ms; it hands
 * the reads out then: the thread that got the other core reads at once,
 * the two others at 8 ms, and the main thread sees them at 12 ms, runs the
 * 8 commands (80 us), writes list 0 and hands out the writes: the thread
 * running beside it writes at once (12.08 ms), the other two at the tick
 * at 16 ms; the main thread sees them done at 20 ms. */
static void test_threaded_cycle(void **state)
{
    (void)state;
    world w;
    world_init(&w, 4, 1, 2);
    cmd a[9], b[8];
    threaded_burst(&w, a, b, 0.030);
    double t[8];
    memcpy(t, w.reply + 9, sizeof t);
    int at12 = 0, at16 = 0;
    for (int i = 0; i < 8; i++) {
        at12 += fabs(t[i] - 0.01208) < 1e-9;
        at16 += fabs(t[i] - 0.016) < 1e-9;
    }
    assert_int_equal(at12, 4);
    assert_int_equal(at16, 4);
    assert_int_equal(w.r.threaded_cycles, 1);
    /* the cycle ended at 20 ms with no client left: the main thread
     * sleeps, the three threads spin on (until serverCron), two of them on
     * the two cores: the third waits in the run queue and uses none */
    assert_false(w.r.in_cycle);
    assert_true(w.r.active);
    assert_close(w.host.spin, 2, 0);
    world_fini(&w);
}

/* host.redis_cores = 1.3 on the same 2-core host: the threads take turns
 * on both cores, each turn T = 4 ms x 2 / 1.3 (the host's other threads
 * run in between), so the cycle above runs with T for the tick: reads
 * handed out at T, the last read at 2T, the commands at 3T (80 us), two
 * lists written then and two at 4T. */
static void test_fractional_cores(void **state)
{
    (void)state;
    world w;
    world_init(&w, 4, 1, 2);
    tf_redis_fini(&w.r);
    w.p.redis_cores = 1.3;
    tf_redis_init(&w.r, &w.p, &w.host, NULL);
    const double T = 0.004 * 2 / 1.3;
    cmd a[9], b[8];
    threaded_burst(&w, a, b, 0.045);
    int early = 0, late = 0;
    for (int i = 9; i < 17; i++) {
        early += fabs(w.reply[i] - (3 * T + 80e-6)) < 1e-9;
        late += fabs(w.reply[i] - 4 * T) < 1e-9;
    }
    assert_int_equal(early, 4);
    assert_int_equal(late, 4);
    assert_int_equal(w.r.threaded_cycles, 1);
    world_fini(&w);
}

/* serverCron (hz 10) stops threads that spin with no client pending: the
 * first tick of the cron after they started, at 100 ms. */
static void test_cron_stop(void **state)
{
    (void)state;
    world w;
    world_init(&w, 4, 1, 2);
    cmd a[9];
    burst(&w, a, 1, 0.0, 10e-6);
    burst(&w, a + 1, 8, 1e-6, 10e-6);
    sim_run(&w.s, 0.0999);
    assert_true(w.r.active);
    sim_run(&w.s, 0.2);
    assert_false(w.r.active);
    assert_close(w.host.spin, 0, 0);
    /* started at 90 us, stopped at 100 ms */
    assert_close(tf_redis_threads_on(&w.r, 0.2), (0.1 - 90e-6) / 0.2, 1e-9);
    world_fini(&w);
}

/* A command from a busy loop wakes the sleeping main thread on that
 * loop's core: it runs half a round trip after the loop sleeps (the last
 * commands sent are in), with everything that came meanwhile in one
 * cycle; if the loop stays busy, at the next tick. */
typedef struct idle_ev {
    world *w;
    const void *loop;
} idle_ev;

static void on_idle(sim *s, void *obj)
{
    idle_ev *e = obj;
    tf_redis_waker_idle(&e->w->r, s, e->loop);
}

static void test_waker(void **state)
{
    (void)state;
    world w;
    world_init(&w, 1, 1, 2);
    int loop_a, loop_b;
    cmd c[6];
    for (int i = 0; i < 3; i++) {
        c[i] = (cmd){&w, 10e-6, &loop_a, 1, 0};
        sim_at(&w.s, 0.001 + i * 5e-6, 0, on_arrive, &c[i]);
    }
    idle_ev ev = {&w, &loop_a}, other = {&w, &loop_b};
    sim_at(&w.s, 0.001 + 12e-6, 0, on_idle, &other); /* another loop: no effect */
    sim_at(&w.s, 0.001 + 15e-6, 0, on_idle, &ev);
    /* a loop that never sleeps: the tick at 8 ms lets the thread run */
    for (int i = 3; i < 6; i++) {
        c[i] = (cmd){&w, 10e-6, &loop_b, 1, 0};
        sim_at(&w.s, 0.005 + (i - 3) * 5e-6, 0, on_arrive, &c[i]);
    }
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.nreply, 6);
    for (int i = 0; i < 3; i++)
        assert_close(w.reply[i], 0.001 + 15e-6 + 10e-6 + 30e-6, 1e-12);
    for (int i = 3; i < 6; i++)
        assert_close(w.reply[i], 0.008 + 30e-6, 1e-12);
    assert_int_equal(w.r.cycles, 2);
    world_fini(&w);
}

/* A loop sends three commands and sleeps at 1 ms, before the first
 * arrives (half a round trip, 10 us, after each send): the main thread,
 * woken on its core, runs once the last is in, 10 us after the loop slept,
 * all three in one cycle (answered at 1.010 ms + 30 us); it does not start
 * at the first arrival with a cycle of one. */
static void test_waker_slept(void **state)
{
    (void)state;
    world w;
    world_init(&w, 1, 1, 2);
    int loop_a;
    cmd c[3];
    idle_ev ev = {&w, &loop_a};
    sim_at(&w.s, 0.001, 0, on_idle, &ev);
    for (int i = 0; i < 3; i++) {
        c[i] = (cmd){&w, 10e-6, &loop_a, 0, 1};
        sim_at(&w.s, 0.001 + 2e-6 + i * 3e-6, 0, on_arrive, &c[i]);
    }
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.nreply, 3);
    for (int i = 0; i < 3; i++)
        assert_close(w.reply[i], 0.001 + 10e-6 + 30e-6, 1e-12);
    assert_int_equal(w.r.cycles, 1);
    world_fini(&w);
}

/* With the threads started (a cycle of 8 at 90 us, on the 2-core host), a
 * loop's burst of 8 at 1 ms, the loop sleeping at 1.010 ms: the main
 * thread, woken on the loop's core, takes the 8 as one threaded cycle
 * (the threads stay on).  With redis.wake_preempt it takes a core from a
 * spinning thread at once (the commands taken at 1.020 ms, before the
 * tick at 4 ms); without, it waits for the tick. */
static void test_active_waker(void **state)
{
    (void)state;
    for (int pre = 0; pre < 2; pre++) {
        world w;
        world_init(&w, 4, 1, 2);
        tf_redis_fini(&w.r);
        w.p.redis_wake_preempt = pre;
        tf_redis_init(&w.r, &w.p, &w.host, NULL);
        int loop_a;
        cmd a[9], b[8];
        burst(&w, a, 1, 0.0, 10e-6);
        burst(&w, a + 1, 8, 1e-6, 10e-6);
        idle_ev ev = {&w, &loop_a};
        for (int i = 0; i < 8; i++) {
            b[i] = (cmd){&w, 10e-6, &loop_a, 1, 0};
            sim_at(&w.s, 0.001 + i * 1e-6, 0, on_arrive, &b[i]);
        }
        sim_at(&w.s, 0.00101, 0, on_idle, &ev);
        sim_run(&w.s, 0.0039);
        assert_true(w.r.active);
        assert_int_equal(sim_queue_len(&w.r.wait), pre ? 0 : 8);
        sim_run(&w.s, 0.05);
        assert_int_equal(w.nreply, 17);
        assert_int_equal(w.r.cycles, 3);
        assert_int_equal(w.r.threaded_cycles, 1);
        world_fini(&w);
    }
}

/* host.redis_affine_share 0.7, spells of 0.2 s of idle core time on
 * average, on a host of 2 idle cores (0.1 s of time): sampled every
 * millisecond over 4,000 s (40,000 spells; fixed seed), the main thread
 * sits on its sender's core 0.70 +- 0.01 of the time and a spell lasts
 * 0.1 s +- 4%; a command sent by a busy loop that never sleeps waits,
 * while Redis sits on its core, for the next 4 ms tick, and runs at once
 * in the spell after, apart.  Shares 0 and 1 draw nothing (no
 * generator). */
static void test_placement(void **state)
{
    (void)state;
    gsl_rng *g = sim_rng_new(7, 0, 0);
    world w;
    world_init(&w, 1, 1, 2);
    tf_redis_fini(&w.r);
    w.p.redis_affine_share = 0.7;
    tf_redis_init(&w.r, &w.p, &w.host, g);
    long on = 0, n = 0, flips = 0;
    int last = -1;
    for (long i = 0; i < 4000000; i++) {
        w.s.now = i * 0.001;
        int x = tf_redis_on_senders_core(&w.r, &w.s);
        assert_true(x == 0 || x == 1);
        on += x;
        n++;
        flips += last >= 0 && x != last;
        last = x;
    }
    assert_close((double)on / n, 0.7, 0.01);
    assert_close(4000.0 / flips, 0.1, 0.1 * 0.04);
    /* the next spell on the sender's core: a busy loop's command there
     * waits for the tick; one from the same loop sent in the following
     * spell off it runs at once (a lone command: service 10 us) */
    while (tf_redis_on_senders_core(&w.r, &w.s))
        w.s.now += 0.01;
    while (!tf_redis_on_senders_core(&w.r, &w.s))
        w.s.now += 1e-4;
    double t_on = w.s.now;
    int loop_a;
    cmd c = {&w, 10e-6, &loop_a, 1, 0}, d = {&w, 10e-6, &loop_a, 1, 0};
    sim_at(&w.s, t_on, 0, on_arrive, &c);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.nreply, 1);
    double tick = ceil(t_on / 0.004) * 0.004;
    assert_close(w.reply[0], tick + 10e-6, 1e-9);
    /* still on the sender's core; the spell ends when its idle core time
     * is spent, both cores idle from now on */
    assert_int_equal(tf_redis_on_senders_core(&w.r, &w.s), 1);
    double t_off = w.r.place_t + w.r.place_left / 2;
    sim_at(&w.s, t_off + 1e-6, 0, on_arrive, &d);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.nreply, 2);
    assert_int_equal(tf_redis_on_senders_core(&w.r, &w.s), 0);
    assert_close(w.reply[1], t_off + 1e-6 + 10e-6, 1e-9);
    world_fini(&w);
    gsl_rng_free(g);
    for (int q = 0; q <= 1; q++) {
        world_init(&w, 1, 1, 2);
        tf_redis_fini(&w.r);
        w.p.redis_affine_share = q;
        tf_redis_init(&w.r, &w.p, &w.host, NULL);
        w.s.now = 12.3;
        assert_int_equal(tf_redis_on_senders_core(&w.r, &w.s), q);
        world_fini(&w);
    }
}

/* Runs the events up to t and sets the clock to t (sim_run leaves it at
 * the last event's time). */
static void run_to(sim *s, double t)
{
    sim_run(s, t);
    if (s->now < t)
        s->now = t;
}

/* The placement's clock runs on the host's idle cores: spells of 1 ms of
 * idle core time on a host of 2 cores; the I/O threads, started by a cycle
 * of 8 at 1 us and stopped by serverCron at 100 ms, keep both cores busy
 * (three spinning threads), so nothing changes in 2-99 ms; in the 300 ms
 * after, with both cores idle, about 600 changes (sampled every 0.1 ms, a
 * few spells shorter than the step are not seen).  The same with the host
 * held half busy by one spinning job: about 300. */
static void test_placement_holds(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        gsl_rng *g = sim_rng_new(7, 0, 1);
        world w;
        world_init(&w, 4, 1, 2);
        tf_redis_fini(&w.r);
        w.p.redis_affine_share = 0.5;
        w.p.affine_period = 0.001;
        tf_redis_init(&w.r, &w.p, &w.host, g);
        if (k)
            sim_ps_spin(&w.host, &w.s, 1);
        cmd a[9];
        burst(&w, a, 1, 0.0, 10e-6);
        burst(&w, a + 1, 8, 1e-6, 10e-6);
        run_to(&w.s, 0.002);
        assert_true(w.r.active);
        int last = tf_redis_on_senders_core(&w.r, &w.s), flips = 0;
        for (double t = 0.0021; t < 0.099; t += 1e-4) {
            run_to(&w.s, t);
            int x = tf_redis_on_senders_core(&w.r, &w.s);
            flips += x != last;
            last = x;
        }
        assert_int_equal(flips, 0);
        run_to(&w.s, 0.1001);
        assert_false(w.r.active);
        last = tf_redis_on_senders_core(&w.r, &w.s);
        flips = 0;
        for (double t = 0.1002; t < 0.4; t += 1e-4) {
            run_to(&w.s, t);
            int x = tf_redis_on_senders_core(&w.r, &w.s);
            flips += x != last;
            last = x;
        }
        if (k)
            assert_in_range(flips, 220, 330);
        else
            assert_in_range(flips, 420, 620);
        if (k)
            sim_ps_spin(&w.host, &w.s, -1);
        world_fini(&w);
        gsl_rng_free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycles),
        cmocka_unit_test(test_threshold),
        cmocka_unit_test(test_threaded_cycle),
        cmocka_unit_test(test_fractional_cores),
        cmocka_unit_test(test_cron_stop),
        cmocka_unit_test(test_waker),
        cmocka_unit_test(test_waker_slept),
        cmocka_unit_test(test_active_waker),
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_placement_holds),
    };
    return cmocka_run_group_tests_name("tf_redis", tests, NULL, NULL);
}
