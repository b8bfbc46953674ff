#include "validate/val_samples.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csv.h>

#include "sim/sim_afile.h"
#include "sim/sim_cfg.h"

int val_samples_op_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > VAL_SAMPLES_OP_MAX)
        return 0;
    for (const char *p = name; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

/* ---- writer ---- */

struct val_samples_writer {
    int fd;
    int existed;    /* the file was there before: untouched until rows come */
    int regular;    /* a regular file (truncated when the first rows come) */
    int started;    /* header written */
    char *path;
    FILE *mem;      /* batch being formatted (open_memstream), or NULL */
    char *mem_buf;
    size_t mem_len;
    unsigned in_batch;
    uint64_t rows;
    char *notes;    /* note lines not yet in a batch (owned), or NULL */
    size_t notes_len;
};

val_samples_writer *val_samples_create(const char *path, sim_err *err)
{
    struct stat st;
    int existed = stat(path, &st) == 0;
    /* no O_TRUNC: an existing file keeps its rows until there are new ones */
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        sim_err_set(err, SIM_EFAIL, "%s: cannot create: %s", path, strerror(errno));
        return NULL;
    }
    val_samples_writer *w = calloc(1, sizeof *w);
    assert(w);
    w->fd = fd;
    w->existed = existed;
    w->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    w->path = strdup(path);
    assert(w->path);
    return w;
}

/* Replace what the file held by the header (once, before the first rows). */
static int start(val_samples_writer *w)
{
    if (w->started)
        return 0;
    w->started = 1;
    static const char header[] = VAL_SAMPLES_HEADER "\n";
    if (w->regular && ftruncate(w->fd, 0) != 0)
        return -1;
    return sim_afile_write_all(w->fd, header, sizeof header - 1);
}

/* Move the pending note lines into the batch. */
static int take_notes(val_samples_writer *w)
{
    if (!w->notes_len)
        return 0;
    if (!w->mem && !(w->mem = open_memstream(&w->mem_buf, &w->mem_len)))
        return -1;
    int bad = fwrite(w->notes, 1, w->notes_len, w->mem) != w->notes_len;
    free(w->notes);
    w->notes = NULL;
    w->notes_len = 0;
    return bad ? -1 : 0;
}

int val_samples_flush(val_samples_writer *w, sim_err *err)
{
    /* notes go out with rows (or after rows went out): a file that existed
     * stays as it was until rows come */
    if ((w->mem || w->started) && take_notes(w))
        return sim_err_set(err, SIM_EFAIL, "%s: out of memory", w->path);
    if (!w->mem)
        return SIM_OK;
    int bad = fclose(w->mem) != 0;
    w->mem = NULL;
    w->in_batch = 0;
    if (!bad && w->mem_len && (start(w) || sim_afile_write_all(w->fd, w->mem_buf, w->mem_len)))
        bad = 1;
    free(w->mem_buf);
    w->mem_buf = NULL;
    w->mem_len = 0;
    if (bad)
        return sim_err_set(err, SIM_EFAIL, "%s: write failed: %s", w->path, strerror(errno));
    return SIM_OK;
}

int val_samples_add(val_samples_writer *w, const char *op, unsigned concurrency, double latency_us,
                    double timestamp, sim_err *err)
{
    assert(val_samples_op_ok(op));
    assert(isfinite(latency_us) && latency_us >= 0 && isfinite(timestamp));
    if (latency_us > VAL_SAMPLES_MAX_LATENCY_US)
        latency_us = VAL_SAMPLES_MAX_LATENCY_US; /* a stuck operation: readable as the bound */
    if (!w->mem) {
        w->mem = open_memstream(&w->mem_buf, &w->mem_len);
        if (!w->mem)
            return sim_err_set(err, SIM_EFAIL, "%s: out of memory", w->path);
    }
    if (take_notes(w))
        return sim_err_set(err, SIM_EFAIL, "%s: out of memory", w->path);
    if (csv_fwrite(w->mem, op, strlen(op)) != 0 ||
        fprintf(w->mem, ",%u,%.3f,%.6f\n", concurrency, latency_us, timestamp) < 0)
        return sim_err_set(err, SIM_EFAIL, "%s: cannot format a row (out of memory)", w->path);
    w->rows++;
    if (++w->in_batch >= VAL_SAMPLES_BATCH)
        return val_samples_flush(w, err);
    return SIM_OK;
}

