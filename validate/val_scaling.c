/* val_scaling: per-phase scaling table (see the header).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "validate/val_scaling.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sum of the phase's kind means at concurrency n; NaN when one is missing
 * or the phase has no known kinds. */
static double kinds_sum(const val_tigerbench_arch *a, const char *phase, long n)
{
    const char *k[8];
    size_t nk = val_tigerbench_phase_kinds(phase, k, 8);
    if (nk == 0)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < nk; i++) {
        const val_tigerbench_kind *q = val_tigerbench_kind_get(a, k[i], n);
        if (!q)
            return NAN;
        s += q->mean;
    }
    return s;
}

int val_scaling_init(val_scaling *s, const val_tigerbench *tb, const char *arch,
                     const char *phase, sim_err *err)
{
    memset(s, 0, sizeof *s);
    const val_tigerbench_arch *a;
    if (val_tigerbench_arch_get(tb, arch, &a, err))
        return err->code;
    snprintf(s->arch, sizeof s->arch, "%s", a->name);
    snprintf(s->phase, sizeof s->phase, "%s", phase);
    s->window = val_tigerbench_phase_is_window(phase);
    size_t n = 0;
    for (size_t i = 0; i < a->nphases; i++)
        n += !strcmp(a->phases[i].phase, phase);
    if (n == 0) {
        const char *names[16];
        size_t np = val_tigerbench_phase_names(a, names, 16);
        char list[256] = "none";
        size_t used = 0;
        for (size_t i = 0; i < np && i < 16 && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                     names[i]);
        return sim_err_set(err, SIM_EINPUT, "%s: %s has no '%s' phase rows (phases: %s)",
                           val_tigerbench_name(tb), arch, phase, list);
    }
    s->pts = calloc(n, sizeof *s->pts);
    double *xn = malloc(n * sizeof *xn), *xx = malloc(n * sizeof *xx);
    assert(s->pts && xn && xx);
    for (size_t i = 0; i < a->nphases; i++) {
        const val_tigerbench_phase *p = &a->phases[i];
        if (strcmp(p->phase, phase))
            continue;
        val_scaling_point *q = &s->pts[s->n];
        q->n = p->concurrency;
        q->reps = p->reps;
        q->x_mean = p->x_mean;
        q->x_sd = p->x_sd;
        q->kinds = kinds_sum(a, phase, p->concurrency);
        q->simulated = q->simulated_half = NAN;
        xn[s->n] = (double)p->concurrency;
        xx[s->n] = p->x_mean;
        s->n++;
    }
    /* the seed's Amdahl from the N = 1 point */
    s->x1 = s->r1 = s->kinds1 = s->serial1 = s->sigma1 = NAN;
    if (s->pts[0].n == 1 && s->pts[0].x_mean > 0) {
        s->x1 = s->pts[0].x_mean;
        s->r1 = 1 / s->x1;
        s->kinds1 = s->pts[0].kinds;
        s->serial1 = s->r1 - s->kinds1;
        if (!(s->serial1 > 0))
            s->serial1 = NAN;
        s->sigma1 = s->serial1 / s->r1;
    }
    int rc = SIM_OK;
    if (val_usl_fit(xn, xx, s->n, VAL_USL_USL, &s->usl, err) ||
        val_usl_fit(xn, xx, s->n, VAL_USL_AMDAHL, &s->amdahl, err)) {
        sim_err_prefix(err, "%s: %s %s: ", val_tigerbench_name(tb), arch, phase);
        rc = err->code;
    }
    free(xn);
    free(xx);
    if (rc) {
        val_scaling_fini(s);
        return rc;
    }
    for (size_t i = 0; i < s->n; i++) {
        val_scaling_point *q = &s->pts[i];
        double N = (double)q->n;
        q->amdahl_pred = s->x1 * N / (1 + s->sigma1 * (N - 1));
        q->amdahl_fit = val_usl_eval(&s->amdahl, N);
        q->usl_fit = val_usl_eval(&s->usl, N);
    }
    return SIM_OK;
}

void val_scaling_fini(val_scaling *s)
{
    free(s->pts);
    s->pts = NULL;
    s->n = 0;
}

int val_scaling_set_simulated(val_scaling *s, long n, double x, double half)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->pts[i].n == n) {
            s->pts[i].simulated = x;
            s->pts[i].simulated_half = half;
            return 0;
        }
    }
    return -1;
}

