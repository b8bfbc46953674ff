/* Tests for validate/val_scaling: points, the N=1 Amdahl prediction, fits,
 * the simulated-column hook, law findings and input errors. */
#include "tests/test_util.h"

#include <unistd.h>

#include "validate/val_scaling.h"

#define HDR                                                                                   \
    "timestamp,tag,phase,accounting,payments,concurrency,db_pool_size,redis_max_conn,"         \
    "webhook_mode,arg_succeed_rate,total,ok,errors,walltime,throughput\n"

static const long levels[] = {1, 5, 10, 20, 40, 60, 80, 100};
#define NLEV 8
#define L 100.0
#define SIG 0.2
#define KAP 0.02

static char dir[64], path[256];

/* checkout follows the USL (two repetitions at +-0.5%); kinds hold = 5 ms
 * and save = 2 ms at N = 1 (so R1 = 10 ms, serial1 = 3 ms); reserve has
 * only three concurrencies. */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    snprintf(path, sizeof path, "%s/tb.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(HDR, f);
    for (int i = 0; i < NLEV; i++) {
        double n = (double)levels[i], x = L * n / (1 + SIG * (n - 1) + KAP * n * (n - 1));
        for (int r = 0; r < 2; r++) {
            double xr = x * (r ? 1.005 : 0.995);
            fprintf(f, "t,a,checkout,pg,pg,%ld,10,512,direct,1.0,1000,1000,0,%.17g,%.17g\n",
                    levels[i], 1000 / xr, xr);
        }
        fprintf(f, "t,a,kind:accounting.hold,pg,pg,%ld,10,512,,1.0,2000,0,0,0.001,%.17g\n",
                levels[i], 0.005 * n);
        fprintf(f, "t,a,kind:paymentsession.save,pg,pg,%ld,10,512,,1.0,1000,0,0,0.001,%.17g\n",
                levels[i], 0.002 * n);
    }
    for (int i = 0; i < 3; i++)
        fprintf(f, "t,a,reserve,pg,pg,%ld,10,512,direct,1.0,1000,1000,0,10,100\n", levels[i]);
    return fclose(f);
}

static int teardown(void **state)
{
    (void)state;
    remove(path);
    return rmdir(dir);
}

static val_tigerbench *open_tb(void)
{
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench *tb;
    if (val_tigerbench_read(path, &tb, &err))
        fail_msg("%s", err.msg);
    return tb;
}

