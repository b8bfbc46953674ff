/* sim_rng: independent GSL random streams, one per model component, derived
 * from (master seed, replication, stream), and the generator they use.
 *
 * Role: two configurations run with the same (seed, replication) draw the
 * same numbers in each stream, so their difference is measured with common
 * random numbers; different replications are independent.
 *
 * Generators (run.rng; both are gsl_rng, so every GSL sampler works):
 *   SIM_RNG_XOSHIRO (default, run.rng = xoshiro256ss): xoshiro256** (Blackman and Vigna, 2018;
 *     period 2^256 - 1, 64-bit outputs, passes BigCrush), a gsl_rng_type of
 *     this module (sim_rng_xoshiro256ss).  gsl_rng_get returns all 64 bits;
 *     gsl_rng_uniform the top 53 bits / 2^53.  Seeding: the 256-bit state
 *     is four successive outputs of splitmix64 started at the 64-bit key
 *     mix(master) XOR (rep << 12 | stream).  Distinct (rep, stream) pairs
 *     of one master get distinct keys; two keys differ by less than 2^32,
 *     so their splitmix64 sequences (steps of 0x9e3779b97f4a7c15) never
 *     share a state and the streams start at unrelated points of the
 *     period.  The state is never all zero (splitmix64's output is a
 *     bijection of its state and four successive states differ).
 *     sim_dist samples such a stream with its own fast samplers.
 *   SIM_RNG_MT19937 (run.rng = mt19937): GSL's MT19937 seeded as before this generator existed
 *     (seed32 = mix(master) + rep * SIM_RNG_MAX_STREAMS + stream, mod 2^32;
 *     0 replaced by mix(master) - 1, which no pair reaches, because GSL
 *     turns seed 0 into 4357), sampled with GSL's own samplers: the numbers
 *     tfsim drew before, for reproducing older results.
 *
 * Invariants: the same (kind, master, rep, stream) gives the same sequence
 * on every run and thread; stream < SIM_RNG_MAX_STREAMS, rep <
 * SIM_RNG_MAX_REPS (asserted).
 * Cost: creating a stream is O(1) for xoshiro256** (O(624) for MT19937);
 * sim_rng_next64 on a xoshiro256** stream is about ten inlined integer
 * instructions, no call.
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#define SIM_RNG_MAX_STREAMS 4096u
#define SIM_RNG_MAX_REPS ((1u << 20) - 1)

typedef enum sim_rng_kind {
    SIM_RNG_XOSHIRO = 0, /* the default */
    SIM_RNG_MT19937 = 1
} sim_rng_kind;

/* The generator names accepted by sim_rng_kind_parse, "|"-separated in
 * kind order (for a config enum). */
#define SIM_RNG_KIND_NAMES "xoshiro256ss|mt19937"

/* The kind named `name` (one of SIM_RNG_KIND_NAMES) into *out; -1 if
 * unknown. */
int sim_rng_kind_parse(const char *name, sim_rng_kind *out);
const char *sim_rng_kind_name(sim_rng_kind k);

/* xoshiro256** as a GSL generator type (static storage). */
extern const gsl_rng_type *const sim_rng_xoshiro256ss;

/* Turn GSL's aborting error handler off (idempotent).  Library code then
 * checks GSL return codes. */
void sim_rng_setup(void);

/* The MT19937 seed of (master, rep, stream) (see above). */
uint32_t sim_rng_seed32(uint64_t master, uint32_t rep, uint32_t stream);
/* The xoshiro256** key of (master, rep, stream): gsl_rng_set's seed. */
uint64_t sim_rng_key64(uint64_t master, uint32_t rep, uint32_t stream);

/* New generator of the given kind, owned by the caller (free with
 * gsl_rng_free); aborts only on out-of-memory (assertion). */
gsl_rng *sim_rng_new_kind(sim_rng_kind kind, uint64_t master, uint32_t rep, uint32_t stream);
/* The same with the default kind (SIM_RNG_XOSHIRO). */
gsl_rng *sim_rng_new(uint64_t master, uint32_t rep, uint32_t stream);

/* Re-seed an existing generator of either kind in place (no allocation). */
void sim_rng_reseed(gsl_rng *r, uint64_t master, uint32_t rep, uint32_t stream);

/* Whether r is a xoshiro256** stream (its state may then be stepped
 * inline with sim_rng_next64). */
static inline int sim_rng_is_xoshiro(const gsl_rng *r) { return r->type == sim_rng_xoshiro256ss; }

/* The next 64-bit output of a xoshiro256** stream (asserting its kind is
 * the caller's job: sim_rng_is_xoshiro).  The same as gsl_rng_get(r). */
static inline uint64_t sim_rng_xoshiro_step(uint64_t *s);
static inline uint64_t sim_rng_next64(gsl_rng *r) { return sim_rng_xoshiro_step((uint64_t *)r->state); }

/* The same step on a state s[4] held elsewhere (a sampler that keeps a
 * stream's state in registers for a batch of draws, then stores it back:
 * sim_dist_fill). */
