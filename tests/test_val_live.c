/* The live driver's engine (val_live) against a fake backend on a virtual
 * clock: the same phases, window/wave semantics, semaphores and kind
 * timings as the simulator (checked against tf_sim on deterministic
 * inputs), the order bookkeeping, sold-out and failure paths, the result
 * table; and the compare mapping (val_compare_overrides) and analysis. */
#include "tests/test_util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "models/mdl.h"
#include "models/tf_params.h"
#include "models/tf_prog.h"
#include "models/tf_sim.h"
#include "sim/sim_rng.h"
#include "validate/val_compare.h"
#include "validate/val_live.h"

/* ---- parameters ---- */

static int params_from(const char *text, tf_params *p, sim_err *err)
{
    sim_cfg *c = sim_cfg_new();
    sim_err_clear(err);
    size_t n;
    sim_cfg_key *s = mdl_schema(&mdl_tigerfans_type, &n);
    /* form feeds split the text into files loaded one over the other (a
     * later one may set an earlier one's keys again) */
    int rc = SIM_OK;
    for (const char *part = text; part && rc == SIM_OK;) {
        const char *ff = strchr(part, '\f');
        char *one = ff ? strndup(part, (size_t)(ff - part)) : strdup(part);
        assert_non_null(one);
        rc = sim_cfg_load_string(c, one, "t.ini", err);
        free(one);
        part = ff ? ff + 1 : NULL;
    }
    if (rc == SIM_OK)
        rc = sim_cfg_check(c, s, n, err);
    if (rc == SIM_OK)
        rc = tf_params_read(p, c, s, n, err);
    free(s);
    sim_cfg_free(c);
    return rc;
}

static void params_ok(const char *text, tf_params *p)
{
    sim_err err;
    if (params_from(text, p, &err))
        fail_msg("%s", err.msg);
    p->lim = (mdl_limits){.max_sim_time = 1e9}; /* no event or calendar bound */
}

/* ---- the fake backend: constant latencies on a virtual clock ---- */

#define FAKE_MAX 256

typedef struct fake {
    double t;                    /* virtual clock */
    double pg_lat, redis_lat;
    long long capacity;          /* what capacity reads return */
    unsigned n;                  /* round trips in flight */
    double due[FAKE_MAX];
    unsigned tag[FAKE_MAX];
    long long value[FAKE_MAX];
    long long next_id;
    long calls[2][TF_Q_COMMIT + 1]; /* [pg?][op] */
    long fail_at;                /* > 0: the call with this number fails */
    long ncalls;
    /* every hold inserted, by order number, and the holds later posted */
    long long made[2048][2];
    long bad_posts, posts, orders_with_holds;
    int ends[TF_NPHASES];        /* phase_end calls per phase */
    long calls_at_end[TF_NPHASES]; /* ncalls when each came */
} fake;

static double f_now(void *ctx) { return ((fake *)ctx)->t; }

static void f_spin(void *ctx, double s) { ((fake *)ctx)->t += s; }

static void f_phase_end(void *ctx, int phase)
{
    fake *f = ctx;
    f->ends[phase]++;
    f->calls_at_end[phase] = f->ncalls;
}

static int f_start(void *ctx, const val_live_call *c, unsigned tag, sim_err *err)
{
    fake *f = ctx;
    if (f->fail_at > 0 && ++f->ncalls == f->fail_at)
        return sim_err_set(err, SIM_EFAIL, "fake server: gone");
    assert_true(f->n < FAKE_MAX);
    int pg = c->code == TF_U_PG;
    f->calls[pg][c->op]++;
    long long v = 0;
    if (pg) {
        switch (c->op) {
        case TF_Q_LOCK_TICKET:
        case TF_Q_LOCK_GOODIE:
            v = f->capacity;
            break;
        case TF_Q_INSERT_TICKET:
        case TF_Q_INSERT_GOODIE:
            v = ++f->next_id;
            assert_true(c->id < 2048);
            f->made[c->id][c->op == TF_Q_INSERT_GOODIE] = v;
            break;
        case TF_Q_UPDATE:
            if (c->kind == TF_K_COMMIT_ORDER) {
                for (int h = 0; h < c->npost; h++) {
                    f->posts++;
                    if (c->id >= 2048 || c->holds[h] != f->made[c->id][h] || !c->holds[h])
                        f->bad_posts++;
                }
            }
            break;
        case TF_Q_ORDER:
            if (c->holds[0] && c->holds[1])
                f->orders_with_holds++;
            break;
        default:
            break;
        }
    }
    /* keep the in-flight list ordered by due time (FIFO among equals) */
    double due = f->t + (pg ? f->pg_lat : f->redis_lat);
    unsigned k = f->n++;
    while (k > 0 && f->due[k - 1] > due) {
        f->due[k] = f->due[k - 1];
        f->tag[k] = f->tag[k - 1];
        f->value[k] = f->value[k - 1];
        k--;
    }
    f->due[k] = due;
    f->tag[k] = tag;
    f->value[k] = v;
    return SIM_OK;
}

