#include "models/mdl_sweep.h"

#include <assert.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/mdl.h"
#include "sim/sim_str.h"

int mdl_cfg_copy(sim_cfg *dst, const sim_cfg *src, sim_err *err)
{
    for (size_t i = 0; i < sim_cfg_count(src); i++) {
        const sim_cfg_entry *e = sim_cfg_at(src, i);
        size_t n = strlen(e->section) + strlen(e->key) + strlen(e->value) + 3;
        char *buf = malloc(n);
        assert(buf);
        snprintf(buf, n, "%s.%s=%s", e->section, e->key, e->value);
        /* keep where it came from, for messages */
        char origin[1024];
        if (e->line > 0)
            snprintf(origin, sizeof origin, "%s:%d", e->origin, e->line);
        else
            snprintf(origin, sizeof origin, "%s", e->origin);
        int rc = sim_cfg_set_as(dst, buf, origin, err);
        free(buf);
        if (rc)
            return rc;
    }
    return SIM_OK;
}

/* The first comma of s outside parentheses (a distribution's own commas,
 * as in uniform(1ms, 3ms), belong to its value), or NULL. */
static const char *top_comma(const char *s)
{
    int depth = 0;
    for (; *s; s++) {
        if (*s == '(')
            depth++;
        else if (*s == ')' && depth > 0)
            depth--;
        else if (*s == ',' && depth == 0)
            return s;
    }
    return NULL;
}

int mdl_sweep_values(const char *spec, char ***values, size_t *n, sim_err *err)
{
    *values = NULL;
    *n = 0;
    const char *dots = strstr(spec, "..");
    if (dots) {
        long a, b, step = 1;
        const char *why;
        char lo[64], rest[128];
        size_t ll = (size_t)(dots - spec);
        if (ll == 0 || ll >= sizeof lo || strlen(dots + 2) >= sizeof rest)
            return sim_err_set(err, SIM_EINPUT, "'%s': expected A..B or A..B:STEP", spec);
        memcpy(lo, spec, ll);
        lo[ll] = '\0';
        snprintf(rest, sizeof rest, "%s", dots + 2);
        char *colon = strchr(rest, ':');
        if (colon) {
            *colon = '\0';
            if (sim_parse_long(colon + 1, &step, &why) || step < 1)
                return sim_err_set(err, SIM_EINPUT, "'%s': bad step", spec);
        }
        if (sim_parse_long(lo, &a, &why) || sim_parse_long(rest, &b, &why) || b < a)
            return sim_err_set(err, SIM_EINPUT, "'%s': expected integers A..B with A <= B", spec);
        /* b - a in unsigned arithmetic: it cannot overflow there (b >= a) */
        unsigned long span = (unsigned long)b - (unsigned long)a;
        if (span / (unsigned long)step >= 10000)
            return sim_err_set(err, SIM_EINPUT, "'%s': more than 10000 values", spec);
        size_t k = (size_t)(span / (unsigned long)step + 1);
        *values = calloc(k, sizeof **values);
        assert(*values);
        for (size_t i = 0; i < k; i++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%ld", a + (long)i * step);
            (*values)[i] = sim_str_dup(buf);
        }
        *n = k;
        return SIM_OK;
    }
    size_t cap = 8, k = 0;
    char **v = calloc(cap, sizeof *v);
    assert(v);
    const char *p = spec;
    for (;;) {
        const char *comma = top_comma(p);
        size_t l = comma ? (size_t)(comma - p) : strlen(p);
        while (l && isspace((unsigned char)*p))
            p++, l--;
        while (l && isspace((unsigned char)p[l - 1]))
            l--;
        if (l == 0 || l >= 128) {
            for (size_t i = 0; i < k; i++)
                free(v[i]);
            free(v);
            return sim_err_set(err, SIM_EINPUT, "'%s': empty or over-long value in the list", spec);
        }
        if (k == 10000) {
            for (size_t i = 0; i < k; i++)
                free(v[i]);
            free(v);
            return sim_err_set(err, SIM_EINPUT, "'%s': more than 10000 values", spec);
        }
        if (k == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            assert(v);
        }
        v[k] = malloc(l + 1);
        assert(v[k]);
        memcpy(v[k], p, l);
        v[k][l] = '\0';
        k++;
        if (!comma)
            break;
        p = comma + 1;
    }
    *values = v;
    *n = k;
    return SIM_OK;
}

