/* Tests for sim_dist: every spec form, bad specs, format round trip,
 * sampler moments against sim_dist_mean/var (both generators), the fast
 * samplers against each form's distribution function (KS), MT19937
 * streams drawing exactly GSL's samples, scale, copy.
 *
 * This file deliberately never calls sim_rng_setup(): parsing bad input
 * must not reach GSL's aborting error handler. */
#include "tests/test_util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/sim_dist.h"
#include "sim/sim_rng.h"

typedef struct form_case {
    const char *spec;
    sim_dist_kind kind;
    double a, b, shift, mean, var;
} form_case;

static void check_form(const form_case *c)
{
    sim_dist d;
    char msg[256] = "";
    if (sim_dist_parse(c->spec, &d, msg, sizeof msg))
        fail_msg("'%s' rejected: %s", c->spec, msg);
    if (d.kind != c->kind)
        fail_msg("'%s': kind %d, expected %d", c->spec, (int)d.kind, (int)c->kind);
    assert_rel(d.a, c->a, 1e-12);
    assert_rel(d.b, c->b, 1e-12);
    assert_rel(d.shift, c->shift, 1e-12);
    assert_rel(sim_dist_mean(&d), c->mean, 1e-12);
    assert_rel(sim_dist_var(&d), c->var, 1e-9);
    sim_dist_fini(&d);
}

