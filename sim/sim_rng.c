#include "sim/sim_rng.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include <gsl/gsl_errno.h>

void sim_rng_setup(void) { gsl_set_error_handler_off(); }

#define GOLDEN 0x9e3779b97f4a7c15ULL

/* splitmix64's output function (a bijection of 64-bit words). */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t splitmix64(uint64_t x) { return mix64(x + GOLDEN); }

/* ---- xoshiro256** as a gsl_rng_type ---- */

typedef struct xoshiro_state {
    uint64_t s[4];
} xoshiro_state;

static pthread_once_t zig_once = PTHREAD_ONCE_INIT;
static void zig_build(void);

static void xoshiro_set(void *vstate, unsigned long seed)
{
    xoshiro_state *st = vstate;
    /* every xoshiro256** stream is seeded before its first draw (also by
     * gsl_rng_alloc): the samplers' tables are ready from then on */
    int rc = pthread_once(&zig_once, zig_build);
    assert(rc == 0);
    (void)rc;
    uint64_t z = seed;
    for (int i = 0; i < 4; i++) {
        z += GOLDEN;
        st->s[i] = mix64(z);
    }
}

static unsigned long xoshiro_get(void *vstate)
{
    gsl_rng r = {NULL, vstate};
    return (unsigned long)sim_rng_next64(&r);
}

static double xoshiro_get_double(void *vstate)
{
    gsl_rng r = {NULL, vstate};
    return (double)(sim_rng_next64(&r) >> 11) * 0x1.0p-53;
}

_Static_assert(sizeof(unsigned long) == 8, "xoshiro256** returns 64-bit words as unsigned long");

static const gsl_rng_type xoshiro_type = {
    "xoshiro256ss", 0xffffffffffffffffUL, 0, sizeof(xoshiro_state),
    xoshiro_set,    xoshiro_get,          xoshiro_get_double,
};

const gsl_rng_type *const sim_rng_xoshiro256ss = &xoshiro_type;

/* ---- kinds ---- */

static const char *const kind_names[] = {"xoshiro256ss", "mt19937"};

int sim_rng_kind_parse(const char *name, sim_rng_kind *out)
{
    for (int i = 0; i < 2; i++)
        if (!strcmp(name, kind_names[i])) {
            *out = (sim_rng_kind)i;
            return 0;
        }
    return -1;
}

const char *sim_rng_kind_name(sim_rng_kind k)
{
    assert(k == SIM_RNG_XOSHIRO || k == SIM_RNG_MT19937);
    return kind_names[k];
}

/* ---- seeds ---- */

uint32_t sim_rng_seed32(uint64_t master, uint32_t rep, uint32_t stream)
{
    assert(stream < SIM_RNG_MAX_STREAMS && rep < SIM_RNG_MAX_REPS);
    uint32_t base = (uint32_t)splitmix64(master);
    uint32_t s = base + rep * SIM_RNG_MAX_STREAMS + stream;
    return s ? s : base - 1; /* see the header: 0 would collide with 4357 */
}

uint64_t sim_rng_key64(uint64_t master, uint32_t rep, uint32_t stream)
{
    assert(stream < SIM_RNG_MAX_STREAMS && rep < SIM_RNG_MAX_REPS);
    return splitmix64(master) ^ ((uint64_t)rep << 12 | stream);
}

_Static_assert(SIM_RNG_MAX_STREAMS == 1u << 12, "sim_rng_key64 packs the stream in 12 bits");

gsl_rng *sim_rng_new_kind(sim_rng_kind kind, uint64_t master, uint32_t rep, uint32_t stream)
{
    gsl_rng *r = gsl_rng_alloc(kind == SIM_RNG_MT19937 ? gsl_rng_mt19937 : sim_rng_xoshiro256ss);
    assert(r && "out of memory");
    sim_rng_reseed(r, master, rep, stream);
    return r;
}

gsl_rng *sim_rng_new(uint64_t master, uint32_t rep, uint32_t stream)
{
    return sim_rng_new_kind(SIM_RNG_XOSHIRO, master, rep, stream);
}

void sim_rng_reseed(gsl_rng *r, uint64_t master, uint32_t rep, uint32_t stream)
{
    if (sim_rng_is_xoshiro(r))
        gsl_rng_set(r, sim_rng_key64(master, rep, stream));
    else
        gsl_rng_set(r, sim_rng_seed32(master, rep, stream));
}

/* ---- ziggurat tables and the samplers' rare cases ----
 * 256 layers of equal area v under f (unnormalised: f(0) = 1): the base
 * layer is the rectangle [0, r] x [0, f(r)] plus the tail beyond r; layer
 * i >= 1 is [0, x[i]] x [f(x[i]), f(x[i+1])] with x[i] (f(x[i+1]) - f(x[i]))
 * = v.  r is the value for which the top layer closes at x[256] = 0
 * (bisection to double precision: tests/test_sim_rng.c checks it).  A draw
 * picks layer i and an abscissa uniform on [0, x[i]) (x[0] = v / f(r): the
 * base layer's width if its tail were a rectangle); the point is under the
 * curve at once when the abscissa is below x[i+1], otherwise the wedge
 * (i >= 1) or the tail (i = 0) is tested exactly. */

