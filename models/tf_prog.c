/* tf_prog: the endpoint step tables of TigerFans, compiled per scenario. */
#include "models/tf_prog.h"
#include "models/tf_sim.h"

#include <assert.h>
#include <string.h>


static void emit(tf_prog *g, int code, int arg, double cpu)
{
    assert(g->n < TF_PROG_MAX);
    assert(code != TF_U_CPU || (arg >= 0 && arg < TF_NPATHS));
    g->u[g->n++] = (tf_uop){code, arg, cpu};
}

/* A round trip to a backend (PostgreSQL, Redis, TigerBeetle), then the
 * loop turns its reply takes to reach the coroutine (server.io_turns). */
static void emit_io(tf_prog *g, const tf_params *p, int code, int arg)
{
    emit(g, code, arg, 0);
    if (p->io_turns > 0)
        emit(g, TF_U_TURNS, (int)p->io_turns, 0);
}

/* A PostgreSQL session behind the DB gate: pool checkout with pre-ping,
 * then the statements, inside BEGIN ... COMMIT when txn is set (a read
 * runs without a transaction block). */
static void emit_pg(tf_prog *g, const tf_params *p, const int *q, int nq, int txn)
{
    emit(g, TF_U_CPU, TF_PATH_PG, p->pg_loop_cpu_txn / 2);
    emit(g, TF_U_GATE_ACQ, 0, 0);
    emit(g, TF_U_POOL_ACQ, 0, 0);
    if (p->pre_ping) {
        emit(g, TF_U_CPU, TF_PATH_PG, p->pg_loop_cpu_query);
        emit_io(g, p, TF_U_PG, TF_Q_PING);
    }
    if (txn) {
        emit(g, TF_U_CPU, TF_PATH_PG, p->pg_loop_cpu_query);
        emit_io(g, p, TF_U_PG, TF_Q_BEGIN);
    }
    for (int i = 0; i < nq; i++) {
        emit(g, TF_U_CPU, TF_PATH_PG, p->pg_loop_cpu_query);
        emit_io(g, p, TF_U_PG, q[i]);
    }
    if (txn) {
        emit(g, TF_U_CPU, TF_PATH_PG, p->pg_loop_cpu_query);
        emit_io(g, p, TF_U_PG, TF_Q_COMMIT);
    }
    emit(g, TF_U_POOL_REL, 0, 0);
    emit(g, TF_U_GATE_REL, 0, 0);
    emit(g, TF_U_CPU, TF_PATH_PG, p->pg_loop_cpu_txn / 2);
}

/* Redis round trips through redis-py's asyncio client: each command (or
 * pipeline) takes a connection from the pool, which checks it with a read
 * under timeout(0): redis.pool_turns loop turns, under the pool's lock with
 * redis.pool_lock (redis-py 5.3.0 and later), then the round trip, which
 * Python 3.11's asyncio.wait_for wraps in a task (redis.send_turns). */
static void emit_redis(tf_prog *g, const tf_params *p, const int *ops, int rts)
{
    const int lock = p->redis_pool_lock && p->redis_pool_turns > 0;
    for (int i = 0; i < rts; i++) {
        if (lock)
            emit(g, TF_U_RLOCK_ACQ, 0, 0);
        if (p->redis_pool_turns > 0)
            emit(g, TF_U_TURNS, (int)p->redis_pool_turns, 0);
        if (lock)
            emit(g, TF_U_RLOCK_REL, 0, 0);
        /* asyncio.wait_for's task around the write (redis.send_turns) */
        if (p->redis_send_turns > 0)
            emit(g, TF_U_TURNS, (int)p->redis_send_turns, 0);
        /* the check's end (its timeout error unwound), packing, sending:
         * after the turns, so that the writes of coroutines whose turns end
         * together leave one by one, each after its own CPU (a write is a
         * task step of its own; a turn of no CPU would send them at one
         * instant, into one Redis cycle) */
        emit(g, TF_U_CPU, TF_PATH_REDIS, p->redis_loop_cpu);
        emit_io(g, p, TF_U_REDIS, ops[i]);
    }
}

static void emit_hold(tf_prog *g, const tf_params *p)
{
    emit(g, TF_U_KB, TF_K_HOLD, 0);
    if (p->accounting == TF_TB) {
        emit(g, TF_U_CPU, TF_PATH_TB, p->tb_loop_cpu);
        emit_io(g, p, TF_U_TB, 2);
    } else {
        static const int q[] = {TF_Q_LOCK_TICKET, TF_Q_SUM, TF_Q_SUM, TF_Q_INSERT_TICKET,
                                TF_Q_LOCK_GOODIE, TF_Q_SUM, TF_Q_SUM, TF_Q_INSERT_GOODIE};
        emit_pg(g, p, q, 8, 1);
    }
    emit(g, TF_U_KE, TF_K_HOLD, 0);
}

static void emit_commit_order(tf_prog *g, const tf_params *p, int holds)
{
    emit(g, TF_U_KB, TF_K_COMMIT_ORDER, 0);
    if (p->accounting == TF_TB) {
        emit(g, TF_U_CPU, TF_PATH_TB, p->tb_loop_cpu);
        emit_io(g, p, TF_U_TB, holds);
    } else {
        /* one UPDATE posts the order's pending holds (one or both): the
         * measured commit_order time is the same for the webhook (ticket
         * only with PostgreSQL sessions) and the commit endpoint (both) */
        static const int q[] = {TF_Q_UPDATE};
        emit_pg(g, p, q, 1, 1);
    }
    emit(g, TF_U_KE, TF_K_COMMIT_ORDER, 0);
}

