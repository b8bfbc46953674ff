#include "validate/val_probe_redis.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

enum { R_SAVE, R_GET, R_FULFILL, R_REMOVE, R_NOPS };

const char *const val_probe_redis_ops[] = {"paymentsession.save", "paymentsession.get",
                                           "paymentsession.fulfill",
                                           "paymentsession.remove_pending"};
const size_t val_probe_redis_nops = R_NOPS;

/* Session lifetime used by TigerFans for its Redis keys. */
#define SESSION_TTL 900

typedef struct rconn {
    val_probe_conn s;        /* what the phase loop keeps */
    redisContext *c;
    int round, pending;      /* round trip, replies still due */
    uint64_t id;             /* session id */
} rconn;
_Static_assert(offsetof(rconn, s) == 0, "the phase loop finds its val_probe_conn at the start");

typedef struct rprobe {
    const val_redis_conn *cfg;
    const val_probe_opts *o;
    val_probe_result *res;
    char where[300];     /* "redis at unix:/path (db 15)" */
    char prefix[128];
    rconn *k;
    unsigned nk;
    uint64_t id0, nids;  /* first session of the level, sessions saved */
    val_probe_loop loop; /* counts the operations completed */
} rprobe;

static struct timeval to_tv(double s)
{
    struct timeval tv;
    tv.tv_sec = (time_t)s;
    tv.tv_usec = (suseconds_t)((s - (double)tv.tv_sec) * 1e6);
    return tv;
}

/* Why a blocking hiredis call failed. */
static const char *ctx_error(const redisContext *c, int saved_errno, double timeout, char *buf,
                             size_t len)
{
    if (c->err == REDIS_ERR_IO && (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK))
        snprintf(buf, len, "no reply within %g s (server not answering)", timeout);
    else if (c->err == REDIS_ERR_EOF)
        snprintf(buf, len, "the server closed the connection");
    else
        snprintf(buf, len, "%s", c->errstr);
    return buf;
}

/* Run one command on a blocking connection and check its reply. */
static int setup_cmd(rprobe *p, redisContext *c, const char *what, sim_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    redisReply *r = redisvCommand(c, fmt, ap);
    int e = errno;
    va_end(ap);
    char why[256];
    if (!r)
        return sim_err_set_at(err, SIM_EFAIL, p->where,
                              "%s failed: %s", what, ctx_error(c, e, p->o->timeout, why, sizeof why));
    int rc = SIM_OK;
    if (r->type == REDIS_REPLY_ERROR) {
        if (!strncmp(r->str, "NOAUTH", 6))
            rc = sim_err_set_at(
                err, SIM_EFAIL, p->where,
                "%s refused: the server requires a password (give it with the command's "
                "Redis password option, see --help, or in TFSIM_REDIS_PASSWORD): %s",
                what, r->str);
        else if (!strcmp(what, "AUTH"))
            rc = sim_err_set_at(err, SIM_EFAIL, p->where,
                                "authentication failed (wrong password?): %s", r->str);
        else
            rc = sim_err_set_at(err, SIM_EFAIL, p->where, "%s failed: %s", what, r->str);
    }
    freeReplyObject(r);
    return rc;
}

