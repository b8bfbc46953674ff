/* sim_ps: a processor-sharing CPU with K cores.
 *
 * Role: n jobs present each progress at rate min(1, K/n) (egalitarian
 * processor sharing); a job submitted with `work` seconds of CPU finishes
 * when it has received that much.  Models put co-located processes (server
 * event loops, load generator, database backends) on one host this way.
 *
 * Method: virtual time V(t), the service each present job has received
 * since the CPU was created, grows at rate min(1, K/n); a job's finish
 * point is V at submission + work; a min-heap of finish points (ties by
 * submission order) gives the next completion.  One completion is armed
 * on a calendar timer (sim_timer_set) for the earliest finish point.  When
 * the job set changes and that completion moves later (an arrival slows
 * everyone down), the armed firing is kept: when it fires early it re-arms
 * itself.  When it moves earlier, the timer is set again, which replaces
 * the pending firing.  So an arrival costs no calendar work and nothing
 * goes stale.  Without a free timer (SIM_CAL_TIMERS per calendar) the CPU
 * pushes plain events instead, and an earlier one makes the older one
 * stale (its sequence number no longer matches); the schedule is the same.
 * A sim_ps serves one sim.
 * Spinning jobs (sim_ps_spin): threads that keep a core busy without ever
 * finishing (a thread polling for work).  They count among the jobs
 * present, so that n jobs and m spinners progress at min(1, K/(n + m))
 * each, and the cores they take show in the utilisation; they hold no
 * finish point.
 * Invariants: V never decreases while jobs are present, and restarts at 0
 * when the CPU goes idle (no finish points are held then), so that it
 * stays small and precise; jobs finish in order of finish point.
 * Cost: O(log n) per submit and completion; the job pool grows by doubling
 * and is reused, so steady state does not allocate.  The rate min(1, K/m)
 * comes from a table for m < SIM_PS_RATES (no division when the job set
 * changes); a completion that fires early computes its new due time once.
 * The heap orders jobs by one 128-bit key (finish bits, submission number:
 * sim_calendar's encoding); a completion of one job (the usual case) takes
 * the inline path, more than one at the same finish point a separate one.
 * Stacking (sim_ps_set_stacking): Linux wakes a thread on its previous
 * core or its waker's and does not always move it to an idle one (traced
 * on this project's 2-core VM); so m runnable threads can leave a core
 * idle while two share another.  With stacking s the m jobs (spinners included)
 * share cap(m) = min(m, K) - s (min(m, K) - K (1 - (1 - 1/K)^m)) cores, the
 * expected number of cores holding a thread when s = 1 (placed at random,
 * never moved); still one rate for all, so the method above holds.
 * Favoured jobs (sim_ps_submit_favoured, sim_ps_set_weight): threads the
 * scheduler favours (event loops) progress at weight x the others' rate,
 * at most one core each.  They sit in a second heap with a virtual time of
 * their own (V2, advancing at their rate); the next completion is the
 * earlier of the two heap tops.  Without favoured jobs present (or with
 * weight 1, when sim_ps_submit_favoured is sim_ps_submit) the schedule
 * and the arithmetic are the single-heap ones above, to the bit; with them
 * a completion takes one job per event (complete_mixed), O(log n) as
 * before.
 * Statistics: completions, the sum of their response times (resp_sum; no
 * running variance, which cost a division per completion), jobs present
 * and cores busy over time (cap(m) of them).
 */
#ifndef SIM_PS_H
#define SIM_PS_H

#include "sim/sim.h"
#include "sim/sim_stats.h"

#define SIM_PS_RATES 64

typedef struct sim_ps_job {
    /* ordered bits of finish (sim_calendar_time_bits) << 64 | submission
     * number: one unsigned comparison orders jobs by (finish, order) */
    sim_cal_key k;
    double finish;  /* virtual finish point */
    double t;       /* submission time */
    void *obj;
    sim_fn fn;
} sim_ps_job;

