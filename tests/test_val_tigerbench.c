/* Tests for validate/val_tigerbench: summaries and input errors. */
#include "tests/test_util.h"

#include <unistd.h>

#include "validate/val_tigerbench.h"

#define HDR                                                                                   \
    "timestamp,tag,phase,accounting,payments,concurrency,db_pool_size,redis_max_conn,"         \
    "webhook_mode,arg_succeed_rate,total,ok,errors,walltime,throughput\n"

/* Two repetitions of pg_pg checkout at N=1 and N=10 (listed out of order),
 * kinds at N=1, a zero-sample kind row, and tb_redis kinds at N=1. */
static const char good_csv[] =
    HDR
    "t1,a,checkout,pg,pg,10,10,512,direct,1.0,1000,1000,0,4,250\n"
    "t1,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
    "t1,a,reserve,pg,pg,1,10,512,direct,1.0,1000,1000,0,5,200\n"
    "t2,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,8,125\n"
    "t2,a,checkout,pg,pg,10,10,512,direct,1.0,1000,998,2,5,199.6\n"
    "t3,a,kind:accounting.hold,pg,pg,1,10,512,,1.0,2000,0,0,0.001,0.004\n"
    "t4,a,kind:accounting.hold,pg,pg,1,10,512,,1.0,1000,0,0,0.002,0.006\n"
    "t3,a,kind:unused,pg,pg,1,10,512,,1.0,0,0,0,0,0\n"
    "t3,a,kind:accounting.hold,tb,redis,1,10,512,,1.0,2000,0,0,0.0005,0.002\n";

static char dir[64], path[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/tb.csv", dir);
    remove(p);
    snprintf(p, sizeof p, "%s/nul.csv", dir);
    remove(p);
    return rmdir(dir);
}

static const char *write_csv(const char *text)
{
    snprintf(path, sizeof path, "%s/tb.csv", dir);
    test_write_file(path, text);
    return path;
}

static val_tigerbench *read_ok(const char *text)
{
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench *tb = NULL;
    int rc = val_tigerbench_read(write_csv(text), &tb, &err);
    if (rc != SIM_OK)
        fail_msg("read failed: %s", err.msg);
    assert_non_null(tb);
    return tb;
}

/* The read must fail with SIM_EINPUT and a message containing want. */
static void read_bad(const char *text, const char *want)
{
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench *tb = (val_tigerbench *)1;
    int rc = val_tigerbench_read(write_csv(text), &tb, &err);
    assert_int_equal(rc, SIM_EINPUT);
    assert_null(tb);
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
}

