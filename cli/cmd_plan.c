#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_scenario.h"
#include "cli/cli_sweep.h"
#include "sim/sim_rng.h"

const char cmd_plan_usage[] =
    "usage: tfsim plan CONFIG --vary SECTION.KEY=VALUES --target-throughput X\n"
    "                  [--p99 SECONDS] [--phase NAME] [--set S.K=V]... [--reps N]\n"
    "                  [--seed N] [--jobs N] [--format text|csv|json] [--db FILE]\n"
    "\n"
    "Capacity planning: simulate every setting in VALUES (cheapest first, e.g.\n"
    "1..8 workers) and report the first one whose throughput for the phase (or\n"
    "station) meets the target with confidence (lower CI bound >= X) and whose\n"
    "p99 latency, if asked, stays below the limit (upper CI bound <= Y).  The\n"
    "table shows the evidence for every setting.  Exit status 0 when a setting\n"
    "meets the target, 1 when none does (or a setting failed to run).\n"
    "\n"
    "--db FILE stores the settings as a sweep in the results database, exactly as\n"
    "tfsim sweep --db does (see tfsim sweep --help): an interrupted plan resumes,\n"
    "and a plan over the points of a stored sweep reads them instead of\n"
    "simulating them again.\n"
    "\n"
    "examples:\n"
    "  tfsim plan configs/tigerfans/tb_redis.ini --vary server.workers=1..8 \\\n"
    "      --target-throughput 2000 --p99 0.05 --phase checkout --set client.concurrency=50\n"
    "  tfsim plan configs/queueing/mmc.ini --vary station.server.servers=3..6 \\\n"
    "      --target-throughput 2.7 --p99 5 --phase server\n"
    "  tfsim plan configs/tigerfans/whatif/compiled_server.ini --vary server.workers=1..6 \\\n"
    "      --target-throughput 1500 --phase reserve --db results.db\n";

