#include "validate/val_compare.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "models/mdl.h"
#include "models/mdl_sweep.h"
#include "sim/sim_rep.h"
#include "sim/sim_stats.h"
#include "validate/val_fit.h"

/* ---- configs ---- */

/* A copy of base plus the overrides in `extra` (lines "section.key=value"). */
static sim_cfg *derive(const sim_cfg *base, const char *extra, sim_err *err)
{
    sim_cfg *c = sim_cfg_new();
    if (mdl_cfg_copy(c, base, err)) {
        sim_cfg_free(c);
        return NULL;
    }
    char line[SIM_CFG_MAX_LINE];
    for (const char *s = extra; s && *s;) {
        const char *e = strchr(s, '\n');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l >= sizeof line) {
            sim_err_set(err, SIM_EINPUT, "override too long: %.40s...", s);
            sim_cfg_free(c);
            return NULL;
        }
        memcpy(line, s, l);
        line[l] = '\0';
        if (l > 0 && sim_cfg_set(c, line, err)) {
            sim_cfg_free(c);
            return NULL;
        }
        s = e ? e + 1 : s + l;
    }
    return c;
}

/* Read the TigerFans parameters of cfg (checked as a scenario). */
static int params_of(const sim_cfg *cfg, tf_params *p, sim_err *err)
{
    memset(p, 0, sizeof *p);
    mdl_scenario sc;
    int rc = mdl_scenario_init(&sc, cfg, err);
    if (rc == SIM_OK && sc.type != &mdl_tigerfans_type)
        rc = sim_err_set(err, SIM_EINPUT, "model.type = %s: compare runs TigerFans scenarios",
                         sc.type->name);
    if (rc == SIM_OK)
        rc = tf_params_read(p, cfg, sc.schema, sc.nschema, err);
    mdl_scenario_fini(&sc);
    if (rc == SIM_OK)
        rc = val_live_check(p, err);
    return rc;
}

/* ---- calibration ---- */

/* Latencies per class; the COMMITs of transactions that ran sums (holds)
 * go to class AFTER_SUMS instead of COMMIT's. */
enum { AFTER_SUMS = VAL_LIVE_NCLASS, NSAMPLES };
typedef struct samples {
    double *x[NSAMPLES];    /* latencies */
    double *rows[NSAMPLES]; /* holds rows at each call */
    size_t n[NSAMPLES], cap[NSAMPLES];
} samples;

static void on_call(void *ctx, int cls, double latency, double rows, int flags)
{
    samples *s = ctx;
    if (flags & VAL_LIVE_AFTER_SUMS)
        cls = AFTER_SUMS;
    if (s->n[cls] == s->cap[cls]) {
        s->cap[cls] = s->cap[cls] ? 2 * s->cap[cls] : 256;
        s->x[cls] = realloc(s->x[cls], s->cap[cls] * sizeof *s->x[cls]);
        s->rows[cls] = realloc(s->rows[cls], s->cap[cls] * sizeof *s->rows[cls]);
        assert(s->x[cls] && s->rows[cls] && "out of memory");
    }
    s->rows[cls][s->n[cls]] = rows;
    s->x[cls][s->n[cls]++] = latency;
}

/* Least squares of the sums' latency on the holds rows: its value at no
 * rows (a0) and its slope per row (b); 0 when there are too few samples
 * or too little spread in rows to tell (then the caller falls back on the
 * mean). */
static int sum_fit(const samples *sm, double *a0, double *b)
{
    int c = VAL_LIVE_PG0 + TF_Q_SUM;
    size_t n = sm->n[c];
    if (n < 30)
        return 0;
    double lo = sm->rows[c][0], hi = lo;
    for (size_t i = 1; i < n; i++) {
        lo = fmin(lo, sm->rows[c][i]);
        hi = fmax(hi, sm->rows[c][i]);
    }
    if (hi - lo < 100)
        return 0;
    double c0, c1, cov00, cov01, cov11, sumsq;
    if (gsl_fit_linear(sm->rows[c], 1, sm->x[c], 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq))
        return 0;
    if (!isfinite(c0) || !isfinite(c1))
        return 0;
    *a0 = c0;
    *b = fmax(0, c1);
    return 1;
}

int val_compare_fit_spec(const double *x, size_t n, double minus, char *spec, size_t len, sim_err *err)
{
    double *y = malloc((n ? n : 1) * sizeof *y);
    assert(y && "out of memory");
    double sum = 0;
    size_t clipped = 0;
    for (size_t i = 0; i < n; i++) {
        clipped += x[i] - minus <= 1e-7;
        y[i] = fmax(x[i] - minus, 1e-7);
        sum += y[i];
    }
    double mean = n ? sum / (double)n : 0;
    snprintf(spec, len, "%.9g", mean);
    int rc = SIM_OK;
    if (n >= VAL_FIT_MIN_N && 4 * clipped <= n) {
        val_fit_opts fo;
        val_fit_opts_init(&fo);
        val_fit_report rep;
        rc = val_fit_sample(y, n, &fo, &rep, err);
        if (rc == SIM_OK) {
            int best = -1;
            for (int f = 0; f < VAL_FIT_EMPIRICAL; f++)
                if (rep.fam[f].ok && isfinite(rep.fam[f].aic) && (best < 0 || rep.fam[f].aic < rep.fam[best].aic))
                    best = f;
            if (best >= 0) {
                sim_dist d;
                sim_dist_copy(&d, &rep.fam[best].d);
                double m = sim_dist_mean(&d);
                if (m > 0 && isfinite(m)) {
                    sim_dist_scale(&d, mean / m);
                    sim_dist_format(&d, spec, len);
                }
                sim_dist_fini(&d);
            }
            val_fit_report_fini(&rep);
        }
    }
    free(y);
    return rc;
}

