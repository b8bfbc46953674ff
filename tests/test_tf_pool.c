/* tf_pool: known sequences (httpcore 1.x's assignment, multi-assignment
 * and retry, keep-alive expiry, the connection lock) and random operation
 * sequences checked against a naive twin that does what httpcore's code
 * does with plain lists (linear scans, a list of connections in creation
 * order). */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "models/tf_pool.h"

/* ---- known answers ---- */

static void test_assign_new_then_idle(void **state)
{
    (void)state;
    tf_pool p;
    tf_pool_init(&p, 3, 4, 5.0);
    tf_pool_req a = {0}, b = {0};
    tf_pool_enter(&p, &a);
    tf_pool_pass(&p, &a, 0);
    assert_int_equal(a.state, TF_PREQ_ASSIGNED);
    assert_int_equal(a.conn, 0);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.nwoken, 0); /* the caller is not woken */
    /* a NEW connection is not handed to anyone else */
    tf_pool_enter(&p, &b);
    tf_pool_pass(&p, &b, 0);
    assert_int_equal(b.conn, 1);
    assert_int_equal(p.n, 2);
    assert_int_equal(tf_pool_lock(&p, &a), 1);
    assert_int_equal(tf_pool_claim(&p, &a), 2); /* connect first */
    assert_null(tf_pool_unlock(&p, 0));
    tf_pool_release(&p, &a, 1.0);
    assert_int_equal(p.idle, 1);
    assert_int_equal(a.state, TF_PREQ_OUT);
    tf_pool_fini(&p);
}

static void test_multi_assignment_and_retry(void **state)
{
    (void)state;
    tf_pool p;
    tf_pool_init(&p, 2, 4, 0);
    tf_pool_req a = {0}, b = {0}, c = {0};
    /* two connections, both idle */
    tf_pool_enter(&p, &a);
    tf_pool_pass(&p, &a, 0);
    tf_pool_enter(&p, &b);
    tf_pool_pass(&p, &b, 0);
    tf_pool_lock(&p, &a);
    tf_pool_claim(&p, &a);
    tf_pool_unlock(&p, a.conn);
    tf_pool_lock(&p, &b);
    tf_pool_claim(&p, &b);
    tf_pool_unlock(&p, b.conn);
    tf_pool_release(&p, &a, 0);
    tf_pool_release(&p, &b, 0);
    assert_int_equal(p.idle, 2);
    /* b and c both get connection 0 (the first IDLE): it stays IDLE until claimed */
    tf_pool_enter(&p, &b);
    tf_pool_pass(&p, &b, 0);
    tf_pool_enter(&p, &c);
    tf_pool_pass(&p, &c, 0);
    assert_int_equal(b.conn, 0);
    assert_int_equal(c.conn, 0);
    /* they check it one after the other */
    assert_int_equal(tf_pool_lock(&p, &b), 1);
    assert_int_equal(tf_pool_lock(&p, &c), 0);
    assert_int_equal(tf_pool_claim(&p, &b), 1);
    assert_ptr_equal(tf_pool_unlock(&p, 0), &c); /* c now holds the lock */
    assert_int_equal(tf_pool_claim(&p, &c), 0);  /* ConnectionNotAvailable */
    assert_int_equal(c.state, TF_PREQ_QUEUED);
    assert_int_equal(c.retries, 1);
    assert_null(tf_pool_unlock(&p, 0));
    tf_pool_pass(&p, &c, 0);
    assert_int_equal(c.conn, 1); /* the next IDLE one */
    assert_int_equal(p.retries, 1);
    tf_pool_fini(&p);
}

static void test_queue_order_and_wake(void **state)
{
    (void)state;
    tf_pool p;
    tf_pool_init(&p, 1, 1, 0); /* the queue must grow past 1 */
    tf_pool_req r[4] = {{0}};
    for (int i = 0; i < 4; i++) {
        tf_pool_enter(&p, &r[i]);
        tf_pool_pass(&p, &r[i], 0);
    }
    assert_int_equal(r[0].state, TF_PREQ_ASSIGNED);
    for (int i = 1; i < 4; i++)
        assert_int_equal(r[i].state, TF_PREQ_QUEUED);
    tf_pool_lock(&p, &r[0]);
    tf_pool_claim(&p, &r[0]);
    tf_pool_unlock(&p, 0);
    tf_pool_release(&p, &r[0], 0);
    /* a pass at the response hands the connection to every queued request
     * (they all see it IDLE), in pool order */
    tf_pool_pass(&p, NULL, 0);
    assert_int_equal(p.nwoken, 3);
    for (int i = 0; i < 3; i++)
        assert_ptr_equal(p.woken[i], &r[i + 1]);
    tf_pool_fini(&p);
}

