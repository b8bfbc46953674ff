/* The TigerFans model: invariants (permits, waves, batch sizes, kind
 * counts), inventory paths (sold out, goodies gone), mechanisms (table
 * growth, workers), determinism, and config errors. */
#include "tests/test_util.h"

#include "models/mdl.h"
#include "models/tf_params.h"
#include "models/tf_prog.h"
#include "models/tf_sim.h"
#include "sim/sim_rng.h"

/* Read params from INI text (schema of the whole program). */
static int params_from(const char *text, tf_params *p, sim_err *err)
{
    sim_cfg *c = sim_cfg_new();
    sim_err_clear(err);
    size_t n;
    sim_cfg_key *s = mdl_schema(NULL, &n);
    /* a form feed splits a base from the text loaded over it (a second
     * file, which may set the base's keys again) */
    const char *ff = strchr(text, '\f');
    int rc = SIM_OK;
    if (ff) {
        char *base = strndup(text, (size_t)(ff - text));
        assert_non_null(base);
        rc = sim_cfg_load_string(c, base, "base.ini", err);
        free(base);
        text = ff + 1;
    }
    if (rc == SIM_OK)
        rc = sim_cfg_load_string(c, text, "t.ini", err);
    if (rc == SIM_OK)
        rc = sim_cfg_check(c, s, n, err);
    if (rc == SIM_OK)
        rc = tf_params_read(p, c, s, n, err);
    free(s);
    sim_cfg_free(c);
    return rc;
}

static void run_text(const char *text, uint64_t seed, tf_out *o)
{
    tf_params p;
    sim_err err;
    if (params_from(text, &p, &err))
        fail_msg("%s", err.msg);
    p.lim = (mdl_limits){.max_sim_time = 1e9}; /* no event or calendar bound */
    if (tf_sim_run(&p, seed, 0, o, &err))
        fail_msg("%s", err.msg);
    tf_params_fini(&p);
}

static void test_permits_and_waves(void **state)
{
    (void)state;
    const char *archs[] = {"pg_pg", "pg_redis", "tb_redis"};
    long conc[] = {1, 7, 50};
    for (int a = 0; a < 3; a++) {
        for (int c = 0; c < 3; c++) {
            char text[512];
            snprintf(text, sizeof text,
                     "[architecture]\naccounting = %.2s\npayments = %s\n[client]\nconcurrency = %ld\n"
                     "total = 300\n",
                     archs[a], archs[a] + 3, conc[c]);
            tf_out o;
            run_text(text, 3, &o);
            assert_true(o.gate_max <= o.gate_permits);
            assert_true(o.pool_max <= o.pool_permits);
            assert_true(o.inflight_max <= conc[c]);
            assert_int_equal(o.wave_overlaps, 0);
            /* with concurrency above the gate the gate is used to the full */
            if (conc[c] == 50 && a < 2)
                assert_int_equal(o.gate_max, o.gate_permits);
            for (int ph = 0; ph < TF_NPHASES; ph++)
                assert_close(o.phase[ph].ok, 300, 0);
        }
    }
}

static void test_kind_counts_and_batches(void **state)
{
    (void)state;
    tf_out o;
    run_text("[client]\nconcurrency = 1\ntotal = 200\n", 1, &o);
    /* holds: checkout + reserve; commit_order: webhook + commit */
    assert_close(o.kind_n[TF_K_HOLD], 400, 0);
    assert_close(o.kind_n[TF_K_COMMIT_ORDER], 400, 0);
    assert_close(o.kind_n[TF_K_SAVE], 200, 0);
    assert_close(o.kind_n[TF_K_GET], 200, 0);
    assert_close(o.kind_n[TF_K_ADD_ORDER], 200, 0);
    /* at concurrency 1 every TigerBeetle batch holds one request's two
     * transfers (the measured tb.batch_size at concurrency 1 is 2.0) */
    assert_close(o.batch_mean, 2.0, 1e-12);
    assert_close(o.batch_sd, 0.0, 1e-12);
    /* at higher concurrency requests queue while a batch is in flight and
     * share the next batch: with 5 ms batches and holds reaching the
     * batcher about every millisecond (one busy loop), several holds
     * share each batch */
    run_text("[client]\nconcurrency = 50\ntotal = 500\ncpu = 0.1ms\nconnect_cpu = 0.1ms\npool_cpu = 0\npool_conn_cpu = 0\npool_idle_cpu = 0\npool_poll_cpu = 0\n"
             "[tigerbeetle]\nbatch_base = const(5ms)\n",
             1, &o);
    assert_true(o.batch_mean > 6);
}

static void test_sold_out_paths(void **state)
{
    (void)state;
    tf_out o;
    /* 150 tickets: the first 150 holds of checkout succeed, every later
     * hold (the rest of checkout, all of reserve) fails */
    run_text("[client]\nconcurrency = 5\ntotal = 200\n[inventory]\ntickets = 150\n", 1, &o);
    assert_close(o.phase[TF_CHECKOUT].ok, 150, 0);
    assert_close(o.phase[TF_CHECKOUT].errors, 50, 0);
    assert_close(o.phase[TF_RESERVE].errors, 200, 0);
    /* the same on PostgreSQL accounting */
    run_text("[architecture]\naccounting = pg\npayments = pg\n[client]\nconcurrency = 5\n"
             "total = 200\n[inventory]\ntickets = 150\n",
             1, &o);
    assert_close(o.phase[TF_CHECKOUT].errors, 50, 0);
    /* goodies gone with PostgreSQL sessions: every order INSERT rolls back */
    run_text("[architecture]\naccounting = pg\npayments = pg\n[client]\ntotal = 100\n"
             "[inventory]\ngoodies = 0\n",
             1, &o);
    assert_close(o.rollbacks, 100, 0);
    run_text("[architecture]\naccounting = pg\npayments = pg\n[client]\ntotal = 100\n", 1, &o);
    assert_close(o.rollbacks, 0, 0);
}

static void test_mechanisms(void **state)
{
    (void)state;
    tf_out small, big;
    /* a larger holds table makes PostgreSQL holds slower... */
    run_text("[architecture]\naccounting = pg\npayments = pg\n[client]\nconcurrency = 20\n"
             "total = 400\n[postgres]\nholds_rows = 1000\n",
             2, &small);
    run_text("[architecture]\naccounting = pg\npayments = pg\n[client]\nconcurrency = 20\n"
             "total = 400\n[postgres]\nholds_rows = 300000\n",
             2, &big);
    assert_true(big.phase[TF_RESERVE].throughput < 0.8 * small.phase[TF_RESERVE].throughput);
    assert_true(big.kind_mean[TF_K_HOLD] > 1.5 * small.kind_mean[TF_K_HOLD]);
    /* ...and every hold adds its two rows */
    assert_close(small.holds_rows_end, 1000 + 2 * 800, 0);
    /* ...but TigerBeetle accounting does not touch the table */
    run_text("[client]\nconcurrency = 20\ntotal = 400\n[postgres]\nholds_rows = 1000\n", 2, &small);
    run_text("[client]\nconcurrency = 20\ntotal = 400\n[postgres]\nholds_rows = 300000\n", 2, &big);
    assert_rel(big.phase[TF_RESERVE].throughput, small.phase[TF_RESERVE].throughput, 1e-12);
    /* a second worker relieves a saturated server loop */
    tf_out w1, w2;
    /* a light client (cheap requests and connections), so that the server
     * loop is the bottleneck whatever the calibrated defaults are */
    run_text("[client]\nconcurrency = 40\ntotal = 600\ncpu = 0.1ms\nconnect_cpu = 0.1ms\npool_cpu = 0\npool_conn_cpu = 0\npool_idle_cpu = 0\npool_poll_cpu = 0\n"
             "[host]\ncores = 8\n", 4, &w1);
    run_text("[client]\nconcurrency = 40\ntotal = 600\ncpu = 0.1ms\nconnect_cpu = 0.1ms\npool_cpu = 0\npool_conn_cpu = 0\npool_idle_cpu = 0\npool_poll_cpu = 0\n"
             "[host]\ncores = 8\n[server]\nworkers = 2\n",
             4, &w2);
    assert_true(w1.util[TF_C_SERVER] > 0.8);
    assert_true(w2.phase[TF_RESERVE].throughput > 1.2 * w1.phase[TF_RESERVE].throughput);
}