static void test_summaries(void **state)
{
    (void)state;
    val_tigerbench *tb = read_ok(good_csv);
    assert_int_equal(val_tigerbench_rows(tb), 9);
    assert_int_equal(val_tigerbench_narch(tb), 2);
    const val_tigerbench_arch *a = val_tigerbench_arch_at(tb, 0);
    assert_string_equal(a->name, "pg_pg");
    assert_string_equal(a->accounting, "pg");
    assert_string_equal(a->payments, "pg");
    assert_int_equal(a->db_pool_size, 10);
    assert_int_equal(a->redis_max_conn, 512);
    assert_ptr_equal(val_tigerbench_find(tb, "pg_pg"), a);
    assert_string_equal(val_tigerbench_arch_at(tb, 1)->name, "tb_redis");

    /* phase summaries: ordered by first appearance of the name, then N */
    assert_int_equal(a->nphases, 3);
    assert_string_equal(a->phases[0].phase, "checkout");
    assert_int_equal(a->phases[0].concurrency, 1);
    assert_int_equal(a->phases[1].concurrency, 10);
    assert_string_equal(a->phases[2].phase, "reserve");
    const val_tigerbench_phase *p = val_tigerbench_phase_get(a, "checkout", 1);
    assert_ptr_equal(p, &a->phases[0]);
    assert_int_equal(p->reps, 2);
    assert_close(p->x_mean, 112.5, 1e-12);
    assert_close(p->x_sd, sqrt(2 * 12.5 * 12.5), 1e-9); /* sample sd of 100 and 125 */
    assert_close(p->wall_mean, 9, 1e-12);
    assert_int_equal(p->line, 3);
    p = val_tigerbench_phase_get(a, "checkout", 10);
    assert_int_equal(p->ok, 1998);
    assert_int_equal(p->errors, 2);
    assert_int_equal(p->total, 2000);
    p = val_tigerbench_phase_get(a, "reserve", 1);
    assert_int_equal(p->reps, 1);
    assert_true(isnan(p->x_sd));
    assert_null(val_tigerbench_phase_get(a, "reserve", 10));

    /* kinds: mean of means, pooled sd, total sd, the sd column */
    assert_int_equal(a->nkinds, 1); /* kind:unused had no samples */
    const val_tigerbench_kind *k = val_tigerbench_kind_get(a, "accounting.hold", 1);
    assert_non_null(k);
    assert_int_equal(k->reps, 2);
    assert_int_equal(k->samples, 3000);
    assert_close(k->mean, 0.005, 1e-15);
    assert_close(k->sd_column, 0.0015, 1e-15);
    assert_close(k->sd_between, sqrt(2) * 0.001, 1e-12);
    double pooled = sqrt((1999 * 1e-6 + 999 * 4e-6) / 2998);
    assert_close(k->sd_pooled, pooled, 1e-12);
    /* all samples: within SS + between SS around the weighted mean */
    double m = (2000 * 0.004 + 1000 * 0.006) / 3000;
    double ss = 1999 * 1e-6 + 999 * 4e-6 + 2000 * (0.004 - m) * (0.004 - m) +
                1000 * (0.006 - m) * (0.006 - m);
    assert_close(k->sd_total, sqrt(ss / 2999), 1e-12);
    assert_null(val_tigerbench_kind_get(a, "unused", 1));
    assert_null(val_tigerbench_kind_get(a, "accounting.hold", 10));

    /* concurrencies and phase names */
    long c[8];
    assert_int_equal(val_tigerbench_concurrencies(a, VAL_TIGERBENCH_PHASE_ROWS, c, 8), 2);
    assert_int_equal(c[0], 1);
    assert_int_equal(c[1], 10);
    assert_int_equal(val_tigerbench_concurrencies(a, VAL_TIGERBENCH_KIND_ROWS, c, 8), 1);
    char buf[64];
    assert_string_equal(
        val_tigerbench_concurrency_list(a, VAL_TIGERBENCH_PHASE_ROWS | VAL_TIGERBENCH_KIND_ROWS,
                                        buf, sizeof buf),
        "1, 10");
    const char *names[4];
    assert_int_equal(val_tigerbench_phase_names(a, names, 4), 2);
    assert_string_equal(names[0], "checkout");
    assert_string_equal(names[1], "reserve");
    const val_tigerbench_arch *t = val_tigerbench_find(tb, "tb_redis");
    assert_int_equal(t->nphases, 0);
    assert_int_equal(val_tigerbench_phase_names(t, names, 4), 0);
    assert_string_equal(val_tigerbench_concurrency_list(t, VAL_TIGERBENCH_PHASE_ROWS, buf,
                                                        sizeof buf),
                        "none");
    val_tigerbench_free(tb);
}

static void test_arch_get(void **state)
{
    (void)state;
    val_tigerbench *tb = read_ok(good_csv);
    sim_err err;
    sim_err_clear(&err);
    const val_tigerbench_arch *a;
    assert_int_equal(val_tigerbench_arch_get(tb, "tb_redis", &a, &err), SIM_OK);
    assert_string_equal(a->name, "tb_redis");
    assert_int_equal(val_tigerbench_arch_get(tb, "tb_tb", &a, &err), SIM_EINPUT);
    assert_null(a);
    assert_non_null(strstr(err.msg, "tb.csv: architecture 'tb_tb' is not in the file (present: "
                                    "pg_pg, tb_redis)"));
    assert_null(val_tigerbench_find(tb, "pg"));
    val_tigerbench_free(tb);
}

/* An architecture no row measured: its record from the name alone. */
static void test_arch_named(void **state)
{
    (void)state;
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench_arch a;
    assert_int_equal(val_tigerbench_arch_named("tb_redis", &a, &err), SIM_OK);
    assert_string_equal(a.name, "tb_redis");
    assert_string_equal(a.accounting, "tb");
    assert_string_equal(a.payments, "redis");
    assert_int_equal(a.nphases, 0);
    assert_int_equal(a.nkinds, 0);
    assert_int_equal(a.db_pool_size, -1);
    assert_null(val_tigerbench_phase_get(&a, "checkout", 1));
    assert_null(val_tigerbench_kind_get(&a, "accounting.hold", 1));
    static const char *const bad[] = {"tbredis", "_redis", "tb_", "tb_redis_x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sim_err_clear(&err);
        assert_int_equal(val_tigerbench_arch_named(bad[i], &a, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "expected ACCOUNTING_PAYMENTS"));
    }
    char longname[VAL_TIGERBENCH_NAME_MAX + 8];
    memset(longname, 'x', sizeof longname - 1);
    longname[3] = '_';
    longname[sizeof longname - 1] = '\0';
    sim_err_clear(&err);
    assert_int_equal(val_tigerbench_arch_named(longname, &a, &err), SIM_EINPUT);
}

