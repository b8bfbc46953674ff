/* sim_batcher: an auto-batcher with one batch in flight (TigerBeetle's
 * client-side batching, LiveBatcher in TigerFans).
 *
 * Role: a submission carries `items` (e.g. 2 transfers).  If no batch is in
 * flight it starts one at once with this submission alone; while a batch
 * is in flight, submissions queue.  When the batch completes, every
 * submission in it is done (callbacks called in submission order) and the
 * queued submissions, oldest first, up to `cap` items, go out as the next
 * batch.  A submission is never split; one larger than cap is a bug
 * (assertion).  The batch's latency comes from the model's callback, which
 * draws it from its own random stream.
 *
 * Invariants: at most one batch in flight; items in a batch <= cap; FIFO.
 * Statistics: batches, batch size (items) mean/var.
 * Cost: O(1) per submission plus one calendar event per batch; the in-
 * flight and waiting queues reuse their memory.
 */
#ifndef SIM_BATCHER_H
#define SIM_BATCHER_H

#include "sim/sim.h"
#include "sim/sim_queue.h"
#include "sim/sim_stats.h"

/* Latency of a batch of `items` items, in seconds (model-supplied). */
typedef double (*sim_batch_latency_fn)(void *ctx, unsigned items);

typedef struct sim_batcher {
    unsigned cap;
    sim_batch_latency_fn latency;
    void *ctx;                 /* borrowed, passed to latency */
    sim_queue wait;
    sim_queue fq[2];           /* in-flight batch and the one being completed */
    int fcur;                  /* fq[fcur] is the batch in flight */
    unsigned flight_items;
    int busy;
    /* optional: called when a batch has completed, before the callbacks */
    void (*on_done)(void *ctx, unsigned items, double latency);
    double started;
    /* statistics since the last reset */
    uint64_t batches;
    sim_welford size;          /* items per batch */
    sim_welford subs;          /* submissions per batch */
} sim_batcher;

void sim_batcher_init(sim_batcher *b, unsigned cap, sim_batch_latency_fn latency, void *ctx);
void sim_batcher_fini(sim_batcher *b);
void sim_batcher_submit(sim_batcher *b, sim *s, void *obj, unsigned items, sim_fn done);
void sim_batcher_reset_stats(sim_batcher *b);

#endif
