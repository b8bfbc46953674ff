/* sim_calendar: the future-event list, a 4-ary min-heap of events ordered
 * by (time, priority, insertion sequence).
 *
 * Role: hold every scheduled event of one simulation; pop them in a
 * deterministic order.  Ties in time go to the lower priority number, then
 * to the earlier insertion (as libuv's timer heap breaks ties by start_id),
 * so the same inputs always give the same order.
 *
 * Invariants: heap[0] is the least node, unless `hole` is set: pop leaves
 * the root empty (hole) and the next push fills it with one sift-down, so
 * the usual step of a simulation (pop an event, schedule one) costs one
 * sift instead of two; the next pop or peek fills a hole still open with
 * the last node.  A node's 128-bit key is
 * (ordered bits of t) << 64 | prio << 48 | seq, so one unsigned comparison
 * compares (t, prio, seq): the ordered bits of a double are its IEEE bits
 * with the sign bit flipped for t >= 0 and all bits flipped for t < 0, which
 * orders them as the doubles; -0 is stored as +0 so the two compare equal,
 * as doubles do.  seq grows by one per push and is never reused (2^48
 * pushes per calendar at most, asserted).  The array grows by doubling and
 * never shrinks: after warm-up no push allocates.
 * Cost: push and pop O(log4 n) with 32-byte nodes moved by hole sifting;
 * a sift down picks the least of four children and its key by conditional
 * moves (no branch, one round of loads per level) and, on heaps larger
 * than the caches, prefetches the grandchildren; the array is placed so
 * that the four children of a node are two whole cache lines; memory 32
 * bytes per pending event.  (bench/bench_calendar.c: hold model.)  Why
 * this shape (issue 18, hold model, exp(1) increments, CPU time medians on
 * a loaded machine, without prefetching): 4-ary beat 2-ary by 3% at 10^2
 * pending, 6% at 10^3 and 1.8x at 10^6; 8-ary tied at 10^2-10^3 and was
 * 1.5-2x faster only at 10^6; a bottom-up sift (hole to a leaf, then up)
 * lost 10% at 10^2 and tied at 10^3; keys in their own array (16-byte
 * keys, siblings on one cache line) lost 20%.  With the one-load-round
 * pick (issue 18, second pass, minimum CPU time of 27 runs): 4-ary 34.5 ns
 * per hold at 10^3 (was 39.2), 8-ary 40.8; children on two lines instead
 * of three: the same at 10^2-10^3, 5% less at 10^6.  A calendar queue
 * (sim/sim_cq.h; issue 18, CPU time medians of 7 alternating rounds, ns
 * per hold heap/cq, exp(1) increments): 26.6/37.1 at 10^2, 35.5/39.1 at
 * 10^3, 291/289 at 10^6; uniform [0, 2): 22.4/34.5, 31.5/37.9, 301/446;
 * a second run: 27.6/38.7, 46.6/48.0, 296/384: not used.  Below 8192
 * nodes a sift level picks the least child by the keys' high halves (the
 * time bits: 64-bit compares and selects) and falls back to whole keys
 * only when two compared halves tie, and it selects the byte offset of the
 * next level's children among candidates computed in advance, so that a
 * level waits for its loads, two compares and two selects (issue 18,
 * third pass, hold model at 10^3 pending, exp increments, minimum CPU time
 * of 41 runs of 2e6 holds, old and new build at once on the two CPUs:
 * 23.8-24.7 ns per hold against 28.5-30.2; 10^2 pending: 19.0-20.3
 * against 22.2-23.0; 22% fewer instructions at 10^3, callgrind).
 * There is no cancel in the heap: owners mark stale events themselves
 * (compare the returned seq).
 * Timers: up to SIM_CAL_TIMERS movable events kept beside the heap, each
 * with at most one firing pending; setting a timer replaces its pending
 * firing, so an owner that reschedules often (sim_ps: every arrival and
 * departure can move its next completion) leaves no stale events behind.
 * A timer's firing takes a sequence number when it is set, as a push does,
 * and pops in the same (time, priority, sequence) order as the heap's
 * events: the order of everything else is the same as if it had been
 * pushed.  Cost: pop and peek compare the heap's least node with each
 * armed timer (O(SIM_CAL_TIMERS)).
 * Uses the GCC/Clang extension unsigned __int128 (64-bit targets).
 */
