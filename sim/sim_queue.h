/* sim_queue: a FIFO of waiting jobs (ring buffer), shared by the kernel's
 * resources (station, semaphore, batcher) and usable by models.
 *
 * Invariants: capacity is a power of two; it doubles when full and never
 * shrinks, so a queue that has reached its steady-state size no longer
 * allocates.  Cost: push/pop O(1) amortised, 32 bytes per job.
 */
#ifndef SIM_QUEUE_H
#define SIM_QUEUE_H

#include <assert.h>
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
/* Double the capacity (push does this when the queue is full). */
void sim_queue_grow(sim_queue *q);
/* Append j (inline: it runs for every job that waits). */
static inline void sim_queue_push(sim_queue *q, sim_job j)
{
    if (q->n == q->cap)
        sim_queue_grow(q);
    q->buf[(q->head + q->n) & (q->cap - 1)] = j;
    q->n++;
}
/* Insert j ahead of every waiting job (it is served next). */
void sim_queue_push_front(sim_queue *q, sim_job j);
/* Remove the oldest job into *out; 0 if empty. */
static inline int sim_queue_pop(sim_queue *q, sim_job *out)
{
    if (q->n == 0)
        return 0;
    *out = q->buf[q->head];
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
    return 1;
}
static inline size_t sim_queue_len(const sim_queue *q) { return q->n; }
/* The oldest job, without removing it (queue must not be empty). */
static inline const sim_job *sim_queue_front(const sim_queue *q)
{
    assert(q->n > 0);
    return &q->buf[q->head];
}
/* Remove the oldest job (queue must not be empty). */
static inline void sim_queue_drop(sim_queue *q)
{
    assert(q->n > 0);
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
}

#endif
