#include "validate/val_probe_http.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <csv.h>

#include "sim/sim_afile.h"
#include "sim/sim_cfg.h"
#include "validate/val_line.h"

extern char **environ;

const char *const val_http_phase_names[VAL_HTTP_NPHASES] = {"checkout", "webhook", "reserve",
                                                            "commit"};
const char *const val_http_app_names[VAL_HTTP_NAPPS] = {"starlette", "asgi", "fastapi"};
const char *const val_http_col_names[VAL_HTTP_NCOLS] = {
    "latency_ms", "concurrency", "phase",      "total",           "ok",
    "errors",     "walltime",    "throughput", "client_cpu",      "server_cpu",
    "server_requests", "server_await", "server_conns", "pool_passes", "pool_conns", "pool_idle"};

enum {
    C_LAT, C_CONC, C_PHASE, C_TOTAL, C_OK, C_ERR, C_WALL, C_TPUT, C_CCPU, C_SCPU, C_SREQ, C_SAWAIT,
    C_SCONNS, C_PPASS, C_PCONNS, C_PIDLE
};

/* A pool column: a number >= 0 (sim_parse_double refuses inf and nan
 * spelled as numbers), or nan (not measured). */
static int parse_pool(const char *v, double *x)
{
    const char *w;
    if (!strcasecmp(v, "nan")) {
        *x = NAN;
        return 0;
    }
    return sim_parse_double(v, x, &w) || *x < 0;
}

int val_http_phase_find(const char *name)
{
    for (int i = 0; i < VAL_HTTP_NPHASES; i++)
        if (!strcmp(name, val_http_phase_names[i]))
            return i;
    return -1;
}

/* ---- options ---- */

void val_probe_http_opts_init(val_probe_http_opts *o)
{
    memset(o, 0, sizeof *o);
    static const double lat[] = {0, 0.5, 2, 10};
    static const unsigned conc[] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
    memcpy(o->latency_ms, lat, sizeof lat);
    o->nlatency = sizeof lat / sizeof lat[0];
    memcpy(o->concurrency, conc, sizeof conc);
    o->nconcurrency = sizeof conc / sizeof conc[0];
    o->total = 1000;
    for (int i = 0; i < VAL_HTTP_NPHASES; i++)
        o->phase_on[i] = 1;
    o->app = VAL_HTTP_APP_STARLETTE;
    o->reps = 1;
    o->seed = 1;
    o->timeout = VAL_HTTP_TIMEOUT_DEFAULT;
}

