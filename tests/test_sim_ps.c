/* Tests for sim_ps: hand-computed processor-sharing schedules, many
 * simultaneous completions, work conservation, and random workloads
 * against a naive twin that tracks each job's remaining work. */
#include "tests/test_util.h"

#include <gsl/gsl_randist.h>

#include "sim/sim_ps.h"
#include "sim/sim_rng.h"

typedef struct job {
    struct world *w;
    int id;
    double arrive, work, done;
} job;

typedef struct world {
    sim s;
    sim_ps p;
    int order[4096];
    int ndone;
} world;

static void on_done(sim *s, void *obj)
{
    job *j = obj;
    j->done = s->now;
    j->w->order[j->w->ndone++] = j->id;
}

static void on_arrive(sim *s, void *obj)
{
    job *j = obj;
    sim_ps_submit(&j->w->p, s, j, j->work, on_done);
}

/* no_timer: take every calendar timer first, so that the CPU schedules
 * its completions as plain events (stale ones included) */
static void world_run_st(world *w, double cores, double stacking, job *j, int n, int no_timer)
{
    sim_init(&w->s, 16);
    while (no_timer && sim_timer_new(&w->s) >= 0)
        ;
    sim_ps_init(&w->p, cores);
    if (stacking > 0)
        sim_ps_set_stacking(&w->p, stacking);
    w->ndone = 0;
    for (int i = 0; i < n; i++) {
        j[i].w = w;
        j[i].id = i;
        j[i].done = NAN;
        sim_at(&w->s, j[i].arrive, 0, on_arrive, &j[i]);
    }
    assert_int_equal(sim_run(&w->s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w->ndone, n);
    assert_int_equal(w->p.n, 0);
}

static void world_run_opt(world *w, double cores, job *j, int n, int no_timer)
{
    world_run_st(w, cores, 0, j, n, no_timer);
}
static void world_run(world *w, double cores, job *j, int n) { world_run_opt(w, cores, j, n, 0); }

static void world_fini(world *w)
{
    sim_ps_fini(&w->p);
    sim_fini(&w->s);
}

typedef struct ps_case {
    double cores;
    int n;
    double arrive[4], work[4], done[4];
} ps_case;

static void test_known_answers(void **state)
{
    (void)state;
    const ps_case cases[] = {
        /* one job alone, 1 or 2 cores: done after its work */
        {1, 1, {0.5}, {2}, {2.5}},
        {2, 1, {0.5}, {2}, {2.5}},
        /* two equal jobs on one core finish together at twice the work */
        {1, 2, {0, 0}, {1, 1}, {2, 2}},
        /* two equal jobs on two cores: no sharing */
        {2, 2, {0, 0}, {1, 1}, {1, 1}},
        /* work 1 and 3 on one core: both at 1/2 until 2 (job 0 done), then
         * job 1 alone with 2 left: done at 4 */
        {1, 2, {0, 0}, {1, 3}, {2, 4}},
        /* work 1, 2, 3 on two cores: rate 2/3 each until 1.5 (job 0 done,
         * the others have 1 and 2 left); rate 1 each: job 1 at 2.5, job 2
         * has 1 left, alone: 3.5 */
        {2, 3, {0, 0, 0}, {1, 2, 3}, {1.5, 2.5, 3.5}},
        /* arrival during service, one core: A (work 2) at 0, B (0.5) at 1:
         * A has 1 left at 1; both at 1/2: B done at 2, A has 0.5 left: 2.5 */
        {1, 2, {0, 1}, {2, 0.5}, {2.5, 2}},
        /* 1.5 cores, three jobs of work 1 at 0: rate 1/2 each: all at 2 */
        {1.5, 3, {0, 0, 0}, {1, 1, 1}, {2, 2, 2}},
        /* zero work leaves at once; an idle gap resets nothing */
        {1, 3, {0, 1, 5}, {0, 0.5, 1}, {0, 1.5, 6}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        job j[4];
        for (int i = 0; i < cases[c].n; i++)
            j[i] = (job){.arrive = cases[c].arrive[i], .work = cases[c].work[i]};
        world w;
        world_run(&w, cases[c].cores, j, cases[c].n);
        for (int i = 0; i < cases[c].n; i++)
            if (fabs(j[i].done - cases[c].done[i]) > 1e-12)
                fail_msg("case %zu job %d: done at %.15g, expected %.15g", c, i, j[i].done, cases[c].done[i]);
        world_fini(&w);
    }
}

/* Stacking: m jobs share cap(m) = min(m, K) - s (min(m, K) - K (1 - (1 -
 * 1/K)^m)) cores. */
static void test_stacking_known_answers(void **state)
{
    (void)state;
    const struct {
        double cores, stacking;
        int n;
        double work[3], done[3];
    } cases[] = {
        /* one job: a core of its own whatever the stacking */
        {2, 1, 1, {1}, {1}},
        /* two on 2 cores placed at random: 1.5 cores, 0.75 each: done at 4/3 */
        {2, 1, 2, {1, 1}, {4.0 / 3, 4.0 / 3}},
        /* half of that loss: 1.75 cores, 0.875 each */
        {2, 0.5, 2, {1, 1}, {1 / 0.875, 1 / 0.875}},
        /* three on 2 cores at random: 2 (1 - 1/8) = 1.75 cores, 7/12 each,
         * until job 0 (work 0.5) leaves at 6/7; then two at 0.75 with 0.5
         * left: 6/7 + 2/3 */
        {2, 1, 3, {0.5, 1, 1}, {6.0 / 7, 6.0 / 7 + 2.0 / 3, 6.0 / 7 + 2.0 / 3}},
        /* 2.5 cores, two jobs: 2.5 (1 - 0.6^2) = 1.6 cores, 0.8 each */
        {2.5, 1, 2, {1, 1}, {1.25, 1.25}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        job j[3];
        for (int i = 0; i < cases[c].n; i++)
            j[i] = (job){.arrive = 0, .work = cases[c].work[i]};
        world w;
        world_run_st(&w, cases[c].cores, cases[c].stacking, j, cases[c].n, 0);
        for (int i = 0; i < cases[c].n; i++)
            if (fabs(j[i].done - cases[c].done[i]) > 1e-12)
                fail_msg("stacking case %zu job %d: done at %.15g, expected %.15g", c, i, j[i].done,
                         cases[c].done[i]);
        world_fini(&w);
    }
}

/* 40 equal jobs on one core all finish at 40, in submission order, even
 * though one completion event hands out at most 16 at a time. */
static void test_many_simultaneous(void **state)
{
    (void)state;
    job j[40];
    for (int i = 0; i < 40; i++)
        j[i] = (job){.arrive = 0, .work = 1};
    world w;
    world_run(&w, 1, j, 40);
    for (int i = 0; i < 40; i++) {
        assert_close(j[i].done, 40, 1e-9);
        assert_int_equal(w.order[i], i);
    }
    assert_int_equal(w.p.completions, 40);
    world_fini(&w);
}

/* Naive twin: remaining work per job; between events every present job
 * gets rate min(1, K/n), or with stacking s cap(n)/n where cap(n) =
 * min(n, K) - s (min(n, K) - K (1 - (1 - 1/K)^n)) (computed here by
 * summing the chance that each core is empty); the next event is the next
 * arrival or the least remaining work / rate. */
static double twin_rate(int present, double cores, double stacking)
{
    if (!present)
        return 0;
    double full = fmin(present, cores), empty = 1;
    for (int i = 0; i < present; i++)
        empty *= 1 - 1 / cores;
    double spread = cores * (1 - empty);
    return (full - stacking * (full - spread)) / present;
}

static void twin(const job *j, int n, double cores, double stacking, double *done)
{
    double *rem = malloc((size_t)n * sizeof *rem);
    int *in = calloc((size_t)n, sizeof *in);
    assert_non_null(rem);
    assert_non_null(in);
    double t = 0;
    int next = 0, present = 0, left = n;
    while (left) {
        double rate = twin_rate(present, cores, stacking);
        double dt_done = INFINITY;
        for (int i = 0; i < next; i++)
            if (in[i])
                dt_done = fmin(dt_done, rem[i] / rate);
        double dt_arr = next < n ? j[next].arrive - t : INFINITY;
        double dt = fmin(dt_done, dt_arr);
        for (int i = 0; i < next; i++)
            if (in[i])
                rem[i] -= dt * rate;
        t += dt;
        for (int i = 0; i < next; i++) {
            if (in[i] && rem[i] <= 1e-12 * fmax(1, t)) {
                in[i] = 0;
                done[i] = t;
                present--;
                left--;
            }
        }
        while (next < n && j[next].arrive <= t) {
            rem[next] = j[next].work;
            in[next] = 1;
            present++;
            next++;
        }
    }
    free(rem);
    free(in);
}

/* Random Poisson arrivals, exponential work, load 0.8, on 1, 2 and 3.5
 * cores, and on 2 and 3.5 with stacking 1 and 0.5 (load 0.7): completion
 * times agree with the twin to 1e-9 relative; total work equals the
 * integral of busy cores (min(n, K), cap(n) with stacking) over time; the
 * time average of jobs present equals sum(response) / T (Little). */
static void test_random_vs_twin(void **state)
{
    (void)state;
    enum { N = 1500 };
    static job j[N];
    static double ref[N];
    static const double cores[] = {1, 2, 3.5, 2, 3.5};
    static const double stacking[] = {0, 0, 0, 1, 0.5};
    for (int c = 0; c < 5; c++) {
        gsl_rng *r = sim_rng_new(31, (uint32_t)c, 0);
        double t = 0, total = 0;
        for (int i = 0; i < N; i++) {
            t += gsl_ran_exponential(r, 1.0 / ((stacking[c] > 0 ? 0.7 : 0.8) * cores[c]));
            j[i] = (job){.arrive = t, .work = gsl_ran_exponential(r, 1.0)};
            total += j[i].work;
        }
        gsl_rng_free(r);
        world w;
        world_run_st(&w, cores[c], stacking[c], j, N, 0);
        twin(j, N, cores[c], stacking[c], ref);
        double T = w.s.now, sum_resp = 0;
        for (int i = 0; i < N; i++) {
            if (fabs(j[i].done - ref[i]) > 1e-9 * ref[i])
                fail_msg("K=%g job %d: done at %.12g, twin says %.12g", cores[c], i, j[i].done, ref[i]);
            sum_resp += j[i].done - j[i].arrive;
        }
        assert_rel(sim_ps_utilisation(&w.p, T) * cores[c] * T, total, 1e-9);
        assert_rel(sim_tavg_mean(&w.p.njobs, T) * T, sum_resp, 1e-9);
        assert_rel(w.p.resp_sum / (double)w.p.completions, sum_resp / N, 1e-9);
        assert_int_equal(w.p.completions, N);
        world_fini(&w);
    }
}

/* Always busy: 200 jobs at time 0 on 2 cores; the last leaves at
 * total work / 2 and utilisation is 1 over [0, T]. */
/* The calendar timer leaves the schedule exactly as plain events would
 * (same completion times and order), with fewer events run: no stale
 * completions. */
static void test_timer_same_schedule(void **state)
{
    (void)state;
    enum { N = 1000 };
    static job a[N], b[N];
    gsl_rng *r = sim_rng_new(41, 0, 0);
    double t = 0;
    for (int i = 0; i < N; i++) {
        t += gsl_ran_exponential(r, 1.0 / 1.6);
        a[i] = b[i] = (job){.arrive = t, .work = gsl_ran_exponential(r, 1.0)};
    }
    gsl_rng_free(r);
    world wa, wb;
    world_run_opt(&wa, 2, a, N, 0);
    world_run_opt(&wb, 2, b, N, 1);
    for (int i = 0; i < N; i++) {
        assert_true(a[i].done == b[i].done);
        assert_int_equal(wa.order[i], wb.order[i]);
    }
    assert_true(wa.s.now == wb.s.now);
    assert_true(wa.s.nevents < wb.s.nevents);
    world_fini(&wa);
    world_fini(&wb);
}

static void test_work_conserved(void **state)
{
    (void)state;
    enum { N = 200 };
    static job j[N];
    double total = 0;
    for (int i = 0; i < N; i++) {
        j[i] = (job){.arrive = 0, .work = 0.5 + (i * 37 % 101) / 50.0};
        total += j[i].work;
    }
    world w;
    world_run(&w, 2, j, N);
    assert_rel(w.s.now, total / 2, 1e-9);
    assert_rel(sim_ps_utilisation(&w.p, w.s.now), 1, 1e-9);
    /* with equal rates, jobs leave in order of work */
    for (int k = 1; k < N; k++)
        assert_true(j[w.order[k]].work >= j[w.order[k - 1]].work);
    world_fini(&w);
}

/* After a long busy period V (the service per job so far) is large.  Two
 * short jobs then share one core: Y (work 1.5us) leaves at +3us, X (2us)
 * must leave 0.5us later, at +3.5us.  (Regression: completions were
 * grouped within 1e-12 * V of V, here 1us, so X left with Y.) */
static void test_short_jobs_after_long_run(void **state)
{
    (void)state;
    job j[3] = {{.arrive = 0, .work = 1e6}, {.arrive = 2e6, .work = 2e-6}, {.arrive = 2e6, .work = 1.5e-6}};
    world w;
    world_run(&w, 1, j, 3);
    assert_close(j[0].done, 1e6, 0);
    assert_close(j[2].done - 2e6, 3e-6, 1e-9);
    assert_close(j[1].done - 2e6, 3.5e-6, 1e-9);
    /* and without the idle gap that lets V restart */
    job k[3] = {{.arrive = 0, .work = 1e6 + 1}, {.arrive = 1e6, .work = 2e-6}, {.arrive = 1e6, .work = 1.5e-6}};
    world w2;
    world_run(&w2, 1, k, 3);
    assert_close(k[2].done - 1e6, 4.5e-6, 1e-9);
    assert_close(k[1].done - 1e6, 5.5e-6, 2e-9);
    assert_close(k[0].done, 1e6 + 1 + 3.5e-6, 1e-6);
    world_fini(&w);
    world_fini(&w2);
}

/* reset_stats restarts the averages and counters. */
static void test_reset_stats(void **state)
{
    (void)state;
    job j[2] = {{.arrive = 0, .work = 1}, {.arrive = 4, .work = 1}};
    world w;
    sim_init(&w.s, 16);
    sim_ps_init(&w.p, 1);
    w.ndone = 0;
    for (int i = 0; i < 2; i++) {
        j[i].w = &w;
        j[i].id = i;
        sim_at(&w.s, j[i].arrive, 0, on_arrive, &j[i]);
    }
    assert_int_equal(sim_run(&w.s, 2), SIM_RUN_TIME);
    sim_ps_reset_stats(&w.p, 2);
    assert_int_equal(w.p.completions, 0);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.p.completions, 1);
    assert_close(sim_ps_utilisation(&w.p, 6), 1.0 / 4, 1e-12);
    world_fini(&w);
}

/* Spinning jobs: they slow the others as present jobs would, from the
 * moment they come to the moment they go, and count as busy cores. */
typedef struct spin_ev {
    sim_ps *p;
    long delta;
} spin_ev;

static void on_spin(sim *s, void *obj)
{
    spin_ev *e = obj;
    sim_ps_spin(e->p, s, e->delta);
}

static double spin_case(double cores, double work, const double *at, const long *delta, int n)
{
    world w;
    job j = {.arrive = 0, .work = work};
    spin_ev ev[4];
    sim_init(&w.s, 16);
    sim_ps_init(&w.p, cores);
    w.ndone = 0;
    j.w = &w;
    j.id = 0;
    j.done = NAN;
    for (int i = 0; i < n; i++) {
        ev[i] = (spin_ev){&w.p, delta[i]};
        sim_at(&w.s, at[i], 0, on_spin, &ev[i]);
    }
    sim_at(&w.s, 0, 1, on_arrive, &j);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.ndone, 1);
    world_fini(&w);
    return j.done;
}

static void test_spinners(void **state)
{
    (void)state;
    /* one core, a spinner from the start: the job gets half the core */
    assert_close(spin_case(1, 1, (double[]){0}, (long[]){1}, 1), 2.0, 1e-12);
    /* a spinner comes at 0.5: 0.5 done, the other 0.5 at half speed */
    assert_close(spin_case(1, 1, (double[]){0.5}, (long[]){1}, 1), 1.5, 1e-12);
    /* present 0..1: 0.5 done by 1, then full speed */
    assert_close(spin_case(1, 1, (double[]){0, 1}, (long[]){1, -1}, 2), 1.5, 1e-12);
    /* two cores, three spinners: the job runs at 2/4 */
    assert_close(spin_case(2, 1, (double[]){0}, (long[]){3}, 1), 2.0, 1e-12);
    /* two cores, one spinner: still a core for the job */
    assert_close(spin_case(2, 1, (double[]){0}, (long[]){1}, 1), 1.0, 1e-12);
    /* a spinner alone keeps one of two cores busy: utilisation 1/2 */
    sim s;
    sim_ps p;
    sim_init(&s, 16);
    sim_ps_init(&p, 2);
    spin_ev on = {&p, 1}, off = {&p, -1};
    sim_at(&s, 1, 0, on_spin, &on);
    sim_at(&s, 3, 0, on_spin, &off);
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_EMPTY);
    assert_close(sim_ps_utilisation(&p, 4), 0.5 * 2 / 4, 1e-12);
    assert_close(sim_tavg_mean(&p.njobs, 4), 0.5, 1e-12);
    assert_int_equal(p.spin, 0);
    sim_ps_fini(&p);
    sim_fini(&s);
}

