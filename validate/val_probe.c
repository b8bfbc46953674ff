#include "validate/val_probe.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/sim_stats.h"

void val_probe_opts_init(val_probe_opts *o)
{
    memset(o, 0, sizeof *o);
    static const unsigned def[] = {1, 4, 16, 64};
    memcpy(o->levels, def, sizeof def);
    o->nlevels = 4;
    o->count = 1000;
    o->warmup = 100;
    o->timeout = 5;
}

int val_probe_parse_levels(const char *s, unsigned max, val_probe_opts *o, char *why, size_t len)
{
    size_t n = 0;
    const char *p = s;
    if (!*p) {
        snprintf(why, len, "empty list");
        return -1;
    }
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9') {
            snprintf(why, len, "'%s': expected a comma-separated list of integers", s);
            return -1;
        }
        unsigned long v = strtoul(p, &end, 10);
        if (v < 1 || v > max) {
            snprintf(why, len, "'%s': each value must be in [1, %u]", s, max);
            return -1;
        }
        if (n == VAL_PROBE_MAX_LEVELS) {
            snprintf(why, len, "'%s': at most %d values", s, VAL_PROBE_MAX_LEVELS);
            return -1;
        }
        o->levels[n++] = (unsigned)v;
        if (*end == '\0')
            break;
        if (*end != ',') {
            snprintf(why, len, "'%s': expected a comma-separated list of integers", s);
            return -1;
        }
        p = end + 1;
    }
    o->nlevels = n;
    return 0;
}

/* Is name one of the comma-separated words of list? */
static int in_list(const char *list, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == nl && !strncmp(p, name, l))
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

int val_probe_check_ops(const val_probe_opts *o, const char *const *known, size_t n, sim_err *err)
{
    if (!o->ops)
        return SIM_OK;
    char all[512] = "";
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(all);
        snprintf(all + l, sizeof all - l, "%s%s", i ? ", " : "", known[i]);
    }
    if (!*o->ops)
        return sim_err_set(err, SIM_EINPUT, "--ops: empty list (known: %s)", all);
    for (const char *p = o->ops; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        int found = 0;
        for (size_t i = 0; i < n && !found; i++)
            found = strlen(known[i]) == l && !strncmp(known[i], p, l);
        if (!found)
            return sim_err_set(err, SIM_EINPUT, "--ops: unknown operation '%.*s' (known: %s)", (int)l, p,
                               all);
        if (!e)
            break;
        p = e + 1;
    }
    return SIM_OK;
}

int val_probe_wants(const val_probe_opts *o, const char *name)
{
    return !o->ops || in_list(o->ops, name);
}

int val_probe_stopped(const val_probe_opts *o) { return o->stop && *o->stop; }

double val_probe_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double val_probe_epoch(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void val_probe_pace_init(val_probe_pace *p, const val_probe_opts *o)
{
    p->o = o;
    p->issued = 0;
    p->t_start = 0;
}

int val_probe_pace_next(val_probe_pace *p, double now, uint64_t *index)
{
    const val_probe_opts *o = p->o;
    if (val_probe_stopped(o))
        return 0;
    if (o->seconds > 0) {
        if (p->issued >= o->warmup && p->t_start > 0 && now - p->t_start >= o->seconds)
            return 0;
    } else if (p->issued >= o->warmup + o->count) {
        return 0;
    }
    if (p->issued == o->warmup)
        p->t_start = now;
    *index = p->issued++;
    return 1;
}

/* ---- results ---- */

typedef struct phase {
    char op[VAL_SAMPLES_OP_MAX + 1];
    unsigned level;
    sim_welford w;
    sim_hist h;
    double wall;
    double server_cpu, server_cores;  /* server CPU per operation, and cores (NaN: unknown) */
    double threaded;   /* share of the replies written by the server's I/O threads (NaN: unknown) */
} phase;

struct val_probe_result {
    phase *ph;
    size_t n, cap;
};

val_probe_result *val_probe_result_new(void)
{
    val_probe_result *r = calloc(1, sizeof *r);
    assert(r);
    return r;
}

void val_probe_result_free(val_probe_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        sim_hist_fini(&r->ph[i].h);
    free(r->ph);
    free(r);
}

void val_probe_phase_begin(val_probe_result *r, const char *op, unsigned level)
{
    assert(val_samples_op_ok(op));
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->ph = realloc(r->ph, r->cap * sizeof *r->ph);
        assert(r->ph);
    }
    phase *p = &r->ph[r->n++];
    memcpy(p->op, op, strlen(op) + 1);
    p->level = level;
    sim_welford_init(&p->w);
    sim_hist_init(&p->h);
    p->wall = NAN;
    p->server_cpu = p->server_cores = NAN;
    p->threaded = NAN;
}

