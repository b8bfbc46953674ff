/* Tests for sim_table: CSV quoting, JSON escaping, NaN/inf handling, text
 * grouping and column elision, cell access, growth. */
#include "tests/test_util.h"

#include "sim/sim_table.h"

/* Print t in fmt into a string (caller frees). */
static char *render(const sim_table *t, sim_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(sim_table_print(t, fmt, f), 0);
    fclose(f);
    return buf;
}

static void expect_render(const sim_table *t, sim_format fmt, const char *want)
{
    char *got = render(t, fmt);
    if (strcmp(got, want))
        fail_msg("got:\n%s\nexpected:\n%s", got, want);
    free(got);
}

static void test_format_parse(void **state)
{
    (void)state;
    assert_int_equal(sim_format_parse("text"), SIM_FMT_TEXT);
    assert_int_equal(sim_format_parse("csv"), SIM_FMT_CSV);
    assert_int_equal(sim_format_parse("json"), SIM_FMT_JSON);
    assert_int_equal(sim_format_parse("CSV"), -1);
    assert_int_equal(sim_format_parse(""), -1);
    assert_int_equal(sim_format_parse(NULL), -1);
}

static void test_csv(void **state)
{
    (void)state;
    sim_table *t = sim_table_new("title is not printed in CSV");
    assert_non_null(t);
    sim_table_col(t, "name", NULL);
    sim_table_col(t, "x,y", NULL);
    sim_table_col(t, "v", NULL);
    sim_table_row(t);
    sim_table_set_str(t, "name", "plain");
    sim_table_set_num(t, "v", 0.1 + 0.2);
    sim_table_set_num(t, "x,y", 1e300);
    sim_table_row(t);
    sim_table_set_str(t, "name", "say \"hi\", then\nleave");
    sim_table_set_num(t, "v", NAN);
    sim_table_set_num(t, "x,y", INFINITY);
    sim_table_row(t);
    sim_table_set_str(t, "name", "cr\r");
    sim_table_set_num(t, "v", -INFINITY);
    sim_table_set_num(t, "x,y", -0.0);
    sim_table_row(t); /* all empty */
    expect_render(t, SIM_FMT_CSV,
                  "name,\"x,y\",v\n"
                  "plain,1e+300,0.3\n"
                  "\"say \"\"hi\"\", then\nleave\",inf,\n"
                  "\"cr\r\",-0,-inf\n"
                  ",,\n");
    sim_table_free(t);
}

static void test_json(void **state)
{
    (void)state;
    sim_table *t = sim_table_new(NULL);
    sim_table_row(t);
    sim_table_set_str(t, "s", "quote \" backslash \\ tab \t nl \n bell \x07 utf8 \xc3\xa9");
    sim_table_set_num(t, "n", 12345.678901234);
    sim_table_set_num(t, "nan", NAN);
    sim_table_set_num(t, "inf", INFINITY);
    sim_table_row(t);
    sim_table_set_num(t, "n", -1e-7);
    sim_table_set_str(t, "odd \"name\"", "x");
    expect_render(t, SIM_FMT_JSON,
                  "[\n"
                  "  {\"s\": \"quote \\\" backslash \\\\ tab \\u0009 nl \\u000a bell \\u0007 utf8 \xc3\xa9\", "
                  "\"n\": 12345.6789, \"nan\": null, \"inf\": null},\n"
                  "  {\"n\": -1e-07, \"odd \\\"name\\\"\": \"x\"}\n"
                  "]\n");
    sim_table_free(t);
    /* empty table */
    t = sim_table_new(NULL);
    expect_render(t, SIM_FMT_JSON, "[\n]\n");
    expect_render(t, SIM_FMT_CSV, "\n");
    sim_table_free(t);
}

/* Text: blocks by the group column, columns empty throughout a block left
 * out, NaN as "-", per-column formats; first column left-aligned, the
 * others right-aligned to the widest of name and cells. */
static void test_text_grouping(void **state)
{
    (void)state;
    sim_table *t = sim_table_new("Results");
    int g = sim_table_col(t, "station", NULL);
    sim_table_col(t, "metric", NULL);
    int v = sim_table_col(t, "value", "%.2f");
    sim_table_col(t, "theory", NULL);
    sim_table_group_by(t, g);
    sim_table_row(t);
    sim_table_set_str(t, "station", "cpu");
    sim_table_set_str(t, "metric", "util");
    sim_table_num(t, v, 0.9);
    sim_table_set_num(t, "theory", 0.9);
    sim_table_row(t);
    sim_table_set_str(t, "station", "cpu");
    sim_table_set_str(t, "metric", "response");
    sim_table_num(t, v, 10.004);
    sim_table_set_num(t, "theory", NAN);
    sim_table_row(t);
    sim_table_set_str(t, "station", "disk");
    sim_table_set_str(t, "metric", "util");
    sim_table_num(t, v, 0.5);
    expect_render(t, SIM_FMT_TEXT,
                  "Results\n"
                  "cpu\n"
                  "  metric    value  theory\n"
                  "  util       0.90     0.9\n"
                  "  response  10.00       -\n"
                  "\n"
                  "disk\n"
                  "  metric  value\n"
                  "  util     0.50\n");
    sim_table_free(t);
}

/* Without a group column everything is one block; a numeric group column
 * splits on value changes only (not on later repeats). */
