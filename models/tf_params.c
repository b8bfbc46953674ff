#include "models/tf_params.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

const char *const tf_phase_names[TF_NPHASES] = {"checkout", "webhook", "reserve", "commit"};

/* Where the defaults come from: the TigerFans code (DESIGN.md section 2),
 * the TigerBench data in tests/data/calibration.csv, and the calibration
 * of pg_pg on it (configs/tigerfans/base.ini gives the command and the
 * figures); the defaults describe the tb_redis architecture. */
#define DESIGN "DESIGN.md section 2 (the TigerFans code)"
#define CALIBRATED "calibrated on tests/data/calibration.csv, pg_pg (configs/tigerfans/base.ini)"

static const tf_param registry[] = {
    {{"architecture", "accounting", SIM_CFG_ENUM, "tb", 0, 0, "pg|tb|stub", NULL,
       "ticket accounting backend: PostgreSQL holds table or TigerBeetle transfers; stub: "
       "the stand-in server of `tfsim probe http` (with payments = stub)"},
     TF_NOFIELD, .source = DESIGN},
    {{"architecture", "payments", SIM_CFG_ENUM, "redis", 0, 0, "pg|redis|stub", NULL,
       "payment-session store"},
     TF_NOFIELD, .source = DESIGN},
    {{"architecture", "stub_latency", SIM_CFG_DIST, "0", 0, 0, NULL, "s",
       "stub architecture: every request awaits this backend latency once (asyncio.sleep in "
       "the stand-in server)"},
     TF_DIST(stub_latency), .source = "validate/http/tfhttp_server.py"},
    {{"architecture", "stub_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
       "stub architecture: CPU the stand-in spins on its loop for every request before its "
       "await (tfsim probe http --server-cpu-ms), on top of server.cpu_request; tfsim fit "
       "sets it from the probe file"},
     TF_DOUBLE(stub_cpu), .demand = 1,
     .source = "validate/http/tfhttp_server.py backend(): the spin, then asyncio.sleep"},

    {{"client", "concurrency", SIM_CFG_INT, "10", 1, 1e6, NULL, "requests",
       "requests in flight (window) or per wave"},
     TF_LONG(concurrency),
     .source = "TigerBench load_tests/*.env (bench/load_phases.py --concurrency)"},
    {{"client", "total", SIM_CFG_INT, "1000", 1, 1e9, NULL, "requests", "requests per phase"},
     TF_LONG(total), .source = "TigerBench load_tests/*.env: 1000 requests per phase"},
    {{"client", "phases", SIM_CFG_STR, "checkout,webhook,reserve,commit", 0, 0, NULL, NULL,
       "phases to run, in this order is fixed: any subset of checkout,webhook,reserve,commit"},
     TF_NOFIELD, .source = "bench/load_phases.py: the four phases, in this order"},
    {{"client", "mode", SIM_CFG_ENUM, "benchmark", 0, 0, "benchmark|window|waves|poisson|closed",
       NULL,
       "benchmark: window for checkout/reserve, waves for webhook/commit; or one mode for all"},
     TF_NOFIELD,
     .source = "bench/load_phases.py: checkout and reserve a sliding window, webhook and "
               "commit waves"},
    {{"client", "rate", SIM_CFG_RATE, "500", 1e-6, 1e9, NULL, "1/s", "poisson mode: arrival rate"},
     TF_DOUBLE(rate), .source = "what-if (not in TigerBench)"},
    {{"client", "think", SIM_CFG_DIST, "0", 0, 0, NULL, "s", "closed mode: think time"},
     TF_DIST(think), .source = "what-if (not in TigerBench)"},
    {{"client", "session", SIM_CFG_STR, "", 0, 0, NULL, NULL,
       "redis_bench model: what one client does per session, in order: c a command (its reply "
       "awaited), t a think (client.think); empty: one command, then a think (as before); "
       "with mode = waves, every client runs one session and the next wave starts when all "
       "have ended (asyncio.gather)"},
     TF_NOFIELD,
     .source = "scripts/cold_paths.py redis-load: ctccctct (save, sleep, get, two SET NX, "
               "sleep, remove, sleep)"},
    {{"client", "cpu", SIM_CFG_DUR, "753.7us", 0, 1, NULL, "s",
       "load generator (Python httpx) CPU per request besides its connection pool, on its "
       "own event loop"},
     TF_DOUBLE(client_cpu), .demand = 1, .fit_lo = 2e-05, .fit_hi = 0.005, .live = "0",
     .source = "tfsim probe http on this kind of machine (httpcore 1.0.9, fitted at 2 ms; "
               "client.cpu_scale carries it to the machine the data come from)"},
    {{"client", "sent_cpu", SIM_CFG_DUR, "106.9us", 0, 1, NULL, "s",
       "load generator CPU per request after its bytes are written (httpcore's end of "
       "message and read set-up: one more loop turn while the server already works on it)"},
     TF_DOUBLE(client_sent_cpu), .demand = 1, .fit_lo = 1e-07, .fit_hi = 0.002, .live = "0",
     .source = "tfsim probe http (httpcore 1.0.9, fitted at 2 ms; strace of the load "
               "generator: one loop turn between the write and the wait)"},
    {{"client", "cold", SIM_CFG_NUM, "0", 0, 100, NULL, "factor",
       "the load generator's loop after it idled: the first burst after an idle spell of g "
       "costs its CPU times 1 + cold x (1 - exp(-g / client.cold_tau)); 0: every burst warm"},
     TF_DOUBLE(client_cold), .fit_lo = 1e-3, .fit_hi = 20, .live = "0",
     .source = "0 (the TigerBench host: not measured); this VM: tfsim probe http at "
               "concurrency 1, 0 / 2 / 10 ms (tests/data/probe_http_debian12.csv): the client's "
               "CPU per request 0.96 / 1.14 / 1.51 ms, 0.95 ms + 0.79 ms (1 - e^(-g / 8.8 ms))"},
    {{"client", "cold_tau", SIM_CFG_DUR, "8.8ms", 1e-6, 10, NULL, "s",
       "how fast the load generator's loop goes cold while it idles (client.cold)"},
     TF_DOUBLE(client_cold_tau),
     .source = "tfsim probe http at concurrency 1, 0 / 2 / 10 ms, this VM (client.cold)"},
    {{"client", "cpu_scale", SIM_CFG_NUM, "0.567", 0.01, 100, NULL, "factor",
       "multiplies every CPU cost of the load generator (cpu, connect_cpu, pool_*): its CPU "
       "speed relative to the machine those costs were measured on (tfsim probe http)"},
     TF_DOUBLE(client_cpu_scale), .demand = 1, .fit_lo = 0.02, .fit_hi = 50, .fit = 1,
     .source = CALIBRATED " (the TigerBench host's load generator against the probe's costs, "
               "measured on this kind of machine)"},
    {{"client", "crowding", SIM_CFG_NUM, "0", 0, 10, NULL, "1/request",
       "client CPU grows by this fraction per request in flight (besides the pool's passes)"},
     TF_DOUBLE(client_crowding), .fit_lo = 1e-06, .fit_hi = 1, .live = "0",
     .source = "0: the pool's passes explain the growth (tfsim probe http)"},
    {{"client", "max_connections", SIM_CFG_INT, "0", 0, 1e6, NULL, "connections",
       "connection limit of the client's pool (httpx Limits.max_connections); 0: the "
       "concurrency, as TigerFans' load generator sets it (Limits(C, C): every connection is "
       "kept alive for the whole phase, each phase opens a new client)"},
     TF_LONG(max_connections), .live = "0",
     .source = "bench/load_phases.py: Limits(max_connections=C, max_keepalive_connections=C)"},
    {{"client", "connect_cpu", SIM_CFG_DUR, "0.5ms", 0, 1, NULL, "s",
       "client CPU to open a connection (once per connection and phase)"},
     TF_DOUBLE(connect_cpu_client), .demand = 1, .fit_lo = 1e-05, .fit_hi = 0.05, .live = "0",
     .source = "assumed (C connections per phase: a small share)"},
    {{"client", "pool_cpu", SIM_CFG_DUR, "34us", 0, 1, NULL, "s",
       "client CPU of one pass over the connection pool (httpcore assigns requests to "
       "connections at every request start, every response close and every retry)"},
     TF_DOUBLE(pool_cpu), .demand = 1, .fit_lo = 1e-07, .fit_hi = 1e-3, .live = "0",
     .source = "tfsim probe http, httpcore 1.0.9 instrumented: 34 us per pass"},
    {{"client", "pool_conn_cpu", SIM_CFG_DUR, "0.6us", 0, 1, NULL, "s/connection",
       "client CPU of a pool pass per connection in the pool (its state checks)"},
     TF_DOUBLE(pool_conn_cpu), .demand = 1, .fit_lo = 1e-09, .fit_hi = 1e-4, .live = "0",
     .source = "tfsim probe http, httpcore 1.0.9 instrumented: 0.6 us per connection"},
    {{"client", "pool_idle_cpu", SIM_CFG_DUR, "122.6ns", 0, 1, NULL, "s/connection^2",
       "client CPU of a pool pass per idle connection and connection in the pool "
       "(httpcore 1.x counts the pool's connections once for every idle connection; "
       "0.16 does not: ignored with client.httpcore = 0.16)"},
     TF_DOUBLE(pool_idle_cpu), .demand = 1, .fit_lo = 1e-10, .fit_hi = 1e-4, .fit = 1,
     .live = "0", .source = CALIBRATED " (start: probe http on this kind of machine, 0.109 us)"},
    {{"client", "pool_poll_cpu", SIM_CFG_DUR, "13.17us", 0, 1, NULL, "s/connection",
       "client CPU of a pool pass per idle connection (has_expired polls its socket)"},
     TF_DOUBLE(pool_poll_cpu), .demand = 1, .fit_lo = 1e-07, .fit_hi = 1e-3, .live = "0",
     .source = "tfsim probe http (httpcore 1.0.9, fitted at 2 ms; instrumented: 13.8 us)"},
    {{"client", "pool_req_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s/request",
       "client CPU of a pool pass per request in the pool (httpcore lists the waiting "
       "requests at every pass)"},
     TF_DOUBLE(pool_req_cpu), .demand = 1, .fit_lo = 1e-09, .fit_hi = 1e-4, .live = "0",
     .source = "0: inside pool_cpu for httpcore 1.0.9 (tfsim probe http); "
               "configs/tigerfans/client_debian12.ini fits it for 0.16"},
    {{"client", "httpcore", SIM_CFG_ENUM, "1.0", 0, 0, "1.0|0.16", NULL,
       "the load generator's httpcore: 1.0 (TigerFans pins httpx 0.28.1, httpcore 1.0.9: "
       "thread lock around each pass, connections in creation order) or 0.16 (Debian 12's "
       "python3-httpx 0.23.3, python3-httpcore 0.16.3: every pass holds the pool's anyio lock, "
       "which costs its holder a loop turn, two when handed over; connections most recently "
       "used first, a request is assigned only at its own passes or a response's)"},
     TF_NOFIELD,
     .source = "TigerFans requirements.txt (httpcore 1.0.9); Debian 12 python3-httpcore 0.16.3, "
               "connection_pool.py"},
    {{"client", "asyncio_passes", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL,
       "the load generator's event loop runs asyncio's passes: each pass runs what was ready when it began "
       "(what the last pass scheduled with call_soon first, then the callbacks of the I/O "
       "and timers that arrived since the last poll); what a callback schedules waits for "
       "the next pass, and an arrival's callback wakes its task only for the pass after; "
       "false: one ready queue in arrival order, an arrival's burst at its back (off: no "
       "better on the measurements, docs/load-generator.md \"asyncio's passes\")"},
     TF_BOOL(client_passes), .live = "false",
     .source = "CPython 3.11 asyncio base_events.BaseEventLoop._run_once (ntodo = len(_ready) at the start of each pass), selector_events (a readable socket's protocol callback), futures and tasks (set_result wakes the task with call_soon), tasks.sleep(0) (a bare yield)"},
    {{"client", "pool_yields", SIM_CFG_INT, "2", 1, 100, NULL, "turns",
       "client loop turns between a request's pool pass and its claim of the connection "
       "(httpcore 1.0.9 with anyio 4: the connection's request lock and state lock, each a "
       "checkpoint); meanwhile other passes may hand the same idle connection to other "
       "requests, which then retry"},
     TF_LONG(pool_yields), .source = "httpcore 1.0.9 connection.py and http11.py (two anyio locks)"},
    {{"client", "send_yields", SIM_CFG_INT, "2", 0, 100, NULL, "turns",
       "client loop turns between a request's claim of its connection and the request leaving "
       "(httpcore writes the headers, then the end of the message, each write a checkpoint)"},
     TF_LONG(send_yields), .live = "0",
     .source = "httpcore 1.0.9 http11.py: two writes, each an anyio checkpoint"},
    {{"client", "recv_yields", SIM_CFG_INT, "2", 0, 100, NULL, "turns",
       "client loop turns between the response's arrival and the release of its connection "
       "(the reading coroutine wakes; the connection's state lock is a checkpoint)"},
     TF_LONG(recv_yields), .live = "0",
     .source = "httpcore 1.0.9 http11.py: the read's wake-up and the state lock"},
    {{"client", "keepalive_expiry", SIM_CFG_DUR, "5s", 0, 1e6, NULL, "s",
       "an idle connection of the client's pool closes after this (httpx's keepalive_expiry, "
       "5 s by default, which the load generator keeps; uvicorn's timeout_keep_alive is 5 s "
       "too); 0: never"},
     TF_DOUBLE(keepalive_expiry), .live = "0",
     .source = "httpx DEFAULT_LIMITS keepalive_expiry=5.0 (load_phases.py does not set it)"},
    {{"client", "succeed_rate", SIM_CFG_NUM, "1", 0, 1, NULL, "fraction",
       "share of webhooks that report a successful payment"},
     TF_DOUBLE(succeed_rate), .source = "TigerBench arg_succeed_rate column (1.0)"},

    {{"server", "workers", SIM_CFG_INT, "1", 1, 1024, NULL, "processes",
       "uvicorn workers, each one single-threaded event loop"},
     TF_LONG(workers), .source = "uvicorn --workers 1 (TigerFans Makefile)"},
    {{"server", "cpu_request", SIM_CFG_DUR, "816.2us", 0, 1, NULL, "s",
       "framework CPU per request (HTTP parsing, routing, validation, response)"},
     TF_DOUBLE(cpu_request), .demand = 1, .fit_lo = 2e-05, .fit_hi = 0.005, .fit = 1,
     .source = CALIBRATED},
    {{"server", "cpu_webhook", SIM_CFG_DUR, "132.4us", 0, 1, NULL, "s",
       "extra CPU per webhook (HMAC check, JSON)"},
     TF_DOUBLE(cpu_webhook), .demand = 1, .fit_lo = 1e-06, .fit_hi = 0.005, .fit = 1,
     .source = CALIBRATED},
    {{"server", "cpu_checkout", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
       "extra CPU per checkout (session creation, idempotency check, payment setup)"},
     TF_DOUBLE(cpu_checkout), .demand = 1, .fit_lo = 1e-06, .fit_hi = 0.005,
     .source = "0: at concurrency 1 checkout spends as much time outside its operations as "
               "reserve (docs/calibration.md)"},
    {{"server", "cpu_split", SIM_CFG_NUM, "0.7", 0, 1, NULL, "fraction",
       "share of cpu_request spent before the first await"},
     TF_DOUBLE(cpu_split),
     .source = "assumed: most of a request's framework work comes before its first await"},
    {{"server", "crowding", SIM_CFG_NUM, "3.107e-05", 0, 10, NULL, "1/task",
       "every CPU step grows by this fraction per live request on its loop"},
     TF_DOUBLE(crowding), .fit_lo = 1e-06, .fit_hi = 1, .fit = 1, .live = "0",
     .source = CALIBRATED},
    {{"server", "accept_cpu", SIM_CFG_DUR, "186.8us", 0, 1, NULL, "s",
       "server CPU to accept a new connection"},
     TF_DOUBLE(connect_cpu_server), .demand = 1, .fit_lo = 1e-06, .fit_hi = 0.02, .fit = 1,
     .live = "0",
     .source = CALIBRATED},
    {{"server", "wake_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
       "extra loop CPU for a burst that finds its loop idle (the thread slept and is woken: "
       "on a VM an idle vCPU costs a wake-up); 0: none"},
     TF_DOUBLE(wake_cpu), .demand = 1,
     .source = "0; tfsim compare measures it (live runs at two loads)"},
    {{"server", "io_turns", SIM_CFG_INT, "0", 0, 100, NULL, "turns",
       "loop turns a backend's reply (PostgreSQL, Redis, TigerBeetle) waits beyond joining "
       "the loop's ready queue: asyncio sees the socket readable only at its next poll, "
       "after the callbacks already ready, runs the protocol's callback, which wakes the "
       "task with call_soon, another pass; 0: the reply joins the queue when it arrives"},
     TF_LONG(io_turns), .live = "0",
     .source = "asyncio base_events _run_once (poll between passes) and the protocols' "
               "futures; measured on a busy loop (2 ms per turn; scripts/cold_paths.py "
               "pg-turns): an asyncpg round trip 3 turns, asyncio.sleep(0) 1 (Python 3.11.2, "
               "asyncpg 0.27.0); 0: with 1 or 2 the live predictions get worse (docs/redis-io-threads.md)"},
    {{"server", "asyncio_passes", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL,
       "each worker's event loop runs asyncio's passes (as client.asyncio_passes); with no "
       "call_soon'd work besides its arrivals (the stand-in server awaiting a timer) the "
       "order is the same as false's"},
     TF_BOOL(server_passes), .live = "false",
     .source = "as client.asyncio_passes; off: docs/load-generator.md \"asyncio's passes\""},
    {{"server", "timer_resolution", SIM_CFG_DUR, "1ms", 0, 1, NULL, "s",
       "a timer (the stub's asyncio.sleep) that comes due while its loop sleeps fires when "
       "the loop's poll times out: the poll's timeout, from when the loop went to sleep, is "
       "rounded up to a whole multiple of this (epoll's millisecond); 0: at once"},
     TF_DOUBLE(timer_resolution),
     .source = "CPython 3.11 selectors.EpollSelector.select (math.ceil(timeout * 1e3) * 1e-3) and "
               "base_events._run_once (the timeout is the first timer's due time)"},
    {{"server", "timer_slack", SIM_CFG_DUR, "0.2ms", 0, 1, NULL, "s",
       "what such a timer fires later still: the sleeping thread's wake-up and the pass that "
       "runs the timer's callback"},
     TF_DOUBLE(timer_slack),
     .source = "tfsim probe http at concurrency 1 (the stand-in's await against the latency "
               "asked: 0.13-0.27 ms over the rounded-up millisecond; probe_http_up_all.csv, "
               "probe_http_debian12.csv, probe_http_up_all_4.csv)"},
    {{"server", "cold", SIM_CFG_NUM, "0", 0, 100, NULL, "factor",
       "code-path warmth: a CPU step of a code path (the endpoint's own, SQLAlchemy, "
       "redis-py, the TigerBeetle client) costs its CPU times 1 + cold x (1 - exp(-gap / "
       "cold_tau)), gap: the time since that path last ran on the loop; 0: every step warm"},
     TF_DOUBLE(cold), .live = "0",
     .source = "0 (the TigerBench host: not measured); this VM: 3.5, docs/live-tigerfans.md \"a Python loop "
               "is slow after it idled\""},
    {{"server", "cold_tau", SIM_CFG_DUR, "3ms", 1e-6, 10, NULL, "s",
       "how fast a code path goes cold (server.cold)"},
     TF_DOUBLE(cold_tau),
     .source = "redis-py on this VM: its first command's extra CPU after 1, 2, 4, 8, 16 ms "
               "of other work or sleep"},
    {{"server", "cpu_shape", SIM_CFG_DIST, "gamma(shape=4, mean=1)", 0, 0, NULL, "factor",
       "multiplier on every CPU step (mean 1): the variability of Python work"},
     TF_DIST(cpu_shape), .live = "1",
     .source = "assumed: gamma with shape 4 (coefficient of variation 0.5)"},

    {{"host", "cores", SIM_CFG_NUM, "2.476", 0.01, 4096, NULL, "cores",
       "CPU cores shared (processor sharing) by the co-located processes"},
     TF_DOUBLE(cores), .fit_lo = 1, .fit_hi = 64, .fit = 1,
     .source = CALIBRATED},
    {{"host", "cpu_scale", SIM_CFG_NUM, "1", 0.01, 100, NULL, "factor",
       "multiplies the CPU costs of the server's loop, its database clients and the backends "
       "(every CPU cost in [server], [postgres], [redis] and [tigerbeetle], row_cost and "
       "architecture.stub_cpu included; not redis.service, postgres.flush or TigerBeetle's "
       "latencies; the load generator has client.cpu_scale): the host's speed against the "
       "machine and day the costs were measured on, so that measured costs keep their ratios "
       "when a fit moves them together"},
     TF_DOUBLE(host_cpu_scale), .demand = 1, .fit_lo = 0.1, .fit_hi = 10, .live = "1",
     .source = "1; `tfsim compare` simulates with its own measured costs at 1"},
    {{"host", "client_on_host", SIM_CFG_BOOL, "true", 0, 0, NULL, NULL,
       "the load generator runs on the same host"},
     TF_BOOL(client_on_host), .live = "true",
     .source = "TigerBench runs the load generator on the server's host"},
    {{"host", "postgres_on_host", SIM_CFG_BOOL, "true", 0, 0, NULL, NULL,
       "PostgreSQL backends share the host's cores"},
     TF_BOOL(pg_on_host), .source = "TigerBench runs PostgreSQL on the server's host"},
    {{"host", "redis_on_host", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL,
       "the Redis server's work runs on the host's cores (one thread, commands in order); "
       "a reply then finds its loop's core awake (Redis ran there while the loop slept) and "
       "costs no loop wake-up"},
     TF_BOOL(redis_on_host),
     .source = "false; tfsim compare sets it for a local Redis whose CPU it reads"},
    {{"host", "redis_cores", SIM_CFG_NUM, "0", 0, 1024, NULL, "cores",
       "cores' worth of CPU Redis's threads get when Redis shares the host (Linux gives its "
       "spinning I/O threads their fair share among the host's runnable threads, not every "
       "core): they take turns on ceil(redis_cores) cores, each turn lasting sched_tick x "
       "ceil(redis_cores) / redis_cores (the other threads run in between); 0: all the "
       "host's cores, turns of one tick; only with redis_on_host"},
     TF_DOUBLE(redis_cores),
     .source = "perf trace of live TigerFans on a 2-core VM (pg_redis webhooks, io-threads 4; "
               "scripts/redis_wakeups.py): while cycles had 8 or more clients Redis's four "
               "threads ran 1.59, 1.46, 1.27, 1.01 cores at concurrency 10, 20, 50, 100 "
               "(earlier, perf sched at 50: 1.05)"},
    {{"host", "wake_affine", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL,
       "a statement sent while its loop keeps running and no host core is idle starts when "
       "the loop's burst ends (Linux wakes the backend on the waker's core); so does a "
       "command that wakes Redis on the host (until the burst ends or the next tick) while "
       "Redis sits on the sender's core (redis_affine_share)"},
     TF_BOOL(wake_affine),
     .source = "false: perf trace of live TigerFans on this VM (its server's wake-ups of Redis "
               "and the backends run at once); tfsim compare sets it for its driver, "
               "configs/redis/benchmark.ini for redis-benchmark (perf sched)"},
    {{"host", "loop_weight", SIM_CFG_NUM, "1", 1, 100, NULL, "factor",
       "share of a contended core the event loops (server and load generator) get, relative "
       "to a PostgreSQL backend or a Redis thread: with n loops and m other runnable threads "
       "on the host's cap(n + m) cores, each other thread progresses at cap / (loop_weight n "
       "+ m) and each loop at loop_weight times that, at most one core (Linux EEVDF favours "
       "threads that sleep in short bursts); 1: processor sharing, all equal"},
     TF_DOUBLE(loop_weight),
     .source = "1; perf sched of live TigerFans pg_pg on this VM (scripts/runqueue_waits.py, "
               "2026-12-03): while runnable the server's loop ran at 0.62-0.64 of a core, the "
               "load generator's at 0.57-0.66, the backends at 0.32-0.33 (concurrency 20, 100): "
               "a ratio of 1.9-2.0"},
    {{"host", "stacking", SIM_CFG_NUM, "0", 0, 2, NULL, "share",
       "runnable threads left on one core while another idles: m runnable threads get "
       "min(m, K) - stacking x (min(m, K) - K (1 - (1 - 1/K)^m)) of the K cores (0: processor "
       "sharing, every core used; 1: threads placed on cores at random and never moved; "
       "above 1, worse than random, as wake-ups onto the waker's core make it)"},
     TF_DOUBLE(stacking),
     .source = "0: processor sharing, as Linux with idle cores found at wake-ups; "
               "configs/tigerfans/client_debian12.ini sets 1 for this 2-core VM: perf trace of "
               "live TigerFans pg_pg reserves "
               "(scripts/runqueue_waits.py, its stacking line) lost 0.25, 0.10, 0.16 cores "
               "at concurrency 5, 10, 20, random placement 0.21, 0.19, 0.18 (0.93 times over "
               "the three; tests/data/live_runqueue_waits.csv)"},
    {{"host", "rtt", SIM_CFG_DUR, "40us", 0, 1, NULL, "s", "network round trip (loopback)"},
     TF_DOUBLE(net_rtt), .source = "loopback round trip"},
    {{"host", "redis_affine_share", SIM_CFG_NUM, "1", 0, 1, NULL, "share",
       "with wake_affine: share of the time (counted on the host's idle cores) Redis's main "
       "thread sits on its sender's core, where a command waits for the sender's burst; the "
       "rest of the time it sits on another core and runs at once (Linux wakes it on the "
       "core it last ran on; the load balancer moves it and its sender when a core idles); "
       "spells on and off alternate, exponential, host.affine_period long on average; 1: "
       "always (redis-benchmark)"},
     TF_DOUBLE(redis_affine_share),
     .source = "1: perf sched of redis-benchmark (1451 of Redis's 1458 switches on its CPU); "
               "configs/live/pg_redis.ini sets the live driver's, 0.68 (perf traces at 4, six "
               "runs, 763 spells; scripts/redis_wakeups.py)"},
    {{"host", "affine_period", SIM_CFG_DUR, "6.7ms", 1e-6, 100, NULL, "s",
       "mean length of a spell of Redis on, or off, its sender's core (redis_affine_share), "
       "in idle core-seconds of the host (of time when Redis has no host): the spells last "
       "long while every core is busy, as when Redis's I/O threads spin"},
     TF_DOUBLE(affine_period),
     .source = "perf traces of the live driver at 4, io-threads 4, six runs "
               "(scripts/redis_wakeups.py): 763 spells, 9.1 ms of idle CPU together and 4.3 "
               "apart on average; at 8-32 (418 spells) 10.3 and 17.6 ms, while their wall "
               "time ran from 7 to 341 ms"},
    {{"host", "sched_tick", SIM_CFG_DUR, "4ms", 1e-6, 1, NULL, "s",
       "the scheduler's tick, when CPU-bound threads take turns (Linux CONFIG_HZ=250 on the "
       "measured VM: 4 ms; perf sched showed spinning threads running 4.0 ms each)"},
     TF_DOUBLE(sched_tick), .source = "perf sched on this kind of VM (CONFIG_HZ=250)"},
    {{"host", "sched_slice", SIM_CFG_DUR, "1.5ms", 0, 1, NULL, "s",
       "least CPU a CPU-bound thread gets before a tick preempts it (Linux EEVDF base slice "
       "0.75 ms x (1 + log2 of 2 CPUs))"},
     TF_DOUBLE(sched_slice), .source = "Linux base slice 0.75 ms x (1 + log2 CPUs), 2 CPUs"},
    {{"host", "sched_wake_slice", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
       "least CPU a spinning thread (Redis's I/O threads) runs before another thread's "
       "wake-up on the host hands its core to a waiting one (EEVDF wake-up preemption); 0: "
       "spinning threads take turns at ticks only"},
     TF_DOUBLE(sched_wake_slice),
     .source = "0 (ticks: perf sched of redis-benchmark, spinning threads ran 4.0 ms each); "
               "live TigerFans' slices (0.3-0.9 ms) end the model's episodes sooner than "
               "measured, so no preset sets it (docs/redis-io-threads.md, wake-up preemption tried)"},

    {{"postgres", "gate", SIM_CFG_INT, "10", 1, 1e6, NULL, "permits",
       "application semaphore around each transaction (DB gate)"},
     TF_LONG(gate), .source = DESIGN ": DB gate of 10 permits"},
    {{"postgres", "pool_size", SIM_CFG_INT, "10", 1, 1e6, NULL, "connections",
       "SQLAlchemy pool_size"},
     TF_LONG(pool_size),
     .source = DESIGN ": SQLAlchemy pool_size 10"},
    {{"postgres", "pool_overflow", SIM_CFG_INT, "10", 0, 1e6, NULL, "connections",
       "SQLAlchemy max_overflow"},
     TF_LONG(pool_overflow),
     .source = DESIGN ": SQLAlchemy max_overflow 10"},
    {{"postgres", "pre_ping", SIM_CFG_BOOL, "true", 0, 0, NULL, NULL,
       "pool_pre_ping: one extra round trip per connection checkout"},
     TF_BOOL(pre_ping), .source = DESIGN ": pool_pre_ping"},
    {{"postgres", "loop_cpu_query", SIM_CFG_DUR, "37.06us", 0, 1, NULL, "s",
       "SQLAlchemy/asyncpg CPU on the event loop per round trip"},
     TF_DOUBLE(pg_loop_cpu_query), .demand = 1, .fit_lo = 1e-06, .fit_hi = 0.002, .fit = 1,
     .source = CALIBRATED},
    {{"postgres", "loop_cpu_txn", SIM_CFG_DUR, "0.15ms", 0, 1, NULL, "s",
       "session and transaction overhead on the event loop per transaction"},
     TF_DOUBLE(pg_loop_cpu_txn), .demand = 1,
     .source = "assumed; tfsim compare measures the driver's share"},
    {{"postgres", "query_cpu", SIM_CFG_DUR, "361.6us", 0, 1, NULL, "s",
       "backend CPU of a simple statement"},
     TF_DOUBLE(pg_query_cpu), .demand = 1, .own = TF_OWN_PG, .fit_lo = 1e-06, .fit_hi = 0.003,
     .fit = 1,
     .source = CALIBRATED},
    {{"postgres", "row_cost", SIM_CFG_DUR, "29.47ns", 0, 1e-3, NULL, "s/row",
       "backend CPU per holds row visited by a hold's sums"},
     TF_DOUBLE(pg_row_cost), .demand = 1, .per_row = 1, .fit_lo = 1e-10, .fit_hi = 2e-06,
     .fit = 1, .source = CALIBRATED ": hold time growth with the holds table over the series"},
    {{"postgres", "sum_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
       "extra backend CPU of a sum over an empty holds table (aggregate and index scan "
       "set-up), on top of query_cpu"},
     TF_DOUBLE(pg_sum_cpu), .demand = 1,
     .source = "0; tfsim compare measures it (sums' latency against the holds rows)"},
    {{"postgres", "scan_fraction", SIM_CFG_NUM, "0.75", 0, 4, NULL, "fraction",
       "share of the holds table one hold's four sums visit (index on resource, status)"},
     TF_DOUBLE(pg_scan_fraction),
     .source = "assumed: the sums' index on (resource, status) visits three quarters of the table"},
    {{"postgres", "commit_cpu", SIM_CFG_DUR, "0.05ms", 0, 1, NULL, "s", "backend CPU of COMMIT"},
     TF_DOUBLE(pg_commit_cpu), .demand = 1, .source = "assumed; tfsim compare measures it"},
    {{"postgres", "wake_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
       "extra backend CPU for a statement that finds a host core idle (backends on the "
       "host) or no backend running (an idle CPU is woken); 0: none"},
     TF_DOUBLE(pg_wake_cpu), .demand = 1,
     .source = "0; tfsim compare measures it (live runs at two loads)"},
    {{"postgres", "busy_cost", SIM_CFG_NUM, "0", 0, 10, NULL, "factor",
       "CPU surcharge of a statement that finds no host core idle (backends on the host): it "
       "costs 1 + busy_cost times its CPU (the backend takes turns on a core with other "
       "threads); 0: the same CPU busy or not (postgres.wake_cpu prices the other case)"},
     TF_DOUBLE(pg_busy_cost), .fit_lo = 1e-3, .fit_hi = 3,
     .source = "0; tfsim compare measures it (live runs at two loads: on this VM on "
               "2026-12-05 a statement cost 57-61 us of backend CPU at concurrency 1 and 84 us "
               "at 32)"},
    {{"postgres", "commit_wake", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
       "extra wait of the COMMIT of a transaction that ran sums (a hold) when a host core is "
       "idle: after a busy spell its backend wakes from the WAL flush later; 0: none"},
     TF_DOUBLE(pg_commit_wake),
     .source = "0; pgbench on this project's 2-core VM: a COMMIT after the hold's sums waits "
               "about 190 us longer than after two INSERTs (the same WAL bytes; 151 us with the "
               "other core busy, 86-118 us without the synchronous flush); tfsim compare "
               "measures it (docs/live-tigerfans.md)"},
    {{"postgres", "commit_tail", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL,
       "a COMMIT's backend CPU (commit_cpu) runs after its WAL flush, and the COMMITs a "
       "flush served run it one after another (PostgreSQL finishes the commit after "
       "XLogFlush; the flush's waiters wake together and take turns for a core), so their "
       "replies come back one commit_cpu apart; false: the CPU before the flush, every "
       "reply at the flush's end"},
     TF_BOOL(pg_commit_tail),
     .source = "false; true in configs/live/pg_redis.ini: perf traces of the live driver's "
               "checkouts at 32 on this project's 2-core VM (2026-12-06): the backends one "
               "PostgreSQL process wakes together (groups of 3-8) block again a mean 34-60 us "
               "apart, as long as a COMMIT's backend CPU (41-43 us, tfsim compare); "
               "scripts/pg_wake_groups.py reads them"},
    {{"postgres", "flush", SIM_CFG_DIST, "0.25ms", 0, 0, NULL, "s",
       "WAL flush at commit; concurrent commits share one flush (group commit)"},
     TF_DIST(pg_flush), .source = "assumed; tfsim compare fits it (COMMIT latencies)"},
    {{"postgres", "flush_wait", SIM_CFG_DUR, "0", 0, 0.1, NULL, "s/thread",
       "extra time of a WAL flush per thread waiting for a host core when it starts "
       "(backends on the host; processor sharing's jobs beyond the cores): the flushing "
       "backend waits behind them for a core after the disk is done; 0: none"},
     TF_DOUBLE(pg_flush_wait),
     .source = "0; tfsim compare measures it (pg_stat_wal's time per flush in its loaded run "
               "less at concurrency 1, over the threads waiting for a CPU in it: on this VM on "
               "2026-12-05 about 0.08-0.17 ms per waiting thread, two rounds at concurrency "
               "1-16, and 94-269 us in four compares)"},
    {{"postgres", "holds_rows", SIM_CFG_NUM, "0", 0, 1e12, NULL, "rows",
       "rows in the holds table when the run starts (the real table is never emptied)"},
     TF_DOUBLE(holds_rows), .own = TF_OWN_PG_ACCOUNTING, .fit_lo = 1, .fit_hi = 1e9,
     .source = "0; calibrate and predict derive it from the benchmark series"},
    {{"postgres", "row_locks", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL,
       "a hold locks its ticket class's and the goodie's capacity rows until commit "
       "(SELECT ... FOR UPDATE), so holds of one resource run one at a time"},
     TF_BOOL(row_locks),
     .source = DESIGN ": the sums read without FOR UPDATE"},
    {{"postgres", "jitter", SIM_CFG_DIST, "gamma(shape=4, mean=1)", 0, 0, NULL, "factor",
       "multiplier on backend CPU (mean 1)"},
     TF_DIST(pg_jitter), .live = "1",
     .source = "assumed: gamma with shape 4 (coefficient of variation 0.5)"},

    {{"redis", "service", SIM_CFG_DIST, "exp(mean=15us)", 0, 0, NULL, "s",
       "Redis server time per round trip (pipeline or MULTI/EXEC counts once)"},
     TF_DIST(redis_service), .source = "assumed; tfsim compare fits it (Redis round trips)"},
    {{"redis", "loop_cpu", SIM_CFG_DUR, "0.09ms", 0, 1, NULL, "s",
       "redis-py CPU on the event loop per round trip"},
     TF_DOUBLE(redis_loop_cpu), .demand = 1, .own = TF_OWN_REDIS, .fit_lo = 1e-06, .fit_hi = 0.005,
     .source = "pg_redis and tb_redis concurrency-1 kinds: save 0.26 ms, get 0.15 ms, "
               "fulfill 0.22 ms, remove_pending 0.20 ms"},
    {{"redis", "save_extra", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
       "server time a payment-session save (MULTI, HSET of 11 fields, EXPIRE, ZADD, EXEC) "
       "takes beyond redis.service"},
     TF_DOUBLE(redis_save_extra),
     .source = "0; tfsim compare measures it (saves' round trips against the others')"},
    {{"redis", "pool_turns", SIM_CFG_INT, "2", 0, 100, NULL, "turns",
       "server loop turns each Redis command or pipeline waits before it is sent: redis-py's "
       "asyncio ConnectionPool.get_connection checks the connection with a read under "
       "timeout(0), which suspends the coroutine; the timeout's callback (call_soon) cancels "
       "the read a turn later and the coroutine resumes a turn after that (0: no check)"},
     TF_LONG(redis_pool_turns), .live = "0",
     .source = "redis-py asyncio/connection.py: ensure_connection -> can_read_destructive "
               "(6.4.0 with hiredis, TigerFans' pins; 4.3.4's can_read, Debian 12) -> "
               "async_timeout(0) around a stream read"},
    {{"redis", "pool_lock", SIM_CFG_BOOL, "true", 0, 0, NULL, NULL,
       "the connection check runs under the pool's asyncio.Lock (redis-py 5.3.0 and later), "
       "so the server's Redis commands take turns through it: a waiter gets the lock a turn "
       "after its release; false: no lock (redis-py 4.3.4, Debian 12)"},
     TF_BOOL(redis_pool_lock), .live = "false",
     .source = "redis-py 6.4.0 asyncio ConnectionPool.get_connection (lock added in 5.3.0, "
               "commit 40e5fc13; redis-py issue 3692 reports the contention under load); "
               "TigerFans pins redis 6.4.0 and hiredis 3.2.1"},
    {{"redis", "send_turns", SIM_CFG_INT, "0", 0, 100, NULL, "turns",
       "server loop turns each Redis command or pipeline waits for its send: redis-py sends "
       "through asyncio.wait_for(..., socket_timeout), which on Python 3.11 and earlier runs "
       "the write as a task of its own: the write a turn later, the coroutine back two turns "
       "after it, by when the reply is in and is read at once, so a command takes one turn "
       "more than without the timeout (the command's CPU runs after these turns); 0: Python "
       "3.12 and later, which await the send in place"},
     TF_LONG(redis_send_turns), .live = "0",
     .source = "redis-py asyncio Connection.send_packed_command (4.3.4 and 6.4.0) with "
               "TigerFans' socket_timeout=2.0 (server.py _redis_start); CPython 3.11 "
               "asyncio.wait_for; measured on a busy loop (scripts/cold_paths.py redis-turns, "
               "Python 3.11.2, redis-py 4.3.4): send 3 turns, a GET 4-5 without the timeout "
               "and 5-6 with it, one more run by run. Debian 12's preset (Python 3.11): 1; "
               "TigerFans' Python upstream is not stated: 0"},
    {{"redis", "cycle_cpu", SIM_CFG_DUR, "0", 0, 1, NULL, "s",
       "the main thread's CPU per event-loop cycle beyond its commands (epoll_wait, "
       "beforeSleep); 0: in redis.service"},
     TF_DOUBLE(redis_cycle_cpu), .demand = 1, .source = "0; tfsim probe redis measures it"},
    {{"redis", "io_threads", SIM_CFG_INT, "4", 1, 128, NULL, "threads",
       "Redis io-threads, the main thread included (TigerFans' upstream Makefile starts Redis "
       "with --io-threads 4; 1: no I/O threads; Redis allows up to 128)"},
     TF_LONG(redis_io_threads), .source = "TigerFans Makefile, redis target: --io-threads 4"},
    {{"redis", "io_threads_do_reads", SIM_CFG_BOOL, "true", 0, 0, NULL, NULL,
       "the I/O threads also read and parse the commands (upstream Makefile: "
       "--io-threads-do-reads yes)"},
     TF_BOOL(redis_io_do_reads), .source = "TigerFans Makefile: --io-threads-do-reads yes"},
    {{"redis", "io_pending_per_thread", SIM_CFG_INT, "2", 1, 1e6, NULL, "clients",
       "the I/O threads run while a cycle ends with at least io_threads x this clients "
       "pending a reply (Redis 7.0 networking.c, stopThreadedIOIfNeeded: "
       "pending < io_threads_num*2 stops them)"},
     TF_LONG(redis_io_per_thread), .source = "Redis 7.0 networking.c stopThreadedIOIfNeeded"},
    {{"redis", "hz", SIM_CFG_NUM, "10", 1, 500, NULL, "1/s",
       "serverCron calls per second; each stops the I/O threads when no client is pending "
       "(redis.conf default hz 10; server.c serverCron calls stopThreadedIOIfNeeded)"},
     TF_DOUBLE(redis_hz), .source = "redis.conf default hz 10"},
    {{"redis", "wake_wait", SIM_CFG_NUM, "0.008", 0, 1, NULL, "share",
       "share of the sleeping main thread's wake-ups that wait for the next scheduler tick "
       "(stacked behind a busy task, preempted, a late remote wake-up); the commands that "
       "arrive meanwhile join its first cycle; only with redis_on_host"},
     TF_DOUBLE(redis_wake_wait),
     .source = "perf traces of live TigerFans on this VM (pg_redis webhooks, io-threads 4; "
               "scripts/redis_wakeups.py prints it): of Redis's wake-ups by the server "
               "outside the I/O threads' episodes 0.50, 0.57, 0.18, 0.29% waited over 2 ms "
               "at concurrency 10, 20, 50, 100; a wait here lasts to the next tick, half of "
               "them over 2 ms: 2 x 0.39% (an earlier trace, over 1 ms: 3.3% at 10, 1.5% at 100)"},

    {{"redis", "wake_preempt", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL,
       "the main thread woken from epoll_wait while its I/O threads spin takes a core at once "
       "from the spinning thread that has held one longest (false: it waits for its turn at "
       "the next tick); only with redis_on_host"},
     TF_BOOL(redis_wake_preempt),
     .source = "false; configs/live/pg_redis.ini sets true for tfsim compare's driver on this "
               "VM: perf trace of its webhooks at 8 and 16 (io-threads 4), Redis's main thread "
               "woken from epoll_wait onto a CPU an I/O thread runs on ran after a median 6 us; "
               "python_sessions.ini (asyncio client) at 10 clients is 3,663/s with it against "
               "627-1,844 live, 1,752 without"},

    {{"tigerbeetle", "batch_base", SIM_CFG_DIST, "gamma(shape=8, mean=1.6ms)", 0, 0, NULL, "s",
       "latency of a batch, fixed part (single replica, development mode)"},
     TF_DIST(tb_base), .own = TF_OWN_TB, .fit_lo = 1e-05, .fit_hi = 0.1,
     .source = "tb_redis concurrency 1: accounting.hold 2.20 ms, batch size 2.0"},
    {{"tigerbeetle", "per_transfer", SIM_CFG_DUR, "3us", 0, 1, NULL, "s/transfer",
       "latency added per transfer in the batch"},
     TF_DOUBLE(tb_per_transfer), .source = "assumed"},
    {{"tigerbeetle", "batch_max", SIM_CFG_INT, "8190", 1, 1e6, NULL, "transfers",
       "most transfers in one batch"},
     TF_LONG(tb_batch_max), .source = "TigerBeetle: 8190 transfers per batch"},
    {{"tigerbeetle", "loop_cpu", SIM_CFG_DUR, "0.12ms", 0, 1, NULL, "s",
       "client CPU on the event loop per submission (building transfers, awaiting)"},
     TF_DOUBLE(tb_loop_cpu), .demand = 1, .source = "assumed"},
    {{"tigerbeetle", "batch_cpu", SIM_CFG_DUR, "0.05ms", 0, 1, NULL, "s",
       "auto-batcher CPU on the event loop per batch"},
     TF_DOUBLE(tb_batch_cpu), .demand = 1, .source = "assumed"},

    {{"inventory", "tickets", SIM_CFG_NUM, "5e6", 0, 1e15, NULL, "tickets",
       "tickets left per class at the start"},
     TF_DOUBLE(tickets),
     .source = DESIGN ": 5,000,000 tickets per class"},
    {{"inventory", "goodies", SIM_CFG_NUM, "1e5", 0, 1e15, NULL, "goodies",
       "goodies left at the start (when none are left holds skip the goodie)"},
     TF_DOUBLE(goodies), .source = DESIGN ": 100,000 goodies"},
    {{"inventory", "classes", SIM_CFG_INT, "2", 1, 1000, NULL, "classes",
       "ticket classes; a request picks one at random (A and B in TigerFans)"},
     TF_LONG(classes), .source = DESIGN ": classes A and B"},
};