void val_probe_phase_server_cpu(val_probe_result *r, double per_op, double cores)
{
    assert(r->n > 0);
    r->ph[r->n - 1].server_cpu = per_op;
    r->ph[r->n - 1].server_cores = cores;
}

void val_probe_phase_threaded_writes(val_probe_result *r, double share)
{
    assert(r->n > 0);
    r->ph[r->n - 1].threaded = share;
}

int val_probe_record(val_probe_result *r, const val_probe_opts *o, double latency_s, sim_err *err)
{
    assert(r->n > 0);
    phase *p = &r->ph[r->n - 1];
    if (latency_s < 0)
        latency_s = 0;
    sim_welford_add(&p->w, latency_s);
    sim_hist_add(&p->h, latency_s);
    if (o->out)
        return val_samples_add(o->out, p->op, p->level, latency_s * 1e6, val_probe_epoch(), err);
    return SIM_OK;
}

void val_probe_phase_end(val_probe_result *r, const val_probe_opts *o, double wall_s)
{
    assert(r->n > 0);
    phase *p = &r->ph[r->n - 1];
    p->wall = wall_s;
    if (o->progress)
        o->progress(o->progress_ctx, p->op, p->level, p->w.n, wall_s);
}

sim_table *val_probe_table(const val_probe_result *r, const char *level_name)
{
    sim_table *t = sim_table_new("probe summary");
    assert(t);
    int c_op = sim_table_col(t, "operation", NULL);
    int c_lv = sim_table_col(t, level_name ? level_name : "concurrency", "%.0f");
    int c_n = sim_table_col(t, "n", "%.0f");
    int c_mean = sim_table_col(t, "mean_ms", "%.3f");
    int c_p50 = sim_table_col(t, "p50_ms", "%.3f");
    int c_p99 = sim_table_col(t, "p99_ms", "%.3f");
    int c_max = sim_table_col(t, "max_ms", "%.3f");
    int c_tp = sim_table_col(t, "ops_per_s", "%.0f");
    int c_cpu = -1, c_cores = -1, c_thr = -1;
    for (size_t i = 0; i < r->n && c_cpu < 0; i++)
        if (isfinite(r->ph[i].server_cpu)) {
            c_cpu = sim_table_col(t, "server_cpu_us", "%.1f");
            c_cores = sim_table_col(t, "server_cores", "%.2f");
        }
    for (size_t i = 0; i < r->n && c_thr < 0; i++)
        if (isfinite(r->ph[i].threaded))
            c_thr = sim_table_col(t, "threaded_writes", "%.3f");
    sim_table_group_by(t, c_op);
    /* Rows grouped by operation (in order of first appearance), then in
     * the order the levels ran. */
    for (size_t i = 0; i < r->n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(r->ph[j].op, r->ph[i].op);
        if (seen)
            continue;
        for (size_t k = i; k < r->n; k++) {
            const phase *p = &r->ph[k];
            if (p->w.n == 0 || strcmp(p->op, r->ph[i].op))
                continue;
            sim_table_row(t);
            sim_table_str(t, c_op, p->op);
            sim_table_num(t, c_lv, p->level);
            sim_table_num(t, c_n, (double)p->w.n);
            sim_table_num(t, c_mean, p->w.mean * 1e3);
            sim_table_num(t, c_p50, sim_hist_quantile(&p->h, 0.5) * 1e3);
            sim_table_num(t, c_p99, sim_hist_quantile(&p->h, 0.99) * 1e3);
            sim_table_num(t, c_max, p->w.max * 1e3);
            sim_table_num(t, c_tp, p->wall > 0 ? (double)p->w.n / p->wall : NAN);
            if (c_cpu >= 0 && isfinite(p->server_cpu)) {
                sim_table_num(t, c_cpu, p->server_cpu * 1e6);
                sim_table_num(t, c_cores, p->server_cores);
            }
            if (c_thr >= 0 && isfinite(p->threaded))
                sim_table_num(t, c_thr, p->threaded);
        }
    }
    return t;
}

void val_probe_err_append(sim_err *e, const char *text)
{
    if (!e)
        return;
    size_t l = strlen(e->msg);
    snprintf(e->msg + l, sizeof e->msg - l, "%s", text);
}

/* ---- the phase loop of the poll-driven probes ---- */

