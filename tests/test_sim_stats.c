/* Tests for sim_stats: Welford, time averages, histogram quantiles, MSER,
 * batch means, Student-t confidence intervals.  Random data come from
 * fixed seeds; tolerances are stated next to each check. */
#include "tests/test_util.h"

#include <gsl/gsl_randist.h>

#include "sim/sim_rng.h"
#include "sim/sim_stats.h"

/* ---- Welford ---- */

static void two_pass(const double *x, size_t n, double *mean, double *var)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    double m = s / (double)n, ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = ss / (double)(n - 1);
}

/* Against the two-pass formulas on data with a large offset, where the
 * naive sum-of-squares formula would lose every digit: relative 1e-12 for
 * the mean, 1e-7 for the variance (the data themselves carry only 1e-7
 * absolute precision at 1e9). */
static void test_welford(void **state)
{
    (void)state;
    enum { N = 100000 };
    static double x[N];
    gsl_rng *r = sim_rng_new(11, 0, 0);
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < N; i++) {
        x[i] = 1e9 + gsl_ran_exponential(r, 2.0);
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    gsl_rng_free(r);
    sim_welford w;
    sim_welford_init(&w);
    assert_close(sim_welford_var(&w), 0, 0);
    for (int i = 0; i < N; i++)
        sim_welford_add(&w, x[i]);
    double m, v;
    two_pass(x, N, &m, &v);
    assert_int_equal(w.n, N);
    assert_rel(w.mean, m, 1e-12);
    assert_rel(sim_welford_var(&w), v, 1e-7);
    assert_rel(sim_welford_sd(&w), sqrt(v), 1e-7);
    assert_close(w.min, lo, 0);
    assert_close(w.max, hi, 0);
    /* variance of exp(2) is 4 */
    assert_rel(v, 4.0, 0.05);

    /* merge at several split points equals the whole */
    static const size_t cut[] = {0, 1, 2, 777, N / 2, N - 1, N};
    for (size_t c = 0; c < sizeof cut / sizeof cut[0]; c++) {
        sim_welford a, b;
        sim_welford_init(&a);
        sim_welford_init(&b);
        for (size_t i = 0; i < cut[c]; i++)
            sim_welford_add(&a, x[i]);
        for (size_t i = cut[c]; i < N; i++)
            sim_welford_add(&b, x[i]);
        sim_welford_merge(&a, &b);
        assert_int_equal(a.n, N);
        assert_rel(a.mean, m, 1e-12);
        assert_rel(sim_welford_var(&a), v, 1e-7);
        assert_close(a.min, lo, 0);
        assert_close(a.max, hi, 0);
    }
}

/* Small hand case: {2, 4, 4, 4, 5, 5, 7, 9}: mean 5, sample variance 32/7. */
static void test_welford_hand(void **state)
{
    (void)state;
    static const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    sim_welford w;
    sim_welford_init(&w);
    sim_welford_add(&w, 3);
    assert_close(sim_welford_var(&w), 0, 0); /* n = 1 */
    sim_welford_init(&w);
    for (size_t i = 0; i < 8; i++)
        sim_welford_add(&w, x[i]);
    assert_close(w.mean, 5, 1e-15);
    assert_close(sim_welford_var(&w), 32.0 / 7, 1e-14);
}

/* ---- time averages ---- */

/* Step function: 0 on [0,1), 2 on [1,3), 5 on [3,4), 0 on [4,6):
 * area 0 + 4 + 5 + 0 = 9 over 6 time units. */
static void test_tavg(void **state)
{
    (void)state;
    sim_tavg a;
    sim_tavg_init(&a, 0, 0);
    assert_close(sim_tavg_mean(&a, 0), 0, 0);
    sim_tavg_set(&a, 1, 2);
    sim_tavg_add(&a, 3, 3); /* 2 -> 5 */
    assert_close(a.v, 5, 0);
    sim_tavg_set(&a, 4, 0);
    assert_close(sim_tavg_mean(&a, 6), 9.0 / 6, 1e-15);
    assert_close(sim_tavg_mean(&a, 4), 9.0 / 4, 1e-15);
    /* the integral up to a time, and over an interval as a difference */
    assert_close(sim_tavg_area(&a, 6), 9, 1e-15);
    assert_close(sim_tavg_area(&a, 6) - sim_tavg_area(&a, 4), 0, 0);
    /* mean at a time after the last change includes the current value */
    sim_tavg_set(&a, 6, 3);
    assert_close(sim_tavg_mean(&a, 8), (9.0 + 6) / 8, 1e-15);
    assert_close(sim_tavg_area(&a, 8) - sim_tavg_area(&a, 6), 6, 1e-15);
    /* restart keeps the current value */
    sim_tavg_restart(&a, 8);
    assert_close(sim_tavg_mean(&a, 8), 3, 0);
    assert_close(sim_tavg_mean(&a, 10), 3, 1e-15);
    sim_tavg_set(&a, 9, 1);
    assert_close(sim_tavg_mean(&a, 10), 2, 1e-15);
    /* a non-zero start time */
    sim_tavg b;
    sim_tavg_init(&b, 100, 4);
    sim_tavg_set(&b, 101, 0);
    assert_close(sim_tavg_mean(&b, 104), 1, 1e-15);
}

