#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_calib.h"
#include "models/tf_params.h"
#include "models/tf_sim.h"
#include "sim/sim_afile.h"
#include "sim/sim_rng.h"
#include "validate/val_calib.h"
#include "validate/val_tigerbench.h"

const char cmd_calibrate_usage[] =
    "usage: tfsim calibrate --tigerbench FILE --arch ARCH [--config BASE.ini]\n"
    "                       [--points C1,C2,...] [--fit KEY,KEY,...] [--reps N] [--iter N]\n"
    "                       [--seed N] [--rows0 N] [--other-weight W] [--set S.K=V]...\n"
    "                       [--out FILE.ini]\n"
    "                       [--format text|csv|json]\n"
    "\n"
    "Fit the model parameters that cannot be measured directly (CPU per request\n"
    "on the client and server loops, connection costs, SQLAlchemy and backend\n"
    "cost per statement, cost per holds row, cores) so that simulated phase\n"
    "throughputs and operation timings match the measured ones of ARCH in a\n"
    "TigerBench CSV.  Nelder-Mead (GSL) in log space; every evaluation simulates\n"
    "every point with the same seed (common random numbers).  Each point runs\n"
    "against the database state of its place in the benchmark series (holds\n"
    "rows, goodies left): see the README.\n"
    "\n"
    "--points fits on those concurrencies only and reports the others as\n"
    "held out (cross-validation); --other-weight W (0..1) keeps the others in\n"
    "the objective with that weight instead.  Prints the fitted values and, per point and\n"
    "phase, measured and simulated throughput and the error; --out writes an\n"
    "INI file that `tfsim run` and `tfsim predict --config` use.  --iter 0\n"
    "fits nothing: it reports how well the config as given matches the data.\n"
    "\n"
    "examples:\n"
    "  tfsim calibrate --tigerbench data/calibration.csv --arch pg_pg --out cal.ini\n"
    "  tfsim calibrate --tigerbench data/calibration.csv --arch pg_pg --points 1,10,50\n";

static void progress(unsigned iter, double f, void *ctx)
{
    (void)ctx;
    if (cli_stderr_tty())
        fprintf(stderr, "\rcalibrate: iteration %u, objective %.5g   ", iter, f);
}

static int write_ini(const char *path, const char *base, const char *file, const char *arch,
                     const val_calib_param *p, size_t np, double obj, double mape, sim_err *err)
{
    sim_afile af;
    if (sim_afile_open(&af, path, err))
        return err->code;
    FILE *f = af.f;
    fprintf(f, "; calibrated by tfsim calibrate from %s, architecture %s\n", file, arch);
    fprintf(f, "; objective %.6g (sum of squared log errors), MAPE over fitted points %.2f%%\n", obj,
            mape);
    if (base) {
        char *abs = realpath(base, NULL);
        fprintf(f, "include = %s\n", abs ? abs : base);
        free(abs);
    }
    /* one section at a time, in parameter order */
    for (size_t i = 0; i < np; i++) {
        const char *dot = strrchr(p[i].key, '.');
        int sl = (int)(dot - p[i].key);
        int first = 1;
        for (size_t j = 0; j < i; j++)
            if (!strncmp(p[j].key, p[i].key, (size_t)sl + 1))
                first = 0;
        if (!first)
            continue;
        fprintf(f, "\n[%.*s]\n", sl, p[i].key);
        for (size_t j = i; j < np; j++)
            if (!strncmp(p[j].key, p[i].key, (size_t)sl + 1)) {
                if (p[j].tmpl[0]) {
                    fprintf(f, "%s = ", strrchr(p[j].key, '.') + 1);
                    fprintf(f, p[j].tmpl, p[j].value);
                    fputc('\n', f);
                } else {
                    fprintf(f, "%s = %.9g\n", strrchr(p[j].key, '.') + 1, p[j].value);
                }
            }
    }
    return sim_afile_commit(&af, err);
}

