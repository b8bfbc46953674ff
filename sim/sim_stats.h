/* sim_stats: output statistics for simulations.
 *
 * - sim_welford: running count, mean, variance, min, max (Welford's update;
 *   O(1) per value, numerically stable).
 * - sim_tavg: time-weighted average of a piecewise-constant quantity (queue
 *   length, busy servers); O(1) per change.
 * - sim_hist: quantiles in bounded memory: a log-bucketed histogram with
 *   128 buckets per power of two (bucket width <= 0.79% of its value, so a
 *   reported quantile is within 0.4% of a value that lies at that rank),
 *   over [2^-40, 2^40) plus exact zero/under/overflow counts and exact min
 *   and max; O(1) per value; the counts of each power of two (1 KiB) are
 *   allocated when its first value comes, so a histogram whose values span
 *   a few powers of two takes a few KiB, not 80 (a replication starts
 *   several: allocating and clearing 80 KiB each cost more than a
 *   TigerFans run's quantiles).
 * - sim_series: a bounded record of one output series for warm-up
 *   truncation (MSER-5) and batch-means confidence intervals: batches of 5
 *   observations, pairs merged when SIM_SERIES_CAP batches are full, so
 *   memory stays O(SIM_SERIES_CAP) whatever the run length.
 * - sim_ci_*: Student-t confidence intervals from independent replications.
 */
#ifndef SIM_STATS_H
#define SIM_STATS_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sim_welford {
    uint64_t n;
    double mean, m2, min, max;
} sim_welford;

void sim_welford_init(sim_welford *w);
/* Add x (inline: it runs for every completion of every resource). */
static inline void sim_welford_add(sim_welford *w, double x)
{
    w->n++;
    double d = x - w->mean;
    w->mean += d / (double)w->n;
    w->m2 += d * (x - w->mean);
    if (x < w->min)
        w->min = x;
    if (x > w->max)
        w->max = x;
}
double sim_welford_var(const sim_welford *w);  /* sample variance (n-1); 0 if n<2 */
double sim_welford_sd(const sim_welford *w);
/* Combine b into a (parallel formula). */
void sim_welford_merge(sim_welford *a, const sim_welford *b);

typedef struct sim_tavg {
    double t0, t_last, v, area;
} sim_tavg;

void sim_tavg_init(sim_tavg *a, double t0, double v);
/* The quantity changes to v at time now (>= t_last); inline: it runs at
 * every change of every resource. */
static inline void sim_tavg_set(sim_tavg *a, double now, double v)
{
    assert(now >= a->t_last);
    a->area += a->v * (now - a->t_last);
    a->t_last = now;
    a->v = v;
}
static inline void sim_tavg_add(sim_tavg *a, double now, double dv) { sim_tavg_set(a, now, a->v + dv); }
/* Time average over [t0, now]; the current value if now == t0. */
double sim_tavg_mean(const sim_tavg *a, double now);
/* The integral over [t0, now] (now >= t_last): differences of two give the
 * quantity's integral over an interval, e.g. a phase. */
double sim_tavg_area(const sim_tavg *a, double now);
/* Restart averaging at now, keeping the current value (warm-up reset). */
void sim_tavg_restart(sim_tavg *a, double now);

#define SIM_HIST_SUB_BITS 7
#define SIM_HIST_EMIN (-40)
#define SIM_HIST_EMAX 40
#define SIM_HIST_NB ((SIM_HIST_EMAX - SIM_HIST_EMIN) << SIM_HIST_SUB_BITS)

#define SIM_HIST_CHUNKS (SIM_HIST_EMAX - SIM_HIST_EMIN)

typedef struct sim_hist {
    /* the counts of power of two i (1 << SIM_HIST_SUB_BITS buckets), owned;
     * NULL while all are 0 */
    uint64_t *chunk[SIM_HIST_CHUNKS];
    uint64_t n, zero, under, over;
    double min, max;
} sim_hist;

void sim_hist_init(sim_hist *h);
void sim_hist_fini(sim_hist *h);
void sim_hist_clear(sim_hist *h);
void sim_hist_add(sim_hist *h, double x);      /* x >= 0 */
void sim_hist_merge(sim_hist *a, const sim_hist *b);
/* Value at quantile p in [0,1] (NaN if empty). */
double sim_hist_quantile(const sim_hist *h, double p);

#define SIM_SERIES_CAP 4096
#define SIM_SERIES_BATCH0 5

typedef struct sim_series {
    double *sum;      /* SIM_SERIES_CAP batch sums, owned */
    size_t nb;        /* completed batches */
    uint64_t m;       /* observations per batch */
    double cur;       /* sum of the batch being filled */
    uint64_t cur_n;
    uint64_t n;       /* observations in total */
} sim_series;

void sim_series_init(sim_series *s);
void sim_series_fini(sim_series *s);
void sim_series_add(sim_series *s, double x);
/* MSER on the completed batches: the number of leading observations to
 * delete (a multiple of the batch size, at most half the series). */
uint64_t sim_series_mser(const sim_series *s);
/* Batch-means estimate after deleting `skip` leading observations, using
 * k batches (k >= 2): mean and half-width of the `level` CI (e.g. 0.95).
 * Returns 0, or -1 when there are fewer than k batches left. */
int sim_series_batch_means(const sim_series *s, uint64_t skip, int k, double level, double *mean,
                           double *half);

/* Mean absolute percentage error of predictions against measurements: the
 * one place MAPE is computed (calibrate, predict, compare), with the points
 * within SIM_MAPE_WITHIN percent and, of the others, those outside the
 * range of the measurement's own runs (sim_mape_add_range). */
typedef struct sim_mape {
    double sum, max;  /* of |error| in percent */
    long n;
    long within;      /* points with |error| <= SIM_MAPE_WITHIN (sim_mape_add_range) */
    long beyond;      /* the others whose prediction lies outside [lo, hi] */
} sim_mape;
#define SIM_MAPE_WITHIN 15.0 /* percent: a point "within" (the issues' per-point target) */
static inline void sim_mape_init(sim_mape *m) { m->sum = m->max = 0, m->n = m->within = m->beyond = 0; }
/* 100 (pred - meas) / meas, counted in m (may be NULL) when finite; NaN
 * (not counted) when meas is not a positive finite number or pred is not
 * finite. */
double sim_mape_add(sim_mape *m, double pred, double meas);
/* sim_mape_add, and when counted, within or (a miss) beyond: pred outside
 * [lo, hi], the least and greatest of the measurement's runs (a miss their
 * own spread does not cover; NaN bounds count as outside). */
double sim_mape_add_range(sim_mape *m, double pred, double meas, double lo, double hi);
/* The mean of the absolute errors counted, NaN when none. */
double sim_mape_mean(const sim_mape *m);

/* Mean and CI half-width of n independent values (n >= 2 for a half-width;
 * n == 1 gives half = NaN). */
void sim_ci(const double *x, size_t n, double level, double *mean, double *half);
/* Student-t quantile t_{level}(df) for a two-sided interval. */
double sim_t_quantile(double level, double df);

#endif
