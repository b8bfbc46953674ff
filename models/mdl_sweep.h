/* mdl_sweep: run one scenario at many settings of one config key, the
 * points in parallel.
 *
 * Role: shared by `tfsim sweep`, `plan` and `predict`.  Each point is the
 * base config plus "key=value" (applied after every other override) and
 * runs its replications on one thread; points are spread over `jobs`
 * threads.  A point's results depend only on its config and seed, so the
 * output is identical whatever `jobs` is.
 * Ownership: mdl_sweep_run allocates pts[i].result and pts[i].layout,
 * freed by mdl_sweep_points_fini; the base config is borrowed.
 */
#ifndef MDL_SWEEP_H
#define MDL_SWEEP_H

#include <stddef.h>

#include "sim/sim_cfg.h"
#include "sim/sim_err.h"
#include "sim/sim_rep.h"

typedef struct mdl_sweep_point {
    char value[128];       /* the value of the varied key, as text */
    int status;            /* SIM_OK or the error code of this point */
    sim_err err;
    sim_layout layout;
    sim_rep_result result;
    char model[32];        /* model type name */
} mdl_sweep_point;

/* Parse "1,5,10" or "1..8" (integers, step 1) or "1..100:10" (step) into
 * an array of value strings owned by the caller (free each and the array);
 * a list splits at commas outside parentheses, so that a distribution's
 * own commas stay in its value ("uniform(1ms, 3ms),const(2ms)": two);
 * SIM_EINPUT on bad syntax or more than 10000 values (any A..B range). */
int mdl_sweep_values(const char *spec, char ***values, size_t *n, sim_err *err);

/* Run every point; `done(i, ctx)` (may be NULL) is called from worker
 * threads after point i finishes (for progress).  Returns SIM_OK when the
 * points ran (each point's own status says if it failed), or an error for
 * a bad key. */
int mdl_sweep_run(const sim_cfg *base, const char *key, mdl_sweep_point *pts, size_t n, int jobs,
                  void (*done)(size_t i, void *ctx), void *ctx, sim_err *err);
void mdl_sweep_points_fini(mdl_sweep_point *pts, size_t n);

/* Copy every entry of src into dst as overrides (dst wins nothing: its
 * later entries do).  Used to derive a point's config from a base. */
int mdl_cfg_copy(sim_cfg *dst, const sim_cfg *src, sim_err *err);

#endif
