/* tfsim probe redis|postgres|tigerbeetle: time the TigerFans backend
 * operations against a real server (validate/val_probe_*); tfsim probe
 * http: measure the load generator's HTTP layer with the real Python
 * stack (validate/val_probe_http). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/sim_cfg.h"
#include "validate/val_probe.h"
#include "validate/val_probe_http.h"
#include "validate/val_probe_pg.h"
#include "validate/val_probe_redis.h"
#include "validate/val_probe_tb.h"

const char cmd_probe_usage[] =
    "usage: tfsim probe redis|postgres|tigerbeetle [OPTIONS]\n"
    "       tfsim probe http --out FILE [OPTIONS]\n"
    "\n"
    "Run the exact backend operations of TigerFans against a real server, one\n"
    "phase per operation and concurrency level (C connections, one operation in\n"
    "flight on each, all driven from one thread), and time every operation.\n"
    "Writes one CSV row per operation (operation,concurrency,latency_us,timestamp;\n"
    "the input of `tfsim fit`) and prints a summary: n, mean, p50, p99, max in ms\n"
    "and throughput per operation and level.  redis also reads the server's\n"
    "io-threads and io-threads-do-reads (CONFIG GET: notes in the CSV, which\n"
    "`tfsim fit --config-out` carries over as redis.io_threads and\n"
    "redis.io_threads_do_reads), its CPU per phase (INFO cpu: server_cpu_us per\n"
    "operation and server_cores in the summary) and the share of the phase's\n"
    "replies its I/O threads wrote (INFO stats io_threaded_writes_processed:\n"
    "threaded_writes; the model's run row shows the same share).\n"
    "\n"
    "  redis       redis.paymentsession.save (MULTI/HSET 11 fields/EXPIRE/ZADD/EXEC,\n"
    "              pipelined), .get (HGETALL), .fulfill (two SET NX EX round trips),\n"
    "              .remove_pending (MULTI/ZREM/DEL/EXEC).  Keys under its own prefix\n"
    "              in database --db; deleted at the end.\n"
    "  postgres    postgres.accounting.hold (one transaction: for ticket and goodie,\n"
    "              read capacity, sum posted and unexpired pending holds, insert a\n"
    "              hold), .paymentsession.save/get/fulfill/remove_pending (small\n"
    "              transactions), .accounting.commit_order, .db.add_order.  Works only\n"
    "              in the schema tfsim_probe, which it drops and recreates at the\n"
    "              start and drops at the end (one probe per database at a time).\n"
    "  tigerbeetle create_transfers latency against batch size (needs a build with\n"
    "              the TigerBeetle C client: make TB_CLIENT_DIR=/path/to/tb_client).\n"
    "  http        the load generator's HTTP layer, with the real Python stack: the\n"
    "              TigerBench load pattern (a new httpx.AsyncClient per phase with\n"
    "              Limits(C, C); checkout/reserve as gather + Semaphore(C), webhook/\n"
    "              commit as waves of C) against a stand-in TigerFans server (one\n"
    "              uvicorn worker; every request awaits the backend latency), a fresh\n"
    "              server per latency and concurrency.  Options below.\n"
    "\n"
    "Common options (redis, postgres, tigerbeetle):\n"
    "  --concurrency LIST  concurrency levels (default 1,4,16,64; at most 1024); redis:\n"
    "                      auto = 1, 2N-1, 2N, 4N, 8N for a server with io-threads N\n"
    "                      (its I/O threads run from 2N clients pending)\n"
    "  --count N           recorded operations per phase (default 1000)\n"
    "  --seconds T         record for T per phase instead of --count (e.g. 10s)\n"
    "  --warmup N          unrecorded operations first, per phase (default 100)\n"
    "  --timeout T         allowed for a connection and for each reply (default 5s)\n"
    "  --ops LIST          only these operations (names without the backend prefix;\n"
    "                      later ones use what earlier ones made: keep the order)\n"
    "  --out FILE          write the samples CSV (flushed every 64 rows: a killed\n"
    "                      run leaves only complete lines)\n"
    "  --format F          summary as text (default), csv or json\n"
    "\n"
    "redis options:\n"
    "  --socket PATH       unix socket (default: TCP --host/--port)\n"
    "  --host H --port P   TCP address (default 127.0.0.1:6379)\n"
    "  --user U            ACL user for AUTH\n"
    "  --password PW       password (default: $TFSIM_REDIS_PASSWORD; never printed)\n"
    "  --db N              database number (default 15)\n"
    "  --prefix P          key prefix (default tfsim:probe:<pid>:)\n"
    "\n"
    "postgres options:\n"
    "  --conninfo S        libpq connection string or URI (e.g. \"host=/tmp dbname=x\")\n"
    "  --socket DIR        unix socket folder (same as --host DIR)\n"
    "  --host H --port P --dbname D --user U --password PW\n"
    "                      override the conninfo (libpq defaults and PG* variables\n"
    "                      apply to what is not given; PGPASSWORD works)\n"
    "  --holds N           preload N posted holds (the table TigerFans grows; later\n"
    "                      sums cost more)\n"
    "  --no-pre-ping       no SELECT 1 before each transaction (default: on, as\n"
    "                      SQLAlchemy's pool_pre_ping)\n"
    "  --keep              leave the schema tfsim_probe in place at the end\n"
    "\n"
    "tigerbeetle options:\n"
    "  --address A         replica address (default 3000, i.e. 127.0.0.1:3000)\n"
    "  --cluster N         cluster id (default 0)\n"
    "  --batch-sizes LIST  transfers per request (default 1,8,64,512,4096,8189; also\n"
    "                      --batch); the CSV's concurrency column holds the batch size\n"
    "\n"
    "http options (the two Python scripts are built into tfsim and run from a\n"
    "temporary folder; Debian: python3-httpx python3-uvicorn python3-starlette):\n"
    "  --out FILE          the CSV (required): comment lines with the settings and\n"
    "                      the versions (httpx, httpcore, uvicorn, python), then one\n"
    "                      row per phase run: latency_ms,concurrency,phase,total,ok,\n"
    "                      errors,walltime,throughput,client_cpu,server_cpu,\n"
    "                      server_requests,server_await,server_conns,pool_passes,\n"
    "                      pool_conns,pool_idle (CPU in seconds for the whole\n"
    "                      phase; the client's httpcore pool at its passes: passes\n"
    "                      per request, mean connections open and idle at a pass,\n"
    "                      nan when the httpcore has no hook for it).  `tfsim fit`\n"
    "                      shows them beside the simulated pool's.  Written to\n"
    "                      FILE.part and renamed at the end; an existing FILE is\n"
    "                      replaced only when at least one row was measured\n"
    "  --python PATH       interpreter (default /usr/bin/python3 if present, else\n"
    "                      python3 on PATH)\n"
    "  --pythonpath DIR    PYTHONPATH for it: measure another httpx/httpcore, e.g.\n"
    "                      pip install --target DIR httpx==0.28.1\n"
    "  --latency-ms LIST   backend latencies in ms (default 0,0.5,2,10)\n"
    "  --concurrency LIST  C (default 1,5,10,20,30,40,50,60,70,80,90,100)\n"
    "  --total N           requests per phase (default 1000)\n"
    "  --phases LIST       of checkout,webhook,reserve,commit (default all; they run\n"
    "                      in that order)\n"
    "  --app A             the server's application: starlette (default), asgi (a\n"
    "                      bare ASGI app) or fastapi (needs python3-fastapi)\n"
    "  --reps N            runs per latency and concurrency (default 1)\n"
    "  --seed N            the load generator's random seed (default 1)\n"
    "  --timeout T         allowed for each request (default 10s, as TigerBench's\n"
    "                      load generator); a request past it counts as an error\n"
    "  --server-cpu-ms X   the stand-in spins X ms of CPU on its one loop for each\n"
    "                      request, in series, before the backend await (default 0:\n"
    "                      none); TigerFans' server spends 1-3 ms of its loop per\n"
    "                      request, which the load generator's pool feels at 100\n"
    "                      (a line of the CSV's preamble says so)\n"
    "  --format F          summary as text (default), csv or json: per latency,\n"
    "                      concurrency and phase the throughput, the client's and\n"
    "                      the server's CPU ms per request, the connections the\n"
    "                      server accepted\n"
    "\n"
    "Failures (server down, wrong password, server killed or not answering within\n"
    "--timeout) print which server and what failed and exit 1; the samples\n"
    "measured until then stay in the CSV.  Ctrl-C stops early the same way.\n"
    "http: a missing interpreter or module (the message names the Debian package),\n"
    "a failed server or a row that fails the checks exit 1, the rows measured until\n"
    "then kept in FILE; bad flags exit 2.\n"
    "\n"
    "examples:\n"
    "  tfsim probe redis --socket /run/redis/redis.sock --out redis.csv\n"
    "  tfsim probe redis --host 127.0.0.1 --port 6379 --concurrency 1,8 --seconds 5s\n"
    "  tfsim probe redis --socket /tmp/redis.sock --concurrency auto --ops paymentsession.get \\\n"
    "      --count 2000 --out redis.csv\n"
    "  tfsim probe postgres --conninfo \"host=/run/postgresql dbname=test\" \\\n"
    "      --concurrency 1,10 --count 2000 --holds 100000 --out pg.csv\n"
    "  tfsim probe postgres --ops accounting.hold --concurrency 1 --format csv\n"
    "  tfsim probe tigerbeetle --address 3000 --batch-sizes 1,64,8189 --out tb.csv\n"
    "  tfsim probe http --out http.csv\n"
    "  tfsim probe http --latency-ms 0 --concurrency 1,10,50,100 --phases reserve \\\n"
    "      --total 2000 --reps 3 --out reserve.csv --format csv\n"
    "  tfsim probe http --pythonpath ~/httpx-0.28 --out http028.csv\n"
    "  tfsim fit redis.csv --config-out fitted.ini\n";

static volatile sig_atomic_t stop_flag;

static void progress(void *ctx, const char *op, unsigned level, uint64_t n, double wall)
{
    const char *level_name = ctx;
    fprintf(stderr, "tfsim probe: %-40s %s %-5u n=%llu in %.2f s\n", op, level_name, level,
            (unsigned long long)n, wall > 0 ? wall : 0.0);
}

/* If argv[*i] is --name VALUE or --name=VALUE, return VALUE (advancing *i);
 * NULL otherwise.  A missing value sets *missing. */
