/* Tests for reports/rep_report: the page from a filled store has one SVG
 * per expected chart, is self-contained and well-formed enough, escapes
 * stored text, is deterministic; gnuplot missing or failing is an error. */
#include "tests/test_util.h"

#include <dirent.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "reports/rep_report.h"
#include "tests/rep_fixture.h"

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* One chart of the gnuplot script: its title and the numbers of its data
 * blocks (rows of columns; a column that is not a number is NaN). */
typedef struct gp_chart {
    char title[160];
    double v[4096][8];
    int nrows;
} gp_chart;

/* Split a gnuplot script into its charts (at most max). */
static int parse_script(const char *gp, gp_chart *c, int max)
{
    int n = -1, in_block = 0;
    const char *p = gp;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(len < 1023 ? len : 1023), p);
        p += len + (e ? 1 : 0);
        int k;
        if (sscanf(line, "# chart %d:", &k) == 1) {
            assert_true(k == n + 1 && k < max);
            n = k;
            memset(&c[n], 0, sizeof c[n]);
            snprintf(c[n].title, sizeof c[n].title, "%s", strchr(line, ':') + 2);
            continue;
        }
        if (n < 0)
            continue;
        if (strstr(line, "<< EOD")) {
            in_block = 1;
            continue;
        }
        if (!strcmp(line, "EOD")) {
            in_block = 0;
            continue;
        }
        if (!in_block || c[n].nrows >= 4096)
            continue;
        double *row = c[n].v[c[n].nrows++];
        char *q = line;
        for (int j = 0; j < 8; j++) {
            while (*q == ' ')
                q++;
            char *end;
            row[j] = NAN;
            if (*q == '"') { /* a label */
                char *z = strchr(q + 1, '"');
                q = z ? z + 1 : q + strlen(q);
                continue;
            }
            double x = strtod(q, &end);
            if (end == q) {
                q += strcspn(q, " ");
                continue;
            }
            row[j] = x;
            q = end;
        }
    }
    return n + 1;
}

static const gp_chart *chart_titled(const gp_chart *c, int n, const char *title)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(c[i].title, title))
            return &c[i];
    fail_msg("no chart '%s' in the script", title);
    return NULL;
}

/* Write the report of store s to a new string (caller frees); returns the
 * status of rep_report_write. */
static int report_text(rep_store *s, const rep_report_opts *o, char **text, sim_err *err)
{
    size_t len;
    FILE *f = open_memstream(text, &len);
    assert_non_null(f);
    int rc = rep_report_write(s, o, f, err);
    fclose(f);
    return rc;
}

static rep_store *filled_store(const char *dir)
{
    char p[256];
    snprintf(p, sizeof p, "%s/fixture.db", dir);
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(p, REP_STORE_WRITE, &err);
    assert_non_null(s);
    if (rep_fixture_fill(s, &err))
        fail_msg("fill: %s", err.msg);
    return s;
}

static int dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n == 0;
}