static redisContext *connect_one(rprobe *p, sim_err *err)
{
    const val_redis_conn *cfg = p->cfg;
    struct timeval tv = to_tv(p->o->timeout);
    redisContext *c = cfg->socket ? redisConnectUnixWithTimeout(cfg->socket, tv)
                                  : redisConnectWithTimeout(cfg->host ? cfg->host : "127.0.0.1",
                                                            cfg->port ? cfg->port : 6379, tv);
    if (!c) {
        sim_err_set_at(err, SIM_EFAIL, p->where, "cannot connect: out of memory");
        return NULL;
    }
    if (c->err) {
        int e = errno;
        const char *hint = (e == ECONNREFUSED || e == ENOENT) ? " (is redis-server running there?)" : "";
        if (e == EINPROGRESS || e == ETIMEDOUT)
            sim_err_set_at(err, SIM_EFAIL, p->where,
                           "cannot connect: no answer within %g s", p->o->timeout);
        else
            sim_err_set_at(err, SIM_EFAIL, p->where, "cannot connect: %s%s", c->errstr, hint);
        redisFree(c);
        return NULL;
    }
    if (redisSetTimeout(c, tv) != REDIS_OK) {
        sim_err_set_at(err, SIM_EFAIL, p->where, "cannot set the socket timeout: %s", c->errstr);
        redisFree(c);
        return NULL;
    }
    int rc = SIM_OK;
    if (cfg->password && cfg->user)
        rc = setup_cmd(p, c, "AUTH", err, "AUTH %s %s", cfg->user, cfg->password);
    else if (cfg->password)
        rc = setup_cmd(p, c, "AUTH", err, "AUTH %s", cfg->password);
    if (rc == SIM_OK)
        rc = setup_cmd(p, c, "SELECT", err, "SELECT %d", cfg->db);
    if (rc != SIM_OK) {
        redisFree(c);
        return NULL;
    }
    return c;
}

/* ---- the operations ---- */

int val_probe_redis_append(redisContext *c, const char *prefix, int op, int round, uint64_t sid)
{
    char ks[160], kz[160], kf[160], id[32], now[32];
    snprintf(id, sizeof id, "%llu", (unsigned long long)sid);
    snprintf(ks, sizeof ks, "%sps:%llu", prefix, (unsigned long long)sid);
    snprintf(kz, sizeof kz, "%spending", prefix);
    switch (op) {
    case R_SAVE:
        if (round > 0)
            return 0;
        snprintf(now, sizeof now, "%.6f", val_probe_epoch());
        redisAppendCommand(c, "MULTI");
        redisAppendCommand(c,
                           "HSET %s session_id %s order_id ord-%s ticket_class %s try_goodie 1 "
                           "ticket_hold_id %016llx%016llx goodie_hold_id %016llx%016llx "
                           "amount_cents 4900 currency EUR customer_email buyer-%s@example.org "
                           "created_at %s status pending",
                           ks, id, id, sid % 2 ? "A" : "B", (unsigned long long)sid,
                           (unsigned long long)(2 * sid), (unsigned long long)sid,
                           (unsigned long long)(2 * sid + 1), id, now);
        redisAppendCommand(c, "EXPIRE %s %d", ks, SESSION_TTL);
        redisAppendCommand(c, "ZADD %s %s %s", kz, now, id);
        redisAppendCommand(c, "EXEC");
        return 5;
    case R_GET:
        if (round > 0)
            return 0;
        redisAppendCommand(c, "HGETALL %s", ks);
        return 1;
    case R_FULFILL:
        if (round == 0) {
            snprintf(kf, sizeof kf, "%sfulfilled:%llu", prefix, (unsigned long long)sid);
            redisAppendCommand(c, "SET %s 1 NX EX %d", kf, SESSION_TTL);
            return 1;
        }
        if (round == 1) {
            snprintf(kf, sizeof kf, "%sorder:%llu", prefix, (unsigned long long)sid);
            redisAppendCommand(c, "SET %s ord-%s NX EX %d", kf, id, SESSION_TTL);
            return 1;
        }
        return 0;
    case R_REMOVE:
        if (round > 0)
            return 0;
        redisAppendCommand(c, "MULTI");
        redisAppendCommand(c, "ZREM %s %s", kz, id);
        redisAppendCommand(c, "DEL %s", ks);
        redisAppendCommand(c, "EXEC");
        return 4;
    }
    assert(0 && "unknown redis operation");
    return 0;
}

/* Append the commands of round trip `round` of k's operation; returns how
 * many replies to expect (0: the operation is complete). */
