/* A results store filled with plausible, deterministic data for the report
 * tests (tests/test_rep_report.c) and for tests/cli/report_fixture.sql
 * (after changing this, regenerate that: fill a new store with
 * rep_fixture_fill(), dump it with `sqlite3 DB .dump`, keep the header
 * lines of the .sql file; test_rep_report checks that they agree).
 *
 * Contents and the charts they give:
 *   sweep 1: client.concurrency = 1..100, phase rows (throughput with CI,
 *            p50/p90/p99, measured for two phases, amdahl, usl), component
 *            utilisation, TigerBeetle batch size: 4 charts;
 *   sweep 2: architecture = pg_pg, pg_redis, tb_redis (a category axis),
 *            phase throughput and percentiles: 2 charts;
 *   run 12:  a prediction table (phase, concurrency, error_pct): 1 chart;
 *   run 13:  one simulation at one concurrency: 2 bar charts (throughput by
 *            phase, utilisation by component);
 *   measurement set 1: benchmark rows.
 */
#ifndef REP_FIXTURE_H
#define REP_FIXTURE_H

#include <math.h>

#include "reports/rep_store.h"

#define REP_FIXTURE_CHARTS 9

static const char *const fixture_phases[] = {"checkout", "webhook", "reserve", "commit"};

/* Universal Scalability Law throughput with per-phase parameters. */
static double fixture_x(int phase, double c)
{
    static const double lambda[] = {125, 160, 230, 260}, sigma[] = {0.05, 0.04, 0.03, 0.035},
                        kappa[] = {4e-4, 3e-4, 2e-4, 2.5e-4};
    return lambda[phase] * c / (1 + sigma[phase] * (c - 1) + kappa[phase] * c * (c - 1));
}

static void fixture_phase_rows(sim_table *t, double c, double speed, int extras)
{
    for (int p = 0; p < 4; p++) {
        double x = speed * fixture_x(p, c), r = c / x;
        sim_table_row(t);
        sim_table_set_str(t, "scope", "phase");
        sim_table_set_str(t, "name", fixture_phases[p]);
        sim_table_set_num(t, "throughput", x);
        sim_table_set_num(t, "throughput_ci", x * (0.02 + 0.01 * sin(c + p)));
        sim_table_set_num(t, "p50", 0.85 * r);
        sim_table_set_num(t, "p90", 1.6 * r);
        sim_table_set_num(t, "p99", 2.7 * r);
        if (!extras)
            continue;
        if (p < 2)
            sim_table_set_num(t, "measured", x * (1 + 0.06 * sin(3 * c + p)));
        double lambda = fixture_x(p, 1);
        sim_table_set_num(t, "amdahl", lambda * c / (1 + 0.05 * (c - 1)));
        sim_table_set_num(t, "usl", x * (1 + 0.015 * cos(c)));
    }
}

static sim_table *fixture_point(double c)
{
    static const char *const comps[] = {"event_loop", "pg_pool", "redis", "tigerbeetle"};
    static const double cost[] = {1.1e-3, 0.45e-3, 0.12e-3, 0.2e-3};
    sim_table *t = sim_table_new("results");
    fixture_phase_rows(t, c, 1, 1);
    double total = 0;
    for (int p = 0; p < 4; p++)
        total += fixture_x(p, c) / 4;
    for (int k = 0; k < 4; k++) {
        sim_table_row(t);
        sim_table_set_str(t, "scope", "component");
        sim_table_set_str(t, "name", comps[k]);
        double u = total * cost[k];
        sim_table_set_num(t, "utilisation", u > 0.99 ? 0.99 : u);
    }
    sim_table_row(t);
    sim_table_set_str(t, "scope", "batch");
    sim_table_set_str(t, "name", "tigerbeetle");
    sim_table_set_num(t, "mean", 2 + 0.35 * (c - 1));
    sim_table_set_num(t, "sd", 0.5 + 0.12 * (c - 1));
    sim_table_row(t);
    sim_table_set_str(t, "scope", "kind");
    sim_table_set_str(t, "name", "accounting.hold");
    sim_table_set_num(t, "mean", 0.0048 + 0.0002 * c);
    sim_table_set_num(t, "sd", 0.0011);
    return t;
}

