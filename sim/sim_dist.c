#include "sim/sim_dist.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "sim/sim_cfg.h"
#include "sim/sim_rng.h"

#define MAX_ARGS 8
#define MAX_EMPIRICAL 100000

typedef struct arg {
    char name[16];   /* "" for positional */
    double v;        /* duration in seconds; for rate=, per second */
} arg;

static int fail(char *msg, size_t len, const char *fmt, const char *x)
{
    snprintf(msg, len, fmt, x);
    return -1;
}

sim_dist sim_dist_const(double v)
{
    sim_dist d = {SIM_DIST_CONST, v, 0, 0, NULL, 0, 0, 0};
    return d;
}

void sim_dist_fini(sim_dist *d)
{
    free(d->q);
    d->q = NULL;
    d->nq = 0;
}

void sim_dist_copy(sim_dist *dst, const sim_dist *src)
{
    *dst = *src;
    if (src->nq) {
        dst->q = malloc(src->nq * sizeof *dst->q);
        assert(dst->q);
        memcpy(dst->q, src->q, src->nq * sizeof *dst->q);
    }
}

static const arg *find(const arg *a, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(a[i].name, name))
            return &a[i];
    return NULL;
}

/* "q0 q1 ... qn" separated by spaces or commas, optionally followed by
 * "shift=D"; body is modified. */
static int parse_empirical(char *body, sim_dist *d, char *msg, size_t len)
{
    char *sh = strstr(body, "shift");
    if (sh) {
        const char *eq = sh + strlen("shift"), *why;
        while (isspace((unsigned char)*eq))
            eq++;
        if (*eq != '=')
            return fail(msg, len, "empirical: expected shift=D, got '%s'", sh);
        if (sim_parse_duration(eq + 1, &d->shift, &why)) {
            snprintf(msg, len, "empirical: '%s': %s", sh, why);
            return -1;
        }
        *sh = '\0';
    }
    size_t cap = 16, n = 0;
    double *q = malloc(cap * sizeof *q);
    assert(q);
    const char *p = body;
    while (*p) {
        while (*p && (isspace((unsigned char)*p) || *p == ','))
            p++;
        if (!*p)
            break;
        char tok[64];
        size_t tl = 0;
        while (*p && !isspace((unsigned char)*p) && *p != ',') {
            if (tl + 1 >= sizeof tok) {
                free(q);
                return fail(msg, len, "empirical: value too long%s", "");
            }
            tok[tl++] = *p++;
        }
        tok[tl] = '\0';
        double v;
        const char *why;
        if (sim_parse_duration(tok, &v, &why)) {
            free(q);
            snprintf(msg, len, "empirical: '%s': %s", tok, why);
            return -1;
        }
        if (v < 0 || (n && v < q[n - 1])) {
            free(q);
            return fail(msg, len, "empirical: quantiles must be non-negative and non-decreasing (at '%s')", tok);
        }
        if (n == MAX_EMPIRICAL) {
            free(q);
            return fail(msg, len, "empirical: more than 100000 points%s", "");
        }
        if (n == cap) {
            cap *= 2;
            q = realloc(q, cap * sizeof *q);
            assert(q);
        }
        q[n++] = v;
    }
    if (n < 2) {
        free(q);
        return fail(msg, len, "empirical: needs at least two quantile points%s", "");
    }
    d->kind = SIM_DIST_EMPIRICAL;
    d->q = q;
    d->nq = n;
    return 0;
}

/* The arguments of name(...) in body (modified) and the distribution they
 * describe; spec is the whole text, for messages. */
