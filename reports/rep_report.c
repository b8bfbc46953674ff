/* rep_report: see rep_report.h.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "reports/rep_report.h"

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

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    assert(d);
    memcpy(d, s, n);
    return d;
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

#define MAXV 6

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
    g->name = dupstr(name);
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
} xaxis;

static void xaxis_init(xaxis *ax, const sim_table *t, int col, const char *label)
{
    memset(ax, 0, sizeof *ax);
    ax->col = col;
    ax->label = dupstr(label);
    if (col < 0)
        return;
    int strings = 0;
    for (int r = 0; r < sim_table_nrows(t); r++)
        strings |= sim_table_cell(t, r, col, NULL, NULL) == 2;
    if (!strings)
        return;
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
            ax->cats[ax->ncats++] = dupstr(s);
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
    char note[200];  /* one line under the chart */
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
static chart *chart_begin(plan *pl, int width, int height)
{
    if (pl->n == pl->cap) {
        pl->cap = pl->cap ? 2 * pl->cap : 16;
        pl->c = realloc(pl->c, pl->cap * sizeof *pl->c);
        assert(pl->c);
    }
    chart *c = &pl->c[pl->n];
    memset(c, 0, sizeof *c);
    FILE *g = pl->gp;
    fprintf(g, "\n# chart %zu\nreset\n", pl->n);
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
        fputs("set autoscale xfix\n", g); /* no stretch to the next tic */
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

/* Throughput per phase with CI band and the comparison series. */
static void chart_throughput(plan *pl, const sim_table *t, const xaxis *ax)
{
    static const char *const cols[] = {"throughput", "throughput_ci", "measured",
                                       "live",       "amdahl",        "usl"};
    static const double one[] = {1, 1, 1, 1, 1, 1};
    /* Style of the comparison series (values 2..5). */
    static const char *const label[] = {NULL, NULL, "measured", "live", "Amdahl", "USL"};
    static const char *const style[] = {
        NULL, NULL, "linespoints dt 2 lw 1.5 pt 5 ps 0.6", "linespoints dt 3 lw 1.5 pt 9 ps 0.8",
        "lines dt 4 lw 1.5", "lines dt 5 lw 1.5"};
    groups gs = {0};
    if (!collect(&gs, t, ax, "phase", cols, one, 6) || !has_value(&gs, 0)) {
        groups_free(&gs);
        return;
    }
    chart *c = chart_begin(pl, 600, 380);
    snprintf(c->title, sizeof c->title, "Throughput vs %s", ax->label);
    int series = 0;
    for (int k = 2; k < 6; k++)
        series += has_value(&gs, k);
    snprintf(c->note, sizeof c->note, "%s%s",
             has_value(&gs, 1) ? "Lines: simulated mean; band: confidence interval. " : "",
             series ? "Colour: phase; line style: simulated, measured, live, Amdahl, USL." : "");
    set_xaxis(pl, ax);
    fputs("set ylabel 'requests/s'\nset yrange [0:*]\n", pl->gp);
    int *ids = malloc(gs.n * sizeof *ids);
    assert(ids);
    for (size_t i = 0; i < gs.n; i++)
        ids[i] = datablock(pl, &gs.g[i]);
    /* Colour names the phase, line style the series: the key lists the
     * phases, then one grey sample per series kind. */
    fputs("plot ", pl->gp);
    const char *sep = "";
    for (size_t i = 0; i < gs.n; i++) {
        const char *col = colour(gs.g[i].name, i);
        if (has_value(&gs, 1)) {
            fprintf(pl->gp, "%s$d%d using 1:($2-$3):($2+$3) with filledcurves lc rgb '%s' notitle",
                    sep, ids[i], col);
            sep = ", \\\n  ";
        }
        fprintf(pl->gp, "%s$d%d using 1:2 with linespoints lw 2 pt 7 ps 0.7 lc rgb '%s' title ",
                sep, ids[i], col);
        gq(pl->gp, gs.g[i].name);
        sep = ", \\\n  ";
        for (int k = 2; k < 6; k++) {
            int present = 0;
            for (size_t j = 0; j < gs.g[i].n; j++)
                present |= !isnan(gs.g[i].p[j].v[k]);
            if (present)
                fprintf(pl->gp, "%s$d%d using 1:%d with %s lc rgb '%s' notitle", sep, ids[i],
                        k + 2, style[k], col);
        }
    }
    if (series) {
        fprintf(pl->gp, "%sNaN with lines lw 2 lc rgb '#5f6368' title 'simulated'", sep);
        for (int k = 2; k < 6; k++)
            if (has_value(&gs, k))
                fprintf(pl->gp, "%sNaN with %s lc rgb '#5f6368' title '%s'", sep, style[k],
                        label[k]);
    }
    fputc('\n', pl->gp);
    chart_end(pl);
    free(ids);
    groups_free(&gs);
}

/* Latency percentiles: one panel per phase. */
static void chart_latency(plan *pl, const sim_table *t, const xaxis *ax)
{
    static const char *const cols[] = {"p50", "p90", "p99"};
    static const double ms[] = {1e3, 1e3, 1e3};
    static const char *const pc_colour[] = {"#4e79a7", "#f28e2b", "#e15759"};
    groups gs = {0};
    if (!collect(&gs, t, ax, "phase", cols, ms, 3)) {
        groups_free(&gs);
        return;
    }
    int ncol = gs.n > 1 ? 2 : 1, nrow = (int)(gs.n + 1) / 2;
    chart *c = chart_begin(pl, ncol == 2 ? 1000 : 600, 40 + 300 * nrow);
    c->wide = ncol == 2;
    snprintf(c->title, sizeof c->title, "Latency percentiles vs %s", ax->label);
    snprintf(c->note, sizeof c->note,
             "Response time per phase in milliseconds; the band spans p50 to p99.");
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
    chart *c = chart_begin(pl, 600, 380);
    snprintf(c->title, sizeof c->title, "%s", title);
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

/* Utilisation is drawn in per cent: 100 if the stored values are fractions
 * (none above 1), else 1 (they are per cent already). */
static double pct_scale(const sim_table *t)
{
    int c = sim_table_find_col(t, "utilisation");
    for (int r = 0; c >= 0 && r < sim_table_nrows(t); r++)
        if (row_group(t, r, "component") && cell_num_at(t, r, c) > 1.0001)
            return 1;
    return 100;
}

static void chart_utilisation(plan *pl, const sim_table *t, const xaxis *ax)
{
    line_spec ls = {
        .scope = "component", .col = "utilisation", .scale = pct_scale(t),
        .ylabel = "utilisation (%)", .yrange = "[0:100<*]",
        .extra = "set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead "
                 "lc rgb '#d93025' dt 2 lw 1\n",
        .note = "Share of time each component is busy; the red line (100%) is saturation."};
    char title[160];
    snprintf(title, sizeof title, "Utilisation by component vs %s", ax->label);
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

static void chart_error(plan *pl, const sim_table *t)
{
    int cc = sim_table_find_col(t, "concurrency");
    if (cc < 0 || sim_table_find_col(t, "phase") < 0 || sim_table_find_col(t, "error_pct") < 0)
        return;
    line_spec ls = {
        .scope = NULL, .col = "error_pct", .scale = 1, .ylabel = "error (%)",
        .yrange = "[*<-12:12<*]",
        .extra = "set object 1 rectangle from graph 0, first -10 to graph 1, first 10 behind "
                 "fc rgb '#e6f4ea' fs solid 1.0 noborder\n"
                 "set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead "
                 "lc rgb '#5f6368' dt 2 lw 1\n",
        .note = "Predicted minus measured, in per cent of measured; green: within 10%."};
    xaxis ax;
    xaxis_init(&ax, t, cc, "concurrency");
    chart_lines(pl, t, &ax, &ls, "Prediction error vs concurrency");
    xaxis_fini(&ax);
}

/* Bars, one per row of `scope` (a single run: no x axis), with error bars
 * from errcol when present. */
static void chart_bars(plan *pl, const sim_table *t, const char *scope, const char *col,
                       const char *errcol, double scale, const char *title, const char *ylabel,
                       const char *note)
{
    int vc = sim_table_find_col(t, col), ec = errcol ? sim_table_find_col(t, errcol) : -1;
    int n = 0;
    for (int r = 0; vc >= 0 && r < sim_table_nrows(t); r++)
        n += row_group(t, r, scope) && !isnan(cell_num_at(t, r, vc));
    if (n == 0)
        return;
    chart *c = chart_begin(pl, 600, 340);
    snprintf(c->title, sizeof c->title, "%s", title);
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
            "set key off\nset offsets 0, 0, graph 0.08, 0\n"
            "plot $d%d using 1:3:5:xtic(2) with boxes lc rgb variable",
            n - 1, id);
    if (ec >= 0)
        fprintf(pl->gp,
                ", \\\n  $d%d using 1:3:4 with yerrorbars lc rgb '#3c4043' pt 7 ps 0 lw 1.2", id);
    fputc('\n', pl->gp);
    chart_end(pl);
}

/* All charts that the table's data supports, on x axis ax (ax->col < 0:
 * only the charts that bring their own axis). */
static void charts_for(plan *pl, const sim_table *t, const xaxis *ax)
{
    if (ax->col >= 0) {
        chart_throughput(pl, t, ax);
        chart_utilisation(pl, t, ax);
        chart_batch(pl, t, ax);
    }
    chart_error(pl, t);
    if (ax->col >= 0) {
        chart_latency(pl, t, ax); /* wide: last */
        return;
    }
    chart_bars(pl, t, "phase", "throughput", "throughput_ci", 1, "Throughput by phase",
               "requests/s", "Simulated mean; bars show the confidence interval.");
    chart_bars(pl, t, "component", "utilisation", NULL, pct_scale(t), "Utilisation by component",
               "utilisation (%)", "Share of time each component is busy.");
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
    char label[256];  /* sweeps: varied key; measurements: source */
    char created[64];
    long points, stored;
    size_t chart0, nchart;
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
        sec->chart0 = rp->pl.n;
        charts_for(&rp->pl, sec->data, ax);
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
        sec->chart0 = rp->pl.n;
        charts_for(&rp->pl, sec->data, ax);
        sec->nchart = rp->pl.n - sec->chart0;
    }
    for (int r = rc ? -1 : sim_table_nrows(ms) - 1, j = 0;
         r >= 0 && j < REP_REPORT_MAX_ITEMS && rc == SIM_OK; r--, j++) {
        section *sec = add_section(rp, SEC_MEAS, (int64_t)cell_num(ms, r, "id"));
        copy_cell(ms, r, "source", sec->label, sizeof sec->label);
        copy_time(ms, r, sec->created, sizeof sec->created);
        sec->data = rep_store_load_measurements(rp->s, sec->id, err);
        if (!sec->data)
            rc = err ? err->code : SIM_EFAIL;
    }
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