/* A note key or value: 1..63 of the characters of an operation name (a
 * value may also hold ',' -free text of letters, digits, '.', '_', '-'). */
static int note_ok(const char *s) { return val_samples_op_ok(s); }

int val_samples_note(val_samples_writer *w, const char *key, const char *value, sim_err *err)
{
    assert(note_ok(key) && note_ok(value));
    char line[160];
    int n = snprintf(line, sizeof line, "# %s = %s\n", key, value);
    char *p = realloc(w->notes, w->notes_len + (size_t)n + 1);
    if (!p)
        return sim_err_set(err, SIM_EFAIL, "%s: out of memory", w->path);
    memcpy(p + w->notes_len, line, (size_t)n + 1);
    w->notes = p;
    w->notes_len += (size_t)n;
    return SIM_OK;
}

uint64_t val_samples_rows(const val_samples_writer *w) { return w->rows; }

int val_samples_close(val_samples_writer *w, sim_err *err)
{
    if (!w)
        return SIM_OK;
    int rc = val_samples_flush(w, err);
    /* no rows: a new file gets the header (and the notes), an existing one
     * stays as it was */
    if (rc == SIM_OK && !w->started && !w->existed &&
        (start(w) || (w->notes_len && sim_afile_write_all(w->fd, w->notes, w->notes_len))))
        rc = sim_err_set(err, SIM_EFAIL, "%s: write failed: %s", w->path, strerror(errno));
    free(w->notes);
    if (close(w->fd) != 0 && rc == SIM_OK)
        rc = sim_err_set(err, SIM_EFAIL, "%s: close failed: %s", w->path, strerror(errno));
    free(w->path);
    free(w);
    return rc;
}

/* ---- reader ---- */

#define NCOLS 4
static const char *const col_name[NCOLS] = {"operation", "concurrency", "latency_us", "timestamp"};

struct val_samples_reader {
    FILE *f;
    int own_f;
    char *name;
    struct csv_parser csv;
    char buf[65536];
    size_t buf_len, buf_pos;
    int eof, failed;
    uint64_t line;        /* line being fed (1-based) */
    uint64_t row_line;    /* line of the last completed row */
    size_t row_bytes;     /* bytes fed since the last completed row */
    /* the row being assembled */
    char field[NCOLS][VAL_SAMPLES_MAX_ROW];
    size_t nfields;
    int too_long;
    size_t nul_col;       /* 1-based column holding a NUL byte; 0: none */
    /* a completed row waiting for val_samples_next */
    int have_row, header_done;
    val_sample row;
    char note_key[VAL_SAMPLES_NOTES][VAL_SAMPLES_OP_MAX + 1];
    char note_val[VAL_SAMPLES_NOTES][VAL_SAMPLES_OP_MAX + 1];
    size_t nnotes;
    sim_err *err;          /* error sink while parsing */
};

static void on_field(void *s, size_t len, void *data)
{
    val_samples_reader *r = data;
    if (r->nfields >= NCOLS) {
        r->nfields++;  /* counted for the message, not kept */
        return;
    }
    if (len && memchr(s, '\0', len) && !r->nul_col)
        r->nul_col = r->nfields + 1;
    if (len >= VAL_SAMPLES_MAX_ROW) {
        r->too_long = 1;
        len = VAL_SAMPLES_MAX_ROW - 1;
    }
    if (len)
        memcpy(r->field[r->nfields], s, len);
    r->field[r->nfields][len] = '\0';
    r->nfields++;
}

/* Record "file:line: column: message"; fmt has one %s for val, which is
 * shortened to 40 characters. */
static int row_error(val_samples_reader *r, int col, const char *fmt, const char *val)
{
    char v[48], msg[512];
    if (strlen(val) > 40)
        snprintf(v, sizeof v, "%.40s...", val);
    else
        snprintf(v, sizeof v, "%s", val);
    snprintf(msg, sizeof msg, fmt, v);
    if (col >= 0)
        sim_err_set(r->err, SIM_EINPUT, "%s:%llu: %s: %s", r->name, (unsigned long long)r->row_line,
                    col_name[col], msg);
    else
        sim_err_set(r->err, SIM_EINPUT, "%s:%llu: %s", r->name, (unsigned long long)r->row_line, msg);
    r->failed = 1;
    return -1;
}

