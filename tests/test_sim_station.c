/* Tests for sim_station: hand-computed schedules for c = 1 and c = 2,
 * FIFO order, busy <= c, time averages by hand, and a comparison with the
 * textbook FIFO c-server recursion on random workloads. */
#include "tests/test_util.h"

#include <gsl/gsl_randist.h>

#include "sim/sim_rng.h"
#include "sim/sim_station.h"

typedef struct job {
    struct world *w;
    int id;
    double arrive, service, done;
} job;

typedef struct world {
    sim s;
    sim_station st;
    job *jobs;
    int njobs, ndone;
    int order[4096]; /* ids in completion order */
    int max_busy;
} world;

static void on_done(sim *s, void *obj)
{
    job *j = obj;
    world *w = j->w;
    assert_true(w->st.busy <= w->st.c);
    j->done = s->now;
    w->order[w->ndone++] = j->id;
}

static void on_arrive(sim *s, void *obj)
{
    job *j = obj;
    world *w = j->w;
    sim_station_arrive(&w->st, s, j, j->service, on_done);
    assert_true(w->st.busy <= w->st.c);
    /* a job waits only while every server is busy */
    assert_true(sim_queue_len(&w->st.wait) == 0 || w->st.busy == w->st.c);
    if (w->st.busy > w->max_busy)
        w->max_busy = w->st.busy;
}

