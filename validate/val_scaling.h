/* val_scaling: throughput versus concurrency of one phase of one
 * architecture in a TigerBench file: measured, Amdahl-predicted,
 * Amdahl-fitted, USL-fitted and (when provided) simulated.
 *
 * Role: the per-phase table of `tfsim amdahl --tigerbench FILE --arch A
 * --usl`.  For each concurrency N with phase rows:
 *  - measured: mean and sd across repetitions;
 *  - amdahl_pred: the seed's method, predicted from the N = 1 point only:
 *    R1 = 1/X(1), serial o = R1 - (sum of the phase's kind means at N = 1),
 *    sigma1 = o / R1, X(N) = X(1) N / (1 + sigma1 (N - 1)) (NaN without an
 *    N = 1 point or kind rows there);
 *  - amdahl_fit, usl_fit: the least-squares fits of val_usl.h over all N;
 *  - simulated (and its CI half-width): empty until the caller fills it with
 *    val_scaling_set_simulated() -- the hook for a simulation run from a
 *    config, e.g. `tfsim amdahl ... --config FILE` later;
 *  - r_ms = N / X (the response time by Little's law; exact for sliding-
 *    window phases, an upper bound for waves) and kinds_ms (sum of the
 *    phase's kind means at that N): the gap between them is time per
 *    request outside the timed awaits.  A kind's timing is pooled over the
 *    phases that await it (accounting.hold over checkout and reserve,
 *    accounting.commit_order over webhook and commit), so kinds_ms is an
 *    estimate for a single phase.
 *
 * Invariants: points ascend in N; fits need at least 4 distinct N (USL) and
 * 3 (Amdahl), else val_scaling_init fails with SIM_EINPUT.
 * Cost: O(points) memory; the fits dominate the time (val_usl.h).
 */
#ifndef VAL_SCALING_H
#define VAL_SCALING_H

#include <stddef.h>

#include "sim/sim_err.h"
#include "sim/sim_table.h"
#include "validate/val_laws.h"
#include "validate/val_tigerbench.h"
#include "validate/val_usl.h"

typedef struct val_scaling_point {
    long n;
    int reps;
    double x_mean, x_sd;             /* measured, 1/s */
    double kinds;                    /* s; NaN when a kind is missing at this N */
    double amdahl_pred, amdahl_fit, usl_fit;
    double simulated, simulated_half; /* NaN until val_scaling_set_simulated */
} val_scaling_point;

typedef struct val_scaling {
    char arch[VAL_TIGERBENCH_NAME_MAX], phase[VAL_TIGERBENCH_NAME_MAX];
    int window;                      /* sliding-window phase (N constant) */
    size_t n;
    val_scaling_point *pts;          /* owned */
    double x1, r1, kinds1, serial1, sigma1; /* the N = 1 inference; NaN without it */
    val_usl_result usl, amdahl;
} val_scaling;

/* Build the analysis of phase of architecture arch in tb (borrowed; only
 * read during the call).  SIM_EINPUT naming the file for an unknown
 * architecture or phase or too few concurrencies; SIM_EFAIL when a fit does
 * not converge.  On failure s needs no fini. */
int val_scaling_init(val_scaling *s, const val_tigerbench *tb, const char *arch,
                     const char *phase, sim_err *err);
void val_scaling_fini(val_scaling *s);

/* HOOK for a simulated column: record the simulated throughput x (1/s)
 * and its confidence-interval half-width (NaN if none) at concurrency n.
 * Returns 0, or -1 when there is no measured point at n. */
int val_scaling_set_simulated(val_scaling *s, long n, double x, double half);

/* Append one row per point to t: arch, phase, concurrency, reps, x_mean,
 * x_sd, amdahl_pred, amdahl_fit, usl_fit, simulated, simulated_half, r_ms,
 * kinds_ms.  Borrowed t. */
void val_scaling_points_table(const val_scaling *s, sim_table *t);
/* Append two rows (usl, amdahl) with the fitted parameters, their standard
 * errors, R^2, adjusted R^2, AICc, N*, X(N*) and which fits better. */
void val_scaling_fits_table(const val_scaling *s, sim_table *t);

/* Operational-law checks at every point: utilisation law with the N = 1
 * serial estimate (the seed's inference), Little's law with R = the kind
 * timings at that N (gap findings only when with_gaps), asymptotic bounds
 * with the N = 1 demands (event loop: serial1 on `workers` servers; the
 * kinds as a delay station).  Returns the number of findings added. */
size_t val_scaling_laws(const val_scaling *s, int workers, double tol, int with_gaps,
                        val_laws_findings *f);

#endif
