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

uint64_t sim_at(sim *s, double t, unsigned prio, sim_fn fn, void *obj)
{
    assert(t >= s->now && "event scheduled in the past");
    return sim_calendar_push(&s->cal, t, prio, fn, obj);
}

uint64_t sim_after(sim *s, double delay, unsigned prio, sim_fn fn, void *obj)
{
    assert(delay >= 0 && "negative delay");
    return sim_calendar_push(&s->cal, s->now + delay, prio, fn, obj);
}

uint64_t sim_timer_set(sim *s, int id, double t, unsigned prio, sim_fn fn, void *obj)
{
    assert(t >= s->now && "timer set in the past");
    return sim_calendar_timer_set(&s->cal, id, t, prio, fn, obj);
}

void sim_stop(sim *s) { s->stop = 1; }

int sim_run(sim *s, double t_end)
{
    sim_event e;
    s->stop = 0;
    for (;;) {
        if (sim_calendar_size(&s->cal) == 0)
            return SIM_RUN_EMPTY;
        if (sim_calendar_peek_time(&s->cal) > t_end) {
            if (t_end > s->now) /* a t_end in the past must not turn the clock back */
                s->now = t_end;
            return SIM_RUN_TIME;
        }
        if (s->max_events && s->nevents >= s->max_events)
            return SIM_RUN_EVENTS;
        sim_calendar_pop(&s->cal, &e);
        s->now = e.t;
        s->cur_seq = e.key & SIM_SEQ_MASK;
        s->nevents++;
        e.fn(s, e.obj);
        if ((s->nevents & ((1u << 20) - 1)) == 0) {
            void (*hook)(uint64_t) = progress_hook;
            if (hook)
                hook(atomic_fetch_add(&progress_total, 1u << 20) + (1u << 20));
        }
        if (s->max_pending && sim_calendar_size(&s->cal) > s->max_pending)
            return SIM_RUN_MEMORY;
        if (s->stop)
            return SIM_RUN_STOPPED;
    }
}
