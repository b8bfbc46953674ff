/* tfsim amdahl: the seed's Amdahl analysis, the same from measured
 * TigerBench data, operational-law checks, and USL/Amdahl fits of
 * throughput versus concurrency.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/sim_cfg.h"
#include "validate/val_amdahl.h"
#include "validate/val_laws.h"
#include "validate/val_scaling.h"
#include "validate/val_tigerbench.h"

const char cmd_amdahl_usage[] =
    "usage: tfsim amdahl CONFIG [--set SECTION.KEY=VALUE]... [OPTIONS]\n"
    "       tfsim amdahl --tigerbench FILE --baseline ARCH --target ARCH [--concurrency N]\n"
    "                    [OPTIONS]\n"
    "       tfsim amdahl --tigerbench FILE --arch ARCH --usl [--phase PHASE] [--gaps] [OPTIONS]\n"
    "\n"
    "Amdahl's-law analysis of a change of architecture, as in the seed document, with\n"
    "consistency checks from the operational laws (utilisation law, Little's law,\n"
    "asymptotic bounds), and Universal Scalability Law fits.\n"
    "\n"
    "1. CONFIG: component timings of a baseline and a target (see\n"
    "   configs/analysis/seed.ini, the seed's own inputs).  Prints per component the\n"
    "   share P, speedup S and predicted speedup, the combined prediction, component\n"
    "   and throughput speedups, the ceiling 1/(serial/request time) and the total;\n"
    "   with [amdahl] rounding = seed, the seed's hand arithmetic (rounded figures)\n"
    "   next to full precision.  Then the law findings, e.g. \"5 ms serial per\n"
    "   request on 1 worker caps throughput at 200/s, but 861/s was measured\".\n"
    "2. --tigerbench FILE --baseline A --target B: the same analysis from a\n"
    "   TigerBench CSV at one concurrency: components accounting = kind\n"
    "   accounting.hold, sessions = kind paymentsession.save; serial time inferred\n"
    "   as the seed does (N/X(checkout) - components).  Column `measured` reads the\n"
    "   kinds' means (correct); `seed_reading` reads the walltime column, which holds\n"
    "   the standard deviation (what the seed's table read); a note says which\n"
    "   inputs differ and by how much.\n"
    "3. --tigerbench FILE --arch A --usl: per phase and concurrency: measured\n"
    "   throughput (mean, sd over repetitions), amdahl_pred (the seed's method from\n"
    "   the N=1 point alone), amdahl_fit and usl_fit (least squares over all N,\n"
    "   sigma, kappa >= 0), r_ms = N/X and kinds_ms (sum of the phase's kind\n"
    "   timings); the fitted parameters with standard errors, R^2, AICc, the peak\n"
    "   N* = sqrt((1-sigma)/kappa) and X(N*), and which model fits better; then the\n"
    "   law findings at every point.  With --simulate MODEL.ini, the `simulated`\n"
    "   column holds the TigerFans model's throughput (with its CI half-width) at\n"
    "   the same points, each against its place in the benchmark series.\n"
    "\n"
    "options:\n"
    "  --set SECTION.KEY=VALUE  override a config value (mode 1; repeatable)\n"
    "  --tigerbench FILE        TigerBench CSV (DESIGN.md section 3)\n"
    "  --baseline ARCH          baseline architecture, e.g. pg_pg (mode 2)\n"
    "  --target ARCH            target architecture, e.g. tb_redis (mode 2)\n"
    "  --concurrency N          concurrency whose rows are used (mode 2; default 1)\n"
    "  --arch ARCH              architecture to fit (mode 3)\n"
    "  --usl                    select mode 3\n"
    "  --simulate MODEL.ini     mode 3: also simulate every point with this tigerfans\n"
    "                           config (e.g. configs/tigerfans/base.ini)\n"
    "  --phase PHASE            only this phase (mode 3; default: every phase)\n"
    "  --gaps                   also list Little's-law gaps (time outside the timed\n"
    "                           awaits) at every point (mode 3)\n"
    "  --workers W              event-loop processes for the laws (modes 2, 3; default 1)\n"
    "  --tolerance T            relative tolerance of the law checks (modes 2, 3;\n"
    "                           default 0.10; mode 1 reads [laws] tolerance)\n"
    "  --format text|csv|json   output format (default text)\n"
    "  --table NAME             which table to print: amdahl or findings (modes 1, 2),\n"
    "                           points, fits or findings (mode 3).  Text prints all\n"
    "                           tables unless --table is given; csv and json print\n"
    "                           one (default: the first)\n"
    "\n"
    "examples:\n"
    "  tfsim amdahl configs/analysis/seed.ini\n"
    "  tfsim amdahl configs/analysis/seed.ini --set target.serial=1ms --table findings\n"
    "  tfsim amdahl --tigerbench calibration.csv --baseline pg_pg --target tb_redis \\\n"
    "      --concurrency 1\n"
    "  tfsim amdahl --tigerbench calibration.csv --arch pg_pg --usl\n"
    "  tfsim amdahl --tigerbench calibration.csv --arch pg_pg --usl --table fits --format csv\n"
    "  tfsim amdahl --tigerbench calibration.csv --arch pg_pg --usl \\\n"
    "      --simulate configs/tigerfans/base.ini --table points\n"
    "\n"
    "exit status: 0 (law findings do not change it), 1 when a fit does not converge,\n"
    "2 for bad input (missing or non-positive timings, too few points to fit, an\n"
    "unknown architecture or phase, a malformed CSV: the message names file:line: key).\n";

#include "cli/cli_calib.h"
#include "validate/val_calib.h"

#define CMD "amdahl"
#define MAX_SETS 64

typedef struct opts {
    const char *config, *tigerbench, *baseline, *target, *arch, *phase, *table, *simulate;
    const char *sets[MAX_SETS];
    size_t nsets;
    long concurrency, workers;
    double tolerance;
    int usl, gaps, workers_given, tolerance_given;
    sim_format fmt;
} opts;

/* Value of "--name value" or "--name=value"; advances *i.  NULL when the
 * argument is not this flag; sets *missing when the value is absent. */