static const char *opt(int argc, char **argv, int *i, const char *name, int *missing)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

enum { B_REDIS, B_PG, B_TB };

static void http_progress(void *ctx, const val_http_row *r)
{
    (void)ctx;
    fprintf(stderr,
            "tfsim probe: http latency %g ms c %-4u %-8s %llu ok %llu errors, %.1f requests/s\n",
            r->latency_ms, r->concurrency, val_http_phase_names[r->phase],
            (unsigned long long)r->ok, (unsigned long long)r->errors, r->throughput);
}

static void http_diag(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

/* tfsim probe http ... */
static int probe_http(int argc, char **argv)
{
    const char *cmd = "probe";
    val_probe_http_opts o;
    val_probe_http_opts_init(&o);
    sim_format fmt = SIM_FMT_TEXT;
    char why[300];
    for (int i = 2; i < argc; i++) {
        int missing = 0;
        const char *v;
        const char *a = argv[i];
#define FLAG(name) ((v = opt(argc, argv, &i, name, &missing)) != NULL || missing)
#define NEED()                                                          \
    do {                                                                \
        if (missing)                                                    \
            return cli_usage_error(cmd, "%s: missing value", a);        \
    } while (0)
        if (FLAG("--out")) {
            NEED();
            if (!*v)
                return cli_usage_error(cmd, "--out: empty file name");
            o.out = v;
        } else if (FLAG("--python")) {
            NEED();
            if (!*v)
                return cli_usage_error(cmd, "--python: empty path");
            o.python = v;
        } else if (FLAG("--pythonpath")) {
            NEED();
            o.pythonpath = v;
        } else if (FLAG("--latency-ms")) {
            NEED();
            if (val_probe_http_parse_latencies(v, &o, why, sizeof why))
                return cli_usage_error(cmd, "--latency-ms: %s", why);
        } else if (FLAG("--concurrency")) {
            NEED();
            if (val_probe_http_parse_levels(v, &o, why, sizeof why))
                return cli_usage_error(cmd, "--concurrency: %s", why);
        } else if (FLAG("--phases")) {
            NEED();
            if (val_probe_http_parse_phases(v, &o, why, sizeof why))
                return cli_usage_error(cmd, "--phases: %s", why);
        } else if (FLAG("--app")) {
            NEED();
            if (val_probe_http_parse_app(v, &o, why, sizeof why))
                return cli_usage_error(cmd, "--app: %s", why);
        } else if (FLAG("--total")) {
            NEED();
            long n;
            if (cli_parse_long(cmd, "--total", v, 1, (long)VAL_HTTP_MAX_TOTAL, &n))
                return EXIT_INPUT;
            o.total = (uint64_t)n;
        } else if (FLAG("--reps")) {
            NEED();
            long n;
            if (cli_parse_long(cmd, "--reps", v, 1, VAL_HTTP_MAX_REPS, &n))
                return EXIT_INPUT;
            o.reps = (unsigned)n;
        } else if (FLAG("--seed")) {
            NEED();
            unsigned long long n;
            if (cli_parse_u64(cmd, "--seed", v, &n))
                return EXIT_INPUT;
            if (n > 9007199254740992ull)
                return cli_usage_error(cmd, "--seed: at most 2^53");
            o.seed = n;
        } else if (FLAG("--timeout")) {
            NEED();
            double d;
            const char *w;
            if (sim_parse_duration(v, &d, &w) || !(d >= 1e-3) || d > 86400)
                return cli_usage_error(cmd, "--timeout: '%s' is not a duration in [1 ms, 1 day] (e.g. 2s)", v);
            o.timeout = d;
        } else if (FLAG("--server-cpu-ms")) {
            NEED();
            double x;
            const char *w;
            if (sim_parse_double(v, &x, &w) || !(x >= 0 && x <= VAL_HTTP_MAX_SERVER_CPU * 1e3))
                return cli_usage_error(cmd, "--server-cpu-ms: '%s' is not a number of ms in [0, %g]",
                                       v, VAL_HTTP_MAX_SERVER_CPU * 1e3);
            o.server_cpu = x / 1e3;
        } else if (FLAG("--format")) {
            NEED();
            if (cli_parse_format(cmd, v, &fmt))
                return EXIT_INPUT;
        } else {
            return cli_usage_error(cmd, "unknown option '%s' for http", a);
        }
#undef FLAG
#undef NEED
    }
    if (!o.out)
        return cli_usage_error(cmd, "http: --out FILE is required");
    o.progress = http_progress;
    o.diag = http_diag;
    o.stop = &stop_flag;
    cli_stop_signals(&stop_flag);

    sim_err err = {0};
    val_probe_http_result res;
    val_probe_http_result_init(&res);
    int rc = val_probe_http_run(&o, &res, &err);
    if (res.versions[0])
        fprintf(stderr, "tfsim probe: http measured with %s\n", res.versions);
    sim_table *t = val_probe_http_table(&res);
    if (sim_table_nrows(t) > 0 && sim_table_print(t, fmt, stdout) != 0 && rc == SIM_OK)
        rc = sim_err_set(&err, SIM_EFAIL, "cannot write the summary to standard output");
    sim_table_free(t);
    if (rc == SIM_OK)
        fprintf(stderr, "tfsim probe: %zu rows in %s\n", res.n, o.out);
    val_probe_http_result_fini(&res);
    return rc == SIM_OK ? EXIT_OK : cli_fail(cmd, &err);
}

int cmd_probe(int argc, char **argv)
{
    const char *cmd = "probe";
    if (argc < 2)
        return cli_usage_error(cmd, "which server? redis, postgres, tigerbeetle or http");
    if (!strcmp(argv[1], "http"))
        return probe_http(argc, argv);
    int backend;
    if (!strcmp(argv[1], "redis"))
        backend = B_REDIS;
    else if (!strcmp(argv[1], "postgres") || !strcmp(argv[1], "postgresql") || !strcmp(argv[1], "pg"))
        backend = B_PG;
    else if (!strcmp(argv[1], "tigerbeetle") || !strcmp(argv[1], "tb"))
        backend = B_TB;
    else
        return cli_usage_error(cmd, "unknown server '%s' (expected redis, postgres, tigerbeetle or http)", argv[1]);

    val_probe_opts o;
    val_probe_opts_init(&o);
    if (backend == B_TB) {
        static const unsigned tb_def[] = {1, 8, 64, 512, 4096, 8189};
        memcpy(o.levels, tb_def, sizeof tb_def);
        o.nlevels = 6;
    }
    val_redis_conn rc_ = {0};
    rc_.db = VAL_REDIS_DEFAULT_DB;
    rc_.password = getenv("TFSIM_REDIS_PASSWORD");
    val_pg_conn pc = {0};
    pc.pre_ping = 1;
    val_tb_conn tc = {0};
    const char *out_path = NULL;
    sim_format fmt = SIM_FMT_TEXT;
    char why[256];

    for (int i = 2; i < argc; i++) {
        int missing = 0;
        const char *v;
        const char *a = argv[i];
#define FLAG(name) ((v = opt(argc, argv, &i, name, &missing)) != NULL || missing)
#define NEED()                                                          \
    do {                                                                \
        if (missing)                                                    \
            return cli_usage_error(cmd, "%s: missing value", a);        \
    } while (0)
        if (FLAG("--concurrency") || (backend == B_TB && (FLAG("--batch-sizes") || FLAG("--batch")))) {
            NEED();
            if (backend == B_REDIS && !strcmp(v, "auto")) {
                o.nlevels = 0; /* from the server's io-threads */
                continue;
            }
            unsigned max = backend == B_TB ? VAL_TB_BATCH_MAX : VAL_PROBE_MAX_CONC;
            if (val_probe_parse_levels(v, max, &o, why, sizeof why))
                return cli_usage_error(cmd, "%s: %s", a, why);
        } else if (FLAG("--count")) {
            NEED();
            unsigned long long n;
            if (cli_parse_u64(cmd, "--count", v, &n))
                return EXIT_INPUT;
            if (n < 1)
                return cli_usage_error(cmd, "--count: must be >= 1");
            o.count = n;
        } else if (FLAG("--warmup")) {
            NEED();
            unsigned long long n;
            if (cli_parse_u64(cmd, "--warmup", v, &n))
                return EXIT_INPUT;
            o.warmup = n;
        } else if (FLAG("--seconds") || FLAG("--timeout")) {
            NEED();
            double d;
            const char *w;
            int is_timeout = strncmp(a, "--timeout", 9) == 0;
            if (sim_parse_duration(v, &d, &w) || !(d > 0) || d > 86400)
                return cli_usage_error(cmd, "%s: '%s' is not a duration in (0, 1 day] (e.g. 2s, 500ms)",
                                       is_timeout ? "--timeout" : "--seconds", v);
            if (is_timeout)
                o.timeout = d;
            else
                o.seconds = d;
        } else if (FLAG("--ops")) {
            NEED();
            o.ops = v;
        } else if (FLAG("--out")) {
            NEED();
            out_path = v;
        } else if (FLAG("--format")) {
            NEED();
            if (cli_parse_format(cmd, v, &fmt))
                return EXIT_INPUT;
        } else if (backend != B_TB && FLAG("--socket")) {
            NEED();
            rc_.socket = v;
            pc.host = v;
        } else if (backend != B_TB && FLAG("--host")) {
            NEED();
            rc_.host = v;
            pc.host = v;
        } else if (backend != B_TB && FLAG("--port")) {
            NEED();
            long port;
            if (cli_parse_long(cmd, "--port", v, 1, 65535, &port))
                return EXIT_INPUT;
            rc_.port = (int)port;
            pc.port = v;
        } else if (backend != B_TB && FLAG("--user")) {
            NEED();
            rc_.user = v;
            pc.user = v;
        } else if (backend != B_TB && FLAG("--password")) {
            NEED();
            rc_.password = v;
            pc.password = v;
        } else if (backend == B_REDIS && FLAG("--db")) {
            NEED();
            long db;
            if (cli_parse_long(cmd, "--db", v, 0, 1000000, &db))
                return EXIT_INPUT;
            rc_.db = (int)db;
        } else if (backend == B_REDIS && FLAG("--prefix")) {
            NEED();
            if (!*v || strlen(v) > 100)
                return cli_usage_error(cmd, "--prefix: expected 1 to 100 characters");
            rc_.prefix = v;
        } else if (backend == B_PG && FLAG("--conninfo")) {
            NEED();
            pc.conninfo = v;
        } else if (backend == B_PG && FLAG("--dbname")) {
            NEED();
            pc.dbname = v;
        } else if (backend == B_PG && FLAG("--holds")) {
            NEED();
            unsigned long long n;
            if (cli_parse_u64(cmd, "--holds", v, &n))
                return EXIT_INPUT;
            if (n > 1000000000ull)
                return cli_usage_error(cmd, "--holds: at most 1000000000");
            pc.preload_holds = n;
        } else if (backend == B_PG && !strcmp(a, "--no-pre-ping")) {
            pc.pre_ping = 0;
        } else if (backend == B_PG && !strcmp(a, "--keep")) {
            pc.keep = 1;
        } else if (backend == B_TB && FLAG("--address")) {
            NEED();
            tc.address = v;
        } else if (backend == B_TB && FLAG("--cluster")) {
            NEED();
            unsigned long long n;
            if (cli_parse_u64(cmd, "--cluster", v, &n))
                return EXIT_INPUT;
            tc.cluster = n;
        } else {
            return cli_usage_error(cmd, "unknown option '%s' for %s", a, argv[1]);
        }
#undef FLAG
#undef NEED
    }
    if (backend == B_TB && !val_probe_tb_enabled) {
        sim_err err = {0};
        val_probe_tb_run(&tc, &o, NULL, &err);
        return cli_fail(cmd, &err);
    }

    sim_err err = {0};
    val_samples_writer *out = NULL;
    if (out_path) {
        out = val_samples_create(out_path, &err);
        if (!out)
            return cli_fail(cmd, &err);
    }
    const char *level_name = backend == B_TB ? "batch" : "c";
    o.out = out;
    o.progress = progress;
    o.progress_ctx = (void *)level_name;
    o.stop = &stop_flag;
    /* servers may close sockets under us: a write must fail, not kill */
    cli_stop_signals(&stop_flag);

    val_probe_result *res = val_probe_result_new();
    int rc;
    int auto_levels = backend == B_REDIS && o.nlevels == 0; /* --concurrency auto */
    if (backend == B_REDIS) {
        val_redis_info info = {0, -1};
        rc = val_probe_redis_run(&rc_, &o, res, &info, &err);
        if (info.io_threads > 0)
            fprintf(stderr, "tfsim probe: the server has io-threads %ld%s: %s\n", info.io_threads,
                    info.io_reads > 0 ? " (reads too)" : info.io_reads == 0 ? " (writes only)" : "",
                    info.io_threads > 1 ? "its I/O threads run while a cycle ends with 2 x io-threads "
                                          "clients pending"
                                        : "no I/O threads");
        else if (rc == SIM_OK)
            fprintf(stderr, "tfsim probe: the server did not answer CONFIG GET io-threads (an ACL "
                            "without CONFIG?): its I/O threads are unknown, no redis.io_threads "
                            "note is written%s\n",
                    auto_levels ? "; --concurrency auto swept 1, 4, 16, 64" : "");
    }
    else if (backend == B_PG)
        rc = val_probe_pg_run(&pc, &o, res, &err);
    else
        rc = val_probe_tb_run(&tc, &o, res, &err);

    sim_err werr = {0};
    uint64_t rows = out ? val_samples_rows(out) : 0;
    int wrc = val_samples_close(out, &werr);
    sim_table *t = val_probe_table(res, backend == B_TB ? "batch" : "concurrency");
    if (sim_table_nrows(t) > 0 && sim_table_print(t, fmt, stdout) != 0 && rc == SIM_OK)
        rc = sim_err_set(&err, SIM_EFAIL, "cannot write the summary to standard output");
    sim_table_free(t);
    val_probe_result_free(res);
    if (out_path && wrc == SIM_OK && rows > 0)
        fprintf(stderr, "tfsim probe: %llu samples in %s\n", (unsigned long long)rows, out_path);
    else if (out_path && wrc == SIM_OK)
        fprintf(stderr, "tfsim probe: no samples measured: %s left as it was\n", out_path);
    if (rc != SIM_OK)
        return cli_fail(cmd, &err);
    if (wrc != SIM_OK)
        return cli_fail(cmd, &werr);
    return EXIT_OK;
}