void val_scaling_points_table(const val_scaling *s, sim_table *t)
{
    int c_arch = sim_table_col(t, "arch", NULL), c_ph = sim_table_col(t, "phase", NULL),
        c_n = sim_table_col(t, "concurrency", "%.0f"), c_reps = sim_table_col(t, "reps", "%.0f"),
        c_x = sim_table_col(t, "x_mean", "%.1f"), c_sd = sim_table_col(t, "x_sd", "%.1f"),
        c_ap = sim_table_col(t, "amdahl_pred", "%.1f"),
        c_af = sim_table_col(t, "amdahl_fit", "%.1f"), c_u = sim_table_col(t, "usl_fit", "%.1f"),
        c_s = sim_table_col(t, "simulated", "%.1f"),
        c_sh = sim_table_col(t, "simulated_half", "%.1f"), c_r = sim_table_col(t, "r_ms", "%.2f"),
        c_k = sim_table_col(t, "kinds_ms", "%.2f");
    for (size_t i = 0; i < s->n; i++) {
        const val_scaling_point *q = &s->pts[i];
        sim_table_row(t);
        sim_table_str(t, c_arch, s->arch);
        sim_table_str(t, c_ph, s->phase);
        sim_table_num(t, c_n, (double)q->n);
        sim_table_num(t, c_reps, q->reps);
        sim_table_num(t, c_x, q->x_mean);
        sim_table_num(t, c_sd, q->x_sd);
        sim_table_num(t, c_ap, q->amdahl_pred);
        sim_table_num(t, c_af, q->amdahl_fit);
        sim_table_num(t, c_u, q->usl_fit);
        if (!isnan(q->simulated)) /* unset: empty cell, so text output drops the column */
            sim_table_num(t, c_s, q->simulated);
        if (!isnan(q->simulated_half))
            sim_table_num(t, c_sh, q->simulated_half);
        sim_table_num(t, c_r, (double)q->n / q->x_mean * 1e3);
        sim_table_num(t, c_k, q->kinds * 1e3);
    }
}

void val_scaling_fits_table(const val_scaling *s, sim_table *t)
{
    double delta;
    const val_usl_result *best = val_usl_better(&s->usl, &s->amdahl, &delta);
    const val_usl_result *fits[2] = {&s->usl, &s->amdahl};
    int c_arch = sim_table_col(t, "arch", NULL), c_ph = sim_table_col(t, "phase", NULL),
        c_m = sim_table_col(t, "model", NULL), c_l = sim_table_col(t, "lambda", "%.2f"),
        c_sl = sim_table_col(t, "se_lambda", "%.2f"), c_sg = sim_table_col(t, "sigma", "%.4f"),
        c_ssg = sim_table_col(t, "se_sigma", "%.4f"), c_k = sim_table_col(t, "kappa", "%.3e"),
        c_sk = sim_table_col(t, "se_kappa", "%.1e"), c_b = sim_table_col(t, "at_bound", NULL),
        c_r2 = sim_table_col(t, "r2", "%.4f"), c_ar2 = sim_table_col(t, "adj_r2", "%.4f"),
        c_a = sim_table_col(t, "aicc", "%.2f"), c_np = sim_table_col(t, "n_peak", "%.1f"),
        c_xp = sim_table_col(t, "x_peak", "%.1f"), c_best = sim_table_col(t, "better", NULL);
    for (int i = 0; i < 2; i++) {
        const val_usl_result *r = fits[i];
        sim_table_row(t);
        sim_table_str(t, c_arch, s->arch);
        sim_table_str(t, c_ph, s->phase);
        sim_table_str(t, c_m, val_usl_model_name(r->model));
        sim_table_num(t, c_l, r->lambda);
        sim_table_num(t, c_sl, r->se_lambda);
        sim_table_num(t, c_sg, r->sigma);
        sim_table_num(t, c_ssg, r->se_sigma);
        sim_table_num(t, c_k, r->kappa);
        sim_table_num(t, c_sk, r->se_kappa);
        sim_table_str(t, c_b,
                      r->sigma_at_bound && r->kappa_at_bound ? "sigma,kappa"
                      : r->sigma_at_bound                    ? "sigma"
                      : r->kappa_at_bound                    ? "kappa"
                                                             : "");
        sim_table_num(t, c_r2, r->r2);
        sim_table_num(t, c_ar2, r->adj_r2);
        sim_table_num(t, c_a, r->aicc);
        sim_table_num(t, c_np, r->n_peak);
        sim_table_num(t, c_xp, r->x_peak);
        char b[64];
        if (r == best)
            snprintf(b, sizeof b, delta < 2 ? "tie (dAICc %.1f)" : "yes (dAICc %.1f)", delta);
        else
            snprintf(b, sizeof b, "no");
        sim_table_str(t, c_best, b);
    }
}

size_t val_scaling_laws(const val_scaling *s, int workers, double tol, int with_gaps,
                        val_laws_findings *f)
{
    size_t k = 0;
    char subj[2 * VAL_TIGERBENCH_NAME_MAX + 32];
    for (size_t i = 0; i < s->n; i++) {
        const val_scaling_point *q = &s->pts[i];
        if (!(q->x_mean > 0))
            continue;
        double N = (double)q->n;
        snprintf(subj, sizeof subj, "%s %s N=%ld", s->arch, s->phase, q->n);
        if (s->serial1 > 0) {
            char us[sizeof subj + 32];
            snprintf(us, sizeof us, "%s (serial inferred at N=1)", subj);
            k += (size_t)val_laws_utilisation(f, us, s->serial1, workers, q->x_mean, tol);
        }
        if (q->kinds > 0) {
            size_t before = f->n;
            val_laws_little(f, subj, N, s->window, q->kinds, "kind timings at this N", 0,
                            q->x_mean, tol);
            if (f->n > before && f->v[before].severity == VAL_LAWS_GAP && !with_gaps)
                f->n = before; /* drop the gap finding */
            k += f->n - before;
        }
        if (s->serial1 > 0 && s->kinds1 > 0) {
            val_laws_station st[2] = {{"event loop", s->serial1, workers},
                                      {"awaited operations", s->kinds1, 0}};
            k += (size_t)val_laws_bounds(f, subj, N, s->window, st, 2, 0, q->x_mean, tol);
        }
    }
    return k;
}
