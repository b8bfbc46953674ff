/* Tests for validate/val_samples: the latency-samples CSV. */
#include "tests/test_util.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "validate/val_samples.h"


static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_round_trip(void **state)
{
    (void)state;
    sim_err err = {0};
    const char *p = test_dir_path("rt.csv");
    val_samples_writer *w = val_samples_create(p, &err);
    assert_non_null(w);
    for (unsigned i = 0; i < 200; i++)
        assert_int_equal(val_samples_add(w, i % 2 ? "redis.paymentsession.get" : "postgres.db.add_order",
                                         1 + i % 7, 100.125 + i, 1700000000.5 + i, &err),
                         SIM_OK);
    assert_int_equal(val_samples_rows(w), 200);
    assert_int_equal(val_samples_close(w, &err), SIM_OK);

    val_samples_reader *r = val_samples_open(p, &err);
    assert_non_null(r);
    val_sample s;
    unsigned n = 0;
    int rc;
    while ((rc = val_samples_next(r, &s, &err)) == 1) {
        assert_string_equal(s.op, n % 2 ? "redis.paymentsession.get" : "postgres.db.add_order");
        assert_int_equal(s.concurrency, 1 + n % 7);
        assert_close(s.latency_us, 100.125 + n, 1e-9);
        assert_close(s.timestamp, 1700000000.5 + n, 1e-6);
        assert_int_equal(val_samples_line(r), n + 2);
        n++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(n, 200);
    val_samples_reader_free(r);
}

/* Only whole batches reach the file before a flush; the file always ends
 * with a complete line. */
static void test_batches_are_whole_lines(void **state)
{
    (void)state;
    sim_err err = {0};
    const char *p = test_dir_path("batch.csv");
    val_samples_writer *w = val_samples_create(p, &err);
    assert_non_null(w);
    size_t len;
    char *text;
    for (unsigned i = 0; i < VAL_SAMPLES_BATCH + 5; i++)
        assert_int_equal(val_samples_add(w, "op", 1, 1.5, 2.5, &err), SIM_OK);
    text = slurp(p, &len);
    assert_int_equal(count_lines(text), 1 + VAL_SAMPLES_BATCH);
    if (!(len > 0 && text[len - 1] == '\n'))
        fail_msg("len %zu, tail [%s]", len, len > 60 ? text + len - 60 : text);
    free(text);
    assert_int_equal(val_samples_flush(w, &err), SIM_OK);
    text = slurp(p, &len);
    assert_int_equal(count_lines(text), 1 + VAL_SAMPLES_BATCH + 5);
    assert_true(text[len - 1] == '\n');
    free(text);
    assert_int_equal(val_samples_close(w, &err), SIM_OK);
}

/* A writer killed with SIGKILL at an arbitrary moment leaves complete,
 * valid rows, but for a last row that the kernel cut at a page boundary. */
static void test_killed_writer_leaves_complete_lines(void **state)
{
    (void)state;
    const char *p = test_dir_path("killed.csv");
    char path[256];
    snprintf(path, sizeof path, "%s", p);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sim_err err = {0};
        val_samples_writer *w = val_samples_create(path, &err);
        if (!w)
            _exit(3);
        for (unsigned long i = 0;; i++)
            if (val_samples_add(w, "redis.paymentsession.save", 4, (double)(i % 1000) + 0.25,
                                1700000000.0 + (double)i, &err))
                _exit(4);
    }
    /* Let it write a few hundred batches, then kill it mid-stream.  The
     * wait is bounded by the size, not by a short time: on a busy machine
     * the child may get little CPU (up to 60 s, or until it dies). */
    for (int i = 0; i < 12000; i++) {
        struct stat st;
        if (stat(path, &st) == 0 && st.st_size > 200000)
            break;
        if (waitpid(pid, NULL, WNOHANG) == pid)
            fail_msg("the writer exited before it was killed");
        usleep(5000);
    }
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status));

    size_t len;
    char *text = slurp(path, &len);
    assert_true(len > 0);
    /* Linux cuts a write(2) at a page boundary when a fatal signal is
     * pending (generic_perform_write): the last row may then be cut there,
     * and only there (the reader reports it as a bad row, or reads a row cut
 * inside its last number). */
    int cut = text[len - 1] != '\n';
    if (cut && len % 4096 != 0)
        fail_msg("cut at %zu bytes, not at a page boundary", len);
    size_t complete = 0;
    for (size_t i = 0; i < len; i++)
        complete += text[i] == '\n';
    free(text);
    sim_err err = {0};
    val_samples_reader *r = val_samples_open(path, &err);
    assert_non_null(r);
    val_sample s;
    unsigned long n = 0;
    int rc;
    while ((rc = val_samples_next(r, &s, &err)) == 1)
        n++;
    if (cut) {
        /* the cut row is an error, or (cut inside its last number) a row */
        if (rc == -1) {
            char want[64];
            snprintf(want, sizeof want, "killed.csv:%zu: ", complete + 1);
            if (!strstr(err.msg, want))
                fail_msg("'%s' lacks '%s'", err.msg, want);
        }
        assert_int_equal(n, complete - 1 + (rc == 0)); /* every complete row read */
        val_samples_reader_free(r);
        return;
    }
    assert_int_equal(rc, 0);
    assert_true(n > 0);
    assert_int_equal(n % VAL_SAMPLES_BATCH, 0);
    val_samples_reader_free(r);
}

