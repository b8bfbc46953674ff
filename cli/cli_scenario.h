/* cli_scenario: the options every simulating command shares (CONFIG,
 * --set, --seed, --reps, --jobs, --format, --db; --manifest for `run`
 * only), loading the scenario they describe, and the manifest that records
 * how a result was made (for --manifest and the results store).
 *
 * --jobs is kept out of the config overrides: it changes how fast results
 * come, never what they are, so it must not change the config hash, the
 * manifest or a stored sweep's resume key.
 */
#ifndef CLI_SCENARIO_H
#define CLI_SCENARIO_H

#include "models/mdl.h"
#include "reports/rep_store.h"
#include "sim/sim_cfg.h"
#include "sim/sim_table.h"

typedef struct cli_opts {
    const char *config;     /* path or NULL for the embedded defaults */
    sim_format format;
    const char *manifest;   /* --manifest FILE or NULL */
    const char *db;         /* --db FILE or NULL */
    int jobs;               /* --jobs N, or 0: run.jobs from the config */
} cli_opts;

/* If argv[*i] is a shared option, consume it (and its value), apply it to
 * cfg or opts, and return 1; return 0 if it is not one; return -1 after
 * printing a usage error. */
int cli_scenario_opt(const char *cmd, int argc, char **argv, int *i, sim_cfg *cfg, cli_opts *o);

/* A non-option argument: take it as CONFIG (returns 0), or, for an unknown
 * option or a second CONFIG, print a usage error and return EXIT_INPUT. */
int cli_config_arg(const char *cmd, const char *arg, cli_opts *o);

/* Load opts->config (if any) into cfg, then re-apply the overrides that
 * cli_scenario_opt recorded (so --set wins over the files).  Returns
 * SIM_OK or an error in err. */
int cli_scenario_load(const cli_opts *o, sim_cfg *cfg, sim_cfg *overrides, sim_err *err);

/* Fill m (caller storage) for a result of scenario sc loaded into cfg by
 * command cmd: config text, overrides, seed, replications, config hash,
 * git revision and compiler flags.  Every string is borrowed from cfg, o or
 * the build facts; m is valid while they are. */
void cli_manifest_init(rep_manifest *m, const char *cmd, const cli_opts *o, const sim_cfg *cfg,
                       const mdl_scenario *sc);

/* Write the run manifest as JSON to path. */
int cli_write_manifest(const char *path, const char *cmd, const sim_cfg *cfg,
                       const mdl_scenario *sc, unsigned reps, sim_err *err);

struct rep_manifest;
/* Store table t (borrowed) as one run with manifest m in the results
 * database at path, after the results were printed: on failure print
 * "tfsim CMD: results printed but not stored: ..." and return EXIT_FAIL;
 * on success say where it went (stderr) and return 0. */
int cli_store_run(const char *cmd, const char *path, const struct rep_manifest *m,
                  const sim_table *t);

/* Before any work: open (creating if missing) the results database at path
 * and close it again, so that a file that is not a tfsim database, or
 * cannot be written, fails at once with the exit status every command
 * gives (2 bad input, 1 runtime failure) and a message; 0 when fine. */
int cli_check_db(const char *cmd, const char *path);

/* Install the live events/s printer on stderr (only when it is a tty or
 * TFSIM_PROGRESS=1). */
void cli_progress_install(void);

#endif
