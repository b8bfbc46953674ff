/* val_series: the benchmark series of a TigerBench file (see the header).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "validate/val_series.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_str.h"

static const char *const phases[] = {"checkout", "webhook", "reserve", "commit"};

const char *val_series_order_name(int order)
{
    switch (order) {
    case VAL_SERIES_BY_CONCURRENCY:
        return "by concurrency";
    case VAL_SERIES_BY_ARCH:
        return "by architecture";
    default:
        return "as in the file";
    }
}

static void note(val_series *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(val_series *s, const char *fmt, ...)
{
    if (s->nnotes == VAL_SERIES_MAX_NOTES) {
        s->notes_left_out++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    sim_str_vfmt(s->notes[s->nnotes++], VAL_SERIES_NOTE_LEN, fmt, ap);
    va_end(ap);
}

const char *val_series_grouped(double v, char *buf, size_t len)
{
    char raw[64];
    snprintf(raw, sizeof raw, "%.0f", v);
    size_t n = strlen(raw), o = 0;
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        buf[o++] = raw[i];
        size_t left = n - 1 - i;
        if (left > 0 && left % 3 == 0 && raw[i] != '-')
            buf[o++] = ',';
    }
    buf[o] = '\0';
    return buf;
}

/* ---- checks ---- */

static int arch_line(const val_tigerbench_arch *a)
{
    int line = 0;
    for (size_t i = 0; i < a->nphases; i++)
        if (!line || a->phases[i].line < line)
            line = a->phases[i].line;
    for (size_t i = 0; i < a->nkinds; i++)
        if (!line || a->kinds[i].line < line)
            line = a->kinds[i].line;
    return line;
}

int val_series_check(const val_tigerbench *tb, sim_err *err)
{
    for (size_t ai = 0; ai < val_tigerbench_narch(tb); ai++) {
        const val_tigerbench_arch *a = val_tigerbench_arch_at(tb, ai);
        if (strcmp(a->accounting, "pg") && strcmp(a->accounting, "tb"))
            return sim_err_set(err, SIM_EINPUT,
                               "%s:%d: accounting: architecture %s: accounting '%s' is not one "
                               "tfsim models (pg, tb)",
                               val_tigerbench_name(tb), arch_line(a), a->name, a->accounting);
        if (strcmp(a->payments, "pg") && strcmp(a->payments, "redis"))
            return sim_err_set(err, SIM_EINPUT,
                               "%s:%d: payments: architecture %s: payments '%s' is not one tfsim "
                               "models (pg, redis)",
                               val_tigerbench_name(tb), arch_line(a), a->name, a->payments);
        for (size_t i = 0; i < a->nphases; i++) {
            int known = 0;
            for (size_t k = 0; k < 4; k++)
                known |= !strcmp(a->phases[i].phase, phases[k]);
            if (!known)
                return sim_err_set(err, SIM_EINPUT,
                                   "%s:%d: phase: '%s' is not a TigerBench phase (checkout, "
                                   "webhook, reserve, commit)",
                                   val_tigerbench_name(tb), a->phases[i].line, a->phases[i].phase);
        }
    }
    return SIM_OK;
}

/* ---- runs from the file ---- */

/* The usual requests per phase: the first phase group's total per
 * repetition (1000 when the file has none). */
static double usual_total(const val_tigerbench *tb)
{
    for (size_t ai = 0; ai < val_tigerbench_narch(tb); ai++) {
        const val_tigerbench_arch *a = val_tigerbench_arch_at(tb, ai);
        if (a->nphases && a->phases[0].reps > 0)
            return (double)a->phases[0].total / a->phases[0].reps;
    }
    return 1000;
}

static void run_rates(val_series_run *r, double holds, double total)
{
    r->rows_per_rep = r->pg ? 2 * holds : 0;
    /* the commit phase posts a goodie per request; with Redis sessions the
     * webhook too; TigerBeetle two per request in its own account */
    r->goodies_per_rep = r->pg ? (r->redis ? 2 : 1) * total : 2 * total;
}

