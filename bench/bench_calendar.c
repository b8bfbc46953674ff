/* bench_calendar: the classic hold model on sim_calendar (the 4-ary heap)
 * and on sim_cq (a calendar queue, the candidate of issue 18).
 *
 * A store is filled with P pending events (times drawn as below); then
 * each "hold" pops the least event and pushes one at its time plus an
 * increment, so P stays constant.  One hold = one event (one pop and one
 * push), the usual way event-list benchmarks count.  Two increment
 * generators are timed:
 *   exp    exp(1) through sim_dist_sample from a stream of the default
 *          generator (xoshiro256**, ziggurat): what a model pays for a draw;
 *   cheap  uniform on [0, 2) from an inlined xorshift64* (mean 1 as well),
 *          so that the figure is the store's own cost.
 * First lines time the exp(1) draws alone, from the default stream and
 * from an MT19937 stream (run.rng = mt19937: GSL's sampler), median of 3.
 * The hold figures: BENCH_CAL_ROUNDS rounds (default 7), each running the
 * heap and the calendar queue once, which one first alternating from
 * round to round; medians of the rounds of CPU time of the thread (less
 * disturbed by other work on a shared machine than the wall clock, also
 * printed).  Peak memory is getrusage's high-water mark of the whole
 * process so far (cases run from small to large).
 * Targets: >= 20 million events/s at 1e3 pending (issue 2); >= 35 million
 * events/s at 1e3 pending with exp increments (issue 18).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "bench/bench_util.h"
#include "sim/sim_calendar.h"
#include "sim/sim_cq.h"
#include "sim/sim_dist.h"
#include "sim/sim_rng.h"

static void dummy(struct sim *s, void *obj)
{
    (void)s;
    (void)obj;
}

static uint64_t xs_state = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: uniform on [0, 2). */
static inline double cheap_incr(void)
{
    xs_state ^= xs_state >> 12;
    xs_state ^= xs_state << 25;
    xs_state ^= xs_state >> 27;
    uint64_t x = xs_state * 0x2545f4914f6cdd1dULL;
    return (double)(x >> 11) * 0x1.0p-52;
}

static double sink; /* keeps the work observable */

#define MAX_ROUNDS 31

enum { INCR_EXP, INCR_CHEAP };

static inline double incr(int kind, const sim_dist *d, gsl_rng *r)
{
    return kind == INCR_EXP ? sim_dist_sample(d, r) : cheap_incr();
}

/* One run of `holds` holds with `pending` events on one store (heap:
 * sim_calendar; cq: sim_cq); returns events/s (wall and CPU).  A macro,
 * not a function pointer, so that each store's push and pop are direct
 * calls, as in the simulator. */
#define HOLD_RUN(init, push, pop, fini, q) \
    do { \
        init(&q, pending); \
        for (size_t i = 0; i < pending; i++) \
            push(&q, incr(kind, d, r), 0, dummy, NULL); \
        sim_event e; \
        double sum = 0; \
        bench_clock t0 = bench_start(); \
        if (kind == INCR_EXP) { \
            for (uint64_t i = 0; i < holds; i++) { \
                pop(&q, &e); \
                sum += e.t; \
                push(&q, e.t + sim_dist_sample(d, r), 0, dummy, NULL); \
            } \
        } else { \
            for (uint64_t i = 0; i < holds; i++) { \
                pop(&q, &e); \
                sum += e.t; \
                push(&q, e.t + cheap_incr(), 0, dummy, NULL); \
            } \
        } \
        dt = bench_since(t0); \
        fini(&q); \
        sink += sum; \
    } while (0)

enum { STORE_HEAP, STORE_CQ };

static bench_clock hold(int store, size_t pending, uint64_t holds, int kind, const sim_dist *d,
                        gsl_rng *r)
{
    bench_clock dt;
    if (store == STORE_HEAP) {
        sim_calendar c;
        HOLD_RUN(sim_calendar_init, sim_calendar_push, sim_calendar_pop, sim_calendar_fini, c);
    } else {
        sim_cq q;
        HOLD_RUN(sim_cq_init, sim_cq_push, sim_cq_pop, sim_cq_fini, q);
    }
    return (bench_clock){(double)holds / dt.wall, (double)holds / dt.cpu};
}

