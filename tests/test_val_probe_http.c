/* Tests for validate/val_probe_http: the row checker, the CSV reader, the
 * option lists, the summary, the embedded scripts, and the run itself
 * driven by stand-in interpreters (shell scripts that print what
 * tfhttp_load.py would, or fail the way it can). */
#include "tests/test_util.h"

#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "validate/val_probe_http.h"


static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* Rows as tfhttp_load.py prints them (measured on this machine). */
#define ROW_R1 "0,1,reserve,20,20,0,0.211420,94.5985,0.058452,0.010883,20,0.0000171,1,2.1000,0.952,0.952"
#define ROW_C1 "0,1,commit,20,20,0,0.186867,107.0279,0.057172,0.010315,20,0.0001011,1,2.1000,0.952,0.952"
#define ROW_R2 "0,2,reserve,20,20,0,0.278309,71.8625,0.113377,0.023928,20,0.0000517,2,2.1000,1.905,1.119"
#define ROW_C2 "0,2,commit,20,20,0,0.113317,176.4960,0.087396,0.018440,20,0.0002205,2,2.1000,1.905,1.595"
/* The same as an older probe printed them (no pool columns). */
#define ROW_R1_V1 "0,1,reserve,20,20,0,0.211420,94.5985,0.058452,0.010883,20,0.0000171,1"
#define ROW_C2_V1 "0,2,commit,20,20,0,0.113317,176.4960,0.087396,0.018440,20,0.0002205,2"
#define VERSIONS_JSON                                                                          \
    "{\"pid\": 7132, \"uvicorn\": \"0.17.6\", \"http\": \"H11Protocol\", \"loop\": "          \
    "\"_UnixSelectorEventLoop\", \"app\": \"starlette\", \"python\": \"3.11.2\", \"httpx\": " \
    "\"0.23.3\", \"httpcore\": \"0.16.3\"}"
#define VERSIONS_TEXT                                                                          \
    "httpx 0.23.3, httpcore 0.16.3, uvicorn 0.17.6 (H11Protocol, _UnixSelectorEventLoop), "  \
    "python 3.11.2, app starlette"

/* ---- the row checker ---- */

static void test_row_good(void **state)
{
    (void)state;
    val_http_row r;
    int col;
    char why[300];
    assert_int_equal(val_http_row_parse(ROW_C2, &r, &col, why, sizeof why), 0);
    assert_true(r.latency_ms == 0);
    assert_int_equal(r.concurrency, 2);
    assert_int_equal(r.phase, VAL_HTTP_COMMIT);
    assert_int_equal(r.total, 20);
    assert_int_equal(r.ok, 20);
    assert_int_equal(r.errors, 0);
    assert_true(r.walltime == 0.113317);
    assert_true(r.throughput == 176.4960);
    assert_true(r.client_cpu == 0.087396);
    assert_true(r.server_cpu == 0.018440);
    assert_int_equal(r.server_requests, 20);
    assert_true(r.server_await == 0.0002205);
    assert_int_equal(r.server_conns, 2);
    assert_int_equal(r.ncols, VAL_HTTP_NCOLS);
    assert_true(r.pool_passes == 2.1 && r.pool_conns == 1.905 && r.pool_idle == 1.595);
    /* an older probe's row: the pool not measured */
    assert_int_equal(val_http_row_parse(ROW_C2_V1, &r, &col, why, sizeof why), 0);
    assert_int_equal(r.ncols, VAL_HTTP_NCOLS_V1);
    assert_true(r.throughput == 176.4960 && r.server_conns == 2);
    assert_true(isnan(r.pool_passes) && isnan(r.pool_conns) && isnan(r.pool_idle));
    /* an httpcore without the hook: nan */
    assert_int_equal(val_http_row_parse(ROW_R1_V1 ",nan,NaN,nan", &r, &col, why, sizeof why), 0);
    assert_int_equal(r.ncols, VAL_HTTP_NCOLS);
    assert_true(isnan(r.pool_passes) && isnan(r.pool_conns) && isnan(r.pool_idle));

    /* quoted fields, spaces, a fractional latency, errors */
    assert_int_equal(val_http_row_parse("0.5, 10,\"webhook\",100,90,10,1.0,90.0,0.5,0.2,100,0.0005,10",
                                        &r, &col, why, sizeof why),
                     0);
    assert_true(r.latency_ms == 0.5);
    assert_int_equal(r.phase, VAL_HTTP_WEBHOOK);
    assert_int_equal(r.errors, 10);
    /* no server request: server_await is nan (as Python prints it) */
    assert_int_equal(val_http_row_parse("2,5,checkout,10,0,10,0.5,0.0000,0.1,0.0,0,nan,0", &r, &col,
                                        why, sizeof why),
                     0);
    assert_true(isnan(r.server_await));
    assert_int_equal(r.server_requests, 0);
}