/* The run of architecture a at concurrency c, from its rows. */
static void listed_run(const val_tigerbench_arch *a, long c, double total, val_series_run *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->arch, sizeof r->arch, "%s", a->name);
    r->pg = !strcmp(a->accounting, "pg");
    r->redis = !strcmp(a->payments, "redis");
    r->concurrency = c;
    r->how = VAL_SERIES_LISTED;
    r->t_end = NAN;
    r->period = NAN;
    int timed = 1, preps = 0;
    double tf = INFINITY, tl = -INFINITY, ck = NAN, rs = NAN;
    for (size_t i = 0; i < a->nphases; i++) {
        const val_tigerbench_phase *p = &a->phases[i];
        if (p->concurrency != c)
            continue;
        if (!r->line || p->line < r->line)
            r->line = p->line;
        if (p->reps > r->reps)
            r->reps = p->reps;
        if (p->reps > preps)
            preps = p->reps;
        timed &= p->timed == p->reps;
        if (p->timed) {
            tf = fmin(tf, p->t_first);
            tl = fmax(tl, p->t_last);
            r->t_end = isnan(r->t_end) ? p->t_last : fmax(r->t_end, p->t_last);
        }
        if (!strcmp(p->phase, "checkout"))
            ck = (double)p->total / p->reps;
        else if (!strcmp(p->phase, "reserve"))
            rs = (double)p->total / p->reps;
    }
    double holds = NAN;
    for (size_t i = 0; i < a->nkinds; i++) {
        const val_tigerbench_kind *k = &a->kinds[i];
        if (k->concurrency != c)
            continue;
        if (!r->line || k->line < r->line)
            r->line = k->line;
        if (k->reps > r->reps)
            r->reps = k->reps;
        timed &= k->timed == k->reps;
        if (k->timed)
            r->t_end = isnan(r->t_end) ? k->t_last : fmax(r->t_end, k->t_last);
        if (!strcmp(k->kind, "accounting.hold") && k->reps > 0)
            holds = (double)k->samples / k->reps;
    }
    if (!timed)
        r->t_end = NAN;
    if (timed && preps >= 2 && tl > tf)
        r->period = (tl - tf) / (preps - 1);
    /* holds per repetition: the checkout and reserve requests (each holds
     * once), else the hold timings' samples, else the usual two phases */
    if (!isnan(ck) || !isnan(rs) || isnan(holds))
        holds = (isnan(ck) ? total : ck) + (isnan(rs) ? total : rs);
    run_rates(r, holds, isnan(ck) ? total : ck);
}

