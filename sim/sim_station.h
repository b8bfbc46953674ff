/* sim_station: a FIFO queue in front of c identical servers.
 *
 * Role: a job arrives with its service time already drawn (by the model,
 * from its own random stream); it waits in FIFO order for a free server,
 * holds it for its service time, then the station calls the job's done
 * callback inside the completion event and starts the next waiting job.
 *
 * On a CPU (sim_station_run_on): a service is then work on a shared
 * processor-sharing CPU, not a delay; the server holds its slot until the
 * CPU has given it that much (a process on the host's cores).
 *
 * Invariants: 0 <= busy <= c; a job waits only while busy == c.  One
 * calendar event per job (its completion); no allocation per job once the
 * waiting queue has reached its largest size.
 * Statistics (since the last sim_station_reset_stats): completions,
 * response and waiting times (mean/var and quantiles), time-averaged number
 * waiting and number of busy servers.  Cost O(log n) per job (calendar).
 */
#ifndef SIM_STATION_H
#define SIM_STATION_H

#include "sim/sim.h"
#include "sim/sim_ps.h"
#include "sim/sim_queue.h"
#include "sim/sim_stats.h"

struct sim_station;

typedef struct sim_station_slot {
    struct sim_station *st;
    sim_job job;
} sim_station_slot;

typedef struct sim_station {
    int c, busy;
    sim_station_slot *slots;  /* c slots, owned */
    int *free_slots;          /* stack of free slot indices, owned */
    sim_queue wait;
    sim_ps *cpu;              /* services run on it (borrowed), or NULL: delays */
    /* statistics */
    double t_stats;           /* start of the statistics window */
    uint64_t completions;
    sim_welford resp, waitw;
    sim_hist resp_h;
    sim_tavg nwait, nbusy;
} sim_station;

void sim_station_init(sim_station *st, int c);
void sim_station_fini(sim_station *st);
/* Run the services on cpu (borrowed, outlives the station; NULL: plain
 * delays, the default).  Set before the first arrival. */
void sim_station_run_on(sim_station *st, sim_ps *cpu);
/* A job arrives now; done(s, obj) is called when its service ends. */
void sim_station_arrive(sim_station *st, sim *s, void *obj, double service, sim_fn done);
/* Forget statistics gathered so far (end of warm-up). */
void sim_station_reset_stats(sim_station *st, double now);

static inline double sim_station_utilisation(const sim_station *st, double now)
{
    return sim_tavg_mean(&st->nbusy, now) / st->c;
}

#endif
