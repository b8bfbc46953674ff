#include "validate/val_live_srv.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>
#include <libpq-fe.h>

#include "validate/val_probe.h"

/* TigerFans' Redis pool holds at most this many connections. */
#define REDIS_POOL_MAX 512u

void val_live_srv_init(val_live_srv *s)
{
    memset(s, 0, sizeof *s);
    s->redis.db = VAL_REDIS_DEFAULT_DB;
    s->timeout = 5;
}

typedef struct pgc {
    PGconn *c;
    int busy, want_write;
    unsigned tag;
    int kind;
    double deadline;
    long long value;
    char *error;        /* first error of the statement in flight */
    int pid;            /* backend process */
    double cpu0, wait0; /* its CPU and CPU-wait seconds at the start */
} pgc;

typedef struct rdc {
    redisContext *c;
    int busy, want_write, pending, exec_last;
    unsigned tag;
    int kind;
    double deadline;
} rdc;

typedef struct queued {
    val_live_call call;
    unsigned tag;
} queued;

/* The counters a phase's share is taken of (counters()), in this order. */
enum { SRV_FLUSHES, SRV_FLUSH_TIME, SRV_WAIT, SRV_THREADED, SRV_CLOCK, SRV_NCOUNT };

typedef struct srv {
    const tf_params *p;
    const val_live_srv *s;
    char pg_where[400], rd_where[300], prefix[128];
    pgc *pg;
    unsigned npg;
    rdc *rd;
    unsigned nrd, *rd_free, nrd_free;
    queued *rq;          /* Redis calls waiting for a free connection (FIFO) */
    unsigned rq_head, rq_len, rq_cap;
    struct pollfd *pf;
    unsigned *who;       /* pf index -> connection (PG: i, Redis: npg + i) */
    uint64_t ncalls;
    /* the counters at the last phase's end (or the run's start) and the
     * phases' shares of them (counters; NaN: phase not run); what reading
     * them at the phases' ends cost the loop's thread (CPU seconds, times
     * it blocked) and took (seconds): not the run's */
    double mark[SRV_NCOUNT], ph[SRV_NCOUNT][TF_NPHASES];
    double mark_cpu, mark_sleeps, mark_wall;
} srv;

/* ---- CPU accounting ---- */

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Voluntary context switches of the calling thread (it blocked: here, the
 * loop slept in poll and a reply woke it), NaN if unreadable. */
static double thread_sleeps(void)
{
    FILE *f = fopen("/proc/thread-self/status", "r");
    if (!f)
        return NAN;
    char line[256];
    double v = NAN;
    unsigned long long n;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "voluntary_ctxt_switches: %llu", &n) == 1)
            v = (double)n;
    fclose(f);
    return v;
}

/* From a schedstat file (path): seconds on a CPU into *cpu and seconds
 * runnable but waiting for one into *wait; both NaN if unreadable. */
static void sched_read(const char *path, double *cpu, double *wait)
{
    FILE *f = fopen(path, "r");
    unsigned long long run = 0, delay = 0;
    int n = f ? fscanf(f, "%llu %llu", &run, &delay) : 0;
    if (f)
        fclose(f);
    *cpu = n >= 1 ? (double)run * 1e-9 : NAN;
    *wait = n == 2 ? (double)delay * 1e-9 : NAN;
}

/* The same for process pid. */
static void proc_sched(int pid, double *cpu, double *wait)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/schedstat", pid);
    sched_read(path, cpu, wait);
}

/* CPU seconds the whole host has spent busy (all cores), NaN if unknown. */
static double host_cpu(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return NAN;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    if (n < 8 || hz <= 0)
        return NAN;
    /* user nice system idle iowait irq softirq steal: all but idle, iowait */
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)hz;
}

int val_live_srv_redis_local(const val_redis_conn *c)
{
    const char *h = c->host;
    return c->socket || !h || !strcmp(h, "localhost") || !strncmp(h, "127.", 4) || !strcmp(h, "::1");
}

/* ---- PostgreSQL ---- */

static const char *resource(char *buf, size_t len, int goodie, int cls)
{
    if (goodie)
        snprintf(buf, len, "goodie");
    else
        snprintf(buf, len, "ticket:%d", cls);
    return buf;
}

