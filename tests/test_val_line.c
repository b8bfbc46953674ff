/* Tests for validate/val_line: bounded lines and their CSV fields. */
#include "tests/test_util.h"

#include "validate/val_line.h"

static void test_read_lines(void **state)
{
    (void)state;
    const char *p = test_dir_path("lines.txt");
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs("one\r\n\ntwo-is-longer\nx", f);
    fputc('\0', f);
    fputs("y", f); /* no final newline */
    fclose(f);
    f = fopen(p, "rb");
    assert_non_null(f);
    char buf[8];
    size_t n;
    int nul, toolong;
    assert_int_equal(val_line_read(f, buf, sizeof buf, &n, &nul, &toolong), 1);
    assert_string_equal(buf, "one"); /* CR stripped */
    assert_int_equal(n, 3);
    assert_int_equal(val_line_read(f, buf, sizeof buf, &n, &nul, &toolong), 1);
    assert_int_equal(n, 0);
    assert_int_equal(val_line_read(f, buf, sizeof buf, &n, &nul, &toolong), 1);
    assert_true(toolong); /* cut to 7 bytes, the rest skipped */
    assert_string_equal(buf, "two-is-");
    assert_int_equal(val_line_read(f, buf, sizeof buf, &n, &nul, &toolong), 1);
    assert_true(nul && !toolong);
    assert_int_equal(n, 3);
    assert_int_equal(val_line_read(f, buf, sizeof buf, &n, &nul, &toolong), 0);
    fclose(f);
}

static void test_next_checks(void **state)
{
    (void)state;
    const char *p = test_dir_path("next.txt");
    test_write_file(p, "ab\nabcdef\n");
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    char buf[16];
    unsigned long long line = 0;
    sim_err err = {0};
    assert_int_equal(val_line_next(f, "F", buf, sizeof buf, 4, &line, &err), 1);
    assert_int_equal(line, 1);
    assert_int_equal(val_line_next(f, "F", buf, sizeof buf, 4, &line, &err), -1);
    assert_int_equal(err.code, SIM_EINPUT);
    assert_string_equal(err.msg, "F:2: line longer than 4 bytes");
    fclose(f);
    /* a directory read as a file: an input error */
    f = fopen(".", "rb");
    if (f) {
        sim_err_clear(&err);
        line = 0;
        assert_int_equal(val_line_next(f, "dir", buf, sizeof buf, 4, &line, &err), -1);
        assert_int_equal(err.code, SIM_EINPUT);
        fclose(f);
    }
}

static void test_split(void **state)
{
    (void)state;
    char text[64], why[96];
    const char *v[4];
    size_t n;
    assert_int_equal(val_line_split("a,\"b,c\",,\"d\"\"e\"", text, sizeof text, v, 4, &n, why,
                                    sizeof why), 0);
    assert_int_equal(n, 4);
    assert_string_equal(v[0], "a");
    assert_string_equal(v[1], "b,c");
    assert_string_equal(v[2], "");
    assert_string_equal(v[3], "d\"e");
    /* more fields than room: counted, the first kept */
    assert_int_equal(val_line_split("1,2,3,4,5,6", text, sizeof text, v, 4, &n, why, sizeof why), 0);
    assert_int_equal(n, 6);
    assert_string_equal(v[3], "4");
    assert_int_equal(val_line_split("", text, sizeof text, v, 4, &n, why, sizeof why), 0);
    assert_int_equal(n, 0);
    assert_int_equal(val_line_split("a,\"b", text, sizeof text, v, 4, &n, why, sizeof why), -1);
    assert_non_null(strstr(why, "malformed CSV"));
    assert_int_equal(val_line_split("a\rb", text, sizeof text, v, 4, &n, why, sizeof why), -1);
    assert_string_equal(why, "more than one row");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_lines),
        cmocka_unit_test(test_next_checks),
        cmocka_unit_test(test_split),
    };
    return cmocka_run_group_tests_name("val_line", tests, test_dir_setup, NULL);
}
