/* Tests for validate/val_amdahl: the seed's figures from the shipped
 * configs/analysis/seed.ini (run from the repository root, as `make
 * unit-test` does), full-precision arithmetic, config errors, the
 * TigerBench readings and the law findings. */
#include "tests/test_util.h"

#include <unistd.h>

#include "validate/val_amdahl.h"

#define SEED_INI "configs/analysis/seed.ini"

static int load(const char *path, const char *set, val_amdahl_in *in, sim_err *err)
{
    sim_err_clear(err);
    sim_cfg *c = sim_cfg_new();
    int rc = sim_cfg_load(c, path, err);
    if (!rc && set)
        rc = sim_cfg_set(c, set, err);
    if (!rc)
        rc = val_amdahl_from_cfg(c, path, in, err);
    sim_cfg_free(c);
    return rc;
}

static void seed_in(val_amdahl_in *in)
{
    sim_err err;
    if (load(SEED_INI, NULL, in, &err))
        fail_msg("%s", err.msg);
}

/* Each figure the seed prints, to the precision it prints it (half a unit
 * of its last digit). */
static void test_seed_figures(void **state)
{
    (void)state;
    val_amdahl_in in;
    seed_in(&in);
    assert_int_equal(in.rounding, VAL_AMDAHL_SEED);
    assert_int_equal(in.ncomp, 2);
    assert_string_equal(in.comp[0].name, "accounting");
    assert_string_equal(in.comp[1].name, "sessions");
    val_amdahl_out o;
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(val_amdahl_compute(&in, &o, &err), SIM_OK);
    /* "P = 14.03ms / 15.40ms = 0.911", "S = 3.06x", "Predicted speedup ... = 2.58x" */
    assert_close(o.share[0], 0.911, 0.0005);
    assert_close(o.speedup[0], 3.06, 0.005);
    assert_close(o.predicted[0], 2.58, 0.005);
    /* sessions: "P = 0.089", "S = 1.31x", "= 1.02x" */
    assert_close(o.share[1], 0.089, 0.0005);
    assert_close(o.speedup[1], 1.31, 0.005);
    assert_close(o.predicted[1], 1.02, 0.005);
    /* "(1 - P_total) = 0", combined "= 2.73x" */
    assert_close(o.serial_fraction, 0, 0.0005);
    assert_close(o.combined, 2.73, 0.005);
    /* "Combined component speedup: 15.40ms / 5.63ms = 2.74x" */
    assert_close(o.component_speedup, 2.74, 0.005);
    /* "861 / 272 = 3.17x" */
    assert_close(o.throughput_speedup, 3.17, 0.005);
    /* reserve "Speedup: 2.51x" */
    assert_close(o.reserve_speedup, 2.51, 0.005);
    /* "1 / (5ms / 11ms) = 1 / 0.45 = 2.2x" */
    assert_close(o.serial_ratio, 0.45, 0.005);
    assert_close(o.ceiling, 2.2, 0.05);
    /* "Total speedup from baseline: 2.74x * 2.2x ≈ 6x" */
    assert_close(o.total, 6, 0.5);
}

/* The same inputs in full precision (what the seed's rounding changes). */
static void test_seed_exact(void **state)
{
    (void)state;
    val_amdahl_in in;
    seed_in(&in);
    in.rounding = VAL_AMDAHL_EXACT;
    val_amdahl_out o;
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(val_amdahl_compute(&in, &o, &err), SIM_OK);
    assert_close(o.share[0], 14.03 / 15.40, 1e-12);
    assert_close(o.share[1], 1.36 / 15.40, 1e-12);
    assert_close(o.speedup[0], 14.03 / 4.58, 1e-12);
    double P = 14.03 / 15.40, S = 14.03 / 4.58;
    assert_close(o.predicted[0], 1 / ((1 - P) + P / S), 1e-12);
    assert_close(o.predicted[0], 2.5882, 5e-5); /* the seed prints 2.58 */
    assert_close(o.serial_fraction, 1 - 15.39 / 15.40, 1e-12);
    assert_close(o.component_speedup, 15.40 / 5.63, 1e-12);
    assert_close(o.combined_serial, (0.005 + 0.0154) / (0.005 + 0.00563), 1e-12);
    assert_close(o.ceiling, 11.0 / 5.0, 1e-12);
    assert_close(o.total, 15.40 / 5.63 * 2.2, 1e-12);
}

/* Without a stated total the combined prediction is the component speedup
 * exactly: the identity the seed calls a match. */