/* Send the statement of call c on connection k; 0 or -1 (libpq error). */
static int pg_send(srv *S, pgc *k, const val_live_call *c)
{
    char a[64], b[64], h[64], g[64], d[64];
    const char *v[10];
    int n = 0;
    const char *sql = NULL;
    snprintf(a, sizeof a, "s%llu", (unsigned long long)c->id);
    switch (c->op) {
    case TF_Q_PING:
        sql = "SELECT 1";
        break;
    case TF_Q_BEGIN:
        sql = "BEGIN";
        break;
    case TF_Q_COMMIT:
        sql = "COMMIT";
        break;
    case TF_Q_LOCK_TICKET:
    case TF_Q_LOCK_GOODIE:
        v[n++] = resource(b, sizeof b, c->op == TF_Q_LOCK_GOODIE, c->cls);
        sql = S->p->row_locks ? "SELECT capacity FROM tfsim_live.resources WHERE id = $1 FOR UPDATE"
                              : "SELECT capacity FROM tfsim_live.resources WHERE id = $1";
        break;
    case TF_Q_SUM:
        /* per resource (ticket, then goodie): posted, then unexpired pending */
        v[n++] = resource(b, sizeof b, c->nth >= 2, c->cls);
        sql = c->nth % 2 == 0 ? "SELECT coalesce(sum(qty), 0) FROM tfsim_live.holds"
                                " WHERE resource = $1 AND status = 'posted'"
                              : "SELECT coalesce(sum(qty), 0) FROM tfsim_live.holds"
                                " WHERE resource = $1 AND status = 'pending' AND expires_at > now()";
        break;
    case TF_Q_INSERT_TICKET:
    case TF_Q_INSERT_GOODIE:
        v[n++] = resource(b, sizeof b, c->op == TF_Q_INSERT_GOODIE, c->cls);
        sql = "INSERT INTO tfsim_live.holds (resource, qty, status, expires_at)"
              " VALUES ($1, 1, 'pending', now() + interval '15 minutes') RETURNING id";
        break;
    case TF_Q_UPDATE:
        if (c->kind == TF_K_COMMIT_ORDER) {
            /* one statement posts the order's pending holds */
            snprintf(h, sizeof h, "%lld", c->holds[0]);
            snprintf(g, sizeof g, "%lld", c->holds[1]);
            v[n++] = h;
            v[n++] = c->npost == 2 && c->holds[1] ? g : NULL;
            sql = "UPDATE tfsim_live.holds SET status = 'posted' WHERE id IN ($1, $2) AND status = 'pending'";
        } else {
            v[n++] = a;
            sql = "UPDATE tfsim_live.payment_sessions SET fulfilled = true WHERE id = $1 AND NOT fulfilled";
        }
        break;
    case TF_Q_SELECT:
        v[n++] = a;
        sql = "SELECT * FROM tfsim_live.payment_sessions WHERE id = $1";
        break;
    case TF_Q_INSERT:
        v[n++] = a;
        if (c->kind == TF_K_FULFILL) {
            sql = "INSERT INTO tfsim_live.fulfilled (session_id) VALUES ($1) ON CONFLICT DO NOTHING";
        } else if (c->kind == TF_K_REMOVE) {
            sql = "DELETE FROM tfsim_live.payment_sessions WHERE id = $1";
        } else if (c->nth == 1) {
            /* the save's second statement: the pending-set entry (ZADD) */
            sql = "INSERT INTO tfsim_live.pending_sessions (session_id, expires_at)"
                  " VALUES ($1, now() + interval '15 minutes')";
        } else {
            snprintf(b, sizeof b, "ord-%llu", (unsigned long long)c->id);
            snprintf(g, sizeof g, "%lld", c->holds[0]);
            snprintf(d, sizeof d, "%lld", c->holds[1]);
            v[n++] = b;
            v[n++] = c->cls % 2 ? "A" : "B";
            v[n++] = "1";
            v[n++] = g;
            v[n++] = d;
            v[n++] = "4900";
            v[n++] = "EUR";
            v[n++] = "buyer@example.org";
            sql = "INSERT INTO tfsim_live.payment_sessions (id, order_id, ticket_class, try_goodie,"
                  " ticket_hold_id, goodie_hold_id, amount_cents, currency, customer_email,"
                  " created_at, status, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,"
                  " now(), 'pending', now() + interval '15 minutes')";
        }
        break;
    case TF_Q_ORDER:
        v[n++] = a;
        snprintf(b, sizeof b, "%d", c->cls);
        v[n++] = b;
        snprintf(g, sizeof g, "%lld", c->holds[0]);
        snprintf(d, sizeof d, "%lld", c->holds[1]);
        v[n++] = c->holds[0] ? g : NULL;
        v[n++] = c->holds[1] ? d : NULL;
        sql = "INSERT INTO tfsim_live.orders (session_id, ticket_class, ticket_hold, goodie_hold)"
              " VALUES ($1, $2, $3, $4)";
        break;
    default:
        assert(0 && "unknown statement");
    }
    int ok = n ? PQsendQueryParams(k->c, sql, n, NULL, v, NULL, NULL, 0) : PQsendQuery(k->c, sql);
    if (!ok)
        return -1;
    int f = PQflush(k->c);
    if (f < 0)
        return -1;
    k->want_write = f == 1;
    return 0;
}

