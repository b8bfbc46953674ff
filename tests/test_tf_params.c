/* The parameter registry (models/tf_params): every row's field has the C
 * type of its config type, the schema is the registry's rows, fit bounds
 * and live values are valid, and tf_params_read puts each key's value in
 * the row's field. */
#include "tests/test_util.h"

#include "models/mdl.h"
#include "models/tf_params.h"
#include "sim/sim_rng.h"

static tf_param_ctype ctype_of(sim_cfg_type t)
{
    switch (t) {
    case SIM_CFG_NUM:
    case SIM_CFG_DUR:
    case SIM_CFG_RATE:
        return TF_CT_DOUBLE;
    case SIM_CFG_INT:
        return TF_CT_LONG;
    case SIM_CFG_BOOL:
        return TF_CT_BOOL;
    case SIM_CFG_DIST:
        return TF_CT_DIST;
    default:
        return TF_CT_NONE;
    }
}

static void test_rows_are_consistent(void **state)
{
    (void)state;
    size_t n, ns;
    const tf_param *r = tf_params_registry(&n);
    const sim_cfg_key *s = tf_params_schema(&ns);
    assert_int_equal(n, ns);
    assert_true(n > 40);
    int fitted = 0, per_row = 0;
    for (size_t i = 0; i < n; i++) {
        char key[96];
        tf_params_key(&r[i], key, sizeof key);
        /* the schema is the registry's rows, in order */
        assert_ptr_equal(s[i].section, r[i].k.section);
        assert_ptr_equal(s[i].key, r[i].k.key);
        assert_ptr_equal(tf_params_find(key), &r[i]);
        /* a field of the C type its config type stores; no field only for
         * text and choices (read by hand) */
        if (r[i].ctype != TF_CT_NONE && r[i].ctype != ctype_of(r[i].k.type))
            fail_msg("%s: field type %d, config type wants %d", key, r[i].ctype,
                     ctype_of(r[i].k.type));
        if (r[i].ctype == TF_CT_NONE && ctype_of(r[i].k.type) != TF_CT_NONE)
            fail_msg("%s: a value without a field", key);
        if (r[i].ctype != TF_CT_NONE)
            for (size_t j = 0; j < i; j++)
                if (r[j].ctype != TF_CT_NONE && r[j].off == r[i].off)
                    fail_msg("%s shares its field with row %zu", key, j);
        if (!r[i].source || !r[i].source[0])
            fail_msg("%s: no source", key);
        /* fit bounds: positive, ordered, inside the schema range */
        if (r[i].fit_lo != 0 || r[i].fit_hi != 0) {
            assert_true(r[i].ctype == TF_CT_DOUBLE || r[i].ctype == TF_CT_DIST);
            if (!(r[i].fit_lo > 0 && r[i].fit_hi > r[i].fit_lo))
                fail_msg("%s: fit bounds %g..%g", key, r[i].fit_lo, r[i].fit_hi);
            if (r[i].k.type != SIM_CFG_DIST &&
                (r[i].fit_lo < r[i].k.min || r[i].fit_hi > r[i].k.max))
                fail_msg("%s: fit bounds %g..%g outside the range %g..%g", key, r[i].fit_lo,
                         r[i].fit_hi, r[i].k.min, r[i].k.max);
        }
        if (r[i].fit) {
            fitted++;
            if (!(r[i].fit_lo > 0))
                fail_msg("%s: fitted by default without bounds", key);
        }
        /* a per-row cost is a demand a calibration fits by default (its
         * own start step scales it alone) */
        if (r[i].per_row) {
            per_row++;
            if (!(r[i].demand && r[i].fit && r[i].ctype == TF_CT_DOUBLE))
                fail_msg("%s: per_row without demand, fit or a double field", key);
        }
        double lo, hi;
        tf_params_fit_bounds(&r[i], &lo, &hi);
        assert_true(lo > 0 && hi > lo);
    }
    assert_true(fitted >= 5);
    assert_int_equal(per_row, 1);
    const tf_param *rc = tf_params_find("postgres.row_cost");
    assert_non_null(rc);
    assert_true(rc->per_row);
    assert_null(tf_params_find("client.cpus"));
    assert_null(tf_params_find("nosection"));
}

/* Read a config in which every numeric key of the registry has a value of
 * its own and check that each value is in its row's field; the live
 * values form a valid config too. */
