/* tf_redis: the Redis server of the TigerFans model: its main thread and,
 * with io-threads, its threaded I/O as Redis 7.0 does it (networking.c).
 *
 * Main thread, threads off (always with redis.io_threads = 1): one thread
 * takes commands in arrival order, each for its service time (on the
 * host's cores when Redis runs on the host, else a delay), and each reply
 * leaves when its command is done.  (Redis writes the replies of an
 * event-loop cycle at its end, in beforeSleep; the model sends each when
 * its command is done, as it always has: microseconds apart.)
 *
 * Waking up (Redis on the host), two rules, each measured:
 *  - host.wake_affine: a command sent to the sleeping main thread by a
 *    loop that had more to run (a burst running or ready) wakes it on
 *    that loop's core, where it runs once the loop has nothing left to
 *    run (it sleeps in poll; then half a round trip later, when the
 *    loop's last commands are in, also when the loop slept before the
 *    first of them arrived) or at the next scheduler tick
 *    (host.sched_tick: the loop is preempted), whichever comes first; the
 *    same with the I/O threads started.  (A write to a unix socket is a
 *    synchronous wake-up: Linux puts the woken thread on the waker's CPU
 *    when the waker is alone there, and on this VM it found no idle
 *    sibling to move it to; perf sched showed redis-benchmark and
 *    redis-server taking turns on one CPU: configs/redis/benchmark.ini
 *    sets it.)
 *    Only while the main thread sits on the sender's core: spells on
 *    and off it alternate, host.affine_period of the host's idle
 *    core-seconds long on average, a share host.redis_affine_share of
 *    them on it.  (Linux wakes Redis on the core it last ran on, and the
 *    sender on its own; the load balancer moves them together or apart
 *    when a core goes idle.  perf traces of the live driver, io-threads
 *    4, at 4-32: 95-100% of Redis's and nearly all the driver's wake-ups
 *    on their previous cores; spells of 7-340 ms of wall time, but on
 *    average 9.1 ms (at 4) and 10.3 ms (at 8-32) of idle CPU together,
 *    4.3 and 17.6 ms apart: while the I/O threads spin no core idles,
 *    and Redis stays where it is; nearly all cycles of 8 clients or more
 *    came while the two shared a core: scripts/redis_wakeups.py.)
 *  - otherwise, threads off, with probability redis.wake_wait, the
 *    wake-up waits for the next tick whatever its sender does.  (TigerFans' server, traced
 *    live with perf on this VM, wakes Redis onto the other CPU 35-75% of
 *    the time, and where it shares the CPU Redis runs within 4 us (p90);
 *    but 1.5-3.3% of the wake-ups wait over 1 ms: behind the server until
 *    its tick, preempted, or a late wake-up from an idle vCPU.  Those few
 *    matter: each cycle of 8 clients they gather starts the threads for
 *    8-50 ms.)
 * In both the commands that arrive meanwhile join the first cycle.  Else,
 * and off the host, a command wakes the main thread at once (a
 * processor-sharing share of the cores).
 *
 * Event-loop cycles: the commands that arrive while the main thread is
 * busy are the ones its next epoll_wait returns; one cycle handles them
 * all, and every client it answered has a reply pending at the cycle's end
 * (clients_pending_write).  A cycle that starts when the thread is idle has
 * the one command that woke it.
 *
 * Threaded I/O (redis.io_threads N > 1), from Redis 7.0's networking.c:
 *  - handleClientsWithPendingWritesUsingThreads / stopThreadedIOIfNeeded:
 *    at the end of a cycle with at least N x redis.io_pending_per_thread
 *    (2) clients pending, the N - 1 I/O threads are started (their mutexes
 *    unlocked); at the end of one with fewer they are stopped;
 *  - IOThreadMain: a started thread spins on its pending count, also when
 *    there is nothing to do (it blocks only once stopped);
 *  - while started, a cycle hands the clients out round robin (client i to
 *    list i mod N, list 0 the main thread's): the reads, when
 *    redis.io_threads_do_reads (postponeClientRead), at the start of the
 *    cycle (handleClientsWithPendingReadsUsingThreads), then the main
 *    thread runs the commands, then the writes at the end; after each hand
 *    out the main thread spins until every thread with a non-empty list has
 *    done it, and the replies of a list leave when its thread writes them;
 *  - serverCron (redis.hz times a second) stops the threads when the main
 *    thread is idle (no clients pending).
 * On the host the N - 1 threads, and the main thread while it is in a
 * cycle, are CPU hogs (sim_hogs): they take turns on the host's cores at
 * the scheduler's tick (host.sched_tick, host.sched_slice) and each takes
 * its processor-sharing share from the loops and backends (sim_ps_spin).
 * The main thread woken from epoll_wait joins them at the tail of the run
 * queue, or with redis.wake_preempt takes the core of the thread that has
 * held one longest at once (sim_hogs_wake_preempt).
 * A thread does its list's work (a read or write syscall per client,
 * microseconds, not charged) when it is on a core; the main thread sees it
 * done when it is itself on a core, and runs the commands (their service
 * times) only there.  Off the host Redis has a core per thread: no thread
 * waits for one.
 *
 * Invariants: commands are taken in arrival order; at most one command in
 * service while the threads are off; with cycles of one command the
 * schedule is exactly that of a one-server FIFO station (sim_station) on
 * the same CPU (same calendar order); with io_threads > 1 and fewer than
 * io_threads x io_pending_per_thread clients in every cycle, exactly that
 * of io_threads = 1.
 * Ownership: tf_redis owns its queues and hogs; the host CPU is borrowed.
 * Cost: O(1) per command plus O(N) per cycle; no allocation once the
 * largest cycle has been seen.
 */
