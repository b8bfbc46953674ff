#include "sim/sim_rep.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_stats.h"

void sim_layout_init(sim_layout *l)
{
    l->m = NULL;
    l->n = l->cap = 0;
}

void sim_layout_fini(sim_layout *l)
{
    free(l->m);
    l->m = NULL;
    l->n = l->cap = 0;
}

size_t sim_layout_add(sim_layout *l, const char *scope, const char *name, const char *metric,
                      double theory, unsigned flags, const char *fmt)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 32;
        l->m = realloc(l->m, l->cap * sizeof *l->m);
        assert(l->m && "out of memory");
    }
    sim_metric *m = &l->m[l->n];
    snprintf(m->scope, sizeof m->scope, "%s", scope);
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->metric, sizeof m->metric, "%s", metric);
    m->theory = theory;
    m->flags = flags;
    m->fmt = fmt;
    m->text_scale = 1;
    m->text_unit = NULL;
    return l->n++;
}

void sim_layout_text_unit(sim_layout *l, size_t k, double text_scale, const char *unit)
{
    assert(k < l->n && text_scale > 0 && unit && *unit);
    l->m[k].text_scale = text_scale;
    l->m[k].text_unit = unit;
}

const char *sim_metric_text_name(const sim_metric *m, char *buf, size_t len)
{
    if (m->text_unit)
        snprintf(buf, len, "%s_%s", m->metric, m->text_unit);
    else
        snprintf(buf, len, "%s", m->metric);
    return buf;
}

const char *sim_metric_text(const sim_metric *m, double mean, double half, char *buf, size_t len)
{
    double k = m->text_scale > 0 ? m->text_scale : 1;
    sim_table_fmt_ci(buf, len, m->fmt ? m->fmt : "%.4g", mean * k, half * k);
    return buf;
}

long sim_layout_find(const sim_layout *l, const char *scope, const char *name, const char *metric)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->m[i].scope, scope) && !strcmp(l->m[i].name, name) &&
            !strcmp(l->m[i].metric, metric))
            return (long)i;
    return -1;
}

void sim_rep_result_fini(sim_rep_result *r)
{
    free(r->mean);
    free(r->half);
    free(r->values);
    r->mean = r->half = r->values = NULL;
    r->reps = 0;
}

typedef struct worker_ctx {
    sim_rep_fn fn;
    const void *model;
    uint64_t seed;
    size_t n;
    uint32_t first, count;  /* replications of this round */
    double *values;         /* base of the values array */
    int *rc;                /* per replication of the round */
    sim_err *errs;          /* per replication of the round */
    pthread_mutex_t lock;
    uint32_t next;
} worker_ctx;

static void *worker(void *arg)
{
    worker_ctx *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        uint32_t i = w->next++;
        pthread_mutex_unlock(&w->lock);
        if (i >= w->count)
            return NULL;
        uint32_t rep = w->first + i;
        sim_err_clear(&w->errs[i]);
        w->rc[i] = w->fn(w->model, w->seed, rep, w->values + (size_t)rep * w->n, &w->errs[i]);
    }
}

/* Is the stopping rule met with the first m replications? */
static int converged(const sim_rep_plan *p, const sim_layout *l, const double *values, uint32_t m)
{
    if (m < p->min_reps)
        return 0;
    if (p->target_rel <= 0)
        return m >= p->max_reps;
    if (m < 2)
        return 0;
    double *x = malloc(m * sizeof *x);
    assert(x);
    int ok = 1;
    for (size_t k = 0; k < l->n && ok; k++) {
        if (!(l->m[k].flags & SIM_METRIC_WATCH))
            continue;
        for (uint32_t r = 0; r < m; r++)
            x[r] = values[(size_t)r * l->n + k];
        double mean, half;
        sim_ci(x, m, p->level, &mean, &half);
        if (!isfinite(mean))
            continue; /* undefined metric: cannot be watched */
        if (half > p->target_rel * fabs(mean))
            ok = 0;
    }
    free(x);
    return ok;
}

