/* val_predict: tfsim predict (see the header).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "validate/val_predict.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/tf_params.h"
#include "sim/sim_str.h"
#include "validate/val_presets.h"

static const char *const kind_rows[TF_NKINDS] = {
    "accounting.hold",    "accounting.commit_order",       "paymentsession.save",
    "paymentsession.get", "paymentsession.fulfill",        "paymentsession.remove_pending",
    "db.add_order"};

void val_predict_opts_init(val_predict_opts *o)
{
    memset(o, 0, sizeof *o);
    val_calib_run_opts_init(&o->base);
    o->reps = 10;
    o->mape_from = 5;
    o->fits = VAL_PREDICT_FITS;
}

static const char *const client_names[] = {"auto", "config", "debian12"};

double val_predict_clients_close(double obj_config, double obj_debian12)
{
    if (!(obj_config > 0 && obj_debian12 > 0 && isfinite(obj_config) && isfinite(obj_debian12)))
        return -1; /* fmin and fmax would drop a NaN */
    double lo = fmin(obj_config, obj_debian12), hi = fmax(obj_config, obj_debian12);
    if (hi >= 1.25 * lo)
        return -1;
    return 100 * (hi / lo - 1);
}

int val_predict_client_parse(const char *name)
{
    for (int i = 0; i < (int)(sizeof client_names / sizeof client_names[0]); i++)
        if (!strcmp(name, client_names[i]))
            return i;
    return -1;
}

const char *val_predict_source_name(int source)
{
    switch (source) {
    case VAL_PREDICT_CONFIG:
        return "the config given";
    case VAL_PREDICT_CACHED:
        return "a stored fit";
    case VAL_PREDICT_SHIPPED:
        return "the shipped calibration";
    default:
        return "fitted now";
    }
}