static inline uint64_t sim_rng_xoshiro_step(uint64_t *s)
{
    uint64_t x = s[1] * 5;
    uint64_t out = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return out;
}

/* ---- fast samplers of xoshiro256** streams ----
 * Uniform: the top 53 bits of one output / 2^53.  Exponential and normal:
 * the ziggurat method (Marsaglia and Tsang, 2000) with 256 layers of equal
 * area, one 64-bit output per sample in about 99% of the draws (8 bits
 * pick the layer, 53 bits the abscissa, one bit the normal's sign); the
 * rest go to an out-of-line wedge or tail test (exact).  Gamma: Marsaglia
 * and Tsang's squeeze method (2000) on these normals and uniforms (GSL's
 * gsl_ran_gamma method), shape < 1 by gamma(1 + shape) x U^(1/shape).
 * The tables are filled once, when the first xoshiro256** stream is seeded
 * (thread-safe), so every stream can use them. */

typedef struct sim_rng_zig_layer {
    uint64_t k; /* the abscissa is under the curve at once when u53 < k */
    double w;   /* abscissa = u53 * w */
} sim_rng_zig_layer;

typedef struct sim_rng_zig {
    sim_rng_zig_layer layer[256];
    double x[257]; /* layer edges: x[0] the base layer's virtual width, x[1] = r, x[256] = 0 */
    double f[257]; /* density (unnormalised) at x[i] */
} sim_rng_zig;

extern sim_rng_zig sim_rng_zig_exp, sim_rng_zig_norm;

/* The rare cases of sim_rng_exp1 / sim_rng_normal1, given the draw b. */
double sim_rng_exp1_slow(gsl_rng *r, uint64_t b);
double sim_rng_normal1_slow(gsl_rng *r, uint64_t b);

/* Uniform on [0, 1) and on (0, 1]. */
static inline double sim_rng_uniform(gsl_rng *r)
{
    return (double)(int64_t)(sim_rng_next64(r) >> 11) * 0x1.0p-53;
}
static inline double sim_rng_uniform_pos(gsl_rng *r)
{
    return (double)(int64_t)((sim_rng_next64(r) >> 11) + 1) * 0x1.0p-53;
}

/* Exponential with mean 1. */
static inline double sim_rng_exp1(gsl_rng *r)
{
    uint64_t b = sim_rng_next64(r);
    uint64_t u = b >> 11;
    const sim_rng_zig_layer *l = &sim_rng_zig_exp.layer[b & 0xff];
    if (u < l->k)
        return (double)(int64_t)u * l->w;
    return sim_rng_exp1_slow(r, b);
}

/* Standard normal. */
static inline double sim_rng_normal1(gsl_rng *r)
{
    uint64_t b = sim_rng_next64(r);
    uint64_t u = b >> 11;
    const sim_rng_zig_layer *l = &sim_rng_zig_norm.layer[b & 0xff];
    if (u < l->k) {
        /* the sign from bit 8, without a branch (it is a coin flip) */
        double x = (double)(int64_t)u * l->w;
        uint64_t xb;
        memcpy(&xb, &x, sizeof xb);
        xb ^= (b & 0x100) << 55;
        memcpy(&x, &xb, sizeof x);
        return x;
    }
    return sim_rng_normal1_slow(r, b);
}

/* Gamma with the given shape (> 0) and scale 1. */
double sim_rng_gamma1(gsl_rng *r, double shape);
/* The same with the method's constants precomputed by
 * sim_rng_gamma_prepare(shape, &d, &c). */
double sim_rng_gamma1_dc(gsl_rng *r, double shape, double d, double c);
void sim_rng_gamma_prepare(double shape, double *d, double *c);
/* Marsaglia and Tsang's acceptance of a candidate v = (1 + c x)^3 with
 * uniform u: the squeeze (no logarithm: most candidates), and the exact
 * test.  One place for sim_rng_gamma1_dc and its inline first step. */
static inline int sim_rng_gamma_squeeze(double u, double x2)
{
    return u < 1 - 0.0331 * x2 * x2;
}
int sim_rng_gamma_exact(double u, double x2, double d, double v);

/* The rest of a draw of sim_rng_gamma1_dc (shape >= 1) whose first
 * candidate (x, v, u) failed the squeeze: its exact test, then new
 * candidates. */
double sim_rng_gamma1_rest(gsl_rng *r, double d, double c, double x, double v, double u);

/* sim_rng_gamma1_dc for shape >= 1, its usual case inline: the first
 * candidate passes the squeeze (about 98% of the draws at shape 4); the
 * same draws and the same arithmetic, so the same value. */
static inline double sim_rng_gamma1_ge1(gsl_rng *r, double shape, double d, double c)
{
    double x = sim_rng_normal1(r);
    double v = 1 + c * x;
    if (!(v > 0))
        return sim_rng_gamma1_dc(r, shape, d, c); /* a new candidate, as the loop would */
    v = v * v * v;
    double u = sim_rng_uniform_pos(r), x2 = x * x;
    if (sim_rng_gamma_squeeze(u, x2))
        return d * v;
    return sim_rng_gamma1_rest(r, d, c, x, v, u);
}

#endif