typedef struct sim_ps {
    double cores;
    double v, t_last;
    sim_ps_job *heap;  /* min-heap on k, i.e. (finish, order), owned */
    size_t n, cap;
    double rate;       /* each job's rate, min(1, K/(n + spin)) (0 without jobs); set when n or spin changes */
    double rates[SIM_PS_RATES]; /* cap(m)/m for m < SIM_PS_RATES (no division per change) */
    double stacking;   /* share of random placement's lost cores the CPU loses (0: work-conserving) */
    uint64_t order;
    long spin;         /* spinning jobs present (sim_ps_spin) */
    /* favoured jobs (sim_ps_submit_favoured): their own heap and virtual
     * time, each progressing at weight x the others' rate, at most 1 */
    double weight;     /* their weight (>= 1; sim_ps_set_weight) */
    sim_ps_job *heap2; /* min-heap on k of the favoured jobs, owned (NULL until the first) */
    size_t n2, cap2;
    double v2, rate2;  /* their virtual time and rate (0 without them) */
    uint64_t armed;    /* sequence number of the armed completion event */
    double armed_t;    /* its time */
    int is_armed;
    int timer;         /* the calendar timer it arms (-1: none yet, -2: none free) */
    /* statistics since the last reset */
    uint64_t completions;
    sim_tavg njobs, nbusy;  /* jobs present (spinners too); cores in use = min(n + spin, K) */
    double resp_sum;        /* response times of the completions, summed (mean: / completions) */
} sim_ps;

void sim_ps_init(sim_ps *p, double cores);
void sim_ps_fini(sim_ps *p);
/* Stacking (0..2, before the first submit, when nothing is present): with
 * m runnable jobs on K cores the CPU gives cap(m) = min(m, K) - stacking x
 * (min(m, K) - K (1 - (1 - 1/K)^m)) cores' worth, shared equally: 0 is
 * work-conserving processor sharing, 1 threads placed on cores at random
 * and never moved (the expected number of cores holding at least one of
 * them), 2 with K = 2 two threads always on one core. */
void sim_ps_set_stacking(sim_ps *p, double stacking);
/* Submit work (CPU seconds, >= 0); fn(s, obj) is called when it is done. */
void sim_ps_submit(sim_ps *p, sim *s, void *obj, double work, sim_fn fn);
/* Weight of favoured jobs (>= 1, before the first submit, when nothing is
 * present; 1, the default, makes them ordinary).  With nf favoured jobs
 * and no others (spinners included) on the CPU's cap(m) cores (m = nf +
 * no), the others each progress at r = cap(m) / (weight nf + no) and the
 * favoured at weight x r; when that exceeds 1 (a thread uses at most one
 * core) the favoured run at 1 and the others share what is left, (cap(m)
 * - nf) / no.  Linux's scheduler gives threads that sleep often and run
 * in short bursts (event loops) more of a shared core than CPU-bound ones
 * (EEVDF: a waking thread with lag preempts; a backend woken onto a busy
 * backend's core waits): traced, the loops ran at 0.6 of a core while
 * runnable and PostgreSQL's backends at 0.3 (docs/live-tigerfans.md). */
void sim_ps_set_weight(sim_ps *p, double weight);
/* Submit favoured work (a thread that sleeps in short bursts). */
void sim_ps_submit_favoured(sim_ps *p, sim *s, void *obj, double work, sim_fn fn);
/* Add (delta > 0) or remove (delta < 0) spinning jobs, now.  The others
 * slow down or speed up from now on; spin stays >= 0. */
void sim_ps_spin(sim_ps *p, sim *s, long delta);
void sim_ps_reset_stats(sim_ps *p, double now);
/* Jobs present, spinners included (a core is idle when this is below K). */
static inline double sim_ps_present(const sim_ps *p)
{
    return (double)(p->n + p->n2 + (size_t)p->spin);
}
static inline double sim_ps_utilisation(const sim_ps *p, double now)
{
    return sim_tavg_mean(&p->nbusy, now) / p->cores;
}

#endif
