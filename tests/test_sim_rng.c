/* Tests for sim_rng: known answers of both generators, reproducibility,
 * distinct streams, the ziggurat tables, and the samplers' distributions
 * (Kolmogorov-Smirnov tests and tail frequencies with fixed seeds). */
#include "tests/test_util.h"

#include <gsl/gsl_cdf.h>

#include "sim/sim_rng.h"

/* Known answers from published constants: splitmix64 of state 0 gives
 * 0xe220a8397b1dcdaf (Vigna's reference), so seed32(0, 0, 0) is its low 32
 * bits; MT19937 seeded with 5489 first gives 3499211612 (the reference
 * implementation's and C++ std::mt19937's default). */
static void test_known_answers_mt19937(void **state)
{
    (void)state;
    assert_int_equal(sim_rng_seed32(0, 0, 0), 0x7b1dcdafu);
    assert_int_equal(sim_rng_seed32(0, 0, 5), 0x7b1dcdafu + 5);
    assert_int_equal(sim_rng_seed32(0, 2, 5), 0x7b1dcdafu + 2 * SIM_RNG_MAX_STREAMS + 5);
    /* the (rep, stream) whose seed is 5489 under master 0 */
    uint32_t k = 5489u - 0x7b1dcdafu;
    gsl_rng *r = sim_rng_new_kind(SIM_RNG_MT19937, 0, k / SIM_RNG_MAX_STREAMS, k % SIM_RNG_MAX_STREAMS);
    assert_string_equal(gsl_rng_name(r), "mt19937");
    assert_int_equal(gsl_rng_get(r), 3499211612u);
    gsl_rng_free(r);
}

/* xoshiro256**: from the state (1, 2, 3, 4) the reference generator gives
 * 11520, 0, 1509978240, 1215971899390074240 (the first three follow by
 * hand: rotl(2 * 5, 7) * 9 = 11520; then s[1] = 0; then s[1] = 262149).
 * Seeding: the state is the splitmix64 sequence from the key, whose
 * reference outputs from 0 are e220a8397b1dcdaf, 6e789e6aa1b965f4,
 * 06c45d188009454f, f88bb8a8724c81ec; the key of (0, 0, 0) is
 * splitmix64(0), of (m, rep, stream) that XOR rep << 12 | stream. */
static void test_known_answers_xoshiro(void **state)
{
    (void)state;
    gsl_rng *r = sim_rng_new(0, 0, 0);
    assert_string_equal(gsl_rng_name(r), "xoshiro256ss");
    assert_true(sim_rng_is_xoshiro(r));
    assert_true(gsl_rng_max(r) == UINT64_MAX && gsl_rng_min(r) == 0);
    uint64_t *s = r->state;
    s[0] = 1, s[1] = 2, s[2] = 3, s[3] = 4;
    assert_true(gsl_rng_get(r) == 11520u);
    assert_true(sim_rng_next64(r) == 0);
    assert_true(gsl_rng_get(r) == 1509978240u);
    assert_true(sim_rng_next64(r) == UINT64_C(1215971899390074240));
    gsl_rng_set(r, 0);
    assert_true(s[0] == UINT64_C(0xe220a8397b1dcdaf) && s[1] == UINT64_C(0x6e789e6aa1b965f4) &&
                s[2] == UINT64_C(0x06c45d188009454f) && s[3] == UINT64_C(0xf88bb8a8724c81ec));
    assert_true(sim_rng_key64(0, 0, 0) == UINT64_C(0xe220a8397b1dcdaf));
    assert_true(sim_rng_key64(0, 3, 5) == (UINT64_C(0xe220a8397b1dcdaf) ^ (3u << 12 | 5u)));
    sim_rng_reseed(r, 0, 0, 0);
    gsl_rng *q = gsl_rng_alloc(sim_rng_xoshiro256ss);
    gsl_rng_set(q, sim_rng_key64(0, 0, 0));
    for (int i = 0; i < 10; i++)
        assert_true(gsl_rng_get(q) == gsl_rng_get(r));
    gsl_rng_free(q);
    /* uniform: the top 53 bits */
    gsl_rng_set(r, 99);
    uint64_t x = sim_rng_next64(r);
    gsl_rng_set(r, 99);
    assert_true(gsl_rng_uniform(r) == (double)(x >> 11) * 0x1.0p-53);
    gsl_rng_free(r);
}