static void world_run(world *w, int c, job *jobs, int n)
{
    sim_init(&w->s, 16);
    sim_station_init(&w->st, c);
    w->jobs = jobs;
    w->njobs = n;
    w->ndone = 0;
    w->max_busy = 0;
    for (int i = 0; i < n; i++) {
        jobs[i].w = w;
        jobs[i].id = i;
        jobs[i].done = NAN;
        sim_at(&w->s, jobs[i].arrive, 0, on_arrive, &jobs[i]);
    }
    assert_int_equal(sim_run(&w->s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w->ndone, n);
}

static void world_fini(world *w)
{
    sim_station_fini(&w->st);
    sim_fini(&w->s);
}

/* c = 1, service 1: arrivals 0, 0.5, 0.6, 3.5.
 * job 0: 0-1; job 1 waits 0.5-1, serves 1-2; job 2 waits 0.6-2, serves
 * 2-3; job 3: 3.5-4.5.  Waiting count: 1 on [0.5,0.6), 2 on [0.6,1), 1 on
 * [1,2): area 1.9.  Busy: [0,3) and [3.5,4.5): area 4.  Over [0,5]. */
static void test_c1_by_hand(void **state)
{
    (void)state;
    job j[] = {{.arrive = 0, .service = 1},
               {.arrive = 0.5, .service = 1},
               {.arrive = 0.6, .service = 1},
               {.arrive = 3.5, .service = 1}};
    world w;
    world_run(&w, 1, j, 4);
    static const double done[] = {1, 2, 3, 4.5};
    for (int i = 0; i < 4; i++) {
        assert_close(j[i].done, done[i], 1e-12);
        assert_int_equal(w.order[i], i);
    }
    assert_close(w.s.now, 4.5, 0);
    assert_int_equal(w.st.completions, 4);
    assert_int_equal(w.max_busy, 1);
    assert_close(w.st.resp.mean, (1 + 1.5 + 2.4 + 1) / 4, 1e-12);
    assert_close(w.st.waitw.mean, (0 + 0.5 + 1.4 + 0) / 4, 1e-12);
    assert_close(w.st.resp.max, 2.4, 1e-12);
    assert_close(sim_tavg_mean(&w.st.nwait, 5), 1.9 / 5, 1e-12);
    assert_close(sim_station_utilisation(&w.st, 5), 4.0 / 5, 1e-12);
    assert_close(sim_station_utilisation(&w.st, 4.5), 4.0 / 4.5, 1e-12);
    /* response-time quantiles: {1, 1, 1.5, 2.4} */
    assert_rel(sim_hist_quantile(&w.st.resp_h, 0.5), 1, 0.004);
    assert_rel(sim_hist_quantile(&w.st.resp_h, 0.75), 1.5, 0.004);
    assert_close(sim_hist_quantile(&w.st.resp_h, 1), 2.4, 1e-12);
    world_fini(&w);
}

/* c = 2, service 2: arrivals 0, 0.5, 1, 1.2, 5.
 * job 0: 0-2, job 1: 0.5-2.5, job 2 waits 1-2 then 2-4, job 3 waits
 * 1.2-2.5 then 2.5-4.5, job 4: 5-7.  Busy servers: 1 on [0,0.5), 2 on
 * [0.5,4), 1 on [4,4.5), 0 on [4.5,5), 1 on [5,7): area 0.5+7+0.5+2 = 10,
 * utilisation 10 / (2 * 7).  Waiting: 1 on [1,1.2), 2 on [1.2,2), 1 on
 * [2,2.5): area 0.2 + 1.6 + 0.5 = 2.3. */
static void test_c2_by_hand(void **state)
{
    (void)state;
    job j[] = {{.arrive = 0, .service = 2},
               {.arrive = 0.5, .service = 2},
               {.arrive = 1, .service = 2},
               {.arrive = 1.2, .service = 2},
               {.arrive = 5, .service = 2}};
    world w;
    world_run(&w, 2, j, 5);
    static const double done[] = {2, 2.5, 4, 4.5, 7};
    for (int i = 0; i < 5; i++) {
        assert_close(j[i].done, done[i], 1e-12);
        assert_int_equal(w.order[i], i);
    }
    assert_int_equal(w.max_busy, 2);
    assert_close(sim_station_utilisation(&w.st, 7), 10.0 / 14, 1e-12);
    assert_close(sim_tavg_mean(&w.st.nwait, 7), 2.3 / 7, 1e-12);
    assert_close(w.st.waitw.mean, (0 + 0 + 1 + 1.3 + 0) / 5, 1e-12);
    world_fini(&w);
}

/* 50 jobs arriving at the same instant on c = 3, service 1 except the
 * last (0): they start in arrival order, three at a time.  At 17 jobs
 * 45-47 leave; 48 and 49 start; 49 takes no time and leaves at 17, before
 * 48 (at 18). */
static void test_fifo_same_time(void **state)
{
    (void)state;
    job j[50];
    for (int i = 0; i < 50; i++)
        j[i] = (job){.arrive = 1, .service = i == 49 ? 0 : 1};
    world w;
    world_run(&w, 3, j, 50);
    for (int i = 0; i < 48; i++)
        assert_int_equal(w.order[i], i);
    assert_int_equal(w.order[48], 49);
    assert_int_equal(w.order[49], 48);
    for (int i = 0; i < 49; i++)
        assert_close(j[i].done, 1 + 1 + i / 3, 1e-12);
    assert_close(j[49].done, 17, 0);
    world_fini(&w);
}

/* Textbook recursion for FIFO with c servers: in arrival order, a job
 * starts at max(arrival, earliest time a server is free). */
static void recursion(const job *j, int n, int c, double *done)
{
    double freeat[16];
    for (int k = 0; k < c; k++)
        freeat[k] = -INFINITY;
    for (int i = 0; i < n; i++) {
        int k0 = 0;
        for (int k = 1; k < c; k++)
            if (freeat[k] < freeat[k0])
                k0 = k;
        double start = fmax(j[i].arrive, freeat[k0]);
        done[i] = start + j[i].service;
        freeat[k0] = done[i];
    }
}

/* Random workloads (Poisson arrivals, exponential service, load 0.9):
 * completion times equal the recursion's; time-averaged waiting and busy
 * counts equal sum(wait)/T and sum(service)/(c T). */
static void test_random_vs_recursion(void **state)
{
    (void)state;
    enum { N = 3000 };
    static job j[N];
    static double ref[N];
    static const int cs[] = {1, 2, 3, 5};
    for (size_t ci = 0; ci < 4; ci++) {
        int c = cs[ci];
        gsl_rng *r = sim_rng_new(100 + ci, 0, 0);
        double t = 0, sum_service = 0;
        for (int i = 0; i < N; i++) {
            t += gsl_ran_exponential(r, 1.0 / (0.9 * c));
            j[i] = (job){.arrive = t, .service = gsl_ran_exponential(r, 1.0)};
            sum_service += j[i].service;
        }
        gsl_rng_free(r);
        world w;
        world_run(&w, c, j, N);
        recursion(j, N, c, ref);
        double sum_wait = 0, T = w.s.now;
        for (int i = 0; i < N; i++) {
            if (fabs(j[i].done - ref[i]) > 1e-9 * ref[i])
                fail_msg("c=%d job %d: done at %.12g, recursion says %.12g", c, i, j[i].done, ref[i]);
            sum_wait += ref[i] - j[i].service - j[i].arrive;
        }
        assert_true(w.max_busy <= c);
        assert_int_equal(w.st.completions, N);
        assert_rel(w.st.waitw.mean, sum_wait / N, 1e-9);
        assert_rel(sim_tavg_mean(&w.st.nwait, T), sum_wait / T, 1e-9);
        assert_rel(sim_station_utilisation(&w.st, T), sum_service / (c * T), 1e-9);
        world_fini(&w);
    }
}

/* reset_stats forgets what came before (end of warm-up). */
static void test_reset_stats(void **state)
{
    (void)state;
    job j[] = {{.arrive = 0, .service = 1}, {.arrive = 0.5, .service = 1}, {.arrive = 10, .service = 2}};
    world w;
    sim_init(&w.s, 16);
    sim_station_init(&w.st, 1);
    w.njobs = 3;
    w.ndone = 0;
    w.max_busy = 0;
    for (int i = 0; i < 3; i++) {
        j[i].w = &w;
        j[i].id = i;
        sim_at(&w.s, j[i].arrive, 0, on_arrive, &j[i]);
    }
    assert_int_equal(sim_run(&w.s, 5), SIM_RUN_TIME);
    assert_int_equal(w.st.completions, 2);
    sim_station_reset_stats(&w.st, 5);
    assert_int_equal(w.st.completions, 0);
    assert_int_equal(w.st.resp.n, 0);
    assert_int_equal(w.st.resp_h.n, 0);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.st.completions, 1);
    assert_close(w.st.resp.mean, 2, 1e-12);
    assert_close(sim_station_utilisation(&w.st, 15), 2.0 / 10, 1e-12); /* busy 10-12 of [5,15] */
    world_fini(&w);
}