#define NREG (sizeof registry / sizeof registry[0])

const tf_param *tf_params_registry(size_t *n)
{
    *n = NREG;
    return registry;
}

static sim_cfg_key schema[NREG];
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

static void schema_build(void)
{
    for (size_t i = 0; i < NREG; i++)
        schema[i] = registry[i].k;
}

const sim_cfg_key *tf_params_schema(size_t *n)
{
    pthread_once(&schema_once, schema_build);
    *n = NREG;
    return schema;
}

const char *tf_params_key(const tf_param *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s.%s", r->k.section, r->k.key);
    return buf;
}

const tf_param *tf_params_find(const char *key)
{
    const char *dot = strrchr(key, '.');
    if (!dot)
        return NULL;
    size_t sl = (size_t)(dot - key);
    for (size_t i = 0; i < NREG; i++)
        if (strlen(registry[i].k.section) == sl && !strncmp(registry[i].k.section, key, sl) &&
            !strcmp(registry[i].k.key, dot + 1))
            return &registry[i];
    return NULL;
}

int tf_params_host_scaled(const tf_param *r)
{
    return r->demand && r->ctype == TF_CT_DOUBLE && strcmp(r->k.section, "client") &&
           strcmp(r->k.key, "cpu_scale");
}

void tf_params_fit_bounds(const tf_param *r, double *lo, double *hi)
{
    if (r->fit_lo > 0 && r->fit_hi > r->fit_lo) {
        *lo = r->fit_lo;
        *hi = r->fit_hi;
        return;
    }
    *lo = r->k.min > 1e-9 ? r->k.min : 1e-9;
    *hi = r->k.max > *lo ? r->k.max : *lo * 1e6;
}

