/* rep_store: see rep_store.h.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "reports/rep_store.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sim/sim_cfg.h"
#include "sim/sim_str.h"

/* 'tfsi' in the file header, so that a foreign SQLite file is recognised. */
#define REP_APP_ID 0x74667369

struct rep_store {
    sqlite3 *db;
    char *path;
};

/* Tables are append-only: the triggers make any UPDATE or DELETE fail, so
 * that nothing stored is changed even by mistake. */
static const char schema_sql[] =
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    "  command TEXT, title TEXT, config TEXT, overrides TEXT,"
    "  seed, replications INTEGER, git_rev TEXT, cflags TEXT, config_hash TEXT,"
    "  nrows INTEGER NOT NULL);"
    "CREATE TABLE run_columns ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id), col INTEGER NOT NULL, name TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, col)) WITHOUT ROWID;"
    "CREATE TABLE results ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id), row INTEGER NOT NULL, col INTEGER NOT NULL,"
    "  name TEXT NOT NULL, num REAL, text TEXT,"
    "  PRIMARY KEY (run_id, row, col)) WITHOUT ROWID;"
    "CREATE TABLE sweeps ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT, sweep_key TEXT NOT NULL UNIQUE,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    "  command TEXT, title TEXT, config TEXT, overrides TEXT,"
    "  seed, replications INTEGER, git_rev TEXT, cflags TEXT, config_hash TEXT,"
    "  vary_key TEXT NOT NULL, npoints INTEGER NOT NULL);"
    "CREATE TABLE sweep_values ("
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id), point INTEGER NOT NULL,"
    "  value TEXT NOT NULL, PRIMARY KEY (sweep_id, point)) WITHOUT ROWID;"
    "CREATE TABLE sweep_points ("
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id), point INTEGER NOT NULL,"
    "  vary_key TEXT NOT NULL, value TEXT NOT NULL,"
    "  run_id INTEGER NOT NULL UNIQUE REFERENCES runs(id),"
    "  PRIMARY KEY (sweep_id, point)) WITHOUT ROWID;"
    "CREATE TABLE measurement_sets ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
    "  source TEXT, nrows INTEGER NOT NULL);"
    "CREATE TABLE measurement_columns ("
    "  set_id INTEGER NOT NULL REFERENCES measurement_sets(id), col INTEGER NOT NULL,"
    "  name TEXT NOT NULL, PRIMARY KEY (set_id, col)) WITHOUT ROWID;"
    "CREATE TABLE measurements ("
    "  set_id INTEGER NOT NULL REFERENCES measurement_sets(id), row INTEGER NOT NULL,"
    "  col INTEGER NOT NULL, name TEXT NOT NULL, num REAL, text TEXT,"
    "  PRIMARY KEY (set_id, row, col)) WITHOUT ROWID;";

static const char *const append_only[] = {
    "runs",         "run_columns",      "results",
    "sweeps",       "sweep_values",     "sweep_points",
    "measurement_sets", "measurement_columns", "measurements",
};

/* ---- redaction ---- */

static void put(char *out, size_t len, size_t *n, char c)
{
    if (*n + 1 < len)
        out[*n] = c;
    (*n)++;
}

static void put_str(char *out, size_t len, size_t *n, const char *s, size_t k)
{
    for (size_t i = 0; i < k; i++)
        put(out, len, n, s[i]);
}

/* At p = "://": if the authority holds user:PASS@, copy up to the colon,
 * mask PASS and return the position of '@'; else NULL.  (A URI whose '@'
 * lies beyond a '/', '?' or '#' is masked up to its last '@' too: a
 * password with those characters unencoded.) */
static const char *redact_url(const char *p, char *out, size_t len, size_t *n)
{
    const char *a = p + 3, *q = a, *at = NULL;
    while (*q && !strchr("/?#\"' \t\r\n", *q)) {
        if (*q == '@')
            at = q;
        q++;
    }
    if (!at) {
        /* a password holding '/', '?', '#' or a quote, not percent-encoded
         * (libpq and hiredis repeat such a URI): the last '@' before a
         * blank ends it, whatever stands between */
        for (q = a; *q && !strchr(" \t\r\n", *q); q++)
            if (*q == '@')
                at = q;
        if (!at)
            return NULL;
    }
    const char *colon = memchr(a, ':', (size_t)(at - a));
    if (!colon)
        return NULL;
    put_str(out, len, n, p, (size_t)(colon + 1 - p));
    put_str(out, len, n, "***", 3);
    return at;
}

/* At p = "password" followed by optional blanks and '=', or, when flag (p
 * follows "--"), the command-line flag "--password VALUE": copy the key and
 * mask the value; returns where to continue, or NULL if p is no such key. */
