/* cli_live: what `tfsim live` and `tfsim compare` share: the server and
 * CPU-step options and loading a TigerFans scenario into tf_params (their
 * stop signals: cli_stop_signals in cli.h).
 */
#ifndef CLI_LIVE_H
#define CLI_LIVE_H

#include "cli/cli_scenario.h"
#include "models/tf_params.h"
#include "sim/sim_cfg.h"
#include "validate/val_live.h"
#include "validate/val_live_srv.h"

/* The options help text of cli_live_opt (for the usage strings). */
#define CLI_LIVE_OPTIONS_HELP \
    "servers:\n" \
    "  --redis-socket PATH   Redis unix socket (default: TCP --redis-host/--redis-port,\n" \
    "                        127.0.0.1:6379)\n" \
    "  --redis-host H, --redis-port P\n" \
    "  --redis-user U        ACL user for AUTH (default: the default user)\n" \
    "  --redis-password PW   (default: $TFSIM_REDIS_PASSWORD; never printed)\n" \
    "  --redis-db N          database number (default 15)\n" \
    "  --redis-prefix P      key prefix (default tfsim:live:<pid>:)\n" \
    "  --pg-conninfo S       libpq connection string or URI (default: libpq's\n" \
    "                        defaults and PG* variables; PGPASSWORD works)\n" \
    "  --pg-keep             leave the schema tfsim_live in place at the end\n" \
    "  --timeout T           allowed for a connection and for each reply (default 5s)\n" \
    "CPU steps (the stand-in for the Python server's serial work):\n" \
    "  --cpu-scale F         spin F x each CPU step's seconds of the config (default 1;\n" \
    "                        0: none)\n" \
    "  --cpu-per-step T      spin T more in every CPU step (default 0; e.g. 1ms)\n"

/* If argv[*i] is one of the options above, consume it (and its value)
 * into s or o and return 1; 0 if it is not one; -1 after printing a usage
 * error. */
int cli_live_opt(const char *cmd, int argc, char **argv, int *i, val_live_srv *s, val_live_opts *o);

/* Defaults for s and o (TFSIM_REDIS_PASSWORD read here). */
void cli_live_defaults(val_live_srv *s, val_live_opts *o);

/* Load o->config with the overrides ov into cfg, check it as a TigerFans
 * scenario and read its parameters into p (caller storage; free with
 * tf_params_fini, also after a failure).  SIM_EINPUT naming file:line:
 * key, also when the live driver cannot run it (val_live_check). */
int cli_live_params(const cli_opts *o, sim_cfg *cfg, sim_cfg *ov, tf_params *p, sim_err *err);

/* Progress line on stderr after each phase (ctx: the command name). */
void cli_live_progress(void *ctx, int phase, double ok, double wall);

#endif
