/* val_cpu: the CPU split of live TigerFans runs (see val_cpu.h). */
#include "validate/val_cpu.h"

#include <assert.h>
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/tf_sim.h"

const char *const val_cpu_comp_names[VAL_CPU_NCOMP] = {"client", "server", "postgres", "redis"};

static const char *const col_names[VAL_CPU_NCOLS] = {
    "arch", "concurrency", "phase",     "requests",    "ok",      "walltime",
    "throughput", "client_ms", "server_ms", "postgres_ms", "redis_ms"};

/* One line's fields, split by libcsv into buf. */
typedef struct fields {
    char buf[VAL_CPU_MAX_LINE + 1];
    size_t off[VAL_CPU_NCOLS + 1], used, n, rows;
} fields;

static void on_field(void *s, size_t len, void *data)
{
    fields *f = data;
    if (f->n >= VAL_CPU_NCOLS) {
        f->n++;
        return;
    }
    assert(f->used + len + 1 <= sizeof f->buf); /* a field is shorter than its line */
    memcpy(f->buf + f->used, s, len);
    f->off[f->n++] = f->used;
    f->used += len;
    f->buf[f->used++] = '\0';
}

static void on_row(int term, void *data)
{
    (void)term;
    ((fields *)data)->rows++;
}

/* Split line into f; -1 with why on malformed CSV or a wrong column count. */
static int split(const char *line, fields *f, char *why, size_t len)
{
    size_t n = strlen(line);
    f->used = f->n = f->rows = 0;
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    int bad = csv_parse(&p, line, n, on_field, on_row, f) != n;
    if (!bad && csv_fini(&p, on_field, on_row, f) != 0)
        bad = 1;
    if (bad)
        snprintf(why, len, "malformed CSV: %s", csv_strerror(csv_error(&p)));
    csv_free(&p);
    if (bad)
        return -1;
    if (f->rows != 1 || f->n != VAL_CPU_NCOLS) {
        snprintf(why, len, "expected %d columns (%s), found %zu", VAL_CPU_NCOLS, VAL_CPU_HEADER,
                 f->rows == 1 ? f->n : (size_t)0);
        return -1;
    }
    return 0;
}

static const char *field(const fields *f, int i) { return f->buf + f->off[i]; }

