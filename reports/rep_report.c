/* rep_report: see rep_report.h.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "reports/rep_report.h"

#include "reports/rep_bottleneck.h"
#include "models/mdl_plan.h"
#include "sim/sim_str.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- small helpers ---- */

/* Append row r of src to dst (dst's first columns are src's, in the same
 * order; any others stay empty). */
static void copy_row(sim_table *dst, const sim_table *src, int r)
{
    sim_table_row(dst);
    for (int c = 0; c < sim_table_ncols(src); c++) {
        double v;
        const char *s = NULL;
        int kind = sim_table_cell(src, r, c, &v, &s);
        if (kind == 1)
            sim_table_num(dst, c, v);
        else if (kind == 2)
            sim_table_str(dst, c, s);
    }
}

/* String cell of row r in the column named name, or NULL. */
static const char *cell_str(const sim_table *t, int r, const char *name)
{
    int c = sim_table_find_col(t, name);
    const char *s = NULL;
    if (c < 0 || sim_table_cell(t, r, c, NULL, &s) != 2)
        return NULL;
    return s;
}

/* Number cell of row r in column c, or NaN. */
static double cell_num_at(const sim_table *t, int r, int c)
{
    double v = NAN;
    if (c < 0 || sim_table_cell(t, r, c, &v, NULL) != 1)
        return NAN;
    return v;
}

static double cell_num(const sim_table *t, int r, const char *name)
{
    return cell_num_at(t, r, sim_table_find_col(t, name));
}

/* Field value of a manifest table (field, value), or "". */
static const char *field(const sim_table *m, const char *name)
{
    for (int r = 0; r < sim_table_nrows(m); r++) {
        const char *f = cell_str(m, r, "field");
        if (f && !strcmp(f, name)) {
            const char *v = cell_str(m, r, "value");
            return v ? v : "";
        }
    }
    return "";
}

static void html(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* A gnuplot single-quoted string ('' stands for '; no line breaks). */
static void gq(FILE *out, const char *s)
{
    fputc('\'', out);
    for (; s && *s; s++) {
        if (*s == '\'')
            fputs("''", out);
        else
            fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
    }
    fputc('\'', out);
}

static void fmt_num(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (isinf(v))
        snprintf(buf, len, v > 0 ? "inf" : "-inf");
    else if (v == floor(v) && fabs(v) < 1e12)
        snprintf(buf, len, "%.0f", v);
    else if (fabs(v) >= 1000 && fabs(v) < 1e12)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.4g", v);
}

/* ---- chart data ---- */

#define MAXV 11

typedef struct point {
    double x, v[MAXV];
} point;

/* One group of rows (a phase, a component, a batcher) with its points. */
typedef struct group {
    char *name;
    point *p;
    size_t n, cap;
} group;

typedef struct groups {
    group *g;
    size_t n, cap;
} groups;

static group *group_get(groups *gs, const char *name)
{
    for (size_t i = 0; i < gs->n; i++)
        if (!strcmp(gs->g[i].name, name))
            return &gs->g[i];
    if (gs->n == gs->cap) {
        gs->cap = gs->cap ? 2 * gs->cap : 8;
        gs->g = realloc(gs->g, gs->cap * sizeof *gs->g);
        assert(gs->g);
    }
    group *g = &gs->g[gs->n++];
    memset(g, 0, sizeof *g);
    g->name = sim_str_dup(name);
    return g;
}

static void groups_free(groups *gs)
{
    for (size_t i = 0; i < gs->n; i++) {
        free(gs->g[i].name);
        free(gs->g[i].p);
    }
    free(gs->g);
    memset(gs, 0, sizeof *gs);
}

static int point_cmp(const void *a, const void *b)
{
    double x = ((const point *)a)->x, y = ((const point *)b)->x;
    return (x > y) - (x < y);
}

/* The x axis of one card: a numeric column, or categories (labels in the
 * order they first appear). */
typedef struct xaxis {
    int col;
    char *label;  /* owned */
    char **cats;
    size_t ncats;
    int integer;  /* numeric, every value a whole number */
    double lo, hi;
} xaxis;

static void xaxis_init(xaxis *ax, const sim_table *t, int col, const char *label)
{
    memset(ax, 0, sizeof *ax);
    ax->col = col;
    ax->label = sim_str_dup(label);
    if (col < 0)
        return;
    int strings = 0;
    ax->integer = 1;
    ax->lo = INFINITY;
    ax->hi = -INFINITY;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        double v = NAN;
        int k = sim_table_cell(t, r, col, &v, NULL);
        strings |= k == 2;
        if (k != 1)
            continue;
        ax->integer &= v == floor(v);
        ax->lo = v < ax->lo ? v : ax->lo;
        ax->hi = v > ax->hi ? v : ax->hi;
    }
    if (!strings)
        return;
    ax->integer = 0;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *s = NULL;
        if (sim_table_cell(t, r, col, NULL, &s) != 2)
            continue;
        size_t i = 0;
        while (i < ax->ncats && strcmp(ax->cats[i], s))
            i++;
        if (i == ax->ncats) {
            ax->cats = realloc(ax->cats, (ax->ncats + 1) * sizeof *ax->cats);
            assert(ax->cats);
            ax->cats[ax->ncats++] = sim_str_dup(s);
        }
    }
}

static void xaxis_fini(xaxis *ax)
{
    free(ax->label);
    for (size_t i = 0; i < ax->ncats; i++)
        free(ax->cats[i]);
    free(ax->cats);
}

/* x of row r: the number, or the category's index; NaN if none. */
static double x_of(const xaxis *ax, const sim_table *t, int r)
{
    if (!ax->ncats)
        return cell_num_at(t, r, ax->col);
    const char *s = NULL;
    if (sim_table_cell(t, r, ax->col, NULL, &s) != 2)
        return NAN;
    for (size_t i = 0; i < ax->ncats; i++)
        if (!strcmp(ax->cats[i], s))
            return (double)i;
    return NAN;
}

/* Group name of row r for rows of the given scope: the `name` column of
 * rows whose `scope` matches; for scope "phase" in a table without a scope
 * column, its `phase` column.  scope NULL: the `phase` column of any row. */
static const char *row_group(const sim_table *t, int r, const char *scope)
{
    if (scope && sim_table_find_col(t, "scope") >= 0) {
        const char *s = cell_str(t, r, "scope");
        if (!s || strcmp(s, scope))
            return NULL;
        const char *n = cell_str(t, r, "name");
        return n ? n : scope;
    }
    if (!scope || !strcmp(scope, "phase"))
        return cell_str(t, r, "phase");
    return NULL;
}

/* Gather, for each group of rows of the scope, the points (x, cols[0..n))
 * scaled by scale[k]; rows with none of the columns are left out.  Points
 * are sorted by x.  Returns how many points were found. */
static size_t collect(groups *gs, const sim_table *t, const xaxis *ax, const char *scope,
                      const char *const *cols, const double *scale, int n)
{
    assert(n <= MAXV);
    int ci[MAXV];
    int any = 0;
    for (int k = 0; k < n; k++) {
        ci[k] = sim_table_find_col(t, cols[k]);
        any |= ci[k] >= 0;
    }
    size_t total = 0;
    if (!any || ax->col < 0)
        return 0;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *name = row_group(t, r, scope);
        double x = x_of(ax, t, r);
        if (!name || isnan(x))
            continue;
        point p = {.x = x};
        int have = 0;
        for (int k = 0; k < MAXV; k++) {
            p.v[k] = k < n ? cell_num_at(t, r, ci[k]) * scale[k] : NAN;
            have |= !isnan(p.v[k]);
        }
        if (!have)
            continue;
        group *g = group_get(gs, name);
        if (g->n == g->cap) {
            g->cap = g->cap ? 2 * g->cap : 16;
            g->p = realloc(g->p, g->cap * sizeof *g->p);
            assert(g->p);
        }
        g->p[g->n++] = p;
        total++;
    }
    for (size_t i = 0; i < gs->n; i++)
        qsort(gs->g[i].p, gs->g[i].n, sizeof(point), point_cmp);
    return total;
}

/* Does any point of any group have a number in value k? */
static int has_value(const groups *gs, int k)
{
    for (size_t i = 0; i < gs->n; i++)
        for (size_t j = 0; j < gs->g[i].n; j++)
            if (!isnan(gs->g[i].p[j].v[k]))
                return 1;
    return 0;
}

/* ---- colours ---- */

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                      "#b07aa1", "#edc948", "#ff9da7", "#9c755f", "#bab0ac"};
#define NPALETTE (sizeof palette / sizeof palette[0])

/* The four TigerFans phases keep their colour in every chart. */
static const char *colour(const char *name, size_t i)
{
    static const char *const phases[] = {"checkout", "webhook", "reserve", "commit"};
    for (size_t k = 0; k < 4; k++)
        if (!strcmp(name, phases[k]))
            return palette[k];
    return palette[(i + 4) % NPALETTE];
}

/* ---- the gnuplot script ---- */

typedef struct chart {
    char title[160];
    char note[300];  /* one line under the chart */
    int wide;        /* spans the card's width */
    char *svg;       /* after gnuplot ran; owned */
} chart;

typedef struct plan {
    FILE *gp;         /* the script being written (memstream) */
    char *gp_text;
    size_t gp_len;
    const char *dir;  /* temporary directory */
    chart *c;
    size_t n, cap;
    int nblocks;
} plan;

/* Start chart i: reset, terminal, output, common style. */
static chart *chart_begin(plan *pl, int width, int height, const char *title)
{
    if (pl->n == pl->cap) {
        pl->cap = pl->cap ? 2 * pl->cap : 16;
        pl->c = realloc(pl->c, pl->cap * sizeof *pl->c);
        assert(pl->c);
    }
    chart *c = &pl->c[pl->n];
    memset(c, 0, sizeof *c);
    FILE *g = pl->gp;
    snprintf(c->title, sizeof c->title, "%s", title);
    fprintf(g, "\n# chart %zu: ", pl->n);
    for (const char *q = title; *q; q++)
        fputc(*q == '\n' ? ' ' : *q, g);
    fputs("\nreset\n", g);
    fprintf(g,
            "set terminal svg size %d,%d dynamic noenhanced font 'sans-serif,13' "
            "background '#ffffff'\n",
            width, height);
    fprintf(g, "set output '%s/c%zu.svg'\n", pl->dir, pl->n);
    fputs("set border 3 lw 1 lc rgb '#9aa0a6'\n"
          "set tics nomirror out scale 0.6 textcolor rgb '#5f6368'\n"
          "set grid xtics ytics lw 1 lc rgb '#e8eaed' dt 1\n"
          "set key outside right top vertical Left reverse samplen 2.5 spacing 1.15 "
          "textcolor rgb '#3c4043' nobox\n"
          "set xlabel textcolor rgb '#3c4043'\n"
          "set ylabel textcolor rgb '#3c4043'\n"
          "set style fill transparent solid 0.16 noborder\n"
          "set offsets graph 0.03, graph 0.03, graph 0.06, 0\n"
          "set format y '%.4g'\n",
          g);
    pl->n++;
    return c;
}

