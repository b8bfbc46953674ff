#include "sim/sim_str.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

char *sim_str_dup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    assert(d && "out of memory");
    memcpy(d, s, n);
    return d;
}

uint64_t sim_str_fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t sim_str_fnv_field(const char *s, uint64_t h)
{
    if (s)
        h = sim_str_fnv(s, strlen(s), h);
    const unsigned char sep = 0xff;
    return sim_str_fnv(&sep, 1, h);
}
