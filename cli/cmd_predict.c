#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_calib.h"
#include "cli/cli_scenario.h"
#include "reports/rep_store.h"
#include "models/tf_params.h"
#include "models/tf_sim.h"
#include "sim/sim_rng.h"
#include "validate/val_calib.h"
#include "validate/val_tigerbench.h"

const char cmd_predict_usage[] =
    "usage: tfsim predict --tigerbench FILE --baseline ARCH --target ARCH\n"
    "                     [--config CALIBRATED.ini] [--calibrate] [--reps N] [--seed N]\n"
    "                     [--rows0 N] [--set S.K=V]... [--format text|csv|json] [--db FILE]\n"
    "\n"
    "Predict the per-phase throughput of the TARGET architecture at every\n"
    "concurrency measured for the BASELINE, from (a) the model calibrated on the\n"
    "baseline (--config, by default the shipped calibration, which the embedded\n"
    "defaults carry; --calibrate fits it again from FILE first) and (b) the\n"
    "target's lowest-concurrency operation timings in FILE (what a light-load\n"
    "probe measures): those fix the target's own parameters (TigerBeetle batch\n"
    "latency, Redis client cost) before the target is simulated at each\n"
    "concurrency against its place in the benchmark series.\n"
    "\n"
    "CSV columns: phase,concurrency,throughput,ci_low,ci_high and, when FILE\n"
    "holds the target's measured throughput, measured,error_pct and the\n"
    "Amdahl-style scaling of the baseline (amdahl,amdahl_error_pct); the MAPE of\n"
    "both goes to stderr (stdout in text).  --db FILE stores the table as a run\n"
    "in a results database (`tfsim report` charts its error_pct column).\n"
    "\n"
    "examples:\n"
    "  tfsim predict --tigerbench data/calibration.csv --baseline pg_pg --target tb_redis\n"
    "  tfsim predict --tigerbench all.csv --baseline pg_pg --target pg_redis --format csv\n";

static const char *const kind_rows[TF_NKINDS] = {
    "accounting.hold", "accounting.commit_order", "paymentsession.save", "paymentsession.get",
    "paymentsession.fulfill", "paymentsession.remove_pending", "db.add_order"};

/* Amdahl-style scaling: the baseline's measured throughput at c times the
 * speedup that the lowest-concurrency timings predict for the phase:
 * R = 1/X_base(c0); serial = R - sum of the baseline's kinds of the phase;
 * R' = serial + sum of the target's kinds; speedup = R / R'. */
static double amdahl_speedup(const val_tigerbench_arch *b, const val_tigerbench_arch *t, int ph,
                             long c0)
{
    const val_tigerbench_phase *p = val_tigerbench_phase_get(b, tf_phase_names[ph], c0);
    if (!p || !(p->x_mean > 0))
        return NAN;
    const char *kinds[8];
    size_t nk = val_tigerbench_phase_kinds(tf_phase_names[ph], kinds, 8);
    double sb = 0, st = 0;
    for (size_t i = 0; i < nk; i++) {
        const val_tigerbench_kind *kb = val_tigerbench_kind_get(b, kinds[i], c0);
        const val_tigerbench_kind *kt = val_tigerbench_kind_get(t, kinds[i], c0);
        if (!kb || !kt)
            return NAN;
        sb += kb->mean;
        st += kt->mean;
    }
    double r = 1 / p->x_mean, serial = r - sb;
    if (serial < 0)
        serial = 0;
    return r / (serial + st);
}

