/* val_laws: operational-law consistency checks (see the header).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "validate/val_laws.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void val_laws_findings_init(val_laws_findings *f)
{
    f->v = NULL;
    f->n = f->cap = 0;
}

void val_laws_findings_fini(val_laws_findings *f)
{
    free(f->v);
    val_laws_findings_init(f);
}

size_t val_laws_count(const val_laws_findings *f, val_laws_severity s)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++)
        k += f->v[i].severity == s;
    return k;
}

const char *val_laws_name(val_law law)
{
    switch (law) {
    case VAL_LAW_UTILISATION:
        return "utilisation";
    case VAL_LAW_LITTLE:
        return "little";
    case VAL_LAW_BOUND_UPPER:
        return "bound_upper";
    case VAL_LAW_BOUND_LOWER:
        return "bound_lower";
    }
    return "?";
}

static void add(val_laws_findings *f, val_law law, val_laws_severity sev, const char *subject,
                double x, double bound, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static void add(val_laws_findings *f, val_law law, val_laws_severity sev, const char *subject,
                double x, double bound, const char *fmt, ...)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 16;
        f->v = realloc(f->v, f->cap * sizeof *f->v);
        assert(f->v);
    }
    val_laws_finding *g = &f->v[f->n++];
    g->law = law;
    g->severity = sev;
    g->measured = x;
    g->bound = bound;
    snprintf(g->subject, sizeof g->subject, "%s", subject ? subject : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->message, sizeof g->message, fmt, ap);
    va_end(ap);
}

/* Time in ms with 3 significant digits ("5", "20.4", "0.266"). */
static const char *ms(double s, char *buf)
{
    snprintf(buf, 32, "%.3g", s * 1e3);
    return buf;
}

int val_laws_utilisation(val_laws_findings *f, const char *subject, double serial, int workers,
                         double x, double tol)
{
    assert(serial > 0 && workers >= 1 && x >= 0 && tol >= 0);
    double cap = workers / serial;
    if (!(x > cap * (1 + tol)))
        return 0;
    char b[32];
    add(f, VAL_LAW_UTILISATION, VAL_LAWS_VIOLATION, subject, x, cap,
        "%s ms serial per request on %d worker%s caps throughput at %.0f/s, but %.0f/s was "
        "measured (utilisation %.0f%%)",
        ms(serial, b), workers, workers == 1 ? "" : "s", cap, x, 100 * x * serial / workers);
    return 1;
}

int val_laws_little(val_laws_findings *f, const char *subject, double n, int n_exact, double r,
                    const char *what_r, double z, double x, double tol)
{
    assert(n >= 1 && r >= 0 && z >= 0 && r + z > 0 && x > 0 && tol >= 0);
    double xl = n / (r + z);
    char b1[32], b2[32], b3[32];
    const char *src = what_r ? what_r : "given";
    if (x > xl * (1 + tol)) {
        add(f, VAL_LAW_LITTLE, VAL_LAWS_VIOLATION, subject, x, xl,
            "Little's law: N = %g %sin flight with R = %s ms (%s) and Z = %s ms allows at most "
            "X = N/(R+Z) = %.0f/s, but %.0f/s was measured: R must be shorter (%s ms) or N "
            "larger",
            n, n_exact ? "" : "at most ", ms(r, b1), src, ms(z, b2), xl, x,
            ms(n / x - z, b3));
        return 1;
    }
    if (n_exact && x < xl * (1 - tol)) {
        add(f, VAL_LAW_LITTLE, VAL_LAWS_GAP, subject, x, xl,
            "Little's law: N = %g in flight with R = %s ms (%s) and Z = %s ms gives "
            "X = N/(R+Z) = %.0f/s, but %.0f/s was measured (%.0f%% lower): each request spends "
            "%s ms more than R accounts for",
            n, ms(r, b1), src, ms(z, b2), xl, x, 100 * (1 - x / xl), ms(n / x - z - r, b3));
        return 1;
    }
    return 0;
}

int val_laws_bounds(val_laws_findings *f, const char *subject, double n, int n_exact,
                    const val_laws_station *st, size_t nst, double z, double x, double tol)
{
    assert(n >= 1 && z >= 0 && x >= 0 && tol >= 0 && nst > 0);
    double d = 0, dmax = 0;
    const char *bott = NULL;
    for (size_t i = 0; i < nst; i++) {
        assert(st[i].demand >= 0 && st[i].servers >= 0);
        d += st[i].demand;
        if (st[i].servers > 0 && st[i].demand / st[i].servers > dmax) {
            dmax = st[i].demand / st[i].servers;
            bott = st[i].name;
        }
    }
    assert(d + z > 0);
    double x_pop = n / (d + z), x_bot = dmax > 0 ? 1 / dmax : INFINITY;
    double up = fmin(x_pop, x_bot);
    int added = 0;
    char b1[32], b2[32];
    if (x > up * (1 + tol)) {
        if (x_bot <= x_pop)
            add(f, VAL_LAW_BOUND_UPPER, VAL_LAWS_VIOLATION, subject, x, up,
                "asymptotic bound: X <= min(N/(D+Z), 1/Dmax) = min(%.0f/s, %.0f/s) = %.0f/s "
                "(bottleneck %s, Dmax = %s ms), but %.0f/s was measured",
                x_pop, x_bot, up, bott, ms(dmax, b1), x);
        else
            add(f, VAL_LAW_BOUND_UPPER, VAL_LAWS_VIOLATION, subject, x, up,
                "asymptotic bound: X <= N/(D+Z) = %g/(%s ms + %s ms) = %.0f/s, but %.0f/s was "
                "measured",
                n, ms(d, b1), ms(z, b2), up, x);
        added++;
    }
    double lo = n / (n * d + z);
    if (n_exact && x < lo * (1 - tol)) {
        add(f, VAL_LAW_BOUND_LOWER, VAL_LAWS_VIOLATION, subject, x, lo,
            "asymptotic bound: X >= N/(N D + Z) = %.0f/s with D = %s ms, but %.0f/s was "
            "measured: the demands at this load exceed D (they grow with load)",
            lo, ms(d, b1), x);
        added++;
    }
    return added;
}

void val_laws_table(const val_laws_findings *f, sim_table *t)
{
    int c_law = sim_table_col(t, "law", NULL), c_sev = sim_table_col(t, "severity", NULL),
        c_sub = sim_table_col(t, "subject", NULL), c_x = sim_table_col(t, "measured", "%.1f"),
        c_b = sim_table_col(t, "bound", "%.1f"), c_msg = sim_table_col(t, "message", NULL);
    for (size_t i = 0; i < f->n; i++) {
        const val_laws_finding *g = &f->v[i];
        sim_table_row(t);
        sim_table_str(t, c_law, val_laws_name(g->law));
        sim_table_str(t, c_sev, g->severity == VAL_LAWS_VIOLATION ? "violation" : "gap");
        sim_table_str(t, c_sub, g->subject);
        sim_table_num(t, c_x, g->measured);
        sim_table_num(t, c_b, g->bound);
        sim_table_str(t, c_msg, g->message);
    }
}
