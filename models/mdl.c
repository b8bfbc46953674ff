#include "models/mdl.h"

#include "sim/sim.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const mdl_type *const types[] = {&mdl_tigerfans_type, &mdl_queueing_type,
                                        &mdl_redis_bench_type};
#define NTYPES (sizeof types / sizeof types[0])

static const sim_cfg_key common_schema[] = {
    {"model", "type", SIM_CFG_ENUM, "tigerfans", 0, 0, "tigerfans|queueing|redis_bench", NULL,
     "which model the scenario describes"},
    {"model", "name", SIM_CFG_STR, "", 0, 0, NULL, NULL, "a label for reports"},
    {"run", "seed", SIM_CFG_INT, "1", 0, 9e15, NULL, NULL,
     "master seed; every random stream derives from (seed, replication, stream)"},
    {"run", "replications", SIM_CFG_INT, "10", 1, 100000, NULL, "replications",
     "replications to run (the minimum when target_ci > 0)"},
    {"run", "max_replications", SIM_CFG_INT, "200", 1, 100000, NULL, "replications",
     "cap for the sequential stopping rule"},
    {"run", "target_ci", SIM_CFG_NUM, "0", 0, 1, NULL, "fraction",
     "sequential stopping: run until every watched metric's CI half-width / mean <= this (0: fixed count)"},
    {"run", "confidence", SIM_CFG_NUM, "0.95", 0.5, 0.9999, NULL, "fraction",
     "confidence level of the intervals"},
    {"run", "watch", SIM_CFG_STR, "", 0, 0, NULL, NULL,
     "metrics the stopping rule watches, e.g. throughput,p99 (empty: the model's choice)"},
    {"run", "jobs", SIM_CFG_INT, "1", 1, 64, NULL, "threads", "replications run in parallel"},
    {"run", "max_events", SIM_CFG_INT, "2e9", 1, 9e15, NULL, "events",
     "resource bound: events per replication"},
    {"run", "max_sim_time", SIM_CFG_DUR, "1e9", 1e-9, 1e15, NULL, "s",
     "resource bound: simulated time per replication"},
    {"run", "max_pending", SIM_CFG_INT, "1e7", 16, 1e9, NULL, "events",
     "resource bound: pending events (memory: 32 bytes each plus the model's objects)"},
    {"run", "rng", SIM_CFG_ENUM, "xoshiro256ss", 0, 0, SIM_RNG_KIND_NAMES, NULL,
     "generator of every random stream: xoshiro256ss (Blackman and Vigna's xoshiro256 "
     "star-star) with tfsim's fast samplers, or GSL's MT19937 with GSL's samplers (the numbers "
     "tfsim drew before xoshiro256ss became the default)"},
};
#define NCOMMON (sizeof common_schema / sizeof common_schema[0])

const mdl_type *mdl_find(const char *name)
{
    for (size_t i = 0; i < NTYPES; i++)
        if (!strcmp(types[i]->name, name))
            return types[i];
    return NULL;
}

/* Does an earlier model than types[i] declare the same schema table (a
 * model that reads another's keys)?  Its rows are listed once. */
static int schema_seen(size_t i)
{
    size_t ns;
    const sim_cfg_key *s = types[i]->schema(&ns);
    for (size_t j = 0; j < i; j++)
        if (types[j]->schema(&ns) == s)
            return 1;
    return 0;
}

sim_cfg_key *mdl_schema(const mdl_type *type, size_t *n)
{
    size_t total = NCOMMON;
    size_t ns;
    for (size_t i = 0; i < NTYPES; i++)
        if (type ? types[i] == type : !schema_seen(i)) {
            types[i]->schema(&ns);
            total += ns;
        }
    sim_cfg_key *s = malloc(total * sizeof *s);
    assert(s && "out of memory");
    memcpy(s, common_schema, sizeof common_schema);
    size_t k = NCOMMON;
    for (size_t i = 0; i < NTYPES; i++) {
        if (type ? types[i] != type : schema_seen(i))
            continue;
        const sim_cfg_key *ms = types[i]->schema(&ns);
        memcpy(s + k, ms, ns * sizeof *s);
        k += ns;
    }
    *n = k;
    return s;
}

