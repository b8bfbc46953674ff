/* Tests of val_probe's phase loop (val_probe_loop_*), driven by a fake
 * probe whose connections are socket pairs: starting an operation writes
 * its one-byte "reply" to the far end, unless the test keeps a connection
 * silent. */
#include "tests/test_util.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "validate/val_probe.h"
#include "validate/val_probe_redis.h"

#define NC 3

typedef struct fconn {
    val_probe_conn s;
    int far;          /* the "server" end of the socket pair */
} fconn;
_Static_assert(offsetof(fconn, s) == 0, "the phase loop finds its val_probe_conn at the start");

typedef struct fake {
    val_probe_opts o;
    val_probe_loop l;
    val_probe_result *res;
    fconn k[NC];
    int silent;       /* connection that never gets a reply, or -1 */
    int fail_ready;   /* ready callback fails on its first call */
    volatile sig_atomic_t stop;  /* o->stop; set by the first ready callback if stop_in_ready */
    int stop_in_ready;
    unsigned starts;  /* start callbacks seen */
    /* progress callback */
    char op[64];
    uint64_t n;
    double wall;
} fake;

static int fake_start(val_probe_loop *l, unsigned i, sim_err *err)
{
    (void)err;
    fake *f = l->ctx;
    f->starts++;
    if ((int)i != f->silent)
        assert_int_equal(write(f->k[i].far, "r", 1), 1);
    return SIM_OK;
}

static int fake_ready(val_probe_loop *l, unsigned i, short revents, sim_err *err)
{
    fake *f = l->ctx;
    assert_true(f->k[i].s.busy);
    assert_true(revents & POLLIN);
    if (f->fail_ready)
        return sim_err_set(err, SIM_EFAIL, "%s: connection %u: broken", l->where, i);
    if (f->stop_in_ready)
        f->stop = 1;
    char c;
    assert_int_equal(read(f->k[i].s.fd, &c, 1), 1);
    return val_probe_loop_done(l, i, val_probe_mono(), err);
}

static void fake_progress(void *ctx, const char *op, unsigned level, uint64_t n, double wall_s)
{
    fake *f = ctx;
    (void)level;
    snprintf(f->op, sizeof f->op, "%s", op);
    f->n = n;
    f->wall = wall_s;
}

static const char *const fake_ops[] = {"first.op", "second.op"};

/* A fake probe with NC connected socket pairs; options: count 10, warmup 2. */
static void fake_init(fake *f)
{
    memset(f, 0, sizeof *f);
    f->silent = -1;
    for (int i = 0; i < NC; i++) {
        int sv[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        f->k[i].s.fd = sv[0];
        f->k[i].far = sv[1];
    }
    val_probe_opts_init(&f->o);
    f->o.count = 10;
    f->o.warmup = 2;
    f->o.progress = fake_progress;
    f->o.progress_ctx = f;
    f->res = val_probe_result_new();
    f->l = (val_probe_loop){.o = &f->o, .res = f->res, .where = "fake at here", .kind = "fake",
                          .ops = fake_ops, .ctx = f, .conns = f->k, .conn_size = sizeof f->k[0], .start = fake_start,
                          .ready = fake_ready};
}

static void fake_fini(fake *f)
{
    for (int i = 0; i < NC; i++) {
        close(f->k[i].s.fd);
        close(f->k[i].far);
    }
    val_probe_result_free(f->res);
}

/* Every operation is started, completed and counted; the warm-up ones are
 * not recorded; the phase is named <kind>.<op>. */
static void test_loop_phase_counts(void **state)
{
    (void)state;
    fake f;
    fake_init(&f);
    sim_err err = {0};
    uint64_t issued = 0;
    assert_int_equal(val_probe_loop_phase(&f.l, 1, NC, &issued, &err), SIM_OK);
    assert_int_equal(issued, 12);
    assert_int_equal(f.starts, 12);
    assert_int_equal(f.l.ndone, 12);
    assert_int_equal(f.l.busy, 0);
    assert_string_equal(f.op, "fake.second.op");
    assert_int_equal(f.n, 10);
    assert_true(f.wall > 0);
    for (int i = 0; i < NC; i++)
        assert_false(f.k[i].s.busy);
    /* a second phase counts on from the first */
    assert_int_equal(val_probe_loop_phase(&f.l, 0, 2, &issued, &err), SIM_OK);
    assert_int_equal(issued, 12);
    assert_int_equal(f.l.ndone, 24);
    assert_string_equal(f.op, "fake.first.op");
    sim_table *t = val_probe_table(f.res, NULL);
    assert_int_equal(sim_table_nrows(t), 2);
    sim_table_free(t);
    fake_fini(&f);
}

/* A connection that gets no reply fails the phase at its deadline, with
 * the server, the connection and the operation named. */
static void test_loop_phase_timeout(void **state)
{
    (void)state;
    fake f;
    fake_init(&f);
    f.silent = 1;
    f.o.timeout = 0.05;
    sim_err err = {0};
    uint64_t issued = 0;
    assert_int_equal(val_probe_loop_phase(&f.l, 0, NC, &issued, &err), SIM_EFAIL);
    assert_string_equal(err.msg, "fake at here: connection 1: no reply within 0.05 s to first.op after "
                                 "11 operations (server not answering)");
    assert_int_equal(issued, 12);
    assert_string_equal(f.op, "");  /* no phase summary for a failed phase */
    fake_fini(&f);
}

/* The stop flag, set while operations are in flight, ends the phase with
 * "interrupted"; a callback's error comes back as it is. */
static void test_loop_phase_stop_and_errors(void **state)
{
    (void)state;
    fake f;
    fake_init(&f);
    f.stop_in_ready = 1;
    f.o.stop = &f.stop;
    sim_err err = {0};
    uint64_t issued = 0;
    assert_int_equal(val_probe_loop_phase(&f.l, 0, NC, &issued, &err), SIM_EFAIL);
    assert_string_equal(err.msg, "interrupted");
    assert_in_range(f.l.ndone, 1, NC);  /* those in flight complete, no new ones start */
    fake_fini(&f);

    fake_init(&f);
    f.fail_ready = 1;
    sim_err_clear(&err);
    assert_int_equal(val_probe_loop_phase(&f.l, 0, NC, &issued, &err), SIM_EFAIL);
    assert_string_equal(err.msg, "fake at here: connection 0: broken");
    assert_int_equal(f.l.ndone, 0);
    fake_fini(&f);
}

/* --concurrency auto: around the threshold of the I/O threads (2N clients
 * pending), the default levels without threads. */
static void test_redis_auto_levels(void **state)
{
    (void)state;
    unsigned lv[8];
    assert_int_equal(val_probe_redis_auto_levels(4, lv), 5);
    unsigned want4[] = {1, 7, 8, 16, 32};
    for (int i = 0; i < 5; i++)
        assert_int_equal(lv[i], want4[i]);
    assert_int_equal(val_probe_redis_auto_levels(2, lv), 5);
    assert_int_equal(lv[1], 3);
    assert_int_equal(lv[2], 4);
    assert_int_equal(val_probe_redis_auto_levels(1, lv), 4);
    assert_int_equal(lv[3], 64);
    assert_int_equal(val_probe_redis_auto_levels(0, lv), 4); /* unknown */
    assert_int_equal(val_probe_redis_auto_levels(128, lv), 5);
    assert_true(lv[4] <= VAL_PROBE_MAX_CONC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_phase_counts),
        cmocka_unit_test(test_loop_phase_timeout),
        cmocka_unit_test(test_loop_phase_stop_and_errors),
        cmocka_unit_test(test_redis_auto_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
