/* Tests for reports/rep_store: round trips, WAL, append-only, sweeps and
 * resume, concurrent writers, a writer killed mid-sweep, read-only and
 * damaged files, password redaction. */
#include "tests/test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/rep_store.h"

static char *path_in(const char *dir, const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* Does the n bytes at p contain the string needle? */
static int contains(const char *p, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(p + i, needle, k))
            return 1;
    return 0;
}

static rep_manifest manifest(void)
{
    rep_manifest m = {.command = "run",
                      .title = "tb_redis.ini",
                      .config_text = "# file: tb_redis.ini\n[client]\nconcurrency = 10\n",
                      .overrides = "client.total=1000",
                      .seed = 42,
                      .replications = 5,
                      .git_rev = "abc123",
                      .cflags = "cc -O2",
                      .config_hash = 0x0123456789abcdefULL};
    return m;
}

/* A table of the shape the simulator prints: scope/name rows, numbers,
 * strings, an empty cell, a NaN and an all-empty trailing row. */
static sim_table *sample_table(double scale)
{
    sim_table *t = sim_table_new("results");
    sim_table_col(t, "scope", NULL);
    sim_table_col(t, "name", NULL);
    sim_table_col(t, "throughput", NULL);
    sim_table_col(t, "p99", NULL);
    sim_table_col(t, "never_set", NULL);
    const char *phases[] = {"checkout", "webhook", "reserve", "commit"};
    for (int i = 0; i < 4; i++) {
        sim_table_row(t);
        sim_table_set_str(t, "scope", "phase");
        sim_table_set_str(t, "name", phases[i]);
        sim_table_set_num(t, "throughput", scale * (100.5 + i));
        if (i != 2)
            sim_table_set_num(t, "p99", i == 3 ? NAN : 0.001 * (i + 1));
    }
    sim_table_row(t);
    sim_table_set_str(t, "scope", "component");
    sim_table_set_str(t, "name", "postgres host=db password=hunter2 user=app");
    sim_table_row(t);
    return t;
}

/* Cell-by-cell equality of two tables (names, kinds, values). */
static void assert_same_table(const sim_table *a, const sim_table *b)
{
    assert_int_equal(sim_table_ncols(a), sim_table_ncols(b));
    assert_int_equal(sim_table_nrows(a), sim_table_nrows(b));
    for (int c = 0; c < sim_table_ncols(a); c++)
        assert_string_equal(sim_table_col_name(a, c), sim_table_col_name(b, c));
    for (int r = 0; r < sim_table_nrows(a); r++) {
        for (int c = 0; c < sim_table_ncols(a); c++) {
            double va = 0, vb = 0;
            const char *sa = NULL, *sb = NULL;
            int ka = sim_table_cell(a, r, c, &va, &sa), kb = sim_table_cell(b, r, c, &vb, &sb);
            assert_int_equal(ka, kb);
            if (ka == 1)
                assert_true(va == vb);
            if (ka == 2)
                assert_string_equal(sa, sb);
        }
    }
}

static void test_redact(void **state)
{
    (void)state;
    struct {
        const char *in, *out;
    } cases[] = {
        {"host=db password=hunter2 user=app", "host=db password=*** user=app"},
        /* No other '=' on the line: the value runs to its end (INI style). */
        {"PGPASSWORD=s3cret psql", "PGPASSWORD=***"},
        {"PGPASSWORD=s3cret psql -h x", "PGPASSWORD=***"},
        {"[postgres]\npassword = my pass phrase\nhost = db\n",
         "[postgres]\npassword = ***\nhost = db\n"},
        {"redis.password=abc pg.host=x", "redis.password=*** pg.host=x"},
        {"password='a b c' host=x", "password=*** host=x"},
        {"postgresql://app:hunter2@db:5432/tf", "postgresql://app:***@db:5432/tf"},
        {"redis://:pw@localhost/0", "redis://:***@localhost/0"},
        /* passwords with '/', '#' unencoded: masked up to the last '@' */
        {"postgresql://u:ab/SECRET@127.0.0.1:5/db", "postgresql://u:***@127.0.0.1:5/db"},
        {"\"postgresql://u:pa#SECRETb@[::1]x/db\"", "\"postgresql://u:***@[::1]x/db\""},
        {"http://host:8080/x?password=z&y=1", "http://host:8080/x?password=***&y=1"},
        {"password_file=/etc/pw passwords are fine", "password_file=/etc/pw passwords are fine"},
        {"no secrets here", "no secrets here"},
        {"password=", "password="},
    };
    char out[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = rep_redact(cases[i].in, out, sizeof out);
        assert_string_equal(out, cases[i].out);
        assert_int_equal(n, strlen(cases[i].out));
    }
    /* Truncation: like snprintf. */
    size_t n = rep_redact("password=hunter2", out, 8);
    assert_int_equal(n, strlen("password=***"));
    assert_string_equal(out, "passwor");
}

