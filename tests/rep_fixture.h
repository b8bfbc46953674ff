/* A results store filled with plausible, deterministic data for the report
 * tests (tests/test_rep_report.c) and for tests/cli/report_fixture.sql
 * (after changing this, regenerate that: fill a new store with
 * rep_fixture_fill(), dump it with `sqlite3 DB .dump`, keep the header
 * lines of the .sql file; test_rep_report checks that they agree).
 *
 * Contents and the charts they give:
 *   sweep 1: client.concurrency = 1..100 of tb_redis (the defaults), phase
 *            rows (throughput with CI, p50/p90/p99, measured for two
 *            phases, amdahl, usl; measurement set 1 adds its points),
 *            component utilisation and cores (host_cpu their sum on 2.42
 *            cores), operation timings, TigerBeetle batch size: 6 charts;
 *   sweep 2: architecture = pg_pg, pg_redis, tb_redis (a category axis),
 *            phase throughput and percentiles: 2 charts;
 *   run 12:  a prediction table (phase, concurrency, error_pct): 1 chart;
 *   run 13:  one simulation at one concurrency: 4 bar charts (throughput by
 *            phase, utilisation, cores, operation timings);
 *   run 14:  a comparison (diff): 2 charts (throughput, utilisation A vs B);
 *   run 15:  a plan: 1 chart (throughput per setting, decision, target);
 *   run 16:  a calibration (simulated, measured, fitted yes/no, error_pct):
 *            2 charts (throughput with held-out points, error);
 *   measurement set 1: TigerBench rows of tb_redis: 1 chart;
 *   measurement set 2: probe samples: 1 chart (latency per operation).
 */
#ifndef REP_FIXTURE_H
#define REP_FIXTURE_H

#include <math.h>

#include "reports/rep_store.h"