static int pg_fail(srv *S, unsigned i, const char *what, sim_err *err)
{
    char why[600];
    return sim_err_set_at(
        err, SIM_EFAIL, S->pg_where, "connection %u: %s failed after %llu round trips: %s", i,
        tf_kind_names[S->pg[i].kind], (unsigned long long)S->ncalls,
        what ? what : val_probe_pg_one_line(PQerrorMessage(S->pg[i].c), why, sizeof why));
}

static int pg_ready(srv *S, val_live *e, unsigned i, short revents, sim_err *err)
{
    pgc *k = &S->pg[i];
    if (revents & POLLOUT) {
        int f = PQflush(k->c);
        if (f < 0)
            return pg_fail(S, i, NULL, err);
        k->want_write = f == 1;
    }
    if (!(revents & (POLLIN | POLLHUP | POLLERR)))
        return SIM_OK;
    if (!PQconsumeInput(k->c))
        return pg_fail(S, i, NULL, err);
    while (k->busy && !PQisBusy(k->c)) {
        PGresult *r = PQgetResult(k->c);
        if (r) {
            ExecStatusType st = PQresultStatus(r);
            char why[600];
            if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && !k->error) {
                k->error = strdup(val_probe_pg_one_line(PQresultErrorMessage(r), why, sizeof why));
                assert(k->error);
            }
            if (st == PGRES_TUPLES_OK && PQntuples(r) > 0 && PQnfields(r) > 0 && !PQgetisnull(r, 0, 0))
                k->value = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
            PQclear(r);
            continue;
        }
        if (k->error)
            return pg_fail(S, i, k->error, err);
        k->busy = 0;
        S->ncalls++;
        val_live_done(e, k->tag, k->value, val_probe_mono());
    }
    return SIM_OK;
}

/* ---- Redis ---- */

static int rd_fail(srv *S, unsigned i, const char *what, sim_err *err)
{
    return sim_err_set_at(err, SIM_EFAIL, S->rd_where,
                          "connection %u: %s failed after %llu round trips: %s", i,
                          tf_kind_names[S->rd[i].kind], (unsigned long long)S->ncalls, what);
}

static int rd_lost(srv *S, unsigned i, sim_err *err)
{
    const redisContext *c = S->rd[i].c;
    char why[300];
    snprintf(why, sizeof why, "connection lost (%s)", c->err == REDIS_ERR_EOF ? "the server closed it" : c->errstr);
    return rd_fail(S, i, why, err);
}

static int rd_write(srv *S, unsigned i, sim_err *err)
{
    int done = 0;
    if (redisBufferWrite(S->rd[i].c, &done) != REDIS_OK)
        return rd_lost(S, i, err);
    S->rd[i].want_write = !done;
    return SIM_OK;
}

/* Probe operation index and round for a tf_redis_op. */
static void rd_op(int op, int *probe_op, int *round)
{
    /* val_probe_redis_ops: save, get, fulfill (two rounds), remove_pending */
    static const int map[][2] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {3, 0}};
    *probe_op = map[op][0];
    *round = map[op][1];
}

static int rd_send(srv *S, unsigned i, const val_live_call *c, unsigned tag, double now, sim_err *err)
{
    rdc *k = &S->rd[i];
    int pop, round;
    rd_op(c->op, &pop, &round);
    k->pending = val_probe_redis_append(k->c, S->prefix, pop, round, c->id);
    assert(k->pending > 0);
    k->exec_last = c->op == TF_R_SAVE || c->op == TF_R_REMOVE;
    k->busy = 1;
    k->tag = tag;
    k->kind = c->kind;
    k->deadline = now + S->s->timeout;
    return rd_write(S, i, err);
}