static void test_round_trip(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(path_in(dir, "r.db"), REP_STORE_WRITE, &err);
    assert_non_null(s);
    sim_table *t = sample_table(1);
    rep_manifest m = manifest();
    m.overrides = "pg.password=topsecret client.total=1000";
    m.config_text = "[pg]\npassword = topsecret\n";
    int64_t id1 = 0, id2 = 0;
    assert_int_equal(rep_store_save_run(s, &m, t, &id1, &err), SIM_OK);
    assert_int_equal(rep_store_save_run(s, &m, t, &id2, &err), SIM_OK);
    assert_true(id1 > 0 && id2 > id1); /* a new id, nothing overwritten */
    sim_table *u = rep_store_load_table(s, id1, &err);
    assert_non_null(u);
    /* The stored string cell lost its password; compare against that. */
    sim_table *want = sample_table(1);
    assert_int_equal(sim_table_nrows(u), 6);
    const char *name = NULL;
    assert_int_equal(sim_table_cell(u, 4, 1, NULL, &name), 2);
    assert_string_equal(name, "postgres host=db password=*** user=app");
    sim_table_free(want);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < sim_table_ncols(t); c++) {
            double a = 0, b = 0;
            const char *sa = NULL, *sb = NULL;
            int kind = sim_table_cell(t, r, c, &a, &sa);
            assert_int_equal(kind, sim_table_cell(u, r, c, &b, &sb));
            if (kind == 2)
                assert_string_equal(sa, sb);
            if (kind == 1)
                assert_true(a == b);
        }
    assert_int_equal(sim_table_find_col(u, "never_set"), 4);
    /* Manifest: fields as given, passwords masked. */
    sim_table *man = rep_store_manifest(s, REP_RUN, id1, &err);
    assert_non_null(man);
    char buf[8192];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    sim_table_print(man, SIM_FMT_CSV, f);
    fclose(f);
    assert_non_null(strstr(buf, "seed,42"));
    assert_non_null(strstr(buf, "config_hash,0123456789abcdef"));
    assert_non_null(strstr(buf, "pg.password=*** client.total=1000"));
    assert_null(strstr(buf, "topsecret"));
    sim_table_free(man);
    /* Listing. */
    sim_table *runs = rep_store_list_runs(s, &err);
    assert_non_null(runs);
    assert_int_equal(sim_table_nrows(runs), 2);
    sim_table_free(runs);
    /* No such run. */
    assert_null(rep_store_load_table(s, 999, &err));
    assert_int_equal(err.code, SIM_EINPUT);
    assert_non_null(strstr(err.msg, "no run with id 999"));
    sim_table_free(t);
    sim_table_free(u);
    rep_store_close(s);
    /* No password anywhere in the file. */
    size_t n = 0;
    FILE *db = fopen(path_in(dir, "r.db"), "rb");
    assert_non_null(db);
    static char raw[1 << 20];
    n = fread(raw, 1, sizeof raw, db);
    fclose(db);
    FILE *wal = fopen(path_in(dir, "r.db-wal"), "rb");
    if (wal) { /* closed cleanly: checkpointed and gone; if not, search it too */
        n += fread(raw + n, 1, sizeof raw - n, wal);
        fclose(wal);
    }
    assert_false(contains(raw, n, "topsecret"));
    assert_false(contains(raw, n, "hunter2"));
}

