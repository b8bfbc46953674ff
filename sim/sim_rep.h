/* sim_rep: independent replications, confidence intervals and the
 * sequential stopping rule, run on several threads.
 *
 * Role: a model describes its outputs once as a layout (scope, name,
 * metric, optional theoretical value) and provides a replicate function
 * that fills one double per metric for replication `rep` from random
 * streams derived from (seed, rep, stream).  sim_rep_run runs replications
 * 0, 1, 2, ... until every watched metric's relative CI half-width is below
 * the target (with a minimum and a cap), and returns per-metric mean and
 * half-width (Student t over replications).
 *
 * Determinism: replications run in rounds of `jobs` in parallel, but the
 * stopping rule is checked in replication order after each round, and only
 * replications 0..m-1 are kept, so results do not depend on `jobs`.
 * Invariants: replicate must be thread-safe for a shared const model (all
 * per-replication state lives inside the call).
 * Cost: O(reps x metrics) memory for the per-replication values.
 */
#ifndef SIM_REP_H
#define SIM_REP_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim_err.h"
#include "sim/sim_table.h"

#define SIM_METRIC_WATCH 1u   /* the stopping rule watches this metric */

typedef struct sim_metric {
    char scope[16];   /* "station", "phase", "component", "kind", ... */
    char name[48];    /* row name within the scope */
    char metric[32];  /* column name: "throughput", "p99", ... */
    double theory;    /* analytic value, NaN if none */
    unsigned flags;
    const char *fmt;  /* printf format for text output (string literal), or NULL */
    /* Text output only (CSV and JSON keep the model's unit): values are
     * multiplied by text_scale and the column is named METRIC_UNIT, e.g.
     * seconds shown as p99_ms.  Set with sim_layout_text_unit. */
    double text_scale;
    const char *text_unit;  /* string literal, or NULL: as stored */
} sim_metric;

typedef struct sim_layout {
    sim_metric *m;
    size_t n, cap;
} sim_layout;

void sim_layout_init(sim_layout *l);
void sim_layout_fini(sim_layout *l);
/* Add a metric; returns its index. Strings are copied (truncated to fit). */
size_t sim_layout_add(sim_layout *l, const char *scope, const char *name, const char *metric,
                      double theory, unsigned flags, const char *fmt);
/* Show metric k in text output in another unit: value x text_scale, the
 * column named METRIC_UNIT (unit: a string literal such as "ms"). */
void sim_layout_text_unit(sim_layout *l, size_t k, double text_scale, const char *unit);
/* The text column name of a metric (METRIC or METRIC_UNIT) into buf;
 * returns buf. */
const char *sim_metric_text_name(const sim_metric *m, char *buf, size_t len);
/* The text of a mean and CI half-width in the metric's text unit and
 * format, as sim_table_fmt_ci writes it; returns buf. */
const char *sim_metric_text(const sim_metric *m, double mean, double half, char *buf, size_t len);
/* Index of (scope, name, metric) or -1. */
long sim_layout_find(const sim_layout *l, const char *scope, const char *name, const char *metric);

/* Fill values[0..n) for replication rep.  Returns SIM_OK or an error code
 * with err filled. */
typedef int (*sim_rep_fn)(const void *model, uint64_t seed, uint32_t rep, double *values,
                          sim_err *err);

typedef struct sim_rep_plan {
    uint32_t min_reps;   /* >= 2 for a CI (1 allowed: no CI) */
    uint32_t max_reps;   /* cap */
    double target_rel;   /* stop when every watched half/|mean| <= this; 0 = run max_reps */
    double level;        /* e.g. 0.95 */
    int jobs;            /* threads, >= 1 */
} sim_rep_plan;

typedef struct sim_rep_result {
    size_t n;            /* metrics */
    uint32_t reps;       /* replications kept */
    int converged;       /* the stopping rule was met (or not asked for) */
    double *mean, *half; /* n entries each, owned */
    double *values;      /* reps x n, row-major, owned */
} sim_rep_result;

/* Run.  out is caller storage, filled on success; free with
 * sim_rep_result_fini (also safe after a failure). */
int sim_rep_run(const sim_rep_plan *plan, const sim_layout *layout, sim_rep_fn fn,
                const void *model, uint64_t seed, sim_rep_result *out, sim_err *err);
void sim_rep_result_fini(sim_rep_result *r);

/* Append one row per (scope, name) to t: columns scope, name, then per
 * metric `metric`, `metric_ci` (half-width, when reps >= 2) and
 * `metric_theory` (when any theory value exists for that metric). */
void sim_rep_table(const sim_layout *l, const sim_rep_result *r, sim_table *t);
/* The same for people: each metric in one column as "mean ± half" (text),
 * the theory value, when any, in a column "metric (theory)". */
void sim_rep_table_text(const sim_layout *l, const sim_rep_result *r, sim_table *t);

#endif
