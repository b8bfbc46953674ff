#include "models/tf_pool.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static void grow_conns(tf_pool *p, long need)
{
    if (need <= p->cap)
        return;
    long cap = p->cap ? p->cap : 64;
    while (cap < need)
        cap *= 2;
    long ow = (p->cap + 63) / 64, nw = (cap + 63) / 64;
    p->c = realloc(p->c, (size_t)cap * sizeof *p->c);
    p->idlebits = realloc(p->idlebits, (size_t)nw * sizeof *p->idlebits);
    p->order = realloc(p->order, (size_t)cap * sizeof *p->order);
    assert(p->c && p->idlebits && p->order && "out of memory");
    memset(p->c + p->cap, 0, (size_t)(cap - p->cap) * sizeof *p->c);
    memset(p->idlebits + ow, 0, (size_t)(nw - ow) * sizeof *p->idlebits);
    p->cap = cap;
}

void tf_pool_init(tf_pool *p, long max, long max_queue, double expiry)
{
    assert(max >= 1 && max_queue >= 1);
    memset(p, 0, sizeof *p);
    p->max = max;
    p->expiry = expiry;
    p->max_queue = max_queue;
    p->q = calloc((size_t)max_queue, sizeof *p->q);
    p->woken = calloc((size_t)max_queue, sizeof *p->woken);
    assert(p->q && p->woken && "out of memory");
    grow_conns(p, max < 64 ? 64 : max);
    tf_pool_reset(p);
}

void tf_pool_fini(tf_pool *p)
{
    free(p->c);
    free(p->idlebits);
    free(p->order);
    free(p->q);
    free(p->woken);
    memset(p, 0, sizeof *p);
}

void tf_pool_reset(tf_pool *p)
{
    memset(p->c, 0, (size_t)p->cap * sizeof *p->c);
    memset(p->idlebits, 0, (size_t)((p->cap + 63) / 64) * sizeof *p->idlebits);
    p->n = p->idle = p->created = p->nq = p->nwoken = p->live = 0;
    p->idle_head = p->idle_tail = -1;
    p->passes = p->retries = p->expired = 0;
    p->sum_n = p->sum_idle = p->sum_q = 0;
}

void tf_pool_set_mru(tf_pool *p, int mru)
{
    assert(p->created == 0 && "set the order before the first pass");
    p->mru = mru != 0;
}

/* ---- 0.16's order: the open connections, most recently assigned first ---- */

static void order_remove(tf_pool *p, long k)
{
    long i = 0;
    while (i < p->n && p->order[i] != k)
        i++;
    assert(i < p->n && "an open connection is in the order");
    memmove(p->order + i, p->order + i + 1, (size_t)(p->n - i - 1) * sizeof *p->order);
}

/* Move k (open, at index i, or new: i = n) to the front. */
static void order_front(tf_pool *p, long i, long k)
{
    memmove(p->order + 1, p->order, (size_t)i * sizeof *p->order);
    p->order[0] = k;
}

/* ---- the idle set: a bitmap over creation order and a list by release ---- */

static void idle_add(tf_pool *p, long k, double now)
{
    tf_pool_conn *c = &p->c[k];
    assert(!(p->idlebits[k / 64] & ((uint64_t)1 << (k % 64))));
    p->idlebits[k / 64] |= (uint64_t)1 << (k % 64);
    p->idle++;
    c->st = TF_CONN_IDLE;
    c->expire = now + p->expiry;
    c->inext = -1;
    c->iprev = p->idle_tail;
    if (p->idle_tail >= 0)
        p->c[p->idle_tail].inext = k;
    else
        p->idle_head = k;
    p->idle_tail = k;
}

static void idle_remove(tf_pool *p, long k)
{
    tf_pool_conn *c = &p->c[k];
    assert(c->st == TF_CONN_IDLE && (p->idlebits[k / 64] & ((uint64_t)1 << (k % 64))));
    p->idlebits[k / 64] &= ~((uint64_t)1 << (k % 64));
    p->idle--;
    if (c->iprev >= 0)
        p->c[c->iprev].inext = c->inext;
    else
        p->idle_head = c->inext;
    if (c->inext >= 0)
        p->c[c->inext].iprev = c->iprev;
    else
        p->idle_tail = c->iprev;
    c->iprev = c->inext = -1;
}

static long first_idle(tf_pool *p)
{
    if (p->mru) {
        for (long i = 0; i < p->n; i++)
            if (p->c[p->order[i]].st == TF_CONN_IDLE) {
                long k = p->order[i];
                order_front(p, i, k); /* httpcore 0.16: pop(idx), insert(0, ...) */
                return k;
            }
        return -1;
    }
    long words = (p->created + 63) / 64;
    for (long w = 0; w < words; w++)
        if (p->idlebits[w])
            return w * 64 + __builtin_ctzll(p->idlebits[w]);
    return -1;
}

/* ---- requests ---- */

/* Insert r into the queue at its place by seq (retries keep theirs). */
static void queue_insert(tf_pool *p, tf_pool_req *r)
{
    if (p->nq == p->max_queue) {
        /* open arrivals can hold more requests than the first guess */
        p->max_queue *= 2;
        p->q = realloc(p->q, (size_t)p->max_queue * sizeof *p->q);
        p->woken = realloc(p->woken, (size_t)p->max_queue * sizeof *p->woken);
        assert(p->q && p->woken && "out of memory");
    }
    long i = p->nq;
    while (i > 0 && p->q[i - 1]->seq > r->seq) {
        p->q[i] = p->q[i - 1];
        i--;
    }
    p->q[i] = r;
    p->nq++;
    r->state = TF_PREQ_QUEUED;
    r->conn = -1;
}