static void test_empty_table_and_measurements(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(path_in(dir, "m.db"), REP_STORE_WRITE, &err);
    assert_non_null(s);
    sim_table *e = sim_table_new(NULL);
    rep_manifest m = manifest();
    int64_t id;
    assert_int_equal(rep_store_save_run(s, &m, e, &id, &err), SIM_OK);
    sim_table *u = rep_store_load_table(s, id, &err);
    assert_non_null(u);
    assert_same_table(e, u);
    sim_table_free(u);
    sim_table *t = sample_table(2);
    int64_t set;
    assert_int_equal(rep_store_save_measurements(s, "calibration.csv", t, &set, &err), SIM_OK);
    u = rep_store_load_measurements(s, set, &err);
    assert_non_null(u);
    assert_int_equal(sim_table_nrows(u), sim_table_nrows(t));
    double v = 0;
    assert_int_equal(sim_table_cell(u, 1, 2, &v, NULL), 1);
    assert_close(v, 2 * 101.5, 0);
    sim_table *l = rep_store_list_measurements(s, &err);
    assert_non_null(l);
    assert_int_equal(sim_table_nrows(l), 1);
    sim_table_free(l);
    sim_table_free(u);
    sim_table_free(t);
    sim_table_free(e);
    rep_store_close(s);
}

