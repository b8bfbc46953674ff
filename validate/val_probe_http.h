/* val_probe_http: `tfsim probe http`: the load generator's HTTP layer
 * measured with the real Python stack (httpx/httpcore client, uvicorn
 * server), and the reader of the CSV it writes.
 *
 * The measurement is two Python scripts, validate/http/tfhttp_load.py (the
 * TigerBench load pattern: a new httpx.AsyncClient per phase with
 * Limits(C, C), checkout/reserve as gather + Semaphore(C), webhook/commit
 * as waves of C) and validate/http/tfhttp_server.py (a stand-in TigerFans
 * server: one uvicorn worker, every request awaits a configurable backend
 * latency).  Both are embedded in the binary at build time (the Makefile
 * turns them into a generated C source with `xxd -i`); a run writes them
 * into a fresh temporary folder (removed at the end), starts
 * `PYTHON tfhttp_load.py ...` (posix_spawn, no shell, its own process
 * group, TMPDIR pointing into that folder) and reads its output:
 *   stdout  the CSV header, then one row per (rep, latency, concurrency,
 *           phase), in that order; each row is checked (numbers parse,
 *           phase known, counts sane, the row the one expected next) and
 *           appended to OUT.part as one write(2);
 *   stderr  the first line that is a JSON object is the versions in use
 *           (written into the CSV as a comment line); every other line
 *           goes to opts->diag.
 * At the end OUT.part is renamed to OUT.  After a failure (the child
 * failed or printed a bad row, opts->stop, an I/O error) the child's
 * process group is killed and, if at least one row was measured, OUT.part
 * is renamed to OUT all the same; with no row it is removed and an
 * existing OUT is left as it was.
 *
 * The CSV: comment lines starting with '#' (first a line with the probe's
 * settings, then the versions:
 *   # httpx 0.23.3, httpcore 0.16.3, uvicorn 0.17.6 (H11Protocol,
 *     _UnixSelectorEventLoop), python 3.11.2, app starlette
 * on one line), the header VAL_HTTP_HEADER and one row per phase run:
 *   latency_ms       backend latency every request awaited (ms, >= 0)
 *   concurrency      C (integer >= 1)
 *   phase            checkout, webhook, reserve or commit
 *   total            requests asked for per phase (integer >= 1)
 *   ok, errors       requests that succeeded / failed (integers >= 0,
 *                    ok + errors <= total: webhook and commit replay the
 *                    sessions the phase before made)
 *   walltime         seconds of the phase (> 0)
 *   throughput       ok / walltime (to the printed precision)
 *   client_cpu       CPU seconds of the load generator during the phase
 *   server_cpu       CPU seconds of the server process during the phase
 *   server_requests  requests the server served (integer >= 0)
 *   server_await     mean seconds a request awaited its backend (>= 0;
 *                    "nan" when server_requests is 0)
 *   server_conns     connections the server accepted (integer >= 0)
 *   pool_passes      the client's httpcore pool passes per request counted
 *                    (0.16: each start and each response close; 1.x: also
 *                    each retry), a number >= 0 or nan (not measured)
 *   pool_conns       mean connections in the pool at a pass (>= 0 or nan)
 *   pool_idle        mean idle ones among them (0..pool_conns, or nan)
 * Files of an older probe have only the first 13 columns (their header
 * VAL_HTTP_HEADER_V1); they are read with the pool columns NaN.
 *
 * Ownership: opts and everything they point to are borrowed; a result is
 * caller storage (val_probe_http_result_init/fini) owning its rows.
 * Cost: the measurement's wall time (a fresh server per latency and
 * concurrency: about a second each); O(1) memory per row.
 */
#ifndef VAL_PROBE_HTTP_H
#define VAL_PROBE_HTTP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/sim_err.h"
#include "sim/sim_table.h"

#define VAL_HTTP_HEADER_V1                                                                       \
    "latency_ms,concurrency,phase,total,ok,errors,walltime,throughput,client_cpu,server_cpu,"   \
    "server_requests,server_await,server_conns"