static void test_quoted_crlf_and_spaces(void **state)
{
    (void)state;
    const char *p = test_dir_path("crlf.csv");
    test_write_file(p, "operation,concurrency,latency_us,timestamp\r\n"
                       "\"a.b\",2,10.5,1.0\r\n"
                       "\r\n"
                       "c, 3 ,7,2\r\n");
    sim_err err = {0};
    val_samples_reader *r = val_samples_open(p, &err);
    assert_non_null(r);
    val_sample s;
    assert_int_equal(val_samples_next(r, &s, &err), 1);
    assert_string_equal(s.op, "a.b");
    assert_int_equal(s.concurrency, 2);
    assert_int_equal(val_samples_next(r, &s, &err), 1);
    assert_string_equal(s.op, "c");
    assert_int_equal(s.concurrency, 3);
    assert_close(s.latency_us, 7, 0);
    assert_int_equal(val_samples_next(r, &s, &err), 0);
    val_samples_reader_free(r);
}

static void test_header_only_and_no_final_newline(void **state)
{
    (void)state;
    sim_err err = {0};
    const char *p = test_dir_path("h.csv");
    test_write_file(p, "operation,concurrency,latency_us,timestamp\n");
    val_samples_reader *r = val_samples_open(p, &err);
    assert_non_null(r);
    val_sample s;
    assert_int_equal(val_samples_next(r, &s, &err), 0);
    val_samples_reader_free(r);

    test_write_file(p, "operation,concurrency,latency_us,timestamp\nx,1,2,3");
    r = val_samples_open(p, &err);
    assert_non_null(r);
    assert_int_equal(val_samples_next(r, &s, &err), 1);
    assert_string_equal(s.op, "x");
    assert_int_equal(val_samples_next(r, &s, &err), 0);
    val_samples_reader_free(r);
}

/* Read path until the first error; return the error message (static). */
static const char *first_error(const char *text, int *code)
{
    static sim_err err;
    const char *p = test_dir_path("bad.csv");
    test_write_file(p, text);
    sim_err_clear(&err);
    val_samples_reader *r = val_samples_open(p, &err);
    if (r) {
        val_sample s;
        int rc;
        while ((rc = val_samples_next(r, &s, &err)) == 1)
            ;
        if (rc == 0) {
            val_samples_reader_free(r);
            *code = 0;
            return "";
        }
        val_samples_reader_free(r);
    }
    *code = err.code;
    return err.msg;
}

#define H "operation,concurrency,latency_us,timestamp\n"

static void expect_bad(const char *text, const char *needle)
{
    int code;
    const char *msg = first_error(text, &code);
    if (code != SIM_EINPUT || !strstr(msg, needle))
        fail_msg("expected SIM_EINPUT with '%s', got %d: '%s'", needle, code, msg);
}