/* "# key = value": a note; the latest value of a key wins. */
static int check_note(val_samples_reader *r)
{
    char buf[VAL_SAMPLES_MAX_ROW];
    snprintf(buf, sizeof buf, "%s", r->field[0] + 1);
    char *eq = strchr(buf, '=');
    if (!eq)
        return row_error(r, -1, "a note must read '# key = value': '%s'", r->field[0]);
    *eq = '\0';
    char *k = buf, *v = eq + 1;
    while (*k == ' ' || *k == '\t')
        k++;
    while (*v == ' ' || *v == '\t')
        v++;
    for (char *e = k + strlen(k); e > k && (e[-1] == ' ' || e[-1] == '\t'); e--)
        e[-1] = '\0';
    for (char *e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); e--)
        e[-1] = '\0';
    if (!note_ok(k) || !note_ok(v))
        return row_error(r, -1, "a note's key and value are 1 to 63 letters, digits, '.', '_' or '-': '%s'",
                         r->field[0]);
    size_t i = 0;
    while (i < r->nnotes && strcmp(r->note_key[i], k))
        i++;
    if (i == VAL_SAMPLES_NOTES)
        return row_error(r, -1, "more than 16 different notes: '%s'", r->field[0]);
    if (i == r->nnotes)
        r->nnotes++;
    memcpy(r->note_key[i], k, strlen(k) + 1); /* note_ok: at most 63 characters */
    memcpy(r->note_val[i], v, strlen(v) + 1);
    return 0;
}

const char *val_samples_note_get(const val_samples_reader *r, const char *key)
{
    for (size_t i = 0; i < r->nnotes; i++)
        if (!strcmp(r->note_key[i], key))
            return r->note_val[i];
    return NULL;
}

size_t val_samples_notes(const val_samples_reader *r, size_t i, const char **key, const char **value)
{
    if (i < r->nnotes) {
        *key = r->note_key[i];
        *value = r->note_val[i];
    }
    return r->nnotes;
}

static int check_row(val_samples_reader *r)
{
    if (r->too_long)
        return row_error(r, -1, "%srow longer than 4096 bytes", "");
    /* a NUL would cut the field short: "10\0" + "00" must not read as 10 */
    if (r->nul_col)
        return row_error(r, r->nul_col <= NCOLS ? (int)r->nul_col - 1 : -1,
                         "%sNUL byte in the field", "");
    if (!r->header_done) {
        r->header_done = 1;
        for (int c = 0; c < NCOLS; c++) {
            if (r->nfields != NCOLS || strcmp(r->field[c], col_name[c]) != 0)
                return row_error(r, -1, "expected the header line '%s'", VAL_SAMPLES_HEADER);
        }
        return 0;
    }
    if (r->nfields == 1 && r->field[0][0] == '#')
        return check_note(r);
    if (r->nfields != NCOLS) {
        char n[32];
        snprintf(n, sizeof n, "%zu", r->nfields);
        return row_error(r, -1, "expected 4 columns (operation,concurrency,latency_us,timestamp), found %s", n);
    }
    const char *why;
    if (!val_samples_op_ok(r->field[0]))
        return row_error(r, 0,
                         "'%s' is not an operation name (1 to 63 letters, digits, '.', '_' or '-')",
                         r->field[0]);
    long conc;
    if (sim_parse_long(r->field[1], &conc, &why) || conc < 1 || conc > (long)VAL_SAMPLES_MAX_CONC)
        return row_error(r, 1, "'%s' is not an integer in [1, 1000000]", r->field[1]);
    double lat, ts;
    if (sim_parse_double(r->field[2], &lat, &why) || !isfinite(lat) || lat < 0 ||
        lat > VAL_SAMPLES_MAX_LATENCY_US)
        return row_error(r, 2, "'%s' is not a latency in microseconds (a number from 0 to 3.6e9, "
                         "one hour)", r->field[2]);
    if (sim_parse_double(r->field[3], &ts, &why) || !isfinite(ts) || ts < 0)
        return row_error(r, 3, "'%s' is not a time in seconds since the epoch (a number >= 0)",
                         r->field[3]);
    memcpy(r->row.op, r->field[0], strlen(r->field[0]) + 1); /* checked: <= 63 chars */
    r->row.concurrency = (unsigned)conc;
    r->row.latency_us = lat;
    r->row.timestamp = ts;
    r->have_row = 1;
    return 0;
}

