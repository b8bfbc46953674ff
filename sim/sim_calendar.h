/* sim_calendar: the future-event list, a binary min-heap of events ordered
 * by (time, priority, insertion sequence).
 *
 * Role: hold every scheduled event of one simulation; pop them in a
 * deterministic order.  Ties in time go to the lower priority number, then
 * to the earlier insertion (as libuv's timer heap breaks ties by start_id),
 * so the same inputs always give the same order.
 *
 * Invariants: heap[0] is the least event; key = prio << 48 | seq, so
 * comparing keys compares (prio, seq); seq grows by one per push and is
 * never reused (2^48 pushes per run at most, asserted).  The array grows by
 * doubling and never shrinks: after warm-up no push allocates.
 * Cost: push and pop O(log n) with 32-byte entries moved by hole sifting;
 * memory 32 bytes per pending event.  There is no cancel: owners mark stale
 * events themselves (compare sim_calendar's returned seq, see sim_ps.c).
 */
#ifndef SIM_CALENDAR_H
#define SIM_CALENDAR_H

#include <stddef.h>
#include <stdint.h>

struct sim;
typedef void (*sim_fn)(struct sim *s, void *obj);

typedef struct sim_event {
    double t;
    uint64_t key;  /* prio << 48 | seq */
    sim_fn fn;
    void *obj;     /* borrowed: owned by the model, must outlive the event */
} sim_event;

#define SIM_PRIO_MAX 0xffffu
#define SIM_SEQ_MASK ((UINT64_C(1) << 48) - 1)

typedef struct sim_calendar {
    sim_event *heap;
    size_t n, cap;
    uint64_t seq;
} sim_calendar;

/* Initialise caller-provided storage with room for cap_hint events (>= 1). */
void sim_calendar_init(sim_calendar *c, size_t cap_hint);
void sim_calendar_fini(sim_calendar *c);
/* Remove all events; keeps the memory and the sequence counter. */
void sim_calendar_clear(sim_calendar *c);

/* Insert; returns the event's sequence number (unique in this calendar). */
uint64_t sim_calendar_push(sim_calendar *c, double t, unsigned prio, sim_fn fn, void *obj);

/* Remove the least event into *out; returns 0 if the calendar is empty. */
int sim_calendar_pop(sim_calendar *c, sim_event *out);

static inline size_t sim_calendar_size(const sim_calendar *c) { return c->n; }
/* Time of the least event (the calendar must not be empty). */
double sim_calendar_peek_time(const sim_calendar *c);

#endif