static void note(val_prediction *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int held_points(const val_prediction *p, int server, char *buf, size_t len);
static int band_sim(const val_predict_opts *o, val_prediction *p, sim_err *err);
static void band_score(val_prediction *p);

/* The band around a prediction x: x (1 -+ p->band), the low end at least 0
 * (NaN without a band or a prediction). */
static inline void band_bounds(const val_prediction *p, double x, double *lo, double *hi)
{
    *lo = fmax(0, x * (1 - p->band));
    *hi = x * (1 + p->band);
    if (isnan(x) || isnan(p->band))
        *lo = *hi = NAN;
}
static void note(val_prediction *p, const char *fmt, ...)
{
    if (p->nnotes == VAL_PREDICT_MAX_NOTES) {
        p->notes_left_out++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    sim_str_vfmt(p->notes[p->nnotes++], VAL_PREDICT_NOTE_LEN, fmt, ap);
    va_end(ap);
}


/* ---- progress: each step maps its share onto a slice of the bar ---- */

typedef struct slice {
    const val_calib_opts *outer;
    double from, to;
} slice;

static void slice_progress(void *ctx, unsigned evals, double done)
{
    slice *s = ctx;
    if (s->outer->progress)
        s->outer->progress(s->outer->progress_ctx, evals, s->from + (s->to - s->from) * done);
}

static void with_slice(val_calib_opts *o, slice *s, const val_calib_opts *outer, double from,
                       double to)
{
    *s = (slice){outer, from, to};
    o->progress = outer->progress ? slice_progress : NULL;
    o->progress_ctx = s;
}

/* ---- step 1: the baseline ---- */

static int baseline_step(const val_predict_opts *o, val_prediction *p, double share,
                         sim_err *err);

static int baseline(const val_predict_opts *o, val_prediction *p, double share, sim_err *err)
{
    int rc = baseline_step(o, p, share, err);
    p->base.fit_opts = o->base.fit_opts; /* the slice lived on baseline_step's stack */
    return rc;
}

/* The shipped calibration stands for b: its data, its architecture, and
 * the default fitted keys (a --fit of its own is fitted). */
static int shipped(const val_predict_opts *o, const val_calibration *b)
{
    return !o->base.fit && !strcmp(b->arch, TF_PARAMS_CALIBRATED_ARCH) &&
           !strcmp(b->data_hash, TF_PARAMS_CALIBRATED_DATA);
}

/* The baseline's values are at hand without a fit or the cache: --config
 * without --calibrate, or the shipped calibration for the data it was
 * fitted on. */
static int baseline_given(const val_predict_opts *o, const val_calibration *b)
{
    return !o->force_fit && (o->base.config || shipped(o, b));
}

static int baseline_step(const val_predict_opts *o, val_prediction *p, double share,
                         sim_err *err)
{
    val_calibration *b = &p->base;
    const val_calib_cache *cache = o->base.cache;
    slice sl;
    with_slice(&b->fit_opts, &sl, &o->base.fit_opts, 0, share);
    if (o->base.config && !o->force_fit) {
        p->source = VAL_PREDICT_CONFIG;
        return SIM_OK;
    }
    /* --calibrate: fit (from --config's values when given) */
    if (!o->force_fit && cache && cache->load) {
        int found = cache->load(cache->ctx, b->key, b->params, b->np, &b->objective, &b->iters,
                                err);
        if (found < 0)
            return err->code;
        if (found > 0) {
            b->cached = 1;
            p->source = VAL_PREDICT_CACHED;
            return SIM_OK;
        }
    }
    if (!o->force_fit && shipped(o, b)) {
        p->source = VAL_PREDICT_SHIPPED;
        return SIM_OK;
    }
    p->source = VAL_PREDICT_FITTED;
    return val_calib_solve(cache, 1, b, err);
}

/* The overrides with the debian12 preset under the caller's (which win):
 * a new config owned by the caller. */
static sim_cfg *preset_overrides(const sim_cfg *user, sim_err *err)
{
    sim_cfg *ov = sim_cfg_new();
    if (val_preset_apply("debian12", ov, err) == SIM_OK)
        for (size_t i = 0; user && i < sim_cfg_count(user) && err->code == SIM_OK; i++) {
            const sim_cfg_entry *e = sim_cfg_at(user, i);
            char line[SIM_CFG_MAX_LINE];
            snprintf(line, sizeof line, "%s.%s=%s", e->section, e->key, e->value);
            sim_cfg_set_as(ov, line, e->origin, err);
        }
    return ov;
}

/* AUTO: the baseline again with the preset's client; the lower objective
 * stays in p->base.  alt_opts: the run options with the preset's overrides. */
static int baseline_other_client(const val_predict_opts *o, const val_calib_run_opts *alt_opts,
                                 val_prediction *p, double from, double to, sim_err *err)
{
    val_calibration *alt = malloc(sizeof *alt);
    assert(alt);
    int rc = val_calib_prepare(alt_opts, alt, err);
    slice sl;
    with_slice(&alt->fit_opts, &sl, &o->base.fit_opts, from, to);
    if (rc == SIM_OK)
        rc = val_calib_solve(o->base.cache, o->force_fit, alt, err);
    alt->fit_opts = o->base.fit_opts; /* the slice lives on this stack */
    if (rc == SIM_OK) {
        p->client_tried = 1;
        p->client_obj[0] = p->base.objective;
        p->client_obj[1] = alt->objective;
        if (alt->objective < p->base.objective) {
            /* swap (the structs are large: through the heap, not the stack) */
            val_calibration *tmp = malloc(sizeof *tmp);
            assert(tmp);
            *tmp = p->base;
            p->base = *alt;
            *alt = *tmp;
            free(tmp);
            p->client_debian12 = 1;
            p->source = p->base.cached ? VAL_PREDICT_CACHED : VAL_PREDICT_FITTED;
        }
    }
    val_calib_fini(alt);
    free(alt);
    return rc;
}

/* Whether cfg's section.key was set from FILE's column (val_calib_file_settings
 * marks what it changes with the origin "FILE: column"). */
static int from_file(const sim_cfg *cfg, const char *file, const char *section, const char *key)
{
    const sim_cfg_entry *e = sim_cfg_find(cfg, section, key);
    size_t n = strlen(file);
    return e && e->origin && !strncmp(e->origin, file, n) && !strncmp(e->origin + n, ": ", 2);
}

/* What the file says about a's runs that the simulation takes from it, or
 * cannot (val_calib_file_settings applies the first; --set, in ov, wins
 * over it).  A setting equal to the config's (config: the --config path,
 * NULL for the embedded defaults) changes nothing and goes unmentioned. */
static void settings_notes(val_prediction *p, const char *config, const char *file,
                           const val_tigerbench_arch *a, const sim_cfg *ov)
{
    sim_cfg *cfg = sim_cfg_new(); /* owned: freed below */
    sim_err e = {0};
    if (val_calib_base_arch(config, file, a, NULL, cfg, &e)) {
        sim_cfg_free(cfg); /* the fit reported the same error already */
        return;
    }
    if (from_file(cfg, file, "postgres", "pool_size") || from_file(cfg, file, "postgres", "gate"))
        note(p, "%s: %s ran with db_pool_size %ld: simulated with postgres.pool_size and "
                "postgres.gate %ld (TigerFans' DB gate defaults to the pool size)%s",
             file, a->name, a->db_pool_size, val_calib_file_pool(a),
             ov && (sim_cfg_find(ov, "postgres", "gate") || sim_cfg_find(ov, "postgres", "pool_size"))
                 ? ", where --set does not name them" : "");
    if (from_file(cfg, file, "client", "total"))
        note(p, "%s: %s ran %ld requests per phase: simulated with client.total %ld", file,
             a->name, a->total, a->total);
    if (a->mixed & VAL_TIGERBENCH_MIXED_TOTAL)
        note(p, "%s: %s's runs have different requests per phase (up to %ld); simulated with "
                "the config's client.total", file, a->name, a->total);
    if (from_file(cfg, file, "client", "succeed_rate"))
        note(p, "%s: %s ran with arg_succeed_rate %g: simulated with client.succeed_rate %g",
             file, a->name, a->succeed_rate, a->succeed_rate);
    if (a->mixed & VAL_TIGERBENCH_MIXED_SUCCEED)
        note(p, "%s: %s's runs have different arg_succeed_rate; simulated with the config's "
                "client.succeed_rate", file, a->name);
    if ((a->webhook_mode[0] && strcmp(a->webhook_mode, "direct")) ||
        (a->mixed & VAL_TIGERBENCH_MIXED_WEBHOOK))
        note(p, "%s: %s ran webhooks in mode %s%s: the model's webhook is the direct one (one "
                "POST /payments/webhook); emit's extra hop through /mockpay is not simulated",
             file, a->name, a->webhook_mode,
             a->mixed & VAL_TIGERBENCH_MIXED_WEBHOOK ? " (and others)" : "");
    long cmax = 0;
    for (size_t i = 0; i < a->nphases; i++)
        if (a->phases[i].concurrency > cmax)
            cmax = a->phases[i].concurrency;
    if (!strcmp(a->payments, "redis") && a->redis_max_conn >= 0 && a->redis_max_conn < cmax)
        note(p, "%s: %s ran with redis_max_conn %ld, below its concurrency %ld: redis-py's "
                "pool raises 'Too many connections' there (errors, not queueing); the model "
                "has no such limit", file, a->name, a->redis_max_conn, cmax);
    sim_cfg_free(cfg);
}

/* ---- step 2: the target's own demands at light load ---- */

/* The target's record: FILE's, or the named one with no rows. */
static const val_tigerbench_arch *target_arch(const val_prediction *p)
{
    return p->target_absent ? &p->absent : val_tigerbench_find(p->base.tb, p->target);
}

static int target_cfg(const val_predict_opts *o, val_prediction *p, sim_cfg *cfg, sim_err *err)
{
    const val_calibration *b = &p->base;
    if (val_calib_base_arch(o->base.config, b->file, target_arch(p), o->base.overrides, cfg, err))
        return err->code;
    for (size_t i = 0; i < b->np; i++) {
        char line[1024];
        if (val_calib_param_text(&b->params[i], line, sizeof line, err) ||
            sim_cfg_set(cfg, line, err))
            return err->code;
    }
    return SIM_OK;
}

/* The target's timings relative to the baseline's, as the seed's Amdahl
 * table compares each component: a kind the baseline also measured at the
 * same light-load concurrency is fitted at target x (baseline simulated /
 * baseline measured) when it runs on the same backend in both, so that
 * the model's own error on the baseline there is not taken for a
 * difference of the target. */
static int relative_to_baseline(const val_predict_opts *o, val_prediction *p,
                                val_calib_point *lp, sim_err *err)
{
    const val_calibration *b = &p->base;
    const val_calib_point *bp = NULL;
    for (size_t k = 0; k < b->npts; k++)
        if (b->pts[k].concurrency == lp->concurrency)
            bp = &b->pts[k];
    if (!bp)
        return SIM_OK;
    const val_tigerbench_arch *ba = val_tigerbench_find(b->tb, b->arch),
                              *ta = val_tigerbench_find(b->tb, p->target);
    int same[TF_NKINDS], shared = 0;
    for (int i = 0; i < TF_NKINDS; i++) {
        same[i] = !strcmp(val_calib_kind_backend(ba, i), val_calib_kind_backend(ta, i));
        shared |= same[i] && !isnan(lp->kind[i]) && bp->kind[i] > 0;
    }
    if (!shared)
        return SIM_OK;
    val_calib_opts so = o->base.fit_opts;
    so.reps = 4;
    so.progress = NULL;
    val_calib_sim bs;
    if (val_calib_simulate(b->cfg, b->params, b->np, bp, 1, &so, &bs, err))
        return err->code;
    char list[512] = "";
    size_t used = 0;
    for (int i = 0; i < TF_NKINDS; i++) {
        if (!same[i] || isnan(lp->kind[i]) || !(bp->kind[i] > 0) || !(bs.kind[i] > 0))
            continue;
        p->rel[i] = bs.kind[i] / bp->kind[i];
        lp->kind[i] *= p->rel[i];
        used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0,
                                 "%s%s x %.3f", used ? ", " : "", tf_kind_names[i], p->rel[i]);
    }
    note(p, "%s's timings at concurrency %ld relative to %s's (simulated / measured there): %s",
         p->target, lp->concurrency, b->arch, list);
    return SIM_OK;
}

/* Does the target keep the baseline's value of registry row r (not
 * refit_shared)?  Yes when both architectures run r's component and the
 * baseline's calibration holds a value for it fitted under load (its
 * fitted keys: PostgreSQL's statement cost is one, Redis's and
 * TigerBeetle's costs are not), or when r is PostgreSQL accounting's state
 * and both account in PostgreSQL (the series' rows then). */
static int kept_from_baseline(const val_calibration *b, const val_tigerbench_arch *ba,
                              const val_tigerbench_arch *ta, const tf_param *r)
{
    if (r->own & TF_OWN_PG_ACCOUNTING)
        return !strcmp(ba->accounting, "pg") && !strcmp(ta->accounting, "pg");
    int both = (r->own & TF_OWN_PG) ||
               ((r->own & TF_OWN_REDIS) && !strcmp(ba->payments, "redis")) ||
               ((r->own & TF_OWN_TB) && !strcmp(ba->accounting, "tb"));
    if (!both)
        return 0;
    char key[sizeof b->params[0].key];
    tf_params_key(r, key, sizeof key);
    if (val_calib_has_key(b->params, b->np, key))
        return 1;
    /* a cost host.cpu_scale multiplies moved with the fit (a measured
     * value the fit keeps in proportion), unless the baseline's own
     * light-load timings set it (val_calibration.own) */
    return tf_params_host_scaled(r) && val_calib_has_key(b->params, b->np, TF_PARAMS_HOST_SCALE) &&
           !val_calib_has_key(b->own, b->nown, key);
}

static int own_fit(const val_predict_opts *o, val_prediction *p, const val_tigerbench_arch *ta,
                   double share_from, double share_to, sim_err *err)
{
    val_calibration *w = &p->own;
    memset(w, 0, sizeof *w);
    w->cfg = sim_cfg_new();
    snprintf(w->what, sizeof w->what, "light-load fit");
    snprintf(w->arch, sizeof w->arch, "%s", p->target);
    snprintf(w->file, sizeof w->file, "%s", p->base.file);
    w->mape_fit = w->mape_out = NAN;
    if (target_cfg(o, p, w->cfg, err))
        return err->code;
    long ck[1];
    if (p->target_absent) {
        int added = val_calib_arch_own(ta) &
                    ~val_calib_arch_own(val_tigerbench_find(p->base.tb, p->base.arch));
        char news[128] = "";
        if (added & TF_OWN_TB)
            snprintf(news, sizeof news, "TigerBeetle, [tigerbeetle]");
        if (added & TF_OWN_REDIS)
            snprintf(news + strlen(news), sizeof news - strlen(news), "%sRedis, [redis]",
                     news[0] ? "; " : "");
        note(p, "%s is not in %s: %s%s%s; the rest is %s's calibration, each point on the "
                "database state %s had there", p->target, p->base.file,
             news[0] ? "what it adds (" : "it adds no backend", news,
             !news[0]                ? ""
             : o->base.config         ? ") keeps the config's demands"
                                      : ") keeps the embedded demands, fitted on the TigerBench host",
             p->base.arch, p->base.arch);
        if (news[0])
            note(p, "%s's timings at concurrency 1 in %s (one TigerBench run) would fit those "
                    "demands on this host", p->target, p->base.file);
        return SIM_OK;
    }
    if (val_tigerbench_concurrencies(ta, VAL_TIGERBENCH_KIND_ROWS, ck, 1) == 0) {
        note(p, "%s has no operation timings in %s: its own demands keep the baseline's and "
                "the config's values", p->target, p->base.file);
        return SIM_OK;
    }
    p->c0 = ck[0];
    val_calib_point *lp = &w->pts[0];
    w->npts = 1;
    lp->concurrency = p->c0;
    lp->weight = 1;
    for (int i = 0; i < TF_NPHASES; i++)
        lp->thr[i] = NAN;
    int any = 0;
    for (int i = 0; i < TF_NKINDS; i++) {
        const val_tigerbench_kind *k = val_tigerbench_kind_get(ta, kind_rows[i], p->c0);
        lp->kind[i] = k ? k->mean : NAN;
        any |= k != NULL;
    }
    if (val_series_state(&p->base.series, p->target, p->c0, &lp->holds_rows, &lp->goodies, NULL,
                         NULL, err))
        return err->code;
    p->rows_series = p->rows_timing = lp->holds_rows;
    if (!any)
        return SIM_OK;
    /* the registry's rows the target's backends make its own, less those
     * the baseline has too unless refit_shared */
    int bits = val_calib_arch_own(ta);
    size_t nreg;
    const tf_param *reg = tf_params_registry(&nreg);
    const val_tigerbench_arch *ba = val_tigerbench_find(p->base.tb, p->base.arch);
    for (size_t i = 0; i < nreg && !o->refit_shared; i++)
        if ((reg[i].own & bits) && kept_from_baseline(&p->base, ba, ta, &reg[i]))
            p->shared |= reg[i].own;
    if (o->refit_shared && relative_to_baseline(o, p, lp, err))
        return err->code;
    bits &= ~p->shared;
    for (size_t i = 0; i < nreg && w->np < VAL_CALIB_MAX_PARAMS; i++) {
        if (!(reg[i].own & bits))
            continue;
        val_calib_param *q = &w->params[w->np];
        if (val_calib_own_param(w->cfg, &reg[i], q, err))
            return err->code;
        if (reg[i].own & TF_OWN_PG_ACCOUNTING) /* the state: from the series' rows */
            q->value = fmin(q->hi, fmax(q->lo, lp->holds_rows));
        w->start[w->np] = q->value;
        w->np++;
    }
    if (!w->np)
        return SIM_OK;
    w->fit_opts = val_calib_light_opts(&o->base.fit_opts);
    val_calib_key(w);
    const val_calib_cache *cache = o->base.cache;
    int found = 0;
    if (cache && cache->load && !o->force_fit) {
        found = cache->load(cache->ctx, w->key, w->params, w->np, &w->objective, &w->iters, err);
        if (found < 0)
            return err->code;
    }
    w->cached = found > 0;
    if (!w->cached) {
        /* At light load an operation's timing depends only on its own
         * backend's demands: one fit per backend, each of one factor (GSL's
         * Brent), the PostgreSQL statement cost before the holds rows (the
         * hold's statements cost it too). */
        static const int order[] = {TF_OWN_TB, TF_OWN_REDIS, TF_OWN_PG, TF_OWN_PG_ACCOUNTING};
        for (size_t g = 0; g < 4; g++) {
            int which[VAL_CALIB_MAX_PARAMS], anyp = 0;
            for (size_t i = 0; i < w->np; i++) {
                const tf_param *r = tf_params_find(w->params[i].key);
                which[i] = r && (r->own & order[g]) && (bits & order[g]);
                anyp |= which[i];
            }
            val_calib_point gp = *lp;
            int anyk = 0;
            for (int k = 0; k < TF_NKINDS; k++) {
                const char *be = val_calib_kind_backend(ta, k);
                int mine = order[g] == TF_OWN_TB             ? !strcmp(be, "tb")
                           : order[g] == TF_OWN_REDIS         ? !strcmp(be, "redis")
                           : order[g] == TF_OWN_PG_ACCOUNTING ? k == TF_K_HOLD && !strcmp(be, "pg")
                                                              : !strcmp(be, "pg") &&
                                                                    !(k == TF_K_HOLD && (bits & TF_OWN_PG_ACCOUNTING));
                if (!mine)
                    gp.kind[k] = NAN;
                anyk |= !isnan(gp.kind[k]);
            }
            if (!anyp || !anyk)
                continue;
            double f;
            double range = order[g] == TF_OWN_PG_ACCOUNTING ? 64 : 8;
            if (val_calib_scale(w->cfg, w->params, w->np, which, &gp, 1, &w->fit_opts, range, &f,
                                &w->evals, err))
                return err->code;
            if (o->base.fit_opts.progress)
                o->base.fit_opts.progress(o->base.fit_opts.progress_ctx, w->evals,
                                          share_from + (share_to - share_from) * (g + 1) / 4.0);
        }
    }
    if (val_calib_finish(w, 0, err))
        return err->code;
    if (!w->cached && cache && cache->save)
        w->save_status = cache->save(cache->ctx, w, &w->save_err);
    for (size_t i = 0; i < w->np; i++)
        if (!strcmp(w->params[i].key, "postgres.holds_rows"))
            p->rows_timing = w->params[i].value;
    return SIM_OK;
}

/* ---- step 4: Amdahl-style scaling ---- */

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

/* ---- the run ---- */

static void describe_own(val_prediction *p, const val_tigerbench_arch *ta)
{
    const val_calibration *w = &p->own;
    char r1[64], r2[64], r3[64];
    if (p->shared) {
        char list[256] = "";
        static const struct {
            int bit;
            const char *what;
        } parts[] = {{TF_OWN_PG, "PostgreSQL's statements"},
                     {TF_OWN_PG_ACCOUNTING, "PostgreSQL accounting and its holds table"},
                     {TF_OWN_REDIS, "Redis sessions"},
                     {TF_OWN_TB, "TigerBeetle"}};
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
            if (p->shared & parts[i].bit)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         list[0] ? ", " : "", parts[i].what);
        note(p, "%s runs %s as %s does: their costs stay those of %s's calibration%s, and "
                "%s's timings at concurrency %ld do not change them (a light load's timing also "
                "carries code paths and backends gone cold between requests); --refit-shared "
                "fits them from those timings", p->target, list, p->base.arch, p->base.arch,
             (p->shared & TF_OWN_PG_ACCOUNTING) ? ", with the series' holds rows" : "",
             p->target, p->c0);
    }
    for (size_t i = 0; i < w->np; i++) {
        char v[1024];
        sim_err e;
        sim_err_clear(&e);
        if (!strcmp(w->params[i].key, "postgres.holds_rows"))
            continue;
        if (val_calib_param_text(&w->params[i], v, sizeof v, &e) == SIM_OK)
            note(p, "%s's own demand from its timings at concurrency %ld: %s (start %.6g)%s",
                 p->target, p->c0, v, w->start[i], w->cached ? " (stored fit)" : "");
    }
    if (p->rows_timing != p->rows_series) {
        const val_tigerbench_kind *h = val_tigerbench_kind_get(ta, "accounting.hold", p->c0);
        note(p, "%s's accounting.hold at concurrency %ld (%.3f ms) matches %s holds rows at its "
                "middle repetition, where the series' order gives %s: its points run on the "
                "series' rows %s %s", p->target, p->c0, h ? 1e3 * h->mean : NAN,
             val_series_grouped(p->rows_timing, r1, sizeof r1),
             val_series_grouped(p->rows_series, r2, sizeof r2),
             p->rows_timing >= p->rows_series ? "plus" : "minus",
             val_series_grouped(fabs(p->rows_timing - p->rows_series), r3, sizeof r3));
    }
    if (w->np && w->npts) {
        for (int i = 0; i < TF_NKINDS; i++)
            if (!isnan(w->pts[0].kind[i])) {
                char rel[64] = "";
                if (p->rel[i] != 1)
                    snprintf(rel, sizeof rel, " (relative: %.3f ms)", 1e3 * w->pts[0].kind[i]);
                note(p, "  %s at concurrency %ld: %-30s measured %.3f ms%s, simulated %.3f ms",
                     p->target, p->c0, tf_kind_names[i], 1e3 * w->pts[0].kind[i] / p->rel[i],
                     rel, 1e3 * w->sims[0].kind[i]);
            }
    }
}