/* Same (kind, master, rep, stream): the same numbers, also after
 * reseeding. */
static void test_reproducible(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++) {
        gsl_rng *a = sim_rng_new_kind((sim_rng_kind)kind, 42, 3, 7);
        gsl_rng *b = sim_rng_new_kind((sim_rng_kind)kind, 42, 3, 7);
        unsigned long first[100];
        for (int i = 0; i < 100; i++) {
            first[i] = gsl_rng_get(a);
            assert_true(first[i] == gsl_rng_get(b));
        }
        sim_rng_reseed(a, 42, 3, 7);
        for (int i = 0; i < 100; i++)
            assert_true(gsl_rng_get(a) == first[i]);
        gsl_rng_free(a);
        gsl_rng_free(b);
    }
}

/* Different master, rep or stream: different first numbers. */
static void test_different(void **state)
{
    (void)state;
    static const uint32_t v[][3] = {{42, 3, 7}, {43, 3, 7}, {42, 4, 7}, {42, 3, 8}, {42, 0, 0}, {0, 0, 0}};
    size_t n = sizeof v / sizeof v[0];
    for (int kind = 0; kind < 2; kind++) {
        unsigned long x[6][4];
        for (size_t i = 0; i < n; i++) {
            gsl_rng *r = sim_rng_new_kind((sim_rng_kind)kind, v[i][0], v[i][1], v[i][2]);
            for (int j = 0; j < 4; j++)
                x[i][j] = gsl_rng_get(r);
            gsl_rng_free(r);
        }
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                assert_memory_not_equal(x[i], x[j], sizeof x[i]);
    }
}