static double background_cores(const val_live_out *o)
{
    double ours = o->loop_cpu + o->pg_cpu + (isnan(o->redis_cpu) ? 0 : o->redis_cpu);
    double bg = (o->host_cpu - ours) / o->elapsed;
    return isfinite(bg) && bg > 0 ? bg : 0;
}

/* CPU seconds per round trip of the loop (its own work, not the spin)
 * and of the PostgreSQL backends per statement, in a run. */
static double loop_per_call(const val_live_out *o)
{
    return isnan(o->loop_cpu) || o->calls < 1 ? 0 : fmax(0, o->loop_cpu - o->spin) / o->calls;
}

static double pg_statements(const val_live_out *o)
{
    double n = 0;
    for (int q = 0; q <= TF_Q_COMMIT; q++)
        n += o->call[VAL_LIVE_PG0 + q].n;
    return n;
}

static double pg_per_statement(const val_live_out *o)
{
    double n = pg_statements(o);
    return n > 0 ? o->pg_cpu / n : NAN;
}

double val_compare_busy_cost(double stmt_1, double stmt_n)
{
    if (!(isfinite(stmt_1) && isfinite(stmt_n) && stmt_1 > 0 && stmt_n > stmt_1))
        return 0;
    return fmin(3, stmt_n / stmt_1 - 1);
}

/* Seconds per WAL flush of a run (NaN: unknown). */
static double flush_each(const val_live_out *o)
{
    return o->pg_flushes > 0 ? o->pg_flush_time / o->pg_flushes : NAN;
}

/* Threads (the loop and the backends) waiting for a CPU, time average
 * over a run (NaN: unknown). */
static double threads_waiting(const val_live_out *o)
{
    return o->elapsed > 0 ? (o->loop_wait + o->pg_wait) / o->elapsed : NAN;
}

/* Measured 2026-12-06 (io-threads 4, tfsim live at concurrency 8, one
 * run each): without the webhook phase 0.31 ms per flush at 4.0 threads
 * waiting, with it 0.66 ms at 0.9 (1.2 ms per flush in the webhook). */
void val_compare_quiet_flush(const val_live_out *o, double *flush, double *wait)
{
    double n = 0, t = 0, w = 0, el = 0;
    for (int i = 0; i < TF_NPHASES; i++)
        if (o->phase_ran[i] == 1 && !(o->ph_threaded[i] > 0) && o->ph_flushes[i] > 0 &&
            isfinite(o->ph_flush_time[i]) && isfinite(o->ph_wait[i]) && o->ph_elapsed[i] > 0) {
            n += o->ph_flushes[i];
            t += o->ph_flush_time[i];
            w += o->ph_wait[i];
            el += o->ph_elapsed[i];
        }
    if (n > 0 && el > 0) {
        *flush = t / n;
        *wait = w / el;
    } else {
        *flush = flush_each(o);
        *wait = threads_waiting(o);
    }
}

double val_compare_flush_wait(double flush_1, double wait_1, double flush_n, double wait_n)
{
    if (!(isfinite(flush_1) && isfinite(flush_n) && isfinite(wait_1) && isfinite(wait_n) && flush_1 > 0 &&
          flush_n > flush_1 && wait_n - wait_1 >= 0.1))
        return 0;
    return fmin(0.01, (flush_n - flush_1) / (wait_n - wait_1));
}

/* Split CPU per operation d (at concurrency 1: d1 with wake-up share g1;
 * loaded: dn with gn) into base + wake x share.  Returns the wake cost
 * (0 when the runs cannot separate them: shares too close, numbers
 * missing, or the loaded run costlier); *base gets d1 - wake x g1. */
static double wake_split(double d1, double g1, double dn, double gn, double *base)
{
    double w = 0;
    if (isfinite(d1) && isfinite(dn) && isfinite(g1) && isfinite(gn) && g1 - gn >= 0.1 && d1 > dn)
        w = fmin((d1 - dn) / (g1 - gn), d1 / g1);
    *base = d1 - w * g1;
    return w;
}

/* The median of n latencies (sorted in place); NAN when n is 0. */
static double median_of(double *x, size_t n)
{
    if (!n)
        return NAN;
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}

/* The saves' median latency over the one-command round trips' (HGETALL,
 * SET NX), never below 0; 0 when either is missing. */
static double save_excess(const samples *sm)
{
    const int simple[] = {TF_R_GET, TF_R_FULFILL1, TF_R_FULFILL2};
    const size_t nsave = sm->n[VAL_LIVE_REDIS0 + TF_R_SAVE];
    size_t n1 = 0;
    for (size_t k = 0; k < sizeof simple / sizeof *simple; k++)
        n1 += sm->n[VAL_LIVE_REDIS0 + simple[k]];
    if (!nsave || !n1)
        return 0;
    double *save = malloc(nsave * sizeof *save), *one = malloc(n1 * sizeof *one);
    assert(save && one && "out of memory");
    memcpy(save, sm->x[VAL_LIVE_REDIS0 + TF_R_SAVE], nsave * sizeof *save);
    size_t j = 0;
    for (size_t k = 0; k < sizeof simple / sizeof *simple; k++) {
        const int c = VAL_LIVE_REDIS0 + simple[k];
        memcpy(one + j, sm->x[c], sm->n[c] * sizeof *one);
        j += sm->n[c];
    }
    const double extra = fmax(0, median_of(save, nsave) - median_of(one, n1));
    free(save);
    free(one);
    return extra;
}

/* The calibration from a live run at concurrency 1 of params p: its
 * results o and its round trips sm; loaded (or NULL): a run under load
 * that separates each CPU per operation into a base and a wake-up cost. */
