/* mdl_theory: closed-form queueing results and Mean Value Analysis, used to
 * validate the kernel and to show the analytic view next to simulations.
 *
 * - M/M/c (Erlang C), M/G/1 (Pollaczek-Khinchine; M/M/1 and M/D/1 are
 *   special cases): mean wait, response, queue length, utilisation.
 * - Exact MVA for a closed product-form network of single-server FIFO
 *   (queueing) stations and delay stations (think time), any population.
 * - Asymptotic bounds for closed networks: X(N) <= min(N/(D+Z), 1/Dmax).
 * All functions are pure; cost O(c) for Erlang C, O(N x K) for MVA with
 * K stations and N customers (MVA allocates nothing: caller-owned arrays).
 */
#ifndef MDL_THEORY_H
#define MDL_THEORY_H

#include <stddef.h>

typedef struct mdl_open_result {
    double rho;       /* per-server utilisation */
    double wait;      /* mean time in queue */
    double response;  /* mean time in system */
    double lq, l;     /* mean number waiting / in system */
    double p99;       /* 99th percentile of response time, NaN if unknown */
} mdl_open_result;

/* Erlang C probability of waiting, a = lambda/mu offered load, c servers
 * (requires a < c). */
double mdl_erlang_c(int c, double a);

/* M/M/c with arrival rate lambda and mean service s.  Returns -1 when
 * unstable (lambda s >= c). */
int mdl_theory_mmc(double lambda, double s, int c, mdl_open_result *out);

/* M/G/1 with mean service s and service variance v (Pollaczek-Khinchine). */
int mdl_theory_mg1(double lambda, double s, double v, mdl_open_result *out);

typedef struct mdl_mva_station {
    double demand;  /* service demand per cycle (visits x mean service) */
    int delay;      /* 1: infinite-server (no queueing), 0: single-server FIFO */
} mdl_mva_station;

/* Exact MVA for population n with think time z.  Fills x (throughput),
 * r (cycle response time excluding think time) and, when not NULL, per
 * station queue lengths q[k] and residence times res[k] (caller-owned, K
 * entries).  Returns 0. */
int mdl_mva(const mdl_mva_station *st, size_t k, double z, long n, double *x, double *r, double *q,
            double *res);

/* Asymptotic bounds on closed-network throughput: min(n/(d+z), 1/dmax). */
double mdl_bound_throughput(double d, double dmax, double z, long n);

#endif
