/* tf_params: every parameter of the TigerFans model, read from a scenario
 * config (schema in tf_params.c, with units, defaults and ranges; the
 * README's config reference is generated from that table).
 *
 * Role: a plain struct the other tf_* modules read; built once per
 * scenario (tf_params_read) and shared read-only by all replications.
 * Ownership: distributions inside own heap memory (empirical); free with
 * tf_params_fini.
 */
#ifndef TF_PARAMS_H
#define TF_PARAMS_H

#include <stdint.h>

#include "sim/sim_cfg.h"
#include "sim/sim_dist.h"
#include "sim/sim_err.h"
#include "sim/sim_rng.h"

enum tf_backend { TF_PG = 0, TF_REDIS = 1, TF_TB = 2 };
enum tf_phase { TF_CHECKOUT = 0, TF_WEBHOOK, TF_RESERVE, TF_COMMIT, TF_NPHASES };
enum tf_mode { TF_MODE_WINDOW = 0, TF_MODE_WAVES, TF_MODE_POISSON, TF_MODE_CLOSED };

extern const char *const tf_phase_names[TF_NPHASES];

typedef struct tf_params {
    /* architecture */
    int accounting;      /* TF_PG or TF_TB */
    int payments;        /* TF_PG or TF_REDIS */
    char arch[32];       /* "pg_pg", "pg_redis", "tb_redis", ... */

    /* load generator */
    long concurrency, total;
    int phase_on[TF_NPHASES];
    int phase_mode[TF_NPHASES];  /* per phase: window or waves (benchmark) */
    int mode;                    /* benchmark (phase modes) or poisson/closed for all */
    double rate;                 /* poisson arrivals per second */
    sim_dist think;              /* closed loop think time */
    double client_cpu;           /* per request, on the client's loop */
    double client_crowding;      /* relative cost growth per request in flight */
    long keepalive, max_connections;
    double connect_cpu_client, connect_cpu_server;
    double connect_crowding;     /* client connect cost growth per open connection */
    double succeed_rate;         /* webhook payment success */

    /* server */
    long workers;
    double cpu_request;          /* framework CPU per request (HTTP, routing, response) */
    double cpu_webhook;          /* extra per webhook (HMAC, JSON) */
    double cpu_checkout;         /* extra per checkout (session, idempotency, payment setup) */
    double cpu_split;            /* fraction of cpu_request before the first await */
    double crowding;             /* relative step cost growth per live task on the loop */
    double wake_cpu;             /* extra CPU of a burst that finds its loop idle */
    sim_dist cpu_shape;          /* multiplier distribution for CPU steps (mean 1) */

    /* host */
    double cores;
    int client_on_host, pg_on_host;
    int redis_on_host;           /* Redis's service runs on the host's cores */
    int wake_affine;             /* a statement sent while its busy loop runs waits for its burst */
    double net_rtt;

    /* PostgreSQL */
    long gate, pool_size, pool_overflow;
    int pre_ping;
    double pg_loop_cpu_query;    /* SQLAlchemy CPU on the loop per round trip */
    double pg_loop_cpu_txn;      /* session begin/commit overhead on the loop */
    double pg_query_cpu;         /* backend CPU of a simple query */
    double pg_row_cost;          /* backend CPU per holds row scanned by a sum */
    double pg_sum_cpu;           /* extra backend CPU of a sum with no rows */
    double pg_scan_fraction;     /* fraction of holds rows a hold's sums scan */
    double pg_commit_cpu;        /* backend CPU of COMMIT */
    double pg_wake_cpu;          /* extra backend CPU of a statement arriving with none running */
    sim_dist pg_flush;           /* WAL flush (group commit shares one flush) */
    double holds_rows;           /* rows in the holds table when the run starts */
    int row_locks;               /* holds lock the capacity rows (SELECT ... FOR UPDATE) */
    sim_dist pg_jitter;          /* multiplier on backend CPU (mean 1) */

    /* Redis */
    sim_dist redis_service;      /* per command on the single Redis thread */
    double redis_loop_cpu;       /* client CPU on the loop per round trip */
    double redis_save_extra;     /* a save's server time beyond redis_service */

    /* TigerBeetle */
    sim_dist tb_base;            /* batch latency independent of size */
    double tb_per_transfer;      /* added per transfer */
    unsigned tb_batch_max;
    double tb_loop_cpu;          /* client CPU on the loop per submission */
    double tb_batch_cpu;         /* batcher CPU on the loop per batch */

    /* inventory */
    double tickets, goodies;     /* available at the start */
    long classes;                /* ticket classes (each its own capacity row) */
    int goodie_per_checkout;

    /* bounds for one replication, copied from [run] */
    uint64_t max_events;
    double max_sim_time;
    uint64_t max_pending;
    sim_rng_kind rng;            /* generator of the streams, from [run] */
} tf_params;

/* The schema table (static storage). */
const sim_cfg_key *tf_params_schema(size_t *n);

/* Read and check params from cfg with the given (merged) schema.  On
 * error returns SIM_EINPUT with file:line: key: message.  On success the
 * caller owns p's memory (tf_params_fini). */
int tf_params_read(tf_params *p, const sim_cfg *cfg, const sim_cfg_key *schema, size_t n,
                   sim_err *err);
void tf_params_fini(tf_params *p);

#endif
