/* rep_bottleneck: which component of a result saturates first.
 *
 * Role: read the rows of a result table (a run's table in the CSV layout:
 * columns name, utilisation, optional utilisation_ci and cores) that carry
 * a utilisation, the busy share of the component's own capacity (0..1),
 * and name the highest.  Any such row takes part, whatever scope or model
 * it comes from, so a component a model adds shows up by itself.  The load
 * generator's components (names starting with "client") are told apart
 * from the system under test: when one of them is the busiest, the result
 * measures the load generator, and the messages say so.
 *
 * Words: a component at REP_BN_SATURATED or more is saturated; below it,
 * no component limits the throughput: the load does (an open load's rate,
 * or a closed load's concurrency and the time it waits).  When the bottleneck has a `cores` value at least as large as all the
 * other rows' cores together (the host's CPU), its message lists the
 * largest CPU users.
 *
 * Invariants: pure functions of the table; same table, same text.
 * Cost: O(rows).
 */
#ifndef REP_BOTTLENECK_H
#define REP_BOTTLENECK_H

#include <stddef.h>

#include "sim/sim_table.h"

#define REP_BN_SATURATED 0.9
#define REP_BN_NAME 64
#define REP_BN_USERS 3

typedef struct rep_bottleneck {
    char name[REP_BN_NAME];  /* the busiest component; "" when the table has none */
    double util, util_ci;    /* its utilisation and CI half-width (NaN: none) */
    int load_generator;      /* it is one of the load generator's */
    int saturated;           /* util >= REP_BN_SATURATED */
    char next[REP_BN_NAME];  /* the next busiest ("" if none) */
    double next_util;
    char sut[REP_BN_NAME];   /* the busiest of the system under test ("" if none) */
    double sut_util;
    double cores;            /* the bottleneck's cores, NaN if none */
    size_t nusers;           /* its largest CPU users (see above), busiest first */
    char user[REP_BN_USERS][REP_BN_NAME];
    double user_cores[REP_BN_USERS];
} rep_bottleneck;

/* Is this component name one of the load generator's? */
int rep_bottleneck_is_load_generator(const char *name);

/* Find the bottleneck of table t (borrowed).  Returns 1 and fills *b when
 * some row has a utilisation, else 0 (b->name empty). */
int rep_bottleneck_find(const sim_table *t, rep_bottleneck *b);

/* "host_cpu 94%" (or "-" when none) into buf; returns buf. */
const char *rep_bottleneck_short(const rep_bottleneck *b, char *buf, size_t len);

/* One sentence for people, e.g. "host_cpu saturates first: 94% busy
 * (its cores: postgres_cpu 1.46, server_loop 0.46); next: server_loop
 * 85%", or that the load generator limits the result, or that nothing is
 * saturated; returns buf. */
const char *rep_bottleneck_sentence(const rep_bottleneck *b, char *buf, size_t len);

#endif
