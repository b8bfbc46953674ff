/* tfsim fit PROBE-HTTP.csv: the HTTP layer's loop costs from a `tfsim
 * probe http` measurement (validate/val_http).  cmd_fit sends a file whose
 * header starts with "latency_ms," here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "sim/sim_afile.h"
#include "sim/sim_cfg.h"
#include "sim/sim_stats.h"
#include "validate/val_calib.h"
#include "validate/val_http.h"
#include "validate/val_probe_http.h"

#define MAX_POINTS 512

int cli_fit_http_file(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : NULL;
    if (!f)
        return 0;
    char line[512];
    int yes = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n' || line[0] == '\r')
            continue;
        yes = !strncmp(line, "latency_ms,", 11);
        break;
    }
    fclose(f);
    return yes;
}

static void progress(unsigned iter, double objective, void *ctx)
{
    (void)ctx;
    if (iter % 10 == 0)
        fprintf(stderr, "tfsim fit: iteration %u, objective %.4g\n", iter, objective);
}

static int write_fragment(const char *path, const char *data, const val_calib_param *params,
                          size_t np, const val_http_point *pts, const val_http_sim *sims,
                          size_t npts, sim_err *err)
{
    sim_afile a;
    if (sim_afile_open(&a, path, err))
        return err->code;
    val_http_errs e;
    val_http_mape(pts, sims, npts, 1, &e);
    fprintf(a.f, "; fitted by tfsim fit from %s (probe http): client CPU per request MAPE "
                 "%.1f%%, throughput MAPE %.1f%% over the fitted points\n", data, e.ccpu, e.thr);
    /* one section at a time, in the order of first appearance (a config
     * file gives each section once: --fit may list them interleaved) */
    for (size_t i = 0; i < np; i++) {
        int first = 1;
        for (size_t j = 0; j < i && first; j++)
            first = !val_calib_same_section(params[j].key, params[i].key);
        if (!first)
            continue;
        size_t sl = val_calib_section_len(params[i].key);
        fprintf(a.f, "\n[%.*s]\n", (int)sl, params[i].key);
        for (size_t j = i; j < np; j++) {
            if (!val_calib_same_section(params[j].key, params[i].key))
                continue;
            char val[160];
            if (val_calib_param_text(&params[j], val, sizeof val, err)) {
                sim_afile_abort(&a);
                return err->code;
            }
            if (!strncmp(params[j].key, "server.", 7))
                fprintf(a.f, "; the stand-in server's, not TigerFans': a scenario keeps its own\n");
            const char *eq = strchr(val, '='); /* "section.key=value" */
            fprintf(a.f, "%s = %s\n", params[j].key + sl + 1, eq ? eq + 1 : val);
        }
    }
    return sim_afile_commit(&a, err);
}