/* The kinds' names parse back; unknown names are refused. */
static void test_kind_names(void **state)
{
    (void)state;
    sim_rng_kind k;
    assert_int_equal(sim_rng_kind_parse("xoshiro256ss", &k), 0);
    assert_int_equal(k, SIM_RNG_XOSHIRO);
    assert_int_equal(sim_rng_kind_parse("mt19937", &k), 0);
    assert_int_equal(k, SIM_RNG_MT19937);
    assert_string_equal(sim_rng_kind_name(SIM_RNG_MT19937), "mt19937");
    assert_int_equal(sim_rng_kind_parse("xoshiro", &k), -1);
    assert_string_equal(SIM_RNG_KIND_NAMES, "xoshiro256ss|mt19937");
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Distinct seeds over a grid of (rep, stream) pairs, for several masters,
 * including the grid's corners. */
static void test_distinct_seeds(void **state)
{
    (void)state;
    enum { NR = 64, NS = 64 };
    static uint32_t seeds[NR * NS + 4];
    for (uint64_t master = 0; master < 20; master++) {
        size_t n = 0;
        for (uint32_t rep = 0; rep < NR; rep++)
            for (uint32_t st = 0; st < NS; st++)
                seeds[n++] = sim_rng_seed32(master * 1000003u, rep * 16411u % SIM_RNG_MAX_REPS,
                                            st * 61u % SIM_RNG_MAX_STREAMS);
        seeds[n++] = sim_rng_seed32(master, SIM_RNG_MAX_REPS - 1, SIM_RNG_MAX_STREAMS - 1);
        seeds[n++] = sim_rng_seed32(master, SIM_RNG_MAX_REPS - 1, 0);
        seeds[n++] = sim_rng_seed32(master, 0, SIM_RNG_MAX_STREAMS - 1);
        qsort(seeds, n, sizeof seeds[0], cmp_u32);
        for (size_t i = 0; i < n; i++) {
            assert_int_not_equal(seeds[i], 0);
            if (i)
                assert_int_not_equal(seeds[i], seeds[i - 1]);
        }
    }
}

/* Regression: the pair whose seed was 0 used to get 4357, the seed of
 * another pair (and GSL turns seed 0 into 4357 anyway), so two streams of
 * the same run were identical. */
static void test_no_zero_seed_collision(void **state)
{
    (void)state;
    for (uint64_t master = 1; master <= 50; master++) {
        uint32_t base = sim_rng_seed32(master, 0, 0);
        uint32_t k0 = 0u - base, k1 = 4357u - base;
        if (k0 / SIM_RNG_MAX_STREAMS >= SIM_RNG_MAX_REPS)
            continue; /* the pair that would get 0 lies outside the domain */
        uint32_t r0 = k0 / SIM_RNG_MAX_STREAMS, s0 = k0 % SIM_RNG_MAX_STREAMS;
        uint32_t seed0 = sim_rng_seed32(master, r0, s0);
        assert_int_not_equal(seed0, 0);
        assert_int_equal(seed0, base - 1);
        gsl_rng *a = sim_rng_new_kind(SIM_RNG_MT19937, master, r0, s0);
        unsigned long xa = gsl_rng_get(a);
        gsl_rng_free(a);
        if (k1 / SIM_RNG_MAX_STREAMS < SIM_RNG_MAX_REPS) {
            gsl_rng *b = sim_rng_new_kind(SIM_RNG_MT19937, master, k1 / SIM_RNG_MAX_STREAMS,
                                          k1 % SIM_RNG_MAX_STREAMS);
            assert_int_not_equal(xa, gsl_rng_get(b));
            gsl_rng_free(b);
        }
        /* base - 1 is reached by no pair in the domain */
        uint32_t kb = base - 1 - base;
        assert_true(kb / SIM_RNG_MAX_STREAMS >= SIM_RNG_MAX_REPS);
    }
}

/* Uniform draws look uniform: mean of 1e5 draws within 5 standard errors
 * of 1/2 (se = sqrt(1/12 / 1e5) = 9.1e-4), for a few streams. */
static void test_uniform_mean(void **state)
{
    (void)state;
    for (uint32_t st = 0; st < 4; st++) {
        gsl_rng *r = sim_rng_new(7, 1, st);
        double s = 0;
        for (int i = 0; i < 100000; i++)
            s += gsl_rng_uniform(r);
        assert_close(s / 1e5, 0.5, 5 * sqrt(1.0 / 12 / 1e5));
        gsl_rng_free(r);
    }
}

/* Neighbouring streams (stream k and k + 1, replication r and r + 1, seed
 * m and m + 1) look independent: the correlation of 1e5 paired uniforms is
 * within 5 / sqrt(n) of 0, for both generators. */
static void test_streams_uncorrelated(void **state)
{
    (void)state;
    enum { N = 100000 };
    static const uint32_t pairs[][2][3] = {{{1, 0, 0}, {1, 0, 1}},
                                           {{1, 0, 7}, {1, 1, 7}},
                                           {{1, 3, 2}, {2, 3, 2}},
                                           {{0, 0, 4095}, {0, 1, 0}}};
    for (int kind = 0; kind < 2; kind++)
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
            gsl_rng *a = sim_rng_new_kind((sim_rng_kind)kind, pairs[p][0][0], pairs[p][0][1],
                                          pairs[p][0][2]);
            gsl_rng *b = sim_rng_new_kind((sim_rng_kind)kind, pairs[p][1][0], pairs[p][1][1],
                                          pairs[p][1][2]);
            double sx = 0, sy = 0, sxy = 0, sxx = 0, syy = 0;
            for (int i = 0; i < N; i++) {
                double x = gsl_rng_uniform(a) - 0.5, y = gsl_rng_uniform(b) - 0.5;
                sx += x, sy += y, sxy += x * y, sxx += x * x, syy += y * y;
            }
            double cov = sxy / N - (sx / N) * (sy / N);
            double rho = cov / sqrt((sxx / N - (sx / N) * (sx / N)) * (syy / N - (sy / N) * (sy / N)));
            if (fabs(rho) > 5 / sqrt((double)N))
                fail_msg("%s: streams %zu correlate: %.5f", gsl_rng_name(a), p, rho);
            gsl_rng_free(a);
            gsl_rng_free(b);
        }
}