#define VAL_HTTP_HEADER VAL_HTTP_HEADER_V1 ",pool_passes,pool_conns,pool_idle"
#define VAL_HTTP_NCOLS_V1 13         /* files written before the pool columns (still read) */
#define VAL_HTTP_NCOLS 16
#define VAL_HTTP_MAX_LINE 4096       /* longest line of the CSV (and of the child's stdout) */
#define VAL_HTTP_MAX_LIST 64         /* values of --latency-ms and of --concurrency at most */
#define VAL_HTTP_MAX_CONC 100000u    /* largest concurrency */
#define VAL_HTTP_MAX_LATENCY_MS 60000.0
#define VAL_HTTP_MAX_TOTAL 100000000ul
#define VAL_HTTP_MAX_REPS 1000u

/* Phases, in the order a run makes them. */
enum { VAL_HTTP_CHECKOUT, VAL_HTTP_WEBHOOK, VAL_HTTP_RESERVE, VAL_HTTP_COMMIT, VAL_HTTP_NPHASES };
extern const char *const val_http_phase_names[VAL_HTTP_NPHASES];
/* The phase called name, or -1. */
int val_http_phase_find(const char *name);

/* The stand-in server's application (tfhttp_server.py --app). */
enum { VAL_HTTP_APP_STARLETTE, VAL_HTTP_APP_ASGI, VAL_HTTP_APP_FASTAPI, VAL_HTTP_NAPPS };
extern const char *const val_http_app_names[VAL_HTTP_NAPPS];

/* One row of the CSV. */
typedef struct val_http_row {
    double latency_ms;
    unsigned concurrency;
    int phase;                    /* VAL_HTTP_CHECKOUT .. */
    uint64_t total, ok, errors;
    double walltime, throughput;  /* s, requests/s */
    double client_cpu, server_cpu;/* CPU seconds of the phase */
    uint64_t server_requests;
    double server_await;          /* s; NaN when server_requests == 0 */
    uint64_t server_conns;
    /* the client's httpcore pool at its passes: passes per request, mean
     * connections open and idle at a pass; NaN when not measured (a row
     * of VAL_HTTP_NCOLS_V1 columns, or "nan": no hook in that httpcore) */
    double pool_passes, pool_conns, pool_idle;
    int ncols;                    /* columns the row had: VAL_HTTP_NCOLS or VAL_HTTP_NCOLS_V1 */
} val_http_row;

/* Parse and check one data line (without its line end) of the CSV, of
 * VAL_HTTP_NCOLS columns or (an older file) VAL_HTTP_NCOLS_V1.
 * Returns 0 with *row filled; or -1 with the column at fault in *col
 * (0-based, -1 for the line as a whole) and the reason in why (len bytes,
 * naming the value). */
int val_http_row_parse(const char *line, val_http_row *row, int *col, char *why, size_t len);

/* Column names, in order. */
extern const char *const val_http_col_names[VAL_HTTP_NCOLS];

typedef struct val_probe_http_opts {
    const char *python;       /* interpreter; NULL = val_probe_http_default_python() */
    const char *pythonpath;   /* PYTHONPATH of the child, or NULL (inherited) */
    double latency_ms[VAL_HTTP_MAX_LIST];
    size_t nlatency;
    unsigned concurrency[VAL_HTTP_MAX_LIST];
    size_t nconcurrency;
    uint64_t total;           /* requests per phase */
    int phase_on[VAL_HTTP_NPHASES];
    int app;                  /* VAL_HTTP_APP_* */
    unsigned reps;            /* runs per (latency, concurrency) */
    uint64_t seed;
    double timeout;           /* seconds allowed for each request (httpx's timeout;
                                 TigerBench's load_phases.py uses 10 s) */
    double server_cpu;        /* seconds of CPU the stand-in spins on its one loop for
                                 each request, in series, before its backend await
                                 (TigerFans' server spends 1-3 ms of its loop per
                                 request); 0 (default): none */
    const char *out;          /* the CSV (required) */
    const volatile sig_atomic_t *stop;  /* set (e.g. by SIGINT) to stop early; may be NULL */
    /* After each row is written (may be NULL). */
    void (*progress)(void *ctx, const val_http_row *row);
    void *progress_ctx;
    /* Each line the child wrote on stderr but the versions, without its
     * line end (may be NULL: dropped). */
    void (*diag)(void *ctx, const char *line);
    void *diag_ctx;
} val_probe_http_opts;

/* httpx's timeout per request in TigerBench's load_phases.py (seconds) */
#define VAL_HTTP_TIMEOUT_DEFAULT 10.0
#define VAL_HTTP_MAX_SERVER_CPU 1.0   /* s: the largest --server-cpu-ms, 1000 ms */