static const char *redact_key(const char *p, int flag, char *out, size_t len, size_t *n)
{
    const char *q = p + 8;
    while (*q == ' ' || *q == '\t')
        q++;
    int eq = *q == '=';
    if (eq) {
        q++;
        while (*q == ' ' || *q == '\t')
            q++;
    } else if (!flag || q == p + 8 || !*q || *q == '\r' || *q == '\n') {
        return NULL;
    }
    put_str(out, len, n, p, (size_t)(q - p));
    const char *v = q;
    size_t eol = strcspn(v, "\r\n");
    if (*v == '\'' || *v == '"') {
        const char *close = memchr(v + 1, *v, eol ? eol - 1 : 0);
        q = close ? close + 1 : v + eol;
    } else if (!eq) {
        q = v + strcspn(v, " \t\r\n"); /* the flag's value: one word */
    } else if (!memchr(v, '=', eol)) {
        q = v + eol; /* the rest of the line is the value (INI) */
        while (q > v && (q[-1] == ' ' || q[-1] == '\t'))
            q--;
    } else {
        q = v + strcspn(v, " \t\r\n&;");
    }
    if (q > v)
        put_str(out, len, n, "***", 3);
    return q;
}

size_t rep_redact(const char *in, char *out, size_t len)
{
    size_t n = 0;
    const char *p = in;
    while (*p) {
        const char *next = NULL;
        if (p[0] == ':' && p[1] == '/' && p[2] == '/')
            next = redact_url(p, out, len, &n);
        else if (strncasecmp(p, "password", 8) == 0)
            next = redact_key(p, p - in >= 2 && p[-1] == '-' && p[-2] == '-', out, len, &n);
        if (next) {
            p = next;
            continue;
        }
        put(out, len, &n, *p++);
    }
    if (len)
        out[n < len ? n : len - 1] = '\0';
    return n;
}

/* Redacted copy owned by the caller, or NULL for NULL. */
static char *redacted(const char *s)
{
    if (!s)
        return NULL;
    size_t need = rep_redact(s, NULL, 0) + 1;
    char *d = malloc(need);
    assert(d);
    rep_redact(s, d, need);
    return d;
}

/* ---- SQLite helpers ---- */

static int db_fail(rep_store *s, sim_err *err, const char *what)
{
    int rc = sqlite3_extended_errcode(s->db) & 0xff;
    int code = SIM_EFAIL;
    const char *hint = "";
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) {
        code = SIM_EINPUT;
        hint = " (the file is damaged or not a tfsim results database)";
    } else if (rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN || rc == SQLITE_PERM) {
        hint = " (the file or its directory is not writable)";
    } else if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
        hint = " (locked by another process for too long)";
    }
    return sim_err_set(err, code, "%s: %s: %s%s", s->path, what, sqlite3_errmsg(s->db), hint);
}

static int exec(rep_store *s, const char *sql, const char *what, sim_err *err)
{
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(s, err, what);
    return SIM_OK;
}

static sqlite3_stmt *prepare(rep_store *s, const char *sql, sim_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        db_fail(s, err, "query");
        return NULL;
    }
    return st;
}

static int begin(rep_store *s, sim_err *err)
{
    return exec(s, "BEGIN IMMEDIATE", "start transaction", err);
}

static int commit(rep_store *s, sim_err *err)
{
    if (exec(s, "COMMIT", "commit", err)) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return err ? err->code : SIM_EFAIL;
    }
    return SIM_OK;
}

/* Roll back after a failure and pass its status on. */
static int rollback(rep_store *s, int status)
{
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return status;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_seed(sqlite3_stmt *st, int i, uint64_t seed)
{
    if (seed <= (uint64_t)INT64_MAX) {
        sqlite3_bind_int64(st, i, (int64_t)seed);
    } else {
        char buf[24];
        snprintf(buf, sizeof buf, "%" PRIu64, seed);
        sqlite3_bind_text(st, i, buf, -1, SQLITE_TRANSIENT);
    }
}

/* Step a statement that returns no rows (or whose rows are ignored). */
static int step_done(rep_store *s, sqlite3_stmt *st, const char *what, sim_err *err)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return db_fail(s, err, what);
    return SIM_OK;
}

/* Run a query with an optional integer parameter (has_id) and return its
 * rows as a new table: integers and reals as numbers, text as strings. */
static sim_table *query_table(rep_store *s, const char *title, const char *sql, int has_id,
                              int64_t id, sim_err *err)
{
    sqlite3_stmt *st = prepare(s, sql, err);
    if (!st)
        return NULL;
    if (has_id)
        sqlite3_bind_int64(st, 1, id);
    sim_table *t = sim_table_new(title);
    assert(t);
    int ncol = sqlite3_column_count(st);
    for (int c = 0; c < ncol; c++)
        sim_table_col(t, sqlite3_column_name(st, c), NULL);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sim_table_row(t);
        for (int c = 0; c < ncol; c++) {
            int ty = sqlite3_column_type(st, c);
            if (ty == SQLITE_INTEGER || ty == SQLITE_FLOAT)
                sim_table_num(t, c, sqlite3_column_double(st, c));
            else if (ty == SQLITE_TEXT)
                sim_table_str(t, c, (const char *)sqlite3_column_text(st, c));
        }
    }
    if (rc != SQLITE_DONE) {
        db_fail(s, err, "read");
        sim_table_free(t);
        t = NULL;
    }
    sqlite3_finalize(st);
    return t;
}

/* ---- tables as cells ---- */

/* Names of the SQL tables that hold one kind of stored table. */
typedef struct cell_tables {
    const char *owner;    /* "runs" */
    const char *columns;  /* "run_columns" */
    const char *cells;    /* "results" */
    const char *id_col;   /* "run_id" */
} cell_tables;

