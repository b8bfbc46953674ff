/* Tests for models/mdl_plan: the decision from intervals (meets, fails,
 * undecided at each edge), the pick with undecided settings before it, and
 * the replications of the next round. */
#include "tests/test_util.h"

#include "models/mdl_plan.h"

static void test_decide(void **state)
{
    (void)state;
    mdl_plan_target t = {1500, INFINITY, 0};
    /* the interval clears the target: meets; lies below: fails */
    assert_int_equal(mdl_plan_decide(&t, 1560, 50, NAN, NAN), MDL_PLAN_MEETS);
    assert_int_equal(mdl_plan_decide(&t, 1550, 50, NAN, NAN), MDL_PLAN_MEETS); /* lower bound = target */
    assert_int_equal(mdl_plan_decide(&t, 1440, 50, NAN, NAN), MDL_PLAN_FAILS);
    /* straddles: undecided, whatever the mean's side */
    assert_int_equal(mdl_plan_decide(&t, 1562.6, 65.7, NAN, NAN), MDL_PLAN_UNDECIDED);
    assert_int_equal(mdl_plan_decide(&t, 1469.8, 58.9, NAN, NAN), MDL_PLAN_UNDECIDED);
    assert_int_equal(mdl_plan_decide(&t, 1450, 50, NAN, NAN), MDL_PLAN_UNDECIDED); /* upper = target */
    /* no interval (one replication): undecided; an exact value decides */
    assert_int_equal(mdl_plan_decide(&t, 1600, NAN, NAN, NAN), MDL_PLAN_UNDECIDED);
    assert_int_equal(mdl_plan_decide(&t, 1600, 0, NAN, NAN), MDL_PLAN_MEETS);
    /* with a p99 limit: both must clear; either failing fails */
    mdl_plan_target tl = {1500, 0.05, 0};
    assert_int_equal(mdl_plan_decide(&tl, 1600, 10, 0.04, 0.005), MDL_PLAN_MEETS);
    assert_int_equal(mdl_plan_decide(&tl, 1600, 10, 0.048, 0.005), MDL_PLAN_UNDECIDED);
    assert_int_equal(mdl_plan_decide(&tl, 1600, 10, 0.06, 0.005), MDL_PLAN_FAILS);
    assert_int_equal(mdl_plan_decide(&tl, 1400, 10, 0.048, 0.005), MDL_PLAN_FAILS);
    assert_int_equal(mdl_plan_decide(&tl, 1600, 10, NAN, NAN), MDL_PLAN_UNDECIDED);
    /* a margin of 20%: the interval must clear 1500 / 0.8 = 1875 */
    mdl_plan_target tm = {1500, INFINITY, 0.2};
    assert_true(fabs(mdl_plan_needed(&tm) - 1875) < 1e-9);
    assert_true(mdl_plan_needed(&t) == 1500);
    assert_int_equal(mdl_plan_decide(&tm, 1800, 50, NAN, NAN), MDL_PLAN_FAILS);
    assert_int_equal(mdl_plan_decide(&tm, 1860, 50, NAN, NAN), MDL_PLAN_UNDECIDED);
    assert_int_equal(mdl_plan_decide(&tm, 1930, 50, NAN, NAN), MDL_PLAN_MEETS);
    assert_string_equal(mdl_plan_decision_name(MDL_PLAN_MEETS), "meets");
    assert_string_equal(mdl_plan_decision_name(MDL_PLAN_FAILS), "fails");
    assert_string_equal(mdl_plan_decision_name(MDL_PLAN_UNDECIDED), "undecided");
}

static void test_pick(void **state)
{
    (void)state;
    size_t u = 99;
    mdl_plan_decision a[] = {MDL_PLAN_FAILS, MDL_PLAN_FAILS, MDL_PLAN_MEETS, MDL_PLAN_MEETS};
    assert_int_equal(mdl_plan_pick(a, 4, &u), 2);
    assert_int_equal(u, 0);
    mdl_plan_decision b[] = {MDL_PLAN_FAILS, MDL_PLAN_UNDECIDED, MDL_PLAN_MEETS};
    assert_int_equal(mdl_plan_pick(b, 3, &u), 2);
    assert_int_equal(u, 1);
    mdl_plan_decision c[] = {MDL_PLAN_UNDECIDED, MDL_PLAN_FAILS, MDL_PLAN_UNDECIDED};
    assert_int_equal(mdl_plan_pick(c, 3, &u), -1);
    assert_int_equal(u, 2);
    assert_int_equal(mdl_plan_pick(c, 0, NULL), -1);
}

static void test_next_reps(void **state)
{
    (void)state;
    assert_int_equal(mdl_plan_next_reps(5, 200), 10);
    assert_int_equal(mdl_plan_next_reps(1, 200), 2);
    assert_int_equal(mdl_plan_next_reps(160, 200), 200);
    assert_int_equal(mdl_plan_next_reps(200, 200), 0);
    assert_int_equal(mdl_plan_next_reps(300, 200), 0);
    /* rounds from 5 end at the cap after a bounded number of doublings */
    long r = 5;
    int rounds = 0;
    while ((r = mdl_plan_next_reps(r, 200)) != 0)
        rounds++;
    assert_int_equal(rounds, 6); /* 10 20 40 80 160 200 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_pick),
        cmocka_unit_test(test_next_reps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