/* Defaults: python NULL, latencies 0,0.5,2,10 ms, concurrencies
 * 1,5,10,20,...,100, total 1000, all phases, app starlette, reps 1,
 * seed 1, timeout 10 s, out NULL. */
void val_probe_http_opts_init(val_probe_http_opts *o);

/* /usr/bin/python3 when it is executable, else "python3" (found on PATH
 * when the child starts).  A static string. */
const char *val_probe_http_default_python(void);

/* Parse "0,0.5,2" into o->latency_ms (each in [0, VAL_HTTP_MAX_LATENCY_MS]),
 * "1,5,10" into o->concurrency (each in [1, VAL_HTTP_MAX_CONC]),
 * "reserve,commit" into o->phase_on (known names, no repeats; they run in
 * the order above whatever the order given), "starlette" into o->app.
 * Each returns 0, or -1 with the reason in why (len bytes). */
int val_probe_http_parse_latencies(const char *s, val_probe_http_opts *o, char *why, size_t len);
int val_probe_http_parse_levels(const char *s, val_probe_http_opts *o, char *why, size_t len);
int val_probe_http_parse_phases(const char *s, val_probe_http_opts *o, char *why, size_t len);
int val_probe_http_parse_app(const char *s, val_probe_http_opts *o, char *why, size_t len);

/* Rows measured or read, and the versions they were measured with. */
typedef struct val_probe_http_result {
    val_http_row *rows;       /* owned */
    size_t n, cap;
    char versions[512];       /* "httpx 0.23.3, ..., app starlette"; "" when unknown */
    double server_spin;       /* seconds the stand-in spun per request before its await
                                 (--server-cpu-ms; its preamble line), 0 without */
} val_probe_http_result;

void val_probe_http_result_init(val_probe_http_result *r);
void val_probe_http_result_fini(val_probe_http_result *r);

/* Run the probe: every rep, latency, concurrency and selected phase of o,
 * rows into res (caller storage, initialised) and into o->out.  Returns
 * SIM_OK; SIM_EINPUT for bad options (no out, empty lists, nothing
 * selected); SIM_EFAIL when the interpreter cannot be started (the
 * message says which package provides it), the scripts exit non-zero (a
 * missing module: the message names its Debian package), print a row
 * that fails the checks, o->stop is set ("interrupted"), or a file
 * cannot be written.  On failure res and o->out keep every row measured
 * before it, and the message says how many and where. */
int val_probe_http_run(const val_probe_http_opts *o, val_probe_http_result *res, sim_err *err);

/* Read a CSV written by the probe (path, "-" = standard input): comment
 * lines ('#') anywhere, the versions comment into res->versions, blank
 * lines skipped, the header line, then rows (val_http_row_parse), appended
 * to res.  Returns SIM_OK; SIM_EINPUT "file:line: column: message" for
 * the first bad line (or "file:line: message" when no column is at
 * fault; a missing header, a line longer than VAL_HTTP_MAX_LINE, a NUL
 * byte); SIM_EFAIL for a read error.  Rows read before an error stay in
 * res.  Memory: O(rows), one line buffer. */
int val_probe_http_read(const char *path, val_probe_http_result *res, sim_err *err);

/* The same from an open stream (borrowed; name is used in messages). */
int val_probe_http_read_file(FILE *f, const char *name, val_probe_http_result *res, sim_err *err);

/* Summary: per latency, concurrency and phase (over the reps): runs,
 * requests (ok + errors), errors, throughput (mean over the runs,
 * requests/s), client_cpu_ms and server_cpu_ms (CPU per request: the
 * runs' CPU over their requests, ms), conns (connections the server
 * accepted, mean per run).  Rows in first-seen order, grouped by latency
 * in text.  Owned by the caller (sim_table_free). */
sim_table *val_probe_http_table(const val_probe_http_result *r);

/* The embedded scripts (generated by the Makefile from validate/http/ with
 * xxd -i; not NUL-terminated). */
extern const unsigned char val_probe_http_load_py[];
extern const unsigned int val_probe_http_load_py_len;
extern const unsigned char val_probe_http_server_py[];
extern const unsigned int val_probe_http_server_py_len;

#endif