static int cmp_time(const void *pa, const void *pb)
{
    const val_series_run *a = pa, *b = pb;
    if (a->t_end != b->t_end)
        return a->t_end < b->t_end ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

static int cmp_line(const void *pa, const void *pb)
{
    const val_series_run *a = pa, *b = pb;
    return (a->line > b->line) - (a->line < b->line);
}

static int cmp_long(const void *pa, const void *pb)
{
    long a = *(const long *)pa, b = *(const long *)pb;
    return (a > b) - (a < b);
}

static int turn_of(const val_series *s, const char *arch)
{
    for (size_t i = 0; i < s->nturn; i++)
        if (!strcmp(s->turn[i], arch))
            return (int)i;
    return (int)s->nturn;
}

/* "1, 5, 10" (up to three) or "5 to 90 (11 concurrencies)", from ascending levels */
static const char *level_list(const long *v, size_t n, char *buf, size_t len)
{
    if (n > 3) {
        snprintf(buf, len, "%ld to %ld (%zu concurrencies)", v[0], v[n - 1], n);
        return buf;
    }
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%ld", i ? ", " : "", v[i]);
    return buf;
}

/* ---- build ---- */

int val_series_build(const val_tigerbench *tb, const val_series_opts *o, val_series *s,
                     sim_err *err)
{
    memset(s, 0, sizeof *s);
    s->rows0 = o->rows0;
    s->goodies0 = o->goodies0;
    if (val_series_check(tb, err))
        return err->code;
    s->total = usual_total(tb);
    /* the runs the file lists */
    size_t cap = 0, nl = 0;
    for (size_t ai = 0; ai < val_tigerbench_narch(tb); ai++) {
        const val_tigerbench_arch *a = val_tigerbench_arch_at(tb, ai);
        cap += a->nphases + a->nkinds;
    }
    long *levels = malloc((cap + 1) * sizeof *levels);
    val_series_run *listed = calloc(cap + 1, sizeof *listed);
    assert(levels && listed);
    size_t nlisted = 0;
    int all_timed = 1;
    for (size_t ai = 0; ai < val_tigerbench_narch(tb); ai++) {
        const val_tigerbench_arch *a = val_tigerbench_arch_at(tb, ai);
        size_t nc = val_tigerbench_concurrencies(a, VAL_TIGERBENCH_PHASE_ROWS |
                                                        VAL_TIGERBENCH_KIND_ROWS, NULL, 0);
        long *cs = malloc((nc + 1) * sizeof *cs);
        assert(cs);
        val_tigerbench_concurrencies(a, VAL_TIGERBENCH_PHASE_ROWS | VAL_TIGERBENCH_KIND_ROWS, cs,
                                     nc);
        for (size_t i = 0; i < nc; i++) {
            val_series_run *r = &listed[nlisted++];
            listed_run(a, cs[i], s->total, r);
            all_timed &= !isnan(r->t_end);
            if (r->reps > s->reps)
                s->reps = r->reps;
            int seen = 0;
            for (size_t j = 0; j < nl && !seen; j++)
                seen = levels[j] == cs[i];
            if (!seen)
                levels[nl++] = cs[i];
        }
        free(cs);
    }
    if (s->reps < 1)
        s->reps = 1;
    qsort(levels, nl, sizeof *levels, cmp_long);
    /* their order */
    s->timed = all_timed && nlisted > 1;
    qsort(listed, nlisted, sizeof *listed, s->timed ? cmp_time : cmp_line);
    if (s->timed) {
        int same = 1;
        for (size_t i = 1; i < nlisted; i++)
            same &= listed[i].line > listed[i - 1].line;
        if (!same)
            note(s, "the rows are not in the order of their timestamps: the runs are taken in the "
                    "timestamps' order");
    }
    for (size_t i = 0; i < nlisted; i++) {
        if (turn_of(s, listed[i].arch) == (int)s->nturn && s->nturn < 16)
            snprintf(s->turn[s->nturn++], VAL_TIGERBENCH_NAME_MAX, "%s", listed[i].arch);
    }
    int conc_sorted = 1, grouped_arch = 1;
    for (size_t i = 1; i < nlisted; i++) {
        conc_sorted &= listed[i].concurrency >= listed[i - 1].concurrency;
        int t = turn_of(s, listed[i].arch), tp = turn_of(s, listed[i - 1].arch);
        grouped_arch &= t > tp || (t == tp && listed[i].concurrency > listed[i - 1].concurrency);
    }
    s->order = s->nturn <= 1 || conc_sorted ? VAL_SERIES_BY_CONCURRENCY
               : grouped_arch              ? VAL_SERIES_BY_ARCH
                                           : VAL_SERIES_AS_FILE;
    char turns[512] = "";
    for (size_t i = 0, o2 = 0; i < s->nturn && o2 < sizeof turns; i++)
        o2 += (size_t)snprintf(turns + o2, sizeof turns - o2, "%s%s", i ? ", " : "", s->turn[i]);
    if (s->nturn > 1)
        note(s, "series order %s (%s), from the %s", val_series_order_name(s->order),
             s->order == VAL_SERIES_BY_CONCURRENCY ? "each concurrency, every architecture in turn"
             : s->order == VAL_SERIES_BY_ARCH      ? "all runs of one architecture, then the next"
                                                   : "neither by concurrency nor by architecture",
             s->timed ? "timestamps" : "rows' order");
    if (s->nturn > 1)
        note(s, "architectures in turn: %s", turns);

    /* the runs in between that the file leaves out (by concurrency) */
    size_t capr = nlisted + nl * (s->nturn ? s->nturn : 1) + 1;
    s->runs = calloc(capr, sizeof *s->runs);
    assert(s->runs);
    /* per architecture: levels inferred, levels without room, gap range */
    long inf_lv[16][64], no_lv[16][64];
    size_t ninf[16] = {0}, nno[16] = {0};
    double room_lo = INFINITY, room_hi = -INFINITY;
    int untimed_inferred = 0;
    size_t na = s->nturn;
    for (size_t i = 0; i < nlisted; i++) {
        const val_series_run *x = &listed[i];
        if (s->order == VAL_SERIES_BY_CONCURRENCY && i > 0 && na > 1) {
            const val_series_run *p = &listed[i - 1];
            size_t lp = 0, lx = 0;
            while (levels[lp] != p->concurrency)
                lp++;
            while (levels[lx] != x->concurrency)
                lx++;
            size_t pp = lp * na + (size_t)turn_of(s, p->arch), px = lx * na + (size_t)turn_of(s, x->arch);
            if (px > pp + 1) {
                double room = NAN;
                if (s->timed && !isnan(x->period))
                    room = x->t_end - p->t_end - x->reps * x->period;
                int ran = isnan(room) || room > x->period;
                if (!isnan(room) && ran) {
                    room_lo = fmin(room_lo, room);
                    room_hi = fmax(room_hi, room);
                }
                untimed_inferred |= ran && isnan(room);
                for (size_t q = pp + 1; q < px; q++) {
                    size_t t = q % na;
                    long lv = levels[q / na];
                    if (ran) {
                        val_series_run *r = &s->runs[s->n++];
                        memset(r, 0, sizeof *r);
                        snprintf(r->arch, sizeof r->arch, "%s", s->turn[t]);
                        r->concurrency = lv;
                        r->reps = s->reps;
                        r->how = VAL_SERIES_INFERRED;
                        r->t_end = r->period = NAN;
                        /* its backends and rates: from a listed run of its own */
                        for (size_t j = 0; j < nlisted; j++)
                            if (!strcmp(listed[j].arch, r->arch)) {
                                r->pg = listed[j].pg;
                                r->redis = listed[j].redis;
                                run_rates(r, 2 * s->total, s->total);
                                break;
                            }
                        if (ninf[t] < 64)
                            inf_lv[t][ninf[t]++] = lv;
                    } else if (nno[t] < 64) {
                        no_lv[t][nno[t]++] = lv;
                    }
                }
            }
        }
        s->runs[s->n++] = *x;
    }
    for (size_t t = 0; t < na; t++) {
        char lv[256];
        if (ninf[t]) {
            level_list(inf_lv[t], ninf[t], lv, sizeof lv);
            char gap[64];
            if (!isinf(room_lo) && room_hi - room_lo >= 1)
                snprintf(gap, sizeof gap, "%.0f-%.0f s", room_lo, room_hi);
            else if (!isinf(room_lo))
                snprintf(gap, sizeof gap, "%.0f s", room_lo);
            if (!isinf(room_lo))
                note(s, "%s at concurrency %s: not in the file; the timestamps leave room for its "
                        "runs at their turn (%s unaccounted for): counted, %d repetitions each",
                     s->turn[t], lv, gap, s->reps);
            else
                note(s, "%s at concurrency %s: not in the file; counted at its turn, %d "
                        "repetitions each (%s)",
                     s->turn[t], lv, s->reps,
                     untimed_inferred ? "no timestamps to check them against" : "assumed");
        }
        if (nno[t]) {
            level_list(no_lv[t], nno[t], lv, sizeof lv);
            note(s, "%s at concurrency %s: not in the file, and the timestamps leave no room for "
                    "it at its turn: not counted", s->turn[t], lv);
        }
    }
    /* the state along the series */
    double rows = s->rows0, gpg = 0, gtb = 0;
    for (size_t i = 0; i < s->n; i++) {
        val_series_run *r = &s->runs[i];
        r->rows_before = rows;
        r->goodies_pg_before = gpg;
        r->goodies_tb_before = gtb;
        rows += r->reps * r->rows_per_rep;
        if (r->pg)
            gpg += r->reps * r->goodies_per_rep;
        else
            gtb += r->reps * r->goodies_per_rep;
    }
    if (s->rows0 > 0) {
        char b[64];
        note(s, "%s holds rows before the series (--rows0)",
             val_series_grouped(s->rows0, b, sizeof b));
    }
    free(levels);
    free(listed);
    return SIM_OK;
}

void val_series_fini(val_series *s)
{
    free(s->runs);
    s->runs = NULL;
    s->n = 0;
}

/* Where arch's run at c would go (index in s->runs) when the series does
 * not hold it. */
static size_t place(const val_series *s, const char *arch, long c)
{
    int ta = turn_of(s, arch);
    size_t i = 0;
    switch (s->order) {
    case VAL_SERIES_BY_CONCURRENCY:
        while (i < s->n && !(s->runs[i].concurrency > c ||
                             (s->runs[i].concurrency == c && turn_of(s, s->runs[i].arch) > ta)))
            i++;
        return i;
    case VAL_SERIES_BY_ARCH:
        while (i < s->n && !(turn_of(s, s->runs[i].arch) > ta ||
                             (!strcmp(s->runs[i].arch, arch) && s->runs[i].concurrency > c)))
            i++;
        return i;
    default: {
        /* after its own last lower concurrency; before its first run if all are higher */
        size_t at = s->n, first = s->n;
        for (size_t j = 0; j < s->n; j++) {
            if (strcmp(s->runs[j].arch, arch))
                continue;
            if (first == s->n)
                first = j;
            if (s->runs[j].concurrency < c)
                at = j + 1;
        }
        return at == s->n && first < s->n && s->runs[first].concurrency > c ? first : at;
    }
    }
}

int val_series_state(const val_series *s, const char *arch, long c, double *rows,
                     double *goodies, int *how, long *run, sim_err *err)
{
    const val_series_run *own = NULL;
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->runs[i].arch, arch)) {
            own = &s->runs[i];
            if (s->runs[i].concurrency == c) {
                const val_series_run *r = &s->runs[i];
                int mid = (r->reps - 1) / 2;
                *rows = r->rows_before + mid * r->rows_per_rep;
                double g = s->goodies0 - (r->pg ? r->goodies_pg_before : r->goodies_tb_before) -
                           mid * r->goodies_per_rep;
                *goodies = g > 0 ? g : 0;
                if (how)
                    *how = r->how;
                if (run)
                    *run = (long)i;
                return SIM_OK;
            }
        }
    if (!own)
        return sim_err_set(err, SIM_EINPUT, "architecture %s is not in the series", arch);
    size_t i = place(s, arch, c);
    double before = s->rows0, gpg = 0, gtb = 0;
    if (i < s->n) {
        before = s->runs[i].rows_before;
        gpg = s->runs[i].goodies_pg_before;
        gtb = s->runs[i].goodies_tb_before;
    } else if (s->n) {
        const val_series_run *l = &s->runs[s->n - 1];
        before = l->rows_before + l->reps * l->rows_per_rep;
        gpg = l->goodies_pg_before + (l->pg ? l->reps * l->goodies_per_rep : 0);
        gtb = l->goodies_tb_before + (l->pg ? 0 : l->reps * l->goodies_per_rep);
    }
    int mid = (s->reps - 1) / 2;
    val_series_run r = *own;
    run_rates(&r, 2 * s->total, s->total);
    *rows = before + mid * r.rows_per_rep;
    double g = s->goodies0 - (r.pg ? gpg : gtb) - mid * r.goodies_per_rep;
    *goodies = g > 0 ? g : 0;
    if (how)
        *how = VAL_SERIES_PLACED;
    if (run)
        *run = -1;
    return SIM_OK;
}