static rep_manifest fixture_manifest(const char *command, const char *title)
{
    rep_manifest m = {.command = command,
                      .title = title,
                      .config_text = "# file: configs/tb_redis.ini\n[client]\nconcurrency = 10\n"
                                     "total = 1000\n[postgres]\npassword = hunter2\n",
                      .overrides = "client.total=1000",
                      .seed = 42,
                      .replications = 5,
                      .git_rev = "0123abc",
                      .cflags = "cc -O2",
                      .config_hash = 0xfeedbeefcafe1234ULL};
    return m;
}

/* Fill an open store; returns SIM_OK or the first failure. */
static int rep_fixture_fill(rep_store *s, sim_err *err)
{
    static const char *const conc[] = {"1", "5", "10", "20", "40", "60", "80", "100"};
    rep_sweep sw = {.m = fixture_manifest("sweep", "tb_redis.ini"),
                    .vary_key = "client.concurrency", .values = conc, .nvalues = 8};
    int64_t id;
    int rc = rep_store_sweep_begin(s, &sw, &id, NULL, err);
    for (size_t i = 0; i < 8 && rc == SIM_OK; i++) {
        sim_table *t = fixture_point(atof(conc[i]));
        rc = rep_store_save_point(s, id, (int)i, &sw.m, t, NULL, err);
        sim_table_free(t);
    }
    static const char *const arch[] = {"pg_pg", "pg_redis", "tb_redis"};
    static const double speed[] = {0.35, 0.6, 1.0};
    rep_sweep sw2 = {.m = fixture_manifest("sweep", "architectures"),
                     .vary_key = "architecture", .values = arch, .nvalues = 3};
    if (rc == SIM_OK)
        rc = rep_store_sweep_begin(s, &sw2, &id, NULL, err);
    for (size_t i = 0; i < 3 && rc == SIM_OK; i++) {
        sim_table *t = sim_table_new(NULL);
        fixture_phase_rows(t, 20, speed[i], 0);
        rc = rep_store_save_point(s, id, (int)i, &sw2.m, t, NULL, err);
        sim_table_free(t);
    }
    if (rc == SIM_OK) {
        sim_table *t = sim_table_new("prediction");
        static const int cs[] = {1, 5, 10, 20, 40, 60, 80, 100};
        for (int p = 0; p < 4; p++)
            for (int k = 0; k < 8; k++) {
                double x = fixture_x(p, cs[k]), e = 4 * sin(0.3 * cs[k] + p) + 0.08 * cs[k] - 3;
                sim_table_row(t);
                sim_table_set_str(t, "phase", fixture_phases[p]);
                sim_table_set_num(t, "concurrency", cs[k]);
                sim_table_set_num(t, "predicted", x * (1 + e / 100));
                sim_table_set_num(t, "measured", x);
                sim_table_set_num(t, "error_pct", e);
            }
        rep_manifest m = fixture_manifest("predict --baseline pg_pg --target tb_redis", "predict");
        rc = rep_store_save_run(s, &m, t, NULL, err);
        sim_table_free(t);
    }
    if (rc == SIM_OK) {
        sim_table *t = fixture_point(10);
        rep_manifest m = fixture_manifest("run", "tb_redis.ini <b>&</b>");
        rc = rep_store_save_run(s, &m, t, NULL, err);
        sim_table_free(t);
    }
    if (rc == SIM_OK) {
        sim_table *t = sim_table_new(NULL);
        for (int p = 0; p < 4; p++)
            for (int c = 1; c <= 100; c *= 10) {
                sim_table_row(t);
                sim_table_set_str(t, "tag", "pg_pg");
                sim_table_set_str(t, "phase", fixture_phases[p]);
                sim_table_set_num(t, "concurrency", c);
                sim_table_set_num(t, "throughput", 0.35 * fixture_x(p, c));
            }
        rc = rep_store_save_measurements(s, "calibration.csv", t, NULL, err);
        sim_table_free(t);
    }
    return rc;
}

#endif