#ifndef SIM_CALENDAR_H
#define SIM_CALENDAR_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sim;
typedef void (*sim_fn)(struct sim *s, void *obj);

/* An event as popped. */
typedef struct sim_event {
    double t;
    uint64_t key;  /* prio << 48 | seq */
    sim_fn fn;
    void *obj;     /* borrowed: owned by the model, must outlive the event */
} sim_event;

#define SIM_PRIO_MAX 0xffffu
#define SIM_SEQ_MASK ((UINT64_C(1) << 48) - 1)

__extension__ typedef unsigned __int128 sim_cal_key;

/* An event as stored in the heap. */
typedef struct sim_cal_node {
    sim_cal_key k;  /* ordered time bits << 64 | prio << 48 | seq */
    sim_fn fn;
    void *obj;
} sim_cal_node;

#define SIM_CAL_TIMERS 4
_Static_assert(SIM_CAL_TIMERS <= 4, "sim_calendar_size counts the armed timers with a 16-entry table");

typedef struct sim_calendar {
    sim_cal_node *heap;  /* node 1 starts a cache line (see sim_calendar.c) */
    void *mem;           /* the allocation that holds heap[] */
    size_t n;      /* nodes in heap[], counting an empty root (hole) */
    size_t cap;
    uint64_t seq;
    int hole;      /* heap[0] has been popped and not refilled yet */
    sim_cal_node timer[SIM_CAL_TIMERS]; /* the timers' pending firings */
    unsigned ntimers;                   /* timers handed out */
    unsigned armed;                     /* bit i: timer i has a firing pending */
} sim_calendar;

/* Initialise caller-provided storage with room for cap_hint events (>= 1). */
void sim_calendar_init(sim_calendar *c, size_t cap_hint);
void sim_calendar_fini(sim_calendar *c);
/* Remove all events (and the timers' pending firings; the timers stay
 * handed out); keeps the memory and the sequence counter. */
void sim_calendar_clear(sim_calendar *c);

/* Insert; returns the event's sequence number (unique in this calendar). */
uint64_t sim_calendar_push(sim_calendar *c, double t, unsigned prio, sim_fn fn, void *obj);

/* What sim_calendar_pop_until found. */
enum { SIM_CAL_EMPTY = 0, SIM_CAL_EVENT = 1, SIM_CAL_LATER = 2 };

static inline size_t sim_calendar_size(const sim_calendar *c)
{
    /* bits set in the 4-bit armed mask (a table: __builtin_popcount is a
     * library call without -mpopcnt, and this runs at every event) */
    return c->n - (size_t)c->hole + (size_t)"\0\1\1\2\1\2\2\3\1\2\2\3\2\3\3\4"[c->armed];
}

/* The armed timer that comes first, and before the heap's least node
 * (the hole filled); -1 when the heap's least node comes first or no timer
 * is armed. */
static inline int sim_calendar_first_timer(const sim_calendar *c)
{
    assert(!c->hole);
    int best = -1;
    for (unsigned a = c->armed; a; a &= a - 1) {
        int i = __builtin_ctz(a);
        if (best < 0 || c->timer[i].k < c->timer[best].k)
            best = i;
    }
    return best >= 0 && (c->n == 0 || c->timer[best].k < c->heap[0].k) ? best : -1;
}

/* A timer of this calendar: its id (>= 0), or -1 when all SIM_CAL_TIMERS
 * are handed out (the caller then pushes events instead). */
int sim_calendar_timer_new(sim_calendar *c);
/* Ordered bits of t (see above); -0 becomes +0 first. */
static inline uint64_t sim_calendar_time_bits(double t)
{
    t += 0.0;
    uint64_t b;
    memcpy(&b, &t, sizeof b);
    return (b >> 63) ? ~b : b ^ (UINT64_C(1) << 63);
}

/* Set timer id to fire fn(obj) at (t, prio), replacing a firing still
 * pending; returns the firing's sequence number. */