const char *val_probe_http_default_python(void)
{
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

/* Split s at commas into at most max words of at most 63 characters each,
 * calling fn on each.  Returns 0, or -1 with why set. */
static int each_word(const char *s, size_t max, int (*fn)(void *ctx, const char *w, char *why, size_t len),
                     void *ctx, char *why, size_t len)
{
    if (!s || !*s) {
        snprintf(why, len, "empty list");
        return -1;
    }
    size_t n = 0;
    for (const char *p = s;;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char w[64];
        if (l == 0 || l >= sizeof w) {
            snprintf(why, len, "'%.200s': expected a comma-separated list", s);
            return -1;
        }
        if (n == max) {
            snprintf(why, len, "'%.200s': at most %zu values", s, max);
            return -1;
        }
        memcpy(w, p, l);
        w[l] = '\0';
        if (fn(ctx, w, why, len))
            return -1;
        n++;
        if (!e)
            return 0;
        p = e + 1;
    }
}

typedef struct list_ctx {
    val_probe_http_opts *o;
    size_t n;
    int seen[VAL_HTTP_NPHASES];
} list_ctx;

/* The value %g prints (what tfhttp_load.py prints back in its rows). */
static double as_printed(double v)
{
    char b[64];
    snprintf(b, sizeof b, "%g", v);
    return strtod(b, NULL);
}

static int add_latency(void *ctx, const char *w, char *why, size_t len)
{
    list_ctx *c = ctx;
    double v;
    const char *bad;
    if (sim_parse_double(w, &v, &bad) || v < 0 || v > VAL_HTTP_MAX_LATENCY_MS) {
        snprintf(why, len, "'%s' is not a latency in ms in [0, %g]", w, VAL_HTTP_MAX_LATENCY_MS);
        return -1;
    }
    c->o->latency_ms[c->n++] = as_printed(v);
    return 0;
}

static int add_level(void *ctx, const char *w, char *why, size_t len)
{
    list_ctx *c = ctx;
    long v;
    const char *bad;
    if (sim_parse_long(w, &v, &bad) || v < 1 || v > (long)VAL_HTTP_MAX_CONC) {
        snprintf(why, len, "'%s' is not an integer in [1, %u]", w, VAL_HTTP_MAX_CONC);
        return -1;
    }
    c->o->concurrency[c->n++] = (unsigned)v;
    return 0;
}

static int add_phase(void *ctx, const char *w, char *why, size_t len)
{
    list_ctx *c = ctx;
    int p = val_http_phase_find(w);
    if (p < 0) {
        snprintf(why, len, "unknown phase '%s' (expected checkout, webhook, reserve or commit)", w);
        return -1;
    }
    if (c->seen[p]) {
        snprintf(why, len, "phase '%s' given twice", w);
        return -1;
    }
    c->seen[p] = 1;
    c->n++;
    return 0;
}

int val_probe_http_parse_latencies(const char *s, val_probe_http_opts *o, char *why, size_t len)
{
    val_probe_http_opts t = *o;
    list_ctx c = {.o = &t};
    if (each_word(s, VAL_HTTP_MAX_LIST, add_latency, &c, why, len))
        return -1;
    t.nlatency = c.n;
    *o = t;
    return 0;
}

int val_probe_http_parse_levels(const char *s, val_probe_http_opts *o, char *why, size_t len)
{
    val_probe_http_opts t = *o;
    list_ctx c = {.o = &t};
    if (each_word(s, VAL_HTTP_MAX_LIST, add_level, &c, why, len))
        return -1;
    t.nconcurrency = c.n;
    *o = t;
    return 0;
}

int val_probe_http_parse_phases(const char *s, val_probe_http_opts *o, char *why, size_t len)
{
    list_ctx c = {.o = o};
    if (each_word(s, VAL_HTTP_NPHASES, add_phase, &c, why, len))
        return -1;
    for (int i = 0; i < VAL_HTTP_NPHASES; i++)
        o->phase_on[i] = c.seen[i];
    return 0;
}

int val_probe_http_parse_app(const char *s, val_probe_http_opts *o, char *why, size_t len)
{
    for (int i = 0; i < VAL_HTTP_NAPPS; i++) {
        if (!strcmp(s, val_http_app_names[i])) {
            o->app = i;
            return 0;
        }
    }
    snprintf(why, len, "'%.100s' is not starlette, asgi or fastapi", s);
    return -1;
}

/* ---- one row ---- */

/* A non-negative integer written in digits only. */
static int parse_count(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

static int row_fail(int *col, int c, char *why, size_t len, const char *fmt, const char *val)
{
    *col = c;
    char v[48];
    snprintf(v, sizeof v, strlen(val) > 40 ? "%.40s..." : "%s", val);
    snprintf(why, len, fmt, v);
    return -1;
}

int val_http_row_parse(const char *line, val_http_row *row, int *col, char *why, size_t len)
{
    *col = -1;
    size_t n = strlen(line);
    if (n > VAL_HTTP_MAX_LINE) {
        snprintf(why, len, "line longer than %d bytes", VAL_HTTP_MAX_LINE);
        return -1;
    }
    char text[VAL_HTTP_MAX_LINE + VAL_HTTP_NCOLS + 1];
    const char *v[VAL_HTTP_NCOLS];
    size_t nf;
    if (val_line_split(line, text, sizeof text, v, VAL_HTTP_NCOLS, &nf, why, len))
        return -1;
    if (nf != VAL_HTTP_NCOLS && nf != VAL_HTTP_NCOLS_V1) {
        snprintf(why, len, "expected %d columns (%s), found %zu", VAL_HTTP_NCOLS, VAL_HTTP_HEADER,
                 nf);
        return -1;
    }

    val_http_row r;
    memset(&r, 0, sizeof r);
    const char *w;
    long l;
    if (sim_parse_double(v[C_LAT], &r.latency_ms, &w) || r.latency_ms < 0 ||
        r.latency_ms > VAL_HTTP_MAX_LATENCY_MS)
        return row_fail(col, C_LAT, why, len, "'%s' is not a latency in ms in [0, 60000]", v[C_LAT]);
    if (sim_parse_long(v[C_CONC], &l, &w) || l < 1 || l > (long)VAL_HTTP_MAX_CONC)
        return row_fail(col, C_CONC, why, len, "'%s' is not an integer in [1, 100000]", v[C_CONC]);
    r.concurrency = (unsigned)l;
    if ((r.phase = val_http_phase_find(v[C_PHASE])) < 0)
        return row_fail(col, C_PHASE, why, len,
                        "'%s' is not a phase (checkout, webhook, reserve or commit)", v[C_PHASE]);
    if (parse_count(v[C_TOTAL], &r.total) || r.total < 1 || r.total > VAL_HTTP_MAX_TOTAL)
        return row_fail(col, C_TOTAL, why, len, "'%s' is not an integer in [1, 100000000]",
                        v[C_TOTAL]);
    if (parse_count(v[C_OK], &r.ok) || r.ok > r.total)
        return row_fail(col, C_OK, why, len, "'%s' is not an integer in [0, total]", v[C_OK]);
    if (parse_count(v[C_ERR], &r.errors) || r.errors > r.total - r.ok)
        return row_fail(col, C_ERR, why, len, "'%s' is not an integer in [0, total - ok]",
                        v[C_ERR]);
    if (sim_parse_double(v[C_WALL], &r.walltime, &w) || !(r.walltime > 0))
        return row_fail(col, C_WALL, why, len, "'%s' is not a duration in seconds (> 0)", v[C_WALL]);
    if (sim_parse_double(v[C_TPUT], &r.throughput, &w) || r.throughput < 0)
        return row_fail(col, C_TPUT, why, len, "'%s' is not a throughput (a number >= 0)",
                        v[C_TPUT]);
    /* ok / walltime to the printed precision (walltime to 1e-6 s,
     * throughput to 1e-4/s), with a little slack for other writers */
    double ok = (double)r.ok, wt = r.walltime;
    double lo = ok / (wt + 5e-7) * (1 - 1e-6) - 5e-5;
    double hi = wt > 5e-7 ? ok / (wt - 5e-7) * (1 + 1e-6) + 5e-5 : INFINITY;
    if (r.throughput < lo || r.throughput > hi) {
        char m[160];
        snprintf(m, sizeof m, "'%%s' is not ok / walltime (%.4f)", ok / wt);
        return row_fail(col, C_TPUT, why, len, m, v[C_TPUT]);
    }
    if (sim_parse_double(v[C_CCPU], &r.client_cpu, &w) || r.client_cpu < 0)
        return row_fail(col, C_CCPU, why, len, "'%s' is not CPU seconds (a number >= 0)",
                        v[C_CCPU]);
    if (sim_parse_double(v[C_SCPU], &r.server_cpu, &w) || r.server_cpu < 0)
        return row_fail(col, C_SCPU, why, len, "'%s' is not CPU seconds (a number >= 0)",
                        v[C_SCPU]);
    if (parse_count(v[C_SREQ], &r.server_requests))
        return row_fail(col, C_SREQ, why, len, "'%s' is not an integer >= 0", v[C_SREQ]);
    if (r.server_requests == 0) {
        if (strcasecmp(v[C_SAWAIT], "nan") != 0 && v[C_SAWAIT][0] != '\0')
            return row_fail(col, C_SAWAIT, why, len,
                            "'%s': expected nan (or nothing) with no server requests",
                            v[C_SAWAIT]);
        r.server_await = NAN;
    } else if (sim_parse_double(v[C_SAWAIT], &r.server_await, &w) || r.server_await < 0) {
        return row_fail(col, C_SAWAIT, why, len, "'%s' is not a time in seconds (a number >= 0)",
                        v[C_SAWAIT]);
    }
    if (parse_count(v[C_SCONNS], &r.server_conns))
        return row_fail(col, C_SCONNS, why, len, "'%s' is not an integer >= 0", v[C_SCONNS]);
    r.ncols = (int)nf;
    r.pool_passes = r.pool_conns = r.pool_idle = NAN;
    if (nf == VAL_HTTP_NCOLS) {
        if (parse_pool(v[C_PPASS], &r.pool_passes))
            return row_fail(col, C_PPASS, why, len, "'%s' is not passes per request (a number >= 0 "
                            "or nan)", v[C_PPASS]);
        if (parse_pool(v[C_PCONNS], &r.pool_conns))
            return row_fail(col, C_PCONNS, why, len, "'%s' is not a number of connections (>= 0 "
                            "or nan)", v[C_PCONNS]);
        if (parse_pool(v[C_PIDLE], &r.pool_idle) || r.pool_idle > r.pool_conns + 1e-9 ||
            isnan(r.pool_idle) != isnan(r.pool_conns))
            return row_fail(col, C_PIDLE, why, len, "'%s' is not a number of idle connections "
                            "(0 to pool_conns, or nan with it)", v[C_PIDLE]);
    }
    *row = r;
    return 0;
}

/* ---- result ---- */

void val_probe_http_result_init(val_probe_http_result *r) { memset(r, 0, sizeof *r); }

void val_probe_http_result_fini(val_probe_http_result *r)
{
    free(r->rows);
    memset(r, 0, sizeof *r);
}

static void result_add(val_probe_http_result *r, const val_http_row *row)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->rows = realloc(r->rows, r->cap * sizeof *r->rows);
        assert(r->rows);
    }
    r->rows[r->n++] = *row;
}

