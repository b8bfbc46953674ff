#include "sim/sim_batcher.h"

#include <assert.h>

void sim_batcher_init(sim_batcher *b, unsigned cap, sim_batch_latency_fn latency, void *ctx)
{
    assert(cap >= 1 && latency);
    b->cap = cap;
    b->latency = latency;
    b->ctx = ctx;
    sim_queue_init(&b->wait, 64);
    sim_queue_init(&b->fq[0], 64);
    sim_queue_init(&b->fq[1], 64);
    b->fcur = 0;
    b->flight_items = 0;
    b->busy = 0;
    b->on_done = NULL;
    b->started = 0;
    sim_batcher_reset_stats(b);
}

void sim_batcher_fini(sim_batcher *b)
{
    sim_queue_fini(&b->wait);
    sim_queue_fini(&b->fq[0]);
    sim_queue_fini(&b->fq[1]);
}

void sim_batcher_reset_stats(sim_batcher *b)
{
    b->batches = 0;
    sim_welford_init(&b->size);
    sim_welford_init(&b->subs);
}

static void batch_done(sim *s, void *obj);

static void launch(sim_batcher *b, sim *s)
{
    sim_queue *flight = &b->fq[b->fcur];
    assert(!b->busy && flight->n == 0);
    sim_job j;
    b->flight_items = 0;
    while (b->wait.n && b->flight_items + (unsigned)sim_queue_front(&b->wait)->x <= b->cap) {
        sim_queue_pop(&b->wait, &j);
        b->flight_items += (unsigned)j.x;
        sim_queue_push(flight, j);
    }
    assert(flight->n > 0);
    b->busy = 1;
    b->started = s->now;
    b->batches++;
    sim_welford_add(&b->size, b->flight_items);
    sim_welford_add(&b->subs, (double)flight->n);
    double lat = b->latency(b->ctx, b->flight_items);
    assert(lat >= 0);
    sim_after(s, lat, 0, batch_done, b);
}

static void batch_done(sim *s, void *obj)
{
    sim_batcher *b = obj;
    if (b->on_done)
        b->on_done(b->ctx, b->flight_items, s->now - b->started);
    /* Detach the finished batch (callbacks may submit again), then send
     * the next batch before the callbacks run, as the real batcher flushes
     * its queue as soon as the previous request returns.  The two flight
     * queues alternate, so nothing is allocated per batch. */
    sim_queue *done = &b->fq[b->fcur];
    b->fcur ^= 1;
    b->busy = 0;
    if (b->wait.n)
        launch(b, s);
    sim_job j;
    while (sim_queue_pop(done, &j))
        if (j.fn)
            j.fn(s, j.obj);
}

void sim_batcher_submit(sim_batcher *b, sim *s, void *obj, unsigned items, sim_fn done)
{
    assert(items >= 1 && items <= b->cap && "submission larger than the batch cap");
    sim_job j = {obj, done, s->now, (double)items};
    sim_queue_push(&b->wait, j);
    if (!b->busy)
        launch(b, s);
}