static void test_forms(void **state)
{
    (void)state;
    double s2 = log(1.25); /* lognormal(mean=2ms, sd=1ms): sigma^2 = log(1 + cv^2) */
    const form_case cases[] = {
        {"5ms", SIM_DIST_CONST, 5e-3, 0, 0, 5e-3, 0},
        {"  7  ", SIM_DIST_CONST, 7, 0, 0, 7, 0},
        {"const(5ms)", SIM_DIST_CONST, 5e-3, 0, 0, 5e-3, 0},
        {"det(5ms)", SIM_DIST_CONST, 5e-3, 0, 0, 5e-3, 0},
        {"const(value=2us, shift=1us)", SIM_DIST_CONST, 2e-6, 0, 1e-6, 3e-6, 0},
        {"exp(1ms)", SIM_DIST_EXP, 1e-3, 0, 0, 1e-3, 1e-6},
        {"exponential(1ms)", SIM_DIST_EXP, 1e-3, 0, 0, 1e-3, 1e-6},
        {"exp(mean=1ms)", SIM_DIST_EXP, 1e-3, 0, 0, 1e-3, 1e-6},
        {" exp ( mean = 1ms ) ", SIM_DIST_EXP, 1e-3, 0, 0, 1e-3, 1e-6},
        {"exp(rate=1000)", SIM_DIST_EXP, 1e-3, 0, 0, 1e-3, 1e-6},
        {"exp(rate=900/s)", SIM_DIST_EXP, 1.0 / 900, 0, 0, 1.0 / 900, 1.0 / 810000},
        {"exp(rate=2/ms)", SIM_DIST_EXP, 5e-4, 0, 0, 5e-4, 2.5e-7},
        {"exp(rate=60/min, shift=1s)", SIM_DIST_EXP, 1, 0, 1, 2, 1},
        {"uniform(1ms, 3ms)", SIM_DIST_UNIFORM, 1e-3, 3e-3, 0, 2e-3, 4e-6 / 12},
        {"uniform(min=1ms, max=3ms)", SIM_DIST_UNIFORM, 1e-3, 3e-3, 0, 2e-3, 4e-6 / 12},
        {"uniform(max=3ms, min=1ms)", SIM_DIST_UNIFORM, 1e-3, 3e-3, 0, 2e-3, 4e-6 / 12},
        {"lognormal(mean=2ms, sd=1ms)", SIM_DIST_LOGNORMAL, log(2e-3) - s2 / 2, sqrt(s2), 0, 2e-3, 1e-6},
        {"lognormal(sd=1ms, mean=2ms, shift=3ms)", SIM_DIST_LOGNORMAL, log(2e-3) - s2 / 2, sqrt(s2), 3e-3, 5e-3,
         1e-6},
        {"lognormal(mu=-6.2, sigma=0.5)", SIM_DIST_LOGNORMAL, -6.2, 0.5, 0, exp(-6.2 + 0.125),
         expm1(0.25) * exp(-12.4 + 0.25)},
        {"gamma(shape=2, mean=1ms)", SIM_DIST_GAMMA, 2, 5e-4, 0, 1e-3, 5e-7},
        {"gamma(shape=2, scale=0.5ms)", SIM_DIST_GAMMA, 2, 5e-4, 0, 1e-3, 5e-7},
        {"gamma(mean=1ms, sd=0.5ms)", SIM_DIST_GAMMA, 4, 2.5e-4, 0, 1e-3, 2.5e-7},
        {"erlang(k=3, mean=3ms)", SIM_DIST_GAMMA, 3, 1e-3, 0, 3e-3, 3e-6},
        {"weibull(shape=1, scale=2ms)", SIM_DIST_WEIBULL, 1, 2e-3, 0, 2e-3, 4e-6},
        {"weibull(shape=2, scale=1s)", SIM_DIST_WEIBULL, 2, 1, 0, sqrt(M_PI) / 2, 1 - M_PI / 4},
        {"normal(mean=1ms, sd=0.1ms)", SIM_DIST_NORMAL, 1e-3, 1e-4, 0, 1e-3, 1e-8},
        /* truncated at 0 with z = 1: mean = mu + sd*phi(1)/Phi(1) */
        {"normal(mean=1, sd=1)", SIM_DIST_NORMAL, 1, 1, 0, 1 + 0.24197072451914337 / 0.8413447460685429,
         1 - 0.24197072451914337 / 0.8413447460685429 -
             pow(0.24197072451914337 / 0.8413447460685429, 2)},
        {"empirical(1ms 2ms 4ms)", SIM_DIST_EMPIRICAL, 0, 0, 0, 2.25e-3,
         /* mixture of U(1,2) and U(2,4) ms */
         ((1 + 2 + 4) / 3.0 + (4 + 8 + 16) / 3.0) / 2 * 1e-6 - 2.25e-3 * 2.25e-3},
        {"empirical(1ms, 2ms, 4ms, shift=1ms)", SIM_DIST_EMPIRICAL, 0, 0, 1e-3, 3.25e-3,
         ((1 + 2 + 4) / 3.0 + (4 + 8 + 16) / 3.0) / 2 * 1e-6 - 2.25e-3 * 2.25e-3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_form(&cases[i]);
}

static void test_units(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        double v;
    } u[] = {{"3ns", 3e-9}, {"3us", 3e-6}, {"3ms", 3e-3}, {"3s", 3},       {"3", 3},
             {"2min", 120}, {"1h", 3600}, {"1.5e-3s", 1.5e-3}, {" 4 ms ", 4e-3}, {"0", 0}};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        sim_dist d;
        char msg[256];
        assert_int_equal(sim_dist_parse(u[i].spec, &d, msg, sizeof msg), 0);
        assert_int_equal(d.kind, SIM_DIST_CONST);
        assert_rel(d.a, u[i].v, 1e-15);
        sim_dist_fini(&d);
    }
}