static void test_shape_variants(void **state)
{
    (void)state;
    /* columns in another order, an extra column, optional ones absent,
     * CRLF line ends, a blank line, a BOM, no final newline */
    val_tigerbench *tb = read_ok("\xEF\xBB\xBFthroughput,walltime,errors,ok,total,concurrency,"
                                 "payments,accounting,phase,extra\r\n"
                                 "100,10,0,1000,1000,1,redis,tb,checkout,x\r\n"
                                 "\r\n"
                                 "\"0.003\",0.001,0,0,10,1,redis,tb,kind:a.b,\"q,uoted\"");
    const val_tigerbench_arch *a = val_tigerbench_find(tb, "tb_redis");
    assert_non_null(a);
    assert_int_equal(a->db_pool_size, -1);
    assert_close(val_tigerbench_phase_get(a, "checkout", 1)->x_mean, 100, 0);
    const val_tigerbench_kind *k = val_tigerbench_kind_get(a, "a.b", 1);
    assert_non_null(k);
    assert_close(k->mean, 0.003, 0);
    assert_int_equal(k->line, 4);
    val_tigerbench_free(tb);
}

static void test_phase_kinds(void **state)
{
    (void)state;
    const char *k[8];
    assert_int_equal(val_tigerbench_phase_kinds("checkout", k, 8), 2);
    assert_string_equal(k[0], "accounting.hold");
    assert_string_equal(k[1], "paymentsession.save");
    assert_int_equal(val_tigerbench_phase_kinds("webhook", k, 8), 5);
    assert_string_equal(k[3], "db.add_order");
    assert_int_equal(val_tigerbench_phase_kinds("reserve", k, 8), 1);
    assert_int_equal(val_tigerbench_phase_kinds("commit", k, 8), 1);
    assert_string_equal(k[0], "accounting.commit_order");
    assert_int_equal(val_tigerbench_phase_kinds("other", k, 8), 0);
    assert_true(val_tigerbench_phase_is_window("checkout"));
    assert_true(val_tigerbench_phase_is_window("reserve"));
    assert_false(val_tigerbench_phase_is_window("webhook"));
    assert_false(val_tigerbench_phase_is_window("commit"));
}

static void test_header_errors(void **state)
{
    (void)state;
    read_bad("", "tb.csv:1: empty file");
    read_bad("\n\n", "tb.csv:1: empty file");
    read_bad(HDR, "tb.csv:2: no data rows");
    read_bad("timestamp,tag,phase,accounting,payments,concurrency,total,ok,errors,walltime\n"
             "t,a,checkout,pg,pg,1,1000,1000,0,10\n",
             "tb.csv:1: throughput: missing column");
    /* another CSV shape: tfsim predict output */
    read_bad("phase,concurrency,throughput,ci_low,ci_high\ncheckout,1,100,90,110\n",
             "tb.csv:1: accounting: missing column; not a TigerBench CSV");
    read_bad("phase,phase,accounting,payments,concurrency,total,ok,errors,walltime,throughput\n",
             "tb.csv:1: phase: column appears twice");
}

/* The load generator's settings per architecture: kept when every row
 * agrees, marked mixed when not; an empty webhook_mode is no setting. */