static void test_keepalive_expiry(void **state)
{
    (void)state;
    tf_pool p;
    tf_pool_init(&p, 4, 4, 5.0);
    tf_pool_req r[3] = {{0}};
    for (int i = 0; i < 3; i++) {
        tf_pool_enter(&p, &r[i]);
        tf_pool_pass(&p, &r[i], 0);
        tf_pool_lock(&p, &r[i]);
        tf_pool_claim(&p, &r[i]);
        tf_pool_unlock(&p, r[i].conn);
    }
    tf_pool_release(&p, &r[1], 1.0);
    tf_pool_release(&p, &r[0], 2.0);
    tf_pool_release(&p, &r[2], 7.5);
    tf_pool_pass(&p, NULL, 6.0); /* connection 1 idled since 1.0: expired */
    assert_int_equal(p.n, 2);
    assert_int_equal(p.idle, 2);
    assert_int_equal(p.expired, 1);
    tf_pool_pass(&p, NULL, 7.0); /* connection 0: since 2.0 */
    assert_int_equal(p.n, 1);
    /* a new request gets the only IDLE one, connection 2 */
    tf_pool_req x = {0};
    tf_pool_enter(&p, &x);
    tf_pool_pass(&p, &x, 7.6);
    assert_int_equal(x.conn, 2);
    tf_pool_fini(&p);
}

/* ---- random sequences against a naive twin ---- */

#define NR 24
#define MAXC 64

typedef struct twin_req {
    int state;
    long conn;
    unsigned long seq;
} twin_req;

typedef struct twin {
    long max;
    double expiry;
    int st[MAXC * 8];        /* by creation index */
    double since[MAXC * 8];  /* release time of an IDLE one */
    unsigned long rel[MAXC * 8]; /* release order of an IDLE one */
    unsigned long relseq;
    long created;
    unsigned long seq;
    twin_req r[NR];
    int mru;                 /* httpcore 0.16: a Python-like list, most recent first */
    long order[MAXC * 8];
    long norder;
} twin;

static void twin_order_pop(twin *t, long idx)
{
    for (long j = idx; j + 1 < t->norder; j++)
        t->order[j] = t->order[j + 1];
    t->norder--;
}

static void twin_order_insert0(twin *t, long k)
{
    for (long j = t->norder; j > 0; j--)
        t->order[j] = t->order[j - 1];
    t->order[0] = k;
    t->norder++;
}

static long twin_open(const twin *t)
{
    long n = 0;
    for (long k = 0; k < t->created; k++)
        n += t->st[k] != TF_CONN_CLOSED;
    return n;
}

static void twin_expire(twin *t, double now)
{
    /* expire the IDLE connections whose keep-alive ran out */
    for (long k = 0; k < t->created; k++)
        if (t->expiry > 0 && t->st[k] == TF_CONN_IDLE && t->since[k] + t->expiry <= now) {
            t->st[k] = TF_CONN_CLOSED;
            for (long j = 0; j < t->norder; j++)
                if (t->order[j] == k) {
                    twin_order_pop(t, j);
                    break;
                }
        }
}

/* The queued request with the lowest seq, -1: none. */
static int twin_head(const twin *t)
{
    int best = -1;
    for (int i = 0; i < NR; i++)
        if (t->r[i].state == TF_PREQ_QUEUED && (best < 0 || t->r[i].seq < t->r[best].seq))
            best = i;
    return best;
}

/* httpcore's attempt for request i: 1.x the first IDLE in creation order;
 * 0.16 the first IDLE in its list, moved to the front; else a new one. */
static int twin_assign(twin *t, int i)
{
    long k = -1;
    if (t->mru) {
        for (long j = 0; j < t->norder && k < 0; j++)
            if (t->st[t->order[j]] == TF_CONN_IDLE) {
                k = t->order[j];
                twin_order_pop(t, j);
                twin_order_insert0(t, k);
            }
    } else {
        for (long j = 0; j < t->created && k < 0; j++)
            if (t->st[j] == TF_CONN_IDLE)
                k = j;
    }
    if (k < 0) {
        if (twin_open(t) >= t->max)
            return 0;
        k = t->created++;
        t->st[k] = TF_CONN_NEW;
        if (t->mru)
            twin_order_insert0(t, k);
    }
    t->r[i].conn = k;
    t->r[i].state = TF_PREQ_ASSIGNED;
    return 1;
}