static const cell_tables run_cells = {"runs", "run_columns", "results", "run_id"};
static const cell_tables meas_cells = {"measurement_sets", "measurement_columns", "measurements",
                                       "set_id"};

static int put_cells(rep_store *s, const cell_tables *ct, int64_t id, const sim_table *t,
                     sim_err *err)
{
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO %s(%s, col, name) VALUES (?, ?, ?)", ct->columns,
             ct->id_col);
    sqlite3_stmt *cols = prepare(s, sql, err);
    snprintf(sql, sizeof sql, "INSERT INTO %s(%s, row, col, name, num, text) VALUES (?,?,?,?,?,?)",
             ct->cells, ct->id_col);
    sqlite3_stmt *cells = cols ? prepare(s, sql, err) : NULL;
    int rc = cells ? SIM_OK : (err ? err->code : SIM_EFAIL);
    int ncols = sim_table_ncols(t), nrows = sim_table_nrows(t);
    for (int c = 0; c < ncols && rc == SIM_OK; c++) {
        sqlite3_reset(cols);
        sqlite3_bind_int64(cols, 1, id);
        sqlite3_bind_int(cols, 2, c);
        char *name = redacted(sim_table_col_name(t, c));
        bind_text(cols, 3, name);
        rc = step_done(s, cols, "store column", err);
        free(name);
    }
    for (int r = 0; r < nrows && rc == SIM_OK; r++) {
        for (int c = 0; c < ncols && rc == SIM_OK; c++) {
            double v = 0;
            const char *str = NULL;
            int kind = sim_table_cell(t, r, c, &v, &str);
            if (kind == 0)
                continue;
            sqlite3_reset(cells);
            sqlite3_bind_int64(cells, 1, id);
            sqlite3_bind_int(cells, 2, r);
            sqlite3_bind_int(cells, 3, c);
            char *name = redacted(sim_table_col_name(t, c));
            bind_text(cells, 4, name);
            char *text = NULL;
            if (kind == 1) {
                sqlite3_bind_double(cells, 5, v);
                sqlite3_bind_null(cells, 6);
            } else {
                text = redacted(str);
                sqlite3_bind_null(cells, 5);
                bind_text(cells, 6, text);
            }
            rc = step_done(s, cells, "store result", err);
            free(name);
            free(text);
        }
    }
    sqlite3_finalize(cols);
    sqlite3_finalize(cells);
    return rc;
}

static sim_table *get_cells(rep_store *s, const cell_tables *ct, int64_t id, const char *title,
                            sim_err *err)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT nrows, (SELECT COUNT(*) FROM %s WHERE %s = ?1) FROM %s "
             "WHERE id = ?1", ct->cells, ct->id_col, ct->owner);
    sqlite3_stmt *st = prepare(s, sql, err);
    if (!st)
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    int nrows = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    int64_t ncells = rc == SQLITE_ROW ? sqlite3_column_int64(st, 1) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        db_fail(s, err, "read");
        return NULL;
    }
    if (nrows < 0) {
        sim_err_set(err, SIM_EINPUT, "%s: no %s with id %" PRId64, s->path,
                    ct == &run_cells ? "run" : "measurement set", id);
        return NULL;
    }
    /* Every row of a stored table has a cell (its name), so more rows than
     * cells is damage, and building them would take memory without bound. */
    if (nrows > ncells) {
        sim_err_set(err, SIM_EINPUT, "%s: %s %" PRId64 ": damaged result table (%d rows, %" PRId64
                    " cells)", s->path, ct->owner, id, nrows, ncells);
        return NULL;
    }
    sim_table *t = sim_table_new(title);
    assert(t);
    snprintf(sql, sizeof sql, "SELECT col, name FROM %s WHERE %s = ? ORDER BY col", ct->columns,
             ct->id_col);
    st = prepare(s, sql, err);
    if (!st)
        goto fail;
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (sim_table_col(t, name ? name : "", NULL) != sqlite3_column_int(st, 0))
            goto damaged;
    }
    if (rc != SQLITE_DONE) {
        db_fail(s, err, "read columns");
        goto fail;
    }
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql, "SELECT row, col, num, text FROM %s WHERE %s = ? ORDER BY row, col",
             ct->cells, ct->id_col);
    st = prepare(s, sql, err);
    if (!st)
        goto fail;
    sqlite3_bind_int64(st, 1, id);
    int ncols = sim_table_ncols(t), cur = -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int row = sqlite3_column_int(st, 0), col = sqlite3_column_int(st, 1);
        if (row < cur || row >= nrows || col < 0 || col >= ncols)
            goto damaged;
        while (cur < row) /* sim_table fills only its last row: rows come in order */
            cur = sim_table_row(t);
        if (sqlite3_column_type(st, 2) != SQLITE_NULL)
            sim_table_num(t, col, sqlite3_column_double(st, 2));
        else
            sim_table_str(t, col, (const char *)sqlite3_column_text(st, 3));
    }
    if (rc != SQLITE_DONE) {
        db_fail(s, err, "read results");
        goto fail;
    }
    while (cur < nrows - 1)
        cur = sim_table_row(t);
    sqlite3_finalize(st);
    return t;
damaged:
    sim_err_set(err, SIM_EINPUT, "%s: %s %" PRId64 ": damaged result table", s->path, ct->owner,
                id);
