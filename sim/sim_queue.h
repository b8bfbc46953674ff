/* sim_queue: a FIFO of waiting jobs (ring buffer), shared by the kernel's
 * resources (station, semaphore, batcher) and usable by models.
 *
 * Invariants: capacity is a power of two; it doubles when full and never
 * shrinks, so a queue that has reached its steady-state size no longer
 * allocates.  Cost: push/pop O(1) amortised, 32 bytes per job.
 */
#ifndef SIM_QUEUE_H
#define SIM_QUEUE_H

#include <stddef.h>

#include "sim/sim_calendar.h"

typedef struct sim_job {
    void *obj;   /* borrowed: the model's object */
    sim_fn fn;   /* what to call when the job is served */
    double t;    /* time it joined */
    double x;    /* payload: service time, item count, ... */
} sim_job;

typedef struct sim_queue {
    sim_job *buf;
    size_t head, n, cap;  /* cap is a power of two */
} sim_queue;

void sim_queue_init(sim_queue *q, size_t cap_hint);
void sim_queue_fini(sim_queue *q);
void sim_queue_push(sim_queue *q, sim_job j);
/* Insert j ahead of every waiting job (it is served next). */
void sim_queue_push_front(sim_queue *q, sim_job j);
/* Remove the oldest job into *out; 0 if empty. */
int sim_queue_pop(sim_queue *q, sim_job *out);
static inline size_t sim_queue_len(const sim_queue *q) { return q->n; }
/* The oldest job, without removing it (queue must not be empty). */
const sim_job *sim_queue_front(const sim_queue *q);

#endif
