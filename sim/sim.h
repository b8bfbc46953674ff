/* sim: the simulation context: clock, event calendar, the run loop and its
 * resource bounds.  Knows nothing about any model.
 *
 * Role: models schedule callbacks (sim_fn with a borrowed object pointer)
 * at future times; sim_run pops them in (time, priority, sequence) order,
 * sets `now`, and calls them.  The kernel's resources (sim_station, sim_sem,
 * sim_ps, sim_batcher) and the models build on this.
 *
 * Invariants: now never decreases; an event scheduled in the past is a bug
 * (assertion).  cur_seq is the sequence number of the event being run
 * (owners of lazily cancelled events compare it with what they stored).
 * Resource bounds: max_events, max_pending and t_end stop the loop with a status, never
 * abort.  Cost per event: sim_calendar_pop_until, inline (a heap pop: the
 * sift that fills the last pop's hole out of line; a compare per armed
 * timer, sim_timer_*, at most SIM_CAL_TIMERS), one indirect call (the
 * event's), a few compares.
 */
#ifndef SIM_H
#define SIM_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/sim_calendar.h"

enum sim_run_status {
    SIM_RUN_EMPTY = 0,   /* calendar ran dry */
    SIM_RUN_STOPPED = 1, /* sim_stop() was called */
    SIM_RUN_TIME = 2,    /* next event lies beyond t_end */
    SIM_RUN_EVENTS = 3,  /* max_events reached */
    SIM_RUN_MEMORY = 4   /* more than max_pending events pending */
};

/* Progress for long runs: when a hook is set, every run loop adds its
 * events to a process-wide counter every 2^20 events and calls the hook
 * with the total (from any thread; the hook must be thread-safe and should
 * rate-limit its output). */
void sim_set_progress_hook(void (*hook)(uint64_t total_events));

typedef struct sim {
    double now;
    sim_calendar cal;
    uint64_t cur_seq;
    uint64_t nevents;     /* events run since sim_init */
    uint64_t max_events;  /* 0 = no bound */
    uint64_t max_pending; /* 0 = no bound */
    int stop;
} sim;

void sim_init(sim *s, size_t cap_hint);
void sim_fini(sim *s);
/* Back to time 0 with an empty calendar; keeps memory and counters. */
void sim_reset(sim *s);

/* Schedule fn(s, obj) at absolute time t >= now / after delay >= 0.
 * Lower prio runs first among equal times.  Returns the event's sequence
 * number. */
static inline uint64_t sim_at(sim *s, double t, unsigned prio, sim_fn fn, void *obj)
{
    assert(t >= s->now && "event scheduled in the past");
    return sim_calendar_push(&s->cal, t, prio, fn, obj);
}
static inline uint64_t sim_after(sim *s, double delay, unsigned prio, sim_fn fn, void *obj)
{
    assert(delay >= 0 && "negative delay");
    return sim_calendar_push(&s->cal, s->now + delay, prio, fn, obj);
}

/* The first multiple of period (> 0) strictly after now: the next
 * firing of a periodic clock started at time 0 (a scheduler tick, a cron). */
double sim_next_multiple(const sim *s, double period);

/* Movable timers (see sim_calendar.h): a timer of s or -1 when none is
 * left; set it to fire fn(s, obj) at absolute time t >= now, replacing its
 * pending firing (returns the firing's sequence number); drop its pending
 * firing. */
static inline int sim_timer_new(sim *s) { return sim_calendar_timer_new(&s->cal); }
static inline uint64_t sim_timer_set(sim *s, int id, double t, unsigned prio, sim_fn fn, void *obj)
{
    assert(t >= s->now && "timer set in the past");
    return sim_calendar_timer_set(&s->cal, id, t, prio, fn, obj);
}
static inline void sim_timer_clear(sim *s, int id) { sim_calendar_timer_clear(&s->cal, id); }

/* Run events with time <= t_end (use INFINITY for no bound). */
int sim_run(sim *s, double t_end);
/* Ask sim_run to return after the current event. */
void sim_stop(sim *s);

#endif
