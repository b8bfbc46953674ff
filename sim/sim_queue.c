#include "sim/sim_queue.h"

#include <assert.h>
#include <stdlib.h>

void sim_queue_init(sim_queue *q, size_t cap_hint)
{
    size_t cap = 8;
    while (cap < cap_hint)
        cap *= 2;
    q->buf = malloc(cap * sizeof *q->buf);
    assert(q->buf && "out of memory");
    q->head = q->n = 0;
    q->cap = cap;
}

void sim_queue_fini(sim_queue *q)
{
    free(q->buf);
    q->buf = NULL;
    q->n = q->cap = 0;
}

void sim_queue_grow(sim_queue *q)
{
    {
        sim_job *nb = malloc(2 * q->cap * sizeof *nb);
        assert(nb && "out of memory");
        for (size_t i = 0; i < q->n; i++)
            nb[i] = q->buf[(q->head + i) & (q->cap - 1)];
        free(q->buf);
        q->buf = nb;
        q->head = 0;
        q->cap *= 2;
    }
}

void sim_queue_push_front(sim_queue *q, sim_job j)
{
    if (q->n == q->cap)
        sim_queue_grow(q);
    q->head = (q->head + q->cap - 1) & (q->cap - 1);
    q->buf[q->head] = j;
    q->n++;
}
