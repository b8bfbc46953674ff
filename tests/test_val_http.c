/* val_http: points from probe rows (runs averaged, CPU per request over
 * the runs' requests, the measured await, fitted or held-out by latency),
 * the MAPE over fitted and held-out points, the simulation of the stub
 * architecture against known answers, and a fit that recovers the client
 * cost a simulated "measurement" was made with. */
#include "tests/test_util.h"

#include "models/mdl.h"
#include "validate/val_http.h"

static val_http_row row(double lat, unsigned c, int ph, double thr, double ccpu, double scpu,
                        double await)
{
    val_http_row r;
    memset(&r, 0, sizeof r);
    r.latency_ms = lat;
    r.concurrency = c;
    r.phase = ph;
    r.total = r.ok = 100;
    r.throughput = thr;
    r.walltime = 100 / thr;
    r.client_cpu = ccpu;
    r.server_cpu = scpu;
    r.server_requests = 100;
    r.server_await = await;
    r.pool_passes = r.pool_conns = r.pool_idle = NAN; /* not measured (an older probe) */
    return r;
}

static void test_points(void **state)
{
    (void)state;
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    val_http_row rows[] = {
        row(2, 1, 0, 100, 0.2, 0.05, 0.0021), row(2, 1, 0, 300, 0.4, 0.07, 0.0023),
        row(2, 1, 2, 200, 0.1, 0.03, 0.0022), row(10, 4, 0, 50, 0.3, 0.04, 0.0105),
    };
    /* the pool: measured in two runs of (2, 1, checkout), averaged over
     * those; never in (2, 1, reserve) */
    rows[0].pool_passes = 2, rows[0].pool_conns = 1, rows[0].pool_idle = 0.5;
    rows[1].pool_passes = 3, rows[1].pool_conns = 2, rows[1].pool_idle = 1;
    res.rows = rows;
    res.n = res.cap = 4;
    val_http_point pts[8];
    size_t n;
    sim_err err = {0};
    double fit[] = {2};
    assert_int_equal(val_http_points(&res, fit, 1, pts, 8, &n, &err), SIM_OK);
    assert_int_equal(n, 2);
    assert_int_equal(pts[0].concurrency, 1);
    assert_close(pts[0].weight, 1, 0);
    assert_close(pts[1].weight, 0, 0);
    /* throughput: the mean over the runs; CPU per request: all CPU over all requests */
    assert_close(pts[0].thr[0], 200, 1e-12);
    assert_close(pts[0].ccpu[0], 0.6 / 200, 1e-15);
    assert_close(pts[0].scpu[0], 0.12 / 200, 1e-15);
    assert_true(isnan(pts[0].thr[1]));
    assert_close(pts[0].ppass[0], 2.5, 1e-15);
    assert_close(pts[0].pconn[0], 1.5, 1e-15);
    assert_close(pts[0].pidle[0], 0.75, 1e-15);
    assert_true(isnan(pts[0].pconn[2]) && isnan(pts[1].pidle[0]));
    /* too many points */
    assert_int_equal(val_http_points(&res, NULL, 0, pts, 1, &n, &err), SIM_EINPUT);
    /* no fit list: every point is fitted */
    assert_int_equal(val_http_points(&res, NULL, 0, pts, 8, &n, &err), SIM_OK);
    assert_close(pts[1].weight, 1, 0);
    res.rows = NULL;
    res.n = 0;
    assert_int_equal(val_http_points(&res, NULL, 0, pts, 8, &n, &err), SIM_EINPUT);
}

static void test_mape(void **state)
{
    (void)state;
    val_http_point pts[2];
    val_http_sim sims[2];
    memset(pts, 0, sizeof pts);
    memset(sims, 0, sizeof sims);
    for (int k = 0; k < 2; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            pts[k].thr[ph] = ph == 0 ? 100 : NAN;
            pts[k].ccpu[ph] = ph == 0 ? 1e-3 : NAN;
        }
    pts[0].weight = 1;
    sims[0].thr[0] = 110;
    sims[0].ccpu[0] = 0.8e-3;
    sims[1].thr[0] = 50;
    sims[1].ccpu[0] = 1.5e-3;
    val_http_errs e;
    val_http_mape(pts, sims, 2, 1, &e);
    assert_close(e.thr, 10, 1e-9);
    assert_close(e.ccpu, 20, 1e-9);
    assert_int_equal(e.n, 1);
    assert_int_equal(e.within, 1); /* +10% */
    val_http_mape(pts, sims, 2, 0, &e);
    assert_close(e.thr, 50, 1e-9);
    assert_close(e.ccpu, 50, 1e-9);
    assert_int_equal(e.n, 1);
    assert_int_equal(e.within, 0); /* -50% */
    sim_table *t = val_http_table(pts, sims, 2);
    assert_int_equal(sim_table_nrows(t), 2);
    assert_true(sim_table_find_col(t, "client_cpu_error_pct") >= 0);
    sim_table_free(t);
}

