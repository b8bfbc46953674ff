/* Helpers for the benchmarks: wall-clock and CPU time, peak memory. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static inline double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of the calling thread, seconds: on a shared machine it counts
 * only the time this thread ran (still slowed by caches and cores shared
 * with other work). */
static inline double bench_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A clock pair: wall and thread CPU time. */
typedef struct bench_clock {
    double wall, cpu;
} bench_clock;

static inline bench_clock bench_start(void) { return (bench_clock){bench_now(), bench_cpu_now()}; }
/* Seconds since c: wall and CPU. */
static inline bench_clock bench_since(bench_clock c)
{
    return (bench_clock){bench_now() - c.wall, bench_cpu_now() - c.cpu};
}

/* Peak resident memory of this process so far, MiB. */
static inline double bench_peak_mib(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0;
}

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n values (sorts them). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