static const char *flag_value(const char *name, int argc, char **argv, int *i, int *missing)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n))
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

static int parse(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->concurrency = 1;
    o->workers = 1;
    o->tolerance = 0.10;
    o->fmt = SIM_FMT_TEXT;
    for (int i = 1; i < argc; i++) {
        int missing = 0;
        const char *v;
        const char *a = argv[i];
#define FLAG(name) ((v = flag_value(name, argc, argv, &i, &missing)) != NULL || missing)
        if (FLAG("--set")) {
            if (missing)
                return cli_usage_error(CMD, "--set: missing SECTION.KEY=VALUE");
            if (o->nsets == MAX_SETS)
                return cli_usage_error(CMD, "--set: more than %d overrides", MAX_SETS);
            o->sets[o->nsets++] = v;
        } else if (FLAG("--tigerbench")) {
            o->tigerbench = v;
        } else if (FLAG("--baseline")) {
            o->baseline = v;
        } else if (FLAG("--target")) {
            o->target = v;
        } else if (FLAG("--arch")) {
            o->arch = v;
        } else if (FLAG("--phase")) {
            o->phase = v;
        } else if (FLAG("--table")) {
            o->table = v;
        } else if (FLAG("--simulate")) {
            o->simulate = v;
        } else if (FLAG("--concurrency")) {
            if (cli_parse_long(CMD, "--concurrency", v, 1, 10000000L, &o->concurrency))
                return EXIT_INPUT;
        } else if (FLAG("--workers")) {
            if (cli_parse_long(CMD, "--workers", v, 1, 1024, &o->workers))
                return EXIT_INPUT;
            o->workers_given = 1;
        } else if (FLAG("--tolerance")) {
            const char *why;
            if (!v || sim_parse_double(v, &o->tolerance, &why) || o->tolerance < 0 ||
                o->tolerance > 1)
                return cli_usage_error(CMD, "--tolerance: expected a number in [0, 1], got '%s'",
                                       v ? v : "");
            o->tolerance_given = 1;
        } else if (FLAG("--format")) {
            if (cli_parse_format(CMD, v, &o->fmt))
                return EXIT_INPUT;
        } else if (!strcmp(a, "--usl")) {
            o->usl = 1;
        } else if (!strcmp(a, "--gaps")) {
            o->gaps = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error(CMD, "unknown option '%s'", a);
        } else if (!o->config) {
            o->config = a;
        } else {
            return cli_usage_error(CMD, "unexpected argument '%s'", a);
        }
        if (missing)
            return cli_usage_error(CMD, "%s: missing value", a);
#undef FLAG
    }
    /* modes and their flags */
    if (o->usl || o->arch) {
        if (!o->usl)
            return cli_usage_error(CMD, "--arch selects the USL analysis: add --usl");
        if (!o->tigerbench || !o->arch)
            return cli_usage_error(CMD, "--usl needs --tigerbench FILE and --arch ARCH");
        if (o->config || o->baseline || o->target || o->nsets)
            return cli_usage_error(CMD, "--usl takes neither CONFIG, --set, --baseline nor "
                                        "--target");
    } else if (o->tigerbench) {
        if (!o->baseline || !o->target)
            return cli_usage_error(CMD, "--tigerbench needs --baseline ARCH and --target ARCH "
                                        "(or --arch ARCH --usl)");
        if (o->config || o->nsets)
            return cli_usage_error(CMD, "give either CONFIG or --tigerbench, not both");
    } else {
        if (!o->config)
            return cli_usage_error(CMD, "missing CONFIG (or --tigerbench FILE)");
        if (o->baseline || o->target || o->phase || o->gaps)
            return cli_usage_error(CMD, "--baseline, --target, --phase and --gaps need "
                                        "--tigerbench");
        if (o->workers_given || o->tolerance_given)
            return cli_usage_error(CMD, "with CONFIG, set [laws] workers and tolerance in the "
                                        "file or with --set");
    }
    if (!o->usl && (o->phase || o->gaps || o->simulate))
        return cli_usage_error(CMD, "--phase, --gaps and --simulate need --usl");
    if (o->table) {
        int ok = o->usl ? !strcmp(o->table, "points") || !strcmp(o->table, "fits") ||
                              !strcmp(o->table, "findings")
                        : !strcmp(o->table, "amdahl") || !strcmp(o->table, "findings");
        if (!ok)
            return cli_usage_error(CMD, "--table: '%s' is not one of %s", o->table,
                                   o->usl ? "points, fits, findings" : "amdahl, findings");
    }
    return 0;
}

