#include "cli/cli_sweep.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "models/mdl.h"
#include "models/mdl_sweep.h"
#include "reports/rep_bottleneck.h"
#include "reports/rep_progress.h"
#include "reports/rep_store.h"
#include "sim/sim_str.h"

/* The overrides of ov joined by ' ', without those of the varied key: the
 * sweep's identity must not depend on a --set that every point replaces. */
static char *overrides_without(const sim_cfg *ov, const char *key)
{
    size_t len = 1;
    for (size_t i = 0; i < sim_cfg_count(ov); i++) {
        const sim_cfg_entry *e = sim_cfg_at(ov, i);
        len += strlen(e->section) + strlen(e->key) + strlen(e->value) + 3;
    }
    char *s = malloc(len), *p = s;
    assert(s && "out of memory");
    *p = '\0';
    for (size_t i = 0; i < sim_cfg_count(ov); i++) {
        const sim_cfg_entry *e = sim_cfg_at(ov, i);
        size_t sl = strlen(e->section);
        if (!strncmp(key, e->section, sl) && key[sl] == '.' && !strcmp(key + sl + 1, e->key))
            continue;
        p += sprintf(p, "%s%s.%s=%s", p == s ? "" : " ", e->section, e->key, e->value);
    }
    return s;
}

int cli_sweep_prepare(const cli_opts *o, sim_cfg *cfg, sim_cfg *ov, const char *vary,
                      cli_sweep *sw, sim_err *err)
{
    memset(sw, 0, sizeof *sw);
    sim_layout_init(&sw->layout);
    const char *eq = strchr(vary, '=');
    if (!eq || eq == vary || (size_t)(eq - vary) >= sizeof sw->key)
        return sim_err_set(err, SIM_EINPUT, "--vary %s: expected SECTION.KEY=V1,V2,...", vary);
    memcpy(sw->key, vary, (size_t)(eq - vary));
    sw->key[eq - vary] = '\0';
    if (cli_scenario_load(o, cfg, ov, err))
        return err->code;
    if (mdl_sweep_values(eq + 1, &sw->values, &sw->n, err))
        return sim_err_prefix(err, "--vary %s: ", sw->key), err->code;
    /* The unmodified config first, for file:line messages. */
    mdl_scenario s0;
    int rc = mdl_scenario_setup(&s0, cfg, err);
    if (rc == SIM_OK) {
        sw->jobs = o->jobs ? o->jobs : s0.plan.jobs;
        sw->seed = s0.seed;
        sw->replications = (long)s0.plan.min_reps;
        sw->max_replications = (long)s0.rep_cap;
        sw->level = s0.plan.level;
        sw->layout = s0.layout; /* keep it: move it out of the scenario */
        sim_layout_init(&s0.layout);
    }
    mdl_scenario_fini(&s0);
    if (rc)
        return rc;
    sw->overrides = calloc(sw->n, sizeof *sw->overrides);
    sw->hash = calloc(sw->n, sizeof *sw->hash);
    sw->tables = calloc(sw->n, sizeof *sw->tables);
    sw->status = calloc(sw->n, sizeof *sw->status);
    sw->errs = calloc(sw->n, sizeof *sw->errs);
    assert(sw->overrides && sw->hash && sw->tables && sw->status && sw->errs && "out of memory");
    sw->sweep_overrides = overrides_without(ov, sw->key);
    /* Every point's config as `tfsim run CONFIG --set KEY=VALUE` would load
     * it: checked here, so that errors come before any simulation, and its
     * overrides and hash kept for the point's manifest. */
    for (size_t i = 0; i < sw->n && rc == SIM_OK; i++) {
        sim_cfg *c = sim_cfg_new();
        mdl_scenario sc;
        memset(&sc, 0, sizeof sc);
        size_t len = strlen(sw->key) + strlen(sw->values[i]) + 2;
        char *set = malloc(len);
        assert(set && "out of memory");
        snprintf(set, len, "%s=%s", sw->key, sw->values[i]);
        rc = cli_scenario_load(o, c, ov, err);
        if (rc == SIM_OK)
            rc = sim_cfg_set_as(c, set, "--vary", err);
        if (rc == SIM_OK) {
            rc = mdl_scenario_init(&sc, c, err);
            /* a setup that ran and failed (a pilot run that hit a limit)
             * fails the same way when the point runs, and is reported
             * there with the other points' table: only bad input stops
             * the sweep here */
            if (rc == SIM_EFAIL) {
                rc = SIM_OK;
                sim_err_clear(err);
            }
        }
        if (rc == SIM_OK) {
            sw->overrides[i] = sim_str_dup(sim_cfg_overrides(c));
            sw->hash[i] = sim_cfg_hash(c);
        }
        mdl_scenario_fini(&sc);
        sim_cfg_free(c);
        free(set);
    }
    return rc;
}

