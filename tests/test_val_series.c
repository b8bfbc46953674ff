/* Tests for validate/val_series: the order of the benchmark's runs from
 * the rows and timestamps, the runs a file leaves out, the database state
 * of each point, and the checks of architectures and phases.
 *
 * Every expected state follows from the rule in val_series.h: a
 * repetition of an architecture with PostgreSQL accounting adds two rows
 * per checkout and reserve request (4,000 for 1000 requests per phase),
 * and a point stands for the middle one of its run's repetitions. */
#include "tests/test_util.h"

#include <unistd.h>

#include "validate/val_series.h"
#include "validate/val_tigerbench.h"

#define HDR                                                                                   \
    "timestamp,tag,phase,accounting,payments,concurrency,db_pool_size,redis_max_conn,"         \
    "webhook_mode,arg_succeed_rate,total,ok,errors,walltime,throughput\n"

static char dir[64], path[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    snprintf(path, sizeof path, "%s/s.csv", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(path);
    return rmdir(dir);
}

/* Append the rows of one run (reps repetitions of the four phases, then
 * the hold timings) to buf, its repetitions ending `period` seconds apart
 * from time t (seconds after 2025-09-20T11:00:00Z; t < 0: no timestamp). */
static void run_rows(char *buf, size_t len, const char *acc, const char *pay, long c, int reps,
                     double t, double period)
{
    static const char *const ph[] = {"checkout", "webhook", "reserve", "commit"};
    char ts[64] = "";
    for (int r = 0; r < reps; r++) {
        if (t >= 0) {
            double at = t + r * period;
            snprintf(ts, sizeof ts, "2025-09-20T%02d:%02d:%06.3f+00:00", 11 + (int)(at / 3600),
                     (int)fmod(at / 60, 60), fmod(at, 60));
        }
        for (int p = 0; p < 4; p++) {
            size_t n = strlen(buf);
            snprintf(buf + n, len - n, "%s,x,%s,%s,%s,%ld,10,512,direct,1.0,1000,1000,0,4,250\n", ts,
                     ph[p], acc, pay, c);
        }
    }
    for (int r = 0; r < reps; r++) {
        if (t >= 0) {
            double at = t + (reps - 1) * period + 3 + 0.001 * r;
            snprintf(ts, sizeof ts, "2025-09-20T%02d:%02d:%06.3f+00:00", 11 + (int)(at / 3600),
                     (int)fmod(at / 60, 60), fmod(at, 60));
        }
        size_t n = strlen(buf);
        snprintf(buf + n, len - n,
                 "%s,x,kind:accounting.hold,%s,%s,%ld,10,512,,1.0,2000,0,0,0.001,0.004\n", ts, acc,
                 pay, c);
    }
}

static val_tigerbench *read_text(const char *text)
{
    test_write_file(path, text);
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench *tb;
    if (val_tigerbench_read(path, &tb, &err))
        fail_msg("%s", err.msg);
    return tb;
}

static void build(const char *text, val_series *s, val_tigerbench **tb)
{
    *tb = read_text(text);
    sim_err err;
    sim_err_clear(&err);
    val_series_opts o = {0, 1e5};
    if (val_series_build(*tb, &o, s, &err))
        fail_msg("%s", err.msg);
}

static double rows_of(const val_series *s, const char *arch, long c, int *how)
{
    double rows, goodies;
    sim_err err;
    sim_err_clear(&err);
    if (val_series_state(s, arch, c, &rows, &goodies, how, NULL, &err))
        fail_msg("%s", err.msg);
    return rows;
}

static void print_notes(const val_series *s)
{
    for (size_t i = 0; i < s->nnotes; i++)
        printf("  note: %s\n", s->notes[i]);
}

/* The shipped data: by concurrency, from the timestamps; pg_redis and
 * tb_redis run at concurrency 1 and, left out of the file, at 5 to 90 in
 * the gaps between pg_pg's runs (the timestamps leave room for them);
 * pg_pg at concurrency c follows three repetitions of pg_pg and pg_redis
 * at every lower concurrency. */
static void test_shipped_data(void **state)
{
    (void)state;
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench *tb;
    if (val_tigerbench_read("tests/data/calibration.csv", &tb, &err))
        fail_msg("%s", err.msg);
    val_series s;
    val_series_opts o = {0, 1e5};
    assert_int_equal(val_series_build(tb, &o, &s, &err), SIM_OK);
    print_notes(&s);
    assert_int_equal(s.order, VAL_SERIES_BY_CONCURRENCY);
    assert_true(s.timed);
    assert_int_equal(s.nturn, 3);
    assert_string_equal(s.turn[1], "pg_redis");
    long levels[] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
    for (int i = 0; i < 12; i++) {
        int how;
        double rows = rows_of(&s, "pg_pg", levels[i], &how);
        assert_int_equal(how, VAL_SERIES_LISTED);
        /* 3 repetitions of pg_pg and of pg_redis at each lower level, then one */
        assert_close(rows, (i * 6 + 1) * 4000.0, 0);
    }
    int how;
    rows_of(&s, "pg_redis", 5, &how);
    assert_int_equal(how, VAL_SERIES_INFERRED);
    rows_of(&s, "tb_redis", 90, &how);
    assert_int_equal(how, VAL_SERIES_INFERRED);
    /* after pg_pg's last run nothing is inferred: the point is placed */
    assert_close(rows_of(&s, "pg_redis", 100, &how), (11 * 6 + 3 + 1) * 4000.0, 0);
    assert_int_equal(how, VAL_SERIES_PLACED);
    /* pg_redis at 1 ran after pg_pg's three repetitions at 1 */
    assert_close(rows_of(&s, "pg_redis", 1, &how), 4 * 4000.0, 0);
    assert_int_equal(how, VAL_SERIES_LISTED);
    char d[512];
    printf("  %s\n", val_series_describe(&s, "pg_redis", 1, d, sizeof d));
    assert_non_null(strstr(d, "ran after pg_pg at 1 on the same database: 12,000 holds rows at its start, 16,000 at its middle"));
    val_series_fini(&s);
    val_tigerbench_free(tb);
}

/* All of pg_pg (concurrency 1 and 10), then all of pg_redis on the same
 * database: pg_redis at 1 starts after pg_pg's 6 repetitions; with and
 * without timestamps (then the rows' order). */
static void test_by_architecture(void **state)
{
    (void)state;
    for (int timed = 1; timed >= 0; timed--) {
        static char text[16384];
        snprintf(text, sizeof text, "%s", HDR);
        double t = timed ? 0 : -1;
        run_rows(text, sizeof text, "pg", "pg", 1, 3, t, 40);
        run_rows(text, sizeof text, "pg", "pg", 10, 3, timed ? 200 : -1, 30);
        run_rows(text, sizeof text, "pg", "redis", 1, 3, timed ? 400 : -1, 40);
        run_rows(text, sizeof text, "pg", "redis", 10, 3, timed ? 600 : -1, 30);
        val_series s;
        val_tigerbench *tb;
        build(text, &s, &tb);
        print_notes(&s);
        assert_int_equal(s.order, VAL_SERIES_BY_ARCH);
        assert_int_equal(s.timed, timed);
        int how;
        assert_close(rows_of(&s, "pg_redis", 1, &how), 7 * 4000.0, 0);
        assert_close(rows_of(&s, "pg_redis", 10, &how), 10 * 4000.0, 0);
        assert_close(rows_of(&s, "pg_pg", 10, &how), 4 * 4000.0, 0);
        /* a point the file does not hold: pg_redis at 5 goes after its own run at 1 */
        assert_close(rows_of(&s, "pg_redis", 5, &how), 10 * 4000.0, 0);
        assert_int_equal(how, VAL_SERIES_PLACED);
        char d[512];
        val_series_describe(&s, "pg_redis", 1, d, sizeof d);
        printf("  %s\n", d);
        assert_non_null(strstr(d, "ran after pg_pg at 1, 10 on the same database: 24,000 holds rows at its start, 28,000 at"));
        val_series_fini(&s);
        val_tigerbench_free(tb);
    }
}

/* Rows listed out of time order: the timestamps decide (and a note says so). */
static void test_timestamps_decide(void **state)
{
    (void)state;
    static char text[16384];
    snprintf(text, sizeof text, "%s", HDR);
    run_rows(text, sizeof text, "pg", "redis", 1, 3, 400, 40);
    run_rows(text, sizeof text, "pg", "pg", 1, 3, 0, 40);
    run_rows(text, sizeof text, "pg", "pg", 10, 3, 200, 30);
    val_series s;
    val_tigerbench *tb;
    build(text, &s, &tb);
    print_notes(&s);
    assert_int_equal(s.order, VAL_SERIES_BY_ARCH);
    assert_non_null(strstr(s.notes[0], "not in the order of their timestamps"));
    int how;
    assert_close(rows_of(&s, "pg_redis", 1, &how), 7 * 4000.0, 0);
    val_series_fini(&s);
    val_tigerbench_free(tb);
}

/* By concurrency with a second architecture at 1 only: between the runs
 * at 1 and 10 a gap with room for it counts its run at its turn; a gap
 * without room does not. */
static void test_gaps(void **state)
{
    (void)state;
    for (int room = 1; room >= 0; room--) {
        static char text[16384];
        snprintf(text, sizeof text, "%s", HDR);
        run_rows(text, sizeof text, "pg", "pg", 1, 3, 0, 40);
        run_rows(text, sizeof text, "pg", "redis", 1, 3, 200, 40);
        run_rows(text, sizeof text, "pg", "pg", 5, 3, 400, 30);
        /* the run at 10 ends 3 repetitions of 30 s after the run at 5 (plus
         * 3 s for its kind rows), or 150 s later still */
        run_rows(text, sizeof text, "pg", "pg", 10, 3, 400 + 60 + 3 + 30 + (room ? 150 : 0), 30);
        val_series s;
        val_tigerbench *tb;
        build(text, &s, &tb);
        print_notes(&s);
        assert_int_equal(s.order, VAL_SERIES_BY_CONCURRENCY);
        int how;
        double r = rows_of(&s, "pg_pg", 10, &how);
        /* pg_pg 1, pg_redis 1, pg_pg 5 (9 repetitions), pg_redis 5 when counted, one more */
        assert_close(r, (room ? 13 : 10) * 4000.0, 0);
        rows_of(&s, "pg_redis", 5, &how);
        assert_int_equal(how, room ? VAL_SERIES_INFERRED : VAL_SERIES_PLACED);
        int said = 0;
        for (size_t i = 0; i < s.nnotes; i++)
            said |= strstr(s.notes[i], room ? "leave room" : "leave no room") != NULL;
        assert_true(said);
        val_series_fini(&s);
        val_tigerbench_free(tb);
    }
}

static void build_bad(const char *text, const char *want)
{
    val_tigerbench *tb = read_text(text);
    val_series s;
    sim_err err;
    sim_err_clear(&err);
    val_series_opts o = {0, 1e5};
    assert_int_equal(val_series_build(tb, &o, &s, &err), SIM_EINPUT);
    if (!strstr(err.msg, want))
        fail_msg("'%s' lacks '%s'", err.msg, want);
    val_series_fini(&s);
    val_tigerbench_free(tb);
}

static void test_unknown(void **state)
{
    (void)state;
    build_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
                  "t,a,checkout,mongo,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n",
              "s.csv:3: accounting: architecture mongo_pg: accounting 'mongo' is not one tfsim "
              "models");
    build_bad(HDR "t,a,checkout,tb,kafka,1,10,512,direct,1.0,1000,1000,0,10,100\n",
              "s.csv:2: payments: architecture tb_kafka");
    build_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
                  "t,a,browse,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n",
              "s.csv:3: phase: 'browse' is not a TigerBench phase");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_data),     cmocka_unit_test(test_by_architecture),
        cmocka_unit_test(test_timestamps_decide), cmocka_unit_test(test_gaps),
        cmocka_unit_test(test_unknown),
    };
    return cmocka_run_group_tests_name("val_series", tests, setup, teardown);
}