/* ---- the ziggurat tables and the samplers ---- */

/* The tables' layers have equal areas and the top layer closes at 0: the
 * published r (7.69711747013104972 for exp(-x), 3.6541528853610088 for
 * exp(-x^2/2), 256 layers) are the roots to double precision. */
static void check_zig(const sim_rng_zig *z, double (*f)(double), double tail, const char *what)
{
    double r = z->x[1], v = r * f(r) + tail;
    assert_rel(z->x[0] * f(r), v, 1e-15);
    for (int i = 1; i < 255; i++) {
        if (!(z->x[i + 1] < z->x[i] && z->x[i + 1] > 0))
            fail_msg("%s: x[%d] = %.17g does not decrease to x[%d] = %.17g", what, i, z->x[i],
                     i + 1, z->x[i + 1]);
        assert_rel(z->x[i] * (f(z->x[i + 1]) - f(z->x[i])), v, 1e-12);
    }
    /* the top layer [0, x[255]] x [f(x[255]), 1]: area v within 1e-12 */
    assert_rel(z->x[255] * (1 - f(z->x[255])), v, 1e-12);
    assert_true(z->x[256] == 0 && z->f[256] == 1);
    for (int i = 0; i < 256; i++) {
        assert_true(z->layer[i].k <= UINT64_C(1) << 53);
        assert_rel(z->layer[i].w, z->x[i] * 0x1.0p-53, 1e-15);
    }
}

static double f_exp(double x) { return exp(-x); }
static double f_norm(double x) { return exp(-0.5 * x * x); }

static void test_zig_tables(void **state)
{
    (void)state;
    gsl_rng_free(sim_rng_new(1, 0, 0)); /* the first stream fills the tables */
    check_zig(&sim_rng_zig_exp, f_exp, exp(-sim_rng_zig_exp.x[1]), "exp");
    check_zig(&sim_rng_zig_norm, f_norm, sqrt(M_PI / 2) * erfc(sim_rng_zig_norm.x[1] / sqrt(2)),
              "normal");
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Kolmogorov-Smirnov distance of n sorted samples from cdf. */
static double ks(double *x, size_t n, double (*cdf)(double, const double *), const double *par)
{
    qsort(x, n, sizeof *x, cmp_d);
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        double F = cdf(x[i], par);
        double lo = F - (double)i / (double)n, hi = (double)(i + 1) / (double)n - F;
        d = fmax(d, fmax(lo, hi));
    }
    return d;
}

static double cdf_exp1(double x, const double *p) { (void)p; return gsl_cdf_exponential_P(x, 1); }
static double cdf_norm1(double x, const double *p) { (void)p; return gsl_cdf_ugaussian_P(x); }
static double cdf_gamma1(double x, const double *p) { return gsl_cdf_gamma_P(x, p[0], 1); }
static double cdf_unif(double x, const double *p) { (void)p; return x; }

/* KS at the 0.1% level: D below 1.95 / sqrt(n) (fixed seeds: the same D
 * every run). */
#define KS_N 200000
static void expect_ks(double *x, double (*cdf)(double, const double *), const double *par,
                      const char *what)
{
    double d = ks(x, KS_N, cdf, par), crit = 1.95 / sqrt((double)KS_N);
    if (d > crit)
        fail_msg("%s: KS distance %.5f above %.5f (0.1%% level, n = %d)", what, d, crit, KS_N);
}

