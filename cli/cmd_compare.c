/* tfsim compare CONFIG --vary KEY=VALUES: live runs and simulations side
 * by side (validate/val_compare). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "reports/rep_store.h"
#include "cli/cli_live.h"
#include "cli/cli_scenario.h"
#include "models/mdl_sweep.h"
#include "sim/sim_afile.h"
#include "sim/sim_rng.h"
#include "sim/sim_stats.h"
#include "validate/val_compare.h"

const char cmd_compare_usage[] =
    "usage: tfsim compare CONFIG --vary SECTION.KEY=V1,V2,... [--reps N] [--set S.K=V]...\n"
    "                     [server options] [--cpu-scale F] [--cpu-per-step T]\n"
    "                     [--calib-total N] [--demands-at N] [--cores N|auto]\n"
    "                     [--live-reps N]\n"
    "                     [--params-out FILE]\n"
    "                     [--format text|csv|json] [--db FILE]\n"
    "\n"
    "Check the simulator against the live driver on this machine.  First a light-\n"
    "load probe of the operations: the live run at concurrency 1 (the value 1, run\n"
    "first, or a run of its own), timing every round trip and the CPU of the loop,\n"
    "the PostgreSQL backends and the host.  Its results map onto the model's keys\n"
    "(round trip, backend CPU per statement and per holds row, WAL flush and\n"
    "Redis service fitted by maximum likelihood, a save's extra Redis time, the\n"
    "driver's own CPU per round trip; the stand-in CPU steps exactly as the live\n"
    "driver spins them; Redis and the backends on the host's cores, a statement\n"
    "stacked on its busy loop's core when no core is idle; the Redis server's\n"
    "io-threads and io-threads-do-reads from CONFIG GET; see\n"
    "validate/val_compare.h).\n"
    "Then one live run per value (`tfsim live`), then the simulation of every\n"
    "value with those parameters (after the live runs, so that they do not\n"
    "compete for the CPU).  Prints per value and phase: the live throughput, the\n"
    "simulated one with its CI half-width, the Amdahl prediction from the live\n"
    "concurrency-1 point (X(N) = X(1) N / (1 + sigma1 (N - 1)), sigma1 = share of\n"
    "the N = 1 response time outside the kind timings; needs the key\n"
    "client.concurrency and the value 1), the errors in percent of the live\n"
    "value, the cores other processes used during each live run, the live runs\n"
    "made and the range of their throughputs in percent of the median, the\n"
    "threads waiting for a CPU live and simulated, and the share of Redis's\n"
    "replies its I/O threads wrote live (INFO stats) and simulated; then the\n"
    "mean absolute percentage error (MAPE) per phase and over all points, and how\n"
    "many points are within 15% and, of the others, outside the range of their live\n"
    "runs (misses the machine's own run-to-run spread does not cover).\n"
    "\n"
    "options:\n"
    "  --vary S.K=VALUES  the key to vary and its values: a list (1,2,4), a range\n"
    "                     (1..8) or a stepped range (1..16:4) (required)\n"
    "  --reps N           simulation replications per value (default: the config's)\n"
    "  --set S.K=V        override any config key (repeatable)\n"
    "  --calib-total N    requests per phase of a calibration run of its own (when\n"
    "                     1 is not among the values; default: client.total)\n"
    "  --demands-at N     also run at concurrency N (no stand-in CPU) and use it as\n"
    "                     the loaded run that separates the CPU per round trip of\n"
    "                     the loop and per statement of the PostgreSQL backends\n"
    "                     into a base and a wake-up cost (an idle thread woken by\n"
    "                     I/O costs more, e.g. on a VM whose idle vCPUs halt), or,\n"
    "                     when its statements cost more than at concurrency 1 (a\n"
    "                     busy host), into a factor on the statements that find\n"
    "                     every core busy (postgres.busy_cost); its WAL flushes,\n"
    "                     against concurrency 1's (pg_stat_wal, with the server's\n"
    "                     track_wal_io_timing = on), price the wait of a flush\n"
    "                     per thread waiting for a core (postgres.flush_wait),\n"
    "                     both read over the phases in which Redis's I/O threads\n"
    "                     wrote nothing (where they spin, a flush waits for\n"
    "                     their time slice instead);\n"
    "                     default: the live run of the largest concurrency\n"
    "  --cores N|auto     host.cores simulated: N, or auto (default): the online\n"
    "                     CPUs minus the cores other processes used during that\n"
    "                     value's live run (at least 1)\n"
    "  --live-reps N      live runs per value (default 1, at most 100): the live\n"
    "                     figure is their median, so that one noisy run does not\n"
    "                     decide the error (on a shared VM one run can differ\n"
    "                     from the next by 20% or more); they go in rounds,\n"
    "                     every value once per round, so that a slow spell of\n"
    "                     the machine falls on all values alike\n"
    "  --params-out FILE  write the simulation overrides of the first value (the\n"
    "                     calibrated parameters) as `section.key=value` lines\n"
    "  --format F         text (default), csv or json\n"
    CLI_LIVE_OPTIONS_HELP
    "\n"
    "examples:\n"
    "  tfsim compare configs/live/pg_redis.ini --vary client.concurrency=1,2,4,8,16 \\\n"
    "      --redis-socket /run/redis/redis.sock --pg-conninfo \"host=/run/postgresql\"\n"
    "  tfsim compare configs/live/pg_redis.ini --vary client.concurrency=1,4,16 \\\n"
    "      --cpu-per-step 1ms --reps 10 --format csv\n"
    "\n"
    "exit status: 0 done (whatever the errors); 1 a server failed or Ctrl-C (the\n"
    "message names the server; nothing is printed but the message); 2 bad config,\n"
    "value or option (checked before anything runs).\n";

static volatile sig_atomic_t stop_flag;

static void on_step(void *ctx, const char *what)
{
    char rb[CLI_REDACT_MAX];
    fprintf(stderr, "tfsim %s: %s\n", (const char *)ctx, cli_redact(what, rb, sizeof rb));
}

/* The calibration and its mapping, for people. */
static void print_calibration(FILE *f, const val_compare *c)
{
    const val_compare_calib *k = &c->cal;
    fprintf(f,
            "calibration (concurrency 1): driver CPU %.2f us per round trip; "
            "PostgreSQL simple statement %.1f us (backend CPU share %.2f: query_cpu %.1f us, rtt %.1f us), "
            "sum %.1f us (sum_cpu %.1f us, row_cost %.3g ns over %.0f rows), COMMIT %.1f us (after sums %.1f us "
            "more: commit_wake); Redis %.1f us; "
            "other processes %.2f cores\n"
            "  postgres.flush = %s\n  redis.service = %s (a save %.1f us more; Redis %s)\n",
            k->o_rt * 1e6, k->l_simple * 1e6, k->f, k->query_cpu * 1e6, k->rtt * 1e6, k->l_sum * 1e6,
            k->sum_cpu * 1e6, k->row_cost * 1e9, k->rows_avg, k->l_commit * 1e6, k->commit_wake * 1e6,
            k->l_redis * 1e6, k->background,
            k->flush, k->redis_service, k->save_extra * 1e6,
            k->redis_on_host       ? "on the host's cores"
            : k->redis_cpu_unknown ? "simulated off the host: it runs here but refused INFO cpu (an ACL?), so its "
                                     "CPU is unknown"
                                   : "off the host");
    if (k->redis_io_threads > 0)
        fprintf(f, "  redis.io_threads = %ld (the server's io-threads%s)\n", k->redis_io_threads,
                k->redis_io_reads > 0 ? ", reads too" : k->redis_io_reads == 0 ? ", writes only" : "");
    if (k->loaded_at > 0)
        fprintf(f,
                "wake-ups (concurrency 1 vs %ld): loop %.2f vs %.2f us per round trip at %.2f vs %.2f "
                "sleeps per round trip: base %.2f us + wake %.2f us; PostgreSQL %.1f vs %.1f us per "
                "statement at %.2f vs %.2f sent alone: wake %.1f us, busy +%.0f%%; ",
                k->loaded_at, k->o_rt_1 * 1e6, k->o_rt_n * 1e6, k->loop_sleep_1, k->loop_sleep_n,
                k->o_rt * 1e6, k->wake * 1e6, k->pg_stmt_1 * 1e6, k->pg_stmt_n * 1e6, k->pg_alone_1,
                k->pg_alone_n, k->pg_wake * 1e6, k->pg_busy * 100);
    if (k->loaded_at > 0 && isfinite(k->flush_1) && isfinite(k->flush_n))
        fprintf(f, "WAL flush %.0f vs %.0f us at %.2f vs %.2f threads waiting for a CPU (phases without Redis's "
                   "threaded writes): +%.0f us per waiting thread\n",
                k->flush_1 * 1e6, k->flush_n * 1e6, k->wait_1, k->wait_n, k->flush_wait * 1e6);
    else if (k->loaded_at > 0)
        fprintf(f, "WAL flush times unknown (pg_stat_wal, PostgreSQL 14 or later, with the server's "
                   "track_wal_io_timing = on): postgres.flush_wait 0\n");
    fprintf(f, "simulated vs live: MAPE %.1f%%, largest error %.1f%%; Amdahl MAPE %.1f%%\n", c->mape,
            c->max_err, c->mape_amdahl);
    if (c->npoints)
        fprintf(f, "points within %.0f%%: %ld of %ld; of the others, %ld outside the range of "
                   "their live runs\n",
                SIM_MAPE_WITHIN, c->within, c->npoints, c->beyond);
}