static inline uint64_t sim_calendar_timer_set(sim_calendar *c, int id, double t, unsigned prio,
                                              sim_fn fn, void *obj)
{
    assert(id >= 0 && (unsigned)id < c->ntimers);
    assert(prio <= SIM_PRIO_MAX && t == t); /* no NaN times */
    uint64_t seq = c->seq++;
    assert(seq < SIM_SEQ_MASK);
    sim_cal_node *x = &c->timer[id];
    x->k = (sim_cal_key)sim_calendar_time_bits(t) << 64 | ((uint64_t)prio << 48 | seq);
    x->fn = fn;
    x->obj = obj;
    c->armed |= 1u << id;
    return seq;
}
/* Drop timer id's pending firing, if any. */
static inline void sim_calendar_timer_clear(sim_calendar *c, int id)
{
    assert(id >= 0 && (unsigned)id < c->ntimers);
    c->armed &= ~(1u << id);
}

/* Fill the root left empty by the last pop, if it still is, with the last
 * node (pop and peek do this themselves). */
void sim_calendar_fill_hole(sim_calendar *c);

/* The double whose ordered bits (see above) are u. */
static inline double sim_calendar_time_of(uint64_t u)
{
    uint64_t b = (u >> 63) ? u ^ (UINT64_C(1) << 63) : ~u;
    double t;
    memcpy(&t, &b, sizeof t);
    return t;
}

/* The run loop's step: remove the least event into *out if its time is
 * <= t_end (SIM_CAL_EVENT); otherwise leave the calendar as it is and
 * return SIM_CAL_EMPTY or SIM_CAL_LATER.  The same as size, peek_time and
 * pop in one call; inline (it runs at every event), the sift that fills a
 * hole out of line.  With timers armed, the least of them, then the heap's
 * least node if it comes first: by a branch, not a mask (issue 18: picked
 * by a mask, with sim_ps's timer armed at almost every event, pg_pg at
 * concurrency 100 took 9% more CPU time: the pick then waited for the
 * timer's key, a branch is predicted and run ahead). */
static inline int sim_calendar_pop_until(sim_calendar *c, double t_end, sim_event *out)
{
    if (c->hole)
        sim_calendar_fill_hole(c);
    const sim_cal_node *x = &c->heap[0];
    unsigned from_heap = 1, bit = 0;
    if (c->armed) {
        unsigned a = c->armed;
        int ti = __builtin_ctz(a);
        for (a &= a - 1; a; a &= a - 1) {
            int i = __builtin_ctz(a);
            if (c->timer[i].k < c->timer[ti].k)
                ti = i;
        }
        const sim_cal_node *tx = &c->timer[ti];
        if (c->n > 0 && x->k < tx->k) {
            from_heap = 1;
        } else {
            from_heap = 0;
            x = tx;
        }
        bit = 1u << ti;
    } else if (c->n == 0) {
        return SIM_CAL_EMPTY;
    }
    double t = sim_calendar_time_of((uint64_t)(x->k >> 64));
    if (t > t_end)
        return SIM_CAL_LATER;
    out->t = t;
    out->key = (uint64_t)x->k;
    out->fn = x->fn;
    out->obj = x->obj;
    c->armed &= ~(bit & (from_heap - 1u)); /* the timer's bit unless from the heap */
    c->hole = (int)from_heap;
    return SIM_CAL_EVENT;
}

/* Remove the least event into *out; returns 0 if the calendar is empty
 * (*out zeroed).  Inline: sim_calendar_pop_until with no time bound. */
static inline int sim_calendar_pop(sim_calendar *c, sim_event *out)
{
    if (sim_calendar_pop_until(c, __builtin_inf(), out) == SIM_CAL_EVENT)
        return 1;
    *out = (sim_event){0};
    return 0;
}

/* Time of the least event (the calendar must not be empty).  Not const:
 * it may fill the hole left by the last pop. */
static inline double sim_calendar_peek_time(sim_calendar *c)
{
    if (c->hole)
        sim_calendar_fill_hole(c);
    assert(sim_calendar_size(c) > 0);
    int ti = c->armed ? sim_calendar_first_timer(c) : -1;
    const sim_cal_node *x = ti >= 0 ? &c->timer[ti] : &c->heap[0];
    return sim_calendar_time_of((uint64_t)(x->k >> 64));
}

#endif