/* Print table `name` if it was asked for: text prints every table unless
 * --table names one; csv/json print the named one or the default. */
static int wanted(const opts *o, const char *name, const char *def)
{
    if (o->table)
        return !strcmp(o->table, name);
    return o->fmt == SIM_FMT_TEXT || !strcmp(name, def);
}

/* Notes go to stdout under text output, to stderr otherwise. */
static FILE *note_out(const opts *o) { return o->fmt == SIM_FMT_TEXT ? stdout : stderr; }

static int print_findings(const opts *o, const val_laws_findings *f, const char *def)
{
    if (!wanted(o, "findings", def))
        return 0;
    if (o->fmt != SIM_FMT_TEXT) {
        sim_table *t = sim_table_new(NULL);
        val_laws_table(f, t);
        int rc = sim_table_print(t, o->fmt, stdout);
        sim_table_free(t);
        return rc;
    }
    printf("\nfindings (operational laws): %zu violation%s, %zu gap%s\n",
           val_laws_count(f, VAL_LAWS_VIOLATION),
           val_laws_count(f, VAL_LAWS_VIOLATION) == 1 ? "" : "s", val_laws_count(f, VAL_LAWS_GAP),
           val_laws_count(f, VAL_LAWS_GAP) == 1 ? "" : "s");
    for (size_t i = 0; i < f->n; i++)
        printf("  [%s] %s: %s\n", f->v[i].severity == VAL_LAWS_VIOLATION ? "violation" : "gap",
               f->v[i].subject, f->v[i].message);
    return 0;
}

static int print_table(const opts *o, sim_table *t)
{
    int rc = sim_table_print(t, o->fmt, stdout);
    sim_table_free(t);
    return rc;
}