static int f_wait(void *ctx, val_live *e, int block, sim_err *err)
{
    (void)err;
    fake *f = ctx;
    if (block) {
        assert_true(f->n > 0);
        if (f->due[0] > f->t)
            f->t = f->due[0];
    }
    unsigned k = 0;
    while (k < f->n && f->due[k] <= f->t)
        k++;
    unsigned done = k;
    unsigned tags[FAKE_MAX];
    long long vals[FAKE_MAX];
    double dues[FAKE_MAX];
    memcpy(tags, f->tag, done * sizeof *tags);
    memcpy(vals, f->value, done * sizeof *vals);
    memcpy(dues, f->due, done * sizeof *dues);
    memmove(f->due, f->due + done, (f->n - done) * sizeof *f->due);
    memmove(f->tag, f->tag + done, (f->n - done) * sizeof *f->tag);
    memmove(f->value, f->value + done, (f->n - done) * sizeof *f->value);
    f->n -= done;
    for (unsigned i = 0; i < done; i++)
        val_live_done(e, tags[i], vals[i], dues[i]);
    return SIM_OK;
}

static void fake_init(fake *f, double pg_lat, double redis_lat)
{
    memset(f, 0, sizeof *f);
    f->pg_lat = pg_lat;
    f->redis_lat = redis_lat;
    f->capacity = 1000000000;
    f->next_id = 100;
}

static int live(const tf_params *p, fake *f, double scale, double per_step, val_live_out *out,
                sim_err *err)
{
    val_live_io io = {f, f_now, f_spin, f_start, f_wait, f_phase_end};
    val_live_opts o;
    val_live_opts_init(&o);
    o.cpu_scale = scale;
    o.cpu_per_step = per_step;
    sim_err_clear(err);
    return val_live_run_io(p, &o, &io, out, err);
}

/* ---- the engine against the simulator ---- */

/* A deterministic system both can run: constant CPU steps (no shape, no
 * crowding), no client or network cost, PostgreSQL statements that cost
 * 0.2137 ms of backend CPU on plenty of cores, no WAL flush and a Redis
 * faster than the loop feeds it (so it never queues).  The latencies are no
 * round multiples of the CPU steps, so that no two events fall on the same
 * instant (where rounding would pick the order). */
static const char det_base[] =
    "[client]\ncpu = 0\ncrowding = 0\nconnect_cpu = 0\npool_cpu = 0\npool_conn_cpu = 0\n"
    "pool_idle_cpu = 0\npool_poll_cpu = 0\npool_yields = 1\nsend_yields = 0\nrecv_yields = 0\n"
    "keepalive_expiry = 0\n"
    "[server]\ncpu_request = 0.4ms\ncpu_webhook = 0.1ms\ncpu_checkout = 0.05ms\ncpu_split = 0.6\n"
    "crowding = 0\naccept_cpu = 0\ncpu_shape = 1\n"
    "[host]\ncores = 4000\nrtt = 0\n"
    "[postgres]\nloop_cpu_query = 0.03ms\nloop_cpu_txn = 0.0813ms\nquery_cpu = 0.2137ms\n"
    "commit_cpu = 0.2137ms\nrow_cost = 0\nflush = 0\njitter = 1\n"
    "[redis]\nservice = 13.1us\nloop_cpu = 0.02ms\npool_turns = 0\n";

static void check_against_sim(const char *arch, const char *extra)
{
    char text[4096];
    snprintf(text, sizeof text, "%s\f[architecture]\n%s\n%s", det_base, arch, extra);
    tf_params p;
    params_ok(text, &p);
    tf_out so;
    sim_err err;
    if (tf_sim_run(&p, 1, 0, &so, &err))
        fail_msg("%s", err.msg);
    fake f;
    fake_init(&f, 0.2137e-3, 13.1e-6);
    val_live_out lo;
    if (live(&p, &f, 1, 0, &lo, &err))
        fail_msg("%s", err.msg);
    /* Same programs, same semantics, no randomness: the same numbers up to
     * rounding. */
    const double tol = 1e-9;
    for (int ph = 0; ph < TF_NPHASES; ph++) {
        if (!p.phase_on[ph]) {
            assert_int_equal(lo.phase_ran[ph], 0);
            continue;
        }
        assert_int_equal(lo.phase_ran[ph], 1);
        assert_close(lo.phase[ph].ok, so.phase[ph].ok, 0);
        assert_rel(lo.phase[ph].throughput, so.phase[ph].throughput, tol);
        assert_rel(lo.phase[ph].walltime, so.phase[ph].walltime, tol);
        assert_rel(lo.phase[ph].mean, so.phase[ph].mean, tol);
    }
    for (int k = 0; k < TF_NKINDS; k++) {
        assert_close(lo.kind_n[k], so.kind_n[k], 0);
        if (so.kind_n[k] > 0)
            assert_rel(lo.kind_mean[k], so.kind_mean[k], tol);
    }
    assert_true(lo.gate_max <= p.gate);
    assert_true(lo.pool_max <= p.pool_size + p.pool_overflow);
    assert_true(lo.inflight_max <= p.concurrency);
    assert_int_equal(lo.wave_overlaps, 0);
    assert_int_equal(f.n, 0);
    tf_params_fini(&p);
}

static void test_same_as_simulator(void **state)
{
    (void)state;
    static const char *const archs[] = {"accounting = pg\npayments = redis",
                                        "accounting = pg\npayments = pg"};
    static const char *const loads[] = {
        "[client]\nconcurrency = 1\ntotal = 40\n",
        "[client]\nconcurrency = 3\ntotal = 50\n",
        /* above the gate: requests queue for permits */
        "[client]\nconcurrency = 25\ntotal = 120\n",
        "[client]\nconcurrency = 6\ntotal = 45\nmode = waves\n",
        "[client]\nconcurrency = 7\ntotal = 45\nmode = window\nphases = webhook,commit\n",
        "[client]\nconcurrency = 12\ntotal = 60\n[postgres]\ngate = 4\npool_size = 2\npool_overflow = 2\n",
        "[client]\nconcurrency = 5\ntotal = 40\n[postgres]\npre_ping = false\n",
        "[client]\nconcurrency = 30\ntotal = 90\nmode = waves\n"};
    for (size_t a = 0; a < 2; a++)
        for (size_t l = 0; l < sizeof loads / sizeof loads[0]; l++)
            check_against_sim(archs[a], loads[l]);
}