static void twin_pass(twin *t, int caller, double now, int *woken, int *nwoken)
{
    twin_expire(t, now);
    *nwoken = 0;
    for (;;) {
        int best = twin_head(t);
        if (best < 0 || !twin_assign(t, best))
            return;
        if (best != caller)
            woken[(*nwoken)++] = best;
    }
}

/* 0.16's pass for one request: it alone, and only when first in line. */
static int twin_pass_one(twin *t, int i, double now)
{
    twin_expire(t, now);
    return twin_head(t) == i && twin_assign(t, i);
}

static long live_of(const tf_pool_req *r)
{
    long n = 0;
    for (int i = 0; i < NR; i++)
        n += r[i].state != TF_PREQ_OUT;
    return n;
}

static void random_against_twin(int mru)
{
    srand(7);
    for (int round = 0; round < 200; round++) {
        long max = 1 + rand() % 8;
        double expiry = (rand() % 3) ? 3.0 : 0.0;
        tf_pool p;
        tf_pool_init(&p, max, 2, expiry);
        tf_pool_set_mru(&p, mru);
        twin t;
        memset(&t, 0, sizeof t);
        t.mru = mru;
        t.max = max;
        t.expiry = expiry;
        tf_pool_req r[NR];
        memset(r, 0, sizeof r);
        double now = 0;
        for (int step = 0; step < 400; step++) {
            now += (rand() % 100) / 100.0;
            int i = rand() % NR;
            int woken[NR], nw = -1;
            switch (rand() % 4) {
            case 0: /* a request starts */
                if (r[i].state != TF_PREQ_OUT)
                    break;
                tf_pool_enter(&p, &r[i]);
                t.r[i].state = TF_PREQ_QUEUED;
                t.r[i].seq = t.seq++;
                t.r[i].conn = -1;
                if (mru) { /* 0.16: a start's pass is for that request alone */
                    int want = twin_pass_one(&t, i, now);
                    assert_int_equal(tf_pool_pass_one(&p, &r[i], now), want);
                } else {
                    tf_pool_pass(&p, &r[i], now);
                    twin_pass(&t, i, now, woken, &nw);
                }
                break;
            case 1: /* an assigned request checks its connection (lock held alone) */
                if (r[i].state != TF_PREQ_ASSIGNED)
                    break;
                {
                    long k = r[i].conn;
                    assert_int_equal(tf_pool_lock(&p, &r[i]), 1);
                    int rc = tf_pool_claim(&p, &r[i]);
                    assert_null(tf_pool_unlock(&p, k));
                    int ts = t.st[k];
                    int want = ts == TF_CONN_NEW ? 2 : ts == TF_CONN_IDLE ? 1 : 0;
                    assert_int_equal(rc, want);
                    if (want) {
                        t.st[k] = TF_CONN_ACTIVE;
                        t.r[i].state = TF_PREQ_ACTIVE;
                    } else {
                        if (mru)
                            assert_int_equal(r[i].state, TF_PREQ_RETRY);
                        t.r[i].state = TF_PREQ_QUEUED; /* keeps its seq */
                        t.r[i].conn = -1;
                        if (mru) {
                            int want1 = twin_pass_one(&t, i, now);
                            assert_int_equal(tf_pool_pass_one(&p, &r[i], now), want1);
                        } else {
                            tf_pool_pass(&p, &r[i], now);
                            twin_pass(&t, i, now, woken, &nw);
                        }
                    }
                }
                break;
            case 2: /* a response is read */
                if (r[i].state != TF_PREQ_ACTIVE)
                    break;
                t.st[r[i].conn] = TF_CONN_IDLE;
                t.since[r[i].conn] = now;
                t.rel[r[i].conn] = t.relseq++;
                t.r[i].state = TF_PREQ_OUT;
                t.r[i].conn = -1;
                tf_pool_release(&p, &r[i], now);
                tf_pool_pass(&p, NULL, now);
                twin_pass(&t, -1, now, woken, &nw);
                break;
            default: /* a pass with nothing new */
                tf_pool_pass(&p, NULL, now);
                twin_pass(&t, -1, now, woken, &nw);
                break;
            }
            /* same pool, same requests, same wake-ups */
            assert_int_equal(p.n, twin_open(&t));
            long idle = 0;
            for (long k = 0; k < t.created; k++)
                idle += t.st[k] == TF_CONN_IDLE;
            assert_int_equal(p.idle, idle);
            assert_int_equal(p.created, t.created);
            for (int j = 0; j < NR; j++) {
                assert_int_equal(r[j].state, t.r[j].state);
                assert_int_equal(r[j].conn, t.r[j].conn);
            }
            assert_int_equal(p.live, live_of(r));
            if (mru) { /* the same list, most recently assigned first */
                assert_int_equal(t.norder, p.n);
                for (long j = 0; j < t.norder; j++)
                    assert_int_equal(p.order[j], t.order[j]);
            }
            if (nw >= 0) { /* a pass ran: the same requests woken, in order */
                assert_int_equal(p.nwoken, nw);
                for (int j = 0; j < nw; j++)
                    assert_ptr_equal(p.woken[j], &r[woken[j]]);
            }
        }
        tf_pool_fini(&p);
    }
}