fail:
    sqlite3_finalize(st);
    sim_table_free(t);
    return NULL;
}

/* ---- open / close ---- */

/* Check that the file is a tfsim store of a schema this code reads.
 * *fresh = 1 for an empty database (no tables yet). */
static int check_header(rep_store *s, int *fresh, sim_err *err)
{
    int app = 0, ver = 0, ntab = 0;
    /* One statement, so one snapshot: read one by one, a writer creating
     * the schema in between made a fresh file look like another program's. */
    sqlite3_stmt *st = prepare(s,
                               "SELECT (SELECT application_id FROM pragma_application_id), "
                               "(SELECT user_version FROM pragma_user_version), "
                               "(SELECT count(*) FROM sqlite_schema)",
                               err);
    if (!st)
        return err ? err->code : SIM_EFAIL;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        app = sqlite3_column_int(st, 0);
        ver = sqlite3_column_int(st, 1);
        ntab = sqlite3_column_int(st, 2);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return db_fail(s, err, "read header");
    *fresh = 0;
    if (app == 0 && ntab == 0) {
        *fresh = 1;
        return SIM_OK;
    }
    if (app != REP_APP_ID)
        return sim_err_set(err, SIM_EINPUT,
                           "%s: not a tfsim results database (a SQLite file of another program)",
                           s->path);
    if (ver > REP_STORE_SCHEMA_VERSION)
        return sim_err_set(err, SIM_EINPUT,
                           "%s: results database has schema version %d; this tfsim reads version "
                           "%d (upgrade tfsim)",
                           s->path, ver, REP_STORE_SCHEMA_VERSION);
    if (ver < 1)
        return sim_err_set(err, SIM_EINPUT, "%s: results database has no schema version",
                           s->path);
    return SIM_OK;
}

static int create_schema(rep_store *s, sim_err *err)
{
    if (begin(s, err))
        return err ? err->code : SIM_EFAIL;
    int fresh = 0;
    if (check_header(s, &fresh, err)) /* another process may have won the race */
        return rollback(s, err ? err->code : SIM_EFAIL);
    if (!fresh)
        return commit(s, err);
    if (exec(s, schema_sql, "create tables", err))
        return rollback(s, err ? err->code : SIM_EFAIL);
    for (size_t i = 0; i < sizeof append_only / sizeof append_only[0]; i++) {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "CREATE TRIGGER %s_no_update BEFORE UPDATE ON %s BEGIN "
                 "SELECT RAISE(ABORT, 'tfsim results are never changed'); END;"
                 "CREATE TRIGGER %s_no_delete BEFORE DELETE ON %s BEGIN "
                 "SELECT RAISE(ABORT, 'tfsim results are never deleted'); END;",
                 append_only[i], append_only[i], append_only[i], append_only[i]);
        if (exec(s, sql, "create triggers", err))
            return rollback(s, err ? err->code : SIM_EFAIL);
    }
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d", REP_APP_ID,
             REP_STORE_SCHEMA_VERSION);
    if (exec(s, sql, "write header", err))
        return rollback(s, err ? err->code : SIM_EFAIL);
    return commit(s, err);
}

/* Switch to WAL.  Changing the journal mode needs a moment of exclusive
 * access, which the busy handler does not always wait for: retry. */
static int set_wal(rep_store *s, sim_err *err)
{
    for (int waited = 0;; waited += 20) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_step(st);
        const char *mode = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        int ok = mode && !strcasecmp(mode, "wal");
        sqlite3_finalize(st);
        if (ok)
            return SIM_OK;
        if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || waited >= REP_STORE_BUSY_MS) {
            if (rc == SQLITE_ROW)
                return sim_err_set(err, SIM_EFAIL, "%s: cannot switch to WAL mode", s->path);
            return db_fail(s, err, "set WAL mode");
        }
        sqlite3_sleep(20);
    }
}

/* Open s->db.  Reading opens read-write all the same (but never creates)
 * and turns query_only on: SQLite removes the -wal and -shm files of a WAL
 * database when the last connection closes, but only if that connection
 * can write; a read-only one leaves them behind.  immutable: read-only, as
 * a URI with immutable=1, for reading a WAL database whose directory we
 * cannot write (SQLite would need to create its -shm file); used only when
 * no -wal file exists, i.e. no writer. */
static int open_db(rep_store *s, rep_store_mode mode, int immutable, sim_err *err)
{
    int flags = SQLITE_OPEN_READWRITE | (mode == REP_STORE_WRITE ? SQLITE_OPEN_CREATE : 0);
    char *name = s->path;
    if (immutable) {
        flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
        size_t n = strlen(s->path);
        name = malloc(3 * n + 32);
        assert(name);
        char *o = name + sprintf(name, "file:");
        for (const unsigned char *p = (const unsigned char *)s->path; *p; p++)
            o += sprintf(o, (*p == '%' || *p == '?' || *p == '#') ? "%%%02X" : "%c", *p);
        strcpy(o, "?immutable=1");
    }
    int rc = sqlite3_open_v2(name, &s->db, flags, NULL);
    if (name != s->path)
        free(name);
    if (rc != SQLITE_OK) {
        if (s->db)
            return db_fail(s, err, "open");
        return sim_err_set(err, SIM_EFAIL, "%s: cannot open: out of memory", s->path);
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, REP_STORE_BUSY_MS);
    if (mode == REP_STORE_READ)
        return exec(s, "PRAGMA query_only = ON", "open read-only", err);
    return SIM_OK;
}