/* ---- by hand ---- */

static void test_one_request_by_hand(void **state)
{
    (void)state;
    tf_params p;
    /* reserve only, concurrency 1: a hold is 11 PostgreSQL round trips
     * (SELECT 1, BEGIN, 2 x (capacity, 2 sums, insert), COMMIT) */
    char text[2048];
    snprintf(text, sizeof text, "%s\f[architecture]\naccounting = pg\npayments = redis\n"
             "[client]\nconcurrency = 1\ntotal = 10\nphases = reserve\n", det_base);
    params_ok(text, &p);
    fake f;
    fake_init(&f, 1e-3, 0);
    val_live_out o;
    sim_err err;
    assert_int_equal(live(&p, &f, 1, 0.5e-3, &o, &err), SIM_OK);
    /* CPU steps: pre, txn/2, 11 x query, txn/2, post = 15 steps, each + 0.5 ms */
    double cpu = 0.4e-3 + 0.0813e-3 + 11 * 0.03e-3 + 15 * 0.5e-3;
    double per = cpu + 11 * 1e-3;
    assert_rel(o.phase[TF_RESERVE].throughput, 1 / per, 1e-9);
    assert_rel(o.phase[TF_RESERVE].mean, per, 1e-9);
    /* the hold's timer spans everything but the steps before and after it */
    assert_rel(o.kind_mean[TF_K_HOLD], per - (0.4e-3 * 0.6 + 0.5e-3) - (0.4e-3 * 0.4 + 0.5e-3), 1e-9);
    assert_close(o.kind_n[TF_K_HOLD], 10, 0);
    assert_rel(o.spin, 10 * cpu, 1e-9);
    /* the phase run, and only it, marked once */
    assert_int_equal(f.ends[TF_RESERVE], 1);
    assert_int_equal(f.ends[TF_CHECKOUT] + f.ends[TF_WEBHOOK] + f.ends[TF_COMMIT], 0);
    assert_close(o.calls, 110, 0);
    assert_close(o.call[VAL_LIVE_PG0 + TF_Q_SUM].n, 40, 0);
    assert_close(o.commit_after_sums.n, 10, 0);
    assert_rel(o.commit_after_sums.mean, 1e-3, 1e-9);
    assert_rel(o.call[VAL_LIVE_PG0 + TF_Q_SUM].mean, 1e-3, 1e-9);
    assert_close(o.holds_rows_end, 20, 0);
    tf_params_fini(&p);
}

/* Two requests on one loop: the second's hold timer includes the wait for
 * the loop while the first burns CPU (TigerFans' timers measure that). */
static void test_kind_timer_includes_loop_wait(void **state)
{
    (void)state;
    tf_params p;
    params_ok("[architecture]\naccounting = pg\npayments = redis\n"
              "[client]\nconcurrency = 2\ntotal = 2\nphases = checkout\n"
              "[server]\ncpu_request = 0\ncpu_checkout = 0\n"
              "[postgres]\nloop_cpu_query = 0\nloop_cpu_txn = 0\npre_ping = false\n[redis]\nloop_cpu = 0\n",
              &p);
    fake f;
    fake_init(&f, 0, 0);
    val_live_out o;
    sim_err err;
    /* only the stand-in: every CPU step is 1 ms, every round trip instant.
     * Each request: pre (1) | hold: txn/2 (1), 10 statements (1 each),
     * txn/2 (1) | save: 1 | post (1): 15 ms of loop; the FIFO ready queue
     * alternates the two requests.  A: pre 0-1, hold from 1: txn/2 and
     * BEGIN 1-3; B: pre, txn/2, BEGIN 3-6; then one step each in turn: A's
     * statements end at 7, 9, ..., 21, COMMIT at 23, B's one later; A's
     * txn/2 24-25 ends its hold (24 ms), B's 26-27 (hold from 4: 23 ms):
     * each timer holds its 12 ms of CPU and the waits for the other's steps. */
    assert_int_equal(live(&p, &f, 0, 1e-3, &o, &err), SIM_OK);
    assert_rel(o.phase[TF_CHECKOUT].walltime, 30e-3, 1e-9);
    assert_rel(o.kind_mean[TF_K_HOLD], 23.5e-3, 1e-9);
    assert_close(o.inflight_max, 2, 0);
    tf_params_fini(&p);
}

