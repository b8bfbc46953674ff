/* tfsim calibrate: fit the model to a TigerBench file (validate/val_calib). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_calib.h"
#include "cli/cli_scenario.h"
#include "sim/sim_afile.h"
#include "sim/sim_rng.h"
#include "validate/val_calib.h"

const char cmd_calibrate_usage[] =
    "usage: tfsim calibrate --tigerbench FILE --arch ARCH [--config BASE.ini]\n"
    "                       [--points C1,C2,...] [--phases P1,P2,...] [--fit KEY,KEY,...]\n"
    "                       [--reps N] [--iter N]\n"
    "                       [--seed N] [--rows0 N] [--other-weight W] [--set S.K=V]...\n"
    "                       [--cpu SPLIT.csv] [--cpu-weight W]\n"
    "                       [--jobs N] [--db FILE] [--refit] [--out FILE.ini]\n"
    "                       [--format text|csv|json]\n"
    "\n"
    "Fit the model parameters that cannot be measured directly (CPU per request\n"
    "on the client and server loops, connection costs, SQLAlchemy and backend\n"
    "cost per statement, cost per holds row, cores: the registry's default set,\n"
    "see `tfsim config`) so that simulated phase throughputs and operation\n"
    "timings match the measured ones of ARCH in a TigerBench CSV.  The demands\n"
    "of backends ARCH runs that no fitted key covers (Redis's loop CPU,\n"
    "TigerBeetle's batch) are first set from ARCH's own timings at its lowest\n"
    "concurrency (printed, written to --out).  Then the per-request costs are\n"
    "scaled together to the lowest concurrency (a start from the light-load\n"
    "demands), the cost per holds row alone to every point (the lowest has no\n"
    "rows to tell it), then Nelder-Mead (GSL) in log space; every\n"
    "evaluation simulates every point with the same seed (common random\n"
    "numbers), the points on --jobs threads (default: the CPUs; the result is\n"
    "the same for any number).  Each point runs against the database state of\n"
    "its place in the benchmark series, read from the rows' order and\n"
    "timestamps (holds rows, goodies left; --rows0: rows before the series):\n"
    "the assumptions are printed.\n"
    "\n"
    "--points fits on those concurrencies only and reports the others as\n"
    "held out (cross-validation); --other-weight W (0..1) keeps the others in\n"
    "the objective with that weight instead.  --phases fits the throughputs of\n"
    "those phases only (checkout, reserve, webhook, commit) and reports the\n"
    "others as held out: a transfer test from one phase pattern to the other\n"
    "(windows: checkout,reserve; waves: webhook,commit); the operation timings\n"
    "are fitted at every fitted point either way.  Prints the fitted values and, per\n"
    "point and phase, measured and simulated throughput and the error; --out\n"
    "writes an INI file that `tfsim run` and `tfsim predict --config` use.\n"
    "--iter 0 fits nothing: it reports how well the config as given matches.\n"
    "--cpu SPLIT.csv fits the CPU per request of the load generator, the server\n"
    "and PostgreSQL as well, per phase and concurrency, from the same runs as\n"
    "FILE measured by scripts/live_cpu_phases.py (its CSV: arch, concurrency,\n"
    "phase, ..., client_ms, server_ms, postgres_ms, redis_ms), each with\n"
    "--cpu-weight W (default 0.25) of a throughput's weight: so that the fit\n"
    "puts the CPU where it was measured, not only where the throughputs let it;\n"
    "the points table then shows measured and simulated CPU.\n"
    "--db FILE stores the fit and its per-point table in a results database and\n"
    "reuses a fit stored there for the same data, architecture, model version,\n"
    "fitted keys and options (`tfsim predict --db FILE` finds it too); --refit\n"
    "fits again all the same.  A progress bar with ETA shows on a terminal.\n"
    "\n"
    "examples:\n"
    "  tfsim calibrate --tigerbench tests/data/calibration.csv --arch pg_pg --db runs.db\n"
    "  tfsim calibrate --tigerbench tests/data/calibration.csv --arch pg_pg --out cal.ini\n"
    "  tfsim calibrate --tigerbench tests/data/calibration.csv --arch pg_pg --points 1,10,50\n"
    "  tfsim calibrate --tigerbench tests/data/calibration.csv --arch pg_pg --phases checkout,reserve\n"
    "  tfsim calibrate --tigerbench tests/data/live_debian12_f.csv --arch pg_pg \\\n"
    "      --config configs/tigerfans/client_debian12.ini --cpu tests/data/live_cpu_phases.csv\n";

static int write_ini(const char *path, const val_calibration *c, sim_err *err)
{
    char *abs = c->config[0] ? realpath(c->config, NULL) : NULL;
    const char *inc = c->config[0] ? (abs ? abs : c->config) : NULL;
    size_t n = val_calib_ini(c, inc, NULL, 0) + 1;
    char *text = malloc(n);
    if (!text) {
        free(abs);
        return sim_err_set(err, SIM_EFAIL, "out of memory");
    }
    val_calib_ini(c, inc, text, n);
    free(abs);
    /* whole or not at all (sim_afile) */
    sim_afile af;
    int rc = sim_afile_open(&af, path, err);
    if (rc == SIM_OK) {
        fputs(text, af.f);
        rc = sim_afile_commit(&af, err);
    }
    free(text);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    const char *cmd = "calibrate";
    sim_rng_setup();
    const char *out = NULL;
    cli_calib_args ca;
    cli_calib_args_init(&ca);
    val_calib_run_opts *o = &ca.run;
    int rc = EXIT_OK;
    sim_err err;
    sim_err_clear(&err);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_calib_flag(cmd, argc, argv, &i, &ca);
        if (r < 0) {
            rc = EXIT_INPUT;
            goto done;
        }
        if (r)
            continue;
        if (!strcmp(a, "--refit")) {
            o->refit = 1;
            continue;
        }
        if (i + 1 >= argc || a[0] != '-') {
            rc = a[0] == '-' ? cli_no_value(cmd, a)
                             : cli_usage_error(cmd, "unexpected argument %s", a);
            goto done;
        }
        const char *v = argv[++i], *why;
        long n;
        if (!strcmp(a, "--arch")) {
            o->arch = v;
        } else if (!strcmp(a, "--points")) {
            o->points = v;
        } else if (!strcmp(a, "--phases")) {
            o->phases = v;
        } else if (!strcmp(a, "--out")) {
            out = v;
        } else if (!strcmp(a, "--reps")) {
            if (cli_parse_long(cmd, a, v, 1, 100000, &n)) {
                rc = EXIT_INPUT;
                goto done;
            }
            o->fit_opts.reps = (unsigned)n;
        } else if (!strcmp(a, "--iter")) {
            if (cli_parse_long(cmd, a, v, 0, 100000, &n)) {
                rc = EXIT_INPUT;
                goto done;
            }
            o->fit_opts.max_iter = (unsigned)n;
            o->fit_now = n > 0;
        } else if (!strcmp(a, "--cpu")) {
            o->cpu_file = v;
        } else if (!strcmp(a, "--cpu-weight")) {
            if (sim_parse_double(v, &o->cpu_weight, &why) || !(o->cpu_weight > 0) ||
                o->cpu_weight > 100) {
                rc = cli_usage_error(cmd, "--cpu-weight: '%s' is not a weight in (0, 100]", v);
                goto done;
            }
        } else if (!strcmp(a, "--other-weight")) {
            if (sim_parse_double(v, &o->other_weight, &why) || o->other_weight < 0 ||
                o->other_weight > 1) {
                rc = cli_usage_error(cmd, "--other-weight: '%s' is not a weight in [0, 1]", v);
                goto done;
            }
        } else {
            rc = cli_usage_error(cmd, "unexpected argument %s", a);
            goto done;
        }
    }
    if (!o->file || !o->arch) {
        rc = cli_usage_error(cmd, "--tigerbench FILE and --arch ARCH are required");
        goto done;
    }
    if (ca.db && (rc = cli_check_db(cmd, ca.db)))
        goto done;
    cli_calib_store store = {ca.db, 0, 0};
    val_calib_cache cache;
    cli_calib_cache(&store, &cache);
    if (ca.db)
        o->cache = &cache;
    cli_calib_bar bar;
    cli_calib_bar_start(&bar, cmd);
    o->fit_opts.progress = cli_calib_bar_update;
    o->fit_opts.progress_ctx = &bar;
    val_calibration c;
    int vr = val_calib_run(o, &c, &err);
    cli_calib_bar_end(&bar);
    if (vr) {
        rc = cli_fail(cmd, &err);
        val_calib_fini(&c);
        goto done;
    }
    FILE *nf = ca.fmt == SIM_FMT_TEXT ? stdout : stderr;
    for (size_t i = 0; i < c.series.nnotes; i++)
        fprintf(stderr, "note: %s\n", c.series.notes[i]);
    if (c.series.notes_left_out)
        fprintf(stderr, "note: %zu more notes on the series left out (it keeps %d)\n",
                c.series.notes_left_out, VAL_SERIES_MAX_NOTES);
    char setf[512];
    if (val_calib_set_fitted(o, &c, setf, sizeof setf))
        fprintf(stderr, "note: --set %s: a key the fit fits: the value is only its "
                "start (a --fit list without it holds it)\n", setf);
    for (size_t i = 0; i < c.nown; i++) {
        char kv[256];
        sim_err e;
        sim_err_clear(&e);
        if (val_calib_param_text(&c.own[i], kv, sizeof kv, &e) == SIM_OK)
            fprintf(stderr, "note: %s: not fitted under load, from %s's own timings at "
                    "concurrency %ld: %s\n", c.own[i].key, c.arch, c.own_c, kv);
    }
    sim_table *pt = sim_table_new(NULL), *t = sim_table_new(NULL), *kt = sim_table_new(NULL);
    val_calib_params_table(&c, pt);
    val_calib_points_table(&c, t);
    val_calib_kinds_table(&c, kt);
    if (ca.fmt == SIM_FMT_TEXT) {
        printf("calibration of %s on %s: %zu concurrencies, %zu parameters, ", c.arch, c.file,
               c.npts, c.np);
        if (c.cached)
            printf("stored fit (run %lld of %s), objective %.5g\n\n", (long long)store.found_run,
                   ca.db, c.objective);
        else
            printf("%u iterations (%u evaluations), objective %.5g\n\n", c.iters, c.evals,
                   c.objective);
        sim_table_print(pt, ca.fmt, stdout);
        printf("\nthroughput per phase\n");
        sim_table_print(t, ca.fmt, stdout);
        printf("\noperation timings\n");
        sim_table_print(kt, ca.fmt, stdout);
        printf("\n");
    } else if (sim_table_print(t, ca.fmt, stdout)) {
        rc = EXIT_FAIL;
    }
    fprintf(nf, "MAPE of phase throughput: fitted points %.2f%% (%d)", c.mape_fit, c.n_fit);
    if (c.n_out)
        fprintf(nf, ", held-out points %.2f%% (%d)", c.mape_out, c.n_out);
    fprintf(nf, "\n");
    fflush(stdout);
    if (store.saved_run)
        fprintf(stderr, "tfsim %s: stored as run %lld in %s (calibration key %s)\n", cmd,
                (long long)store.saved_run, ca.db, c.key);
    if (c.save_status) {
        fprintf(stderr, "tfsim %s: results printed but not stored: %s\n", cmd, c.save_err.msg);
        rc = EXIT_FAIL;
    }
    if (out && write_ini(out, &c, &err))
        rc = cli_fail(cmd, &err);
    else if (out)
        fprintf(nf, "wrote %s\n", out);
    sim_table_free(t);
    sim_table_free(kt);
    sim_table_free(pt);
    val_calib_fini(&c);
done:
    cli_calib_args_fini(&ca);
    return rc;
}
