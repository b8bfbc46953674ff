#include "cli/cli_calib.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "reports/rep_store.h"

void cli_calib_args_init(cli_calib_args *a)
{
    memset(a, 0, sizeof *a);
    val_calib_run_opts_init(&a->run);
    a->fmt = SIM_FMT_TEXT;
    a->ov = sim_cfg_new();
    a->run.overrides = a->ov;
}

void cli_calib_args_fini(cli_calib_args *a)
{
    sim_cfg_free(a->ov);
    a->ov = NULL;
}

int cli_calib_flag(const char *cmd, int argc, char **argv, int *i, cli_calib_args *a)
{
    const char *f = argv[*i];
    static const char *const flags[] = {"--tigerbench", "--config", "--format", "--seed",
                                        "--rows0",      "--set",    "--jobs",   "--db",
                                        "--fit"};
    int known = 0;
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
        known |= !strcmp(f, flags[k]);
    if (!known)
        return 0;
    if (*i + 1 >= argc) {
        cli_usage_error(cmd, "%s needs a value", f);
        return -1;
    }
    const char *v = argv[++*i];
    const char *why;
    sim_err err;
    sim_err_clear(&err);
    if (!strcmp(f, "--tigerbench")) {
        a->run.file = v;
    } else if (!strcmp(f, "--config")) {
        a->run.config = v;
    } else if (!strcmp(f, "--fit")) {
        a->run.fit = v;
    } else if (!strcmp(f, "--db")) {
        a->db = v;
    } else if (!strcmp(f, "--format")) {
        return cli_parse_format(cmd, v, &a->fmt) ? -1 : 1;
    } else if (!strcmp(f, "--seed")) {
        unsigned long long s;
        if (cli_parse_u64(cmd, f, v, &s))
            return -1;
        a->run.fit_opts.seed = s;
    } else if (!strcmp(f, "--jobs")) {
        long j;
        if (cli_parse_long(cmd, f, v, 1, 64, &j))
            return -1;
        a->run.fit_opts.jobs = (int)j;
    } else if (!strcmp(f, "--rows0")) {
        if (sim_parse_double(v, &a->run.series.rows0, &why) || a->run.series.rows0 < 0 ||
            a->run.series.rows0 > 1e12) {
            cli_usage_error(cmd, "--rows0: '%s' is not a row count", v);
            return -1;
        }
    } else if (sim_cfg_set(a->ov, v, &err)) {
        cli_fail(cmd, &err);
        return -1;
    }
    return 1;
}

/* ---- the cache ---- */

static uint64_t key_hash(const char *key)
{
    return strtoull(key, NULL, 16);
}

static int cache_load(void *ctx, const char *key, val_calib_param *params, size_t np,
                      double *objective, unsigned *iters, sim_err *err)
{
    cli_calib_store *st = ctx;
    struct stat sb;
    if (stat(st->path, &sb) != 0)
        return 0; /* nothing stored yet */
    rep_store *db = rep_store_open(st->path, REP_STORE_READ, err);
    if (!db)
        return err->code;
    int64_t id;
    char *ov = NULL;
    int rc = rep_store_find_run(db, "calibrate", key_hash(key), &id, &ov, err);
    rep_store_close(db);
    if (rc)
        return rc;
    if (!id)
        return 0;
    /* "key=value ..." in parameter order, then objective= and iterations= */
    size_t got = 0;
    char *save = NULL;
    for (char *t = strtok_r(ov, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(t, '=');
        if (!eq)
            continue;
        *eq = '\0';
        double v = strtod(eq + 1, NULL);
        if (!strcmp(t, "objective"))
            *objective = v;
        else if (!strcmp(t, "iterations"))
            *iters = (unsigned)v;
        else if (got < np && !strcmp(t, params[got].key))
            params[got++].value = v;
    }
    free(ov);
    if (got != np)
        return 0; /* not what this calibration fits: fit again */
    st->found_run = id;
    return 1;
}

static int cache_save(void *ctx, const val_calibration *c, sim_err *err)
{
    cli_calib_store *st = ctx;
    size_t n = val_calib_ini(c, NULL, NULL, 0) + 1;
    char *ini = malloc(n);
    size_t olen = 64 * (c->np + 4);
    char *ov = malloc(olen);
    if (!ini || !ov) {
        free(ini);
        free(ov);
        return sim_err_set(err, SIM_EFAIL, "out of memory");
    }
    val_calib_ini(c, NULL, ini, n);
    size_t o = 0;
    for (size_t i = 0; i < c->np && o < olen; i++)
        o += (size_t)snprintf(ov + o, olen - o, "%s=%.17g ", c->params[i].key, c->params[i].value);
    if (o < olen)
        snprintf(ov + o, olen - o, "objective=%.17g iterations=%u", c->objective, c->iters);
    char title[700];
    snprintf(title, sizeof title, "%s of %s on %s (key %s)", c->what, c->arch, c->file, c->key);
    rep_manifest m = {"calibrate",  title, ini, ov, c->fit_opts.seed, c->fit_opts.reps,
                      tfsim_build_rev, tfsim_build_flags, key_hash(c->key)};
    sim_table *t = sim_table_new(NULL);
    val_calib_points_table(c, t);
    rep_store *db = rep_store_open(st->path, REP_STORE_WRITE, err);
    int rc = db ? rep_store_save_run(db, &m, t, &st->saved_run, err) : err->code;
    rep_store_close(db);
    sim_table_free(t);
    free(ini);
    free(ov);
    return rc;
}

void cli_calib_cache(cli_calib_store *st, val_calib_cache *c)
{
    st->found_run = st->saved_run = 0;
    c->load = cache_load;
    c->save = cache_save;
    c->ctx = st;
}

/* ---- the progress bar ---- */

#define BAR_STEPS 100

void cli_calib_bar_start(cli_calib_bar *b, const char *label)
{
    b->shown = 0;
    rep_progress_init(&b->bar, stderr, cli_stderr_tty(), label, BAR_STEPS, rep_progress_now());
}

void cli_calib_bar_update(void *ctx, unsigned evals, double done)
{
    (void)evals;
    cli_calib_bar *b = ctx;
    size_t want = (size_t)(fmin(1, fmax(0, done)) * (BAR_STEPS - 1));
    if (want > b->shown) {
        rep_progress_step(&b->bar, want - b->shown, rep_progress_now());
        b->shown = want;
    }
}

void cli_calib_bar_end(cli_calib_bar *b)
{
    if (b->shown < BAR_STEPS)
        rep_progress_step(&b->bar, BAR_STEPS - b->shown, rep_progress_now());
    b->shown = BAR_STEPS;
    rep_progress_fini(&b->bar, rep_progress_now());
}