static void test_report_charts(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    char dirbuf[64];
    snprintf(dirbuf, sizeof dirbuf, "%s", dir);
    rep_store *s = filled_store(dirbuf);
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s/tmp", dirbuf);
    assert_int_equal(mkdir(tmp, 0700), 0);
    setenv("TMPDIR", tmp, 1);
    sim_err err;
    sim_err_clear(&err);
    char *page = NULL;
    rep_report_opts o = {.title = "Capacity <plan>", .source = "fixture.db"};
    if (report_text(s, &o, &page, &err))
        fail_msg("report: %s", err.msg);
    unsetenv("TMPDIR");
    assert_true(dir_is_empty(tmp)); /* gnuplot's files are gone */

    /* One SVG per chart, each with drawing in it. */
    assert_int_equal(count(page, "<svg"), REP_FIXTURE_CHARTS);
    assert_int_equal(count(page, "</svg>"), REP_FIXTURE_CHARTS);
    assert_true(count(page, "<path") > 10 * REP_FIXTURE_CHARTS);
    const char *titles[] = {"Throughput vs client.concurrency",
                            "Latency percentiles vs client.concurrency",
                            "Utilisation by component vs client.concurrency",
                            "CPU cores by component vs client.concurrency",
                            "Operation timings vs client.concurrency",
                            "TigerBeetle batch size vs client.concurrency",
                            "Throughput vs architecture", "Latency percentiles vs architecture",
                            "Prediction error vs concurrency", "Throughput by phase",
                            "Utilisation by component<", "CPU cores by component<",
                            "Operation timings<", "Throughput A vs B by phase",
                            "Utilisation A vs B by component", "Plan: throughput vs server.workers",
                            "Throughput vs concurrency", "Measured throughput vs concurrency (tb_redis)",
                            "Measured latency vs concurrency"};
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
        if (count(page, titles[i]) < 2) /* caption and the SVG's title */
            fail_msg("chart '%s' missing", titles[i]);
    /* Category axis labels of sweep 2. */
    assert_true(count(page, ">pg_redis<") >= 1 || count(page, "pg_redis</tspan>") >= 1);

    /* A whole HTML document, tags balanced. */
    assert_int_equal(strncmp(page, "<!DOCTYPE html>\n<html lang=\"en\">", 31), 0);
    size_t n = strlen(page);
    assert_string_equal(page + n - 8, "</html>\n");
    const char *pairs[][2] = {{"<section", "</section>"}, {"<table", "</table>"},
                              {"<figure", "</figure>"},   {"<details", "</details>"},
                              {"<tr>", "</tr>"},          {"<g", "</g>"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        assert_int_equal(count(page, pairs[i][0]), count(page, pairs[i][1]));

    /* Self-contained: nothing fetched, nothing run. */
    const char *banned[] = {"http://", "https://", "<script", " src=", "<link", "@import",
                            "<img", "<iframe"};
    for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
        if (strstr(page, banned[i]))
            fail_msg("page contains '%s'", banned[i]);

    /* Stored text is escaped; passwords never reach the page. */
    assert_non_null(strstr(page, "Capacity &lt;plan&gt;"));
    assert_non_null(strstr(page, "tb_redis.ini &lt;b&gt;&amp;&lt;/b&gt;"));
    assert_null(strstr(page, "<b>&</b>"));
    assert_null(strstr(page, "hunter2"));
    assert_non_null(strstr(page, "password = ***"));

    /* Every id is unique (several gnuplot SVGs share one page). */
    size_t nid = 0;
    char **ids = NULL;
    for (const char *p = page; (p = strstr(p, " id=")) != NULL; p += 4) {
        char q = p[4];
        const char *e = strchr(p + 5, q);
        assert_non_null(e);
        size_t k = (size_t)(e - (p + 5));
        for (size_t i = 0; i < nid; i++)
            if (strlen(ids[i]) == k && !memcmp(ids[i], p + 5, k))
                fail_msg("duplicate id %.*s", (int)k, p + 5);
        ids = realloc(ids, (nid + 1) * sizeof *ids);
        ids[nid] = strndup(p + 5, k);
        nid++;
    }
    assert_true(nid > REP_FIXTURE_CHARTS);
    for (size_t i = 0; i < nid; i++)
        free(ids[i]);
    free(ids);

    /* The same store gives the same bytes. */
    char *again = NULL;
    assert_int_equal(report_text(s, &o, &again, &err), SIM_OK);
    assert_string_equal(page, again);
    free(again);
    free(page);
    rep_store_close(s);
}

/* Every chart has data that varies (a chart flat at one value, such as
 * fractions drawn on a per-cent axis, fails), and each chart keeps one
 * unit: utilisation in per cent of each component's own capacity (0 to
 * 100, the stored fraction x 100), cores no more than the host's capacity,
 * operation timings and latencies in ms. */
static void test_chart_units(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    char dirbuf[64];
    snprintf(dirbuf, sizeof dirbuf, "%s", dir);
    rep_store *s = filled_store(dirbuf);
    sim_err err;
    sim_err_clear(&err);
    char *gp = NULL, *page = NULL;
    size_t len;
    FILE *f = open_memstream(&gp, &len);
    rep_report_opts o = {.script = f};
    if (report_text(s, &o, &page, &err))
        fail_msg("report: %s", err.msg);
    fclose(f);
    static gp_chart c[64];
    int n = parse_script(gp, c, 64);
    assert_int_equal(n, REP_FIXTURE_CHARTS);
    for (int i = 0; i < n; i++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int r = 0; r < c[i].nrows; r++)
            for (int j = 1; j < 8; j++)
                if (isfinite(c[i].v[r][j])) {
                    lo = c[i].v[r][j] < lo ? c[i].v[r][j] : lo;
                    hi = c[i].v[r][j] > hi ? c[i].v[r][j] : hi;
                }
        if (!(hi > lo) || !(hi > 0))
            fail_msg("chart '%s' is flat (%g to %g)", c[i].title, lo, hi);
    }
    /* utilisation: per cent, 100 x the stored fraction (sweep 1 at c = 10:
     * the fixture's redis is 0.12e-3 x mean throughput) */
    const gp_chart *u = chart_titled(c, n, "Utilisation by component vs client.concurrency");
    double umax = 0;
    for (int r = 0; r < u->nrows; r++) {
        assert_true(u->v[r][1] >= 0 && u->v[r][1] <= 100);
        umax = u->v[r][1] > umax ? u->v[r][1] : umax;
    }
    assert_true(umax >= 50); /* fractions up to 0.99 drawn as per cent, not as 0.99 */
    double total = 0;
    for (int p = 0; p < 4; p++)
        total += fixture_x(p, 10) / 4;
    int found = 0;
    for (int r = 0; r < u->nrows; r++)
        found |= u->v[r][0] == 10 && fabs(u->v[r][1] - 100 * 0.12e-3 * total) < 1e-6;
    assert_true(found);
    const gp_chart *b = chart_titled(c, n, "Utilisation by component");
    for (int r = 0; r < b->nrows; r++)
        assert_true(b->v[r][2] >= 0 && b->v[r][2] <= 100); /* bars: column 3 */
    /* cores: never above the host's 2.42, host_cpu the largest */
    const gp_chart *k = chart_titled(c, n, "CPU cores by component vs client.concurrency");
    for (int r = 0; r < k->nrows; r++)
        assert_true(k->v[r][1] >= 0 && k->v[r][1] <= 2.42 + 1e-9);
    assert_non_null(strstr(gp, "first 2.42 to graph 1"));
    /* operation timings in ms (stored in seconds: 0.0048 + 0.0002 c) */
    const gp_chart *t = chart_titled(c, n, "Operation timings vs client.concurrency");
    for (int r = 0; r < t->nrows; r++)
        assert_true(t->v[r][1] > 1 && t->v[r][1] < 30);
    /* the sweep's measured points come from the imported set */
    const gp_chart *x = chart_titled(c, n, "Throughput vs client.concurrency");
    int measured = 0;
    for (int r = 0; r < x->nrows; r++)
        measured += isfinite(x->v[r][3]);
    assert_int_equal(measured, 32); /* 4 phases x 8 concurrencies */
    assert_non_null(strstr(page, "Measured points: tb_redis from measurement set #1"));
    /* the plan's target line where it was decided (1500/s, a 1% margin:
     * 1500 / 0.99), integer ticks */
    assert_non_null(strstr(gp, "first 1515.151515 to graph 1, first 1515.151515"));
    assert_non_null(strstr(page, "the target (1500/s, 1515.15/s with the 1% margin it was decided by)"));
    assert_non_null(strstr(gp, "set xtics 1\n"));
    /* what limits each point of sweep 1 and the run */
    assert_non_null(strstr(page, "Bottleneck per point"));
    assert_non_null(strstr(page, "host_cpu saturates first") ||
                    strstr(page, "the load generator limits"));
    free(gp);
    free(page);
    rep_store_close(s);
}

static void test_gnuplot_missing_or_failing(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    char dirbuf[64];
    snprintf(dirbuf, sizeof dirbuf, "%s", dir);
    rep_store *s = filled_store(dirbuf);
    sim_err err;
    sim_err_clear(&err);
    char *page = NULL;
    rep_report_opts o = {.gnuplot = "tfsim-no-such-gnuplot"};
    assert_int_equal(report_text(s, &o, &page, &err), SIM_EFAIL);
    assert_non_null(strstr(err.msg, "not found"));
    assert_non_null(strstr(err.msg, "gnuplot"));
    assert_int_equal(strlen(page), 0); /* no partial page */
    free(page);
    sim_err_clear(&err);
    o.gnuplot = "false";
    assert_int_equal(report_text(s, &o, &page, &err), SIM_EFAIL);
    assert_non_null(strstr(err.msg, "gnuplot failed (exit 1)"));
    free(page);
    rep_store_close(s);
}

static void test_empty_store(void **state)
{
    (void)state;
    const char *dir = test_tmpdir();
    char p[256];
    snprintf(p, sizeof p, "%s/empty.db", dir);
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(p, REP_STORE_WRITE, &err);
    assert_non_null(s);
    char *page = NULL;
    rep_report_opts o = {.gnuplot = "tfsim-no-such-gnuplot"}; /* no chart: not needed */
    assert_int_equal(report_text(s, &o, &page, &err), SIM_OK);
    assert_non_null(strstr(page, "No results yet"));
    assert_int_equal(count(page, "<svg"), 0);
    free(page);
    rep_store_close(s);
}

/* Schema of an open SQLite file, one line per object, sorted. */
static char *schema_of(sqlite3 *db)
{
    char *out = NULL;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT type, name, sql FROM sqlite_schema WHERE name "
                                        "NOT LIKE 'sqlite_%' ORDER BY name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW)
        fprintf(f, "%s %s %s\n", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
                sqlite3_column_text(st, 2));
    sqlite3_finalize(st);
    fclose(f);
    return out;
}

/* tests/cli/report_fixture.sql (used by the command-line tests) must be a
 * store of the current schema and give the expected charts. */
static void test_fixture_sql_is_current(void **state)
{
    (void)state;
    FILE *f = fopen("tests/cli/report_fixture.sql", "rb");
    if (!f)
        fail_msg("tests/cli/report_fixture.sql: run the tests from the source tree");
    static char sql[1 << 20];
    size_t n = fread(sql, 1, sizeof sql - 1, f);
    fclose(f);
    sql[n] = '\0';
    const char *dir = test_tmpdir();
    char fix[256], fresh[256];
    snprintf(fix, sizeof fix, "%s/fix.db", dir);
    snprintf(fresh, sizeof fresh, "%s/fresh.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(fix, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    char *a = schema_of(db);
    sqlite3_close(db);
    sim_err err;
    sim_err_clear(&err);
    rep_store *s = rep_store_open(fresh, REP_STORE_WRITE, &err);
    assert_non_null(s);
    rep_store_close(s);
    assert_int_equal(sqlite3_open(fresh, &db), SQLITE_OK);
    char *b = schema_of(db);
    sqlite3_close(db);
    assert_string_equal(a, b);
    free(a);
    free(b);
    s = rep_store_open(fix, REP_STORE_READ, &err);
    assert_non_null(s);
    char *page = NULL;
    assert_int_equal(report_text(s, NULL, &page, &err), SIM_OK);
    assert_int_equal(count(page, "<svg"), REP_FIXTURE_CHARTS);
    free(page);
    rep_store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_charts),
        cmocka_unit_test(test_chart_units),
        cmocka_unit_test(test_gnuplot_missing_or_failing),
        cmocka_unit_test(test_empty_store),
        cmocka_unit_test(test_fixture_sql_is_current),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
