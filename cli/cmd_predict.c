/* tfsim predict: an architecture's curve from a calibrated baseline and
 * its own light-load timings (validate/val_predict). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_calib.h"
#include "cli/cli_scenario.h"
#include "reports/rep_store.h"
#include "sim/sim_rng.h"
#include "validate/val_predict.h"

const char cmd_predict_usage[] =
    "usage: tfsim predict --tigerbench FILE --baseline ARCH --target ARCH\n"
    "                     [--config CALIBRATED.ini] [--calibrate] [--reps N] [--seed N]\n"
    "                     [--rows0 N] [--set S.K=V]... [--jobs N] [--db FILE]\n"
    "                     [--client auto|config|debian12] [--iter N] [--fits N]\n"
    "                     [--fit KEY,KEY,...] [--refit-shared] [--format text|csv|json]\n"
    "\n"
    "Predict the per-phase throughput of the TARGET architecture at every\n"
    "concurrency measured for the BASELINE, from (a) the model calibrated on the\n"
    "baseline's throughputs in FILE and (b) the target's operation timings at\n"
    "its lowest concurrency in FILE (what a light-load probe measures).\n"
    "\n"
    "(a) The baseline's calibration is, in this order: --config's values; a fit\n"
    "stored in --db for the same data, architecture, model version and fitted\n"
    "keys (what `tfsim calibrate ... --db FILE` stores); the shipped calibration\n"
    "when FILE holds the data it was fitted on (tests/data/calibration.csv) and\n"
    "no --fit is given; else a fit from FILE now, as `tfsim calibrate` does\n"
    "(--fit KEY,...: those keys, as calibrate's --fit; default its set; stored in\n"
    "--db when given, so that the next predict is instant).  --calibrate fits\n"
    "it from FILE whatever is at hand (from --config's values when given).\n"
    "A fit (or a stored one) is made with the load generator --client names:\n"
    "auto (default): when neither the config nor --set names client.httpcore,\n"
    "with the config's (TigerFans' pinned httpx 0.28 / httpcore 1.0) and with\n"
    "Debian 12's httpx 0.23 / httpcore 0.16 (the client of\n"
    "configs/tigerfans/client_debian12.ini, embedded), keeping the one whose\n"
    "fit is closer; config: the config's only; debian12: Debian's only.\n"
    "--iter N: simplex iterations of a baseline fit (default 150).\n"
    "--fits N (default 3, at most 16): a baseline fitted (or stored) is fitted\n"
    "N times, from the seeds --seed, --seed + 1, ..., each with the client the\n"
    "first kept, and every point is the mean of the N predictions: a fit ends\n"
    "where its seed's noise lets it, and the mean of three was closer than the\n"
    "seeds' own predictions on each of twelve live series (docs/calibration.md,\n"
    "\"Fits from several seeds\"); three take about twice one's time (the\n"
    "first tries both clients); --fits 1 for one.  A given baseline (--config,\n"
    "the shipped calibration) has one fit.\n"
    "(b) The target's light-load timings fix the demands of its components that\n"
    "the baseline's calibration did not fit under load, as the seed's Amdahl\n"
    "table swaps only the component that changes: TigerBeetle's batch latency,\n"
    "the Redis client's cost.  PostgreSQL's statement cost (every architecture\n"
    "writes its orders there) stays the baseline's, fitted under load on the\n"
    "same server, and with PostgreSQL accounting in both so does the holds\n"
    "table's state (the series' rows).  --refit-shared fits those from the\n"
    "target's timings too: the statement cost and, with PostgreSQL accounting,\n"
    "the holds rows its hold timing implies (the database state it ran\n"
    "against).  Each point runs\n"
    "against its place in the benchmark series, read from the rows' order and\n"
    "timestamps (--rows0 N: holds rows before the series, default 0).  A target\n"
    "FILE does not hold at all (ACCOUNTING_PAYMENTS: pg_pg, pg_redis, tb_redis)\n"
    "is predicted too: what it adds keeps the config's demands (the embedded\n"
    "ones were fitted on the TigerBench host) and each point runs against the\n"
    "baseline's database state there.  Every\n"
    "assumption is printed (stderr; stdout in text).\n"
    "\n"
    "CSV columns: phase,concurrency,throughput,ci_low,ci_high (the simulation's\n"
    "own 95% interval: its replications only), band_low,band_high (the\n"
    "prediction -+1.645 x the root mean square error of the baseline's own\n"
    "measured throughputs simulated at its calibration, at concurrency >= 5,\n"
    "x sqrt(n / (n - k)) for the k values fitted to its n throughputs: where\n"
    "about nine in ten measured points fall if the target's errors spread as\n"
    "the baseline's do; notes give the figures, and name a target's PostgreSQL\n"
    "work the baseline never ran, whose pricing the band does not hold),\n"
    "holds_rows (the holds table's rows the point runs against; empty for\n"
    "TigerBeetle accounting),\n"
    "client_busy,server_busy (the share of the phase's time the load generator's\n"
    "and the server's event loops ran; from 0.9 on that loop holds the point, and\n"
    "a note names those points) and, when FILE holds the target's measured\n"
    "throughput, measured,measured_min,measured_max (the mean of its repetitions,\n"
    "their least and greatest),error_pct and the Amdahl-style scaling of the\n"
    "baseline (amdahl,amdahl_error_pct), before holds_rows; with more than one\n"
    "fit, fit_low,fit_high after band_high (the fits' least and greatest\n"
    "prediction); the MAPE of both goes\n"
    "to stderr (stdout in text), with the points within 15% and, of the others,\n"
    "how many lie outside their repetitions' range (misses the measurement's own\n"
    "spread does not cover; a point measured once has no spread, its miss counts\n"
    "as outside) and those whose measured mean lies inside the band.  --db FILE\n"
    "also stores the table as a run (`tfsim report` charts its error_pct\n"
    "column).  --jobs N: threads (default: the CPUs; results do not depend on\n"
    "it).  A progress bar shows on a terminal.\n"
    "\n"
    "examples:\n"
    "  tfsim predict --tigerbench tests/data/calibration.csv --baseline pg_pg --target tb_redis\n"
    "  tfsim predict --tigerbench tests/data/calibration.csv --baseline pg_pg --target pg_redis \\\n"
    "      --db runs.db\n";

int cmd_predict(int argc, char **argv)
{
    const char *cmd = "predict";
    sim_rng_setup();
    cli_calib_args ca;
    cli_calib_args_init(&ca);
    val_predict_opts o;
    val_predict_opts_init(&o);
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
        if (!strcmp(a, "--calibrate")) {
            o.force_fit = 1;
            continue;
        }
        if (!strcmp(a, "--refit-shared")) {
            o.refit_shared = 1;
            continue;
        }
        if (i + 1 >= argc || a[0] != '-') {
            rc = a[0] == '-' ? cli_no_value(cmd, a)
                             : cli_usage_error(cmd, "unexpected argument %s", a);
            goto done;
        }
        const char *v = argv[++i];
        long n;
        if (!strcmp(a, "--baseline")) {
            ca.run.arch = v;
        } else if (!strcmp(a, "--target")) {
            o.target = v;
        } else if (!strcmp(a, "--client")) {
            int c = val_predict_client_parse(v);
            if (c < 0) {
                rc = cli_usage_error(cmd, "--client: '%s' is not auto, config or debian12", v);
                goto done;
            }
            o.client = c;
        } else if (!strcmp(a, "--iter")) {
            if (cli_parse_long(cmd, a, v, 1, 100000, &n)) {
                rc = EXIT_INPUT;
                goto done;
            }
            ca.run.fit_opts.max_iter = (unsigned)n;
        } else if (!strcmp(a, "--fits")) {
            if (cli_parse_long(cmd, a, v, 1, VAL_PREDICT_MAX_FITS, &n)) {
                rc = EXIT_INPUT;
                goto done;
            }
            o.fits = (unsigned)n;
        } else if (!strcmp(a, "--reps")) {
            if (cli_parse_long(cmd, a, v, 2, 100000, &n)) {
                rc = EXIT_INPUT;
                goto done;
            }
            o.reps = (unsigned)n;
        } else {
            rc = cli_usage_error(cmd, "unexpected argument %s", a);
            goto done;
        }
    }
    if (!ca.run.file || !ca.run.arch || !o.target) {
        rc = cli_usage_error(cmd, "--tigerbench, --baseline and --target are required");
        goto done;
    }
    if (ca.db && (rc = cli_check_db(cmd, ca.db)))
        goto done;
    o.base = ca.run;
    cli_calib_store store = {ca.db, 0, 0};
    val_calib_cache cache;
    cli_calib_cache(&store, &cache);
    if (ca.db)
        o.base.cache = &cache;
    cli_calib_bar bar;
    cli_calib_bar_start(&bar, cmd);
    o.base.fit_opts.progress = cli_calib_bar_update;
    o.base.fit_opts.progress_ctx = &bar;
    val_prediction *p = calloc(1, sizeof *p);
    if (!p) {
        rc = cli_usage_error(cmd, "out of memory");
        goto done;
    }
    int vr = val_predict_run(&o, p, &err);
    cli_calib_bar_end(&bar);
    if (vr) {
        rc = cli_fail(cmd, &err);
        val_predict_fini(p);
        free(p);
        goto done;
    }
    FILE *nf = ca.fmt == SIM_FMT_TEXT ? stdout : stderr;
    for (size_t i = 0; i < p->nnotes; i++)
        fprintf(nf, "note: %s\n", p->notes[i]);
    if (p->notes_left_out)
        fprintf(nf, "note: %zu more notes left out (predict keeps %d)\n", p->notes_left_out,
                VAL_PREDICT_MAX_NOTES);
    sim_table *t = sim_table_new(NULL);
    val_predict_table(p, t);
    if (ca.fmt == SIM_FMT_TEXT) {
        char how[128];
        if (p->fits > 1)
            snprintf(how, sizeof how, ", the mean of %u fits (the first: %s)", p->fits,
                     val_predict_source_name(p->source));
        else
            snprintf(how, sizeof how, " (%s)", val_predict_source_name(p->source));
        printf("\nprediction of %s from %s%s, %u replications per point\n\n", p->target,
               p->base.arch, how, p->reps);
    }
    if (sim_table_print(t, ca.fmt, stdout))
        rc = EXIT_FAIL;
    fflush(stdout);
    const char *sep = ca.fmt == SIM_FMT_TEXT ? "\n" : "";
    if (p->mape_sim.n) {
        fprintf(nf, "%sMAPE at concurrency >= %ld: simulation %.1f%% (%ld points)", sep,
                p->mape_from, sim_mape_mean(&p->mape_sim), p->mape_sim.n);
        if (p->mape_amdahl.n)
            fprintf(nf, ", Amdahl-style scaling %.1f%% (%ld points)",
                    sim_mape_mean(&p->mape_amdahl), p->mape_amdahl.n);
        fputc('\n', nf);
        fprintf(nf, "points within %.0f%%: %ld of %ld; of the others, %ld outside the range of "
                    "their measured repetitions (measured_min..measured_max)\n",
                SIM_MAPE_WITHIN, p->mape_sim.within, p->mape_sim.n, p->mape_sim.beyond);
        if (!isnan(p->band))
            fprintf(nf, "points inside the band (band_low..band_high, -+%.1f%%): %ld of %ld\n",
                    100 * p->band, p->in_band, p->mape_sim.n);
    } else {
        fprintf(nf, "%s%s's measured throughput is not in %s: no errors to report\n", sep,
                p->target, p->base.file);
    }
    fflush(nf);
    int stored_fail = p->base.save_status || p->own.save_status;
    if (stored_fail)
        fprintf(stderr, "tfsim %s: calibration not stored: %s\n", cmd,
                p->base.save_status ? p->base.save_err.msg : p->own.save_err.msg);
    if (ca.db) {
        char title[256];
        snprintf(title, sizeof title, "predict %s from %s", p->target, p->base.arch);
        rep_manifest m = {"predict", title, sim_cfg_text(p->own.cfg), sim_cfg_overrides(p->own.cfg),
                          o.base.fit_opts.seed, p->reps, tfsim_build_rev, tfsim_build_flags,
                          sim_cfg_hash(p->own.cfg)};
        if (cli_store_run(cmd, ca.db, &m, t) || stored_fail)
            rc = EXIT_FAIL;
    }
    sim_table_free(t);
    val_predict_fini(p);
    free(p);
done:
    cli_calib_args_fini(&ca);
    return rc;
}