rep_store *rep_store_open(const char *path, rep_store_mode mode, sim_err *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        sim_err_set(err, SIM_EINPUT, "%s: is a directory, not a results database", path);
        return NULL;
    }
    if (mode == REP_STORE_READ && stat(path, &sb) != 0) {
        sim_err_set(err, SIM_EINPUT, "%s: %s", path, strerror(errno));
        return NULL;
    }
    rep_store *s = calloc(1, sizeof *s);
    assert(s);
    s->path = malloc(strlen(path) + 1);
    assert(s->path);
    strcpy(s->path, path);
    int fresh = 0;
    if (open_db(s, mode, 0, err))
        goto fail;
    if (mode == REP_STORE_WRITE && sqlite3_db_readonly(s->db, "main") == 1) {
        sim_err_set(err, SIM_EFAIL, "%s: results database is read-only", path);
        goto fail;
    }
    char wal[4200];
    snprintf(wal, sizeof wal, "%s-wal", path);
    /* A file we may read but not write: SQLite could not remove the -wal
     * and -shm files it would create to read it; read it as immutable when
     * no writer has it open (no -wal file), as a file in a directory we
     * cannot write (below). */
    if (mode == REP_STORE_READ && sqlite3_db_readonly(s->db, "main") == 1 && stat(wal, &sb) != 0) {
        sqlite3_close(s->db);
        s->db = NULL;
        if (open_db(s, mode, 1, err))
            goto fail;
    }
    sim_err first;
    sim_err_clear(&first);
    if (check_header(s, &fresh, &first)) {
        int rc = sqlite3_extended_errcode(s->db) & 0xff;
        if (mode != REP_STORE_READ || (rc != SQLITE_READONLY && rc != SQLITE_CANTOPEN) ||
            stat(wal, &sb) == 0) {
            sim_err_set(err, first.code, "%s", first.msg);
            goto fail;
        }
        sqlite3_close(s->db);
        s->db = NULL;
        if (open_db(s, mode, 1, err) || check_header(s, &fresh, err))
            goto fail;
    }
    if (mode == REP_STORE_READ) {
        if (fresh) {
            sim_err_set(err, SIM_EINPUT, "%s: empty file, not a tfsim results database", path);
            goto fail;
        }
    } else if (set_wal(s, err) || create_schema(s, err)) {
        goto fail;
    }
    if (exec(s, "PRAGMA foreign_keys = ON", "enable foreign keys", err))
        goto fail;
    return s;
fail:
    rep_store_close(s);
    return NULL;
}

void rep_store_close(rep_store *s)
{
    if (!s)
        return;
    sqlite3_close(s->db);
    free(s->path);
    free(s);
}

/* ---- runs ---- */

static void hash_hex(uint64_t h, char *buf, size_t len)
{
    snprintf(buf, len, "%016" PRIx64, h);
}

/* Insert the manifest columns shared by runs and sweeps into st at
 * parameters 1..9: command, title, config, overrides, seed, replications,
 * git_rev, cflags, config_hash. */
static void bind_manifest(sqlite3_stmt *st, const rep_manifest *m)
{
    const char *texts[4] = {m->command, m->title, m->config_text, m->overrides};
    for (int i = 0; i < 4; i++) {
        char *r = redacted(texts[i]);
        bind_text(st, i + 1, r);
        free(r);
    }
    bind_seed(st, 5, m->seed);
    sqlite3_bind_int64(st, 6, m->replications);
    bind_text(st, 7, m->git_rev);
    bind_text(st, 8, m->cflags);
    char hex[17];
    hash_hex(m->config_hash, hex, sizeof hex);
    bind_text(st, 9, hex);
}

static int insert_run(rep_store *s, const rep_manifest *m, const sim_table *t, int64_t *run_id,
                      sim_err *err)
{
    sqlite3_stmt *st = prepare(s,
                               "INSERT INTO runs(command, title, config, overrides, seed, "
                               "replications, git_rev, cflags, config_hash, nrows) "
                               "VALUES (?,?,?,?,?,?,?,?,?,?)",
                               err);
    if (!st)
        return err ? err->code : SIM_EFAIL;
    bind_manifest(st, m);
    sqlite3_bind_int(st, 10, sim_table_nrows(t));
    int rc = step_done(s, st, "store run", err);
    sqlite3_finalize(st);
    if (rc)
        return rc;
    int64_t id = sqlite3_last_insert_rowid(s->db);
    if (run_id)
        *run_id = id;
    return put_cells(s, &run_cells, id, t, err);
}

int rep_store_save_run(rep_store *s, const rep_manifest *m, const sim_table *t, int64_t *run_id,
                       sim_err *err)
{
    assert(s && m && t);
    if (begin(s, err))
        return err ? err->code : SIM_EFAIL;
    int rc = insert_run(s, m, t, run_id, err);
    return rc ? rollback(s, rc) : commit(s, err);
}

