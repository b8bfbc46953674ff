#include "validate/val_probe_pg.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

enum { P_HOLD, P_SAVE, P_GET, P_FULFILL, P_COMMIT, P_ADD, P_REMOVE, P_NOPS };

const char *const val_probe_pg_ops[] = {"accounting.hold",        "paymentsession.save",
                                        "paymentsession.get",     "paymentsession.fulfill",
                                        "accounting.commit_order", "db.add_order",
                                        "paymentsession.remove_pending"};
const size_t val_probe_pg_nops = P_NOPS;

/* TigerFans capacities: 5,000,000 tickets per class, 100,000 goodies. */
static const char setup_sql[] =
    "DROP SCHEMA IF EXISTS tfsim_probe CASCADE;"
    "CREATE SCHEMA tfsim_probe;"
    "CREATE TABLE tfsim_probe.resources (id text PRIMARY KEY, capacity bigint NOT NULL);"
    "INSERT INTO tfsim_probe.resources VALUES ('ticket:A', 5000000), ('ticket:B', 5000000),"
    " ('goodie', 100000);"
    "CREATE TABLE tfsim_probe.holds (id bigserial PRIMARY KEY, resource text NOT NULL,"
    " qty integer NOT NULL, status text NOT NULL, expires_at timestamptz NOT NULL,"
    " created_at timestamptz NOT NULL DEFAULT now());"
    "CREATE INDEX holds_resource_status ON tfsim_probe.holds (resource, status);"
    "CREATE TABLE tfsim_probe.orders (id bigserial PRIMARY KEY, session_id text NOT NULL,"
    " ticket_class text NOT NULL, ticket_hold bigint, goodie_hold bigint,"
    " created_at timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE tfsim_probe.payment_sessions (id text PRIMARY KEY, order_id text NOT NULL,"
    " ticket_class text NOT NULL, try_goodie text NOT NULL, ticket_hold_id text,"
    " goodie_hold_id text, amount_cents integer NOT NULL, currency text NOT NULL,"
    " customer_email text NOT NULL, created_at timestamptz NOT NULL, status text NOT NULL,"
    " fulfilled boolean NOT NULL DEFAULT false, expires_at timestamptz NOT NULL);";

typedef struct pconn {
    val_probe_conn s;        /* what the phase loop keeps */
    PGconn *c;
    int in_stmt, step;
    uint64_t id;             /* order/session number */
    long long cap, used;     /* accounting.hold: capacity and holds of the resource */
    PGresult *last;          /* last result of the statement in flight */
    char *error;             /* first error result of the statement, or NULL */
} pconn;
_Static_assert(offsetof(pconn, s) == 0, "the phase loop finds its val_probe_conn at the start");

typedef struct pprobe {
    const val_pg_conn *cfg;
    const val_probe_opts *o;
    val_probe_result *res;
    char where[400];
    const char *kw[10], *val[10];
    int expand;
    pconn *k;
    unsigned nk;
    long long *holds;        /* 2 per order of the level: ticket and goodie hold ids, 0 = none */
    size_t holds_cap;
    uint64_t hold0, nholds;  /* first order number of the level, orders held */
    uint64_t sess0, nsess;   /* same for sessions */
    val_probe_loop loop;     /* counts the operations completed */
} pprobe;

/* A libpq message on one line: a line break before a capital letter (a new
 * sentence) becomes "; ", any other run of breaks, tabs and spaces one
 * space; trailing space goes. */
static const char *one_line(const char *in, char *out, size_t len)
{
    size_t n = 0;
    int brk = 0, space = 0;
    for (const char *s = in; *s && n + 3 < len; s++) {
        if (*s == '\n' || *s == '\r') {
            brk = 1;
            continue;
        }
        if (*s == '\t' || *s == ' ') {
            space = 1;
            continue;
        }
        if (n > 0 && brk && *s >= 'A' && *s <= 'Z') {
            out[n++] = ';';
            out[n++] = ' ';
        } else if (n > 0 && (brk || space)) {
            out[n++] = ' ';
        }
        brk = space = 0;
        out[n++] = *s;
    }
    out[n] = '\0';
    return out;
}