/* On a CPU: a station (c = 1) on a one-core processor-sharing CPU, with a
 * 1 s job of its own and another 1 s job of someone else's on the CPU,
 * both from 0: they share the core and both end at 2.  A second 1 s job of
 * the station, also from 0, waits for the server (FIFO) and then has the
 * core alone: 2-3. */
static void other_done(sim *s, void *obj)
{
    *(double *)obj = s->now;
}

static void test_run_on_cpu(void **state)
{
    (void)state;
    world w;
    memset(&w, 0, sizeof w);
    sim_init(&w.s, 16);
    sim_station_init(&w.st, 1);
    sim_ps cpu;
    sim_ps_init(&cpu, 1);
    sim_station_run_on(&w.st, &cpu);
    job jobs[2] = {{&w, 0, 0, 1, NAN}, {&w, 1, 0, 1, NAN}};
    w.jobs = jobs;
    w.njobs = 2;
    double other = NAN;
    for (int i = 0; i < 2; i++)
        sim_at(&w.s, 0, 0, on_arrive, &jobs[i]);
    sim_ps_submit(&cpu, &w.s, &other, 1, other_done);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.ndone, 2);
    assert_close(jobs[0].done, 2, 1e-12);
    assert_close(other, 2, 1e-12);
    assert_close(jobs[1].done, 3, 1e-12);
    /* the server was busy all along, one job waited 0-2 */
    assert_close(sim_station_utilisation(&w.st, 3), 1, 1e-12);
    assert_close(sim_tavg_mean(&w.st.nwait, 3), 2.0 / 3, 1e-12);
    sim_ps_fini(&cpu);
    world_fini(&w);
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_c1_by_hand),
        cmocka_unit_test(test_c2_by_hand),
        cmocka_unit_test(test_fifo_same_time),
        cmocka_unit_test(test_random_vs_recursion),
        cmocka_unit_test(test_reset_stats),
        cmocka_unit_test(test_run_on_cpu),
    };
    return cmocka_run_group_tests_name("sim_station", tests, NULL, NULL);
}