static int calib_from(const tf_params *p, const val_live_out *o, const samples *sm,
                      const val_live_out *loaded, val_compare_calib *cal, sim_err *err)
{
    memset(cal, 0, sizeof *cal);
    /* The measured latencies hold the loop's own work on the round trip
     * (sending, reading, poll): the model has it as loop CPU, so it is
     * taken out of them (o_rt: all loop CPU but the spin, spread over the
     * round trips). */
    double o_rt = loop_per_call(o);
    double ns = 0, ls = 0;
    for (int q = 0; q <= TF_Q_COMMIT; q++) {
        const val_live_cstat *c = &o->call[VAL_LIVE_PG0 + q];
        if (q == TF_Q_SUM || q == TF_Q_COMMIT || !(c->n > 0))
            continue;
        ns += c->n;
        ls += c->n * fmax(c->mean - o_rt, 0);
    }
    cal->l_simple = ns > 0 ? ls / ns : 0;
    const val_live_cstat *su = &o->call[VAL_LIVE_PG0 + TF_Q_SUM], *co = &o->call[VAL_LIVE_PG0 + TF_Q_COMMIT];
    cal->l_sum = su->n > 0 ? fmax(su->mean - o_rt, 0) : cal->l_simple;
    cal->l_commit = co->n > 0 ? fmax(co->mean - o_rt, 0) : cal->l_simple;
    double nr = 0, lr = 0;
    for (int r = 0; r <= TF_R_REMOVE; r++) {
        const val_live_cstat *c = &o->call[VAL_LIVE_REDIS0 + r];
        if (c->n > 0) {
            nr += c->n;
            lr += c->n * fmax(c->mean - o_rt, 0);
        }
    }
    cal->l_redis = nr > 0 ? lr / nr : 0;
    double denom = ls + (su->n > 0 ? su->n * cal->l_sum : 0) + (co->n > 0 ? co->n : 0) * cal->l_simple;
    cal->pg_on_host = isfinite(o->pg_cpu) && denom > 0;
    cal->f = cal->pg_on_host ? fmin(1, o->pg_cpu / denom) : 1;
    /* Wake-ups: CPU per round trip of the loop = base + wake x (times the
     * loop slept / round trips); CPU per statement = base + wake x (share
     * of statements sent with no other in flight).  At concurrency 1 both
     * shares are about 1; under load they fall and so does the CPU per
     * operation (on a VM an idle vCPU halts and each wake-up costs).  Two
     * runs give both unknowns; the simulation charges the wake-up where
     * its loop is idle or a statement finds a host core idle.  Without a
     * loaded run: no wake-up. */
    double s1 = o->calls > 0 ? o->loop_sleeps / o->calls : NAN;
    double g1 = pg_statements(o) > 0 ? o->pg_alone / pg_statements(o) : NAN;
    cal->loop_sleep_1 = s1;
    cal->pg_alone_1 = g1;
    cal->loop_sleep_n = cal->pg_alone_n = cal->o_rt_n = cal->pg_stmt_n = cal->flush_n = cal->wait_n = NAN;
    val_compare_quiet_flush(o, &cal->flush_1, &cal->wait_1);
    cal->pg_stmt_1 = pg_per_statement(o);
    double wake = 0, pwake = 0, base = o_rt, pbase;
    if (loaded) {
        double n = pg_statements(loaded);
        cal->loop_sleep_n = loaded->calls > 0 ? loaded->loop_sleeps / loaded->calls : NAN;
        cal->pg_alone_n = n > 0 ? loaded->pg_alone / n : NAN;
        cal->o_rt_n = loop_per_call(loaded);
        cal->pg_stmt_n = pg_per_statement(loaded);
        wake = wake_split(o_rt, s1, cal->o_rt_n, cal->loop_sleep_n, &base);
        double pw = wake_split(cal->pg_stmt_1, g1, cal->pg_stmt_n, cal->pg_alone_n, &pbase);
        /* as a share of the statement's CPU at concurrency 1 (about all wake-ups) */
        if (cal->pg_on_host && pw > 0)
            pwake = fmin(1, pw / cal->pg_stmt_1);
        /* the other way round: under load a statement costs more (the
         * backends take turns on busy cores); charged where a statement
         * finds no core idle */
        if (cal->pg_on_host && pw == 0)
            cal->pg_busy = val_compare_busy_cost(cal->pg_stmt_1, cal->pg_stmt_n);
        /* a WAL flush takes longer under load (pg_stat_wal): its backend
         * waits behind the threads queued for a core */
        val_compare_quiet_flush(loaded, &cal->flush_n, &cal->wait_n);
        if (cal->pg_on_host)
            cal->flush_wait = val_compare_flush_wait(cal->flush_1, cal->wait_1, cal->flush_n, cal->wait_n);
    }
    cal->o_rt_1 = o_rt;
    cal->o_rt = base;
    cal->wake = wake;
    /* the simulated loop wakes for every reply at concurrency 1, the
     * backends for every statement */
    cal->pg_wake = pwake * cal->f * cal->l_simple;
    cal->query_cpu = (1 - pwake) * cal->f * cal->l_simple;
    cal->rtt = fmax(0, cal->l_simple + o_rt - base - wake - cal->query_cpu - cal->pg_wake);
    cal->rows_avg = (p->holds_rows + o->holds_rows_end) / 2;
    /* A sum costs a set-up (sum_cpu) plus its rows (row_cost): from the
     * sums' latency against the rows made so far when both can be told
     * apart, else all of the sums' excess over a simple statement is put
     * on the mean rows of the run. */
    double a0, b;
    cal->sum_cpu = 0;
    if (p->pg_scan_fraction > 0 && sum_fit(sm, &a0, &b)) {
        cal->row_cost = 4 * cal->f * b / p->pg_scan_fraction;
        cal->sum_cpu = cal->f * fmax(0, a0 - o_rt - cal->l_simple);
    } else {
        cal->row_cost = cal->rows_avg >= 1 && p->pg_scan_fraction > 0
                            ? 4 * cal->f * fmax(0, cal->l_sum - cal->l_simple) /
                                  (p->pg_scan_fraction * cal->rows_avg)
                            : 0;
    }
    cal->background = background_cores(o);
    /* what a round trip costs before the server's part, as simulated */
    double before = cal->o_rt + cal->wake + cal->rtt;
    /* The COMMITs after sums wait longer (postgres.commit_wake: their
     * mean over the others'); the flush is fitted to the others, or to
     * them when no other transaction ran. */
    int cc = VAL_LIVE_PG0 + TF_Q_COMMIT;
    cal->commit_wake = 0;
    if (sm->n[cc] && sm->n[AFTER_SUMS])
        cal->commit_wake = fmax(0, gsl_stats_mean(sm->x[AFTER_SUMS], 1, sm->n[AFTER_SUMS]) -
                                       gsl_stats_mean(sm->x[cc], 1, sm->n[cc]));
    else if (!sm->n[cc])
        cc = AFTER_SUMS;
    int rc = val_compare_fit_spec(sm->x[cc], sm->n[cc], before + cal->query_cpu + cal->pg_wake, cal->flush,
                      sizeof cal->flush, err);
    /* Redis runs on this host: its work is on the host's cores, and its
     * reply finds the loop's core awake (Linux runs Redis on the core the
     * loop sleeps on), so no wake-up comes before it.  Its service: one
     * fit of the round trips but the saves (the model has one service
     * time); with saves only, their fit.  save_extra: the saves' median
     * over the one-command round trips' (HGETALL, SET NX).  Medians, not
     * means, and not against the removes: at concurrency 1 a few
     * round trips in a hundred take ten times the median (up to 2.9 ms
     * measured), and the removes (a MULTI of their own, after the order's
     * commit) were slower than the saves in one run of six, which made
     * the mean excess 0 in CI and in one of five runs here. */
    cal->redis_on_host = nr > 0 && isfinite(o->redis_cpu);
    cal->redis_io_threads = nr > 0 ? o->redis_io_threads : 0;
    cal->redis_io_reads = nr > 0 ? o->redis_io_reads : -1;
    double rbefore = cal->o_rt + cal->rtt + (cal->redis_on_host ? 0 : cal->wake);
    const size_t nsave = sm->n[VAL_LIVE_REDIS0 + TF_R_SAVE];
    size_t nall = 0;
    for (int r = TF_R_SAVE + 1; r <= TF_R_REMOVE; r++)
        nall += sm->n[VAL_LIVE_REDIS0 + r];
    int from = nall > 0 ? TF_R_SAVE + 1 : TF_R_SAVE;
    if (!nall)
        nall = nsave;
    double *all = malloc((nall ? nall : 1) * sizeof *all);
    assert(all && "out of memory");
    size_t j = 0;
    for (int r = from; r <= TF_R_REMOVE; r++)
        for (size_t i = 0; i < sm->n[VAL_LIVE_REDIS0 + r]; i++)
            all[j++] = sm->x[VAL_LIVE_REDIS0 + r][i];
    cal->save_extra = from > TF_R_SAVE ? save_excess(sm) : 0;
    if (rc == SIM_OK && nall)
        rc = val_compare_fit_spec(all, nall, rbefore, cal->redis_service, sizeof cal->redis_service, err);
    else if (rc == SIM_OK)
        snprintf(cal->redis_service, sizeof cal->redis_service, "%.9g", cal->l_redis);
    free(all);
    return rc;
}

