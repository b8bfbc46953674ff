#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_scenario.h"
#include "cli/cli_sweep.h"
#include "models/mdl_plan.h"
#include "models/mdl_sweep.h"
#include "reports/rep_bottleneck.h"
#include "reports/rep_store.h"
#include "sim/sim_rng.h"

const char cmd_plan_usage[] =
    "usage: tfsim plan CONFIG --vary SECTION.KEY=VALUES --target-throughput X\n"
    "                  [--p99 SECONDS] [--phase NAME] [--margin PCT] [--set S.K=V]...\n"
    "                  [--reps N] [--seed N] [--jobs N] [--format text|csv|json]\n"
    "                  [--db FILE]\n"
    "\n"
    "Capacity planning: simulate every setting in VALUES (cheapest first, e.g.\n"
    "1..8 workers) and report the first one whose throughput for the phase (or\n"
    "station) meets the target with confidence and whose p99 latency, if asked,\n"
    "stays below the limit.  Each setting is decided from its confidence\n"
    "intervals: it meets the target when the interval of its throughput lies at\n"
    "or above X (and that of its p99 at or below the limit), fails when an\n"
    "interval lies wholly on the wrong side, and is undecided when one straddles\n"
    "the target.  Undecided settings get more replications (twice as many per\n"
    "round, up to run.max_replications, default 200) until every decision is\n"
    "clear; the plan names the ones that stay undecided.  The table shows the\n"
    "evidence for every setting, with the component that saturates first.\n"
    "Exit status 0 when a setting meets the target, 1 when none does (or a\n"
    "setting failed to run).\n"
    "\n"
    "--margin PCT: headroom for the model's own error, which the intervals above\n"
    "do not hold (they say only how well the replications agree): a setting meets\n"
    "the target when its throughput less PCT% reaches X, i.e. it must reach\n"
    "X / (1 - PCT/100).  tfsim predict's band is that error measured: with PCT\n"
    "the -+percentage its note gives (10-26% on this project's live TigerFans\n"
    "series) a setting meets the target when its band's low end does.\n"
    "Default 0.\n"
    "\n"
    "--db FILE stores the first round as a sweep in the results database, as\n"
    "tfsim sweep --db does (an interrupted plan resumes; a plan over the points\n"
    "of a stored sweep reads them), and the plan itself (target, decision per\n"
    "setting) as a run that tfsim report charts.\n"
    "\n"
    "examples:\n"
    "  tfsim plan configs/tigerfans/tb_redis.ini --vary server.workers=1..4 \\\n"
    "      --target-throughput 1500 --phase reserve --set client.concurrency=50 \\\n"
    "      --set client.cpu_scale=0.0567\n"
    "  tfsim plan configs/queueing/mmc.ini --vary station.server.servers=3..6 \\\n"
    "      --target-throughput 2.6 --p99 5 --phase server\n"
    "  tfsim plan configs/tigerfans/pg_pg.ini --vary host.cores=2..6 \\\n"
    "      --target-throughput 500 --phase reserve --db results.db\n"
    "  tfsim plan configs/tigerfans/pg_redis.ini --vary host.cores=2..6 \\\n"
    "      --target-throughput 300 --phase checkout --margin 19\n";

/* What is known of one setting. */
typedef struct setting {
    int ran;                  /* its point ran */
    double x, xh, l, lh;      /* throughput and p99 with CI half-widths */
    long reps;                /* replications behind them */
    mdl_plan_decision d;
    rep_bottleneck b;
    int has_b;
} setting;

/* The row of the results that holds the phase (or station) `phase`: its
 * scope, or NULL when no point has it; *phase becomes the first phase when
 * NULL. */
static const char *find_scope(const cli_sweep *sw, const char **phase)
{
    for (size_t i = 0; i < sw->n; i++) {
        const sim_table *pt = sw->tables[i];
        if (!pt)
            continue;
        int cs = sim_table_find_col(pt, "scope"), cn = sim_table_find_col(pt, "name");
        int cx = sim_table_find_col(pt, "throughput");
        for (int r = 0; cs >= 0 && cn >= 0 && cx >= 0 && r < sim_table_nrows(pt); r++) {
            const char *s = NULL, *n = NULL;
            sim_table_cell(pt, r, cs, NULL, &s);
            sim_table_cell(pt, r, cn, NULL, &n);
            if (!s || !n || sim_table_cell(pt, r, cx, NULL, NULL) != 1)
                continue;
            if ((*phase && !strcmp(n, *phase)) ||
                (!*phase && (!strcmp(s, "phase") || !strcmp(s, "network")))) {
                *phase = *phase ? *phase : n;
                return s;
            }
        }
    }
    return NULL;
}

