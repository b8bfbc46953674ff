/* val_probe_pg: `tfsim probe postgres`: the TigerFans PostgreSQL
 * transactions against a real server, timed one by one (libpq).
 *
 * Operations (docs/DESIGN.md section 2), recorded as postgres.<name>; each is
 * one transaction, one statement per round trip (as the application's
 * ORM sends them), preceded by a `SELECT 1` round trip when pre_ping is on
 * (SQLAlchemy's pool_pre_ping on every checkout):
 *   accounting.hold      BEGIN; for the ticket class and then the goodie:
 *                        read the capacity, sum the posted holds, sum the
 *                        unexpired pending holds (indexed on (resource,
 *                        status)), insert a pending hold if one is left;
 *                        COMMIT
 *   paymentsession.save  BEGIN; INSERT a session row (11 fields); COMMIT
 *   paymentsession.get   BEGIN; SELECT the row; COMMIT
 *   paymentsession.fulfill  BEGIN; UPDATE ... SET fulfilled WHERE NOT
 *                        fulfilled; COMMIT
 *   accounting.commit_order BEGIN; UPDATE each hold of the order to
 *                        posted; COMMIT
 *   db.add_order         BEGIN; INSERT an order row; COMMIT
 *   paymentsession.remove_pending  BEGIN; DELETE the session row; COMMIT
 * For each concurrency level C they run as phases in that order, with C
 * connections and one transaction in flight per connection, driven from
 * one thread by a poll(2) loop over non-blocking libpq connections.  The
 * later phases work on the orders and sessions made by the hold and save
 * phases of the same level (cycling over them in --seconds mode).
 *
 * Invariants: everything happens in the schema tfsim_probe, which the
 * probe drops and creates at the start (tables resources, holds, orders,
 * payment_sessions) and drops at the end unless keep is set; nothing else
 * in the database is touched.  Run one postgres probe per database at a
 * time.  The holds table starts with `preload_holds` posted rows and grows
 * by one or two rows per hold, as in TigerFans.  The password is never
 * printed.  The connection and every reply are bounded by opts->timeout.
 * Cost: one poll() per batch of ready results; memory O(connections +
 * holds made in one level).
 */
#ifndef VAL_PROBE_PG_H
#define VAL_PROBE_PG_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim_err.h"
#include "validate/val_probe.h"

typedef struct val_pg_conn {
    const char *conninfo;  /* libpq conninfo string or URI, or NULL */
    const char *host;      /* host name or socket folder; overrides conninfo */
    const char *port;      /* overrides conninfo */
    const char *dbname;
    const char *user;
    const char *password;  /* never printed */
    uint64_t preload_holds;  /* posted holds inserted before measuring */
    int pre_ping;            /* 1: SELECT 1 before every transaction */
    int keep;                /* 1: leave the schema in place at the end */
    /* set (e.g. by SIGINT) to interrupt a wait of the accessors below
     * (connecting, a statement such as the live driver's preload): the
     * wait ends at the signal with "interrupted"; may be NULL.  The probe
     * itself takes val_probe_opts.stop. */
    const volatile sig_atomic_t *stop;
} val_pg_conn;

/* Operation names (without the "postgres." prefix), in the order they run. */
extern const char *const val_probe_pg_ops[];
extern const size_t val_probe_pg_nops;

/* Run the probe: every selected operation at every level of o, results
 * into res (borrowed).  Returns SIM_OK; SIM_EINPUT for a conninfo that does
 * not parse; SIM_EFAIL when the server cannot be reached, refuses the
 * login, reports an error, closes the connection or does not answer within
 * o->timeout: the message names the server and what failed.  On failure
 * res and o->out keep every operation measured before it. */
int val_probe_pg_run(const val_pg_conn *c, const val_probe_opts *o, val_probe_result *res,
                     sim_err *err);

/* Accessors for the live driver (val_live_srv), which opens its
 * connections the way the probe does.
 * val_probe_pg_where: the server as messages name it ("postgres at
 * host=... port=... dbname=... user=..."; never the password) into where
 * (len bytes); SIM_EINPUT for a conninfo that does not parse.
 * val_probe_pg_connect: one non-blocking connection, connected within
 * timeout seconds; owned by the caller (PQfinish); NULL with SIM_EFAIL
 * naming the server and what failed (SIM_EINPUT for a bad conninfo).
 * val_probe_pg_exec: run sql (several statements allowed) on conn within
 * timeout seconds; `what` names the step in messages.
 * val_probe_pg_numbers: val_probe_pg_exec that also reads the first row
 * of the first result with rows, field by field as numbers, into
 * vals[0..nvals) (caller storage; NaN for a NULL, a missing field, no row
 * or a failure).
 * val_probe_pg_cancel: after a failure, ask the server on conn (borrowed)
 * to cancel the statements the backends pids[0..n) (borrowed) may still
 * run, within timeout seconds; best effort, nothing reported (what it
 * could not do shows in the DROP after it).
 * val_probe_pg_one_line: a libpq message on one line, into out. */
struct pg_conn;
int val_probe_pg_where(const val_pg_conn *c, char *where, size_t len, sim_err *err);
struct pg_conn *val_probe_pg_connect(const val_pg_conn *c, double timeout, sim_err *err);
int val_probe_pg_exec(const val_pg_conn *c, struct pg_conn *conn, const char *sql, const char *what,
                      double timeout, sim_err *err);
int val_probe_pg_numbers(const val_pg_conn *c, struct pg_conn *conn, const char *sql, const char *what,
                         double timeout, double *vals, int nvals, sim_err *err);
void val_probe_pg_cancel(const val_pg_conn *c, struct pg_conn *conn, const int *pids, size_t n,
                         double timeout);
const char *val_probe_pg_one_line(const char *in, char *out, size_t len);

#endif
