/* Replication runner: Student-t intervals, the sequential stopping rule
 * (run until the watched metrics' relative half-width is below the target,
 * within [min, max] replications) and independence from the thread count.
 * The fake model draws one normal value per replication from the stream of
 * (seed, rep), so every figure is deterministic. */
#include "tests/test_util.h"

#include <gsl/gsl_randist.h>

#include "sim/sim_rep.h"
#include "sim/sim_rng.h"

/* metric 0: N(100, 20^2) (watched); metric 1: N(5, 5^2) (not watched) */
static int fake(const void *model, uint64_t seed, uint32_t rep, double *v, sim_err *err)
{
    (void)model;
    (void)err;
    gsl_rng *r = sim_rng_new(seed, rep, 0);
    v[0] = 100 + gsl_ran_gaussian(r, 20);
    v[1] = 5 + gsl_ran_gaussian(r, 5);
    gsl_rng_free(r);
    return SIM_OK;
}

static int failing(const void *model, uint64_t seed, uint32_t rep, double *v, sim_err *err)
{
    (void)model;
    (void)seed;
    v[0] = v[1] = 0;
    if (rep == 3)
        return sim_err_set(err, SIM_EFAIL, "replication %u failed", rep);
    return SIM_OK;
}

static void layout(sim_layout *l)
{
    sim_layout_init(l);
    sim_layout_add(l, "s", "a", "x", NAN, SIM_METRIC_WATCH, NULL);
    sim_layout_add(l, "s", "a", "y", NAN, 0, NULL);
}

static void test_stopping_rule(void **state)
{
    (void)state;
    sim_layout l;
    layout(&l);
    sim_err err;
    sim_err_clear(&err);
    sim_rep_plan p = {5, 1000, 0.02, 0.95, 1};
    sim_rep_result r;
    assert_int_equal(sim_rep_run(&p, &l, fake, NULL, 42, &r, &err), SIM_OK);
    assert_true(r.converged);
    /* sd 20, mean 100, target 2%: about (1.96 * 20 / 2)^2 = 384 reps */
    assert_in_range(r.reps, 250, 600);
    assert_true(r.half[0] <= 0.02 * fabs(r.mean[0]));
    /* stopping at the first replication count that meets the rule */
    sim_rep_plan q = {5, r.reps - 1, 0.02, 0.95, 1};
    sim_rep_result r2;
    assert_int_equal(sim_rep_run(&q, &l, fake, NULL, 42, &r2, &err), SIM_OK);
    assert_false(r2.converged);
    assert_int_equal(r2.reps, r.reps - 1);
    assert_true(r2.half[0] > 0.02 * fabs(r2.mean[0]));
    sim_rep_result_fini(&r2);
    /* the same with 3 threads: identical replications kept, identical values */
    p.jobs = 3;
    sim_rep_result r3;
    assert_int_equal(sim_rep_run(&p, &l, fake, NULL, 42, &r3, &err), SIM_OK);
    assert_int_equal(r3.reps, r.reps);
    assert_memory_equal(r3.mean, r.mean, 2 * sizeof(double));
    assert_memory_equal(r3.half, r.half, 2 * sizeof(double));
    sim_rep_result_fini(&r3);
    sim_rep_result_fini(&r);
    sim_layout_fini(&l);
}

static void test_fixed_count_and_ci(void **state)
{
    (void)state;
    sim_layout l;
    layout(&l);
    sim_err err;
    sim_err_clear(&err);
    sim_rep_plan p = {8, 8, 0, 0.95, 2};
    sim_rep_result r;
    assert_int_equal(sim_rep_run(&p, &l, fake, NULL, 7, &r, &err), SIM_OK);
    assert_int_equal(r.reps, 8);
    /* recompute the CI by hand from the kept values */
    double s = 0, s2 = 0;
    for (int i = 0; i < 8; i++)
        s += r.values[i * 2];
    double m = s / 8;
    for (int i = 0; i < 8; i++)
        s2 += (r.values[i * 2] - m) * (r.values[i * 2] - m);
    double half = 2.364624252 * sqrt(s2 / 7) / sqrt(8); /* t(0.975, 7) */
    assert_close(r.mean[0], m, 1e-9);
    assert_close(r.half[0], half, 1e-6);
    sim_rep_result_fini(&r);
    /* a failing replication stops the run with its message */
    sim_rep_plan f = {8, 8, 0, 0.95, 1};
    assert_int_equal(sim_rep_run(&f, &l, failing, NULL, 7, &r, &err), SIM_EFAIL);
    assert_non_null(strstr(err.msg, "replication 3 failed"));
    sim_rep_result_fini(&r);
    sim_layout_fini(&l);
}

static void test_table(void **state)
{
    (void)state;
    sim_layout l;
    layout(&l);
    sim_layout_add(&l, "s", "b", "x", 3.5, 0, NULL);
    sim_err err;
    sim_err_clear(&err);
    sim_rep_plan p = {4, 4, 0, 0.95, 1};
    sim_rep_result r;
    assert_int_equal(sim_rep_run(&p, &l, fake, NULL, 1, &r, &err), SIM_OK);
    sim_table *t = sim_table_new(NULL);
    sim_rep_table(&l, &r, t);
    assert_int_equal(sim_table_nrows(t), 2);
    assert_true(sim_table_find_col(t, "x_ci") >= 0);
    assert_true(sim_table_find_col(t, "x_theory") >= 0);
    assert_true(sim_table_find_col(t, "y_theory") < 0);
    double v;
    assert_int_equal(sim_table_cell(t, 1, sim_table_find_col(t, "x_theory"), &v, NULL), 1);
    assert_close(v, 3.5, 0);
    sim_table_free(t);
    sim_rep_result_fini(&r);
    sim_layout_fini(&l);
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stopping_rule),
        cmocka_unit_test(test_fixed_count_and_ci),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests_name("sim_rep", tests, NULL, NULL);
}
