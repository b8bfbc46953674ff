/* tf_params: every parameter of the TigerFans model, declared once in a
 * registry (tf_params.c) from which come the struct reading, the config
 * schema (units, defaults, ranges: the README's config reference is
 * generated from it), the calibration's fit bounds and default fitted set,
 * and the values the live comparison simulates with.
 *
 * Role: a plain struct the other tf_* modules read; built once per
 * scenario (tf_params_read) and shared read-only by all replications.
 * Ownership: distributions inside own heap memory (empirical); free with
 * tf_params_fini.  The registry and the schema are static storage.
 *
 * Adding a parameter is one field and one row:
 *  1. a field in struct tf_params below, of the C type its config type
 *     stores: double (SIM_CFG_NUM, SIM_CFG_DUR, SIM_CFG_RATE), long
 *     (SIM_CFG_INT), int (SIM_CFG_BOOL) or sim_dist (SIM_CFG_DIST);
 *  2. one row in the registry table in tf_params.c, in its section:
 *       {{"section", "key", SIM_CFG_DUR, "default", min, max, NULL, "unit",
 *         "one line of meaning"}, TF_DOUBLE(field), .source = "where the
 *         default comes from"},
 *     plus, when calibration may fit it, .fit_lo/.fit_hi (bounds, > 0: the
 *     search is in log space) and .fit = 1 when `tfsim calibrate` fits it
 *     by default, .demand = 1 for a CPU or service cost (the light-load
 *     start of a calibration scales those together), .own = TF_OWN_* when
 *     a predicted architecture's own light-load timings fix it; plus
 *     .live = "value" when the live comparison (`tfsim
 *     compare`, whose live driver has no HTTP layer and no load generator
 *     of its own) must simulate it at a fixed value;
 *  3. `bin/tfsim config --update-readme README.md` (the config reference).
 * tf_params_read then reads it, the schema checks it, `calibrate --fit`
 * knows its bounds, and the unit test of the registry checks that the
 * field's C type matches the row's config type.  Keys whose reading is
 * more than a lookup (architecture.*, client.phases, client.mode) are rows
 * without a field (TF_NOFIELD), read by hand in tf_params_read.
 */
#ifndef TF_PARAMS_H
#define TF_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "models/mdl.h"
#include "sim/sim_cfg.h"
#include "sim/sim_dist.h"
#include "sim/sim_err.h"
#include "sim/sim_rng.h"

enum tf_backend { TF_PG = 0, TF_REDIS = 1, TF_TB = 2, TF_STUB = 3 };
enum tf_phase { TF_CHECKOUT = 0, TF_WEBHOOK, TF_RESERVE, TF_COMMIT, TF_NPHASES };
enum tf_mode { TF_MODE_WINDOW = 0, TF_MODE_WAVES, TF_MODE_POISSON, TF_MODE_CLOSED };

extern const char *const tf_phase_names[TF_NPHASES];