static int append_round(rprobe *p, rconn *k)
{
    return val_probe_redis_append(k->c, p->prefix, k->s.op, k->round, k->id);
}

/* Send what is buffered; 0 or SIM_EFAIL. */
static int send_some(rprobe *p, rconn *k, unsigned i, sim_err *err)
{
    int done = 0;
    if (redisBufferWrite(k->c, &done) != REDIS_OK)
        return sim_err_set_at(err, SIM_EFAIL, p->where,
                              "connection %u: %s failed after %llu operations: connection lost (%s)", i,
                              val_probe_redis_ops[k->s.op], (unsigned long long)p->loop.ndone,
                              k->c->err == REDIS_ERR_EOF ? "the server closed it" : k->c->errstr);
    k->s.want_write = !done;
    return SIM_OK;
}

/* val_probe_loop.start: send the first round trip of the operation. */
static int start_op(val_probe_loop *l, unsigned i, sim_err *err)
{
    rprobe *p = l->ctx;
    rconn *k = &p->k[i];
    k->round = 0;
    k->id = p->id0 + (k->s.op == R_SAVE || p->nids == 0 ? k->s.index : k->s.index % p->nids);
    k->pending = append_round(p, k);
    assert(k->pending > 0);
    return send_some(p, k, i, err);
}

/* Check one reply; SIM_EFAIL for an error reply or an aborted EXEC. */
static int check_reply(rprobe *p, const rconn *k, unsigned i, const redisReply *r, sim_err *err)
{
    const char *op = val_probe_redis_ops[k->s.op];
    if (r->type == REDIS_REPLY_ERROR)
        return sim_err_set_at(err, SIM_EFAIL, p->where,
                              "connection %u: %s: the server replied with an error: %s", i, op, r->str);
    if (k->pending == 1 && (k->s.op == R_SAVE || k->s.op == R_REMOVE)) {
        /* the EXEC reply */
        if (r->type != REDIS_REPLY_ARRAY)
            return sim_err_set_at(
                err, SIM_EFAIL, p->where,
                "connection %u: %s: the transaction was aborted (EXEC returned no array)", i, op);
        for (size_t j = 0; j < r->elements; j++)
            if (r->element[j]->type == REDIS_REPLY_ERROR)
                return sim_err_set_at(err, SIM_EFAIL, p->where,
                                      "connection %u: %s: a command in the transaction failed: %s",
                                      i, op, r->element[j]->str);
    }
    return SIM_OK;
}

/* Read what arrived on k and advance its operation. */
static int on_readable(val_probe_loop *l, rprobe *p, rconn *k, unsigned i, sim_err *err)
{
    const char *op = val_probe_redis_ops[k->s.op];
    if (redisBufferRead(k->c) != REDIS_OK)
        return sim_err_set_at(
            err, SIM_EFAIL, p->where,
            "connection %u: %s failed after %llu operations: connection lost (%s)", i, op,
            (unsigned long long)p->loop.ndone,
            k->c->err == REDIS_ERR_EOF ? "the server closed it" : k->c->errstr);
    for (;;) {
        void *reply = NULL;
        if (redisGetReplyFromReader(k->c, &reply) != REDIS_OK)
            return sim_err_set_at(err, SIM_EFAIL, p->where,
                                  "connection %u: %s: bad reply: %s", i, op, k->c->errstr);
        if (!reply)
            return SIM_OK;
        if (!k->s.busy) {
            freeReplyObject(reply);
            return sim_err_set_at(err, SIM_EFAIL, p->where,
                                  "connection %u: unexpected reply with no command in flight", i);
        }
        int rc = check_reply(p, k, i, reply, err);
        freeReplyObject(reply);
        if (rc)
            return rc;
        if (--k->pending > 0)
            continue;
        double now = val_probe_mono();
        k->round++;
        k->pending = append_round(p, k);
        if (k->pending > 0) {
            k->s.deadline = now + p->o->timeout;
            if ((rc = send_some(p, k, i, err)))
                return rc;
            continue;
        }
        /* operation complete */
        if ((rc = val_probe_loop_done(l, i, now, err)))
            return rc;
    }
}