/* ---- the versions line ---- */

/* The string value of key in a flat JSON object of strings and numbers
 * without escapes (what tfhttp_load.py prints); 0, or -1 if absent. */
static int json_str(const char *s, const char *key, char *out, size_t len)
{
    char pat[40];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    for (const char *p = strstr(s, pat); p; p = strstr(p + 1, pat)) {
        const char *q = p + strlen(pat);
        while (*q == ' ')
            q++;
        if (*q++ != ':')
            continue;
        while (*q == ' ')
            q++;
        if (*q++ != '"')
            return -1;
        size_t k = 0;
        for (; *q && *q != '"'; q++) {
            if (*q == '\\' || (unsigned char)*q < 0x20 || k + 1 >= len)
                return -1;
            out[k++] = *q;
        }
        if (*q != '"')
            return -1;
        out[k] = '\0';
        return 0;
    }
    return -1;
}

/* "httpx 0.23.3, httpcore 0.16.3, uvicorn 0.17.6 (H11Protocol,
 * _UnixSelectorEventLoop), python 3.11.2, app starlette" from the JSON
 * line; -1 when it is not the versions object. */
static int parse_versions(const char *line, char *out, size_t len)
{
    static const char *const keys[] = {"httpx", "httpcore", "uvicorn", "http", "loop", "python",
                                       "app"};
    char v[7][64];
    size_t n = strlen(line);
    if (n < 2 || line[0] != '{' || line[n - 1] != '}')
        return -1;
    for (int i = 0; i < 7; i++)
        if (json_str(line, keys[i], v[i], sizeof v[i]))
            return -1;
    snprintf(out, len, "httpx %s, httpcore %s, uvicorn %s (%s, %s), python %s, app %s", v[0], v[1],
             v[2], v[3], v[4], v[5], v[6]);
    return 0;
}

/* ---- the run ---- */

typedef struct linebuf {
    char b[VAL_HTTP_MAX_LINE + 2];
    size_t n;
    int overflow;   /* the line being read is longer than the buffer */
} linebuf;