static int finish(int rc)
{
    if (rc || fflush(stdout)) {
        cli_check_stdout(CMD);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

/* ---- mode 1: config ---- */

static int run_config(const opts *o)
{
    sim_err err;
    sim_err_clear(&err);
    sim_cfg *c = sim_cfg_new();
    val_amdahl_in in;
    int rc = sim_cfg_load(c, o->config, &err);
    for (size_t i = 0; !rc && i < o->nsets; i++)
        rc = sim_cfg_set(c, o->sets[i], &err);
    if (!rc)
        rc = val_amdahl_from_cfg(c, o->config, &in, &err);
    sim_cfg_free(c);
    if (rc)
        return cli_fail(CMD, &err);

    val_amdahl_out seed_out, exact_out;
    val_amdahl_in exact_in = in;
    exact_in.rounding = VAL_AMDAHL_EXACT;
    if (val_amdahl_compute(&in, &seed_out, &err) ||
        val_amdahl_compute(&exact_in, &exact_out, &err)) {
        sim_err_prefix(&err, "%s: ", o->config);
        return cli_fail(CMD, &err);
    }
    int seed = in.rounding == VAL_AMDAHL_SEED;
    int out_rc = 0;
    if (wanted(o, "amdahl", "amdahl")) {
        char title[512];
        snprintf(title, sizeof title, "Amdahl analysis: %s -> %s (%s; %s arithmetic)",
                 in.base_name, in.target_name, o->config,
                 seed ? "the seed's rounded" : "full-precision");
        sim_table *t = sim_table_new(title);
        const val_amdahl_in *ins[2] = {&in, &exact_in};
        const val_amdahl_out *outs[2] = {&seed_out, &exact_out};
        const char *cols[2] = {seed ? "seed" : "value", "exact"};
        val_amdahl_table(ins, outs, cols, seed ? 2 : 1, NULL, t);
        out_rc |= print_table(o, t);
        FILE *n = note_out(o);
        if (o->fmt == SIM_FMT_TEXT)
            fputc('\n', n);
        if (exact_out.serial_fraction < 0.01)
            fprintf(n,
                    "note: the components make up the whole baseline time (1 - sum P = %.3g), so "
                    "the combined prediction (%.3g x) is the component speedup T/T' (%.3g x) by "
                    "construction: their agreement is an identity, not a validation.\n",
                    exact_out.serial_fraction, exact_out.combined, exact_out.component_speedup);
        if (seed)
            for (size_t i = 0; i < in.ncomp; i++)
                if (fabs(seed_out.predicted[i] - exact_out.predicted[i]) > 0.005)
                    fprintf(n,
                            "note: %s predicted speedup: %.2f x with the seed's rounded "
                            "intermediates, %.4g x in full precision.\n",
                            in.comp[i].name, seed_out.predicted[i], exact_out.predicted[i]);
        if (!isnan(exact_out.throughput_speedup) &&
            exact_out.throughput_speedup > exact_out.combined * 1.05) {
            fprintf(n,
                    "note: the measured throughput speedup (%.3g x) exceeds Amdahl's combined "
                    "prediction from the component timings (%.3g x)",
                    exact_out.throughput_speedup, exact_out.combined);
            if (!isnan(exact_out.combined_serial))
                fprintf(n, ", and with the serial time counted in the request time Amdahl allows "
                           "only %.3g x",
                        exact_out.combined_serial);
            fprintf(n, ": these timings do not describe what limits throughput.\n");
        }
    }
    val_laws_findings f;
    val_laws_findings_init(&f);
    val_amdahl_laws(&exact_in, &f);
    out_rc |= print_findings(o, &f, "amdahl");
    val_laws_findings_fini(&f);
    return finish(out_rc);
}

/* ---- mode 2: from TigerBench data ---- */

static int run_compare(const opts *o)
{
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench *tb;
    if (val_tigerbench_read(o->tigerbench, &tb, &err))
        return cli_fail(CMD, &err);
    val_amdahl_in mean_in, sd_in;
    val_amdahl_out mean_out, sd_out;
    int rc = val_amdahl_from_tigerbench(tb, o->baseline, o->target, o->concurrency,
                                        VAL_AMDAHL_READ_MEAN, &mean_in, &err);
    if (!rc)
        rc = val_amdahl_from_tigerbench(tb, o->baseline, o->target, o->concurrency,
                                        VAL_AMDAHL_READ_SD, &sd_in, &err);
    val_tigerbench_free(tb);
    if (rc)
        return cli_fail(CMD, &err);
    mean_in.workers = sd_in.workers = (int)o->workers;
    mean_in.tolerance = sd_in.tolerance = o->tolerance;
    if (val_amdahl_compute(&mean_in, &mean_out, &err) ||
        val_amdahl_compute(&sd_in, &sd_out, &err)) {
        sim_err_prefix(&err, "%s: ", o->tigerbench);
        return cli_fail(CMD, &err);
    }
    int out_rc = 0;
    if (wanted(o, "amdahl", "amdahl")) {
        char title[512];
        snprintf(title, sizeof title,
                 "Amdahl analysis from %s: %s -> %s at concurrency %ld (full precision)",
                 o->tigerbench, o->baseline, o->target, o->concurrency);
        sim_table *t = sim_table_new(title);
        const val_amdahl_in *ins[2] = {&mean_in, &sd_in};
        const val_amdahl_out *outs[2] = {&mean_out, &sd_out};
        const char *cols[2] = {"measured", "seed_reading"};
        val_amdahl_table(ins, outs, cols, 2, "seed/measured", t);
        out_rc |= print_table(o, t);
        FILE *n = note_out(o);
        if (o->fmt == SIM_FMT_TEXT)
            fputc('\n', n);
        fprintf(n, "note: `measured` reads the kind timings' means; `seed_reading` reads the "
                   "walltime column, which for kind rows holds the standard deviation, as the "
                   "seed's table did.  The inputs differ:\n");
        for (size_t i = 0; i < mean_in.ncomp; i++) {
            const val_amdahl_comp *m = &mean_in.comp[i], *s = &sd_in.comp[i];
            fprintf(n, "  %s: %s %.3f ms (sd column) vs %.3f ms (mean), %.3g x; %s %.3f ms vs "
                       "%.3f ms, %.3g x\n",
                    m->name, mean_in.base_name, s->base * 1e3, m->base * 1e3, s->base / m->base,
                    mean_in.target_name, s->target * 1e3, m->target * 1e3,
                    s->target / m->target);
        }
        fprintf(n, "  serial (N/X(checkout) - components): %.3f ms vs %.3f ms\n",
                sd_in.base_serial * 1e3, mean_in.base_serial * 1e3);
        if (isnan(mean_in.target_x))
            fprintf(n, "note: %s has no checkout rows at concurrency %ld in the file: its "
                       "throughput is unknown, and its serial time is taken from %s.\n",
                    o->target, o->concurrency, o->baseline);
    }
    val_laws_findings f;
    val_laws_findings_init(&f);
    val_amdahl_laws(&mean_in, &f);
    out_rc |= print_findings(o, &f, "amdahl");
    val_laws_findings_fini(&f);
    return finish(out_rc);
}

/* ---- mode 3: USL ---- */

/* Fill the simulated column of every phase from the model in o->simulate. */
static int simulate_points(const opts *o, const val_tigerbench *tb, val_scaling *sc,
                           const char *const *names, size_t np, sim_err *err)
{
    sim_cfg *cfg = sim_cfg_new();
    val_calib_point pts[256];
    val_calib_sim sims[256];
    size_t n = 0;
    val_series_opts so = {0, 1e5};
    val_series ser;
    val_calib_opts vo;
    val_calib_opts_init(&vo);
    vo.reps = 5;
    int rc = val_series_build(tb, &so, &ser, err);
    if (rc == SIM_OK)
        rc = val_calib_base(o->simulate, tb, o->arch, NULL, cfg, err);
    if (rc == SIM_OK)
        rc = val_calib_points(tb, &ser, o->arch, pts, 256, &n, err);
    val_series_fini(&ser);
    if (rc == SIM_OK)
        rc = val_calib_simulate(cfg, NULL, 0, pts, n, &vo, sims, err);
    for (size_t i = 0; rc == SIM_OK && i < np; i++) {
        int k = -1;
        for (int j = 0; j < TF_NPHASES; j++)
            if (!strcmp(names[i], tf_phase_names[j]))
                k = j;
        for (size_t j = 0; k >= 0 && j < n; j++)
            val_scaling_set_simulated(&sc[i], pts[j].concurrency, sims[j].thr[k], sims[j].thr_ci[k]);
    }
    sim_cfg_free(cfg);
    return rc;
}

static int run_usl(const opts *o)
{
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench *tb;
    if (val_tigerbench_read(o->tigerbench, &tb, &err))
        return cli_fail(CMD, &err);
    const val_tigerbench_arch *a;
    if (val_tigerbench_arch_get(tb, o->arch, &a, &err)) {
        val_tigerbench_free(tb);
        return cli_fail(CMD, &err);
    }
    const char *names[32];
    size_t np = val_tigerbench_phase_names(a, names, 32);
    if (np > 32)
        np = 32;
    if (o->phase) {
        names[0] = o->phase;
        np = 1;
    }
    if (np == 0) {
        sim_err_set(&err, SIM_EINPUT, "%s: %s has no phase rows (only kind timings)",
                    o->tigerbench, o->arch);
        val_tigerbench_free(tb);
        return cli_fail(CMD, &err);
    }
    val_scaling *sc = calloc(np, sizeof *sc);
    assert(sc);
    size_t ok = 0;
    int rc = 0;
    for (; ok < np && !rc; ok++)
        rc = val_scaling_init(&sc[ok], tb, o->arch, names[ok], &err);
    if (rc)
        ok--; /* the failed one needs no fini */
    if (!rc && o->simulate)
        rc = simulate_points(o, tb, sc, names, np, &err);
    val_tigerbench_free(tb);
    if (rc) {
        for (size_t i = 0; i < ok; i++)
            val_scaling_fini(&sc[i]);
        free(sc);
        return cli_fail(CMD, &err);
    }

    int out_rc = 0, printed = 0;
    if (wanted(o, "points", "points")) {
        printed = 1;
        char title[512];
        snprintf(title, sizeof title, "%s: throughput (1/s) versus concurrency, from %s", o->arch,
                 o->tigerbench);
        sim_table *t = sim_table_new(title);
        for (size_t i = 0; i < np; i++)
            val_scaling_points_table(&sc[i], t);
        sim_table_group_by(t, sim_table_find_col(t, "phase"));
        out_rc |= print_table(o, t);
        if (o->fmt == SIM_FMT_TEXT)
            printf("\namdahl_pred: the seed's method from the N=1 point alone (serial = "
                   "1/X(1) - kinds_ms(1)); amdahl_fit, usl_fit: least squares over all N; r_ms = "
                   "N/X; kinds_ms = sum of the phase's kind timings.\n");
    }
    if (wanted(o, "fits", "points")) {
        if (o->fmt == SIM_FMT_TEXT && printed)
            putchar('\n');
        sim_table *t = sim_table_new(o->fmt == SIM_FMT_TEXT ? "fits (sigma, kappa >= 0; "
                                                               "standard errors from the "
                                                               "Jacobian)"
                                                             : NULL);
        for (size_t i = 0; i < np; i++)
            val_scaling_fits_table(&sc[i], t);
        out_rc |= print_table(o, t);
    }
    val_laws_findings f;
    val_laws_findings_init(&f);
    for (size_t i = 0; i < np; i++)
        val_scaling_laws(&sc[i], (int)o->workers, o->tolerance, o->gaps, &f);
    out_rc |= print_findings(o, &f, "points");
    val_laws_findings_fini(&f);
    for (size_t i = 0; i < np; i++)
        val_scaling_fini(&sc[i]);
    free(sc);
    return finish(out_rc);
}

int cmd_amdahl(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    if (o.usl)
        return run_usl(&o);
    if (o.tigerbench)
        return run_compare(&o);
    return run_config(&o);
}