static void chart_end(plan *pl)
{
    fputs("unset multiplot\nset output\n", pl->gp);
}

static void set_xaxis(plan *pl, const xaxis *ax)
{
    FILE *g = pl->gp;
    fputs("set xlabel ", g);
    gq(g, ax->label);
    fputc('\n', g);
    if (ax->ncats) {
        fprintf(g, "set xrange [-0.5:%zu.5]\nset xtics (", ax->ncats - 1);
        for (size_t i = 0; i < ax->ncats; i++) {
            fprintf(g, "%s", i ? ", " : "");
            gq(g, ax->cats[i]);
            fprintf(g, " %zu", i);
        }
        fputs(")\nset offsets 0, 0, graph 0.06, 0\n", g);
    } else {
        /* the whole axis of the table, even where a chart has no point */
        double pad = ax->integer && ax->hi - ax->lo <= 12 ? 0.3 : 0;
        if (ax->lo < ax->hi)
            fprintf(g, "set xrange [%.10g:%.10g]\n", ax->lo - pad, ax->hi + pad);
        else if (ax->lo == ax->hi)
            fprintf(g, "set xrange [%.10g:%.10g]\n", ax->lo - 1, ax->hi + 1);
        else
            fputs("set autoscale xfix\n", g); /* no stretch to the next tic */
        if (ax->integer && ax->hi - ax->lo <= 12)
            fputs("set xtics 1\n", g);
        else if (ax->integer)
            fputs("set format x '%.0f'\n", g);
    }
}

/* Write a group's points as a datablock; returns its number. */
static int datablock(plan *pl, const group *gr)
{
    int id = pl->nblocks++;
    fprintf(pl->gp, "$d%d << EOD\n", id);
    for (size_t j = 0; j < gr->n; j++) {
        fprintf(pl->gp, "%.10g", gr->p[j].x);
        for (int k = 0; k < MAXV; k++) {
            if (isnan(gr->p[j].v[k]))
                fputs(" NaN", pl->gp);
            else
                fprintf(pl->gp, " %.10g", gr->p[j].v[k]);
        }
        fputc('\n', pl->gp);
    }
    fputs("EOD\n", pl->gp);
    return id;
}

/* The first of the columns names[] that t has, or NULL. */
static const char *first_col(const sim_table *t, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sim_table_find_col(t, names[i]) >= 0)
            return names[i];
    return NULL;
}

/* Value slots of the throughput chart. */
enum { TP_SIM, TP_HALF, TP_MEAS, TP_LIVE, TP_AMDAHL, TP_USL, TP_MLO, TP_MHI, TP_LO, TP_HI, TP_HELD };

/* Throughput per phase: the simulated curve with its confidence band
 * (from a half-width or from ci_low/ci_high), measured points (with their
 * range over repetitions; held-out ones of a calibration drawn open), and
 * the live, Amdahl and USL series. */
static void chart_throughput(plan *pl, const sim_table *t, const xaxis *ax)
{
    static const char *const simc[] = {"throughput", "simulated"};
    static const char *const halfc[] = {"throughput_ci", "simulated_ci"};
    const char *sc = first_col(t, simc, 2), *hc = first_col(t, halfc, 2);
    const char *cols[] = {sc ? sc : "throughput", hc ? hc : "throughput_ci", "measured", "live",
                          "amdahl", "usl", "measured_lo", "measured_hi", "ci_low", "ci_high",
                          "measured_held"};
    static const double one[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    static const char *const label[] = {NULL, NULL, "measured", "live", "Amdahl", "USL"};
    static const char *const style[] = {
        NULL, NULL, "points pt 7 ps 0.9", "linespoints dt 3 lw 1.5 pt 9 ps 0.8",
        "linespoints dt 4 lw 1.5 pt 6 ps 0.6", "lines dt 5 lw 1.5"};
    groups gs = {0};
    if (!collect(&gs, t, ax, "phase", cols, one, 11) || !has_value(&gs, TP_SIM)) {
        groups_free(&gs);
        return;
    }
    /* the band as lo/hi in TP_LO/TP_HI */
    for (size_t i = 0; i < gs.n; i++)
        for (size_t j = 0; j < gs.g[i].n; j++) {
            double *v = gs.g[i].p[j].v;
            if (!isnan(v[TP_HALF])) {
                v[TP_LO] = v[TP_SIM] - v[TP_HALF];
                v[TP_HI] = v[TP_SIM] + v[TP_HALF];
            }
        }
    int band = has_value(&gs, TP_LO) && has_value(&gs, TP_HI);
    int held = has_value(&gs, TP_HELD);
    char title[160];
    snprintf(title, sizeof title, "Throughput vs %s", ax->label);
    chart *c = chart_begin(pl, 600, 380, title);
    int series = 0;
    for (int k = TP_MEAS; k <= TP_USL; k++)
        series += has_value(&gs, k);
    snprintf(c->note, sizeof c->note, "%s%s%s%s",
             band ? "Lines: simulated mean; band: confidence interval. " : "",
             has_value(&gs, TP_MEAS) || held ? "Dots: measured" : "",
             has_value(&gs, TP_MLO) ? " (bars: range of the repetitions)" : "",
             held ? "; open: held out of the fit. " : has_value(&gs, TP_MEAS) ? ". " : "");
    if (series) {
        size_t k = strlen(c->note);
        snprintf(c->note + k, sizeof c->note - k, "Colour: phase; style: the series.");
    }
    set_xaxis(pl, ax);
    fputs("set ylabel 'requests/s'\nset yrange [0:*]\n", pl->gp);
    int *ids = malloc(gs.n * sizeof *ids);
    assert(ids);
    for (size_t i = 0; i < gs.n; i++)
        ids[i] = datablock(pl, &gs.g[i]);
    fputs("plot ", pl->gp);
    const char *sep = "";
    for (size_t i = 0; i < gs.n; i++) {
        const char *col = colour(gs.g[i].name, i);
        if (band) {
            fprintf(pl->gp, "%s$d%d using 1:%d:%d with filledcurves lc rgb '%s' notitle", sep,
                    ids[i], TP_LO + 2, TP_HI + 2, col);
            sep = ", \\\n  ";
        }
        fprintf(pl->gp, "%s$d%d using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '%s' title ",
                sep, ids[i], col);
        gq(pl->gp, gs.g[i].name);
        sep = ", \\\n  ";
        for (int k = TP_MEAS; k <= TP_USL; k++) {
            int present = 0;
            for (size_t j = 0; j < gs.g[i].n; j++)
                present |= !isnan(gs.g[i].p[j].v[k]);
            if (!present)
                continue;
            if (k == TP_MEAS) {
                int range = 0;
                for (size_t j = 0; j < gs.g[i].n; j++)
                    range |= !isnan(gs.g[i].p[j].v[TP_MLO]);
                if (range)
                    fprintf(pl->gp,
                            "%s$d%d using 1:%d:%d:%d with yerrorbars pt 7 ps 0.9 lw 1 lc rgb "
                            "'%s' notitle",
                            sep, ids[i], k + 2, TP_MLO + 2, TP_MHI + 2, col);
                else
                    fprintf(pl->gp, "%s$d%d using 1:%d with %s lc rgb '%s' notitle", sep, ids[i],
                            k + 2, style[k], col);
                continue;
            }
            fprintf(pl->gp, "%s$d%d using 1:%d with %s lc rgb '%s' notitle", sep, ids[i], k + 2,
                    style[k], col);
        }
        if (held)
            fprintf(pl->gp, "%s$d%d using 1:%d with points pt 6 ps 1.0 lw 1.5 lc rgb '%s' notitle",
                    sep, ids[i], TP_HELD + 2, col);
    }
    if (held)
        fprintf(pl->gp, "%sNaN with points pt 6 lw 1.5 lc rgb '#5f6368' title 'held out'", sep);
    if (series) {
        fprintf(pl->gp, "%sNaN with lines lw 2 lc rgb '#5f6368' title 'simulated'", sep);
        for (int k = TP_MEAS; k <= TP_USL; k++)
            if (has_value(&gs, k))
                fprintf(pl->gp, "%sNaN with %s lc rgb '#5f6368' title '%s'", sep, style[k],
                        label[k]);
    }
    fputc('\n', pl->gp);
    chart_end(pl);
    free(ids);
    groups_free(&gs);
}

/* Latency percentiles: one panel per group of `scope` rows (phases, or
 * the operations of probe samples). */
static void chart_latency(plan *pl, const sim_table *t, const xaxis *ax, const char *scope,
                          const char *what)
{
    static const char *const cols[] = {"p50", "p90", "p99"};
    static const double ms[] = {1e3, 1e3, 1e3};
    static const char *const pc_colour[] = {"#4e79a7", "#f28e2b", "#e15759"};
    groups gs = {0};
    if (!collect(&gs, t, ax, scope, cols, ms, 3)) {
        groups_free(&gs);
        return;
    }
    int ncol = gs.n > 1 ? 2 : 1, nrow = (int)(gs.n + 1) / 2;
    char title[160];
    snprintf(title, sizeof title, "%s vs %s", what, ax->label);
    chart *c = chart_begin(pl, ncol == 2 ? 1000 : 600, 40 + 300 * nrow, title);
    c->wide = ncol == 2;
    snprintf(c->note, sizeof c->note,
             "Response time per %s in milliseconds; the band spans p50 to p99.",
             strcmp(scope, "phase") ? "operation" : "phase");
    set_xaxis(pl, ax);
    fputs("set ylabel 'ms'\nset yrange [0:*]\n"
          "set key inside left top vertical Left reverse opaque\n",
          pl->gp);
    int *ids = malloc(gs.n * sizeof *ids);
    assert(ids);
    for (size_t i = 0; i < gs.n; i++)
        ids[i] = datablock(pl, &gs.g[i]);
    fprintf(pl->gp, "set multiplot layout %d,%d\n", nrow, ncol);
    for (size_t i = 0; i < gs.n; i++) {
        fputs("set title ", pl->gp);
        gq(pl->gp, gs.g[i].name);
        fputs(" textcolor rgb '#202124'\nplot ", pl->gp);
        fprintf(pl->gp, "$d%d using 1:2:4 with filledcurves lc rgb '#4e79a7' notitle", ids[i]);
        for (int k = 0; k < 3; k++)
            fprintf(pl->gp,
                    ", \\\n  $d%d using 1:%d with linespoints lw 2 pt 7 ps 0.6 lc rgb '%s' "
                    "title '%s'",
                    ids[i], k + 2, pc_colour[k], cols[k]);
        fputc('\n', pl->gp);
    }
    chart_end(pl);
    free(ids);
    groups_free(&gs);
}

/* A chart with one line per group of rows. */
typedef struct line_spec {
    const char *scope;   /* row scope, or NULL for the `phase` column */
    const char *col;     /* y column */
    const char *errcol;  /* error bar half-width column, or NULL */
    double scale;        /* applied to col and errcol */
    const char *ylabel;
    const char *yrange;  /* gnuplot range, e.g. "[0:*]" */
    const char *extra;   /* gnuplot settings before the plot, or NULL */
    const char *note;
} line_spec;

static void chart_lines(plan *pl, const sim_table *t, const xaxis *ax, const line_spec *ls,
                        const char *title)
{
    const char *cols[] = {ls->col, ls->errcol ? ls->errcol : ls->col};
    double sc[] = {ls->scale, ls->scale};
    groups gs = {0};
    if (!collect(&gs, t, ax, ls->scope, cols, sc, ls->errcol ? 2 : 1) || !has_value(&gs, 0)) {
        groups_free(&gs);
        return;
    }
    chart *c = chart_begin(pl, 600, 380, title);
    snprintf(c->note, sizeof c->note, "%s", ls->note);
    set_xaxis(pl, ax);
    fputs("set ylabel ", pl->gp);
    gq(pl->gp, ls->ylabel);
    fprintf(pl->gp, "\nset yrange %s\n%s", ls->yrange, ls->extra ? ls->extra : "");
    int *ids = malloc(gs.n * sizeof *ids);
    assert(ids);
    for (size_t i = 0; i < gs.n; i++)
        ids[i] = datablock(pl, &gs.g[i]);
    int bars = ls->errcol && has_value(&gs, 1);
    fputs("plot ", pl->gp);
    for (size_t i = 0; i < gs.n; i++) {
        fprintf(pl->gp, "%s$d%d using %s with %s lw 2 pt 7 ps 0.7 lc rgb '%s' title ",
                i ? ", \\\n  " : "", ids[i], bars ? "1:2:3" : "1:2",
                bars ? "yerrorlines" : "linespoints", colour(gs.g[i].name, i));
        gq(pl->gp, gs.g[i].name);
    }
    fputc('\n', pl->gp);
    chart_end(pl);
    free(ids);
    groups_free(&gs);
}

/* Does any row of `scope` hold a utilisation above 1 (a store written
 * before utilisation became a share of each component's own capacity)? */
static int old_units(const sim_table *t)
{
    int c = sim_table_find_col(t, "utilisation");
    for (int r = 0; c >= 0 && r < sim_table_nrows(t); r++)
        if (row_group(t, r, "component") && cell_num_at(t, r, c) > 1.0001)
            return 1;
    return 0;
}

static const char util_note[] =
    "Busy share of each component's own capacity (a loop: its one thread; the host "
    "and PostgreSQL: the host's cores); the red line (100%) is saturation.";
static const char util_note_old[] =
    "Busy share of each component's own capacity; values above 100% come from an older "
    "tfsim that counted postgres_cpu in backends running per core.";

static void chart_utilisation(plan *pl, const sim_table *t, const xaxis *ax)
{
    line_spec ls = {
        .scope = "component", .col = "utilisation", .scale = 100,
        .ylabel = "busy (% of capacity)", .yrange = "[0:100<*]",
        .extra = "set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead "
                 "lc rgb '#d93025' dt 2 lw 1\n",
        .note = old_units(t) ? util_note_old : util_note};
    char title[160];
    snprintf(title, sizeof title, "Utilisation by component vs %s", ax->label);
    chart_lines(pl, t, ax, &ls, title);
}

/* The host's capacity in cores, from the row whose cores hold all the
 * others' (cores / utilisation), when it is the same at every row of the
 * table; NaN otherwise. */
static double host_capacity(const sim_table *t)
{
    int cc = sim_table_find_col(t, "cores"), cu = sim_table_find_col(t, "utilisation");
    int cn = sim_table_find_col(t, "name");
    double cap = NAN;
    if (cc < 0 || cu < 0 || cn < 0)
        return NAN;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *n = cell_str(t, r, "name");
        if (!n || strcmp(n, "host_cpu"))
            continue;
        double c = cell_num_at(t, r, cc), u = cell_num_at(t, r, cu);
        if (!(u > 0) || isnan(c))
            continue;
        double k = c / u;
        if (isnan(cap))
            cap = k;
        else if (fabs(k - cap) > 1e-6 * cap)
            return NAN;
    }
    return cap;
}

