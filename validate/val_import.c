/* val_import: see val_import.h.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "validate/val_import.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "validate/val_samples.h"
#include "validate/val_series.h"
#include "validate/val_tigerbench.h"

const char *val_import_kind_name(val_import_kind k)
{
    return k == VAL_IMPORT_TIGERBENCH ? "tigerbench" : k == VAL_IMPORT_SAMPLES ? "samples" : "?";
}

/* Is `name` one of the comma-separated fields of the header line h? */
static int has_field(const char *h, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = h; *p;) {
        const char *e = p + strcspn(p, ",\r\n");
        const char *a = p, *b = e;
        if (b > a && *a == '"' && b[-1] == '"' && b - a >= 2)
            a++, b--;
        if ((size_t)(b - a) == n && !memcmp(a, name, n))
            return 1;
        if (*e != ',')
            break;
        p = e + 1;
    }
    return 0;
}

static int detect(const char *path, val_import_kind *kind, sim_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_err_set(err, errno == ENOENT ? SIM_EINPUT : SIM_EFAIL, "%s: cannot open: %s",
                           path, strerror(errno));
    char line[4096];
    int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!got)
        return sim_err_set(err, SIM_EINPUT, "%s: empty file", path);
    if (has_field(line, "operation") && has_field(line, "latency_us")) {
        *kind = VAL_IMPORT_SAMPLES;
        return SIM_OK;
    }
    if (has_field(line, "phase") && has_field(line, "accounting") &&
        has_field(line, "throughput")) {
        *kind = VAL_IMPORT_TIGERBENCH;
        return SIM_OK;
    }
    return sim_err_set(err, SIM_EINPUT,
                       "%s:1: neither a TigerBench CSV (columns phase, accounting, payments, "
                       "concurrency, ..., throughput) nor probe samples (%s)",
                       path, VAL_SAMPLES_HEADER);
}

/* ---- TigerBench ---- */

static sim_table *tigerbench(const char *path, sim_err *err)
{
    val_tigerbench *tb;
    if (val_tigerbench_read(path, &tb, err))
        return NULL;
    /* what predict and calibrate would refuse is not stored either */
    if (val_series_check(tb, err)) {
        val_tigerbench_free(tb);
        return NULL;
    }
    sim_table *t = sim_table_new("tigerbench");
    assert(t && "out of memory");
    int ca = sim_table_col(t, "architecture", NULL), cs = sim_table_col(t, "scope", NULL);
    int cn = sim_table_col(t, "name", NULL), cc = sim_table_col(t, "concurrency", "%.0f");
    int cr = sim_table_col(t, "reps", "%.0f"), cx = sim_table_col(t, "throughput", "%.1f");
    int cxs = sim_table_col(t, "throughput_sd", "%.1f");
    int cxl = sim_table_col(t, "throughput_min", "%.1f");
    int cxh = sim_table_col(t, "throughput_max", "%.1f");
    int cw = sim_table_col(t, "walltime", "%.3f"), cm = sim_table_col(t, "mean", "%.4g");
    int csd = sim_table_col(t, "sd", "%.4g"), cns = sim_table_col(t, "samples", "%.0f");
    for (size_t i = 0; i < val_tigerbench_narch(tb); i++) {
        const val_tigerbench_arch *a = val_tigerbench_arch_at(tb, i);
        for (size_t j = 0; j < a->nphases; j++) {
            const val_tigerbench_phase *p = &a->phases[j];
            sim_table_row(t);
            sim_table_str(t, ca, a->name);
            sim_table_str(t, cs, "phase");
            sim_table_str(t, cn, p->phase);
            sim_table_num(t, cc, (double)p->concurrency);
            sim_table_num(t, cr, p->reps);
            sim_table_num(t, cx, p->x_mean);
            sim_table_num(t, cxs, p->x_sd);
            sim_table_num(t, cxl, p->x_min);
            sim_table_num(t, cxh, p->x_max);
            sim_table_num(t, cw, p->wall_mean);
        }
        for (size_t j = 0; j < a->nkinds; j++) {
            const val_tigerbench_kind *k = &a->kinds[j];
            sim_table_row(t);
            sim_table_str(t, ca, a->name);
            sim_table_str(t, cs, "kind");
            sim_table_str(t, cn, k->kind);
            sim_table_num(t, cc, (double)k->concurrency);
            sim_table_num(t, cr, k->reps);
            sim_table_num(t, cm, k->mean);
            sim_table_num(t, csd, k->sd_pooled);
            sim_table_num(t, cns, (double)k->samples);
        }
    }
    val_tigerbench_free(tb);
    return t;
}