/* The stub architecture at concurrency 1 with constant costs: a request
 * takes client CPU + server CPU + the await + the network, one at a time;
 * the await is the latency asked, rounded up to the millisecond (the
 * server's loop sleeps in its poll meanwhile) plus server.timer_slack. */
static sim_cfg *stub_base(void)
{
    sim_cfg *c = sim_cfg_new();
    sim_err err = {0};
    if (sim_cfg_load_string(c,
                            "[model]\ntype = tigerfans\n[architecture]\naccounting = stub\n"
                            "payments = stub\n[client]\ncpu = 1ms\ncpu_scale = 1\nsent_cpu = 0\nconnect_cpu = 0\npool_cpu = 0\n"
                            "pool_conn_cpu = 0\npool_idle_cpu = 0\npool_poll_cpu = 0\n"
                            "[server]\ncpu_request = 0.5ms\ncpu_webhook = 0\ncpu_shape = 1\n"
                            "crowding = 0\naccept_cpu = 0\n[host]\ncores = 64\nrtt = 0\n",
                            "stub.ini", &err))
        fail_msg("%s", err.msg);
    return c;
}

static void test_simulate_known(void **state)
{
    (void)state;
    sim_cfg *base = stub_base();
    val_http_point pt;
    memset(&pt, 0, sizeof pt);
    pt.concurrency = 1;
    pt.total = 200;
    pt.latency_ms = 2;
    pt.weight = 1;
    val_http_opts o;
    val_http_opts_init(&o);
    o.reps = 1;
    val_http_sim s;
    sim_err err = {0};
    assert_int_equal(val_http_simulate(base, NULL, 0, &pt, 1, &o, &s, &err), SIM_OK);
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        assert_close(s.ccpu[ph], 1e-3, 1e-12);
        assert_close(s.scpu[ph], 0.5e-3, 1e-12);
        assert_rel(s.thr[ph], 1 / 3.7e-3, 1e-6); /* 1 + 0.5 + 2 + 0.2 ms */
    }
    assert_close(s.passes, 2, 1e-12);
    /* 0.5 ms asked: the poll sleeps 1 ms */
    pt.latency_ms = 0.5;
    assert_int_equal(val_http_simulate(base, NULL, 0, &pt, 1, &o, &s, &err), SIM_OK);
    for (int ph = 0; ph < TF_NPHASES; ph++)
        assert_rel(s.thr[ph], 1 / 2.7e-3, 1e-6); /* 1 + 0.5 + 1 + 0.2 ms */
    /* without the poll's rounding and slack: the latency asked */
    if (sim_cfg_set(base, "server.timer_resolution=0", &err) ||
        sim_cfg_set(base, "server.timer_slack=0", &err))
        fail_msg("%s", err.msg);
    assert_int_equal(val_http_simulate(base, NULL, 0, &pt, 1, &o, &s, &err), SIM_OK);
    for (int ph = 0; ph < TF_NPHASES; ph++)
        assert_rel(s.thr[ph], 1 / 2.0e-3, 1e-6);
    pt.latency_ms = 2;
    /* the probe measured this machine's client: a base config's speed
     * factor (the shipped one scales to the TigerBench host) is not applied */
    if (sim_cfg_set(base, "client.cpu_scale=0.5", &err))
        fail_msg("%s", err.msg);
    assert_int_equal(val_http_simulate(base, NULL, 0, &pt, 1, &o, &s, &err), SIM_OK);
    for (int ph = 0; ph < TF_NPHASES; ph++)
        assert_close(s.ccpu[ph], 1e-3, 1e-12);
    sim_cfg_free(base);
}

/* A "measurement" simulated with client.cpu = 0.8 ms: the fit, started at
 * 1 ms, finds it again (common random numbers: the same simulation). */
static void test_fit_recovers(void **state)
{
    (void)state;
    sim_cfg *base = stub_base();
    val_http_point pts[2];
    memset(pts, 0, sizeof pts);
    long conc[2] = {1, 8};
    for (int k = 0; k < 2; k++) {
        pts[k].concurrency = conc[k];
        pts[k].total = 200;
        pts[k].latency_ms = 2;
        pts[k].weight = 1;
    }
    val_http_opts o;
    val_http_opts_init(&o);
    o.reps = 1;
    val_calib_param p = {"client.cpu", "", 0.8e-3, 1e-5, 1e-2};
    val_http_sim sims[2];
    sim_err err = {0};
    assert_int_equal(val_http_simulate(base, &p, 1, pts, 2, &o, sims, &err), SIM_OK);
    for (int k = 0; k < 2; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            pts[k].thr[ph] = sims[k].thr[ph];
            pts[k].ccpu[ph] = sims[k].ccpu[ph];
            pts[k].scpu[ph] = sims[k].scpu[ph];
        }
    p.value = 1e-3;
    double f;
    unsigned it;
    assert_int_equal(val_http_fit(base, &p, 1, pts, 2, &o, &f, &it, &err), SIM_OK);
    assert_rel(p.value, 0.8e-3, 0.02);
    assert_true(f < 1e-3);
    sim_cfg_free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_mape),
        cmocka_unit_test(test_simulate_known),
        cmocka_unit_test(test_fit_recovers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