/* ---- histogram ---- */

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const double ps[] = {0.0001, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999};
#define NPS (sizeof ps / sizeof ps[0])

/* The exact value at the rank the histogram uses: ceil(p n), 1-based. */
static double exact_q(const double *sorted, size_t n, double p)
{
    size_t r = (size_t)ceil(p * (double)n);
    if (r < 1)
        r = 1;
    return sorted[r - 1];
}

/* Quantiles within the documented 0.4% of the exact sorted-array value at
 * that rank; min and max exact. */
static void check_hist(double *x, size_t n, const char *what)
{
    sim_hist h;
    sim_hist_init(&h);
    for (size_t i = 0; i < n; i++)
        sim_hist_add(&h, x[i]);
    qsort(x, n, sizeof *x, cmp_dbl);
    for (size_t i = 0; i < NPS; i++) {
        double q = sim_hist_quantile(&h, ps[i]), e = exact_q(x, n, ps[i]);
        if (!(fabs(q - e) <= 0.004 * e))
            fail_msg("%s: p=%g: histogram %.9g, exact %.9g (rel. error %.3g)", what, ps[i], q, e,
                     fabs(q - e) / e);
    }
    assert_close(sim_hist_quantile(&h, 0), x[0], 0);
    assert_close(sim_hist_quantile(&h, 1), x[n - 1], 0);
    assert_int_equal(h.n, n);
    sim_hist_fini(&h);
}

static void test_hist_quantiles(void **state)
{
    (void)state;
    enum { N = 100000 };
    static double x[N];
    gsl_rng *r = sim_rng_new(3, 0, 0);
    for (int i = 0; i < N; i++)
        x[i] = gsl_ran_lognormal(r, -7, 1.5);
    check_hist(x, N, "lognormal");
    for (int i = 0; i < N; i++)
        x[i] = gsl_ran_exponential(r, 1e-3);
    check_hist(x, N, "exponential");
    for (int i = 0; i < N; i++)
        x[i] = 1 + gsl_rng_uniform(r); /* one octave: every bucket of [1, 2) */
    check_hist(x, N, "uniform[1,2)");
    for (int i = 0; i < N; i++)
        x[i] = exp2(-39.5 + 79 * gsl_rng_uniform(r)); /* nearly the whole range */
    check_hist(x, N, "log-uniform");
    for (int i = 0; i < 1000; i++)
        x[i] = (double)(i % 10 + 1); /* many ties, bucket lower edges 1, 2, 4, 8 */
    check_hist(x, 1000, "ties");
    x[0] = 0.123;
    check_hist(x, 1, "single value");
    gsl_rng_free(r);
}

/* Zeros are counted exactly; tiny (< 2^-40) and huge (>= 2^40) values land
 * in the under/overflow counts: a quantile that falls there is reported as
 * a value below 2^-40, or as the maximum. */
static void test_hist_edges(void **state)
{
    (void)state;
    sim_hist h;
    sim_hist_init(&h);
    assert_true(isnan(sim_hist_quantile(&h, 0.5)));
    for (int i = 0; i < 300; i++)
        sim_hist_add(&h, 0.0);
    for (int i = 0; i < 700; i++)
        sim_hist_add(&h, 1.0 + i / 700.0);
    assert_int_equal(h.zero, 300);
    assert_close(sim_hist_quantile(&h, 0.3), 0, 0);
    assert_close(sim_hist_quantile(&h, 0.0), 0, 0);
    assert_rel(sim_hist_quantile(&h, 0.65), 1.0 + 349 / 700.0, 0.004);
    sim_hist_clear(&h);
    assert_int_equal(h.n, 0);
    assert_true(isnan(sim_hist_quantile(&h, 0.5)));

    for (int i = 0; i < 10; i++)
        sim_hist_add(&h, 1e-15 * (i + 1)); /* below 2^-40 = 9.1e-13 */
    for (int i = 0; i < 80; i++)
        sim_hist_add(&h, 1.0);
    for (int i = 0; i < 10; i++)
        sim_hist_add(&h, 1e13 * (i + 1)); /* above 2^40 = 1.1e12 */
    assert_int_equal(h.under, 10);
    assert_int_equal(h.over, 10);
    double lo = sim_hist_quantile(&h, 0.05);
    assert_true(lo > 0 && lo < exp2(-40));
    assert_rel(sim_hist_quantile(&h, 0.5), 1.0, 0.004);
    assert_close(sim_hist_quantile(&h, 0.95), 1e14, 0);
    assert_close(sim_hist_quantile(&h, 1), 1e14, 0);
    assert_close(sim_hist_quantile(&h, 0), 1e-15, 0);
    sim_hist_fini(&h);
}