static int rd_ready(srv *S, val_live *e, unsigned i, short revents, sim_err *err)
{
    rdc *k = &S->rd[i];
    int rc;
    if ((revents & POLLOUT) && (rc = rd_write(S, i, err)))
        return rc;
    if (!(revents & (POLLIN | POLLHUP | POLLERR)))
        return SIM_OK;
    if (redisBufferRead(k->c) != REDIS_OK)
        return rd_lost(S, i, err);
    while (k->busy) {
        void *reply = NULL;
        if (redisGetReplyFromReader(k->c, &reply) != REDIS_OK)
            return rd_fail(S, i, "bad reply", err);
        if (!reply)
            return SIM_OK;
        redisReply *r = reply;
        char why[400] = "";
        if (r->type == REDIS_REPLY_ERROR)
            snprintf(why, sizeof why, "the server replied with an error: %s", r->str);
        else if (k->pending == 1 && k->exec_last && r->type != REDIS_REPLY_ARRAY)
            snprintf(why, sizeof why, "the transaction was aborted (EXEC returned no array)");
        else if (k->pending == 1 && k->exec_last)
            for (size_t j = 0; j < r->elements && !why[0]; j++)
                if (r->element[j]->type == REDIS_REPLY_ERROR)
                    snprintf(why, sizeof why, "a command in the transaction failed: %s", r->element[j]->str);
        freeReplyObject(reply);
        if (why[0])
            return rd_fail(S, i, why, err);
        if (--k->pending > 0)
            continue;
        k->busy = 0;
        S->ncalls++;
        val_live_done(e, k->tag, 0, val_probe_mono());
        if (S->rq_len > 0) {
            /* a call waiting for a connection takes this one */
            queued q = S->rq[S->rq_head];
            S->rq_head = (S->rq_head + 1) % S->rq_cap;
            S->rq_len--;
            return rd_send(S, i, &q.call, q.tag, val_probe_mono(), err);
        }
        S->rd_free[S->nrd_free++] = i;
    }
    return SIM_OK;
}

/* ---- the backend interface ---- */

static double io_now(void *ctx)
{
    (void)ctx;
    return val_probe_mono();
}

static void io_spin(void *ctx, double seconds)
{
    (void)ctx;
    double end = val_probe_mono() + seconds;
    while (val_probe_mono() < end)
        ;
}

static int io_start(void *ctx, const val_live_call *c, unsigned tag, sim_err *err)
{
    srv *S = ctx;
    double now = val_probe_mono();
    if (c->code == TF_U_PG) {
        assert(c->conn < S->npg);
        pgc *k = &S->pg[c->conn];
        assert(!k->busy);
        k->busy = 1;
        k->tag = tag;
        k->kind = c->kind;
        k->value = 0;
        k->deadline = now + S->s->timeout;
        if (pg_send(S, k, c))
            return pg_fail(S, c->conn, NULL, err);
        return SIM_OK;
    }
    if (S->nrd_free == 0) {
        assert(S->rq_len < S->rq_cap);
        S->rq[(S->rq_head + S->rq_len++) % S->rq_cap] = (queued){*c, tag};
        return SIM_OK;
    }
    return rd_send(S, S->rd_free[--S->nrd_free], c, tag, now, err);
}

static int io_wait(void *ctx, val_live *e, int block, sim_err *err)
{
    srv *S = ctx;
    nfds_t n = 0;
    double now = val_probe_mono(), first = INFINITY;
    for (unsigned i = 0; i < S->npg; i++) {
        pgc *k = &S->pg[i];
        if (!k->busy)
            continue;
        S->pf[n] = (struct pollfd){PQsocket(k->c), (short)(POLLIN | (k->want_write ? POLLOUT : 0)), 0};
        S->who[n++] = i;
        if (k->deadline < first)
            first = k->deadline;
    }
    for (unsigned i = 0; i < S->nrd; i++) {
        rdc *k = &S->rd[i];
        if (!k->busy)
            continue;
        S->pf[n] = (struct pollfd){k->c->fd, (short)(POLLIN | (k->want_write ? POLLOUT : 0)), 0};
        S->who[n++] = S->npg + i;
        if (k->deadline < first)
            first = k->deadline;
    }
    assert(n > 0 || !block);
    int ms = !block || first <= now ? 0 : (int)ceil((first - now) * 1e3);
    int nr = poll(S->pf, n, ms);
    if (nr < 0) {
        if (errno == EINTR)
            return SIM_OK; /* the engine looks at the stop flag */
        return sim_err_set(err, SIM_EFAIL, "poll failed: %s", strerror(errno));
    }
    int rc = SIM_OK;
    for (nfds_t j = 0; j < n && rc == SIM_OK; j++) {
        if (!S->pf[j].revents)
            continue;
        unsigned w = S->who[j];
        rc = w < S->npg ? pg_ready(S, e, w, S->pf[j].revents, err)
                        : rd_ready(S, e, w - S->npg, S->pf[j].revents, err);
    }
    now = val_probe_mono();
    for (unsigned i = 0; i < S->npg && rc == SIM_OK; i++)
        if (S->pg[i].busy && now > S->pg[i].deadline)
            rc = sim_err_set_at(
                err, SIM_EFAIL, S->pg_where,
                "connection %u: no reply within %g s to %s after %llu round trips (the "
                "server is down or frozen, or the statement waits, e.g. on a lock; it may "
                "still run there)",
                i, S->s->timeout, tf_kind_names[S->pg[i].kind], (unsigned long long)S->ncalls);
    for (unsigned i = 0; i < S->nrd && rc == SIM_OK; i++)
        if (S->rd[i].busy && now > S->rd[i].deadline)
            rc = sim_err_set_at(err, SIM_EFAIL, S->rd_where,
                                "connection %u: no reply within %g s to %s after %llu round trips "
                                "(server not answering)",
                                i, S->s->timeout, tf_kind_names[S->rd[i].kind],
                                (unsigned long long)S->ncalls);
    return rc;
}

