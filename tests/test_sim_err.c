/* Tests for sim_err: first error kept, NULL context, prefixing, the
 * "where: message" form, truncation. */
#include "tests/test_util.h"

#include "sim/sim_err.h"

static void test_set_keeps_first(void **state)
{
    (void)state;
    sim_err e;
    sim_err_clear(&e);
    assert_int_equal(e.code, SIM_OK);
    assert_string_equal(e.msg, "");
    assert_int_equal(sim_err_set(&e, SIM_EINPUT, "a.ini:%d: %s: bad", 3, "sim.seed"), SIM_EINPUT);
    assert_string_equal(e.msg, "a.ini:3: sim.seed: bad");
    /* a second error keeps the root cause (and its code) */
    assert_int_equal(sim_err_set(&e, SIM_EFAIL, "later"), SIM_EINPUT);
    assert_string_equal(e.msg, "a.ini:3: sim.seed: bad");
    sim_err_clear(&e);
    assert_int_equal(sim_err_set(&e, SIM_EFAIL, "x"), SIM_EFAIL);
    assert_int_equal(sim_err_set(NULL, SIM_EINPUT, "ignored"), SIM_EINPUT);
    sim_err_clear(NULL);
    sim_err_prefix(NULL, "x");
}

static void test_prefix(void **state)
{
    (void)state;
    sim_err e;
    sim_err_clear(&e);
    sim_err_set(&e, SIM_EINPUT, "line 3: bad");
    sim_err_prefix(&e, "%s: ", "run.ini");
    assert_string_equal(e.msg, "run.ini: line 3: bad");
    /* too long: truncated, still terminated */
    char big[2 * SIM_ERR_MSG_MAX];
    memset(big, 'p', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sim_err_prefix(&e, "%s", big);
    assert_int_equal(strlen(e.msg), SIM_ERR_MSG_MAX - 1);
    assert_int_equal(e.msg[0], 'p');
    sim_err_clear(&e);
    sim_err_set(&e, SIM_EINPUT, "%s", big);
    assert_int_equal(strlen(e.msg), SIM_ERR_MSG_MAX - 1);
    sim_err_prefix(&e, "abc");
    assert_int_equal(strlen(e.msg), SIM_ERR_MSG_MAX - 1);
    assert_memory_equal(e.msg, "abcppp", 6);
}

static void test_set_at(void **state)
{
    (void)state;
    sim_err e;
    sim_err_clear(&e);
    assert_int_equal(sim_err_set_at(&e, SIM_EFAIL, "redis at unix:/r.sock", "%s failed: %d", "PING", 7),
                     SIM_EFAIL);
    assert_string_equal(e.msg, "redis at unix:/r.sock: PING failed: 7");
    /* the first error stays, as with sim_err_set */
    assert_int_equal(sim_err_set_at(&e, SIM_EINPUT, "other", "later"), SIM_EFAIL);
    assert_string_equal(e.msg, "redis at unix:/r.sock: PING failed: 7");
    assert_int_equal(sim_err_set_at(NULL, SIM_EINPUT, "w", "ignored"), SIM_EINPUT);
    /* a message longer than the context: truncated after the place, terminated */
    char big[2 * SIM_ERR_MSG_MAX];
    memset(big, 'm', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sim_err_clear(&e);
    sim_err_set_at(&e, SIM_EFAIL, "pg", "%s", big);
    assert_int_equal(strlen(e.msg), SIM_ERR_MSG_MAX - 1);
    assert_memory_equal(e.msg, "pg: mmm", 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_keeps_first),
        cmocka_unit_test(test_prefix),
        cmocka_unit_test(test_set_at),
    };
    return cmocka_run_group_tests_name("sim_err", tests, NULL, NULL);
}