int cmd_predict(int argc, char **argv)
{
    const char *cmd = "predict";
    sim_rng_setup();
    const char *basearch = NULL, *target = NULL, *dbpath = NULL;
    int recal = 0;
    sim_cfg *ov = sim_cfg_new(), *bcfg = sim_cfg_new(), *tcfg = sim_cfg_new();
    val_tigerbench *tb = NULL;
    int rc = EXIT_OK;
    sim_err err;
    sim_err_clear(&err);
    cli_calib_args ca = {NULL, NULL, SIM_FMT_TEXT, 1, 10, 0, ov};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_calib_flag(cmd, argc, argv, &i, 2, &ca);
        if (r < 0) {
            rc = EXIT_INPUT;
            goto out;
        }
        if (r)
            continue;
        if (!strcmp(a, "--calibrate")) {
            recal = 1;
            continue;
        }
        if (i + 1 >= argc) {
            rc = cli_usage_error(cmd, "%s needs a value", a);
            goto out;
        }
        if (!strcmp(a, "--baseline"))
            basearch = argv[++i];
        else if (!strcmp(a, "--target"))
            target = argv[++i];
        else if (!strcmp(a, "--db"))
            dbpath = argv[++i];
        else {
            rc = cli_usage_error(cmd, "unexpected argument %s", a);
            goto out;
        }
    }
    if (dbpath && (rc = cli_check_db(cmd, dbpath)))
        goto out;
    const char *file = ca.file, *base = ca.base;
    sim_format fmt = ca.fmt;
    unsigned long long seed = ca.seed;
    long reps = ca.reps;
    double rows0 = ca.rows0;
    if (!file || !basearch || !target) {
        rc = cli_usage_error(cmd, "--tigerbench, --baseline and --target are required");
        goto out;
    }
    if (val_tigerbench_read(file, &tb, &err) ||
        cli_calib_base(base, tb, basearch, ov, bcfg, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    const val_tigerbench_arch *ba, *ta;
    if (val_tigerbench_arch_get(tb, basearch, &ba, &err) ||
        val_tigerbench_arch_get(tb, target, &ta, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    val_series_opts so = {rows0, 1e5};
    val_calib_point bpts[256];
    size_t nb;
    if (val_calib_points(tb, basearch, &so, bpts, 256, &nb, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    long levels[256];
    size_t nl = val_tigerbench_concurrencies(ba, VAL_TIGERBENCH_PHASE_ROWS, levels, 256);
    if (nl == 0) {
        rc = cli_usage_error(cmd, "%s: the baseline %s has no phase throughput rows", file, basearch);
        goto out;
    }
    val_calib_opts o = {seed, 2, 150, 0.25, 1e-3, 2, NULL, NULL};
    val_calib_param bp[32];
    size_t nbp = 0;
    if (recal) {
        double obj;
        unsigned it;
        if (cli_calib_params(NULL, bcfg, bp, 32, &nbp, &err) ||
            val_calib_fit(bcfg, NULL, 0, bp, nbp, bpts, nb, &o, &obj, &it, &err)) {
            rc = cli_fail(cmd, &err);
            goto out;
        }
    }
    /* target config: the (re)calibrated baseline with the target's backends */
    if (cli_calib_base(base, tb, target, ov, tcfg, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    for (size_t i = 0; i < nbp; i++) {
        char line[128];
        snprintf(line, sizeof line, "%.63s=%.12g", bp[i].key, bp[i].value);
        if (sim_cfg_set(tcfg, line, &err)) {
            rc = cli_fail(cmd, &err);
            goto out;
        }
    }
    /* light-load fit of the target's own parameters */
    long ck[256];
    size_t nk = val_tigerbench_concurrencies(ta, VAL_TIGERBENCH_KIND_ROWS, ck, 256);
    val_calib_param tp[4];
    size_t ntp = 0;
    FILE *nf = fmt == SIM_FMT_TEXT ? stdout : stderr;
    if (nk > 0) {
        val_calib_point lp;
        memset(&lp, 0, sizeof lp);
        lp.concurrency = ck[0];
        lp.weight = 1;
        for (int i = 0; i < TF_NPHASES; i++)
            lp.thr[i] = NAN;
        int any = 0;
        for (int i = 0; i < TF_NKINDS; i++) {
            const val_tigerbench_kind *k = val_tigerbench_kind_get(ta, kind_rows[i], ck[0]);
            lp.kind[i] = k ? k->mean : NAN;
            any |= k != NULL;
        }
        if (val_calib_series_state(tb, target, ck[0], &so, &lp.holds_rows, &lp.goodies, &err)) {
            rc = cli_fail(cmd, &err);
            goto out;
        }
        size_t own = 0;
        if (!strcmp(ta->accounting, "tb")) {
            val_calib_param *q = &tp[ntp + own++];
            memset(q, 0, sizeof *q);
            snprintf(q->key, sizeof q->key, "tigerbeetle.batch_base");
            snprintf(q->tmpl, sizeof q->tmpl, "gamma(shape=8, mean=%%.9g)");
            q->value = 1.6e-3;
            q->lo = 1e-5;
            q->hi = 0.1;
        }
        if (!strcmp(ta->payments, "redis")) {
            val_calib_param *q = &tp[ntp + own++];
            memset(q, 0, sizeof *q);
            snprintf(q->key, sizeof q->key, "redis.loop_cpu");
            if (cli_calib_value(tcfg, q->key, &q->value, &err)) {
                rc = cli_fail(cmd, &err);
                goto out;
            }
            q->lo = 1e-6;
            q->hi = 5e-3;
        }
        if (any && own > 0) {
            /* fit only the target's own parameters */
            val_calib_opts lo = o;
            lo.kind_weight = 1;
            lo.max_iter = 60;
            lo.reps = 4;
            double obj;
            unsigned it;
            if (val_calib_fit(tcfg, NULL, 0, tp + ntp, own, &lp, 1, &lo, &obj, &it, &err)) {
                rc = cli_fail(cmd, &err);
                goto out;
            }
            for (size_t i = 0; i < own; i++) {
                fprintf(nf, "light-load fit of %s at concurrency %ld: %s = ", target, ck[0],
                        tp[ntp + i].key);
                fprintf(nf, tp[ntp + i].tmpl[0] ? tp[ntp + i].tmpl : "%.6g", tp[ntp + i].value);
                fputc('\n', nf);
            }
            ntp += own;
        }
    } else {
        fprintf(nf, "note: %s has no operation timings in %s: the target's own parameters keep "
                    "their configured values\n", target, file);
    }
    /* simulate the target at every baseline concurrency */
    val_calib_point tpts[256];
    for (size_t i = 0; i < nl; i++) {
        memset(&tpts[i], 0, sizeof tpts[i]);
        tpts[i].concurrency = levels[i];
        tpts[i].weight = 1;
        for (int k = 0; k < TF_NPHASES; k++) {
            const val_tigerbench_phase *ph = val_tigerbench_phase_get(ta, tf_phase_names[k], levels[i]);
            tpts[i].thr[k] = ph ? ph->x_mean : NAN;
        }
        for (int k = 0; k < TF_NKINDS; k++)
            tpts[i].kind[k] = NAN;
        if (val_calib_series_state(tb, target, levels[i], &so, &tpts[i].holds_rows,
                                   &tpts[i].goodies, &err)) {
            rc = cli_fail(cmd, &err);
            goto out;
        }
    }
    val_calib_sim sims[256];
    val_calib_opts so2 = o;
    so2.reps = (unsigned)reps;
    if (val_calib_simulate(tcfg, NULL, 0, tp, ntp, tpts, nl, &so2, sims, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    sim_table *t = sim_table_new(NULL);
    int cph = sim_table_col(t, "phase", NULL), cc = sim_table_col(t, "concurrency", "%.0f");
    int cx = sim_table_col(t, "throughput", "%.1f"), clo = sim_table_col(t, "ci_low", "%.1f");
    int chi = sim_table_col(t, "ci_high", "%.1f");
    double ms = 0, ma = 0;
    int n = 0, na = 0;
    long c0 = val_tigerbench_concurrencies(ta, VAL_TIGERBENCH_KIND_ROWS, ck, 1) ? ck[0] : -1;
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        double sp = c0 > 0 ? amdahl_speedup(ba, ta, ph, c0) : NAN;
        for (size_t i = 0; i < nl; i++) {
            sim_table_row(t);
            sim_table_str(t, cph, tf_phase_names[ph]);
            sim_table_num(t, cc, (double)levels[i]);
            double x = sims[i].thr[ph], h = sims[i].thr_ci[ph];
            sim_table_num(t, cx, x);
            sim_table_num(t, clo, x - h);
            sim_table_num(t, chi, x + h);
            double meas = tpts[i].thr[ph];
            if (!isnan(meas)) {
                double e = 100 * (x - meas) / meas;
                sim_table_set_num(t, "measured", meas);
                sim_table_set_num(t, "error_pct", e);
                if (levels[i] >= 5) {
                    ms += fabs(e);
                    n++;
                }
                const val_tigerbench_phase *bph =
                    val_tigerbench_phase_get(ba, tf_phase_names[ph], levels[i]);
                if (bph && !isnan(sp)) {
                    double am = bph->x_mean * sp;
                    double ea = 100 * (am - meas) / meas;
                    sim_table_set_num(t, "amdahl", am);
                    sim_table_set_num(t, "amdahl_error_pct", ea);
                    if (levels[i] >= 5) {
                        ma += fabs(ea);
                        na++;
                    }
                }
            }
        }
    }
    if (fmt == SIM_FMT_TEXT)
        printf("\nprediction of %s from %s (%s), %ld replications per point\n\n", target, basearch,
               base ? base : "embedded calibration", reps);
    if (sim_table_print(t, fmt, stdout))
        rc = EXIT_FAIL;
    fflush(stdout);
    if (dbpath) {
        char title[256];
        snprintf(title, sizeof title, "predict %s from %s", target, basearch);
        rep_manifest m = {"predict", title, sim_cfg_text(tcfg), sim_cfg_overrides(tcfg), seed,
                          reps, tfsim_build_rev, tfsim_build_flags, sim_cfg_hash(tcfg)};
        if (cli_store_run(cmd, dbpath, &m, t))
            rc = EXIT_FAIL;
    }
    sim_table_free(t);
    if (n)
        fprintf(nf, "%sMAPE at concurrency >= 5: simulation %.1f%% (%d points)", fmt == SIM_FMT_TEXT ? "\n" : "",
                ms / n, n);
    if (na)
        fprintf(nf, ", Amdahl-style scaling %.1f%% (%d points)", ma / na, na);
    if (n)
        fputc('\n', nf);
    else
        fprintf(nf, "%s%s's measured throughput is not in %s: no errors to report\n",
                fmt == SIM_FMT_TEXT ? "\n" : "", target, file);
out:
    val_tigerbench_free(tb);
    sim_cfg_free(ov);
    sim_cfg_free(bcfg);
    sim_cfg_free(tcfg);
    return rc;
}