/* ---- setup and cleanup ---- */

static int setup_schema(srv *S, sim_err *err)
{
    const tf_params *p = S->p;
    size_t len = 4096 + 64 * (size_t)p->classes;
    char *sql = malloc(len);
    assert(sql && "out of memory");
    int n = snprintf(sql, len,
        "SET client_min_messages = warning;"
        "DROP SCHEMA IF EXISTS tfsim_live CASCADE;"
        "CREATE SCHEMA tfsim_live;"
        "CREATE TABLE tfsim_live.resources (id text PRIMARY KEY, capacity bigint NOT NULL);"
        "CREATE TABLE tfsim_live.holds (id bigserial PRIMARY KEY, resource text NOT NULL,"
        " qty integer NOT NULL, status text NOT NULL, expires_at timestamptz NOT NULL,"
        " created_at timestamptz NOT NULL DEFAULT now());"
        "CREATE INDEX holds_resource_status ON tfsim_live.holds (resource, status);"
        "CREATE TABLE tfsim_live.orders (id bigserial PRIMARY KEY, session_id text NOT NULL,"
        " ticket_class text NOT NULL, ticket_hold bigint, goodie_hold bigint,"
        " created_at timestamptz NOT NULL DEFAULT now());"
        "CREATE TABLE tfsim_live.payment_sessions (id text PRIMARY KEY, order_id text NOT NULL,"
        " ticket_class text NOT NULL, try_goodie text NOT NULL, ticket_hold_id text,"
        " goodie_hold_id text, amount_cents integer NOT NULL, currency text NOT NULL,"
        " customer_email text NOT NULL, created_at timestamptz NOT NULL, status text NOT NULL,"
        " fulfilled boolean NOT NULL DEFAULT false, expires_at timestamptz NOT NULL);"
        "CREATE TABLE tfsim_live.fulfilled (session_id text PRIMARY KEY);"
        "CREATE TABLE tfsim_live.pending_sessions (session_id text PRIMARY KEY,"
        " expires_at timestamptz NOT NULL);"
        "INSERT INTO tfsim_live.resources VALUES ('goodie', %.0f)", p->goodies);
    for (long c = 0; c < p->classes; c++)
        n += snprintf(sql + n, len - (size_t)n, ", ('ticket:%ld', %.0f)", c, p->tickets);
    snprintf(sql + n, len - (size_t)n, ";");
    int rc = val_probe_pg_exec(&S->s->pg, S->pg[0].c, sql, "creating the schema tfsim_live",
                               S->s->timeout, err);
    free(sql);
    if (rc == SIM_OK && p->holds_rows >= 1) {
        char pre[512];
        /* posted holds spread over the ticket classes and the goodie */
        snprintf(pre, sizeof pre,
                 "INSERT INTO tfsim_live.holds (resource, qty, status, expires_at)"
                 " SELECT CASE WHEN g %% %ld = 0 THEN 'goodie' ELSE 'ticket:' || (g %% %ld - 1) END,"
                 " 1, 'posted', now() FROM generate_series(1, %.0f) AS g",
                 p->classes + 1, p->classes + 1, floor(p->holds_rows));
        rc = val_probe_pg_exec(&S->s->pg, S->pg[0].c, pre, "preloading the holds table",
                               S->s->timeout + p->holds_rows / 20000, err);
    }
    if (rc == SIM_OK)
        rc = val_probe_pg_exec(&S->s->pg, S->pg[0].c, "ANALYZE tfsim_live.holds",
                               "analyzing the holds table", S->s->timeout, err);
    /* Warm every connection's caches (tables, indexes, plans) with one
     * statement of each kind in a transaction that is rolled back: the
     * first statements of a fresh backend are several times slower. */
    static const char warm[] =
        "BEGIN;"
        "SELECT capacity FROM tfsim_live.resources WHERE id = 'goodie';"
        "SELECT coalesce(sum(qty), 0) FROM tfsim_live.holds WHERE resource = 'goodie' AND status = 'posted';"
        "SELECT coalesce(sum(qty), 0) FROM tfsim_live.holds WHERE resource = 'goodie'"
        " AND status = 'pending' AND expires_at > now();"
        "INSERT INTO tfsim_live.holds (resource, qty, status, expires_at) VALUES ('goodie', 1, 'pending', now());"
        "UPDATE tfsim_live.holds SET status = 'posted' WHERE id = 0 AND status = 'pending';"
        "INSERT INTO tfsim_live.orders (session_id, ticket_class) VALUES ('warm', '0');"
        "INSERT INTO tfsim_live.payment_sessions (id, order_id, ticket_class, try_goodie, amount_cents,"
        " currency, customer_email, created_at, status, expires_at) VALUES ('warm', 'warm', 'A', '1',"
        " 1, 'EUR', 'x', now(), 'pending', now());"
        "SELECT * FROM tfsim_live.payment_sessions WHERE id = 'warm';"
        "UPDATE tfsim_live.payment_sessions SET fulfilled = true WHERE id = 'warm' AND NOT fulfilled;"
        "INSERT INTO tfsim_live.fulfilled (session_id) VALUES ('warm') ON CONFLICT DO NOTHING;"
        "INSERT INTO tfsim_live.pending_sessions (session_id, expires_at) VALUES ('warm', now());"
        "DELETE FROM tfsim_live.payment_sessions WHERE id = 'warm';"
        "ROLLBACK";
    for (unsigned i = 0; i < S->npg && rc == SIM_OK; i++)
        rc = val_probe_pg_exec(&S->s->pg, S->pg[i].c, warm, "warming up the connections", S->s->timeout, err);
    return rc;
}

