#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_scenario.h"
#include "models/mdl.h"
#include "reports/rep_store.h"
#include "sim/sim_rng.h"
#include "sim/sim_stats.h"

const char cmd_diff_usage[] =
    "usage: tfsim diff A.ini B.ini [--set S.K=V]... [--seed N] [--reps N] [--jobs N]\n"
    "                  [--all] [--format text|csv|json] [--db FILE]\n"
    "\n"
    "Run two scenarios with common random numbers (same seed, same replications,\n"
    "every component drawing from the same stream in both) and print, per metric,\n"
    "A, B, the paired difference B - A with its confidence interval, the relative\n"
    "change, and whether the interval excludes zero.  --set applies to both.\n"
    "By default the main metrics are shown (throughput, response time, p99,\n"
    "utilisation, operation timings); --all shows every metric.\n"
    "--db FILE also stores the comparison table as one run (command diff, both\n"
    "configs' text, the shared overrides, seed and paired replications) in the\n"
    "results database; it is printed first, so a database error only sets exit\n"
    "status 1.\n"
    "\n"
    "examples:\n"
    "  tfsim diff configs/tigerfans/tb_redis.ini configs/tigerfans/whatif/workers2.ini\n"
    "  tfsim diff configs/tigerfans/pg_pg.ini configs/tigerfans/whatif/big_gate.ini \\\n"
    "      --set client.concurrency=50 --reps 20\n"
    "  tfsim diff configs/tigerfans/tb_redis.ini configs/tigerfans/whatif/tb_cluster3.ini \\\n"
    "      --db results.db\n";

static int main_metric(const sim_metric *m)
{
    if (!strcmp(m->scope, "kind") || !strcmp(m->scope, "batch"))
        return !strcmp(m->metric, "mean");
    return !strcmp(m->metric, "throughput") || !strcmp(m->metric, "mean_response") ||
           !strcmp(m->metric, "p99") || !strcmp(m->metric, "utilisation");
}

/* Store the comparison table t of configs A and B (paths pa, pb) as one
 * run in the database at path; message on stderr either way. */
static int store_diff(const char *path, const char *pa, const char *pb, const sim_cfg *ca,
                      const sim_cfg *cb, uint64_t seed, unsigned reps, const sim_table *t)
{
    size_t la = strlen(sim_cfg_text(ca)), lb = strlen(sim_cfg_text(cb));
    size_t lt = strlen(pa) + strlen(pb) + 8;
    char *text = malloc(la + lb + 1), *title = malloc(lt);
    if (!text || !title) {
        free(text);
        free(title);
        fprintf(stderr, "tfsim diff: results printed but not stored: out of memory\n");
        return EXIT_FAIL;
    }
    memcpy(text, sim_cfg_text(ca), la);
    memcpy(text + la, sim_cfg_text(cb), lb + 1);
    snprintf(title, lt, "%s vs %s", pa, pb);
    rep_manifest m = {
        .command = "diff",
        .title = title,
        .config_text = text,
        .overrides = sim_cfg_overrides(ca),
        .seed = seed,
        .replications = (long)reps,
        .git_rev = tfsim_build_rev,
        .cflags = tfsim_build_flags,
        /* the pair, in order */
        .config_hash = sim_cfg_hash(ca) ^ (sim_cfg_hash(cb) * 0x100000001b3ULL),
    };
    int rc = cli_store_run("diff", path, &m, t);
    free(text);
    free(title);
    return rc;
}

static int load(const char *cmd, const char *path, sim_cfg *ov, const cli_opts *o0,
                mdl_scenario *sc, sim_cfg **cfg, sim_err *err)
{
    (void)cmd;
    cli_opts o = *o0;
    o.config = path;
    *cfg = sim_cfg_new();
    memset(sc, 0, sizeof *sc);
    if (cli_scenario_load(&o, *cfg, ov, err) || mdl_scenario_init(sc, *cfg, err))
        return err->code;
    return SIM_OK;
}