static int parse_form(const char *name, char *body, const char *spec, sim_dist *d, char *msg,
                      size_t len)
{
    arg a[MAX_ARGS];
    int na = 0;
    for (char *tok = body, *comma;; tok = comma + 1) {
        comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        while (isspace((unsigned char)*tok))
            tok++;
        if (!*tok) {
            if (!comma && na == 0)
                break; /* no arguments at all */
            return fail(msg, len, "empty argument in '%s'", spec);
        }
        if (na == MAX_ARGS)
            return fail(msg, len, "too many arguments in '%s'", spec);
        arg *x = &a[na++];
        char *eq = strchr(tok, '=');
        const char *val = tok;
        x->name[0] = '\0';
        if (eq) {
            char *e = eq;
            while (e > tok && isspace((unsigned char)e[-1]))
                e--;
            size_t kl = (size_t)(e - tok);
            if (kl == 0 || kl >= sizeof x->name)
                return fail(msg, len, "bad argument name in '%s'", spec);
            memcpy(x->name, tok, kl);
            x->name[kl] = '\0';
            val = eq + 1;
        }
        const char *why;
        int bad = !strcmp(x->name, "rate") ? sim_parse_rate(val, &x->v, &why)
                                           : sim_parse_duration(val, &x->v, &why);
        if (bad) {
            snprintf(msg, len, "argument '%s' of %s(): %s", tok, name, why);
            return -1;
        }
        if (!comma)
            break;
    }

    const arg *shift = find(a, na, "shift");
    d->shift = shift ? shift->v : 0;
    int nkw = shift ? 1 : 0;
    const arg *pos0 = na > 0 && !a[0].name[0] ? &a[0] : NULL;
    const arg *pos1 = na > 1 && !a[1].name[0] ? &a[1] : NULL;
#define NEED(cond, what) \
    do { \
        if (!(cond)) \
            return fail(msg, len, "%s", what); \
    } while (0)

    if (!strcmp(name, "const") || !strcmp(name, "det")) {
        const arg *v = pos0 ? pos0 : find(a, na, "value");
        NEED(v && na == 1 + nkw, "const() takes one value, e.g. const(2ms)");
        NEED(v->v >= 0, "const(): value must be >= 0");
        d->kind = SIM_DIST_CONST;
        d->a = v->v;
    } else if (!strcmp(name, "exp") || !strcmp(name, "exponential")) {
        const arg *m = pos0 ? pos0 : find(a, na, "mean");
        const arg *r = find(a, na, "rate");
        NEED((m || r) && !(m && r) && na == 1 + nkw, "exp() takes mean=D or rate=R, e.g. exp(mean=2ms)");
        d->kind = SIM_DIST_EXP;
        if (m) {
            NEED(m->v > 0, "exp(): mean must be > 0");
            d->a = m->v;
        } else {
            NEED(r->v > 0, "exp(): rate must be > 0");
            d->a = 1.0 / r->v;
        }
    } else if (!strcmp(name, "uniform")) {
        const arg *lo = pos0 ? pos0 : find(a, na, "min");
        const arg *hi = pos1 ? pos1 : find(a, na, "max");
        NEED(lo && hi && na == 2 + nkw, "uniform() takes min and max, e.g. uniform(1ms, 3ms)");
        NEED(lo->v >= 0 && hi->v >= lo->v, "uniform(): need 0 <= min <= max");
        d->kind = SIM_DIST_UNIFORM;
        d->a = lo->v;
        d->b = hi->v;
    } else if (!strcmp(name, "lognormal")) {
        const arg *m = find(a, na, "mean"), *s = find(a, na, "sd");
        const arg *mu = find(a, na, "mu"), *sg = find(a, na, "sigma");
        d->kind = SIM_DIST_LOGNORMAL;
        if (m && s && na == 2 + nkw) {
            NEED(m->v > 0 && s->v >= 0, "lognormal(): need mean > 0 and sd >= 0");
            double s2 = log1p((s->v / m->v) * (s->v / m->v));
            d->b = sqrt(s2);
            d->a = log(m->v) - s2 / 2;
            /* inside the mu= range below, so that the formatted spec
             * (mu=, sigma=) parses back */
            NEED(d->a < 700 && d->a > -700,
                 "lognormal(): mean out of range (mu outside [-700, 700])");
        } else if (mu && sg && na == 2 + nkw) {
            NEED(sg->v >= 0, "lognormal(): sigma must be >= 0");
            NEED(mu->v <= 700 && mu->v >= -700, "lognormal(): mu out of range [-700, 700]");
            d->a = mu->v;
            d->b = sg->v;
        } else {
            return fail(msg, len, "%s", "lognormal() takes mean= and sd=, or mu= and sigma=");
        }
    } else if (!strcmp(name, "gamma") || !strcmp(name, "erlang")) {
        const arg *k = find(a, na, !strcmp(name, "erlang") ? "k" : "shape");
        const arg *sc = find(a, na, "scale"), *m = find(a, na, "mean"), *s = find(a, na, "sd");
        d->kind = SIM_DIST_GAMMA;
        if (k && sc && na == 2 + nkw) {
            d->a = k->v;
            d->b = sc->v;
        } else if (k && m && na == 2 + nkw) {
            NEED(k->v > 0, "gamma(): shape must be > 0");
            d->a = k->v;
            d->b = m->v / k->v;
        } else if (m && s && na == 2 + nkw && name[0] == 'g') {
            NEED(m->v > 0 && s->v > 0, "gamma(): need mean > 0 and sd > 0");
            d->a = (m->v / s->v) * (m->v / s->v);
            d->b = s->v * s->v / m->v;
        } else {
            return fail(msg, len, "%s",
                        "gamma() takes shape= with scale= or mean=, or mean= and sd=; erlang() takes k= and mean=");
        }
        NEED(d->a > 0 && d->b > 0, "gamma(): shape and scale must be > 0");
        /* GSL draws gamma(1 + shape, scale) x U^(1/shape) for a shape below
         * 1: a scale near DBL_MAX overflows the first factor while the
         * second underflows, and inf x 0 is NaN */
        NEED(d->b <= 1e300, "gamma(): scale above 1e300 (too small a shape for its mean)");
        if (name[0] == 'e')
            NEED(d->a == floor(d->a), "erlang(): k must be a whole number");
    } else if (!strcmp(name, "weibull")) {
        const arg *k = find(a, na, "shape"), *sc = find(a, na, "scale");
        NEED(k && sc && na == 2 + nkw, "weibull() takes shape= and scale=");
        NEED(k->v > 0 && sc->v > 0, "weibull(): shape and scale must be > 0");
        d->kind = SIM_DIST_WEIBULL;
        d->a = k->v;
        d->b = sc->v;
    } else if (!strcmp(name, "normal")) {
        const arg *m = find(a, na, "mean"), *s = find(a, na, "sd");
        NEED(m && s && na == 2 + nkw, "normal() takes mean= and sd=");
        NEED(m->v > 0 && s->v >= 0, "normal(): need mean > 0 and sd >= 0");
        d->kind = SIM_DIST_NORMAL;
        d->a = m->v;
        d->b = s->v;
    } else {
        return fail(msg, len,
                    "unknown distribution '%s' (known: const, exp, uniform, lognormal, gamma, erlang, weibull, normal, empirical)",
                    name);
    }
#undef NEED
    return 0;
}