int mdl_scenario_init(mdl_scenario *sc, const sim_cfg *cfg, sim_err *err)
{
    int rc = mdl_scenario_setup(sc, cfg, err);
    if (rc == SIM_OK && sc->type->check_size)
        rc = sc->type->check_size(sc->model, cfg, &sc->limits, err);
    return rc;
}

int mdl_scenario_setup(mdl_scenario *sc, const sim_cfg *cfg, sim_err *err)
{
    memset(sc, 0, sizeof *sc);
    sim_layout_init(&sc->layout);
    const char *tname;
    if (sim_cfg_str(cfg, common_schema, NCOMMON, "model", "type", &tname, err))
        return err->code;
    sc->type = mdl_find(tname);
    assert(sc->type); /* the enum check guarantees it */
    sc->schema = mdl_schema(sc->type, &sc->nschema);
    if (sim_cfg_check(cfg, sc->schema, sc->nschema, err))
        return err->code;
    long seed, reps, maxr, jobs, maxev, maxpend;
    double target, conf, maxt;
    const char *rng;
    const sim_cfg_key *s = sc->schema;
    size_t n = sc->nschema;
    if (sim_cfg_int(cfg, s, n, "run", "seed", &seed, err) ||
        sim_cfg_int(cfg, s, n, "run", "replications", &reps, err) ||
        sim_cfg_int(cfg, s, n, "run", "max_replications", &maxr, err) ||
        sim_cfg_num(cfg, s, n, "run", "target_ci", &target, err) ||
        sim_cfg_num(cfg, s, n, "run", "confidence", &conf, err) ||
        sim_cfg_int(cfg, s, n, "run", "jobs", &jobs, err) ||
        sim_cfg_int(cfg, s, n, "run", "max_events", &maxev, err) ||
        sim_cfg_num(cfg, s, n, "run", "max_sim_time", &maxt, err) ||
        sim_cfg_int(cfg, s, n, "run", "max_pending", &maxpend, err) ||
        sim_cfg_str(cfg, s, n, "run", "rng", &rng, err))
        return err->code;
    if (target > 0 && maxr < reps) {
        char w[256];
        return sim_err_set(err, SIM_EINPUT,
                           "%s: run.max_replications: %ld is below run.replications (%ld)",
                           sim_cfg_where(cfg, "run", "max_replications", w, sizeof w), maxr, reps);
    }
    sc->seed = (uint64_t)seed;
    sc->plan.min_reps = (uint32_t)reps;
    sc->plan.max_reps = (uint32_t)(target > 0 ? maxr : reps);
    sc->rep_cap = (uint32_t)maxr;
    sc->plan.target_rel = target;
    sc->plan.level = conf;
    sc->plan.jobs = (int)jobs;
    sc->limits.max_events = (uint64_t)maxev;
    sc->limits.max_sim_time = maxt;
    sc->limits.max_pending = (uint64_t)maxpend;
    int bad_rng = sim_rng_kind_parse(rng, &sc->limits.rng);
    assert(!bad_rng); /* the enum check guarantees it */
    (void)bad_rng;
    int rc = sc->type->setup(cfg, sc->schema, sc->nschema, &sc->limits, &sc->model, &sc->layout, err);
    if (rc)
        return rc;
    const char *watch;
    if (sim_cfg_str(cfg, s, n, "run", "watch", &watch, err))
        return err->code;
    if (*watch) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", watch);
        for (size_t i = 0; i < sc->layout.n; i++)
            sc->layout.m[i].flags &= ~SIM_METRIC_WATCH;
        char *save = NULL;
        for (char *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
            int found = 0;
            for (size_t i = 0; i < sc->layout.n; i++)
                if (!strcmp(sc->layout.m[i].metric, t)) {
                    sc->layout.m[i].flags |= SIM_METRIC_WATCH;
                    found = 1;
                }
            if (!found) {
                char w[512];
                return sim_err_set(err, SIM_EINPUT, "%s: run.watch: '%s' is not a metric of the "
                                   "%s model", sim_cfg_where(cfg, "run", "watch", w, sizeof w), t,
                                   sc->type->name);
            }
        }
    }
    return SIM_OK;
}

