/* cli_calib: what `calibrate` and `predict` share: the base configuration
 * for an architecture of a TigerBench file and the default set of
 * parameters to fit. */
#ifndef CLI_CALIB_H
#define CLI_CALIB_H

#include "sim/sim_cfg.h"
#include "sim/sim_table.h"
#include "validate/val_calib.h"
#include "validate/val_tigerbench.h"

/* The flags calibrate and predict share. */
typedef struct cli_calib_args {
    const char *file;    /* --tigerbench */
    const char *base;    /* --config */
    sim_format fmt;      /* --format */
    unsigned long long seed;
    long reps;
    double rows0;        /* --rows0 */
    sim_cfg *ov;         /* --set overrides (borrowed; created by the caller) */
} cli_calib_args;

/* If argv[*i] is one of the shared flags, consume it and its value and
 * return 1; 0 if it is not; -1 after printing the error (the exit code is
 * then EXIT_INPUT).  min_reps bounds --reps. */
int cli_calib_flag(const char *cmd, int argc, char **argv, int *i, long min_reps,
                   cli_calib_args *a);

/* Load base_path (or nothing: the embedded defaults) into cfg, then set
 * the architecture of arch (its accounting and payments backends), then
 * apply the overrides in ov. */
int cli_calib_base(const char *base_path, const val_tigerbench *tb, const char *arch,
                   const sim_cfg *ov, sim_cfg *cfg, sim_err *err);

/* Fill params from a comma-separated key list (NULL: the default list of
 * parameters that cannot be measured directly), with start values read
 * from cfg and the default bounds.  Returns SIM_EINPUT for an unknown or
 * non-numeric key. */
int cli_calib_params(const char *list, const sim_cfg *cfg, val_calib_param *params, size_t max,
                     size_t *n, sim_err *err);

/* Current numeric value of "section.key" in cfg (schema default if unset). */
int cli_calib_value(const sim_cfg *cfg, const char *key, double *v, sim_err *err);

#endif
