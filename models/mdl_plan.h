/* mdl_plan: the decisions of capacity planning (`tfsim plan`).
 *
 * Role: given a throughput target (and optionally a p99 limit) and, per
 * setting, the simulated means with their confidence-interval half-widths,
 * say whether the setting meets the target, fails it, or is undecided
 * (an interval straddles the target or the limit), and pick the cheapest
 * setting.  The target a simulated throughput must reach is the user's
 * over 1 - margin (mdl_plan_needed: the throughput less the margin reaches
 * the user's): the margin is headroom for the model's own error, which the
 * replications' intervals do not hold (tfsim predict's band measures it).
 * A decision is clear only when the interval clears it:
 *   meets:     x - xh >= needed  and  (no limit or p99 + ph <= limit)
 *   fails:     x + xh <  needed  or   (a limit and p99 - ph > limit)
 *   undecided: otherwise (also when a half-width is unknown: one replication)
 * The command adds replications to undecided settings (mdl_plan_next_reps:
 * doubling, up to the cap of the sequential rule) until every decision is
 * clear or the cap is reached, so the answer does not hang on how many
 * replications the first round had.
 *
 * Invariants: pure functions.  Cost O(1), mdl_plan_pick O(n).
 */
#ifndef MDL_PLAN_H
#define MDL_PLAN_H

#include <stddef.h>

typedef enum mdl_plan_decision {
    MDL_PLAN_FAILS = 0,
    MDL_PLAN_MEETS,
    MDL_PLAN_UNDECIDED
} mdl_plan_decision;

typedef struct mdl_plan_target {
    double throughput;  /* requests/s (or the station's unit), > 0 */
    double p99_max;     /* seconds; INFINITY: no limit */
    double margin;      /* 0 <= margin < 1, a fraction: the simulated throughput less
                           this share must reach throughput */
} mdl_plan_target;

/* The throughput a setting's simulation must reach: throughput / (1 - margin). */
double mdl_plan_needed(const mdl_plan_target *t);

mdl_plan_decision mdl_plan_decide(const mdl_plan_target *t, double x, double xh, double p99,
                                  double ph);
/* "meets", "fails", "undecided" */
const char *mdl_plan_decision_name(mdl_plan_decision d);

/* The cheapest setting (settings in order, cheapest first) that meets the
 * target, or -1.  *undecided (may be NULL): how many settings before it
 * (all of them when none meets) are undecided: the answer is sure only
 * when this is 0. */
long mdl_plan_pick(const mdl_plan_decision *d, size_t n, size_t *undecided);

/* Replications for the next round of undecided settings: twice reps, at
 * most cap; 0 when reps has reached cap (no more rounds). */
long mdl_plan_next_reps(long reps, long cap);

#endif