/* The load generator's connection pool (tf_pool run on the client loop).
 * Concurrency 1, everything else free: every request makes exactly two
 * passes (its start and its response) over a pool of one connection, so
 * its client CPU is client.cpu + 2 pool_cpu + a poll of the one idle
 * connection per pass (the response releases it before its pass), except
 * at the start of a phase's first request, which finds no connection and
 * pays connect_cpu instead. */
static const char pool_base[] =
    "[architecture]\naccounting = stub\npayments = stub\nstub_latency = 1ms\n"
    "[client]\ntotal = 100\ncpu = 1ms\ncpu_scale = 1\nsent_cpu = 0\ncrowding = 0\nconnect_cpu = 0.5ms\n"
    "pool_cpu = 30us\npool_conn_cpu = 0\npool_idle_cpu = 0\npool_poll_cpu = 10us\n"
    "[server]\ncpu_request = 0.2ms\ncpu_shape = 1\ncrowding = 0\naccept_cpu = 0\n"
    "[host]\ncores = 64\n";

static void test_client_pool(void **state)
{
    (void)state;
    char text[1024];
    tf_out o;
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 1\n", pool_base);
    run_text(text, 3, &o);
    assert_close(o.pool_passes, 2, 1e-12);
    assert_close(o.pool_retries, 0, 1e-12);
    assert_close(o.pool_conns, 4, 0); /* one per phase: a new client per phase */
    double want = 1e-3 + 2 * 30e-6 + ((99 + 100) * 10e-6 + 0.5e-3) / 100;
    for (int i = 0; i < TF_NPHASES; i++) {
        assert_rel(o.phase[i].cpu_client, want, 1e-9);
        /* per phase: 200 passes, the first finds no connection, the other
         * 199 the one connection idle */
        assert_close(o.phase[i].pool_passes, 2, 1e-12);
        assert_close(o.phase[i].pool_conns, 199.0 / 200, 1e-12);
        assert_close(o.phase[i].pool_idle, 199.0 / 200, 1e-12);
    }
    /* C connections per phase, kept alive: the pool opens C at most */
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 16\n", pool_base);
    run_text(text, 3, &o);
    assert_true(o.pool_conns <= 4 * 16);
    assert_true(o.pool_conns >= 4);
    /* a cap below C makes requests wait for a release: no more connections */
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 16\nmax_connections = 3\n", pool_base);
    run_text(text, 3, &o);
    assert_true(o.pool_conns <= 4 * 3);
    assert_true(o.inflight_max == 16);
    /* keep-alive expiry: with 1 ns every idle connection is gone at the
     * next pass, so each request opens a new one */
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 1\nkeepalive_expiry = 1ns\n",
             pool_base);
    run_text(text, 3, &o);
    assert_close(o.pool_conns, 400, 0);
    /* the pool's cost grows with the concurrency: every connection that is
     * idle is polled at every pass (and counted once per connection) */
    tf_out lo, hi;
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 4\ntotal = 400\n", pool_base);
    run_text(text, 5, &lo);
    snprintf(text, sizeof text,
             "%s\f[client]\nconcurrency = 64\ntotal = 400\npool_idle_cpu = 0.2us\n", pool_base);
    run_text(text, 5, &hi);
    for (int i = 0; i < TF_NPHASES; i++)
        assert_true(hi.phase[i].cpu_client > 1.3 * lo.phase[i].cpu_client);
    /* several requests are handed one idle connection: the losers retry */
    assert_true(hi.pool_retries > 0.5);
    assert_true(hi.pool_passes > 2.5);
    /* per phase (1.x counts a retry's pass too): the same passes, and
     * 0 <= idle <= open <= C at every pass */
    double sum = 0;
    for (int i = 0; i < TF_NPHASES; i++) {
        sum += hi.phase[i].pool_passes;
        assert_true(hi.phase[i].pool_idle >= 0);
        assert_true(hi.phase[i].pool_idle <= hi.phase[i].pool_conns);
        assert_true(hi.phase[i].pool_conns <= 64);
    }
    assert_rel(sum / TF_NPHASES, hi.pool_passes, 1e-12);
    /* a phase that does not run has no pool figures */
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 1\nphases = reserve\n", pool_base);
    run_text(text, 3, &o);
    assert_true(isnan(o.phase[TF_CHECKOUT].pool_idle) && isnan(o.phase[TF_CHECKOUT].pool_passes));
    assert_close(o.phase[TF_RESERVE].pool_passes, 2, 1e-12);
}

/* httpcore 0.16 (Debian 12): at concurrency 1 the same two passes per
 * request as 1.x, each priced the same, plus pool_req_cpu for the one
 * request in the pool at its start's pass (none is left at its response's).
 * client.sent_cpu runs while the request is at the server: with the
 * server slower than it, the throughput does not move.  At concurrency 64
 * the pool lock spaces the passes out: the pool opens far fewer than C
 * connections, where 1.x opens all C. */
static void test_client_pool_016(void **state)
{
    (void)state;
    char text[1024];
    tf_out o, s1, s2;
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 1\nhttpcore = 0.16\npool_req_cpu = 5us\n",
             pool_base);
    run_text(text, 3, &o);
    assert_close(o.pool_passes, 2, 1e-12);
    assert_close(o.pool_retries, 0, 1e-12);
    assert_close(o.pool_conns, 4, 0);
    double want = 1e-3 + 2 * 30e-6 + ((99 + 100) * 10e-6 + 0.5e-3) / 100 + 5e-6;
    for (int i = 0; i < TF_NPHASES; i++)
        assert_rel(o.phase[i].cpu_client, want, 1e-9);
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 1\nhttpcore = 0.16\n", pool_base);
    run_text(text, 3, &s1);
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 1\nhttpcore = 0.16\nsent_cpu = 0.3ms\n",
             pool_base);
    run_text(text, 3, &s2);
    for (int i = 0; i < TF_NPHASES; i++) {
        assert_rel(s2.phase[i].throughput, s1.phase[i].throughput, 1e-9);
        assert_rel(s2.phase[i].cpu_client, s1.phase[i].cpu_client + 0.3e-3, 1e-9);
    }
    /* the pool lock at concurrency 64 (no backend latency: the client's
     * loop is the bottleneck) */
    tf_out h16, h10;
    snprintf(text, sizeof text,
             "%s\f[architecture]\nstub_latency = 0\n[client]\nconcurrency = 64\ntotal = 400\nhttpcore = 0.16\n",
             pool_base);
    run_text(text, 5, &h16);
    snprintf(text, sizeof text,
             "%s\f[architecture]\nstub_latency = 0\n[client]\nconcurrency = 64\ntotal = 400\n", pool_base);
    run_text(text, 5, &h10);
    assert_close(h10.pool_conns, 4 * 64, 0);
    assert_true(h16.pool_conns < 4 * 32);
    assert_true(h16.pool_passes >= 2);
    /* per phase, passes as 0.16's housekeeping counts them: a start and a
     * response close each, never a retry */
    for (int i = 0; i < TF_NPHASES; i++) {
        assert_close(h16.phase[i].pool_passes, 2, 1e-12);
        assert_true(h16.phase[i].pool_idle >= 0);
        assert_true(h16.phase[i].pool_idle <= h16.phase[i].pool_conns);
        assert_true(h16.phase[i].pool_conns <= 64);
    }
    for (int i = 0; i < TF_NPHASES; i++) {
        assert_close(o.phase[i].pool_passes, 2, 1e-12);
        assert_close(o.phase[i].pool_idle, 199.0 / 200, 1e-12);
    }
}