void mdl_scenario_fini(mdl_scenario *sc)
{
    if (sc->type && sc->model)
        sc->type->free_model(sc->model);
    sim_layout_fini(&sc->layout);
    free(sc->schema);
    memset(sc, 0, sizeof *sc);
}

static int scenario_run(mdl_scenario *sc, sim_rep_result *res, sim_table *results,
                        sim_table *notes, int text, sim_err *err)
{
    if (sim_rep_run(&sc->plan, &sc->layout, sc->type->replicate, sc->model, sc->seed, res, err))
        return err->code;
    if (text)
        sim_rep_table_text(&sc->layout, res, results);
    else
        sim_rep_table(&sc->layout, res, results);
    if (sc->type->annotate)
        sc->type->annotate(sc->model, &sc->layout, res, results, notes);
    if (notes && sc->plan.target_rel > 0 && !res->converged)
        mdl_note(notes, "warning",
                 "the stopping rule was not met: after %u replications some watched metric's CI "
                 "half-width is still above %.3g of its mean",
                 res->reps, sc->plan.target_rel);
    return SIM_OK;
}

int mdl_scenario_run(mdl_scenario *sc, sim_rep_result *res, sim_table *results, sim_table *notes,
                     sim_err *err)
{
    return scenario_run(sc, res, results, notes, 0, err);
}

int mdl_scenario_run_text(mdl_scenario *sc, sim_rep_result *res, sim_table *results,
                          sim_table *notes, sim_err *err)
{
    return scenario_run(sc, res, results, notes, 1, err);
}

void mdl_note(sim_table *notes, const char *level, const char *fmt, ...)
{
    if (!notes)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sim_table_row(notes);
    sim_table_set_str(notes, "level", level);
    sim_table_set_str(notes, "message", buf);
}

int mdl_check_size(const sim_cfg *cfg, const char *section, const char *key, double events,
                   double seconds, const char *why, const mdl_limits *lim, sim_err *err)
{
    char w[512];
    if (lim->max_events && events > (double)lim->max_events)
        return sim_err_set(err, SIM_EINPUT,
                           "%s: %s.%s: a replication needs at least %.3g events (%s), more than "
                           "run.max_events = %llu: raise run.max_events or make the run smaller",
                           sim_cfg_where(cfg, section, key, w, sizeof w), section, key, events,
                           why, (unsigned long long)lim->max_events);
    if (seconds > lim->max_sim_time)
        return sim_err_set(err, SIM_EINPUT,
                           "%s: %s.%s: a replication needs at least %.3g simulated seconds (%s), "
                           "more than run.max_sim_time = %g s: raise run.max_sim_time or make "
                           "the run smaller",
                           sim_cfg_where(cfg, section, key, w, sizeof w), section, key, seconds,
                           why, lim->max_sim_time);
    return SIM_OK;
}

void mdl_limits_apply(const mdl_limits *lim, sim *s)
{
    s->max_events = lim->max_events;
    s->max_pending = lim->max_pending;
}

const char *mdl_rep_name(uint32_t rep, char *buf, size_t len)
{
    if (rep == MDL_PILOT_REP)
        snprintf(buf, len, "its pilot run");
    else
        snprintf(buf, len, "replication %u", rep);
    return buf;
}

int mdl_check_run(int status, uint32_t rep, const mdl_limits *lim, sim_err *err)
{
    char who[32];
    mdl_rep_name(rep, who, sizeof who);
    switch (status) {
    case SIM_RUN_EVENTS:
        return sim_err_set(err, SIM_EFAIL,
                           "%s stopped: it reached %llu events (limit run.max_events)", who,
                           (unsigned long long)lim->max_events);
    case SIM_RUN_TIME:
        return sim_err_set(err, SIM_EFAIL,
                           "%s stopped: it reached %g s of simulated time (limit "
                           "run.max_sim_time)",
                           who, lim->max_sim_time);
    case SIM_RUN_MEMORY:
        return sim_err_set(err, SIM_EFAIL,
                           "%s stopped: more than %llu events pending (limit run.max_pending)",
                           who, (unsigned long long)lim->max_pending);
    default:
        return SIM_OK;
    }
}
