/* Tests for validate/val_laws: each check fires on a constructed
 * contradiction and stays silent on consistent data. */
#include "tests/test_util.h"

#include "validate/val_laws.h"

static void has(const val_laws_finding *g, const char *want)
{
    if (!strstr(g->message, want))
        fail_msg("message '%s' lacks '%s'", g->message, want);
}

static void test_utilisation(void **state)
{
    (void)state;
    val_laws_findings f;
    val_laws_findings_init(&f);
    /* the seed: 5 ms serial on one event loop, 861/s claimed */
    assert_int_equal(val_laws_utilisation(&f, "tb_redis checkout", 0.005, 1, 861, 0.1), 1);
    assert_int_equal(f.n, 1);
    assert_int_equal(f.v[0].law, VAL_LAW_UTILISATION);
    assert_int_equal(f.v[0].severity, VAL_LAWS_VIOLATION);
    assert_string_equal(f.v[0].subject, "tb_redis checkout");
    assert_close(f.v[0].bound, 200, 1e-9);
    assert_close(f.v[0].measured, 861, 0);
    has(&f.v[0], "5 ms serial per request on 1 worker caps throughput at 200/s, but 861/s was "
                 "measured");
    /* consistent: below the cap, or within the tolerance */
    assert_int_equal(val_laws_utilisation(&f, "s", 0.005, 1, 190, 0.1), 0);
    assert_int_equal(val_laws_utilisation(&f, "s", 0.005, 1, 215, 0.1), 0);
    assert_int_equal(val_laws_utilisation(&f, "s", 0.005, 1, 215, 0.0), 1);
    /* W servers: cap W/S */
    assert_int_equal(val_laws_utilisation(&f, "s", 0.005, 4, 790, 0.0), 0);
    assert_int_equal(val_laws_utilisation(&f, "s", 0.005, 4, 861, 0.0), 1);
    assert_close(f.v[f.n - 1].bound, 800, 1e-9);
    has(&f.v[f.n - 1], "on 4 workers caps throughput at 800/s");
    assert_int_equal(f.n, 3);
    assert_int_equal(val_laws_count(&f, VAL_LAWS_VIOLATION), 3);
    assert_int_equal(val_laws_count(&f, VAL_LAWS_GAP), 0);
    val_laws_findings_fini(&f);
    assert_int_equal(f.n, 0);
}

static void test_little(void **state)
{
    (void)state;
    val_laws_findings f;
    val_laws_findings_init(&f);
    /* N = 10, R = 10 ms, Z = 0: X must be 1000/s */
    assert_int_equal(val_laws_little(&f, "s", 10, 1, 0.010, "timings", 0, 1000, 0.1), 0);
    assert_int_equal(val_laws_little(&f, "s", 10, 1, 0.010, "timings", 0, 950, 0.1), 0);
    /* with think time: N/(R+Z) = 10/(0.01 + 0.09) = 100/s */
    assert_int_equal(val_laws_little(&f, "s", 10, 1, 0.010, "timings", 0.090, 100, 0.1), 0);
    assert_int_equal(f.n, 0);
    /* measured above N/(R+Z): violation */
    assert_int_equal(val_laws_little(&f, "s", 10, 1, 0.010, "timings", 0, 1500, 0.1), 1);
    assert_int_equal(f.v[0].law, VAL_LAW_LITTLE);
    assert_int_equal(f.v[0].severity, VAL_LAWS_VIOLATION);
    assert_close(f.v[0].bound, 1000, 1e-9);
    has(&f.v[0], "allows at most X = N/(R+Z) = 1000/s, but 1500/s was measured");
    /* below: a gap of N/X - R = 20 - 10 ms */
    assert_int_equal(val_laws_little(&f, "s", 10, 1, 0.010, "timings", 0, 500, 0.1), 1);
    assert_int_equal(f.v[1].severity, VAL_LAWS_GAP);
    has(&f.v[1], "each request spends 10 ms more than R accounts for");
    /* waves: N is an upper bound, so only X above N/(R+Z) is a finding */
    assert_int_equal(val_laws_little(&f, "s", 10, 0, 0.010, "timings", 0, 500, 0.1), 0);
    assert_int_equal(val_laws_little(&f, "s", 10, 0, 0.010, "timings", 0, 1500, 0.1), 1);
    has(&f.v[2], "N = 10 at most in flight");
    assert_int_equal(val_laws_count(&f, VAL_LAWS_GAP), 1);
    val_laws_findings_fini(&f);
}