/* Steps 1-4 and the band's simulation for one fit (o's seed) into p
 * (caller storage, val_predict_fini). */
static int predict_one(const val_predict_opts *o, val_prediction *p, sim_err *err)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < TF_NKINDS; i++)
        p->rel[i] = 1;
    snprintf(p->target, sizeof p->target, "%s", o->target);
    p->reps = o->reps < 2 ? 2 : o->reps;
    p->mape_from = o->mape_from;
    sim_mape_init(&p->mape_sim);
    sim_mape_init(&p->mape_amdahl);
    /* the preset's client under the caller's overrides (DEBIAN12, or
     * AUTO's second fit) */
    sim_cfg *pov = NULL;
    val_calib_run_opts alt_opts = o->base;
    /* a baseline given by --config keeps its values (the backends' own
     * demands too); a fitted one takes them from its timings first */
    alt_opts.own_demands = !(o->base.config && !o->force_fit);
    if (o->client != VAL_PREDICT_CLIENT_CONFIG) {
        pov = preset_overrides(o->base.overrides, err);
        alt_opts.overrides = pov;
        if (err->code) {
            sim_cfg_free(pov);
            return err->code;
        }
    }
    val_predict_opts oo = *o;
    oo.base.own_demands = alt_opts.own_demands;
    if (o->client == VAL_PREDICT_CLIENT_DEBIAN12) {
        oo.base = alt_opts;
        p->client_debian12 = 1;
    }
    int rc0 = val_calib_prepare(&oo.base, &p->base, err);
    val_calibration *b = &p->base;
    /* the target, checked before any fit: FILE's, or one it does not hold */
    if (rc0 == SIM_OK && !val_tigerbench_find(b->tb, p->target)) {
        p->target_absent = 1;
        rc0 = val_tigerbench_arch_named(p->target, &p->absent, err);
        if (rc0) {
            const val_tigerbench_arch *dummy;
            sim_err e;
            sim_err_clear(&e);
            val_tigerbench_arch_get(b->tb, p->target, &dummy, &e);
            sim_err_clear(err);
            rc0 = sim_err_set(err, SIM_EINPUT, "--target: %s, and '%s' does not name one as "
                              "ACCOUNTING_PAYMENTS does (pg_pg, pg_redis, tb_redis)", e.msg,
                              p->target);
        } else {
            rc0 = val_calib_arch_modelled(b->file, &p->absent, err);
            /* run as the baseline's runs were: its pool, rate and total */
            const val_tigerbench_arch *ba0 = val_tigerbench_find(b->tb, b->arch);
            if (rc0 == SIM_OK && ba0)
                val_tigerbench_settings_copy(&p->absent, ba0);
        }
    }
    /* AUTO tries both clients when the baseline is fitted or stored and
     * nothing names the client */
    int both = rc0 == SIM_OK && o->client == VAL_PREDICT_CLIENT_AUTO &&
               !sim_cfg_find(b->cfg, "client", "httpcore") && !baseline_given(&oo, b);
    if (rc0 == SIM_OK)
        rc0 = baseline(&oo, p, both ? 0.375 : 0.75, err);
    if (rc0 == SIM_OK && both)
        rc0 = baseline_other_client(&oo, &alt_opts, p, 0.375, 0.75, err);
    p->client_ov = pov; /* the target is simulated with the baseline's client */
    if (rc0)
        return rc0;
    /* from here on, the options of the client kept */
    val_predict_opts oc = *o;
    if (p->client_debian12)
        oc.base.overrides = pov;
    o = &oc;
    const val_tigerbench_arch *ba, *ta = target_arch(p);
    if (val_tigerbench_arch_get(b->tb, b->arch, &ba, err))
        return err->code;
    for (size_t i = 0; i < b->series.nnotes; i++)
        note(p, "%s", b->series.notes[i]);
    p->notes_left_out += b->series.notes_left_out;
    settings_notes(p, o->base.config, b->file, ba, o->base.overrides);
    char setf[512];
    if ((p->source == VAL_PREDICT_FITTED || p->source == VAL_PREDICT_CACHED) &&
        val_calib_set_fitted(&o->base, b, setf, sizeof setf))
        note(p, "--set %s: a key the fit fits: the value is only its start (a --fit list "
                "without it holds it)", setf);
    if (p->target_absent)
        note(p, "%s is simulated with the settings of %s's runs (pool, requests per phase, "
                "succeed rate)", p->target, b->arch);
    else if (ta != ba)
        settings_notes(p, o->base.config, b->file, ta, o->base.overrides);
    if (p->source == VAL_PREDICT_SHIPPED)
        note(p, "baseline %s: the shipped calibration (the embedded defaults were fitted on these "
                "data: configs/tigerfans/base.ini); --calibrate fits it again", b->arch);
    else if (p->source == VAL_PREDICT_CONFIG)
        note(p, "baseline %s: the values of %s", b->arch, o->base.config);
    else if (p->source == VAL_PREDICT_CACHED)
        note(p, "baseline %s: the fit stored for these data (key %s, objective %.5g)", b->arch,
             b->key, b->objective);
    else
        note(p, "baseline %s: fitted from %s now (%u iterations, %u evaluations, objective "
                "%.5g; key %s)", b->arch, b->file, b->iters, b->evals, b->objective, b->key);
    if (b->nown) {
        char list[512] = "";
        for (size_t i = 0; i < b->nown; i++) {
            char kv[256];
            sim_err e;
            sim_err_clear(&e);
            if (val_calib_param_text(&b->own[i], kv, sizeof kv, &e) == SIM_OK)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         list[0] ? ", " : "", kv);
        }
        note(p, "baseline %s: its own demands of backends the fit does not cover, from its "
                "timings at concurrency %ld: %s", b->arch, b->own_c, list);
    }
    if (p->client_tried)
        note(p, "load generator: the baseline fitted with httpcore 1.0's pool (TigerFans pins "
                "httpx 0.28.1), objective %.5g, and with Debian 12's httpx 0.23 / httpcore 0.16 "
                "(the client of %s), objective %.5g: %s kept (--client config|debian12 picks one)",
             p->client_obj[0], val_preset_path("debian12"), p->client_obj[1],
             p->client_debian12 ? "Debian's" : "1.0's");
    double close = p->client_tried ? val_predict_clients_close(p->client_obj[0], p->client_obj[1])
                                   : -1;
    if (close >= 0)
        note(p, "load generator: the two fits are within %.0f%% of each other, so these data "
                "hardly tell the two clients apart%s; if you know which httpx measured the file, "
                "name it (--client config for TigerFans' pinned httpx 0.28, --client debian12 "
                "for Debian's python3-httpx): for a client-bound target such as tb_redis the "
                "choice matters more than the fit",
             close, ba->nkinds ? "" : " (without the baseline's operation timings only the sum "
                                      "of the client's and the server's CPU shows)");
    if (!ba->nkinds)
        note(p, "baseline %s has no operation timings in %s: the fit sees only phase "
                "throughputs, which fix the sum of the load generator's and the server's CPU at "
                "light load but not its split (the timings are what split it)",
             b->arch, b->file);
    if (tf_params_cfg_httpcore016(b->cfg)) {
        const sim_cfg_entry *hc = sim_cfg_find(b->cfg, "client", "httpcore");
        note(p, "load generator: httpcore 0.16 (Debian 12's python3-httpx 0.23.3), as %s sets it",
             hc->origin);
    }
    else if (!p->client_tried)
        note(p, "load generator: httpcore 1.0 (TigerFans pins httpx 0.28.1); for data measured "
                "with Debian 12's python3-httpx add --config configs/tigerfans/client_debian12.ini "
                "--calibrate (its pool, client.httpcore = 0.16, throttles far less)");
    if (!strcmp(ta->payments, "redis")) {
        /* the baseline's values, else the registry's defaults (its config
         * was read and checked by the fit already) */
        size_t ns;
        const sim_cfg_key *sch = tf_params_schema(&ns);
        long turns = 0, send = 0;
        int lock = 0;
        sim_err e;
        sim_err_clear(&e);
        if (!sim_cfg_int(b->cfg, sch, ns, "redis", "pool_turns", &turns, &e) &&
            !sim_cfg_bool(b->cfg, sch, ns, "redis", "pool_lock", &lock, &e) &&
            !sim_cfg_int(b->cfg, sch, ns, "redis", "send_turns", &send, &e))
            note(p, "redis-py: each Redis command waits %ld loop turns of the pool's connection "
                    "check (redis.pool_turns)%s, then %ld of its send (redis.send_turns: 1 on "
                    "Python 3.11, whose asyncio.wait_for runs TigerFans' send with socket_timeout "
                    "as a task; 0 on 3.12 and later: set it to the server's Python)",
                 turns,
                 lock ? " under the pool's lock (redis-py 5.3.0 and later, TigerFans' 6.4.0)"
                      : " outside the pool's lock (redis-py 4.3.4, Debian 12)",
                 send);
        const sim_cfg_entry *rh = sim_cfg_find(b->cfg, "host", "redis_on_host");
        int on = 0;
        if (rh)
            sim_parse_bool(rh->value, &on, NULL);
        long io = 0;
        sim_err_clear(&e);
        if (on && !sim_cfg_int(b->cfg, sch, ns, "redis", "io_threads", &io, &e))
            note(p, "Redis: io-threads %ld (redis.io_threads; TigerFans' Makefile runs Redis "
                    "with --io-threads 4 --io-threads-do-reads yes); a series measured against "
                    "another setting (CONFIG GET io-threads) needs --set redis.io_threads=N. On a "
                    "2-core VM io-threads 4 cost the webhook 0-33%% at concurrency 10-100 in four "
                    "live pairs with Debian's client, nothing with the pinned one "
                    "(docs/live-tigerfans.md)",
                 io);
        if (!on)
            note(p, "Redis: on cores of its own (host.redis_on_host = false, as for the TigerBench "
                    "host); for a run with Redis on the same few cores as the rest (TigerFans' "
                    "Makefile on a 2-core machine) add --set host.redis_on_host=true --set "
                    "host.redis_cores=1.3 (what Redis's threads got on a 2-core VM): with "
                    "io-threads 4 the webhook can fall at concurrency 8-20 (docs/redis-io-threads.md)");
    }
    /* 2 */
    if (own_fit(o, p, ta, 0.75, 0.85, err))
        return err->code;
    describe_own(p, ta);
    char d[512];
    if (p->c0)
        note(p, "%s", val_series_describe(&b->series, p->target, p->c0, d, sizeof d));
    double shift = p->rows_timing - p->rows_series;
    /* 3 */
    long levels[VAL_CALIB_MAX_POINTS];
    size_t nl = val_tigerbench_concurrencies(ba, VAL_TIGERBENCH_PHASE_ROWS, levels,
                                             VAL_CALIB_MAX_POINTS);
    if (nl == 0)
        return sim_err_set(err, SIM_EINPUT, "%s: the baseline %s has no phase throughput rows",
                           b->file, b->arch);
    if (nl > VAL_CALIB_MAX_POINTS)
        nl = VAL_CALIB_MAX_POINTS;
    val_calib_point *tp = calloc(nl, sizeof *tp);
    val_calib_sim *sims = calloc(nl, sizeof *sims);
    assert(tp && sims);
    int rc = SIM_OK;
    for (size_t i = 0; i < nl && rc == SIM_OK; i++) {
        val_predict_point *pp = &p->pts[i];
        pp->concurrency = tp[i].concurrency = levels[i];
        tp[i].weight = 1;
        for (int k = 0; k < TF_NKINDS; k++)
            tp[i].kind[k] = NAN;
        rc = val_series_state(&b->series, p->target_absent ? b->arch : p->target, levels[i],
                              &tp[i].holds_rows, &tp[i].goodies, &pp->how, NULL, err);
        tp[i].holds_rows = fmax(0, tp[i].holds_rows + shift);
        pp->holds_rows = tp[i].holds_rows;
        pp->goodies = tp[i].goodies;
        for (int k = 0; k < TF_NPHASES; k++) {
            const val_tigerbench_phase *ph = val_tigerbench_phase_get(ta, tf_phase_names[k],
                                                                      levels[i]);
            tp[i].thr[k] = pp->meas[k] = ph ? ph->x_mean : NAN;
            pp->meas_lo[k] = ph ? ph->x_min : NAN;
            pp->meas_hi[k] = ph ? ph->x_max : NAN;
        }
    }
    p->n = nl;
    /* 4: the target's own values without the state (each point has its own) */
    val_calib_param params[VAL_CALIB_MAX_PARAMS];
    size_t np = 0;
    for (size_t i = 0; i < p->own.np; i++)
        if (strcmp(p->own.params[i].key, "postgres.holds_rows"))
            params[np++] = p->own.params[i];
    val_calib_opts so = o->base.fit_opts;
    so.reps = p->reps;
    sim_cfg *tcfg = sim_cfg_new();
    if (rc == SIM_OK)
        rc = target_cfg(o, p, tcfg, err);
    /* in chunks of `jobs` points, for the progress bar */
    size_t chunk = so.jobs > 0 ? (size_t)so.jobs : 1;
    for (size_t i = 0; i < nl && rc == SIM_OK; i += chunk) {
        size_t m = nl - i < chunk ? nl - i : chunk;
        rc = val_calib_simulate(tcfg, params, np, tp + i, m, &so, sims + i, err);
        if (o->base.fit_opts.progress)
            o->base.fit_opts.progress(o->base.fit_opts.progress_ctx, 0,
                                      0.85 + 0.15 * (double)(i + m) / (double)nl);
    }
    sim_cfg_free(tcfg);
    for (size_t i = 0; i < nl && rc == SIM_OK; i++)
        for (int k = 0; k < TF_NPHASES; k++) {
            p->pts[i].thr[k] = sims[i].thr[k];
            p->pts[i].half[k] = sims[i].thr_ci[k];
            for (int l = 0; l < 2; l++)
                p->pts[i].busy[l][k] = sims[i].busy[l][k];
        }
    free(tp);
    free(sims);
    if (rc)
        return rc;
    /* 6: the baseline simulated as the target is (scored in finish) */
    return band_sim(o, p, err);
}