static void test_loadgen_settings(void **state)
{
    (void)state;
    val_tigerbench *tb = read_ok(good_csv);
    const val_tigerbench_arch *a = val_tigerbench_find(tb, "pg_pg");
    assert_string_equal(a->webhook_mode, "direct"); /* the kind rows' empty field: none */
    assert_true(a->succeed_rate == 1.0);
    assert_int_equal(a->total, 1000);
    assert_int_equal(a->mixed, 0);
    const val_tigerbench_arch *t = val_tigerbench_find(tb, "tb_redis");
    assert_int_equal(t->total, 0); /* kinds only */
    assert_string_equal(t->webhook_mode, "");
    val_tigerbench_free(tb);

    /* 2000 per run, a later phase a few short (sessions lost to errors):
     * still 2000, not mixed; another rate, mode and total in pg_redis */
    tb = read_ok(HDR "t,a,checkout,pg,pg,1,20,512,emit,0.9,2000,2000,0,10,200\n"
                     "t,a,webhook,pg,pg,1,20,512,emit,0.9,1997,1997,0,10,199.7\n"
                     "t,a,checkout,pg,redis,1,10,512,,1.0,1000,1000,0,10,100\n"
                     "u,a,checkout,pg,redis,1,10,512,direct,0.5,1000,1000,0,10,100\n"
                     "t,a,checkout,pg,redis,5,10,512,emit,1.0,400,400,0,4,100\n");
    a = val_tigerbench_find(tb, "pg_pg");
    assert_int_equal(a->db_pool_size, 20);
    assert_string_equal(a->webhook_mode, "emit");
    assert_true(a->succeed_rate == 0.9);
    assert_int_equal(a->total, 2000);
    assert_int_equal(a->mixed, 0);
    a = val_tigerbench_find(tb, "pg_redis");
    assert_int_equal(a->total, 1000);
    assert_string_equal(a->webhook_mode, "direct");
    assert_int_equal(a->mixed, VAL_TIGERBENCH_MIXED_SUCCEED | VAL_TIGERBENCH_MIXED_WEBHOOK |
                                   VAL_TIGERBENCH_MIXED_TOTAL);
    val_tigerbench_free(tb);
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,directly-to-the-server,1.0,1000,1000,0,10,100\n",
             "tb.csv:2: webhook_mode: 'directly-to-the-server' is not a webhook mode");
}

static void test_row_errors(void **state)
{
    (void)state;
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10\n",
             "tb.csv:2: expected 15 fields as in the header, got 14");
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
                 "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,abc\n",
             "tb.csv:3: throughput: 'abc' is not a number");
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,nan\n",
             "tb.csv:2: throughput: 'nan' is not a number");
    read_bad(HDR "t,a,checkout,pg,pg,0,10,512,direct,1.0,1000,1000,0,10,100\n",
             "tb.csv:2: concurrency: 0 is out of range");
    read_bad(HDR "t,a,checkout,pg,pg,1.5,10,512,direct,1.0,1000,1000,0,10,100\n",
             "tb.csv:2: concurrency: '1.5' is not an integer");
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,0,100\n",
             "tb.csv:2: walltime: 0 must be > 0");
    read_bad(HDR "t,a,kind:x,pg,pg,1,10,512,,1.0,10,0,0,-0.1,0.1\n",
             "tb.csv:2: walltime: -0.1 must be >= 0");
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,-5,1000,0,10,100\n",
             "tb.csv:2: total: -5 is out of range");
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,2.0,1000,1000,0,10,100\n",
             "tb.csv:2: arg_succeed_rate: 2.0 is not a rate");
    /* a kind row's sd/mean in a phase row: throughput disagrees with ok/walltime */
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,0.0002,0.004\n",
             "tb.csv:2: throughput: 0.004 disagrees with ok/walltime = 5e+06");
    read_bad(HDR "t,a,,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n",
             "tb.csv:2: phase: empty phase name");
    read_bad(HDR "t,a,kind:,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n",
             "tb.csv:2: phase: empty kind name");
    read_bad(HDR "t,a,check out,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n",
             "tb.csv:2: phase: 'check out': unexpected character ' '");
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
                 "t,a,checkout,pg,pg,5,20,512,direct,1.0,1000,1000,0,10,100\n",
             "tb.csv:3: db_pool_size: 20 differs from 10 (line 2) for pg_pg");
    /* the same repetition twice (same timestamp, phase, architecture and
     * concurrency), e.g. a file appended to itself */
    read_bad(HDR "2025-09-20T11:27:45Z,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
                 "2025-09-20T11:27:45Z,a,reserve,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
                 "2025-09-20T11:27:45Z,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n",
             "tb.csv:4: duplicates line 2");
    /* placeholder text in the timestamp column identifies nothing */
    val_tigerbench_free(read_ok(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
                                    "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"));
    /* absurd values: a kind mean of 1e308 s, a phase lasting years, a
     * kind longer than its phases */
    read_bad(HDR "t,a,kind:accounting.hold,pg,pg,1,10,512,,1.0,2000,0,0,0.001,1e308\n",
             "tb.csv:2: throughput: 1e+308 is beyond 86400 s");
    read_bad(HDR "t,a,kind:accounting.hold,pg,pg,1,10,512,,1.0,2000,0,0,1e9,0.004\n",
             "tb.csv:2: walltime: 1e+09 is beyond 86400 s");
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,1e8,1e-5\n",
             "tb.csv:2: walltime: 1e+08 is beyond 86400 s");
    read_bad(HDR "t,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
                 "u,a,kind:accounting.hold,pg,pg,1,10,512,,1.0,2000,0,0,0.001,60\n",
             "tb.csv:3: throughput: kind:accounting.hold has a mean of 60 s, longer than the 10 s");
    /* line numbers count blank lines */
    read_bad(HDR "\n\nt,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,x\n",
             "tb.csv:4: throughput: 'x' is not a number");
}

