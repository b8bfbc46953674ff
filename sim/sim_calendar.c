#include "sim/sim_calendar.h"

#include <assert.h>
#include <stdlib.h>

/* An array of cap nodes whose node 1 starts a cache line (node 0, the
 * root, fills the second half of the line before): the four children of
 * node i, 4i+1 to 4i+4, are then the two lines that start at node 4i+1,
 * not three lines.  *mem receives what to free. */
static sim_cal_node *alloc_nodes(size_t cap, void **mem)
{
    size_t bytes = (cap + 1) * sizeof(sim_cal_node);
    *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    assert(*mem && "out of memory");
    return (sim_cal_node *)*mem + 1;
}

_Static_assert(sizeof(sim_cal_node) == 32, "alloc_nodes aligns nodes 4i+1 on 64-byte lines");

void sim_calendar_init(sim_calendar *c, size_t cap_hint)
{
    c->cap = cap_hint ? cap_hint : 1;
    c->n = 0;
    c->seq = 0;
    c->hole = 0;
    c->ntimers = 0;
    c->armed = 0;
    c->heap = alloc_nodes(c->cap, &c->mem);
}

void sim_calendar_fini(sim_calendar *c)
{
    free(c->mem);
    c->mem = NULL;
    c->heap = NULL;
    c->n = c->cap = 0;
    c->hole = 0;
}

void sim_calendar_clear(sim_calendar *c)
{
    c->n = 0;
    c->hole = 0;
    c->armed = 0;
}

/* Heaps above this many nodes (256 KiB) no longer fit in the inner caches:
 * sift_down then prefetches the grandchildren while it compares the
 * children. */
#define PREFETCH_ABOVE 8192

/* The least of h[l..l+3]: its index into *m, its key returned.  Two
 * pairwise minima, then the least of the two, each picked with its key by
 * conditional moves (which child is least is a coin flip: a branch would
 * be mispredicted half the time), so that a level of a sift waits for one
 * round of loads, the four keys, not two. */
static inline __attribute__((always_inline)) sim_cal_key least_of_four(const sim_cal_node *h,
                                                                      size_t l, size_t *m)
{
    sim_cal_key k0 = h[l].k, k1 = h[l + 1].k, k2 = h[l + 2].k, k3 = h[l + 3].k;
    int c01 = k1 < k0, c23 = k3 < k2;
    sim_cal_key ka = c01 ? k1 : k0, kb = c23 ? k3 : k2;
    size_t a = l + (size_t)c01, b = l + 2 + (size_t)c23;
    size_t cab = kb < ka;
    *m = a ^ ((a ^ b) & -cab); /* b if cab, else a; a mask, not a branch */
    return cab ? kb : ka;
}

/* least_of_four out of line, for the rare level where the time bits of
 * the keys compared tie (see sift_down). */
static __attribute__((noinline)) size_t least_of_four_ool(const sim_cal_node *h, size_t l,
                                                          sim_cal_key *k)
{
    size_t m;
    *k = least_of_four(h, l, &m);
    return m;
}