static void test_bad_specs(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *why;
    } bad[] = {
        {"", "not a number"},
        {"fast", "not a number"},
        {"5parsecs", "unknown time unit"},
        {"-1ms", "negative"},
        {"nan", "'nan': not a number"},
        {"inf", "not a number"},
        {"1e999ms", "out of range"},
        {"0x1p3ms", "not a number"},
        {"1e308h", "out of range"},          /* finite number, infinite duration */
        {"foo(1ms)", "unknown distribution 'foo'"},
        {"EXP(1ms)", "unknown distribution"},
        {"(1ms)", "missing or too long distribution name"},
        {"exp(1ms", "missing ')'"},
        {"exp 1ms)", "not a number"},
        {"exp(1ms) x", "trailing characters"},
        {"exp(1ms))", "argument"},
        {"exp()", "exp() takes"},
        {"exp(1ms,)", "empty argument"},
        {"exp(,1ms)", "empty argument"},
        {"uniform(1ms,,3ms)", "empty argument"},
        {"exp(-1ms)", "mean must be > 0"},
        {"exp(0)", "mean must be > 0"},
        {"exp(rate=0)", "rate must be > 0"},
        {"exp(rate=5ms)", "unknown rate unit"},
        {"exp(mean=nan)", "not a number"},
        {"exp(mean=inf)", "not a number"},
        {"exp(mean=1ms, rate=5)", "exp() takes"},
        {"exp(mean=1ms, mean=2ms)", "exp() takes"},
        {"exp(1ms, 2ms)", "exp() takes"},
        {"exp(mean=1ms, bogus=1)", "exp() takes"},
        {"exp(=1ms)", "bad argument name"},
        {"exp(averylongargumentname=1ms)", "bad argument name"},
        {"exp(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9)", "too many arguments"},
        {"const(1ms, 2ms)", "const() takes one value"},
        {"const(-1ms)", "value must be >= 0"},
        {"uniform(3ms, 1ms)", "need 0 <= min <= max"},
        {"uniform(-1ms, 1ms)", "need 0 <= min <= max"},
        {"uniform(1ms)", "uniform() takes"},
        {"lognormal(mean=2ms)", "lognormal() takes"},
        {"lognormal(mean=-2ms, sd=1ms)", "need mean > 0"},
        {"lognormal(mu=0, sigma=-1)", "sigma must be >= 0"},
        {"lognormal(mu=1000, sigma=1)", "mu out of range"},
        {"lognormal(mu=0, sigma=30)", "no finite mean or variance"},
        {"gamma(shape=2)", "gamma() takes"},
        {"gamma(shape=-2, scale=1ms)", "shape and scale must be > 0"},
        {"gamma(shape=0, mean=1ms)", "shape must be > 0"},
        {"gamma(mean=1ms, sd=0)", "need mean > 0 and sd > 0"},
        {"erlang(k=2.5, mean=1ms)", "whole number"},
        {"erlang(mean=1ms, sd=1ms)", "gamma() takes"},
        {"weibull(shape=1.5)", "weibull() takes"},
        {"weibull(shape=0, scale=1ms)", "must be > 0"},
        {"weibull(shape=0.001, scale=1ms)", "no finite mean"}, /* Gamma(1001) overflows */
        {"normal(mean=0, sd=1ms)", "need mean > 0"},
        {"normal(mean=1ms, sd=-1ms)", "sd >= 0"},
        {"gamma(shape=2, mean=1ms, shift=-1ms)", "shift must be >= 0"},
        {"empirical(1ms)", "at least two"},
        {"empirical()", "at least two"},
        {"empirical(2ms 1ms)", "non-decreasing"},
        {"empirical(-1ms 1ms)", "non-negative"},
        {"empirical(1ms 2ms x)", "empirical: 'x'"},
        {"empirical(1ms 2ms shift 1)", "expected shift=D"},
        {"empirical(1ms 2ms shift=-1ms)", "shift must be >= 0"},
        {"empirical(1ms 2ms shift=nan)", "not a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sim_dist d;
        char msg[256] = "";
        if (sim_dist_parse(bad[i].spec, &d, msg, sizeof msg) == 0)
            fail_msg("'%s' accepted", bad[i].spec);
        if (!strstr(msg, bad[i].why))
            fail_msg("'%s': message '%s' lacks '%s'", bad[i].spec, msg, bad[i].why);
        assert_null(d.q); /* left empty */
        sim_dist_fini(&d);
    }
}