static void samples_fini(samples *sm)
{
    for (int c = 0; c < NSAMPLES; c++) {
        free(sm->x[c]);
        free(sm->rows[c]);
    }
}

/* A calibration run of its own: base at concurrency conc (calib_total
 * requests per phase, no stand-in CPU) with the options lo; its results
 * into out and its parameters into p (caller frees). */
static int calib_run(const sim_cfg *base, const val_compare_opts *o, const val_live_opts *lo,
                     long conc, tf_params *p, val_live_out *out, sim_err *err)
{
    char extra[128];
    int n = snprintf(extra, sizeof extra, "client.concurrency=%ld\n", conc);
    if (o->calib_total > 0)
        snprintf(extra + n, sizeof extra - (size_t)n, "client.total=%ld\n", o->calib_total);
    memset(p, 0, sizeof *p);
    sim_cfg *cfg = derive(base, extra, err);
    if (!cfg)
        return err->code;
    int rc = params_of(cfg, p, err);
    if (rc == SIM_OK && (rc = val_live_run(p, lo, o->srv, out, err)))
        sim_err_prefix(err, "calibration at concurrency %ld: ", conc);
    sim_cfg_free(cfg);
    return rc;
}

size_t val_compare_overrides(const val_compare_calib *cal, const tf_params *p, double s, double c,
                             double cores, char *buf, size_t len)
{
    double req = s * p->cpu_request + 2 * c;
    double split = req > 0 ? (s * p->cpu_request * p->cpu_split + c) / req : p->cpu_split;
    int n = snprintf(buf, len,
        "server.cpu_request=%.9g\nserver.cpu_split=%.9g\nserver.cpu_checkout=%.9g\n"
        "server.cpu_webhook=%.9g\npostgres.loop_cpu_txn=%.9g\npostgres.loop_cpu_query=%.9g\n"
        "redis.loop_cpu=%.9g\ntigerbeetle.loop_cpu=%.9g\n"
        "host.cores=%.9g\nhost.postgres_on_host=%s\nhost.rtt=%.9g\n"
        "postgres.query_cpu=%.9g\npostgres.commit_cpu=%.9g\npostgres.row_cost=%.9g\n"
        "postgres.sum_cpu=%.9g\npostgres.commit_wake=%.9g\n"
        "postgres.flush=%s\nredis.service=%s\nredis.save_extra=%.9g\n"
        "server.wake_cpu=%.9g\npostgres.wake_cpu=%.9g\npostgres.busy_cost=%.9g\n"
        "postgres.flush_wait=%.9g\n"
        "host.redis_on_host=%s\nhost.wake_affine=%s\nredis.wake_wait=0\n",
        req, fmin(1, fmax(0, split)), s * p->cpu_checkout, s * p->cpu_webhook,
        s * p->pg_loop_cpu_txn + 2 * c, s * p->pg_loop_cpu_query + c + cal->o_rt,
        s * p->redis_loop_cpu + c + cal->o_rt, s * p->tb_loop_cpu + c, cores,
        cal->pg_on_host ? "true" : "false", cal->rtt, cal->query_cpu, cal->query_cpu, cal->row_cost, cal->sum_cpu,
        cal->commit_wake,
        cal->flush, cal->redis_service, cal->save_extra, cal->wake, cal->pg_wake, cal->pg_busy,
        cal->flush_wait,
        cal->redis_on_host ? "true" : "false",
        cal->pg_on_host || cal->redis_on_host ? "true" : "false");
    size_t used = n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
    if (used + 1 < len && cal->redis_io_threads > 0) {
        n = snprintf(buf + used, len - used, "redis.io_threads=%ld\n", cal->redis_io_threads);
        used += n < 0 ? 0 : (size_t)n < len - used ? (size_t)n : len - used - 1;
    }
    if (used + 1 < len && cal->redis_io_reads >= 0) {
        n = snprintf(buf + used, len - used, "redis.io_threads_do_reads=%s\n",
                     cal->redis_io_reads ? "true" : "false");
        used += n < 0 ? 0 : (size_t)n < len - used ? (size_t)n : len - used - 1;
    }
    /* the keys whose registry row gives the live driver's value (no HTTP
     * layer, no load generator of its own) */
    size_t nreg;
    const tf_param *reg = tf_params_registry(&nreg);
    for (size_t i = 0; i < nreg && used + 1 < len; i++) {
        if (!reg[i].live)
            continue;
        n = snprintf(buf + used, len - used, "%s.%s=%s\n", reg[i].k.section, reg[i].k.key,
                     reg[i].live);
        used += n < 0 ? 0 : (size_t)n < len - used ? (size_t)n : len - used - 1;
    }
    return used;
}

