/* sim_dist: service-time and delay distributions, parsed from text specs
 * and sampled from a stream of sim_rng: with GSL's samplers on an MT19937
 * stream, with sim_rng's faster ones (ziggurat exponential and normal,
 * Marsaglia-Tsang gamma) on a xoshiro256** stream; the same
 * distributions either way.
 *
 * Spec grammar (values are durations: bare numbers are seconds, units ns,
 * us, ms, s, min, h are allowed; for non-time quantities just use numbers):
 *   5ms                              constant (also const(5ms), det(5ms))
 *   exp(1ms)  exp(mean=1ms)  exp(rate=1000)
 *   uniform(1ms, 3ms)                uniform(min=..., max=...)
 *   lognormal(mean=2ms, sd=1ms)      lognormal(mu=-6.2, sigma=0.5) (log space)
 *   gamma(shape=2, mean=1ms)  gamma(shape=2, scale=0.5ms)  gamma(mean=..., sd=...)
 *   erlang(k=3, mean=1ms)
 *   weibull(shape=1.5, scale=1ms)
 *   normal(mean=1ms, sd=0.1ms)       truncated at 0 by resampling
 *   empirical(q0 q1 ... qn)          n+1 equally spaced quantiles, linear
 *                                    interpolation between them (n >= 1)
 * Every form takes an extra shift=D (a constant added to each sample).
 *
 * Invariants: a parsed distribution has finite, non-negative mean; samples
 * are >= 0 for every form except normal with shift < 0 (rejected).
 * Cost: parsing O(spec length); sampling O(1) (an exponential from a
 * xoshiro256** stream: one 64-bit draw, inline, in 99% of the cases; a
 * gamma of shape >= 1: two draws, inline, in about 98%; sim_dist_sample
 * is always inlined, so that a caller's distribution kind is tested there
 * and not in a shared out-of-line copy: TigerFans pg_pg about 2% less CPU);
 * sim_dist_fill draws a batch (a gamma of shape >= 1 with the stream's
 * state in registers), and sim_dist_buf hands out a batch drawn ahead, the
 * same values as sim_dist_sample in the same order, when nothing else
 * draws from that stream; empirical keeps its quantile array on the heap
 * (freed by sim_dist_fini).
 */
#ifndef SIM_DIST_H
#define SIM_DIST_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "sim/sim_rng.h"

typedef enum sim_dist_kind {
    SIM_DIST_CONST,
    SIM_DIST_EXP,
    SIM_DIST_UNIFORM,
    SIM_DIST_LOGNORMAL,
    SIM_DIST_GAMMA,
    SIM_DIST_WEIBULL,
    SIM_DIST_NORMAL,
    SIM_DIST_EMPIRICAL
} sim_dist_kind;

typedef struct sim_dist {
    sim_dist_kind kind;
    double a, b;   /* CONST: a=value; EXP: a=mean; UNIFORM: [a,b];
                      LOGNORMAL: a=mu, b=sigma (log space); GAMMA: a=shape,
                      b=scale; WEIBULL: a=shape, b=scale; NORMAL: a=mean, b=sd */
    double shift;
    double *q;     /* EMPIRICAL: nq quantiles, owned */
    size_t nq;
    double gd, gc; /* GAMMA: the sampler's constants for shape a
                      (sim_rng_gamma_prepare), set by parse and copy; 0 when
                      the distribution was built by hand (computed per draw) */
} sim_dist;

/* Parse spec into d (caller-provided storage).  On error returns -1 and
 * writes a reason into msg (len bytes); d is then left empty (safe to
 * fini).  On success the caller must call sim_dist_fini(d). */
int sim_dist_parse(const char *spec, sim_dist *d, char *msg, size_t len);
void sim_dist_fini(sim_dist *d);

/* Constant distribution (no allocation; fini is a no-op). */
sim_dist sim_dist_const(double v);
/* Copy src into dst (dst gets its own quantile array). */
void sim_dist_copy(sim_dist *dst, const sim_dist *src);

/* A sample of d drawn from r: with GSL's samplers from an MT19937 stream,
 * with sim_rng's from a xoshiro256** stream (an exponential from such a
 * stream inline). */
double sim_dist_sample_any(const sim_dist *d, gsl_rng *r);
static inline __attribute__((always_inline)) double sim_dist_sample(const sim_dist *d, gsl_rng *r)
{
    if (d->kind == SIM_DIST_EXP && sim_rng_is_xoshiro(r))
        return d->a * sim_rng_exp1(r) + d->shift;
    /* gamma with shape >= 1 (service-time shapes, jitter) inline too */
    if (d->kind == SIM_DIST_GAMMA && d->gd > 0 && d->a >= 1 && sim_rng_is_xoshiro(r))
        return d->b * sim_rng_gamma1_ge1(r, d->a, d->gd, d->gc) + d->shift;
    return sim_dist_sample_any(d, r);
}
/* The next n samples of d drawn from r into out[0..n-1]: the same values
 * as n calls of sim_dist_sample, in order, and r left in the same state.
 * A gamma of shape >= 1 from a xoshiro256** stream is drawn with the
 * stream's state in registers (no store and reload per draw); the other
 * kinds by sim_dist_sample.  Cost (this VM, gamma(shape=4), issue 18):
 * 5.8 ns per draw against 7.0 for separate sim_dist_sample calls. */
void sim_dist_fill(const sim_dist *d, gsl_rng *r, double *out, size_t n);

/* A buffer of samples drawn ahead (sim_dist_fill, SIM_DIST_BUF at a time):
 * sim_dist_buf_next returns the same values, in the same order, as
 * successive sim_dist_sample(d, r) would, provided that nothing else draws
 * from r (it is ahead of the consumer by up to SIM_DIST_BUF draws).  For
 * a model's hottest samples (TigerFans: every burst's CPU factor): the
 * value is a load, not a chain of dependent draws on the critical path
 * (issue 18: TigerFans pg_pg at concurrency 100, about 3% less CPU time;
 * 32 samples per batch were slower, 256 to 1024 the same as 128). */
#define SIM_DIST_BUF 128
typedef struct sim_dist_buf {
    const sim_dist *d; /* borrowed */
    gsl_rng *r;        /* borrowed; drawn only through this buffer */
    unsigned i, n;     /* next sample, samples held */
    double v[SIM_DIST_BUF];
} sim_dist_buf;

void sim_dist_buf_init(sim_dist_buf *b, const sim_dist *d, gsl_rng *r);
/* Refill an exhausted buffer (sim_dist_buf_next does this). */
void sim_dist_buf_refill(sim_dist_buf *b);
static inline double sim_dist_buf_next(sim_dist_buf *b)
{
    if (b->i == b->n)
        sim_dist_buf_refill(b);
    return b->v[b->i++];
}

double sim_dist_mean(const sim_dist *d);
double sim_dist_var(const sim_dist *d);
/* Multiply every sample by f > 0 (scales mean by f, sd by f). */
void sim_dist_scale(sim_dist *d, double f);

/* Write a spec that parses back to the same distribution, bit for bit
 * (seconds, shortest of %.15g/%.16g/%.17g that reads back exactly).
 * Returns the length that snprintf would have written. */
int sim_dist_format(const sim_dist *d, char *buf, size_t len);
/* The same for people: every number with `digits` (1..17) significant
 * digits (so it reads back close to, not exactly as, d). */
int sim_dist_format_digits(const sim_dist *d, int digits, char *buf, size_t len);

#endif