/* Steps 5-6 scored and the notes that follow from the points (the mean
 * of the fits' with an ensemble): errors and Amdahl-style scaling, the
 * band from base_thr, the points a loop holds. */
static void finish(val_prediction *p)
{
    const val_calibration *b = &p->base;
    const val_tigerbench_arch *ba = val_tigerbench_find(b->tb, b->arch), *ta = target_arch(p);
    assert(ba && ta); /* predict_one checked both */
    /* 5 */
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        double sp = p->c0 > 0 ? amdahl_speedup(ba, ta, ph, p->c0) : NAN;
        for (size_t i = 0; i < p->n; i++) {
            val_predict_point *pp = &p->pts[i];
            const val_tigerbench_phase *bph = val_tigerbench_phase_get(ba, tf_phase_names[ph],
                                                                       pp->concurrency);
            pp->amdahl[ph] = bph && !isnan(sp) ? bph->x_mean * sp : NAN;
            int counted = pp->concurrency >= p->mape_from;
            sim_mape_add_range(counted ? &p->mape_sim : NULL, pp->thr[ph], pp->meas[ph],
                               pp->meas_lo[ph], pp->meas_hi[ph]);
            sim_mape_add(counted ? &p->mape_amdahl : NULL, pp->amdahl[ph], pp->meas[ph]);
        }
    }
    /* 6: the band, and the measured points in it */
    band_score(p);
    for (size_t i = 0; i < p->n && !isnan(p->band); i++)
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            const val_predict_point *pp = &p->pts[i];
            double lo, hi, m = pp->meas[ph];
            band_bounds(p, pp->thr[ph], &lo, &hi);
            p->in_band += pp->concurrency >= p->mape_from && m > 0 && m >= lo && m <= hi;
        }
    char from_text[48] = " at every concurrency";
    if (p->base_from > 0)
        snprintf(from_text, sizeof from_text, " at concurrency >= %ld", p->base_from);
    if (!isnan(p->band)) {
        note(p, "band: %s's %ld measured throughputs%s, simulated at its calibration as the "
                "target is, are off by %.1f%% on average (root mean square %.1f%%; the worst: %s "
                "at %ld, %+.1f%%)",
             b->arch, p->base_mape.n, from_text, sim_mape_mean(&p->base_mape),
             100 * p->base_rms, tf_phase_names[p->base_worst_phase], p->base_worst_c,
             p->base_worst_err);
        note(p, "band: band_low..band_high = each prediction -+%.3f x %.1f%% x sqrt(%ld / (%ld - "
                "%zu)) = %.1f%% (a fit of %zu values to %ld throughputs leaves residuals smaller "
                "than the errors of points it did not see): where about nine in ten of the "
                "target's measured points fall if its errors spread as the baseline's do",
             VAL_PREDICT_BAND_Z, 100 * p->base_rms, p->base_n, p->base_n, b->np, 100 * p->band,
             b->np, p->base_n);
        /* PostgreSQL work the target does and the baseline never did is
         * priced at the statement cost fitted to the baseline's other
         * statements (step 2): the band has not seen an error there */
        int pay = !strcmp(ta->payments, "pg") && strcmp(ba->payments, "pg");
        int acc = !strcmp(ta->accounting, "pg") && strcmp(ba->accounting, "pg");
        if (pay || acc)
            note(p, "band: %s keeps %s%s%s in PostgreSQL, which %s's runs never did: priced at "
                    "the statement cost fitted to %s's other statements, where the band, "
                    "measured on what %s ran, holds no error of that pricing (docs/calibration.md, "
                    "\"The band\")",
                 p->target, pay ? "its payment sessions" : "", pay && acc ? " and " : "",
                 acc ? "its accounting" : "", b->arch, b->arch, b->arch);
    } else if (p->base_n <= (long)b->np) {
        note(p, "band: none (band_low, band_high empty): %s has %ld measured throughputs, no more "
                "than the %zu values a fit of them chooses, so its errors tell nothing of a point "
                "it did not see", b->arch, p->base_n, b->np);
    } else {
        note(p, "band: none (band_low, band_high empty): no simulated throughput of %s's points "
                "could be set against a measured one", b->arch);
    }
    /* 7: the points a loop holds */
    for (int l = 0; l < 2; l++) {
        char held[240]; /* the note stays within VAL_PREDICT_NOTE_LEN */
        if (held_points(p, l, held, sizeof held))
            note(p, "%s's event loop is busy %.0f%% of the time or more (%s_busy): %s; there it "
                    "sets the throughput, and a faster backend would not raise it",
                 l ? "the server" : "the load generator", 100 * VAL_PREDICT_HELD,
                 l ? "server" : "client", held);
    }
}

