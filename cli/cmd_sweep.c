#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_scenario.h"
#include "cli/cli_sweep.h"
#include "models/mdl.h"
#include "models/mdl_sweep.h"
#include "sim/sim_rng.h"

const char cmd_sweep_usage[] =
    "usage: tfsim sweep CONFIG --vary SECTION.KEY=V1,V2,... [--set S.K=V]... [--seed N]\n"
    "                   [--reps N] [--jobs N] [--long] [--format text|csv|json] [--db FILE]\n"
    "\n"
    "Run the scenario once per value of one key (the points in parallel on --jobs\n"
    "threads; results do not depend on --jobs) and print one row per point: the\n"
    "value, then per phase (or station) throughput, latency and utilisation with\n"
    "CI half-widths.  Values: a list (1,5,10), a range (1..8) or a stepped range\n"
    "(10..100:10).  --long prints every metric, one row per point and result row.\n"
    "\n"
    "examples:\n"
    "  tfsim sweep configs/tigerfans/pg_pg.ini \\\n"
    "      --vary client.concurrency=1,5,10,20,30,40,50,60,70,80,90,100 --reps 10 --jobs 2\n"
    "  tfsim sweep configs/queueing/mm1.ini --vary arrivals.rate=0.5,0.7,0.9 --format csv\n";

static atomic_size_t points_done;
static size_t points_total;

static void on_done(size_t i, void *ctx)
{
    (void)i;
    (void)ctx;
    size_t d = atomic_fetch_add(&points_done, 1) + 1;
    if (cli_stderr_tty())
        fprintf(stderr, "\rsweep: %zu/%zu points", d, points_total);
}

int cmd_sweep(int argc, char **argv)
{
    const char *cmd = "sweep";
    sim_rng_setup();
    cli_opts o = {NULL, SIM_FMT_TEXT, NULL, NULL, 0};
    sim_cfg *cfg = sim_cfg_new(), *ov = sim_cfg_new();
    const char *vary = NULL;
    int rc = EXIT_OK, longf = 0;
    for (int i = 1; i < argc; i++) {
        int r = cli_scenario_opt(cmd, argc, argv, &i, ov, &o);
        if (r < 0) {
            rc = EXIT_INPUT;
            goto out;
        }
        if (r)
            continue;
        if (!strcmp(argv[i], "--vary")) {
            if (i + 1 >= argc || vary) {
                rc = cli_usage_error(cmd, vary ? "give --vary once" : "--vary needs KEY=V1,V2,...");
                goto out;
            }
            vary = argv[++i];
        } else if (!strcmp(argv[i], "--long")) {
            longf = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_usage_error(cmd, "unknown option %s", argv[i]);
            goto out;
        } else if (o.config) {
            rc = cli_usage_error(cmd, "more than one CONFIG (%s, %s)", o.config, argv[i]);
            goto out;
        } else {
            o.config = argv[i];
        }
    }
    if (!vary) {
        rc = cli_usage_error(cmd, "--vary SECTION.KEY=V1,V2,... is required");
        goto out;
    }
    sim_err err;
    sim_err_clear(&err);
    cli_sweep sw;
    if (cli_sweep_prepare(cmd, &o, cfg, ov, vary, &sw, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    points_total = sw.n;
    atomic_store(&points_done, 0);
    mdl_sweep_run(cfg, sw.key, sw.pts, sw.n, sw.jobs, on_done, NULL, &err);
    if (cli_stderr_tty())
        fputc('\n', stderr);
    sim_table *t = sim_table_new(NULL);
    rc = cli_sweep_table(cmd, &sw, longf, t);
    if (rc == EXIT_OK && sim_table_print(t, o.format, stdout))
        rc = EXIT_FAIL;
    sim_table_free(t);
    cli_sweep_fini(&sw);
out:
    sim_cfg_free(cfg);
    sim_cfg_free(ov);
    return rc;
}
