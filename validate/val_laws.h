/* val_laws: consistency checks from the operational laws of queueing
 * (Denning and Buzen), applied to measured or claimed figures.
 *
 * Role: each check compares a measured throughput X with what a law allows
 * given other figures, and appends a finding (with its numbers and a
 * sentence) when they disagree by more than a relative tolerance; data that
 * agree add nothing.  Checks:
 *  - utilisation law: a station with W servers and service demand S per
 *    request has U = X S / W <= 1, so X <= W / S (one event loop with 5 ms
 *    of serial work per request cannot exceed 200/s);
 *  - Little's law for a closed loop: N = X (R + Z).  With N requests in
 *    flight, response time R and think time Z, X must equal N / (R + Z).
 *    Measured X above that is a violation (R or N must be other than
 *    stated); below it, R misses time (a gap: time per request spent
 *    outside the timed parts).  When N is only an upper bound on the
 *    population (load in waves), only X above N / (R + Z) is checked;
 *  - asymptotic bounds of a closed network: N / (N D + Z) <= X <=
 *    min(N / (D + Z), 1 / max_k(D_k / m_k)), D = sum of the stations'
 *    demands D_k, m_k their servers (delay stations, m_k = 0, take no part
 *    in the bottleneck term).
 *
 * Invariants: arguments describe physical quantities (times >= 0, N >= 1,
 * X >= 0, tolerance >= 0); violating that is a bug (assertion).  Findings
 * are appended in call order.  Cost: O(1) per check (O(stations) for the
 * bounds); a finding is a fixed-size record.
 */
#ifndef VAL_LAWS_H
#define VAL_LAWS_H

#include <stddef.h>

#include "sim/sim_table.h"

typedef enum val_law {
    VAL_LAW_UTILISATION = 0,
    VAL_LAW_LITTLE,
    VAL_LAW_BOUND_UPPER,
    VAL_LAW_BOUND_LOWER
} val_law;

typedef enum val_laws_severity {
    VAL_LAWS_VIOLATION = 0, /* the figures contradict the law */
    VAL_LAWS_GAP = 1        /* consistent only if time is missing from R */
} val_laws_severity;

typedef struct val_laws_finding {
    val_law law;
    val_laws_severity severity;
    char subject[96];  /* what was checked, e.g. "pg_pg checkout N=10" */
    double measured;   /* measured throughput, 1/s */
    double bound;      /* what the law allows, 1/s */
    char message[480]; /* one sentence with the numbers */
} val_laws_finding;

/* A growing list of findings (caller-provided storage: init/fini). */
typedef struct val_laws_findings {
    val_laws_finding *v;
    size_t n, cap;
} val_laws_findings;

void val_laws_findings_init(val_laws_findings *f);
void val_laws_findings_fini(val_laws_findings *f);
/* How many findings of the given severity. */
size_t val_laws_count(const val_laws_findings *f, val_laws_severity s);

/* Utilisation law: serial seconds of demand per request on `workers`
 * servers caps X at workers / serial.  Adds a violation when x >
 * cap (1 + tol).  subject is copied.  Returns findings added (0 or 1). */
int val_laws_utilisation(val_laws_findings *f, const char *subject, double serial, int workers,
                         double x, double tol);

/* Little's law, closed loop: N = X (R + Z).  r: response time (s), z: think
 * time (s), n: requests in flight (n_exact = 1) or an upper bound on them
 * (n_exact = 0: waves).  what_r names where R comes from, for the message
 * ("kind timings + serial").  Returns findings added (0 or 1). */
int val_laws_little(val_laws_findings *f, const char *subject, double n, int n_exact, double r,
                    const char *what_r, double z, double x, double tol);

/* A station for the asymptotic bounds: demand in seconds per request;
 * servers 0 = delay station (no queueing). */
typedef struct val_laws_station {
    const char *name;
    double demand;
    int servers;
} val_laws_station;

/* Asymptotic bounds of a closed network with population n (the lower bound
 * is checked only when n_exact).  Returns findings added (0 to 2). */
int val_laws_bounds(val_laws_findings *f, const char *subject, double n, int n_exact,
                    const val_laws_station *st, size_t nst, double z, double x, double tol);

/* Name of a law ("utilisation", "little", "bound_upper", "bound_lower"). */
const char *val_laws_name(val_law law);

/* Append the findings as rows to t (columns law, severity, subject,
 * measured, bound, message); t is borrowed. */
void val_laws_table(const val_laws_findings *f, sim_table *t);

#endif