/* val_probe_loop.ready: send what is buffered, read what arrived. */
static int on_ready(val_probe_loop *l, unsigned i, short revents, sim_err *err)
{
    rprobe *p = l->ctx;
    rconn *k = &p->k[i];
    int rc = SIM_OK;
    if ((revents & POLLOUT) && k->s.busy)
        rc = send_some(p, k, i, err);
    if (rc == SIM_OK && (revents & (POLLIN | POLLHUP | POLLERR)))
        rc = on_readable(l, p, k, i, err);
    return rc;
}

/* Delete every key under the prefix (SCAN + DEL) on a fresh connection. */
static int cleanup(rprobe *p, sim_err *err)
{
    redisContext *c = connect_one(p, err);
    if (!c)
        return SIM_EFAIL;
    char pattern[160];
    snprintf(pattern, sizeof pattern, "%s*", p->prefix);
    char cursor[32] = "0";
    int rc = SIM_OK;
    do {
        errno = 0;
        redisReply *r = redisCommand(c, "SCAN %s MATCH %s COUNT 1000", cursor, pattern);
        int e = errno;
        char why[256];
        if (!r) {
            rc = sim_err_set_at(err, SIM_EFAIL, p->where,
                                "SCAN failed: %s", ctx_error(c, e, p->o->timeout, why, sizeof why));
            break;
        }
        if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[0]->type != REDIS_REPLY_STRING ||
            r->element[1]->type != REDIS_REPLY_ARRAY) {
            rc = sim_err_set_at(err, SIM_EFAIL, p->where, "SCAN: unexpected reply");
            freeReplyObject(r);
            break;
        }
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        redisReply *keys = r->element[1];
        if (keys->elements > 0) {
            size_t n = keys->elements + 1;
            const char **argv = malloc(n * sizeof *argv);
            size_t *len = malloc(n * sizeof *len);
            assert(argv && len);
            argv[0] = "DEL";
            len[0] = 3;
            for (size_t j = 0; j < keys->elements; j++) {
                argv[j + 1] = keys->element[j]->str;
                len[j + 1] = keys->element[j]->len;
            }
            errno = 0;
            redisReply *d = redisCommandArgv(c, (int)n, argv, len);
            e = errno;
            free(argv);
            free(len);
            if (!d || d->type == REDIS_REPLY_ERROR) {
                rc = d ? sim_err_set_at(err, SIM_EFAIL, p->where, "DEL failed: %s", d->str)
                       : sim_err_set_at(err, SIM_EFAIL, p->where, "DEL failed: %s",
                                        ctx_error(c, e, p->o->timeout, why, sizeof why));
                if (d)
                    freeReplyObject(d);
                freeReplyObject(r);
                break;
            }
            freeReplyObject(d);
        }
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    redisFree(c);
    return rc;
}

size_t val_probe_redis_auto_levels(long n, unsigned *levels)
{
    if (n <= 1) {
        static const unsigned def[] = {1, 4, 16, 64};
        memcpy(levels, def, sizeof def);
        return 4;
    }
    if (n > 64)
        n = 64; /* 8N within the probe's 1024 connections */
    unsigned u = (unsigned)n;
    levels[0] = 1;
    levels[1] = 2 * u - 1;
    levels[2] = 2 * u;
    levels[3] = 4 * u;
    levels[4] = 8 * u;
    return 5;
}