/* Step 7: fits 1..nf-1 from the seeds after o's (each with the client
 * the first fit kept) added into p, which holds fit 0; every point's
 * throughput, busy shares and the baseline's simulated points become the
 * means, the CI half-width that of a mean of independent estimates,
 * fit_lo..fit_hi the least and greatest. */
static int ensemble(const val_predict_opts *o, val_prediction *p, unsigned nf, sim_err *err)
{
    val_prediction *q = malloc(sizeof *q);
    assert(q);
    double (*h2)[TF_NPHASES] = calloc(p->n, sizeof *h2);
    assert(h2);
    for (size_t i = 0; i < p->n; i++) /* fit_lo, fit_hi start at fit 0's thr (the caller) */
        for (int ph = 0; ph < TF_NPHASES; ph++)
            h2[i][ph] = p->pts[i].half[ph] * p->pts[i].half[ph];
    p->fit_obj[0] = p->base.objective;
    int rc = SIM_OK;
    for (unsigned f = 1; f < nf && rc == SIM_OK; f++) {
        val_predict_opts of = *o;
        of.base.fit_opts.seed = o->base.fit_opts.seed + f;
        of.client = p->client_debian12 ? VAL_PREDICT_CLIENT_DEBIAN12 : VAL_PREDICT_CLIENT_CONFIG;
        slice sl;
        with_slice(&of.base.fit_opts, &sl, &o->base.fit_opts, (double)f / nf,
                   (double)(f + 1) / nf);
        rc = predict_one(&of, q, err);
        if (rc == SIM_OK) {
            assert(q->n == p->n && q->base.npts == p->base.npts);
            p->fit_obj[f] = q->base.objective;
            for (size_t i = 0; i < p->n; i++)
                for (int ph = 0; ph < TF_NPHASES; ph++) {
                    val_predict_point *pp = &p->pts[i];
                    const val_predict_point *qp = &q->pts[i];
                    assert(qp->concurrency == pp->concurrency);
                    pp->thr[ph] += qp->thr[ph];
                    pp->fit_lo[ph] = fmin(pp->fit_lo[ph], qp->thr[ph]);
                    pp->fit_hi[ph] = fmax(pp->fit_hi[ph], qp->thr[ph]);
                    h2[i][ph] += qp->half[ph] * qp->half[ph];
                    for (int l = 0; l < 2; l++)
                        pp->busy[l][ph] += qp->busy[l][ph];
                }
            for (size_t k = 0; k < p->base.npts; k++)
                for (int ph = 0; ph < TF_NPHASES; ph++)
                    p->base_thr[k][ph] += q->base_thr[k][ph];
            if (q->base.save_status && !p->base.save_status) {
                p->base.save_status = q->base.save_status;
                p->base.save_err = q->base.save_err;
            }
        }
        val_predict_fini(q);
    }
    free(q);
    for (size_t i = 0; i < p->n && rc == SIM_OK; i++)
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            val_predict_point *pp = &p->pts[i];
            pp->thr[ph] /= nf;
            pp->half[ph] = sqrt(h2[i][ph]) / nf;
            for (int l = 0; l < 2; l++)
                pp->busy[l][ph] /= nf;
        }
    for (size_t k = 0; k < p->base.npts && rc == SIM_OK; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++)
            p->base_thr[k][ph] /= nf;
    free(h2);
    return rc;
}