/* Wake-up costs: at concurrency 1 every burst finds the server loop idle
 * and every statement finds no backend running, so each request pays them
 * exactly once per burst (its arrival and each of its 11 round-trip
 * replies: pre-ping, BEGIN, 2 locks, 4 sums, 2 inserts, COMMIT) and per
 * statement; when the loop is saturated they (nearly) vanish. */
static const char wake_base[] =
    "[architecture]\naccounting = pg\npayments = redis\n"
    "[client]\nphases = reserve\ntotal = 50\ncpu = 0\ncrowding = 0\nconnect_cpu = 0\npool_cpu = 0\npool_conn_cpu = 0\npool_idle_cpu = 0\npool_poll_cpu = 0\n"
    "[server]\ncpu_shape = 1\ncrowding = 0\naccept_cpu = 0\n"
    "[host]\ncores = 64\n[postgres]\njitter = 1\nflush = 200us\n[redis]\nservice = 10us\n";

static void test_wake_cost(void **state)
{
    (void)state;
    char text[1024];
    tf_out o0, ow, op;
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 1\n", wake_base);
    run_text(text, 5, &o0);
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 1\n[server]\nwake_cpu = 20us\n", wake_base);
    run_text(text, 5, &ow);
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 1\n[postgres]\nwake_cpu = 30us\n", wake_base);
    run_text(text, 5, &op);
    assert_close(ow.phase[TF_RESERVE].mean - o0.phase[TF_RESERVE].mean, 12 * 20e-6, 1e-9);
    assert_close(op.phase[TF_RESERVE].mean - o0.phase[TF_RESERVE].mean, 11 * 30e-6, 1e-9);
    /* the kind timer (call to resumption) includes the wake-ups of its replies */
    assert_close(ow.kind_mean[TF_K_HOLD] - o0.kind_mean[TF_K_HOLD], 11 * 20e-6, 1e-9);
    /* With the backends on a host with idle cores, every statement wakes
     * one, also when another backend is running (concurrency 2): the
     * backends' busy time grows by exactly 50 requests x 11 statements x
     * the wake cost */
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 2\n", wake_base);
    run_text(text, 5, &o0);
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 2\n[postgres]\nwake_cpu = 30us\n", wake_base);
    run_text(text, 5, &op);
    double busy0 = o0.util[TF_C_PGCPU] * 64 * o0.phase[TF_RESERVE].walltime,
           busyw = op.util[TF_C_PGCPU] * 64 * op.phase[TF_RESERVE].walltime;
    assert_close(busyw - busy0, 50 * 11 * 30e-6, 1e-9);
    /* a saturated loop (1 ms per request, 32 in flight) is never idle */
    snprintf(text, sizeof text, "%s\f[client]\nconcurrency = 32\ntotal = 400\n[server]\ncpu_request = 1ms\n",
             wake_base);
    run_text(text, 5, &o0);
    snprintf(text, sizeof text,
             "%s\f[client]\nconcurrency = 32\ntotal = 400\n[server]\ncpu_request = 1ms\nwake_cpu = 20us\n",
             wake_base);
    run_text(text, 5, &ow);
    assert_true(o0.util[TF_C_SERVER] > 0.95);
    assert_close(ow.phase[TF_RESERVE].throughput / o0.phase[TF_RESERVE].throughput, 1, 0.01);
}

/* run_text of base with extra's overrides after it (seed 5) */
static void run_with(const char *base, const char *extra, tf_out *o)
{
    char text[2048];
    int n = snprintf(text, sizeof text, "%s\f%s", base, extra);
    assert_true(n > 0 && (size_t)n < sizeof text);
    run_text(text, 5, o);
}

/* postgres.commit_wake: at concurrency 1 (every core idle) each hold's
 * COMMIT, the one transaction with sums, waits exactly commit_wake more;
 * the commit phase's transactions (no sums) do not.  (That it needs an
 * idle core is the condition of postgres.wake_cpu, test_wake_cost.) */
static void test_commit_wake(void **state)
{
    (void)state;
    tf_out o0, ow;
    run_with(wake_base, "[client]\nconcurrency = 1\nphases = reserve,commit\n", &o0);
    run_with(wake_base, "[client]\nconcurrency = 1\nphases = reserve,commit\n[postgres]\ncommit_wake = 150us\n",
             &ow);
    assert_close(ow.phase[TF_RESERVE].mean - o0.phase[TF_RESERVE].mean, 150e-6, 1e-9);
    assert_close(ow.kind_mean[TF_K_HOLD] - o0.kind_mean[TF_K_HOLD], 150e-6, 1e-9);
    assert_close(ow.phase[TF_COMMIT].mean, o0.phase[TF_COMMIT].mean, 1e-12);
    assert_close(ow.kind_mean[TF_K_COMMIT_ORDER], o0.kind_mean[TF_K_COMMIT_ORDER], 1e-12);
    /* backends off the host: the wait applies when no backend is running
     * (always at concurrency 1) */
    run_with(wake_base, "[client]\nconcurrency = 1\n[host]\npostgres_on_host = false\n", &o0);
    run_with(wake_base,
             "[client]\nconcurrency = 1\n[host]\npostgres_on_host = false\n[postgres]\ncommit_wake = 150us\n", &ow);
    assert_close(ow.phase[TF_RESERVE].mean - o0.phase[TF_RESERVE].mean, 150e-6, 1e-9);
}

/* postgres.busy_cost: a statement that finds every host core busy costs
 * 1 + busy_cost times its CPU; one that finds a core idle costs what it
 * did.  At concurrency 1 (the loop waits for each reply, so the one core
 * is idle when a statement starts) nothing changes, to the bit; with the
 * one core saturated (1 ms of loop CPU per request, 8 in flight) the
 * backends' CPU grows by the factor on the statements that found it busy:
 * at most 1.5 times, and more than 1.25 times (most of them). */
static void test_busy_cost(void **state)
{
    (void)state;
    tf_out o0, ob;
    run_with(wake_base, "[client]\nconcurrency = 1\n[host]\ncores = 1\n", &o0);
    run_with(wake_base, "[client]\nconcurrency = 1\n[host]\ncores = 1\n[postgres]\nbusy_cost = 0.5\n", &ob);
    assert_true(o0.phase[TF_RESERVE].mean == ob.phase[TF_RESERVE].mean);
    assert_true(o0.phase[TF_RESERVE].throughput == ob.phase[TF_RESERVE].throughput);
    const char *sat = "[client]\nconcurrency = 8\ntotal = 200\n[server]\ncpu_request = 1ms\n[host]\ncores = 1\n";
    char extra[512];
    run_with(wake_base, sat, &o0);
    snprintf(extra, sizeof extra, "%s[postgres]\nbusy_cost = 0.5\n", sat);
    run_with(wake_base, extra, &ob);
    double pg0 = o0.util[TF_C_PGCPU] * o0.phase[TF_RESERVE].walltime,
           pgb = ob.util[TF_C_PGCPU] * ob.phase[TF_RESERVE].walltime;
    assert_true(o0.util[TF_C_SERVER] > 0.9);
    assert_true(pgb / pg0 > 1.25 && pgb / pg0 <= 1.5 + 1e-9);
    /* and the phase slows down: the one core does more work per request */
    assert_true(ob.phase[TF_RESERVE].throughput < o0.phase[TF_RESERVE].throughput);
}

