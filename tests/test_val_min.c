/* val_min: the bounded log-space simplex against known minima, and its
 * restarts (a simplex that stops short is restarted around its point). */
#include "tests/test_util.h"

#include <math.h>
#include <string.h>

#include "validate/val_min.h"

/* An ill-conditioned quadratic bowl in log coordinates, six keys with
 * curvatures 1 to 10^4: minimum 0 at every value e. */
static double bowl(void *ctx, const val_calib_param *p, size_t np, int *failed, sim_err *err)
{
    (void)failed;
    (void)err;
    ++*(unsigned *)ctx;
    double s = 0;
    for (size_t i = 0; i < np; i++) {
        double u = log(p[i].value) - 1;
        s += pow(10, 4.0 * (double)i / (double)(np - 1)) * u * u;
    }
    return s;
}

/* Nelder-Mead's simplex collapses in this bowl before the minimum: one
 * simplex (the restart loop of val_min_run taken out) stops at 5.28 after
 * 210 iterations; with the restarts the fit ends below 1e-3 (2.6e-4, 378
 * iterations when written). */
static void test_restarts_reach_the_minimum(void **state)
{
    (void)state;
    val_calib_param p[6];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 6; i++) {
        p[i].lo = 1e-3;
        p[i].hi = 1e3;
        p[i].value = 1;
    }
    val_min_opts o = {.max_iter = 5000, .tol = 0.01};
    unsigned calls = 0, it;
    double f;
    sim_err err = {0};
    assert_int_equal(val_min_run(bowl, &calls, p, 6, &o, &f, &it, &err), SIM_OK);
    assert_true(f < 1e-3);
    for (int i = 0; i < 6; i++)
        assert_true(fabs(log(p[i].value) - 1) < 0.05);
    assert_true(it > 0 && it < o.max_iter && calls >= it);
}

/* Bounds: a minimum outside [lo, hi] ends on the bound, the penalty keeps
 * the simplex near it. */
static double outside(void *ctx, const val_calib_param *p, size_t np, int *failed, sim_err *err)
{
    (void)ctx;
    (void)np;
    (void)failed;
    (void)err;
    double u = log(p[0].value) - log(50.0);
    return u * u;
}

static void test_bound(void **state)
{
    (void)state;
    val_calib_param p[1];
    memset(p, 0, sizeof p);
    p[0].lo = 1;
    p[0].hi = 10;
    p[0].value = 2;
    val_min_opts o = {.max_iter = 500, .tol = 1e-4};
    double f;
    unsigned it;
    sim_err err = {0};
    assert_int_equal(val_min_run(outside, NULL, p, 1, &o, &f, &it, &err), SIM_OK);
    assert_true(fabs(p[0].value - 10) < 0.05);
    /* a start outside the bounds is an input error */
    p[0].value = 20;
    assert_int_equal(val_min_run(outside, NULL, p, 1, &o, &f, &it, &err), SIM_EINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restarts_reach_the_minimum),
        cmocka_unit_test(test_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
