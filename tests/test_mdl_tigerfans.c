/* Tests for models/mdl_tigerfans: the analytic columns.  In every phase of
 * every shipped TigerFans config, at light and heavy load, mva_throughput
 * never exceeds bound_throughput (the MVA had left out the shared host CPU
 * and lay above the bound in every phase of pg_pg), and at concurrency 1
 * both are 1/D, the throughput of one request at a time. */
#include "tests/test_util.h"

#include "models/mdl.h"
#include "sim/sim_rng.h"

static sim_table *run_config(const char *path, long conc)
{
    sim_cfg *cfg = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    char set[64];
    snprintf(set, sizeof set, "client.concurrency=%ld", conc);
    if (sim_cfg_load(cfg, path, &err) || sim_cfg_set(cfg, set, &err) ||
        sim_cfg_set(cfg, "client.total=100", &err) || sim_cfg_set(cfg, "run.replications=2", &err))
        fail_msg("%s: %s", path, err.msg);
    mdl_scenario sc;
    if (mdl_scenario_init(&sc, cfg, &err))
        fail_msg("%s: %s", path, err.msg);
    sim_rep_result res;
    sim_table *t = sim_table_new(NULL);
    if (mdl_scenario_run(&sc, &res, t, NULL, &err))
        fail_msg("%s: %s", path, err.msg);
    sim_rep_result_fini(&res);
    mdl_scenario_fini(&sc);
    sim_cfg_free(cfg);
    return t;
}

static void test_mva_within_bound(void **state)
{
    (void)state;
    const char *cfgs[] = {"configs/tigerfans/pg_pg.ini", "configs/tigerfans/pg_redis.ini",
                          "configs/tigerfans/tb_redis.ini", "configs/tigerfans/whatif/workers2.ini",
                          "configs/tigerfans/whatif/workers4.ini",
                          "configs/tigerfans/whatif/compiled_server.ini",
                          "configs/tigerfans/whatif/tb_cluster3.ini",
                          "configs/tigerfans/whatif/big_gate.ini"};
    long conc[] = {1, 10, 50, 100};
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
        for (size_t c = 0; c < 4; c++) {
            sim_table *t = run_config(cfgs[i], conc[c]);
            int cb = sim_table_find_col(t, "bound_throughput");
            int cm = sim_table_find_col(t, "mva_throughput");
            assert_true(cb >= 0 && cm >= 0);
            int phases = 0;
            for (int r = 0; r < sim_table_nrows(t); r++) {
                double b, m;
                if (sim_table_cell(t, r, cb, &b, NULL) != 1 || sim_table_cell(t, r, cm, &m, NULL) != 1)
                    continue;
                phases++;
                assert_true(b > 0 && m > 0);
                if (m > b * (1 + 1e-12))
                    fail_msg("%s at %ld: mva %.6g above the bound %.6g", cfgs[i], conc[c], m, b);
                if (conc[c] == 1)
                    assert_rel(m, b, 1e-9);
                else if (conc[c] == 10)
                    if (!(m < b))
                        fail_msg("%s at %ld: mva %.9g not below the bound %.9g", cfgs[i], conc[c], m, b);
            }
            assert_int_equal(phases, 4);
            sim_table_free(t);
        }
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mva_within_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