/* postgres.flush_wait: a WAL flush takes flush_wait longer per thread
 * waiting for a host core when it starts (the host's jobs beyond its
 * cores); one that finds none waiting takes what it did.
 * At concurrency 1 on 64 cores nothing changes, to the bit; with the one
 * core saturated (1 ms of loop CPU per request, 8 in flight: about 3.6
 * jobs beyond the core) the commit phase's flushes start with threads
 * waiting: the WAL's busy share grows, a commit takes more than 1 ms
 * longer with 1 ms per waiting thread, and the growth with 2 ms is 1.5 to
 * 3 times that (linear in the wait, but longer flushes gather more
 * commits each; seed 5 gives 5.2 and 11.2 ms). */
static void test_flush_wait(void **state)
{
    (void)state;
    tf_out o0, of;
    const char *light = "[client]\nconcurrency = 1\nphases = reserve,commit\n";
    char extra[512];
    run_with(wake_base, light, &o0);
    snprintf(extra, sizeof extra, "%s[postgres]\nflush_wait = 2ms\n", light);
    run_with(wake_base, extra, &of);
    assert_true(o0.phase[TF_COMMIT].mean == of.phase[TF_COMMIT].mean);
    assert_true(o0.phase[TF_RESERVE].throughput == of.phase[TF_RESERVE].throughput);
    assert_true(o0.util[TF_C_WAL] == of.util[TF_C_WAL]);
    const char *sat = "[client]\nconcurrency = 8\ntotal = 200\nphases = reserve,commit\n"
                      "[server]\ncpu_request = 1ms\n[host]\ncores = 1\n";
    tf_out o2;
    run_with(wake_base, sat, &o0);
    snprintf(extra, sizeof extra, "%s[postgres]\nflush_wait = 1ms\n", sat);
    run_with(wake_base, extra, &of);
    snprintf(extra, sizeof extra, "%s[postgres]\nflush_wait = 2ms\n", sat);
    run_with(wake_base, extra, &o2);
    assert_true(o0.util[TF_C_SERVER] > 0.9);
    /* the WAL's busy share counts the waits */
    assert_true(of.util[TF_C_WAL] > o0.util[TF_C_WAL]);
    assert_true(of.phase[TF_COMMIT].throughput < o0.phase[TF_COMMIT].throughput);
    double g1 = of.phase[TF_COMMIT].mean - o0.phase[TF_COMMIT].mean,
           g2 = o2.phase[TF_COMMIT].mean - o0.phase[TF_COMMIT].mean;
    assert_true(g1 > 1e-3);
    assert_true(g2 > 1.5 * g1 && g2 < 3 * g1);
    /* backends off the host: no host cores to find busy, nothing changes */
    const char *off = "[client]\nconcurrency = 8\ntotal = 200\nphases = reserve,commit\n"
                      "[server]\ncpu_request = 1ms\n[host]\ncores = 1\npostgres_on_host = false\n";
    run_with(wake_base, off, &o0);
    snprintf(extra, sizeof extra, "%s[postgres]\nflush_wait = 2ms\n", off);
    run_with(wake_base, extra, &of);
    assert_true(o0.phase[TF_COMMIT].mean == of.phase[TF_COMMIT].mean);
}

/* postgres.commit_tail: a COMMIT's backend CPU runs after its WAL flush,
 * the flush's waiters one after another.  The CPU is moved, not added:
 * PostgreSQL's CPU per request is the same in the commit phase to the bit,
 * in the reserve phase within 1e-4 (a sum's cost follows the rows made
 * before it, and the holds' order moves a little).  At
 * concurrency 1 (a flush serves one COMMIT) the commit phase is the same
 * too; at 8 (commit_cpu 1 ms, a 200 us flush: up to 7 COMMITs share one)
 * they come back 1 ms apart: the commit phase's mean latency grows by
 * more than 1 ms (seed 5: 9.11 -> 11.49 ms), on the host or off it. */
static void test_commit_tail(void **state)
{
    (void)state;
    tf_out o0, ot;
    const char *one = "[client]\nconcurrency = 1\ntotal = 48\nphases = reserve,commit\n"
                      "[postgres]\ncommit_cpu = 1ms\n";
    char extra[512];
    run_with(wake_base, one, &o0);
    snprintf(extra, sizeof extra, "%scommit_tail = true\n", one);
    run_with(wake_base, extra, &ot);
    assert_rel(ot.phase[TF_COMMIT].mean, o0.phase[TF_COMMIT].mean, 1e-12);
    assert_rel(ot.phase[TF_RESERVE].mean, o0.phase[TF_RESERVE].mean, 1e-12);
    for (int on_host = 1; on_host >= 0; on_host--) {
        snprintf(extra, sizeof extra,
                 "[client]\nconcurrency = 8\ntotal = 48\nphases = reserve,commit\n"
                 "[host]\npostgres_on_host = %s\n[postgres]\ncommit_cpu = 1ms\n",
                 on_host ? "true" : "false");
        run_with(wake_base, extra, &o0);
        size_t n = strlen(extra);
        snprintf(extra + n, sizeof extra - n, "commit_tail = true\n");
        run_with(wake_base, extra, &ot);
        for (int ph = TF_RESERVE; ph <= TF_COMMIT; ph++)
            assert_rel(ot.phase[ph].cpu_pg / ot.phase[ph].ok, o0.phase[ph].cpu_pg / o0.phase[ph].ok,
                       ph == TF_COMMIT ? 1e-12 : 1e-4);
        assert_true(ot.phase[TF_COMMIT].mean > o0.phase[TF_COMMIT].mean + 1e-3);
        assert_true(ot.phase[TF_COMMIT].throughput < o0.phase[TF_COMMIT].throughput);
    }
}

/* Redis on the host: one thread whose service runs on the host's cores;
 * its reply costs the loop no wake-up; a save takes save_extra more. */
static const char redis_base[] =
    "[architecture]\naccounting = pg\npayments = redis\n"
    "[client]\nphases = checkout\ntotal = 50\ncpu = 0\ncrowding = 0\nconnect_cpu = 0\npool_cpu = 0\npool_conn_cpu = 0\npool_idle_cpu = 0\npool_poll_cpu = 0\n"
    "[server]\ncpu_shape = 1\ncrowding = 0\naccept_cpu = 0\nwake_cpu = 20us\n"
    "[postgres]\njitter = 1\nflush = 200us\nloop_cpu_query = 0\nloop_cpu_txn = 0\n"
    "[redis]\nservice = 10us\nloop_cpu = 5us\nwake_wait = 0\n";

