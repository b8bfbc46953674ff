/* Queueing-theory checks of the kernel through the textbook models:
 * M/M/1, M/M/c (Erlang C), M/D/1 and M/G/1 (Pollaczek-Khinchine) mean
 * waits must lie inside the simulated 99% confidence interval, at rho 0.5
 * and 0.9, for three fixed seeds each; a closed network must match exact
 * MVA within 1% at N = 1, 10, 100.  Seeds are fixed, so the outcome is
 * deterministic (no flakes); sizes are chosen so that CIs are a few
 * percent wide.  30 replications per case: with fewer, the skewed
 * per-replication means at rho 0.9 make the t-interval undercover. */
#include "tests/test_util.h"

#include "models/mdl.h"
#include "models/mdl_theory.h"
#include "sim/sim_rng.h"

static double metric(const mdl_scenario *sc, const sim_rep_result *r, const char *scope,
                     const char *name, const char *m, double *half, double *theory)
{
    long k = sim_layout_find(&sc->layout, scope, name, m);
    assert_true(k >= 0);
    if (half)
        *half = r->half[k];
    if (theory)
        *theory = sc->layout.m[k].theory;
    return r->mean[k];
}

/* Run an open single-station model; return the simulated mean wait with
 * its 99% half-width and the theoretical mean wait. */
static void run_open(const char *service, int servers, double rate, unsigned seed, long customers,
                     double *wq, double *half, double *theory)
{
    char text[1024];
    snprintf(text, sizeof text,
             "[model]\ntype = queueing\n[run]\nseed = %u\nreplications = 30\nconfidence = 0.99\n"
             "[queueing]\ncustomers = %ld\nwarmup = auto\n[arrivals]\nrate = %g\n"
             "[station.s]\nservers = %d\nservice = %s\n",
             seed, customers, rate, servers, service);
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_load_string(c, text, "test.ini", &err), SIM_OK);
    mdl_scenario sc;
    int rc = mdl_scenario_init(&sc, c, &err);
    if (rc)
        fail_msg("%s", err.msg);
    sim_rep_result r;
    assert_int_equal(sim_rep_run(&sc.plan, &sc.layout, sc.type->replicate, sc.model, sc.seed, &r,
                                 &err),
                     SIM_OK);
    *wq = metric(&sc, &r, "station", "s", "mean_wait", half, theory);
    sim_rep_result_fini(&r);
    mdl_scenario_fini(&sc);
    sim_cfg_free(c);
}

static void check_open(const char *label, const char *service, int servers, double rate,
                       long customers, double expect_theory)
{
    for (unsigned seed = 1; seed <= 3; seed++) {
        double wq, half, th;
        run_open(service, servers, rate, seed, customers, &wq, &half, &th);
        /* the model's own theory value must be the textbook one */
        assert_rel(th, expect_theory, 1e-9);
        if (!(fabs(wq - th) <= half))
            fail_msg("%s seed %u: mean wait %.5g +- %.3g (99%% CI) misses theory %.5g", label, seed,
                     wq, half, th);
    }
}

static void test_mm1(void **state)
{
    (void)state;
    /* Wq = rho / (mu - lambda) */
    check_open("M/M/1 rho 0.5", "exp(mean=1)", 1, 0.5, 15000, 0.5 / 0.5);
    check_open("M/M/1 rho 0.9", "exp(mean=1)", 1, 0.9, 60000, 0.9 / 0.1);
}

static void test_mmc(void **state)
{
    (void)state;
    /* Erlang C, c = 3, mean service 1 */
    double lam1 = 1.5, lam2 = 2.7;
    double w1 = mdl_erlang_c(3, lam1) / (3 - lam1), w2 = mdl_erlang_c(3, lam2) / (3 - lam2);
    /* known value: C(3, 1.5) = 0.2368 (tables) */
    assert_close(mdl_erlang_c(3, 1.5), 0.236842, 1e-5);
    check_open("M/M/3 rho 0.5", "exp(mean=1)", 3, lam1, 15000, w1);
    check_open("M/M/3 rho 0.9", "exp(mean=1)", 3, lam2, 60000, w2);
}

static void test_md1(void **state)
{
    (void)state;
    /* P-K with zero variance: Wq = rho s / (2 (1 - rho)) */
    check_open("M/D/1 rho 0.5", "const(1)", 1, 0.5, 15000, 0.5 / (2 * 0.5));
    check_open("M/D/1 rho 0.9", "const(1)", 1, 0.9, 60000, 0.9 / (2 * 0.1));
}