/* Take point i of sw (a round with `reps` replications) as setting st. */
static void take(setting *st, const cli_sweep *sw, size_t i, const char *scope, const char *phase,
                 long reps, const mdl_plan_target *tg)
{
    if (!sw->tables[i])
        return;
    st->ran = 1;
    st->x = cli_sweep_value(sw, i, scope, phase, "throughput", &st->xh);
    st->l = cli_sweep_value(sw, i, scope, phase, "p99", &st->lh);
    st->reps = reps;
    st->d = mdl_plan_decide(tg, st->x, st->xh, st->l, st->lh);
    st->has_b = rep_bottleneck_find(sw->tables[i], &st->b);
}

/* One more round: the undecided settings with `reps` replications each
 * (the sequential rule of run.target_ci off), not stored. */
static int refine(const char *cmd, const cli_opts *o, const sim_cfg *ov, const cli_sweep *sw,
                  setting *st, long reps, const char *scope, const char *phase,
                  const mdl_plan_target *tg, sim_err *err)
{
    size_t len = strlen(sw->key) + 2;
    for (size_t i = 0; i < sw->n; i++)
        len += strlen(sw->values[i]) + 1;
    char *vary = malloc(len);
    assert(vary && "out of memory");
    size_t k = (size_t)sprintf(vary, "%s=", sw->key), nv = 0;
    for (size_t i = 0; i < sw->n; i++)
        if (st[i].ran && st[i].d == MDL_PLAN_UNDECIDED)
            k += (size_t)sprintf(vary + k, "%s%s", nv++ ? "," : "", sw->values[i]);
    cli_opts o2 = *o;
    o2.db = NULL;
    sim_cfg *ov2 = sim_cfg_new(), *cfg2 = sim_cfg_new();
    char set[64];
    snprintf(set, sizeof set, "run.replications=%ld", reps);
    int rc = mdl_cfg_copy(ov2, ov, err);
    if (rc == SIM_OK)
        rc = sim_cfg_set(ov2, set, err);
    if (rc == SIM_OK)
        rc = sim_cfg_set(ov2, "run.target_ci=0", err);
    cli_sweep sub;
    memset(&sub, 0, sizeof sub);
    if (rc == SIM_OK)
        rc = cli_sweep_prepare(&o2, cfg2, ov2, vary, &sub, err);
    if (rc == SIM_OK)
        rc = cli_sweep_run(cmd, &o2, cfg2, &sub, err);
    for (size_t j = 0, i = 0; rc == SIM_OK && j < sub.n; j++) {
        while (i < sw->n && strcmp(sw->values[i], sub.values[j]))
            i++;
        assert(i < sw->n);
        if (sub.status[j]) {
            *err = sub.errs[j];
            rc = sub.status[j];
            break;
        }
        take(&st[i], &sub, j, scope, phase, reps, tg);
        i++;
    }
    cli_sweep_fini(&sub);
    sim_cfg_free(cfg2);
    sim_cfg_free(ov2);
    free(vary);
    return rc;
}

/* The plan table: CSV layout (the model's units, --db) or for people. */
static void plan_table(const cli_sweep *sw, const setting *st, const mdl_plan_target *tg,
                       const char *phase, int text, sim_table *t)
{
    int ck = sim_table_col(t, sw->key, NULL);
    int cx = sim_table_col(t, "throughput", "%.1f");
    int cxc = text ? -1 : sim_table_col(t, "throughput_ci", "%.1f");
    int cl = sim_table_col(t, text ? "p99_ms" : "p99", "%.4g");
    int clc = text ? -1 : sim_table_col(t, "p99_ci", "%.3g");
    int cr = sim_table_col(t, "replications", "%.0f");
    int cd = sim_table_col(t, "decision", NULL);
    int cm = text ? -1 : sim_table_col(t, "meets", NULL);
    int cb = sim_table_col(t, "bottleneck", NULL);
    int ctg = text ? -1 : sim_table_col(t, "target_throughput", "%g");
    int cmg = text ? -1 : sim_table_col(t, "margin_pct", "%g");
    int cpl = text ? -1 : sim_table_col(t, "p99_limit", "%g");
    int cph = text ? -1 : sim_table_col(t, "phase", NULL);
    for (size_t i = 0; i < sw->n; i++) {
        if (!st[i].ran)
            continue;
        char buf[160];
        sim_table_row(t);
        sim_table_str(t, ck, sw->values[i]);
        if (text) {
            sim_table_fmt_ci(buf, sizeof buf, "%.1f", st[i].x, st[i].xh);
            sim_table_str(t, cx, buf);
            sim_table_fmt_ci(buf, sizeof buf, "%.2f", st[i].l * 1e3, st[i].lh * 1e3);
            sim_table_str(t, cl, buf);
        } else {
            sim_table_num(t, cx, st[i].x);
            sim_table_num(t, cxc, st[i].xh);
            sim_table_num(t, cl, st[i].l);
            sim_table_num(t, clc, st[i].lh);
            sim_table_str(t, cm, st[i].d == MDL_PLAN_MEETS ? "yes" : "no");
            sim_table_num(t, ctg, tg->throughput);
            sim_table_num(t, cmg, 100 * tg->margin);
            sim_table_num(t, cpl, isfinite(tg->p99_max) ? tg->p99_max : NAN);
            sim_table_str(t, cph, phase);
        }
        sim_table_num(t, cr, (double)st[i].reps);
        sim_table_str(t, cd, mdl_plan_decision_name(st[i].d));
        if (st[i].has_b)
            sim_table_str(t, cb, text ? rep_bottleneck_short(&st[i].b, buf, sizeof buf)
                                      : st[i].b.name);
    }
}