/* ---- the comparison ---- */

static void step(const val_compare_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void step(const val_compare_opts *o, const char *fmt, ...)
{
    if (!o->step)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    o->step(o->step_ctx, msg);
}

static int simulate(const sim_cfg *cfg, unsigned reps, val_compare_point *pt, sim_err *err)
{
    mdl_scenario sc;
    int rc = mdl_scenario_init(&sc, cfg, err);
    if (rc == SIM_OK && reps > 0) /* exactly reps: no more for a CI target */
        sc.plan.min_reps = sc.plan.max_reps = reps;
    sim_rep_result res;
    memset(&res, 0, sizeof res);
    sim_table *t = sim_table_new(NULL);
    if (rc == SIM_OK)
        rc = mdl_scenario_run(&sc, &res, t, NULL, err);
    for (int ph = 0; ph < TF_NPHASES && rc == SIM_OK; ph++) {
        long k = sim_layout_find(&sc.layout, "phase", tf_phase_names[ph], "throughput");
        assert(k >= 0);
        pt->sim[ph] = res.mean[k];
        pt->sim_half[ph] = res.reps >= 2 ? res.half[k] : NAN;
    }
    if (rc == SIM_OK) {
        long ku = sim_layout_find(&sc.layout, "component", "host_cpu", "utilisation"),
             kq = sim_layout_find(&sc.layout, "component", "host_cpu", "mean_queue");
        assert(ku >= 0 && kq >= 0);
        pt->sim_wait = fmax(0, res.mean[kq] - res.mean[ku] * pt->cores);
        long kt = sim_layout_find(&sc.layout, "run", "totals", "redis_threaded_writes");
        assert(kt >= 0);
        pt->sim_threaded = res.mean[kt];
    }
    pt->reps = res.reps;
    sim_table_free(t);
    sim_rep_result_fini(&res);
    mdl_scenario_fini(&sc);
    return rc;
}

static void amdahl(val_compare *c, const char *key)
{
    const val_compare_point *one = NULL;
    for (size_t i = 0; i < c->n; i++)
        if (c->pts[i].concurrency == 1 && c->pts[i].live.phase_ran[0] + c->pts[i].live.phase_ran[1] +
                                                  c->pts[i].live.phase_ran[2] + c->pts[i].live.phase_ran[3] > 0)
            one = &c->pts[i];
    for (size_t i = 0; i < c->n; i++)
        for (int ph = 0; ph < TF_NPHASES; ph++)
            c->pts[i].amdahl[ph] = NAN;
    if (!one || strcmp(key, "client.concurrency"))
        return;
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        double x1 = one->live.phase[ph].throughput;
        if (one->live.phase_ran[ph] != 1 || !(x1 > 0))
            continue;
        double r1 = 1 / x1, kinds = 0;
        for (int k = 0; k < TF_NKINDS; k++)
            if (!isnan(one->live.phase_kind_mean[ph][k]))
                kinds += one->live.phase_kind_mean[ph][k];
        double sigma = fmax(0, (r1 - kinds) / r1);
        for (size_t i = 0; i < c->n; i++) {
            double n = (double)c->pts[i].concurrency;
            c->pts[i].amdahl[ph] = x1 * n / (1 + sigma * (n - 1));
        }
    }
}

