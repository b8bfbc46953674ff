/* val_fit: fit service-time distributions to latency samples (`tfsim fit`).
 *
 * For one sample (seconds) it fits, by maximum likelihood, the exponential,
 * lognormal, gamma and Weibull families and their shifted forms (a constant
 * added: the fixed part of a round trip):
 *   exponential, lognormal    closed forms
 *   gamma, Weibull            the likelihood equation for the shape, solved
 *                             with GSL's Brent root finder (scale follows)
 *   shifted forms             the profile likelihood over the shift in
 *                             [0, min(x)) maximised with a grid and GSL's
 *                             Brent minimiser (shifted exponential: closed
 *                             form, bias-corrected)
 * and measures each fit: log-likelihood, AIC = 2k - 2 lnL, the
 * Kolmogorov-Smirnov statistic D with its asymptotic p-value (Stephens'
 * small-sample correction; with estimated parameters the p-value is too
 * large, i.e. the test is lenient) and the Anderson-Darling statistic A2.
 * The chosen fit is the lowest AIC among the families whose KS p-value is
 * at least alpha (default 1%); when none passes, the empirical
 * distribution: `quantiles`+1 equally spaced sample quantiles, sampled by
 * linear interpolation (sim_dist "empirical").
 *
 * The file level (val_fit_file) reads a samples CSV (val_samples.h), groups
 * it by (operation, concurrency) and fits every group; val_fit_table and
 * val_fit_write_config present the result.
 *
 * Config fragment format (val_fit_write_config), an INI file that
 * sim_cfg_load reads and whose values sim_dist_parse accepts (seconds):
 *   # comments: source file, rule
 *   [fit.redis.paymentsession]       section = "fit." + operation up to its last dot
 *   save = lognormal(mu=..., sigma=...)   the fit at the lowest concurrency
 *                                          measured (the service time
 *                                          under the least contention)
 *   save_c1 = ...                    the fit at each concurrency C (save_cC)
 * An operation without a dot goes to section [fit] with its whole name as
 * the key.  Models map these keys onto their own.  The samples file's
 * notes "section.key = value" (settings of the measured server, e.g.
 * redis.io_threads) follow as plain keys of their sections:
 *   [redis]
 *   io_threads = 4
 *
 * Invariants: deterministic (same input, same output, byte for byte: a
 * group larger than max_samples is reduced by reservoir sampling with a
 * fixed seed).  Cost: O(n log n) per group for sorting plus O(n) per
 * likelihood evaluation (about 30 per root search, 20 per shift search,
 * which uses at most 20,000 evenly spaced order statistics); memory O(n)
 * per group.
 */
#ifndef VAL_FIT_H
#define VAL_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim_dist.h"
#include "sim/sim_err.h"
#include "sim/sim_table.h"
#include "validate/val_samples.h"

typedef enum val_fit_family {
    VAL_FIT_EXP,
    VAL_FIT_LOGNORMAL,
    VAL_FIT_GAMMA,
    VAL_FIT_WEIBULL,
    VAL_FIT_SEXP,
    VAL_FIT_SLOGNORMAL,
    VAL_FIT_SGAMMA,
    VAL_FIT_SWEIBULL,
    VAL_FIT_EMPIRICAL,
    VAL_FIT_NFAM
} val_fit_family;

/* "exponential", "lognormal", ..., "shifted gamma", ..., "empirical". */
const char *val_fit_family_name(val_fit_family f);

/* Fewest samples a group needs. */
#define VAL_FIT_MIN_N 20

/* The most intervals of the empirical fallback: its spec (up to 16
 * characters per quantile) must fit on one config line of the fragment
 * val_fit_write_config writes (SIM_CFG_MAX_LINE). */
#define VAL_FIT_MAX_QUANTILES 200

typedef struct val_fit_opts {
    double alpha;         /* KS level a family must pass (default 0.01) */
    unsigned quantiles;   /* empirical fallback: intervals (default 100, at most
                             VAL_FIT_MAX_QUANTILES) */
    size_t max_samples;   /* per group (default 1,000,000) */
    uint64_t seed;        /* for the reservoir sampling (default 1) */
} val_fit_opts;

