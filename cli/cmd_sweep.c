#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_scenario.h"
#include "cli/cli_sweep.h"
#include "sim/sim_rng.h"

const char cmd_sweep_usage[] =
    "usage: tfsim sweep CONFIG --vary SECTION.KEY=V1,V2,... [--set S.K=V]... [--seed N]\n"
    "                   [--reps N] [--jobs N] [--long] [--format text|csv|json] [--db FILE]\n"
    "\n"
    "Run the scenario once per value of one key (the points in parallel on --jobs\n"
    "threads; results do not depend on --jobs) and print one row per point: the\n"
    "value, then per phase (or station) throughput, latency and utilisation with\n"
    "CI half-widths.  Values: a list (1,5,10), a range (1..8) or a stepped range\n"
    "(10..100:10).  A progress bar with ETA is drawn on stderr when it is a\n"
    "terminal.\n"
    "\n"
    "options:\n"
    "  --vary S.K=VALUES  the key to vary and its values (required)\n"
    "  --set S.K=V        override any other config key (repeatable)\n"
    "  --seed N, --reps N master seed and replications of every point\n"
    "  --jobs N           points simulated in parallel (1 to 64)\n"
    "  --long             every metric: one row per point and result row\n"
    "  --format F         text (default), csv or json\n"
    "  --db FILE          store the sweep in the results database FILE (created if\n"
    "                     missing): each point is saved as soon as it finishes.  Run\n"
    "                     the same command again (same config, overrides, values,\n"
    "                     seed and replications; --jobs and --format may differ) to\n"
    "                     resume an interrupted sweep: stored points are read back,\n"
    "                     not simulated again, and the output is the same\n"
    "\n"
    "examples:\n"
    "  tfsim sweep configs/tigerfans/pg_pg.ini \\\n"
    "      --vary client.concurrency=1,5,10,20,30,40,50,60,70,80,90,100 --reps 10 --jobs 2\n"
    "  tfsim sweep configs/queueing/mm1.ini --vary arrivals.rate=0.5,0.7,0.9 --format csv\n"
    "  tfsim sweep configs/tigerfans/tb_redis.ini --vary client.concurrency=1..100:10 \\\n"
    "      --db results.db && tfsim report results.db -o report.html\n"
    "\n"
    "exit status: 0 every point ran (and was stored); 1 a point failed or a point\n"
    "could not be stored (the table is printed all the same) or the database could\n"
    "not be opened; 2 bad config, --vary value or option, or DB is not a tfsim\n"
    "results database.\n";

int cmd_sweep(int argc, char **argv)
{
    const char *cmd = "sweep";
    sim_rng_setup();
    cli_opts o = {.format = SIM_FMT_TEXT};
    sim_cfg *cfg = sim_cfg_new(), *ov = sim_cfg_new();
    const char *vary = NULL;
    int rc = EXIT_OK, longf = 0;
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
        if (!strcmp(argv[i], "--vary")) {
            if (i + 1 >= argc || vary) {
                rc = cli_usage_error(cmd, vary ? "give --vary once" : "--vary needs KEY=V1,V2,...");
                goto out;
            }
            vary = argv[++i];
            if ((rc = cli_vary_arg(cmd, vary, i + 1 < argc ? argv[i + 1] : NULL)))
                goto out;
        } else if (!strcmp(argv[i], "--long")) {
            longf = 1;
        } else if ((rc = cli_config_arg(cmd, argv[i], &o))) {
            goto out;
        }
    }
    if (!vary) {
        rc = cli_usage_error(cmd, "--vary SECTION.KEY=V1,V2,... is required");
        goto out;
    }
    sim_err err;
    sim_err_clear(&err);
    if (cli_sweep_prepare(&o, cfg, ov, vary, &sw, &err) || cli_sweep_run(cmd, &o, cfg, &sw, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    sim_table *t = sim_table_new(NULL);
    rc = cli_sweep_table(cmd, &sw, longf, t);
    if (sim_table_print(t, o.format, stdout) || fflush(stdout)) {
        cli_check_stdout("sweep");
        rc = EXIT_FAIL;
    }
    sim_table_free(t);
    if (sw.store_failed) {
        char rb[CLI_REDACT_MAX];
        fprintf(stderr, "tfsim sweep: results printed but not all stored: %s\n",
                cli_redact(sw.store_err.msg, rb, sizeof rb));
        rc = EXIT_FAIL;
    }
out:
    cli_sweep_fini(&sw);
    sim_cfg_free(cfg);
    sim_cfg_free(ov);
    return rc;
}