typedef struct hrun {
    const val_probe_http_opts *o;
    val_probe_http_result *res;
    const char *python;
    char dir[4096];          /* the temporary folder ("" when none) */
    char load_path[4200], server_path[4200];
    char *final;             /* where the rows end: OUT, or a symbolic link's target (owned) */
    char *part;              /* final.part, or OUT itself when direct (owned) */
    int direct;              /* OUT is not a regular file: written directly, no rename */
    int out_fd;              /* part, or -1 */
    int preamble_done;
    pid_t pid;               /* the child (its process group), or 0 */
    int reaped, status;
    int fd_out, fd_err;      /* read ends, or -1 */
    linebuf lo, le;
    int header_seen;
    size_t nexpect, nphases;
    char lat_text[VAL_HTTP_MAX_LIST][32];
    int phase_list[VAL_HTTP_NPHASES];
    char last_err[512];      /* the child's last stderr line */
    char hint[512];          /* its last line naming a package to install */
    int failed, code;        /* a failure, and its status */
    sim_err *err;
} hrun;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(hrun *h, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(hrun *h, int code, const char *fmt, ...)
{
    if (!h->failed) {
        char msg[SIM_ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        sim_err_set(h->err, code, "%s", msg);
        h->code = code;
    }
    h->failed = 1;
    return h->code;
}

/* Copy s into out (len bytes) with control characters as '?' (a path in
 * a comment line must not break it). */
static void clean(const char *s, char *out, size_t len)
{
    size_t k = 0;
    for (; *s && k + 1 < len; s++)
        out[k++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
    out[k] = '\0';
}

static int write_file(const char *path, const unsigned char *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int bad = sim_afile_write_all(fd, (const char *)data, n);
    if (close(fd) != 0)
        bad = -1;
    return bad;
}

/* Remove dir and everything under it (the scripts, and what the child
 * left in TMPDIR).  depth bounds the recursion. */
static void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char p[4400];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && depth > 0)
                remove_tree(p, depth - 1);
            else
                unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Reap the child if it has exited; 1 when reaped. */
static int try_reap(hrun *h)
{
    if (!h->reaped) {
        pid_t w = waitpid(h->pid, &h->status, WNOHANG);
        if (w == h->pid || (w < 0 && errno == ECHILD))
            h->reaped = 1;
    }
    return h->reaped;
}

/* Is the child's process group (the child and its server) gone? */
static int group_gone(const hrun *h) { return kill(-h->pid, 0) < 0 && errno == ESRCH; }

static void nap(void)
{
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* End the child: when `wait` > 0, give it that many seconds to exit by
 * itself; then SIGTERM to its process group, SIGKILL 5 s later if any of
 * it is still there.  Reaps the child; returns 1 when it had to be
 * signalled. */
static int end_child(hrun *h, double wait)
{
    if (!h->pid)
        return 0;
    double t0 = mono();
    while (!(try_reap(h) && group_gone(h)) && mono() - t0 < wait)
        nap();
    if (h->reaped && group_gone(h))
        return 0;
    kill(-h->pid, SIGTERM);
    t0 = mono();
    int killed = 0;
    while (!(try_reap(h) && group_gone(h))) {
        double dt = mono() - t0;
        if (dt > 5 && !killed) {
            kill(-h->pid, SIGKILL);
            killed = 1;
        }
        if (dt > 7 && h->reaped)
            break; /* e.g. a zombie grandchild that no one reaps */
        nap();
    }
    return 1;
}

/* The preamble of the CSV: the settings, the versions, the header. */
static int write_preamble(hrun *h)
{
    const val_probe_http_opts *o = h->o;
    char py[600], pp[600];
    clean(h->python, py, sizeof py);
    clean(o->pythonpath ? o->pythonpath : "(inherited)", pp, sizeof pp);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert(m);
    fprintf(m, "# tfsim probe http: python %s, PYTHONPATH %s, app %s, total %llu, reps %u, seed %llu\n",
            py, pp, val_http_app_names[o->app], (unsigned long long)o->total, o->reps,
            (unsigned long long)o->seed);
    if (o->timeout != VAL_HTTP_TIMEOUT_DEFAULT)
        fprintf(m, "# timeout %g s per request\n", o->timeout);
    if (o->server_cpu > 0)
        fprintf(m, "# server CPU %g ms per request, spun in series before the backend await\n",
                o->server_cpu * 1e3);
    if (h->res->versions[0])
        fprintf(m, "# %s\n", h->res->versions);
    else
        fprintf(m, "# versions unknown (tfhttp_load.py printed none)\n");
    fprintf(m, "%s\n", VAL_HTTP_HEADER);
    int bad = fclose(m) != 0;
    if (!bad)
        bad = sim_afile_write_all(h->out_fd, buf, len);
    free(buf);
    if (bad)
        return fail(h, SIM_EFAIL, "%s: write failed: %s", h->part, strerror(errno));
    h->preamble_done = 1;
    return SIM_OK;
}

static void stderr_line(hrun *h, const char *line)
{
    if (!h->res->versions[0] && line[0] == '{' &&
        parse_versions(line, h->res->versions, sizeof h->res->versions) == 0)
        return;
    snprintf(h->last_err, sizeof h->last_err, "%s", line);
    if (strstr(line, "apt-get install"))
        snprintf(h->hint, sizeof h->hint, "%s", line);
    if (h->o->diag)
        h->o->diag(h->o->diag_ctx, line);
}

/* Read what is there on fd into b, calling fn per complete line.  Returns
 * 1 at end of file, 0 otherwise (EAGAIN), -1 on a read error. */
static int drain(hrun *h, int fd, linebuf *b, void (*fn)(hrun *, const char *, int overflow))
{
    char tmp[4096];
    for (;;) {
        ssize_t r = read(fd, tmp, sizeof tmp);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        }
        if (r == 0) {
            if (b->n > 0 || b->overflow) { /* a last line without its newline */
                b->b[b->n] = '\0';
                fn(h, b->b, b->overflow);
                b->n = 0;
                b->overflow = 0;
            }
            return 1;
        }
        for (ssize_t i = 0; i < r; i++) {
            char c = tmp[i];
            if (c == '\n') {
                if (b->n > 0 && b->b[b->n - 1] == '\r')
                    b->n--;
                b->b[b->n] = '\0';
                fn(h, b->b, b->overflow);
                b->n = 0;
                b->overflow = 0;
            } else if (b->n < VAL_HTTP_MAX_LINE + 1) {
                b->b[b->n++] = c;
            } else {
                b->overflow = 1;
            }
        }
        if (h->failed)
            return 0;
    }
}

static void on_err_line(hrun *h, const char *line, int overflow)
{
    (void)overflow; /* kept to its first 4097 bytes */
    stderr_line(h, line);
}

/* The row expected at index k: (latency text, concurrency, phase). */
static void expected(const hrun *h, size_t k, const char **lat, unsigned *conc, int *phase)
{
    const val_probe_http_opts *o = h->o;
    *phase = h->phase_list[k % h->nphases];
    k /= h->nphases;
    *conc = o->concurrency[k % o->nconcurrency];
    k /= o->nconcurrency;
    *lat = h->lat_text[k % o->nlatency];
}

static void on_out_line(hrun *h, const char *line, int overflow)
{
    if (h->failed)
        return;
    if (overflow)
        return (void)fail(h, SIM_EFAIL, "tfhttp_load.py printed a line longer than %d bytes",
                          VAL_HTTP_MAX_LINE);
    if (!h->header_seen) {
        if (strcmp(line, VAL_HTTP_HEADER) != 0)
            return (void)fail(h, SIM_EFAIL, "tfhttp_load.py printed '%.100s' where the CSV header "
                                            "was expected", line);
        h->header_seen = 1;
        return;
    }
    size_t k = h->res->n;
    val_http_row row;
    int col;
    char why[300];
    if (val_http_row_parse(line, &row, &col, why, sizeof why))
        return (void)fail(h, SIM_EFAIL, "tfhttp_load.py printed a bad row %zu ('%.100s'): %s%s%s",
                          k + 1, line, col >= 0 ? val_http_col_names[col] : "",
                          col >= 0 ? ": " : "", why);
    if (row.ncols != VAL_HTTP_NCOLS)
        return (void)fail(h, SIM_EFAIL, "tfhttp_load.py printed row %zu with %d columns, not %d",
                          k + 1, row.ncols, VAL_HTTP_NCOLS);
    if (k >= h->nexpect)
        return (void)fail(h, SIM_EFAIL, "tfhttp_load.py printed more than the %zu rows expected",
                          h->nexpect);
    const char *lat;
    unsigned conc;
    int phase;
    expected(h, k, &lat, &conc, &phase);
    if (row.latency_ms != strtod(lat, NULL) || row.concurrency != conc || row.phase != phase ||
        row.total != h->o->total)
        return (void)fail(h, SIM_EFAIL,
                          "tfhttp_load.py printed row %zu for latency %g ms, concurrency %u, %s, "
                          "total %llu; expected latency %s ms, concurrency %u, %s, total %llu",
                          k + 1, row.latency_ms, row.concurrency, val_http_phase_names[row.phase],
                          (unsigned long long)row.total, lat, conc, val_http_phase_names[phase],
                          (unsigned long long)h->o->total);
    /* the versions line was printed before the first row: take it now */
    if (!h->res->versions[0] && h->fd_err >= 0) {
        int rc = drain(h, h->fd_err, &h->le, on_err_line);
        if (rc != 0) {
            close(h->fd_err);
            h->fd_err = -1;
        }
    }
    if (!h->preamble_done && write_preamble(h) != SIM_OK)
        return;
    char buf[VAL_HTTP_MAX_LINE + 2];
    int n = snprintf(buf, sizeof buf, "%s\n", line);
    assert(n > 0 && (size_t)n < sizeof buf);
    if (sim_afile_write_all(h->out_fd, buf, (size_t)n))
        return (void)fail(h, SIM_EFAIL, "%s: write failed: %s", h->part, strerror(errno));
    result_add(h->res, &row);
    if (h->o->progress)
        h->o->progress(h->o->progress_ctx, &row);
}

/* The child's environment: ours with PYTHONPATH (if given), TMPDIR and
 * PYTHONDONTWRITEBYTECODE set.  Owned by the caller: free envp[0..n_own)
 * from index *first_own, and envp itself. */
static char **child_env(const hrun *h, size_t *first_own)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    assert(env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = environ[i];
        if (!strncmp(e, "TMPDIR=", 7) || !strncmp(e, "PYTHONDONTWRITEBYTECODE=", 24) ||
            (h->o->pythonpath && !strncmp(e, "PYTHONPATH=", 11)))
            continue;
        env[k++] = (char *)e;
    }
    *first_own = k;
    size_t l = strlen(h->dir) + 8;
    env[k] = malloc(l);
    assert(env[k]);
    snprintf(env[k++], l, "TMPDIR=%s", h->dir);
    env[k] = strdup("PYTHONDONTWRITEBYTECODE=1");
    assert(env[k]);
    k++;
    if (h->o->pythonpath) {
        l = strlen(h->o->pythonpath) + 12;
        env[k] = malloc(l);
        assert(env[k]);
        snprintf(env[k++], l, "PYTHONPATH=%s", h->o->pythonpath);
    }
    env[k] = NULL;
    return env;
}

static int spawn(hrun *h)
{
    const val_probe_http_opts *o = h->o;
    char conc[VAL_HTTP_MAX_LIST * 8 + 1] = "", lat[VAL_HTTP_MAX_LIST * 32 + 1] = "", phases[64] = "";
    char total[32], reps[32], seed[32], timeout[32], scpu[32];
    for (size_t i = 0; i < o->nconcurrency; i++)
        snprintf(conc + strlen(conc), sizeof conc - strlen(conc), "%s%u", i ? "," : "",
                 o->concurrency[i]);
    for (size_t i = 0; i < o->nlatency; i++)
        snprintf(lat + strlen(lat), sizeof lat - strlen(lat), "%s%s", i ? "," : "", h->lat_text[i]);
    for (size_t i = 0; i < h->nphases; i++)
        snprintf(phases + strlen(phases), sizeof phases - strlen(phases), "%s%s", i ? "," : "",
                 val_http_phase_names[h->phase_list[i]]);
    snprintf(total, sizeof total, "%llu", (unsigned long long)o->total);
    snprintf(reps, sizeof reps, "%u", o->reps);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
    snprintf(timeout, sizeof timeout, "%.9g", o->timeout);
    snprintf(scpu, sizeof scpu, "%.9g", o->server_cpu * 1e3);
    char *argv[] = {(char *)h->python, h->load_path, "--latency-ms", lat, "--concurrency", conc,
                    "--total", total, "--phases", phases, "--app",
                    (char *)val_http_app_names[o->app], "--reps", reps, "--seed", seed, "--timeout", timeout, "--header",
                    NULL, NULL, NULL};
    if (o->server_cpu > 0) { /* only then: the arguments stay as before without it */
        size_t k = sizeof argv / sizeof argv[0] - 3;
        argv[k] = "--server-cpu-ms";
        argv[k + 1] = scpu;
    }

    int po[2], pe[2];
    if (pipe(po) != 0)
        return fail(h, SIM_EFAIL, "cannot create a pipe: %s", strerror(errno));
    if (pipe(pe) != 0) {
        close(po[0]);
        close(po[1]);
        return fail(h, SIM_EFAIL, "cannot create a pipe: %s", strerror(errno));
    }
    for (int i = 0; i < 2; i++) {
        fcntl(po[i], F_SETFD, FD_CLOEXEC);
        fcntl(pe[i], F_SETFD, FD_CLOEXEC);
    }
    fcntl(po[0], F_SETFL, O_NONBLOCK);
    fcntl(pe[0], F_SETFL, O_NONBLOCK);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
    size_t own;
    char **env = child_env(h, &own);
    pid_t pid;
    int rc = strchr(h->python, '/') ? posix_spawn(&pid, h->python, &fa, &at, argv, env)
                                    : posix_spawnp(&pid, h->python, &fa, &at, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    for (size_t i = own; env[i]; i++)
        free(env[i]);
    free(env);
    close(po[1]);
    close(pe[1]);
    if (rc != 0) {
        close(po[0]);
        close(pe[0]);
        if (rc == ENOENT)
            return fail(h, SIM_EFAIL,
                        "cannot start the Python interpreter '%s': not found (Debian: apt-get "
                        "install python3 python3-httpx python3-uvicorn python3-starlette)",
                        h->python);
        return fail(h, SIM_EFAIL, "cannot start the Python interpreter '%s': %s", h->python,
                    strerror(rc));
    }
    h->pid = pid;
    h->fd_out = po[0];
    h->fd_err = pe[0];
    return SIM_OK;
}

/* Read the child's output until it ends, fails or o->stop. */
static void pump(hrun *h)
{
    double t_exit = 0; /* when the child was reaped with stderr still open */
    while (!h->failed && (h->fd_out >= 0 || h->fd_err >= 0)) {
        if (h->o->stop && *h->o->stop) {
            fail(h, SIM_EFAIL, "interrupted");
            break;
        }
        struct pollfd p[2] = {{h->fd_err, POLLIN, 0}, {h->fd_out, POLLIN, 0}};
        int n = poll(p, 2, 200);
        if (n < 0 && errno != EINTR) {
            fail(h, SIM_EFAIL, "poll failed: %s", strerror(errno));
            break;
        }
        if (h->fd_err >= 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            int rc = drain(h, h->fd_err, &h->le, on_err_line);
            if (rc != 0) {
                close(h->fd_err);
                h->fd_err = -1;
            }
        }
        if (h->fd_out >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            int rc = drain(h, h->fd_out, &h->lo, on_out_line);
            if (rc < 0)
                fail(h, SIM_EFAIL, "reading tfhttp_load.py's output: %s", strerror(errno));
            if (rc != 0) {
                close(h->fd_out);
                h->fd_out = -1;
            }
        }
        if (h->fd_out < 0 && !h->reaped && try_reap(h))
            t_exit = mono();
        /* a server left behind may hold stderr open: not for ever */
        if (h->reaped && h->fd_err >= 0 && mono() - t_exit > 2)
            break;
    }
}

static int check_opts(const val_probe_http_opts *o, sim_err *err)
{
    if (!o->out || !*o->out)
        return sim_err_set(err, SIM_EINPUT, "--out FILE is required (the CSV of the measurement)");
    if (o->nlatency < 1 || o->nlatency > VAL_HTTP_MAX_LIST)
        return sim_err_set(err, SIM_EINPUT, "--latency-ms: between 1 and %d values", VAL_HTTP_MAX_LIST);
    if (o->nconcurrency < 1 || o->nconcurrency > VAL_HTTP_MAX_LIST)
        return sim_err_set(err, SIM_EINPUT, "--concurrency: between 1 and %d values",
                           VAL_HTTP_MAX_LIST);
    for (size_t i = 0; i < o->nlatency; i++)
        if (!(o->latency_ms[i] >= 0 && o->latency_ms[i] <= VAL_HTTP_MAX_LATENCY_MS))
            return sim_err_set(err, SIM_EINPUT, "--latency-ms: %g is not in [0, %g]",
                               o->latency_ms[i], VAL_HTTP_MAX_LATENCY_MS);
    for (size_t i = 0; i < o->nconcurrency; i++)
        if (o->concurrency[i] < 1 || o->concurrency[i] > VAL_HTTP_MAX_CONC)
            return sim_err_set(err, SIM_EINPUT, "--concurrency: %u is not in [1, %u]",
                               o->concurrency[i], VAL_HTTP_MAX_CONC);
    if (o->total < 1 || o->total > VAL_HTTP_MAX_TOTAL)
        return sim_err_set(err, SIM_EINPUT, "--total: must be in [1, %lu]", VAL_HTTP_MAX_TOTAL);
    if (o->reps < 1 || o->reps > VAL_HTTP_MAX_REPS)
        return sim_err_set(err, SIM_EINPUT, "--reps: must be in [1, %u]", VAL_HTTP_MAX_REPS);
    if (o->seed > 9007199254740992ull)
        return sim_err_set(err, SIM_EINPUT, "--seed: must be at most 2^53");
    if (!(o->timeout >= 1e-3 && o->timeout <= 86400))
        return sim_err_set(err, SIM_EINPUT, "--timeout: must be in [1 ms, 1 day]");
    if (!(o->server_cpu >= 0 && o->server_cpu <= VAL_HTTP_MAX_SERVER_CPU))
        return sim_err_set(err, SIM_EINPUT, "--server-cpu-ms: must be in [0, %g]",
                           VAL_HTTP_MAX_SERVER_CPU * 1e3);
    if (o->app < 0 || o->app >= VAL_HTTP_NAPPS)
        return sim_err_set(err, SIM_EINPUT, "--app: unknown application");
    int any = 0;
    for (int i = 0; i < VAL_HTTP_NPHASES; i++)
        any |= o->phase_on[i];
    if (!any)
        return sim_err_set(err, SIM_EINPUT, "--phases: no phase selected");
    return SIM_OK;
}

/* What the child's exit status means. */
static void child_failure(hrun *h)
{
    const char *py = h->python;
    if (WIFEXITED(h->status)) {
        int s = WEXITSTATUS(h->status);
        if (s == 3)
            fail(h, SIM_EFAIL, "%s", h->hint[0] ? h->hint
                                   : "a python3 module is missing (Debian: apt-get install "
                                     "python3-httpx python3-uvicorn python3-starlette)");
        else if (s == 2)
            fail(h, SIM_EFAIL, "tfhttp_load.py (%s) refused its arguments: %s", py, h->last_err);
        else if (s == 1 && h->last_err[0])
            fail(h, SIM_EFAIL, "tfhttp_load.py (%s) failed: %s", py, h->last_err);
        else
            fail(h, SIM_EFAIL, "tfhttp_load.py (%s) exited with status %d%s%s", py, s,
                 h->last_err[0] ? ": " : "", h->last_err);
    } else if (WIFSIGNALED(h->status)) {
        fail(h, SIM_EFAIL, "tfhttp_load.py (%s) was killed by signal %d", py, WTERMSIG(h->status));
    } else {
        fail(h, SIM_EFAIL, "tfhttp_load.py (%s) ended abnormally", py);
    }
}

int val_probe_http_run(const val_probe_http_opts *o, val_probe_http_result *res, sim_err *err)
{
    assert(o && res);
    int rc = check_opts(o, err);
    if (rc != SIM_OK)
        return rc;
    hrun *h = calloc(1, sizeof *h);
    assert(h);
    h->o = o;
    h->res = res;
    h->err = err;
    h->out_fd = h->fd_out = h->fd_err = -1;
    h->python = o->python && *o->python ? o->python : val_probe_http_default_python();
    for (int i = 0; i < VAL_HTTP_NPHASES; i++)
        if (o->phase_on[i])
            h->phase_list[h->nphases++] = i;
    for (size_t i = 0; i < o->nlatency; i++)
        snprintf(h->lat_text[i], sizeof h->lat_text[i], "%g", o->latency_ms[i]);
    h->nexpect = (size_t)o->reps * o->nlatency * o->nconcurrency * h->nphases;
    size_t rows0 = res->n;
    res->versions[0] = '\0';
    res->server_spin = o->server_cpu;

    /* OUT.part first: a folder that cannot be written fails before any
     * measurement, and OUT itself is untouched until the end.  An OUT that
     * is not a regular file (a device, a FIFO) is written directly, never
     * renamed over (as sim_afile does); a symbolic link's target gets the
     * rows, the link stays. */
    h->final = sim_afile_target(o->out, &h->direct);
    size_t pl = strlen(h->final) + 6;
    h->part = malloc(pl);
    assert(h->part);
    snprintf(h->part, pl, h->direct ? "%s" : "%s.part", h->final);
    h->out_fd = open(h->part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (h->out_fd < 0) {
        rc = sim_err_set(err, SIM_EFAIL, "%s: cannot create: %s", h->part, strerror(errno));
        free(h->part);
        free(h->final);
        free(h);
        return rc;
    }

    const char *tmp = getenv("TMPDIR");
    snprintf(h->dir, sizeof h->dir, "%s/tfsim-http-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(h->dir)) {
        fail(h, SIM_EFAIL, "%s: cannot create a temporary folder: %s", h->dir, strerror(errno));
        h->dir[0] = '\0';
    } else {
        snprintf(h->load_path, sizeof h->load_path, "%s/tfhttp_load.py", h->dir);
        snprintf(h->server_path, sizeof h->server_path, "%s/tfhttp_server.py", h->dir);
        if (write_file(h->load_path, val_probe_http_load_py, val_probe_http_load_py_len) ||
            write_file(h->server_path, val_probe_http_server_py, val_probe_http_server_py_len))
            fail(h, SIM_EFAIL, "%s: cannot write the probe's scripts: %s", h->dir,
                 strerror(errno));
    }
    if (!h->failed)
        spawn(h);
    if (!h->failed)
        pump(h);
    if (h->fd_out >= 0)
        close(h->fd_out);
    if (h->fd_err >= 0)
        close(h->fd_err);
    h->fd_out = h->fd_err = -1;
    if (h->pid) {
        /* done: the child exits by itself (its server with it); after a
         * failure it is stopped */
        int signalled = end_child(h, h->failed ? 0 : 10);
        if (!h->failed && signalled)
            fail(h, SIM_EFAIL, "tfhttp_load.py (%s) did not exit after its output ended",
                 h->python);
        else if (!h->failed && !(WIFEXITED(h->status) && WEXITSTATUS(h->status) == 0))
            child_failure(h);
        else if (!h->failed && !h->header_seen)
            fail(h, SIM_EFAIL, "tfhttp_load.py (%s) printed no CSV header", h->python);
        else if (!h->failed && res->n - rows0 < h->nexpect)
            fail(h, SIM_EFAIL, "tfhttp_load.py (%s) ended after %zu of the %zu rows expected",
                 h->python, res->n - rows0, h->nexpect);
    }
    if (h->dir[0])
        remove_tree(h->dir, 3);

    /* OUT.part -> OUT when there is something in it */
    size_t got = res->n - rows0;
    if (close(h->out_fd) != 0 && !h->failed)
        fail(h, SIM_EFAIL, "%s: close failed: %s", h->part, strerror(errno));
    if (got > 0) {
        if (!h->direct && rename(h->part, h->final) != 0) {
            char m[600];
            snprintf(m, sizeof m, "; cannot rename %s to %s: %s (the rows are in %s)", h->part,
                     h->final, strerror(errno), h->part);
            if (!h->failed)
                fail(h, SIM_EFAIL, "%s", m + 2);
            else if (err)
                snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg), "%s", m);
        } else if (h->failed && err) {
            snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg),
                     "; the %zu row%s measured before it %s in %s", got, got == 1 ? "" : "s",
                     got == 1 ? "is" : "are", o->out);
        }
    } else {
        if (!h->direct)
            unlink(h->part);
        if (h->failed && err)
            snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg),
                     "; nothing was measured (%s left as it was)", o->out);
    }
    rc = h->failed ? h->code : SIM_OK;
    free(h->part);
    free(h->final);
    free(h);
    return rc;
}

