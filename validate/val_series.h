/* val_series: the benchmark series behind a TigerBench file: in which
 * order its runs went against the one database (never emptied between
 * runs), and so which state each measured or predicted point ran against.
 *
 * Facts (DESIGN.md section 2): every repetition of an architecture with
 * PostgreSQL accounting adds two holds rows per hold (checkout and reserve
 * hold once per request: 4,000 rows per repetition of 1000 requests per
 * phase) and the table is never emptied; goodies posted by earlier
 * repetitions are gone (PostgreSQL accounting: one per commit-phase
 * request with PostgreSQL sessions, also one per webhook with Redis
 * sessions; TigerBeetle keeps its own goodie account, two per request).
 *
 * A run is one architecture at one concurrency: its repetitions (the
 * group of rows the benchmark writes for one env file).  The order of the
 * runs comes from the data:
 *  - when every run has ISO 8601 timestamps, from the times (the latest
 *    row of a run: its kind rows, written after its last repetition);
 *    otherwise from the rows' order in the file;
 *  - the order is "by concurrency" when the concurrencies never decrease
 *    along it (the TigerBench default: for each concurrency, every
 *    architecture in turn), "by architecture" when each architecture's
 *    runs are together, in ascending concurrency (all of pg_pg, then all
 *    of pg_redis); otherwise "as in the file";
 *  - in an order by concurrency, a run of an architecture the file shows
 *    elsewhere but not at this concurrency is counted as having run at its
 *    turn (a file may leave series out: the shipped one holds only pg_pg
 *    beyond concurrency 1) when the timestamps leave room for it (the
 *    time from the end of the run before to the end of the run after,
 *    less the repetitions of the run after, exceeds one of its
 *    repetitions), or when the file has no timestamps (the protocol); a
 *    run with no room for it is not counted.
 * Every assumption is one line of notes, to be printed.
 *
 * A point stands for the middle repetition of its run.  A point the file
 * does not hold (a prediction) is placed where the order puts it: by
 * concurrency, at its architecture's turn within its concurrency; by
 * architecture, after its own lower concurrencies and all runs of the
 * architectures before it; as in the file, after its own lower
 * concurrencies.
 *
 * Checks (SIM_EINPUT naming file:line): an architecture whose backends
 * tfsim does not model (accounting pg or tb, payments pg or redis), a
 * phase other than checkout, webhook, reserve, commit.
 *
 * Ownership: val_series owns its runs (val_series_fini); the file is only
 * read during val_series_build.  Cost: O(runs^2) with runs = architectures
 * x concurrencies (a few hundred at most).
 */
#ifndef VAL_SERIES_H
#define VAL_SERIES_H

#include <stddef.h>

#include "sim/sim_err.h"
#include "validate/val_tigerbench.h"

#define VAL_SERIES_MAX_NOTES 24
#define VAL_SERIES_NOTE_LEN 640

typedef struct val_series_opts {
    double rows0;     /* holds rows before the series started (--rows0) */
    double goodies0;  /* goodies at the start of the series */
} val_series_opts;

enum val_series_order {
    VAL_SERIES_BY_CONCURRENCY = 0,
    VAL_SERIES_BY_ARCH,
    VAL_SERIES_AS_FILE
};

/* How a point's run is known. */
enum val_series_how { VAL_SERIES_LISTED = 0, VAL_SERIES_INFERRED, VAL_SERIES_PLACED };

typedef struct val_series_run {
    char arch[VAL_TIGERBENCH_NAME_MAX];
    int pg, redis;              /* PostgreSQL accounting; Redis payment sessions */
    long concurrency;
    int reps;                   /* repetitions */
    int how;                    /* VAL_SERIES_LISTED or VAL_SERIES_INFERRED */
    int line;                   /* its first row (0: inferred) */
    double t_end;               /* latest timestamp of its rows, s (NaN: none) */
    double period;              /* seconds per repetition (NaN: unknown) */
    double rows_per_rep;        /* holds rows a repetition adds (0 without PG accounting) */
    double goodies_per_rep;     /* goodies a repetition posts (in its own account) */
    double rows_before;         /* holds rows when it started */
    double goodies_pg_before, goodies_tb_before; /* goodies posted before it started */
} val_series_run;

typedef struct val_series {
    val_series_run *runs;       /* n, in the order they ran; owned */
    size_t n;
    int order;                  /* enum val_series_order */
    int timed;                  /* the order comes from timestamps */
    int reps;                   /* the usual repetitions of a run */
    double total;               /* the usual requests per phase */
    double rows0, goodies0;
    char turn[16][VAL_TIGERBENCH_NAME_MAX]; /* architectures in turn order */
    size_t nturn;
    char notes[VAL_SERIES_MAX_NOTES][VAL_SERIES_NOTE_LEN]; /* a note cut to fit ends in "..." */
    size_t nnotes;
    size_t notes_left_out;      /* notes beyond VAL_SERIES_MAX_NOTES */
} val_series;

/* What tfsim models of a TigerBench file: accounting pg or tb, payments
 * pg or redis, the four phases; SIM_EINPUT (file:line: column: message)
 * for anything else.  val_series_build checks it first; `tfsim import`
 * checks it before it stores a file. */
int val_series_check(const val_tigerbench *tb, sim_err *err);

/* Build the series of tb into s (caller storage; free with
 * val_series_fini, also after a failure).  Returns SIM_OK or SIM_EINPUT
 * (file:line: message). */
int val_series_build(const val_tigerbench *tb, const val_series_opts *o, val_series *s,
                     sim_err *err);
void val_series_fini(val_series *s);

/* The database state of arch's point at concurrency c: holds rows and
 * goodies left at its middle repetition.  *how (may be NULL) says whether
 * its run is listed, inferred or placed; *run (may be NULL) its index in
 * s->runs, or -1 when placed.  SIM_EINPUT when arch is not in the series
 * and its backends are unknown (not in the file). */
int val_series_state(const val_series *s, const char *arch, long c, double *rows,
                     double *goodies, int *how, long *run, sim_err *err);

/* One line saying what ran before arch's point at concurrency c and the
 * state that gives ("pg_redis at concurrency 1 ran after pg_pg at 1 to 100
 * (12 concurrencies) on the same database: 144,000 holds rows at its
 * start, 148,000 at its middle repetition; ..."), into buf (len bytes);
 * returns buf. */
const char *val_series_describe(const val_series *s, const char *arch, long c, char *buf,
                                size_t len);

/* The name of an order ("by concurrency", ...). */
const char *val_series_order_name(int order);

/* v rounded to an integer with thousands separators ("12,000") in buf
 * (caller's, len bytes); returns buf. */
const char *val_series_grouped(double v, char *buf, size_t len);

#endif