static void test_malformed(void **state)
{
    (void)state;
    read_bad(HDR "t,a,\"checkout\"x,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n",
             "tb.csv:2: malformed CSV");
    read_bad(HDR "t,a,\"checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n",
             "tb.csv:2: malformed CSV");
    /* a NUL byte inside a field */
    char nul[sizeof HDR + 80];
    int n = snprintf(nul, sizeof nul, "%st,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n",
                     HDR);
    nul[sizeof HDR - 1 + 2] = '\0'; /* inside the tag field */
    snprintf(path, sizeof path, "%s/nul.csv", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(nul, 1, (size_t)n, f);
    fclose(f);
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench *tb;
    assert_int_equal(val_tigerbench_read(path, &tb, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "nul.csv:2: NUL byte"));
    /* a field longer than the record bound (bounded memory) */
    size_t big = VAL_TIGERBENCH_MAX_RECORD + 100;
    char *text = malloc(sizeof HDR + big + 100);
    assert_non_null(text);
    strcpy(text, HDR "t,");
    size_t l = strlen(text);
    memset(text + l, 'a', big);
    strcpy(text + l + big, ",checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n");
    read_bad(text, "tb.csv:2: field longer than");
    free(text);
    /* too many fields */
    char many[2048];
    strcpy(many, HDR);
    for (int i = 0; i < VAL_TIGERBENCH_MAX_FIELDS + 2; i++)
        strcat(many, "1,");
    strcat(many, "1\n");
    read_bad(many, "tb.csv:2: more than 64 fields");
}

/* ISO 8601 timestamps give each group's earliest and latest time; other
 * text gives none. */
static void test_timestamps(void **state)
{
    (void)state;
    val_tigerbench *tb = read_ok(
        HDR "2025-09-20T11:27:45.5+00:00,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
            "2025-09-20 13:28:22+02:00,a,checkout,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n"
            "2025-09-20T11:29:02Z,a,kind:accounting.hold,pg,pg,1,10,512,,1.0,2000,0,0,0.001,0.004\n"
            "1970-01-01T00:01,a,kind:accounting.hold,pg,pg,5,10,512,,1.0,2000,0,0,0.001,0.004\n"
            "later,a,reserve,pg,pg,1,10,512,direct,1.0,1000,1000,0,10,100\n");
    const val_tigerbench_arch *a = val_tigerbench_find(tb, "pg_pg");
    const val_tigerbench_phase *p = val_tigerbench_phase_get(a, "checkout", 1);
    assert_int_equal(p->timed, 2);
    /* 2025-09-20T11:27:45.5Z: 20351 days after 1970-01-01 */
    assert_close(p->t_first, 20351 * 86400.0 + 11 * 3600 + 27 * 60 + 45.5, 1e-6);
    assert_close(p->t_last - p->t_first, 36.5, 1e-6);
    assert_int_equal(p->line, 2);
    assert_int_equal(p->last_line, 3);
    const val_tigerbench_kind *k = val_tigerbench_kind_get(a, "accounting.hold", 1);
    assert_close(k->t_first - p->t_first, 76.5, 1e-6);
    assert_close(val_tigerbench_kind_get(a, "accounting.hold", 5)->t_first, 60, 1e-9);
    p = val_tigerbench_phase_get(a, "reserve", 1);
    assert_int_equal(p->timed, 0);
    assert_true(isnan(p->t_first));
    val_tigerbench_free(tb);
}

static void test_missing_file(void **state)
{
    (void)state;
    sim_err err;
    sim_err_clear(&err);
    val_tigerbench *tb;
    assert_int_equal(val_tigerbench_read("/nonexistent/x.csv", &tb, &err), SIM_EINPUT);
    assert_null(tb);
    assert_non_null(strstr(err.msg, "/nonexistent/x.csv: cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summaries),      cmocka_unit_test(test_arch_get),
        cmocka_unit_test(test_shape_variants), cmocka_unit_test(test_phase_kinds),
        cmocka_unit_test(test_header_errors),  cmocka_unit_test(test_row_errors),
        cmocka_unit_test(test_malformed),      cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_timestamps),     cmocka_unit_test(test_arch_named),
        cmocka_unit_test(test_loadgen_settings),
    };
    return cmocka_run_group_tests_name("val_tigerbench", tests, setup, teardown);
}