const char *val_series_describe(const val_series *s, const char *arch, long c, char *buf,
                                size_t len)
{
    double rows, goodies;
    int how;
    long run;
    sim_err e;
    sim_err_clear(&e);
    if (val_series_state(s, arch, c, &rows, &goodies, &how, &run, &e)) {
        snprintf(buf, len, "%s", e.msg);
        return buf;
    }
    size_t end = run >= 0 ? (size_t)run : place(s, arch, c);
    /* the PostgreSQL-accounting runs before it, per architecture */
    char before[1024] = "";
    size_t o = 0;
    for (size_t t = 0; t < s->nturn; t++) {
        long lv[256];
        size_t n = 0;
        for (size_t i = 0; i < end && i < s->n; i++)
            if (!strcmp(s->runs[i].arch, s->turn[t]) && s->runs[i].rows_per_rep > 0 && n < 256)
                lv[n++] = s->runs[i].concurrency;
        if (!n)
            continue;
        qsort(lv, n, sizeof *lv, cmp_long);
        char l[256];
        o += (size_t)snprintf(before + o, o < sizeof before ? sizeof before - o : 0, "%s%s at %s",
                              o ? ", " : "", s->turn[t], level_list(lv, n, l, sizeof l));
        if (o >= sizeof before)
            break;
    }
    const char *what = how == VAL_SERIES_LISTED ? "" : how == VAL_SERIES_INFERRED ? " (inferred)"
                                                                                   : " (placed by the order)";
    char r1[64], g1[64];
    int pg = 0;
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->runs[i].arch, arch))
            pg = s->runs[i].pg;
    /* the rows at the start of its run: its middle repetition less the
     * repetitions before it */
    double start = rows;
    if (run >= 0) {
        start = s->runs[run].rows_before;
    } else {
        for (size_t i = 0; i < s->n; i++)
            if (!strcmp(s->runs[i].arch, arch)) {
                val_series_run r = s->runs[i];
                run_rates(&r, 2 * s->total, s->total);
                start = rows - (s->reps - 1) / 2 * r.rows_per_rep;
                break;
            }
    }
    char r0[64];
    if (!pg)
        snprintf(buf, len, "%s at concurrency %ld%s: TigerBeetle accounting (the holds table "
                 "does not matter); %s goodies left", arch, c, what,
                 val_series_grouped(goodies, g1, sizeof g1));
    else if (before[0])
        snprintf(buf, len, "%s at concurrency %ld%s ran after %s on the same database: %s holds "
                 "rows at its start, %s at its middle repetition; %s goodies left", arch, c, what,
                 before, val_series_grouped(start, r0, sizeof r0),
                 val_series_grouped(rows, r1, sizeof r1),
                 val_series_grouped(goodies, g1, sizeof g1));
    else
        snprintf(buf, len, "%s at concurrency %ld%s ran first: %s holds rows at its start, %s at "
                 "its middle repetition; %s goodies left", arch, c, what,
                 val_series_grouped(start, r0, sizeof r0), val_series_grouped(rows, r1, sizeof r1),
                 val_series_grouped(goodies, g1, sizeof g1));
    return buf;
}