int cmd_compare(int argc, char **argv)
{
    const char *cmd = "compare";
    sim_rng_setup();
    cli_opts o = {.format = SIM_FMT_TEXT};
    val_live_srv srv;
    val_compare_opts co;
    memset(&co, 0, sizeof co);
    cli_live_defaults(&srv, &co.live);
    sim_cfg *cfg = sim_cfg_new(), *ov = sim_cfg_new();
    const char *vary = NULL, *params_out = NULL;
    char key[128] = "", **values = NULL;
    size_t nvalues = 0;
    int rc = EXIT_OK;
    sim_err err;
    sim_err_clear(&err);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = 0;
        if (!strcmp(a, "--set") || !strcmp(a, "-s") || !strcmp(a, "--format") || !strcmp(a, "-f") ||
            !strcmp(a, "--db")) {
            r = cli_scenario_opt(cmd, argc, argv, &i, ov, &o);
        } else if (!strcmp(a, "--vary") || !strcmp(a, "--reps") || !strcmp(a, "--calib-total") ||
                   !strcmp(a, "--cores") || !strcmp(a, "--params-out") || !strcmp(a, "--demands-at") ||
                   !strcmp(a, "--live-reps")) {
            if (i + 1 >= argc) {
                rc = cli_usage_error(cmd, "%s needs a value", a);
                goto out;
            }
            const char *v = argv[++i];
            long n;
            r = 1;
            if (!strcmp(a, "--vary")) {
                vary = v;
                if ((rc = cli_vary_arg(cmd, vary, i + 1 < argc ? argv[i + 1] : NULL)))
                    goto out;
            } else if (!strcmp(a, "--params-out")) {
                params_out = v;
            } else if (!strcmp(a, "--reps")) {
                if (cli_parse_long(cmd, a, v, 1, 100000, &n))
                    r = -1;
                co.reps = (unsigned)n;
            } else if (!strcmp(a, "--calib-total")) {
                if (cli_parse_long(cmd, a, v, 1, VAL_LIVE_MAX_TOTAL, &n))
                    r = -1;
                co.calib_total = n;
            } else if (!strcmp(a, "--live-reps")) {
                if (cli_parse_long(cmd, a, v, 1, VAL_COMPARE_MAX_LIVE_REPS, &n))
                    r = -1;
                co.live_reps = (unsigned)n;
            } else if (!strcmp(a, "--demands-at")) {
                if (cli_parse_long(cmd, a, v, 1, 1000000, &n))
                    r = -1;
                co.demands_at = n;
            } else if (strcmp(v, "auto")) {
                char *end;
                double c = strtod(v, &end);
                if (end == v || *end || !(c >= 0.01 && c <= 4096)) {
                    rc = cli_usage_error(cmd, "--cores: '%s' is not auto or a number in [0.01, 4096]", v);
                    goto out;
                }
                co.cores = c;
            }
        } else {
            r = cli_live_opt(cmd, argc, argv, &i, &srv, &co.live);
        }
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
        rc = cli_usage_error(cmd, "which scenario? (e.g. tfsim compare configs/live/pg_redis.ini "
                                  "--vary client.concurrency=1,2,4)");
        goto out;
    }
    if (!vary) {
        rc = cli_usage_error(cmd, "--vary SECTION.KEY=V1,V2,... is required");
        goto out;
    }
    const char *eq = strchr(vary, '=');
    if (!eq || eq == vary || (size_t)(eq - vary) >= sizeof key) {
        rc = cli_usage_error(cmd, "--vary %s: expected SECTION.KEY=V1,V2,...", vary);
        goto out;
    }
    memcpy(key, vary, (size_t)(eq - vary));
    key[eq - vary] = '\0';
    if (mdl_sweep_values(eq + 1, &values, &nvalues, &err)) {
        sim_err_prefix(&err, "--vary %s: ", key);
        rc = cli_fail(cmd, &err);
        goto out;
    }
    if (o.db && (rc = cli_check_db(cmd, o.db)))
        goto out;
    if (params_out && (rc = cli_check_out_dir(cmd, "--params-out", params_out)))
        goto out;
    tf_params p;
    if (cli_live_params(&o, cfg, ov, &p, &err)) {
        tf_params_fini(&p);
        rc = cli_fail(cmd, &err);
        goto out;
    }
    cli_stop_signals(&stop_flag);
    co.key = key;
    co.values = values;
    co.n = nvalues;
    co.srv = &srv;
    co.live.stop = &stop_flag;
    srv.pg.stop = &stop_flag; /* also while connecting and setting up */
    co.step = on_step;
    co.step_ctx = (void *)cmd;
    val_compare c;
    int crc = val_compare_run(cfg, &co, &c, &err);
    if (crc == SIM_OK) {
        if (params_out) {
            char buf[8192];
            val_compare_overrides(&c.cal, &p, co.live.cpu_scale, co.live.cpu_per_step, c.pts[0].cores,
                                  buf, sizeof buf);
            sim_afile af;
            sim_err werr;
            sim_err_clear(&werr);
            if (sim_afile_open(&af, params_out, &werr) == SIM_OK) {
                fputs(buf, af.f);
                sim_afile_commit(&af, &werr);
            }
            if (werr.code) {
                cli_fail("compare", &werr);
                rc = EXIT_FAIL;
            }
        }
        sim_table *t = sim_table_new(NULL);
        val_compare_table(&c, key, t);
        if (o.format == SIM_FMT_TEXT)
            printf("%s: live vs simulated throughput (1/s), %s, %ld requests per phase, CPU steps "
                   "%g x config + %g ms, %u simulation replications per value\n\n",
                   o.config, p.arch, p.total, co.live.cpu_scale, co.live.cpu_per_step * 1e3,
                   c.pts[0].reps);
        if (sim_table_print(t, o.format, stdout)) {
            cli_check_stdout("compare");
            rc = EXIT_FAIL;
        }
        if (o.db) {
            rep_manifest m = {"compare", o.config, sim_cfg_text(cfg), sim_cfg_overrides(cfg),
                              0, (long)c.pts[0].reps, tfsim_build_rev, tfsim_build_flags,
                              sim_cfg_hash(cfg)};
            if (cli_store_run(cmd, o.db, &m, t))
                rc = EXIT_FAIL;
        }
        sim_table_free(t);
        if (o.format == SIM_FMT_TEXT)
            printf("\n");
        print_calibration(o.format == SIM_FMT_TEXT ? stdout : stderr, &c);
    } else {
        rc = cli_fail(cmd, &err);
    }
    val_compare_fini(&c);
    tf_params_fini(&p);
out:
    for (size_t i = 0; i < nvalues; i++)
        free(values[i]);
    free(values);
    sim_cfg_free(cfg);
    sim_cfg_free(ov);
    return rc;
}