static void test_orders_post_their_holds(void **state)
{
    (void)state;
    tf_params p;
    char text[2048];
    snprintf(text, sizeof text, "%s\f[architecture]\naccounting = pg\npayments = redis\n"
             "[client]\nconcurrency = 4\ntotal = 30\n", det_base);
    params_ok(text, &p);
    fake f;
    fake_init(&f, 0.1e-3, 0.01e-3);
    val_live_out o;
    sim_err err;
    assert_int_equal(live(&p, &f, 1, 0, &o, &err), SIM_OK);
    /* webhook i posts checkout i's two holds, commit i reserve i's two (one
     * UPDATE each) */
    assert_int_equal(f.posts, 2 * 30 + 2 * 30);
    assert_int_equal(f.bad_posts, 0);
    assert_int_equal(f.orders_with_holds, 30);
    assert_int_equal(f.calls[1][TF_Q_INSERT_TICKET], 60);
    assert_int_equal(f.calls[0][TF_R_SAVE], 30);
    assert_int_equal(f.calls[0][TF_R_FULFILL2], 30);
    tf_params_fini(&p);
    /* PostgreSQL sessions: the webhook posts only the ticket hold */
    snprintf(text, sizeof text, "%s\f[architecture]\naccounting = pg\npayments = pg\n"
             "[client]\nconcurrency = 4\ntotal = 30\n", det_base);
    params_ok(text, &p);
    fake_init(&f, 0.1e-3, 0.01e-3);
    assert_int_equal(live(&p, &f, 1, 0, &o, &err), SIM_OK);
    assert_int_equal(f.posts, 30 + 2 * 30);
    assert_int_equal(f.bad_posts, 0);
    /* the COMMITs after sums are the holds' (checkout and reserve), the
     * others the sessions', commit_order's and add_order's */
    assert_close(o.commit_after_sums.n, o.kind_n[TF_K_HOLD], 0);
    assert_close(o.kind_n[TF_K_HOLD], 60, 0);
    assert_true(o.call[VAL_LIVE_PG0 + TF_Q_COMMIT].n > o.commit_after_sums.n);
    tf_params_fini(&p);
}

static void test_sold_out(void **state)
{
    (void)state;
    tf_params p;
    char text[2048];
    snprintf(text, sizeof text, "%s\f[architecture]\naccounting = pg\npayments = redis\n"
             "[client]\nconcurrency = 3\ntotal = 20\nphases = checkout,reserve\n", det_base);
    params_ok(text, &p);
    fake f;
    fake_init(&f, 0.1e-3, 0.01e-3);
    f.capacity = 0;
    val_live_out o;
    sim_err err;
    assert_int_equal(live(&p, &f, 1, 0, &o, &err), SIM_OK);
    /* nothing left: no inserts, every request an error, no session saved */
    assert_close(o.phase[TF_CHECKOUT].errors, 20, 0);
    assert_close(o.phase[TF_CHECKOUT].ok, 0, 0);
    assert_close(o.phase[TF_RESERVE].errors, 20, 0);
    assert_int_equal(f.calls[1][TF_Q_INSERT_TICKET] + f.calls[1][TF_Q_INSERT_GOODIE], 0);
    assert_int_equal(f.calls[0][TF_R_SAVE], 0);
    assert_close(o.phase[TF_CHECKOUT].throughput, 0, 0);
    tf_params_fini(&p);
}

static void test_failure_keeps_what_was_measured(void **state)
{
    (void)state;
    tf_params p;
    char text[2048];
    snprintf(text, sizeof text, "%s\f[architecture]\naccounting = pg\npayments = redis\n"
             "[client]\nconcurrency = 2\ntotal = 10\n", det_base);
    params_ok(text, &p);
    fake f;
    fake_init(&f, 0.1e-3, 0.01e-3);
    /* checkout: 12 round trips per request; fail in the webhook phase */
    f.fail_at = 12 * 10 + 30;
    val_live_out o;
    sim_err err;
    assert_int_equal(live(&p, &f, 1, 0, &o, &err), SIM_EFAIL);
    assert_non_null(strstr(err.msg, "fake server: gone"));
    assert_int_equal(o.phase_ran[TF_CHECKOUT], 1);
    assert_close(o.phase[TF_CHECKOUT].ok, 10, 0);
    assert_int_equal(o.phase_ran[TF_WEBHOOK], 2);
    assert_true(o.phase[TF_WEBHOOK].ok < 10);
    assert_int_equal(o.phase_ran[TF_RESERVE], 0);
    assert_true(isnan(o.phase[TF_RESERVE].throughput));
    /* the backend marked the complete phase only, after its last call */
    assert_int_equal(f.ends[TF_CHECKOUT], 1);
    assert_true(f.calls_at_end[TF_CHECKOUT] > 0 && f.calls_at_end[TF_CHECKOUT] < f.ncalls);
    assert_int_equal(f.ends[TF_WEBHOOK] + f.ends[TF_RESERVE] + f.ends[TF_COMMIT], 0);
    /* a backend without the servers' counters reports none per phase */
    assert_true(isnan(o.ph_flushes[TF_CHECKOUT]) && isnan(o.ph_wait[TF_CHECKOUT]));

    /* the stop flag: "interrupted", nothing run */
    volatile sig_atomic_t stop = 1;
    fake_init(&f, 0.1e-3, 0.01e-3);
    val_live_io io = {&f, f_now, f_spin, f_start, f_wait, NULL};
    val_live_opts lo;
    val_live_opts_init(&lo);
    lo.stop = &stop;
    sim_err_clear(&err);
    assert_int_equal(val_live_run_io(&p, &lo, &io, &o, &err), SIM_EFAIL);
    assert_string_equal(err.msg, "interrupted");
    tf_params_fini(&p);
}