static void chart_cores(plan *pl, const sim_table *t, const xaxis *ax)
{
    double cap = host_capacity(t);
    char extra[200] = "", note[200];
    if (!isnan(cap))
        snprintf(extra, sizeof extra,
                 "set arrow 1 from graph 0, first %.6g to graph 1, first %.6g nohead "
                 "lc rgb '#d93025' dt 2 lw 1\n",
                 cap, cap);
    snprintf(note, sizeof note,
             "CPU cores each process uses on the host (CPU seconds per second); host_cpu is "
             "their sum%s.",
             isnan(cap) ? "" : ", the red line the host's cores");
    line_spec ls = {.scope = "component", .col = "cores", .scale = 1, .ylabel = "cores",
                    .yrange = isnan(cap) ? "[0:*]" : "[0:*]", .extra = extra, .note = note};
    char title[160];
    snprintf(title, sizeof title, "CPU cores by component vs %s", ax->label);
    /* the line at capacity must be in range */
    char range[64];
    if (!isnan(cap)) {
        snprintf(range, sizeof range, "[0:%.6g<*]", cap * 1.05);
        ls.yrange = range;
    }
    chart_lines(pl, t, ax, &ls, title);
}

static void chart_kinds(plan *pl, const sim_table *t, const xaxis *ax)
{
    line_spec ls = {.scope = "kind", .col = "mean", .scale = 1e3, .ylabel = "ms",
                    .yrange = "[0:*]",
                    .note = "Mean time of each operation, measured as TigerFans measures it "
                            "(from the await until the coroutine runs again)."};
    char title[160];
    snprintf(title, sizeof title, "Operation timings vs %s", ax->label);
    chart_lines(pl, t, ax, &ls, title);
}

static void chart_batch(plan *pl, const sim_table *t, const xaxis *ax)
{
    line_spec ls = {.scope = "batch", .col = "mean", .errcol = "sd", .scale = 1,
                    .ylabel = "transfers per batch", .yrange = "[0:*]",
                    .note = "Mean TigerBeetle batch size; bars show one standard deviation."};
    char title[160];
    snprintf(title, sizeof title, "TigerBeetle batch size vs %s", ax->label);
    chart_lines(pl, t, ax, &ls, title);
}

/* Prediction error per point: the simulation's (solid) and, when present,
 * Amdahl-style scaling's (dashed), per phase. */
static void chart_error(plan *pl, const sim_table *t)
{
    int cc = sim_table_find_col(t, "concurrency");
    if (cc < 0 || sim_table_find_col(t, "phase") < 0 || sim_table_find_col(t, "error_pct") < 0)
        return;
    static const char *const cols[] = {"error_pct", "amdahl_error_pct"};
    static const double one[] = {1, 1};
    xaxis ax;
    xaxis_init(&ax, t, cc, "concurrency");
    groups gs = {0};
    if (!collect(&gs, t, &ax, NULL, cols, one, 2) || !has_value(&gs, 0)) {
        groups_free(&gs);
        xaxis_fini(&ax);
        return;
    }
    int amdahl = has_value(&gs, 1);
    chart *c = chart_begin(pl, 600, 380, "Prediction error vs concurrency");
    snprintf(c->note, sizeof c->note,
             "Simulated minus measured, in per cent of measured, per point%s; green: within "
             "10%%.",
             amdahl ? " (dashed: Amdahl-style scaling)" : "");
    set_xaxis(pl, &ax);
    fputs("set ylabel 'error (%)'\nset yrange [*<-12:12<*]\n"
          "set object 1 rectangle from graph 0, first -10 to graph 1, first 10 behind "
          "fc rgb '#e6f4ea' fs solid 1.0 noborder\n"
          "set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead "
          "lc rgb '#5f6368' dt 2 lw 1\n",
          pl->gp);
    int *ids = malloc(gs.n * sizeof *ids);
    assert(ids);
    for (size_t i = 0; i < gs.n; i++)
        ids[i] = datablock(pl, &gs.g[i]);
    fputs("plot ", pl->gp);
    const char *sep = "";
    for (size_t i = 0; i < gs.n; i++) {
        fprintf(pl->gp, "%s$d%d using 1:2 with linespoints lw 2 pt 7 ps 0.7 lc rgb '%s' title ",
                sep, ids[i], colour(gs.g[i].name, i));
        gq(pl->gp, gs.g[i].name);
        sep = ", \\\n  ";
        if (amdahl)
            fprintf(pl->gp, "%s$d%d using 1:3 with linespoints dt 4 lw 1.5 pt 6 ps 0.6 "
                            "lc rgb '%s' notitle",
                    sep, ids[i], colour(gs.g[i].name, i));
    }
    if (amdahl)
        fprintf(pl->gp, "%sNaN with linespoints dt 4 lw 1.5 pt 6 lc rgb '#5f6368' "
                        "title 'Amdahl'",
                sep);
    fputc('\n', pl->gp);
    chart_end(pl);
    free(ids);
    groups_free(&gs);
    xaxis_fini(&ax);
}

/* Bars, one per row of `scope` (a single run: no x axis), with error bars
 * from errcol when present. */
static void chart_bars(plan *pl, const sim_table *t, const char *scope, const char *col,
                       const char *errcol, double scale, const char *title, const char *ylabel,
                       const char *note, const char *extra)
{
    int vc = sim_table_find_col(t, col), ec = errcol ? sim_table_find_col(t, errcol) : -1;
    int n = 0;
    for (int r = 0; vc >= 0 && r < sim_table_nrows(t); r++)
        n += row_group(t, r, scope) && !isnan(cell_num_at(t, r, vc));
    if (n == 0)
        return;
    chart *c = chart_begin(pl, 600, 340, title);
    snprintf(c->note, sizeof c->note, "%s", note);
    int id = pl->nblocks++;
    fprintf(pl->gp, "$d%d << EOD\n", id);
    int i = 0;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *name = row_group(t, r, scope);
        double v = cell_num_at(t, r, vc), e = cell_num_at(t, r, ec);
        if (!name || isnan(v))
            continue;
        fprintf(pl->gp, "%d \"", i);
        for (const char *q = name; *q; q++)
            fputc(*q == '"' || *q == '\n' ? '\'' : *q, pl->gp);
        unsigned rgb = (unsigned)strtoul(colour(name, (size_t)i) + 1, NULL, 16);
        fprintf(pl->gp, "\" %.10g %.10g %u\n", v * scale, isnan(e) ? 0 : e * scale, rgb);
        i++;
    }
    fputs("EOD\n", pl->gp);
    if (n > 5) /* long names side by side would overlap */
        fputs("set xtics rotate by 30 right\n", pl->gp);
    fputs("set ylabel ", pl->gp);
    gq(pl->gp, ylabel);
    fprintf(pl->gp,
            "\nset yrange [0:*]\nset xrange [-0.6:%d.6]\nset boxwidth 0.6\n"
            "set style fill solid 0.85 noborder\nset grid noxtics\nset xtics scale 0\n"
            "set key off\nset offsets 0, 0, graph 0.08, 0\n%s"
            "plot $d%d using 1:3:5:xtic(2) with boxes lc rgb variable",
            n - 1, extra ? extra : "", id);
    if (ec >= 0)
        fprintf(pl->gp,
                ", \\\n  $d%d using 1:3:4 with yerrorbars lc rgb '#3c4043' pt 0 lw 1.2", id);
    fputc('\n', pl->gp);
    chart_end(pl);
}

