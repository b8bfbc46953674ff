/* bench_calendar: the classic hold model on sim_calendar.
 *
 * A calendar is filled with P pending events (times drawn as below); then
 * each "hold" pops the least event and pushes one at its time plus an
 * increment, so P stays constant.  One hold = one event (one pop and one
 * push), the usual way event-list benchmarks count.  Two increment
 * generators are timed:
 *   exp    exp(1) from GSL's MT19937 (what a model pays for a draw);
 *   cheap  uniform on [0, 2) from an inlined xorshift64* (mean 1 as well),
 *          so that the figure is the calendar's own cost.
 * A first line times the exp(1) draws alone.  Each figure is the median of
 * 3 runs.  Peak memory is getrusage's high-water mark of the whole process
 * so far (cases run from small to large).
 * Target (issue 2): >= 20 million events/s at 1e3 pending.
 */
#include <stdint.h>
#include <stdio.h>

#include <gsl/gsl_randist.h>

#include "bench/bench_util.h"
#include "sim/sim_calendar.h"
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

/* One run of `holds` holds with `pending` events; returns events/s. */
static double hold(size_t pending, uint64_t holds, int use_gsl, gsl_rng *r)
{
    sim_calendar c;
    sim_calendar_init(&c, pending);
    for (size_t i = 0; i < pending; i++)
        sim_calendar_push(&c, use_gsl ? gsl_ran_exponential(r, 1.0) : cheap_incr(), 0, dummy,
                          NULL);
    sim_event e;
    double sum = 0, t0 = bench_now();
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
    double dt = bench_now() - t0;
    sim_calendar_fini(&c);
    sink += sum;
    return (double)holds / dt;
}

/* The exp(1) draws alone, to show what part of the exp figure they take. */
static double draws_only(uint64_t n, gsl_rng *r)
{
    double sum = 0, t0 = bench_now();
    for (uint64_t i = 0; i < n; i++)
        sum += gsl_ran_exponential(r, 1.0);
    double dt = bench_now() - t0;
    sink += sum;
    return (double)n / dt;
}

int main(void)
{
    sim_rng_setup();
    gsl_rng *r = sim_rng_new(1, 0, 0);
    double v[3];
    for (int k = 0; k < 3; k++)
        v[k] = draws_only(10000000, r);
    double dps = bench_median(v, 3);
    printf("calendar: exp(1) draws from MT19937 alone: %.1f M draws/s (%.1f ns each)\n", dps / 1e6,
           1e9 / dps);
    static const struct {
        size_t pending;
        uint64_t holds;
    } cases[] = {{1000, 10000000}, {1000000, 3000000}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int g = 1; g >= 0; g--) {
            for (int k = 0; k < 3; k++)
                v[k] = hold(cases[i].pending, cases[i].holds, g, r);
            printf("calendar: hold model, %7zu pending, %-5s increments: %5.1f M events/s "
                   "(median of 3 x %.0e holds; 1 event = 1 pop + 1 push)  peak %.1f MiB\n",
                   cases[i].pending, g ? "exp" : "cheap", bench_median(v, 3) / 1e6,
                   (double)cases[i].holds, bench_peak_mib());
            fflush(stdout);
        }
    }
    gsl_rng_free(r);
    return sink == 0; /* never: the sums are positive */
}
