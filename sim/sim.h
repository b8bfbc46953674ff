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
 * Resource bounds: max_events and t_end stop the loop with a status, never
 * abort.  Cost per event: one heap pop, one indirect call; a progress
 * callback every 2^22 events when set.
 */
#ifndef SIM_H
#define SIM_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim_calendar.h"

enum sim_run_status {
    SIM_RUN_EMPTY = 0,   /* calendar ran dry */
    SIM_RUN_STOPPED = 1, /* sim_stop() was called */
    SIM_RUN_TIME = 2,    /* next event lies beyond t_end */
    SIM_RUN_EVENTS = 3   /* max_events reached */
};

typedef struct sim {
    double now;
    sim_calendar cal;
    uint64_t cur_seq;
    uint64_t nevents;     /* events run since sim_init */
    uint64_t max_events;  /* 0 = no bound */
    int stop;
    void (*progress)(const struct sim *s, void *ctx); /* optional */
    void *progress_ctx;
} sim;

void sim_init(sim *s, size_t cap_hint);
void sim_fini(sim *s);
/* Back to time 0 with an empty calendar; keeps memory and counters. */
void sim_reset(sim *s);

/* Schedule fn(s, obj) at absolute time t >= now / after delay >= 0.
 * Lower prio runs first among equal times.  Returns the event's sequence
 * number. */
uint64_t sim_at(sim *s, double t, unsigned prio, sim_fn fn, void *obj);
uint64_t sim_after(sim *s, double delay, unsigned prio, sim_fn fn, void *obj);

/* Run events with time <= t_end (use INFINITY for no bound). */
int sim_run(sim *s, double t_end);
/* Ask sim_run to return after the current event. */
void sim_stop(sim *s);

#endif
