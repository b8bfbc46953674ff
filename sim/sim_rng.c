#include "sim/sim_rng.h"

#include <assert.h>

#include <gsl/gsl_errno.h>

void sim_rng_setup(void) { gsl_set_error_handler_off(); }

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint32_t sim_rng_seed32(uint64_t master, uint32_t rep, uint32_t stream)
{
    assert(stream < SIM_RNG_MAX_STREAMS && rep < SIM_RNG_MAX_REPS);
    uint32_t base = (uint32_t)splitmix64(master);
    uint32_t s = base + rep * SIM_RNG_MAX_STREAMS + stream;
    return s ? s : base - 1; /* see the header: 0 would collide with 4357 */
}

gsl_rng *sim_rng_new(uint64_t master, uint32_t rep, uint32_t stream)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    assert(r && "out of memory");
    gsl_rng_set(r, sim_rng_seed32(master, rep, stream));
    return r;
}

void sim_rng_reseed(gsl_rng *r, uint64_t master, uint32_t rep, uint32_t stream)
{
    gsl_rng_set(r, sim_rng_seed32(master, rep, stream));
}