static void test_read_fills_each_field(void **state)
{
    (void)state;
    size_t n, nall;
    const tf_param *r = tf_params_registry(&n);
    sim_cfg_key *all = mdl_schema(NULL, &nall);
    sim_cfg *c = sim_cfg_new(), *live = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    double want[256];
    assert_true(n <= 256);
    for (size_t i = 0; i < n; i++) {
        char line[256];
        want[i] = NAN;
        if (r[i].live) {
            snprintf(line, sizeof line, "%s.%s=%s", r[i].k.section, r[i].k.key, r[i].live);
            assert_int_equal(sim_cfg_set(live, line, &err), SIM_OK);
        }
        if (r[i].ctype != TF_CT_DOUBLE && r[i].ctype != TF_CT_LONG)
            continue;
        if (!strcmp(r[i].k.key, "batch_max") || !strcmp(r[i].k.section, "postgres"))
            continue; /* checked against each other below */
        /* a value inside the range, different for every row */
        double v = r[i].k.min + (r[i].k.max - r[i].k.min) * (double)(i + 1) / (double)(4 * n);
        if (r[i].ctype == TF_CT_LONG)
            v = floor(v) > r[i].k.min ? floor(v) : r[i].k.min;
        want[i] = v;
        snprintf(line, sizeof line, "%s.%s=%.17g", r[i].k.section, r[i].k.key, v);
        assert_int_equal(sim_cfg_set(c, line, &err), SIM_OK);
    }
    assert_int_equal(sim_cfg_set(c, "postgres.row_cost=123ns", &err), SIM_OK);
    assert_int_equal(sim_cfg_set(c, "postgres.pool_size=17", &err), SIM_OK);
    tf_params p;
    if (sim_cfg_check(c, all, nall, &err) || tf_params_read(&p, c, all, nall, &err))
        fail_msg("%s", err.msg);
    /* the host's costs come out times host.cpu_scale (test_host_scale) */
    const tf_param *hs = tf_params_find("host.cpu_scale");
    assert_non_null(hs);
    double scale = want[hs - r];
    assert_true(scale > 1);
    for (size_t i = 0; i < n; i++) {
        if (isnan(want[i]))
            continue;
        const char *f = (const char *)&p + r[i].off;
        double got = r[i].ctype == TF_CT_LONG ? (double)*(const long *)f : *(const double *)f;
        double w = tf_params_host_scaled(&r[i]) ? want[i] * scale : want[i];
        if (got != w)
            fail_msg("%s.%s: read %.17g, want %.17g", r[i].k.section, r[i].k.key, got, w);
    }
    assert_close(p.pg_row_cost, 123e-9 * scale, 1e-20);
    assert_int_equal(p.pool_size, 17);
    tf_params_fini(&p);
    tf_params q;
    if (sim_cfg_check(live, all, nall, &err) || tf_params_read(&q, live, all, nall, &err))
        fail_msg("live values: %s", err.msg);
    assert_close(q.client_cpu, 0, 0);
    tf_params_fini(&q);
    sim_cfg_free(c);
    sim_cfg_free(live);
    free(all);
}

/* host.cpu_scale multiplies the server's, the database clients' and the
 * backends' CPU costs, and nothing of the load generator's or the host's
 * other keys; at 1 the values are the config's. */
static void test_host_scale(void **state)
{
    (void)state;
    size_t n, nall;
    const tf_param *r = tf_params_registry(&n);
    sim_cfg_key *all = mdl_schema(NULL, &nall);
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    tf_params p1, p2;
    if (tf_params_read(&p1, c, all, nall, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(sim_cfg_set(c, "host.cpu_scale=2.5", &err), SIM_OK);
    if (sim_cfg_check(c, all, nall, &err) || tf_params_read(&p2, c, all, nall, &err))
        fail_msg("%s", err.msg);
    assert_close(p1.host_cpu_scale, 1, 0);
    assert_close(p2.host_cpu_scale, 2.5, 0);
    int scaled = 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].ctype != TF_CT_DOUBLE)
            continue;
        double a = *(const double *)((const char *)&p1 + r[i].off);
        double b = *(const double *)((const char *)&p2 + r[i].off);
        if (tf_params_host_scaled(&r[i])) {
            scaled++;
            /* a CPU cost of the host's, never the load generator's */
            assert_true(r[i].demand && strcmp(r[i].k.section, "client"));
            assert_close(b, 2.5 * a, 1e-15 * fabs(a));
        } else if (strcmp(r[i].k.key, "cpu_scale")) {
            if (b != a)
                fail_msg("%s.%s moved from %.17g to %.17g", r[i].k.section, r[i].k.key, a, b);
        }
    }
    /* the costs a measured split pins, by name */
    assert_close(p2.cpu_request, 2.5 * p1.cpu_request, 1e-18);
    assert_close(p2.pg_query_cpu, 2.5 * p1.pg_query_cpu, 1e-18);
    assert_close(p2.pg_loop_cpu_query, 2.5 * p1.pg_loop_cpu_query, 1e-18);
    assert_close(p2.redis_loop_cpu, 2.5 * p1.redis_loop_cpu, 1e-18);
    assert_close(p2.client_cpu, p1.client_cpu, 0);
    assert_close(p2.cores, p1.cores, 0);
    assert_true(scaled >= 15);
    assert_false(tf_params_host_scaled(tf_params_find("client.cpu_scale")));
    assert_false(tf_params_host_scaled(tf_params_find("host.cpu_scale")));
    assert_false(tf_params_host_scaled(tf_params_find("client.cpu")));
    tf_params_fini(&p1);
    tf_params_fini(&p2);
    sim_cfg_free(c);
    free(all);
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_are_consistent),
        cmocka_unit_test(test_read_fills_each_field),
        cmocka_unit_test(test_host_scale),
    };
    return cmocka_run_group_tests_name("tf_params", tests, NULL, NULL);
}