int sim_dist_parse(const char *spec, sim_dist *d, char *msg, size_t len)
{
    memset(d, 0, sizeof *d);
    while (isspace((unsigned char)*spec))
        spec++;
    const char *open = strchr(spec, '(');
    if (!open) {
        double v;
        const char *why;
        if (sim_parse_duration(spec, &v, &why)) {
            snprintf(msg, len, "'%s': %s (expected a value such as 2ms or a form such as exp(mean=2ms))",
                     spec, why);
            return -1;
        }
        if (v < 0)
            return fail(msg, len, "'%s': negative duration", spec);
        *d = sim_dist_const(v);
        return 0;
    }
    char name[32];
    size_t nl = (size_t)(open - spec);
    while (nl && isspace((unsigned char)spec[nl - 1]))
        nl--;
    if (nl == 0 || nl >= sizeof name)
        return fail(msg, len, "missing or too long distribution name in '%s'", spec);
    memcpy(name, spec, nl);
    name[nl] = '\0';
    const char *close = strrchr(spec, ')');
    if (!close || close < open)
        return fail(msg, len, "missing ')' in '%s'", spec);
    for (const char *p = close + 1; *p; p++)
        if (!isspace((unsigned char)*p))
            return fail(msg, len, "trailing characters after ')' in '%s'", spec);
    size_t bl = (size_t)(close - open - 1);
    char *body = malloc(bl + 1);
    assert(body);
    memcpy(body, open + 1, bl);
    body[bl] = '\0';

    int rc = !strcmp(name, "empirical") ? parse_empirical(body, d, msg, len)
                                        : parse_form(name, body, spec, d, msg, len);
    free(body);
    if (rc == 0 && d->shift < 0)
        rc = fail(msg, len, "shift must be >= 0 in '%s'", spec);
    if (rc == 0 && (!isfinite(sim_dist_mean(d)) || !isfinite(sim_dist_var(d))))
        rc = fail(msg, len, "'%s' has no finite mean or variance", spec);
    if (rc == 0 && d->kind == SIM_DIST_GAMMA)
        sim_rng_gamma_prepare(d->a, &d->gd, &d->gc);
    if (rc)
        sim_dist_fini(d);
    return rc;
}

