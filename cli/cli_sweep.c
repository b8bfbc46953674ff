#include "cli/cli_sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "models/mdl.h"

int cli_sweep_prepare(const char *cmd, const cli_opts *o, sim_cfg *cfg, sim_cfg *ov,
                      const char *vary, cli_sweep *sw, sim_err *err)
{
    (void)cmd;
    memset(sw, 0, sizeof *sw);
    const char *eq = strchr(vary, '=');
    if (!eq || eq == vary || (size_t)(eq - vary) >= sizeof sw->key)
        return sim_err_set(err, SIM_EINPUT, "--vary %s: expected SECTION.KEY=V1,V2,...", vary);
    memcpy(sw->key, vary, (size_t)(eq - vary));
    sw->key[eq - vary] = '\0';
    if (cli_scenario_load(o, cfg, ov, err))
        return err->code;
    if (mdl_sweep_values(eq + 1, &sw->values, &sw->n, err))
        return sim_err_prefix(err, "--vary %s: ", sw->key), err->code;
    /* Check the scenario and every point's key once, so that errors name
     * the file and line rather than failing inside a worker. */
    for (size_t i = 0; i < sw->n; i++) {
        sim_cfg *c = sim_cfg_new();
        mdl_scenario sc;
        memset(&sc, 0, sizeof sc);
        char buf[512];
        snprintf(buf, sizeof buf, "%s=%s", sw->key, sw->values[i]);
        int rc = mdl_cfg_copy(c, cfg, err);
        if (rc == SIM_OK)
            rc = sim_cfg_set(c, buf, err);
        if (rc == SIM_OK && i == 0) {
            /* check the unmodified config too, for file:line messages */
            mdl_scenario s0;
            memset(&s0, 0, sizeof s0);
            rc = mdl_scenario_init(&s0, cfg, err);
            if (rc == SIM_OK)
                sw->jobs = s0.plan.jobs;
            mdl_scenario_fini(&s0);
        }
        if (rc == SIM_OK)
            rc = mdl_scenario_init(&sc, c, err);
        mdl_scenario_fini(&sc);
        sim_cfg_free(c);
        if (rc)
            return rc;
    }
    sw->pts = calloc(sw->n, sizeof *sw->pts);
    if (!sw->pts)
        return sim_err_set(err, SIM_EFAIL, "out of memory");
    for (size_t i = 0; i < sw->n; i++)
        snprintf(sw->pts[i].value, sizeof sw->pts[i].value, "%s", sw->values[i]);
    return SIM_OK;
}

void cli_sweep_fini(cli_sweep *sw)
{
    if (sw->pts)
        mdl_sweep_points_fini(sw->pts, sw->n);
    free(sw->pts);
    for (size_t i = 0; i < sw->n; i++)
        free(sw->values[i]);
    free(sw->values);
    memset(sw, 0, sizeof *sw);
}

double cli_sweep_value(const cli_sweep *sw, size_t i, const char *scope, const char *name,
                       const char *metric, double *half)
{
    const mdl_sweep_point *p = &sw->pts[i];
    if (half)
        *half = NAN;
    if (p->status)
        return NAN;
    long k = sim_layout_find(&p->layout, scope, name, metric);
    if (k < 0)
        return NAN;
    if (half)
        *half = p->result.half[k];
    return p->result.mean[k];
}

/* Metrics shown in the one-row-per-point view. */
static int wide_metric(const char *scope, const char *metric, int *with_ci)
{
    *with_ci = 0;
    if (!strcmp(scope, "phase") || !strcmp(scope, "station") || !strcmp(scope, "network")) {
        if (!strcmp(metric, "throughput") || !strcmp(metric, "mean_response")) {
            *with_ci = 1;
            return 1;
        }
        return !strcmp(metric, "p99") || (!strcmp(scope, "station") && !strcmp(metric, "utilisation"));
    }
    if (!strcmp(scope, "component"))
        return !strcmp(metric, "utilisation");
    if (!strcmp(scope, "batch"))
        return !strcmp(metric, "mean");
    return 0;
}

int cli_sweep_table(const char *cmd, const cli_sweep *sw, int longf, sim_table *t)
{
    int rc = EXIT_OK;
    int ckey = sim_table_col(t, sw->key, NULL);
    for (size_t i = 0; i < sw->n; i++) {
        const mdl_sweep_point *p = &sw->pts[i];
        if (p->status) {
            fprintf(stderr, "tfsim %s: %s=%s: %s\n", cmd, sw->key, p->value, p->err.msg);
            rc = p->status == SIM_EINPUT ? EXIT_INPUT : EXIT_FAIL;
            continue;
        }
        if (longf) {
            sim_table *pt = sim_table_new(NULL);
            sim_rep_table(&p->layout, &p->result, pt);
            for (int r = 0; r < sim_table_nrows(pt); r++) {
                sim_table_row(t);
                sim_table_str(t, ckey, p->value);
                for (int c = 0; c < sim_table_ncols(pt); c++) {
                    double v;
                    const char *s = NULL;
                    int kind = sim_table_cell(pt, r, c, &v, &s);
                    int col = sim_table_col(t, sim_table_col_name(pt, c), NULL);
                    if (kind == 1)
                        sim_table_num(t, col, v);
                    else if (kind == 2)
                        sim_table_str(t, col, s);
                }
            }
            sim_table_free(pt);
            continue;
        }
        sim_table_row(t);
        sim_table_str(t, ckey, p->value);
        for (size_t k = 0; k < p->layout.n; k++) {
            const sim_metric *m = &p->layout.m[k];
            int ci;
            if (!wide_metric(m->scope, m->metric, &ci) || isnan(p->result.mean[k]))
                continue;
            char col[128];
            snprintf(col, sizeof col, "%s.%s", m->name, m->metric);
            sim_table_num(t, sim_table_col(t, col, m->fmt), p->result.mean[k]);
            if (ci && p->result.reps >= 2) {
                snprintf(col, sizeof col, "%s.%s_ci", m->name, m->metric);
                sim_table_num(t, sim_table_col(t, col, m->fmt), p->result.half[k]);
            }
        }
    }
    return rc;
}