#define REP_FIXTURE_CHARTS 20

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
    /* components: busy shares (0..1) and the cores of those on the host
     * (2.42 cores; host_cpu their sum), as the TigerFans model writes them */
    static const char *const comps[] = {"client_loop", "server_loop", "postgres_cpu", "redis",
                                        "tigerbeetle"};
    static const double cost[] = {0.9e-3, 1.1e-3, 0.45e-3, 0.12e-3, 0.2e-3};
    static const int on_host[] = {1, 1, 1, 0, 0};
    sim_table *t = sim_table_new("results");
    fixture_phase_rows(t, c, 1, 1);
    double total = 0, cores = 0, u[5], used[5];
    for (int p = 0; p < 4; p++)
        total += fixture_x(p, c) / 4;
    for (int k = 0; k < 5; k++) {
        u[k] = total * cost[k];
        u[k] = u[k] > 0.99 ? 0.99 : u[k];
        used[k] = k == 2 ? u[k] * 2.42 : u[k]; /* postgres_cpu: a share of the host */
        cores += on_host[k] ? used[k] : 0;
    }
    if (cores > 2.3) { /* the host's 2.42 cores hold them all */
        for (int k = 0; k < 3; k++) {
            used[k] *= 2.3 / cores;
            u[k] = k == 2 ? used[k] / 2.42 : used[k];
        }
        cores = 2.3;
    }
    for (int k = 0; k < 5; k++) {
        sim_table_row(t);
        sim_table_set_str(t, "scope", "component");
        sim_table_set_str(t, "name", comps[k]);
        sim_table_set_num(t, "utilisation", u[k]);
        sim_table_set_num(t, "cores", on_host[k] ? used[k] : NAN);
    }
    sim_table_row(t);
    sim_table_set_str(t, "scope", "component");
    sim_table_set_str(t, "name", "host_cpu");
    sim_table_set_num(t, "utilisation", cores / 2.42);
    sim_table_set_num(t, "cores", cores);
    sim_table_row(t);
    sim_table_set_str(t, "scope", "batch");
    sim_table_set_str(t, "name", "tigerbeetle");
    sim_table_set_num(t, "mean", 2 + 0.35 * (c - 1));
    sim_table_set_num(t, "sd", 0.5 + 0.12 * (c - 1));
    static const char *const kinds[] = {"accounting.hold", "paymentsession.save"};
    for (int k = 0; k < 2; k++) {
        sim_table_row(t);
        sim_table_set_str(t, "scope", "kind");
        sim_table_set_str(t, "name", kinds[k]);
        sim_table_set_num(t, "mean", (0.0048 + 0.0002 * c) / (k + 1));
        sim_table_set_num(t, "mean_ci", 0.0001);
        sim_table_set_num(t, "sd", 0.0011);
    }
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
    if (rc == SIM_OK) { /* a comparison (tfsim diff --db) */
        sim_table *t = sim_table_new("diff");
        static const char *const comps[] = {"client_loop", "server_loop", "host_cpu"};
        static const double ua[] = {0.99, 0.42, 0.61}, ub[] = {0.99, 0.23, 0.60};
        for (int p = 0; p < 4; p++) {
            double a = fixture_x(p, 50), b = a * (0.95 + 0.02 * p);
            sim_table_row(t);
            sim_table_set_str(t, "scope", "phase");
            sim_table_set_str(t, "name", fixture_phases[p]);
            sim_table_set_str(t, "metric", "throughput");
            sim_table_set_num(t, "a", a);
            sim_table_set_num(t, "b", b);
            sim_table_set_num(t, "diff", b - a);
            sim_table_set_num(t, "diff_ci", 0.004 * a);
            sim_table_set_num(t, "change_pct", 100 * (b - a) / a);
            sim_table_set_str(t, "significant", fabs(b - a) > 0.004 * a ? "yes" : "no");
        }
        for (int k = 0; k < 3; k++) {
            sim_table_row(t);
            sim_table_set_str(t, "scope", "component");
            sim_table_set_str(t, "name", comps[k]);
            sim_table_set_str(t, "metric", "utilisation");
            sim_table_set_num(t, "a", ua[k]);
            sim_table_set_num(t, "b", ub[k]);
            sim_table_set_num(t, "diff", ub[k] - ua[k]);
            sim_table_set_num(t, "diff_ci", 0.005);
            sim_table_set_num(t, "change_pct", 100 * (ub[k] - ua[k]) / ua[k]);
            sim_table_set_str(t, "significant", fabs(ub[k] - ua[k]) > 0.005 ? "yes" : "no");
        }
        rep_manifest m = fixture_manifest("diff", "tb_redis.ini vs workers2.ini");
        rc = rep_store_save_run(s, &m, t, NULL, err);
        sim_table_free(t);
    }
    if (rc == SIM_OK) { /* a plan (tfsim plan --db) */
        sim_table *t = sim_table_new("plan");
        static const double x[] = {964, 1516, 1586, 1558}, h[] = {30, 14, 33, 57};
        static const char *const d[] = {"fails", "meets", "meets", "meets"};
        for (int k = 0; k < 4; k++) {
            sim_table_row(t);
            sim_table_set_num(t, "server.workers", k + 1);
            sim_table_set_num(t, "throughput", x[k]);
            sim_table_set_num(t, "throughput_ci", h[k]);
            sim_table_set_num(t, "p99", 0.2);
            sim_table_set_num(t, "p99_ci", 0.02);
            sim_table_set_num(t, "replications", k == 1 ? 40 : 5);
            sim_table_set_str(t, "decision", d[k]);
            sim_table_set_str(t, "meets", k ? "yes" : "no");
            sim_table_set_str(t, "bottleneck", "client_loop");
            sim_table_set_num(t, "target_throughput", 1500);
            sim_table_set_num(t, "margin_pct", 1); /* decided against 1500 / 0.99 */
            sim_table_set_num(t, "p99_limit", NAN);
            sim_table_set_str(t, "phase", "reserve");
        }
        rep_manifest m = fixture_manifest("plan", "tb_redis.ini");
        rc = rep_store_save_run(s, &m, t, NULL, err);
        sim_table_free(t);
    }
    if (rc == SIM_OK) { /* a calibration: points fitted and held out */
        sim_table *t = sim_table_new("calibration");
        static const int cs[] = {1, 5, 10, 20, 50, 100};
        for (int p = 0; p < 4; p++)
            for (int k = 0; k < 6; k++) {
                double x = 0.35 * fixture_x(p, cs[k]), e = 5 * sin(0.5 * cs[k] + p);
                sim_table_row(t);
                sim_table_set_str(t, "phase", fixture_phases[p]);
                sim_table_set_num(t, "concurrency", cs[k]);
                sim_table_set_num(t, "measured", x);
                sim_table_set_num(t, "simulated", x * (1 + e / 100));
                sim_table_set_num(t, "simulated_ci", 0.02 * x);
                sim_table_set_num(t, "error_pct", e);
                sim_table_set_str(t, "fitted", cs[k] == 1 || cs[k] == 10 || cs[k] == 50 ? "yes" : "no");
            }
        rep_manifest m = fixture_manifest("calibrate --arch pg_pg --points 1,10,50", "calibrate");
        rc = rep_store_save_run(s, &m, t, NULL, err);
        sim_table_free(t);
    }
    if (rc == SIM_OK) { /* a TigerBench set (tfsim import) of the sweep's architecture */
        sim_table *t = sim_table_new(NULL);
        static const int cs[] = {1, 5, 10, 20, 40, 60, 80, 100};
        for (int p = 0; p < 4; p++)
            for (int k = 0; k < 8; k++) {
                double x = fixture_x(p, cs[k]) * (1 + 0.05 * cos(cs[k] + p));
                sim_table_row(t);
                sim_table_set_str(t, "architecture", "tb_redis");
                sim_table_set_str(t, "scope", "phase");
                sim_table_set_str(t, "name", fixture_phases[p]);
                sim_table_set_num(t, "concurrency", cs[k]);
                sim_table_set_num(t, "reps", 3);
                sim_table_set_num(t, "throughput", x);
                sim_table_set_num(t, "throughput_sd", 0.03 * x);
                sim_table_set_num(t, "throughput_min", 0.96 * x);
                sim_table_set_num(t, "throughput_max", 1.04 * x);
            }
        sim_table_row(t);
        sim_table_set_str(t, "architecture", "tb_redis");
        sim_table_set_str(t, "scope", "kind");
        sim_table_set_str(t, "name", "accounting.hold");
        sim_table_set_num(t, "concurrency", 1);
        sim_table_set_num(t, "reps", 3);
        sim_table_set_num(t, "mean", 0.0046);
        sim_table_set_num(t, "sd", 0.0009);
        rc = rep_store_save_measurements(s, "tigerbench calibration.csv", t, NULL, err);
        sim_table_free(t);
    }
    if (rc == SIM_OK) { /* probe samples (tfsim import) */
        sim_table *t = sim_table_new(NULL);
        static const char *const ops[] = {"redis.paymentsession.save", "redis.paymentsession.get"};
        for (int o = 0; o < 2; o++)
            for (int c = 1; c <= 16; c *= 4) {
                double m = (25e-6 + 4e-6 * c) / (o + 1);
                sim_table_row(t);
                sim_table_set_str(t, "scope", "operation");
                sim_table_set_str(t, "name", ops[o]);
                sim_table_set_num(t, "concurrency", c);
                sim_table_set_num(t, "count", 2000);
                sim_table_set_num(t, "mean", m);
                sim_table_set_num(t, "sd", 0.3 * m);
                sim_table_set_num(t, "p50", 0.9 * m);
                sim_table_set_num(t, "p90", 1.4 * m);
                sim_table_set_num(t, "p99", 2.2 * m);
            }
        rc = rep_store_save_measurements(s, "samples probe.csv", t, NULL, err);
        sim_table_free(t);
    }
    return rc;
}

#endif
