/* M/M/1 at rho 0.9 through the queueing model (the same code `tfsim run`
 * uses): customers per second and peak memory for 1e6 and 1e7 customers.
 * Events are counted as calendar events: 2 per customer (arrival,
 * departure); the public convention of 4 events per customer (arrive,
 * seize, delay end, release) would double the events figure, so both are
 * printed.  Memory must not depend on the number of customers. */
#include <stdio.h>
#include <string.h>

#include "bench/bench_util.h"
#include "models/mdl.h"
#include "sim/sim_rng.h"

static int run(long customers, double *secs, double *events)
{
    char text[512];
    snprintf(text, sizeof text,
             "[model]\ntype = queueing\n[run]\nreplications = 1\n[queueing]\ncustomers = %ld\n"
             "warmup = 0\n[arrivals]\nrate = 0.9\n[station.server]\nservice = exp(rate=1.0)\n",
             customers);
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    mdl_scenario sc;
    if (sim_cfg_load_string(c, text, "bench", &err) || mdl_scenario_init(&sc, c, &err)) {
        fprintf(stderr, "bench_mm1: %s\n", err.msg);
        return 1;
    }
    sim_rep_result r;
    double t0 = bench_now();
    int rc = sim_rep_run(&sc.plan, &sc.layout, sc.type->replicate, sc.model, sc.seed, &r, &err);
    *secs = bench_now() - t0;
    *events = 2.0 * (double)customers;
    if (rc)
        fprintf(stderr, "bench_mm1: %s\n", err.msg);
    sim_rep_result_fini(&r);
    mdl_scenario_fini(&sc);
    sim_cfg_free(c);
    return rc;
}

int main(void)
{
    sim_rng_setup();
    long sizes[] = {1000000, 10000000};
    for (int i = 0; i < 2; i++) {
        double t[3], ev = 0;
        for (int k = 0; k < 3; k++)
            if (run(sizes[i], &t[k], &ev))
                return 1;
        double med = bench_median(t, 3);
        printf("mm1 rho=0.9 customers=%-9ld median %.3f s  %.2f M customers/s  "
               "%.1f M calendar events/s (%.1f M/s at 4 events/customer)  peak %.1f MiB\n",
               sizes[i], med, sizes[i] / med / 1e6, ev / med / 1e6, 4.0 * sizes[i] / med / 1e6,
               bench_peak_mib());
    }
    return 0;
}