/* Store the plan as one run (command plan) in the database at path. */
static int store_plan(const char *path, const cli_opts *o, const sim_cfg *cfg,
                      const cli_sweep *sw, const sim_table *t)
{
    rep_manifest m = cli_sweep_manifest("plan", o, cfg, sw);
    return cli_store_run("plan", path, &m, t);
}

int cmd_plan(int argc, char **argv)
{
    const char *cmd = "plan";
    sim_rng_setup();
    cli_opts o = {.format = SIM_FMT_TEXT};
    sim_cfg *cfg = sim_cfg_new(), *ov = sim_cfg_new();
    const char *vary = NULL, *phase = NULL;
    double target = NAN, p99max = INFINITY, margin = 0;
    int rc = EXIT_OK;
    setting *st = NULL;
    cli_sweep sw;
    memset(&sw, 0, sizeof sw);
    for (int i = 1; i < argc; i++) {
        int r = cli_scenario_opt(cmd, argc, argv, &i, ov, &o);
        if (r < 0) {
            rc = EXIT_INPUT;
            goto out;
        }
        if (r)
            continue;
        const char *a = argv[i];
        if (!strcmp(a, "--vary") || !strcmp(a, "--phase") || !strcmp(a, "--target-throughput") ||
            !strcmp(a, "--p99") || !strcmp(a, "--margin")) {
            if (i + 1 >= argc) {
                rc = cli_usage_error(cmd, "%s needs a value", a);
                goto out;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--vary")) {
                vary = v;
                if ((rc = cli_vary_arg(cmd, vary, i + 1 < argc ? argv[i + 1] : NULL)))
                    goto out;
            }
            else if (!strcmp(a, "--phase"))
                phase = v;
            else if (!strcmp(a, "--margin")) {
                const char *why;
                if (sim_parse_double(v, &margin, &why) || !(margin >= 0 && margin < 100)) {
                    rc = cli_usage_error(cmd, "--margin: '%s' is not a percentage in 0..100 "
                                         "(100 excluded)", v);
                    goto out;
                }
            } else {
                double x;
                const char *why;
                if (sim_parse_double(v, &x, &why) || !(x > 0)) {
                    rc = cli_usage_error(cmd, "%s: '%s' is not a positive number", a, v);
                    goto out;
                }
                if (!strcmp(a, "--p99"))
                    p99max = x;
                else
                    target = x;
            }
        } else if ((rc = cli_config_arg(cmd, a, &o))) {
            goto out;
        }
    }
    if (!vary || isnan(target)) {
        rc = cli_usage_error(cmd, "--vary and --target-throughput are required");
        goto out;
    }
    sim_err err;
    sim_err_clear(&err);
    if (cli_sweep_prepare(&o, cfg, ov, vary, &sw, &err) || cli_sweep_run(cmd, &o, cfg, &sw, &err)) {
        rc = cli_fail(cmd, &err);
        goto out;
    }
    const char *scope = find_scope(&sw, &phase);
    if (!scope) {
        for (size_t i = 0; i < sw.n; i++)
            if (sw.status[i]) {
                rc = cli_fail(cmd, &sw.errs[i]);
                goto out;
            }
        rc = cli_usage_error(cmd, "--phase %s: no such phase or station in the results",
                             phase ? phase : "");
        goto out;
    }
    mdl_plan_target tg = {target, p99max, margin / 100};
    st = calloc(sw.n, sizeof *st);
    assert(st && "out of memory");
    for (size_t i = 0; i < sw.n; i++) {
        if (sw.status[i]) {
            char rb[CLI_REDACT_MAX];
            fprintf(stderr, "tfsim plan: %s=%s: %s\n", sw.key, sw.values[i],
                    cli_redact(sw.errs[i].msg, rb, sizeof rb));
            rc = EXIT_FAIL;
            continue;
        }
        take(&st[i], &sw, i, scope, phase, sw.replications, &tg);
    }
    /* the sequential rule: more replications for the undecided settings */
    long reps = sw.replications;
    for (;;) {
        size_t nu = 0;
        for (size_t i = 0; i < sw.n; i++)
            nu += st[i].ran && st[i].d == MDL_PLAN_UNDECIDED;
        long next = mdl_plan_next_reps(reps, sw.max_replications);
        if (nu == 0 || next == 0)
            break;
        reps = next;
        if (refine(cmd, &o, ov, &sw, st, reps, scope, phase, &tg, &err)) {
            rc = cli_fail(cmd, &err);
            goto out;
        }
    }
    mdl_plan_decision *d = malloc(sw.n * sizeof *d);
    assert(d && "out of memory");
    for (size_t i = 0; i < sw.n; i++)
        d[i] = st[i].ran ? st[i].d : MDL_PLAN_UNDECIDED;
    size_t before;
    long pick = mdl_plan_pick(d, sw.n, &before);
    free(d);

    int text = o.format == SIM_FMT_TEXT;
    FILE *nf = text ? stdout : stderr;
    if (text) {
        printf("target: %s throughput >= %g/s", phase, target);
        if (margin > 0)
            printf(", simulated >= %g/s (its throughput less a %g%% margin for the model's own "
                   "error)",
                   mdl_plan_needed(&tg), margin);
        if (isfinite(p99max))
            printf(", p99 <= %g ms", p99max * 1e3);
        printf(" (decided from %.0f%% intervals: a setting meets the target when its interval "
               "clears it)\n\n",
               100 * sw.level);
    }
    sim_table *t = sim_table_new(NULL), *csv = sim_table_new(NULL);
    plan_table(&sw, st, &tg, phase, text, t);
    plan_table(&sw, st, &tg, phase, 0, csv);
    if (sim_table_print(t, o.format, stdout))
        rc = EXIT_FAIL;
    if (text)
        putchar('\n');
    for (size_t i = 0; i < sw.n; i++)
        if (st[i].ran && st[i].d == MDL_PLAN_UNDECIDED) {
            char ci[96];
            sim_table_fmt_ci(ci, sizeof ci, "%.1f", st[i].x, st[i].xh);
            fprintf(nf, "undecided after %ld replications: %s=%s (throughput %s/s straddles %g/s%s)\n",
                    st[i].reps, sw.key, sw.values[i], ci, mdl_plan_needed(&tg),
                    isfinite(p99max) ? " or its p99 the limit" : "");
        }
    if (pick >= 0) {
        fprintf(nf, "cheapest setting that meets the target: %s=%s", sw.key, sw.values[pick]);
        if (before)
            fprintf(nf, " (a cheaper one is undecided and might meet it too)");
        fputc('\n', nf);
        if (st[pick].has_b) {
            char line[600];
            fprintf(nf, "bottleneck at %s=%s: %s\n", sw.key, sw.values[pick],
                    rep_bottleneck_sentence(&st[pick].b, line, sizeof line));
        }
    } else {
        fprintf(nf, "no setting in the list meets the target%s\n",
                before ? " for sure (some are undecided)" : "");
        for (long i = (long)sw.n - 1; i >= 0; i--)
            if (st[i].ran && st[i].has_b) {
                char line[600];
                fprintf(nf, "bottleneck at %s=%s: %s\n", sw.key, sw.values[i],
                        rep_bottleneck_sentence(&st[i].b, line, sizeof line));
                break;
            }
        if (rc == EXIT_OK)
            rc = EXIT_FAIL;
    }
    if (cli_check_stdout(cmd))
        rc = EXIT_FAIL;
    if (o.db && store_plan(o.db, &o, cfg, &sw, csv))
        rc = EXIT_FAIL;
    sim_table_free(t);
    sim_table_free(csv);
    if (sw.store_failed) {
        char rb[CLI_REDACT_MAX];
        fprintf(stderr, "tfsim plan: results printed but not all stored: %s\n",
                cli_redact(sw.store_err.msg, rb, sizeof rb));
        rc = EXIT_FAIL;
    }
out:
    free(st);
    cli_sweep_fini(&sw);
    sim_cfg_free(cfg);
    sim_cfg_free(ov);
    return rc;
}
