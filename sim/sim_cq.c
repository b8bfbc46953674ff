#include "sim/sim_cq.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#define MIN_BUCKETS 4
/* Events sampled at the front to fit the width (Brown). */
#define SAMPLE 25
/* The width is re-fitted when a window of pops (at least nb + 64) has
 * passed more than this many empty buckets or list items per pop. */
#define REFIT_STEPS 4

static inline int64_t vb_of(const sim_cq *q, double t)
{
    double x = (t - q->origin) * q->inv_w; /* origin finite: never NaN */
    x = x < 0x1p62 ? x : 0x1p62;
    x = x > -0x1p62 ? x : -0x1p62;
    return (int64_t)x; /* truncation: monotone, which is all that matters */
}

static inline double time_of_item(const sim_cq_item *it)
{
    return sim_calendar_time_of((uint64_t)(it->n.k >> 64));
}

static inline sim_cq_bucket *bucket_of(sim_cq *q, int64_t vb)
{
    return &q->b[(size_t)((uint64_t)vb & (q->nb - 1))];
}

static void set_heads_nil(sim_cq *q)
{
    for (size_t i = 0; i < q->nb; i++)
        q->b[i].head = q->b[i].tail = SIM_CQ_NIL;
}

void sim_cq_init(sim_cq *q, size_t cap_hint)
{
    q->icap = cap_hint > 16 ? cap_hint : 16;
    assert(q->icap < SIM_CQ_NIL);
    q->item = malloc(q->icap * sizeof *q->item);
    q->bcap = MIN_BUCKETS;
    while (q->bcap < q->icap / 2)
        q->bcap *= 2;
    q->b = malloc(q->bcap * sizeof *q->b);
    assert(q->item && q->b && "out of memory");
    q->nb = MIN_BUCKETS;
    q->n = q->iused = 0;
    q->free = SIM_CQ_NIL;
    q->cur = INT64_MAX; /* empty: the first push sets it */
    q->origin = 0;
    q->w = q->inv_w = 1;
    q->seq = 0;
    q->steps = q->pops = 0;
    set_heads_nil(q);
}

void sim_cq_fini(sim_cq *q)
{
    free(q->item);
    free(q->b);
    q->item = NULL;
    q->b = NULL;
    q->n = q->icap = q->iused = q->nb = q->bcap = 0;
}

void sim_cq_clear(sim_cq *q)
{
    set_heads_nil(q);
    q->n = q->iused = 0;
    q->free = SIM_CQ_NIL;
    q->cur = INT64_MAX;
    q->steps = q->pops = 0;
}

/* Link item i (its node set) into its bucket, in key order. */
static inline void link_item(sim_cq *q, uint32_t i)
{
    sim_cq_item *it = q->item;
    int64_t vb = vb_of(q, time_of_item(&it[i]));
    it[i].vb = vb;
    if (vb < q->cur)
        q->cur = vb;
    sim_cq_bucket *b = bucket_of(q, vb);
    sim_cal_key k = it[i].n.k;
    if (b->head == SIM_CQ_NIL) {
        it[i].next = SIM_CQ_NIL;
        b->head = b->tail = i;
    } else if (it[b->tail].n.k < k) { /* keys are unique (seq) */
        it[i].next = SIM_CQ_NIL;
        it[b->tail].next = i;
        b->tail = i;
    } else if (k < it[b->head].n.k) {
        it[i].next = b->head;
        b->head = i;
    } else {
        /* head < k < tail: the walk stops before the tail */
        uint32_t p = b->head;
        while (it[it[p].next].n.k < k) {
            p = it[p].next;
            q->steps++;
        }
        it[i].next = it[p].next;
        it[p].next = i;
    }
}

/* The least event's item (the queue not empty): the head of bucket
 * cur mod nb, cur moved forward to its vb. */
static inline uint32_t find_least(sim_cq *q)
{
    const sim_cq_item *it = q->item;
    int64_t cur = q->cur;
    for (size_t k = 0; k < q->nb; k++, cur++) {
        uint32_t h = bucket_of(q, cur)->head;
        if (h != SIM_CQ_NIL && it[h].vb == cur) {
            q->steps += k;
            q->cur = cur;
            return h;
        }
    }
    /* a year without an event: the least of the heads */
    q->steps += q->nb;
    uint32_t best = SIM_CQ_NIL;
    for (size_t k = 0; k < q->nb; k++) {
        uint32_t h = q->b[k].head;
        if (h != SIM_CQ_NIL && (best == SIM_CQ_NIL || it[h].n.k < it[best].n.k))
            best = h;
    }
    assert(best != SIM_CQ_NIL);
    q->cur = it[best].vb;
    return best;
}

/* Unlink the least event's item (the queue not empty); n unchanged. */
static inline uint32_t take_least(sim_cq *q)
{
    uint32_t i = find_least(q);
    sim_cq_bucket *b = bucket_of(q, q->cur);
    b->head = q->item[i].next;
    if (b->head == SIM_CQ_NIL)
        b->tail = SIM_CQ_NIL;
    return i;
}