/* Run the base config with extra INI text appended (seed 5). */
static void test_redis_on_host(void **state)
{
    (void)state;
    tf_out off, on, extra;
    run_with(redis_base, "[client]\nconcurrency = 1\n[host]\ncores = 64\n", &off);
    run_with(redis_base, "[client]\nconcurrency = 1\n[host]\ncores = 64\nredis_on_host = true\n", &on);
    run_with(redis_base,
             "[client]\nconcurrency = 1\n[host]\ncores = 64\nredis_on_host = true\n"
             "[redis]\nsave_extra = 25us\n",
             &extra);
    /* the save's reply pays no wake-up on the host (20 us less) and its
     * service grows by save_extra (the kind timer covers both) */
    assert_close(off.kind_mean[TF_K_SAVE] - on.kind_mean[TF_K_SAVE], 20e-6, 1e-9);
    assert_close(extra.kind_mean[TF_K_SAVE] - on.kind_mean[TF_K_SAVE], 25e-6, 1e-9);
    /* the host's busy time: + 50 services of 10 us, - 50 wake-ups of 20 us */
    double b_off = off.util[TF_C_HOST] * 64 * off.phase[TF_CHECKOUT].walltime,
           b_on = on.util[TF_C_HOST] * 64 * on.phase[TF_CHECKOUT].walltime;
    assert_close(b_on - b_off, 50 * (10e-6 - 20e-6), 1e-9);
    assert_close(on.util[TF_C_REDIS] * on.phase[TF_CHECKOUT].walltime, 50 * 10e-6, 1e-9);
    /* one thread: with a slow Redis and many cores the saves queue and the
     * phase runs at most at 1 / service; the replies of a cycle leave at
     * its end (beforeSleep), so its clients come back together and the
     * thread waits between cycles: busy about 70% of the time */
    run_with(redis_base,
             "[client]\nconcurrency = 16\ntotal = 400\n[host]\ncores = 64\nredis_on_host = true\n"
             "[redis]\nservice = 1ms\nio_threads = 1\n",
             &on);
    assert_true(on.phase[TF_CHECKOUT].throughput <= 1000 * 1.001);
    assert_true(on.phase[TF_CHECKOUT].throughput > 600);
    assert_true(on.util[TF_C_REDIS] > 0.6 && on.util[TF_C_REDIS] <= 1);
    assert_close(on.util[TF_C_REDIS], on.phase[TF_CHECKOUT].throughput * 1e-3, 0.01);
    assert_true(on.queue[TF_C_REDIS] > 1);
    /* on one core Redis competes with the loop and the backends: slower
     * than the same Redis beside the host */
    run_with(redis_base,
             "[postgres]\nquery_cpu = 10us\ncommit_cpu = 10us\nsum_cpu = 0\nrow_cost = 0\n"
             "[client]\nconcurrency = 8\ntotal = 200\n[host]\ncores = 1\n[redis]\nservice = 100us\n",
             &off);
    run_with(redis_base,
             "[postgres]\nquery_cpu = 10us\ncommit_cpu = 10us\nsum_cpu = 0\nrow_cost = 0\n"
             "[client]\nconcurrency = 8\ntotal = 200\n[host]\ncores = 1\nredis_on_host = true\n"
             "[redis]\nservice = 100us\n",
             &on);
    assert_true(on.phase[TF_CHECKOUT].throughput < 0.95 * off.phase[TF_CHECKOUT].throughput);
}

/* Redis's I/O threads in the model (pg_redis webhooks in waves, no loop
 * CPU: a wave's GETs reach Redis in one cycle; Redis on a 2-core host):
 * below 2 x io_threads clients (waves of 4) io_threads 4 changes nothing,
 * at 16 the threads start and spin, Redis round trips then wait for them
 * at the scheduler's ticks, and the webhooks are more than twice as
 * slow. */
/* pg_redis webhooks only, no CPU but Redis's and its client's, Redis on a
 * 2-core host; the [host] section last, so that a test can add to it. */
#define WEBHOOK_BASE \
    "[architecture]\naccounting = pg\npayments = redis\n" \
    "[client]\nphases = webhook\ntotal = 320\ncpu = 0\nsent_cpu = 0\ncrowding = 0\nconnect_cpu = 0\npool_cpu = 0\npool_conn_cpu = 0\npool_idle_cpu = 0\npool_poll_cpu = 0\n" \
    "[server]\ncpu_request = 0\ncpu_webhook = 0\ncpu_shape = 1\ncrowding = 0\naccept_cpu = 0\n" \
    "[postgres]\nloop_cpu_query = 0\nloop_cpu_txn = 0\n" \
    "[redis]\nservice = 10us\nloop_cpu = 5us\n" \
    "[host]\ncores = 2\nredis_on_host = true\n"

/* The loop-turn tests' scenario (seed 5): WEBHOOK_BASE's phase `phases`
 * at concurrency conc, Redis on cores of its own, 50 us of loop CPU per
 * PostgreSQL statement, and the [redis] and [server] keys given. */
static void run_turns(const char *phases, long conc, const char *redis, const char *server,
                      tf_out *o)
{
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "[client]\nphases = %s\nconcurrency = %ld\n[host]\nredis_on_host = false\n"
                     "[postgres]\nloop_cpu_query = 50us\n[redis]\n%s[server]\n%s",
                     phases, conc, redis, server);
    assert_true(n > 0 && (size_t)n < sizeof text);
    run_with(WEBHOOK_BASE, text, o);
}

static void test_redis_io_threads(void **state)
{
    (void)state;
    static const char base[] = WEBHOOK_BASE "wake_affine = true\n";
    tf_out a, b;
    run_with(base, "[client]\nconcurrency = 4\n[redis]\nio_threads = 1\n", &a);
    run_with(base, "[client]\nconcurrency = 4\n[redis]\nio_threads = 4\n", &b);
    assert_true(a.phase[TF_WEBHOOK].throughput == b.phase[TF_WEBHOOK].throughput);
    assert_true(b.util[TF_C_REDIS_IO] == 0);
    run_with(base, "[client]\nconcurrency = 16\n[redis]\nio_threads = 1\n", &a);
    run_with(base, "[client]\nconcurrency = 16\n[redis]\nio_threads = 4\n", &b);
    assert_true(a.util[TF_C_REDIS_IO] == 0);
    assert_true(b.util[TF_C_REDIS_IO] > 0.5);
    assert_true(b.phase[TF_WEBHOOK].throughput < 0.5 * a.phase[TF_WEBHOOK].throughput);
    /* a Redis round trip in a threaded cycle waits for ticks (4 ms each) */
    assert_true(b.kind_mean[TF_K_GET] > 1e-3 && a.kind_mean[TF_K_GET] < 0.5e-3);
    /* Redis with cores of its own: the threads wait for none */
    run_with(base, "[client]\nconcurrency = 16\n[redis]\nio_threads = 4\n[host]\nredis_on_host = false\n", &b);
    assert_true(b.kind_mean[TF_K_GET] < 1e-3);
}

/* redis.pool_turns / pool_lock (redis-py's connection check): on an idle
 * loop the turns cost nothing (concurrency 1: the same run); with a wave
 * of 16 webhooks whose loop has work queued, each Redis command waits two
 * passes of the ready queue, so its timing grows; the pool lock changes
 * the run (commands take turns through the check). */
static void test_redis_pool_turns(void **state)
{
    (void)state;
    static const char web[] = "cpu_webhook = 300us\n";
    tf_out a, b, c;
    run_turns("webhook", 1, "io_threads = 1\npool_turns = 0\npool_lock = false\n", web, &a);
    run_turns("webhook", 1, "io_threads = 1\npool_turns = 2\npool_lock = true\n", web, &b);
    assert_true(a.phase[TF_WEBHOOK].throughput == b.phase[TF_WEBHOOK].throughput);
    assert_true(a.kind_mean[TF_K_GET] == b.kind_mean[TF_K_GET]);
    run_turns("webhook", 16, "io_threads = 1\npool_turns = 0\npool_lock = false\n", web, &a);
    run_turns("webhook", 16, "io_threads = 1\npool_turns = 2\npool_lock = false\n", web, &b);
    run_turns("webhook", 16, "io_threads = 1\npool_turns = 2\npool_lock = true\n", web, &c);
    print_message("get at 16: %.1f us, turns %.1f us, with the lock %.1f us\n",
                  a.kind_mean[TF_K_GET] * 1e6, b.kind_mean[TF_K_GET] * 1e6, c.kind_mean[TF_K_GET] * 1e6);
    /* 2330 -> 2408 us (seed 5): the turns wait behind the wave's bursts */
    assert_true(b.kind_mean[TF_K_GET] > 1.02 * a.kind_mean[TF_K_GET]);
    /* the lock hands the check over a turn after each release: another run */
    assert_true(c.kind_mean[TF_K_GET] != b.kind_mean[TF_K_GET]);
}

