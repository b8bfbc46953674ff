/* val_live_srv: the live driver against real servers (`tfsim live`): the
 * engine of val_live on this thread, its round trips sent to a real
 * PostgreSQL (libpq, non-blocking) and a real Redis (hiredis), all driven
 * by one poll(2) loop.
 *
 * What it sends (the statements of docs/DESIGN.md section 2, as the probes of
 * val_probe_pg / val_probe_redis send them): PostgreSQL holds read the
 * capacity row (FOR UPDATE when postgres.row_locks), sum the posted and the
 * unexpired pending holds of the resource and insert a pending hold
 * (RETURNING its id); commit_order posts the order's holds; add_order
 * inserts the order; PostgreSQL payment sessions are rows of
 * payment_sessions (fulfill: an idempotency row, then the fulfilled flag).
 * Redis payment sessions: the probe's commands (pipelined MULTI/HSET/
 * EXPIRE/ZADD/EXEC, HGETALL, two SET NX EX, MULTI/ZREM/DEL/EXEC).
 * Connections: val_live_pool_size(p) PostgreSQL connections opened at the
 * start (the pool hands one to each transaction; opening them is not
 * timed, as the simulator has no cost for it) and one Redis connection per
 * request in flight (at most 512, TigerFans' Redis pool; calls beyond wait
 * for a free one).
 *
 * Invariants: PostgreSQL work happens only in the schema tfsim_live, which
 * is dropped and created at the start (resources with the config's
 * inventory, holds preloaded with postgres.holds_rows posted rows, orders,
 * payment_sessions, fulfilled) and dropped at the end unless keep is set;
 * Redis keys start with the prefix (default "tfsim:live:<pid>:") in the
 * chosen database and are deleted at the end, also after a failure when
 * the server still answers.  Every connection and reply is bounded by the
 * timeout.  Passwords are never printed.  The caller must ignore SIGPIPE.
 * Run one live driver per database at a time.
 * Cost: one poll() per loop turn; memory O(concurrency + total).
 */
#ifndef VAL_LIVE_SRV_H
#define VAL_LIVE_SRV_H

#include "models/tf_params.h"
#include "sim/sim_err.h"
#include "validate/val_live.h"
#include "validate/val_probe_pg.h"
#include "validate/val_probe_redis.h"

typedef struct val_live_srv {
    val_pg_conn pg;         /* conninfo/host/...; pre_ping and preload_holds are
                               ignored (the config's postgres.pre_ping and
                               holds_rows apply); keep: leave the schema */
    val_redis_conn redis;   /* prefix NULL: "tfsim:live:<pid>:"; used only
                               with Redis payment sessions */
    double timeout;         /* seconds for a connection and for each reply */
} val_live_srv;

/* Defaults: redis db VAL_REDIS_DEFAULT_DB, timeout 5 s. */
void val_live_srv_init(val_live_srv *s);

/* Whether the Redis server of c (borrowed) runs on this machine: a unix
 * socket, no host (127.0.0.1), localhost, 127.x.y.z or ::1.  Only then is
 * its CPU (INFO cpu) part of this host's, and the live run reports it. */
int val_live_srv_redis_local(const val_redis_conn *c);

/* Run the phases of p (checked with val_live_check) against the servers
 * of s.  out (caller storage) is filled with what was measured, also on
 * failure, including the CPU used by the loop, the PostgreSQL backends of
 * the run, the Redis server and the whole host (NaN when it cannot be
 * read, e.g. a server on another host).  Returns SIM_OK; SIM_EINPUT for a
 * config the live driver cannot run or a conninfo that does not parse;
 * SIM_EFAIL when a server cannot be reached, refuses the login, replies
 * with an error, closes the connection or does not answer in time: the
 * message names the server and what failed. */
int val_live_run(const tf_params *p, const val_live_opts *o, const val_live_srv *s,
                 val_live_out *out, sim_err *err);

#endif