static void test_row_bad(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        int col;          /* column at fault, -1: the line */
        const char *msg;  /* part of the reason */
    } cases[] = {
        {"-1,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1", 0, "'-1' is not a latency"},
        {"x,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1", 0, "'x'"},
        {"0,0,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1", 1, "'0' is not an integer"},
        {"0,1.5,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1", 1, "'1.5'"},
        {"0,1,refund,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1", 2, "'refund' is not a phase"},
        {"0,1,reserve,0,0,0,0.2,0.0,0.05,0.01,20,0.00002,1", 3, "'0' is not an integer"},
        {"0,1,reserve,-20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1", 3, "'-20'"},
        {"0,1,reserve,20,21,0,0.2,105.0,0.05,0.01,20,0.00002,1", 4, "[0, total]"},
        {"0,1,reserve,20,20,1,0.2,100.0,0.05,0.01,20,0.00002,1", 5, "[0, total - ok]"},
        {"0,1,reserve,20,20,0,0,100.0,0.05,0.01,20,0.00002,1", 6, "(> 0)"},
        {"0,1,reserve,20,20,0,0.2,-1,0.05,0.01,20,0.00002,1", 7, "'-1' is not a throughput"},
        {"0,1,reserve,20,20,0,0.2,101.0,0.05,0.01,20,0.00002,1", 7, "is not ok / walltime (100.0000)"},
        {"0,1,reserve,20,20,0,0.2,100.0,-0.05,0.01,20,0.00002,1", 8, "CPU seconds"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,inf,20,0.00002,1", 9, "CPU seconds"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,2e1,0.00002,1", 10, "'2e1'"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,nan,1", 11, "'nan' is not a time"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,0,0.00002,1", 11, "expected nan"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,-1", 12, "'-1'"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002", -1, "expected 16 columns"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1,9", -1, "found 14"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1,2,1,1,7", -1, "found 17"},
        {"0,1,\"reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1", -1, "malformed CSV"},
        {"", -1, "expected 16 columns"},
        /* the pool columns */
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1,-2,1,1", 13, "'-2' is not passes"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1,inf,1,1", 13, "'inf'"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1,2,x,1", 14, "'x' is not a number of connections"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1,2,1,1.5", 15, "0 to pool_conns"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1,2,1,-1", 15, "'-1'"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1,2,1,nan", 15, "nan with it"},
        {"0,1,reserve,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1,2,nan,0", 15, "nan with it"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        val_http_row r;
        int col = 99;
        char why[300] = "";
        if (val_http_row_parse(cases[i].line, &r, &col, why, sizeof why) != -1)
            fail_msg("case %zu accepted: %s", i, cases[i].line);
        if (col != cases[i].col)
            fail_msg("case %zu: column %d, expected %d (%s)", i, col, cases[i].col, why);
        if (!strstr(why, cases[i].msg))
            fail_msg("case %zu: '%s' lacks '%s'", i, why, cases[i].msg);
    }
    /* a line longer than the limit */
    char *big = malloc(VAL_HTTP_MAX_LINE + 10);
    assert_non_null(big);
    memset(big, '1', VAL_HTTP_MAX_LINE + 5);
    big[VAL_HTTP_MAX_LINE + 5] = '\0';
    val_http_row r;
    int col;
    char why[300];
    assert_int_equal(val_http_row_parse(big, &r, &col, why, sizeof why), -1);
    assert_non_null(strstr(why, "longer than"));
    free(big);
}

/* ---- the reader ---- */

