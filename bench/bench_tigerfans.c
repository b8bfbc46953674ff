/* One 4-phase TigerFans benchmark run (concurrency 100, 1000 requests per
 * phase = 4000 requests) for each architecture: median wall time (and the
 * thread's CPU time) of 21 single-replication runs, and events per second;
 * also the least CPU time of the 21 (on a shared VM the median moves by
 * 30% from one invocation to the next, the minimum by a few percent: the
 * figure to compare two builds by).
 * Target (issue 18): pg_pg under 8 ms per run. */
#include <stdio.h>
#include <string.h>

#include "bench/bench_util.h"
#include "models/mdl.h"
#include "sim/sim_rng.h"

int main(void)
{
    sim_rng_setup();
    const char *archs[][2] = {{"pg", "pg"}, {"pg", "redis"}, {"tb", "redis"}};
    for (int a = 0; a < 3; a++) {
        char text[512];
        snprintf(text, sizeof text,
                 "[run]\nreplications = 1\n[architecture]\naccounting = %s\npayments = %s\n"
                 "[client]\nconcurrency = 100\ntotal = 1000\n",
                 archs[a][0], archs[a][1]);
        double t[21], tc[21], ev = 0;
        for (int k = 0; k < 21; k++) {
            sim_cfg *c = sim_cfg_new();
            sim_err err;
            sim_err_clear(&err);
            mdl_scenario sc;
            if (sim_cfg_load_string(c, text, "bench", &err) || mdl_scenario_init(&sc, c, &err)) {
                fprintf(stderr, "bench_tigerfans: %s\n", err.msg);
                return 1;
            }
            sim_rep_result r;
            bench_clock t0 = bench_start();
            if (sim_rep_run(&sc.plan, &sc.layout, sc.type->replicate, sc.model, (uint64_t)k + 1,
                            &r, &err)) {
                fprintf(stderr, "bench_tigerfans: %s\n", err.msg);
                return 1;
            }
            bench_clock dt = bench_since(t0);
            t[k] = dt.wall;
            tc[k] = dt.cpu;
            ev = r.mean[sim_layout_find(&sc.layout, "run", "totals", "events")];
            sim_rep_result_fini(&r);
            mdl_scenario_fini(&sc);
            sim_cfg_free(c);
        }
        double med = bench_median(t, 21), medc = bench_median(tc, 21);
        double minc = tc[0]; /* bench_median sorted tc */
        printf("tigerfans %s_%s c=100 4000 requests: median %.2f ms per run (CPU time: %.2f ms, "
               "least %.2f ms), %.0f events, %.1f M events/s  peak %.1f MiB\n",
               archs[a][0], archs[a][1], med * 1e3, medc * 1e3, minc * 1e3, ev, ev / med / 1e6,
               bench_peak_mib());
        fflush(stdout);
    }
    return 0;
}
