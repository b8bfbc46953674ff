/* Tests for validate/val_usl: parameter recovery, constraints, peak,
 * model choice, bad input. */
#include "tests/test_util.h"

#include <gsl/gsl_randist.h>

#include "sim/sim_rng.h"
#include "validate/val_usl.h"

/* Concurrencies without N = 1 (the fit must not need it). */
static const double levels[] = {2, 4, 8, 12, 16, 24, 32, 48, 64, 80, 100};
#define NLEV (sizeof levels / sizeof levels[0])
#define REPS 3

/* REPS noisy points per level from the USL with multiplicative Gaussian
 * noise of relative sd `noise`, fixed seed. */
static size_t synth(double lambda, double sigma, double kappa, double noise, uint64_t seed,
                    double *n, double *x)
{
    gsl_rng *r = sim_rng_new(seed, 0, 0);
    size_t m = 0;
    for (size_t i = 0; i < NLEV; i++) {
        for (int k = 0; k < REPS; k++) {
            n[m] = levels[i];
            x[m] = val_usl_x(lambda, sigma, kappa, levels[i]) * (1 + gsl_ran_gaussian(r, noise));
            m++;
        }
    }
    gsl_rng_free(r);
    return m;
}

static void fit_ok(const double *n, const double *x, size_t m, val_usl_model model,
                   val_usl_result *r)
{
    sim_err err;
    sim_err_clear(&err);
    if (val_usl_fit(n, x, m, model, r, &err) != SIM_OK)
        fail_msg("fit failed: %s", err.msg);
}

/* Tolerance: each estimate within 3 standard errors of the true value
 * (about 99.7% coverage for one parameter; with the fixed seed the result
 * is deterministic). */
#define within_3se(est, truth, se)                                                         \
    do {                                                                                    \
        assert_true(isfinite(se) && (se) > 0);                                              \
        assert_close(est, truth, 3 * (se));                                                 \
    } while (0)

static void test_recovers_usl(void **state)
{
    (void)state;
    double n[NLEV * REPS], x[NLEV * REPS];
    const double L = 150, S = 0.03, K = 8e-4;
    size_t m = synth(L, S, K, 0.02, 42, n, x);
    val_usl_result r;
    fit_ok(n, x, m, VAL_USL_USL, &r);
    within_3se(r.lambda, L, r.se_lambda);
    within_3se(r.sigma, S, r.se_sigma);
    within_3se(r.kappa, K, r.se_kappa);
    assert_false(r.sigma_at_bound || r.kappa_at_bound);
    assert_int_equal(r.m, m);
    assert_int_equal(r.p, 3);
    assert_true(r.r2 > 0.95 && r.r2 <= 1);
    assert_true(r.adj_r2 < r.r2);
    /* peak: N* = sqrt((1 - sigma)/kappa) of the fitted values; true N* =
     * 34.8; tolerance 15% (kappa's relative SE is a few percent). */
    assert_close(r.n_peak, sqrt((1 - r.sigma) / r.kappa), 1e-9);
    assert_rel(r.n_peak, sqrt((1 - S) / K), 0.15);
    assert_close(r.x_peak, val_usl_eval(&r, r.n_peak), 1e-9);
    assert_true(r.x_peak >= val_usl_eval(&r, r.n_peak - 1));
    assert_true(r.x_peak >= val_usl_eval(&r, r.n_peak + 1));
    /* USL beats Amdahl on retrograde data */
    val_usl_result a;
    fit_ok(n, x, m, VAL_USL_AMDAHL, &a);
    double d;
    assert_ptr_equal(val_usl_better(&r, &a, &d), &r);
    assert_true(d > 2);
    assert_true(a.r2 < r.r2);
}

static void test_exact_data(void **state)
{
    (void)state;
    double n[NLEV], x[NLEV];
    for (size_t i = 0; i < NLEV; i++) {
        n[i] = levels[i];
        x[i] = val_usl_x(80, 0.2, 0.005, n[i]);
    }
    val_usl_result r;
    fit_ok(n, x, NLEV, VAL_USL_USL, &r);
    assert_rel(r.lambda, 80, 1e-6);
    assert_rel(r.sigma, 0.2, 1e-6);
    assert_rel(r.kappa, 0.005, 1e-6);
    assert_close(r.r2, 1, 1e-9);
}

