#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_scenario.h"
#include "models/mdl.h"
#include "reports/rep_store.h"
#include "sim/sim_rng.h"

const char cmd_run_usage[] =
    "usage: tfsim run [CONFIG] [--set SECTION.KEY=VALUE]... [--seed N] [--reps N]\n"
    "                 [--jobs N] [--format text|csv|json] [--manifest FILE] [--db FILE]\n"
    "\n"
    "Simulate the scenario in CONFIG (an INI file; without one, the embedded\n"
    "default scenario) and print per-phase, per-component and per-operation\n"
    "results with confidence intervals and, where one exists, the theoretical value.\n"
    "\n"
    "options:\n"
    "  --set S.K=V    override any config key (repeatable; wins over the files)\n"
    "  --seed N       master seed (run.seed); same seed, same inputs: same bytes out\n"
    "  --reps N       replications (run.replications)\n"
    "  --jobs N       replications in parallel (results do not depend on it)\n"
    "  --format F     text (default, for people), csv (one header line, one row per\n"
    "                 result) or json\n"
    "  --manifest F   write the run manifest (config hash and text, overrides, seed,\n"
    "                 replications, git revision, compiler flags) as JSON to F\n"
    "  --db FILE      also store the run (manifest and the CSV result table) in the\n"
    "                 results database FILE, created if missing (see tfsim report,\n"
    "                 tfsim export); the results are printed first, so a database\n"
    "                 error, reported after them, only sets exit status 1\n"
    "\n"
    "examples:\n"
    "  tfsim run configs/queueing/mm1.ini --format csv\n"
    "  tfsim run configs/queueing/mm1.ini --set arrivals.rate=0.5 --reps 20\n"
    "  tfsim run configs/tigerfans/tb_redis.ini --set client.concurrency=50\n"
    "  tfsim run configs/tigerfans/pg_pg.ini --reps 20 --db results.db\n"
    "\n"
    "exit status: 0 done; 1 a run failed (e.g. a resource bound was hit) or the\n"
    "results could not be stored; 2 bad config, override or option.\n";

/* The result table in the CSV layout (what --format csv prints and --db
 * stores), built from the replications already run. */
static void csv_table(const mdl_scenario *sc, const sim_rep_result *res, sim_table *t)
{
    sim_rep_table(&sc->layout, res, t);
    if (sc->type->annotate)
        sc->type->annotate(sc->model, &sc->layout, res, t, NULL);
}

/* Store the run in the database at path; message on stderr either way. */
static int store_run(const char *path, const cli_opts *o, const sim_cfg *cfg,
                     const mdl_scenario *sc, const sim_table *t)
{
    sim_err err;
    sim_err_clear(&err);
    rep_manifest m;
    cli_manifest_init(&m, "run", o, cfg, sc);
    int64_t id = 0;
    rep_store *db = rep_store_open(path, REP_STORE_WRITE, &err);
    int rc = db ? rep_store_save_run(db, &m, t, &id, &err) : err.code;
    rep_store_close(db);
    if (rc) {
        char rb[CLI_REDACT_MAX];
        fprintf(stderr, "tfsim run: results printed but not stored: %s\n",
                cli_redact(err.msg, rb, sizeof rb));
        return EXIT_FAIL;
    }
    fprintf(stderr, "tfsim run: stored as run %lld in %s\n", (long long)id, path);
    return EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
    const char *cmd = "run";
    sim_rng_setup();
    cli_opts o = {.format = SIM_FMT_TEXT};
    sim_cfg *cfg = sim_cfg_new(), *ov = sim_cfg_new();
    int rc = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        int r = cli_scenario_opt(cmd, argc, argv, &i, ov, &o);
        if (r < 0) {
            rc = EXIT_INPUT;
            goto out;
        }
        if (r)
            continue;
        if ((rc = cli_config_arg(cmd, argv[i], &o)))
            goto out;
    }
    if (o.db && (rc = cli_check_db(cmd, o.db)))
        goto out;
    sim_err err;
    sim_err_clear(&err);
    mdl_scenario sc;
    memset(&sc, 0, sizeof sc);
    if (cli_scenario_load(&o, cfg, ov, &err) || mdl_scenario_init(&sc, cfg, &err)) {
        rc = cli_fail(cmd, &err);
        mdl_scenario_fini(&sc);
        goto out;
    }
    if (o.jobs)
        sc.plan.jobs = o.jobs;
    cli_progress_install();
    sim_table *t = sim_table_new(NULL), *notes = sim_table_new(NULL), *stored = NULL;
    sim_rep_result res;
    int brc = o.format == SIM_FMT_TEXT ? mdl_scenario_run_text(&sc, &res, t, notes, &err)
                                       : mdl_scenario_run(&sc, &res, t, notes, &err);
    if (brc) {
        rc = cli_fail(cmd, &err);
    } else {
        if (o.format == SIM_FMT_TEXT)
            printf("%s: %s model, %u replications, seed %llu\n\n",
                   o.config ? o.config : "(defaults)", sc.type->name, res.reps,
                   (unsigned long long)sc.seed);
        if (sim_table_print(t, o.format, stdout))
            rc = EXIT_FAIL;
        FILE *nf = o.format == SIM_FMT_TEXT ? stdout : stderr;
        for (int r = 0; r < sim_table_nrows(notes); r++) {
            const char *lvl = "", *msg = "";
            sim_table_cell(notes, r, sim_table_find_col(notes, "level"), NULL, &lvl);
            sim_table_cell(notes, r, sim_table_find_col(notes, "message"), NULL, &msg);
            fprintf(nf, "%s%s: %s\n", r == 0 && nf == stdout ? "\n" : "", lvl, msg);
        }
        if (cli_check_stdout(cmd))
            rc = EXIT_FAIL;
        if (o.manifest && cli_write_manifest(o.manifest, "run", cfg, &sc, res.reps, &err))
            rc = cli_fail(cmd, &err);
        if (o.db) {
            if (o.format == SIM_FMT_TEXT) {
                stored = sim_table_new(NULL);
                csv_table(&sc, &res, stored);
            }
            if (store_run(o.db, &o, cfg, &sc, stored ? stored : t))
                rc = EXIT_FAIL;
        }
    }
    sim_rep_result_fini(&res);
    sim_table_free(t);
    sim_table_free(stored);
    sim_table_free(notes);
    mdl_scenario_fini(&sc);
out:
    sim_cfg_free(cfg);
    sim_cfg_free(ov);
    return rc;
}