static int connect_all(srv *S, sim_err *err)
{
    const tf_params *p = S->p;
    int rc = val_probe_pg_where(&S->s->pg, S->pg_where, sizeof S->pg_where, err);
    if (rc)
        return rc;
    unsigned npg = val_live_pool_size(p);
    S->pg = calloc(npg, sizeof *S->pg);
    assert(S->pg && "out of memory");
    for (unsigned i = 0; i < npg; i++) {
        PGconn *c = val_probe_pg_connect(&S->s->pg, S->s->timeout, err);
        if (!c)
            return err->code;
        S->pg[S->npg++].c = c;
        S->pg[i].pid = PQbackendPID(c);
    }
    if (p->payments == TF_REDIS) {
        val_probe_redis_where(&S->s->redis, S->rd_where, sizeof S->rd_where);
        unsigned nrd = val_live_slots(p);
        if (nrd > REDIS_POOL_MAX)
            nrd = REDIS_POOL_MAX;
        S->rd = calloc(nrd, sizeof *S->rd);
        S->rd_free = malloc(nrd * sizeof *S->rd_free);
        S->rq_cap = val_live_slots(p);
        S->rq = malloc(S->rq_cap * sizeof *S->rq);
        assert(S->rd && S->rd_free && S->rq && "out of memory");
        for (unsigned i = 0; i < nrd; i++) {
            redisContext *c = val_probe_redis_connect(&S->s->redis, S->s->timeout, err);
            if (!c)
                return err->code;
            S->rd[S->nrd++].c = c;
            S->rd_free[S->nrd_free++] = nrd - 1 - i;
        }
    }
    unsigned nfd = S->npg + S->nrd;
    S->pf = calloc(nfd, sizeof *S->pf);
    S->who = calloc(nfd, sizeof *S->who);
    assert(S->pf && S->who && "out of memory");
    return SIM_OK;
}

/* Drop the schema and the keys.  After a failure (failed = 1) problems
 * only add a note to err. */