/* ---- probe samples ---- */

typedef struct group {
    char op[VAL_SAMPLES_OP_MAX + 1];
    unsigned conc;
    double *x;
    size_t n, cap;
} group;

static int group_cmp(const void *a, const void *b)
{
    const group *x = a, *y = b;
    return (x->conc > y->conc) - (x->conc < y->conc);
}

static sim_table *samples(const char *path, sim_err *err)
{
    val_samples_reader *r = val_samples_open(path, err);
    if (!r)
        return NULL;
    group *g = NULL;
    size_t ng = 0, cap = 0;
    char (*ops)[VAL_SAMPLES_OP_MAX + 1] = NULL; /* operations in order of first appearance */
    size_t nops = 0;
    val_sample s;
    int rc;
    while ((rc = val_samples_next(r, &s, err)) == 1) {
        size_t i = 0;
        while (i < ng && (g[i].conc != s.concurrency || strcmp(g[i].op, s.op)))
            i++;
        if (i == ng) {
            if (ng == cap) {
                cap = cap ? 2 * cap : 16;
                g = realloc(g, cap * sizeof *g);
                ops = realloc(ops, cap * sizeof *ops);
                assert(g && ops && "out of memory");
            }
            memset(&g[ng], 0, sizeof g[ng]);
            snprintf(g[ng].op, sizeof g[ng].op, "%s", s.op);
            g[ng].conc = s.concurrency;
            ng++;
            size_t k = 0;
            while (k < nops && strcmp(ops[k], s.op))
                k++;
            if (k == nops)
                snprintf(ops[nops++], sizeof ops[0], "%s", s.op);
        }
        group *x = &g[i];
        if (x->n == x->cap) {
            x->cap = x->cap ? 2 * x->cap : 64;
            x->x = realloc(x->x, x->cap * sizeof *x->x);
            assert(x->x && "out of memory");
        }
        x->x[x->n++] = s.latency_us * 1e-6;
    }
    val_samples_reader_free(r);
    sim_table *t = NULL;
    if (rc == 0 && ng == 0)
        sim_err_set(err, SIM_EINPUT, "%s: no samples after the header", path);
    if (rc == 0 && ng > 0) {
        t = sim_table_new("samples");
        assert(t && "out of memory");
        int cs = sim_table_col(t, "scope", NULL), cn = sim_table_col(t, "name", NULL);
        int cc = sim_table_col(t, "concurrency", "%.0f"), ck = sim_table_col(t, "count", "%.0f");
        int cm = sim_table_col(t, "mean", "%.4g"), csd = sim_table_col(t, "sd", "%.4g");
        int c50 = sim_table_col(t, "p50", "%.4g"), c90 = sim_table_col(t, "p90", "%.4g");
        int c99 = sim_table_col(t, "p99", "%.4g");
        for (size_t k = 0; k < nops; k++) {
            /* this operation's groups, by concurrency */
            group *sel = malloc(ng * sizeof *sel);
            assert(sel && "out of memory");
            size_t m = 0;
            for (size_t i = 0; i < ng; i++)
                if (!strcmp(g[i].op, ops[k]))
                    sel[m++] = g[i];
            qsort(sel, m, sizeof *sel, group_cmp);
            for (size_t i = 0; i < m; i++) {
                double *x = sel[i].x;
                size_t n = sel[i].n;
                gsl_sort(x, 1, n);
                sim_table_row(t);
                sim_table_str(t, cs, "operation");
                sim_table_str(t, cn, sel[i].op);
                sim_table_num(t, cc, sel[i].conc);
                sim_table_num(t, ck, (double)n);
                sim_table_num(t, cm, gsl_stats_mean(x, 1, n));
                sim_table_num(t, csd, n > 1 ? gsl_stats_sd(x, 1, n) : NAN);
                sim_table_num(t, c50, gsl_stats_quantile_from_sorted_data(x, 1, n, 0.50));
                sim_table_num(t, c90, gsl_stats_quantile_from_sorted_data(x, 1, n, 0.90));
                sim_table_num(t, c99, gsl_stats_quantile_from_sorted_data(x, 1, n, 0.99));
            }
            free(sel);
        }
    }
    for (size_t i = 0; i < ng; i++)
        free(g[i].x);
    free(g);
    free(ops);
    return t;
}

sim_table *val_import_read(const char *path, val_import_kind *kind, sim_err *err)
{
    val_import_kind k;
    if (detect(path, &k, err))
        return NULL;
    if (kind)
        *kind = k;
    return k == VAL_IMPORT_TIGERBENCH ? tigerbench(path, err) : samples(path, err);
}