/* redis.send_turns (Python 3.11's asyncio.wait_for around redis-py's
 * send): free on an idle loop (concurrency 1: the same run); in a wave of
 * 16 each command waits the turn more, so the later commands' timings
 * grow; and with a Redis of its own cores (which serves a command as it
 * comes in) the turns start no I/O threads.  (This scenario does not tell
 * where the send's turn sits against the command's CPU; the run in
 * tests/cli/redis_bench.sh does: with the CPU before the turn the
 * coroutines whose turns ended together wrote at one instant.) */
static void test_redis_send_turns(void **state)
{
    (void)state;
    static const char web[] = "cpu_webhook = 300us\n";
#define SEND(io, turns) \
    "io_threads = " io "\npool_turns = 2\npool_lock = false\nsend_turns = " turns "\nloop_cpu = 20us\n"
    tf_out a, b;
    run_turns("webhook", 1, SEND("1", "0"), web, &a);
    run_turns("webhook", 1, SEND("1", "1"), web, &b);
    assert_true(a.phase[TF_WEBHOOK].throughput == b.phase[TF_WEBHOOK].throughput);
    assert_true(a.kind_mean[TF_K_GET] == b.kind_mean[TF_K_GET]);
    run_turns("webhook", 16, SEND("1", "0"), web, &a);
    run_turns("webhook", 16, SEND("1", "1"), web, &b);
    print_message("remove_pending at 16: %.1f us, with the send's turn %.1f us\n",
                  a.kind_mean[TF_K_REMOVE] * 1e6, b.kind_mean[TF_K_REMOVE] * 1e6);
    /* 644 -> 814 us (seed 5); the get, the wave's first command, when
     * every coroutine is at the same step, does not change (2619 us) */
    assert_true(b.kind_mean[TF_K_REMOVE] > 1.1 * a.kind_mean[TF_K_REMOVE]);
    run_turns("webhook", 16, SEND("4", "1"), web, &b);
#undef SEND
    print_message("threaded writes at 16, io-threads 4: %g\n", b.redis_threaded_writes);
    assert_true(b.redis_threaded_writes == 0);
}

/* server.io_turns (the passes a reply takes to reach its coroutine): free
 * on an idle loop (concurrency 1: the same run); with 16 checkouts in a
 * window, whose loop always has other requests' bursts queued, each of the
 * hold's round trips waits them: 20.9 -> 32.8 ms (seed 5).  (In a wave of
 * webhooks, all at the same step, the turns mostly reorder the wave.) */
static void test_io_turns(void **state)
{
    (void)state;
    tf_out a, b;
    run_turns("checkout", 1, "io_threads = 1\n", "cpu_request = 300us\nio_turns = 0\n", &a);
    run_turns("checkout", 1, "io_threads = 1\n", "cpu_request = 300us\nio_turns = 2\n", &b);
    assert_true(a.phase[TF_CHECKOUT].throughput == b.phase[TF_CHECKOUT].throughput);
    assert_true(a.kind_mean[TF_K_HOLD] == b.kind_mean[TF_K_HOLD]);
    run_turns("checkout", 16, "io_threads = 1\n", "cpu_request = 300us\nio_turns = 0\n", &a);
    run_turns("checkout", 16, "io_threads = 1\n", "cpu_request = 300us\nio_turns = 2\n", &b);
    print_message("hold at 16: %.1f us, with the replies' turns %.1f us\n", a.kind_mean[TF_K_HOLD] * 1e6,
                  b.kind_mean[TF_K_HOLD] * 1e6);
    assert_true(b.kind_mean[TF_K_HOLD] > 1.1 * a.kind_mean[TF_K_HOLD]);
}

/* The programs of every PostgreSQL / TigerBeetle x PostgreSQL / Redis
 * architecture fit TF_PROG_MAX with every optional step on (pre-ping,
 * redis-py's turns and lock, the replies' turns), and end with TF_U_END:
 * no config can overflow a program (tf_prog_build asserts). */
static void test_longest_programs(void **state)
{
    (void)state;
    static const char *const acc[] = {"pg", "tb"}, *const pay[] = {"pg", "redis"};
    int longest = 0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            char text[512];
            snprintf(text, sizeof text,
                     "[architecture]\naccounting = %s\npayments = %s\n[postgres]\npre_ping = true\n"
                     "[redis]\npool_turns = 100\npool_lock = true\nsend_turns = 100\n"
                     "[server]\nio_turns = 100\n",
                     acc[a], pay[b]);
            tf_params p;
            sim_err err;
            if (params_from(text, &p, &err))
                fail_msg("%s", err.msg);
            tf_prog g[TF_EP_N];
            tf_prog_build(g, &p);
            for (int ep = 0; ep < TF_EP_N; ep++) {
                assert_true(g[ep].n > 0 && g[ep].n <= TF_PROG_MAX);
                assert_int_equal(g[ep].u[g[ep].n - 1].code, TF_U_END);
                if (g[ep].n > longest)
                    longest = g[ep].n;
            }
            tf_params_fini(&p);
        }
    print_message("longest program: %d steps of %d\n", longest, TF_PROG_MAX);
}

/* redis.wake_wait: webhooks in waves of 16 whose loop runs 200 us of CPU
 * between two Redis commands, each served in 10 us, Redis on the host.
 * With wake_wait 1 every wake-up of the main thread waits for the next
 * tick (4 ms): the wave's commands gather in one cycle and start the I/O
 * threads.  With 0 each command is served as it comes, every cycle has
 * one client and the threads never start; a share in between starts them
 * in between, and the same seed gives the same run. */
static void test_redis_wake_wait(void **state)
{
    (void)state;
    static const char base[] = WEBHOOK_BASE;
#define WAVES "[client]\nconcurrency = 16\n[redis]\nloop_cpu = 200us\nio_threads = 4\n"
    tf_out off, on, mid, mid2;
    run_with(base, WAVES "wake_wait = 0\n", &off);
    run_with(base, WAVES "wake_wait = 1\n", &on);
    run_with(base, WAVES "wake_wait = 0.1\n", &mid);
    run_with(base, WAVES "wake_wait = 0.1\n", &mid2);
#undef WAVES
    assert_true(off.util[TF_C_REDIS_IO] == 0);
    assert_true(on.util[TF_C_REDIS_IO] > 0.1);
    assert_true(on.phase[TF_WEBHOOK].throughput < 0.8 * off.phase[TF_WEBHOOK].throughput);
    assert_true(mid.util[TF_C_REDIS_IO] > 0 && mid.util[TF_C_REDIS_IO] < on.util[TF_C_REDIS_IO]);
    assert_memory_equal(&mid.phase, &mid2.phase, sizeof mid.phase);
}

