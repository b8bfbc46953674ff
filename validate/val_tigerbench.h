/* val_tigerbench: reader and summaries for TigerFans benchmark CSVs (the
 * TigerBench dashboard format, docs/DESIGN.md section 3).
 *
 * Role: read one CSV file, check it, and summarise it per architecture
 * (accounting backend, payments backend; named "ACCOUNTING_PAYMENTS", e.g.
 * pg_pg, pg_redis, tb_redis), per phase or kind, and per concurrency,
 * across the repetitions in the file.  Used by `tfsim amdahl` and, later,
 * by `tfsim calibrate` / `tfsim predict`.
 *
 * Format: one header line naming the columns (in any order; extra columns
 * are ignored) then one line per row.  Required columns: phase, accounting,
 * payments, concurrency, total, ok, errors, walltime, throughput.  Optional
 * columns, checked when present: timestamp, tag, db_pool_size,
 * redis_max_conn, webhook_mode, arg_succeed_rate.  Two kinds of rows:
 *  - phase rows (phase = checkout, webhook, reserve, commit, ...): one
 *    repetition of one load phase; walltime in seconds, throughput in
 *    requests/s (must agree with ok/walltime or total/walltime within 1%);
 *  - kind rows (phase = "kind:NAME", e.g. kind:accounting.hold): the
 *    server-side timing of one operation over one repetition: total =
 *    sample count, and the columns are reused: walltime holds the STANDARD
 *    DEVIATION and throughput holds the MEAN, both in seconds (in transfers
 *    for kind:tb.batch_size).  Kind rows with total = 0 carry no samples
 *    and are skipped.
 * Every repetition of a setting is one row; rows of one group need not be
 * adjacent.  Within one architecture, db_pool_size and redis_max_conn must
 * not vary (one file = one setting per architecture); arg_succeed_rate,
 * webhook_mode and the requests per repetition may (the architecture's
 * record then says which vary), as TigerBench's files mix runs with and
 * without the webhook_mode column.
 *
 * Timestamps (optional column): an ISO 8601 time (YYYY-MM-DD[T ]hh:mm[:ss[.f]]
 * with an optional Z or UTC offset; the benchmark writes a phase row's
 * after its repetition, a kind row's after the last repetition) gives the
 * group's earliest and latest time, from which the benchmark series'
 * order can be read; other text there is kept as no time at all.
 *
 * Errors: bad input gives SIM_EINPUT with "file:line: column: message"
 * (missing or duplicate columns, wrong field count, non-numeric or
 * out-of-range fields, inconsistent throughput, an empty file; a row
 * whose timestamp (an ISO 8601 time), phase, architecture and concurrency
 * repeat an earlier row's (the same repetition twice); a phase wall time
 * or a kind's mean
 * or sd beyond VAL_TIGERBENCH_MAX_SECONDS (tb.batch_size:
 * VAL_TIGERBENCH_MAX_BATCH); a kind whose mean exceeds the wall time of
 * the phases of its architecture and concurrency (their mean wall times
 * added up), when the file has them).
 *
 * Invariants: after a successful read every architecture has at least one
 * row; phase summaries of an architecture are ordered by the phase's first
 * appearance in the file, then by concurrency; kind summaries likewise.
 * Cost: streamed through libcsv in 4 KiB chunks; memory is O(distinct
 * groups) plus 12 bytes per timestamped row (the duplicate check), freed
 * after reading: a record is at most VAL_TIGERBENCH_MAX_RECORD bytes
 * and VAL_TIGERBENCH_MAX_FIELDS fields, and a file holds at most
 * VAL_TIGERBENCH_MAX_GROUPS distinct (architecture, phase or kind,
 * concurrency) groups.  Time O(file size) (hashed group lookup).
 */
#ifndef VAL_TIGERBENCH_H
#define VAL_TIGERBENCH_H

#include <stddef.h>
#include <stdio.h>

#include "sim/sim_err.h"

#define VAL_TIGERBENCH_NAME_MAX 64
#define VAL_TIGERBENCH_MAX_FIELDS 64
#define VAL_TIGERBENCH_MAX_RECORD 8192
#define VAL_TIGERBENCH_MAX_GROUPS 100000
/* Largest wall time of a phase row and mean or sd of a kind row, in
 * seconds (a day), and of kind:tb.batch_size, in transfers: beyond them a
 * value is a unit slip or a corrupted field, not a measurement. */