/* The empirical quantile function at u in [0, 1): linear between the
 * points. */
static double empirical_at(const sim_dist *d, double u)
{
    u *= (double)(d->nq - 1);
    size_t i = (size_t)u;
    if (i >= d->nq - 1)
        i = d->nq - 2;
    double f = u - (double)i;
    return d->q[i] + f * (d->q[i + 1] - d->q[i]);
}

/* The samplers of a xoshiro256** stream (sim_rng): the same distributions
 * as GSL's below, drawn faster. */
static double sample_fast(const sim_dist *d, gsl_rng *r)
{
    double x;
    switch (d->kind) {
    case SIM_DIST_CONST:
        return d->a + d->shift;
    case SIM_DIST_EXP:
        x = d->a * sim_rng_exp1(r);
        break;
    case SIM_DIST_UNIFORM:
        x = d->a + (d->b - d->a) * sim_rng_uniform(r);
        break;
    case SIM_DIST_LOGNORMAL:
        x = exp(d->a + d->b * sim_rng_normal1(r));
        break;
    case SIM_DIST_GAMMA:
        x = d->b * (d->gd > 0 ? sim_rng_gamma1_dc(r, d->a, d->gd, d->gc) : sim_rng_gamma1(r, d->a));
        break;
    case SIM_DIST_WEIBULL:
        x = d->b * pow(sim_rng_exp1(r), 1 / d->a);
        break;
    case SIM_DIST_NORMAL:
        do
            x = d->a + d->b * sim_rng_normal1(r);
        while (x < 0);
        break;
    case SIM_DIST_EMPIRICAL:
        return empirical_at(d, sim_rng_uniform(r)) + d->shift;
    default:
        assert(0 && "unknown distribution kind");
        x = 0;
    }
    return x + d->shift;
}

double sim_dist_sample_any(const sim_dist *d, gsl_rng *r)
{
    if (sim_rng_is_xoshiro(r))
        return sample_fast(d, r);
    double x;
    switch (d->kind) {
    case SIM_DIST_CONST:
        return d->a + d->shift;
    case SIM_DIST_EXP:
        x = gsl_ran_exponential(r, d->a);
        break;
    case SIM_DIST_UNIFORM:
        x = d->a + (d->b - d->a) * gsl_rng_uniform(r);
        break;
    case SIM_DIST_LOGNORMAL:
        x = gsl_ran_lognormal(r, d->a, d->b);
        break;
    case SIM_DIST_GAMMA:
        x = gsl_ran_gamma(r, d->a, d->b);
        break;
    case SIM_DIST_WEIBULL:
        x = gsl_ran_weibull(r, d->b, d->a);
        break;
    case SIM_DIST_NORMAL:
        do
            x = d->a + gsl_ran_gaussian_ziggurat(r, d->b);
        while (x < 0);
        break;
    case SIM_DIST_EMPIRICAL:
        x = empirical_at(d, gsl_rng_uniform(r));
        break;
    default:
        assert(0 && "unknown distribution kind");
        x = 0;
    }
    return x + d->shift;
}

/* sim_rng_gamma1_ge1 on n draws of a xoshiro256** stream whose state
 * is kept in st[] (registers) meanwhile: the same draws and arithmetic
 * (sim_rng_normal1's inline case, then the squeeze), so the same values;
 * the rare cases store the state back and take the stream's own path. */