/* ---- plans and comparisons ---- */

/* A plan (tfsim plan --db): throughput per setting with its interval,
 * coloured by decision, and the target as a line. */
static void chart_plan(plan *pl, const sim_table *t)
{
    int ck = 0, cx = sim_table_find_col(t, "throughput"), cd = sim_table_find_col(t, "decision");
    double target = cell_num(t, 0, "target_throughput");
    if (cx < 0 || cd < 0 || sim_table_nrows(t) == 0 || isnan(target))
        return;
    const char *key = sim_table_col_name(t, ck);
    xaxis ax;
    xaxis_init(&ax, t, ck, key);
    static const char *const dec[] = {"meets", "undecided", "fails"};
    static const char *const dcol[] = {"#188038", "#e37400", "#d93025"};
    char title[160];
    snprintf(title, sizeof title, "Plan: throughput vs %s", key);
    const char *phase = cell_str(t, 0, "phase");
    /* a plan with --margin was decided against what mdl_plan_needed gives
     * (a plan stored before margin_pct existed has none) */
    double margin = cell_num(t, 0, "margin_pct");
    mdl_plan_target tg = {target, INFINITY, margin > 0 && margin < 100 ? margin / 100 : 0};
    double need = target > 0 ? mdl_plan_needed(&tg) : target;
    chart *c = chart_begin(pl, 600, 380, title);
    char marg[96] = "";
    if (need != target)
        snprintf(marg, sizeof marg, ", %g/s with the %g%% margin it was decided by", need, margin);
    snprintf(c->note, sizeof c->note,
             "%s%s throughput per setting with its confidence interval; dashed: the target "
             "(%g/s%s). Green meets it, red fails it, amber is undecided.",
             phase ? phase : "", phase ? "" : "The", target, marg);
    set_xaxis(pl, &ax);
    fprintf(pl->gp,
            "set ylabel 'requests/s'\nset yrange [0:*]\n"
            "set arrow 1 from graph 0, first %.10g to graph 1, first %.10g nohead "
            "lc rgb '#5f6368' dt 2 lw 1.5\n",
            need, need);
    int ids[3], have[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        ids[k] = pl->nblocks++;
        fprintf(pl->gp, "$d%d << EOD\n", ids[k]);
        for (int r = 0; r < sim_table_nrows(t); r++) {
            const char *d = cell_str(t, r, "decision");
            double x = x_of(&ax, t, r), v = cell_num_at(t, r, cx);
            double h = cell_num(t, r, "throughput_ci");
            if (!d || strcmp(d, dec[k]) || isnan(x) || isnan(v))
                continue;
            fprintf(pl->gp, "%.10g %.10g %.10g\n", x, v, isnan(h) ? 0 : h);
            have[k] = 1;
        }
        fputs("EOD\n", pl->gp);
    }
    fputs("plot ", pl->gp);
    const char *sep = "";
    for (int k = 0; k < 3; k++) {
        if (!have[k])
            continue;
        fprintf(pl->gp, "%s$d%d using 1:2:3 with yerrorbars pt 7 ps 1.1 lw 1.5 lc rgb '%s' "
                        "title '%s'",
                sep, ids[k], dcol[k], dec[k]);
        sep = ", \\\n  ";
    }
    /* the pick: the first setting that meets the target with none
     * undecided before it */
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *d = cell_str(t, r, "decision");
        if (!d || !strcmp(d, "fails"))
            continue;
        if (!strcmp(d, "meets"))
            fprintf(pl->gp, "%s'+' using (%.10g):(%.10g) every ::0::0 with points pt 6 ps 2.6 "
                            "lw 1.5 lc rgb '#188038' title 'cheapest that meets'",
                    sep, x_of(&ax, t, r), cell_num_at(t, r, cx));
        break;
    }
    fprintf(pl->gp, "%sNaN with lines dt 2 lw 1.5 lc rgb '#5f6368' title 'target'\n", sep);
    chart_end(pl);
    xaxis_fini(&ax);
}

/* A comparison (tfsim diff --db): A and B side by side per row of `scope`
 * for `metric`, B with the paired interval of B - A around it and the
 * change in per cent above it. */
static void chart_diff(plan *pl, const sim_table *t, const char *scope, const char *metric,
                       double scale, const char *title, const char *ylabel, const char *extra)
{
    int n = 0;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *s = cell_str(t, r, "scope"), *m = cell_str(t, r, "metric");
        n += s && m && !strcmp(s, scope) && !strcmp(m, metric) && !isnan(cell_num(t, r, "a"));
    }
    if (n == 0)
        return;
    chart *c = chart_begin(pl, 600, 360, title);
    snprintf(c->note, sizeof c->note,
             "Grey: A; blue: B, with the paired confidence interval of B - A drawn around B "
             "(where it does not reach A, the change is significant); above B: the change.");
    int id = pl->nblocks++;
    fprintf(pl->gp, "$d%d << EOD\n", id);
    int i = 0;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *s = cell_str(t, r, "scope"), *m = cell_str(t, r, "metric");
        const char *name = cell_str(t, r, "name");
        double a = cell_num(t, r, "a"), b = cell_num(t, r, "b"), h = cell_num(t, r, "diff_ci");
        double pct = cell_num(t, r, "change_pct");
        if (!s || !m || !name || strcmp(s, scope) || strcmp(m, metric) || isnan(a))
            continue;
        const char *sig = cell_str(t, r, "significant");
        fprintf(pl->gp, "%d \"", i++);
        for (const char *q = name; *q; q++)
            fputc(*q == '"' || *q == '\n' ? '\'' : *q, pl->gp);
        char label[32] = "";
        if (!isnan(pct))
            snprintf(label, sizeof label, "%+.1f%%%s", pct, sig && !strcmp(sig, "no") ? " (ns)" : "");
        fprintf(pl->gp, "\" %.10g %.10g %.10g \"%s\"\n", a * scale, b * scale,
                isnan(h) ? 0 : h * scale, label);
    }
    fputs("EOD\n", pl->gp);
    if (n > 5)
        fputs("set xtics rotate by 30 right\n", pl->gp);
    fputs("set ylabel ", pl->gp);
    gq(pl->gp, ylabel);
    fprintf(pl->gp,
            "\nset yrange [0:*]\nset xrange [-0.6:%d.6]\nset boxwidth 0.36\n"
            "set style fill solid 0.85 noborder\nset grid noxtics\nset xtics scale 0\n"
            "set key inside top right horizontal\nset offsets 0, 0, graph 0.14, 0\n%s"
            "plot $d%d using 1:(NaN):xtic(2) notitle, \\\n"
            "  $d%d using ($1-0.19):3 with boxes lc rgb '#9aa0a6' title 'A', \\\n"
            "  $d%d using ($1+0.19):4 with boxes lc rgb '#4e79a7' title 'B', \\\n"
            "  $d%d using ($1+0.19):4:5 with yerrorbars lc rgb '#202124' pt 0 lw 1.2 "
            "notitle, \\\n"
            "  $d%d using ($1+0.19):($4+$5):6 with labels offset 0,0.7 font ',10' "
            "textcolor rgb '#3c4043' notitle\n",
            n - 1, extra ? extra : "", id, id, id, id, id);
    chart_end(pl);
}

/* ---- which charts a table gets ---- */

static int has_cols(const sim_table *t, const char *a, const char *b)
{
    return sim_table_find_col(t, a) >= 0 && (!b || sim_table_find_col(t, b) >= 0);
}

/* All charts that the table's data supports, on x axis ax (ax->col < 0:
 * only the charts that bring their own axis). */
static void charts_for(plan *pl, const sim_table *t, const xaxis *ax)
{
    if (has_cols(t, "decision", "target_throughput")) {
        chart_plan(pl, t);
        return;
    }
    if (has_cols(t, "diff_ci", "metric") && has_cols(t, "a", "b")) {
        chart_diff(pl, t, "phase", "throughput", 1, "Throughput A vs B by phase", "requests/s",
                   NULL);
        chart_diff(pl, t, "component", "utilisation", 100, "Utilisation A vs B by component",
                   "busy (% of capacity)",
                   "set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead "
                   "lc rgb '#d93025' dt 2 lw 1\nset yrange [0:105<*]\n");
        return;
    }
    if (ax->col >= 0) {
        chart_throughput(pl, t, ax);
        chart_utilisation(pl, t, ax);
        chart_cores(pl, t, ax);
        chart_kinds(pl, t, ax);
        chart_batch(pl, t, ax);
    }
    chart_error(pl, t);
    if (ax->col >= 0) {
        char what[64];
        snprintf(what, sizeof what, "Latency percentiles");
        chart_latency(pl, t, ax, "phase", what); /* wide: last */
        return;
    }
    chart_bars(pl, t, "phase", "throughput", "throughput_ci", 1, "Throughput by phase",
               "requests/s", "Simulated mean; bars show the confidence interval.", NULL);
    chart_bars(pl, t, "component", "utilisation", NULL, 100, "Utilisation by component",
               "busy (% of capacity)", old_units(t) ? util_note_old : util_note,
               "set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead "
               "lc rgb '#d93025' dt 2 lw 1\nset yrange [0:105<*]\n");
    chart_bars(pl, t, "component", "cores", NULL, 1, "CPU cores by component", "cores",
               "CPU cores each process uses on the host; host_cpu is their sum.", NULL);
    chart_bars(pl, t, "kind", "mean", "mean_ci", 1e3, "Operation timings", "ms",
               "Mean time of each operation (as TigerFans measures it); bars: confidence "
               "interval.",
               NULL);
}

/* Charts of an imported measurement set: TigerBench throughput per
 * architecture (bars: sd over the repetitions), probe latencies. */
static void charts_meas(plan *pl, const sim_table *t)
{
    int cc = sim_table_find_col(t, "concurrency");
    if (cc < 0)
        return;
    xaxis ax;
    xaxis_init(&ax, t, cc, "concurrency");
    if (has_cols(t, "architecture", "throughput")) {
        /* one chart per architecture with phase rows */
        for (int r = 0; r < sim_table_nrows(t); r++) {
            const char *arch = cell_str(t, r, "architecture"), *sc = cell_str(t, r, "scope");
            if (!arch || !sc || strcmp(sc, "phase") || isnan(cell_num(t, r, "throughput")))
                continue;
            int seen = 0;
            for (int k = 0; k < r && !seen; k++) {
                const char *a2 = cell_str(t, k, "architecture"), *s2 = cell_str(t, k, "scope");
                seen = a2 && s2 && !strcmp(a2, arch) && !strcmp(s2, "phase") &&
                       !isnan(cell_num(t, k, "throughput"));
            }
            if (seen)
                continue;
            sim_table *sub = sim_table_new(NULL);
            for (int c = 0; c < sim_table_ncols(t); c++)
                sim_table_col(sub, sim_table_col_name(t, c), NULL);
            for (int k = 0; k < sim_table_nrows(t); k++) {
                const char *a2 = cell_str(t, k, "architecture");
                if (!a2 || strcmp(a2, arch))
                    continue;
                copy_row(sub, t, k);
            }
            line_spec ls = {.scope = "phase", .col = "throughput", .errcol = "throughput_sd",
                            .scale = 1, .ylabel = "requests/s", .yrange = "[0:*]",
                            .note = "Measured throughput per phase, mean over the repetitions; "
                                    "bars: their standard deviation."};
            char title[160];
            snprintf(title, sizeof title, "Measured throughput vs concurrency (%s)", arch);
            xaxis sx;
            xaxis_init(&sx, sub, sim_table_find_col(sub, "concurrency"), "concurrency");
            chart_lines(pl, sub, &sx, &ls, title);
            xaxis_fini(&sx);
            sim_table_free(sub);
        }
    }
    if (has_cols(t, "p50", "p99"))
        chart_latency(pl, t, &ax, "operation", "Measured latency");
    xaxis_fini(&ax);
}

