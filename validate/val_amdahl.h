/* val_amdahl: the seed document's Amdahl's-law analysis of one change of
 * architecture (baseline -> target), from component timings.
 *
 * Role: for components i (e.g. accounting, sessions) with time per request
 * b_i in the baseline and t_i in the target, and baseline time T:
 *   share        P_i = b_i / T
 *   speedup      S_i = b_i / t_i
 *   predicted    1 / ((1 - P_i) + P_i / S_i)       (only component i improved)
 *   combined     1 / ((1 - sum P) + sum P_i / S_i) (all improved)
 *   combined incl. serial  (s + T) / (s' + T') with the serial times s, s'
 *                counted in the request time (the seed leaves them out of P)
 *   component speedup   T / T'  (T' = target time)
 *   throughput speedup  X' / X  (and the same for the reserve endpoint)
 *   ceiling      1 / (serial / request time)  (the rest made instantaneous)
 *   total        component speedup * ceiling
 * T and T' are the sums of the components unless given.  When T equals the
 * sum, "combined" equals "component speedup" identically (the seed's
 * "matches Amdahl's law" is an identity, not a validation).
 *
 * Two ways to do the arithmetic:
 *  - VAL_AMDAHL_EXACT: full precision;
 *  - VAL_AMDAHL_SEED: as the seed does it by hand: every figure it prints is
 *    rounded to the precision it prints before being used again (P to 3
 *    decimals, S to 2, each P/S and 1-P term to 3, speedups to 2, the
 *    serial/request-time ratio to 2, ceiling and total to 1), and the
 *    components are taken to make up the whole baseline time (P_total = 1,
 *    "(1 - P_total) = 0" in the seed), so the last share is 1 minus the
 *    others.  configs/analysis/seed.ini uses it to reproduce the seed's
 *    table: 0.911, 3.06, 2.58x; 0.089, 1.31, 1.02x; 2.73x; 2.74x; 3.17x;
 *    2.2x; 6x.
 *
 * Inputs come from a config file (schema val_amdahl_schema; see
 * configs/analysis/seed.ini) or from a TigerBench CSV
 * (val_amdahl_from_tigerbench).  val_amdahl_laws applies the operational
 * laws (val_laws.h) to the same inputs.
 *
 * Invariants: times > 0, at least one component, at most
 * VAL_AMDAHL_MAX_COMP; unknown optional figures are NaN and give NaN
 * results.  Cost: O(components).
 */
#ifndef VAL_AMDAHL_H
#define VAL_AMDAHL_H

#include <stddef.h>

#include "sim/sim_cfg.h"
#include "sim/sim_err.h"
#include "sim/sim_table.h"
#include "validate/val_laws.h"
#include "validate/val_tigerbench.h"

#define VAL_AMDAHL_MAX_COMP 8
#define VAL_AMDAHL_NAME_MAX 48

typedef enum val_amdahl_rounding { VAL_AMDAHL_EXACT = 0, VAL_AMDAHL_SEED = 1 } val_amdahl_rounding;

typedef struct val_amdahl_comp {
    char name[VAL_AMDAHL_NAME_MAX];
    double base, target; /* time per request, s; > 0 */
} val_amdahl_comp;

typedef struct val_amdahl_in {
    char base_name[VAL_AMDAHL_NAME_MAX], target_name[VAL_AMDAHL_NAME_MAX];
    size_t ncomp;
    val_amdahl_comp comp[VAL_AMDAHL_MAX_COMP];
    double base_total, target_total;   /* s; NaN = sum of the components */
    double base_serial, target_serial; /* serial (not improvable) time per request, s; NaN unknown */
    double request_time;               /* target time per request for the ceiling, s;
                                          NaN = target_serial + target total */
    double base_x, target_x;           /* checkout throughput, 1/s; NaN unknown */
    double base_reserve_x, target_reserve_x; /* reserve throughput, 1/s; NaN unknown */
    val_amdahl_rounding rounding;
    /* for the laws */
    double concurrency;                /* requests in flight (N) */
    int workers;                       /* event-loop processes */
    double think_time;                 /* Z, s */
    double tolerance;                  /* relative */
    double serial_listed;              /* an alternative serial estimate, s; NaN = none */
} val_amdahl_in;