int val_probe_redis_run(const val_redis_conn *cfg, const val_probe_opts *o_in, val_probe_result *res,
                        val_redis_info *info, sim_err *err)
{
    val_probe_opts ob = *o_in;
    val_probe_opts *o = &ob;
    assert(o->timeout > 0);
    int rc = val_probe_check_ops(o, val_probe_redis_ops, R_NOPS, err);
    if (rc)
        return rc;
    if (cfg->db < 0)
        return sim_err_set(err, SIM_EINPUT, "--db: must be >= 0");
    rprobe p = {0};
    p.cfg = cfg;
    p.o = o;
    p.res = res;
    val_probe_redis_where(cfg, p.where, sizeof p.where);
    val_redis_info inf = {0, -1};
    if (!info)
        info = &inf;
    *info = inf;
    p.loop = (val_probe_loop){.o = o, .res = res, .where = p.where, .kind = "redis",
                              .ops = val_probe_redis_ops, .ctx = &p,
                              .start = start_op, .ready = on_ready};
    if (cfg->prefix)
        snprintf(p.prefix, sizeof p.prefix, "%s", cfg->prefix);
    else
        snprintf(p.prefix, sizeof p.prefix, "tfsim:probe:%ld:", (long)getpid());
    for (const char *s = p.prefix; *s; s++)
        if (*s <= ' ' || *s == '*' || *s == '?' || *s == '[' || *s == ']' || *s == '\\')
            return sim_err_set(err, SIM_EINPUT,
                               "--prefix: '%s' must not contain spaces or the glob characters *?[]\\",
                               p.prefix);

    /* the server's threaded I/O, before the levels that may depend on it */
    {
        redisContext *c0 = connect_one(&p, err);
        if (!c0)
            return SIM_EFAIL;
        val_probe_redis_io_threads(c0, &info->io_threads, &info->io_reads);
        redisFree(c0);
    }
    if (o->nlevels == 0)
        o->nlevels = val_probe_redis_auto_levels(info->io_threads, o->levels);
    if (o->out && info->io_threads > 0) {
        char v[32];
        snprintf(v, sizeof v, "%ld", info->io_threads);
        rc = val_samples_note(o->out, "redis.io_threads", v, err);
        if (rc == SIM_OK && info->io_reads >= 0)
            rc = val_samples_note(o->out, "redis.io_threads_do_reads", info->io_reads ? "true" : "false", err);
        if (rc)
            return rc;
    }
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
            p.k[i].s.fd = p.k[i].c->fd;
            p.nk++;
        }
    }
    uint64_t next_id = 1;
    for (size_t l = 0; l < o->nlevels && rc == SIM_OK; l++) {
        unsigned C = o->levels[l];
        p.id0 = next_id;
        p.nids = 0;
        for (int op = 0; op < R_NOPS && rc == SIM_OK; op++) {
            if (!val_probe_wants(o, val_probe_redis_ops[op]))
                continue;
            uint64_t issued = 0;
            double thr0 = val_probe_redis_threaded_writes(p.k[0].c);
            double cpu0 = val_probe_redis_cpu(p.k[0].c), t0 = val_probe_mono();
            rc = val_probe_loop_phase(&p.loop, op, C, &issued, err);
            if (rc == SIM_OK && issued > 0) {
                double cpu1 = val_probe_redis_cpu(p.k[0].c), t1 = val_probe_mono();
                double thr1 = val_probe_redis_threaded_writes(p.k[0].c);
                if (isfinite(cpu0) && isfinite(cpu1) && t1 > t0)
                    val_probe_phase_server_cpu(res, (cpu1 - cpu0) / (double)issued, (cpu1 - cpu0) / (t1 - t0));
                /* replies per operation: fulfill makes two round trips,
                 * the pipelines one write each */
                double replies = (double)issued * (op == R_FULFILL ? 2 : 1);
                if (isfinite(thr0) && isfinite(thr1))
                    val_probe_phase_threaded_writes(res, (thr1 - thr0) / replies);
            }
            if (op == R_SAVE) {
                p.nids = issued;
                next_id += issued;
            }
        }
        if (p.nids == 0)
            next_id += 1000000;  /* keep levels apart when there is no save phase */
    }
    for (unsigned i = 0; i < p.nk; i++)
        redisFree(p.k[i].c);
    free(p.k);
    if (p.nk > 0) {
        /* The keys go also after a failure, if the server still answers. */
        sim_err cerr = {0};
        if (cleanup(&p, rc ? &cerr : err) != SIM_OK) {
            if (rc == SIM_OK)
                rc = SIM_EFAIL;
            else
                val_probe_err_append(err, "; keys under the prefix may remain");
        }
    }
    return rc;
}

