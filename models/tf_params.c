#include "models/tf_params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const tf_phase_names[TF_NPHASES] = {"checkout", "webhook", "reserve", "commit"};

/* Defaults describe TigerFans' tb_redis architecture on the benchmark host,
  * calibrated from tests/data/calibration.csv (see
 * configs/tigerfans/base.ini for where each number comes from). */
static const sim_cfg_key schema[] = {
    {"architecture", "accounting", SIM_CFG_ENUM, "tb", 0, 0, "pg|tb|stub", NULL,
     "ticket accounting backend: PostgreSQL holds table or TigerBeetle transfers; stub: "
     "the stand-in server of `tfsim probe http` (with payments = stub)"},
    {"architecture", "payments", SIM_CFG_ENUM, "redis", 0, 0, "pg|redis|stub", NULL,
     "payment-session store"},
    {"architecture", "stub_latency", SIM_CFG_DIST, "0", 0, 0, NULL, "s",
     "stub architecture: every request awaits this backend latency once (asyncio.sleep in "
     "the stand-in server)"},

    {"client", "concurrency", SIM_CFG_INT, "10", 1, 1e6, NULL, "requests",
     "requests in flight (window) or per wave"},
    {"client", "total", SIM_CFG_INT, "1000", 1, 1e9, NULL, "requests", "requests per phase"},
    {"client", "phases", SIM_CFG_STR, "checkout,webhook,reserve,commit", 0, 0, NULL, NULL,
     "phases to run, in this order is fixed: any subset of checkout,webhook,reserve,commit"},
    {"client", "mode", SIM_CFG_ENUM, "benchmark", 0, 0, "benchmark|window|waves|poisson|closed",
     NULL,
     "benchmark: window for checkout/reserve, waves for webhook/commit; or one mode for all"},
    {"client", "rate", SIM_CFG_RATE, "500", 1e-6, 1e9, NULL, "1/s", "poisson mode: arrival rate"},
    {"client", "think", SIM_CFG_DIST, "0", 0, 0, NULL, "s", "closed mode: think time"},
    {"client", "cpu", SIM_CFG_DUR, "1.07ms", 0, 1, NULL, "s",
     "load generator (Python httpx) CPU per request, on its own event loop"},
    {"client", "crowding", SIM_CFG_NUM, "4.9e-05", 0, 10, NULL, "1/request",
     "client CPU grows by this fraction per request in flight"},
    {"client", "max_connections", SIM_CFG_INT, "0", 0, 1e6, NULL, "connections",
     "connection limit of the client's pool (httpx Limits.max_connections); 0: the "
     "concurrency, as TigerFans' load generator sets it (Limits(C, C): every connection is "
     "kept alive for the whole phase, each phase opens a new client)"},
    {"client", "connect_cpu", SIM_CFG_DUR, "3.24ms", 0, 1, NULL, "s",
     "client CPU to open a connection (once per connection and phase)"},
    {"client", "pool_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
     "client CPU of one pass over the connection pool (httpcore assigns requests to "
     "connections at every request start and every response close)"},
    {"client", "pool_conn_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s/connection",
     "client CPU of a pool pass per connection in the pool (state checks; an idle one's "
     "socket is polled for a server-side close)"},
    {"client", "pool_idle_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s/connection^2",
     "client CPU of a pool pass per idle connection and connection in the pool "
     "(httpcore 1.x counts the pool's connections once for every idle connection)"},
    {"client", "send_yields", SIM_CFG_INT, "2", 0, 100, NULL, "turns",
     "client loop turns between a request's claim of its connection and the request leaving "
     "(httpcore writes the headers, then the end of the message, each write a checkpoint)"},
    {"client", "recv_yields", SIM_CFG_INT, "2", 0, 100, NULL, "turns",
     "client loop turns between the response's arrival and the release of its connection "
     "(the reading coroutine wakes; the connection's state lock is a checkpoint)"},
    {"client", "keepalive_expiry", SIM_CFG_DUR, "5s", 0, 1e6, NULL, "s",
     "an idle connection of the client's pool closes after this (httpx's keepalive_expiry, "
     "5 s by default, which the load generator keeps; uvicorn's timeout_keep_alive is 5 s too); "
     "0: never"},
    {"client", "pool_poll_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s/connection",
     "client CPU of a pool pass per idle connection (has_expired polls its socket)"},
    {"client", "pool_yields", SIM_CFG_INT, "2", 1, 100, NULL, "turns",
     "client loop turns between a request's pool pass and its claim of the connection "
     "(httpcore 1.0.9 with anyio 4: the checkpoint of an event already set, then the "
     "connection's request lock and state lock, each a checkpoint); meanwhile other passes "
     "may hand the same idle connection to other requests, which then retry"},
    {"client", "succeed_rate", SIM_CFG_NUM, "1", 0, 1, NULL, "fraction",
     "share of webhooks that report a successful payment"},

    {"server", "workers", SIM_CFG_INT, "1", 1, 1024, NULL, "processes",
     "uvicorn workers, each one single-threaded event loop"},
    {"server", "cpu_request", SIM_CFG_DUR, "0.731ms", 0, 1, NULL, "s",
     "framework CPU per request (HTTP parsing, routing, validation, response)"},
    {"server", "cpu_webhook", SIM_CFG_DUR, "0.14ms", 0, 1, NULL, "s",
     "extra CPU per webhook (HMAC check, JSON)"},
    {"server", "cpu_checkout", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
     "extra CPU per checkout (session creation, idempotency check, payment setup)"},
    {"server", "cpu_split", SIM_CFG_NUM, "0.7", 0, 1, NULL, "fraction",
     "share of cpu_request spent before the first await"},
    {"server", "crowding", SIM_CFG_NUM, "1.67e-05", 0, 10, NULL, "1/task",
     "every CPU step grows by this fraction per live request on its loop"},
    {"server", "accept_cpu", SIM_CFG_DUR, "0.374ms", 0, 1, NULL, "s",
     "server CPU to accept a new connection"},
    {"server", "wake_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
     "extra loop CPU for a burst that finds its loop idle (the thread slept and is woken: "
     "on a VM an idle vCPU costs a wake-up); 0: none"},
    {"server", "cpu_shape", SIM_CFG_DIST, "gamma(shape=4, mean=1)", 0, 0, NULL, "factor",
     "multiplier on every CPU step (mean 1): the variability of Python work"},

    {"host", "cores", SIM_CFG_NUM, "2.42", 0.01, 4096, NULL, "cores",
     "CPU cores shared (processor sharing) by the co-located processes"},
    {"host", "client_on_host", SIM_CFG_BOOL, "true", 0, 0, NULL, NULL,
     "the load generator runs on the same host"},
    {"host", "postgres_on_host", SIM_CFG_BOOL, "true", 0, 0, NULL, NULL,
     "PostgreSQL backends share the host's cores"},
    {"host", "redis_on_host", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL,
     "the Redis server's work runs on the host's cores (one thread, commands in order); "
     "a reply then finds its loop's core awake (Redis ran there while the loop slept) and "
     "costs no loop wake-up"},
    {"host", "wake_affine", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL,
     "a statement sent while its loop keeps running and no host core is idle starts when "
     "the loop's burst ends (Linux wakes the backend on the waker's core)"},
    {"host", "rtt", SIM_CFG_DUR, "40us", 0, 1, NULL, "s", "network round trip (loopback)"},

    {"postgres", "gate", SIM_CFG_INT, "10", 1, 1e6, NULL, "permits",
     "application semaphore around each transaction (DB gate)"},
    {"postgres", "pool_size", SIM_CFG_INT, "10", 1, 1e6, NULL, "connections",
     "SQLAlchemy pool_size"},
    {"postgres", "pool_overflow", SIM_CFG_INT, "10", 0, 1e6, NULL, "connections",
     "SQLAlchemy max_overflow"},
    {"postgres", "pre_ping", SIM_CFG_BOOL, "true", 0, 0, NULL, NULL,
     "pool_pre_ping: one extra round trip per connection checkout"},
    {"postgres", "loop_cpu_query", SIM_CFG_DUR, "0.0259ms", 0, 1, NULL, "s",
     "SQLAlchemy/asyncpg CPU on the event loop per round trip"},
    {"postgres", "loop_cpu_txn", SIM_CFG_DUR, "0.15ms", 0, 1, NULL, "s",
     "session and transaction overhead on the event loop per transaction"},
    {"postgres", "query_cpu", SIM_CFG_DUR, "0.368ms", 0, 1, NULL, "s",
     "backend CPU of a simple statement"},
    {"postgres", "row_cost", SIM_CFG_DUR, "26.8ns", 0, 1e-3, NULL, "s/row",
     "backend CPU per holds row visited by a hold's sums"},
    {"postgres", "sum_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
     "extra backend CPU of a sum over an empty holds table (aggregate and index scan "
     "set-up), on top of query_cpu"},
    {"postgres", "scan_fraction", SIM_CFG_NUM, "0.75", 0, 4, NULL, "fraction",
     "share of the holds table one hold's four sums visit (index on resource, status)"},
    {"postgres", "commit_cpu", SIM_CFG_DUR, "0.05ms", 0, 1, NULL, "s", "backend CPU of COMMIT"},
    {"postgres", "wake_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
     "extra backend CPU for a statement that finds a host core idle (backends on the "
     "host) or no backend running (an idle CPU is woken); 0: none"},
    {"postgres", "flush", SIM_CFG_DIST, "0.25ms", 0, 0, NULL, "s",
     "WAL flush at commit; concurrent commits share one flush (group commit)"},
    {"postgres", "holds_rows", SIM_CFG_NUM, "0", 0, 1e12, NULL, "rows",
     "rows in the holds table when the run starts (the real table is never emptied)"},
    {"postgres", "row_locks", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL,
     "a hold locks its ticket class's and the goodie's capacity rows until commit "
     "(SELECT ... FOR UPDATE), so holds of one resource run one at a time"},
    {"postgres", "jitter", SIM_CFG_DIST, "gamma(shape=4, mean=1)", 0, 0, NULL, "factor",
     "multiplier on backend CPU (mean 1)"},

    {"redis", "service", SIM_CFG_DIST, "exp(mean=15us)", 0, 0, NULL, "s",
     "Redis server time per round trip (pipeline or MULTI/EXEC counts once)"},
    {"redis", "loop_cpu", SIM_CFG_DUR, "0.09ms", 0, 1, NULL, "s",
     "redis-py CPU on the event loop per round trip"},
    {"redis", "save_extra", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
     "server time a payment-session save (MULTI, HSET of 11 fields, EXPIRE, ZADD, EXEC) "
     "takes beyond redis.service"},

    {"tigerbeetle", "batch_base", SIM_CFG_DIST, "gamma(shape=8, mean=1.6ms)", 0, 0, NULL, "s",
     "latency of a batch, fixed part (single replica, development mode)"},
    {"tigerbeetle", "per_transfer", SIM_CFG_DUR, "3us", 0, 1, NULL, "s/transfer",
     "latency added per transfer in the batch"},
    {"tigerbeetle", "batch_max", SIM_CFG_INT, "8190", 1, 1e6, NULL, "transfers",
     "most transfers in one batch"},
    {"tigerbeetle", "loop_cpu", SIM_CFG_DUR, "0.12ms", 0, 1, NULL, "s",
     "client CPU on the event loop per submission (building transfers, awaiting)"},
    {"tigerbeetle", "batch_cpu", SIM_CFG_DUR, "0.05ms", 0, 1, NULL, "s",
     "auto-batcher CPU on the event loop per batch"},

    {"inventory", "tickets", SIM_CFG_NUM, "5e6", 0, 1e15, NULL, "tickets",
     "tickets left per class at the start"},
    {"inventory", "goodies", SIM_CFG_NUM, "1e5", 0, 1e15, NULL, "goodies",
     "goodies left at the start (when none are left holds skip the goodie)"},
    {"inventory", "classes", SIM_CFG_INT, "2", 1, 1000, NULL, "classes",
     "ticket classes; a request picks one at random (A and B in TigerFans)"},
};

