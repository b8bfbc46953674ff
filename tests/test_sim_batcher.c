/* Tests for sim_batcher: one batch in flight, queued submissions go out
 * together in the next batch, the cap (never splitting a submission),
 * FIFO callbacks, statistics, callbacks that submit again. */
#include "tests/test_util.h"

#include "sim/sim_batcher.h"

typedef struct world {
    sim s;
    sim_batcher b;
    double latency;          /* per batch */
    unsigned sizes[256];     /* items per launched batch */
    int nbatches;
    unsigned done_items[256]; /* on_done hook */
    double done_lat[256];
    int ndone_hook;
    int order[1024];         /* submission ids in callback order */
    double when[1024];
    int ndone;
    int resubmit;            /* callbacks submit again while > 0 */
} world;

typedef struct sub {
    world *w;
    int id;
    unsigned items;
    double t;
} sub;

static double latency_fn(void *ctx, unsigned items)
{
    world *w = ctx;
    assert_true(items >= 1 && items <= w->b.cap);
    w->sizes[w->nbatches++] = items;
    return w->latency;
}

static void on_batch_done(void *ctx, unsigned items, double latency)
{
    world *w = ctx;
    w->done_items[w->ndone_hook] = items;
    w->done_lat[w->ndone_hook++] = latency;
}

static void done(sim *s, void *obj)
{
    sub *x = obj;
    world *w = x->w;
    w->order[w->ndone] = x->id;
    w->when[w->ndone++] = s->now;
    if (w->resubmit > 0) {
        w->resubmit--;
        sim_batcher_submit(&w->b, s, x, x->items, done);
    }
}

static void submit_ev(sim *s, void *obj)
{
    sub *x = obj;
    sim_batcher_submit(&x->w->b, s, x, x->items, done);
    assert_true(x->w->b.busy);
    assert_true(x->w->b.flight_items <= x->w->b.cap);
}

static void world_init(world *w, unsigned cap, double latency)
{
    memset(w, 0, sizeof *w);
    sim_init(&w->s, 16);
    sim_batcher_init(&w->b, cap, latency_fn, w);
    w->b.on_done = on_batch_done;
    w->latency = latency;
}

static void world_fini(world *w)
{
    sim_batcher_fini(&w->b);
    sim_fini(&w->s);
}

static void schedule(world *w, sub *x, int n)
{
    for (int i = 0; i < n; i++) {
        x[i].w = w;
        x[i].id = i;
        sim_at(&w->s, x[i].t, 0, submit_ev, &x[i]);
    }
}

/* One submission at 0 goes out alone; k = 5 arriving while it is in
 * flight all go in the next batch, at 1, done at 2. */
static void test_queue_goes_together(void **state)
{
    (void)state;
    world w;
    world_init(&w, 100, 1.0);
    sub x[6] = {{.t = 0, .items = 2}, {.t = 0.1, .items = 2}, {.t = 0.2, .items = 2},
                {.t = 0.3, .items = 2}, {.t = 0.4, .items = 2}, {.t = 0.5, .items = 2}};
    schedule(&w, x, 6);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.nbatches, 2);
    assert_int_equal(w.sizes[0], 2);
    assert_int_equal(w.sizes[1], 10);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(w.order[i], i);
        assert_close(w.when[i], i == 0 ? 1 : 2, 0);
    }
    assert_int_equal(w.b.batches, 2);
    assert_close(w.b.size.mean, 6, 1e-12);
    assert_close(w.b.subs.mean, 3, 1e-12);
    assert_int_equal(w.ndone_hook, 2);
    assert_int_equal(w.done_items[1], 10);
    assert_close(w.done_lat[1], 1, 1e-12);
    assert_false(w.b.busy);
    world_fini(&w);
}

/* Cap 10 with submissions of 3 items: batches of at most 3 submissions
 * (9 items); a 4-item one that does not fit waits for the next batch
 * rather than being split or overtaken. */
