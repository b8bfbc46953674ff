/* Tests for validate/val_import: the kind is told by the header; a
 * TigerBench CSV becomes one row per (architecture, phase or kind,
 * concurrency) with the reader's summaries; probe samples one row per
 * (operation, concurrency) in seconds with exact quantiles; bad input names
 * the file and line. */
#include "tests/test_util.h"

#include "validate/val_import.h"
#include "validate/val_tigerbench.h"

static int find_row(const sim_table *t, const char *arch, const char *scope, const char *name,
                    double conc)
{
    int ca = sim_table_find_col(t, "architecture"), cs = sim_table_find_col(t, "scope");
    int cn = sim_table_find_col(t, "name"), cc = sim_table_find_col(t, "concurrency");
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *a = NULL, *s = NULL, *n = NULL;
        double c;
        if (ca >= 0)
            sim_table_cell(t, r, ca, NULL, &a);
        sim_table_cell(t, r, cs, NULL, &s);
        sim_table_cell(t, r, cn, NULL, &n);
        sim_table_cell(t, r, cc, &c, NULL);
        if ((!arch || (a && !strcmp(a, arch))) && !strcmp(s, scope) && !strcmp(n, name) &&
            c == conc)
            return r;
    }
    return -1;
}

static double num(const sim_table *t, int r, const char *col)
{
    double v = NAN;
    sim_table_cell(t, r, sim_table_find_col(t, col), &v, NULL);
    return v;
}

static void test_tigerbench(void **state)
{
    (void)state;
    sim_err err;
    sim_err_clear(&err);
    val_import_kind k = 0;
    sim_table *t = val_import_read("tests/data/calibration.csv", &k, &err);
    if (!t)
        fail_msg("%s", err.msg);
    assert_int_equal(k, VAL_IMPORT_TIGERBENCH);
    val_tigerbench *tb;
    assert_int_equal(val_tigerbench_read("tests/data/calibration.csv", &tb, &err), SIM_OK);
    const val_tigerbench_arch *a = val_tigerbench_find(tb, "pg_pg");
    int rows = 0;
    for (size_t i = 0; i < val_tigerbench_narch(tb); i++) {
        const val_tigerbench_arch *x = val_tigerbench_arch_at(tb, i);
        rows += (int)(x->nphases + x->nkinds);
    }
    assert_int_equal(sim_table_nrows(t), rows);
    const val_tigerbench_phase *p = val_tigerbench_phase_get(a, "reserve", 10);
    int r = find_row(t, "pg_pg", "phase", "reserve", 10);
    assert_true(r >= 0);
    assert_close(num(t, r, "throughput"), p->x_mean, 0);
    assert_close(num(t, r, "throughput_min"), p->x_min, 0);
    assert_close(num(t, r, "throughput_max"), p->x_max, 0);
    assert_close(num(t, r, "reps"), 3, 0);
    assert_true(isnan(num(t, r, "mean")));
    const val_tigerbench_kind *kk = val_tigerbench_kind_get(a, "accounting.hold", 10);
    r = find_row(t, "pg_pg", "kind", "accounting.hold", 10);
    assert_true(r >= 0);
    assert_close(num(t, r, "mean"), kk->mean, 0);
    assert_close(num(t, r, "sd"), kk->sd_pooled, 0);
    assert_true(isnan(num(t, r, "throughput")));
    /* the withheld series are not there: only the concurrency-1 timings */
    assert_true(find_row(t, "tb_redis", "phase", "checkout", 1) < 0);
    assert_true(find_row(t, "tb_redis", "kind", "accounting.hold", 1) >= 0);
    val_tigerbench_free(tb);
    sim_table_free(t);
}

static void test_samples(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    char path[256];
    snprintf(path, sizeof path, "%s/s.csv", dir);
    /* op a at concurrency 4: 1..101 us (quantiles exact: p50 51, p90 91,
     * p99 100); op b at 1: one sample; a at 1 after b */
    FILE *f = fopen(path, "w");
    fprintf(f, "operation,concurrency,latency_us,timestamp\n");
    for (int i = 101; i >= 1; i--)
        fprintf(f, "a,4,%d,1\n", i);
    fprintf(f, "b,1,250,2\na,1,10,3\na,1,30,3\n");
    fclose(f);
    sim_err err;
    sim_err_clear(&err);
    val_import_kind k = 0;
    sim_table *t = val_import_read(path, &k, &err);
    if (!t)
        fail_msg("%s", err.msg);
    assert_int_equal(k, VAL_IMPORT_SAMPLES);
    assert_int_equal(sim_table_nrows(t), 3);
    /* operations in order of first appearance, each by concurrency */
    assert_int_equal(find_row(t, NULL, "operation", "a", 1), 0);
    assert_int_equal(find_row(t, NULL, "operation", "a", 4), 1);
    assert_int_equal(find_row(t, NULL, "operation", "b", 1), 2);
    assert_close(num(t, 1, "count"), 101, 0);
    assert_close(num(t, 1, "mean"), 51e-6, 1e-15);
    assert_close(num(t, 1, "p50"), 51e-6, 1e-15);
    assert_close(num(t, 1, "p90"), 91e-6, 1e-15);
    assert_close(num(t, 1, "p99"), 100e-6, 1e-15);
    assert_close(num(t, 0, "mean"), 20e-6, 1e-15);
    assert_true(isnan(num(t, 2, "sd")));
    sim_table_free(t);
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    char path[256];
    sim_err err;
    sim_err_clear(&err);
    snprintf(path, sizeof path, "%s/x.csv", dir);
    test_write_file(path, "a,b,c\n1,2,3\n");
    assert_null(val_import_read(path, NULL, &err));
    assert_int_equal(err.code, SIM_EINPUT);
    assert_non_null(strstr(err.msg, "x.csv:1: neither a TigerBench CSV"));
    test_write_file(path, "operation,concurrency,latency_us,timestamp\na,1,5,1\na,1,-3,1\n");
    sim_err_clear(&err);
    assert_null(val_import_read(path, NULL, &err));
    assert_non_null(strstr(err.msg, "x.csv:3: latency_us"));
    test_write_file(path, "operation,concurrency,latency_us,timestamp\n");
    sim_err_clear(&err);
    assert_null(val_import_read(path, NULL, &err));
    assert_non_null(strstr(err.msg, "no samples"));
    test_write_file(path, "");
    sim_err_clear(&err);
    assert_null(val_import_read(path, NULL, &err));
    assert_non_null(strstr(err.msg, "empty file"));
    snprintf(path, sizeof path, "%s/missing.csv", dir);
    sim_err_clear(&err);
    assert_null(val_import_read(path, NULL, &err));
    assert_int_equal(err.code, SIM_EINPUT);
    assert_non_null(strstr(err.msg, "missing.csv: cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tigerbench),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