#define ZIG_EXP_R 7.69711747013104972     /* exp(-x) */
#define ZIG_NORM_R 3.6541528853610088     /* exp(-x^2 / 2) */

sim_rng_zig sim_rng_zig_exp, sim_rng_zig_norm;

static double f_exp(double x) { return exp(-x); }
static double finv_exp(double y) { return -log(y); }
static double f_norm(double x) { return exp(-0.5 * x * x); }
static double finv_norm(double y) { return sqrt(-2 * log(y)); }

static void zig_fill(sim_rng_zig *z, double r, double tail, double (*f)(double),
                     double (*finv)(double))
{
    double v = r * f(r) + tail;
    z->x[0] = v / f(r);
    z->x[1] = r;
    for (int i = 1; i < 255; i++)
        z->x[i + 1] = finv(f(z->x[i]) + v / z->x[i]);
    z->x[256] = 0;
    for (int i = 0; i <= 256; i++)
        z->f[i] = f(z->x[i]);
    z->f[256] = 1;
    for (int i = 0; i < 256; i++) {
        z->layer[i].k = (uint64_t)(z->x[i + 1] / z->x[i] * 0x1.0p53);
        z->layer[i].w = z->x[i] * 0x1.0p-53;
    }
}

static void zig_build(void)
{
    zig_fill(&sim_rng_zig_exp, ZIG_EXP_R, exp(-ZIG_EXP_R), f_exp, finv_exp);
    zig_fill(&sim_rng_zig_norm, ZIG_NORM_R, sqrt(M_PI / 2) * erfc(ZIG_NORM_R / sqrt(2)), f_norm,
             finv_norm);
}

double sim_rng_exp1_slow(gsl_rng *r, uint64_t b)
{
    const sim_rng_zig *z = &sim_rng_zig_exp;
    double base = 0;
    for (;;) {
        unsigned i = (unsigned)(b & 0xff);
        uint64_t u = b >> 11;
        double x = (double)(int64_t)u * z->layer[i].w;
        if (u < z->layer[i].k)
            return base + x;
        if (i == 0) {
            base += ZIG_EXP_R; /* the tail beyond r is r + exp(1): memoryless */
        } else {
            double y = z->f[i] + sim_rng_uniform(r) * (z->f[i + 1] - z->f[i]);
            if (y < exp(-x))
                return base + x;
        }
        b = sim_rng_next64(r);
    }
}

double sim_rng_normal1_slow(gsl_rng *r, uint64_t b)
{
    const sim_rng_zig *z = &sim_rng_zig_norm;
    for (;;) {
        unsigned i = (unsigned)(b & 0xff);
        uint64_t u = b >> 11;
        double x = (double)(int64_t)u * z->layer[i].w;
        double sign = (b & 0x100) ? -1 : 1;
        if (u < z->layer[i].k)
            return sign * x;
        if (i == 0) {
            /* tail beyond r (Marsaglia, 1964) */
            double a, e;
            do {
                a = -log(sim_rng_uniform_pos(r)) / ZIG_NORM_R;
                e = -log(sim_rng_uniform_pos(r));
            } while (e + e < a * a);
            return sign * (ZIG_NORM_R + a);
        }
        double y = z->f[i] + sim_rng_uniform(r) * (z->f[i + 1] - z->f[i]);
        if (y < exp(-0.5 * x * x))
            return sign * x;
        b = sim_rng_next64(r);
    }
}

void sim_rng_gamma_prepare(double shape, double *d, double *c)
{
    assert(shape > 0);
    *d = (shape < 1 ? shape + 1 : shape) - 1.0 / 3;
    *c = (1.0 / 3) / sqrt(*d);
}

double sim_rng_gamma1(gsl_rng *r, double shape)
{
    double d, c;
    sim_rng_gamma_prepare(shape, &d, &c);
    return sim_rng_gamma1_dc(r, shape, d, c);
}

double sim_rng_gamma1_dc(gsl_rng *r, double shape, double d, double c)
{
    if (shape < 1)
        return sim_rng_gamma1_dc(r, shape + 1, d, c) * pow(sim_rng_uniform_pos(r), 1 / shape);
    for (;;) {
        double x, v;
        do {
            x = sim_rng_normal1(r);
            v = 1 + c * x;
        } while (v <= 0);
        v = v * v * v;
        double u = sim_rng_uniform_pos(r), x2 = x * x;
        if (sim_rng_gamma_squeeze(u, x2) || sim_rng_gamma_exact(u, x2, d, v))
            return d * v;
    }
}

int sim_rng_gamma_exact(double u, double x2, double d, double v)
{
    return log(u) < 0.5 * x2 + d * (1 - v + log(v));
}

double sim_rng_gamma1_rest(gsl_rng *r, double d, double c, double x, double v, double u)
{
    if (sim_rng_gamma_exact(u, x * x, d, v))
        return d * v;
    return sim_rng_gamma1_dc(r, 1, d, c); /* new candidates (shape >= 1: the loop) */
}