static void test_bad_input(void **state)
{
    (void)state;
    expect_bad("", "bad.csv:1: empty file");
    expect_bad("op,conc,lat,ts\n", "bad.csv:1: expected the header line");
    expect_bad(H "a,1,2\n", "bad.csv:2: expected 4 columns");
    expect_bad(H "a,1,2,3,4\n", "bad.csv:2: expected 4 columns (operation,concurrency,latency_us,timestamp), found 5");
    expect_bad(H "a,1,2,3\nb c,1,2,3\n", "bad.csv:3: operation: 'b c' is not an operation name");
    expect_bad(H ",1,2,3\n", "bad.csv:2: operation:");
    expect_bad(H "a,0,2,3\n", "bad.csv:2: concurrency: '0'");
    expect_bad(H "a,1.5,2,3\n", "bad.csv:2: concurrency: '1.5'");
    expect_bad(H "a,2000000,2,3\n", "bad.csv:2: concurrency:");
    expect_bad(H "a,1,-2,3\n", "bad.csv:2: latency_us: '-2'");
    expect_bad(H "a,1,abc,3\n", "bad.csv:2: latency_us: 'abc'");
    expect_bad(H "a,1,nan,3\n", "bad.csv:2: latency_us: 'nan'");
    expect_bad(H "a,1,inf,3\n", "bad.csv:2: latency_us:");
    /* 1e308 us (a fit of it used to abort: its spec did not parse back) */
    expect_bad(H "a,1,1e308,3\n", "bad.csv:2: latency_us: '1e308' is not a latency in microseconds "
                                  "(a number from 0 to 3.6e9, one hour)");
    expect_bad(H "a,1,3600000001,3\n", "bad.csv:2: latency_us:");
    expect_bad(H "a,1,0x10,3\n", "bad.csv:2: latency_us: '0x10'");
    expect_bad(H "a,1,2,\n", "bad.csv:2: timestamp: ''");
    expect_bad(H "a,1,2,x\n", "bad.csv:2: timestamp: 'x'");
    expect_bad(H "a,1,2,3\n\"a,1,2,3\n", "unterminated quoted field");
    expect_bad(H "a\"b,1,2,3\n", "bad.csv:2: malformed CSV");
    /* 10 000 bytes in one unquoted field: rejected with bounded memory. */
    char *big = malloc(20000);
    assert_non_null(big);
    strcpy(big, H "a,1,2,");
    size_t n = strlen(big);
    memset(big + n, '1', 10000);
    strcpy(big + n + 10000, "\n");
    expect_bad(big, "bad.csv:2: row longer than 4096 bytes");
    /* the same inside a quoted field spanning lines */
    strcpy(big, H "\"a");
    n = strlen(big);
    for (size_t i = 0; i < 5000; i++)
        big[n + i] = i % 10 ? 'x' : '\n';
    strcpy(big + n + 5000, "\",1,2,3\n");
    expect_bad(big, "row longer than 4096 bytes");
    free(big);
}

/* Notes "# key = value": written between rows, read back (the latest value
 * of a key wins), skipped by the row reader; bad notes are named. */
static void test_notes(void **state)
{
    (void)state;
    sim_err err = {0};
    const char *p = test_dir_path("notes.csv");
    val_samples_writer *w = val_samples_create(p, &err);
    assert_non_null(w);
    assert_int_equal(val_samples_note(w, "redis.io_threads", "4", &err), SIM_OK);
    assert_int_equal(val_samples_add(w, "redis.x", 1, 10, 1, &err), SIM_OK);
    assert_int_equal(val_samples_note(w, "redis.io_threads_do_reads", "true", &err), SIM_OK);
    assert_int_equal(val_samples_add(w, "redis.x", 2, 20, 2, &err), SIM_OK);
    assert_int_equal(val_samples_note(w, "redis.io_threads", "1", &err), SIM_OK);
    assert_int_equal(val_samples_close(w, &err), SIM_OK);
    size_t len;
    char *text = slurp(p, &len);
    /* the first row was flushed before the second note: file order kept */
    assert_non_null(strstr(text, "# redis.io_threads = 4\n\"redis.x\",1,"));
    free(text);
    val_samples_reader *r = val_samples_open(p, &err);
    assert_non_null(r);
    val_sample smp;
    int n = 0;
    while (val_samples_next(r, &smp, &err) == 1)
        n++;
    assert_int_equal(n, 2);
    assert_string_equal(val_samples_note_get(r, "redis.io_threads"), "1");
    assert_string_equal(val_samples_note_get(r, "redis.io_threads_do_reads"), "true");
    assert_null(val_samples_note_get(r, "redis.hz"));
    const char *k, *v;
    assert_int_equal(val_samples_notes(r, 1, &k, &v), 2);
    assert_string_equal(k, "redis.io_threads_do_reads");
    val_samples_reader_free(r);
    expect_bad(H "#redis.io_threads 4\n", "bad.csv:2: a note must read '# key = value'");
    expect_bad(H "# redis io = 4\n", "bad.csv:2: a note's key and value");
    expect_bad(H "# redis.x = \n", "bad.csv:2: a note's key and value");
}

