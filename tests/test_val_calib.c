/* val_calib: the objective against known answers (squared log errors,
 * weighted by the point, a quarter for the kinds, nothing for a held-out
 * point or a held-out phase). */
#include "tests/test_util.h"

#include <math.h>

#include "models/mdl.h"
#include "validate/val_calib.h"

static void fill(val_calib_point *p, val_calib_sim *s)
{
    memset(p, 0, sizeof *p);
    memset(s, 0, sizeof *s);
    p->concurrency = 10;
    p->weight = 1;
    for (int i = 0; i < TF_NPHASES; i++) {
        p->thr[i] = 100;
        s->thr[i] = 100 * exp(0.1 * (i + 1)); /* log errors 0.1, 0.2, 0.3, 0.4 */
    }
    for (int i = 0; i < TF_NKINDS; i++) {
        p->kind[i] = NAN; /* absent: no term */
        s->kind[i] = 1;
    }
    p->kind[0] = 2e-3;
    s->kind[0] = 2e-3 * exp(0.2);
}

static void test_objective_known(void **state)
{
    (void)state;
    val_calib_point p;
    val_calib_sim s;
    fill(&p, &s);
    /* 0.01 + 0.04 + 0.09 + 0.16, plus 0.25 x 0.04 for the kind */
    assert_rel(val_calib_objective(&p, &s, 1, 0.25), 0.30 + 0.01, 1e-12);
    p.weight = 0.5;
    assert_rel(val_calib_objective(&p, &s, 1, 0.25), 0.5 * 0.31, 1e-12);
    p.weight = 0;
    assert_true(val_calib_objective(&p, &s, 1, 0.25) == 0);
}

static void test_objective_phases_out(void **state)
{
    (void)state;
    val_calib_point p[2];
    val_calib_sim s[2];
    fill(&p[0], &s[0]);
    fill(&p[1], &s[1]);
    /* the waves held out at both points: the windows' terms (by their
     * index in tf_phase_names) and the kind's stay */
    double want = 0;
    for (int i = 0; i < TF_NPHASES; i++) {
        const int wave = !strcmp(tf_phase_names[i], "webhook") || !strcmp(tf_phase_names[i], "commit");
        p[0].phase_out[i] = p[1].phase_out[i] = wave;
        if (!wave)
            want += 0.01 * (i + 1) * (i + 1);
    }
    want += 0.25 * 0.04;
    assert_rel(val_calib_objective(p, s, 2, 0.25), 2 * want, 1e-12);
    /* a simulated value the model cannot produce in a held-out phase
     * costs nothing; in a fitted one the finite penalty (25) */
    for (int i = 0; i < TF_NPHASES; i++)
        s[1].thr[i] = p[1].phase_out[i] ? 0 : s[1].thr[i];
    assert_rel(val_calib_objective(p, s, 2, 0.25), 2 * want, 1e-12);
    p[1].phase_out[0] = p[1].phase_out[1] = p[1].phase_out[2] = p[1].phase_out[3] = 0;
    assert_true(val_calib_objective(p, s, 2, 0.25) > 50);
}

/* Measured CPU per request (--cpu): each component's squared log error
 * times the point's cpu_weight and weight, none where nothing was
 * measured (0) or the phase is held out. */
