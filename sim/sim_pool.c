#include "sim/sim_pool.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void sim_pool_init(sim_pool *p, size_t obj_size, size_t per_chunk)
{
    size_t a = sizeof(void *) > sizeof(double) ? sizeof(void *) : sizeof(double);
    p->size = (obj_size < sizeof(void *) ? sizeof(void *) : obj_size + a - 1) / a * a;
    p->per_chunk = per_chunk ? per_chunk : 256;
    p->chunks = NULL;
    p->nchunks = p->cap_chunks = 0;
    p->free_list = NULL;
    p->live = p->peak = 0;
}

void sim_pool_fini(sim_pool *p)
{
    for (size_t i = 0; i < p->nchunks; i++)
        free(p->chunks[i]);
    free(p->chunks);
    p->chunks = NULL;
    p->nchunks = p->cap_chunks = 0;
    p->free_list = NULL;
}

void *sim_pool_get(sim_pool *p)
{
    if (!p->free_list) {
        if (p->nchunks == p->cap_chunks) {
            p->cap_chunks = p->cap_chunks ? 2 * p->cap_chunks : 8;
            p->chunks = realloc(p->chunks, p->cap_chunks * sizeof *p->chunks);
            assert(p->chunks && "out of memory");
        }
        char *c = malloc(p->size * p->per_chunk);
        assert(c && "out of memory");
        p->chunks[p->nchunks++] = c;
        for (size_t i = p->per_chunk; i-- > 0;) {
            void *o = c + i * p->size;
            *(void **)o = p->free_list;
            p->free_list = o;
        }
    }
    void *o = p->free_list;
    p->free_list = *(void **)o;
    memset(o, 0, p->size);
    if (++p->live > p->peak)
        p->peak = p->live;
    return o;
}

void sim_pool_put(sim_pool *p, void *obj)
{
    assert(p->live > 0);
    *(void **)obj = p->free_list;
    p->free_list = obj;
    p->live--;
}