/* Merging two histograms gives exactly the histogram of all values. */
static void test_hist_merge(void **state)
{
    (void)state;
    sim_hist a, b, all;
    sim_hist_init(&a);
    sim_hist_init(&b);
    sim_hist_init(&all);
    gsl_rng *r = sim_rng_new(4, 0, 0);
    for (int i = 0; i < 50000; i++) {
        double x = i % 7 == 0 ? 0 : gsl_ran_lognormal(r, 0, 2);
        sim_hist_add(i % 3 ? &a : &b, x);
        sim_hist_add(&all, x);
    }
    gsl_rng_free(r);
    sim_hist_merge(&a, &b);
    assert_int_equal(a.n, all.n);
    assert_int_equal(a.zero, all.zero);
    assert_int_equal(a.under, all.under);
    assert_int_equal(a.over, all.over);
    assert_close(a.min, all.min, 0);
    assert_close(a.max, all.max, 0);
    for (size_t i = 0; i < NPS; i++)
        assert_close(sim_hist_quantile(&a, ps[i]), sim_hist_quantile(&all, ps[i]), 0);
    /* merging an empty histogram changes nothing */
    sim_hist_clear(&b);
    sim_hist_merge(&a, &b);
    assert_int_equal(a.n, all.n);
    assert_close(sim_hist_quantile(&a, 0.5), sim_hist_quantile(&all, 0.5), 0);
    sim_hist_fini(&a);
    sim_hist_fini(&b);
    sim_hist_fini(&all);
}

/* ---- series: bookkeeping, MSER, batch means ---- */

/* Batch sums plus the partial batch add up to the total whatever the
 * merging; the batch size doubles each time the record fills. */
static void test_series_bookkeeping(void **state)
{
    (void)state;
    sim_series s;
    sim_series_init(&s);
    double total = 0;
    for (int i = 0; i < 100003; i++) {
        double x = (double)(i % 13);
        sim_series_add(&s, x);
        total += x;
    }
    assert_int_equal(s.n, 100003);
    assert_true(s.nb <= SIM_SERIES_CAP && s.nb >= SIM_SERIES_CAP / 2);
    /* 5 -> 10 -> 20 -> 40: 2500 full batches of 40 and 3 left over */
    assert_int_equal(s.m, 40);
    assert_int_equal(s.nb, 2500);
    assert_int_equal(s.cur_n, 3);
    double sum = s.cur;
    for (size_t i = 0; i < s.nb; i++)
        sum += s.sum[i];
    assert_close(sum, total, 1e-6);
    sim_series_fini(&s);
}

/* AR(1) around mu: y_t = phi y_{t-1} + e_t, e_t ~ N(0, 1), started in its
 * stationary distribution; plus an optional transient a * exp(-t / tau). */
static void fill_ar1(sim_series *s, gsl_rng *r, size_t n, double mu, double phi, double a,
                     double tau)
{
    double y = gsl_ran_gaussian(r, 1 / sqrt(1 - phi * phi));
    for (size_t t = 0; t < n; t++) {
        y = phi * y + gsl_ran_gaussian(r, 1);
        sim_series_add(s, mu + y + (a ? a * exp(-(double)t / tau) : 0));
    }
}

/* A transient of height 20 decaying with time constant 2000 observations
 * (batch means have sd ~0.3 here, so the bias is visible for about 4
 * time constants): MSER truncates inside [1 tau, 7.5 tau], for 10 seeds. */
static void test_mser_transient(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        gsl_rng *r = sim_rng_new(seed, 0, 0);
        sim_series s;
        sim_series_init(&s);
        fill_ar1(&s, r, 100000, 0, 0.5, 20, 2000);
        uint64_t d = sim_series_mser(&s);
        if (d < 2000 || d > 15000)
            fail_msg("seed %llu: MSER truncation %llu outside [2000, 15000]", (unsigned long long)seed,
                     (unsigned long long)d);
        assert_int_equal(d % s.m, 0);
        sim_series_fini(&s);
        gsl_rng_free(r);
    }
}