static void test_cap(void **state)
{
    (void)state;
    world w;
    world_init(&w, 10, 1.0);
    /* first alone; then 3,3,3 fit (9), 4 does not; then 4 + 3 + 3 = 10 */
    sub x[] = {{.t = 0, .items = 3},   {.t = 0.1, .items = 3}, {.t = 0.2, .items = 3},
               {.t = 0.3, .items = 3}, {.t = 0.4, .items = 4}, {.t = 0.5, .items = 3},
               {.t = 0.6, .items = 3}, {.t = 0.7, .items = 1}};
    int n = (int)(sizeof x / sizeof x[0]);
    schedule(&w, x, n);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.nbatches, 4);
    assert_int_equal(w.sizes[0], 3);
    assert_int_equal(w.sizes[1], 9);
    assert_int_equal(w.sizes[2], 10);
    assert_int_equal(w.sizes[3], 1);
    for (int i = 0; i < n; i++)
        assert_int_equal(w.order[i], i); /* FIFO */
    static const double when[] = {1, 2, 2, 2, 3, 3, 3, 4};
    for (int i = 0; i < n; i++)
        assert_close(w.when[i], when[i], 0);
    assert_close(w.b.size.max, 10, 0);
    world_fini(&w);
}

/* A submission of exactly cap items goes alone. */
static void test_full_submission(void **state)
{
    (void)state;
    world w;
    world_init(&w, 4, 0.5);
    sub x[] = {{.t = 0, .items = 1}, {.t = 0.1, .items = 4}, {.t = 0.2, .items = 1}};
    schedule(&w, x, 3);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.nbatches, 3);
    assert_int_equal(w.sizes[1], 4);
    assert_int_equal(w.sizes[2], 1);
    world_fini(&w);
}

/* Callbacks that submit again (a closed loop of 4 clients, 1 item each,
 * 3 rounds).  The next batch is sent before the callbacks run, so a
 * client that resubmits from its callback waits for the batch after:
 * batch sizes alternate 1, 3, 1, 3, ... */
static void test_resubmit_from_callback(void **state)
{
    (void)state;
    world w;
    world_init(&w, 100, 1.0);
    sub x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (sub){.t = 0, .items = 1};
    w.resubmit = 8;
    schedule(&w, x, 4);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.ndone, 12);
    assert_int_equal(w.nbatches, 6);
    static const unsigned sizes[] = {1, 3, 1, 3, 1, 3};
    for (int i = 0; i < 6; i++)
        assert_int_equal(w.sizes[i], sizes[i]);
    /* client 0 every other batch, clients 1-3 together in the others */
    static const int order[] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
    for (int i = 0; i < 12; i++)
        assert_int_equal(w.order[i], order[i]);
    assert_close(w.s.now, 6, 0);
    world_fini(&w);
}

/* With nothing queued when a batch completes, a resubmission from the
 * callback starts the next batch at once (zero latency included: the
 * batch still completes in a later event). */
static void test_resubmit_idle(void **state)
{
    (void)state;
    world w;
    world_init(&w, 8, 0.0);
    sub x[1] = {{.t = 0, .items = 2}};
    w.resubmit = 4;
    schedule(&w, x, 1);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    assert_int_equal(w.nbatches, 5);
    assert_int_equal(w.ndone, 5);
    assert_close(w.s.now, 0, 0);
    assert_int_equal(w.b.batches, 5);
    sim_batcher_reset_stats(&w.b);
    assert_int_equal(w.b.batches, 0);
    assert_int_equal(w.b.size.n, 0);
    world_fini(&w);
}

/* Many submissions at one instant: the first goes alone, the rest follow
 * in cap-sized batches, in order. */
static void test_burst(void **state)
{
    (void)state;
    world w;
    world_init(&w, 16, 1.0);
    static sub x[100];
    for (int i = 0; i < 100; i++)
        x[i] = (sub){.t = 0, .items = 1 + (unsigned)(i % 3)};
    schedule(&w, x, 100);
    assert_int_equal(sim_run(&w.s, INFINITY), SIM_RUN_EMPTY);
    unsigned total = 0;
    for (int i = 0; i < w.nbatches; i++) {
        assert_true(w.sizes[i] <= 16);
        total += w.sizes[i];
    }
    assert_int_equal(total, 199); /* 34*1 + 33*2 + 33*3 */
    for (int i = 0; i < 100; i++)
        assert_int_equal(w.order[i], i);
    /* greedy packing never leaves room for the next submission */
    assert_int_equal(w.sizes[0], 1);
    for (int i = 1; i + 1 < w.nbatches; i++)
        assert_true(w.sizes[i] >= 14);
    world_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_goes_together),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_full_submission),
        cmocka_unit_test(test_resubmit_from_callback),
        cmocka_unit_test(test_resubmit_idle),
        cmocka_unit_test(test_burst),
    };
    return cmocka_run_group_tests_name("sim_batcher", tests, NULL, NULL);
}