int cmd_calibrate(int argc, char **argv)
{
    const char *cmd = "calibrate";
    sim_rng_setup();
    const char *arch = NULL, *points = NULL, *fit = NULL, *out = NULL;
    long iters = 150;
    double other_w = 0;
    sim_cfg *ov = sim_cfg_new(), *cfg = sim_cfg_new();
    cli_calib_args ca = {NULL, NULL, SIM_FMT_TEXT, 1, 2, 0, ov};
    val_tigerbench *tb = NULL;
    int rc = EXIT_OK;
    sim_err err;
    sim_err_clear(&err);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_calib_flag(cmd, argc, argv, &i, 1, &ca);
        if (r < 0) {
            rc = EXIT_INPUT;
            goto out;
        }
        if (r)
            continue;
        if (i + 1 >= argc && a[0] == '-') {
            rc = cli_usage_error(cmd, "%s needs a value", a);
            goto out;
        }
        if (!strcmp(a, "--arch"))
            arch = argv[++i];
        else if (!strcmp(a, "--points"))
            points = argv[++i];
        else if (!strcmp(a, "--fit"))
            fit = argv[++i];
        else if (!strcmp(a, "--out"))
            out = argv[++i];
        else if (!strcmp(a, "--iter")) {
            if (cli_parse_long(cmd, a, argv[++i], 0, 100000, &iters)) {
                rc = EXIT_INPUT;
                goto out;
            }
        } else if (!strcmp(a, "--other-weight")) {
            const char *why;
            if (sim_parse_double(argv[++i], &other_w, &why) || other_w < 0 || other_w > 1) {
                rc = cli_usage_error(cmd, "--other-weight: '%s' is not a weight in [0, 1]", argv[i]);
                goto out;
            }
        } else {
            rc = cli_usage_error(cmd, "unexpected argument %s", a);
            goto out;
        }
    }
    const char *file = ca.file, *base = ca.base;
    sim_format fmt = ca.fmt;
    unsigned long long seed = ca.seed;
    long reps = ca.reps;
    double rows0 = ca.rows0;
    if (!file || !arch) {
        rc = cli_usage_error(cmd, "--tigerbench FILE and --arch ARCH are required");
        goto out;
    }
    if (val_tigerbench_read(file, &tb, &err) ||
        cli_calib_base(base, tb, arch, ov, cfg, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    val_calib_point pts[256];
    size_t npts;
    val_series_opts so = {rows0, 1e5};
    val_calib_param params[32];
    size_t np;
    if (val_calib_points(tb, arch, &so, pts, 256, &npts, &err) ||
        cli_calib_params(fit, cfg, params, 32, &np, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    int any_thr = 0;
    for (size_t k = 0; k < npts; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++)
            any_thr |= !isnan(pts[k].thr[ph]);
    if (!any_thr) {
        rc = cli_usage_error(cmd, "%s: architecture %s has no phase throughput rows to fit", file,
                             arch);
        goto out;
    }
    if (points) {
        for (size_t k = 0; k < npts; k++)
            pts[k].weight = other_w;
        char buf[512];
        snprintf(buf, sizeof buf, "%s", points);
        char *save = NULL;
        int nfit = 0;
        for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
            long c;
            const char *why;
            size_t k = 0;
            if (sim_parse_long(t, &c, &why)) {
                rc = cli_usage_error(cmd, "--points: '%s' is not a concurrency", t);
                goto out;
            }
            while (k < npts && pts[k].concurrency != c)
                k++;
            if (k == npts) {
                rc = cli_usage_error(cmd, "--points: %s has no concurrency %ld for %s", file, c,
                                     arch);
                goto out;
            }
            pts[k].weight = 1;
            nfit++;
        }
        if (nfit < 1) {
            rc = cli_usage_error(cmd, "--points: no point given");
            goto out;
        }
    }
    val_calib_opts o = {seed, (unsigned)reps, (unsigned)iters, 0.25, 1e-3, 2, progress, NULL};
    double obj = 0;
    unsigned used = 0;
    double start[32];
    for (size_t i = 0; i < np; i++)
        start[i] = params[i].value;
    if (iters > 0 && val_calib_fit(cfg, NULL, 0, params, np, pts, npts, &o, &obj, &used, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    if (cli_stderr_tty())
        fputc('\n', stderr);
    val_calib_sim sims[256];
    if (val_calib_simulate(cfg, NULL, 0, params, np, pts, npts, &o, sims, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    if (iters == 0)
        obj = val_calib_objective(pts, sims, npts, o.kind_weight);
    /* per point and phase */
    sim_table *t = sim_table_new(NULL);
    double mape_fit = 0, mape_out = 0;
    int n_fit = 0, n_out = 0;
    for (size_t k = 0; k < npts; k++) {
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            if (isnan(pts[k].thr[ph]))
                continue;
            double e = 100 * (sims[k].thr[ph] - pts[k].thr[ph]) / pts[k].thr[ph];
            sim_table_row(t);
            sim_table_set_str(t, "phase", tf_phase_names[ph]);
            sim_table_set_num(t, "concurrency", (double)pts[k].concurrency);
            sim_table_set_num(t, "measured", pts[k].thr[ph]);
            sim_table_set_num(t, "simulated", sims[k].thr[ph]);
            sim_table_set_num(t, "simulated_ci", sims[k].thr_ci[ph]);
            sim_table_set_num(t, "error_pct", e);
            sim_table_set_str(t, "fitted", pts[k].weight >= 1 ? "yes"
                                           : pts[k].weight > 0 ? "weighted" : "held out");
            sim_table_set_num(t, "holds_rows", pts[k].holds_rows);
            if (pts[k].weight >= 1)
                mape_fit += fabs(e), n_fit++;
            else
                mape_out += fabs(e), n_out++;
        }
    }
    mape_fit = n_fit ? mape_fit / n_fit : NAN;
    mape_out = n_out ? mape_out / n_out : NAN;
    sim_table *kt = sim_table_new(NULL);
    for (size_t k = 0; k < npts; k++)
        for (int i = 0; i < TF_NKINDS; i++) {
            if (isnan(pts[k].kind[i]))
                continue;
            sim_table_row(kt);
            sim_table_set_str(kt, "kind", tf_kind_names[i]);
            sim_table_set_num(kt, "concurrency", (double)pts[k].concurrency);
            sim_table_set_num(kt, "measured_ms", 1e3 * pts[k].kind[i]);
            sim_table_set_num(kt, "simulated_ms", 1e3 * sims[k].kind[i]);
            sim_table_set_num(kt, "error_pct",
                              100 * (sims[k].kind[i] - pts[k].kind[i]) / pts[k].kind[i]);
        }
    sim_table *pt = sim_table_new(NULL);
    for (size_t i = 0; i < np; i++) {
        sim_table_row(pt);
        sim_table_set_str(pt, "parameter", params[i].key);
        sim_table_set_num(pt, "start", start[i]);
        sim_table_set_num(pt, "fitted", params[i].value);
    }
    FILE *nf = fmt == SIM_FMT_TEXT ? stdout : stderr;
    if (fmt == SIM_FMT_TEXT) {
        printf("calibration of %s on %s: %zu points, %zu parameters, %u iterations, objective %.5g\n\n",
               arch, file, npts, np, used, obj);
        sim_table_print(pt, fmt, stdout);
        printf("\nthroughput per phase\n");
        sim_table_print(t, fmt, stdout);
        printf("\noperation timings\n");
        sim_table_print(kt, fmt, stdout);
        printf("\n");
    } else if (sim_table_print(t, fmt, stdout)) {
        rc = EXIT_FAIL;
    }
    fprintf(nf, "MAPE of phase throughput: fitted points %.2f%% (%d)", mape_fit, n_fit);
    if (n_out)
        fprintf(nf, ", held-out points %.2f%% (%d)", mape_out, n_out);
    fprintf(nf, "\n");
    if (out && write_ini(out, base, file, arch, params, np, obj, mape_fit, &err))
        rc = cli_fail(cmd, &err);
    else if (out)
        fprintf(nf, "wrote %s\n", out);
    sim_table_free(t);
    sim_table_free(kt);
    sim_table_free(pt);
out:
    val_tigerbench_free(tb);
    sim_cfg_free(ov);
    sim_cfg_free(cfg);
    return rc;
}