static void test_mg1_lognormal(void **state)
{
    (void)state;
    /* lognormal mean 1, sd 1.5: E[S^2] = 1 + 2.25 */
    check_open("M/G/1 rho 0.5", "lognormal(mean=1, sd=1.5)", 1, 0.5, 20000, 0.5 * 3.25 / (2 * 0.5));
    check_open("M/G/1 rho 0.9", "lognormal(mean=1, sd=1.5)", 1, 0.9, 100000, 0.9 * 3.25 / (2 * 0.1));
}

static void test_closed_mva(void **state)
{
    (void)state;
    long pops[] = {1, 10, 100};
    for (size_t i = 0; i < 3; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "[model]\ntype = queueing\n[run]\nseed = 7\nreplications = 10\n"
                 "[queueing]\nnetwork = closed\ncustomers = 100000\nwarmup = 2000\n"
                 "[closed]\ncustomers = %ld\nthink = exp(mean=2)\n"
                 "[station.cpu]\nservice = exp(mean=0.05)\n[station.disk]\nservice = exp(mean=0.03)\n",
                 pops[i]);
        sim_cfg *c = sim_cfg_new();
        sim_err err;
        sim_err_clear(&err);
        assert_int_equal(sim_cfg_load_string(c, text, "closed.ini", &err), SIM_OK);
        mdl_scenario sc;
        if (mdl_scenario_init(&sc, c, &err))
            fail_msg("%s", err.msg);
        sim_rep_result r;
        assert_int_equal(sim_rep_run(&sc.plan, &sc.layout, sc.type->replicate, sc.model, sc.seed,
                                     &r, &err),
                         SIM_OK);
        /* exact MVA computed here independently of the model's annotation */
        mdl_mva_station st[2] = {{0.05, 0}, {0.03, 0}};
        double x, rr;
        mdl_mva(st, 2, 2.0, pops[i], &x, &rr, NULL, NULL);
        double thx, thr;
        double simx = metric(&sc, &r, "network", "all", "throughput", NULL, &thx);
        double simr = metric(&sc, &r, "network", "all", "mean_response", NULL, &thr);
        assert_rel(thx, x, 1e-12);
        assert_rel(thr, rr, 1e-12);
        if (fabs(simx / x - 1) > 0.01 || fabs(simr / rr - 1) > 0.01)
            fail_msg("N=%ld: simulated X=%.5g R=%.5g, MVA X=%.5g R=%.5g (1%% tolerance)", pops[i],
                     simx, simr, x, rr);
        sim_rep_result_fini(&r);
        mdl_scenario_fini(&sc);
        sim_cfg_free(c);
    }
}

static void test_mva_known_answers(void **state)
{
    (void)state;
    /* N = 1: no queueing; X = 1 / (D + Z) */
    mdl_mva_station st[2] = {{0.05, 0}, {0.03, 0}};
    double x, r, q[2];
    mdl_mva(st, 2, 2.0, 1, &x, &r, q, NULL);
    assert_close(x, 1 / 2.08, 1e-12);
    assert_close(r, 0.08, 1e-12);
    /* large N: bottleneck saturates at 1/Dmax */
    mdl_mva(st, 2, 2.0, 2000, &x, &r, q, NULL);
    assert_close(x, 20.0, 1e-6);
    /* Little's law holds inside MVA: N = X (R + Z) */
    mdl_mva(st, 2, 2.0, 37, &x, &r, q, NULL);
    assert_close(x * (r + 2.0), 37, 1e-9);
    assert_close(mdl_bound_throughput(0.08, 0.05, 2.0, 10), 10 / 2.08, 1e-12);
}

static void test_rho_ge_one_rejected(void **state)
{
    (void)state;
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_load_string(c, "[model]\ntype = queueing\n[arrivals]\nrate = 2\n"
                                            "[station.s]\nservice = exp(mean=0.5)\n",
                                         "unstable.ini", &err),
                     SIM_OK);
    mdl_scenario sc;
    assert_int_equal(mdl_scenario_init(&sc, c, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "unstable.ini:6"));
    assert_non_null(strstr(err.msg, "rho"));
    mdl_scenario_fini(&sc);
    sim_cfg_free(c);
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mva_known_answers), cmocka_unit_test(test_rho_ge_one_rejected),
        cmocka_unit_test(test_mm1),               cmocka_unit_test(test_mmc),
        cmocka_unit_test(test_md1),               cmocka_unit_test(test_mg1_lognormal),
        cmocka_unit_test(test_closed_mva),
    };
    return cmocka_run_group_tests_name("mdl_queueing", tests, NULL, NULL);
}
