/* sim_cq: a calendar queue (Brown 1988) of sim_cal_node events, the
 * candidate measured against sim_calendar's 4-ary heap (issue 18).
 *
 * Role: the same future-event list as sim_calendar's heap, with the same
 * 128-bit keys (sim_calendar_time_bits(t) << 64 | prio << 48 | seq) and so
 * the same total order: time, then priority, then insertion sequence;
 * -0 == +0 and negative times as there.  No timers, no hole: a store to
 * measure (and to put behind the sim_calendar_* API if it won).
 * Why a calendar queue and not a ladder queue (Tang, Goh and Thng 2005):
 * the ladder queue's gain is on skewed or shifting distributions, where a
 * calendar queue's fixed bucket width goes wrong; on the hold model with
 * stationary increments (the case of the issue) both do O(1) work per
 * event, and the calendar queue does it with one bucket array instead of
 * top, rungs and bottom.  Its known weakness (a width fitted to one
 * distribution) is met as in SNOOPy / the dynamic calendar queue: the
 * width is re-fitted when the measured work per pop grows, not only when
 * the count doubles or halves.
 *
 * Structure: nb (a power of two) buckets of width w; an event of time t
 * has the virtual bucket vb = (int64)clamp((t - origin) / w, +-2^62) and
 * lives in bucket vb mod nb, in a list sorted by key.  vb is a
 * non-decreasing function of t, so a lesser vb means a lesser key.
 * Invariants: every event has vb >= cur; the events of a bucket are
 * linked in increasing key order (head to tail).  Hence the head of
 * bucket cur mod nb, if its vb is cur, is the least event; otherwise cur
 * moves on; after nb buckets without one (a "year" with no event), a
 * direct search of the nb heads finds the least event and cur jumps to its
 * vb.  A push below cur (allowed: times need not be >= the last popped)
 * moves cur back to its vb.  Any double, +-inf included, goes somewhere
 * (the clamp): correctness never depends on the width, only the speed.
 * Events live in a pool of items (the node, its vb, the next index)
 * owned by the queue, recycled through a free list: after warm-up (the
 * largest count reached) no push or pop allocates.  nb doubles when the
 * count exceeds 2 nb and halves when it falls below nb / 2 (down to 4),
 * and the width is then re-fitted: three times the mean gap between the
 * least 25 events, gaps above twice the mean left out (Brown's rule).
 * Cost: push and pop O(1) expected when the width fits (a few events per
 * bucket, few empty buckets per pop), O(n) for a resize or a direct
 * search; but k events at one time with mixed priorities are one list
 * that a push walks, O(k) (no width splits equal times: the heap's
 * O(log n) does not have this worst case); memory 48 bytes per pooled
 * event plus 8 per bucket.
 * Measured (bench/bench_calendar.c, hold model, CPU time, medians of 7
 * alternating rounds, two runs): slower than the heap at 1e2 and 1e3
 * pending (0.71-0.72x and 0.91-0.97x its speed with exp(1) increments),
 * tied or slower at 1e6 (1.01x, 0.77x; uniform: 0.67x, 0.62x); the
 * work per hold is a handful of dependent loads into the pool and the
 * buckets (a bucket's tail, the list) with branches that go either way,
 * not fewer than the heap's sift; the width factor (1x-5x the mean gap)
 * moved it by under 10%.  Kept as the measurement, not used by the
 * simulator (see sim_calendar.h).
 */
#ifndef SIM_CQ_H
#define SIM_CQ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim_calendar.h"

/* A pooled event: the node, its virtual bucket, the next item of its
 * bucket (SIM_CQ_NIL: none) or of the free list. */
typedef struct sim_cq_item {
    sim_cal_node n;
    int64_t vb;
    uint32_t next;
} sim_cq_item;

#define SIM_CQ_NIL UINT32_MAX

/* A bucket: first and last item (SIM_CQ_NIL when empty). */
typedef struct sim_cq_bucket {
    uint32_t head, tail;
} sim_cq_bucket;

typedef struct sim_cq {
    sim_cq_item *item;    /* owned: the pool */
    sim_cq_bucket *b;     /* owned: bcap buckets, nb of them in use */
    size_t n;             /* events queued */
    size_t icap, iused;   /* pool capacity; items ever handed out */
    uint32_t free;        /* free list of the pool */
    size_t nb, bcap;      /* buckets in use (a power of two); allocated */
    int64_t cur;          /* virtual bucket of the scan (<= every event's vb) */
    double origin, inv_w; /* vb = (t - origin) * inv_w, clamped, truncated */
    double w;             /* bucket width */
    uint64_t seq;
    uint64_t steps, pops; /* empty buckets passed, pops: since the last fit */
} sim_cq;

/* Initialise caller-provided storage with room for cap_hint events. */
void sim_cq_init(sim_cq *q, size_t cap_hint);
void sim_cq_fini(sim_cq *q);
/* Remove all events; keeps the memory and the sequence counter. */
void sim_cq_clear(sim_cq *q);

/* Insert; returns the event's sequence number (0, 1, 2, ... per queue).
 * obj is borrowed: owned by the caller, handed back by pop. */
uint64_t sim_cq_push(sim_cq *q, double t, unsigned prio, sim_fn fn, void *obj);
/* Remove the least event into *out (caller's storage); returns 0 if the
 * queue is empty. */
int sim_cq_pop(sim_cq *q, sim_event *out);
/* The least event into *out without removing it; returns 0 if empty.
 * Not const: it moves the scan forward. */
int sim_cq_peek(sim_cq *q, sim_event *out);

static inline size_t sim_cq_size(const sim_cq *q) { return q->n; }

#endif
