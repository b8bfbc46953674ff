#include "sim/sim_str.h"

#include <assert.h>
#include <stdio.h>
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

int sim_str_vfmt(char *buf, size_t len, const char *fmt, va_list ap)
{
    assert(buf && len >= 4 && fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    assert(n >= 0 && "vsnprintf: a bad format is a bug");
    if ((size_t)n < len)
        return 0;
    /* the last three bytes before the terminator become "...", moved back
     * to the start of the character they would split */
    size_t at = len - 4;
    while (at > 0 && ((unsigned char)buf[at] & 0xc0) == 0x80)
        at--;
    memcpy(buf + at, "...", 4);
    return 1;
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
