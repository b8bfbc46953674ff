/* cli_sweep: what `sweep`, `plan` and friends share: parse --vary, check
 * the base scenario once (so config errors name file and line), allocate
 * the points, and turn finished points into result tables.
 */
#ifndef CLI_SWEEP_H
#define CLI_SWEEP_H

#include "cli/cli_scenario.h"
#include "models/mdl_sweep.h"
#include "sim/sim_table.h"

typedef struct cli_sweep {
    char key[128];
    char **values;
    size_t n;
    mdl_sweep_point *pts;
    int jobs;
} cli_sweep;

/* Load the config (with overrides) into cfg, validate the scenario, parse
 * vary ("KEY=SPEC") and allocate the points. */
int cli_sweep_prepare(const char *cmd, const cli_opts *o, sim_cfg *cfg, sim_cfg *ov,
                      const char *vary, cli_sweep *sw, sim_err *err);
void cli_sweep_fini(cli_sweep *sw);

/* One row per point (or, long, per point and result row).  Returns an exit
 * code (a failed point is reported on stderr and gives EXIT_FAIL). */
int cli_sweep_table(const char *cmd, const cli_sweep *sw, int longf, sim_table *t);

/* Mean and half-width of (scope, name, metric) at point i; NaN if absent. */
double cli_sweep_value(const cli_sweep *sw, size_t i, const char *scope, const char *name,
                       const char *metric, double *half);

#endif