sim_table *rep_store_load_table(rep_store *s, int64_t run_id, sim_err *err)
{
    char title[64];
    snprintf(title, sizeof title, "run %" PRId64, run_id);
    return get_cells(s, &run_cells, run_id, title, err);
}

int rep_store_find_run(rep_store *s, const char *command, uint64_t config_hash, int64_t *run_id,
                       char **overrides, sim_err *err)
{
    *run_id = 0;
    if (overrides)
        *overrides = NULL;
    sqlite3_stmt *st = prepare(s,
                               "SELECT id, overrides FROM runs WHERE command = ? AND "
                               "config_hash = ? ORDER BY id DESC LIMIT 1",
                               err);
    if (!st)
        return err ? err->code : SIM_EFAIL;
    char hex[17];
    hash_hex(config_hash, hex, sizeof hex);
    bind_text(st, 1, command);
    bind_text(st, 2, hex);
    int rc = sqlite3_step(st);
    int status = SIM_OK;
    if (rc == SQLITE_ROW) {
        *run_id = sqlite3_column_int64(st, 0);
        const unsigned char *o = sqlite3_column_text(st, 1);
        if (overrides) {
            size_t n = o ? strlen((const char *)o) : 0;
            *overrides = malloc(n + 1);
            assert(*overrides);
            memcpy(*overrides, o ? (const char *)o : "", n + 1);
        }
    } else if (rc != SQLITE_DONE) {
        status = db_fail(s, err, "find run");
    }
    sqlite3_finalize(st);
    return status;
}

/* ---- sweeps ---- */

/* sim_str_fnv_field of s with its secrets redacted (see redacted). */
static uint64_t fnv_field_redacted(const char *s, uint64_t h)
{
    char *r = redacted(s);
    h = sim_str_fnv_field(r, h);
    free(r);
    return h;
}

void rep_store_sweep_key(const rep_sweep *sw, char *buf, size_t len)
{
    uint64_t h = SIM_STR_FNV0;
    h = fnv_field_redacted(sw->m.command, h);
    h = fnv_field_redacted(sw->m.config_text, h);
    h = fnv_field_redacted(sw->m.overrides, h);
    h = sim_str_fnv_field(sw->vary_key, h);
    for (size_t i = 0; i < sw->nvalues; i++)
        h = fnv_field_redacted(sw->values[i], h);
    char num[48];
    snprintf(num, sizeof num, "%" PRIu64 "/%ld", sw->m.seed, sw->m.replications);
    h = sim_str_fnv_field(num, h);
    hash_hex(h, buf, len);
}

static int find_sweep(rep_store *s, const char *key, int64_t *id, sim_err *err)
{
    sqlite3_stmt *st = prepare(s, "SELECT id FROM sweeps WHERE sweep_key = ?", err);
    if (!st)
        return err ? err->code : SIM_EFAIL;
    bind_text(st, 1, key);
    int rc = sqlite3_step(st);
    *id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_fail(s, err, "find sweep");
    return SIM_OK;
}

static int insert_sweep(rep_store *s, const rep_sweep *sw, const char *key, int64_t *id,
                        sim_err *err)
{
    sqlite3_stmt *st = prepare(s,
                               "INSERT INTO sweeps(command, title, config, overrides, seed, "
                               "replications, git_rev, cflags, config_hash, sweep_key, vary_key, "
                               "npoints) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                               err);
    if (!st)
        return err ? err->code : SIM_EFAIL;
    bind_manifest(st, &sw->m);
    bind_text(st, 10, key);
    bind_text(st, 11, sw->vary_key);
    sqlite3_bind_int64(st, 12, (int64_t)sw->nvalues);
    int rc = step_done(s, st, "store sweep", err);
    sqlite3_finalize(st);
    if (rc)
        return rc;
    *id = sqlite3_last_insert_rowid(s->db);
    st = prepare(s, "INSERT INTO sweep_values(sweep_id, point, value) VALUES (?,?,?)", err);
    if (!st)
        return err ? err->code : SIM_EFAIL;
    for (size_t i = 0; i < sw->nvalues && rc == SIM_OK; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, *id);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        char *v = redacted(sw->values[i]);
        bind_text(st, 3, v);
        free(v);
        rc = step_done(s, st, "store sweep values", err);
    }
    sqlite3_finalize(st);
    return rc;
}

int rep_store_sweep_begin(rep_store *s, const rep_sweep *sw, int64_t *sweep_id, int *resumed,
                          sim_err *err)
{
    assert(s && sw && sw->vary_key && sweep_id && (sw->values || sw->nvalues == 0));
    char key[17];
    rep_store_sweep_key(sw, key, sizeof key);
    if (begin(s, err))
        return err ? err->code : SIM_EFAIL;
    int64_t id = 0;
    int rc = find_sweep(s, key, &id, err);
    int found = rc == SIM_OK && id > 0;
    if (rc == SIM_OK && !found)
        rc = insert_sweep(s, sw, key, &id, err);
    if (rc)
        return rollback(s, rc);
    if (commit(s, err))
        return err ? err->code : SIM_EFAIL;
    *sweep_id = id;
    if (resumed)
        *resumed = found;
    return SIM_OK;
}

