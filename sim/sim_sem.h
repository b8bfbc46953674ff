/* sim_sem: a counting semaphore with a FIFO of waiters (connection pools,
 * application gates, windows of a load generator).
 *
 * Invariants: 0 <= in_use <= permits; a waiter exists only while in_use ==
 * permits.  A release with waiters hands the permit straight to the oldest
 * waiter (in_use unchanged) and schedules its callback at the current time
 * with priority 0, so grants are FIFO and never overtaken.
 * Cost: O(1) per acquire/release plus one calendar event per delayed grant.
 */
#ifndef SIM_SEM_H
#define SIM_SEM_H

#include "sim/sim.h"
#include "sim/sim_queue.h"
#include "sim/sim_stats.h"

typedef struct sim_sem {
    long permits, in_use, max_in_use;
    sim_queue wait;
    /* statistics since the last reset */
    uint64_t grants, delayed;
    sim_welford waitw;
    sim_tavg busy, nwait;
} sim_sem;

void sim_sem_init(sim_sem *m, long permits);
void sim_sem_fini(sim_sem *m);
/* Take a permit: returns 1 if granted at once (the caller goes on and fn
 * is not called); else queues and returns 0, and fn(s, obj) runs when the
 * permit is handed over. */
int sim_sem_acquire(sim_sem *m, sim *s, void *obj, sim_fn fn);
void sim_sem_release(sim_sem *m, sim *s);
void sim_sem_reset_stats(sim_sem *m, double now);

#endif