static void errors(val_compare *c)
{
    sim_mape se, sa;
    sim_mape_init(&se);
    sim_mape_init(&sa);
    for (size_t i = 0; i < c->n; i++) {
        const val_compare_point *pt = &c->pts[i];
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            double live = pt->live.phase[ph].throughput;
            if (pt->live.phase_ran[ph] != 1 || !(live > 0))
                continue;
            sim_mape_add_range(&se, pt->sim[ph], live, pt->live_lo[ph], pt->live_hi[ph]);
            sim_mape_add(&sa, pt->amdahl[ph], live);
        }
    }
    c->npoints = se.n;
    c->within = se.within;
    c->beyond = se.beyond;
    c->mape = sim_mape_mean(&se);
    c->max_err = se.n ? se.max : NAN;
    c->mape_amdahl = sim_mape_mean(&sa);
}

void val_compare_analyse(val_compare *c, const char *key)
{
    amdahl(c, key);
    errors(c);
}

/* A round-trip class's statistics as the running moments they came from
 * (its max is not kept: the min stands in). */
static sim_welford welford_of(const val_live_cstat *c)
{
    sim_welford w;
    sim_welford_init(&w);
    if (c->n > 0) {
        w.n = (uint64_t)c->n;
        w.mean = c->mean;
        w.m2 = c->n > 1 ? c->sd * c->sd * (c->n - 1) : 0;
        w.min = w.max = c->min;
    }
    return w;
}

/* One round-trip class of two runs pooled (sim_welford_merge): count,
 * mean and sd over all their round trips, the least minimum. */
static val_live_cstat cstat_pool(const val_live_cstat *a, const val_live_cstat *b)
{
    if (!(a->n > 0))
        return *b;
    if (!(b->n > 0))
        return *a;
    sim_welford w = welford_of(a), wb = welford_of(b);
    sim_welford_merge(&w, &wb);
    return (val_live_cstat){(double)w.n, w.mean, sim_welford_sd(&w), w.min};
}

void val_compare_pool(const val_live_out *runs, unsigned n, val_live_out *out)
{
    assert(n >= 1);
    *out = runs[0];
    for (unsigned r = 1; r < n; r++) {
        const val_live_out *x = &runs[r];
        out->loop_cpu += x->loop_cpu;
        out->pg_cpu += x->pg_cpu;
        out->redis_cpu += x->redis_cpu;
        out->host_cpu += x->host_cpu;
        out->loop_sleeps += x->loop_sleeps;
        out->loop_wait += x->loop_wait;
        out->pg_wait += x->pg_wait;
        out->pg_flushes += x->pg_flushes;
        out->pg_flush_time += x->pg_flush_time;
        for (int i = 0; i < TF_NPHASES; i++) {
            out->ph_elapsed[i] += x->ph_elapsed[i];
            out->ph_flushes[i] += x->ph_flushes[i];
            out->ph_flush_time[i] += x->ph_flush_time[i];
            out->ph_wait[i] += x->ph_wait[i];
            out->ph_threaded[i] += x->ph_threaded[i];
        }
        out->spin += x->spin;
        out->elapsed += x->elapsed;
        out->calls += x->calls;
        out->requests += x->requests;
        out->idle_waits += x->idle_waits;
        out->pg_alone += x->pg_alone;
        for (int c = 0; c < VAL_LIVE_NCLASS; c++)
            out->call[c] = cstat_pool(&out->call[c], &x->call[c]);
        out->commit_after_sums = cstat_pool(&out->commit_after_sums, &x->commit_after_sums);
    }
}

/* The live figure of a point from its n runs (n >= 1): each complete
 * phase's throughput becomes the median over the runs, with their range in
 * live_lo/live_hi; the rest of pt->live (CPU counters, round trips, kind
 * timings) becomes that of the run with the median elapsed time; the runs
 * pooled go to pt->pooled.  runs is borrowed.  Cost O(n log n). */
static void live_aggregate(val_compare_point *pt, const val_live_out *runs, unsigned n)
{
    assert(n >= 1 && n <= VAL_COMPARE_MAX_LIVE_REPS);
    double x[TF_NPHASES][VAL_COMPARE_MAX_LIVE_REPS], el[VAL_COMPARE_MAX_LIVE_REPS];
    size_t nx[TF_NPHASES] = {0};
    pt->live_runs = n;
    for (unsigned r = 0; r < n; r++) {
        el[r] = runs[r].elapsed;
        for (int ph = 0; ph < TF_NPHASES; ph++)
            if (runs[r].phase_ran[ph] == 1 && runs[0].phase_ran[ph] == 1)
                x[ph][nx[ph]++] = runs[r].phase[ph].throughput;
    }
    /* the representative run: the one with the median elapsed time */
    double sorted[VAL_COMPARE_MAX_LIVE_REPS];
    memcpy(sorted, el, n * sizeof *el);
    gsl_sort(sorted, 1, n);
    double mid = sorted[(n - 1) / 2];
    for (unsigned r = 0; r < n; r++)
        if (el[r] == mid) {
            pt->live = runs[r];
            break;
        }
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        pt->live_lo[ph] = pt->live_hi[ph] = NAN;
        if (!nx[ph] || pt->live.phase_ran[ph] != 1)
            continue;
        gsl_sort(x[ph], 1, nx[ph]);
        pt->live.phase[ph].throughput = gsl_stats_median_from_sorted_data(x[ph], 1, nx[ph]);
        pt->live_lo[ph] = x[ph][0];
        pt->live_hi[ph] = x[ph][nx[ph] - 1];
    }
    val_compare_pool(runs, n, &pt->pooled);
    pt->background = background_cores(&pt->live);
    pt->live_wait = threads_waiting(&pt->live);
    pt->live_threaded = pt->live.redis_threaded_writes;
}