/* server.cold: one request at a time on the stub architecture, nothing
 * else costs anything: the request's two bursts (0.5 ms each, warm) are
 * the loop's only code path, so the first after the 10 ms await costs
 * 0.5 (1 + 2 (1 - e^-(a + 10)/4)) ms and the next request's first,
 * b ms after it started, 0.5 (1 + 2 (1 - e^-b/4)): a fixed point.  Under
 * load the path stays warm; cold = 0 is the warm cost exactly. */
static const char cold_base[] =
    "[architecture]\naccounting = stub\npayments = stub\nstub_latency = 10ms\n"
    "[client]\ntotal = 200\ncpu = 0\nsent_cpu = 0\ncrowding = 0\nconnect_cpu = 0\npool_cpu = 0\n"
    "pool_conn_cpu = 0\npool_idle_cpu = 0\npool_poll_cpu = 0\npool_req_cpu = 0\n"
    "[server]\ncpu_request = 1ms\ncpu_split = 0.5\ncpu_checkout = 0\ncpu_webhook = 0\ncpu_shape = 1\n"
    "crowding = 0\naccept_cpu = 0\nwake_cpu = 0\n"
    "cold_tau = 4ms\ntimer_resolution = 0\ntimer_slack = 0\n[host]\ncores = 64\nrtt = 0\n";

static void test_server_cold(void **state)
{
    (void)state;
    tf_out warm, cold, loaded;
    run_with(cold_base, "[client]\nconcurrency = 1\n[server]\ncold = 0\n", &warm);
    run_with(cold_base, "[client]\nconcurrency = 1\n[server]\ncold = 2\n", &cold);
    run_with(cold_base, "[client]\nconcurrency = 8\n[server]\ncold = 2\n", &loaded);
    double a = 0.5, b = 0.5; /* ms: the request's first and second burst */
    for (int i = 0; i < 100; i++) {
        a = 0.5 * (1 + 2 * -expm1(-b / 4));
        b = 0.5 * (1 + 2 * -expm1(-(a + 10) / 4));
    }
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        assert_rel(warm.phase[ph].cpu_server, 1e-3, 1e-9);
        /* a phase's first request differs (its first burst is colder) */
        assert_rel(cold.phase[ph].cpu_server, (a + b) * 1e-3, 0.01);
        assert_rel(cold.phase[ph].throughput, 1 / ((a + b + 10) * 1e-3), 0.01);
        /* 8 at once: each burst follows another of the same path within
         * a burst's time, so far less than the 1.6 ms of one at a time */
        assert_true(loaded.phase[ph].cpu_server > 1e-3);
        assert_true(loaded.phase[ph].cpu_server < 1.4e-3);
    }
    assert_true(a + b > 1.5);
}

/* client.cold: the load generator's first burst after it idled costs
 * more, the longer it idled.  cold_base with a client of 1 ms and a server
 * of none: at concurrency 1 a request's start burst (0.5 ms) follows the
 * previous response's burst at once (warm); its response burst follows 10
 * ms of idling: 0.5 ms x (1 + 2 (1 - e^(-10/4))). */
#define CCOLD(c, k)                                                                  \
    "[client]\ncpu = 1ms\ncpu_scale = 1\ncold_tau = 4ms\nconcurrency = " c "\ncold = " k \
    "\n[server]\ncpu_request = 0\n"

static void test_client_cold(void **state)
{
    (void)state;
    tf_out warm, cold, loaded;
    run_with(cold_base, CCOLD("1", "0"), &warm);
    run_with(cold_base, CCOLD("1", "2"), &cold);
    run_with(cold_base, CCOLD("8", "2"), &loaded);
    const double resp = 0.5 * (1 + 2 * -expm1(-10.0 / 4)); /* ms */
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        assert_rel(warm.phase[ph].cpu_client, 1e-3, 1e-9);
        assert_rel(warm.phase[ph].throughput, 1 / 11e-3, 1e-6);
        /* a phase's first request differs (it idled since the last phase) */
        assert_rel(cold.phase[ph].cpu_client, (0.5 + resp) * 1e-3, 0.01);
        assert_rel(cold.phase[ph].throughput, 1 / ((0.5 + resp + 10) * 1e-3), 0.01);
        /* 8 at once: responses come 1.25 ms apart or less, far colder runs
         * are rare */
        assert_true(loaded.phase[ph].cpu_client > 1e-3);
        assert_true(loaded.phase[ph].cpu_client < 0.5e-3 + resp * 1e-3 - 0.3e-3);
    }
}

/* host.loop_weight: with only the two event loops on one core (the stub
 * architecture) every job is favoured, so the schedule is processor
 * sharing's whatever the weight; with PostgreSQL's backends on that core
 * the loops take more of it: the server's loop finishes its bursts
 * sooner, while the CPU each step costs stays the same. */
static void test_loop_weight(void **state)
{
    (void)state;
    tf_out w1, w2;
    run_with(cold_base, "[client]\nconcurrency = 4\ncpu = 1ms\n[host]\ncores = 1\nloop_weight = 1\n", &w1);
    run_with(cold_base, "[client]\nconcurrency = 4\ncpu = 1ms\n[host]\ncores = 1\nloop_weight = 2\n", &w2);
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        assert_rel(w2.phase[ph].throughput, w1.phase[ph].throughput, 1e-9);
        assert_rel(w2.phase[ph].mean, w1.phase[ph].mean, 1e-9);
    }
    run_with(wake_base, "[client]\nconcurrency = 10\n[host]\ncores = 1\nloop_weight = 1\n", &w1);
    run_with(wake_base, "[client]\nconcurrency = 10\n[host]\ncores = 1\nloop_weight = 2\n", &w2);
    /* the server's loop has work 0.95 of the time at weight 1, 0.72 at 2
     * (its bursts run faster beside the backends); the same CPU */
    assert_true(w1.phase[TF_RESERVE].busy_server > 0.9);
    assert_true(w2.phase[TF_RESERVE].busy_server < 0.8 * w1.phase[TF_RESERVE].busy_server);
    assert_rel(w2.phase[TF_RESERVE].cpu_server, w1.phase[TF_RESERVE].cpu_server, 1e-9);
}

/* wake_affine: a statement waits for its loop's burst only when no host
 * core is idle; with many cores nothing changes. */
static const char affine_base[] =
    "[architecture]\naccounting = pg\npayments = redis\n"
    "[client]\nphases = reserve\ntotal = 200\ncpu = 0\ncrowding = 0\nconnect_cpu = 0\npool_cpu = 0\npool_conn_cpu = 0\npool_idle_cpu = 0\npool_poll_cpu = 0\n"
    "concurrency = 4\n"
    "[server]\ncpu_shape = 1\ncrowding = 0\naccept_cpu = 0\ncpu_request = 300us\n"
    "[postgres]\njitter = 1\nflush = 200us\nquery_cpu = 10us\ncommit_cpu = 10us\n"
    "loop_cpu_query = 0\nloop_cpu_txn = 0\nrow_cost = 0\nsum_cpu = 0\n";

static void test_wake_affine(void **state)
{
    (void)state;
    tf_out off, on;
    run_with(affine_base, "[host]\ncores = 64\n", &off);
    run_with(affine_base, "[host]\ncores = 64\nwake_affine = true\n", &on);
    assert_int_equal(on.stacked, 0);
    assert_memory_equal(&off.phase, &on.phase, sizeof off.phase);
    assert_memory_equal(&off.kind_mean, &on.kind_mean, sizeof off.kind_mean);
    /* one core: statements sent while the loop runs another request's
     * 300 us burst wait for it instead of sharing the core */
    run_with(affine_base, "[host]\ncores = 1\n", &off);
    run_with(affine_base, "[host]\ncores = 1\nwake_affine = true\n", &on);
    assert_int_equal(off.stacked, 0);
    assert_true(on.stacked > 100);
    assert_true(on.kind_mean[TF_K_HOLD] != off.kind_mean[TF_K_HOLD]);
    /* the same work is done: the run's host busy time is the same */
    double b_off = off.util[TF_C_HOST] * off.phase[TF_RESERVE].walltime,
           b_on = on.util[TF_C_HOST] * on.phase[TF_RESERVE].walltime;
    assert_close(b_on / b_off, 1, 1e-6);
}