/* ---- reader ---- */

int val_probe_http_read_file(FILE *f, const char *name, val_probe_http_result *res, sim_err *err)
{
    char *buf = malloc(VAL_HTTP_MAX_LINE + 2);
    assert(buf);
    unsigned long long line = 0;
    int header = 0, rc = SIM_OK;
    for (;;) {
        int r = val_line_next(f, name, buf, VAL_HTTP_MAX_LINE + 2, VAL_HTTP_MAX_LINE, &line, err);
        if (r < 0) {
            rc = err->code;
            break;
        }
        if (r == 0)
            break;
        if (buf[0] == '#') {
            const char *c = buf + 1;
            while (*c == ' ')
                c++;
            if (!res->versions[0] && !strncmp(c, "httpx ", 6))
                snprintf(res->versions, sizeof res->versions, "%s", c);
            double ms;
            if (sscanf(c, "server CPU %lf ms per request", &ms) == 1 && ms >= 0 &&
                ms <= VAL_HTTP_MAX_SERVER_CPU * 1e3)
                res->server_spin = ms / 1e3;
            continue;
        }
        if (strspn(buf, " \t") == strlen(buf))
            continue;
        if (!header) {
            if (!strcmp(buf, VAL_HTTP_HEADER))
                header = VAL_HTTP_NCOLS;
            else if (!strcmp(buf, VAL_HTTP_HEADER_V1))
                header = VAL_HTTP_NCOLS_V1;
            else {
                rc = sim_err_set(err, SIM_EINPUT, "%s:%llu: expected the header line '%s'", name,
                                 line, VAL_HTTP_HEADER);
                break;
            }
            continue;
        }
        val_http_row row;
        int col;
        char why[300];
        if (val_http_row_parse(buf, &row, &col, why, sizeof why)) {
            if (col >= 0)
                rc = sim_err_set(err, SIM_EINPUT, "%s:%llu: %s: %s", name, line,
                                 val_http_col_names[col], why);
            else
                rc = sim_err_set(err, SIM_EINPUT, "%s:%llu: %s", name, line, why);
            break;
        }
        if (row.ncols != header) {
            rc = sim_err_set(err, SIM_EINPUT, "%s:%llu: %d columns where the header has %d", name,
                             line, row.ncols, header);
            break;
        }
        result_add(res, &row);
    }
    if (rc == SIM_OK && !header)
        rc = sim_err_set(err, SIM_EINPUT, "%s:%llu: no header line (expected '%s')", name,
                         line + (line == 0), VAL_HTTP_HEADER);
    free(buf);
    return rc;
}

