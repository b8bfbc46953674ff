/* tfsim live CONFIG: a real closed-loop load run of the TigerFans endpoint
 * programs against real Redis and PostgreSQL (validate/val_live_srv). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_live.h"
#include "sim/sim_rng.h"

const char cmd_live_usage[] =
    "usage: tfsim live CONFIG [--set SECTION.KEY=VALUE]... [server options]\n"
    "                  [--cpu-scale F] [--cpu-per-step T] [--format text|csv|json]\n"
    "\n"
    "Run the scenario in CONFIG for real: one single-threaded event loop (poll)\n"
    "executes the TigerFans endpoint programs the simulator interprets (the same\n"
    "micro-steps: CPU on the loop, DB gate, connection pool, PostgreSQL statements,\n"
    "Redis round trips) with real asynchronous calls to PostgreSQL (libpq, one\n"
    "connection per transaction in flight, postgres.gate permits, pool_size +\n"
    "pool_overflow connections, SELECT 1 per checkout when pre_ping) and Redis\n"
    "(hiredis).  Every CPU step spins on the clock for --cpu-scale x its seconds\n"
    "in the config plus --cpu-per-step: the stand-in for the Python server's\n"
    "serial work.  The load generator runs inside the same loop, with the\n"
    "simulator's phases (client.phases, client.total, client.concurrency) and\n"
    "modes (benchmark: sliding window for checkout and reserve, waves for webhook\n"
    "and commit; or window, waves).\n"
    "\n"
    "Prints what `tfsim run` prints for one replication: per phase throughput\n"
    "(successful requests / phase wall time), latency mean and percentiles; per\n"
    "operation kind the mean and sd of TigerFans' timings (from the call to when\n"
    "the coroutine runs again, so with the wait for the loop); utilisation of the\n"
    "loop, the PostgreSQL backends, Redis and the host (CPU used / elapsed); the\n"
    "mean number of loop and backend threads runnable but waiting for a CPU\n"
    "(cpu_wait, from /proc/PID/schedstat); per round-trip class the latency\n"
    "from send to reply; and the share of the Redis round trips whose replies\n"
    "the server's I/O threads wrote (redis_threaded_writes, INFO stats).\n"
    "\n"
    "Architectures with PostgreSQL accounting only (pg_pg, pg_redis): tb needs a\n"
    "TigerBeetle server (exit 2).  PostgreSQL work happens only in the schema\n"
    "tfsim_live (dropped and recreated with the config's inventory and\n"
    "postgres.holds_rows preloaded holds, dropped at the end); Redis keys only\n"
    "under the prefix, deleted at the end.  Run one at a time per database.\n"
    "\n"
    "options:\n"
    "  --set S.K=V           override any config key (repeatable)\n"
    "  --format F            text (default), csv or json\n"
    CLI_LIVE_OPTIONS_HELP
    "\n"
    "examples:\n"
    "  tfsim live configs/live/pg_redis.ini --redis-socket /run/redis/redis.sock \\\n"
    "      --pg-conninfo \"host=/run/postgresql dbname=test\"\n"
    "  tfsim live configs/live/pg_redis.ini --cpu-per-step 1ms --set client.concurrency=8\n"
    "  tfsim live configs/tigerfans/pg_pg.ini --set client.total=200 --format csv\n"
    "\n"
    "exit status: 0 done; 1 a server failed (down, wrong password, killed, not\n"
    "answering within --timeout) or Ctrl-C: the message names the server and what\n"
    "failed, and what was measured until then is printed; 2 bad config or option\n"
    "(also architecture.accounting = tb).\n";

static volatile sig_atomic_t stop_flag;

int cmd_live(int argc, char **argv)
{
    const char *cmd = "live";
    sim_rng_setup();
    cli_opts o = {.format = SIM_FMT_TEXT};
    val_live_srv srv;
    val_live_opts lo;
    cli_live_defaults(&srv, &lo);
    sim_cfg *cfg = sim_cfg_new(), *ov = sim_cfg_new();
    tf_params p;
    memset(&p, 0, sizeof p);
    int rc = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = 0;
        if (!strcmp(a, "--set") || !strcmp(a, "-s") || !strcmp(a, "--format") || !strcmp(a, "-f"))
            r = cli_scenario_opt(cmd, argc, argv, &i, ov, &o);
        else
            r = cli_live_opt(cmd, argc, argv, &i, &srv, &lo);
        if (r < 0) {
            rc = EXIT_INPUT;
            goto out;
        }
        if (r)
            continue;
        if ((rc = cli_config_arg(cmd, a, &o)))
            goto out;
    }
    if (!o.config) {
        rc = cli_usage_error(cmd, "which scenario? (e.g. tfsim live configs/live/pg_redis.ini)");
        goto out;
    }
    sim_err err;
    sim_err_clear(&err);
    if (cli_live_params(&o, cfg, ov, &p, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    cli_stop_signals(&stop_flag);
    lo.stop = &stop_flag;
    srv.pg.stop = &stop_flag; /* also while connecting and setting up */
    lo.progress = cli_live_progress;
    lo.progress_ctx = (void *)cmd;
    val_live_out res;
    int lrc = val_live_run(&p, &lo, &srv, &res, &err);
    int any = 0;
    for (int ph = 0; ph < TF_NPHASES; ph++)
        any |= res.phase_ran[ph] != 0;
    if (any) {
        sim_table *t = sim_table_new(NULL);
        val_live_table(&res, o.format == SIM_FMT_TEXT, t);
        if (o.format == SIM_FMT_TEXT)
            printf("%s: live run, %s, concurrency %ld, %ld requests per phase, CPU steps %g x "
                   "config + %g ms%s\n\n",
                   o.config, p.arch, p.concurrency, p.total, lo.cpu_scale, lo.cpu_per_step * 1e3,
                   lrc ? " (stopped early: see the message on stderr)" : "");
        if (sim_table_print(t, o.format, stdout)) {
            cli_check_stdout("live");
            rc = EXIT_FAIL;
        }
        fflush(stdout);
        sim_table_free(t);
    }
    if (lrc)
        rc = cli_fail(cmd, &err);
out:
    tf_params_fini(&p);
    sim_cfg_free(cfg);
    sim_cfg_free(ov);
    return rc;
}
