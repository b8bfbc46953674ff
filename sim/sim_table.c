#include "sim/sim_table.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_str.h"

enum { CELL_EMPTY = 0, CELL_NUM = 1, CELL_STR = 2 };

typedef struct cell {
    int kind;
    double v;
    char *s;
} cell;

typedef struct column {
    char *name;
    const char *text_fmt;
} column;

struct sim_table {
    char *title;
    column *cols;
    int ncols, cap_cols;
    cell **rows;   /* rows[r] has cap_cols cells */
    int nrows, cap_rows;
    int group_col;
};

int sim_format_parse(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "text"))
        return SIM_FMT_TEXT;
    if (!strcmp(s, "csv"))
        return SIM_FMT_CSV;
    if (!strcmp(s, "json"))
        return SIM_FMT_JSON;
    return -1;
}

sim_table *sim_table_new(const char *title)
{
    sim_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->title = sim_str_dup(title);
    t->group_col = -1;
    return t;
}

void sim_table_free(sim_table *t)
{
    if (!t)
        return;
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->cap_cols; c++)
            free(t->rows[r][c].s);
        free(t->rows[r]);
    }
    free(t->rows);
    for (int c = 0; c < t->ncols; c++)
        free(t->cols[c].name);
    free(t->cols);
    free(t->title);
    free(t);
}

int sim_table_find_col(const sim_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->cols[c].name, name))
            return c;
    return -1;
}

int sim_table_col(sim_table *t, const char *name, const char *text_fmt)
{
    int c = sim_table_find_col(t, name);
    if (c >= 0) {
        if (text_fmt)
            t->cols[c].text_fmt = text_fmt;
        return c;
    }
    if (t->ncols == t->cap_cols) {
        int nc = t->cap_cols ? 2 * t->cap_cols : 16;
        t->cols = realloc(t->cols, (size_t)nc * sizeof *t->cols);
        assert(t->cols);
        for (int r = 0; r < t->nrows; r++) {
            t->rows[r] = realloc(t->rows[r], (size_t)nc * sizeof(cell));
            assert(t->rows[r]);
            memset(t->rows[r] + t->cap_cols, 0, (size_t)(nc - t->cap_cols) * sizeof(cell));
        }
        t->cap_cols = nc;
    }
    t->cols[t->ncols].name = sim_str_dup(name);
    t->cols[t->ncols].text_fmt = text_fmt;
    return t->ncols++;
}

void sim_table_group_by(sim_table *t, int col)
{
    assert(col >= -1 && col < t->ncols);
    t->group_col = col;
}

int sim_table_row(sim_table *t)
{
    if (t->nrows == t->cap_rows) {
        int nr = t->cap_rows ? 2 * t->cap_rows : 16;
        t->rows = realloc(t->rows, (size_t)nr * sizeof *t->rows);
        assert(t->rows);
        t->cap_rows = nr;
    }
    if (t->cap_cols == 0) { /* make room so that every row array is non-empty */
        t->cap_cols = 16;
        t->cols = calloc(16, sizeof *t->cols);
        assert(t->cols);
    }
    t->rows[t->nrows] = calloc((size_t)t->cap_cols, sizeof(cell));
    assert(t->rows[t->nrows]);
    return t->nrows++;
}

static cell *cur(sim_table *t, int col)
{
    assert(t->nrows > 0 && col >= 0 && col < t->ncols);
    cell *c = &t->rows[t->nrows - 1][col];
    free(c->s);
    c->s = NULL;
    return c;
}

void sim_table_num(sim_table *t, int col, double v)
{
    cell *c = cur(t, col);
    c->kind = CELL_NUM;
    c->v = v;
}

void sim_table_num_at(sim_table *t, int row, int col, double v)
{
    assert(row >= 0 && row < t->nrows && col >= 0 && col < t->ncols);
    cell *c = &t->rows[row][col];
    free(c->s);
    c->s = NULL;
    c->kind = CELL_NUM;
    c->v = v;
}

void sim_table_str(sim_table *t, int col, const char *s)
{
    cell *c = cur(t, col);
    c->kind = s ? CELL_STR : CELL_EMPTY;
    c->s = sim_str_dup(s);
}

void sim_table_set_num(sim_table *t, const char *name, double v)
{
    sim_table_num(t, sim_table_col(t, name, NULL), v);
}

void sim_table_set_str(sim_table *t, const char *name, const char *s)
{
    sim_table_str(t, sim_table_col(t, name, NULL), s);
}