static void test_read_good(void **state)
{
    (void)state;
    const char *p = test_dir_path("good.csv");
    test_write_file(p, "# tfsim probe http: python /usr/bin/python3, total 20\n"
                       "# " VERSIONS_TEXT "\n" VAL_HTTP_HEADER "\n" ROW_R1 "\n" ROW_C1 "\r\n"
                       "# a comment between rows\n"
                       "\n" ROW_R2 "\n" ROW_C2);  /* no newline at the end */
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    sim_err err = {0};
    assert_int_equal(val_probe_http_read(p, &res, &err), SIM_OK);
    assert_int_equal(res.n, 4);
    assert_string_equal(res.versions, VERSIONS_TEXT);
    assert_int_equal(res.rows[0].phase, VAL_HTTP_RESERVE);
    assert_int_equal(res.rows[1].phase, VAL_HTTP_COMMIT);
    assert_int_equal(res.rows[3].concurrency, 2);
    assert_true(res.rows[3].throughput == 176.4960);
    assert_true(res.rows[3].pool_conns == 1.905);
    assert_true(res.server_spin == 0); /* no --server-cpu-ms line */
    val_probe_http_result_fini(&res);

    /* a stand-in that spun before its await: the spin from its preamble */
    p = test_dir_path("spin.csv");
    test_write_file(p, "# tfsim probe http: python /usr/bin/python3, total 20\n"
                       "# server CPU 2.5 ms per request, spun in series before the backend await\n"
                       "# " VERSIONS_TEXT "\n" VAL_HTTP_HEADER "\n" ROW_R1 "\n");
    val_probe_http_result_init(&res);
    assert_int_equal(val_probe_http_read(p, &res, &err), SIM_OK);
    assert_int_equal(res.n, 1);
    assert_true(fabs(res.server_spin - 2.5e-3) < 1e-15);
    val_probe_http_result_fini(&res);

    /* an older probe's file: read, the pool not measured */
    p = test_dir_path("v1.csv");
    test_write_file(p, "# " VERSIONS_TEXT "\n" VAL_HTTP_HEADER_V1 "\n" ROW_R1_V1 "\n" ROW_C2_V1 "\n");
    val_probe_http_result_init(&res);
    assert_int_equal(val_probe_http_read(p, &res, &err), SIM_OK);
    assert_int_equal(res.n, 2);
    assert_true(res.rows[1].throughput == 176.4960);
    assert_true(isnan(res.rows[0].pool_idle) && isnan(res.rows[1].pool_passes));
    val_probe_http_result_fini(&res);

    /* header only: no rows, no versions */
    p = test_dir_path("empty.csv");
    test_write_file(p, VAL_HTTP_HEADER "\n");
    val_probe_http_result_init(&res);
    assert_int_equal(val_probe_http_read(p, &res, &err), SIM_OK);
    assert_int_equal(res.n, 0);
    assert_string_equal(res.versions, "");
    val_probe_http_result_fini(&res);
}