static const char *const specs[] = {
    "5ms",
    "const(1e-9, shift=1ms)",
    "exp(rate=900/s)",
    "exp(mean=0.1ms, shift=7us)",
    "uniform(0.1ms, 0.3ms)",
    "lognormal(mean=2ms, sd=1ms)",
    "lognormal(mu=-6.2, sigma=0.5, shift=0.3ms)",
    "gamma(mean=1ms, sd=0.3ms)",
    "gamma(shape=0.5, scale=2ms)",
    "erlang(k=3, mean=1ms)",
    "weibull(shape=0.8, scale=1ms)",
    "weibull(shape=2.5, scale=1ms, shift=1ms)",
    "normal(mean=1ms, sd=0.2ms)",
    "normal(mean=1ms, sd=1ms)",
    "empirical(0 1ms 1.5ms 4ms)",
    "empirical(0.1ms 0.3ms, shift=1ms)",
};
#define NSPECS (sizeof specs / sizeof specs[0])

static void same_dist(const sim_dist *x, const sim_dist *y)
{
    assert_int_equal(x->kind, y->kind);
    assert_memory_equal(&x->a, &y->a, sizeof x->a);
    assert_memory_equal(&x->b, &y->b, sizeof x->b);
    assert_memory_equal(&x->shift, &y->shift, sizeof x->shift);
    assert_int_equal(x->nq, y->nq);
    if (x->nq)
        assert_memory_equal(x->q, y->q, x->nq * sizeof *x->q);
}

/* format then parse gives the same distribution, bit for bit. */
static void test_format_roundtrip(void **state)
{
    (void)state;
    for (size_t i = 0; i < NSPECS; i++) {
        sim_dist d, e;
        char msg[256], buf[512], buf2[512];
        assert_int_equal(sim_dist_parse(specs[i], &d, msg, sizeof msg), 0);
        int n = sim_dist_format(&d, buf, sizeof buf);
        assert_int_equal(n, (int)strlen(buf));
        if (sim_dist_parse(buf, &e, msg, sizeof msg))
            fail_msg("'%s' formatted as '%s', which does not parse: %s", specs[i], buf, msg);
        same_dist(&d, &e);
        sim_dist_format(&e, buf2, sizeof buf2);
        assert_string_equal(buf, buf2);
        sim_dist_fini(&d);
        sim_dist_fini(&e);
    }
}

/* A short buffer: truncated, terminated, and the full length returned. */
static void test_format_truncated(void **state)
{
    (void)state;
    sim_dist d;
    char msg[256], full[256], small[8];
    assert_int_equal(sim_dist_parse("empirical(1ms 2ms 3ms, shift=1ms)", &d, msg, sizeof msg), 0);
    int n = sim_dist_format(&d, full, sizeof full);
    assert_int_equal(sim_dist_format(&d, small, sizeof small), n);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, full, sizeof small - 1);
    sim_dist_fini(&d);
}

/* Sample mean and variance of N draws against sim_dist_mean/var: within 5
 * standard errors, where se(mean) = sqrt(var/N) and se(var) =
 * sqrt((m4 - var^2)/N) with m4 the sample fourth central moment.  Also
 * every sample is >= shift. */
static void check_moments(const sim_dist *d, gsl_rng *r, const char *what)
{
    enum { N = 200000 };
    static double x[N];
    double s = 0;
    for (int i = 0; i < N; i++) {
        x[i] = sim_dist_sample(d, r);
        if (!(x[i] >= d->shift))
            fail_msg("%s: sample %.9g below shift %.9g", what, x[i], d->shift);
        s += x[i];
    }
    double m = s / N, s2 = 0, s4 = 0;
    for (int i = 0; i < N; i++) {
        double c = (x[i] - m) * (x[i] - m);
        s2 += c;
        s4 += c * c;
    }
    double v = s2 / (N - 1), m4 = s4 / N;
    double mu = sim_dist_mean(d), var = sim_dist_var(d);
    double se_m = sqrt(var / N), se_v = sqrt(fmax(m4 - v * v, 0) / N);
    if (fabs(m - mu) > 5 * se_m + 1e-9 * mu)
        fail_msg("%s: sample mean %.6g, theory %.6g (5 se = %.3g)", what, m, mu, 5 * se_m);
    if (fabs(v - var) > 5 * se_v + 1e-9 * mu * mu)
        fail_msg("%s: sample variance %.6g, theory %.6g (5 se = %.3g)", what, v, var, 5 * se_v);
}