void tf_params_fini(tf_params *p)
{
    for (size_t i = 0; i < NREG; i++)
        if (registry[i].ctype == TF_CT_DIST)
            sim_dist_fini((sim_dist *)((char *)p + registry[i].off));
}

static int unit_mean(const sim_cfg *cfg, const char *sec, const char *key, const sim_dist *d,
                     sim_err *err)
{
    char w[512];
    double m = sim_dist_mean(d);
    if (fabs(m - 1) > 1e-6)
        return sim_err_set(err, SIM_EINPUT,
                           "%s: %s.%s: a multiplier must have mean 1 (this one has %g)",
                           sim_cfg_where(cfg, sec, key, w, sizeof w), sec, key, m);
    return SIM_OK;
}

/* Read one registry row's value into its field. */
static int read_row(tf_params *p, const tf_param *r, const sim_cfg *cfg, const sim_cfg_key *s,
                    size_t n, sim_err *err)
{
    void *f = (char *)p + r->off;
    const char *sec = r->k.section, *key = r->k.key;
    switch (r->ctype) {
    case TF_CT_DOUBLE:
        return sim_cfg_num(cfg, s, n, sec, key, f, err);
    case TF_CT_LONG:
        return sim_cfg_int(cfg, s, n, sec, key, f, err);
    case TF_CT_BOOL:
        return sim_cfg_bool(cfg, s, n, sec, key, f, err);
    case TF_CT_DIST:
        return sim_cfg_dist(cfg, s, n, sec, key, f, err);
    case TF_CT_NONE:
        break;
    }
    return SIM_OK;
}