static void test_determinism(void **state)
{
    (void)state;
    tf_out a, b, c;
    const char *t = "[architecture]\naccounting = pg\npayments = redis\n[client]\nconcurrency = 30\n"
                    "total = 300\n";
    run_text(t, 11, &a);
    run_text(t, 11, &b);
    run_text(t, 12, &c);
    assert_memory_equal(&a, &b, sizeof a);
    assert_true(a.phase[TF_CHECKOUT].throughput != c.phase[TF_CHECKOUT].throughput);
}

static void expect_input_error(const char *text, const char *needle)
{
    tf_params p;
    sim_err err;
    int rc = params_from(text, &p, &err);
    if (rc == SIM_OK)
        tf_params_fini(&p);
    assert_int_equal(rc, SIM_EINPUT);
    if (!strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

static void test_bad_configs(void **state)
{
    (void)state;
    expect_input_error("[postgres]\ngate = 30\n", "t.ini:2: postgres.gate");
    expect_input_error("[tigerbeetle]\nbatch_max = 0\n", "t.ini:2: tigerbeetle.batch_max");
    expect_input_error("[tigerbeetle]\nbatch_max = 1\n", "below 2");
    expect_input_error("[architecture]\naccounting = mongo\n", "not one of pg|tb");
    expect_input_error("[client]\nphases = checkout,refund\n", "unknown phase or endpoint 'refund'");
    expect_input_error("[client]\nconcurency = 10\n", "did you mean concurrency");
    expect_input_error("[client]\nconcurrency = 0\n", "out of range");
    expect_input_error("[client]\ncpu = -1ms\n", "out of range");
    expect_input_error("[client]\ncpu = 1 parsec\n", "unknown time unit");
    expect_input_error("[server]\ncpu_shape = exp(mean=2)\n", "mean 1");
    expect_input_error("[redis]\nservice = gamma(shape=-1, mean=1ms)\n", "redis.service");
}

/* Component outputs share one unit: utilisation is the busy share of the
 * component's own capacity (0..1); the host's cores in use are the sum of
 * the cores each process on the host used; PostgreSQL's utilisation is its
 * cores over the host's. */
static void test_component_units(void **state)
{
    (void)state;
    const char *archs[] = {"pg_pg", "pg_redis", "tb_redis"};
    const char *extra[] = {"", "[host]\nredis_on_host = true\n", "[server]\nworkers = 3\n",
                           "[host]\ncores = 1.5\nclient_on_host = false\n"};
    long conc[] = {1, 10, 50};
    /* the host's cores unless a variant sets them: the registry's default */
    double cores0 = strtod(tf_params_find("host.cores")->k.def, NULL);
    assert_true(cores0 > 1);
    for (int a = 0; a < 3; a++)
        for (int e = 0; e < 4; e++)
            for (int c = 0; c < 3; c++) {
                char text[512];
                snprintf(text, sizeof text,
                         "[architecture]\naccounting = %.2s\npayments = %s\n[client]\n"
                         "concurrency = %ld\ntotal = 300\n%s",
                         archs[a], archs[a] + 3, conc[c], extra[e]);
                tf_out o;
                run_text(text, 5, &o);
                double sum = 0;
                for (int k = 0; k < TF_NCOMPS; k++) {
                    if (!isnan(o.util[k]) && (o.util[k] < 0 || o.util[k] > 1 + 1e-9))
                        fail_msg("%s: %s utilisation %g outside 0..1", text, tf_comp_names[k],
                                 o.util[k]);
                    if (k != TF_C_HOST && !isnan(o.cores[k]))
                        sum += o.cores[k];
                }
                assert_rel(o.cores[TF_C_HOST], sum, 1e-9);
                assert_rel(o.cores[TF_C_HOST], o.util[TF_C_HOST] * (e == 3 ? 1.5 : cores0), 1e-9);
                assert_rel(o.util[TF_C_PGCPU] * (e == 3 ? 1.5 : cores0), o.cores[TF_C_PGCPU], 1e-12);
                assert_true(isnan(o.cores[TF_C_CLIENT]) == (e == 3));
                assert_true(isnan(o.cores[TF_C_REDIS]) == (e != 1));
                assert_true(isnan(o.cores[TF_C_GATE]) && isnan(o.cores[TF_C_TB]));
                /* the phases cover the run back to back: their busy shares,
                 * weighted by their wall times, are the loops' utilisation;
                 * a client on a core of its own is busy exactly its CPU */
                double wall = 0, bc = 0, bs = 0;
                for (int ph = 0; ph < TF_NPHASES; ph++) {
                    const tf_phase_out *q = &o.phase[ph];
                    assert_true(q->busy_client >= 0 && q->busy_client <= 1 + 1e-9);
                    assert_true(q->busy_server >= 0 && q->busy_server <= 1 + 1e-9);
                    wall += q->walltime;
                    bc += q->busy_client * q->walltime;
                    bs += q->busy_server * q->walltime;
                    if (e == 3)
                        assert_rel(q->busy_client * q->walltime,
                                   q->cpu_client * (q->ok + q->errors), 1e-9);
                }
                assert_rel(bc / wall, o.util[TF_C_CLIENT], 1e-9);
                assert_rel(bs / wall, o.util[TF_C_SERVER], 1e-9);
            }
    /* Redis on a host with cores to spare (one thread, no I/O threads): the
     * cores it uses are its busy share, its commands' service time */
    tf_out o;
    run_text("[architecture]\naccounting = pg\npayments = redis\n[client]\nconcurrency = 10\n"
             "total = 300\n[host]\ncores = 64\nredis_on_host = true\n[redis]\nio_threads = 1\n",
             5, &o);
    assert_true(o.util[TF_C_REDIS] > 0.001);
    assert_rel(o.cores[TF_C_REDIS], o.util[TF_C_REDIS], 1e-6);
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permits_and_waves), cmocka_unit_test(test_kind_counts_and_batches),
        cmocka_unit_test(test_sold_out_paths),    cmocka_unit_test(test_mechanisms),
        cmocka_unit_test(test_client_pool),
        cmocka_unit_test(test_client_pool_016),
        cmocka_unit_test(test_determinism),       cmocka_unit_test(test_wake_cost),
        cmocka_unit_test(test_commit_wake),       cmocka_unit_test(test_busy_cost),
        cmocka_unit_test(test_flush_wait),
        cmocka_unit_test(test_commit_tail),
        cmocka_unit_test(test_redis_on_host),     cmocka_unit_test(test_wake_affine),       cmocka_unit_test(test_redis_wake_wait),
        cmocka_unit_test(test_server_cold),       cmocka_unit_test(test_client_cold),       cmocka_unit_test(test_loop_weight),
        cmocka_unit_test(test_bad_configs),
        cmocka_unit_test(test_component_units),
        cmocka_unit_test(test_redis_io_threads),
        cmocka_unit_test(test_redis_pool_turns),
        cmocka_unit_test(test_redis_send_turns),
        cmocka_unit_test(test_io_turns),
        cmocka_unit_test(test_longest_programs),
    };
    return cmocka_run_group_tests_name("tf_sim", tests, NULL, NULL);
}
