/* tf_pool: the load generator's HTTP connection pool, as httpcore 1.x
 * (httpx's transport; TigerFans' requirements pin httpx 0.28.1 and
 * httpcore 1.0.9) assigns requests to connections.
 *
 * Role: the state machine the simulator's client needs to price httpcore's
 * pool passes and to know when a request may send.  Connections are kept
 * in creation order (httpcore's list).  A connection is NEW (created for a
 * request, not yet connected), IDLE, ACTIVE or CLOSED.  A pass (httpcore's
 * _assign_requests_to_connections, at every request start, response close
 * and retry) first closes the IDLE connections whose keep-alive expired
 * (httpx's keepalive_expiry, 5 s unless set: the load generator does not
 * set it; uvicorn's timeout_keep_alive is 5 s too), then hands each queued
 * request, in pool order, the first IDLE connection in creation order,
 * else a new one while fewer than `max` are open.  An assigned connection
 * stays IDLE until its request claims it (its state check, under the
 * connection's lock, a few loop turns later), so a later pass may hand the
 * same IDLE connection to another request; requests assigned to one
 * connection check it one after the other (tf_pool_lock), and the ones
 * that find it ACTIVE (ConnectionNotAvailable) go back to the queue in
 * their old place and make another pass.  Measured with `tfsim probe http`
 * (instrumented httpcore 1.0.9): 2-5 retries per request, a pool of about
 * half the concurrency (the rarely used connections at its end expire).
 *
 * Invariants: 0 <= idle <= n <= max (open connections); a request is in
 * one of {out, queued, assigned, active, retry (0.16 only)}; queued requests are ordered by
 * pool order (seq); a NEW connection is assigned to exactly one request;
 * the idle list is ordered by release time (so by expiry).
 * Cost: a pass is O(queued + created/64 + expired) (the first IDLE
 * connection is found in a bitmap over creation order; in 0.16's order,
 * tf_pool_set_mru, O(queued x open connections) at worst: a scan of the
 * order from the front, which finds an IDLE one within a few); claim, lock,
 * unlock and release O(1); a retry re-enters the queue in O(queued).
 * Memory O(connections created in a phase + queued): arrays double when
 * needed, which a phase does a few times at most.
 * Ownership: the pool borrows the tf_pool_req structures (they live in the
 * caller's requests) and owns its arrays.
 */
#ifndef TF_POOL_H
#define TF_POOL_H

#include <stdint.h>

enum tf_conn_state { TF_CONN_NONE = 0, TF_CONN_NEW, TF_CONN_IDLE, TF_CONN_ACTIVE, TF_CONN_CLOSED };
/* RETRY (0.16's order only): its claim failed; it keeps its place in line
 * but joins the queue only at its retry's pass (httpcore 0.16 unsets its
 * connection under the pool lock), so a response's pass skips it. */
enum tf_pool_req_state { TF_PREQ_OUT = 0, TF_PREQ_QUEUED, TF_PREQ_ASSIGNED, TF_PREQ_ACTIVE,
                         TF_PREQ_RETRY };

/* A request's place in the pool (embedded in the caller's request). */
typedef struct tf_pool_req {
    int state;          /* enum tf_pool_req_state */
    long conn;          /* assigned or active connection (creation index), -1: none */
    uint64_t seq;       /* pool order (arrival) */
    uint32_t retries;   /* ConnectionNotAvailable retries of this request */
    struct tf_pool_req *next;  /* in its connection's lock queue */
} tf_pool_req;

/* Per connection (by creation index). */
typedef struct tf_pool_conn {
    unsigned char st;        /* enum tf_conn_state */
    unsigned char locked;    /* its lock is held */
    long iprev, inext;       /* idle list links (-1: none) */
    double expire;           /* IDLE: when its keep-alive expires */
    tf_pool_req *lhead, *ltail;  /* its lock's waiters, FIFO */
} tf_pool_conn;

typedef struct tf_pool {
    long max;              /* open-connection limit */
    double expiry;         /* keep-alive expiry of an idle connection, seconds */
    long n, idle;          /* open connections, IDLE ones */
    long created, cap;     /* connections created this phase; room in c / idlebits */
    tf_pool_conn *c;       /* [cap] */
    uint64_t *idlebits;    /* bit k: connection k is IDLE */
    long idle_head, idle_tail;  /* IDLE connections by release time */
    tf_pool_req **q;       /* [max_queue] queued requests by seq */
    long nq, max_queue;
    tf_pool_req **woken;   /* [max_queue] requests the last pass assigned besides its caller */
    long nwoken;
    uint64_t seq;
    int mru;               /* 1: httpcore 0.16's order (tf_pool_set_mru) */
    long *order;           /* mru: the open connections, most recently assigned first [cap] */
    long live;             /* requests in the pool: entered, not yet released */
    /* counters since tf_pool_reset, for the model's outputs and tests */
    uint64_t passes, retries, expired;
    double sum_n, sum_idle, sum_q;  /* open and idle connections, queued requests, at passes */
} tf_pool;

/* Initialise for at most max open connections, with room for max_queue
 * queued requests; idle connections expire after `expiry` seconds (<= 0:
 * never).  Allocates; free with tf_pool_fini. */
void tf_pool_init(tf_pool *p, long max, long max_queue, double expiry);
void tf_pool_fini(tf_pool *p);

/* httpcore 0.16 (Debian 12's python3-httpcore 0.16.3) keeps its
 * connections most recently assigned first (an assignment moves the
 * connection to the front, a new one goes in front) and hands a request
 * the first IDLE one in that order; 1.x keeps creation order.  mru = 1
 * selects 0.16's order; call before the first pass. */
void tf_pool_set_mru(tf_pool *p, int mru);

/* A new client: no connection, no request (counters cleared). */
void tf_pool_reset(tf_pool *p);

/* A request enters the pool (httpcore appends it to its requests). */
void tf_pool_enter(tf_pool *p, tf_pool_req *r);

/* One pass at time now (see above).  The requests it assigns go to
 * p->woken (cleared first), except `caller` (may be NULL), whose own state
 * tells the outcome. */
void tf_pool_pass(tf_pool *p, const tf_pool_req *caller, double now);

/* httpcore 0.16's _attempt_to_acquire_connection for one request, at a
 * request's start (after _close_expired_connections: the expiry is done
 * here) and at its retry: r gets a connection only when no request queued
 * before it waits ("we handle requests strictly in order"); nobody else is
 * assigned.  Returns 1 when r is ASSIGNED.  Counts as a pass. */
int tf_pool_pass_one(tf_pool *p, tf_pool_req *r, double now);

/* The connection lock a request takes before its state check (httpcore's
 * per-connection anyio locks).  Returns 1: taken; 0: the request waits (it
 * gets the lock from tf_pool_unlock). */
int tf_pool_lock(tf_pool *p, tf_pool_req *r);

/* Release connection k's lock; returns the next waiter, which now holds
 * it, or NULL. */
tf_pool_req *tf_pool_unlock(tf_pool *p, long k);

/* The request's state check on its assigned connection (holding its
 * lock).  Returns 2: the connection is NEW (it must connect first; it is
 * ACTIVE now), 1: IDLE, now ACTIVE (send), 0: another request claimed it
 * first or it expired; the request is queued again in its old place (the
 * caller then makes a pass; in 0.16's order it is RETRY until its
 * tf_pool_pass_one). */
int tf_pool_claim(tf_pool *p, tf_pool_req *r);

/* The response was read at time now: its connection is IDLE again (its
 * keep-alive runs from now) and the request leaves the pool. */
void tf_pool_release(tf_pool *p, tf_pool_req *r, double now);

#endif
