/* cli_sweep: what `sweep` and `plan` share: parse --vary, check the base
 * scenario and every point once (so that config errors name file and
 * line), run the points in parallel, resuming from and saving to a results
 * store when --db is given, and turn the points' results into tables.
 *
 * Invariants: every point's result is one long table in sim_rep_table's
 * layout (one row per scope/name; columns metric, metric_ci when there are
 * at least two replications, metric_theory), either computed or loaded
 * from the store.  Every view (wide, long, single values) is built from
 * those tables alone, so the output is the same whether points were
 * resumed or computed, and whatever --jobs is.
 * Threads: the points run on worker threads (models/mdl_sweep.h); the
 * store, the progress bar and the tables are touched only by the thread
 * that calls cli_sweep_run, which collects points as they finish and saves
 * each one (its run and its point row, in one transaction) at once, so a
 * killed sweep keeps every point it finished.
 * Cost: one long table per point in memory (a few kB each); one store
 * transaction per computed point.
 */
#ifndef CLI_SWEEP_H
#define CLI_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "cli/cli_scenario.h"
#include "reports/rep_store.h"
#include "sim/sim_rep.h"
#include "sim/sim_table.h"

typedef struct cli_sweep {
    char key[128];         /* the varied SECTION.KEY */
    char **values;         /* its n values, owned */
    size_t n;
    int jobs;              /* threads for the points */
    uint64_t seed;         /* of the base scenario */
    long replications;     /* of the base scenario (the minimum with target_ci) */
    long max_replications; /* run.max_replications of the base scenario */
    double level;          /* its confidence level */
    sim_layout layout;     /* outputs of the base scenario (text formats), owned */
    char **overrides;      /* per point: the overrides of its run, owned */
    uint64_t *hash;        /* per point: sim_cfg_hash of its config */
    char *sweep_overrides; /* the overrides without the varied key, owned */
    sim_table **tables;    /* per point: its result table (owned), NULL if it failed */
    int *status;           /* per point: SIM_OK or the error code of the point */
    sim_err *errs;         /* per point: the error when status != SIM_OK */
    size_t resumed;        /* points loaded from the store */
    int64_t sweep_id;      /* the stored sweep (0 without a store) */
    int store_failed;      /* a save failed: later points were not stored */
    sim_err store_err;
} cli_sweep;

/* Load the config (with overrides ov) into cfg, validate the scenario,
 * parse vary ("KEY=SPEC"), and check every point's config.  sw is caller
 * storage, filled here; free with cli_sweep_fini (also after a failure). */
int cli_sweep_prepare(const cli_opts *o, sim_cfg *cfg, sim_cfg *ov, const char *vary,
                      cli_sweep *sw, sim_err *err);
void cli_sweep_fini(cli_sweep *sw);

/* The results-database manifest of a sweep-like command over cfg (its
 * strings borrowed from o, cfg and sw: valid while they are). */
rep_manifest cli_sweep_manifest(const char *command, const cli_opts *o, const sim_cfg *cfg,
                                const cli_sweep *sw);

/* Run every point of sw over cfg (both borrowed).  With o->db, first open
 * the store and begin (or find) the sweep keyed by the config text, the
 * overrides without the varied key, the varied key, the values, the seed
 * and the replications; points already stored are loaded, not simulated;
 * each computed point is saved as soon as it finishes.  A progress bar with
 * ETA is drawn on stderr when it is a terminal.  Returns SIM_OK when the
 * points ran (each one's status says whether it failed; a failed save sets
 * store_failed and the sweep goes on without storing), or an error from
 * opening or reading the store, before anything was simulated. */
int cli_sweep_run(const char *cmd, const cli_opts *o, const sim_cfg *cfg, cli_sweep *sw,
                  sim_err *err);

/* Append to t one row per point (or, long, per point and result row) and
 * return an exit code: a failed point is reported on stderr and gives
 * EXIT_FAIL (EXIT_INPUT for bad input).  The one-row view ends with the
 * column `bottleneck` (rep_bottleneck).  text: for people, each metric
 * with its interval in one column ("mean ± half", in the metric's text
 * unit, e.g. checkout.p99_ms) and the bottleneck with its utilisation;
 * otherwise numbers in the model's units, intervals as METRIC_ci. */
int cli_sweep_table(const char *cmd, const cli_sweep *sw, int longf, int text, sim_table *t);

/* Say on out where the load generator saturates first (the points that
 * measure it), or that no point has a saturated component. */
void cli_sweep_bottlenecks(const cli_sweep *sw, FILE *out);

/* Mean and CI half-width (*half, may be NULL) of (scope, name, metric) at
 * point i; NaN when absent. */
double cli_sweep_value(const cli_sweep *sw, size_t i, const char *scope, const char *name,
                       const char *metric, double *half);

#endif
