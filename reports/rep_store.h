/* rep_store: the SQLite results store behind `--db FILE`.
 *
 * Role: keep every run, sweep and imported measurement that a command asks
 * to store, so that `tfsim report` and `tfsim export` can show them later.
 * A run is a manifest (command, config text, overrides, seed, replications,
 * git revision, compiler flags, config hash, wall-clock time, all stored
 * as given after password redaction) plus one result table (a sim_table:
 * rows x named columns, each cell a number, a string or empty).  A sweep
 * is a manifest, one varied key and its list of values; each value is a
 * point, and each stored point is one run.  A measurement set is an
 * imported table (e.g. TigerFans benchmark rows) with its source name.
 *
 * Invariants:
 * - Nothing stored is ever overwritten: every save inserts new rows with
 *   new ids.  A sweep point, once stored, stays as it is; storing it again
 *   keeps the first one (results are deterministic for the same key).
 * - Every write is one transaction (BEGIN IMMEDIATE ... COMMIT): a process
 *   killed at any moment leaves the store as it was before or after a
 *   whole save, never half a run.  A point's run and its point row are
 *   written in the same transaction.
 * - Several processes may write one file at the same time: the store uses
 *   WAL mode and waits up to REP_STORE_BUSY_MS for a lock.  One handle must
 *   not be shared between threads or across fork(); open one per process.
 * - No password is stored: every text (config, overrides, command, result
 *   strings, measurement source) goes through rep_redact() first.
 * - Failures never crash: a missing, read-only, damaged or foreign file
 *   gives SIM_EINPUT (not a tfsim store, damaged, newer schema, no such
 *   file) or SIM_EFAIL (read-only, locked too long, I/O error) with the
 *   path in the message.
 *
 * Cost: a save is O(cells) inserts in one transaction (about a millisecond
 * for a few hundred cells plus one fsync); loads are O(cells) with indexed
 * lookups; listings are O(runs).
 *
 * Intended call sequence for a sweep runner (e.g. `tfsim sweep --db FILE`),
 * resuming an interrupted sweep with the same command:
 *
 *     sim_err err = {0};
 *     rep_store *db = rep_store_open(path, REP_STORE_WRITE, &err);
 *     if (!db) return cli_fail("sweep", &err);
 *     rep_sweep sw = {.m = manifest, .vary_key = "client.concurrency",
 *                     .values = values, .nvalues = n};
 *     int64_t sweep_id; int resumed;
 *     if (rep_store_sweep_begin(db, &sw, &sweep_id, &resumed, &err)) goto fail;
 *     rep_progress bar;
 *     rep_progress_init(&bar, stderr, cli_stderr_tty(), "sweep", n, rep_progress_now());
 *     for (size_t i = 0; i < n; i++) {
 *         bool done;
 *         if (rep_store_point_done(db, sweep_id, (int)i, &done, &err)) goto fail;
 *         if (done) { rep_progress_skip(&bar, 1); continue; }
 *         sim_table *t = ...simulate with --set vary_key=values[i]...;
 *         rep_manifest pm = manifest;  // overrides now include vary_key=values[i]
 *         int64_t run_id;
 *         int rc = rep_store_save_point(db, sweep_id, (int)i, &pm, t, &run_id, &err);
 *         sim_table_free(t);
 *         if (rc) goto fail;
 *         rep_progress_step(&bar, 1, rep_progress_now());
 *     }
 *     rep_progress_fini(&bar, rep_progress_now());
 *     sim_table *all = rep_store_sweep_table(db, sweep_id, &err);  // to print
 *     rep_store_close(db);
 */
#ifndef REP_STORE_H
#define REP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/sim_err.h"
#include "sim/sim_table.h"

#define REP_STORE_SCHEMA_VERSION 1
#define REP_STORE_BUSY_MS 10000

typedef struct rep_store rep_store;

typedef enum rep_store_mode {
    REP_STORE_READ,  /* the file must exist; nothing is stored; leaves no -wal or -shm
                      * file behind (a writer's stay while it has the file open) */
    REP_STORE_WRITE  /* created (with its schema) if missing */
} rep_store_mode;

/* What produced a run or a sweep.  All strings are borrowed for the call
 * and may be NULL (stored as empty/NULL). */
typedef struct rep_manifest {
    const char *command;      /* "run", "sweep", "predict", or the full command line */
    const char *title;        /* short human label, e.g. the config file name */
    const char *config_text;  /* sim_cfg_text() */
    const char *overrides;    /* sim_cfg_overrides(), space-separated */
    uint64_t seed;
    long replications;
    const char *git_rev;      /* tfsim_build_rev */
    const char *cflags;       /* tfsim_build_flags */
    uint64_t config_hash;     /* sim_cfg_hash() */
} rep_manifest;

/* A sweep: manifest of the whole sweep (overrides without the varied key)
 * plus the varied key and its values (borrowed). */
typedef struct rep_sweep {
    rep_manifest m;
    const char *vary_key;
    const char *const *values;
    size_t nvalues;
} rep_sweep;