typedef struct sweep_ctx {
    const sim_cfg *base;
    const char *key;
    mdl_sweep_point *pts;
    size_t n, next;
    pthread_mutex_t lock;
    void (*done)(size_t, void *);
    void *ctx;
} sweep_ctx;

static void run_point(sweep_ctx *c, size_t i)
{
    mdl_sweep_point *p = &c->pts[i];
    sim_err_clear(&p->err);
    sim_layout_init(&p->layout);
    memset(&p->result, 0, sizeof p->result);
    sim_cfg *cfg = sim_cfg_new();
    char buf[512];
    snprintf(buf, sizeof buf, "%s=%s", c->key, p->value);
    mdl_scenario sc;
    memset(&sc, 0, sizeof sc);
    int rc = mdl_cfg_copy(cfg, c->base, &p->err);
    if (rc == SIM_OK)
        rc = sim_cfg_set_as(cfg, buf, "--vary", &p->err);
    if (rc == SIM_OK)
        rc = sim_cfg_set(cfg, "run.jobs=1", &p->err);
    if (rc == SIM_OK)
        rc = mdl_scenario_init(&sc, cfg, &p->err);
    if (rc == SIM_OK) {
        snprintf(p->model, sizeof p->model, "%s", sc.type->name);
        rc = sim_rep_run(&sc.plan, &sc.layout, sc.type->replicate, sc.model, sc.seed, &p->result,
                         &p->err);
    }
    if (rc == SIM_OK) {
        /* keep the layout: move it out of the scenario */
        p->layout = sc.layout;
        sim_layout_init(&sc.layout);
    }
    p->status = rc;
    mdl_scenario_fini(&sc);
    sim_cfg_free(cfg);
}

static void *worker(void *arg)
{
    sweep_ctx *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->lock);
        size_t i = c->next++;
        pthread_mutex_unlock(&c->lock);
        if (i >= c->n)
            return NULL;
        run_point(c, i);
        if (c->done)
            c->done(i, c->ctx);
    }
}

int mdl_sweep_run(const sim_cfg *base, const char *key, mdl_sweep_point *pts, size_t n, int jobs,
                  void (*done)(size_t, void *), void *ctx, sim_err *err)
{
    const char *dot = strrchr(key, '.');
    if (!dot || dot == key || !dot[1])
        return sim_err_set(err, SIM_EINPUT, "--vary %s: expected SECTION.KEY", key);
    sweep_ctx c = {base, key, pts, n, 0, PTHREAD_MUTEX_INITIALIZER, done, ctx};
    if (jobs < 1)
        jobs = 1;
    if ((size_t)jobs > n)
        jobs = (int)n;
    if (jobs <= 1) {
        worker(&c);
    } else {
        pthread_t th[64];
        int nt = jobs < 64 ? jobs : 64;
        int started = 0;
        for (int t = 0; t < nt; t++)
            if (pthread_create(&th[t], NULL, worker, &c) == 0)
                started++;
            else
                break;
        if (!started)
            worker(&c);
        for (int t = 0; t < started; t++)
            pthread_join(th[t], NULL);
    }
    pthread_mutex_destroy(&c.lock);
    return SIM_OK;
}

void mdl_sweep_points_fini(mdl_sweep_point *pts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_layout_fini(&pts[i].layout);
        sim_rep_result_fini(&pts[i].result);
    }
}
