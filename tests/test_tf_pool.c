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
} twin;

static long twin_open(const twin *t)
{
    long n = 0;
    for (long k = 0; k < t->created; k++)
        n += t->st[k] != TF_CONN_CLOSED;
    return n;
}

static void twin_pass(twin *t, int caller, double now, int *woken, int *nwoken)
{
    (void)caller;
    /* expire the IDLE connections whose keep-alive ran out */
    for (long k = 0; k < t->created; k++)
        if (t->expiry > 0 && t->st[k] == TF_CONN_IDLE && t->since[k] + t->expiry <= now)
            t->st[k] = TF_CONN_CLOSED;
    *nwoken = 0;
    for (;;) {
        /* the queued request with the lowest seq */
        int best = -1;
        for (int i = 0; i < NR; i++)
            if (t->r[i].state == TF_PREQ_QUEUED && (best < 0 || t->r[i].seq < t->r[best].seq))
                best = i;
        if (best < 0)
            return;
        long k = -1;
        for (long j = 0; j < t->created && k < 0; j++)
            if (t->st[j] == TF_CONN_IDLE)
                k = j;
        if (k < 0) {
            if (twin_open(t) >= t->max)
                return;
            k = t->created++;
            t->st[k] = TF_CONN_NEW;
        }
        t->r[best].conn = k;
        t->r[best].state = TF_PREQ_ASSIGNED;
        if (best != caller)
            woken[(*nwoken)++] = best;
    }
}

static void test_random_against_twin(void **state)
{
    (void)state;
    srand(7);
    for (int round = 0; round < 200; round++) {
        long max = 1 + rand() % 8;
        double expiry = (rand() % 3) ? 3.0 : 0.0;
        tf_pool p;
        tf_pool_init(&p, max, 2, expiry);
        twin t;
        memset(&t, 0, sizeof t);
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
                tf_pool_pass(&p, &r[i], now);
                twin_pass(&t, i, now, woken, &nw);
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
                        t.r[i].state = TF_PREQ_QUEUED; /* keeps its seq */
                        t.r[i].conn = -1;
                        tf_pool_pass(&p, &r[i], now);
                        twin_pass(&t, i, now, woken, &nw);
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
            if (nw >= 0) { /* a pass ran: the same requests woken, in order */
                assert_int_equal(p.nwoken, nw);
                for (int j = 0; j < nw; j++)
                    assert_ptr_equal(p.woken[j], &r[woken[j]]);
            }
        }
        tf_pool_fini(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assign_new_then_idle),
        cmocka_unit_test(test_multi_assignment_and_retry),
        cmocka_unit_test(test_queue_order_and_wake),
        cmocka_unit_test(test_keepalive_expiry),
        cmocka_unit_test(test_random_against_twin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