int cli_fit_http(int argc, char **argv)
{
    const char *cmd = "fit";
    const char *path = NULL, *config = NULL, *config_out = NULL, *keys = NULL;
    sim_format fmt = SIM_FMT_TEXT;
    double fit_lat[64];
    size_t nfit = 0;
    val_http_opts o;
    val_http_opts_init(&o);
    sim_cfg *ov = sim_cfg_new();
    sim_err err = {0};
    int rc = EXIT_OK;
    for (int i = 1; i < argc && rc == EXIT_OK; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        char flag[32] = "";
        if (a[0] == '-' && a[1] == '-' && a[2]) {
            const char *eq = strchr(a, '=');
            size_t fl = eq ? (size_t)(eq - a) : strlen(a);
            if (fl >= sizeof flag) {
                rc = cli_usage_error(cmd, "unknown option '%s'", a);
                break;
            }
            memcpy(flag, a, fl);
            flag[fl] = '\0';
            if (eq)
                v = eq + 1;
            else if (i + 1 < argc)
                v = argv[++i];
            else {
                rc = cli_no_value(cmd, flag);
                break;
            }
        } else if (a[0] == '-' && a[1]) {
            rc = cli_usage_error(cmd, "unknown option '%s'", a);
            break;
        }
        if (!flag[0]) {
            if (path)
                rc = cli_usage_error(cmd, "one measurement file only (got '%s' and '%s')", path, a);
            path = a;
        } else if (!strcmp(flag, "--config")) {
            config = v;
        } else if (!strcmp(flag, "--config-out")) {
            config_out = v;
        } else if (!strcmp(flag, "--fit")) {
            keys = v;
        } else if (!strcmp(flag, "--set")) {
            if (sim_cfg_set(ov, v, &err))
                rc = cli_fail(cmd, &err);
        } else if (!strcmp(flag, "--format")) {
            if (cli_parse_format(cmd, v, &fmt))
                rc = EXIT_INPUT;
        } else if (!strcmp(flag, "--fit-latency")) {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", v);
            char *save = NULL;
            for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                char *end;
                double x = strtod(t, &end);
                if (*end || end == t || !(x >= 0) || nfit == 64) {
                    rc = cli_usage_error(cmd, "--fit-latency: '%s' is not a list of latencies "
                                         "in ms (e.g. 2 or 0.5,2)", v);
                    break;
                }
                fit_lat[nfit++] = x;
            }
        } else if (!strcmp(flag, "--reps")) {
            long n;
            if (cli_parse_long(cmd, "--reps", v, 1, 1000, &n))
                rc = EXIT_INPUT;
            o.reps = (unsigned)n;
        } else if (!strcmp(flag, "--iter")) {
            long n;
            if (cli_parse_long(cmd, "--iter", v, 0, 100000, &n))
                rc = EXIT_INPUT;
            o.max_iter = (unsigned)n;
        } else if (!strcmp(flag, "--seed")) {
            unsigned long long s;
            if (cli_parse_u64(cmd, "--seed", v, &s))
                rc = EXIT_INPUT;
            o.seed = s;
        } else if (!strcmp(flag, "--thr-weight")) {
            char *end;
            double w = strtod(v, &end);
            if (*end || end == v || !(w >= 0 && w <= 100))
                rc = cli_usage_error(cmd, "--thr-weight: '%s' is not a weight in [0, 100]", v);
            o.thr_weight = w;
        } else {
            rc = cli_usage_error(cmd, "unknown option '%s'", flag);
        }
    }
    if (rc != EXIT_OK) {
        sim_cfg_free(ov);
        return rc;
    }

    val_probe_http_result res;
    val_probe_http_result_init(&res);
    val_http_point *pts = calloc(MAX_POINTS, sizeof *pts);
    val_http_sim *sims = calloc(MAX_POINTS, sizeof *sims);
    sim_cfg *base = sim_cfg_new();
    val_calib_param params[VAL_CALIB_MAX_PARAMS];
    size_t np = 0, npts = 0;
    if (!pts || !sims)
        abort();
    /* the stand-in: stub architecture, the probe host's cores (both
     * processes ran here), its spin per request (the file's), then the
     * user's config and --set */
    char buf[128], spin[96] = "architecture.stub_cpu=0";
    snprintf(buf, sizeof buf, "host.cores=%ld", sysconf(_SC_NPROCESSORS_ONLN) > 0
                                                    ? sysconf(_SC_NPROCESSORS_ONLN) : 1);
    if (val_probe_http_read(path, &res, &err) == SIM_OK)
        snprintf(spin, sizeof spin, "architecture.stub_cpu=%.9g", res.server_spin);
    else
        rc = cli_fail(cmd, &err);
    if (rc == EXIT_OK &&
        (val_http_points(&res, fit_lat, nfit, pts, MAX_POINTS, &npts, &err) ||
        sim_cfg_set(base, "model.type=tigerfans", &err) || sim_cfg_set(base, buf, &err) ||
        sim_cfg_set(base, spin, &err) ||
        (config && sim_cfg_load(base, config, &err)) ||
        sim_cfg_set(base, "architecture.accounting=stub", &err) ||
        sim_cfg_set(base, "architecture.payments=stub", &err))) {
        rc = cli_fail(cmd, &err);
    }
    for (size_t i = 0; rc == EXIT_OK && i < sim_cfg_count(ov); i++) {
        const sim_cfg_entry *e = sim_cfg_at(ov, i);
        char line[2048];
        snprintf(line, sizeof line, "%s.%s=%s", e->section, e->key, e->value);
        if (sim_cfg_set(base, line, &err))
            rc = cli_fail(cmd, &err);
    }
    if (rc == EXIT_OK) {
        char list[512] = "";
        for (size_t i = 0; !keys && val_http_default_keys[i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "",
                     val_http_default_keys[i]);
        if (val_calib_params(keys ? keys : list, base, params, VAL_CALIB_MAX_PARAMS, &np, &err))
            rc = cli_fail(cmd, &err);
    }
    double fval = NAN;
    unsigned iters = 0;
    if (rc == EXIT_OK) {
        fprintf(stderr, "tfsim fit: %zu points of %s (%s), %zu parameters\n", npts, path,
                res.versions[0] ? res.versions : "versions unknown", np);
        if (res.server_spin > 0)
            fprintf(stderr, "tfsim fit: the stand-in spun %g ms per request before its await "
                            "(the file's preamble): simulated as architecture.stub_cpu, on top "
                            "of server.cpu_request (the framework's)\n", res.server_spin * 1e3);
        if (cli_stderr_tty())
            o.progress = progress;
        if ((o.max_iter > 0 && val_http_fit(base, params, np, pts, npts, &o, &fval, &iters, &err)) ||
            val_http_simulate(base, params, np, pts, npts, &o, sims, &err))
            rc = cli_fail(cmd, &err);
    }
    if (rc == EXIT_OK) {
        sim_table *tp = sim_table_new("fitted parameters");
        int ck = sim_table_col(tp, "parameter", NULL), cv = sim_table_col(tp, "value", "%.4g");
        for (size_t i = 0; i < np; i++) {
            sim_table_row(tp);
            sim_table_str(tp, ck, params[i].key);
            sim_table_num(tp, cv, params[i].value);
        }
        sim_table *tt = val_http_table(pts, sims, npts);
        if (sim_table_print(tp, fmt, stdout) || (fmt == SIM_FMT_TEXT && fputc('\n', stdout) < 0) ||
            sim_table_print(tt, fmt, stdout))
            rc = cli_check_stdout(cmd);
        sim_table_free(tp);
        sim_table_free(tt);
        for (int which = 1; which >= 0 && rc == EXIT_OK; which--) {
            val_http_errs e;
            val_http_mape(pts, sims, npts, which, &e);
            if (isfinite(e.thr))
                fprintf(stderr, "tfsim fit: %s points: client CPU per request MAPE %.1f%% (worst "
                        "%.1f%%), throughput MAPE %.1f%% (worst %.1f%%), %ld of %ld throughputs "
                        "within %g%%\n",
                        which ? "fitted" : "held-out", e.ccpu, e.ccpu_max, e.thr, e.thr_max,
                        e.within, e.n, SIM_MAPE_WITHIN);
        }
        if (o.max_iter > 0)
            fprintf(stderr, "tfsim fit: %u iterations, objective %.4g\n", iters, fval);
    }
    if (rc == EXIT_OK && config_out) {
        if (write_fragment(config_out, path, params, np, pts, sims, npts, &err))
            rc = cli_fail(cmd, &err);
        else
            fprintf(stderr, "tfsim fit: config fragment in %s\n", config_out);
    }
    sim_cfg_free(base);
    sim_cfg_free(ov);
    free(pts);
    free(sims);
    val_probe_http_result_fini(&res);
    return rc;
}