int sim_table_ncols(const sim_table *t) { return t->ncols; }
int sim_table_nrows(const sim_table *t) { return t->nrows; }
const char *sim_table_col_name(const sim_table *t, int col)
{
    assert(col >= 0 && col < t->ncols);
    return t->cols[col].name;
}

int sim_table_cell(const sim_table *t, int row, int col, double *v, const char **s)
{
    assert(row >= 0 && row < t->nrows && col >= 0 && col < t->ncols);
    const cell *c = &t->rows[row][col];
    if (c->kind == CELL_NUM && v)
        *v = c->v;
    if (c->kind == CELL_STR && s)
        *s = c->s;
    if (c->kind == CELL_NUM && isnan(c->v))
        return 0;
    return c->kind;
}

/* ---- CSV ---- */

static void csv_str(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
    } else {
        fputs(s, out);
    }
}

static void num_plain(FILE *out, double v)
{
    if (isinf(v))
        fputs(v > 0 ? "inf" : "-inf", out);
    else
        fprintf(out, "%.10g", v);
}

static void print_csv(const sim_table *t, FILE *out)
{
    for (int c = 0; c < t->ncols; c++) {
        if (c)
            fputc(',', out);
        csv_str(out, t->cols[c].name);
    }
    fputc('\n', out);
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', out);
            const cell *x = &t->rows[r][c];
            if (x->kind == CELL_NUM && !isnan(x->v))
                num_plain(out, x->v);
            else if (x->kind == CELL_STR)
                csv_str(out, x->s);
        }
        fputc('\n', out);
    }
}

/* ---- JSON ---- */

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void print_json(const sim_table *t, FILE *out)
{
    fputs("[\n", out);
    for (int r = 0; r < t->nrows; r++) {
        fputs("  {", out);
        int first = 1;
        for (int c = 0; c < t->ncols; c++) {
            const cell *x = &t->rows[r][c];
            if (x->kind == CELL_EMPTY)
                continue;
            if (!first)
                fputs(", ", out);
            first = 0;
            json_str(out, t->cols[c].name);
            fputs(": ", out);
            if (x->kind == CELL_STR)
                json_str(out, x->s);
            else if (isfinite(x->v))
                fprintf(out, "%.10g", x->v);
            else
                fputs("null", out);
        }
        fprintf(out, "}%s\n", r + 1 < t->nrows ? "," : "");
    }
    fputs("]\n", out);
}

/* ---- text ---- */

void sim_table_fmt_ci(char *buf, size_t len, const char *fmt, double mean, double half)
{
    if (isnan(mean)) {
        snprintf(buf, len, "-");
        return;
    }
    int n = snprintf(buf, len, fmt, mean);
    if (n < 0 || (size_t)n >= len || !isfinite(half) || !(half > 0))
        return;
    snprintf(buf + n, len - (size_t)n, " ± ");
    /* a half-width has no sign: the format without its '+' and ' ' flags */
    char hf[32];
    size_t j = 0;
    for (const char *p = fmt; *p && j + 1 < sizeof hf; p++)
        if (!(*p == '+' || (*p == ' ' && p > fmt && p[-1] == '%')))
            hf[j++] = *p;
    hf[j] = '\0';
    size_t k = strlen(buf);
    snprintf(buf + k, len - k, hf, half);
}

static void fmt_cell(const sim_table *t, const cell *x, int col, char *buf, size_t n)
{
    if (x->kind == CELL_STR) {
        snprintf(buf, n, "%s", x->s);
    } else if (x->kind == CELL_NUM && !isnan(x->v)) {
        const char *f = t->cols[col].text_fmt;
        if (!f) /* no format: whole numbers (counts) in full, others to 4 digits */
            f = x->v == floor(x->v) && fabs(x->v) < 1e15 ? "%.0f" : "%.4g";
        snprintf(buf, n, f, x->v);
    } else {
        snprintf(buf, n, "-");
    }
}

static int same_group(const sim_table *t, int a, int b)
{
    if (t->group_col < 0)
        return 1;
    const cell *x = &t->rows[a][t->group_col], *y = &t->rows[b][t->group_col];
    if (x->kind != y->kind)
        return 0;
    if (x->kind == CELL_STR)
        return !strcmp(x->s, y->s);
    if (x->kind == CELL_NUM)
        return x->v == y->v;
    return 1;
}