static void test_cannot_open(void **state)
{
    (void)state;
    sim_err err = {0};
    assert_null(val_samples_open(test_dir_path("missing.csv"), &err));
    assert_int_equal(err.code, SIM_EINPUT);
    assert_non_null(strstr(err.msg, "missing.csv: cannot open"));
    sim_err_clear(&err);
    assert_null(val_samples_create("/nonexistent-dir/x.csv", &err));
    assert_int_equal(err.code, SIM_EFAIL);
}

static void test_op_names(void **state)
{
    (void)state;
    assert_true(val_samples_op_ok("redis.paymentsession.remove_pending"));
    assert_true(val_samples_op_ok("a-b_c.9"));
    assert_false(val_samples_op_ok(""));
    assert_false(val_samples_op_ok("a b"));
    assert_false(val_samples_op_ok("a,b"));
    char longname[80];
    memset(longname, 'a', 64);
    longname[64] = '\0';
    assert_false(val_samples_op_ok(longname));
    longname[63] = '\0';
    assert_true(val_samples_op_ok(longname));
}

/* An existing file is not touched before the first rows: a probe whose
 * servers never answer leaves yesterday's samples as they were (it used
 * to truncate them to the header at once). */
static void test_existing_file_kept_until_rows(void **state)
{
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s", test_dir_path("old.csv"));
    test_write_file(p, VAL_SAMPLES_HEADER "\nold.op,1,5.000,1.000000\n");
    sim_err err;
    sim_err_clear(&err);
    val_samples_writer *w = val_samples_create(p, &err);
    assert_non_null(w);
    size_t len;
    char *txt = slurp(p, &len);
    assert_string_equal(txt, VAL_SAMPLES_HEADER "\nold.op,1,5.000,1.000000\n");
    free(txt);
    assert_int_equal(val_samples_close(w, &err), SIM_OK);
    txt = slurp(p, &len);
    assert_string_equal(txt, VAL_SAMPLES_HEADER "\nold.op,1,5.000,1.000000\n");
    free(txt);
    /* rows replace it */
    w = val_samples_create(p, &err);
    assert_non_null(w);
    assert_int_equal(val_samples_add(w, "new", 2, 7, 3, &err), SIM_OK);
    assert_int_equal(val_samples_close(w, &err), SIM_OK);
    txt = slurp(p, &len);
    assert_string_equal(txt, VAL_SAMPLES_HEADER "\n\"new\",2,7.000,3.000000\n");
    free(txt);
    /* a new file without rows gets the header */
    snprintf(p, sizeof p, "%s", test_dir_path("new.csv"));
    w = val_samples_create(p, &err);
    assert_int_equal(val_samples_close(w, &err), SIM_OK);
    txt = slurp(p, &len);
    assert_string_equal(txt, VAL_SAMPLES_HEADER "\n");
    free(txt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_batches_are_whole_lines),
        cmocka_unit_test(test_killed_writer_leaves_complete_lines),
        cmocka_unit_test(test_quoted_crlf_and_spaces),
        cmocka_unit_test(test_header_only_and_no_final_newline),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_cannot_open),
        cmocka_unit_test(test_op_names),
        cmocka_unit_test(test_notes),
        cmocka_unit_test(test_existing_file_kept_until_rows),
    };
    return cmocka_run_group_tests_name("val_samples", tests, test_dir_setup, NULL);
}