static void test_identity(void **state)
{
    (void)state;
    val_amdahl_in in;
    val_amdahl_in_init(&in);
    in.ncomp = 3;
    double b[3] = {0.012, 0.003, 0.0007}, t[3] = {0.002, 0.0011, 0.0007};
    for (int i = 0; i < 3; i++) {
        snprintf(in.comp[i].name, sizeof in.comp[i].name, "c%d", i);
        in.comp[i].base = b[i];
        in.comp[i].target = t[i];
    }
    val_amdahl_out o;
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(val_amdahl_compute(&in, &o, &err), SIM_OK);
    assert_close(o.serial_fraction, 0, 0);
    assert_close(o.combined, o.component_speedup, 1e-12);
    assert_close(o.predicted[2], 1, 1e-12);
    assert_true(isnan(o.throughput_speedup) && isnan(o.ceiling) && isnan(o.combined_serial));
    /* errors */
    in.comp[1].target = 0;
    assert_int_equal(val_amdahl_compute(&in, &o, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "component c1: baseline and target times must be > 0"));
    in.comp[1].target = 0.0011;
    in.base_total = 0.01;
    sim_err_clear(&err);
    assert_int_equal(val_amdahl_compute(&in, &o, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "baseline total 10 ms is smaller than the sum"));
    in.ncomp = 0;
    sim_err_clear(&err);
    assert_int_equal(val_amdahl_compute(&in, &o, &err), SIM_EINPUT);
}

static void test_seed_laws(void **state)
{
    (void)state;
    val_amdahl_in in;
    seed_in(&in);
    assert_close(in.concurrency, 10, 0);
    val_laws_findings f;
    val_laws_findings_init(&f);
    size_t k = val_amdahl_laws(&in, &f);
    assert_int_equal(k, f.n);
    int util_target = 0, util_listed = 0;
    for (size_t i = 0; i < f.n; i++) {
        const val_laws_finding *g = &f.v[i];
        if (g->law == VAL_LAW_UTILISATION && g->measured == 861 && fabs(g->bound - 200) < 1e-9) {
            util_target++;
            assert_non_null(strstr(g->message, "5 ms serial per request on 1 worker caps "
                                               "throughput at 200/s, but 861/s was measured"));
        }
        if (g->law == VAL_LAW_UTILISATION && fabs(g->bound - 1000.0 / 3) < 1e-6)
            util_listed++;
    }
    assert_int_equal(util_target, 1);
    assert_int_equal(util_listed, 1);
    val_laws_findings_fini(&f);
    /* a consistent variant: 1 ms serial, 861/s -> no utilisation finding */
    sim_err err;
    if (load(SEED_INI, "target.serial=1ms", &in, &err))
        fail_msg("%s", err.msg);
    in.serial_listed = NAN;
    val_laws_findings_init(&f);
    val_amdahl_laws(&in, &f);
    for (size_t i = 0; i < f.n; i++)
        assert_false(f.v[i].law == VAL_LAW_UTILISATION && f.v[i].measured == 861);
    val_laws_findings_fini(&f);
}

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/a.ini", dir);
    remove(p);
    snprintf(p, sizeof p, "%s/tb.csv", dir);
    remove(p);
    return rmdir(dir);
}

static void cfg_bad(const char *text, const char *want)
{
    char p[256];
    snprintf(p, sizeof p, "%s/a.ini", dir);
    test_write_file(p, text);
    val_amdahl_in in;
    sim_err err;
    assert_int_equal(load(p, NULL, &in, &err), SIM_EINPUT);
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
}

static void test_cfg_errors(void **state)
{
    (void)state;
    cfg_bad("[component.a]\nbaseline = 0ms\ntarget = 1ms\n",
            "a.ini:2: component.a.baseline: must be > 0, got '0ms'");
    cfg_bad("[component.a]\nbaseline = 2ms\ntarget = -1ms\n",
            "a.ini:3: component.a.target: must be > 0, got '-1ms'");
    cfg_bad("[component.a]\nbaseline = 2ms\n", "a.ini: component.a.target: required key is missing");
    cfg_bad("[amdahl]\nrounding = seed\n", "a.ini: no [component.NAME] section");
    cfg_bad("[component.a]\nbaseline = 2ms\ntarget = 1ms\nbaselne = 1ms\n",
            "a.ini:4: component.a.baselne: unknown key (did you mean baseline?)");
    cfg_bad("[component.a]\nbaseline = 2 parsecs\ntarget = 1ms\n", "a.ini:2: component.a.baseline");
    cfg_bad("[component.a]\nbaseline = 2ms\ntarget = 1ms\n[target]\nthroughput = 0\n",
            "a.ini:5: target.throughput: must be > 0");
    cfg_bad("[component.a]\nbaseline = 2ms\ntarget = 1ms\n[baseline]\ntotal = 1ms\n",
            "a.ini:5: baseline.total: 1 ms is smaller than the sum");
    cfg_bad("[component.a]\nbaseline = 2ms\ntarget = 1ms\n[laws]\nconcurrency = 0\n",
            "a.ini:5: laws.concurrency: 0 is out of range");
    cfg_bad("[amdahl]\nrounding = sloppy\n[component.a]\nbaseline = 2ms\ntarget = 1ms\n",
            "a.ini:2: amdahl.rounding: 'sloppy' is not one of exact|seed");
}

#define HDR                                                                                   \
    "timestamp,tag,phase,accounting,payments,concurrency,db_pool_size,redis_max_conn,"         \
    "webhook_mode,arg_succeed_rate,total,ok,errors,walltime,throughput\n"