typedef struct val_amdahl_out {
    size_t ncomp;
    double share[VAL_AMDAHL_MAX_COMP];     /* P_i */
    double speedup[VAL_AMDAHL_MAX_COMP];   /* S_i */
    double predicted[VAL_AMDAHL_MAX_COMP]; /* 1/((1-P_i) + P_i/S_i) */
    double base_total, target_total;       /* s */
    double serial_fraction;                /* 1 - sum P */
    double combined;
    double combined_serial;                /* the same with the serial time counted in
                                              the request time: (s + T)/(s' + T');
                                              NaN without serial times */
    double component_speedup;
    double throughput_speedup, reserve_speedup; /* NaN when unknown */
    double serial_ratio;                   /* serial / request time */
    double ceiling;                        /* 1 / serial_ratio; NaN without serial */
    double total;                          /* component_speedup * ceiling */
} val_amdahl_out;

/* Defaults: no components, every optional figure NaN, exact rounding, N =
 * 1, one worker, Z = 0, tolerance 0.10. */
void val_amdahl_in_init(val_amdahl_in *in);

/* Compute the figures.  SIM_EINPUT (naming the component) when a time is
 * not > 0, there is no component, or a given total is smaller than the sum
 * of its components. */
int val_amdahl_compute(const val_amdahl_in *in, val_amdahl_out *out, sim_err *err);

/* Config schema: [amdahl] rounding, baseline, target; [component.NAME]
 * baseline, target; [baseline] and [target] total, serial, throughput,
 * reserve_throughput, and [target] request_time; [laws] concurrency,
 * workers, think_time, tolerance, serial_listed. */
extern const sim_cfg_key val_amdahl_schema[];
extern const size_t val_amdahl_schema_len;

/* Fill *in from a loaded configuration (borrowed; checked against the
 * schema here).  Errors name file:line: section.key; name (the main file)
 * is used for a key or section that is missing altogether. */
int val_amdahl_from_cfg(const sim_cfg *c, const char *name, val_amdahl_in *in, sim_err *err);

/* Which column a TigerBench kind timing is read from. */
typedef enum val_amdahl_reading {
    VAL_AMDAHL_READ_MEAN = 0, /* the mean (throughput column): correct */
    VAL_AMDAHL_READ_SD = 1    /* the walltime column (the sd): what the seed's table read */
} val_amdahl_reading;

/* Fill *in from TigerBench data, the seed's way: components accounting =
 * kind accounting.hold and sessions = kind paymentsession.save (the two
 * awaits of a checkout) of architectures base and target at the given
 * concurrency; throughputs from their checkout and reserve phase rows when
 * present.  The serial time is inferred as the seed does, as what the
 * components leave of the checkout's time per request: serial = N/X -
 * (sum of components); the target uses its own when it has checkout rows,
 * else the baseline's.  SIM_EINPUT naming the file when an architecture, a
 * needed kind or the concurrency is missing. */
int val_amdahl_from_tigerbench(const val_tigerbench *tb, const char *base, const char *target,
                               long concurrency, val_amdahl_reading reading, val_amdahl_in *in,
                               sim_err *err);

/* Apply the operational laws to the inputs: utilisation law (base and
 * target serial time vs their throughputs; serial_listed vs the target),
 * Little's law with R = serial + components and the asymptotic bounds
 * (stations: the event loop with the serial demand on `workers` servers,
 * the components as delay stations).  Checks whose figures are unknown are
 * skipped, and so is the target side when it has the baseline's name.  Returns the number of findings added. */
size_t val_amdahl_laws(const val_amdahl_in *in, val_laws_findings *f);

/* Append the inputs and figures of k analyses side by side to t: rows of
 * (quantity, unit), the values of analysis j in column cols[j] (times in
 * ms, throughputs in 1/s, speedups as factors).  The analyses must have the
 * same components (a bug otherwise).  When ratio_col is not NULL and k == 2,
 * a column ratio_col holds value[1] / value[0].  Everything borrowed. */
void val_amdahl_table(const val_amdahl_in *const *in, const val_amdahl_out *const *out,
                      const char *const *cols, size_t k, const char *ratio_col, sim_table *t);

#endif