void cli_sweep_fini(cli_sweep *sw)
{
    for (size_t i = 0; i < sw->n; i++) {
        free(sw->values[i]);
        if (sw->overrides)
            free(sw->overrides[i]);
        if (sw->tables)
            sim_table_free(sw->tables[i]);
    }
    free(sw->values);
    free(sw->overrides);
    free(sw->hash);
    free(sw->tables);
    free(sw->status);
    free(sw->errs);
    free(sw->sweep_overrides);
    sim_layout_fini(&sw->layout);
    memset(sw, 0, sizeof *sw);
}

/* ---- running: worker threads simulate, the calling thread collects ---- */

typedef struct collector {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    size_t *fin, nfin;  /* indices into pts of finished points, in order of finishing */
    int finished;       /* mdl_sweep_run returned */
    const sim_cfg *cfg;
    const char *key;
    mdl_sweep_point *pts;
    size_t n;
    int jobs, rc;
    sim_err err;
} collector;

static void on_done(size_t i, void *ctx)
{
    collector *c = ctx;
    pthread_mutex_lock(&c->lock);
    c->fin[c->nfin++] = i;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

static void *run_points(void *arg)
{
    collector *c = arg;
    int rc = mdl_sweep_run(c->cfg, c->key, c->pts, c->n, c->jobs, on_done, c, &c->err);
    pthread_mutex_lock(&c->lock);
    c->rc = rc;
    c->finished = 1;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Turn finished point p (point i of the sweep) into its table and save it. */
static void finish_point(cli_sweep *sw, size_t i, mdl_sweep_point *p, rep_store *db,
                         const rep_manifest *m)
{
    sw->status[i] = p->status;
    if (p->status) {
        sw->errs[i] = p->err;
        return;
    }
    sim_table *t = sim_table_new(NULL);
    assert(t && "out of memory");
    sim_rep_table(&p->layout, &p->result, t);
    sw->tables[i] = t;
    sim_layout_fini(&p->layout); /* the table holds all that is needed */
    sim_rep_result_fini(&p->result);
    if (!db || sw->store_failed)
        return;
    rep_manifest pm = *m;
    pm.overrides = sw->overrides[i];
    pm.config_hash = sw->hash[i];
    if (rep_store_save_point(db, sw->sweep_id, (int)i, &pm, t, NULL, &sw->store_err))
        sw->store_failed = 1;
}

/* Load the stored points of the sweep into sw->tables. */
static int load_stored(rep_store *db, cli_sweep *sw, sim_err *err)
{
    sim_table *runs = rep_store_list_runs(db, err);
    if (!runs)
        return err->code;
    int cid = sim_table_find_col(runs, "id"), csw = sim_table_find_col(runs, "sweep");
    int cpt = sim_table_find_col(runs, "point");
    assert(cid >= 0 && csw >= 0 && cpt >= 0);
    int rc = SIM_OK;
    for (int r = 0; r < sim_table_nrows(runs) && rc == SIM_OK; r++) {
        double id, sweep, point;
        if (sim_table_cell(runs, r, csw, &sweep, NULL) != 1 || sweep != (double)sw->sweep_id ||
            sim_table_cell(runs, r, cpt, &point, NULL) != 1 ||
            sim_table_cell(runs, r, cid, &id, NULL) != 1 || point < 0 ||
            point >= (double)sw->n || sw->tables[(size_t)point])
            continue;
        sim_table *t = rep_store_load_table(db, (int64_t)id, err);
        if (!t)
            rc = err->code;
        else
            sw->tables[(size_t)point] = t;
        sw->resumed += t != NULL;
    }
    sim_table_free(runs);
    return rc;
}

/* Simulate the points that have no table yet, collecting each as it ends. */
static int run_missing(const char *cmd, const sim_cfg *cfg, cli_sweep *sw, rep_store *db,
                       const rep_manifest *m, sim_err *err)
{
    size_t ntodo = 0;
    size_t *idx = malloc(sw->n * sizeof *idx);
    mdl_sweep_point *pts = calloc(sw->n, sizeof *pts);
    collector c = {.cfg = cfg, .key = sw->key, .pts = pts, .jobs = sw->jobs};
    c.fin = malloc(sw->n * sizeof *c.fin);
    assert(idx && pts && c.fin && "out of memory");
    for (size_t i = 0; i < sw->n; i++) {
        if (sw->tables[i])
            continue;
        snprintf(pts[ntodo].value, sizeof pts[ntodo].value, "%s", sw->values[i]);
        idx[ntodo++] = i;
    }
    c.n = ntodo;
    rep_progress bar;
    rep_progress_init(&bar, stderr, cli_stderr_tty(), cmd, sw->n, rep_progress_now());
    rep_progress_skip(&bar, sw->resumed);
    if (ntodo > 0) {
        pthread_mutex_init(&c.lock, NULL);
        pthread_cond_init(&c.cond, NULL);
        pthread_t th;
        int threaded = pthread_create(&th, NULL, run_points, &c) == 0;
        if (!threaded)
            run_points(&c); /* no thread: run here, collect afterwards */
        for (size_t head = 0;;) {
            pthread_mutex_lock(&c.lock);
            while (head == c.nfin && !c.finished)
                pthread_cond_wait(&c.cond, &c.lock);
            size_t end = c.nfin;
            int last = c.finished;
            pthread_mutex_unlock(&c.lock);
            for (; head < end; head++) {
                finish_point(sw, idx[c.fin[head]], &pts[c.fin[head]], db, m);
                rep_progress_step(&bar, 1, rep_progress_now());
            }
            if (last && head == c.nfin)
                break;
        }
        if (threaded)
            pthread_join(th, NULL);
        pthread_cond_destroy(&c.cond);
        pthread_mutex_destroy(&c.lock);
    }
    rep_progress_fini(&bar, rep_progress_now());
    mdl_sweep_points_fini(pts, ntodo);
    free(pts);
    free(idx);
    free(c.fin);
    if (c.rc)
        *err = c.err;
    return c.rc;
}

rep_manifest cli_sweep_manifest(const char *command, const cli_opts *o, const sim_cfg *cfg,
                                const cli_sweep *sw)
{
    rep_manifest m = {
        .command = command,
        .title = o->config ? o->config : "(defaults)",
        .config_text = sim_cfg_text(cfg),
        .overrides = sw->sweep_overrides,
        .seed = sw->seed,
        .replications = sw->replications,
        .git_rev = tfsim_build_rev,
        .cflags = tfsim_build_flags,
        .config_hash = sim_cfg_hash(cfg),
    };
    return m;
}

int cli_sweep_run(const char *cmd, const cli_opts *o, const sim_cfg *cfg, cli_sweep *sw,
                  sim_err *err)
{
    rep_manifest m = cli_sweep_manifest("sweep", o, cfg, sw);
    rep_store *db = NULL;
    if (o->db) {
        db = rep_store_open(o->db, REP_STORE_WRITE, err);
        if (!db)
            return err->code;
        rep_sweep rs = {m, sw->key, (const char *const *)sw->values, sw->n};
        int resumed = 0;
        if (rep_store_sweep_begin(db, &rs, &sw->sweep_id, &resumed, err) ||
            (resumed && load_stored(db, sw, err))) {
            rep_store_close(db);
            return err->code;
        }
        if (sw->resumed)
            fprintf(stderr, "tfsim %s: resuming sweep %lld in %s: %zu of %zu points stored\n",
                    cmd, (long long)sw->sweep_id, o->db, sw->resumed, sw->n);
    }
    int rc = run_missing(cmd, cfg, sw, db, &m, err);
    rep_store_close(db);
    return rc;
}

/* ---- views ---- */

/* The metric's description (format, text unit) in the base scenario's
 * layout: the exact row, else any row of the scope with that metric; NULL
 * when the layout has none. */
static const sim_metric *metric_of(const sim_layout *l, const char *scope, const char *name,
                                   const char *metric)
{
    long k = sim_layout_find(l, scope, name, metric);
    if (k >= 0)
        return &l->m[k];
    for (size_t j = 0; j < l->n; j++)
        if (!strcmp(l->m[j].scope, scope) && !strcmp(l->m[j].metric, metric))
            return &l->m[j];
    return NULL;
}

/* Metrics shown in the one-row-per-point view. */
static int wide_metric(const char *scope, const char *metric, int *with_ci)
{
    *with_ci = 0;
    if (!strcmp(scope, "phase") || !strcmp(scope, "station") || !strcmp(scope, "network")) {
        if (!strcmp(metric, "throughput") || !strcmp(metric, "mean_response")) {
            *with_ci = 1;
            return 1;
        }
        return !strcmp(metric, "p99") ||
               (!strcmp(scope, "station") && !strcmp(metric, "utilisation"));
    }
    if (!strcmp(scope, "component"))
        return !strcmp(metric, "utilisation");
    if (!strcmp(scope, "batch"))
        return !strcmp(metric, "mean");
    return 0;
}

/* Row r's scope and name in a point table (NULL when absent). */
static void row_id(const sim_table *t, int r, const char **scope, const char **name)
{
    int cs = sim_table_find_col(t, "scope"), cn = sim_table_find_col(t, "name");
    *scope = *name = NULL;
    if (cs >= 0)
        sim_table_cell(t, r, cs, NULL, scope);
    if (cn >= 0)
        sim_table_cell(t, r, cn, NULL, name);
}

static void wide_row(const cli_sweep *sw, const sim_table *pt, int text, sim_table *t)
{
    for (int r = 0; r < sim_table_nrows(pt); r++) {
        const char *scope, *name;
        row_id(pt, r, &scope, &name);
        if (!scope || !name)
            continue;
        for (int c = 0; c < sim_table_ncols(pt); c++) {
            const char *metric = sim_table_col_name(pt, c);
            int ci;
            double v, h = NAN;
            if (!wide_metric(scope, metric, &ci) || sim_table_cell(pt, r, c, &v, NULL) != 1)
                continue;
            const sim_metric *m = metric_of(&sw->layout, scope, name, metric);
            const char *fmt = m ? m->fmt : NULL;
            char col[256], cell[160], unit[64];
            snprintf(col, sizeof col, "%s_ci", metric);
            int cc = ci ? sim_table_find_col(pt, col) : -1;
            if (cc >= 0 && sim_table_cell(pt, r, cc, &h, NULL) != 1)
                h = NAN;
            if (text) { /* one column, "mean ± half" in the metric's text unit */
                sim_metric tm = m ? *m : (sim_metric){.fmt = NULL, .text_scale = 1};
                snprintf(tm.metric, sizeof tm.metric, "%s", metric);
                snprintf(col, sizeof col, "%s.%s", name, sim_metric_text_name(&tm, unit, sizeof unit));
                sim_table_str(t, sim_table_col(t, col, NULL),
                              sim_metric_text(&tm, v, ci ? h : NAN, cell, sizeof cell));
                continue;
            }
            snprintf(col, sizeof col, "%s.%s", name, metric);
            sim_table_num(t, sim_table_col(t, col, fmt), v);
            if (cc < 0)
                continue;
            snprintf(col, sizeof col, "%s.%s_ci", name, metric);
            int tc = sim_table_col(t, col, fmt);
            if (!isnan(h))
                sim_table_num(t, tc, h);
        }
    }
    /* the component that saturates first (rep_bottleneck) */
    rep_bottleneck b;
    if (rep_bottleneck_find(pt, &b)) {
        char buf[128];
        sim_table_str(t, sim_table_col(t, "bottleneck", NULL),
                      text ? rep_bottleneck_short(&b, buf, sizeof buf) : b.name);
    }
}

static void long_rows(const sim_table *pt, int ckey, const char *value, sim_table *t)
{
    for (int r = 0; r < sim_table_nrows(pt); r++) {
        sim_table_row(t);
        sim_table_str(t, ckey, value);
        for (int c = 0; c < sim_table_ncols(pt); c++) {
            double v;
            const char *s = NULL;
            int kind = sim_table_cell(pt, r, c, &v, &s);
            int col = sim_table_col(t, sim_table_col_name(pt, c), NULL);
            if (kind == 1)
                sim_table_num(t, col, v);
            else if (kind == 2)
                sim_table_str(t, col, s);
        }
    }
}

int cli_sweep_table(const char *cmd, const cli_sweep *sw, int longf, int text, sim_table *t)
{
    int rc = EXIT_OK;
    int ckey = sim_table_col(t, sw->key, NULL);
    for (size_t i = 0; i < sw->n; i++) {
        const sim_table *pt = sw->tables[i];
        if (!pt) {
            char rb[CLI_REDACT_MAX];
            fprintf(stderr, "tfsim %s: %s=%s: %s\n", cmd, sw->key, sw->values[i],
                    sw->errs[i].msg[0] ? cli_redact(sw->errs[i].msg, rb, sizeof rb) : "not run");
            rc = sw->status[i] == SIM_EINPUT ? EXIT_INPUT : EXIT_FAIL;
            continue;
        }
        if (longf) {
            long_rows(pt, ckey, sw->values[i], t);
            continue;
        }
        sim_table_row(t);
        sim_table_str(t, ckey, sw->values[i]);
        wide_row(sw, pt, text, t);
    }
    return rc;
}

void cli_sweep_bottlenecks(const cli_sweep *sw, FILE *out)
{
    size_t nlg = 0, nsat = 0;
    char lg[512] = "", name[REP_BN_NAME] = "";
    for (size_t i = 0; i < sw->n; i++) {
        rep_bottleneck b;
        if (!sw->tables[i] || !rep_bottleneck_find(sw->tables[i], &b) || !b.saturated)
            continue;
        nsat++;
        if (!b.load_generator)
            continue;
        size_t k = strlen(lg);
        snprintf(lg + k, sizeof lg - k, "%s%s", nlg ? ", " : "", sw->values[i]);
        snprintf(name, sizeof name, "%s", b.name);
        nlg++;
    }
    if (nlg)
        fprintf(out,
                "bottleneck: the load generator (%s) saturates first at %s = %s: %s measure%s "
                "the load generator, not the system under test\n",
                name, sw->key, lg, nlg > 1 ? "these points" : "this point", nlg > 1 ? "" : "s");
    else if (nsat == 0)
        fprintf(out, "bottleneck: no component is saturated at any point (all below %.0f%%)\n",
                100 * REP_BN_SATURATED);
}

double cli_sweep_value(const cli_sweep *sw, size_t i, const char *scope, const char *name,
                       const char *metric, double *half)
{
    if (half)
        *half = NAN;
    const sim_table *pt = sw->tables[i];
    if (!pt)
        return NAN;
    char col[64];
    snprintf(col, sizeof col, "%s_ci", metric);
    int cm = sim_table_find_col(pt, metric), cc = sim_table_find_col(pt, col);
    for (int r = 0; r < sim_table_nrows(pt); r++) {
        const char *s, *n;
        row_id(pt, r, &s, &n);
        if (!s || !n || strcmp(s, scope) || strcmp(n, name))
            continue;
        double v = NAN, h = NAN;
        if (cm < 0 || sim_table_cell(pt, r, cm, &v, NULL) != 1)
            return NAN;
        if (half && cc >= 0 && sim_table_cell(pt, r, cc, &h, NULL) == 1)
            *half = h;
        return v;
    }
    return NAN;
}
