/* Tests for reports/rep_bottleneck: the busiest component is named from
 * any row with a utilisation (a component the model adds shows up by
 * itself), the load generator is told apart, the host's CPU users are
 * listed, and the sentences say what limits the result. */
#include "tests/test_util.h"

#include "reports/rep_bottleneck.h"

static void add(sim_table *t, const char *scope, const char *name, double u, double cores)
{
    sim_table_row(t);
    sim_table_set_str(t, "scope", scope);
    sim_table_set_str(t, "name", name);
    sim_table_set_num(t, "utilisation", u);
    sim_table_set_num(t, "utilisation_ci", 0.01);
    sim_table_set_num(t, "cores", cores);
}

static sim_table *pg_pg(void)
{
    sim_table *t = sim_table_new(NULL);
    sim_table_row(t);
    sim_table_set_str(t, "scope", "phase");
    sim_table_set_str(t, "name", "checkout");
    sim_table_set_num(t, "throughput", 268);
    add(t, "component", "client_loop", 0.615, 0.35);
    add(t, "component", "server_loop", 0.846, 0.46);
    add(t, "component", "host_cpu", 0.938, 2.27);
    add(t, "component", "db_gate", 0.7, NAN);
    add(t, "component", "postgres_cpu", 0.603, 1.46);
    add(t, "component", "tigerbeetle", NAN, NAN);
    return t;
}

static void test_host_cpu(void **state)
{
    (void)state;
    sim_table *t = pg_pg();
    rep_bottleneck b;
    assert_int_equal(rep_bottleneck_find(t, &b), 1);
    assert_string_equal(b.name, "host_cpu");
    assert_close(b.util, 0.938, 1e-12);
    assert_true(b.saturated && !b.load_generator);
    assert_string_equal(b.next, "server_loop");
    assert_string_equal(b.sut, "host_cpu");
    assert_int_equal(b.nusers, 3);
    assert_string_equal(b.user[0], "postgres_cpu");
    assert_string_equal(b.user[1], "server_loop");
    assert_string_equal(b.user[2], "client_loop");
    char buf[600];
    assert_string_equal(rep_bottleneck_short(&b, buf, sizeof buf), "host_cpu 94%");
    assert_string_equal(rep_bottleneck_sentence(&b, buf, sizeof buf),
                        "host_cpu saturates first: 94% busy (its cores: postgres_cpu 1.46, "
                        "server_loop 0.46, client_loop 0.35); next: server_loop 85%");
    sim_table_free(t);
}

static void test_load_generator_and_new_components(void **state)
{
    (void)state;
    sim_table *t = pg_pg();
    add(t, "component", "client_http", 0.99, 0.2); /* a component the model adds later */
    rep_bottleneck b;
    assert_int_equal(rep_bottleneck_find(t, &b), 1);
    assert_string_equal(b.name, "client_http");
    assert_true(b.load_generator && b.saturated);
    assert_string_equal(b.sut, "host_cpu");
    assert_int_equal(b.nusers, 0); /* its cores do not hold the others' */
    char buf[600];
    rep_bottleneck_sentence(&b, buf, sizeof buf);
    assert_non_null(strstr(buf, "the load generator limits this result: client_http is 99% busy"));
    assert_non_null(strstr(buf, "host_cpu at 94%"));
    add(t, "component", "redis_io", 1.0, 0.9); /* a new system component, busier still */
    assert_int_equal(rep_bottleneck_find(t, &b), 1);
    assert_string_equal(b.name, "redis_io");
    assert_false(b.load_generator);
    assert_string_equal(b.next, "client_http");
    sim_table_free(t);
}

static void test_nothing_saturated_and_no_rows(void **state)
{
    (void)state;
    sim_table *t = sim_table_new(NULL);
    add(t, "station", "server", 0.45, NAN); /* the queueing model's rows */
    add(t, "station", "disk", 0.3, NAN);
    rep_bottleneck b;
    assert_int_equal(rep_bottleneck_find(t, &b), 1);
    assert_false(b.saturated);
    char buf[600];
    rep_bottleneck_sentence(&b, buf, sizeof buf);
    assert_non_null(strstr(buf, "no component is saturated (the busiest: server at 45%)"));
    sim_table_free(t);
    t = sim_table_new(NULL);
    sim_table_row(t);
    sim_table_set_str(t, "name", "checkout");
    sim_table_set_num(t, "throughput", 1);
    assert_int_equal(rep_bottleneck_find(t, &b), 0);
    assert_string_equal(rep_bottleneck_short(&b, buf, sizeof buf), "-");
    sim_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_cpu),
        cmocka_unit_test(test_load_generator_and_new_components),
        cmocka_unit_test(test_nothing_saturated_and_no_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