/* Run id of a stored point, or 0. */
static int point_run(rep_store *s, int64_t sweep_id, int point, int64_t *run_id, sim_err *err)
{
    sqlite3_stmt *st =
        prepare(s, "SELECT run_id FROM sweep_points WHERE sweep_id = ? AND point = ?", err);
    if (!st)
        return err ? err->code : SIM_EFAIL;
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int(st, 2, point);
    int rc = sqlite3_step(st);
    *run_id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_fail(s, err, "read sweep point");
    return SIM_OK;
}

int rep_store_point_done(rep_store *s, int64_t sweep_id, int point, bool *done, sim_err *err)
{
    int64_t run = 0;
    int rc = point_run(s, sweep_id, point, &run, err);
    *done = rc == SIM_OK && run > 0;
    return rc;
}

/* The sweep's varied key and the value of one point (both new strings
 * owned by the caller); SIM_EINPUT for an unknown sweep or point. */
static int sweep_point_value(rep_store *s, int64_t sweep_id, int point, char **key, char **value,
                             sim_err *err)
{
    sqlite3_stmt *st = prepare(s,
                               "SELECT s.vary_key, v.value FROM sweeps s JOIN sweep_values v "
                               "ON v.sweep_id = s.id WHERE s.id = ? AND v.point = ?",
                               err);
    if (!st)
        return err ? err->code : SIM_EFAIL;
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int(st, 2, point);
    int rc = sqlite3_step(st);
    *key = *value = NULL;
    if (rc == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        const char *v = (const char *)sqlite3_column_text(st, 1);
        *key = redacted(k ? k : "");
        *value = redacted(v ? v : "");
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return sim_err_set(err, SIM_EINPUT, "%s: sweep %" PRId64 " has no point %d", s->path,
                           sweep_id, point);
    if (rc != SQLITE_ROW)
        return db_fail(s, err, "read sweep");
    return SIM_OK;
}

int rep_store_save_point(rep_store *s, int64_t sweep_id, int point, const rep_manifest *m,
                         const sim_table *t, int64_t *run_id, sim_err *err)
{
    assert(s && m && t);
    if (begin(s, err))
        return err ? err->code : SIM_EFAIL;
    char *key = NULL, *value = NULL;
    int64_t id = 0;
    int rc = sweep_point_value(s, sweep_id, point, &key, &value, err);
    if (rc == SIM_OK)
        rc = point_run(s, sweep_id, point, &id, err);
    if (rc == SIM_OK && id == 0) {
        rc = insert_run(s, m, t, &id, err);
        sqlite3_stmt *st =
            rc ? NULL
               : prepare(s,
                         "INSERT INTO sweep_points(sweep_id, point, vary_key, value, run_id) "
                         "VALUES (?,?,?,?,?)",
                         err);
        if (st) {
            sqlite3_bind_int64(st, 1, sweep_id);
            sqlite3_bind_int(st, 2, point);
            bind_text(st, 3, key);
            bind_text(st, 4, value);
            sqlite3_bind_int64(st, 5, id);
            rc = step_done(s, st, "store sweep point", err);
            sqlite3_finalize(st);
        } else if (rc == SIM_OK) {
            rc = err ? err->code : SIM_EFAIL;
        }
    }
    free(key);
    free(value);
    if (rc)
        return rollback(s, rc);
    if (commit(s, err))
        return err ? err->code : SIM_EFAIL;
    if (run_id)
        *run_id = id;
    return SIM_OK;
}

/* Copy row r of src to the end of dst (dst gets any missing columns). */
static void append_row(sim_table *dst, const sim_table *src, int r)
{
    int n = sim_table_ncols(src);
    for (int c = 0; c < n; c++) {
        double v;
        const char *str = NULL;
        int kind = sim_table_cell(src, r, c, &v, &str);
        int dc = sim_table_col(dst, sim_table_col_name(src, c), NULL);
        if (kind == 1)
            sim_table_num(dst, dc, v);
        else if (kind == 2)
            sim_table_str(dst, dc, str);
    }
}

sim_table *rep_store_sweep_table(rep_store *s, int64_t sweep_id, sim_err *err)
{
    sim_table *pts = query_table(s, NULL,
                                 "SELECT p.point, p.value, p.run_id, s.vary_key FROM sweeps s "
                                 "LEFT JOIN sweep_points p ON p.sweep_id = s.id "
                                 "WHERE s.id = ? ORDER BY p.point",
                                 1, sweep_id, err);
    if (!pts)
        return NULL;
    if (sim_table_nrows(pts) == 0) {
        sim_table_free(pts);
        sim_err_set(err, SIM_EINPUT, "%s: no sweep with id %" PRId64, s->path, sweep_id);
        return NULL;
    }
    const char *key = NULL;
    sim_table_cell(pts, 0, 3, NULL, &key);
    char title[256];
    snprintf(title, sizeof title, "sweep %" PRId64 ": %s", sweep_id, key ? key : "?");
    sim_table *out = sim_table_new(title);
    assert(out);
    sim_table_col(out, "point", "%.0f");
    int kcol = sim_table_col(out, key ? key : "value", NULL);
    sim_table_col(out, "run", "%.0f");
    for (int i = 0; i < sim_table_nrows(pts); i++) {
        double point, run;
        const char *value = NULL;
        if (sim_table_cell(pts, i, 0, &point, NULL) != 1) /* no point stored yet */
            continue;
        sim_table_cell(pts, i, 1, NULL, &value);
        sim_table_cell(pts, i, 2, &run, NULL);
        sim_table *t = rep_store_load_table(s, (int64_t)run, err);
        if (!t) {
            sim_table_free(out);
            out = NULL;
            break;
        }
        double num;
        const char *why;
        int numeric = value && sim_parse_double(value, &num, &why) == 0;
        for (int r = 0; r < sim_table_nrows(t); r++) {
            sim_table_row(out);
            sim_table_num(out, 0, point);
            if (numeric)
                sim_table_num(out, kcol, num);
            else
                sim_table_str(out, kcol, value);
            sim_table_num(out, 2, run);
            append_row(out, t, r);
        }
        sim_table_free(t);
    }
    sim_table_free(pts);
    return out;
}

/* ---- measurements ---- */

int rep_store_save_measurements(rep_store *s, const char *source, const sim_table *t,
                                int64_t *set_id, sim_err *err)
{
    assert(s && t);
    if (begin(s, err))
        return err ? err->code : SIM_EFAIL;
    sqlite3_stmt *st =
        prepare(s, "INSERT INTO measurement_sets(source, nrows) VALUES (?, ?)", err);
    if (!st)
        return rollback(s, err ? err->code : SIM_EFAIL);
    char *src = redacted(source);
    bind_text(st, 1, src);
    free(src);
    sqlite3_bind_int(st, 2, sim_table_nrows(t));
    int rc = step_done(s, st, "store measurements", err);
    sqlite3_finalize(st);
    int64_t id = sqlite3_last_insert_rowid(s->db);
    if (rc == SIM_OK)
        rc = put_cells(s, &meas_cells, id, t, err);
    if (rc)
        return rollback(s, rc);
    if (commit(s, err))
        return err ? err->code : SIM_EFAIL;
    if (set_id)
        *set_id = id;
    return SIM_OK;
}

sim_table *rep_store_load_measurements(rep_store *s, int64_t set_id, sim_err *err)
{
    char title[64];
    snprintf(title, sizeof title, "measurements %" PRId64, set_id);
    return get_cells(s, &meas_cells, set_id, title, err);
}

/* ---- listings ---- */

sim_table *rep_store_list_runs(rep_store *s, sim_err *err)
{
    return query_table(s, "runs",
                       "SELECT r.id, r.created, r.command, r.title, p.sweep_id AS sweep, "
                       "p.point, r.nrows AS rows, r.seed, r.replications, r.config_hash, "
                       "r.git_rev FROM runs r LEFT JOIN sweep_points p ON p.run_id = r.id "
                       "ORDER BY r.id",
                       0, 0, err);
}

sim_table *rep_store_list_sweeps(rep_store *s, sim_err *err)
{
    return query_table(s, "sweeps",
                       "SELECT s.id, s.created, s.command, s.title, s.vary_key, "
                       "(SELECT group_concat(value, ',') FROM (SELECT value FROM sweep_values "
                       "  WHERE sweep_id = s.id ORDER BY point)) AS \"values\", "
                       "s.npoints AS points, "
                       "(SELECT count(*) FROM sweep_points WHERE sweep_id = s.id) AS stored, "
                       "s.seed, s.replications, s.config_hash, s.git_rev "
                       "FROM sweeps s ORDER BY s.id",
                       0, 0, err);
}

sim_table *rep_store_list_measurements(rep_store *s, sim_err *err)
{
    return query_table(s, "measurements",
                       "SELECT id, created, source, nrows AS rows FROM measurement_sets "
                       "ORDER BY id",
                       0, 0, err);
}

sim_table *rep_store_manifest(rep_store *s, rep_kind kind, int64_t id, sim_err *err)
{
    static const char run_sql[] =
        "SELECT id, created, command, title, seed, replications, config_hash, git_rev, cflags, "
        "overrides, config FROM runs WHERE id = ?";
    static const char sweep_sql[] =
        "SELECT id, created, command, title, seed, replications, config_hash, git_rev, cflags, "
        "overrides, config, sweep_key, vary_key, "
        "(SELECT group_concat(value, ',') FROM (SELECT value FROM sweep_values "
        "  WHERE sweep_id = sweeps.id ORDER BY point)) AS \"values\" FROM sweeps WHERE id = ?";
    sqlite3_stmt *st = prepare(s, kind == REP_RUN ? run_sql : sweep_sql, err);
    if (!st)
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    sim_table *t = NULL;
    if (rc == SQLITE_ROW) {
        t = sim_table_new(kind == REP_RUN ? "run manifest" : "sweep manifest");
        assert(t);
        int fc = sim_table_col(t, "field", NULL), vc = sim_table_col(t, "value", NULL);
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            sim_table_row(t);
            sim_table_str(t, fc, sqlite3_column_name(st, c));
            sim_table_str(t, vc, (const char *)sqlite3_column_text(st, c));
        }
    } else if (rc == SQLITE_DONE) {
        sim_err_set(err, SIM_EINPUT, "%s: no %s with id %" PRId64, s->path,
                    kind == REP_RUN ? "run" : "sweep", id);
    } else {
        db_fail(s, err, "read manifest");
    }
    sqlite3_finalize(st);
    return t;
}