int val_compare_run(const sim_cfg *base, const val_compare_opts *o, val_compare *c, sim_err *err)
{
    memset(c, 0, sizeof *c);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c->ncpu = ncpu > 0 ? (double)ncpu : 1;
    c->mape = c->max_err = c->mape_amdahl = NAN;
    c->pts = calloc(o->n ? o->n : 1, sizeof *c->pts);
    tf_params *ps = calloc(o->n ? o->n : 1, sizeof *ps);
    assert(c->pts && ps && "out of memory");
    int rc = SIM_OK;
    /* every point's config first: input errors before anything runs */
    size_t nparams = 0;
    for (size_t i = 0; i < o->n && rc == SIM_OK; i++) {
        char set[SIM_CFG_MAX_LINE];
        snprintf(set, sizeof set, "%s=%s", o->key, o->values[i]);
        sim_cfg *cfg = derive(base, set, err);
        rc = cfg ? params_of(cfg, &ps[i], err) : err->code;
        nparams = i + 1;
        if (rc)
            sim_err_prefix(err, "%s=%s: ", o->key, o->values[i]);
        sim_cfg_free(cfg);
        snprintf(c->pts[i].value, sizeof c->pts[i].value, "%s", o->values[i]);
        c->pts[i].concurrency = ps[i].concurrency;
        c->pts[i].live_wait = c->pts[i].sim_wait = NAN;
        c->pts[i].live_threaded = c->pts[i].sim_threaded = NAN;
        if (i == 0)
            for (int ph = 0; ph < TF_NPHASES; ph++)
                c->phase_on[ph] = ps[i].phase_on[ph];
    }
    /* The calibration is the live run at concurrency 1: the first value
     * with concurrency 1, run first, or a run of its own. */
    size_t one = o->n;
    for (size_t i = 0; i < o->n && one == o->n && rc == SIM_OK; i++)
        if (ps[i].concurrency == 1)
            one = i;
    if (rc == SIM_OK) {
        samples sm;
        memset(&sm, 0, sizeof sm);
        val_live_opts lo = o->live;
        lo.on_call = on_call;
        lo.on_call_ctx = &sm;
        tf_params p1;
        memset(&p1, 0, sizeof p1);
        val_live_out own, loaded;
        const val_live_out *o1 = &own;
        if (one == o->n) {
            step(o, "calibration: concurrency 1");
            lo.cpu_scale = 0;
            lo.cpu_per_step = 0;
            rc = calib_run(base, o, &lo, 1, &p1, &own, err);
        } else {
            o1 = &c->pts[one].pooled;
        }
        if (rc == SIM_OK && o->demands_at > 0) {
            step(o, "calibration of the wake-ups: concurrency %ld, no stand-in CPU", o->demands_at);
            val_live_opts ld = o->live;
            ld.cpu_scale = 0;
            ld.cpu_per_step = 0;
            tf_params pn;
            rc = calib_run(base, o, &ld, o->demands_at, &pn, &loaded, err);
            tf_params_fini(&pn);
        }
        /* The live runs in rounds: every point once per round (the
         * calibration point first), so that a slow spell of a shared
         * machine falls on all points alike instead of on one. */
        unsigned want = o->live_reps > 1 ? o->live_reps : 1;
        assert(want <= VAL_COMPARE_MAX_LIVE_REPS);
        val_live_out *runs = calloc(o->n * want, sizeof *runs);
        unsigned *nrun = calloc(o->n, sizeof *nrun);
        assert(runs && nrun && "out of memory");
        for (unsigned r = 0; r < want && rc == SIM_OK; r++)
            for (size_t k = 0; k < o->n && rc == SIM_OK; k++) {
                /* the k-th point of the round: the calibration point, then the others in order */
                size_t i = one == o->n ? k : k == 0 ? one : k <= one ? k - 1 : k;
                char round[48] = "";
                if (want > 1)
                    snprintf(round, sizeof round, ", run %u/%u", r + 1, want);
                step(o, "live %zu/%zu: %s=%s%s%s", k + 1, o->n, o->key, o->values[i], round,
                     i == one ? " (also the calibration)" : "");
                rc = val_live_run(&ps[i], i == one ? &lo : &o->live, o->srv, &runs[i * want + nrun[i]], err);
                if (rc == SIM_OK)
                    nrun[i]++;
                else
                    sim_err_prefix(err, "%s=%s: ", o->key, o->values[i]);
            }
        /* what was measured is kept, also after a failure */
        for (size_t i = 0; i < o->n; i++)
            if (nrun[i] > 0) {
                live_aggregate(&c->pts[i], &runs[i * want], nrun[i]);
                c->n = i + 1;
            }
        free(runs);
        free(nrun);
        /* The loaded run: the --demands-at run, or the live point with the
         * largest concurrency (above 1) */
        const val_live_out *ld = NULL;
        long at = 0;
        if (o->demands_at > 0) {
            ld = &loaded;
            at = o->demands_at;
        } else {
            for (size_t i = 0; i < o->n; i++)
                if (i != one && ps[i].concurrency > (at ? at : 1)) {
                    ld = &c->pts[i].pooled;
                    at = ps[i].concurrency;
                }
        }
        if (rc == SIM_OK) {
            rc = calib_from(one < o->n ? &ps[one] : &p1, o1, &sm, ld, &c->cal, err);
            c->cal.loaded_at = ld ? at : 0;
            /* round trips went to Redis (l_redis > 0) on this machine, yet
             * its CPU could not be read */
            c->cal.redis_cpu_unknown = rc == SIM_OK && c->cal.l_redis > 0 && !c->cal.redis_on_host &&
                                       val_live_srv_redis_local(&o->srv->redis);
        }
        tf_params_fini(&p1);
        samples_fini(&sm);
    }
    if (rc == SIM_OK) {
        step(o, "simulation: %zu points", o->n);
        for (size_t i = 0; i < o->n && rc == SIM_OK; i++) {
            /* a stop (SIGINT) between points: the live runs are kept */
            if (o->live.stop && *o->live.stop) {
                rc = sim_err_set(err, SIM_EFAIL, "interrupted while simulating (the live runs "
                                                 "are measured; nothing simulated is printed)");
                break;
            }
            val_compare_point *pt = &c->pts[i];
            pt->cores = o->cores > 0 ? o->cores : fmax(1, c->ncpu - pt->background);
            char extra[8192];
            size_t l = val_compare_overrides(&c->cal, &ps[i], o->live.cpu_scale, o->live.cpu_per_step,
                                             pt->cores, extra, sizeof extra);
            snprintf(extra + l, sizeof extra - l, "%s=%s\n", o->key, o->values[i]);
            sim_cfg *cfg = derive(base, extra, err);
            rc = cfg ? simulate(cfg, o->reps, pt, err) : err->code;
            if (rc)
                sim_err_prefix(err, "simulating %s=%s: ", o->key, o->values[i]);
            sim_cfg_free(cfg);
        }
    }
    if (rc == SIM_OK)
        val_compare_analyse(c, o->key);
    for (size_t i = 0; i < nparams; i++)
        tf_params_fini(&ps[i]);
    free(ps);
    return rc;
}