static void test_rejects(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "[architecture]\naccounting = tb\n",
        "[architecture]\naccounting = pg\n[server]\nworkers = 2\n",
        "[architecture]\naccounting = pg\n[client]\nmode = poisson\n",
        "[architecture]\naccounting = pg\n[client]\nmode = closed\n",
        "[architecture]\naccounting = pg\n[client]\ntotal = 20000000\n"};
    static const char *const why[] = {"TigerBeetle", "workers", "client.mode", "client.mode",
                                      "client.total"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tf_params p;
        params_ok(bad[i], &p);
        sim_err err;
        sim_err_clear(&err);
        assert_int_equal(val_live_check(&p, &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, why[i]));
        fake f;
        fake_init(&f, 0, 0);
        val_live_out o;
        assert_int_equal(live(&p, &f, 1, 0, &o, &err), SIM_EINPUT);
        tf_params_fini(&p);
    }
}

static void test_table(void **state)
{
    (void)state;
    tf_params p;
    char text[2048];
    snprintf(text, sizeof text, "%s\f[architecture]\naccounting = pg\npayments = redis\n"
             "[client]\nconcurrency = 2\ntotal = 10\nphases = checkout,commit\n", det_base);
    params_ok(text, &p);
    fake f;
    fake_init(&f, 0.1e-3, 0.01e-3);
    val_live_out o;
    sim_err err;
    assert_int_equal(live(&p, &f, 1, 0, &o, &err), SIM_OK);
    sim_table *t = sim_table_new(NULL);
    val_live_table(&o, 0, t);
    /* `tfsim run`'s layout with one replication: no _ci columns */
    assert_string_equal(sim_table_col_name(t, 0), "scope");
    assert_string_equal(sim_table_col_name(t, 1), "name");
    assert_string_equal(sim_table_col_name(t, 2), "throughput");
    assert_int_equal(sim_table_find_col(t, "throughput_ci"), -1);
    int cs = sim_table_find_col(t, "scope"), cn = sim_table_find_col(t, "name");
    int ct = sim_table_find_col(t, "throughput"), cm = sim_table_find_col(t, "mean");
    int phases = 0, found_hold = 0;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *scope, *name;
        double v;
        sim_table_cell(t, r, cs, NULL, &scope);
        sim_table_cell(t, r, cn, NULL, &name);
        if (!strcmp(scope, "phase")) {
            phases++;
            assert_int_equal(sim_table_cell(t, r, ct, &v, NULL), 1);
            int ph = !strcmp(name, "checkout") ? TF_CHECKOUT : TF_COMMIT;
            assert_close(v, o.phase[ph].throughput, 0);
        }
        if (!strcmp(scope, "kind") && !strcmp(name, "accounting.hold")) {
            found_hold = 1;
            assert_int_equal(sim_table_cell(t, r, cm, &v, NULL), 1);
            assert_close(v, o.kind_mean[TF_K_HOLD], 0);
        }
    }
    assert_int_equal(phases, 2);
    assert_true(found_hold);
    sim_table_free(t);
    tf_params_fini(&p);
}

/* Redis's CPU counts as this host's only for a server on this machine. */
static void test_redis_local(void **state)
{
    (void)state;
    val_redis_conn c = {0};
    assert_true(val_live_srv_redis_local(&c)); /* default 127.0.0.1 */
    c.socket = "/tmp/redis.sock";
    c.host = "10.1.2.3";
    assert_true(val_live_srv_redis_local(&c));
    c.socket = NULL;
    assert_false(val_live_srv_redis_local(&c));
    const char *local[] = {"localhost", "127.0.0.1", "127.1.2.3", "::1"};
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
        c.host = local[i];
        assert_true(val_live_srv_redis_local(&c));
    }
    const char *remote[] = {"redis.example.org", "192.168.1.5", "1270.0.0.1", "::2"};
    for (size_t i = 0; i < sizeof remote / sizeof remote[0]; i++) {
        c.host = remote[i];
        assert_false(val_live_srv_redis_local(&c));
    }
}

/* ---- compare: the mapping and the analysis ---- */

/* The simulator's CPU steps with the compare overrides are exactly what the
 * live driver spins (s x step + c) plus the driver's own work per round
 * trip (o_rt) before each round trip. */