#define VAL_TIGERBENCH_MAX_SECONDS 86400.0
#define VAL_TIGERBENCH_MAX_BATCH 1e6

/* Settings that vary among an architecture's phase rows (val_tigerbench_arch.mixed). */
#define VAL_TIGERBENCH_MIXED_SUCCEED 1u
#define VAL_TIGERBENCH_MIXED_WEBHOOK 2u
#define VAL_TIGERBENCH_MIXED_TOTAL 4u

/* One phase at one concurrency, over its repetitions. */
typedef struct val_tigerbench_phase {
    char phase[VAL_TIGERBENCH_NAME_MAX]; /* "checkout", "webhook", ... */
    long concurrency;
    int reps;                            /* rows (repetitions) */
    double x_mean, x_sd;                 /* throughput, requests/s; sd across
                                            repetitions (sample sd), NaN if reps < 2 */
    double x_min, x_max;
    double wall_mean;                    /* phase wall time, s */
    long total, ok, errors;              /* sums over repetitions */
    int line, last_line;                 /* lines of the group's first and last rows */
    int timed;                           /* rows with an ISO 8601 timestamp */
    double t_first, t_last;              /* their earliest and latest, s since 1970 UTC
                                            (NaN when none) */
} val_tigerbench_phase;

/* One kind (timed operation) at one concurrency, over its repetitions.
 * Values in seconds (transfers for tb.batch_size). */
typedef struct val_tigerbench_kind {
    char kind[VAL_TIGERBENCH_NAME_MAX]; /* without the "kind:" prefix */
    long concurrency;
    int reps;                           /* rows with samples */
    long samples;                       /* sum of the total column */
    double mean;                        /* unweighted mean of the per-repetition means */
    double sd_between;                  /* sd of the per-repetition means; NaN if reps < 2 */
    double sd_pooled;                   /* within-repetition pooled sd:
                                           sqrt(sum (n_i-1) s_i^2 / sum (n_i-1)) */
    double sd_total;                    /* sd of all samples taken as one set
                                           (within plus between repetitions) */
    double sd_column;                   /* mean over repetitions of the walltime
                                           column, i.e. of the per-repetition sd:
                                           the number the seed's table reads as a
                                           timing */
    int line, last_line;                /* lines of the group's first and last rows */
    int timed;                          /* rows with an ISO 8601 timestamp */
    double t_first, t_last;             /* their earliest and latest, s since 1970 UTC
                                           (NaN when none) */
} val_tigerbench_kind;

typedef struct val_tigerbench_arch {
    char name[VAL_TIGERBENCH_NAME_MAX]; /* "pg_pg" */
    char accounting[VAL_TIGERBENCH_NAME_MAX], payments[VAL_TIGERBENCH_NAME_MAX];
    long db_pool_size, redis_max_conn;  /* -1 when absent from the file */
    /* The load generator's settings of the phase rows, when every row that
     * names one agrees (else the "mixed" bit is set and the value is the
     * first row's): arg_succeed_rate (NaN when absent), webhook_mode (""
     * when absent) and the requests per repetition, the largest of the
     * phase groups' total / reps (the run's --total: a phase after
     * checkout runs on the sessions it made, a few fewer after errors;
     * mixed when a group has under 90% of it; 0 without phase rows). */
    double succeed_rate;
    char webhook_mode[16];
    long total;
    unsigned mixed;                     /* VAL_TIGERBENCH_MIXED_* bits */
    size_t nphases;
    val_tigerbench_phase *phases;       /* owned by the val_tigerbench */
    size_t nkinds;
    val_tigerbench_kind *kinds;         /* owned by the val_tigerbench */
} val_tigerbench_arch;

typedef struct val_tigerbench val_tigerbench;

/* Read and summarise the file at path.  On success *out is a new object
 * owned by the caller (free with val_tigerbench_free) and SIM_OK is
 * returned; otherwise *out is NULL and err is filled (SIM_EINPUT for bad
 * content, SIM_EFAIL when the file cannot be read). */