void val_fit_opts_init(val_fit_opts *o);

typedef struct val_fit_one {
    int ok;              /* 1: fitted; 0: not applicable, see why */
    char why[96];
    sim_dist d;          /* the fit, in seconds (owned by the report) */
    int k;               /* free parameters */
    double loglik, aic;  /* NaN for the empirical fallback */
    double ks_d, ks_p;   /* ks_p NaN for the empirical fallback */
    double ad;           /* Anderson-Darling A2; NaN for empirical */
} val_fit_one;

typedef struct val_fit_report {
    size_t n;
    double mean, sd, min, max;     /* of the sample, seconds */
    val_fit_one fam[VAL_FIT_NFAM]; /* every family; [EMPIRICAL] always ok */
    int chosen;                    /* index into fam */
} val_fit_report;

/* Fit a sample of n latencies in seconds (not modified).  Fills rep (caller
 * storage; release with val_fit_report_fini).  Returns SIM_OK, or
 * SIM_EINPUT when n < VAL_FIT_MIN_N or a value is negative or not finite
 * (rep is then empty). */
int val_fit_sample(const double *x, size_t n, const val_fit_opts *o, val_fit_report *rep,
                   sim_err *err);
void val_fit_report_fini(val_fit_report *rep);

/* Distribution functions of a fitted sim_dist (exp, lognormal, gamma,
 * Weibull, each with shift, and empirical), exported for tests. */
double val_fit_cdf(const sim_dist *d, double x);
double val_fit_logpdf(const sim_dist *d, double x);

/* The most (operation, concurrency) groups one file may hold: memory and
 * time stay bounded (about 150 bytes per group beyond the samples). */
#define VAL_FIT_MAX_GROUPS 100000

/* All groups of one samples file. */
typedef struct val_fit_group {
    char op[VAL_SAMPLES_OP_MAX + 1];
    unsigned concurrency;
    uint64_t seen;          /* rows read (more than n if reduced) */
    size_t n;               /* samples kept */
    val_fit_report *rep;    /* the fit (owned by the result), NULL for a group
                               of fewer than VAL_FIT_MIN_N samples or one that
                               cannot be fitted */
} val_fit_group;

typedef struct val_fit_result {
    char *source;           /* path read */
    val_fit_group *g;       /* ordered by operation (first appearance), then concurrency */
    size_t n;
    /* the samples file's notes (settings of the measured server) */
    char note_key[VAL_SAMPLES_NOTES][VAL_SAMPLES_OP_MAX + 1];
    char note_val[VAL_SAMPLES_NOTES][VAL_SAMPLES_OP_MAX + 1];
    size_t nnotes;
} val_fit_result;

/* Read path (a samples CSV; "-" = stdin) and fit every group.  Returns a
 * result owned by the caller (val_fit_result_free) or NULL: SIM_EINPUT
 * for a missing or bad file ("file:line: column: message"), for more than
 * VAL_FIT_MAX_GROUPS groups, or when no group has VAL_FIT_MIN_N samples;
 * SIM_EFAIL on a read error.  Smaller groups are kept with rep = NULL
 * (listed, not fitted).  Groups are found by hashing: O(1) per row. */
val_fit_result *val_fit_file(const char *path, const val_fit_opts *o, sim_err *err);
void val_fit_result_free(val_fit_result *r);

/* Table: operation, concurrency, n, family, params, mean_ms, ks_d, ks_p,
 * ad, aic, chosen ("*" on the chosen row); one row per family and group
 * (the empirical row only where it is chosen), or only the chosen rows
 * when chosen_only.  Owned by the caller. */
sim_table *val_fit_table(const val_fit_result *r, int chosen_only);

/* Write the config fragment described above to path (through a temporary
 * file: path appears whole or not at all).  SIM_EFAIL if it cannot be
 * written; SIM_EINPUT when two operations map onto one key.  Every spec
 * written parses back (a family whose spec would not is not fitted).
 * Cost: O(groups log groups). */
int val_fit_write_config(const val_fit_result *r, const char *path, sim_err *err);

#endif