/* Open (mode WRITE: create if missing) the store at path.  Returns a handle
 * owned by the caller (close with rep_store_close), or NULL with err set. */
rep_store *rep_store_open(const char *path, rep_store_mode mode, sim_err *err);
void rep_store_close(rep_store *s);

/* Store one run (manifest + table, t borrowed) in one transaction; its new
 * id goes to *run_id (may be NULL). */
int rep_store_save_run(rep_store *s, const rep_manifest *m, const sim_table *t, int64_t *run_id,
                       sim_err *err);

/* The result table of a run, as a new sim_table owned by the caller, or NULL
 * with err set (SIM_EINPUT when there is no such run). */
sim_table *rep_store_load_table(rep_store *s, int64_t run_id, sim_err *err);

/* The newest run stored by `command` with this config_hash (a command
 * may use the hash as the key of what it stored: `calibrate` stores a
 * calibration under its key): its id in *run_id (0 when there is none)
 * and, when overrides is not NULL, its overrides text in a new string
 * owned by the caller (free()). */
int rep_store_find_run(rep_store *s, const char *command, uint64_t config_hash, int64_t *run_id,
                       char **overrides, sim_err *err);

/* Sweep key: FNV-1a 64-bit of the redacted command, config text, overrides,
 * varied key, values, seed and replications, as 16 hex digits in buf
 * (len >= 17). */
void rep_store_sweep_key(const rep_sweep *sw, char *buf, size_t len);

/* Start a sweep, or find the stored one with the same sweep key (then
 * *resumed = 1 and its id is returned, so that stored points are skipped).
 * resumed may be NULL. */
int rep_store_sweep_begin(rep_store *s, const rep_sweep *sw, int64_t *sweep_id, int *resumed,
                          sim_err *err);

/* Is point `point` of the sweep stored already? */
int rep_store_point_done(rep_store *s, int64_t sweep_id, int point, bool *done, sim_err *err);

/* Store the run of one point (its own manifest m, e.g. with the varied key
 * among its overrides, and table t, both borrowed) and mark the point done,
 * in one transaction.  If another process stored the point first, nothing
 * is written and *run_id is that earlier run.  SIM_EINPUT if the sweep does
 * not exist or point is out of range. */
int rep_store_save_point(rep_store *s, int64_t sweep_id, int point, const rep_manifest *m,
                         const sim_table *t, int64_t *run_id, sim_err *err);

/* All stored points of a sweep as one new table (owned by the caller): one
 * row per result row of each point, in point order, with leading columns
 * `point`, the varied key (a number when the value parses as one, else the
 * text) and `run`, then the union of the points' result columns (a result
 * column of one of those three names would share their column). */
sim_table *rep_store_sweep_table(rep_store *s, int64_t sweep_id, sim_err *err);

/* Store an imported table of measurements (e.g. benchmark rows) under a
 * source name; its new id goes to *set_id (may be NULL). */
int rep_store_save_measurements(rep_store *s, const char *source, const sim_table *t,
                                int64_t *set_id, sim_err *err);
/* A stored measurement set as a new table owned by the caller. */
sim_table *rep_store_load_measurements(rep_store *s, int64_t set_id, sim_err *err);

/* Listings, each a new table owned by the caller, oldest first:
 * runs: id, created, command, title, sweep, point, rows, seed, replications,
 *       config_hash, git_rev;
 * sweeps: id, created, command, title, vary_key, values, points, stored,
 *       seed, replications, config_hash, git_rev (values joined by ',');
 * measurements: id, created, source, rows. */
sim_table *rep_store_list_runs(rep_store *s, sim_err *err);
sim_table *rep_store_list_sweeps(rep_store *s, sim_err *err);
sim_table *rep_store_list_measurements(rep_store *s, sim_err *err);

/* The manifest of a run or a sweep as a new two-column table (field, value)
 * owned by the caller, fields in a fixed order: id, created, command, title,
 * seed, replications, config_hash, git_rev, cflags, overrides, config (and
 * for sweeps: sweep_key, vary_key, values). */
typedef enum rep_kind { REP_RUN, REP_SWEEP } rep_kind;
sim_table *rep_store_manifest(rep_store *s, rep_kind kind, int64_t id, sim_err *err);

/* Copy in to out (at most len bytes including the NUL; out always
 * terminated when len > 0) with every password masked as "***":
 * `password=VALUE` and `password = VALUE` in any case and with any prefix
 * (PGPASSWORD=, redis.password=); VALUE ends at whitespace, '&', ';' or ','
 * unless quoted, and at the end of the line when the key starts its line
 * (INI).  Also the value of the command-line flag `--password VALUE`
 * (one word, or quoted) and the password of a URL's user info:
 * scheme://user:PASS@host.
 * Returns the length of the full redacted text (like snprintf), so that a
 * return value >= len means out was truncated. */
size_t rep_redact(const char *in, char *out, size_t len);

#endif