/* ---- favoured jobs (sim_ps_submit_favoured) ---- */

typedef struct wjob {
    sim_ps *p;
    int fav;
    double arrive, work, done;
} wjob;

static void on_wdone(sim *s, void *obj) { ((wjob *)obj)->done = s->now; }

static void on_warrive(sim *s, void *obj)
{
    wjob *j = obj;
    if (j->fav)
        sim_ps_submit_favoured(j->p, s, j, j->work, on_wdone);
    else
        sim_ps_submit(j->p, s, j, j->work, on_wdone);
}

static void wrun(double cores, double stacking, double weight, wjob *j, int n)
{
    sim s;
    sim_ps p;
    sim_init(&s, 16);
    sim_ps_init(&p, cores);
    if (stacking > 0)
        sim_ps_set_stacking(&p, stacking);
    sim_ps_set_weight(&p, weight);
    for (int i = 0; i < n; i++) {
        j[i].p = &p;
        j[i].done = NAN;
        sim_at(&s, j[i].arrive, 0, on_warrive, &j[i]);
    }
    assert_int_equal(sim_run(&s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(p.n + p.n2, 0);
    assert_int_equal(p.completions, n);
    sim_ps_fini(&p);
    sim_fini(&s);
}

/* The twin's rates: cap = m x the equal-weight rate; the others at cap /
 * (W nf + no), the favoured W times that, capped at 1. */
static void wtwin_rates(int nf, int no, double cores, double stacking, double weight, double *rf,
                        double *ro)
{
    int m = nf + no;
    double cap = m ? twin_rate(m, cores, stacking) * m : 0;
    *ro = m ? cap / (weight * nf + no) : 0;
    *rf = weight * *ro;
    if (*rf > 1) {
        *rf = 1;
        *ro = no ? (cap - nf) / no : 0;
    }
}

static void wtwin(const wjob *j, int n, double cores, double stacking, double weight,
                  double *done)
{
    double *rem = malloc((size_t)n * sizeof *rem);
    int *in = calloc((size_t)n, sizeof *in);
    assert_non_null(rem);
    assert_non_null(in);
    double t = 0;
    int next = 0, left = n, nf = 0, no = 0;
    while (left) {
        double rf, ro;
        wtwin_rates(nf, no, cores, stacking, weight, &rf, &ro);
        double dt = next < n ? j[next].arrive - t : INFINITY;
        for (int i = 0; i < next; i++)
            if (in[i])
                dt = fmin(dt, rem[i] / (j[i].fav ? rf : ro));
        t += dt;
        for (int i = 0; i < next; i++) {
            if (!in[i])
                continue;
            rem[i] -= dt * (j[i].fav ? rf : ro);
            if (rem[i] <= 1e-12 * fmax(1, t)) {
                in[i] = 0;
                done[i] = t;
                left--;
                j[i].fav ? nf-- : no--;
            }
        }
        while (next < n && j[next].arrive <= t) {
            rem[next] = j[next].work;
            in[next] = 1;
            j[next].fav ? nf++ : no++;
            next++;
        }
    }
    free(rem);
    free(in);
}

/* Hand-computed: one core, a favoured job and an ordinary one of 1 s each
 * from 0, weight 2: 2/3 and 1/3 of the core; the favoured one is done at
 * 1.5 (the other has 0.5 left, then runs alone: done at 2).  Two cores,
 * weight 2: the favoured job alone would get 4/3, capped at 1; the other
 * gets 1: both done at 1.  Weight 1: the same schedule as plain
 * submissions (the same completion times to the last bit). */
static void test_favoured_known(void **state)
{
    (void)state;
    wjob a[2] = {{.fav = 1, .arrive = 0, .work = 1}, {.fav = 0, .arrive = 0, .work = 1}};
    wrun(1, 0, 2, a, 2);
    assert_close(a[0].done, 1.5, 1e-12);
    assert_close(a[1].done, 2.0, 1e-12);
    wrun(2, 0, 2, a, 2);
    assert_close(a[0].done, 1.0, 1e-12);
    assert_close(a[1].done, 1.0, 1e-12);
    /* one core, weight 3, the favoured job arrives at 0.5 */
    wjob b[2] = {{.fav = 0, .arrive = 0, .work = 1}, {.fav = 1, .arrive = 0.5, .work = 0.75}};
    wrun(1, 0, 3, b, 2);
    assert_close(b[1].done, 1.5, 1e-12); /* 0.75 at 3/4 of the core */
    assert_close(b[0].done, 1.75, 1e-12); /* 0.5 + 0.25 by 1.5, then the last 0.25 alone */
    wjob c[3] = {{.fav = 1, .arrive = 0, .work = 0.3}, {.fav = 0, .arrive = 0.1, .work = 0.7},
                 {.fav = 1, .arrive = 0.2, .work = 0.2}};
    wjob d[3];
    memcpy(d, c, sizeof c);
    for (int i = 0; i < 3; i++)
        d[i].fav = 0;
    wrun(1.5, 0, 1, c, 3);
    wrun(1.5, 0, 1, d, 3);
    for (int i = 0; i < 3; i++)
        assert_true(c[i].done == d[i].done);
}

/* Random workloads, a third of the jobs favoured, on 1, 2 and 2.47 cores,
 * weight 2 and 3, with and without stacking: completion times agree with
 * the twin to 1e-9 relative. */
static void test_favoured_vs_twin(void **state)
{
    (void)state;
    enum { N = 1200 };
    static wjob j[N];
    static double ref[N];
    static const double cores[] = {1, 2, 2.47, 2};
    static const double stacking[] = {0, 0, 0, 1};
    static const double weight[] = {2, 3, 2, 2};
    for (int c = 0; c < 4; c++) {
        gsl_rng *r = sim_rng_new(77, (uint32_t)c, 0);
        double t = 0;
        for (int i = 0; i < N; i++) {
            t += gsl_ran_exponential(r, 1.0 / (0.75 * cores[c]));
            j[i] = (wjob){.fav = gsl_rng_uniform(r) < 1.0 / 3, .arrive = t,
                          .work = gsl_ran_exponential(r, 1.0)};
        }
        gsl_rng_free(r);
        wrun(cores[c], stacking[c], weight[c], j, N);
        wtwin(j, N, cores[c], stacking[c], weight[c], ref);
        for (int i = 0; i < N; i++)
            if (fabs(j[i].done - ref[i]) > 1e-9 * ref[i])
                fail_msg("K=%g W=%g job %d (fav %d): done at %.12g, twin says %.12g", cores[c],
                         weight[c], i, j[i].fav, j[i].done, ref[i]);
    }
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_stacking_known_answers),
        cmocka_unit_test(test_many_simultaneous),
        cmocka_unit_test(test_random_vs_twin),
        cmocka_unit_test(test_timer_same_schedule),
        cmocka_unit_test(test_work_conserved),
        cmocka_unit_test(test_short_jobs_after_long_run),
        cmocka_unit_test(test_reset_stats),
        cmocka_unit_test(test_spinners),
        cmocka_unit_test(test_favoured_known),
        cmocka_unit_test(test_favoured_vs_twin),
    };
    return cmocka_run_group_tests_name("sim_ps", tests, NULL, NULL);
}
