/* M/M/1 at rho 0.9 through the queueing model (the same code `tfsim run`
 * uses, default generator): customers per second and peak memory for 1e6
 * and 1e7 customers, medians of 5 runs, by the wall clock and by the
 * thread's CPU time (on a shared machine the CPU figure is the steadier
 * one).  Events are counted as calendar events: 2 per customer (arrival,
 * departure); the public convention of 4 events per customer (arrive,
 * seize, delay end, release) would double the events figure, so both are
 * printed.  Memory must not depend on the number of customers.
 * Target (issue 18): >= 16 M customers/s (twice Cimba's MM1_single on the
 * same machine; bench/bench_cimba.sh runs both side by side). */
#include <stdio.h>
#include <string.h>

#include "bench/bench_util.h"
#include "models/mdl.h"
#include "sim/sim_rng.h"

static int run(long customers, bench_clock *secs, double *events)
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
    bench_clock t0 = bench_start();
    int rc = sim_rep_run(&sc.plan, &sc.layout, sc.type->replicate, sc.model, sc.seed, &r, &err);
    *secs = bench_since(t0);
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
        enum { K = 5 };
        double wall[K], cpu[K], ev = 0;
        for (int k = 0; k < K; k++) {
            bench_clock t;
            if (run(sizes[i], &t, &ev))
                return 1;
            wall[k] = t.wall;
            cpu[k] = t.cpu;
        }
        double med = bench_median(wall, K), medc = bench_median(cpu, K);
        printf("mm1 rho=0.9 customers=%-9ld median %.3f s  %.2f M customers/s (CPU time: %.2f M "
               "customers/s)  %.1f M calendar events/s (%.1f M/s at 4 events/customer)  peak "
               "%.1f MiB\n",
               sizes[i], med, sizes[i] / med / 1e6, sizes[i] / medc / 1e6, ev / med / 1e6,
               4.0 * sizes[i] / med / 1e6, bench_peak_mib());
        fflush(stdout);
    }
    return 0;
}