/* Place x in a heap of n slots whose root slot is free. */
static inline __attribute__((always_inline)) void sift_down(sim_cal_node *h, size_t n,
                                                          sim_cal_node x)
{
    size_t i = 0;
    /* Nodes with four children: the least child is found by two pairwise
     * minima, branch-free, then the hole moves down while that child is
     * less than x. */
    if (n > PREFETCH_ABOVE)
        for (;;) {
            size_t l = 4 * i + 1;
            if (l + 3 >= n)
                goto last;
            for (size_t g = 4 * l + 1, k = 0; k < 16 && g + k < n; k += 2)
                __builtin_prefetch(&h[g + k]);
            size_t m;
            if (!(least_of_four(h, l, &m) < x.k)) {
                h[i] = x;
                return;
            }
            h[i] = h[m];
            i = m;
        }
    /* Below the caches' size: the least child by the keys' high halves (the
     * time bits) alone, 64-bit compares and selects, which pick the same
     * child as whole keys unless two of the halves compared are equal (a
     * tie in time): such a level is decided by whole keys, out of line.
     * What a level waits for is the next level's loads: their address is
     * picked by two selects after the compares (conditional moves of
     * candidate offsets computed beforehand), not computed from the index
     * afterwards (the mask and index arithmetic of least_of_four). */
    const uint64_t xhi = (uint64_t)(x.k >> 64);
    {
        /* byte offsets from h: of the hole (node i) and of its first child
         * (node 4i + 1); the least child's offset is picked by selects,
         * and the next first child's is 4 times it plus one node, so that
         * a level waits for loads, two compares and two selects */
        char *const base = (char *)h;
        const size_t end = n * sizeof *h;
        size_t oi = 0, ol = sizeof *h;
        for (;;) {
            if (ol + 3 * sizeof *h >= end)
                break;
            const sim_cal_node *c = (const sim_cal_node *)(base + ol);
            uint64_t a0 = (uint64_t)(c[0].k >> 64), a1 = (uint64_t)(c[1].k >> 64);
            uint64_t a2 = (uint64_t)(c[2].k >> 64), a3 = (uint64_t)(c[3].k >> 64);
            int c01 = a1 < a0, c23 = a3 < a2;
            uint64_t ka = c01 ? a1 : a0, kb = c23 ? a3 : a2;
            size_t oa = c01 ? ol + sizeof *h : ol, ob = c23 ? ol + 3 * sizeof *h : ol + 2 * sizeof *h;
            int cab = kb < ka;
            size_t om = cab ? ob : oa;
            uint64_t mhi = cab ? kb : ka;
            if (__builtin_expect((a0 == a1) | (a2 == a3) | (ka == kb) | (mhi == xhi), 0)) {
                sim_cal_key mk;
                om = least_of_four_ool(h, ol / sizeof *h, &mk) * sizeof *h;
                if (!(mk < x.k))
                    break;
            } else if (!(mhi < xhi)) {
                break;
            }
            *(sim_cal_node *)(base + oi) = *(const sim_cal_node *)(base + om);
            oi = om;
            ol = 4 * om + sizeof *h;
        }
        i = oi / sizeof *h;
    }
    if (4 * i + 4 < n) { /* stopped above the last inner node: x goes here */
        h[i] = x;
        return;
    }
last:;
    /* The last inner node may have one to three children. */
    size_t l = 4 * i + 1;
    if (l < n) {
        size_t m = l;
        for (size_t k = l + 1; k < n; k++)
            if (h[k].k < h[m].k)
                m = k;
        if (h[m].k < x.k) {
            h[i] = h[m];
            i = m;
        }
    }
    h[i] = x;
}

void sim_calendar_fill_hole(sim_calendar *c)
{
    if (!c->hole)
        return;
    c->hole = 0;
    if (--c->n > 0)
        sift_down(c->heap, c->n, c->heap[c->n]);
}

static __attribute__((noinline)) void grow(sim_calendar *c)
{
    void *mem;
    sim_cal_node *h = alloc_nodes(2 * c->cap, &mem);
    memcpy(h, c->heap, c->n * sizeof *h);
    free(c->mem);
    c->mem = mem;
    c->heap = h;
    c->cap *= 2;
}

uint64_t sim_calendar_push(sim_calendar *c, double t, unsigned prio, sim_fn fn, void *obj)
{
    assert(prio <= SIM_PRIO_MAX && t == t); /* no NaN times */
    uint64_t seq = c->seq++;
    assert(seq < SIM_SEQ_MASK);
    sim_cal_node e = {(sim_cal_key)sim_calendar_time_bits(t) << 64 | ((uint64_t)prio << 48 | seq), fn, obj};
    if (c->hole) {
        c->hole = 0;
        sift_down(c->heap, c->n, e);
        return seq;
    }
    if (c->n == c->cap)
        grow(c);
    size_t i = c->n++;
    sim_cal_node *h = c->heap;
    while (i > 0) {
        size_t p = (i - 1) / 4;
        if (!(e.k < h[p].k))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
    return seq;
}

int sim_calendar_timer_new(sim_calendar *c)
{
    if (c->ntimers == SIM_CAL_TIMERS)
        return -1;
    return (int)c->ntimers++;
}