/* ---- accessors for the live driver ---- */

void val_probe_redis_where(const val_redis_conn *c, char *buf, size_t len)
{
    if (c->socket)
        snprintf(buf, len, "redis at unix:%s (db %d)", c->socket, c->db);
    else
        snprintf(buf, len, "redis at %s:%d (db %d)", c->host ? c->host : "127.0.0.1",
                 c->port ? c->port : 6379, c->db);
}

/* A probe context with just the server, the prefix and a timeout. */
static void accessor_init(rprobe *p, val_probe_opts *o, const val_redis_conn *c, const char *prefix,
                          double timeout)
{
    memset(p, 0, sizeof *p);
    val_probe_opts_init(o);
    o->timeout = timeout;
    p->cfg = c;
    p->o = o;
    val_probe_redis_where(c, p->where, sizeof p->where);
    snprintf(p->prefix, sizeof p->prefix, "%s", prefix ? prefix : "");
}

redisContext *val_probe_redis_connect(const val_redis_conn *c, double timeout, sim_err *err)
{
    rprobe p;
    val_probe_opts o;
    accessor_init(&p, &o, c, NULL, timeout);
    return connect_one(&p, err);
}

int val_probe_redis_cleanup(const val_redis_conn *c, const char *prefix, double timeout,
                            sim_err *err)
{
    rprobe p;
    val_probe_opts o;
    assert(prefix && *prefix);
    accessor_init(&p, &o, c, prefix, timeout);
    return cleanup(&p, err);
}

/* The sum of the numeric fields k1 and k2 (k2 NULL: k1 alone) of INFO
 * section; NaN if the reply or a field is missing. */
static double info_sum(redisContext *c, const char *section, const char *k1, const char *k2)
{
    redisReply *r = redisCommand(c, "INFO %s", section);
    double t = NAN;
    if (r && r->type == REDIS_REPLY_STRING) {
        const char *a = strstr(r->str, k1), *b = k2 ? strstr(r->str, k2) : NULL;
        if (a && (b || !k2))
            t = strtod(a + strlen(k1), NULL) + (b ? strtod(b + strlen(k2), NULL) : 0);
    }
    if (r)
        freeReplyObject(r);
    return t;
}

double val_probe_redis_cpu(redisContext *c)
{
    return info_sum(c, "cpu", "used_cpu_sys:", "used_cpu_user:");
}

double val_probe_redis_threaded_writes(redisContext *c)
{
    return info_sum(c, "stats", "io_threaded_writes_processed:", NULL);
}

/* CONFIG GET name: its value as a string into buf, 0; -1 without one. */
static int config_get(redisContext *c, const char *name, char *buf, size_t len)
{
    redisReply *r = redisCommand(c, "CONFIG GET %s", name);
    int rc = -1;
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
        r->element[1]->type == REDIS_REPLY_STRING) {
        snprintf(buf, len, "%s", r->element[1]->str);
        rc = 0;
    }
    if (r)
        freeReplyObject(r);
    return rc;
}

int val_probe_redis_io_threads(redisContext *c, long *threads, int *do_reads)
{
    char a[64], b[64];
    if (config_get(c, "io-threads", a, sizeof a) || config_get(c, "io-threads-do-reads", b, sizeof b))
        return -1;
    char *end;
    long n = strtol(a, &end, 10);
    if (end == a || *end || n < 1)
        return -1;
    *threads = n;
    *do_reads = !strcmp(b, "yes");
    return 0;
}