static void test_objective_cpu(void **state)
{
    (void)state;
    val_calib_point p;
    val_calib_sim s;
    fill(&p, &s);
    const double base = 0.30 + 0.01;
    for (int l = 0; l < VAL_CALIB_NCPU; l++)
        for (int i = 0; i < TF_NPHASES; i++)
            s.cpu[l][i] = 1e-3;
    p.cpu[VAL_CALIB_CPU_PG][1] = 1e-3 * exp(-0.5);   /* log error 0.5 */
    p.cpu[VAL_CALIB_CPU_CLIENT][2] = 1e-3 * exp(0.3); /* log error -0.3 */
    p.cpu_weight = 0; /* measured but not weighted: no term */
    assert_rel(val_calib_objective(&p, &s, 1, 0.25), base, 1e-12);
    p.cpu_weight = 0.5;
    assert_rel(val_calib_objective(&p, &s, 1, 0.25), base + 0.5 * (0.25 + 0.09), 1e-12);
    p.weight = 0.5;
    assert_rel(val_calib_objective(&p, &s, 1, 0.25), 0.5 * (base + 0.5 * (0.25 + 0.09)), 1e-12);
    p.weight = 1;
    p.phase_out[1] = 1; /* phase 1 held out: its throughput and CPU terms go */
    assert_rel(val_calib_objective(&p, &s, 1, 0.25), base - 0.04 + 0.5 * 0.09, 1e-12);
    s.cpu[VAL_CALIB_CPU_CLIENT][2] = NAN; /* not produced where measured: the penalty */
    assert_true(val_calib_objective(&p, &s, 1, 0.25) > 12);
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *q = strstr(text, needle); q; q = strstr(q + 1, needle))
        n++;
    return n;
}

/* The INI of a calibration: every section once (a file may not repeat
 * one), the fitted values, the architecture's own demands, and each --set
 * the fit ran with that no fitted or own key replaces, at its last value;
 * nothing from the base file, no model.type; it loads back. */
