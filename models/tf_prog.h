/* tf_prog: the TigerFans endpoints as programs of micro-steps.
 *
 * Role: one place that says what a request of each endpoint does on each
 * architecture (docs/DESIGN.md section 2): CPU on the event loop, kind marks
 * (where TigerFans starts and stops its per-operation timers), the DB gate
 * and pool, PostgreSQL round trips (statement kinds), Redis round trips,
 * TigerBeetle batch submissions, and the response.  The simulator
 * (tf_sim) interprets these programs against simulated resources; the live
 * driver interprets the same programs against real servers, so the two
 * cannot drift apart.
 *
 * Invariants: every program ends with TF_U_END; every TF_U_CPU names its
 * code path (enum tf_path); kind marks come in begin/end pairs; gate,
 * pool and Redis pool lock acquires are released in the same program; at
 * most TF_PROG_MAX steps.  Building is O(steps), no allocation.
 */
#ifndef TF_PROG_H
#define TF_PROG_H

#include "models/tf_params.h"

enum tf_uop_code {
    TF_U_CPU,      /* CPU on the event loop, cpu seconds (no yield); arg: enum tf_path */
    TF_U_KB,       /* kind arg begins */
    TF_U_KE,       /* kind arg ends */
    TF_U_GATE_ACQ, /* DB gate semaphore */
    TF_U_GATE_REL,
    TF_U_POOL_ACQ, /* connection from the SQLAlchemy pool */
    TF_U_POOL_REL,
    TF_U_PG,       /* one round trip to PostgreSQL; arg: enum tf_pg_query */
    TF_U_REDIS,    /* one round trip to Redis; arg: enum tf_redis_op */
    TF_U_TB,       /* submit arg transfers to the batcher and await the batch */
    TF_U_JSOLD,    /* if the hold found no ticket, jump to step arg (error response) */
    TF_U_SLEEP,    /* await architecture.stub_latency (the stub architecture's backend) */
    TF_U_TURNS,    /* the coroutine yields: back of the loop's ready queue, arg times */
    TF_U_RLOCK_ACQ, /* redis-py's pool lock (asyncio.Lock: a waiter resumes a turn after release) */
    TF_U_RLOCK_REL,
    TF_U_END       /* respond */
};

enum tf_pg_query {
    TF_Q_PING,          /* pool_pre_ping: SELECT 1 */
    TF_Q_BEGIN,
    TF_Q_SELECT,        /* one row by key */
    TF_Q_LOCK_TICKET,   /* the ticket class's capacity row, FOR UPDATE when row_locks */
    TF_Q_LOCK_GOODIE,   /* the goodie's capacity row, FOR UPDATE when row_locks */
    TF_Q_SUM,           /* sum over holds of a resource and status */
    TF_Q_INSERT_TICKET, /* insert the ticket hold */
    TF_Q_INSERT_GOODIE, /* insert the goodie hold (skipped when none left) */
    TF_Q_UPDATE,        /* one row by key */
    TF_Q_INSERT,        /* payment session row */
    TF_Q_ORDER,         /* order row (fails on a duplicate goodie id when goodies are gone) */
    TF_Q_COMMIT
};

/* Whether a request's transaction has run sums (postgres.commit_wake: its
 * COMMIT waits longer) once it sends statement q, given `sums` before:
 * BEGIN starts a transaction without, a sum marks it.  The simulation and
 * the live driver both follow their statements with it. */
static inline int tf_q_txn_sums(int q, int sums)
{
    return q == TF_Q_BEGIN ? 0 : q == TF_Q_SUM ? 1 : sums;
}

/* Which code a TF_U_CPU step runs (server.cold: each path warms and cools
 * on its own). */
enum tf_path {
    TF_PATH_APP,   /* uvicorn, FastAPI and the endpoint's own code */
    TF_PATH_PG,    /* SQLAlchemy and asyncpg */
    TF_PATH_REDIS, /* redis-py */
    TF_PATH_TB,    /* the TigerBeetle client and its batcher */
    TF_NPATHS
};

/* Which Redis operation a TF_U_REDIS step is (for the live driver). */
enum tf_redis_op {
    TF_R_SAVE,     /* MULTI/HSET 11 fields/EXPIRE/ZADD/EXEC, pipelined */
    TF_R_GET,      /* HGETALL */
    TF_R_FULFILL1, /* SET NX EX (idempotency key) */
    TF_R_FULFILL2, /* SET NX EX (fulfilled marker) */
    TF_R_REMOVE    /* MULTI/ZREM/DEL/EXEC, pipelined */
};

typedef struct tf_uop {
    int code, arg;
    double cpu;
} tf_uop;

#define TF_PROG_MAX 192
typedef struct tf_prog {
    tf_uop u[TF_PROG_MAX];
    int n;
} tf_prog;

/* Endpoint programs; a webhook whose payment failed skips fulfil, commit
 * and the order. */
enum { TF_EP_CHECKOUT, TF_EP_WEBHOOK, TF_EP_WEBHOOK_FAIL, TF_EP_RESERVE, TF_EP_COMMIT, TF_EP_N };

/* Build the TF_EP_N programs for the architecture and costs in p into g
 * (caller-provided array of TF_EP_N). */
void tf_prog_build(tf_prog *g, const tf_params *p);

#endif
