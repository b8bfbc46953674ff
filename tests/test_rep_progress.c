/* Tests for reports/rep_progress: drawn only when enabled, with counts,
 * percentage and an ETA computed from the work actually done. */
#include "tests/test_util.h"

#include "reports/rep_progress.h"

/* Run fn against a fake stream and return what it wrote (static buffer). */
static char buf[4096];

static FILE *fake(void)
{
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    return f;
}

static void test_disabled_writes_nothing(void **state)
{
    (void)state;
    FILE *f = fake();
    rep_progress p;
    rep_progress_init(&p, f, 0, "sweep", 4, 0.0);
    for (int i = 1; i <= 4; i++)
        rep_progress_step(&p, 1, i * 1.0);
    rep_progress_fini(&p, 5.0);
    fclose(f);
    assert_int_equal(strlen(buf), 0);
}

static void test_bar_and_eta(void **state)
{
    (void)state;
    FILE *f = fake();
    rep_progress p;
    rep_progress_init(&p, f, 1, "sweep", 10, 100.0);
    rep_progress_step(&p, 1, 102.0); /* 2 s per step: 9 left -> ETA 0:18 */
    fflush(f);
    assert_non_null(strstr(buf, "\rsweep ["));
    assert_non_null(strstr(buf, "1/10"));
    assert_non_null(strstr(buf, " 10%"));
    assert_non_null(strstr(buf, "elapsed 0:02"));
    assert_non_null(strstr(buf, "ETA 0:18"));
    char bar[REP_PROGRESS_WIDTH + 3] = "[###"; /* 3 of 30 filled */
    memset(bar + 4, '.', REP_PROGRESS_WIDTH - 3);
    strcpy(bar + REP_PROGRESS_WIDTH + 1, "]");
    assert_non_null(strstr(buf, bar));
    /* Redraws are throttled: a step 10 ms later draws nothing new. */
    size_t before = strlen(buf);
    rep_progress_step(&p, 1, 102.01);
    fflush(f);
    assert_int_equal(strlen(buf), before);
    rep_progress_step(&p, 8, 120.0); /* the last step always draws */
    rep_progress_fini(&p, 120.0);
    fclose(f);
    assert_non_null(strstr(buf, "10/10 100%"));
    assert_non_null(strstr(buf, "ETA 0:00"));
    assert_int_equal(buf[strlen(buf) - 1], '\n');
}

static void test_skipped_points_not_in_rate(void **state)
{
    (void)state;
    FILE *f = fake();
    rep_progress p;
    rep_progress_init(&p, f, 1, "resume", 100, 0.0);
    rep_progress_skip(&p, 50); /* resumed: half stored already */
    rep_progress_step(&p, 10, 60.0); /* 6 s per computed point, 40 left */
    fclose(f);
    assert_non_null(strstr(buf, "60/100"));
    assert_non_null(strstr(buf, "ETA 4:00"));
    assert_non_null(strstr(buf, "elapsed 1:00"));
}

static void test_hours(void **state)
{
    (void)state;
    FILE *f = fake();
    rep_progress p;
    rep_progress_init(&p, f, 1, "x", 3, 0.0);
    rep_progress_step(&p, 1, 3700.0);
    fclose(f);
    assert_non_null(strstr(buf, "elapsed 1:01:40"));
    assert_non_null(strstr(buf, "ETA 2:03:20"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disabled_writes_nothing),
        cmocka_unit_test(test_bar_and_eta),
        cmocka_unit_test(test_skipped_points_not_in_rate),
        cmocka_unit_test(test_hours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
