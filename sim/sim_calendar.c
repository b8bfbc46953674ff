#include "sim/sim_calendar.h"

#include <assert.h>
#include <stdlib.h>

void sim_calendar_init(sim_calendar *c, size_t cap_hint)
{
    c->cap = cap_hint ? cap_hint : 1;
    c->n = 0;
    c->seq = 0;
    c->heap = malloc(c->cap * sizeof *c->heap);
    assert(c->heap && "out of memory");
}

void sim_calendar_fini(sim_calendar *c)
{
    free(c->heap);
    c->heap = NULL;
    c->n = c->cap = 0;
}

void sim_calendar_clear(sim_calendar *c) { c->n = 0; }

static inline int less(const sim_event *a, const sim_event *b)
{
    return a->t < b->t || (a->t == b->t && a->key < b->key);
}

uint64_t sim_calendar_push(sim_calendar *c, double t, unsigned prio, sim_fn fn, void *obj)
{
    assert(prio <= SIM_PRIO_MAX && t == t); /* no NaN times */
    assert(c->seq < SIM_SEQ_MASK);
    if (c->n == c->cap) {
        c->cap *= 2;
        c->heap = realloc(c->heap, c->cap * sizeof *c->heap);
        assert(c->heap && "out of memory");
    }
    uint64_t seq = c->seq++;
    sim_event e = {t, ((uint64_t)prio << 48) | seq, fn, obj};
    size_t i = c->n++;
    sim_event *h = c->heap;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!less(&e, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
    return seq;
}

int sim_calendar_pop(sim_calendar *c, sim_event *out)
{
    if (c->n == 0)
        return 0;
    sim_event *h = c->heap;
    *out = h[0];
    sim_event last = h[--c->n];
    size_t n = c->n, i = 0;
    if (n == 0)
        return 1;
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n)
            break;
        size_t m = l;
        if (l + 1 < n && less(&h[l + 1], &h[l]))
            m = l + 1;
        if (!less(&h[m], &last))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = last;
    return 1;
}

double sim_calendar_peek_time(const sim_calendar *c)
{
    assert(c->n > 0);
    return c->heap[0].t;
}