void tf_pool_enter(tf_pool *p, tf_pool_req *r)
{
    assert(r->state == TF_PREQ_OUT);
    r->seq = p->seq++;
    r->retries = 0;
    r->next = NULL;
    p->live++;
    queue_insert(p, r);
}

/* The start of a pass: its counters and the keep-alive expiry (the oldest
 * idle connections first). */
static void pass_begin(tf_pool *p, double now)
{
    p->passes++;
    p->sum_n += (double)p->n;
    p->sum_idle += (double)p->idle;
    p->sum_q += (double)p->nq;
    p->nwoken = 0;
    while (p->expiry > 0 && p->idle_head >= 0 && p->c[p->idle_head].expire <= now) {
        long k = p->idle_head;
        idle_remove(p, k);
        if (p->mru)
            order_remove(p, k);
        p->c[k].st = TF_CONN_CLOSED;
        p->n--;
        p->expired++;
    }
}

/* Hand r the first IDLE connection, else a new one while fewer than max
 * are open.  Returns 0 when the pool is full and none is IDLE. */
static int assign(tf_pool *p, tf_pool_req *r)
{
    long k = first_idle(p);
    if (k < 0) {
        if (p->n >= p->max)
            return 0;
        grow_conns(p, p->created + 1);
        k = p->created++;
        p->c[k].st = TF_CONN_NEW;
        p->c[k].iprev = p->c[k].inext = -1;
        if (p->mru)
            order_front(p, p->n, k);
        p->n++;
    }
    /* an IDLE connection stays IDLE until its request claims it */
    r->conn = k;
    r->state = TF_PREQ_ASSIGNED;
    return 1;
}

int tf_pool_pass_one(tf_pool *p, tf_pool_req *r, double now)
{
    if (r->state == TF_PREQ_RETRY)
        queue_insert(p, r); /* back in line, in its old place */
    assert(r->state == TF_PREQ_QUEUED);
    pass_begin(p, now);
    if (p->q[0] != r || !assign(p, r))
        return 0;
    memmove(p->q, p->q + 1, (size_t)(p->nq - 1) * sizeof *p->q);
    p->nq--;
    return 1;
}

void tf_pool_pass(tf_pool *p, const tf_pool_req *caller, double now)
{
    pass_begin(p, now);
    long done = 0;
    for (; done < p->nq; done++) {
        tf_pool_req *r = p->q[done];
        if (!assign(p, r))
            break; /* the rest wait for a release */
        if (r != caller)
            p->woken[p->nwoken++] = r;
    }
    if (done > 0) {
        memmove(p->q, p->q + done, (size_t)(p->nq - done) * sizeof *p->q);
        p->nq -= done;
    }
}

int tf_pool_lock(tf_pool *p, tf_pool_req *r)
{
    assert(r->state == TF_PREQ_ASSIGNED && r->conn >= 0 && r->conn < p->created);
    tf_pool_conn *c = &p->c[r->conn];
    if (!c->locked) {
        c->locked = 1;
        return 1;
    }
    r->next = NULL;
    if (c->ltail)
        c->ltail->next = r;
    else
        c->lhead = r;
    c->ltail = r;
    return 0;
}

tf_pool_req *tf_pool_unlock(tf_pool *p, long k)
{
    assert(k >= 0 && k < p->created && p->c[k].locked);
    tf_pool_conn *c = &p->c[k];
    tf_pool_req *w = c->lhead;
    if (!w) {
        c->locked = 0;
        return NULL;
    }
    c->lhead = w->next;
    if (!c->lhead)
        c->ltail = NULL;
    w->next = NULL;
    return w; /* the lock passes to w */
}

int tf_pool_claim(tf_pool *p, tf_pool_req *r)
{
    assert(r->state == TF_PREQ_ASSIGNED && r->conn >= 0 && r->conn < p->created);
    long k = r->conn;
    switch (p->c[k].st) {
    case TF_CONN_NEW:
        p->c[k].st = TF_CONN_ACTIVE;
        r->state = TF_PREQ_ACTIVE;
        return 2;
    case TF_CONN_IDLE:
        idle_remove(p, k);
        p->c[k].st = TF_CONN_ACTIVE;
        r->state = TF_PREQ_ACTIVE;
        return 1;
    default:
        assert(p->c[k].st == TF_CONN_ACTIVE || p->c[k].st == TF_CONN_CLOSED);
        r->retries++;
        p->retries++;
        if (p->mru) {
            r->state = TF_PREQ_RETRY;
            r->conn = -1;
        } else {
            queue_insert(p, r);
        }
        return 0;
    }
}

void tf_pool_release(tf_pool *p, tf_pool_req *r, double now)
{
    assert(r->state == TF_PREQ_ACTIVE && p->c[r->conn].st == TF_CONN_ACTIVE);
    idle_add(p, r->conn, now);
    p->live--;
    r->state = TF_PREQ_OUT;
    r->conn = -1;
}