static void test_overrides_match_the_spin(void **state)
{
    (void)state;
    static const char *const archs[] = {"accounting = pg\npayments = redis\n",
                                        "accounting = pg\npayments = pg\n"};
    double scales[] = {0, 1, 0.5}, steps[] = {0, 1e-3, 0.2e-3};
    for (int a = 0; a < 2; a++) {
        for (int k = 0; k < 3; k++) {
            char text[1024];
            snprintf(text, sizeof text, "[architecture]\n%s", archs[a]);
            tf_params p;
            params_ok(text, &p);
            val_compare_calib cal;
            memset(&cal, 0, sizeof cal);
            cal.o_rt = 7e-6;
            cal.rtt = 2e-6;
            cal.query_cpu = 30e-6;
            cal.pg_on_host = 1;
            cal.redis_on_host = a == 0;
            cal.save_extra = 20e-6;
            cal.commit_wake = 45e-6;
            cal.pg_busy = 0.25 * k;
            cal.flush_wait = 0.1e-3 * k;
            snprintf(cal.flush, sizeof cal.flush, "lognormal(mean=100us, sd=50us)");
            snprintf(cal.redis_service, sizeof cal.redis_service, "exp(mean=12us)");
            char ov[8192];
            val_compare_overrides(&cal, &p, scales[k], steps[k], 1.5, ov, sizeof ov);
            /* apply them */
            char full[12000];
            int n = snprintf(full, sizeof full, "[architecture]\n%s", archs[a]);
            for (const char *s = ov; *s;) {
                const char *e = strchr(s, '\n');
                const char *dot = strchr(s, '.'), *eq = strchr(s, '=');
                n += snprintf(full + n, sizeof full - (size_t)n, "\f[%.*s]\n%.*s = %.*s\n", (int)(dot - s), s,
                              (int)(eq - dot - 1), dot + 1, (int)(e - eq - 1), eq + 1);
                s = e + 1;
            }
            tf_params q;
            params_ok(full, &q);
            assert_close(q.cores, 1.5, 0);
            assert_close(q.client_cpu, 0, 0);
            assert_close(q.pg_query_cpu, 30e-6, 1e-15);
            /* placement and Redis: on the host as measured, the save's extra */
            assert_int_equal(q.redis_on_host, a == 0);
            assert_int_equal(q.wake_affine, 1);
            assert_close(q.redis_save_extra, 20e-6, 1e-15);
            assert_close(q.pg_commit_wake, 45e-6, 1e-15);
            assert_close(q.pg_busy_cost, 0.25 * k, 1e-15);
            assert_close(q.pg_flush_wait, 0.1e-3 * k, 1e-15);
            /* redis-py's connection check is not in the live driver (hiredis):
             * compare simulates without its turns, and the driver's program is
             * the config's without them */
            assert_int_equal(q.redis_pool_turns, 0);
            assert_true(p.redis_pool_turns > 0);
            p.redis_pool_turns = 0;
            tf_prog gl[TF_EP_N], gs[TF_EP_N];
            tf_prog_build(gl, &p);
            tf_prog_build(gs, &q);
            for (int ep = 0; ep < TF_EP_N; ep++) {
                assert_int_equal(gl[ep].n, gs[ep].n);
                for (int i = 0; i < gl[ep].n; i++) {
                    const tf_uop *ul = &gl[ep].u[i], *us = &gs[ep].u[i];
                    assert_int_equal(ul->code, us->code);
                    if (ul->code != TF_U_CPU)
                        continue;
                    int rt = gl[ep].u[i + 1].code == TF_U_PG || gl[ep].u[i + 1].code == TF_U_REDIS;
                    assert_rel(us->cpu, scales[k] * ul->cpu + steps[k] + (rt ? cal.o_rt : 0), 1e-8);
                }
            }
            tf_params_fini(&p);
            tf_params_fini(&q);
        }
    }
}

/* postgres.busy_cost from the two runs' CPU per statement: the loaded
 * run's excess as a share of concurrency 1's, at most 3; nothing when the
 * loaded run is cheaper (a wake-up cost instead), the same, or unknown. */
static void test_compare_busy_cost(void **state)
{
    (void)state;
    assert_close(val_compare_busy_cost(60e-6, 84e-6), 0.4, 1e-12);
    assert_close(val_compare_busy_cost(60e-6, 60e-6), 0, 0);
    assert_close(val_compare_busy_cost(60e-6, 40e-6), 0, 0);
    assert_close(val_compare_busy_cost(10e-6, 100e-6), 3, 0);
    assert_close(val_compare_busy_cost(NAN, 84e-6), 0, 0);
    assert_close(val_compare_busy_cost(60e-6, NAN), 0, 0);
    assert_close(val_compare_busy_cost(0, 84e-6), 0, 0);
}

/* postgres.flush_wait from the two runs' seconds per WAL flush and
 * threads waiting for a CPU: the loaded run's excess time per extra
 * waiting thread, at most 10 ms; nothing when its flushes are as quick or
 * quicker, when hardly more threads wait (under 0.1), or when a figure is
 * unknown (no pg_stat_wal, timing off, no schedstat). */
static void test_compare_flush_wait(void **state)
{
    (void)state;
    assert_close(val_compare_flush_wait(0.16e-3, 0.05, 0.56e-3, 4.05), 0.10e-3, 1e-15);
    assert_close(val_compare_flush_wait(0.16e-3, 0.05, 0.16e-3, 4.05), 0, 0);
    assert_close(val_compare_flush_wait(0.56e-3, 0.05, 0.16e-3, 4.05), 0, 0);
    assert_close(val_compare_flush_wait(0.16e-3, 0.05, 0.56e-3, 0.1), 0, 0);
    assert_close(val_compare_flush_wait(0.1e-3, 0, 50e-3, 1), 10e-3, 0);
    assert_close(val_compare_flush_wait(NAN, 0.05, 0.56e-3, 4), 0, 0);
    assert_close(val_compare_flush_wait(0.16e-3, 0.05, NAN, 4), 0, 0);
    assert_close(val_compare_flush_wait(0.16e-3, NAN, 0.56e-3, 4), 0, 0);
    assert_close(val_compare_flush_wait(0.16e-3, 0.05, 0.56e-3, NAN), 0, 0);
    assert_close(val_compare_flush_wait(0, 0.05, 0.56e-3, 4), 0, 0);
}

/* The WAL flushes and waits the flush price is read from: the complete
 * phases in which Redis's I/O threads wrote nothing (a phase without Redis
 * counts), pooled as sums; the whole run when no phase is known quiet. */