int val_predict_run(const val_predict_opts *o, val_prediction *p, sim_err *err)
{
    unsigned nf = o->fits ? o->fits : 1;
    assert(nf <= VAL_PREDICT_MAX_FITS);
    val_predict_opts o0 = *o;
    slice sl;
    if (nf > 1)
        with_slice(&o0.base.fit_opts, &sl, &o->base.fit_opts, 0, 1.0 / nf);
    int rc = predict_one(&o0, p, err);
    p->base.fit_opts = o->base.fit_opts; /* the slice lives on this stack */
    if (rc)
        return rc;
    for (size_t i = 0; i < p->n; i++)
        for (int ph = 0; ph < TF_NPHASES; ph++)
            p->pts[i].fit_lo[ph] = p->pts[i].fit_hi[ph] = p->pts[i].thr[ph];
    p->fits = 1;
    if (nf > 1 && p->source != VAL_PREDICT_FITTED && p->source != VAL_PREDICT_CACHED) {
        note(p, "one fit, not %u: the baseline's values are given (%s), and --fits averages "
                "fits of the baseline from several seeds", nf, val_predict_source_name(p->source));
    } else if (nf > 1) {
        rc = ensemble(o, p, nf, err);
        if (rc)
            return rc;
        p->fits = nf;
        char objs[160] = "";
        for (unsigned f = 0; f < nf; f++)
            snprintf(objs + strlen(objs), sizeof objs - strlen(objs), "%s%.3g", f ? ", " : "",
                     p->fit_obj[f]);
        note(p, "baseline %s: %u fits from seeds %llu-%llu (objectives %s), each with the load "
                "generator the first kept; every point is the mean of their predictions, "
                "fit_low..fit_high their least and greatest: a wide spread is a split of the "
                "costs the baseline's throughputs do not fix", p->base.arch, nf,
             (unsigned long long)o->base.fit_opts.seed,
             (unsigned long long)(o->base.fit_opts.seed + nf - 1), objs);
    }
    finish(p);
    return SIM_OK;
}