#define HTTPCORE016 "0.16"

int tf_params_cfg_httpcore016(const sim_cfg *cfg)
{
    const sim_cfg_entry *e = sim_cfg_find(cfg, "client", "httpcore");
    return e && !strcmp(e->value, HTTPCORE016);
}

int tf_params_read(tf_params *p, const sim_cfg *cfg, const sim_cfg_key *s, size_t n, sim_err *err)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < NREG; i++)
        if (read_row(p, &registry[i], cfg, s, n, err))
            return err->code;
    const char *acc, *pay, *phases, *mode;
    if (sim_cfg_str(cfg, s, n, "architecture", "accounting", &acc, err) ||
        sim_cfg_str(cfg, s, n, "architecture", "payments", &pay, err) ||
        sim_cfg_str(cfg, s, n, "client", "phases", &phases, err) ||
        sim_cfg_str(cfg, s, n, "client", "mode", &mode, err))
        return err->code;
    const char *hc, *session;
    if (sim_cfg_str(cfg, s, n, "client", "httpcore", &hc, err) ||
        sim_cfg_str(cfg, s, n, "client", "session", &session, err))
        return err->code;
    p->httpcore016 = !strcmp(hc, HTTPCORE016);
    /* host.cpu_scale: the host's costs as the model runs them (one place) */
    for (size_t i = 0; i < NREG; i++)
        if (tf_params_host_scaled(&registry[i]))
            *(double *)((char *)p + registry[i].off) *= p->host_cpu_scale;
    if (unit_mean(cfg, "server", "cpu_shape", &p->cpu_shape, err) ||
        unit_mean(cfg, "postgres", "jitter", &p->pg_jitter, err))
        return err->code;
    char w[512];
    p->accounting = !strcmp(acc, "tb") ? TF_TB : !strcmp(acc, "stub") ? TF_STUB : TF_PG;
    p->payments = !strcmp(pay, "redis") ? TF_REDIS : !strcmp(pay, "stub") ? TF_STUB : TF_PG;
    snprintf(p->arch, sizeof p->arch, "%s_%s", acc, pay);
    if ((p->accounting == TF_STUB) != (p->payments == TF_STUB)) {
        const char *key = p->accounting == TF_STUB ? "payments" : "accounting";
        return sim_err_set(err, SIM_EINPUT, "%s: architecture.%s: the stub architecture needs "
                           "accounting = stub and payments = stub",
                           sim_cfg_where(cfg, "architecture", key, w, sizeof w), key);
    }
    if (p->tb_batch_max < 2)
        return sim_err_set(err, SIM_EINPUT, "%s: tigerbeetle.batch_max: %ld is below 2, the "
                           "transfers of one hold", sim_cfg_where(cfg, "tigerbeetle", "batch_max",
                           w, sizeof w), p->tb_batch_max);
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
    /* a redis_bench session: letters c and t, at least one c */
    size_t sl = strlen(session);
    if (sl >= sizeof p->session || strspn(session, "ct") != sl || (sl && !strchr(session, 'c')))
        return sim_err_set(err, SIM_EINPUT, "%s: client.session: '%.40s' is not a pattern of "
                           "c (a command) and t (a think), with a c, under %zu letters",
                           sim_cfg_where(cfg, "client", "session", w, sizeof w), session,
                           sizeof p->session);
    memcpy(p->session, session, sl + 1);
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
