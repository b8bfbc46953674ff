/* val_cpu: the CPU split of live TigerFans runs (see val_cpu.h). */
#include "validate/val_cpu.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/tf_sim.h"
#include "sim/sim_cfg.h"
#include "validate/val_line.h"

const char *const val_cpu_comp_names[VAL_CPU_NCOMP] = {"client", "server", "postgres", "redis"};

static const char *const col_names[VAL_CPU_NCOLS] = {
    "arch", "concurrency", "phase",     "requests",    "ok",      "walltime",
    "throughput", "client_ms", "server_ms", "postgres_ms", "redis_ms"};

/* A finite number in lo..hi (sim_parse_double: the config's own rules). */
static int parse_num(const char *s, double lo, double hi, double *out)
{
    const char *why;
    double v;
    if (sim_parse_double(s, &v, &why) || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    const char *why;
    long v;
    if (sim_parse_long(s, &v, &why) || v < lo || v > hi)
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

/* Parse the fields v of one data row into r; -1 with the column and why. */
static int parse_row(const char *const *v, val_cpu_row *r, int *col, char *why, size_t len)
{
    memset(r, 0, sizeof *r);
    *col = 0;
    if (!arch_ok(v[0])) {
        snprintf(why, len, "expected 1-%d letters, digits, '_' or '-'", VAL_CPU_ARCH_MAX);
        return -1;
    }
    strcpy(r->arch, v[0]);
    *col = 1;
    if (parse_int(v[1], 1, 1000000, &r->concurrency)) {
        snprintf(why, len, "expected an integer 1 to 1000000");
        return -1;
    }
    *col = 2;
    r->phase = -1;
    for (int i = 0; i < TF_NPHASES; i++)
        if (!strcmp(v[2], tf_phase_names[i]))
            r->phase = i;
    if (r->phase < 0) {
        snprintf(why, len, "expected checkout, webhook, reserve or commit");
        return -1;
    }
    long req, ok;
    *col = 3;
    if (parse_int(v[3], 0, 1000000000L, &req)) {
        snprintf(why, len, "expected an integer >= 0");
        return -1;
    }
    *col = 4;
    if (parse_int(v[4], 0, req, &ok)) {
        snprintf(why, len, "expected an integer from 0 to requests (%ld)", req);
        return -1;
    }
    double wall;
    *col = 5;
    if (parse_num(v[5], 0, 1e9, &wall)) {
        snprintf(why, len, "expected a number of seconds >= 0");
        return -1;
    }
    *col = 6;
    if (parse_num(v[6], 0, 1e9, &r->throughput)) {
        snprintf(why, len, "expected requests/s >= 0");
        return -1;
    }
    for (int k = 0; k < VAL_CPU_NCOMP; k++) {
        *col = 7 + k;
        double ms;
        if (parse_num(v[7 + k], 0, VAL_CPU_MAX_MS, &ms)) {
            snprintf(why, len, "expected milliseconds from 0 to %g", VAL_CPU_MAX_MS);
            return -1;
        }
        r->cpu[k] = ms * 1e-3;
    }
    return 0;
}

static int read_file(FILE *in, const char *path, val_cpu *c, sim_err *err)
{
    char line[VAL_CPU_MAX_LINE + 2], text[VAL_CPU_MAX_LINE + VAL_CPU_NCOLS + 1];
    const char *v[VAL_CPU_NCOLS];
    unsigned long long lineno = 0;
    int header = 0, rc = SIM_OK;
    for (;;) {
        int r = val_line_next(in, path, line, sizeof line, VAL_CPU_MAX_LINE, &lineno, err);
        if (r < 0) {
            rc = err->code;
            break;
        }
        if (r == 0)
            break;
        if (!line[0])
            continue;
        char why[160];
        if (!header) {
            if (strcmp(line, VAL_CPU_HEADER)) {
                rc = sim_err_set(err, SIM_EINPUT, "%s:%llu: expected the header %s", path, lineno,
                                 VAL_CPU_HEADER);
                break;
            }
            header = 1;
            continue;
        }
        size_t nf;
        if (val_line_split(line, text, sizeof text, v, VAL_CPU_NCOLS, &nf, why, sizeof why)) {
            rc = sim_err_set(err, SIM_EINPUT, "%s:%llu: %s", path, lineno, why);
            break;
        }
        if (nf != VAL_CPU_NCOLS) {
            rc = sim_err_set(err, SIM_EINPUT, "%s:%llu: expected %d columns (%s), found %zu", path,
                             lineno, VAL_CPU_NCOLS, VAL_CPU_HEADER, nf);
            break;
        }
        val_cpu_row row;
        int col;
        if (parse_row(v, &row, &col, why, sizeof why)) {
            rc = sim_err_set(err, SIM_EINPUT, "%s:%llu: %s: %s", path, lineno, col_names[col], why);
            break;
        }
        row.line = (int)lineno;
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
    return rc;
}

int val_cpu_read(const char *path, val_cpu *c, sim_err *err)
{
    memset(c, 0, sizeof *c);
    FILE *in = fopen(path, "rb");
    if (!in)
        return sim_err_set(err, SIM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
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
