#include "sim/sim_station.h"

#include <assert.h>
#include <stdlib.h>

void sim_station_init(sim_station *st, int c)
{
    assert(c >= 1);
    st->c = c;
    st->busy = 0;
    st->slots = calloc((size_t)c, sizeof *st->slots);
    st->free_slots = malloc((size_t)c * sizeof *st->free_slots);
    assert(st->slots && st->free_slots && "out of memory");
    for (int i = 0; i < c; i++) {
        st->slots[i].st = st;
        st->free_slots[i] = c - 1 - i;
    }
    sim_queue_init(&st->wait, 64);
    st->cpu = NULL;
    sim_welford_init(&st->resp);
    sim_welford_init(&st->waitw);
    sim_hist_init(&st->resp_h);
    st->t_stats = 0;
    st->completions = 0;
    sim_tavg_init(&st->nwait, 0, 0);
    sim_tavg_init(&st->nbusy, 0, 0);
}

void sim_station_fini(sim_station *st)
{
    free(st->slots);
    free(st->free_slots);
    sim_queue_fini(&st->wait);
    sim_hist_fini(&st->resp_h);
}

void sim_station_reset_stats(sim_station *st, double now)
{
    st->t_stats = now;
    st->completions = 0;
    sim_welford_init(&st->resp);
    sim_welford_init(&st->waitw);
    sim_hist_clear(&st->resp_h);
    sim_tavg_restart(&st->nwait, now);
    sim_tavg_restart(&st->nbusy, now);
}

static void complete(sim *s, void *p);

/* Start *j on a free server (j may point into the waiting queue: it is
 * copied first). */
static inline void start(sim_station *st, sim *s, const sim_job *j)
{
    int i = st->free_slots[st->c - 1 - st->busy];
    sim_station_slot *slot = &st->slots[i];
    slot->job = *j;
    st->busy++;
    sim_tavg_set(&st->nbusy, s->now, st->busy);
    sim_welford_add(&st->waitw, s->now - slot->job.t);
    if (st->cpu)
        sim_ps_submit(st->cpu, s, slot, slot->job.x, complete);
    else
        sim_after(s, slot->job.x, 0, complete, slot);
}

void sim_station_run_on(sim_station *st, sim_ps *cpu)
{
    assert(st->busy == 0 && sim_queue_len(&st->wait) == 0);
    st->cpu = cpu;
}

static void complete(sim *s, void *p)
{
    sim_station_slot *slot = p;
    sim_station *st = slot->st;
    void *obj = slot->job.obj;
    sim_fn fn = slot->job.fn;
    double r = s->now - slot->job.t;
    st->busy--;
    st->free_slots[st->c - 1 - st->busy] = (int)(slot - st->slots);
    sim_tavg_set(&st->nbusy, s->now, st->busy);
    st->completions++;
    sim_welford_add(&st->resp, r);
    sim_hist_add(&st->resp_h, r);
    if (sim_queue_len(&st->wait)) {
        start(st, s, sim_queue_front(&st->wait));
        sim_queue_drop(&st->wait);
        sim_tavg_set(&st->nwait, s->now, (double)sim_queue_len(&st->wait));
    }
    if (fn)
        fn(s, obj);
}

void sim_station_arrive(sim_station *st, sim *s, void *obj, double service, sim_fn done)
{
    assert(service >= 0);
    sim_job j = {obj, done, s->now, service};
    if (st->busy < st->c) {
        start(st, s, &j);
    } else {
        sim_queue_push(&st->wait, j);
        sim_tavg_set(&st->nwait, s->now, (double)sim_queue_len(&st->wait));
    }
}
