/* cli_calib: what `calibrate` and `predict` share on the command line:
 * their common flags, the results database as the calibrations' cache,
 * and the progress bar.
 */
#ifndef CLI_CALIB_H
#define CLI_CALIB_H

#include <stdint.h>

#include "reports/rep_progress.h"
#include "sim/sim_cfg.h"
#include "sim/sim_table.h"
#include "validate/val_calib.h"

/* The flags calibrate and predict share. */
typedef struct cli_calib_args {
    val_calib_run_opts run;  /* --tigerbench, --config, --rows0, --seed, --jobs, --set */
    sim_format fmt;          /* --format */
    const char *db;          /* --db: the results database (also the cache) */
    sim_cfg *ov;             /* --set overrides; owned */
} cli_calib_args;

/* Defaults (val_calib_run_opts_init, text output); free with
 * cli_calib_args_fini. */
void cli_calib_args_init(cli_calib_args *a);
void cli_calib_args_fini(cli_calib_args *a);

/* If argv[*i] is one of the shared flags (--tigerbench, --config,
 * --format, --seed, --rows0, --set, --jobs, --db), consume it and its
 * value and return 1; 0 if it is not; -1 after printing the error (the
 * exit code is then EXIT_INPUT). */
int cli_calib_flag(const char *cmd, int argc, char **argv, int *i, cli_calib_args *a);

/* The results database at path as a calibration cache: a calibration is
 * stored as a run of the command "calibrate" (config: the fitted values as
 * INI; overrides: each fitted value exactly, then objective and
 * iterations; config hash: the calibration's key; table: the per-point
 * table).  A missing file holds nothing.  *saved_run gets the id of a run
 * stored (0 when none). */
typedef struct cli_calib_store {
    const char *path;
    int64_t found_run, saved_run;
} cli_calib_store;
void cli_calib_cache(cli_calib_store *st, val_calib_cache *c);

/* A progress bar with ETA on stderr when it is a terminal, fed by the
 * calibration's progress callback (share of the work done). */
typedef struct cli_calib_bar {
    rep_progress bar;
    size_t shown;
} cli_calib_bar;
void cli_calib_bar_start(cli_calib_bar *b, const char *label);
void cli_calib_bar_update(void *ctx, unsigned evals, double done);
void cli_calib_bar_end(cli_calib_bar *b);

#endif
