/* mdl: the model registry and what every scenario shares.
 *
 * Role: a scenario file names its model in [model] type; each model is a
 * const table of function pointers (mdl_type) with its own config schema.
 * mdl_load reads the common [run] section (seed, replications, stopping
 * rule, resource bounds), checks the whole config against the common and
 * the model's schema (unknown keys rejected with a did-you-mean), and sets
 * the model up.  mdl_run runs the replications and builds the result table.
 *
 * Ownership: mdl_scenario owns the model state and layout; free with
 * mdl_scenario_fini.  The config stays owned by the caller and must outlive
 * the scenario (models borrow strings from it).
 */
#ifndef MDL_H
#define MDL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim_cfg.h"
#include "sim/sim_err.h"
#include "sim/sim_rep.h"
#include "sim/sim_rng.h"
#include "sim/sim_table.h"

/* What every model's replications share from [run]: resource bounds (a
 * run that would exceed a limit stops with a clear message) and the random
 * number generator of its streams. */
typedef struct mdl_limits {
    uint64_t max_events;     /* per replication */
    double max_sim_time;     /* simulated seconds per replication */
    uint64_t max_pending;    /* calendar size (memory) */
    sim_rng_kind rng;        /* generator of every random stream (run.rng) */
} mdl_limits;

typedef struct mdl_type {
    const char *name;
    const char *summary;
    /* The model's config schema (static storage) and its length. */
    const sim_cfg_key *(*schema)(size_t *n);
    /* Read the config into a new model state (owned by the caller, freed
     * with free_model) and declare the outputs in layout. */
    int (*setup)(const sim_cfg *cfg, const sim_cfg_key *schema, size_t nschema,
                 const mdl_limits *lim, void **model, sim_layout *layout, sim_err *err);
    void (*free_model)(void *model);
    sim_rep_fn replicate;
    /* Optional: add analytic columns/rows and warnings after the run
     * (notes go to the notes table: columns level, message). */
    void (*annotate)(const void *model, const sim_layout *layout, const sim_rep_result *res,
                     sim_table *results, sim_table *notes);
    /* Optional: refuse (SIM_EINPUT, through mdl_check_size) a model whose
     * replications clearly cannot finish within the limits. */
    int (*check_size)(const void *model, const sim_cfg *cfg, const mdl_limits *lim,
                      sim_err *err);
} mdl_type;

extern const mdl_type mdl_queueing_type;
extern const mdl_type mdl_tigerfans_type;
extern const mdl_type mdl_redis_bench_type;

/* The model named `name`, or NULL. */
const mdl_type *mdl_find(const char *name);

/* The schema of the common sections plus the given model's (or all
 * models' when type is NULL, a table that two models share listed once);
 * owned by the caller (free()). */
sim_cfg_key *mdl_schema(const mdl_type *type, size_t *n);

typedef struct mdl_scenario {
    const mdl_type *type;
    void *model;
    sim_layout layout;
    sim_rep_plan plan;
    uint32_t rep_cap;    /* run.max_replications: the cap of any sequential rule */
    uint64_t seed;
    mdl_limits limits;
    sim_cfg_key *schema;
    size_t nschema;
} mdl_scenario;

/* Set up from a loaded config (overrides already applied), then refuse a
 * scenario that clearly cannot finish within its limits (the model's
 * check_size: a cheap lower bound of one replication's events and
 * simulated time). */
int mdl_scenario_init(mdl_scenario *sc, const sim_cfg *cfg, sim_err *err);
/* The same without the size check (a sweep's base config, which never
 * runs itself). */
int mdl_scenario_setup(mdl_scenario *sc, const sim_cfg *cfg, sim_err *err);
void mdl_scenario_fini(mdl_scenario *sc);

/* Run the replications and fill results (a table owned by the caller) and
 * notes (may be NULL).  res receives the raw replication results (caller
 * frees with sim_rep_result_fini). */
int mdl_scenario_run(mdl_scenario *sc, sim_rep_result *res, sim_table *results, sim_table *notes,
                     sim_err *err);
/* Same, with the result table laid out for people ("mean ± half"). */
int mdl_scenario_run_text(mdl_scenario *sc, sim_rep_result *res, sim_table *results,
                          sim_table *notes, sim_err *err);

/* Apply the limits to a simulation context. */
struct sim;
void mdl_limits_apply(const mdl_limits *lim, struct sim *s);
/* The replication number of a model's pilot run (a warm-up estimate before
 * the run): the last one, never used by the run itself. */
#define MDL_PILOT_REP (SIM_RNG_MAX_REPS - 1)
/* How messages name replication rep: "replication N", or "its pilot run"
 * for MDL_PILOT_REP (its number is internal).  Returns buf (caller's,
 * len >= 32). */
const char *mdl_rep_name(uint32_t rep, char *buf, size_t len);
/* Turn a sim_run status into an error when a resource bound stopped the
 * run (SIM_EFAIL naming the bound and its [run] key); SIM_OK otherwise. */
int mdl_check_run(int status, uint32_t rep, const mdl_limits *lim, sim_err *err);

/* Before any run: refuse (SIM_EINPUT) a scenario whose replications
 * clearly cannot finish within the limits.  events and seconds are lower
 * bounds of one replication's events and simulated time (0: unknown),
 * why says how they were counted; the message names the key that sets the
 * size (section.key, at its file:line) and the [run] key to raise. */
int mdl_check_size(const sim_cfg *cfg, const char *section, const char *key, double events,
                   double seconds, const char *why, const mdl_limits *lim, sim_err *err);

/* Add a note row ("info"/"warning", message) to a notes table. */
void mdl_note(sim_table *notes, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