static void test_from_tigerbench(void **state)
{
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/tb.csv", dir);
    /* pg_pg at N=1: checkout 100/s (10 ms), hold mean 5 ms (sd 0.2 ms),
     * save mean 2 ms (sd 0.1 ms); tb_redis kinds only */
    test_write_file(p, HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
                           "t,a,reserve,pg,pg,1,10,512,direct,1.0,1000,1000,0,5,200\n"
                           "t,a,kind:accounting.hold,pg,pg,1,10,512,,1.0,2000,0,0,0.0002,0.005\n"
                           "t,a,kind:paymentsession.save,pg,pg,1,10,512,,1.0,1000,0,0,0.0001,0.002\n"
                           "t,a,kind:accounting.hold,tb,redis,1,10,512,,1.0,2000,0,0,0.001,0.0025\n"
                           "t,a,kind:paymentsession.save,tb,redis,1,10,512,,1.0,1000,0,0,0.00005,"
                           "0.00025\n"
                           "t,a,kind:paymentsession.save,pg,redis,1,10,512,,1.0,1000,0,0,0.00005,"
                           "0.00025\n");
    val_tigerbench *tb;
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(val_tigerbench_read(p, &tb, &err), SIM_OK);
    val_amdahl_in m, s;
    assert_int_equal(val_amdahl_from_tigerbench(tb, "pg_pg", "tb_redis", 1, VAL_AMDAHL_READ_MEAN,
                                                &m, &err),
                     SIM_OK);
    assert_int_equal(
        val_amdahl_from_tigerbench(tb, "pg_pg", "tb_redis", 1, VAL_AMDAHL_READ_SD, &s, &err),
        SIM_OK);
    assert_string_equal(m.base_name, "pg_pg");
    assert_string_equal(m.target_name, "tb_redis");
    assert_close(m.comp[0].base, 0.005, 1e-15);
    assert_close(m.comp[1].base, 0.002, 1e-15);
    assert_close(m.comp[0].target, 0.0025, 1e-15);
    assert_close(s.comp[0].base, 0.0002, 1e-15);
    assert_close(s.comp[0].target, 0.001, 1e-15);
    /* serial = N/X - components = 10 - 7 ms; the target borrows it */
    assert_close(m.base_serial, 0.003, 1e-12);
    assert_close(m.target_serial, 0.003, 1e-12);
    assert_close(s.base_serial, 0.010 - 0.0003, 1e-12);
    assert_close(m.base_x, 100, 0);
    assert_close(m.base_reserve_x, 200, 0);
    assert_true(isnan(m.target_x));
    val_amdahl_out o;
    assert_int_equal(val_amdahl_compute(&m, &o, &err), SIM_OK);
    assert_close(o.component_speedup, 7 / 2.75, 1e-12);
    assert_close(o.ceiling, (3 + 2.75) / 3, 1e-12);
    /* side-by-side table: same rows, a ratio column */
    val_amdahl_out so;
    assert_int_equal(val_amdahl_compute(&s, &so, &err), SIM_OK);
    sim_table *t = sim_table_new(NULL);
    const val_amdahl_in *ins[2] = {&m, &s};
    const val_amdahl_out *outs[2] = {&o, &so};
    const char *cols[2] = {"measured", "seed_reading"};
    val_amdahl_table(ins, outs, cols, 2, "ratio", t);
    const char *q;
    double v;
    assert_int_equal(sim_table_cell(t, 0, sim_table_find_col(t, "quantity"), NULL, &q), 2);
    assert_string_equal(q, "accounting baseline");
    assert_int_equal(sim_table_cell(t, 0, sim_table_find_col(t, "measured"), &v, NULL), 1);
    assert_close(v, 5, 1e-12);
    assert_int_equal(sim_table_cell(t, 0, sim_table_find_col(t, "ratio"), &v, NULL), 1);
    assert_close(v, 0.04, 1e-12);
    sim_table_free(t);

    /* input errors */
    sim_err_clear(&err);
    assert_int_equal(val_amdahl_from_tigerbench(tb, "pg_pg", "tb_tb", 1, VAL_AMDAHL_READ_MEAN, &m,
                                                &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "architecture 'tb_tb' is not in the file"));
    sim_err_clear(&err);
    assert_int_equal(val_amdahl_from_tigerbench(tb, "pg_pg", "tb_redis", 10,
                                                VAL_AMDAHL_READ_MEAN, &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "pg_pg has no kind:accounting.hold rows at concurrency 10 "
                                    "(its kind rows are at concurrency 1)"));
    sim_err_clear(&err);
    assert_int_equal(val_amdahl_from_tigerbench(tb, "pg_redis", "tb_redis", 1,
                                                VAL_AMDAHL_READ_MEAN, &m, &err),
                     SIM_EINPUT);
    assert_non_null(strstr(err.msg, "pg_redis has no kind:accounting.hold rows"));
    val_tigerbench_free(tb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_figures), cmocka_unit_test(test_seed_exact),
        cmocka_unit_test(test_identity),     cmocka_unit_test(test_seed_laws),
        cmocka_unit_test(test_cfg_errors),   cmocka_unit_test(test_from_tigerbench),
    };
    return cmocka_run_group_tests_name("val_amdahl", tests, setup, teardown);
}