static void quiet_notices(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* Wait until fd is ready for events or the deadline passes.  Returns 1
 * ready, 0 timed out, -1 interrupted or failed (errno). */
static int wait_fd(const pprobe *p, int fd, short events, double deadline)
{
    for (;;) {
        double now = val_probe_mono();
        if (now >= deadline)
            return 0;
        struct pollfd pf = {fd, events, 0};
        int r = poll(&pf, 1, (int)ceil((deadline - now) * 1e3));
        if (r > 0)
            return 1;
        if (r < 0 && (errno != EINTR || val_probe_stopped(p->o)))
            return -1;
    }
}

static PGconn *connect_one(pprobe *p, sim_err *err)
{
    char why[600];
    PGconn *c = PQconnectStartParams(p->kw, p->val, p->expand);
    if (!c) {
        sim_err_set_at(err, SIM_EFAIL, p->where, "cannot connect: out of memory");
        return NULL;
    }
    double deadline = val_probe_mono() + p->o->timeout;
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;
    if (PQstatus(c) == CONNECTION_BAD)
        st = PGRES_POLLING_FAILED;
    while (st != PGRES_POLLING_OK) {
        if (st == PGRES_POLLING_FAILED) {
            sim_err_set_at(err, SIM_EFAIL, p->where,
                           "cannot connect: %s", one_line(PQerrorMessage(c), why, sizeof why));
            PQfinish(c);
            return NULL;
        }
        int w = wait_fd(p, PQsocket(c), st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline);
        if (w <= 0) {
            if (w == 0)
                sim_err_set_at(err, SIM_EFAIL, p->where,
                               "cannot connect: no answer within %g s (server not answering)",
                               p->o->timeout);
            else
                sim_err_set(err, SIM_EFAIL, "interrupted");
            PQfinish(c);
            return NULL;
        }
        st = PQconnectPoll(c);
    }
    PQsetNoticeProcessor(c, quiet_notices, NULL);
    if (PQsetnonblocking(c, 1) != 0) {
        sim_err_set_at(err, SIM_EFAIL, p->where,
                       "cannot switch the connection to non-blocking mode: %s",
                       one_line(PQerrorMessage(c), why, sizeof why));
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* Run SQL (possibly several statements) on c, allowing `timeout` seconds;
 * the first row of the first result with rows goes, field by field as
 * numbers, into vals[0..nvals) (NaN for a NULL, a field it lacks or no
 * row; vals may be NULL with nvals 0). */
static int exec_wait(pprobe *p, PGconn *c, const char *sql, const char *what, double timeout,
                     double *vals, int nvals, sim_err *err)
{
    for (int i = 0; i < nvals; i++)
        vals[i] = NAN;
    int got = 0;
    char why[600];
    if (!PQsendQuery(c, sql))
        return sim_err_set_at(err, SIM_EFAIL, p->where,
                              "%s failed: %s", what, one_line(PQerrorMessage(c), why, sizeof why));
    double deadline = val_probe_mono() + timeout;
    int flushing = 1, rc = SIM_OK;
    for (;;) {
        if (flushing) {
            int f = PQflush(c);
            if (f < 0)
                return sim_err_set_at(err, SIM_EFAIL, p->where, "%s failed: %s", what,
                                      one_line(PQerrorMessage(c), why, sizeof why));
            flushing = f == 1;
        }
        while (!flushing && !PQisBusy(c)) {
            PGresult *r = PQgetResult(c);
            if (!r)
                return rc;
            ExecStatusType s = PQresultStatus(r);
            if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && rc == SIM_OK)
                rc = sim_err_set_at(err, SIM_EFAIL, p->where, "%s failed: %s", what,
                                    one_line(PQresultErrorMessage(r), why, sizeof why));
            if (s == PGRES_TUPLES_OK && !got && PQntuples(r) > 0) {
                got = 1;
                for (int i = 0; i < nvals && i < PQnfields(r); i++)
                    if (!PQgetisnull(r, 0, i))
                        vals[i] = strtod(PQgetvalue(r, 0, i), NULL);
            }
            PQclear(r);
        }
        int w = wait_fd(p, PQsocket(c), (short)(POLLIN | (flushing ? POLLOUT : 0)), deadline);
        if (w == 0)
            return sim_err_set_at(
                err, SIM_EFAIL, p->where,
                "%s: no reply within %g s (the server is down or frozen, or the statement "
                "waits, e.g. on a lock; it may still run there)",
                what, timeout);
        if (w < 0)
            return sim_err_set(err, SIM_EFAIL, "%s: interrupted", what);
        if (!PQconsumeInput(c))
            return sim_err_set_at(err, SIM_EFAIL, p->where,
                                  "%s failed: %s", what, one_line(PQerrorMessage(c), why, sizeof why));
    }
}

/* After a failure (an interruption, a timeout) a backend may still be
 * running its statement (a preload, say): closing its connection does not
 * stop it (PostgreSQL notices when the statement ends), and a DROP of the
 * schema would wait for its locks.  Ask the server, on c, to cancel what
 * the backends pids[0..n) run (our own role's backends: allowed; an idle
 * one ignores it; a pid of 0, a connection that never came up, is
 * skipped).  Best effort: a failure is ignored, the DROP after it
 * says what remains.  A query on the server, not PQcancel: libpq 15's
 * PQcancel blocks with no deadline, this waits at most timeout. */
static void cancel_backends(pprobe *p, PGconn *c, const int *pids, size_t n, double timeout)
{
    if (!c || n == 0)
        return;
    size_t len = 96 + n * 12;
    char *sql = malloc(len);
    assert(sql && "out of memory");
    int k = snprintf(sql, len, "SELECT pg_cancel_backend(b) FROM unnest(ARRAY[");
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (pids[i] > 0)
            k += snprintf(sql + k, len - (size_t)k, "%s%d", used++ ? "," : "", pids[i]);
    snprintf(sql + k, len - (size_t)k, "]::int[]) AS b");
    sim_err ign = {0};
    if (used)
        (void)exec_wait(p, c, sql, "cancelling the statements left running", timeout, NULL, 0, &ign);
    free(sql);
}

/* ---- the transactions ---- */

static long long *hold_slot(pprobe *p, uint64_t id)
{
    assert(id >= p->hold0);
    size_t i = (size_t)(id - p->hold0);
    if (2 * i + 2 > p->holds_cap) {
        size_t cap = p->holds_cap ? p->holds_cap : 1024;
        while (cap < 2 * i + 2)
            cap *= 2;
        p->holds = realloc(p->holds, cap * sizeof *p->holds);
        assert(p->holds);
        memset(p->holds + p->holds_cap, 0, (cap - p->holds_cap) * sizeof *p->holds);
        p->holds_cap = cap;
    }
    return &p->holds[2 * i];
}

static const char *resource_of(uint64_t id, int r)
{
    return r == 0 ? (id % 2 ? "ticket:A" : "ticket:B") : "goodie";
}

/* Send the statement of k's current step, skipping steps that do not
 * apply.  Returns 1 when a statement was sent, 0 when the transaction is
 * complete, -1 on a send error. */
static int send_step(pprobe *p, pconn *k)
{
    char a[64], b[64], c3[64], d[64];
    const char *v[12];
    for (;; k->step++) {
        const char *sql = NULL;
        int n = 0;
        int s = k->step;
        if (s == 0) {
            if (!p->cfg->pre_ping)
                continue;
            sql = "SELECT 1";
        } else if (s == 1) {
            sql = "BEGIN";
        } else if (k->s.op == P_HOLD) {
            /* steps 2..5: ticket, 6..9: goodie, 10: COMMIT */
            if (s >= 11)
                return 0;
            if (s == 10) {
                sql = "COMMIT";
            } else {
                int r = (s - 2) / 4, q = (s - 2) % 4;
                v[0] = resource_of(k->id, r);
                n = 1;
                if (q == 0)
                    sql = "SELECT capacity FROM tfsim_probe.resources WHERE id = $1";
                else if (q == 1)
                    sql = "SELECT coalesce(sum(qty), 0) FROM tfsim_probe.holds"
                          " WHERE resource = $1 AND status = 'posted'";
                else if (q == 2)
                    sql = "SELECT coalesce(sum(qty), 0) FROM tfsim_probe.holds"
                          " WHERE resource = $1 AND status = 'pending' AND expires_at > now()";
                else {
                    if (k->cap - k->used < 1)
                        continue;  /* sold out: no hold for this resource */
                    sql = "INSERT INTO tfsim_probe.holds (resource, qty, status, expires_at)"
                          " VALUES ($1, 1, 'pending', now() + interval '15 minutes') RETURNING id";
                }
            }
        } else if (k->s.op == P_COMMIT) {
            /* steps 2, 3: post the ticket and goodie holds; 4: COMMIT */
            if (s >= 5)
                return 0;
            if (s == 4) {
                sql = "COMMIT";
            } else {
                long long h = p->nholds ? hold_slot(p, k->id)[s - 2] : 0;
                if (h == 0)
                    continue;
                snprintf(a, sizeof a, "%lld", h);
                v[0] = a;
                n = 1;
                sql = "UPDATE tfsim_probe.holds SET status = 'posted' WHERE id = $1 AND status = 'pending'";
            }
        } else {
            /* one statement, then COMMIT */
            if (s >= 4)
                return 0;
            snprintf(a, sizeof a, "s%llu", (unsigned long long)k->id);
            v[0] = a;
            n = 1;
            if (s == 3) {
                sql = "COMMIT";
                n = 0;
            } else if (k->s.op == P_SAVE) {
                snprintf(b, sizeof b, "ord-%llu", (unsigned long long)k->id);
                snprintf(c3, sizeof c3, "%016llx%016llx", (unsigned long long)k->id,
                         (unsigned long long)(2 * k->id));
                snprintf(d, sizeof d, "%016llx%016llx", (unsigned long long)k->id,
                         (unsigned long long)(2 * k->id + 1));
                v[1] = b;
                v[2] = k->id % 2 ? "A" : "B";
                v[3] = "1";
                v[4] = c3;
                v[5] = d;
                v[6] = "4900";
                v[7] = "EUR";
                v[8] = "buyer@example.org";
                v[9] = "pending";
                n = 10;
                sql = "INSERT INTO tfsim_probe.payment_sessions (id, order_id, ticket_class, try_goodie,"
                      " ticket_hold_id, goodie_hold_id, amount_cents, currency, customer_email,"
                      " created_at, status, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,"
                      " now(), $10, now() + interval '15 minutes')";
            } else if (k->s.op == P_GET) {
                sql = "SELECT * FROM tfsim_probe.payment_sessions WHERE id = $1";
            } else if (k->s.op == P_FULFILL) {
                sql = "UPDATE tfsim_probe.payment_sessions SET fulfilled = true"
                      " WHERE id = $1 AND NOT fulfilled";
            } else if (k->s.op == P_REMOVE) {
                sql = "DELETE FROM tfsim_probe.payment_sessions WHERE id = $1";
            } else {
                assert(k->s.op == P_ADD);
                long long *h = p->nholds ? hold_slot(p, k->id) : NULL;
                v[1] = k->id % 2 ? "A" : "B";
                v[2] = NULL;
                v[3] = NULL;
                if (h && h[0]) {
                    snprintf(b, sizeof b, "%lld", h[0]);
                    v[2] = b;
                }
                if (h && h[1]) {
                    snprintf(c3, sizeof c3, "%lld", h[1]);
                    v[3] = c3;
                }
                n = 4;
                sql = "INSERT INTO tfsim_probe.orders (session_id, ticket_class, ticket_hold, goodie_hold)"
                      " VALUES ($1, $2, $3, $4)";
            }
        }
        int ok = n ? PQsendQueryParams(k->c, sql, n, NULL, v, NULL, NULL, 0) : PQsendQuery(k->c, sql);
        if (!ok)
            return -1;
        k->in_stmt = 1;
        int f = PQflush(k->c);
        if (f < 0)
            return -1;
        k->s.want_write = f == 1;
        return 1;
    }
}

static long long first_value(const PGresult *r)
{
    if (!r || PQntuples(r) < 1 || PQnfields(r) < 1 || PQgetisnull(r, 0, 0))
        return 0;
    return strtoll(PQgetvalue(r, 0, 0), NULL, 10);
}

/* Take what the finished statement returned (accounting.hold only). */
static void absorb(pprobe *p, pconn *k)
{
    if (k->s.op != P_HOLD || k->step < 2 || k->step >= 10)
        return;
    int r = (k->step - 2) / 4, q = (k->step - 2) % 4;
    long long v = first_value(k->last);
    if (q == 0) {
        k->cap = v;
        k->used = 0;
    } else if (q == 1 || q == 2) {
        k->used += v;
    } else {
        hold_slot(p, k->id)[r] = v;
    }
}

/* val_probe_loop.start: the first statement of the transaction. */
static int start_op(val_probe_loop *l, unsigned i, sim_err *err)
{
    pprobe *p = l->ctx;
    pconn *k = &p->k[i];
    int op = k->s.op;
    uint64_t index = k->s.index;
    k->step = 0;
    if (op == P_HOLD)
        k->id = p->hold0 + index;
    else if (op == P_SAVE)
        k->id = p->sess0 + index;
    else if (op == P_COMMIT || op == P_ADD)
        k->id = p->hold0 + (p->nholds ? index % p->nholds : index);
    else
        k->id = p->sess0 + (p->nsess ? index % p->nsess : index);
    char why[600];
    if (send_step(p, k) != 1)
        return sim_err_set_at(err, SIM_EFAIL, p->where,
                              "connection %u: %s failed after %llu operations: %s", i,
                              val_probe_pg_ops[op], (unsigned long long)p->loop.ndone,
                              one_line(PQerrorMessage(k->c), why, sizeof why));
    return SIM_OK;
}

/* val_probe_loop.ready: flush, take the results, send the next statement. */
static int on_ready(val_probe_loop *l, unsigned i, short revents, sim_err *err)
{
    pprobe *p = l->ctx;
    pconn *k = &p->k[i];
    char why[600];
    const char *op = val_probe_pg_ops[k->s.op];
    if (revents & POLLOUT) {
        int f = PQflush(k->c);
        if (f < 0)
            return sim_err_set_at(err, SIM_EFAIL, p->where,
                                  "connection %u: %s failed after %llu operations: %s", i, op,
                                  (unsigned long long)p->loop.ndone,
                                  one_line(PQerrorMessage(k->c), why, sizeof why));
        k->s.want_write = f == 1;
    }
    if (!(revents & (POLLIN | POLLHUP | POLLERR)))
        return SIM_OK;
    if (!PQconsumeInput(k->c))
        return sim_err_set_at(
            err, SIM_EFAIL, p->where, "connection %u: %s failed after %llu operations: %s", i, op,
            (unsigned long long)p->loop.ndone, one_line(PQerrorMessage(k->c), why, sizeof why));
    while (k->s.busy && k->in_stmt && !PQisBusy(k->c)) {
        PGresult *r = PQgetResult(k->c);
        if (r) {
            ExecStatusType s = PQresultStatus(r);
            if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && !k->error) {
                k->error = strdup(one_line(PQresultErrorMessage(r), why, sizeof why));
                assert(k->error);
            }
            PQclear(k->last);
            k->last = r;
            continue;
        }
        /* the statement is complete */
        k->in_stmt = 0;
        if (k->error)
            return sim_err_set_at(err, SIM_EFAIL, p->where,
                                  "connection %u: %s failed after %llu operations: %s", i, op,
                                  (unsigned long long)p->loop.ndone, k->error);
        absorb(p, k);
        PQclear(k->last);
        k->last = NULL;
        k->step++;
        double now = val_probe_mono();
        int s = send_step(p, k);
        if (s < 0)
            return sim_err_set_at(err, SIM_EFAIL, p->where,
                                  "connection %u: %s failed after %llu operations: %s", i, op,
                                  (unsigned long long)p->loop.ndone,
                                  one_line(PQerrorMessage(k->c), why, sizeof why));
        if (s == 1) {
            k->s.deadline = now + p->o->timeout;
            continue;
        }
        /* transaction complete */
        int rc = val_probe_loop_done(l, i, now, err);
        if (rc)
            return rc;
    }
    return SIM_OK;
}

/* Connection parameters and the description of the server (no password). */
/* A postgres:// URI whose user:password@ libpq did not read as such (a
 * '/', '?' or '#' in the password, not percent-encoded): its parse puts
 * pieces of the password in the host, port or dbname, which must not be
 * printed. */
static int uri_password_misread(const char *ci, const PQconninfoOption *opts)
{
    const char *a = strstr(ci, "://");
    if (!a || (strncmp(ci, "postgresql://", 13) && strncmp(ci, "postgres://", 11)))
        return 0;
    a += 3;
    const char *at = NULL, *q = a;
    for (; *q && !strchr(" \t\r\n", *q); q++)
        if (*q == '@')
            at = q;
    if (!at || !memchr(a, ':', (size_t)(at - a)))
        return 0;
    for (const PQconninfoOption *o = opts; o->keyword; o++)
        if (!strcmp(o->keyword, "password") && o->val)
            return 0; /* read as a password: fine */
    return 1;
}

static int describe(pprobe *p, sim_err *err)
{
    const val_pg_conn *cfg = p->cfg;
    const char *host = NULL, *port = NULL, *dbname = NULL, *user = NULL;
    PQconninfoOption *opts = NULL;
    if (cfg->conninfo) {
        char *msg = NULL;
        opts = PQconninfoParse(cfg->conninfo, &msg);
        if (!opts) {
            char why[600];
            int rc = sim_err_set(err, SIM_EINPUT, "--conninfo: %s",
                                 msg ? one_line(msg, why, sizeof why) : "out of memory");
            PQfreemem(msg);
            return rc;
        }
        if (uri_password_misread(cfg->conninfo, opts)) {
            PQconninfoFree(opts);
            return sim_err_set(err, SIM_EINPUT,
                               "--conninfo: a URI whose password libpq cannot read (percent-"
                               "encode '/', '?', '#' and '@' in it: %%2F, %%3F, %%23, %%40)");
        }
        for (PQconninfoOption *o = opts; o->keyword; o++) {
            if (!o->val)
                continue;
            if (!strcmp(o->keyword, "host") || (!strcmp(o->keyword, "hostaddr") && !host))
                host = o->val;
            else if (!strcmp(o->keyword, "port"))
                port = o->val;
            else if (!strcmp(o->keyword, "dbname"))
                dbname = o->val;
            else if (!strcmp(o->keyword, "user"))
                user = o->val;
        }
    }
    if (cfg->host)
        host = cfg->host;
    if (cfg->port)
        port = cfg->port;
    if (cfg->dbname)
        dbname = cfg->dbname;
    if (cfg->user)
        user = cfg->user;
    int n = snprintf(p->where, sizeof p->where, "postgres at");
    if (host)
        n += snprintf(p->where + n, sizeof p->where - (size_t)n, " host=%s", host);
    if (port && n < (int)sizeof p->where)
        n += snprintf(p->where + n, sizeof p->where - (size_t)n, " port=%s", port);
    if (dbname && n < (int)sizeof p->where)
        n += snprintf(p->where + n, sizeof p->where - (size_t)n, " dbname=%s", dbname);
    if (user && n < (int)sizeof p->where)
        n += snprintf(p->where + n, sizeof p->where - (size_t)n, " user=%s", user);
    if (!host && !port && !dbname && !user && n < (int)sizeof p->where)
        snprintf(p->where + n, sizeof p->where - (size_t)n, " (libpq defaults)");
    PQconninfoFree(opts);

    int k = 0;
    if (cfg->conninfo) {
        p->kw[k] = "dbname";
        p->val[k++] = cfg->conninfo;
        p->expand = 1;
    }
    if (cfg->host) {
        p->kw[k] = "host";
        p->val[k++] = cfg->host;
    }
    if (cfg->port) {
        p->kw[k] = "port";
        p->val[k++] = cfg->port;
    }
    if (cfg->dbname) {
        p->kw[k] = "dbname";
        p->val[k++] = cfg->dbname;
    }
    if (cfg->user) {
        p->kw[k] = "user";
        p->val[k++] = cfg->user;
    }
    if (cfg->password) {
        p->kw[k] = "password";
        p->val[k++] = cfg->password;
    }
    p->kw[k] = "application_name";
    p->val[k++] = "tfsim-probe";
    p->kw[k] = NULL;
    p->val[k] = NULL;
    return SIM_OK;
}

static int setup(pprobe *p, sim_err *err)
{
    PGconn *c = p->k[0].c;
    double t = p->o->timeout;
    int rc = exec_wait(p, c, setup_sql, "creating the schema tfsim_probe", t, NULL, 0, err);
    if (rc == SIM_OK && p->cfg->preload_holds > 0) {
        char sql[400];
        snprintf(sql, sizeof sql,
                 "INSERT INTO tfsim_probe.holds (resource, qty, status, expires_at)"
                 " SELECT (ARRAY['ticket:A', 'ticket:B', 'goodie'])[1 + g %% 3], 1, 'posted', now()"
                 " FROM generate_series(1, %llu) AS g",
                 (unsigned long long)p->cfg->preload_holds);
        /* Loading many rows takes longer than one reply is allowed: add
         * one second per 20,000 rows. */
        t += (double)p->cfg->preload_holds / 20000;
        rc = exec_wait(p, c, sql, "preloading the holds table", t, NULL, 0, err);
    }
    if (rc == SIM_OK)
        rc = exec_wait(p, c, "ANALYZE tfsim_probe.holds", "analyzing the holds table", t, NULL, 0, err);
    return rc;
}

int val_probe_pg_run(const val_pg_conn *cfg, const val_probe_opts *o, val_probe_result *res,
                     sim_err *err)
{
    assert(o->nlevels > 0 && o->timeout > 0);
    int rc = val_probe_check_ops(o, val_probe_pg_ops, P_NOPS, err);
    if (rc)
        return rc;
    pprobe p = {0};
    p.cfg = cfg;
    p.o = o;
    p.res = res;
    if ((rc = describe(&p, err)))
        return rc;
    p.loop = (val_probe_loop){.o = o, .res = res, .where = p.where, .kind = "postgres",
                              .ops = val_probe_pg_ops, .ctx = &p,
                              .start = start_op, .ready = on_ready};

    unsigned cmax = 0;
    for (size_t l = 0; l < o->nlevels; l++)
        if (o->levels[l] > cmax)
            cmax = o->levels[l];
    p.k = calloc(cmax, sizeof *p.k);
    p.loop.conns = p.k;
    p.loop.conn_size = sizeof *p.k;
    assert(p.k);
    for (unsigned i = 0; i < cmax && rc == SIM_OK; i++) {
        p.k[i].c = connect_one(&p, err);
        if (!p.k[i].c)
            rc = SIM_EFAIL;
        else {
            p.k[i].s.fd = PQsocket(p.k[i].c);
            p.nk++;
        }
    }
    int schema_made = 0;
    if (rc == SIM_OK) {
        rc = setup(&p, err);
        schema_made = 1;
    }
    uint64_t next_id = 1;
    for (size_t l = 0; l < o->nlevels && rc == SIM_OK; l++) {
        unsigned C = o->levels[l];
        p.hold0 = p.sess0 = next_id;
        p.nholds = p.nsess = 0;
        if (p.holds)
            memset(p.holds, 0, p.holds_cap * sizeof *p.holds);
        uint64_t most = 0;
        for (int op = 0; op < P_NOPS && rc == SIM_OK; op++) {
            if (!val_probe_wants(o, val_probe_pg_ops[op]))
                continue;
            uint64_t issued = 0;
            rc = val_probe_loop_phase(&p.loop, op, C, &issued, err);
            if (op == P_HOLD)
                p.nholds = issued;
            else if (op == P_SAVE)
                p.nsess = issued;
            if (issued > most)
                most = issued;
        }
        next_id += most;
    }
    int *pids = malloc((p.nk ? p.nk : 1) * sizeof *pids);
    assert(pids && "out of memory");
    size_t npids = 0;
    for (unsigned i = 0; i < p.nk; i++) {
        if (p.k[i].c)
            pids[npids++] = PQbackendPID(p.k[i].c);
        PQclear(p.k[i].last);
        free(p.k[i].error);
        PQfinish(p.k[i].c);
    }
    free(p.k);
    free(p.holds);
    if (schema_made && !cfg->keep) {
        /* Drop the schema also after a failure, if the server still answers. */
        sim_err cerr = {0};
        sim_err *e = rc ? &cerr : err;
        PGconn *c = connect_one(&p, e);
        if (rc != SIM_OK)
            cancel_backends(&p, c, pids, npids, o->timeout);
        int crc = c ? exec_wait(&p, c, "DROP SCHEMA IF EXISTS tfsim_probe CASCADE", "dropping the schema",
                                o->timeout, NULL, 0, e)
                    : SIM_EFAIL;
        PQfinish(c);
        if (crc != SIM_OK) {
            if (rc == SIM_OK)
                rc = crc;
            else
                val_probe_err_append(err, "; the schema tfsim_probe may remain (the next probe drops it)");
        }
    }
    free(pids);
    return rc;
}

/* ---- accessors for the live driver ---- */

/* A probe context with just the connection parameters and a timeout. */
static int accessor_init(pprobe *p, val_probe_opts *o, const val_pg_conn *c, double timeout,
                         sim_err *err)
{
    memset(p, 0, sizeof *p);
    val_probe_opts_init(o);
    o->timeout = timeout;
    o->stop = c->stop;
    p->cfg = c;
    p->o = o;
    return describe(p, err);
}

int val_probe_pg_where(const val_pg_conn *c, char *where, size_t len, sim_err *err)
{
    pprobe p;
    val_probe_opts o;
    int rc = accessor_init(&p, &o, c, 1, err);
    if (rc == SIM_OK)
        snprintf(where, len, "%s", p.where);
    return rc;
}

PGconn *val_probe_pg_connect(const val_pg_conn *c, double timeout, sim_err *err)
{
    pprobe p;
    val_probe_opts o;
    return accessor_init(&p, &o, c, timeout, err) ? NULL : connect_one(&p, err);
}

int val_probe_pg_numbers(const val_pg_conn *c, PGconn *conn, const char *sql, const char *what,
                         double timeout, double *vals, int nvals, sim_err *err)
{
    assert(vals || nvals == 0);
    for (int i = 0; i < nvals; i++)
        vals[i] = NAN;
    pprobe p;
    val_probe_opts o;
    int rc = accessor_init(&p, &o, c, timeout, err);
    return rc ? rc : exec_wait(&p, conn, sql, what, timeout, vals, nvals, err);
}

int val_probe_pg_exec(const val_pg_conn *c, PGconn *conn, const char *sql, const char *what,
                      double timeout, sim_err *err)
{
    return val_probe_pg_numbers(c, conn, sql, what, timeout, NULL, 0, err);
}

void val_probe_pg_cancel(const val_pg_conn *c, PGconn *conn, const int *pids, size_t n, double timeout)
{
    pprobe p;
    val_probe_opts o;
    sim_err ign = {0};
    if (accessor_init(&p, &o, c, timeout, &ign) == SIM_OK)
        cancel_backends(&p, conn, pids, n, timeout);
}

const char *val_probe_pg_one_line(const char *in, char *out, size_t len)
{
    return one_line(in, out, len);
}
