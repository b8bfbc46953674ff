/* val_line: one line of a text file, bounded (see val_line.h). */
#include "validate/val_line.h"

#include <assert.h>
#include <csv.h>
#include <errno.h>
#include <string.h>

int val_line_read(FILE *f, char *buf, size_t cap, size_t *len, int *nul, int *toolong)
{
    assert(cap >= 1);
    size_t n = 0;
    int c, any = 0;
    *nul = *toolong = 0;
    while ((c = getc(f)) != EOF) {
        any = 1;
        if (c == '\n')
            break;
        if (c == '\0')
            *nul = 1;
        if (n + 1 < cap)
            buf[n++] = (char)c;
        else
            *toolong = 1;
    }
    if (c == EOF && ferror(f))
        return -1;
    if (!any)
        return 0;
    if (n > 0 && buf[n - 1] == '\r')
        n--;
    buf[n] = '\0';
    *len = n;
    return 1;
}

int val_line_next(FILE *f, const char *name, char *buf, size_t cap, size_t max,
                  unsigned long long *lineno, sim_err *err)
{
    assert(cap > max);
    size_t n;
    int nul, toolong;
    int r = val_line_read(f, buf, cap, &n, &nul, &toolong);
    if (r < 0) {
        sim_err_set(err, errno == EISDIR ? SIM_EINPUT : SIM_EFAIL, "%s: read error: %s", name,
                    strerror(errno));
        return -1;
    }
    if (r == 0)
        return 0;
    ++*lineno;
    if (toolong || n > max) {
        sim_err_set(err, SIM_EINPUT, "%s:%llu: line longer than %zu bytes", name, *lineno, max);
        return -1;
    }
    if (nul) {
        sim_err_set(err, SIM_EINPUT, "%s:%llu: NUL byte in the line", name, *lineno);
        return -1;
    }
    return 1;
}

typedef struct split_ctx {
    char *text;
    size_t cap, used, n, max, rows;
    const char **v;
} split_ctx;

static void on_field(void *s, size_t len, void *data)
{
    split_ctx *c = data;
    if (c->n < c->max) {
        assert(c->used + len + 1 <= c->cap); /* cap >= the line + a NUL per field */
        if (len)
            memcpy(c->text + c->used, s, len);
        c->text[c->used + len] = '\0';
        c->v[c->n] = c->text + c->used;
        c->used += len + 1;
    }
    c->n++;
}

static void on_row(int term, void *data)
{
    (void)term;
    ((split_ctx *)data)->rows++;
}

int val_line_split(const char *line, char *text, size_t cap, const char **v, size_t max,
                   size_t *n, char *why, size_t len)
{
    size_t nl = strlen(line);
    assert(cap >= nl + max + 1);
    split_ctx c = {text, cap, 0, 0, max, 0, v};
    *n = 0;
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    int bad = csv_parse(&p, line, nl, on_field, on_row, &c) != nl;
    if (!bad && csv_fini(&p, on_field, on_row, &c) != 0)
        bad = 1;
    if (bad)
        snprintf(why, len, "malformed CSV: %s", csv_strerror(csv_error(&p)));
    csv_free(&p);
    if (bad)
        return -1;
    if (c.rows > 1) {
        snprintf(why, len, "more than one row");
        return -1;
    }
    *n = c.rows ? c.n : 0;
    return 0;
}
