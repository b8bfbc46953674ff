#include "sim/sim_sem.h"

#include <assert.h>

void sim_sem_init(sim_sem *m, long permits)
{
    assert(permits >= 1);
    m->permits = permits;
    m->in_use = m->max_in_use = 0;
    sim_queue_init(&m->wait, 16);
    m->grants = m->delayed = 0;
    sim_welford_init(&m->waitw);
    sim_tavg_init(&m->busy, 0, 0);
    sim_tavg_init(&m->nwait, 0, 0);
}

void sim_sem_fini(sim_sem *m) { sim_queue_fini(&m->wait); }

void sim_sem_reset_stats(sim_sem *m, double now)
{
    m->grants = m->delayed = 0;
    m->max_in_use = m->in_use;
    sim_welford_init(&m->waitw);
    sim_tavg_restart(&m->busy, now);
    sim_tavg_restart(&m->nwait, now);
}

int sim_sem_acquire(sim_sem *m, sim *s, void *obj, sim_fn fn)
{
    if (m->in_use < m->permits) {
        m->in_use++;
        if (m->in_use > m->max_in_use)
            m->max_in_use = m->in_use;
        sim_tavg_set(&m->busy, s->now, (double)m->in_use);
        m->grants++;
        sim_welford_add(&m->waitw, 0);
        return 1;
    }
    sim_job j = {obj, fn, s->now, 0};
    sim_queue_push(&m->wait, j);
    sim_tavg_set(&m->nwait, s->now, (double)sim_queue_len(&m->wait));
    return 0;
}

void sim_sem_release(sim_sem *m, sim *s)
{
    assert(m->in_use > 0 && "release without acquire");
    sim_job j;
    if (sim_queue_pop(&m->wait, &j)) {
        sim_tavg_set(&m->nwait, s->now, (double)sim_queue_len(&m->wait));
        m->grants++;
        m->delayed++;
        sim_welford_add(&m->waitw, s->now - j.t);
        sim_after(s, 0, 0, j.fn, j.obj);
        return;
    }
    m->in_use--;
    sim_tavg_set(&m->busy, s->now, (double)m->in_use);
}