static void expect_read_error(const char *name, const char *text, size_t len, const char *msg,
                              size_t rows_kept)
{
    const char *p = test_dir_path(name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    sim_err err = {0};
    assert_int_equal(val_probe_http_read(p, &res, &err), SIM_EINPUT);
    char want[600];
    snprintf(want, sizeof want, "%s%s", p, msg);
    if (strncmp(err.msg, want, strlen(want)) != 0)
        fail_msg("%s: '%s' does not start with '%s'", name, err.msg, want);
    assert_int_equal(res.n, rows_kept);
    val_probe_http_result_fini(&res);
}

#define BAD(name, text, msg, kept) expect_read_error(name, text, sizeof text - 1, msg, kept)

static void test_read_bad(void **state)
{
    (void)state;
    BAD("none.csv", "", ":1: no header line", 0);
    BAD("comments.csv", "# only\n# comments\n", ":2: no header line", 0);
    BAD("header.csv", "# x\nlatency,concurrency\n" ROW_R1 "\n", ":2: expected the header line", 0);
    BAD("samples.csv", "operation,concurrency,latency_us,timestamp\n", ":1: expected the header", 0);
    BAD("phase.csv", VAL_HTTP_HEADER "\n" ROW_R1 "\n# c\n0,1,refund,20,20,0,0.2,100.0,0.05,0.01,20,0.00002,1\n",
        ":4: phase: 'refund' is not a phase", 1);
    BAD("count.csv", VAL_HTTP_HEADER "\n" ROW_R1 "\n" ROW_C1 "\n0,1,reserve,20,20,0,0.2\n",
        ":4: expected 16 columns", 2);
    /* rows of the other format than the header's */
    BAD("mixed.csv", VAL_HTTP_HEADER "\n" ROW_R1 "\n" ROW_C2_V1 "\n",
        ":3: 13 columns where the header has 16", 1);
    BAD("mixed1.csv", VAL_HTTP_HEADER_V1 "\n" ROW_R1_V1 "\n" ROW_C2 "\n",
        ":3: 16 columns where the header has 13", 1);
    BAD("ok.csv", "# v\n" VAL_HTTP_HEADER "\n0,1,reserve,20,25,0,0.2,125.0,0.05,0.01,20,0.00002,1\n",
        ":3: ok: '25' is not an integer in [0, total]", 0);
    BAD("tput.csv", VAL_HTTP_HEADER "\n0,1,reserve,20,20,0,0.2,99.9,0.05,0.01,20,0.00002,1\n",
        ":2: throughput: '99.9' is not ok / walltime", 0);
    BAD("nul.csv", VAL_HTTP_HEADER "\n" ROW_R1 "\n0,1,reserve,20,20\0,0,0.2\n", ":3: NUL byte", 1);
    BAD("quote.csv", VAL_HTTP_HEADER "\n\"0,1,reserve\n", ":2: malformed CSV", 0);

    /* a line longer than the limit */
    size_t n = strlen(VAL_HTTP_HEADER) + 1 + VAL_HTTP_MAX_LINE + 10;
    char *big = malloc(n + 1);
    assert_non_null(big);
    snprintf(big, n + 1, "%s\n", VAL_HTTP_HEADER);
    size_t h = strlen(big);
    memset(big + h, '9', n - h - 1);
    big[n - 1] = '\n';
    big[n] = '\0';
    expect_read_error("long.csv", big, n, ":2: line longer than 4096 bytes", 0);
    free(big);

    val_probe_http_result res;
    val_probe_http_result_init(&res);
    sim_err err = {0};
    assert_int_equal(val_probe_http_read(test_dir_path("missing.csv"), &res, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "cannot open"));
    val_probe_http_result_fini(&res);
}

/* ---- option lists ---- */

static void test_parse_lists(void **state)
{
    (void)state;
    val_probe_http_opts o;
    val_probe_http_opts_init(&o);
    assert_int_equal(o.nlatency, 4);
    assert_int_equal(o.nconcurrency, 12);
    assert_int_equal(o.concurrency[11], 100);
    assert_int_equal(o.total, 1000);
    char why[300];
    assert_int_equal(val_probe_http_parse_latencies("0,0.5,2.25,0.1234567", &o, why, sizeof why), 0);
    assert_int_equal(o.nlatency, 4);
    assert_true(o.latency_ms[2] == 2.25);
    assert_true(o.latency_ms[3] == 0.123457); /* as tfhttp_load.py prints it back (%g) */
    assert_int_equal(val_probe_http_parse_latencies("1,-2", &o, why, sizeof why), -1);
    assert_non_null(strstr(why, "'-2'"));
    assert_int_equal(o.nlatency, 4); /* unchanged after an error */
    assert_int_equal(val_probe_http_parse_latencies("1,,2", &o, why, sizeof why), -1);
    assert_int_equal(val_probe_http_parse_latencies("", &o, why, sizeof why), -1);
    assert_int_equal(val_probe_http_parse_latencies("60001", &o, why, sizeof why), -1);

    assert_int_equal(val_probe_http_parse_levels("1,2,100000", &o, why, sizeof why), 0);
    assert_int_equal(o.nconcurrency, 3);
    assert_int_equal(val_probe_http_parse_levels("0", &o, why, sizeof why), -1);
    assert_int_equal(val_probe_http_parse_levels("100001", &o, why, sizeof why), -1);
    assert_int_equal(val_probe_http_parse_levels("2,x", &o, why, sizeof why), -1);
    assert_non_null(strstr(why, "'x'"));
    char many[400] = "1";
    for (int i = 0; i < VAL_HTTP_MAX_LIST; i++)
        strcat(many, ",1");
    assert_int_equal(val_probe_http_parse_levels(many, &o, why, sizeof why), -1);
    assert_non_null(strstr(why, "at most 64"));

    assert_int_equal(val_probe_http_parse_phases("commit,reserve", &o, why, sizeof why), 0);
    assert_int_equal(o.phase_on[VAL_HTTP_CHECKOUT] + o.phase_on[VAL_HTTP_WEBHOOK], 0);
    assert_int_equal(o.phase_on[VAL_HTTP_RESERVE] + o.phase_on[VAL_HTTP_COMMIT], 2);
    assert_int_equal(val_probe_http_parse_phases("reserve,reserve", &o, why, sizeof why), -1);
    assert_non_null(strstr(why, "twice"));
    assert_int_equal(val_probe_http_parse_phases("refund", &o, why, sizeof why), -1);
    assert_non_null(strstr(why, "unknown phase 'refund'"));

    assert_int_equal(val_probe_http_parse_app("asgi", &o, why, sizeof why), 0);
    assert_int_equal(o.app, VAL_HTTP_APP_ASGI);
    assert_int_equal(val_probe_http_parse_app("django", &o, why, sizeof why), -1);
}

/* ---- the summary ---- */

static void test_table(void **state)
{
    (void)state;
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    const char *p = test_dir_path("reps.csv");
    /* two runs of (0, 1, reserve) and one of (0, 1, commit) */
    test_write_file(p, VAL_HTTP_HEADER_V1 "\n"
                       "0,1,reserve,20,20,0,0.2,100.0000,0.04,0.01,20,0.00002,1\n"
                       "0,1,commit,20,18,2,0.2,90.0000,0.05,0.02,20,0.00002,3\n"
                       "0,1,reserve,20,20,0,0.1,200.0000,0.02,0.03,20,0.00002,2\n");
    sim_err err = {0};
    assert_int_equal(val_probe_http_read(p, &res, &err), SIM_OK);
    sim_table *t = val_probe_http_table(&res);
    assert_int_equal(sim_table_nrows(t), 2);
    double v;
    const char *s;
    assert_int_equal(sim_table_cell(t, 0, sim_table_find_col(t, "phase"), &v, &s), 2);
    assert_string_equal(s, "reserve");
    sim_table_cell(t, 0, sim_table_find_col(t, "runs"), &v, &s);
    assert_true(v == 2);
    sim_table_cell(t, 0, sim_table_find_col(t, "throughput"), &v, &s);
    assert_close(v, 150.0, 1e-9);
    sim_table_cell(t, 0, sim_table_find_col(t, "client_cpu_ms"), &v, &s);
    assert_close(v, 1e3 * 0.06 / 40, 1e-9);
    sim_table_cell(t, 0, sim_table_find_col(t, "server_cpu_ms"), &v, &s);
    assert_close(v, 1e3 * 0.04 / 40, 1e-9);
    sim_table_cell(t, 0, sim_table_find_col(t, "conns"), &v, &s);
    assert_close(v, 1.5, 1e-12);
    sim_table_cell(t, 1, sim_table_find_col(t, "errors"), &v, &s);
    assert_true(v == 2);
    sim_table_cell(t, 1, sim_table_find_col(t, "requests"), &v, &s);
    assert_true(v == 20);
    /* an older file: the pool was not measured */
    sim_table_cell(t, 0, sim_table_find_col(t, "pool_idle"), &v, &s);
    assert_true(isnan(v));
    sim_table_free(t);
    val_probe_http_result_fini(&res);

    /* with the pool columns: its idle connections, the mean over the runs */
    p = test_dir_path("reps2.csv");
    test_write_file(p, VAL_HTTP_HEADER "\n"
                       "0,2,reserve,20,20,0,0.2,100.0000,0.04,0.01,20,0.00002,2,2.1,1.9,1.0\n"
                       "0,2,reserve,20,20,0,0.1,200.0000,0.02,0.03,20,0.00002,2,2.0,2.0,1.5\n");
    val_probe_http_result_init(&res);
    assert_int_equal(val_probe_http_read(p, &res, &err), SIM_OK);
    t = val_probe_http_table(&res);
    assert_int_equal(sim_table_nrows(t), 1);
    sim_table_cell(t, 0, sim_table_find_col(t, "pool_idle"), &v, &s);
    assert_close(v, 1.25, 1e-12);
    sim_table_free(t);
    val_probe_http_result_fini(&res);
}

/* ---- the embedded scripts ---- */

static void test_embedded_scripts(void **state)
{
    (void)state;
    size_t n;
    char *a = slurp("validate/http/tfhttp_load.py", &n);
    assert_int_equal(n, val_probe_http_load_py_len);
    assert_memory_equal(a, val_probe_http_load_py, n);
    free(a);
    a = slurp("validate/http/tfhttp_server.py", &n);
    assert_int_equal(n, val_probe_http_server_py_len);
    assert_memory_equal(a, val_probe_http_server_py, n);
    free(a);
}

/* ---- runs with stand-in interpreters ---- */

/* An executable shell script `name` in the test folder: body after a
 * check that tfhttp_load.py was written where argv[1] says. */
static const char *fake_python(const char *name, const char *body)
{
    const char *p = test_dir_path(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n"
               "[ -s \"$1\" ] && grep -q 'TigerBench load pattern' \"$1\" || "
               "{ echo \"no script at $1\" >&2; exit 9; }\n"
               "[ -s \"$(dirname \"$1\")/tfhttp_server.py\" ] || { echo 'no server script' >&2; exit 9; }\n"
               "%s\n",
            body);
    fclose(f);
    assert_int_equal(chmod(p, 0755), 0);
    return p;
}

typedef struct diag_log {
    char text[4096];
    unsigned rows;
} diag_log;

static void on_diag(void *ctx, const char *line)
{
    diag_log *d = ctx;
    size_t l = strlen(d->text);
    snprintf(d->text + l, sizeof d->text - l, "%s|", line);
}

static void on_progress(void *ctx, const val_http_row *r)
{
    (void)r;
    ((diag_log *)ctx)->rows++;
}

static void opts_for(val_probe_http_opts *o, const char *python, const char *out, diag_log *d)
{
    val_probe_http_opts_init(o);
    char why[100];
    assert_int_equal(val_probe_http_parse_latencies("0", o, why, sizeof why), 0);
    assert_int_equal(val_probe_http_parse_levels("1,2", o, why, sizeof why), 0);
    assert_int_equal(val_probe_http_parse_phases("reserve,commit", o, why, sizeof why), 0);
    o->total = 20;
    o->python = python;
    o->out = out;
    o->diag = on_diag;
    o->diag_ctx = d;
    o->progress = on_progress;
    o->progress_ctx = d;
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

#define PRINT_HEADER "echo '" VAL_HTTP_HEADER "'"

static void test_run_complete(void **state)
{
    (void)state;
    const char *py = fake_python(
        "py_ok", "echo \"args: $*\" | sed \"s|$1|LOAD|\" >&2\n"
                 "echo '" VERSIONS_JSON "' >&2\n" PRINT_HEADER "\n"
                 "echo '" ROW_R1 "'; echo '" ROW_C1 "'; echo '" ROW_R2 "'\n"
                 "echo 'some warning' >&2\n"
                 "echo '" ROW_C2 "'\nexit 0");
    const char *out = test_dir_path("ok.csv");
    test_write_file(out, "old\n");
    val_probe_http_opts o;
    diag_log d = {{0}, 0};
    opts_for(&o, py, out, &d);
    o.pythonpath = "/some/where";
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    sim_err err = {0};
    int rc = val_probe_http_run(&o, &res, &err);
    if (rc != SIM_OK)
        fail_msg("run failed: %s", err.msg);
    assert_int_equal(res.n, 4);
    assert_int_equal(d.rows, 4);
    assert_string_equal(res.versions, VERSIONS_TEXT);
    /* the arguments the script got, and the other stderr lines */
    assert_string_equal(d.text, "args: LOAD --latency-ms 0 --concurrency 1,2 --total 20 --phases "
                                "reserve,commit --app starlette --reps 1 --seed 1 --timeout 10 --header|"
                                "some warning|");
    size_t n;
    char *text = slurp(out, &n);
    const char *want_tail = "# " VERSIONS_TEXT "\n" VAL_HTTP_HEADER "\n" ROW_R1 "\n" ROW_C1 "\n" ROW_R2
                            "\n" ROW_C2 "\n";
    assert_true(strncmp(text, "# tfsim probe http: python ", 27) == 0);
    assert_non_null(strstr(text, "PYTHONPATH /some/where, app starlette, total 20, reps 1, seed 1\n"));
    assert_string_equal(strchr(text, '\n') + 1, want_tail);
    free(text);
    assert_false(file_exists(test_dir_path("ok.csv.part")));
    /* the file reads back */
    val_probe_http_result back;
    val_probe_http_result_init(&back);
    assert_int_equal(val_probe_http_read(out, &back, &err), SIM_OK);
    assert_int_equal(back.n, 4);
    assert_string_equal(back.versions, VERSIONS_TEXT);
    val_probe_http_result_fini(&back);
    val_probe_http_result_fini(&res);
}

/* --server-cpu-ms: the script gets it (only when set), the preamble
 * says it, and a value out of bounds is refused before anything runs. */
static void test_run_server_cpu(void **state)
{
    (void)state;
    const char *py = fake_python(
        "py_cpu", "echo \"args: $*\" | sed \"s|$1|LOAD|\" >&2\n"
                  "echo '" VERSIONS_JSON "' >&2\n" PRINT_HEADER "\n"
                  "echo '" ROW_R1 "'; echo '" ROW_C1 "'; echo '" ROW_R2 "'; echo '" ROW_C2 "'\n"
                  "exit 0");
    const char *out = test_dir_path("cpu.csv");
    val_probe_http_opts o;
    diag_log d = {{0}, 0};
    opts_for(&o, py, out, &d);
    o.server_cpu = 2.5e-3;
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    sim_err err = {0};
    if (val_probe_http_run(&o, &res, &err) != SIM_OK)
        fail_msg("run failed: %s", err.msg);
    assert_string_equal(d.text, "args: LOAD --latency-ms 0 --concurrency 1,2 --total 20 --phases "
                                "reserve,commit --app starlette --reps 1 --seed 1 --timeout 10 --header "
                                "--server-cpu-ms 2.5|");
    size_t n;
    char *text = slurp(out, &n);
    assert_non_null(strstr(text, "\n# server CPU 2.5 ms per request, spun in series before the "
                                 "backend await\n"));
    free(text);
    val_probe_http_result_fini(&res);
    /* out of bounds: refused, nothing written */
    const char *out2 = test_dir_path("cpu_bad.csv");
    opts_for(&o, py, out2, &d);
    o.server_cpu = 2;
    val_probe_http_result_init(&res);
    assert_int_equal(val_probe_http_run(&o, &res, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--server-cpu-ms"));
    assert_false(file_exists(out2));
    val_probe_http_result_fini(&res);
}

/* Run o with python body; expect failure with msg in the message and
 * rows rows kept. */
static void run_fails(const char *name, const char *body, const char *msg, size_t rows)
{
    char pyname[64], outname[64];
    snprintf(pyname, sizeof pyname, "py_%s", name);
    snprintf(outname, sizeof outname, "%s.csv", name);
    const char *py = fake_python(pyname, body);
    const char *out = test_dir_path(outname);
    test_write_file(out, "precious\n");
    val_probe_http_opts o;
    diag_log d = {{0}, 0};
    opts_for(&o, py, out, &d);
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    sim_err err = {0};
    assert_int_equal(val_probe_http_run(&o, &res, &err), SIM_EFAIL);
    if (!strstr(err.msg, msg))
        fail_msg("%s: '%s' lacks '%s'", name, err.msg, msg);
    assert_int_equal(res.n, rows);
    char part[300];
    snprintf(part, sizeof part, "%s.part", out);
    assert_false(file_exists(part));
    size_t n;
    char *text = slurp(out, &n);
    if (rows == 0) {
        assert_string_equal(text, "precious\n");
        assert_non_null(strstr(err.msg, "nothing was measured"));
    } else {
        val_probe_http_result back;
        val_probe_http_result_init(&back);
        sim_err e2 = {0};
        assert_int_equal(val_probe_http_read(out, &back, &e2), SIM_OK);
        assert_int_equal(back.n, rows);
        val_probe_http_result_fini(&back);
        char kept[100];
        snprintf(kept, sizeof kept, "the %zu row%s measured before it", rows, rows == 1 ? "" : "s");
        assert_non_null(strstr(err.msg, kept));
    }
    free(text);
    val_probe_http_result_fini(&res);
}

static void test_run_failures(void **state)
{
    (void)state;
    run_fails("module", "echo \"tfhttp_load: python3 module 'httpx' is missing "
                        "(Debian: apt-get install python3-httpx)\" >&2; exit 3",
              "apt-get install python3-httpx", 0);
    run_fails("server", "echo '" VERSIONS_JSON "' >&2\n" PRINT_HEADER "\necho '" ROW_R1 "'\n"
                        "echo 'tfhttp_load: server exited with status 1' >&2; exit 1",
              "tfhttp_load.py (", 1);
    run_fails("badrow", "echo '" VERSIONS_JSON "' >&2\n" PRINT_HEADER "\necho '" ROW_R1 "'\n"
                        "echo '0,1,commit,20,20,0,0.186867,107.0279,-1,0.010315,20,0.0001011,1'\n"
                        "sleep 30",
              "printed a bad row 2 ('0,1,commit", 1);
    run_fails("v1row", "echo '" VERSIONS_JSON "' >&2\n" PRINT_HEADER "\necho '" ROW_R1 "'\n"
                       "echo '0,1,commit,20,20,0,0.186867,107.0279,0.057172,0.010315,20,0.0001011,1'\n"
                       "sleep 30",
              "printed row 2 with 13 columns, not 16", 1);
    run_fails("order", PRINT_HEADER "\necho '" ROW_C1 "'\nexit 0",
              "printed row 1 for latency 0 ms, concurrency 1, commit, total 20; expected latency "
              "0 ms, concurrency 1, reserve",
              0);
    run_fails("short", "echo '" VERSIONS_JSON "' >&2\n" PRINT_HEADER "\necho '" ROW_R1 "'\n"
                       "echo '" ROW_C1 "'\nexit 0",
              "ended after 2 of the 4 rows expected", 2);
    run_fails("noheader", "echo 'hello'\nexit 0", "printed 'hello' where the CSV header", 0);
    run_fails("signal", PRINT_HEADER "\nkill -KILL $$", "killed by signal 9", 0);
    run_fails("missing", "exit 0", "printed no CSV header", 0);
}

static void test_run_no_interpreter(void **state)
{
    (void)state;
    const char *out = test_dir_path("nopy.csv");
    test_write_file(out, "precious\n");
    val_probe_http_opts o;
    diag_log d = {{0}, 0};
    opts_for(&o, "/nonexistent/python3", out, &d);
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    sim_err err = {0};
    assert_int_equal(val_probe_http_run(&o, &res, &err), SIM_EFAIL);
    assert_non_null(strstr(err.msg, "cannot start the Python interpreter '/nonexistent/python3': "
                                    "not found (Debian: apt-get install python3"));
    size_t n;
    char *text = slurp(out, &n);
    assert_string_equal(text, "precious\n");
    free(text);

    /* an output folder that does not exist: fails before anything runs */
    sim_err_clear(&err);
    o.python = "/nonexistent/python3";
    o.out = test_dir_path("no/such/dir.csv");
    assert_int_equal(val_probe_http_run(&o, &res, &err), SIM_EFAIL);
    assert_non_null(strstr(err.msg, "dir.csv.part: cannot create"));

    /* no output file at all: bad input */
    sim_err_clear(&err);
    o.out = NULL;
    assert_int_equal(val_probe_http_run(&o, &res, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "--out"));

    /* a timeout of nothing (or NaN): bad input, named */
    o.out = out;
    const double bad_timeouts[] = {0, -1, NAN, 1e9};
    for (size_t i = 0; i < sizeof bad_timeouts / sizeof bad_timeouts[0]; i++) {
        sim_err_clear(&err);
        o.timeout = bad_timeouts[i];
        assert_int_equal(val_probe_http_run(&o, &res, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "--timeout"));
    }
    val_probe_http_result_fini(&res);
}

static void stop_after_row(void *ctx, const val_http_row *r)
{
    (void)r;
    *(volatile sig_atomic_t *)ctx = 1;
}

static void test_run_stop(void **state)
{
    (void)state;
    /* the stop flag ends a child that would run for a minute, and its
     * process group (the sleep) with it */
    const char *py = fake_python("py_stop", "echo '" VERSIONS_JSON "' >&2\n" PRINT_HEADER "\n"
                                            "echo '" ROW_R1 "'\nsleep 60; exit 0");
    const char *out = test_dir_path("stop.csv");
    val_probe_http_opts o;
    diag_log d = {{0}, 0};
    opts_for(&o, py, out, &d);
    static volatile sig_atomic_t stop;
    o.stop = &stop;
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    sim_err err = {0};

    /* set before the start: interrupted before any row, nothing written */
    stop = 1;
    assert_int_equal(val_probe_http_run(&o, &res, &err), SIM_EFAIL);
    assert_non_null(strstr(err.msg, "interrupted; nothing was measured"));
    assert_false(file_exists(out));

    /* set after the first row (as SIGINT would): the row is kept */
    stop = 0;
    o.progress = stop_after_row;
    o.progress_ctx = (void *)&stop;
    sim_err_clear(&err);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(val_probe_http_run(&o, &res, &err), SIM_EFAIL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_non_null(strstr(err.msg, "interrupted; the 1 row measured before it is in"));
    assert_int_equal(res.n, 1);
    /* not a timing test: the sleep of 60 s must not have been waited for */
    assert_true(t1.tv_sec - t0.tv_sec < 50);
    val_probe_http_result back;
    val_probe_http_result_init(&back);
    sim_err_clear(&err);
    assert_int_equal(val_probe_http_read(out, &back, &err), SIM_OK);
    assert_int_equal(back.n, 1);
    val_probe_http_result_fini(&back);
    val_probe_http_result_fini(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_good),
        cmocka_unit_test(test_row_bad),
        cmocka_unit_test(test_read_good),
        cmocka_unit_test(test_read_bad),
        cmocka_unit_test(test_parse_lists),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_embedded_scripts),
        cmocka_unit_test(test_run_complete),
        cmocka_unit_test(test_run_server_cpu),
        cmocka_unit_test(test_run_failures),
        cmocka_unit_test(test_run_no_interpreter),
        cmocka_unit_test(test_run_stop),
    };
    return cmocka_run_group_tests_name("val_probe_http", tests, test_dir_setup, NULL);
}