typedef struct tf_params {
    /* architecture */
    int accounting;      /* TF_PG, TF_TB or TF_STUB */
    int payments;        /* TF_PG, TF_REDIS or TF_STUB */
    sim_dist stub_latency;       /* stub: the one backend await of every request */
    double stub_cpu;             /* stub: CPU spun before that await (probe http --server-cpu-ms) */
    char arch[32];       /* "pg_pg", "pg_redis", "tb_redis", ... */

    /* load generator */
    long concurrency, total;
    int phase_on[TF_NPHASES];
    int phase_mode[TF_NPHASES];  /* per phase: window or waves (benchmark) */
    int mode;                    /* benchmark (phase modes) or poisson/closed for all */
    char session[64];            /* redis_bench: c (command) and t (think) per session; "" */
    double rate;                 /* poisson arrivals per second */
    sim_dist think;              /* closed loop think time */
    double client_cpu;           /* per request, on the client's loop */
    double client_sent_cpu;      /* client CPU after a request's write (in flight meanwhile) */
    double client_cold, client_cold_tau; /* a burst after the client loop idled g: its CPU times
                                            1 + cold (1 - e^(-g/tau)) */
    double client_cpu_scale;     /* multiplies every client CPU cost (tf_sim applies it) */
    double client_crowding;      /* relative cost growth per request in flight */
    long max_connections;        /* client pool limit; 0: the concurrency */
    double connect_cpu_client, connect_cpu_server;
    double pool_cpu;             /* client CPU of one pass over its connection pool */
    double pool_conn_cpu;        /* ... per connection in the pool */
    double pool_idle_cpu;        /* ... per idle connection x connection in the pool */
    double pool_poll_cpu;        /* ... per idle connection (its socket is polled) */
    long pool_yields;            /* loop turns between a request's pass and its claim */
    double pool_req_cpu;         /* ... per request in the pool (its list of waiting requests) */
    int httpcore016;             /* client.httpcore = 0.16: its pool order and pool lock */
    long send_yields;            /* loop turns between its claim and the request leaving */
    long recv_yields;            /* loop turns between the response arriving and its release */
    int client_passes;           /* client.asyncio_passes: the loop runs asyncio's passes */
    double keepalive_expiry;     /* an idle client connection closes after this */
    double succeed_rate;         /* webhook payment success */

    /* server */
    long workers;
    double cpu_request;          /* framework CPU per request (HTTP, routing, response) */
    double cpu_webhook;          /* extra per webhook (HMAC, JSON) */
    double cpu_checkout;         /* extra per checkout (session, idempotency, payment setup) */
    double cpu_split;            /* fraction of cpu_request before the first await */
    double crowding;             /* relative step cost growth per live task on the loop */
    double wake_cpu;             /* extra CPU of a burst that finds its loop idle */
    long io_turns;               /* loop turns a backend's reply takes to reach its coroutine */
    int server_passes;           /* server.asyncio_passes: the loop runs asyncio's passes */
    double timer_resolution;     /* a timer due while its loop sleeps: poll timeout rounded up to it */
    double timer_slack;          /* ... and that much later */
    double cold, cold_tau;       /* code-path warmth: a path's CPU times 1 + cold (1 - e^(-gap/tau)) */
    sim_dist cpu_shape;          /* multiplier distribution for CPU steps (mean 1) */

    /* host */
    double cores;
    double host_cpu_scale;       /* host.cpu_scale: tf_params_read has already multiplied every
                                    host cost (tf_params_host_scaled) by it */
    int client_on_host, pg_on_host;
    int redis_on_host;           /* Redis's service runs on the host's cores */
    int wake_affine;             /* a statement sent while its busy loop runs waits for its burst */
    double net_rtt;
    double sched_tick, sched_slice;  /* the scheduler's tick and a CPU-bound task's slice */
    double sched_wake_slice;         /* run before a wake-up preempts a spinning thread (0: never) */
    double stacking;                 /* share of random placement's capacity loss the host has */
    double loop_weight;              /* a loop's share of a contended core relative to a backend's */

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
    double pg_busy_cost;         /* CPU factor - 1 of a statement that finds no host core idle */
    double pg_commit_wake;       /* extra wait of a COMMIT after sums, a host core idle */
    int pg_commit_tail;          /* COMMIT's CPU after the WAL flush, waiters in turn */
    sim_dist pg_flush;           /* WAL flush (group commit shares one flush) */
    double pg_flush_wait;        /* extra time of a flush per thread waiting for a host core */
    double holds_rows;           /* rows in the holds table when the run starts */
    int row_locks;               /* holds lock the capacity rows (SELECT ... FOR UPDATE) */
    sim_dist pg_jitter;          /* multiplier on backend CPU (mean 1) */

    /* Redis */
    sim_dist redis_service;      /* per command on the single Redis thread */
    double redis_loop_cpu;       /* client CPU on the loop per round trip */
    double redis_save_extra;     /* a save's server time beyond redis_service */
    long redis_pool_turns;       /* loop turns of redis-py's connection check per command */
    int redis_pool_lock;         /* the check runs under the pool's asyncio.Lock */
    long redis_send_turns;       /* loop turns of asyncio.wait_for around the send (Python 3.11) */
    double redis_cycle_cpu;      /* main thread CPU per event-loop cycle beyond its commands */
    long redis_io_threads;       /* io-threads, the main thread included (1: none) */
    int redis_io_do_reads;       /* io-threads-do-reads */
    long redis_io_per_thread;    /* threads on while pending writes >= io_threads x this */
    double redis_hz;             /* serverCron calls per second */
    double redis_wake_wait;      /* share of the main thread's wake-ups that wait a tick */
    int redis_wake_preempt;      /* the woken main thread takes a spinning thread's core at once */
    double redis_cores;          /* cores' worth of CPU Redis's threads get on the host (0: the host's) */
    double redis_affine_share;   /* with wake_affine: share of time Redis sits on its sender's core */
    double affine_period;        /* mean spell on (or off) the sender's core, idle core-seconds */

    /* TigerBeetle */
    sim_dist tb_base;            /* batch latency independent of size */
    double tb_per_transfer;      /* added per transfer */
    long tb_batch_max;
    double tb_loop_cpu;          /* client CPU on the loop per submission */
    double tb_batch_cpu;         /* batcher CPU on the loop per batch */

    /* inventory */
    double tickets, goodies;     /* available at the start */
    long classes;                /* ticket classes (each its own capacity row) */
    int goodie_per_checkout;

    /* bounds for one replication and the streams' generator: [run]'s,
     * set by the model's setup (tf_params_read leaves them zero) */
    mdl_limits lim;
} tf_params;

/* The data the embedded defaults were calibrated on: the architecture and
 * the data hash of its points (val_calib: measured values, weights and
 * database states) in tests/data/calibration.csv.  `tfsim predict` uses
 * the defaults as the baseline's calibration for exactly these data; a
 * unit test (test_val_predict) fails when the data or their reading change
 * without this line.  Update it with a new calibration of the defaults. */