static void test_text_plain_and_numeric_groups(void **state)
{
    (void)state;
    sim_table *t = sim_table_new(NULL);
    sim_table_col(t, "n", NULL);
    sim_table_col(t, "x", NULL);
    for (int i = 0; i < 3; i++) {
        sim_table_row(t);
        sim_table_set_num(t, "n", i == 1 ? 2 : 1);
        sim_table_set_num(t, "x", i * 1.5);
    }
    expect_render(t, SIM_FMT_TEXT,
                  "  n    x\n"
                  "  1    0\n"
                  "  2  1.5\n"
                  "  1    3\n");
    sim_table_group_by(t, 0);
    expect_render(t, SIM_FMT_TEXT,
                  "1\n"
                  "  x\n"
                  "  0\n"
                  "\n"
                  "2\n"
                  "  x  \n" /* the first column is left-aligned */
                  "  1.5\n"
                  "\n"
                  "1\n"
                  "  x\n"
                  "  3\n");
    sim_table_free(t);
}

static void test_cells_and_growth(void **state)
{
    (void)state;
    sim_table *t = sim_table_new("t");
    sim_table_row(t);
    sim_table_set_num(t, "c0", 1);
    /* many columns created after the first row: earlier cells stay empty */
    char name[16];
    for (int i = 1; i < 40; i++) {
        snprintf(name, sizeof name, "c%d", i);
        sim_table_set_num(t, name, i);
    }
    sim_table_row(t);
    sim_table_set_str(t, "c39", "last");
    assert_int_equal(sim_table_ncols(t), 40);
    assert_int_equal(sim_table_nrows(t), 2);
    assert_int_equal(sim_table_find_col(t, "c17"), 17);
    assert_int_equal(sim_table_find_col(t, "nope"), -1);
    assert_string_equal(sim_table_col_name(t, 39), "c39");
    assert_int_equal(sim_table_col(t, "c5", "%.1f"), 5); /* existing name: same index */
    double x = 0;
    const char *s = NULL;
    assert_int_equal(sim_table_cell(t, 0, 17, &x, &s), 1);
    assert_close(x, 17, 0);
    assert_int_equal(sim_table_cell(t, 1, 17, &x, &s), 0);
    assert_int_equal(sim_table_cell(t, 1, 39, &x, &s), 2);
    assert_string_equal(s, "last");
    /* overwrite a string with a number, a number with NaN (reads as empty) */
    sim_table_num(t, 39, NAN);
    assert_int_equal(sim_table_cell(t, 1, 39, &x, &s), 0);
    sim_table_str(t, 39, NULL);
    assert_int_equal(sim_table_cell(t, 1, 39, &x, &s), 0);
    char *csv = render(t, SIM_FMT_CSV);
    /* header + 2 rows, 39 commas each */
    int lines = 0, commas = 0;
    for (char *p = csv; *p; p++) {
        lines += *p == '\n';
        commas += *p == ',';
    }
    assert_int_equal(lines, 3);
    assert_int_equal(commas, 3 * 39);
    free(csv);
    sim_table_free(t);
}

/* A write error is reported. */
static void test_write_error(void **state)
{
    (void)state;
    sim_table *t = sim_table_new(NULL);
    sim_table_row(t);
    sim_table_set_num(t, "x", 1);
    FILE *f = fopen("/dev/null", "r");
    assert_non_null(f);
    assert_int_equal(sim_table_print(t, SIM_FMT_CSV, f), -1);
    fclose(f);
    sim_table_free(t);
}

/* Text writes an interval one way: NAME with NAME_ci becomes "mean ±
 * half" (no sign on the half, none when it is 0 or missing), aligned by
 * characters; CSV keeps both columns. */
static void test_text_intervals(void **state)
{
    (void)state;
    sim_table *t = sim_table_new(NULL);
    int cn = sim_table_col(t, "name", NULL), cx = sim_table_col(t, "throughput", "%.1f");
    int cxc = sim_table_col(t, "throughput_ci", "%.1f"), cp = sim_table_col(t, "change", "%+.1f");
    int cpc = sim_table_col(t, "change_ci", "%+.1f");
    sim_table_row(t);
    sim_table_str(t, cn, "a");
    sim_table_num(t, cx, 755.04);
    sim_table_num(t, cxc, 2.27);
    sim_table_num(t, cp, -4.72);
    sim_table_num(t, cpc, 0.31);
    sim_table_row(t);
    sim_table_str(t, cn, "b");
    sim_table_num(t, cx, 12);
    sim_table_num(t, cxc, 0);
    sim_table_num(t, cp, 1);
    expect_render(t, SIM_FMT_TEXT,
                  "  name   throughput      change\n"
                  "  a     755.0 ± 2.3  -4.7 ± 0.3\n"
                  "  b            12.0        +1.0\n");
    expect_render(t, SIM_FMT_CSV,
                  "name,throughput,throughput_ci,change,change_ci\n"
                  "a,755.04,2.27,-4.72,0.31\n"
                  "b,12,0,1,\n");
    char buf[64];
    sim_table_fmt_ci(buf, sizeof buf, "%.2f", NAN, 1);
    assert_string_equal(buf, "-");
    sim_table_fmt_ci(buf, sizeof buf, "%.2f", 1.5, INFINITY);
    assert_string_equal(buf, "1.50");
    sim_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_parse),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_text_grouping),
        cmocka_unit_test(test_text_plain_and_numeric_groups),
        cmocka_unit_test(test_cells_and_growth),
        cmocka_unit_test(test_write_error),
        cmocka_unit_test(test_text_intervals),
    };
    return cmocka_run_group_tests_name("sim_table", tests, NULL, NULL);
}