/* ---- running gnuplot ---- */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    assert(buf);
    size_t k;
    while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert(buf);
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static int run_gnuplot(const char *prog, const char *dir, sim_err *err)
{
    char script[4200], log[4200];
    snprintf(script, sizeof script, "%s/report.gp", dir);
    snprintf(log, sizeof log, "%s/gnuplot.log", dir);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    char *argv[] = {(char *)prog, script, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == ENOENT)
        return sim_err_set(err, SIM_EFAIL,
                           "cannot draw charts: '%s' not found on PATH (install gnuplot; "
                           "Debian: apt-get install gnuplot-nox)",
                           prog);
    if (rc)
        return sim_err_set(err, SIM_EFAIL, "cannot run '%s': %s", prog, strerror(rc));
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return sim_err_set(err, SIM_EFAIL, "waiting for gnuplot: %s", strerror(errno));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return SIM_OK;
    char *text = read_all(log, NULL);
    char first[600] = "";
    if (text) { /* the first lines of gnuplot's complaint, on one line */
        size_t k = 0;
        for (const char *p = text; *p && k + 1 < sizeof first; p++)
            if (!(k == 0 && (*p == '\n' || *p == ' ')))
                first[k++] = *p == '\n' ? ' ' : *p;
        first[k] = '\0';
        free(text);
    }
    if (WIFEXITED(status))
        return sim_err_set(err, SIM_EFAIL, "gnuplot failed (exit %d): %s", WEXITSTATUS(status),
                           first);
    return sim_err_set(err, SIM_EFAIL, "gnuplot killed by signal %d",
                       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* ---- inlining SVG ---- */

typedef struct idset {
    char **v;
    size_t n;
} idset;

static int is_idch(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.';
}

static size_t id_len(const char *p)
{
    size_t k = 0;
    while (is_idch(p[k]))
        k++;
    return k;
}

static int idset_has(const idset *ids, const char *p, size_t k)
{
    for (size_t i = 0; i < ids->n; i++)
        if (strlen(ids->v[i]) == k && !memcmp(ids->v[i], p, k))
            return 1;
    return 0;
}

/* Write gnuplot's SVG as inline SVG: no XML prolog or namespace URLs (HTML
 * does not need them), the chart title as its <title>, and every id made
 * unique to this chart (c<n>-) so that several charts can share a page. */
static void write_svg(FILE *out, const char *svg, size_t n, const char *title)
{
    const char *p = strstr(svg, "<svg");
    if (!p)
        return;
    idset ids = {0};
    for (const char *q = p; (q = strstr(q, " id=")) != NULL; q += 4) {
        if (q[4] != '\'' && q[4] != '"')
            continue;
        size_t k = id_len(q + 5);
        ids.v = realloc(ids.v, (ids.n + 1) * sizeof *ids.v);
        assert(ids.v);
        ids.v[ids.n] = malloc(k + 1);
        assert(ids.v[ids.n]);
        memcpy(ids.v[ids.n], q + 5, k);
        ids.v[ids.n++][k] = '\0';
    }
    fprintf(out, "<svg class=\"chart\" role=\"img\" aria-label=\"");
    html(out, title);
    fputc('"', out);
    p += 4;
    size_t seen = 0; /* ids written so far: ids.v[0..seen) in document order */
    while (*p) {
        if (!strncmp(p, "xmlns", 5) && (p[5] == '=' || p[5] == ':')) {
            const char *q = strchr(p, '"');  /* skip the attribute */
            q = q ? strchr(q + 1, '"') : NULL;
            if (q) {
                p = q + 1;
                continue;
            }
        }
        if (!strncmp(p, "<title>", 7)) {
            const char *q = strstr(p, "</title>");
            if (q) {
                fputs("<title>", out);
                html(out, title);
                fputs("</title>", out);
                p = q + 8;
                continue;
            }
        }
        if (!strncmp(p, "<desc>", 6)) {
            const char *q = strstr(p, "</desc>");
            if (q) {
                p = q + 7;
                continue;
            }
        }
        if (!strncmp(p, "id=", 3) && (p[3] == '\'' || p[3] == '"')) {
            /* gnuplot repeats some ids across multiplot panels: number the
             * repeats (references go to the first, as before). */
            size_t k = id_len(p + 4), dup = 0;
            for (size_t i = 0; i < seen; i++)
                dup += strlen(ids.v[i]) == k && !memcmp(ids.v[i], p + 4, k);
            seen++;
            fprintf(out, "id=%cc%zu-%.*s", p[3], n, (int)k, p + 4);
            if (dup)
                fprintf(out, "-%zu", dup + 1);
            p += 4 + k;
            continue;
        }
        if (*p == '#' && (p[-1] == '\'' || p[-1] == '"' || p[-1] == '(') &&
            idset_has(&ids, p + 1, id_len(p + 1))) {
            fprintf(out, "#c%zu-", n);
            p++;
            continue;
        }
        fputc(*p++, out);
    }
    for (size_t i = 0; i < ids.n; i++)
        free(ids.v[i]);
    free(ids.v);
}

/* ---- the page ---- */

enum { SEC_SWEEP, SEC_RUN, SEC_MEAS };

typedef struct section {
    int kind;
    int64_t id;
    sim_table *info;  /* manifest (field, value); NULL for measurements */
    sim_table *data;  /* result table */
    sim_table *chart_data;  /* data with what the charts add (owned), or NULL: data */
    char label[256];  /* sweeps: varied key; measurements: source */
    char created[64];
    long points, stored;
    size_t chart0, nchart;
    char bottleneck[1200];  /* what limits the result, for people ("" if unknown) */
    char overlay[300];      /* which measurements the charts show ("" if none) */
} section;

static const char css[] =
    ":root{--bg:#f4f6f8;--card:#fff;--ink:#202124;--muted:#5f6368;--line:#e3e6ea;"
    "--accent:#2f6690;--sweep:#4e79a7;--run:#59a14f;--meas:#9c755f}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:var(--bg);color:var(--ink);"
    "font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}\n"
    "header.top{background:linear-gradient(120deg,#16324f 0%,#2f6690 60%,#3a7ca5 100%);"
    "color:#fff;padding:30px 0 26px}\n"
    ".wrap{max-width:1180px;margin:0 auto;padding:0 24px}\n"
    "header.top h1{margin:0;font-size:28px;font-weight:650;letter-spacing:-.01em}\n"
    "header.top .sub{opacity:.82;margin-top:2px;overflow-wrap:anywhere}\n"
    ".stats{display:flex;gap:12px;margin-top:18px;flex-wrap:wrap}\n"
    ".stat{background:rgba(255,255,255,.13);border:1px solid rgba(255,255,255,.18);"
    "border-radius:12px;padding:8px 16px;min-width:120px}\n"
    ".stat b{display:block;font-size:24px;line-height:1.2}\n"
    ".stat span{font-size:13px;opacity:.85}\n"
    "main{padding:24px 0 40px}\n"
    "nav.toc{display:flex;flex-wrap:wrap;gap:8px;margin:0 0 22px}\n"
    "nav.toc a{background:var(--card);border:1px solid var(--line);border-radius:999px;"
    "padding:4px 12px;font-size:13px;color:var(--ink);text-decoration:none}\n"
    "nav.toc a:hover{border-color:var(--accent)}\n"
    "section.card{background:var(--card);border:1px solid var(--line);border-radius:16px;"
    "padding:22px 26px;margin:0 0 26px;box-shadow:0 1px 3px rgba(16,24,40,.06)}\n"
    "section.card h2{margin:0;font-size:21px;font-weight:640}\n"
    ".badge{display:inline-block;font-size:11px;font-weight:700;letter-spacing:.06em;"
    "text-transform:uppercase;color:#fff;border-radius:6px;padding:2px 8px;margin-right:10px;"
    "vertical-align:3px}\n"
    ".badge.sweep{background:var(--sweep)}.badge.run{background:var(--run)}"
    ".badge.meas{background:var(--meas)}\n"
    ".subtitle{color:var(--muted);margin:2px 0 0}\n"
    "dl.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(165px,1fr));"
    "gap:8px 20px;margin:16px 0 14px}\n"
    "dl.facts div{min-width:0}\n"
    "dl.facts dt{font-size:11.5px;color:var(--muted);text-transform:uppercase;"
    "letter-spacing:.05em}\n"
    "dl.facts dd{margin:0;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}\n"
    ".meter{height:6px;background:#e8eaed;border-radius:3px;overflow:hidden;margin-top:5px}\n"
    ".meter i{display:block;height:100%;background:var(--run)}\n"
    ".chips{display:flex;flex-wrap:wrap;gap:8px;margin:4px 0 14px}\n"
    ".chip{border-radius:10px;padding:6px 12px;background:#f1f5f9;border-left:4px solid #999;"
    "font-size:14px}\n"
    ".chip b{font-size:17px}\n"
    ".charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(470px,1fr));gap:18px;"
    "margin:6px 0 14px}\n"
    "figure{margin:0;border:1px solid var(--line);border-radius:12px;padding:12px 14px 10px;"
    "background:#fff}\n"
    "figure.wide{grid-column:1/-1}\n"
    "figcaption{font-weight:620;margin-bottom:4px}\n"
    "svg.chart{display:block;width:100%;height:auto}\n"
    "figure p.note{margin:4px 0 0;font-size:13px;color:var(--muted)}\n"
    "details{margin:10px 0 0}\n"
    "summary{cursor:pointer;color:var(--accent);font-weight:600}\n"
    ".tablewrap{overflow:auto;max-height:540px;border:1px solid var(--line);border-radius:10px;"
    "margin-top:8px}\n"
    "table{border-collapse:collapse;font-size:13px;min-width:100%}\n"
    "th{position:sticky;top:0;background:#f1f3f4;text-align:left;font-weight:600;"
    "padding:7px 12px;border-bottom:1px solid var(--line);white-space:nowrap}\n"
    "td{padding:5px 12px;border-bottom:1px solid #f1f3f4;white-space:nowrap}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tbody tr:nth-child(even) td{background:#fafbfc}\n"
    "tbody tr:hover td{background:#eef4fa}\n"
    "pre{background:#f8f9fa;border:1px solid var(--line);border-radius:10px;padding:10px 14px;"
    "overflow:auto;font-size:12.5px;max-height:380px}\n"
    "p.more,p.empty{color:var(--muted);font-size:13px}\n"
    "p.limit{background:#fef7e0;border-left:4px solid #f9ab00;border-radius:8px;"
    "padding:8px 12px;margin:4px 0 12px}\n"
    "footer{color:var(--muted);font-size:13px;text-align:center;padding:0 0 30px}\n";

static void write_table(FILE *out, const sim_table *t, const char *more_hint)
{
    int nr = sim_table_nrows(t), nc = sim_table_ncols(t);
    if (nr == 0) {
        fputs("<p class=\"empty\">No rows.</p>\n", out);
        return;
    }
    fputs("<div class=\"tablewrap\"><table>\n<thead><tr>", out);
    for (int c = 0; c < nc; c++) {
        fputs("<th>", out);
        html(out, sim_table_col_name(t, c));
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    int shown = nr < REP_REPORT_MAX_ROWS ? nr : REP_REPORT_MAX_ROWS;
    for (int r = 0; r < shown; r++) {
        fputs("<tr>", out);
        for (int c = 0; c < nc; c++) {
            double v;
            const char *s = NULL;
            int kind = sim_table_cell(t, r, c, &v, &s);
            if (kind == 1) {
                char buf[64];
                fmt_num(v, buf, sizeof buf);
                fprintf(out, "<td class=\"n\">%s</td>", buf);
            } else {
                fputs("<td>", out);
                html(out, kind == 2 ? s : "");
                fputs("</td>", out);
            }
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div>\n", out);
    if (shown < nr)
        fprintf(out,
                "<p class=\"more\">%d more rows not shown; see all with <code>%s</code>.</p>\n",
                nr - shown, more_hint);
}

static void fact(FILE *out, const char *name, const char *value)
{
    if (!value || !*value)
        return;
    fputs("<div><dt>", out);
    html(out, name);
    fputs("</dt><dd>", out);
    html(out, value);
    fputs("</dd></div>", out);
}

/* Peak simulated throughput per phase, as chips. */
static void write_peaks(FILE *out, const sim_table *t, const xaxis *ax)
{
    static const char *const col[] = {"throughput"};
    static const double one[] = {1};
    groups gs = {0};
    if (ax->col >= 0 && collect(&gs, t, ax, "phase", col, one, 1)) {
        fputs("<div class=\"chips\">", out);
        for (size_t i = 0; i < gs.n; i++) {
            const group *g = &gs.g[i];
            size_t best = g->n;
            for (size_t j = 0; j < g->n; j++)
                if (!isnan(g->p[j].v[0]) && (best == g->n || g->p[j].v[0] > g->p[best].v[0]))
                    best = j;
            if (best == g->n)
                continue;
            char v[64], x[64];
            fmt_num(g->p[best].v[0], v, sizeof v);
            if (ax->ncats)
                snprintf(x, sizeof x, "%s", ax->cats[(size_t)g->p[best].x]);
            else
                fmt_num(g->p[best].x, x, sizeof x);
            fprintf(out, "<div class=\"chip\" style=\"border-left-color:%s\">", colour(g->name, i));
            html(out, g->name);
            fprintf(out, " peak <b>%s</b>/s at ", v);
            html(out, ax->label);
            fputs(" = ", out);
            html(out, x);
            fputs("</div>", out);
        }
        fputs("</div>\n", out);
    }
    groups_free(&gs);
}

static void write_charts(FILE *out, const plan *pl, const section *sec)
{
    if (!sec->nchart)
        return;
    fputs("<div class=\"charts\">\n", out);
    for (size_t i = sec->chart0; i < sec->chart0 + sec->nchart; i++) {
        const chart *c = &pl->c[i];
        fprintf(out, "<figure%s><figcaption>", c->wide ? " class=\"wide\"" : "");
        html(out, c->title);
        fputs("</figcaption>\n", out);
        write_svg(out, c->svg, i, c->title);
        if (c->note[0]) {
            fputs("<p class=\"note\">", out);
            html(out, c->note);
            fputs("</p>", out);
        }
        fputs("</figure>\n", out);
    }
    fputs("</div>\n", out);
}

static void write_manifest_details(FILE *out, const sim_table *m)
{
    fputs("<details><summary>Configuration and build</summary>\n<dl class=\"facts\">", out);
    fact(out, "command", field(m, "command"));
    fact(out, "overrides", field(m, "overrides"));
    fact(out, "config hash", field(m, "config_hash"));
    fact(out, "git revision", field(m, "git_rev"));
    fact(out, "compiler flags", field(m, "cflags"));
    fact(out, "sweep key", field(m, "sweep_key"));
    fputs("</dl>\n", out);
    const char *cfg = field(m, "config");
    if (*cfg) {
        fputs("<pre>", out);
        html(out, cfg);
        fputs("</pre>\n", out);
    }
    fputs("</details>\n", out);
}

static void write_section(FILE *out, const plan *pl, const section *sec, const xaxis *ax)
{
    static const char *const kind_name[] = {"sweep", "run", "meas"};
    static const char *const kind_label[] = {"sweep", "run", "measurements"};
    fprintf(out, "<section class=\"card\" id=\"%s-%" PRId64 "\">\n<h2><span class=\"badge %s\">%s"
                 "</span>",
            kind_name[sec->kind], sec->id, kind_name[sec->kind], kind_label[sec->kind]);
    const char *title = sec->info ? field(sec->info, "title") : "";
    if (sec->kind == SEC_SWEEP) {
        fprintf(out, "#%" PRId64 " &middot; ", sec->id);
        html(out, sec->label);
    } else if (sec->kind == SEC_RUN) {
        fprintf(out, "#%" PRId64, sec->id);
        /* what made it, when not a plain run: plan, diff, predict, ... */
        char cmd[32];
        snprintf(cmd, sizeof cmd, "%s", sec->info ? field(sec->info, "command") : "");
        cmd[strcspn(cmd, " ")] = '\0';
        if (*cmd && strcmp(cmd, "run")) {
            fputs(" &middot; ", out);
            html(out, cmd);
        }
    } else {
        fprintf(out, "#%" PRId64 " &middot; ", sec->id);
        html(out, sec->label);
    }
    if (*title) {
        fputs(" &middot; ", out);
        html(out, title);
    }
    fputs("</h2>\n<dl class=\"facts\">", out);
    fact(out, "created (UTC)", sec->created);
    if (sec->info) {
        fact(out, "command", field(sec->info, "command"));
        fact(out, "seed", field(sec->info, "seed"));
        fact(out, "replications", field(sec->info, "replications"));
        fact(out, "git revision", field(sec->info, "git_rev"));
    }
    if (sec->kind == SEC_SWEEP) {
        fact(out, "values", field(sec->info, "values"));
        fprintf(out, "<div><dt>points stored</dt><dd>%ld of %ld<div class=\"meter\"><i "
                     "style=\"width:%ld%%\"></i></div></dd></div>",
                sec->stored, sec->points, sec->points ? 100 * sec->stored / sec->points : 0);
    }
    char rows[32];
    snprintf(rows, sizeof rows, "%d", sim_table_nrows(sec->data));
    fact(out, "result rows", rows);
    fputs("</dl>\n", out);
    if (sec->kind == SEC_SWEEP)
        write_peaks(out, sec->data, ax);
    if (sec->bottleneck[0]) {
        fprintf(out, "<p class=\"limit\"><b>%s</b> ",
                sec->kind == SEC_SWEEP ? "Bottleneck per point" : "Bottleneck");
        html(out, sec->bottleneck);
        fputs("</p>\n", out);
    }
    if (sec->overlay[0]) {
        fputs("<p class=\"subtitle\">", out);
        html(out, sec->overlay);
        fputs("</p>\n", out);
    }
    write_charts(out, pl, sec);
    char hint[96];
    snprintf(hint, sizeof hint, "tfsim export DB --%s %" PRId64,
             sec->kind == SEC_SWEEP ? "sweep" : sec->kind == SEC_RUN ? "run" : "measurements",
             sec->id);
    fprintf(out, "<details%s><summary>Result table (%d rows)</summary>\n",
            sim_table_nrows(sec->data) <= 40 && sec->kind != SEC_MEAS ? " open" : "",
            sim_table_nrows(sec->data));
    write_table(out, sec->data, hint);
    fputs("</details>\n", out);
    if (sec->info)
        write_manifest_details(out, sec->info);
    fputs("</section>\n", out);
}

/* ---- putting it together ---- */

typedef struct report {
    rep_store *s;
    plan pl;
    section *sec;
    xaxis *ax;  /* per section */
    size_t nsec;
    long nsweeps, nruns, nmeas, nstandalone;
} report;

static section *add_section(report *rp, int kind, int64_t id)
{
    rp->sec = realloc(rp->sec, (rp->nsec + 1) * sizeof *rp->sec);
    rp->ax = realloc(rp->ax, (rp->nsec + 1) * sizeof *rp->ax);
    assert(rp->sec && rp->ax);
    section *sec = &rp->sec[rp->nsec];
    memset(sec, 0, sizeof *sec);
    memset(&rp->ax[rp->nsec], 0, sizeof *rp->ax);
    rp->ax[rp->nsec].col = -1;
    rp->nsec++;
    sec->kind = kind;
    sec->id = id;
    return sec;
}

static void copy_cell(const sim_table *t, int r, const char *name, char *buf, size_t len)
{
    const char *s = cell_str(t, r, name);
    snprintf(buf, len, "%s", s ? s : "");
}

/* "2026-01-02T03:04:05.678Z" -> "2026-01-02 03:04:05" */
static void copy_time(const sim_table *t, int r, char *buf, size_t len)
{
    copy_cell(t, r, "created", buf, len);
    char *p = strchr(buf, 'T');
    if (p)
        *p = ' ';
    if ((p = strchr(buf, '.')) != NULL)
        *p = '\0';
}

/* Does column c take at least two distinct numbers? */
static int varies(const sim_table *t, int c)
{
    double first = NAN;
    for (int r = 0; c >= 0 && r < sim_table_nrows(t); r++) {
        double v = cell_num_at(t, r, c);
        if (isnan(v))
            continue;
        if (isnan(first))
            first = v;
        else if (v != first)
            return 1;
    }
    return 0;
}

/* ---- what the charts add to a stored table ---- */

typedef void (*extra_fn)(const sim_table *t, int r, double *out, void *ctx);

/* A copy of t (owned by the caller) with n numeric columns names[] set per
 * row by fn (NaN: empty); a name t already has is overwritten. */
static sim_table *copy_with(const sim_table *t, const char *const *names, int n, extra_fn fn,
                            void *ctx)
{
    sim_table *o = sim_table_new(NULL);
    assert(o && n <= 8);
    for (int c = 0; c < sim_table_ncols(t); c++)
        sim_table_col(o, sim_table_col_name(t, c), NULL);
    int idx[8];
    for (int k = 0; k < n; k++)
        idx[k] = sim_table_col(o, names[k], NULL);
    for (int r = 0; r < sim_table_nrows(t); r++) {
        copy_row(o, t, r);
        double v[8];
        for (int k = 0; k < n; k++)
            v[k] = NAN;
        fn(t, r, v, ctx);
        for (int k = 0; k < n; k++)
            sim_table_num(o, idx[k], v[k]);
    }
    return o;
}

/* The rows of t whose column col holds the number v (a new table). */
static sim_table *rows_where(const sim_table *t, int col, double v)
{
    sim_table *o = sim_table_new(NULL);
    assert(o);
    for (int c = 0; c < sim_table_ncols(t); c++)
        sim_table_col(o, sim_table_col_name(t, c), NULL);
    for (int r = 0; r < sim_table_nrows(t); r++) {
        if (cell_num_at(t, r, col) != v)
            continue;
        copy_row(o, t, r);
    }
    return o;
}

/* The TigerFans architecture ("pg_pg", ...) a stored config describes, or
 * "" when it is another model.  The config text holds the files in load
 * order, the includer before what it includes, so a key takes the value of
 * the first file that sets it; overrides win over the files. */
static void arch_of(const sim_table *info, char *buf, size_t len)
{
    char acc[32] = "", pay[32] = "", type[32] = "";
    int file = 0, fa = -1, fp = -1, ft = -1;
    const char *p = field(info, "config"), *sect = "";
    char cur[64] = "";
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(n < 255 ? n : 255), p);
        p += n + (e ? 1 : 0);
        if (!strncmp(line, "# file:", 7)) {
            file++;
            cur[0] = '\0';
            continue;
        }
        char *q = line;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '[') {
            snprintf(cur, sizeof cur, "%s", q + 1);
            char *z = strchr(cur, ']');
            if (z)
                *z = '\0';
            continue;
        }
        sect = cur;
        char key[32], val[32];
        if (sscanf(q, "%31[a-z_] = %31[A-Za-z_]", key, val) != 2)
            continue;
        if (!strcmp(sect, "architecture") && !strcmp(key, "accounting") && (fa < 0 || fa == file))
            snprintf(acc, sizeof acc, "%s", val), fa = file;
        if (!strcmp(sect, "architecture") && !strcmp(key, "payments") && (fp < 0 || fp == file))
            snprintf(pay, sizeof pay, "%s", val), fp = file;
        if (!strcmp(sect, "model") && !strcmp(key, "type") && (ft < 0 || ft == file))
            snprintf(type, sizeof type, "%s", val), ft = file;
    }
    const char *ov = field(info, "overrides");
    const char *x;
    if ((x = strstr(ov, "architecture.accounting=")) != NULL)
        sscanf(x + 24, "%31[A-Za-z_]", acc);
    if ((x = strstr(ov, "architecture.payments=")) != NULL)
        sscanf(x + 22, "%31[A-Za-z_]", pay);
    if ((x = strstr(ov, "model.type=")) != NULL)
        sscanf(x + 11, "%31[A-Za-z_]", type);
    if (*type && strcmp(type, "tigerfans")) {
        snprintf(buf, len, "%s", "");
        return;
    }
    snprintf(buf, len, "%s_%s", *acc ? acc : "tb", *pay ? pay : "redis"); /* the defaults */
}

typedef struct overlay_ctx {
    const sim_table *m;  /* measurement set */
    const char *arch;
    const xaxis *ax;
    int hits;
} overlay_ctx;

/* measured, measured_lo, measured_hi of a sweep's phase row: the
 * measurement set's row of the same architecture, phase and concurrency. */
static void overlay_row(const sim_table *t, int r, double *out, void *ctx)
{
    overlay_ctx *o = ctx;
    const char *name = row_group(t, r, "phase");
    double x = x_of(o->ax, t, r);
    if (!name || isnan(x))
        return;
    for (int k = 0; k < sim_table_nrows(o->m); k++) {
        const char *a = cell_str(o->m, k, "architecture"), *sc = cell_str(o->m, k, "scope");
        const char *n = cell_str(o->m, k, "name");
        if (!a || !sc || !n || strcmp(a, o->arch) || strcmp(sc, "phase") || strcmp(n, name) ||
            cell_num(o->m, k, "concurrency") != x)
            continue;
        out[0] = cell_num(o->m, k, "throughput");
        out[1] = cell_num(o->m, k, "throughput_min");
        out[2] = cell_num(o->m, k, "throughput_max");
        o->hits += !isnan(out[0]);
        return;
    }
}

/* measured and measured_held of a calibration's row: the measured value
 * goes to measured_held when the point was held out of the fit. */
static void held_row(const sim_table *t, int r, double *out, void *ctx)
{
    (void)ctx;
    const char *f = cell_str(t, r, "fitted");
    double m = cell_num(t, r, "measured");
    out[f && !strcmp(f, "no") ? 1 : 0] = m;
}

/* Sweep over client.concurrency of a TigerFans architecture: the chart
 * data with the newest imported TigerBench set of that architecture. */
static void overlay_measured(section *sec, const xaxis *ax, sim_table *const *sets,
                             const int64_t *set_ids, char *const *sources, size_t nsets)
{
    if (strcmp(sec->label, "client.concurrency") || !sec->info)
        return;
    char arch[80];
    arch_of(sec->info, arch, sizeof arch);
    if (!*arch)
        return;
    for (size_t i = 0; i < nsets; i++) { /* newest first */
        overlay_ctx o = {sets[i], arch, ax, 0};
        static const char *const names[] = {"measured", "measured_lo", "measured_hi"};
        sim_table *c = copy_with(sec->data, names, 3, overlay_row, &o);
        if (o.hits == 0) {
            sim_table_free(c);
            continue;
        }
        sec->chart_data = c;
        snprintf(sec->overlay, sizeof sec->overlay,
                 "Measured points: %s from measurement set #%" PRId64 " (%s), at %d of the "
                 "sweep's phase points.",
                 arch, set_ids[i], sources[i], o.hits);
        return;
    }
}

/* What limits each point of a sweep, consecutive points with the same
 * bottleneck merged: "1 to 10: host_cpu 36-94%; 50: client_loop 92% (the
 * load generator)". */
static void sweep_bottlenecks(section *sec, const xaxis *ax)
{
    int cp = sim_table_find_col(sec->data, "point");
    if (cp < 0 || ax->col < 0)
        return;
    char *out = sec->bottleneck;
    size_t len = sizeof sec->bottleneck, k = 0;
    char name[REP_BN_NAME] = "", first[64] = "", last[64] = "";
    double lo = 0, hi = 0;
    int lg = 0, any = 0;
    for (long p = 0; p <= sec->points; p++) {
        rep_bottleneck b;
        int have = 0;
        char xs[64] = "";
        if (p < sec->points) {
            sim_table *sub = rows_where(sec->data, cp, (double)p);
            if (sim_table_nrows(sub) > 0) {
                have = rep_bottleneck_find(sub, &b);
                int cx = sim_table_find_col(sub, sec->label);
                double v;
                const char *str = NULL;
                int kind = sim_table_cell(sub, 0, cx, &v, &str);
                if (kind == 1)
                    fmt_num(v, xs, sizeof xs);
                else if (kind == 2)
                    snprintf(xs, sizeof xs, "%s", str);
            }
            sim_table_free(sub);
        }
        if (have && *name && !strcmp(b.name, name)) {
            snprintf(last, sizeof last, "%s", xs);
            lg |= b.load_generator && b.saturated;
            lo = b.util < lo ? b.util : lo;
            hi = b.util > hi ? b.util : hi;
            continue;
        }
        if (*name && k < len) { /* close the run */
            char range[160], pct[64];
            if (strcmp(first, last))
                snprintf(range, sizeof range, "%s to %s", first, last);
            else
                snprintf(range, sizeof range, "%s", first);
            if (fabs(hi - lo) < 0.005)
                snprintf(pct, sizeof pct, "%.0f%%", 100 * hi);
            else
                snprintf(pct, sizeof pct, "%.0f-%.0f%%", 100 * lo, 100 * hi);
            k += (size_t)snprintf(out + k, len - k, "%s%s: %s %s%s", any ? "; " : "", range,
                                  name, pct, lg ? " (the load generator)" : "");
            any = 1;
        }
        name[0] = '\0';
        if (!have)
            continue;
        snprintf(name, sizeof name, "%s", b.name);
        snprintf(first, sizeof first, "%s", xs);
        snprintf(last, sizeof last, "%s", xs);
        lo = hi = b.util;
        lg = b.load_generator && b.saturated;
    }
}

/* A comparison's bottlenecks, from its a and b utilisation columns. */
static void diff_bottlenecks(section *sec)
{
    const sim_table *t = sec->data;
    if (!has_cols(t, "a", "b") || !has_cols(t, "metric", "name"))
        return;
    size_t k = 0;
    for (int side = 0; side < 2; side++) {
        sim_table *u = sim_table_new(NULL);
        int cn = sim_table_col(u, "name", NULL), cu = sim_table_col(u, "utilisation", NULL);
        for (int r = 0; r < sim_table_nrows(t); r++) {
            const char *m = cell_str(t, r, "metric"), *n = cell_str(t, r, "name");
            if (!m || !n || strcmp(m, "utilisation"))
                continue;
            sim_table_row(u);
            sim_table_str(u, cn, n);
            sim_table_num(u, cu, cell_num(t, r, side ? "b" : "a"));
        }
        rep_bottleneck b;
        char line[600];
        if (rep_bottleneck_find(u, &b) && k < sizeof sec->bottleneck)
            k += (size_t)snprintf(sec->bottleneck + k, sizeof sec->bottleneck - k, "%s%s: %s",
                                  side ? " " : "", side ? "B" : "A",
                                  rep_bottleneck_sentence(&b, line, sizeof line));
        sim_table_free(u);
        if (k && k < sizeof sec->bottleneck)
            k += (size_t)snprintf(sec->bottleneck + k, sizeof sec->bottleneck - k, ".");
    }
}

static int gather(report *rp, sim_err *err)
{
    sim_table *sw = rep_store_list_sweeps(rp->s, err);
    sim_table *runs = sw ? rep_store_list_runs(rp->s, err) : NULL;
    sim_table *ms = runs ? rep_store_list_measurements(rp->s, err) : NULL;
    int rc = ms ? SIM_OK : (err ? err->code : SIM_EFAIL);
    if (rc == SIM_OK) {
        rp->nsweeps = sim_table_nrows(sw);
        rp->nruns = sim_table_nrows(runs);
        rp->nmeas = sim_table_nrows(ms);
    }
    /* the measurement sets first (newest first): sweeps draw them */
    size_t nsets = 0;
    sim_table **sets = NULL;
    int64_t *set_ids = NULL;
    char **sources = NULL;
    for (int r = rc ? -1 : sim_table_nrows(ms) - 1;
         r >= 0 && nsets < REP_REPORT_MAX_ITEMS && rc == SIM_OK; r--) {
        sets = realloc(sets, (nsets + 1) * sizeof *sets);
        set_ids = realloc(set_ids, (nsets + 1) * sizeof *set_ids);
        sources = realloc(sources, (nsets + 1) * sizeof *sources);
        assert(sets && set_ids && sources);
        set_ids[nsets] = (int64_t)cell_num(ms, r, "id");
        const char *src = cell_str(ms, r, "source");
        sources[nsets] = sim_str_dup(src ? src : "");
        sets[nsets] = rep_store_load_measurements(rp->s, set_ids[nsets], err);
        if (!sets[nsets]) {
            free(sources[nsets]);
            rc = err ? err->code : SIM_EFAIL;
            break;
        }
        nsets++;
    }
    for (int r = rc ? -1 : sim_table_nrows(sw) - 1, k = 0;
         r >= 0 && k < REP_REPORT_MAX_ITEMS && rc == SIM_OK; r--, k++) {
        section *sec = add_section(rp, SEC_SWEEP, (int64_t)cell_num(sw, r, "id"));
        copy_cell(sw, r, "vary_key", sec->label, sizeof sec->label);
        copy_time(sw, r, sec->created, sizeof sec->created);
        sec->points = (long)cell_num(sw, r, "points");
        sec->stored = (long)cell_num(sw, r, "stored");
        sec->info = rep_store_manifest(rp->s, REP_SWEEP, sec->id, err);
        sec->data = sec->info ? rep_store_sweep_table(rp->s, sec->id, err) : NULL;
        if (!sec->data) {
            rc = err ? err->code : SIM_EFAIL;
            break;
        }
        xaxis *ax = &rp->ax[rp->nsec - 1];
        xaxis_init(ax, sec->data, sim_table_find_col(sec->data, sec->label), sec->label);
        overlay_measured(sec, ax, sets, set_ids, sources, nsets);
        sweep_bottlenecks(sec, ax);
        sec->chart0 = rp->pl.n;
        charts_for(&rp->pl, sec->chart_data ? sec->chart_data : sec->data, ax);
        sec->nchart = rp->pl.n - sec->chart0;
    }
    int k = 0;
    for (int r = rc ? -1 : sim_table_nrows(runs) - 1; r >= 0 && rc == SIM_OK; r--) {
        if (!isnan(cell_num(runs, r, "sweep")))
            continue; /* shown with its sweep */
        rp->nstandalone++;
        if (k++ >= REP_REPORT_MAX_ITEMS)
            continue;
        section *sec = add_section(rp, SEC_RUN, (int64_t)cell_num(runs, r, "id"));
        copy_time(runs, r, sec->created, sizeof sec->created);
        sec->info = rep_store_manifest(rp->s, REP_RUN, sec->id, err);
        sec->data = sec->info ? rep_store_load_table(rp->s, sec->id, err) : NULL;
        if (!sec->data) {
            rc = err ? err->code : SIM_EFAIL;
            break;
        }
        xaxis *ax = &rp->ax[rp->nsec - 1];
        int cc = sim_table_find_col(sec->data, "concurrency");
        if (varies(sec->data, cc))
            xaxis_init(ax, sec->data, cc, "concurrency");
        if (has_cols(sec->data, "fitted", "measured")) {
            static const char *const names[] = {"measured", "measured_held"};
            sec->chart_data = copy_with(sec->data, names, 2, held_row, NULL);
        }
        rep_bottleneck b;
        char line[600];
        if (has_cols(sec->data, "diff_ci", "metric"))
            diff_bottlenecks(sec);
        else if (!has_cols(sec->data, "decision", NULL) && rep_bottleneck_find(sec->data, &b))
            snprintf(sec->bottleneck, sizeof sec->bottleneck, "%s",
                     rep_bottleneck_sentence(&b, line, sizeof line));
        sec->chart0 = rp->pl.n;
        charts_for(&rp->pl, sec->chart_data ? sec->chart_data : sec->data, ax);
        sec->nchart = rp->pl.n - sec->chart0;
    }
    for (size_t j = 0; j < nsets && rc == SIM_OK; j++) {
        section *sec = add_section(rp, SEC_MEAS, set_ids[j]);
        snprintf(sec->label, sizeof sec->label, "%s", sources[j]);
        for (int r = 0; r < sim_table_nrows(ms); r++)
            if ((int64_t)cell_num(ms, r, "id") == set_ids[j])
                copy_time(ms, r, sec->created, sizeof sec->created);
        sec->data = sets[j];
        sets[j] = NULL;
        sec->chart0 = rp->pl.n;
        charts_meas(&rp->pl, sec->data);
        sec->nchart = rp->pl.n - sec->chart0;
    }
    for (size_t j = 0; j < nsets; j++) {
        sim_table_free(sets[j]);
        free(sources[j]);
    }
    free(sets);
    free(set_ids);
    free(sources);
    sim_table_free(sw);
    sim_table_free(runs);
    sim_table_free(ms);
    return rc;
}

static void write_page(FILE *out, const report *rp, const rep_report_opts *o)
{
    const char *title = o && o->title ? o->title : "tfsim results";
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          out);
    html(out, title);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
    fputs("<header class=\"top\"><div class=\"wrap\">\n<h1>", out);
    html(out, title);
    fputs("</h1>\n", out);
    if (o && o->source) {
        fputs("<div class=\"sub\">", out);
        html(out, o->source);
        fputs("</div>\n", out);
    }
    fprintf(out,
            "<div class=\"stats\"><div class=\"stat\"><b>%ld</b><span>sweeps</span></div>"
            "<div class=\"stat\"><b>%ld</b><span>runs</span></div>"
            "<div class=\"stat\"><b>%zu</b><span>charts</span></div>"
            "<div class=\"stat\"><b>%ld</b><span>measurement sets</span></div></div>\n"
            "</div></header>\n<main><div class=\"wrap\">\n",
            rp->nsweeps, rp->nruns, rp->pl.n, rp->nmeas);
    if (rp->nsec == 0)
        fputs("<section class=\"card\"><h2>No results yet</h2><p class=\"subtitle\">This "
              "database holds no runs. Store some with <code>tfsim run CONFIG --db FILE</code> "
              "or <code>tfsim sweep CONFIG --vary KEY=V1,V2 --db FILE</code>.</p></section>\n",
              out);
    if (rp->nsec > 1) {
        fputs("<nav class=\"toc\">", out);
        for (size_t i = 0; i < rp->nsec; i++) {
            const section *sec = &rp->sec[i];
            static const char *const kn[] = {"sweep", "run", "meas"};
            fprintf(out, "<a href=\"#%s-%" PRId64 "\">%s #%" PRId64, kn[sec->kind], sec->id,
                    sec->kind == SEC_MEAS ? "measurements" : kn[sec->kind], sec->id);
            if (sec->kind == SEC_SWEEP) {
                fputs(" &middot; ", out);
                html(out, sec->label);
            }
            fputs("</a>", out);
        }
        fputs("</nav>\n", out);
    }
    for (size_t i = 0; i < rp->nsec; i++)
        write_section(out, &rp->pl, &rp->sec[i], &rp->ax[i]);
    long hidden_sweeps =
        rp->nsweeps > REP_REPORT_MAX_ITEMS ? rp->nsweeps - REP_REPORT_MAX_ITEMS : 0;
    long hidden_runs =
        rp->nstandalone > REP_REPORT_MAX_ITEMS ? rp->nstandalone - REP_REPORT_MAX_ITEMS : 0;
    long hidden_meas = rp->nmeas > REP_REPORT_MAX_ITEMS ? rp->nmeas - REP_REPORT_MAX_ITEMS : 0;
    if (hidden_sweeps || hidden_runs || hidden_meas)
        fprintf(out,
                "<p class=\"more\">Older items not shown: %ld sweeps, %ld runs, %ld measurement "
                "sets (list them with <code>tfsim export DB --list "
                "runs|sweeps|measurements</code>).</p>\n",
                hidden_sweeps, hidden_runs, hidden_meas);
    fputs("</div></main>\n<footer>Generated by tfsim report &middot; charts drawn by gnuplot"
          "</footer>\n</body>\n</html>\n",
          out);
}

static void report_free(report *rp)
{
    for (size_t i = 0; i < rp->nsec; i++) {
        sim_table_free(rp->sec[i].info);
        sim_table_free(rp->sec[i].data);
        sim_table_free(rp->sec[i].chart_data);
        xaxis_fini(&rp->ax[i]);
    }
    free(rp->sec);
    free(rp->ax);
    for (size_t i = 0; i < rp->pl.n; i++)
        free(rp->pl.c[i].svg);
    free(rp->pl.c);
    if (rp->pl.gp)
        fclose(rp->pl.gp);
    free(rp->pl.gp_text);
}

/* Draw every planned chart: write the script, run gnuplot, read the SVGs;
 * the temporary directory is removed in every case. */
static int draw_charts(report *rp, const char *prog, char *dir, sim_err *err)
{
    fclose(rp->pl.gp);
    rp->pl.gp = NULL;
    char path[4200];
    snprintf(path, sizeof path, "%s/report.gp", dir);
    FILE *f = fopen(path, "w");
    int rc = SIM_OK;
    if (!f || fwrite(rp->pl.gp_text, 1, rp->pl.gp_len, f) != rp->pl.gp_len)
        rc = sim_err_set(err, SIM_EFAIL, "%s: cannot write: %s", path, strerror(errno));
    if (f && fclose(f) && rc == SIM_OK)
        rc = sim_err_set(err, SIM_EFAIL, "%s: cannot write: %s", path, strerror(errno));
    if (rc == SIM_OK)
        rc = run_gnuplot(prog, dir, err);
    for (size_t i = 0; i < rp->pl.n; i++) {
        snprintf(path, sizeof path, "%s/c%zu.svg", dir, i);
        if (rc == SIM_OK && !(rp->pl.c[i].svg = read_all(path, NULL)))
            rc = sim_err_set(err, SIM_EFAIL, "gnuplot wrote no chart %s", path);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/report.gp", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/gnuplot.log", dir);
    unlink(path);
    rmdir(dir);
    return rc;
}

int rep_report_write(rep_store *s, const rep_report_opts *o, FILE *out, sim_err *err)
{
    assert(s && out);
    report rp = {.s = s};
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tfsim-report-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return sim_err_set(err, SIM_EFAIL, "%s: cannot create temporary directory: %s", dir,
                           strerror(errno));
    rp.pl.dir = dir;
    rp.pl.gp = open_memstream(&rp.pl.gp_text, &rp.pl.gp_len);
    assert(rp.pl.gp);
    int rc = gather(&rp, err);
    if (rc == SIM_OK && o && o->script) {
        fflush(rp.pl.gp);
        fwrite(rp.pl.gp_text, 1, rp.pl.gp_len, o->script);
    }
    if (rc == SIM_OK && rp.pl.n > 0)
        rc = draw_charts(&rp, o && o->gnuplot ? o->gnuplot : "gnuplot", dir, err);
    else
        rmdir(dir);
    if (rc == SIM_OK) {
        write_page(out, &rp, o);
        if (fflush(out) || ferror(out))
            rc = sim_err_set(err, SIM_EFAIL, "cannot write the report: %s", strerror(errno));
    }
    report_free(&rp);
    return rc;
}