/* Payment-session operation: Redis round trips or a small PG transaction. */
static void emit_session(tf_prog *g, const tf_params *p, int kind, int redis_rts, int pg_stmts)
{
    emit(g, TF_U_KB, kind, 0);
    if (p->payments == TF_REDIS) {
        static const int save[] = {TF_R_SAVE}, get[] = {TF_R_GET}, rem[] = {TF_R_REMOVE},
                         ful[] = {TF_R_FULFILL1, TF_R_FULFILL2};
        const int *ops = kind == TF_K_SAVE ? save : kind == TF_K_GET ? get
                         : kind == TF_K_FULFILL ? ful : rem;
        emit_redis(g, p, ops, redis_rts);
    } else {
        /* save: the session row and its pending-set entry (Redis: HSET and
         * ZADD in one MULTI); get: one SELECT; fulfill: two statements (the
         * two SET NX); remove_pending: one */
        int qs[3] = {kind == TF_K_GET ? TF_Q_SELECT : TF_Q_INSERT,
                     kind == TF_K_SAVE ? TF_Q_INSERT : TF_Q_UPDATE, TF_Q_UPDATE};
        emit_pg(g, p, qs, pg_stmts, kind != TF_K_GET);
    }
    emit(g, TF_U_KE, kind, 0);
}


void tf_prog_build(tf_prog *g, const tf_params *p)
{
    double pre = p->cpu_request * p->cpu_split, post = p->cpu_request - pre;
    memset(g, 0, sizeof(tf_prog) * TF_EP_N);
    if (p->accounting == TF_STUB) {
        /* the stand-in server of `tfsim probe http`: one await per request */
        for (int ep = 0; ep < TF_EP_N; ep++) {
            double extra = ep == TF_EP_CHECKOUT ? p->cpu_checkout
                           : ep == TF_EP_WEBHOOK || ep == TF_EP_WEBHOOK_FAIL ? p->cpu_webhook : 0;
            emit(&g[ep], TF_U_CPU, TF_PATH_APP, pre + extra + p->stub_cpu);
            emit(&g[ep], TF_U_SLEEP, 0, 0);
            emit(&g[ep], TF_U_CPU, TF_PATH_APP, post);
            emit(&g[ep], TF_U_END, 0, 0);
        }
        return;
    }
    /* checkout: validate; hold; save session; respond */
    emit(&g[TF_EP_CHECKOUT], TF_U_CPU, TF_PATH_APP, pre + p->cpu_checkout);
    emit_hold(&g[TF_EP_CHECKOUT], p);
    int jump = g[TF_EP_CHECKOUT].n;
    emit(&g[TF_EP_CHECKOUT], TF_U_JSOLD, 0, 0);
    emit_session(&g[TF_EP_CHECKOUT], p, TF_K_SAVE, 1, 2);
    g[TF_EP_CHECKOUT].u[jump].arg = g[TF_EP_CHECKOUT].n;
    emit(&g[TF_EP_CHECKOUT], TF_U_CPU, TF_PATH_APP, post);
    emit(&g[TF_EP_CHECKOUT], TF_U_END, 0, 0);
    /* webhook: verify; get; fulfill; commit order; add order; remove pending */
    for (int ok = 1; ok >= 0; ok--) {
        tf_prog *w = &g[ok ? TF_EP_WEBHOOK : TF_EP_WEBHOOK_FAIL];
        emit(w, TF_U_CPU, TF_PATH_APP, pre + p->cpu_webhook);
        emit_session(w, p, TF_K_GET, 1, 1);
        if (ok) {
            emit_session(w, p, TF_K_FULFILL, 2, 2);
            /* With PostgreSQL sessions the stored try_goodie flag comes back
             * as a boolean and the webhook commits only the ticket hold. */
            emit_commit_order(w, p, p->payments == TF_PG ? 1 : 2);
            emit(w, TF_U_KB, TF_K_ADD_ORDER, 0);
            static const int q[] = {TF_Q_ORDER};
            emit_pg(w, p, q, 1, 1);
            emit(w, TF_U_KE, TF_K_ADD_ORDER, 0);
        }
        emit_session(w, p, TF_K_REMOVE, 1, 1);
        emit(w, TF_U_CPU, TF_PATH_APP, post);
        emit(w, TF_U_END, 0, 0);
    }
    emit(&g[TF_EP_RESERVE], TF_U_CPU, TF_PATH_APP, pre);
    emit_hold(&g[TF_EP_RESERVE], p);
    emit(&g[TF_EP_RESERVE], TF_U_CPU, TF_PATH_APP, post);
    emit(&g[TF_EP_RESERVE], TF_U_END, 0, 0);
    emit(&g[TF_EP_COMMIT], TF_U_CPU, TF_PATH_APP, pre);
    emit_commit_order(&g[TF_EP_COMMIT], p, 2);
    emit(&g[TF_EP_COMMIT], TF_U_CPU, TF_PATH_APP, post);
    emit(&g[TF_EP_COMMIT], TF_U_END, 0, 0);
}

