/* val_probe_redis: `tfsim probe redis`: the TigerFans payment-session
 * operations against a real Redis server, timed one by one (hiredis).
 *
 * Operations (docs/DESIGN.md section 2), recorded as redis.<name>:
 *   paymentsession.save            one pipelined MULTI / HSET (11 fields) /
 *                                  EXPIRE / ZADD / EXEC
 *   paymentsession.get             HGETALL
 *   paymentsession.fulfill         SET NX EX, then a second SET NX EX (two
 *                                  round trips)
 *   paymentsession.remove_pending  pipelined MULTI / ZREM / DEL / EXEC
 * For each concurrency level C the four run as phases in that order, each
 * with C connections and one operation in flight per connection, driven
 * from one thread by a poll(2) loop (hiredis' non-blocking buffer calls).
 * get, fulfill and remove_pending work on the sessions the save phase of
 * the same level created (cycling over them in --seconds mode).
 *
 * Invariants: every key starts with the prefix (default
 * "tfsim:probe:<pid>:") and lives in the chosen database (default 15);
 * the keys are deleted at the end, also after a failure when the server
 * still answers.  The password is never printed.  Every reply and the
 * connection are bounded by opts->timeout.  The caller must ignore SIGPIPE
 * (hiredis writes to sockets that the server may have closed).
 * Cost: one poll() per batch of ready replies; memory O(connections).
 */
#ifndef VAL_PROBE_REDIS_H
#define VAL_PROBE_REDIS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim_err.h"
#include "validate/val_probe.h"

typedef struct val_redis_conn {
    const char *socket;    /* unix socket path; NULL = TCP host:port */
    const char *host;      /* NULL = 127.0.0.1 */
    int port;              /* 0 = 6379 */
    const char *user;      /* ACL user for AUTH, or NULL */
    const char *password;  /* or NULL; borrowed, never printed */
    int db;                /* database number (SELECT) */
    const char *prefix;    /* key prefix; NULL = "tfsim:probe:<pid>:" */
} val_redis_conn;

/* Default database of the probe (out of the way of an application's 0). */
#define VAL_REDIS_DEFAULT_DB 15

/* Operation names (without the "redis." prefix), in the order they run. */
extern const char *const val_probe_redis_ops[];
extern const size_t val_probe_redis_nops;

/* What the probe learnt of the server: its io-threads and
 * io-threads-do-reads (CONFIG GET; 0 and -1 when it does not say). */
typedef struct val_redis_info {
    long io_threads;
    int io_reads;
} val_redis_info;

/* Concurrency levels that span the threshold of a server with N
 * io-threads (the I/O threads run from 2N clients pending): 1, 2N-1, 2N,
 * 4N, 8N; for N <= 1 the default 1, 4, 16, 64.  Into levels (at least 5
 * entries); returns how many. */
size_t val_probe_redis_auto_levels(long io_threads, unsigned *levels);

/* Run the probe: every selected operation at every level of o (no levels:
 * val_probe_redis_auto_levels of the server's io-threads), results into
 * res (borrowed); per phase also the server's CPU (INFO cpu, all its
 * threads).  info (may be NULL) gets the server's settings; with o->out
 * they are written as notes "redis.io_threads" and
 * "redis.io_threads_do_reads" (when the server says).  Returns SIM_OK; SIM_EINPUT for bad options;
 * SIM_EFAIL when the server cannot be reached, refuses the password,
 * replies with an error, closes the connection or does not answer within
 * o->timeout: the message names the server and what failed.  On failure
 * res and o->out keep every operation measured before it. */
int val_probe_redis_run(const val_redis_conn *c, const val_probe_opts *o, val_probe_result *res,
                        val_redis_info *info, sim_err *err);

/* Accessors for the live driver (val_live_srv), which talks to Redis the
 * way the probe does.
 * val_probe_redis_where: the server as messages name it ("redis at
 * unix:/path (db 15)") into buf (len bytes).
 * val_probe_redis_connect: one connection (replies bounded by timeout
 * seconds, AUTH, SELECT db), owned by the caller (redisFree); NULL with
 * SIM_EFAIL naming the server and what failed.
 * val_probe_redis_append: append the commands of round trip `round` (0, 1)
 * of operation op (index into val_probe_redis_ops) on session id, keys
 * under prefix, to c's output buffer; returns the replies to expect (the
 * last one is EXEC's for save and remove_pending), 0 when op has no such
 * round trip.
 * val_probe_redis_cleanup: delete every key under prefix (SCAN + DEL on a
 * connection of its own).
 * val_probe_redis_io_threads: the server's io-threads and
 * io-threads-do-reads (CONFIG GET) into *threads and *do_reads; 0, or -1
 * when the server does not say (CONFIG renamed or refused): both left
 * untouched then. */
struct redisContext;
void val_probe_redis_where(const val_redis_conn *c, char *buf, size_t len);
struct redisContext *val_probe_redis_connect(const val_redis_conn *c, double timeout, sim_err *err);
int val_probe_redis_append(struct redisContext *c, const char *prefix, int op, int round, uint64_t id);
int val_probe_redis_cleanup(const val_redis_conn *c, const char *prefix, double timeout,
                            sim_err *err);
int val_probe_redis_io_threads(struct redisContext *c, long *threads, int *do_reads);
/* CPU seconds the server has used (INFO cpu: used_cpu_sys + used_cpu_user,
 * all its threads), NaN if it does not say. */
double val_probe_redis_cpu(struct redisContext *c);
/* Replies written by the server's I/O threads so far (INFO stats
 * io_threaded_writes_processed); NAN on an error or an older server
 * without the counter.  c is borrowed. */
double val_probe_redis_threaded_writes(struct redisContext *c);

#endif
