/* bench_calendar: the classic hold model on sim_calendar.
 *
 * A calendar is filled with P pending events (times exp(1)); then each
 * "hold" pops the least event and pushes one at its time plus an
 * increment, so P stays constant.  One hold = one event (one pop and one
 * push), the usual way event-list benchmarks count.  Two increment
 * generators are timed:
 *   exp   exp(1) from GSL's MT19937 (what a model pays for a draw);
 *   cheap uniform on [0, 2) from an inlined xorshift64* (mean 1 as well),
 *         so that the figure is the calendar's own cost.
 * A first line times the exp(1) draws alone.
 * Peak memory is getrusage's ru_maxrss, the high-water mark of the whole
 * process so far (cases run from small to large).
 * Target (issue 2): >= 20 million events/s at 1e3 pending.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include <gsl/gsl_randist.h>

#include "sim/sim_calendar.h"
#include "sim/sim_rng.h"

static void dummy(struct sim *s, void *obj)
{
    (void)s;
    (void)obj;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long peak_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
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

/* Runs `holds` holds with `pending` events; returns events per second.
 * *check receives the sum of popped times (printed so the work is kept). */
static double hold(size_t pending, uint64_t holds, int use_gsl, gsl_rng *r, double *check)
{
    sim_calendar c;
    sim_calendar_init(&c, pending);
    for (size_t i = 0; i < pending; i++)
        sim_calendar_push(&c, use_gsl ? gsl_ran_exponential(r, 1.0) : cheap_incr(), 0, dummy,
                          NULL);
    sim_event e;
    double sum = 0;
    double t0 = now_s();
    if (use_gsl) {
        for (uint64_t i = 0; i < holds; i++) {
            sim_calendar_pop(&c, &e);
            sum += e.t;
            sim_calendar_push(&c, e.t + gsl_ran_exponential(r, 1.0), 0, dummy, NULL);
        }
    } else {
        for (uint64_t i = 0; i < holds; i++) {
            sim_calendar_pop(&c, &e);
            sum += e.t;
            sim_calendar_push(&c, e.t + cheap_incr(), 0, dummy, NULL);
        }
    }
    double dt = now_s() - t0;
    sim_calendar_fini(&c);
    *check = sum;
    return (double)holds / dt;
}

/* The exp(1) draws alone, to show what part of the first figure they take. */
static double draws_only(uint64_t n, gsl_rng *r, double *check)
{
    double sum = 0, t0 = now_s();
    for (uint64_t i = 0; i < n; i++)
        sum += gsl_ran_exponential(r, 1.0);
    double dt = now_s() - t0;
    *check = sum;
    return (double)n / dt;
}

int main(void)
{
    sim_rng_setup();
    gsl_rng *r = sim_rng_new(1, 0, 0);
    double chk;
    double dps = draws_only(20000000, r, &chk);
    printf("bench_calendar: exp(1)/MT19937 draws alone: %6.2f M draws/s (%.1f ns each; check %.3g)\n",
           dps / 1e6, 1e9 / dps, chk);
    static const struct {
        size_t pending;
        uint64_t holds;
    } cases[] = {{1000, 20000000}, {1000000, 4000000}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int g = 1; g >= 0; g--) {
            double check;
            double eps = hold(cases[k].pending, cases[k].holds, g, r, &check);
            printf("bench_calendar: hold model, %7zu pending, %s increments: %6.2f M events/s "
                   "(%.0e holds, 1 event = 1 pop + 1 push), peak RSS %ld KiB (check %.3g)\n",
                   cases[k].pending, g ? "exp(1)/MT19937" : "cheap xorshift", eps / 1e6,
                   (double)cases[k].holds, peak_kib(), check);
            fflush(stdout);
        }
    }
    gsl_rng_free(r);
    return 0;
}
