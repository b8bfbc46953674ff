/* rep_bottleneck: see rep_bottleneck.h.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "reports/rep_bottleneck.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int rep_bottleneck_is_load_generator(const char *name)
{
    return name && !strncmp(name, "client", 6);
}

static double num_at(const sim_table *t, int r, int c)
{
    double v = NAN;
    if (c < 0 || sim_table_cell(t, r, c, &v, NULL) != 1)
        return NAN;
    return v;
}

int rep_bottleneck_find(const sim_table *t, rep_bottleneck *b)
{
    memset(b, 0, sizeof *b);
    b->util = b->util_ci = b->next_util = b->sut_util = b->cores = NAN;
    int cn = sim_table_find_col(t, "name"), cu = sim_table_find_col(t, "utilisation");
    int cci = sim_table_find_col(t, "utilisation_ci"), cc = sim_table_find_col(t, "cores");
    if (cn < 0 || cu < 0)
        return 0;
    int best = -1, next = -1, sut = -1;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        const char *name = NULL;
        double u = num_at(t, r, cu);
        if (sim_table_cell(t, r, cn, NULL, &name) != 2 || isnan(u))
            continue;
        if (best < 0 || u > num_at(t, best, cu)) {
            next = best;
            best = r;
        } else if (next < 0 || u > num_at(t, next, cu)) {
            next = r;
        }
        if (!rep_bottleneck_is_load_generator(name) && (sut < 0 || u > num_at(t, sut, cu)))
            sut = r;
    }
    if (best < 0)
        return 0;
    const char *s = NULL;
    sim_table_cell(t, best, cn, NULL, &s);
    snprintf(b->name, sizeof b->name, "%s", s);
    b->util = num_at(t, best, cu);
    b->util_ci = num_at(t, best, cci);
    b->load_generator = rep_bottleneck_is_load_generator(b->name);
    b->saturated = b->util >= REP_BN_SATURATED;
    if (next >= 0) {
        sim_table_cell(t, next, cn, NULL, &s);
        snprintf(b->next, sizeof b->next, "%s", s);
        b->next_util = num_at(t, next, cu);
    }
    if (sut >= 0) {
        sim_table_cell(t, sut, cn, NULL, &s);
        snprintf(b->sut, sizeof b->sut, "%s", s);
        b->sut_util = num_at(t, sut, cu);
    }
    /* the CPU users of a bottleneck that holds the others' cores */
    b->cores = num_at(t, best, cc);
    if (isnan(b->cores))
        return 1;
    double others = 0;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        double c = num_at(t, r, cc);
        if (r != best && !isnan(c))
            others += c;
    }
    if (!(others > 0) || others > b->cores * (1 + 1e-6) + 1e-9)
        return 1;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        double c = num_at(t, r, cc);
        if (r == best || !(c > 0) || sim_table_cell(t, r, cn, NULL, &s) != 2)
            continue;
        size_t k = b->nusers;
        while (k > 0 && c > b->user_cores[k - 1])
            k--;
        if (k >= REP_BN_USERS)
            continue;
        size_t last = b->nusers < REP_BN_USERS ? b->nusers : REP_BN_USERS - 1;
        for (size_t j = last; j > k; j--) {
            memcpy(b->user[j], b->user[j - 1], sizeof b->user[j]);
            b->user_cores[j] = b->user_cores[j - 1];
        }
        snprintf(b->user[k], sizeof b->user[k], "%s", s);
        b->user_cores[k] = c;
        if (b->nusers < REP_BN_USERS)
            b->nusers++;
    }
    return 1;
}

const char *rep_bottleneck_short(const rep_bottleneck *b, char *buf, size_t len)
{
    if (!b->name[0])
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s %.0f%%", b->name, 100 * b->util);
    return buf;
}

const char *rep_bottleneck_sentence(const rep_bottleneck *b, char *buf, size_t len)
{
    if (!b->name[0]) {
        snprintf(buf, len, "no component reports a utilisation");
        return buf;
    }
    char users[256] = "";
    if (b->nusers) {
        size_t k = (size_t)snprintf(users, sizeof users, " (its cores: ");
        for (size_t i = 0; i < b->nusers && k < sizeof users; i++)
            k += (size_t)snprintf(users + k, sizeof users - k, "%s%s %.2f", i ? ", " : "",
                                  b->user[i], b->user_cores[i]);
        if (k < sizeof users)
            snprintf(users + k, sizeof users - k, ")");
    }
    char next[128] = "";
    if (b->next[0])
        snprintf(next, sizeof next, "; next: %s %.0f%%", b->next, 100 * b->next_util);
    if (b->load_generator && b->saturated) {
        char sut[160] = "";
        if (b->sut[0])
            snprintf(sut, sizeof sut, " (its busiest component: %s at %.0f%%)", b->sut,
                     100 * b->sut_util);
        snprintf(buf, len,
                 "the load generator limits this result: %s is %.0f%% busy, the system under "
                 "test is not saturated%s",
                 b->name, 100 * b->util, sut);
    } else if (b->saturated) {
        snprintf(buf, len, "%s saturates first: %.0f%% busy%s%s", b->name, 100 * b->util, users,
                 next);
    } else {
        snprintf(buf, len,
                 "no component is saturated (the busiest: %s at %.0f%%%s): the load (its "
                 "rate, or its concurrency and the waits) sets the throughput, not a capacity",
                 b->name, 100 * b->util, users);
    }
    return buf;
}