int cmd_plan(int argc, char **argv)
{
    const char *cmd = "plan";
    sim_rng_setup();
    cli_opts o = {.format = SIM_FMT_TEXT};
    sim_cfg *cfg = sim_cfg_new(), *ov = sim_cfg_new();
    const char *vary = NULL, *phase = NULL;
    double target = NAN, p99max = INFINITY;
    int rc = EXIT_OK;
    cli_sweep sw;
    memset(&sw, 0, sizeof sw);
    for (int i = 1; i < argc; i++) {
        int r = cli_scenario_opt(cmd, argc, argv, &i, ov, &o);
        if (r < 0) {
            rc = EXIT_INPUT;
            goto out;
        }
        if (r)
            continue;
        const char *a = argv[i];
        if (!strcmp(a, "--vary") || !strcmp(a, "--phase") || !strcmp(a, "--target-throughput") ||
            !strcmp(a, "--p99")) {
            if (i + 1 >= argc) {
                rc = cli_usage_error(cmd, "%s needs a value", a);
                goto out;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--vary")) {
                vary = v;
                if ((rc = cli_vary_arg(cmd, vary, i + 1 < argc ? argv[i + 1] : NULL)))
                    goto out;
            }
            else if (!strcmp(a, "--phase"))
                phase = v;
            else {
                double x;
                const char *why;
                if (sim_parse_double(v, &x, &why) || !(x > 0)) {
                    rc = cli_usage_error(cmd, "%s: '%s' is not a positive number", a, v);
                    goto out;
                }
                if (!strcmp(a, "--p99"))
                    p99max = x;
                else
                    target = x;
            }
        } else if ((rc = cli_config_arg(cmd, a, &o))) {
            goto out;
        }
    }
    if (!vary || isnan(target)) {
        rc = cli_usage_error(cmd, "--vary and --target-throughput are required");
        goto out;
    }
    sim_err err;
    sim_err_clear(&err);
    if (cli_sweep_prepare(&o, cfg, ov, vary, &sw, &err) || cli_sweep_run(cmd, &o, cfg, &sw, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    /* find the row: by name, in any scope that has a throughput */
    const char *scope = NULL;
    for (size_t i = 0; i < sw.n && !scope; i++) {
        const sim_table *pt = sw.tables[i];
        if (!pt)
            continue;
        int cs = sim_table_find_col(pt, "scope"), cn = sim_table_find_col(pt, "name");
        int cx = sim_table_find_col(pt, "throughput");
        for (int r = 0; cs >= 0 && cn >= 0 && cx >= 0 && r < sim_table_nrows(pt); r++) {
            const char *s = NULL, *n = NULL;
            sim_table_cell(pt, r, cs, NULL, &s);
            sim_table_cell(pt, r, cn, NULL, &n);
            if (!s || !n || sim_table_cell(pt, r, cx, NULL, NULL) != 1)
                continue;
            if ((phase && !strcmp(n, phase)) ||
                (!phase && (!strcmp(s, "phase") || !strcmp(s, "network")))) {
                scope = s;
                phase = phase ? phase : n;
                break;
            }
        }
    }
    if (!scope) {
        for (size_t i = 0; i < sw.n; i++)
            if (sw.status[i]) {
                rc = cli_fail(cmd, &sw.errs[i]);
                goto out;
            }
        rc = cli_usage_error(cmd, "--phase %s: no such phase or station in the results",
                             phase ? phase : "");
        goto out;
    }
    const char *latm = "p99";
    sim_table *t = sim_table_new(NULL);
    int ck = sim_table_col(t, sw.key, NULL), cx = sim_table_col(t, "throughput", "%.1f");
    int cxc = sim_table_col(t, "throughput_ci", "%.1f"), cl = sim_table_col(t, "p99", "%.4g");
    int clc = sim_table_col(t, "p99_ci", "%.3g"), cm = sim_table_col(t, "meets", NULL);
    long pick = -1;
    for (size_t i = 0; i < sw.n; i++) {
        if (sw.status[i]) {
            char rb[CLI_REDACT_MAX];
            fprintf(stderr, "tfsim plan: %s=%s: %s\n", sw.key, sw.values[i],
                    cli_redact(sw.errs[i].msg, rb, sizeof rb));
            rc = EXIT_FAIL;
            continue;
        }
        double xh, lh;
        double x = cli_sweep_value(&sw, i, scope, phase, "throughput", &xh);
        double l = cli_sweep_value(&sw, i, scope, phase, latm, &lh);
        double xlo = x - (isnan(xh) ? 0 : xh), lhi = l + (isnan(lh) ? 0 : lh);
        int meets = xlo >= target && (!isfinite(p99max) || lhi <= p99max);
        sim_table_row(t);
        sim_table_str(t, ck, sw.values[i]);
        sim_table_num(t, cx, x);
        sim_table_num(t, cxc, xh);
        sim_table_num(t, cl, l);
        sim_table_num(t, clc, lh);
        sim_table_str(t, cm, meets ? "yes" : "no");
        if (meets && pick < 0)
            pick = (long)i;
    }
    if (o.format == SIM_FMT_TEXT) {
        printf("target: %s throughput >= %g/s", phase, target);
        if (isfinite(p99max))
            printf(", p99 <= %g s", p99max);
        printf(" (lower / upper %.0f%% CI bounds)\n\n", 100 * 0.95);
    }
    if (sim_table_print(t, o.format, stdout))
        rc = EXIT_FAIL;
    sim_table_free(t);
    FILE *nf = o.format == SIM_FMT_TEXT ? stdout : stderr;
    if (pick >= 0) {
        fprintf(nf, "%scheapest setting that meets the target: %s=%s\n",
                o.format == SIM_FMT_TEXT ? "\n" : "", sw.key, sw.values[pick]);
    } else {
        fprintf(nf, "%sno setting in the list meets the target\n",
                o.format == SIM_FMT_TEXT ? "\n" : "");
        if (rc == EXIT_OK)
            rc = EXIT_FAIL;
    }
    if (sw.store_failed) {
        char rb[CLI_REDACT_MAX];
        fprintf(stderr, "tfsim plan: results printed but not all stored: %s\n",
                cli_redact(sw.store_err.msg, rb, sizeof rb));
        rc = EXIT_FAIL;
    }
out:
    cli_sweep_fini(&sw);
    sim_cfg_free(cfg);
    sim_cfg_free(ov);
    return rc;
}