/* Start the next operation of the phase on connection i, if the pacing
 * has one; *started = 1 then. */
/* Connection i of the loop: the val_probe_conn at the start of the
 * probe's i-th connection struct. */
static val_probe_conn *conn_at(const val_probe_loop *l, unsigned i)
{
    return (val_probe_conn *)((char *)l->conns + (size_t)i * l->conn_size);
}

static int loop_start(val_probe_loop *l, unsigned i, int op, int *started, sim_err *err)
{
    uint64_t index;
    double now = val_probe_mono();
    *started = 0;
    if (!val_probe_pace_next(&l->pace, now, &index))
        return SIM_OK;
    val_probe_conn *k = conn_at(l, i);
    k->busy = 1;
    k->op = op;
    k->index = index;
    k->t_op = now;
    k->deadline = now + l->o->timeout;
    *started = 1;
    return l->start(l, i, err);
}

int val_probe_loop_done(val_probe_loop *l, unsigned i, double now, sim_err *err)
{
    val_probe_conn *k = conn_at(l, i);
    assert(k->busy && l->busy > 0);
    k->busy = 0;
    l->busy--;
    l->ndone++;
    l->t_last = now;
    int rc, started;
    if (val_probe_pace_records(&l->pace, k->index) &&
        (rc = val_probe_record(l->res, l->o, now - k->t_op, err)))
        return rc;
    if ((rc = loop_start(l, i, k->op, &started, err)))
        return rc;
    if (started)
        l->busy++;
    return SIM_OK;
}

int val_probe_loop_phase(val_probe_loop *l, int op, unsigned C, uint64_t *issued, sim_err *err)
{
    char name[VAL_SAMPLES_OP_MAX + 1];
    snprintf(name, sizeof name, "%s.%s", l->kind, l->ops[op]);
    val_probe_phase_begin(l->res, name, C);
    val_probe_pace_init(&l->pace, l->o);
    l->busy = 0;
    l->t_last = 0;
    int rc;
    for (unsigned i = 0; i < C; i++) {
        int started;
        if ((rc = loop_start(l, i, op, &started, err)))
            return rc;
        l->busy += (unsigned)started;
    }
    struct pollfd *pf = calloc(C, sizeof *pf);
    unsigned *who = calloc(C, sizeof *who);
    assert(pf && who);
    rc = SIM_OK;
    while (l->busy > 0 && rc == SIM_OK) {
        nfds_t n = 0;
        double now = val_probe_mono(), first = INFINITY;
        for (unsigned i = 0; i < C; i++) {
            const val_probe_conn *k = conn_at(l, i);
            if (!k->busy)
                continue;
            pf[n].fd = k->fd;
            pf[n].events = (short)(POLLIN | (k->want_write ? POLLOUT : 0));
            pf[n].revents = 0;
            who[n++] = i;
            if (k->deadline < first)
                first = k->deadline;
        }
        int ms = first <= now ? 0 : (int)ceil((first - now) * 1e3);
        int nr = poll(pf, n, ms);
        if (nr < 0) {
            if (errno == EINTR && !val_probe_stopped(l->o))
                continue;
            rc = errno == EINTR ? sim_err_set(err, SIM_EFAIL, "interrupted")
                                : sim_err_set(err, SIM_EFAIL, "%s: poll failed: %s", l->where,
                                              strerror(errno));
            break;
        }
        for (nfds_t j = 0; j < n && rc == SIM_OK; j++)
            if (pf[j].revents)
                rc = l->ready(l, who[j], pf[j].revents, err);
        now = val_probe_mono();
        for (unsigned i = 0; i < C && rc == SIM_OK; i++) {
            const val_probe_conn *k = conn_at(l, i);
            if (k->busy && now > k->deadline)
                rc = sim_err_set(err, SIM_EFAIL,
                                 "%s: connection %u: no reply within %g s to %s after %llu operations "
                                 "(server not answering)",
                                 l->where, i, l->o->timeout, l->ops[k->op], (unsigned long long)l->ndone);
        }
        if (rc == SIM_OK && val_probe_stopped(l->o))
            rc = sim_err_set(err, SIM_EFAIL, "interrupted");
    }
    free(pf);
    free(who);
    if (rc == SIM_OK) {
        double wall = l->pace.t_start > 0 && l->t_last > l->pace.t_start ? l->t_last - l->pace.t_start : NAN;
        val_probe_phase_end(l->res, l->o, wall);
    }
    *issued = l->pace.issued;
    return rc;
}