static void test_ini(void **state)
{
    (void)state;
    val_calibration *c = calloc(1, sizeof *c);
    assert_non_null(c);
    snprintf(c->file, sizeof c->file, "f.csv");
    snprintf(c->arch, sizeof c->arch, "pg_pg");
    c->np = 2;
    snprintf(c->params[0].key, sizeof c->params[0].key, "client.cpu");
    c->params[0].value = 1e-3;
    snprintf(c->params[1].key, sizeof c->params[1].key, "postgres.query_cpu");
    c->params[1].value = 2e-4;
    c->nown = 1;
    c->own_c = 1;
    snprintf(c->own[0].key, sizeof c->own[0].key, "redis.loop_cpu");
    c->own[0].value = 9e-5;
    sim_err err;
    sim_err_clear(&err);
    c->cfg = sim_cfg_new();
    assert_int_equal(sim_cfg_load_string(c->cfg, "[postgres]\nrow_cost = 1ns\n", "base.ini", &err), SIM_OK);
    const char *sets[] = {"model.type=tigerfans",   "architecture.accounting=pg", "postgres.row_cost=60ns",
                          "postgres.row_cost=70ns", "client.cpu=5ms",             "redis.loop_cpu=1ms",
                          "postgres.flush=gamma(shape=2, mean=0.2ms)"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        assert_int_equal(sim_cfg_set(c->cfg, sets[i], &err), SIM_OK);
    size_t n = val_calib_ini(c, NULL, NULL, 0);
    char *text = malloc(n + 1);
    assert_non_null(text);
    assert_int_equal(val_calib_ini(c, NULL, text, n + 1), n);
    assert_int_equal(strlen(text), n);
    assert_int_equal(count(text, "\n[postgres]\n"), 1);
    assert_int_equal(count(text, "\n[client]\n"), 1);
    assert_int_equal(count(text, "\n[redis]\n"), 1);
    assert_int_equal(count(text, "\n[architecture]\n"), 1);
    assert_int_equal(count(text, "[model]"), 0);
    assert_int_equal(count(text, "\nrow_cost = 70ns\n"), 1);
    assert_int_equal(count(text, "60ns"), 0);
    assert_int_equal(count(text, "\nrow_cost = 1ns"), 0);
    assert_int_equal(count(text, "\ncpu = 0.001\n"), 1);
    assert_int_equal(count(text, "5ms"), 0);
    assert_int_equal(count(text, "\nloop_cpu = 9.0000000000000006e-05\n"), 1);
    assert_int_equal(count(text, "\nflush = gamma(shape=2, mean=0.2ms)\n"), 1);
    sim_cfg *back = sim_cfg_new();
    if (sim_cfg_load_string(back, text, "cal.ini", &err))
        fail_msg("%s\n%s", err.msg, text);
    assert_string_equal(sim_cfg_find(back, "postgres", "row_cost")->value, "70ns");
    assert_string_equal(sim_cfg_find(back, "architecture", "accounting")->value, "pg");
    sim_cfg_free(back);
    free(text);
    sim_cfg_free(c->cfg);
    free(c);
}

static long cfg_long(const sim_cfg *c, const char *sec, const char *key)
{
    size_t n;
    sim_cfg_key *schema = mdl_schema(NULL, &n);
    double v;
    sim_err err;
    sim_err_clear(&err);
    int rc = sim_cfg_num(c, schema, n, sec, key, &v, &err);
    free(schema);
    if (rc)
        fail_msg("%s", err.msg);
    return lround(v * 1000); /* thousandths: the succeed rate too */
}

/* The file's settings of an architecture's runs reach the config it is
 * simulated with, --set wins over them, and values equal to the config's
 * add nothing (outputs of files at TigerBench's defaults unchanged). */
static void test_file_settings(void **state)
{
    (void)state;
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench_arch a;
    assert_int_equal(val_tigerbench_arch_named("pg_redis", &a, &err), SIM_OK);
    a.db_pool_size = 20;
    a.succeed_rate = 0.9;
    a.total = 2000;
    sim_cfg *c = sim_cfg_new();
    assert_int_equal(val_calib_base_arch(NULL, "f.csv", &a, NULL, c, &err), SIM_OK);
    assert_int_equal(cfg_long(c, "postgres", "pool_size"), 20000);
    assert_int_equal(cfg_long(c, "postgres", "gate"), 20000);
    assert_int_equal(cfg_long(c, "client", "succeed_rate"), 900);
    assert_int_equal(cfg_long(c, "client", "total"), 2000000);
    char w[256];
    assert_string_equal(sim_cfg_where(c, "postgres", "gate", w, sizeof w), "f.csv: db_pool_size");
    sim_cfg_free(c);

    /* --set wins; a mixed total keeps the config's; pool 0 is a gate of 1 */
    sim_cfg *ov = sim_cfg_new();
    assert_int_equal(sim_cfg_set(ov, "postgres.gate=5", &err), SIM_OK);
    a.mixed = VAL_TIGERBENCH_MIXED_TOTAL;
    c = sim_cfg_new();
    assert_int_equal(val_calib_base_arch(NULL, "f.csv", &a, ov, c, &err), SIM_OK);
    assert_int_equal(cfg_long(c, "postgres", "gate"), 5000);
    assert_int_equal(cfg_long(c, "postgres", "pool_size"), 20000);
    assert_int_equal(cfg_long(c, "client", "total"), 1000000);
    sim_cfg_free(c);
    sim_cfg_free(ov);
    a.db_pool_size = 0;
    c = sim_cfg_new();
    assert_int_equal(val_calib_base_arch(NULL, "f.csv", &a, NULL, c, &err), SIM_OK);
    assert_int_equal(cfg_long(c, "postgres", "gate"), 1000);
    sim_cfg_free(c);

    /* TigerBench's defaults: nothing added */
    a.db_pool_size = 10;
    a.succeed_rate = 1;
    a.total = 1000;
    a.mixed = 0;
    c = sim_cfg_new();
    assert_int_equal(val_calib_base_arch(NULL, "f.csv", &a, NULL, c, &err), SIM_OK);
    assert_null(sim_cfg_find(c, "postgres", "gate"));
    assert_null(sim_cfg_find(c, "postgres", "pool_size"));
    assert_null(sim_cfg_find(c, "client", "total"));
    assert_null(sim_cfg_find(c, "client", "succeed_rate"));
    sim_cfg_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objective_known),
        cmocka_unit_test(test_objective_phases_out),
        cmocka_unit_test(test_objective_cpu),
        cmocka_unit_test(test_ini),
        cmocka_unit_test(test_file_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