int val_probe_http_read(const char *path, val_probe_http_result *res, sim_err *err)
{
    if (!strcmp(path, "-"))
        return val_probe_http_read_file(stdin, "<stdin>", res, err);
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_err_set(err, SIM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    int rc = val_probe_http_read_file(f, path, res, err);
    fclose(f);
    return rc;
}

/* ---- summary ---- */

typedef struct agg {
    double lat;
    unsigned conc;
    int phase;
    unsigned runs;
    double requests, errors, tput, ccpu, scpu, conns;
    double pidle, pruns; /* idle pool connections at a pass, over the runs that measured it */
} agg;

sim_table *val_probe_http_table(const val_probe_http_result *r)
{
    sim_table *t = sim_table_new("HTTP probe: per backend latency, concurrency and phase");
    assert(t);
    int c_lat = sim_table_col(t, "latency_ms", "backend latency %g ms");
    int c_conc = sim_table_col(t, "concurrency", "%.0f");
    int c_phase = sim_table_col(t, "phase", NULL);
    int c_runs = sim_table_col(t, "runs", "%.0f");
    int c_req = sim_table_col(t, "requests", "%.0f");
    int c_err = sim_table_col(t, "errors", "%.0f");
    int c_tput = sim_table_col(t, "throughput", "%.1f");
    int c_ccpu = sim_table_col(t, "client_cpu_ms", "%.3f");
    int c_scpu = sim_table_col(t, "server_cpu_ms", "%.3f");
    int c_conns = sim_table_col(t, "conns", "%.1f");
    int c_pidle = sim_table_col(t, "pool_idle", "%.1f");
    sim_table_group_by(t, c_lat);
    agg *a = calloc(r->n ? r->n : 1, sizeof *a);
    assert(a);
    size_t na = 0;
    for (size_t i = 0; i < r->n; i++) {
        const val_http_row *x = &r->rows[i];
        size_t j = 0;
        while (j < na && !(a[j].lat == x->latency_ms && a[j].conc == x->concurrency &&
                           a[j].phase == x->phase))
            j++;
        if (j == na) {
            a[na].lat = x->latency_ms;
            a[na].conc = x->concurrency;
            a[na].phase = x->phase;
            na++;
        }
        a[j].runs++;
        a[j].requests += (double)(x->ok + x->errors);
        a[j].errors += (double)x->errors;
        a[j].tput += x->throughput;
        a[j].ccpu += x->client_cpu;
        a[j].scpu += x->server_cpu;
        a[j].conns += (double)x->server_conns;
        if (isfinite(x->pool_idle)) {
            a[j].pidle += x->pool_idle;
            a[j].pruns++;
        }
    }
    for (size_t j = 0; j < na; j++) {
        sim_table_row(t);
        sim_table_num(t, c_lat, a[j].lat);
        sim_table_num(t, c_conc, a[j].conc);
        sim_table_str(t, c_phase, val_http_phase_names[a[j].phase]);
        sim_table_num(t, c_runs, a[j].runs);
        sim_table_num(t, c_req, a[j].requests);
        sim_table_num(t, c_err, a[j].errors);
        sim_table_num(t, c_tput, a[j].tput / a[j].runs);
        sim_table_num(t, c_ccpu, a[j].requests > 0 ? 1e3 * a[j].ccpu / a[j].requests : NAN);
        sim_table_num(t, c_scpu, a[j].requests > 0 ? 1e3 * a[j].scpu / a[j].requests : NAN);
        sim_table_num(t, c_conns, a[j].conns / a[j].runs);
        sim_table_num(t, c_pidle, a[j].pruns > 0 ? a[j].pidle / a[j].pruns : NAN);
    }
    free(a);
    return t;
}