static void test_wal_and_append_only(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    const char *p = path_in(dir, "w.db");
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(p, REP_STORE_WRITE, &err);
    assert_non_null(s);
    sim_table *t = sample_table(1);
    rep_manifest m = manifest();
    assert_int_equal(rep_store_save_run(s, &m, t, NULL, &err), SIM_OK);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    /* Stored results cannot be changed or deleted, even from outside. */
    assert_int_not_equal(sqlite3_exec(db, "UPDATE results SET num = 0", NULL, NULL, NULL),
                         SQLITE_OK);
    assert_int_not_equal(sqlite3_exec(db, "DELETE FROM runs", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    sim_table_free(t);
    rep_store_close(s);
}

static const char *const conc[] = {"1", "5", "10", "20", "50", "100"};
#define NCONC 6

static rep_sweep sweep_spec(uint64_t seed)
{
    rep_sweep sw = {.m = manifest(), .vary_key = "client.concurrency", .values = conc,
                    .nvalues = NCONC};
    sw.m.command = "sweep";
    sw.m.seed = seed;
    return sw;
}

static void test_sweep_resume(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(path_in(dir, "s.db"), REP_STORE_WRITE, &err);
    assert_non_null(s);
    rep_sweep sw = sweep_spec(7);
    int64_t id, again, other;
    int resumed = -1;
    assert_int_equal(rep_store_sweep_begin(s, &sw, &id, &resumed, &err), SIM_OK);
    assert_int_equal(resumed, 0);
    bool done = true;
    assert_int_equal(rep_store_point_done(s, id, 2, &done, &err), SIM_OK);
    assert_false(done);
    sim_table *t = sample_table(1);
    rep_manifest pm = sw.m;
    pm.overrides = "client.concurrency=10";
    int64_t run = 0, run2 = 0;
    assert_int_equal(rep_store_save_point(s, id, 2, &pm, t, &run, &err), SIM_OK);
    assert_int_equal(rep_store_point_done(s, id, 2, &done, &err), SIM_OK);
    assert_true(done);
    /* Storing the same point again keeps the first run. */
    assert_int_equal(rep_store_save_point(s, id, 2, &pm, t, &run2, &err), SIM_OK);
    assert_int_equal(run2, run);
    sim_table *runs = rep_store_list_runs(s, &err);
    assert_int_equal(sim_table_nrows(runs), 1);
    sim_table_free(runs);
    /* Same sweep: same id, resumed; another seed: another sweep. */
    assert_int_equal(rep_store_sweep_begin(s, &sw, &again, &resumed, &err), SIM_OK);
    assert_int_equal(again, id);
    assert_int_equal(resumed, 1);
    rep_sweep sw2 = sweep_spec(8);
    assert_int_equal(rep_store_sweep_begin(s, &sw2, &other, &resumed, &err), SIM_OK);
    assert_int_not_equal(other, id);
    assert_int_equal(resumed, 0);
    /* Out of range and unknown sweep. */
    assert_int_equal(rep_store_save_point(s, id, NCONC, &pm, t, &run, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "has no point 6"));
    sim_err_clear(&err);
    assert_int_equal(rep_store_save_point(s, 999, 0, &pm, t, &run, &err), SIM_EINPUT);
    sim_err_clear(&err);
    /* Flattened table: point, key, run, then the result columns. */
    assert_int_equal(rep_store_save_point(s, id, 0, &pm, t, &run, &err), SIM_OK);
    sim_table *all = rep_store_sweep_table(s, id, &err);
    assert_non_null(all);
    assert_int_equal(sim_table_nrows(all), 2 * sim_table_nrows(t));
    assert_string_equal(sim_table_col_name(all, 0), "point");
    assert_string_equal(sim_table_col_name(all, 1), "client.concurrency");
    assert_string_equal(sim_table_col_name(all, 2), "run");
    assert_string_equal(sim_table_col_name(all, 3), "scope");
    double x = 0;
    assert_int_equal(sim_table_cell(all, 0, 1, &x, NULL), 1); /* point 0 first */
    assert_close(x, 1, 0);
    assert_int_equal(sim_table_cell(all, sim_table_nrows(t), 1, &x, NULL), 1);
    assert_close(x, 10, 0);
    sim_table_free(all);
    sim_table *sws = rep_store_list_sweeps(s, &err);
    assert_non_null(sws);
    assert_int_equal(sim_table_nrows(sws), 2);
    const char *vals = NULL;
    assert_int_equal(sim_table_cell(sws, 0, sim_table_find_col(sws, "values"), NULL, &vals), 2);
    assert_string_equal(vals, "1,5,10,20,50,100");
    assert_int_equal(sim_table_cell(sws, 0, sim_table_find_col(sws, "stored"), &x, NULL), 1);
    assert_close(x, 2, 0);
    sim_table_free(sws);
    assert_null(rep_store_sweep_table(s, 999, &err));
    assert_int_equal(err.code, SIM_EINPUT);
    sim_table_free(t);
    rep_store_close(s);
}

/* Child: store `n` runs and the sweep points i = first, first+2, ... */
static int writer(const char *p, int first, int n)
{
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(p, REP_STORE_WRITE, &err);
    if (!s) {
        fprintf(stderr, "writer %d: %s\n", first, err.msg);
        return 10;
    }
    rep_sweep sw = sweep_spec(1);
    int64_t id;
    if (rep_store_sweep_begin(s, &sw, &id, NULL, &err))
        return 11;
    sim_table *t = sample_table(first + 1);
    rep_manifest m = manifest();
    for (int i = 0; i < n; i++)
        if (rep_store_save_run(s, &m, t, NULL, &err))
            return 12;
    for (int i = first; i < NCONC; i += 2)
        if (rep_store_save_point(s, id, i, &m, t, NULL, &err))
            return 13;
    sim_table_free(t);
    rep_store_close(s);
    return 0;
}

static int integrity_ok(const char *p)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int ok = sqlite3_open(p, &db) == SQLITE_OK &&
             sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_ROW &&
             !strcmp((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}

static void test_concurrent_writers(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    const char *p = path_in(dir, "c.db");
    pid_t kids[2];
    for (int k = 0; k < 2; k++) { /* both create the file: the schema race too */
        kids[k] = fork();
        assert_true(kids[k] >= 0);
        if (kids[k] == 0)
            _exit(writer(p, k, 25));
    }
    for (int k = 0; k < 2; k++) {
        int st;
        assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
    assert_true(integrity_ok(p));
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(p, REP_STORE_READ, &err);
    assert_non_null(s);
    sim_table *runs = rep_store_list_runs(s, &err);
    assert_int_equal(sim_table_nrows(runs), 2 * 25 + NCONC);
    sim_table_free(runs);
    sim_table *sws = rep_store_list_sweeps(s, &err);
    assert_int_equal(sim_table_nrows(sws), 1); /* both joined one sweep */
    double stored = 0;
    sim_table_cell(sws, 0, sim_table_find_col(sws, "stored"), &stored, NULL);
    assert_close(stored, NCONC, 0);
    sim_table_free(sws);
    rep_store_close(s);
}

/* Child of the kill test: store points with big tables (each save takes a
 * while, so the kill likely lands inside a transaction), reporting each
 * completed point on the pipe. */
static void slow_sweeper(const char *p, int fd)
{
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(p, REP_STORE_WRITE, &err);
    if (!s)
        _exit(10);
    rep_sweep sw = sweep_spec(99);
    int64_t id;
    if (rep_store_sweep_begin(s, &sw, &id, NULL, &err))
        _exit(11);
    sim_table *t = sim_table_new(NULL);
    for (int r = 0; r < 3000; r++) {
        sim_table_row(t);
        for (int c = 0; c < 8; c++) {
            char name[16];
            snprintf(name, sizeof name, "c%d", c);
            sim_table_set_num(t, name, r * 8 + c);
        }
    }
    rep_manifest m = manifest();
    for (int i = 0; i < NCONC; i++) {
        if (rep_store_save_point(s, id, i, &m, t, NULL, &err))
            _exit(12);
        char b = (char)i;
        if (write(fd, &b, 1) != 1)
            _exit(13);
    }
    /* Never reached in the test: it is killed before. */
    for (;;)
        pause();
}

static void test_killed_writer_resume(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    const char *p = path_in(dir, "k.db");
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t kid = fork();
    assert_true(kid >= 0);
    if (kid == 0) {
        close(fds[0]);
        slow_sweeper(p, fds[1]);
    }
    close(fds[1]);
    int completed = 0;
    char b;
    while (completed < 3 && read(fds[0], &b, 1) == 1)
        completed++;
    assert_int_equal(completed, 3);
    kill(kid, SIGKILL);
    int st;
    assert_int_equal(waitpid(kid, &st, 0), kid);
    assert_true(WIFSIGNALED(st));
    close(fds[0]);
    /* The store is consistent and holds at least the completed points,
     * each with its whole table. */
    assert_true(integrity_ok(p));
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(p, REP_STORE_WRITE, &err);
    assert_non_null(s);
    rep_sweep sw = sweep_spec(99);
    int64_t id;
    int resumed = 0;
    assert_int_equal(rep_store_sweep_begin(s, &sw, &id, &resumed, &err), SIM_OK);
    assert_int_equal(resumed, 1);
    int stored = 0;
    for (int i = 0; i < NCONC; i++) {
        bool done;
        assert_int_equal(rep_store_point_done(s, id, i, &done, &err), SIM_OK);
        if (i < completed)
            assert_true(done);
        stored += done;
    }
    sim_table *runs = rep_store_list_runs(s, &err);
    assert_int_equal(sim_table_nrows(runs), stored); /* no half-stored run */
    for (int r = 0; r < sim_table_nrows(runs); r++) {
        double id_r = 0;
        sim_table_cell(runs, r, 0, &id_r, NULL);
        sim_table *t = rep_store_load_table(s, (int64_t)id_r, &err);
        assert_non_null(t);
        assert_int_equal(sim_table_nrows(t), 3000);
        double last = 0;
        assert_int_equal(sim_table_cell(t, 2999, 7, &last, NULL), 1);
        assert_close(last, 2999 * 8 + 7, 0);
        sim_table_free(t);
    }
    sim_table_free(runs);
    /* Resume: only the missing points are computed and stored. */
    sim_table *small = sample_table(1);
    rep_manifest m = manifest();
    int computed = 0;
    for (int i = 0; i < NCONC; i++) {
        bool done;
        assert_int_equal(rep_store_point_done(s, id, i, &done, &err), SIM_OK);
        if (done)
            continue;
        computed++;
        assert_int_equal(rep_store_save_point(s, id, i, &m, small, NULL, &err), SIM_OK);
    }
    assert_int_equal(computed, NCONC - stored);
    runs = rep_store_list_runs(s, &err);
    assert_int_equal(sim_table_nrows(runs), NCONC);
    sim_table_free(runs);
    sim_table_free(small);
    rep_store_close(s);
}

static void make_store(const char *p)
{
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(p, REP_STORE_WRITE, &err);
    assert_non_null(s);
    sim_table *t = sample_table(1);
    rep_manifest m = manifest();
    assert_int_equal(rep_store_save_run(s, &m, t, NULL, &err), SIM_OK);
    sim_table_free(t);
    rep_store_close(s);
}

static void test_read_only(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    const char *p = path_in(dir, "ro.db");
    make_store(p);
    assert_int_equal(chmod(p, 0444), 0);
    assert_int_equal(chmod(dir, 0555), 0);
    /* Root ignores file modes: check as an ordinary user in a child. */
    pid_t kid = fork();
    assert_true(kid >= 0);
    if (kid == 0) {
        if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
            _exit(20);
        sim_err err;
        sim_err_clear(&err);
        rep_store *s = rep_store_open(p, REP_STORE_WRITE, &err);
        if (s || err.code != SIM_EFAIL || !strstr(err.msg, "ro.db"))
            _exit(21);
        if (!strstr(err.msg, "read-only") && !strstr(err.msg, "not writable"))
            _exit(22);
        sim_err_clear(&err);
        s = rep_store_open(p, REP_STORE_READ, &err); /* reading still works */
        if (!s) {
            fprintf(stderr, "read-only read: %s\n", err.msg);
            _exit(23);
        }
        sim_table *runs = rep_store_list_runs(s, &err);
        int n = runs ? sim_table_nrows(runs) : -1;
        sim_table_free(runs);
        rep_store_close(s);
        _exit(n == 1 ? 0 : 24);
    }
    int st;
    assert_int_equal(waitpid(kid, &st, 0), kid);
    chmod(dir, 0755);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void expect_open_error(const char *p, rep_store_mode mode, int code, const char *text)
{
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(p, mode, &err);
    if (s) {
        /* Damage may show only on reading. */
        sim_table *t = rep_store_list_runs(s, &err);
        sim_table_free(t);
        rep_store_close(s);
        assert_null(t);
    }
    assert_int_equal(err.code, code);
    if (!strstr(err.msg, text))
        fail_msg("error '%s' lacks '%s'", err.msg, text);
}

static void test_bad_files(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    const char *garbage = path_in(dir, "garbage.db");
    test_write_file(garbage, "this is not a database, just some text that is long enough "
                             "to look like a header of something else entirely\n");
    expect_open_error(garbage, REP_STORE_READ, SIM_EINPUT, "garbage.db");
    expect_open_error(garbage, REP_STORE_WRITE, SIM_EINPUT, "not a tfsim results database");
    expect_open_error(path_in(dir, "missing.db"), REP_STORE_READ, SIM_EINPUT,
                      "No such file");
    expect_open_error(dir, REP_STORE_WRITE, SIM_EINPUT, "is a directory");
    /* A SQLite file of another program. */
    const char *foreign = path_in(dir, "foreign.db");
    sqlite3 *db;
    assert_int_equal(sqlite3_open(foreign, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    expect_open_error(foreign, REP_STORE_WRITE, SIM_EINPUT, "not a tfsim results database");
    /* A newer schema. */
    const char *newer = path_in(dir, "newer.db");
    make_store(newer);
    assert_int_equal(sqlite3_open(newer, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    expect_open_error(newer, REP_STORE_READ, SIM_EINPUT, "schema version 99");
    /* An empty file read as a store. */
    const char *empty = path_in(dir, "empty.db");
    test_write_file(empty, "");
    expect_open_error(empty, REP_STORE_READ, SIM_EINPUT, "not a tfsim results database");
    /* A truncated store: an error, never a crash. */
    const char *cut = path_in(dir, "cut.db");
    make_store(cut);
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(cut, REP_STORE_WRITE, &err);
    sim_table *big = sim_table_new(NULL);
    for (int r = 0; r < 2000; r++) {
        sim_table_row(big);
        sim_table_set_num(big, "x", r);
    }
    rep_manifest m = manifest();
    assert_int_equal(rep_store_save_run(s, &m, big, NULL, &err), SIM_OK);
    sim_table_free(big);
    rep_store_close(s);
    struct stat sb;
    assert_int_equal(stat(cut, &sb), 0);
    assert_int_equal(truncate(cut, sb.st_size / 3), 0);
    sim_err_clear(&err);
    s = rep_store_open(cut, REP_STORE_READ, &err);
    sim_table *t = NULL;
    if (s) {
        t = rep_store_list_runs(s, &err);
        for (int id = 1; t && id <= 2 && !err.code; id++) {
            sim_table *u = rep_store_load_table(s, id, &err);
            sim_table_free(u);
        }
        rep_store_close(s);
    }
    sim_table_free(t);
    assert_int_equal(err.code, SIM_EINPUT);
    assert_non_null(strstr(err.msg, "damaged"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redact),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_empty_table_and_measurements),
        cmocka_unit_test(test_wal_and_append_only),
        cmocka_unit_test(test_sweep_resume),
        cmocka_unit_test(test_concurrent_writers),
        cmocka_unit_test(test_killed_writer_resume),
        cmocka_unit_test(test_read_only),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