/* Step 6, the simulation: the baseline's points at its calibration as the
 * target is (reps replications) into p->base_thr (NaN where not
 * simulated), and base_n, the measured throughputs the values were (or
 * could have been) fitted to.  Nothing is simulated when the baseline has
 * no more throughputs than fitted values: their errors would say nothing
 * of a point the fit did not see. */
static int band_sim(const val_predict_opts *o, val_prediction *p, sim_err *err)
{
    const val_calibration *b = &p->base;
    for (size_t k = 0; k < VAL_CALIB_MAX_POINTS; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++)
            p->base_thr[k][ph] = NAN;
    p->base_n = 0;
    for (size_t k = 0; k < b->npts; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++)
            p->base_n += isfinite(b->pts[k].thr[ph]) && b->pts[k].thr[ph] > 0;
    if (p->base_n <= (long)b->np)
        return SIM_OK;
    val_calib_sim *sims = calloc(b->npts, sizeof *sims);
    assert(sims);
    val_calib_opts so = o->base.fit_opts;
    so.reps = p->reps;
    int rc = val_calib_simulate(b->cfg, b->params, b->np, b->pts, b->npts, &so, sims, err);
    for (size_t k = 0; k < b->npts && rc == SIM_OK; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++)
            p->base_thr[k][ph] = sims[k].thr[ph];
    free(sims);
    return rc;
}