#define STORE_STATE() (rs[0] = st[0], rs[1] = st[1], rs[2] = st[2], rs[3] = st[3])
#define LOAD_STATE() (st[0] = rs[0], st[1] = rs[1], st[2] = rs[2], st[3] = rs[3])
static void fill_gamma_ge1(const sim_dist *d, gsl_rng *r, double *out, size_t n)
{
    uint64_t *rs = (uint64_t *)r->state;
    uint64_t st[4] = {rs[0], rs[1], rs[2], rs[3]};
    const double shape = d->a, scale = d->b, shift = d->shift, gd = d->gd, gc = d->gc;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = sim_rng_xoshiro_step(st);
        uint64_t u = b >> 11;
        const sim_rng_zig_layer *l = &sim_rng_zig_norm.layer[b & 0xff];
        double x;
        if (__builtin_expect(u < l->k, 1)) {
            x = (double)(int64_t)u * l->w;
            uint64_t xb;
            memcpy(&xb, &x, sizeof xb);
            xb ^= (b & 0x100) << 55;
            memcpy(&x, &xb, sizeof x);
        } else {
            STORE_STATE();
            x = sim_rng_normal1_slow(r, b);
            LOAD_STATE();
        }
        double g, v = 1 + gc * x;
        if (__builtin_expect(!(v > 0), 0)) {
            STORE_STATE();
            g = sim_rng_gamma1_dc(r, shape, gd, gc);
            LOAD_STATE();
        } else {
            v = v * v * v;
            double uu = (double)(int64_t)((sim_rng_xoshiro_step(st) >> 11) + 1) * 0x1.0p-53;
            double x2 = x * x;
            if (__builtin_expect(sim_rng_gamma_squeeze(uu, x2), 1)) {
                g = gd * v;
            } else {
                STORE_STATE();
                g = sim_rng_gamma1_rest(r, gd, gc, x, v, uu);
                LOAD_STATE();
            }
        }
        out[i] = scale * g + shift;
    }
    STORE_STATE();
}