static void test_samplers_ks(void **state)
{
    (void)state;
    double *x = malloc(KS_N * sizeof *x);
    assert_non_null(x);
    gsl_rng *r = sim_rng_new(2024, 0, 1);
    for (int i = 0; i < KS_N; i++)
        x[i] = sim_rng_exp1(r);
    expect_ks(x, cdf_exp1, NULL, "exp1");
    for (int i = 0; i < KS_N; i++)
        x[i] = sim_rng_normal1(r);
    expect_ks(x, cdf_norm1, NULL, "normal1");
    for (int i = 0; i < KS_N; i++)
        x[i] = sim_rng_uniform(r);
    expect_ks(x, cdf_unif, NULL, "uniform");
    for (int i = 0; i < KS_N; i++)
        x[i] = sim_rng_uniform_pos(r);
    expect_ks(x, cdf_unif, NULL, "uniform_pos");
    static const double shapes[] = {0.05, 0.3, 1, 2.5, 4, 8, 40};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        for (int i = 0; i < KS_N; i++)
            x[i] = sim_rng_gamma1(r, shapes[k]);
        char what[64];
        snprintf(what, sizeof what, "gamma1(shape %g)", shapes[k]);
        expect_ks(x, cdf_gamma1, &shapes[k], what);
    }
    gsl_rng_free(r);
    free(x);
}

/* The parts the KS test hardly sees: the tails beyond r (out-of-line
 * code) and the wedges.  Counts of 4e6 draws within 5 standard deviations
 * (binomial) of their probabilities: P(exp > r) = e^-r; P(|normal| > r) =
 * erfc(r / sqrt 2); P(exp > 10) = e^-10; and per layer the draws that
 * land between x[i+1] and x[i] (the wedges) against the exact mass. */
static void expect_count(long got, double p, long n, const char *what)
{
    double mu = p * (double)n, sd = sqrt((double)n * p * (1 - p));
    if (fabs((double)got - mu) > 5 * sd + 1)
        fail_msg("%s: %ld of %ld, expected %.1f (5 sd = %.1f)", what, got, n, mu, 5 * sd);
}

static void test_samplers_tails(void **state)
{
    (void)state;
    enum { N = 4000000 };
    gsl_rng *r = sim_rng_new(7, 1, 2);
    const sim_rng_zig *ze = &sim_rng_zig_exp, *zn = &sim_rng_zig_norm;
    long e_r = 0, e_10 = 0, n_r = 0, e_w = 0, n_w = 0;
    /* wedge masses: between x[2] and x[1] (under the curve, beyond the
     * next layer's edge) for exp; between x[3] and x[2] for the normal */
    for (int i = 0; i < N; i++) {
        double e = sim_rng_exp1(r), z = fabs(sim_rng_normal1(r));
        e_r += e > ze->x[1];
        e_10 += e > 10;
        e_w += e > ze->x[2] && e <= ze->x[1];
        n_r += z > zn->x[1];
        n_w += z > zn->x[3] && z <= zn->x[2];
    }
    expect_count(e_r, exp(-ze->x[1]), N, "exp beyond r");
    expect_count(e_10, exp(-10), N, "exp beyond 10");
    expect_count(e_w, exp(-ze->x[2]) - exp(-ze->x[1]), N, "exp between x[2] and r");
    expect_count(n_r, erfc(zn->x[1] / sqrt(2)), N, "|normal| beyond r");
    expect_count(n_w, erfc(zn->x[3] / sqrt(2)) - erfc(zn->x[2] / sqrt(2)), N,
                 "|normal| between x[3] and x[2]");
    gsl_rng_free(r);
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers_mt19937),
        cmocka_unit_test(test_known_answers_xoshiro),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_different),
        cmocka_unit_test(test_streams_uncorrelated),
        cmocka_unit_test(test_zig_tables),
        cmocka_unit_test(test_samplers_ks),
        cmocka_unit_test(test_samplers_tails),
        cmocka_unit_test(test_distinct_seeds),
        cmocka_unit_test(test_no_zero_seed_collision),
        cmocka_unit_test(test_uniform_mean),
    };
    return cmocka_run_group_tests_name("sim_rng", tests, NULL, NULL);
}