static void test_compare_quiet_flush(void **state)
{
    (void)state;
    val_live_out o;
    memset(&o, 0, sizeof o);
    o.pg_flushes = 100;
    o.pg_flush_time = 50e-3;
    o.elapsed = 10;
    o.loop_wait = 1;
    o.pg_wait = 4;
    const double el[] = {1, 6, 2, 1}, fl[] = {30, 20, 40, 10}, ft[] = {9e-3, 24e-3, 12e-3, 5e-3},
                 wt[] = {4, 0.5, 6, 3}, th[] = {0, 900, NAN, 0};
    const int ran[] = {1, 1, 1, 2};
    for (int i = 0; i < TF_NPHASES; i++) {
        o.phase_ran[i] = ran[i];
        o.ph_elapsed[i] = el[i];
        o.ph_flushes[i] = fl[i];
        o.ph_flush_time[i] = ft[i];
        o.ph_wait[i] = wt[i];
        o.ph_threaded[i] = th[i];
    }
    double f, w;
    /* phases 0 and 2: the webhook (threaded) and the cut-short commit out */
    val_compare_quiet_flush(&o, &f, &w);
    assert_close(f, 21e-3 / 70, 1e-15);
    assert_close(w, 10.0 / 3, 1e-12);
    /* every phase threaded: the whole run */
    o.ph_threaded[0] = o.ph_threaded[2] = 1;
    val_compare_quiet_flush(&o, &f, &w);
    assert_close(f, 0.5e-3, 1e-15);
    assert_close(w, 0.5, 1e-15);
    /* counters unknown (a backend without the servers' counters) */
    for (int i = 0; i < TF_NPHASES; i++)
        o.ph_threaded[i] = o.ph_flushes[i] = o.ph_flush_time[i] = o.ph_wait[i] = o.ph_elapsed[i] = NAN;
    val_compare_quiet_flush(&o, &f, &w);
    assert_close(f, 0.5e-3, 1e-15);
    assert_close(w, 0.5, 1e-15);
    o.pg_flushes = 0;
    val_compare_quiet_flush(&o, &f, &w);
    assert_true(isnan(f));
}

/* Runs pooled for the calibration: sums of the counters and CPU, each
 * round-trip class pooled as if all its round trips were one sample
 * (checked against the mean and sd of the concatenated samples), a class
 * one run lacks taken from the other, NaN kept. */
static void test_compare_pool(void **state)
{
    (void)state;
    static const double xa[] = {1, 2, 3, 4}, xb[] = {10, 20};
    val_live_out r[2];
    memset(r, 0, sizeof r);
    r[0].call[0] = (val_live_cstat){4, 2.5, sqrt(5.0 / 3), 1};
    r[1].call[0] = (val_live_cstat){2, 15, sqrt(50.0), 10};
    r[1].call[1] = (val_live_cstat){3, 7, 1, 6};
    r[0].pg_cpu = 0.5;
    r[1].pg_cpu = 0.25;
    r[0].calls = 100;
    r[1].calls = 50;
    r[0].pg_flushes = 10;
    r[1].pg_flushes = 20;
    r[0].pg_flush_time = 1e-3;
    r[1].pg_flush_time = NAN;
    r[0].elapsed = 1;
    r[1].elapsed = 2;
    r[0].holds_rows_end = 77;
    r[1].holds_rows_end = 99;
    for (int i = 0; i < TF_NPHASES; i++) {
        r[0].ph_elapsed[i] = r[0].ph_flushes[i] = r[0].ph_flush_time[i] = r[0].ph_wait[i] = i + 1;
        r[1].ph_elapsed[i] = r[1].ph_flushes[i] = r[1].ph_flush_time[i] = r[1].ph_wait[i] = 10 * (i + 1);
        r[0].ph_threaded[i] = 0;
        r[1].ph_threaded[i] = i == 1 ? NAN : 5;
    }
    val_live_out p;
    val_compare_pool(r, 2, &p);
    double all[6];
    memcpy(all, xa, sizeof xa);
    memcpy(all + 4, xb, sizeof xb);
    assert_close(p.call[0].n, 6, 0);
    assert_close(p.call[0].mean, gsl_stats_mean(all, 1, 6), 1e-12);
    assert_close(p.call[0].sd, gsl_stats_sd(all, 1, 6), 1e-12);
    assert_close(p.call[0].min, 1, 0);
    assert_close(p.call[1].n, 3, 0);
    assert_close(p.call[1].mean, 7, 0);
    assert_close(p.pg_cpu, 0.75, 1e-15);
    assert_close(p.calls, 150, 0);
    assert_close(p.pg_flushes, 30, 0);
    assert_true(isnan(p.pg_flush_time));
    assert_close(p.elapsed, 3, 0);
    assert_close(p.holds_rows_end, 77, 0);
    for (int i = 0; i < TF_NPHASES; i++) {
        assert_close(p.ph_elapsed[i], 11 * (i + 1), 0);
        assert_close(p.ph_flushes[i], 11 * (i + 1), 0);
        assert_close(p.ph_flush_time[i], 11 * (i + 1), 0);
        assert_close(p.ph_wait[i], 11 * (i + 1), 0);
        if (i == 1)
            assert_true(isnan(p.ph_threaded[i]));
        else
            assert_close(p.ph_threaded[i], 5, 0);
    }
    /* one run: itself */
    val_compare_pool(r, 1, &p);
    assert_close(p.call[0].mean, 2.5, 0);
    assert_close(p.pg_cpu, 0.5, 0);
}

/* The calibration's distribution specs: a lognormal sample less its
 * offset gets a family with the sample's mean; a sample mostly below the
 * offset (the model already charges more than most round trips) and a
 * small one get the constant mean. */