/* Stationary series: no truncation worth the name.  MSER may drop a batch
 * that happens to be an outlier, so: at most 1% of the series for every
 * one of 20 seeds, and none at all for at least half of them.  The same
 * holds with the series shifted by 1e9 (the statistic is shift-invariant;
 * a regression test for cancellation in the sums of squares). */
static void test_mser_stationary(void **state)
{
    (void)state;
    int zero = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        for (int shifted = 0; shifted < 2; shifted++) {
            gsl_rng *r = sim_rng_new(seed, 0, 0);
            sim_series s;
            sim_series_init(&s);
            fill_ar1(&s, r, 100000, shifted ? 1e9 : 0, 0.5, 0, 1);
            uint64_t d = sim_series_mser(&s);
            if (d > 1000)
                fail_msg("seed %llu%s: MSER truncation %llu on a stationary series",
                         (unsigned long long)seed, shifted ? " (shifted by 1e9)" : "",
                         (unsigned long long)d);
            zero += d == 0 && !shifted;
            sim_series_fini(&s);
            gsl_rng_free(r);
        }
    }
    assert_true(zero >= 10);
    /* too short a record: nothing to truncate */
    sim_series s;
    sim_series_init(&s);
    for (int i = 0; i < 15; i++)
        sim_series_add(&s, i);
    assert_int_equal(sim_series_mser(&s), 0);
    sim_series_fini(&s);
}

/* Batch means on AR(1) with phi = 0.9 (integrated autocorrelation time
 * 19), mean 5, 50000 observations, 20 batches, 95% CI: over 100 fixed
 * seeds the interval must cover 5 at least 88 times (expected 95; for a
 * correct 95% interval P(fewer than 88) < 0.5%), and must not be absurdly
 * wide (covering all 100 with half-widths above 0.5 would pass a broken
 * estimator). */
static void test_batch_means_coverage(void **state)
{
    (void)state;
    int cover = 0;
    double hsum = 0;
    for (uint64_t seed = 1; seed <= 100; seed++) {
        gsl_rng *r = sim_rng_new(seed, 1, 0);
        sim_series s;
        sim_series_init(&s);
        fill_ar1(&s, r, 50000, 5, 0.9, 0, 1);
        double m, h;
        assert_int_equal(sim_series_batch_means(&s, 0, 20, 0.95, &m, &h), 0);
        cover += fabs(m - 5) <= h;
        hsum += h;
        sim_series_fini(&s);
        gsl_rng_free(r);
    }
    /* true sd of the mean: sqrt(sigma_e^2 / (1-phi)^2 / n) = 0.0447; the
     * half-width is t(0.95, 19) = 2.093 times its estimate: 0.0936 on
     * average, within 10% */
    print_message("batch means: %d of 100 intervals cover the mean, mean half-width %.4f\n", cover,
                  hsum / 100);
    assert_true(cover >= 88);
    assert_rel(hsum / 100, 2.093 * sqrt(100.0 / 50000), 0.1);
}

/* Batch means by hand: 20 observations 1..20 with batches of 5 (the first
 * record holds 4 batches with means 3, 8, 13, 18); skip and k choose
 * which batches are used. */
static void test_batch_means_hand(void **state)
{
    (void)state;
    sim_series s;
    sim_series_init(&s);
    for (int i = 1; i <= 20; i++)
        sim_series_add(&s, i);
    double m, h;
    /* k = 2 over all 4 batches: means 5.5 and 15.5 */
    assert_int_equal(sim_series_batch_means(&s, 0, 2, 0.95, &m, &h), 0);
    assert_close(m, 10.5, 1e-12);
    assert_close(h, sim_t_quantile(0.95, 1) * sqrt(50.0) / sqrt(2), 1e-9);
    /* skip 5 observations: batches 8, 13, 18; k = 3 */
    assert_int_equal(sim_series_batch_means(&s, 5, 3, 0.95, &m, &h), 0);
    assert_close(m, 13, 1e-12);
    assert_close(h, sim_t_quantile(0.95, 2) * 5 / sqrt(3), 1e-9);
    /* skip 6 rounds up to the next batch: 13, 18 */
    assert_int_equal(sim_series_batch_means(&s, 6, 2, 0.95, &m, &h), 0);
    assert_close(m, 15.5, 1e-12);
    /* k = 3 over 4 batches drops the oldest one */
    assert_int_equal(sim_series_batch_means(&s, 0, 3, 0.95, &m, &h), 0);
    assert_close(m, 13, 1e-12);
    /* not enough batches */
    assert_int_equal(sim_series_batch_means(&s, 15, 2, 0.95, &m, &h), -1);
    assert_int_equal(sim_series_batch_means(&s, 20, 2, 0.95, &m, &h), -1);
    assert_int_equal(sim_series_batch_means(&s, 0, 5, 0.95, &m, &h), -1);
    sim_series_fini(&s);
}

