/* Tests for validate/val_cpu: the CPU split CSV of scripts/live_cpu_phases.py. */
#include "tests/test_util.h"

#include "models/tf_sim.h"
#include "validate/val_cpu.h"

static const char *good =
    VAL_CPU_HEADER "\n"
    "pg_pg,5,checkout,1000,1000,4.5,221.6,1.2,3.4,2.5,0.03\r\n"
    "pg_pg,5,checkout,1000,998,4.6,219.0,1.4,3.6,2.7,0\n"
    "\n"
    "pg_redis,5,webhook,1000,1000,4.2,236.5,1.1,2.5,0.8,0.4\n"
    "\"pg_pg\",100,commit,1000,1000,2.5,390.7,2.23,1.53,0.6,0.0";

static void test_read_known(void **state)
{
    (void)state;
    const char *p = test_dir_path("good.csv");
    test_write_file(p, good);
    val_cpu c;
    sim_err err = {0};
    assert_int_equal(val_cpu_read(p, &c, &err), SIM_OK);
    assert_int_equal(c.n, 4);
    assert_string_equal(c.rows[2].arch, "pg_redis");
    assert_int_equal(c.rows[2].line, 5); /* the blank line counts */
    assert_string_equal(tf_phase_names[c.rows[3].phase], "commit");
    assert_int_equal(c.rows[3].concurrency, 100);
    assert_close(c.rows[3].cpu[VAL_CPU_CLIENT], 2.23e-3, 1e-15);
    assert_close(c.rows[0].throughput, 221.6, 1e-12);
    /* two runs of one point: their mean; seconds per request */
    const int checkout = TF_CHECKOUT;
    assert_close(val_cpu_mean(&c, "pg_pg", 5, checkout, VAL_CPU_SERVER), 3.5e-3, 1e-15);
    assert_close(val_cpu_mean(&c, "pg_pg", 5, checkout, VAL_CPU_REDIS), 0.015e-3, 1e-15);
    assert_true(isnan(val_cpu_mean(&c, "pg_pg", 10, checkout, VAL_CPU_SERVER)));
    assert_true(isnan(val_cpu_mean(&c, "tb_redis", 5, checkout, VAL_CPU_SERVER)));
    val_cpu_fini(&c);
    assert_null(c.rows);
}

/* Every bad row names the file, its line and the column; nothing is kept. */
static void test_bad_input(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"arch,concurrency\n", ":1: expected the header"},
        {"", "empty file"},
        {VAL_CPU_HEADER "\npg_pg,5,checkout,1000,1000,4.5,221.6,1.2,3.4\n", ":2: expected 11 columns"},
        {VAL_CPU_HEADER "\npg pg,5,checkout,1000,1000,4.5,221.6,1.2,3.4,2.5,0\n", ":2: arch:"},
        {VAL_CPU_HEADER "\npg_pg,0,checkout,1000,1000,4.5,221.6,1.2,3.4,2.5,0\n", ":2: concurrency:"},
        {VAL_CPU_HEADER "\npg_pg,5,browse,1000,1000,4.5,221.6,1.2,3.4,2.5,0\n", ":2: phase:"},
        {VAL_CPU_HEADER "\npg_pg,5,checkout,1000,1001,4.5,221.6,1.2,3.4,2.5,0\n", ":2: ok:"},
        {VAL_CPU_HEADER "\npg_pg,5,checkout,1000,1000,x,221.6,1.2,3.4,2.5,0\n", ":2: walltime:"},
        {VAL_CPU_HEADER "\npg_pg,5,checkout,1000,1000,4.5,221.6,-1.2,3.4,2.5,0\n", ":2: client_ms:"},
        {VAL_CPU_HEADER "\npg_pg,5,checkout,1000,1000,4.5,221.6,1.2,nan,2.5,0\n", ":2: server_ms:"},
        {VAL_CPU_HEADER "\npg_pg,5,checkout,1000,1000,4.5,221.6,1.2,3.4,1e9,0\n", ":2: postgres_ms:"},
        {VAL_CPU_HEADER "\npg_pg,5,checkout,1000,1000,4.5,221.6,1.2,3.4,2.5,\n", ":2: redis_ms:"},
        {VAL_CPU_HEADER "\npg_pg,5,checkout,1000,1000,4.5,221.6,1.2,3.4,2.5,\"0\n", ":2: malformed CSV"},
    };
    const char *p = test_dir_path("bad.csv");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        test_write_file(p, cases[i].text);
        val_cpu c;
        sim_err err = {0};
        assert_int_equal(val_cpu_read(p, &c, &err), SIM_EINPUT);
        if (!strstr(err.msg, cases[i].want) || !strstr(err.msg, p))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].want);
        assert_null(c.rows);
        assert_int_equal(c.n, 0);
    }
    /* a line longer than the limit, and a NUL byte */
    char *longl = malloc(VAL_CPU_MAX_LINE + 200);
    assert_non_null(longl);
    snprintf(longl, VAL_CPU_MAX_LINE + 200, "%s\npg_pg,5,checkout,1000,1000,4.5,221.6,1.2,3.4,2.5,%0*d\n",
             VAL_CPU_HEADER, VAL_CPU_MAX_LINE, 0);
    test_write_file(p, longl);
    free(longl);
    val_cpu c;
    sim_err err = {0};
    assert_int_equal(val_cpu_read(p, &c, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, ":2: line longer than"));
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs(VAL_CPU_HEADER "\npg_pg,5,check", f);
    fputc('\0', f);
    fputs("out,1000,1000,4.5,221.6,1.2,3.4,2.5,0\n", f);
    fclose(f);
    sim_err_clear(&err);
    assert_int_equal(val_cpu_read(p, &c, &err), SIM_EINPUT);
    if (!strstr(err.msg, ":2: NUL byte"))
        fail_msg("%s", err.msg);
}

static void test_cannot_open(void **state)
{
    (void)state;
    val_cpu c;
    sim_err err = {0};
    assert_int_equal(val_cpu_read(test_dir_path("absent.csv"), &c, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "cannot open"));
}

/* The project's own measurements read whole: 48 rows, two architectures
 * at six concurrencies and four phases. */
static void test_project_data(void **state)
{
    (void)state;
    val_cpu c;
    sim_err err = {0};
    assert_int_equal(val_cpu_read("tests/data/live_cpu_phases.csv", &c, &err), SIM_OK);
    assert_int_equal(c.n, 48);
    for (size_t i = 0; i < c.n; i++) {
        assert_true(c.rows[i].cpu[VAL_CPU_CLIENT] > 0 && c.rows[i].cpu[VAL_CPU_CLIENT] < 0.01);
        assert_true(!strcmp(c.rows[i].arch, "pg_pg") || !strcmp(c.rows[i].arch, "pg_redis"));
    }
    val_cpu_fini(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_known),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_cannot_open),
        cmocka_unit_test(test_project_data),
    };
    return cmocka_run_group_tests_name("val_cpu", tests, test_dir_setup, NULL);
}