#ifndef TF_REDIS_H
#define TF_REDIS_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "models/tf_params.h"
#include "sim/sim.h"
#include "sim/sim_hogs.h"
#include "sim/sim_ps.h"
#include "sim/sim_queue.h"
#include "sim/sim_stats.h"

struct tf_redis;

typedef struct tf_redis_io {   /* one I/O thread's handle for sim_hogs callbacks */
    struct tf_redis *r;
    int id;                    /* 1..N-1 */
} tf_redis_io;

typedef struct tf_redis {
    const tf_params *p;
    sim_ps *cpu;               /* the host's cores (borrowed), or NULL: Redis off the host */
    sim_queue wait;            /* commands not yet taken by the main thread */
    /* the current cycle's commands: batch = buf[cur_b] (the other buffer
     * holds the previous cycle's, whose replies may still be going out) */
    sim_job *buf[2];           /* owned */
    long cap[2];
    int cur_b;
    sim_job *batch;
    long nbatch, next;         /* commands in the cycle; next to run (threads off) */
    int busy;                  /* threads off: a command in service */
    /* threaded I/O */
    int n_io;                  /* redis.io_threads */
    int active;                /* I/O threads started */
    int in_cycle;              /* the main thread is in a threaded cycle */
    int pending;               /* I/O threads whose list is not done yet */
    int writing;               /* the hand out in progress is the writes */
    sim_hogs hogs;             /* 0: main thread, 1..N-1: I/O threads */
    tf_redis_io *io;           /* N handles, owned */
    const void *stacked;       /* the loop whose core the woken main thread waits for, or NULL */
    gsl_rng *rng;              /* draws redis.wake_wait and the placement (borrowed) */
    int on_sender;             /* placement: on the sender's core (host.redis_affine_share) */
    int place_drawn;           /* the first spell is drawn */
    double place_left;         /* idle core-seconds left in the current spell */
    double place_t;            /* when the placement's clock was last moved */
    double place_area;         /* the host's busy-core area then (cpu->nbusy) */
    uint64_t stack_seq;        /* its release event (tick, or the loop's sleep) */
    int releasing;             /* the loop sleeps: released half a round trip later */
    const void *slept;         /* the loop that last went to sleep (tf_redis_waker_idle) */
    double slept_t;            /* when */
    int cron_armed;
    uint64_t cron_seq;
    /* statistics */
    sim_tavg nbusy, nwait, threads_on;
    uint64_t cycles, threaded_cycles;
    uint64_t writes, threaded_writes;  /* replies; those written in threaded cycles
                                        * (INFO stats io_threaded_writes_processed) */
} tf_redis;

/* Set up from p (borrowed, outlives r): on cpu (borrowed; NULL: Redis has
 * cores of its own); rng (borrowed, outlives r) draws which wake-ups wait
 * (redis.wake_wait strictly between 0 and 1; else it may be NULL). */
void tf_redis_init(tf_redis *r, const tf_params *p, sim_ps *cpu, gsl_rng *rng);
void tf_redis_fini(tf_redis *r);
/* A command (round trip) reaches the server now; done(s, obj) is called
 * when its reply leaves the server. */
void tf_redis_arrive(tf_redis *r, sim *s, void *obj, double service, sim_fn done);
/* The same, sent by the event loop `waker` (borrowed identity, compared
 * only): sent_busy, the loop had more to run when it sent the command;
 * busy_now, it still has (see "Waking up" above). */
void tf_redis_arrive_from(tf_redis *r, sim *s, void *obj, double service, sim_fn done,
                          const void *waker, int sent_busy, int busy_now);
/* The loop `waker` has nothing left to run (it sleeps): a main thread
 * woken on its core runs now. */
void tf_redis_waker_idle(tf_redis *r, sim *s, const void *waker);
/* Does the main thread sit on its sender's core now (host.wake_affine,
 * host.redis_affine_share)?  Spells on and off it alternate, each
 * exponential with means 2 x host.affine_period x share and 2 x period x
 * (1 - share) of the host's idle core-seconds (of time when Redis has no
 * host), the first drawn at the first call from the share; advances them
 * to s->now (draws from r->rng; none for a share of 0 or 1).  0 without
 * wake_affine. */
int tf_redis_on_senders_core(tf_redis *r, sim *s);

/* Share of time the main thread was busy (in service or in a threaded
 * cycle), mean commands waiting, share of time the I/O threads were
 * started. */
double tf_redis_utilisation(const tf_redis *r, double now);
double tf_redis_queue(const tf_redis *r, double now);
double tf_redis_threads_on(const tf_redis *r, double now);
/* Share of the replies written in cycles the I/O threads served (as Redis
 * counts io_threaded_writes_processed against its replies); NAN before any. */
double tf_redis_threaded_writes(const tf_redis *r);
/* Another thread on the host (a loop, a backend) wakes up: while the I/O
 * threads spin, a waiting Redis thread may take a core from one that has
 * run host.sched_wake_slice (sim_hogs_preempt).  O(cores). */
void tf_redis_host_wake(tf_redis *r, sim *s);

#endif