/* ---- Student-t intervals ---- */

static void test_ci(void **state)
{
    (void)state;
    /* t quantiles from tables */
    assert_close(sim_t_quantile(0.95, 4), 2.7764451051977987, 1e-9);
    assert_close(sim_t_quantile(0.99, 9), 3.2498355415921263, 1e-9);
    assert_close(sim_t_quantile(0.95, 1e6), 1.959966, 1e-5);
    /* {1..5}: mean 3, sd sqrt(2.5), half = t(0.95, 4) sd / sqrt(5) */
    static const double x[] = {1, 2, 3, 4, 5};
    double m, h;
    sim_ci(x, 5, 0.95, &m, &h);
    assert_close(m, 3, 1e-15);
    assert_close(h, 2.7764451051977987 * sqrt(2.5) / sqrt(5), 1e-12);
    sim_ci(x, 5, 0.99, &m, &h);
    assert_close(h, 4.604094871415897 * sqrt(2.5) / sqrt(5), 1e-9);
    sim_ci(x, 1, 0.95, &m, &h);
    assert_close(m, 1, 0);
    assert_true(isnan(h));
    sim_ci(x, 0, 0.95, &m, &h);
    assert_true(isnan(m) && isnan(h));
    static const double same[] = {2, 2, 2};
    sim_ci(same, 3, 0.95, &m, &h);
    assert_close(m, 2, 0);
    assert_close(h, 0, 0);
}

/* MAPE: signed errors in percent, the mean of their absolute values, the
 * largest; measurements that are not positive and finite are not counted. */
static void test_mape(void **state)
{
    (void)state;
    sim_mape m;
    sim_mape_init(&m);
    assert_true(isnan(sim_mape_mean(&m)));
    assert_close(sim_mape_add(&m, 110, 100), 10, 1e-12);
    assert_close(sim_mape_add(&m, 45, 50), -10, 1e-12);
    assert_close(sim_mape_add(&m, 130, 100), 30, 1e-12);
    assert_true(isnan(sim_mape_add(&m, 1, 0)));
    assert_true(isnan(sim_mape_add(&m, 1, NAN)));
    assert_true(isnan(sim_mape_add(&m, NAN, 1)));
    assert_true(isnan(sim_mape_add(NULL, 1, -1)));
    assert_close(sim_mape_add(NULL, 2, 1), 100, 1e-12);
    assert_int_equal(m.n, 3);
    assert_close(sim_mape_mean(&m), 50.0 / 3, 1e-12);
    assert_close(m.max, 30, 1e-12);
    /* within 15%, or a miss inside or outside the runs' range */
    sim_mape r;
    sim_mape_init(&r);
    assert_close(sim_mape_add_range(&r, 115, 100, 100, 100), 15, 1e-12); /* within, at the edge */
    assert_close(sim_mape_add_range(&r, 130, 100, 80, 135), 30, 1e-12);  /* a miss inside the runs */
    assert_close(sim_mape_add_range(&r, 70, 100, 90, 110), -30, 1e-12);  /* a miss outside */
    assert_close(sim_mape_add_range(&r, 140, 100, NAN, NAN), 40, 1e-12); /* no range: outside */
    assert_true(isnan(sim_mape_add_range(&r, 1, 0, 0, 2)));              /* not counted */
    assert_true(isnan(sim_mape_add_range(NULL, 1, 0, 0, 2)));
    assert_int_equal(r.n, 4);
    assert_int_equal(r.within, 1);
    assert_int_equal(r.beyond, 2);
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_welford),
        cmocka_unit_test(test_welford_hand),
        cmocka_unit_test(test_tavg),
        cmocka_unit_test(test_hist_quantiles),
        cmocka_unit_test(test_hist_edges),
        cmocka_unit_test(test_hist_merge),
        cmocka_unit_test(test_series_bookkeeping),
        cmocka_unit_test(test_mser_transient),
        cmocka_unit_test(test_mser_stationary),
        cmocka_unit_test(test_batch_means_coverage),
        cmocka_unit_test(test_batch_means_hand),
        cmocka_unit_test(test_ci),
        cmocka_unit_test(test_mape),
    };
    return cmocka_run_group_tests_name("sim_stats", tests, NULL, NULL);
}
