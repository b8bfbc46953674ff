/* mdl_plan: see mdl_plan.h.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "models/mdl_plan.h"

#include <assert.h>
#include <math.h>

double mdl_plan_needed(const mdl_plan_target *t)
{
    assert(t && t->throughput > 0 && t->margin >= 0 && t->margin < 1);
    return t->throughput / (1 - t->margin);
}

mdl_plan_decision mdl_plan_decide(const mdl_plan_target *t, double x, double xh, double p99,
                                  double ph)
{
    double need = mdl_plan_needed(t);
    int limit = isfinite(t->p99_max);
    if (isnan(x) || (limit && isnan(p99)))
        return MDL_PLAN_UNDECIDED;
    if (isnan(xh) || (limit && isnan(ph)))
        return MDL_PLAN_UNDECIDED; /* no interval: one replication */
    if (x + xh < need || (limit && p99 - ph > t->p99_max))
        return MDL_PLAN_FAILS;
    if (x - xh >= need && (!limit || p99 + ph <= t->p99_max))
        return MDL_PLAN_MEETS;
    return MDL_PLAN_UNDECIDED;
}

const char *mdl_plan_decision_name(mdl_plan_decision d)
{
    switch (d) {
    case MDL_PLAN_MEETS: return "meets";
    case MDL_PLAN_FAILS: return "fails";
    case MDL_PLAN_UNDECIDED: return "undecided";
    }
    return "?";
}

long mdl_plan_pick(const mdl_plan_decision *d, size_t n, size_t *undecided)
{
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == MDL_PLAN_MEETS) {
            if (undecided)
                *undecided = u;
            return (long)i;
        }
        u += d[i] == MDL_PLAN_UNDECIDED;
    }
    if (undecided)
        *undecided = u;
    return -1;
}

long mdl_plan_next_reps(long reps, long cap)
{
    if (reps >= cap)
        return 0;
    long next = reps < 1 ? 2 : 2 * reps;
    return next < cap ? next : cap;
}