static int cleanup(srv *S, int schema_made, int failed, sim_err *err)
{
    sim_err cerr = {0};
    sim_err *e = failed ? &cerr : err;
    int rc = SIM_OK;
    if (S->nrd > 0 && val_probe_redis_cleanup(&S->s->redis, S->prefix, S->s->timeout, e) != SIM_OK) {
        rc = SIM_EFAIL;
        if (failed)
            val_probe_err_append(err, "; keys under the prefix may remain");
    }
    if (schema_made && !S->s->pg.keep) {
        PGconn *c = val_probe_pg_connect(&S->s->pg, S->s->timeout, e);
        if (c && failed && S->npg > 0) {
            /* a backend may still run its statement (the preload): cancel
             * the run's before the DROP waits for their locks */
            int *pids = malloc(S->npg * sizeof *pids);
            assert(pids && "out of memory");
            for (unsigned i = 0; i < S->npg; i++)
                pids[i] = S->pg[i].pid;
            val_probe_pg_cancel(&S->s->pg, c, pids, S->npg, S->s->timeout);
            free(pids);
        }
        int crc = c ? val_probe_pg_exec(&S->s->pg, c,
                                        "SET client_min_messages = warning;"
                                        "DROP SCHEMA IF EXISTS tfsim_live CASCADE",
                                        "dropping the schema tfsim_live", S->s->timeout, e)
                    : SIM_EFAIL;
        PQfinish(c);
        if (crc != SIM_OK) {
            rc = SIM_EFAIL;
            if (failed)
                val_probe_err_append(err, "; the schema tfsim_live may remain (the next run drops it)");
        }
    }
    return rc;
}

/* The server's WAL flushes so far (pg_stat_wal, PostgreSQL 14 or later):
 * *syncs the fdatasync calls, *secs the seconds spent writing and syncing
 * WAL when track_wal_io_timing is on in the server's configuration (its
 * reset_val: every backend times its flushes); NaN when unknown.  First
 * each of the run's backends reports the statistics it holds back
 * (pg_stat_force_next_flush, PostgreSQL 15: a backend otherwise reports
 * at most once a second), so that the run's last commits count.  The
 * figures are the whole server's: other clients' commits count too. */
static void wal_stats(srv *S, double *syncs, double *secs)
{
    sim_err e = {0};
    *syncs = *secs = NAN;
    for (unsigned i = 0; i < S->npg; i++)
        if (val_probe_pg_exec(&S->s->pg, S->pg[i].c, "SELECT pg_stat_force_next_flush()",
                              "reporting WAL statistics", S->s->timeout, &e) != SIM_OK)
            break; /* before PostgreSQL 15: counts may lag by a second */
    double v[3];
    if (val_probe_pg_numbers(&S->s->pg, S->pg[0].c,
                             "SELECT wal_sync, wal_sync_time + wal_write_time, "
                             "(SELECT (reset_val = 'on')::int FROM pg_settings "
                             "WHERE name = 'track_wal_io_timing') FROM pg_stat_wal",
                             "reading pg_stat_wal", S->s->timeout, v, 3, &e) != SIM_OK)
        return;
    *syncs = v[0];
    if (v[2] == 1)
        *secs = v[1] / 1000;
}

/* The counters a phase's share is taken of: WAL flushes and their
 * seconds (wal_stats), the loop's and the backends' seconds waiting for a
 * CPU, Redis's threaded writes (NaN without Redis), the clock (io_now's).
 * Costs a round trip to every backend, one to Redis and one file per
 * backend. */
static void counters(srv *S, double c[SRV_NCOUNT])
{
    c[SRV_CLOCK] = io_now(S);
    wal_stats(S, &c[SRV_FLUSHES], &c[SRV_FLUSH_TIME]);
    double cpu, w;
    sched_read("/proc/thread-self/schedstat", &cpu, &c[SRV_WAIT]);
    for (unsigned i = 0; i < S->npg; i++) {
        proc_sched(S->pg[i].pid, &cpu, &w);
        c[SRV_WAIT] += w;
    }
    c[SRV_THREADED] = S->nrd ? val_probe_redis_threaded_writes(S->rd[0].c) : NAN;
}

/* A phase is complete: its shares of the counters.  The reading's own
 * cost to the loop's thread and its time are set aside (mark_*). */
static void io_phase_end(void *ctx, int phase)
{
    srv *S = ctx;
    const double cpu0 = thread_cpu(), sleeps0 = thread_sleeps(), t0 = io_now(S);
    double c[SRV_NCOUNT];
    counters(S, c);
    for (int k = 0; k < SRV_NCOUNT; k++) {
        S->ph[k][phase] = c[k] - S->mark[k];
        S->mark[k] = c[k];
    }
    S->mark_cpu += thread_cpu() - cpu0;
    S->mark_sleeps += thread_sleeps() - sleeps0;
    S->mark_wall += io_now(S) - t0;
}