int sim_rep_run(const sim_rep_plan *p, const sim_layout *l, sim_rep_fn fn, const void *model,
                uint64_t seed, sim_rep_result *out, sim_err *err)
{
    assert(p->max_reps >= 1 && p->min_reps >= 1 && p->min_reps <= p->max_reps && p->jobs >= 1);
    memset(out, 0, sizeof *out);
    out->n = l->n;
    size_t n = l->n ? l->n : 1;
    double *values = calloc((size_t)p->max_reps * n, sizeof *values);
    int *rc = calloc((size_t)p->jobs, sizeof *rc);
    sim_err *errs = calloc((size_t)p->jobs, sizeof *errs);
    assert(values && rc && errs && "out of memory");
    uint32_t done = 0, keep = 0;
    int status = SIM_OK, conv = 0;
    while (done < p->max_reps && !conv) {
        uint32_t count = (uint32_t)p->jobs;
        if (count > p->max_reps - done)
            count = p->max_reps - done;
        worker_ctx w = {fn, model, seed, l->n, done, count, values, rc, errs,
                        PTHREAD_MUTEX_INITIALIZER, 0};
        if (count == 1) {
            worker(&w);
        } else {
            pthread_t th[64];
            int nt = (int)count < 64 ? (int)count : 64;
            for (int t = 0; t < nt; t++)
                if (pthread_create(&th[t], NULL, worker, &w) != 0)
                    nt = t; /* run what could be started; the others' work goes to them */
            if (nt == 0)
                worker(&w);
            for (int t = 0; t < nt; t++)
                pthread_join(th[t], NULL);
        }
        pthread_mutex_destroy(&w.lock);
        for (uint32_t i = 0; i < count; i++) {
            if (rc[i] != SIM_OK) {
                *err = errs[i];
                status = rc[i];
                break;
            }
            keep = done + i + 1;
            if (converged(p, l, values, keep)) {
                conv = 1;
                break;
            }
        }
        if (status != SIM_OK)
            break;
        done += count;
    }
    free(rc);
    free(errs);
    if (status != SIM_OK) {
        free(values);
        return status;
    }
    out->reps = keep;
    out->converged = conv || p->target_rel <= 0;
    out->values = values;
    out->mean = calloc(n, sizeof *out->mean);
    out->half = calloc(n, sizeof *out->half);
    double *x = malloc(keep * sizeof *x);
    assert(out->mean && out->half && x);
    for (size_t k = 0; k < l->n; k++) {
        for (uint32_t r = 0; r < keep; r++)
            x[r] = values[(size_t)r * l->n + k];
        sim_ci(x, keep, p->level, &out->mean[k], &out->half[k]);
    }
    free(x);
    return SIM_OK;
}

static void rep_table(const sim_layout *l, const sim_rep_result *r, sim_table *t, int text)
{
    int cs = sim_table_col(t, "scope", NULL);
    int cn = sim_table_col(t, "name", NULL);
    sim_table_group_by(t, cs);
    char *done = calloc(l->n ? l->n : 1, 1);
    assert(done);
    for (size_t i = 0; i < l->n; i++) {
        if (done[i])
            continue;
        sim_table_row(t);
        sim_table_str(t, cs, l->m[i].scope);
        sim_table_str(t, cn, l->m[i].name);
        for (size_t j = i; j < l->n; j++) {
            const sim_metric *m = &l->m[j];
            if (done[j] || strcmp(m->scope, l->m[i].scope) || strcmp(m->name, l->m[i].name))
                continue;
            done[j] = 1;
            /* whether any metric of this column name has a theory value */
            int any_theory = 0;
            for (size_t k = 0; k < l->n; k++)
                if (!strcmp(l->m[k].metric, m->metric) && !isnan(l->m[k].theory))
                    any_theory = 1;
            char col[96];
            if (text) {
                char a[160], name[64];
                sim_metric_text(m, r->mean[j], r->reps >= 2 ? r->half[j] : NAN, a, sizeof a);
                sim_metric_text_name(m, name, sizeof name);
                sim_table_str(t, sim_table_col(t, name, NULL), a);
                if (any_theory) {
                    snprintf(col, sizeof col, "%s (theory)", name);
                    sim_metric_text(m, m->theory, NAN, a, sizeof a);
                    if (!isnan(m->theory))
                        sim_table_str(t, sim_table_col(t, col, NULL), a);
                    else
                        sim_table_col(t, col, NULL);
                }
                continue;
            }
            sim_table_num(t, sim_table_col(t, m->metric, m->fmt), r->mean[j]);
            if (r->reps >= 2) {
                snprintf(col, sizeof col, "%s_ci", m->metric);
                sim_table_num(t, sim_table_col(t, col, m->fmt), r->half[j]);
            }
            if (any_theory) {
                snprintf(col, sizeof col, "%s_theory", m->metric);
                sim_table_num(t, sim_table_col(t, col, m->fmt), m->theory);
            }
        }
    }
    free(done);
}

void sim_rep_table(const sim_layout *l, const sim_rep_result *r, sim_table *t)
{
    rep_table(l, r, t, 0);
}

void sim_rep_table_text(const sim_layout *l, const sim_rep_result *r, sim_table *t)
{
    rep_table(l, r, t, 1);
}