#define TF_PARAMS_CALIBRATED_ARCH "pg_pg"
#define TF_PARAMS_CALIBRATED_DATA "b3dc50959d240186"

/* ---- the registry ---- */

/* Where a row's value is stored in tf_params: the C type of the field. */
typedef enum tf_param_ctype {
    TF_CT_NONE = 0, /* no field: read by hand in tf_params_read */
    TF_CT_DOUBLE,   /* SIM_CFG_NUM, SIM_CFG_DUR, SIM_CFG_RATE */
    TF_CT_LONG,     /* SIM_CFG_INT */
    TF_CT_BOOL,     /* SIM_CFG_BOOL, stored as int */
    TF_CT_DIST      /* SIM_CFG_DIST, stored as sim_dist */
} tf_param_ctype;

/* One parameter: its schema row, its field, and what calibration and the
 * live comparison do with it.  All strings static. */
typedef struct tf_param {
    sim_cfg_key k;         /* section, key, type, default, range, choices, unit, meaning */
    size_t off;            /* offsetof(tf_params, field) (TF_CT_NONE: unused) */
    tf_param_ctype ctype;
    double fit_lo, fit_hi; /* calibration bounds, 0 < fit_lo < fit_hi; 0, 0: not given (a
                              fit then takes the schema range, its lower end at least 1e-9) */
    int fit;               /* 1: fitted by `tfsim calibrate` without --fit */
    int demand;            /* 1: a CPU or service cost per request or operation: the
                              calibration's light-load start scales the fitted ones
                              together (the machine's speed) */
    int own;               /* TF_OWN_* bits: a predicted architecture with these
                              backends fixes this parameter from its own light-load
                              operation timings (`tfsim predict`) */
    int per_row;           /* 1: a cost per holds row: the light-load start cannot tell
                              it (the lowest concurrency has few rows), so a calibration
                              scales it alone to every fitted point after that start */
    const char *live;      /* the value `tfsim compare` simulates with, or NULL (the
                              config's or the calibration's) */
    const char *source;    /* where the default comes from */
} tf_param;

/* Which backends make a parameter the predicted architecture's own. */
enum {
    TF_OWN_TB = 1,            /* TigerBeetle accounting: its hold and commit_order timings */
    TF_OWN_REDIS = 2,         /* Redis payment sessions: the session timings */
    TF_OWN_PG = 4,            /* PostgreSQL statements (every architecture: db.add_order) */
    TF_OWN_PG_ACCOUNTING = 8  /* PostgreSQL accounting: its hold timing gives the database
                                 state it ran against (postgres.holds_rows) */
};

/* Field designators for registry rows; the _Generic fails to compile when
 * the field is not of the named C type. */
#define TF_FIELD_(f, T, ct)                                                                  \
    .off = offsetof(tf_params, f) + 0 * sizeof(char[_Generic(((tf_params *)0)->f, T: 1)]), \
    .ctype = ct
#define TF_DOUBLE(f) TF_FIELD_(f, double, TF_CT_DOUBLE)
#define TF_LONG(f) TF_FIELD_(f, long, TF_CT_LONG)
#define TF_BOOL(f) TF_FIELD_(f, int, TF_CT_BOOL)
#define TF_DIST(f) TF_FIELD_(f, sim_dist, TF_CT_DIST)
#define TF_NOFIELD .off = 0, .ctype = TF_CT_NONE

/* 1 when cfg sets client.httpcore = 0.16 (Debian 12's httpcore), as
 * tf_params_read reads it; for code that holds a config, not parameters. */
int tf_params_cfg_httpcore016(const sim_cfg *cfg);

/* 1 when host.cpu_scale multiplies r's value: a CPU cost (.demand) of a
 * double field outside the load generator's section, other than a scale. */
int tf_params_host_scaled(const tf_param *r);
/* The key of that scale, as calibration lists name it. */
#define TF_PARAMS_HOST_SCALE "host.cpu_scale"

/* The registry rows, in schema order (static storage). */
const tf_param *tf_params_registry(size_t *n);
/* The row of "section.key", or NULL. */
const tf_param *tf_params_find(const char *key);
/* The schema table built from the registry (static storage). */
const sim_cfg_key *tf_params_schema(size_t *n);
/* The calibration bounds of a row: its fit_lo/fit_hi, or else its schema
 * range with the lower end at least 1e-9. */
void tf_params_fit_bounds(const tf_param *r, double *lo, double *hi);
/* "section.key" of a row into buf (len bytes); returns buf. */
const char *tf_params_key(const tf_param *r, char *buf, size_t len);

/* Read and check params from cfg with the given (merged) schema.  On
 * error returns SIM_EINPUT with file:line: key: message.  On success the
 * caller owns p's memory (tf_params_fini). */
int tf_params_read(tf_params *p, const sim_cfg *cfg, const sim_cfg_key *schema, size_t n,
                   sim_err *err);
void tf_params_fini(tf_params *p);

#endif