static void on_row(int term, void *data)
{
    (void)term;
    val_samples_reader *r = data;
    r->row_line = r->line;
    r->row_bytes = 0;
    if (!r->failed)
        check_row(r);
    r->nfields = 0;
    r->too_long = 0;
    r->nul_col = 0;
}

val_samples_reader *val_samples_open(const char *path, sim_err *err)
{
    val_samples_reader *r = calloc(1, sizeof *r);
    assert(r);
    if (!strcmp(path, "-")) {
        r->f = stdin;
        r->name = strdup("<stdin>");
    } else {
        r->f = fopen(path, "rb");
        r->own_f = 1;
        r->name = strdup(path);
        if (!r->f) {
            sim_err_set(err, SIM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
            free(r->name);
            free(r);
            return NULL;
        }
    }
    assert(r->name);
    if (csv_init(&r->csv, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        sim_err_set(err, SIM_EFAIL, "%s: out of memory", r->name);
        val_samples_reader_free(r);
        return NULL;
    }
    r->line = 1;
    /* Read the header now so that a wrong file fails at once. */
    val_sample s;
    int rc = val_samples_next(r, &s, err);
    if (rc < 0) {
        val_samples_reader_free(r);
        return NULL;
    }
    if (!r->header_done) {
        sim_err_set(err, SIM_EINPUT, "%s:1: empty file (expected the header line '%s')", r->name,
                    VAL_SAMPLES_HEADER);
        val_samples_reader_free(r);
        return NULL;
    }
    if (rc == 1) {
        /* A data row came with the header: keep it for the next call. */
        r->have_row = 1;
        r->row = s;
    }
    return r;
}

/* Feed the parser up to and including the next line terminator. */
static int feed(val_samples_reader *r)
{
    if (r->buf_pos == r->buf_len) {
        if (r->eof)
            return 0;
        r->buf_len = fread(r->buf, 1, sizeof r->buf, r->f);
        r->buf_pos = 0;
        if (r->buf_len == 0) {
            if (ferror(r->f)) {
                /* a directory given as the file is bad input, like elsewhere */
                sim_err_set(r->err, errno == EISDIR ? SIM_EINPUT : SIM_EFAIL, "%s: read error: %s",
                            r->name, strerror(errno));
                r->failed = 1;
                return -1;
            }
            r->eof = 1;
            if (csv_fini(&r->csv, on_field, on_row, r) != 0 && !r->failed) {
                r->row_line = r->line;
                row_error(r, -1, "%sunterminated quoted field", "");
            }
            return r->failed ? -1 : 0;
        }
    }
    const char *p = r->buf + r->buf_pos;
    size_t avail = r->buf_len - r->buf_pos, n = 0;
    while (n < avail && p[n] != '\n' && p[n] != '\r')
        n++;
    int newline = n < avail && p[n] == '\n';
    if (n < avail)
        n++;
    if (csv_parse(&r->csv, p, n, on_field, on_row, r) != n && !r->failed) {
        r->row_line = r->line;
        row_error(r, -1, "malformed CSV: %s", csv_strerror(csv_error(&r->csv)));
    }
    r->buf_pos += n;
    if (newline)
        r->line++;
    if (!r->have_row && !r->failed) {
        r->row_bytes += n;
        if (r->row_bytes > VAL_SAMPLES_MAX_ROW) {
            r->row_line = r->line;
            row_error(r, -1, "%srow longer than 4096 bytes", "");
        }
    }
    return r->failed ? -1 : 1;
}

int val_samples_next(val_samples_reader *r, val_sample *s, sim_err *err)
{
    if (r->failed) {
        sim_err_set(err, SIM_EFAIL, "%s: read after an error", r->name);
        return -1;
    }
    r->err = err;
    for (;;) {
        if (r->have_row) {
            *s = r->row;
            r->have_row = 0;
            return 1;
        }
        int rc = feed(r);
        if (rc < 0)
            return -1;
        if (rc == 0 && !r->have_row)
            return 0;
    }
}

uint64_t val_samples_line(const val_samples_reader *r) { return r->row_line; }

void val_samples_reader_free(val_samples_reader *r)
{
    if (!r)
        return;
    csv_free(&r->csv);
    if (r->own_f && r->f)
        fclose(r->f);
    free(r->name);
    free(r);
}