static void test_bounds(void **state)
{
    (void)state;
    val_laws_findings f;
    val_laws_findings_init(&f);
    val_laws_station st[2] = {{"event loop", 0.005, 1}, {"backends", 0.005, 0}};
    /* N = 10, D = 10 ms: upper min(1000, 200) = 200/s; lower 10/(10*0.01) = 100/s */
    assert_int_equal(val_laws_bounds(&f, "s", 10, 1, st, 2, 0, 150, 0.1), 0);
    assert_int_equal(val_laws_bounds(&f, "s", 10, 1, st, 2, 0, 200, 0.1), 0);
    assert_int_equal(f.n, 0);
    assert_int_equal(val_laws_bounds(&f, "s", 10, 1, st, 2, 0, 861, 0.1), 1);
    assert_int_equal(f.v[0].law, VAL_LAW_BOUND_UPPER);
    assert_close(f.v[0].bound, 200, 1e-9);
    has(&f.v[0], "(bottleneck event loop, Dmax = 5 ms), but 861/s was measured");
    /* population-limited: N = 1 gives N/(D+Z) = 100/s */
    assert_int_equal(val_laws_bounds(&f, "s", 1, 1, st, 2, 0, 150, 0.1), 1);
    assert_close(f.v[1].bound, 100, 1e-9);
    has(&f.v[1], "X <= N/(D+Z) = 1/(10 ms + 0 ms) = 100/s");
    /* lower bound: 50/s < 100/s */
    assert_int_equal(val_laws_bounds(&f, "s", 10, 1, st, 2, 0, 50, 0.1), 1);
    assert_int_equal(f.v[2].law, VAL_LAW_BOUND_LOWER);
    assert_close(f.v[2].bound, 100, 1e-9);
    has(&f.v[2], "X >= N/(N D + Z) = 100/s with D = 10 ms, but 50/s was measured");
    /* waves: the lower bound is not checked */
    assert_int_equal(val_laws_bounds(&f, "s", 10, 0, st, 2, 0, 50, 0.1), 0);
    /* delay stations only: no bottleneck term */
    val_laws_station d[1] = {{"delay", 0.010, 0}};
    assert_int_equal(val_laws_bounds(&f, "s", 10, 1, d, 1, 0, 990, 0.1), 0);
    /* multi-server bottleneck: 2 servers of 5 ms -> 400/s */
    val_laws_station m[1] = {{"pool", 0.005, 2}};
    assert_int_equal(val_laws_bounds(&f, "s", 100, 1, m, 1, 0, 450, 0.1), 1);
    assert_close(f.v[3].bound, 400, 1e-9);
    val_laws_findings_fini(&f);
}

static void test_table(void **state)
{
    (void)state;
    val_laws_findings f;
    val_laws_findings_init(&f);
    val_laws_utilisation(&f, "a", 0.005, 1, 861, 0.1);
    val_laws_little(&f, "b", 10, 1, 0.010, "t", 0, 500, 0.1);
    sim_table *t = sim_table_new(NULL);
    val_laws_table(&f, t);
    assert_int_equal(sim_table_nrows(t), 2);
    const char *s = NULL;
    assert_int_equal(sim_table_cell(t, 0, sim_table_find_col(t, "law"), NULL, &s), 2);
    assert_string_equal(s, "utilisation");
    assert_int_equal(sim_table_cell(t, 1, sim_table_find_col(t, "severity"), NULL, &s), 2);
    assert_string_equal(s, "gap");
    double v;
    assert_int_equal(sim_table_cell(t, 0, sim_table_find_col(t, "bound"), &v, NULL), 1);
    assert_close(v, 200, 1e-9);
    sim_table_free(t);
    assert_string_equal(val_laws_name(VAL_LAW_BOUND_LOWER), "bound_lower");
    val_laws_findings_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utilisation),
        cmocka_unit_test(test_little),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests_name("val_laws", tests, NULL, NULL);
}