const sim_cfg_key *tf_params_schema(size_t *n)
{
    *n = sizeof schema / sizeof schema[0];
    return schema;
}

void tf_params_fini(tf_params *p)
{
    sim_dist_fini(&p->think);
    sim_dist_fini(&p->cpu_shape);
    sim_dist_fini(&p->pg_flush);
    sim_dist_fini(&p->pg_jitter);
    sim_dist_fini(&p->redis_service);
    sim_dist_fini(&p->tb_base);
    sim_dist_fini(&p->stub_latency);
}


static int unit_mean(const sim_cfg *cfg, const char *sec, const char *key, const sim_dist *d,
                     sim_err *err)
{
    char w[512];
    double m = sim_dist_mean(d);
    if (fabs(m - 1) > 1e-6)
        return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: a multiplier must have mean 1 (this one has %g)",
                           sim_cfg_where(cfg, sec, key, w, sizeof w), sec, key, m);
    return SIM_OK;
}

int tf_params_read(tf_params *p, const sim_cfg *cfg, const sim_cfg_key *s, size_t n, sim_err *err)
{
    memset(p, 0, sizeof *p);
    const char *acc, *pay, *phases, *mode;
    long gate, psize, pover, tbmax;
    int pre;
#define NUM(sec, key, dst) sim_cfg_num(cfg, s, n, sec, key, dst, err)
#define INT(sec, key, dst) sim_cfg_int(cfg, s, n, sec, key, dst, err)
#define BOOL(sec, key, dst) sim_cfg_bool(cfg, s, n, sec, key, dst, err)
    if (sim_cfg_str(cfg, s, n, "architecture", "accounting", &acc, err) ||
        sim_cfg_str(cfg, s, n, "architecture", "payments", &pay, err) ||
        sim_cfg_dist(cfg, s, n, "architecture", "stub_latency", &p->stub_latency, err) ||
        sim_cfg_str(cfg, s, n, "client", "phases", &phases, err) ||
        sim_cfg_str(cfg, s, n, "client", "mode", &mode, err) ||
        INT("client", "concurrency", &p->concurrency) || INT("client", "total", &p->total) ||
        NUM("client", "rate", &p->rate) || sim_cfg_dist(cfg, s, n, "client", "think", &p->think, err) ||
        NUM("client", "cpu", &p->client_cpu) || NUM("client", "crowding", &p->client_crowding) ||
        INT("client", "max_connections", &p->max_connections) ||
        NUM("client", "connect_cpu", &p->connect_cpu_client) ||
        NUM("client", "pool_cpu", &p->pool_cpu) ||
        NUM("client", "pool_conn_cpu", &p->pool_conn_cpu) ||
        NUM("client", "pool_idle_cpu", &p->pool_idle_cpu) ||
        NUM("client", "pool_poll_cpu", &p->pool_poll_cpu) ||
        INT("client", "pool_yields", &p->pool_yields) ||
        INT("client", "send_yields", &p->send_yields) ||
        INT("client", "recv_yields", &p->recv_yields) ||
        NUM("client", "keepalive_expiry", &p->keepalive_expiry) ||
        NUM("client", "succeed_rate", &p->succeed_rate) ||
        INT("server", "workers", &p->workers) || NUM("server", "cpu_request", &p->cpu_request) ||
        NUM("server", "cpu_webhook", &p->cpu_webhook) ||
        NUM("server", "cpu_checkout", &p->cpu_checkout) || NUM("server", "cpu_split", &p->cpu_split) ||
        NUM("server", "crowding", &p->crowding) || NUM("server", "wake_cpu", &p->wake_cpu) ||
        NUM("server", "accept_cpu", &p->connect_cpu_server) ||
        sim_cfg_dist(cfg, s, n, "server", "cpu_shape", &p->cpu_shape, err) ||
        NUM("host", "cores", &p->cores) || BOOL("host", "client_on_host", &p->client_on_host) ||
        BOOL("host", "postgres_on_host", &p->pg_on_host) ||
        BOOL("host", "redis_on_host", &p->redis_on_host) ||
        BOOL("host", "wake_affine", &p->wake_affine) ||
        NUM("host", "rtt", &p->net_rtt) ||
        INT("postgres", "gate", &gate) || INT("postgres", "pool_size", &psize) ||
        INT("postgres", "pool_overflow", &pover) || BOOL("postgres", "pre_ping", &pre) ||
        NUM("postgres", "loop_cpu_query", &p->pg_loop_cpu_query) ||
        NUM("postgres", "loop_cpu_txn", &p->pg_loop_cpu_txn) ||
        NUM("postgres", "query_cpu", &p->pg_query_cpu) ||
        NUM("postgres", "row_cost", &p->pg_row_cost) ||
        NUM("postgres", "sum_cpu", &p->pg_sum_cpu) ||
        NUM("postgres", "scan_fraction", &p->pg_scan_fraction) ||
        NUM("postgres", "commit_cpu", &p->pg_commit_cpu) ||
        NUM("postgres", "wake_cpu", &p->pg_wake_cpu) ||
        sim_cfg_dist(cfg, s, n, "postgres", "flush", &p->pg_flush, err) ||
        NUM("postgres", "holds_rows", &p->holds_rows) ||
        BOOL("postgres", "row_locks", &p->row_locks) || INT("inventory", "classes", &p->classes) ||
        sim_cfg_dist(cfg, s, n, "postgres", "jitter", &p->pg_jitter, err) ||
        sim_cfg_dist(cfg, s, n, "redis", "service", &p->redis_service, err) ||
        NUM("redis", "loop_cpu", &p->redis_loop_cpu) ||
        NUM("redis", "save_extra", &p->redis_save_extra) ||
        sim_cfg_dist(cfg, s, n, "tigerbeetle", "batch_base", &p->tb_base, err) ||
        NUM("tigerbeetle", "per_transfer", &p->tb_per_transfer) ||
        INT("tigerbeetle", "batch_max", &tbmax) || NUM("tigerbeetle", "loop_cpu", &p->tb_loop_cpu) ||
        NUM("tigerbeetle", "batch_cpu", &p->tb_batch_cpu) ||
        NUM("inventory", "tickets", &p->tickets) || NUM("inventory", "goodies", &p->goodies))
        return err->code;
#undef NUM
#undef INT
#undef BOOL
    if (unit_mean(cfg, "server", "cpu_shape", &p->cpu_shape, err) ||
        unit_mean(cfg, "postgres", "jitter", &p->pg_jitter, err))
        return err->code;
    char w[512];
    p->accounting = !strcmp(acc, "tb") ? TF_TB : !strcmp(acc, "stub") ? TF_STUB : TF_PG;
    p->payments = !strcmp(pay, "redis") ? TF_REDIS : !strcmp(pay, "stub") ? TF_STUB : TF_PG;
    if ((p->accounting == TF_STUB) != (p->payments == TF_STUB))
        return sim_err_set(err, SIM_EINPUT, "%s: architecture.%s: the stub architecture needs "
                           "accounting = stub and payments = stub",
                           sim_cfg_where(cfg, "architecture", p->accounting == TF_STUB ? "payments"
                                         : "accounting", w, sizeof w),
                           p->accounting == TF_STUB ? "payments" : "accounting");
    snprintf(p->arch, sizeof p->arch, "%s_%s", acc, pay);
    p->gate = gate;
    p->pool_size = psize;
    p->pool_overflow = pover;
    p->pre_ping = pre;
    p->tb_batch_max = (unsigned)tbmax;
    if (p->tb_batch_max < 2)
        return sim_err_set(err, SIM_EINPUT, "%s: tigerbeetle.batch_max: %ld is below 2, the "
                           "transfers of one hold", sim_cfg_where(cfg, "tigerbeetle", "batch_max",
                           w, sizeof w), tbmax);
    if (p->gate > p->pool_size + p->pool_overflow) {
        /* blame the value set last: the one that made the three disagree */
        static const char *const keys[] = {"gate", "pool_size", "pool_overflow"};
        const sim_cfg_entry *last = NULL;
        const char *key = keys[0];
        for (size_t i = 0; i < 3; i++) {
            const sim_cfg_entry *e = sim_cfg_find(cfg, "postgres", keys[i]);
            if (e && (!last || e > last)) /* entries of one array, in load order */
                last = e, key = keys[i];
        }
        char w1[512], w2[512], w3[512];
        return sim_err_set(err, SIM_EINPUT,
                           "%s: postgres.%s: postgres.gate = %ld permits (%s) exceed pool_size + "
                           "pool_overflow = %ld + %ld connections (%s, %s): requests would hold a "
                           "permit while no connection can exist",
                           sim_cfg_where(cfg, "postgres", key, w, sizeof w), key, p->gate,
                           sim_cfg_where(cfg, "postgres", "gate", w1, sizeof w1), p->pool_size,
                           p->pool_overflow,
                           sim_cfg_where(cfg, "postgres", "pool_size", w2, sizeof w2),
                           sim_cfg_where(cfg, "postgres", "pool_overflow", w3, sizeof w3));
    }
    /* phases */
    char buf[256];
    snprintf(buf, sizeof buf, "%s", phases);
    int any = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        int k = -1;
        for (int i = 0; i < TF_NPHASES; i++)
            if (!strcmp(tok, tf_phase_names[i]))
                k = i;
        if (k < 0)
            return sim_err_set(err, SIM_EINPUT, "%s: client.phases: unknown phase or endpoint "
                               "'%s' (known: checkout, webhook, reserve, commit)",
                               sim_cfg_where(cfg, "client", "phases", w, sizeof w), tok);
        if (p->phase_on[k])
            return sim_err_set(err, SIM_EINPUT, "%s: client.phases: '%s' given twice (each phase "
                               "runs once, in the benchmark's order)",
                               sim_cfg_where(cfg, "client", "phases", w, sizeof w), tok);
        p->phase_on[k] = 1;
        any = 1;
    }
    if (!any)
        return sim_err_set(err, SIM_EINPUT, "%s: client.phases: no phase given",
                           sim_cfg_where(cfg, "client", "phases", w, sizeof w));
    for (int i = 0; i < TF_NPHASES; i++)
        p->phase_mode[i] = (i == TF_WEBHOOK || i == TF_COMMIT) ? TF_MODE_WAVES : TF_MODE_WINDOW;
    if (!strcmp(mode, "benchmark"))
        p->mode = -1;
    else {
        int m = !strcmp(mode, "window") ? TF_MODE_WINDOW
                : !strcmp(mode, "waves") ? TF_MODE_WAVES
                : !strcmp(mode, "poisson") ? TF_MODE_POISSON
                                           : TF_MODE_CLOSED;
        p->mode = m;
        for (int i = 0; i < TF_NPHASES; i++)
            p->phase_mode[i] = m;
    }
    return SIM_OK;
}
