/* sim_rng: independent GSL random streams, one per model component, derived
 * from (master seed, replication, stream number).
 *
 * Role: two configurations run with the same (seed, replication) draw the
 * same numbers in each stream, so their difference is measured with common
 * random numbers; different replications are independent.
 *
 * Invariants: for a fixed master seed, distinct (rep, stream) pairs with
 * stream < SIM_RNG_MAX_STREAMS and rep < SIM_RNG_MAX_REPS get distinct,
 * non-zero MT19937 seeds (seed32 = mix(master) + rep * SIM_RNG_MAX_STREAMS
 * + stream, mod 2^32; MT19937's initialisation decorrelates neighbouring
 * seeds).  GSL seeds MT19937 with 4357 when asked for 0, so 0 is never
 * used: the pair that would get 0 gets mix(master) - 1 instead, a value no
 * pair reaches because the pairs cover 2^32 - 4096 consecutive seeds.
 * Cost: creating a stream is O(624) (MT19937 state); drawing is O(1).
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#define SIM_RNG_MAX_STREAMS 4096u
#define SIM_RNG_MAX_REPS ((1u << 20) - 1)

/* Turn GSL's aborting error handler off (idempotent).  Library code then
 * checks GSL return codes. */
void sim_rng_setup(void);

uint32_t sim_rng_seed32(uint64_t master, uint32_t rep, uint32_t stream);

/* New generator owned by the caller (free with gsl_rng_free); aborts only
 * on out-of-memory (assertion). */
gsl_rng *sim_rng_new(uint64_t master, uint32_t rep, uint32_t stream);

/* Re-seed an existing generator in place (no allocation). */
void sim_rng_reseed(gsl_rng *r, uint64_t master, uint32_t rep, uint32_t stream);

#endif