static void test_fit_spec(void **state)
{
    (void)state;
    enum { N = 2000 };
    double x[N];
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    double sum = 0;
    for (int i = 0; i < N; i++) {
        x[i] = 30e-6 + gsl_ran_lognormal(r, log(40e-6), 0.4);
        sum += x[i] - 30e-6;
    }
    char spec[2048];
    sim_err err = {0};
    assert_int_equal(val_compare_fit_spec(x, N, 30e-6, spec, sizeof spec, &err), SIM_OK);
    assert_non_null(strchr(spec, '('));
    sim_dist d;
    char msg[256];
    assert_int_equal(sim_dist_parse(spec, &d, msg, sizeof msg), 0);
    assert_rel(sim_dist_mean(&d), sum / N, 1e-6);
    sim_dist_fini(&d);
    /* 60% of the round trips at or below what the model charges */
    sum = 0;
    for (int i = 0; i < N; i++) {
        x[i] = i % 5 < 3 ? 20e-6 : 30e-6 + gsl_ran_exponential(r, 10e-6);
        sum += fmax(x[i] - 30e-6, 1e-7);
    }
    assert_int_equal(val_compare_fit_spec(x, N, 30e-6, spec, sizeof spec, &err), SIM_OK);
    assert_null(strchr(spec, '('));
    assert_rel(strtod(spec, NULL), sum / N, 1e-6);
    /* too few samples to fit */
    assert_int_equal(val_compare_fit_spec(x, 5, 0, spec, sizeof spec, &err), SIM_OK);
    assert_null(strchr(spec, '('));
    gsl_rng_free(r);
}

static void test_analyse(void **state)
{
    (void)state;
    val_compare c;
    memset(&c, 0, sizeof c);
    long conc[] = {1, 2, 4};
    double live[] = {100, 150, 160}, sim[] = {110, 150, 120};
    c.n = 3;
    c.pts = calloc(3, sizeof *c.pts);
    c.phase_on[TF_RESERVE] = 1;
    for (int i = 0; i < 3; i++) {
        val_compare_point *pt = &c.pts[i];
        pt->concurrency = conc[i];
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            pt->live.phase[ph].throughput = NAN;
            pt->sim[ph] = NAN;
            for (int k = 0; k < TF_NKINDS; k++)
                pt->live.phase_kind_mean[ph][k] = NAN;
        }
        pt->live.phase_ran[TF_RESERVE] = 1;
        pt->live.phase[TF_RESERVE].throughput = live[i];
        pt->sim[TF_RESERVE] = sim[i];
    }
    /* N = 1: R1 = 10 ms, holds take 6 ms: sigma1 = 0.4 */
    c.pts[0].live.phase_kind_mean[TF_RESERVE][TF_K_HOLD] = 6e-3;
    val_compare_analyse(&c, "client.concurrency");
    assert_rel(c.pts[1].amdahl[TF_RESERVE], 100 * 2 / 1.4, 1e-12);
    assert_rel(c.pts[2].amdahl[TF_RESERVE], 100 * 4 / 2.2, 1e-12);
    /* errors 10%, 0%, 25% */
    assert_rel(c.mape, (10 + 0 + 25) / 3.0, 1e-12);
    assert_rel(c.max_err, 25, 1e-12);
    double a1 = fabs(200 / 1.4 - 150) / 150 * 100, a2 = fabs(400 / 2.2 - 160) / 160 * 100;
    assert_rel(c.mape_amdahl, (0 + a1 + a2) / 3, 1e-12);
    /* within 15%: the first two; the third (-25%) outside its live runs'
     * range (one run each: the range is the run), then inside a wider one */
    for (int i = 0; i < 3; i++)
        c.pts[i].live_lo[TF_RESERVE] = c.pts[i].live_hi[TF_RESERVE] = live[i];
    val_compare_analyse(&c, "client.concurrency");
    assert_int_equal(c.npoints, 3);
    assert_int_equal(c.within, 2);
    assert_int_equal(c.beyond, 1);
    c.pts[2].live_lo[TF_RESERVE] = 115;
    c.pts[2].live_hi[TF_RESERVE] = 170;
    val_compare_analyse(&c, "client.concurrency");
    assert_int_equal(c.within, 2);
    assert_int_equal(c.beyond, 0);
    /* another key: no Amdahl */
    val_compare_analyse(&c, "postgres.gate");
    assert_true(isnan(c.pts[1].amdahl[TF_RESERVE]));
    assert_true(isnan(c.mape_amdahl));
    sim_table *t = sim_table_new(NULL);
    val_compare_table(&c, "client.concurrency", t);
    /* 3 points of one phase, then the MAPE of the phase and of all */
    assert_int_equal(sim_table_nrows(t), 5);
    sim_table_free(t);
    val_compare_fini(&c);
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_simulator),
        cmocka_unit_test(test_one_request_by_hand),
        cmocka_unit_test(test_kind_timer_includes_loop_wait),
        cmocka_unit_test(test_orders_post_their_holds),
        cmocka_unit_test(test_sold_out),
        cmocka_unit_test(test_failure_keeps_what_was_measured),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_redis_local),
        cmocka_unit_test(test_overrides_match_the_spin),
        cmocka_unit_test(test_compare_busy_cost),
        cmocka_unit_test(test_compare_flush_wait),
        cmocka_unit_test(test_compare_quiet_flush),
        cmocka_unit_test(test_compare_pool),
        cmocka_unit_test(test_fit_spec),
        cmocka_unit_test(test_analyse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