void val_compare_fini(val_compare *c)
{
    free(c->pts);
    memset(c, 0, sizeof *c);
}

void val_compare_table(const val_compare *c, const char *key, sim_table *t)
{
    int cs = sim_table_col(t, "scope", NULL), cv = sim_table_col(t, key, NULL),
        cp = sim_table_col(t, "phase", NULL), cl = sim_table_col(t, "live", "%.1f"),
        csim = sim_table_col(t, "simulated", "%.1f"), cci = sim_table_col(t, "simulated_ci", "%.1f"),
        ca = sim_table_col(t, "amdahl", "%.1f"), ce = sim_table_col(t, "sim_err_pct", "%.1f"),
        cae = sim_table_col(t, "amdahl_err_pct", "%.1f"),
        cmx = sim_table_col(t, "max_abs_err_pct", "%.1f"),
        cb = sim_table_col(t, "background_cores", "%.2f"),
        cn = sim_table_col(t, "live_runs", "%.0f"), cr = sim_table_col(t, "live_range_pct", "%.1f"),
        clw = sim_table_col(t, "live_cpu_wait", "%.2f"), csw = sim_table_col(t, "sim_cpu_wait", "%.2f"),
        clt = sim_table_col(t, "live_threaded_writes", "%.3f"),
        cst = sim_table_col(t, "sim_threaded_writes", "%.3f");
    sim_table_group_by(t, cs);
    sim_mape me[TF_NPHASES], ma[TF_NPHASES];
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        sim_mape_init(&me[ph]);
        sim_mape_init(&ma[ph]);
    }
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        if (!c->phase_on[ph])
            continue;
        for (size_t i = 0; i < c->n; i++) {
            const val_compare_point *pt = &c->pts[i];
            double live = pt->live.phase_ran[ph] ? pt->live.phase[ph].throughput : NAN;
            int counted = pt->live.phase_ran[ph] == 1;
            double e = sim_mape_add(counted ? &me[ph] : NULL, pt->sim[ph], live),
                   a = sim_mape_add(counted ? &ma[ph] : NULL, pt->amdahl[ph], live);
            sim_table_row(t);
            sim_table_str(t, cs, "point");
            sim_table_str(t, cv, pt->value);
            sim_table_str(t, cp, tf_phase_names[ph]);
            sim_table_num(t, cl, live);
            sim_table_num(t, csim, pt->sim[ph]);
            sim_table_num(t, cci, pt->sim_half[ph]);
            sim_table_num(t, ca, pt->amdahl[ph]);
            sim_table_num(t, ce, e);
            sim_table_num(t, cae, a);
            sim_table_num(t, cb, pt->background);
            sim_table_num(t, cn, (double)pt->live_runs);
            sim_table_num(t, cr, (pt->live_hi[ph] - pt->live_lo[ph]) / live * 100);
            sim_table_num(t, clw, pt->live_wait);
            sim_table_num(t, csw, pt->sim_wait);
            sim_table_num(t, clt, pt->live_threaded);
            sim_table_num(t, cst, pt->sim_threaded);
        }
    }
    for (int ph = 0; ph <= TF_NPHASES; ph++) {
        if (ph < TF_NPHASES && !c->phase_on[ph])
            continue;
        sim_table_row(t);
        sim_table_str(t, cs, "mape");
        sim_table_str(t, cp, ph < TF_NPHASES ? tf_phase_names[ph] : "all");
        if (ph < TF_NPHASES) {
            sim_table_num(t, ce, sim_mape_mean(&me[ph]));
            sim_table_num(t, cae, sim_mape_mean(&ma[ph]));
            sim_table_num(t, cmx, me[ph].n ? me[ph].max : NAN);
        } else {
            sim_table_num(t, ce, c->mape);
            sim_table_num(t, cae, c->mape_amdahl);
            sim_table_num(t, cmx, c->max_err);
        }
    }
}