static void test_recovers_amdahl(void **state)
{
    (void)state;
    double n[NLEV * REPS], x[NLEV * REPS];
    const double L = 200, S = 0.1;
    size_t m = synth(L, S, 0, 0.02, 7, n, x);
    val_usl_result a;
    fit_ok(n, x, m, VAL_USL_AMDAHL, &a);
    within_3se(a.lambda, L, a.se_lambda);
    within_3se(a.sigma, S, a.se_sigma);
    assert_int_equal(a.p, 2);
    assert_true(a.kappa == 0 && a.se_kappa == 0);
    assert_true(isinf(a.n_peak));
    assert_close(a.x_peak, a.lambda / a.sigma, 1e-9);
    /* the USL fit of Amdahl data finds kappa ~ 0 (within 3 SE) */
    val_usl_result u;
    fit_ok(n, x, m, VAL_USL_USL, &u);
    assert_true(u.kappa >= 0);
    assert_true(u.kappa_at_bound || u.kappa <= 3 * u.se_kappa);
}

static void test_constraints(void **state)
{
    (void)state;
    /* superlinear data: the unconstrained fit wants sigma < 0 */
    double n[NLEV], x[NLEV];
    for (size_t i = 0; i < NLEV; i++) {
        n[i] = levels[i];
        x[i] = 50 * pow(n[i], 1.05);
    }
    val_usl_result r;
    fit_ok(n, x, NLEV, VAL_USL_USL, &r);
    assert_true(r.sigma >= 0 && r.kappa >= 0 && r.lambda > 0);
    assert_true(r.sigma_at_bound);
    assert_true(r.sigma == 0);
    val_usl_result a;
    fit_ok(n, x, NLEV, VAL_USL_AMDAHL, &a);
    assert_true(a.sigma_at_bound && a.sigma == 0);
    assert_true(isinf(a.n_peak) && isinf(a.x_peak));
}

static void test_sigma_above_one(void **state)
{
    (void)state;
    /* falling throughput: peak at N = 1 */
    double n[] = {1, 2, 4, 8, 16}, x[5];
    for (int i = 0; i < 5; i++)
        x[i] = val_usl_x(100, 1.5, 0, n[i]);
    val_usl_result a;
    fit_ok(n, x, 5, VAL_USL_AMDAHL, &a);
    assert_rel(a.sigma, 1.5, 1e-6);
    assert_close(a.n_peak, 1, 0);
    assert_rel(a.x_peak, 100, 1e-6);
}

static void expect_bad(const double *n, const double *x, size_t m, val_usl_model model,
                       const char *want)
{
    sim_err err;
    sim_err_clear(&err);
    val_usl_result r;
    assert_int_equal(val_usl_fit(n, x, m, model, &r, &err), SIM_EINPUT);
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
}

static void test_bad_input(void **state)
{
    (void)state;
    double n[] = {1, 5, 10, 20}, x[] = {100, 300, 350, 320};
    expect_bad(n, x, 3, VAL_USL_USL, "USL fit: 3 distinct concurrencies, need at least 4");
    expect_bad(n, x, 2, VAL_USL_AMDAHL, "Amdahl fit: 2 distinct concurrencies, need at least 3");
    double nd[] = {5, 5, 10, 20}; /* 4 points, 3 distinct */
    expect_bad(nd, x, 4, VAL_USL_USL, "3 distinct concurrencies");
    double xz[] = {100, 0, 350, 320};
    expect_bad(n, xz, 4, VAL_USL_USL, "point 2: throughput 0 must be > 0");
    double xn[] = {100, NAN, 350, 320};
    expect_bad(n, xn, 4, VAL_USL_USL, "point 2: throughput nan must be > 0");
    double n0[] = {0, 5, 10, 20};
    expect_bad(n0, x, 4, VAL_USL_USL, "point 1: concurrency 0 must be >= 1");
    expect_bad(n, x, 0, VAL_USL_USL, "0 distinct concurrencies");
}

static void test_model_eval(void **state)
{
    (void)state;
    assert_close(val_usl_x(100, 0, 0, 7), 700, 1e-12);
    assert_close(val_usl_x(100, 0.5, 0, 3), 300 / 2.0, 1e-12);
    assert_close(val_usl_x(100, 0.1, 0.01, 10), 1000 / (1 + 0.9 + 0.9), 1e-12);
    assert_string_equal(val_usl_model_name(VAL_USL_USL), "usl");
    assert_string_equal(val_usl_model_name(VAL_USL_AMDAHL), "amdahl");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovers_usl),   cmocka_unit_test(test_exact_data),
        cmocka_unit_test(test_recovers_amdahl), cmocka_unit_test(test_constraints),
        cmocka_unit_test(test_sigma_above_one), cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_model_eval),
    };
    return cmocka_run_group_tests_name("val_usl", tests, NULL, NULL);
}
