/* sim_hogs: threads that keep a core busy, taking turns on a few cores in
 * scheduler time slices (round robin at the scheduler's tick).
 *
 * Role: a time-sharing scheduler's view of CPU-bound threads ("hogs", e.g.
 * threads that spin while they wait for work).  `cores` cores; a runnable
 * hog either runs on a core or waits in one FIFO run queue.  The
 * scheduler's tick comes at every multiple of `tick` seconds; at a tick,
 * while hogs wait, the running hog that has held its core longest, if it
 * has held it at least `slice`, gives the core to the head of the queue and
 * goes to the queue's tail (after every hog that was waiting at that tick).
 * A hog that becomes runnable takes an idle core at once, or else waits at
 * the tail; a hog that blocks gives its core to the head of the queue at
 * once.  (Linux preempts a CPU-bound task at the first tick after it has
 * used its slice; with a slice shorter than the tick, CPU-bound tasks run
 * one tick each, in turn.)
 *
 * Work: sim_hogs_run(id, w, fn) calls fn once hog id has run w seconds of
 * CPU on a core from the call on (w = 0: the first moment it is on a core,
 * now if it runs); a hog off its core makes no progress.  One work item per
 * hog at a time.  A hog on a core runs at full speed: jobs that only run
 * briefly between sleeps (and preempt a hog when they wake) are not part
 * of this scheduler; give them the CPU that the hogs leave with `ps`.
 *
 * Wake-up preemption (optional, sim_hogs_set_wake_slice): when another
 * thread on the host wakes up (sim_hogs_preempt), the running hog that
 * has held its core longest, if it has held it at least `wake_slice`,
 * gives the core to the head of the queue, as at a tick (Linux EEVDF: a
 * woken task preempts one whose slice is used, and the next pick is the
 * waiting task with the earliest deadline, not the preempted one).  With
 * many wake-ups, hogs take turns in slices of about wake_slice instead of
 * ticks; with none (a lone benchmark client waiting on them), at ticks.
 *
 * Processor sharing (optional `ps`): every hog on a core is also a
 * spinning job on that sim_ps (sim_ps_spin), so that the hogs take their
 * share of the cores from the processor-sharing jobs; a hog waiting for a
 * core uses none (on Linux a thread in the run queue runs nothing;
 * measured with perf sched: an event loop kept half of one of two cores
 * while four spinning threads shared about one).
 *
 * Invariants: at most `cores` hogs run; a hog waits only while every core
 * is taken; the queue is FIFO; tick events are scheduled only while hogs
 * wait.  Statistics since the last reset: time-average of runnable hogs
 * and of hogs waiting.  Cost: O(cores + hogs) per tick and per change; no
 * allocation after init.
 */
#ifndef SIM_HOGS_H
#define SIM_HOGS_H

#include "sim/sim.h"
#include "sim/sim_ps.h"
#include "sim/sim_stats.h"

enum sim_hog_state { SIM_HOG_BLOCKED = 0, SIM_HOG_RUNNING, SIM_HOG_WAITING };

typedef struct sim_hog {
    int state;          /* enum sim_hog_state */
    int core;           /* its core while running */
    double t_on;        /* when it got its core */
    /* pending work: fn(s, obj) after `left` seconds on a core */
    int has_work;
    double left, t_work;  /* remaining; when its progress was last counted */
    uint64_t seq;       /* sequence number of the completion event armed (0: none) */
    void *obj;
    sim_fn fn;
} sim_hog;

typedef struct sim_hogs {
    int cores, n;
    double tick, slice;
    double wake_slice;  /* least run before a wake-up preempts a hog; 0: never */
    sim_hog *t;         /* n hogs, owned */
    int *on;            /* cores entries: the hog running there or -1, owned */
    int *q;             /* run queue (ring of hog ids), owned */
    int qhead, qlen;
    int *defer;         /* scratch for a tick's preempted hogs (cores entries), owned */
    int tick_armed;
    uint64_t tick_seq;
    sim_ps *ps;         /* borrowed, or NULL */
    sim_tavg runnable, waiting;
} sim_hogs;

/* n hogs (ids 0..n-1, all blocked) on `cores` >= 1 cores; tick > 0,
 * slice >= 0 seconds; ps borrowed (outlives h) or NULL. */
void sim_hogs_init(sim_hogs *h, int cores, double tick, double slice, int n, sim_ps *ps);
void sim_hogs_fini(sim_hogs *h);
/* Wake-up preemption after `wake_slice` > 0 seconds on a core (0: off,
 * the default: hogs take turns at ticks only). */
void sim_hogs_set_wake_slice(sim_hogs *h, double wake_slice);
/* Another thread on the host wakes up: one waiting hog may take a core
 * (see above).  O(cores); nothing when no hog waits or wake_slice is 0. */
void sim_hogs_preempt(sim_hogs *h, sim *s);
/* Hog id becomes runnable (it was blocked). */
void sim_hogs_wake(sim_hogs *h, sim *s, int id);
/* Hog id becomes runnable (it was blocked) and takes a core at once: an
 * idle one, else the core of the running hog that has held its core
 * longest (not one placed at this instant), which queues at the tail;
 * only when every runner was placed now does it queue.  (EEVDF: a woken
 * task, placed with its lag, preempts a CPU-bound one.) */
void sim_hogs_wake_preempt(sim_hogs *h, sim *s, int id);
/* Hog id blocks (it was runnable and has no pending work). */
void sim_hogs_block(sim_hogs *h, sim *s, int id);
/* fn(s, obj) once runnable hog id has run `work` >= 0 seconds on a core
 * from now (0: as soon as it is on a core).  It must have no pending work. */
void sim_hogs_run(sim_hogs *h, sim *s, int id, double work, void *obj, sim_fn fn);
static inline int sim_hogs_state(const sim_hogs *h, int id) { return h->t[id].state; }
void sim_hogs_reset_stats(sim_hogs *h, double now);

#endif