/* A finite number in lo..hi written whole (no trailing text). */
static int parse_num(const char *s, double lo, double hi, double *out)
{
    if (!*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int arch_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > VAL_CPU_ARCH_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
            return 0;
    return 1;
}

/* Parse the fields of one data row into r; -1 with the column and why. */
static int parse_row(const fields *f, val_cpu_row *r, int *col, char *why, size_t len)
{
    memset(r, 0, sizeof *r);
    *col = 0;
    if (!arch_ok(field(f, 0))) {
        snprintf(why, len, "expected 1-%d letters, digits, '_' or '-'", VAL_CPU_ARCH_MAX);
        return -1;
    }
    strcpy(r->arch, field(f, 0));
    *col = 1;
    if (parse_int(field(f, 1), 1, 1000000, &r->concurrency)) {
        snprintf(why, len, "expected an integer 1 to 1000000");
        return -1;
    }
    *col = 2;
    r->phase = -1;
    for (int i = 0; i < TF_NPHASES; i++)
        if (!strcmp(field(f, 2), tf_phase_names[i]))
            r->phase = i;
    if (r->phase < 0) {
        snprintf(why, len, "expected checkout, webhook, reserve or commit");
        return -1;
    }
    long req, ok;
    *col = 3;
    if (parse_int(field(f, 3), 0, 1000000000L, &req)) {
        snprintf(why, len, "expected an integer >= 0");
        return -1;
    }
    *col = 4;
    if (parse_int(field(f, 4), 0, req, &ok)) {
        snprintf(why, len, "expected an integer from 0 to requests (%ld)", req);
        return -1;
    }
    double wall;
    *col = 5;
    if (parse_num(field(f, 5), 0, 1e9, &wall)) {
        snprintf(why, len, "expected a number of seconds >= 0");
        return -1;
    }
    *col = 6;
    if (parse_num(field(f, 6), 0, 1e9, &r->throughput)) {
        snprintf(why, len, "expected requests/s >= 0");
        return -1;
    }
    for (int k = 0; k < VAL_CPU_NCOMP; k++) {
        *col = 7 + k;
        double ms;
        if (parse_num(field(f, 7 + k), 0, VAL_CPU_MAX_MS, &ms)) {
            snprintf(why, len, "expected milliseconds from 0 to %g", VAL_CPU_MAX_MS);
            return -1;
        }
        r->cpu[k] = ms * 1e-3;
    }
    return 0;
}

/* The next line of f into buf (cap bytes; "\r\n" or "\n" stripped): 1, 0
 * at the end, -1 on a read error; *toolong or *nul flag a bad line. */
static int next_line(FILE *f, char *buf, size_t cap, int *toolong, int *nul)
{
    size_t n = 0;
    int c, any = 0;
    *toolong = *nul = 0;
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
    return 1;
}

static int read_file(FILE *in, const char *path, val_cpu *c, sim_err *err)
{
    char line[VAL_CPU_MAX_LINE + 2];
    fields *f = malloc(sizeof *f); /* owned: freed below */
    assert(f);
    int lineno = 0, header = 0, rc = SIM_OK;
    for (;;) {
        int toolong, nul;
        int r = next_line(in, line, sizeof line, &toolong, &nul);
        if (r < 0) {
            rc = sim_err_set(err, SIM_EFAIL, "%s: read error: %s", path, strerror(errno));
            break;
        }
        if (r == 0)
            break;
        lineno++;
        if (toolong || strlen(line) > VAL_CPU_MAX_LINE) {
            rc = sim_err_set(err, SIM_EINPUT, "%s:%d: line longer than %d bytes", path, lineno,
                             VAL_CPU_MAX_LINE);
            break;
        }
        if (nul) {
            rc = sim_err_set(err, SIM_EINPUT, "%s:%d: NUL byte in the line", path, lineno);
            break;
        }
        if (!line[0])
            continue;
        char why[160];
        if (!header) {
            if (strcmp(line, VAL_CPU_HEADER)) {
                rc = sim_err_set(err, SIM_EINPUT, "%s:%d: expected the header %s", path, lineno,
                                 VAL_CPU_HEADER);
                break;
            }
            header = 1;
            continue;
        }
        if (split(line, f, why, sizeof why)) {
            rc = sim_err_set(err, SIM_EINPUT, "%s:%d: %s", path, lineno, why);
            break;
        }
        val_cpu_row row;
        int col;
        if (parse_row(f, &row, &col, why, sizeof why)) {
            rc = sim_err_set(err, SIM_EINPUT, "%s:%d: %s: %s", path, lineno, col_names[col], why);
            break;
        }
        row.line = lineno;
        if (c->n == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 64;
            val_cpu_row *g = realloc(c->rows, cap * sizeof *g);
            assert(g);
            c->rows = g;
            c->cap = cap;
        }
        c->rows[c->n++] = row;
    }
    if (rc == SIM_OK && !header)
        rc = sim_err_set(err, SIM_EINPUT, "%s: empty file (expected the header %s)", path,
                         VAL_CPU_HEADER);
    free(f);
    return rc;
}

int val_cpu_read(const char *path, val_cpu *c, sim_err *err)
{
    memset(c, 0, sizeof *c);
    FILE *in = fopen(path, "rb");
    if (!in)
        return sim_err_set(err, errno == ENOENT ? SIM_EINPUT : SIM_EFAIL, "%s: cannot open: %s",
                           path, strerror(errno));
    int rc = read_file(in, path, c, err);
    fclose(in);
    if (rc)
        val_cpu_fini(c);
    return rc;
}

void val_cpu_fini(val_cpu *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}

double val_cpu_mean(const val_cpu *c, const char *arch, long conc, int phase, int comp)
{
    assert(comp >= 0 && comp < VAL_CPU_NCOMP);
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < c->n; i++) {
        const val_cpu_row *r = &c->rows[i];
        if (r->concurrency == conc && r->phase == phase && !strcmp(r->arch, arch)) {
            sum += r->cpu[comp];
            n++;
        }
    }
    return n ? sum / n : NAN;
}
