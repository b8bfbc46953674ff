/* sim_pool: fixed-size objects with stable addresses (customers, requests)
 * for models whose events hold pointers to them.
 *
 * Invariants: objects never move (memory comes in chunks that are kept
 * until sim_pool_fini); a freed object goes to a free list and is handed
 * out again before any new chunk is allocated, so a model in steady state
 * allocates nothing.  Cost: O(1) get/put; memory = peak live objects
 * rounded up to a chunk.
 */
#ifndef SIM_POOL_H
#define SIM_POOL_H

#include <stddef.h>

typedef struct sim_pool {
    size_t size;      /* object size, rounded up to pointer alignment */
    size_t per_chunk;
    void **chunks;    /* owned */
    size_t nchunks, cap_chunks;
    void *free_list;  /* singly linked through the first word */
    size_t live, peak;
} sim_pool;

void sim_pool_init(sim_pool *p, size_t obj_size, size_t per_chunk);
void sim_pool_fini(sim_pool *p);
/* A zeroed object owned by the pool; give it back with sim_pool_put. */
void *sim_pool_get(sim_pool *p);
void sim_pool_put(sim_pool *p, void *obj);

#endif