static void test_moments(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++) {
        gsl_rng *r = sim_rng_new_kind((sim_rng_kind)kind, 2024, 0, 0);
        for (size_t i = 0; i < NSPECS; i++) {
            sim_dist d;
            char msg[256], what[128];
            assert_int_equal(sim_dist_parse(specs[i], &d, msg, sizeof msg), 0);
            snprintf(what, sizeof what, "%s (%s)", specs[i], gsl_rng_name(r));
            check_moments(&d, r, what);
            sim_dist_fini(&d);
        }
        gsl_rng_free(r);
    }
}

/* The distribution function of d at x (the forms that have one in closed
 * form or through GSL). */
static double cdf_of(const sim_dist *d, double x)
{
    x -= d->shift;
    if (x < 0)
        return 0;
    switch (d->kind) {
    case SIM_DIST_EXP:
        return gsl_cdf_exponential_P(x, d->a);
    case SIM_DIST_UNIFORM:
        return gsl_cdf_flat_P(x, d->a, d->b);
    case SIM_DIST_LOGNORMAL:
        return gsl_cdf_lognormal_P(x, d->a, d->b);
    case SIM_DIST_GAMMA:
        return gsl_cdf_gamma_P(x, d->a, d->b);
    case SIM_DIST_WEIBULL:
        return gsl_cdf_weibull_P(x, d->b, d->a);
    case SIM_DIST_NORMAL: {
        double p0 = gsl_cdf_gaussian_P(-d->a, d->b); /* truncated at 0 */
        return (gsl_cdf_gaussian_P(x - d->a, d->b) - p0) / (1 - p0);
    }
    case SIM_DIST_EMPIRICAL: {
        size_t k = d->nq - 1;
        if (x >= d->q[k])
            return 1;
        size_t i = 0;
        while (x >= d->q[i + 1])
            i++;
        double w = d->q[i + 1] - d->q[i];
        return ((double)i + (w > 0 ? (x - d->q[i]) / w : 1)) / (double)k;
    }
    default:
        fail_msg("no distribution function for kind %d", (int)d->kind);
        return NAN;
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every form sampled from a xoshiro256** stream (sim_rng's samplers):
 * Kolmogorov-Smirnov distance to its distribution function below 1.95 /
 * sqrt(n), the 0.1% level (fixed seed, so the same every run). */
static void test_fast_samplers_ks(void **state)
{
    (void)state;
    enum { N = 100000 };
    static double x[N];
    gsl_rng *r = sim_rng_new(99, 0, 3);
    assert_true(sim_rng_is_xoshiro(r));
    for (size_t s = 0; s < NSPECS; s++) {
        sim_dist d;
        char msg[256];
        assert_int_equal(sim_dist_parse(specs[s], &d, msg, sizeof msg), 0);
        if (d.kind == SIM_DIST_CONST) {
            sim_dist_fini(&d);
            continue;
        }
        for (int i = 0; i < N; i++)
            x[i] = sim_dist_sample(&d, r);
        qsort(x, N, sizeof *x, cmp_d);
        double D = 0;
        for (int i = 0; i < N; i++) {
            double F = cdf_of(&d, x[i]);
            D = fmax(D, fmax(F - (double)i / N, (double)(i + 1) / N - F));
        }
        if (D > 1.95 / sqrt((double)N))
            fail_msg("%s: KS distance %.5f above %.5f", specs[s], D, 1.95 / sqrt((double)N));
        sim_dist_fini(&d);
    }
    /* a gamma built by hand (no cached constants) draws the same as a
     * parsed one */
    sim_dist p, h = sim_dist_const(0);
    char msg[256];
    assert_int_equal(sim_dist_parse("gamma(shape=2.5, scale=2)", &p, msg, sizeof msg), 0);
    h.kind = SIM_DIST_GAMMA;
    h.a = 2.5;
    h.b = 2;
    gsl_rng *r2 = sim_rng_new(99, 0, 4);
    sim_rng_reseed(r, 99, 0, 4);
    for (int i = 0; i < 1000; i++)
        assert_true(sim_dist_sample(&p, r) == sim_dist_sample(&h, r2));
    sim_dist_fini(&p);
    gsl_rng_free(r2);
    gsl_rng_free(r);
}

/* run.rng = mt19937 reproduces tfsim's older numbers: an MT19937 stream
 * draws exactly GSL's samples. */
static void test_mt19937_is_gsl(void **state)
{
    (void)state;
    gsl_rng *a = sim_rng_new_kind(SIM_RNG_MT19937, 5, 1, 2);
    gsl_rng *b = sim_rng_new_kind(SIM_RNG_MT19937, 5, 1, 2);
    sim_dist d[5];
    const char *sp[5] = {"exp(mean=2)", "gamma(shape=4, mean=1)", "lognormal(mu=0, sigma=0.5)",
                         "weibull(shape=1.5, scale=2)", "uniform(1, 3)"};
    char msg[256];
    for (int k = 0; k < 5; k++)
        assert_int_equal(sim_dist_parse(sp[k], &d[k], msg, sizeof msg), 0);
    for (int i = 0; i < 200; i++) {
        assert_true(sim_dist_sample(&d[0], a) == gsl_ran_exponential(b, 2));
        assert_true(sim_dist_sample(&d[1], a) == gsl_ran_gamma(b, 4, 0.25));
        assert_true(sim_dist_sample(&d[2], a) == gsl_ran_lognormal(b, 0, 0.5));
        assert_true(sim_dist_sample(&d[3], a) == gsl_ran_weibull(b, 2, 1.5));
        assert_true(sim_dist_sample(&d[4], a) == 1 + 2 * gsl_rng_uniform(b));
    }
    for (int k = 0; k < 5; k++)
        sim_dist_fini(&d[k]);
    gsl_rng_free(a);
    gsl_rng_free(b);
}

/* sim_dist_fill and sim_dist_buf against their naive twin, one
 * sim_dist_sample call per value on a second stream of the same seed:
 * the same values bit for bit, in chunks of every size, and the streams
 * left in the same state (the next raw draws agree).  Gamma of shape 1 to
 * 4 (the fast fill; in 30,000 draws of shape 1 about 300 normals take the
 * ziggurat's slow path, about 200 candidates have v <= 0 and more fail
 * the squeeze), shape < 1, other kinds; both generators. */
static void test_fill_is_sample(void **state)
{
    (void)state;
    const char *sp[] = {"gamma(shape=4, mean=1)", "gamma(shape=1, mean=2, shift=1ms)",
                        "gamma(shape=1.3, scale=0.5)", "gamma(shape=0.5, mean=1)",
                        "exp(mean=2)", "normal(mean=1, sd=0.5)", "3ms",
                        "empirical(0 1 5)", "lognormal(mu=0, sigma=0.5)"};
    const int nsp = (int)(sizeof sp / sizeof sp[0]);
    char msg[256];
    for (int kind = 0; kind < 2; kind++)
        for (int k = 0; k < nsp; k++) {
            sim_dist d;
            assert_int_equal(sim_dist_parse(sp[k], &d, msg, sizeof msg), 0);
            sim_rng_kind rk = kind ? SIM_RNG_MT19937 : SIM_RNG_XOSHIRO;
            gsl_rng *a = sim_rng_new_kind(rk, 11, 3, (uint32_t)k);
            gsl_rng *b = sim_rng_new_kind(rk, 11, 3, (uint32_t)k);
            double out[97];
            size_t done = 0;
            for (size_t chunk = 0; done < 30000; chunk = (chunk * 7 + 3) % 98) {
                sim_dist_fill(&d, a, out, chunk);
                for (size_t i = 0; i < chunk; i++) {
                    double x = sim_dist_sample(&d, b);
                    if (memcmp(&x, &out[i], sizeof x))
                        fail_msg("%s (%s), sample %zu: fill %.17g, sample %.17g", sp[k],
                                 kind ? "mt19937" : "xoshiro", done + i, out[i], x);
                }
                done += chunk;
                assert_true(gsl_rng_get(a) == gsl_rng_get(b));
            }
            /* the buffer: the same values again, the stream drawn ahead */
            sim_dist_buf buf;
            sim_dist_buf_init(&buf, &d, a);
            for (int i = 0; i < 3 * SIM_DIST_BUF + 5; i++) {
                double x = sim_dist_buf_next(&buf), y = sim_dist_sample(&d, b);
                assert_memory_equal(&x, &y, sizeof x);
            }
            sim_dist_fini(&d);
            gsl_rng_free(a);
            gsl_rng_free(b);
        }
}

/* scale(f): mean x f, variance x f^2, samples x f (same stream). */
static void test_scale(void **state)
{
    (void)state;
    const double f = 3.5;
    for (size_t i = 0; i < NSPECS; i++) {
        sim_dist d, e;
        char msg[256];
        assert_int_equal(sim_dist_parse(specs[i], &d, msg, sizeof msg), 0);
        sim_dist_copy(&e, &d);
        sim_dist_scale(&e, f);
        assert_rel(sim_dist_mean(&e), f * sim_dist_mean(&d), 1e-12);
        assert_rel(sim_dist_var(&e), f * f * sim_dist_var(&d), 1e-9);
        gsl_rng *r1 = sim_rng_new(5, 0, 1), *r2 = sim_rng_new(5, 0, 1);
        for (int k = 0; k < 100; k++) {
            double x = sim_dist_sample(&d, r1), y = sim_dist_sample(&e, r2);
            assert_rel(y, f * x, 1e-9);
        }
        gsl_rng_free(r1);
        gsl_rng_free(r2);
        sim_dist_fini(&d);
        sim_dist_fini(&e);
    }
}

/* copy owns its quantile array: freeing the source leaves it intact. */
static void test_copy(void **state)
{
    (void)state;
    sim_dist d, e;
    char msg[256];
    assert_int_equal(sim_dist_parse("empirical(1 2 3)", &d, msg, sizeof msg), 0);
    sim_dist_copy(&e, &d);
    assert_ptr_not_equal(e.q, d.q);
    sim_dist_fini(&d);
    assert_null(d.q);
    assert_close(sim_dist_mean(&e), 2, 1e-15);
    sim_dist_fini(&e);
    sim_dist c = sim_dist_const(0.25);
    assert_close(sim_dist_mean(&c), 0.25, 0);
    assert_close(sim_dist_var(&c), 0, 0);
    sim_dist_fini(&c);
}

/* A long empirical spec (1001 points) parses and keeps every point. */
static void test_long_empirical(void **state)
{
    (void)state;
    char *spec = malloc(20000);
    assert_non_null(spec);
    size_t n = (size_t)sprintf(spec, "empirical(");
    for (int i = 0; i <= 1000; i++)
        n += (size_t)sprintf(spec + n, "%s%dus", i ? " " : "", i);
    strcpy(spec + n, ")");
    sim_dist d;
    char msg[256];
    assert_int_equal(sim_dist_parse(spec, &d, msg, sizeof msg), 0);
    assert_int_equal(d.nq, 1001);
    assert_rel(sim_dist_mean(&d), 500e-6, 1e-12);
    sim_dist_fini(&d);
    free(spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_format_roundtrip),
        cmocka_unit_test(test_format_truncated),
        cmocka_unit_test(test_moments),
        cmocka_unit_test(test_fast_samplers_ks),
        cmocka_unit_test(test_mt19937_is_gsl),
        cmocka_unit_test(test_fill_is_sample),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_long_empirical),
    };
    return cmocka_run_group_tests_name("sim_dist", tests, NULL, NULL);
}