int cmd_diff(int argc, char **argv)
{
    const char *cmd = "diff";
    sim_rng_setup();
    cli_opts o = {.format = SIM_FMT_TEXT};
    sim_cfg *ov = sim_cfg_new(), *ca = NULL, *cb = NULL;
    const char *pa = NULL, *pb = NULL;
    int rc = EXIT_OK, all = 0;
    mdl_scenario a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    sim_rep_result ra, rb;
    memset(&ra, 0, sizeof ra);
    memset(&rb, 0, sizeof rb);
    for (int i = 1; i < argc; i++) {
        int r = cli_scenario_opt(cmd, argc, argv, &i, ov, &o);
        if (r < 0) {
            rc = EXIT_INPUT;
            goto out;
        }
        if (r)
            continue;
        if (!strcmp(argv[i], "--all"))
            all = 1;
        else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_usage_error(cmd, "unknown option %s", argv[i]);
            goto out;
        } else if (!pa)
            pa = argv[i];
        else if (!pb)
            pb = argv[i];
        else {
            rc = cli_usage_error(cmd, "expected two configs, got a third: %s", argv[i]);
            goto out;
        }
    }
    if (!pb) {
        rc = cli_usage_error(cmd, "expected two configs A.ini B.ini");
        goto out;
    }
    if (o.db && (rc = cli_check_db(cmd, o.db)))
        goto out;
    sim_err err;
    sim_err_clear(&err);
    if (load(cmd, pa, ov, &o, &a, &ca, &err) || load(cmd, pb, ov, &o, &b, &cb, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    if (a.type != b.type) {
        rc = cli_usage_error(cmd, "%s is a %s scenario and %s a %s one: diff pairs two "
                             "scenarios of one model", pa, a.type->name, pb, b.type->name);
        goto out;
    }
    if (o.jobs)
        a.plan.jobs = o.jobs;
    /* common random numbers: B runs with A's seed and replication count */
    b.seed = a.seed;
    b.plan = a.plan;
    b.plan.target_rel = 0;
    a.plan.target_rel = 0;
    if (sim_rep_run(&a.plan, &a.layout, a.type->replicate, a.model, a.seed, &ra, &err) ||
        sim_rep_run(&b.plan, &b.layout, b.type->replicate, b.model, b.seed, &rb, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    sim_table *t = sim_table_new(NULL);
    int cs = sim_table_col(t, "scope", NULL), cn = sim_table_col(t, "name", NULL);
    int cm = sim_table_col(t, "metric", NULL), c_a = sim_table_col(t, "a", "%.5g");
    int c_b = sim_table_col(t, "b", "%.5g"), cd = sim_table_col(t, "diff", "%.4g");
    int cdc = sim_table_col(t, "diff_ci", "%.3g"), cp = sim_table_col(t, "change_pct", "%+.1f");
    int csig = sim_table_col(t, "significant", NULL);
    sim_table_group_by(t, cs);
    uint32_t n = ra.reps < rb.reps ? ra.reps : rb.reps;
    double *d = malloc((n ? n : 1) * sizeof *d);
    for (size_t k = 0; k < a.layout.n; k++) {
        const sim_metric *m = &a.layout.m[k];
        if (!all && !main_metric(m))
            continue;
        long j = sim_layout_find(&b.layout, m->scope, m->name, m->metric);
        if (j < 0 || isnan(ra.mean[k]) || isnan(rb.mean[j]))
            continue;
        for (uint32_t r = 0; r < n; r++)
            d[r] = rb.values[(size_t)r * b.layout.n + (size_t)j] -
                   ra.values[(size_t)r * a.layout.n + k];
        double dm, dh;
        sim_ci(d, n, a.plan.level, &dm, &dh);
        sim_table_row(t);
        sim_table_str(t, cs, m->scope);
        sim_table_str(t, cn, m->name);
        sim_table_str(t, cm, m->metric);
        sim_table_num(t, c_a, ra.mean[k]);
        sim_table_num(t, c_b, rb.mean[j]);
        sim_table_num(t, cd, dm);
        sim_table_num(t, cdc, dh);
        sim_table_num(t, cp, ra.mean[k] != 0 ? 100 * dm / fabs(ra.mean[k]) : NAN);
        sim_table_str(t, csig, isnan(dh) ? "?" : fabs(dm) > dh ? "yes" : "no");
    }
    free(d);
    if (o.format == SIM_FMT_TEXT)
        printf("A = %s\nB = %s\n%u paired replications, seed %llu, %.0f%% intervals of B - A\n\n",
               pa, pb, n, (unsigned long long)a.seed, 100 * a.plan.level);
    if (sim_table_print(t, o.format, stdout) | cli_check_stdout(cmd))
        rc = EXIT_FAIL;
    if (o.db && store_diff(o.db, pa, pb, ca, cb, a.seed, n, t))
        rc = EXIT_FAIL;
    sim_table_free(t);
out:
    sim_rep_result_fini(&ra);
    sim_rep_result_fini(&rb);
    mdl_scenario_fini(&a);
    mdl_scenario_fini(&b);
    sim_cfg_free(ca);
    sim_cfg_free(cb);
    sim_cfg_free(ov);
    return rc;
}
