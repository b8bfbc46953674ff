#include "sim/sim.h"

#include <assert.h>
#include <math.h>
#include <stdatomic.h>

static void (*_Atomic progress_hook)(uint64_t);
static _Atomic uint64_t progress_total;

void sim_set_progress_hook(void (*hook)(uint64_t total_events)) { progress_hook = hook; }

void sim_init(sim *s, size_t cap_hint)
{
    s->now = 0;
    sim_calendar_init(&s->cal, cap_hint);
    s->cur_seq = UINT64_MAX;
    s->nevents = 0;
    s->max_events = 0;
    s->max_pending = 0;
    s->stop = 0;
}

void sim_fini(sim *s) { sim_calendar_fini(&s->cal); }

void sim_reset(sim *s)
{
    sim_calendar_clear(&s->cal);
    s->now = 0;
    s->stop = 0;
    s->cur_seq = UINT64_MAX;
}

void sim_stop(sim *s) { s->stop = 1; }

/* The checks of sim_run in their order of precedence, when max_events
 * has been reached: an empty calendar or a next event beyond t_end is
 * reported before the event bound. */
static int at_max_events(sim *s, double t_end)
{
    if (sim_calendar_size(&s->cal) == 0)
        return SIM_RUN_EMPTY;
    if (sim_calendar_peek_time(&s->cal) > t_end) {
        if (t_end > s->now)
            s->now = t_end;
        return SIM_RUN_TIME;
    }
    return SIM_RUN_EVENTS;
}

int sim_run(sim *s, double t_end)
{
    sim_event e;
    s->stop = 0;
    for (;;) {
        if (s->max_events && s->nevents >= s->max_events)
            return at_max_events(s, t_end);
        int got = sim_calendar_pop_until(&s->cal, t_end, &e);
        if (got != SIM_CAL_EVENT) {
            if (got == SIM_CAL_EMPTY)
                return SIM_RUN_EMPTY;
            if (t_end > s->now) /* a t_end in the past must not turn the clock back */
                s->now = t_end;
            return SIM_RUN_TIME;
        }
        s->now = e.t;
        s->cur_seq = e.key & SIM_SEQ_MASK;
        s->nevents++;
        e.fn(s, e.obj);
        if ((s->nevents & ((1u << 20) - 1)) == 0) {
            void (*hook)(uint64_t) = progress_hook;
            if (hook)
                hook(atomic_fetch_add(&progress_total, 1u << 20) + (1u << 20));
        }
        /* the calendar's size without its inline helper: at most n (a
         * hole left by a push-less event counts one less) plus the armed
         * timers; the exact test only near the bound */
        if (s->max_pending && s->cal.n + SIM_CAL_TIMERS > s->max_pending &&
            sim_calendar_size(&s->cal) > s->max_pending)
            return SIM_RUN_MEMORY;
        if (s->stop)
            return SIM_RUN_STOPPED;
    }
}

double sim_next_multiple(const sim *s, double period)
{
    assert(period > 0);
    double k = floor(s->now / period) + 1;
    double t = k * period;
    return t <= s->now ? (k + 1) * period : t;
}