int val_tigerbench_read(const char *path, val_tigerbench **out, sim_err *err);
/* The same from an open stream (borrowed, not closed); name is used in
 * messages and copied. */
int val_tigerbench_read_stream(FILE *f, const char *name, val_tigerbench **out, sim_err *err);
void val_tigerbench_free(val_tigerbench *tb);
/* Copy the settings of from's runs (db_pool_size, redis_max_conn,
 * succeed_rate, webhook_mode, total and which of them vary) into to,
 * leaving its name, backends and rows: an architecture run as another
 * was. */
void val_tigerbench_settings_copy(val_tigerbench_arch *to, const val_tigerbench_arch *from);

/* The file name given to the reader (borrowed). */
const char *val_tigerbench_name(const val_tigerbench *tb);
/* Data rows read (header excluded). */
size_t val_tigerbench_rows(const val_tigerbench *tb);

/* Architectures in order of first appearance.  Borrowed pointers, valid
 * until tb is freed. */
size_t val_tigerbench_narch(const val_tigerbench *tb);
const val_tigerbench_arch *val_tigerbench_arch_at(const val_tigerbench *tb, size_t i);
/* Architecture by name ("pg_pg"), or NULL. */
const val_tigerbench_arch *val_tigerbench_find(const val_tigerbench *tb, const char *name);
/* The same, but an absent name is an input error: SIM_EINPUT with
 * "FILE: architecture 'x' is not in the file (present: pg_pg, ...)". */
int val_tigerbench_arch_get(const val_tigerbench *tb, const char *name,
                            const val_tigerbench_arch **out, sim_err *err);
/* An architecture that no row measured, from its name "ACCOUNTING_PAYMENTS"
 * (pg_pg, pg_redis, tb_redis, tb_pg): *out is filled with that name and
 * those backends and no rows (caller storage; nothing to free).
 * SIM_EINPUT when name is not of that form (any backend names: whether
 * tfsim models them is the caller's check). */
int val_tigerbench_arch_named(const char *name, val_tigerbench_arch *out, sim_err *err);

/* Which rows val_tigerbench_concurrencies looks at. */
enum { VAL_TIGERBENCH_PHASE_ROWS = 1, VAL_TIGERBENCH_KIND_ROWS = 2 };

/* Distinct concurrencies with rows of the given kinds (a bit set of the
 * enum above), ascending, into out (up to max); returns how many there are
 * in total (may exceed max). */
size_t val_tigerbench_concurrencies(const val_tigerbench_arch *a, int rows, long *out,
                                    size_t max);
/* Same list written as "1, 5, 10" into buf (for messages); returns buf. */
const char *val_tigerbench_concurrency_list(const val_tigerbench_arch *a, int rows, char *buf,
                                            size_t len);
/* Distinct phase names of an architecture, in order of first appearance
 * (borrowed), up to max; returns how many there are in total. */
size_t val_tigerbench_phase_names(const val_tigerbench_arch *a, const char **names, size_t max);

/* Summary of a phase / a kind (name without "kind:") at one concurrency, or
 * NULL.  Borrowed. */
const val_tigerbench_phase *val_tigerbench_phase_get(const val_tigerbench_arch *a,
                                                     const char *phase, long concurrency);
const val_tigerbench_kind *val_tigerbench_kind_get(const val_tigerbench_arch *a,
                                                   const char *kind, long concurrency);

/* TigerFans facts (docs/DESIGN.md section 2), for the analyses built on this
 * reader.  The kinds one request of a phase awaits, in order (static
 * strings), up to max; returns how many (0 for an unknown phase):
 * checkout: accounting.hold, paymentsession.save; webhook:
 * paymentsession.get, paymentsession.fulfill, accounting.commit_order,
 * db.add_order, paymentsession.remove_pending; reserve: accounting.hold;
 * commit: accounting.commit_order. */
size_t val_tigerbench_phase_kinds(const char *phase, const char **kinds, size_t max);
/* 1 when the load generator runs the phase as a sliding window (C requests
 * always in flight: checkout, reserve), 0 for waves (webhook, commit: C
 * start together, the next wave waits for the slowest) or unknown. */
int val_tigerbench_phase_is_window(const char *phase);

#endif