/* Step 6, the score: base_thr's errors against the baseline's measured
 * throughputs, base_mape, base_rms (a fraction) and the worst point, over
 * the points at concurrency >= mape_from (all of them when none is that
 * high); band, the half-width.  No band (NaN) without a simulation
 * (band_sim) or when no error could be measured. */
static void band_score(val_prediction *p)
{
    const val_calibration *b = &p->base;
    sim_mape_init(&p->base_mape);
    p->base_rms = p->band = NAN;
    p->base_worst_phase = -1;
    p->base_worst_c = 0;
    p->base_worst_err = NAN;
    if (p->base_n <= (long)b->np)
        return;
    long from = p->mape_from;
    int any = 0;
    for (size_t k = 0; k < b->npts; k++)
        any |= b->pts[k].concurrency >= from;
    if (!any)
        from = LONG_MIN;
    p->base_from = any ? from : 0;
    double ss = 0;
    for (size_t k = 0; k < b->npts; k++) {
        if (b->pts[k].concurrency < from)
            continue;
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            double e = sim_mape_add(&p->base_mape, p->base_thr[k][ph], b->pts[k].thr[ph]);
            if (isnan(e))
                continue;
            ss += e * e;
            if (!(fabs(e) <= fabs(p->base_worst_err))) {
                p->base_worst_err = e;
                p->base_worst_phase = ph;
                p->base_worst_c = b->pts[k].concurrency;
            }
        }
    }
    if (p->base_mape.n)
        p->base_rms = sqrt(ss / (double)p->base_mape.n) / 100;
    p->band = VAL_PREDICT_BAND_Z * p->base_rms *
              sqrt((double)p->base_n / (double)(p->base_n - (long)b->np));
}

/* The points where the load generator's loop (server = 0) or the server's
 * loops (server = 1) are busy at least VAL_PREDICT_HELD of the phase's time, into
 * buf (len bytes, truncated if need be) as "checkout at 10, 30-100;
 * webhook at 40-100": runs of consecutive concurrencies per phase.
 * Returns how many points. */
static int held_points(const val_prediction *p, int server, char *buf, size_t len)
{
    int n = 0;
    buf[0] = '\0';
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        int runs = 0;
        for (size_t i = 0; i < p->n; i++) {
            if (!(p->pts[i].busy[server][ph] >= VAL_PREDICT_HELD))
                continue;
            size_t j = i;
            while (j + 1 < p->n && p->pts[j + 1].busy[server][ph] >= VAL_PREDICT_HELD)
                j++;
            size_t used = strlen(buf);
            char run[64];
            if (j > i)
                snprintf(run, sizeof run, "%ld-%ld", p->pts[i].concurrency, p->pts[j].concurrency);
            else
                snprintf(run, sizeof run, "%ld", p->pts[i].concurrency);
            if (runs)
                snprintf(buf + used, len - used, ", %s", run);
            else
                snprintf(buf + used, len - used, "%s%s at %s", used ? "; " : "", tf_phase_names[ph],
                         run);
            runs++;
            n += (int)(j - i + 1);
            i = j;
        }
    }
    return n;
}

void val_predict_fini(val_prediction *p)
{
    sim_cfg_free(p->client_ov);
    p->client_ov = NULL;
    val_calib_fini(&p->base);
    val_calib_fini(&p->own);
}

void val_predict_table(const val_prediction *p, sim_table *t)
{
    int any = 0;
    for (size_t i = 0; i < p->n; i++)
        for (int k = 0; k < TF_NPHASES; k++)
            any |= !isnan(p->pts[i].meas[k]);
    int cph = sim_table_col(t, "phase", NULL), cc = sim_table_col(t, "concurrency", "%.0f");
    int cx = sim_table_col(t, "throughput", "%.1f"), clo = sim_table_col(t, "ci_low", "%.1f");
    int chi = sim_table_col(t, "ci_high", "%.1f");
    int cbl = sim_table_col(t, "band_low", "%.1f"), cbh = sim_table_col(t, "band_high", "%.1f");
    int cfl = -1, cfh = -1;
    if (p->fits > 1) {
        cfl = sim_table_col(t, "fit_low", "%.1f");
        cfh = sim_table_col(t, "fit_high", "%.1f");
    }
    int cm = -1, cml = -1, cmh = -1, ce = -1, ca = -1, cae = -1;
    if (any) {
        cm = sim_table_col(t, "measured", "%.1f");
        cml = sim_table_col(t, "measured_min", "%.1f");
        cmh = sim_table_col(t, "measured_max", "%.1f");
        ce = sim_table_col(t, "error_pct", "%.1f");
        ca = sim_table_col(t, "amdahl", "%.1f");
        cae = sim_table_col(t, "amdahl_error_pct", "%.1f");
    }
    int cr = sim_table_col(t, "holds_rows", "%.0f");
    int cbc = sim_table_col(t, "client_busy", "%.2f"), cbs = sim_table_col(t, "server_busy", "%.2f");
    /* the holds table is read by PostgreSQL accounting only: empty for a
     * target that accounts in TigerBeetle */
    const val_tigerbench_arch *ta = p->target_absent || p->base.tb ? target_arch(p) : NULL;
    int rows = !ta || strcmp(ta->accounting, "tb");
    for (int ph = 0; ph < TF_NPHASES; ph++)
        for (size_t i = 0; i < p->n; i++) {
            const val_predict_point *pp = &p->pts[i];
            double x = pp->thr[ph], h = pp->half[ph];
            sim_table_row(t);
            sim_table_str(t, cph, tf_phase_names[ph]);
            sim_table_num(t, cc, (double)pp->concurrency);
            sim_table_num(t, cx, x);
            sim_table_num(t, clo, fmax(0, x - h)); /* a throughput is never negative */
            sim_table_num(t, chi, x + h);
            double lo, hi;
            band_bounds(p, x, &lo, &hi);
            sim_table_num(t, cbl, lo); /* NaN: an empty cell */
            sim_table_num(t, cbh, hi);
            if (p->fits > 1) {
                sim_table_num(t, cfl, pp->fit_lo[ph]);
                sim_table_num(t, cfh, pp->fit_hi[ph]);
            }
            if (any && !isnan(pp->meas[ph])) {
                sim_table_num(t, cm, pp->meas[ph]);
                sim_table_num(t, cml, pp->meas_lo[ph]);
                sim_table_num(t, cmh, pp->meas_hi[ph]);
                sim_table_num(t, ce, sim_mape_add(NULL, x, pp->meas[ph]));
                if (!isnan(pp->amdahl[ph])) {
                    sim_table_num(t, ca, pp->amdahl[ph]);
                    sim_table_num(t, cae, sim_mape_add(NULL, pp->amdahl[ph], pp->meas[ph]));
                }
            }
            if (rows)
                sim_table_num(t, cr, pp->holds_rows);
            sim_table_num(t, cbc, pp->busy[0][ph]);
            sim_table_num(t, cbs, pp->busy[1][ph]);
        }
}