static void test_random_against_twin(void **state)
{
    (void)state;
    random_against_twin(0);
}

static void test_random_against_twin_mru(void **state)
{
    (void)state;
    random_against_twin(1);
}

/* 0.16's order: a reused connection moves to the front; a start's pass
 * assigns only its own request, and only when nobody waits before it. */
static void test_mru_known(void **state)
{
    (void)state;
    tf_pool p;
    tf_pool_init(&p, 2, 4, 0);
    tf_pool_set_mru(&p, 1);
    tf_pool_req a = {0}, b = {0}, c = {0}, d = {0};
    tf_pool_enter(&p, &a);
    assert_int_equal(tf_pool_pass_one(&p, &a, 0), 1);
    tf_pool_enter(&p, &b);
    assert_int_equal(tf_pool_pass_one(&p, &b, 0), 1);
    assert_int_equal(p.order[0], 1); /* the newest in front */
    assert_int_equal(p.order[1], 0);
    for (tf_pool_req *x = &a; x; x = x == &a ? &b : NULL) {
        tf_pool_lock(&p, x);
        tf_pool_claim(&p, x);
        tf_pool_unlock(&p, x->conn);
    }
    tf_pool_release(&p, &a, 0);
    tf_pool_release(&p, &b, 0);
    assert_int_equal(p.live, 0);
    /* both IDLE: c gets the front one (1); 1.x would give 0 */
    tf_pool_enter(&p, &c);
    assert_int_equal(tf_pool_pass_one(&p, &c, 0), 1);
    assert_int_equal(c.conn, 1);
    /* d too (1 stays IDLE until c claims it) */
    tf_pool_enter(&p, &d);
    assert_int_equal(tf_pool_pass_one(&p, &d, 0), 1);
    assert_int_equal(d.conn, 1);
    tf_pool_lock(&p, &c);
    assert_int_equal(tf_pool_claim(&p, &c), 1);
    tf_pool_unlock(&p, 1);
    tf_pool_lock(&p, &d);
    assert_int_equal(tf_pool_claim(&p, &d), 0); /* ConnectionNotAvailable */
    tf_pool_unlock(&p, 1);
    assert_int_equal(tf_pool_pass_one(&p, &d, 0), 1);
    assert_int_equal(d.conn, 0);
    assert_int_equal(p.order[0], 0);
    assert_int_equal(p.live, 2);
    tf_pool_fini(&p);
}

/* A request waiting before another keeps it from a start's pass. */
static void test_mru_strict_order(void **state)
{
    (void)state;
    tf_pool p;
    tf_pool_init(&p, 1, 4, 0);
    tf_pool_set_mru(&p, 1);
    tf_pool_req a = {0}, b = {0}, c = {0};
    tf_pool_enter(&p, &a);
    assert_int_equal(tf_pool_pass_one(&p, &a, 0), 1);
    tf_pool_enter(&p, &b);
    assert_int_equal(tf_pool_pass_one(&p, &b, 0), 0); /* full */
    tf_pool_lock(&p, &a);
    tf_pool_claim(&p, &a);
    tf_pool_unlock(&p, 0);
    tf_pool_release(&p, &a, 0);
    tf_pool_enter(&p, &c);
    assert_int_equal(tf_pool_pass_one(&p, &c, 0), 0); /* b waits before it */
    tf_pool_pass(&p, NULL, 0);                        /* the response's pass */
    /* it walks every waiting request: b, then c, both get the IDLE one */
    assert_int_equal(p.nwoken, 2);
    assert_ptr_equal(p.woken[0], &b);
    assert_ptr_equal(p.woken[1], &c);
    assert_int_equal(b.conn, 0);
    assert_int_equal(c.conn, 0);
    tf_pool_fini(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assign_new_then_idle),
        cmocka_unit_test(test_multi_assignment_and_retry),
        cmocka_unit_test(test_queue_order_and_wake),
        cmocka_unit_test(test_keepalive_expiry),
        cmocka_unit_test(test_random_against_twin),
        cmocka_unit_test(test_random_against_twin_mru),
        cmocka_unit_test(test_mru_known),
        cmocka_unit_test(test_mru_strict_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