static void test_points_and_fits(void **state)
{
    (void)state;
    val_tigerbench *tb = open_tb();
    val_scaling s;
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(val_scaling_init(&s, tb, "pg_pg", "checkout", &err), SIM_OK);
    val_tigerbench_free(tb); /* the analysis keeps no pointer into it */
    assert_int_equal(s.n, NLEV);
    assert_true(s.window);
    for (int i = 0; i < NLEV; i++)
        assert_int_equal(s.pts[i].n, levels[i]);
    assert_int_equal(s.pts[0].reps, 2);
    /* the seed's method from N = 1: R1 = 10 ms, serial 3 ms, sigma1 = 0.3 */
    assert_close(s.x1, L, 1e-9);
    assert_close(s.kinds1, 0.007, 1e-12);
    assert_close(s.serial1, 0.003, 1e-9);
    assert_close(s.sigma1, 0.3, 1e-9);
    assert_close(s.pts[0].amdahl_pred, L, 1e-9);
    assert_close(s.pts[2].amdahl_pred, L * 10 / (1 + 0.3 * 9), 1e-6);
    assert_close(s.pts[2].kinds, 0.07, 1e-12);
    /* the data follow the USL to +-0.5%: the fit is close (tolerance 2%) */
    assert_rel(s.usl.lambda, L, 0.02);
    assert_rel(s.usl.sigma, SIG, 0.02);
    assert_rel(s.usl.kappa, KAP, 0.02);
    assert_rel(s.pts[5].usl_fit, L * 60 / (1 + SIG * 59 + KAP * 60 * 59), 0.02);
    assert_close(s.pts[5].amdahl_fit, val_usl_eval(&s.amdahl, 60), 1e-9);
    assert_true(s.usl.aicc < s.amdahl.aicc);

    /* the hook for a simulated column */
    assert_true(isnan(s.pts[2].simulated));
    assert_int_equal(val_scaling_set_simulated(&s, 10, 123.5, 4.5), 0);
    assert_int_equal(val_scaling_set_simulated(&s, 7, 1, 1), -1);
    sim_table *t = sim_table_new(NULL);
    val_scaling_points_table(&s, t);
    assert_int_equal(sim_table_nrows(t), NLEV);
    int cs = sim_table_find_col(t, "simulated"), ch = sim_table_find_col(t, "simulated_half");
    assert_true(cs >= 0 && ch >= 0);
    double v;
    assert_int_equal(sim_table_cell(t, 2, cs, &v, NULL), 1);
    assert_close(v, 123.5, 0);
    assert_int_equal(sim_table_cell(t, 2, ch, &v, NULL), 1);
    assert_close(v, 4.5, 0);
    assert_int_equal(sim_table_cell(t, 3, cs, &v, NULL), 0); /* empty */
    assert_int_equal(sim_table_cell(t, 2, sim_table_find_col(t, "r_ms"), &v, NULL), 1);
    assert_rel(v, 10 / s.pts[2].x_mean * 1e3, 1e-12);
    sim_table_free(t);

    t = sim_table_new(NULL);
    val_scaling_fits_table(&s, t);
    assert_int_equal(sim_table_nrows(t), 2);
    const char *str;
    assert_int_equal(sim_table_cell(t, 0, sim_table_find_col(t, "model"), NULL, &str), 2);
    assert_string_equal(str, "usl");
    assert_int_equal(sim_table_cell(t, 0, sim_table_find_col(t, "better"), NULL, &str), 2);
    assert_true(!strncmp(str, "yes", 3));
    assert_int_equal(sim_table_cell(t, 1, sim_table_find_col(t, "better"), NULL, &str), 2);
    assert_string_equal(str, "no");
    sim_table_free(t);
    val_scaling_fini(&s);
}

static void test_laws(void **state)
{
    (void)state;
    val_tigerbench *tb = open_tb();
    val_scaling s;
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(val_scaling_init(&s, tb, "pg_pg", "checkout", &err), SIM_OK);
    val_tigerbench_free(tb);
    val_laws_findings f;
    val_laws_findings_init(&f);
    /* X(100) = 100*100/(1 + 19.8 + 198) = 46/s < X(1) = 100/s: the lower
     * asymptotic bound (demands at N = 1) is violated at high N; kinds grow
     * as 7 ms * N, so R = N/X exceeds them: Little gaps, listed only when
     * asked for */
    size_t k = val_scaling_laws(&s, 1, 0.1, 0, &f);
    assert_int_equal(k, f.n);
    size_t lower = 0;
    for (size_t i = 0; i < f.n; i++) {
        lower += f.v[i].law == VAL_LAW_BOUND_LOWER;
        assert_int_not_equal(f.v[i].severity, VAL_LAWS_GAP);
    }
    assert_true(lower > 0);
    size_t without = f.n;
    val_laws_findings_fini(&f);
    val_laws_findings_init(&f);
    val_scaling_laws(&s, 1, 0.1, 1, &f);
    assert_true(f.n > without);
    assert_true(val_laws_count(&f, VAL_LAWS_GAP) > 0);
    val_laws_findings_fini(&f);
    val_scaling_fini(&s);
}

static void test_errors(void **state)
{
    (void)state;
    val_tigerbench *tb = open_tb();
    val_scaling s;
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(val_scaling_init(&s, tb, "pg_pg", "reserve", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "tb.csv: pg_pg reserve: USL fit: 3 distinct concurrencies, "
                                    "need at least 4"));
    sim_err_clear(&err);
    assert_int_equal(val_scaling_init(&s, tb, "pg_pg", "nope", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "pg_pg has no 'nope' phase rows (phases: checkout, reserve)"));
    sim_err_clear(&err);
    assert_int_equal(val_scaling_init(&s, tb, "tb_redis", "checkout", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "architecture 'tb_redis' is not in the file"));
    val_tigerbench_free(tb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points_and_fits),
        cmocka_unit_test(test_laws),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("val_scaling", tests, setup, teardown);
}