int val_live_run(const tf_params *p, const val_live_opts *o, const val_live_srv *s,
                 val_live_out *out, sim_err *err)
{
    memset(out, 0, sizeof *out);
    out->redis_io_reads = -1;
    int rc = val_live_check(p, err);
    if (rc)
        return rc;
    srv S;
    memset(&S, 0, sizeof S);
    S.p = p;
    S.s = s;
    if (s->redis.prefix)
        snprintf(S.prefix, sizeof S.prefix, "%s", s->redis.prefix);
    else
        snprintf(S.prefix, sizeof S.prefix, "tfsim:live:%ld:", (long)getpid());
    rc = connect_all(&S, err);
    int schema_made = 0;
    if (rc == SIM_OK) {
        rc = setup_schema(&S, err);
        schema_made = 1;
    }
    if (rc == SIM_OK) {
        val_live_io io = {&S, io_now, io_spin, io_start, io_wait, io_phase_end};
        /* the counters first (the run's WAL flushes and threaded writes
         * are counted from them), so that their statements' CPU is not
         * the run's */
        counters(&S, S.mark);
        const double ws0 = S.mark[SRV_FLUSHES], wt0 = S.mark[SRV_FLUSH_TIME], tw0 = S.mark[SRV_THREADED];
        for (unsigned i = 0; i < S.npg; i++)
            proc_sched(S.pg[i].pid, &S.pg[i].cpu0, &S.pg[i].wait0);
        double r0 = S.nrd ? val_probe_redis_cpu(S.rd[0].c) : NAN;
        for (int k = 0; k < SRV_NCOUNT; k++)
            for (int i = 0; i < TF_NPHASES; i++)
                S.ph[k][i] = NAN;
        double lc0, lw0, lc1, lw1;
        sched_read("/proc/thread-self/schedstat", &lc0, &lw0);
        double h0 = host_cpu(), l0 = thread_cpu(), s0 = thread_sleeps();
        rc = val_live_run_io(p, o, &io, out, err);
        /* less what reading the counters at the phases' ends cost */
        out->loop_cpu = thread_cpu() - l0 - S.mark_cpu;
        out->loop_sleeps = thread_sleeps() - s0 - S.mark_sleeps;
        out->elapsed -= S.mark_wall;
        out->host_cpu = host_cpu() - h0;
        sched_read("/proc/thread-self/schedstat", &lc1, &lw1);
        out->loop_wait = lw1 - lw0;
        for (int i = 0; i < TF_NPHASES; i++) {
            out->ph_flushes[i] = S.ph[SRV_FLUSHES][i];
            out->ph_flush_time[i] = S.ph[SRV_FLUSH_TIME][i];
            out->ph_wait[i] = S.ph[SRV_WAIT][i];
            out->ph_threaded[i] = S.ph[SRV_THREADED][i];
            out->ph_elapsed[i] = S.ph[SRV_CLOCK][i];
        }
        double pgc_ = 0, pgw = 0;
        for (unsigned i = 0; i < S.npg; i++) {
            double c1, w1;
            proc_sched(S.pg[i].pid, &c1, &w1);
            pgc_ += c1 - S.pg[i].cpu0;
            pgw += w1 - S.pg[i].wait0;
        }
        out->pg_cpu = pgc_;
        out->pg_wait = pgw;
        out->redis_cpu = rc == SIM_OK && S.nrd && val_live_srv_redis_local(&s->redis) ? val_probe_redis_cpu(S.rd[0].c) - r0 : NAN;
        if (rc == SIM_OK && S.nrd) {
            double trips = 0;
            for (int c = VAL_LIVE_REDIS0; c < VAL_LIVE_NCLASS; c++)
                trips += out->call[c].n;
            double tw1 = val_probe_redis_threaded_writes(S.rd[0].c);
            if (trips > 0 && isfinite(tw0) && isfinite(tw1))
                out->redis_threaded_writes = (tw1 - tw0) / trips;
        }
        if (rc == SIM_OK) {
            double ws1, wt1;
            wal_stats(&S, &ws1, &wt1);
            out->pg_flushes = ws1 - ws0;
            out->pg_flush_time = wt1 - wt0;
        }
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        out->cores = ncpu > 0 ? (double)ncpu : NAN;
        out->redis_io_reads = -1;
        if (S.nrd)
            val_probe_redis_io_threads(S.rd[0].c, &out->redis_io_threads, &out->redis_io_reads);
    }
    for (unsigned i = 0; i < S.npg; i++) {
        free(S.pg[i].error);
        PQfinish(S.pg[i].c);
    }
    for (unsigned i = 0; i < S.nrd; i++)
        redisFree(S.rd[i].c);
    int crc = cleanup(&S, schema_made, rc != SIM_OK, err);
    if (rc == SIM_OK)
        rc = crc;
    free(S.pg);
    free(S.rd);
    free(S.rd_free);
    free(S.rq);
    free(S.pf);
    free(S.who);
    return rc;
}