/* Brown's width: three times the mean gap between the least events, gaps
 * above twice the mean left out; the old width when that gives nothing
 * usable (fewer than two finite distinct times). */
static double fit_width(const sim_cq *q, const uint32_t *s, size_t ns)
{
    double gap[SAMPLE], sum = 0;
    size_t ng = 0;
    for (size_t j = 0; j + 1 < ns; j++) {
        double a = time_of_item(&q->item[s[j]]), b = time_of_item(&q->item[s[j + 1]]);
        if (isfinite(a) && isfinite(b)) {
            gap[ng] = b - a;
            sum += gap[ng++];
        }
    }
    if (ng == 0 || !(sum > 0))
        return q->w;
    double mean = sum / (double)ng, sum2 = 0;
    size_t n2 = 0;
    for (size_t j = 0; j < ng; j++)
        if (gap[j] <= 2 * mean) {
            sum2 += gap[j];
            n2++;
        }
    double w = sum2 > 0 ? 3 * sum2 / (double)n2 : 3 * mean;
    return isfinite(w) && isfinite(1 / w) ? w : q->w;
}

/* Re-bucket every event into nb buckets (a power of two), the width
 * re-fitted from the front of the queue. */
static __attribute__((noinline)) void rebuild(sim_cq *q, size_t nb)
{
    /* the front sample, unlinked */
    uint32_t s[SAMPLE];
    size_t ns = q->n < SAMPLE ? q->n : SAMPLE;
    for (size_t j = 0; j < ns; j++)
        s[j] = take_least(q);
    q->w = fit_width(q, s, ns);
    q->inv_w = 1 / q->w;
    if (ns > 0 && isfinite(time_of_item(&q->item[s[0]])))
        q->origin = time_of_item(&q->item[s[0]]);
    /* every other event in one chain */
    uint32_t chain = SIM_CQ_NIL;
    for (size_t k = 0; k < q->nb; k++) {
        sim_cq_bucket *b = &q->b[k];
        if (b->head != SIM_CQ_NIL) {
            q->item[b->tail].next = chain;
            chain = b->head;
        }
    }
    if (nb > q->bcap) {
        free(q->b);
        q->b = malloc(nb * sizeof *q->b);
        assert(q->b && "out of memory");
        q->bcap = nb;
    }
    q->nb = nb;
    set_heads_nil(q);
    q->cur = INT64_MAX;
    while (chain != SIM_CQ_NIL) {
        uint32_t i = chain;
        chain = q->item[i].next;
        link_item(q, i);
    }
    for (size_t j = 0; j < ns; j++)
        link_item(q, s[j]);
    q->steps = q->pops = 0;
}

uint64_t sim_cq_push(sim_cq *q, double t, unsigned prio, sim_fn fn, void *obj)
{
    assert(prio <= SIM_PRIO_MAX && t == t); /* no NaN times */
    uint64_t seq = q->seq++;
    assert(seq < SIM_SEQ_MASK);
    uint32_t i = q->free;
    if (i != SIM_CQ_NIL) {
        q->free = q->item[i].next;
    } else {
        if (q->iused == q->icap) {
            assert(2 * q->icap < SIM_CQ_NIL);
            sim_cq_item *a = realloc(q->item, 2 * q->icap * sizeof *a);
            assert(a && "out of memory");
            q->item = a;
            q->icap *= 2;
        }
        i = (uint32_t)q->iused++;
    }
    sim_cq_item *it = &q->item[i];
    it->n.k = (sim_cal_key)sim_calendar_time_bits(t) << 64 | ((uint64_t)prio << 48 | seq);
    it->n.fn = fn;
    it->n.obj = obj;
    link_item(q, i);
    if (++q->n > 2 * q->nb)
        rebuild(q, 2 * q->nb);
    return seq;
}

static inline void emit(const sim_cq_item *it, sim_event *out)
{
    out->t = time_of_item(it);
    out->key = (uint64_t)it->n.k;
    out->fn = it->n.fn;
    out->obj = it->n.obj;
}

int sim_cq_pop(sim_cq *q, sim_event *out)
{
    if (q->n == 0)
        return 0;
    uint32_t i = take_least(q);
    emit(&q->item[i], out);
    q->item[i].next = q->free;
    q->free = i;
    q->n--;
    if (q->n < q->nb / 2 && q->nb > MIN_BUCKETS) {
        rebuild(q, q->nb / 2);
    } else if (++q->pops >= q->nb + 64) {
        if (q->steps > REFIT_STEPS * q->pops)
            rebuild(q, q->nb);
        q->steps = q->pops = 0;
    }
    return 1;
}

int sim_cq_peek(sim_cq *q, sim_event *out)
{
    if (q->n == 0)
        return 0;
    emit(&q->item[find_least(q)], out);
    return 1;
}