/* The exp(1) draws alone, to show what part of the exp figure they take. */
static bench_clock draws_only(uint64_t n, const sim_dist *d, gsl_rng *r)
{
    double sum = 0;
    bench_clock t0 = bench_start();
    for (uint64_t i = 0; i < n; i++)
        sum += sim_dist_sample(d, r);
    bench_clock dt = bench_since(t0);
    sink += sum;
    return (bench_clock){(double)n / dt.wall, (double)n / dt.cpu};
}

/* Medians of three (wall, cpu) figures. */
static bench_clock median3(const bench_clock v[3])
{
    double w[3] = {v[0].wall, v[1].wall, v[2].wall}, c[3] = {v[0].cpu, v[1].cpu, v[2].cpu};
    return (bench_clock){bench_median(w, 3), bench_median(c, 3)};
}

int main(void)
{
    sim_rng_setup();
    sim_dist d;
    char msg[128];
    if (sim_dist_parse("exp(mean=1)", &d, msg, sizeof msg)) {
        fprintf(stderr, "bench_calendar: %s\n", msg);
        return 1;
    }
    gsl_rng *gens[2] = {sim_rng_new_kind(SIM_RNG_XOSHIRO, 1, 0, 0),
                        sim_rng_new_kind(SIM_RNG_MT19937, 1, 0, 0)};
    bench_clock v[3], m;
    for (int g = 0; g < 2; g++) {
        for (int k = 0; k < 3; k++)
            v[k] = draws_only(10000000, &d, gens[g]);
        m = median3(v);
        printf("calendar: exp(1) draws alone, %-12s: %6.1f M draws/s (%.1f ns each; CPU time: "
               "%.1f M/s)\n",
               gsl_rng_name(gens[g]), m.wall / 1e6, 1e9 / m.wall, m.cpu / 1e6);
    }
    /* Heap against calendar queue: rounds alternate which store runs
     * first; medians of the rounds, CPU time. */
    const char *env = getenv("BENCH_CAL_ROUNDS");
    int rounds = env ? atoi(env) : 7;
    if (rounds < 1 || rounds > MAX_ROUNDS)
        rounds = 7;
    static const struct {
        size_t pending;
        uint64_t holds;
    } cases[] = {{100, 10000000}, {1000, 10000000}, {1000000, 3000000}};
    static const char *const store_name[2] = {"heap", "cq"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int kind = INCR_EXP; kind <= INCR_CHEAP; kind++) {
            double wall[2][MAX_ROUNDS], cpu[2][MAX_ROUNDS];
            for (int k = 0; k < rounds; k++)
                for (int j = 0; j < 2; j++) {
                    int st = (k & 1) ? 1 - j : j;
                    bench_clock x = hold(st, cases[i].pending, cases[i].holds, kind, &d, gens[0]);
                    wall[st][k] = x.wall;
                    cpu[st][k] = x.cpu;
                }
            double mc[2];
            for (int st = 0; st < 2; st++) {
                double mw = bench_median(wall[st], rounds);
                mc[st] = bench_median(cpu[st], rounds);
                printf("calendar: hold model, %7zu pending, %-5s increments, %-4s: %6.1f ns/hold, "
                       "%5.1f M events/s (CPU time; wall: %5.1f M/s; median of %d x %.0e holds; "
                       "1 event = 1 pop + 1 push)  peak %.1f MiB\n",
                       cases[i].pending, kind == INCR_EXP ? "exp" : "cheap", store_name[st],
                       1e9 / mc[st], mc[st] / 1e6, mw / 1e6, rounds, (double)cases[i].holds,
                       bench_peak_mib());
            }
            printf("calendar: hold model, %7zu pending, %-5s increments: cq/heap speed %.2f\n",
                   cases[i].pending, kind == INCR_EXP ? "exp" : "cheap", mc[STORE_CQ] / mc[STORE_HEAP]);
            fflush(stdout);
        }
    }
    gsl_rng_free(gens[0]);
    gsl_rng_free(gens[1]);
    sim_dist_fini(&d);
    return sink == 0; /* never: the sums are positive */
}