/* Characters (not bytes) of a UTF-8 string: text columns hold "±". */
static int text_width(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* s right- (or, left, left-) aligned in w characters. */
static void put_padded(FILE *out, const char *s, int w, int left)
{
    int pad = w - text_width(s);
    if (!left)
        for (; pad > 0; pad--)
            fputc(' ', out);
    fputs(s, out);
    if (left)
        for (; pad > 0; pad--)
            fputc(' ', out);
}

/* Text output writes an interval one way: a column NAME with a column
 * NAME_ci (a half-width) shows "mean ± half" and NAME_ci is not shown.
 * ci[c]: the NAME_ci column of column c, or -1; hide[c]: c is one. */
static void ci_columns(const sim_table *t, int *ci, int *hide)
{
    for (int c = 0; c < t->ncols; c++)
        ci[c] = -1, hide[c] = 0;
    for (int c = 0; c < t->ncols; c++) {
        const char *n = t->cols[c].name;
        size_t l = strlen(n);
        if (l <= 3 || strcmp(n + l - 3, "_ci"))
            continue;
        for (int b = 0; b < t->ncols; b++)
            if (strlen(t->cols[b].name) == l - 3 && !strncmp(t->cols[b].name, n, l - 3)) {
                ci[b] = c;
                hide[c] = 1;
            }
    }
}

static void fmt_text_cell(const sim_table *t, int r, int c, const int *ci, char *buf, size_t n)
{
    const cell *x = &t->rows[r][c];
    if (ci[c] >= 0 && x->kind == CELL_NUM && t->rows[r][ci[c]].kind == CELL_NUM) {
        const char *f = t->cols[c].text_fmt ? t->cols[c].text_fmt : "%.4g";
        sim_table_fmt_ci(buf, n, f, x->v, t->rows[r][ci[c]].v);
        return;
    }
    fmt_cell(t, x, c, buf, n);
}

static void print_block(const sim_table *t, int r0, int r1, FILE *out)
{
    int *w = calloc((size_t)t->ncols, sizeof *w);
    int *use = calloc((size_t)t->ncols, sizeof *use);
    int *ci = calloc((size_t)t->ncols, sizeof *ci);
    int *hide = calloc((size_t)t->ncols, sizeof *hide);
    assert(w && use && ci && hide);
    ci_columns(t, ci, hide);
    char buf[256];
    for (int c = 0; c < t->ncols; c++) {
        if (c == t->group_col || hide[c])
            continue;
        for (int r = r0; r < r1; r++)
            if (t->rows[r][c].kind != CELL_EMPTY)
                use[c] = 1;
        if (!use[c])
            continue;
        w[c] = text_width(t->cols[c].name);
        for (int r = r0; r < r1; r++) {
            fmt_text_cell(t, r, c, ci, buf, sizeof buf);
            int l = text_width(buf);
            if (l > w[c])
                w[c] = l;
        }
    }
    if (t->group_col >= 0) {
        fmt_cell(t, &t->rows[r0][t->group_col], t->group_col, buf, sizeof buf);
        fprintf(out, "%s\n", buf);
    }
    int first = 1;
    for (int c = 0; c < t->ncols; c++) {
        if (!use[c])
            continue;
        fputs("  ", out);
        put_padded(out, t->cols[c].name, w[c], first);
        first = 0;
    }
    fputc('\n', out);
    for (int r = r0; r < r1; r++) {
        first = 1;
        for (int c = 0; c < t->ncols; c++) {
            if (!use[c])
                continue;
            fmt_text_cell(t, r, c, ci, buf, sizeof buf);
            fputs("  ", out);
            put_padded(out, buf, w[c], first);
            first = 0;
        }
        fputc('\n', out);
    }
    free(w);
    free(use);
    free(ci);
    free(hide);
}

static void print_text(const sim_table *t, FILE *out)
{
    if (t->title)
        fprintf(out, "%s\n", t->title);
    int r0 = 0;
    while (r0 < t->nrows) {
        int r1 = r0 + 1;
        while (r1 < t->nrows && same_group(t, r0, r1))
            r1++;
        if (r0 > 0)
            fputc('\n', out);
        print_block(t, r0, r1, out);
        r0 = r1;
    }
}

int sim_table_print(const sim_table *t, sim_format fmt, FILE *out)
{
    switch (fmt) {
    case SIM_FMT_CSV:
        print_csv(t, out);
        break;
    case SIM_FMT_JSON:
        print_json(t, out);
        break;
    default:
        print_text(t, out);
        break;
    }
    return ferror(out) ? -1 : 0;
}