void sim_dist_fill(const sim_dist *d, gsl_rng *r, double *out, size_t n)
{
    /* sim_dist_sample's inline gamma case */
    if (d->kind == SIM_DIST_GAMMA && d->gd > 0 && d->a >= 1 && sim_rng_is_xoshiro(r)) {
        fill_gamma_ge1(d, r, out, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = sim_dist_sample(d, r);
}

void sim_dist_buf_init(sim_dist_buf *b, const sim_dist *d, gsl_rng *r)
{
    b->d = d;
    b->r = r;
    b->i = b->n = 0;
}

void sim_dist_buf_refill(sim_dist_buf *b)
{
    assert(b->i == b->n);
    sim_dist_fill(b->d, b->r, b->v, SIM_DIST_BUF);
    b->i = 0;
    b->n = SIM_DIST_BUF;
}

double sim_dist_mean(const sim_dist *d)
{
    double m = 0;
    switch (d->kind) {
    case SIM_DIST_CONST:
        m = d->a;
        break;
    case SIM_DIST_EXP:
        m = d->a;
        break;
    case SIM_DIST_UNIFORM:
        m = (d->a + d->b) / 2;
        break;
    case SIM_DIST_LOGNORMAL:
        m = exp(d->a + d->b * d->b / 2);
        break;
    case SIM_DIST_GAMMA:
        m = d->a * d->b;
        break;
    case SIM_DIST_WEIBULL:
        m = d->b * tgamma(1 + 1 / d->a);
        break;
    case SIM_DIST_NORMAL: {
        /* mean of the normal truncated at 0 */
        double z = d->a / d->b;
        if (d->b == 0 || z > 30)
            m = d->a;
        else {
            double phi = exp(-z * z / 2) / sqrt(2 * M_PI), Phi = 0.5 * erfc(-z / sqrt(2));
            m = d->a + d->b * phi / Phi;
        }
        break;
    }
    case SIM_DIST_EMPIRICAL:
        for (size_t i = 0; i + 1 < d->nq; i++)
            m += (d->q[i] + d->q[i + 1]) / 2;
        m /= (double)(d->nq - 1);
        break;
    }
    return m + d->shift;
}

double sim_dist_var(const sim_dist *d)
{
    switch (d->kind) {
    case SIM_DIST_CONST:
        return 0;
    case SIM_DIST_EXP:
        return d->a * d->a;
    case SIM_DIST_UNIFORM:
        return (d->b - d->a) * (d->b - d->a) / 12;
    case SIM_DIST_LOGNORMAL:
        return expm1(d->b * d->b) * exp(2 * d->a + d->b * d->b);
    case SIM_DIST_GAMMA:
        return d->a * d->b * d->b;
    case SIM_DIST_WEIBULL: {
        /* tgamma, not gsl_sf_gamma: overflow (tiny shapes) gives inf, which
         * the parser rejects, instead of GSL's error handler; the difference
         * can round below 0 for huge shapes */
        double g1 = tgamma(1 + 1 / d->a), g2 = tgamma(1 + 2 / d->a);
        return d->b * d->b * fmax(0, g2 - g1 * g1);
    }
    case SIM_DIST_NORMAL: {
        double z = d->a / d->b;
        if (d->b == 0 || z > 30)
            return d->b * d->b;
        double phi = exp(-z * z / 2) / sqrt(2 * M_PI), Phi = 0.5 * erfc(-z / sqrt(2));
        double l = phi / Phi;
        return d->b * d->b * (1 - z * l - l * l);
    }
    case SIM_DIST_EMPIRICAL: {
        /* mixture of uniforms on each interval */
        double m = sim_dist_mean(d) - d->shift, s2 = 0;
        size_t k = d->nq - 1;
        for (size_t i = 0; i < k; i++) {
            double a = d->q[i], b = d->q[i + 1];
            s2 += (a * a + a * b + b * b) / 3;
        }
        return s2 / (double)k - m * m;
    }
    }
    return 0;
}

void sim_dist_scale(sim_dist *d, double f)
{
    assert(f > 0);
    switch (d->kind) {
    case SIM_DIST_CONST:
    case SIM_DIST_EXP:
        d->a *= f;
        break;
    case SIM_DIST_UNIFORM:
        d->a *= f;
        d->b *= f;
        break;
    case SIM_DIST_LOGNORMAL:
        d->a += log(f);
        break;
    case SIM_DIST_GAMMA:
    case SIM_DIST_WEIBULL:
        d->b *= f;
        break;
    case SIM_DIST_NORMAL:
        d->a *= f;
        d->b *= f;
        break;
    case SIM_DIST_EMPIRICAL:
        for (size_t i = 0; i < d->nq; i++)
            d->q[i] *= f;
        break;
    }
    d->shift *= f;
}

/* x with `digits` significant digits; digits 0: the shortest "%.Ng"
 * (N = 15, 16, 17) that reads back as x. */
static const char *num(char out[32], double x, int digits)
{
    if (digits > 0) {
        snprintf(out, 32, "%.*g", digits, x);
        return out;
    }
    for (int prec = 15;; prec++) {
        snprintf(out, 32, "%.*g", prec, x);
        if (prec == 17 || strtod(out, NULL) == x)
            return out;
    }
}

static int format(const sim_dist *d, int digits, char *buf, size_t len);

int sim_dist_format(const sim_dist *d, char *buf, size_t len)
{
    return format(d, 0, buf, len);
}

int sim_dist_format_digits(const sim_dist *d, int digits, char *buf, size_t len)
{
    assert(digits >= 1 && digits <= 17);
    return format(d, digits, buf, len);
}

static int format(const sim_dist *d, int digits, char *buf, size_t len)
{
    char sh[48] = "", x[32], y[32];
    if (d->shift > 0)
        snprintf(sh, sizeof sh, ", shift=%s", num(x, d->shift, digits));
    switch (d->kind) {
    case SIM_DIST_CONST:
        return snprintf(buf, len, "const(%s%s)", num(x, d->a, digits), sh);
    case SIM_DIST_EXP:
        return snprintf(buf, len, "exp(mean=%s%s)", num(x, d->a, digits), sh);
    case SIM_DIST_UNIFORM:
        return snprintf(buf, len, "uniform(%s, %s%s)", num(x, d->a, digits), num(y, d->b, digits), sh);
    case SIM_DIST_LOGNORMAL:
        return snprintf(buf, len, "lognormal(mu=%s, sigma=%s%s)", num(x, d->a, digits), num(y, d->b, digits), sh);
    case SIM_DIST_GAMMA:
        return snprintf(buf, len, "gamma(shape=%s, scale=%s%s)", num(x, d->a, digits), num(y, d->b, digits), sh);
    case SIM_DIST_WEIBULL:
        return snprintf(buf, len, "weibull(shape=%s, scale=%s%s)", num(x, d->a, digits), num(y, d->b, digits), sh);
    case SIM_DIST_NORMAL:
        return snprintf(buf, len, "normal(mean=%s, sd=%s%s)", num(x, d->a, digits), num(y, d->b, digits), sh);
    case SIM_DIST_EMPIRICAL: {
        int n = snprintf(buf, len, "empirical(");
        for (size_t i = 0; i < d->nq; i++) {
            int w = snprintf(len > (size_t)n ? buf + n : NULL, len > (size_t)n ? len - (size_t)n : 0,
                             "%s%s", i ? " " : "", num(x, d->q[i], digits));
            n += w;
        }
        n += snprintf(len > (size_t)n ? buf + n : NULL, len > (size_t)n ? len - (size_t)n : 0,
                      "%s)", sh);
        return n;
    }
    }
    return 0;
}
