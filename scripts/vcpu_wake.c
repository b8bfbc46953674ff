/* vcpu_wake: what waking a thread on an idle CPU costs, against how long
 * that CPU has been idle (a machine check, not part of tfsim).
 *
 * Two processes hand a byte back and forth over a pair of pipes, the
 * parent pinned to CPU 0 and the child to CPU 1 (`same`: both on CPU 0).
 * Between round trips the parent spins for GAP microseconds, so the
 * child's CPU has been idle that long when the next byte wakes it.  Per
 * gap, 400 round trips (after 20 to warm up): the median, mean and 90th
 * percentile of the round trip.  On a VM whose idle vCPUs halt, a wake-up
 * after a gap longer than the hypervisor polls a halted vCPU (KVM's
 * halt_poll_ns, 200 us by default) costs the vCPU's return on top.
 *
 *   cc -O2 -o vcpu_wake scripts/vcpu_wake.c && ./vcpu_wake [same]
 *
 * Measured on this project's 2-core VM (2026-12-05, docs/validation.md
 * "A halted vCPU's wake-up"): 19-24 us up to a gap of 150 us, 49-67 us
 * from 200 us on, 60-90 us at 2-5 ms; on one CPU (never idle) 13 us
 * whatever the gap. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (sched_setaffinity(0, sizeof s, &s))
        perror("sched_setaffinity");
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int same = argc > 1 && strcmp(argv[1], "same") == 0;
    int ab[2], ba[2];
    if (pipe(ab) || pipe(ba)) {
        perror("pipe");
        return 1;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        pin(same ? 0 : 1);
        char c;
        while (read(ab[0], &c, 1) == 1 && c != 'q')
            if (write(ba[1], &c, 1) != 1)
                _exit(1);
        _exit(0);
    }
    pin(0);
    static const int gaps[] = {0, 25, 50, 100, 150, 200, 250, 300, 400, 600, 1000, 2000, 5000};
    enum { WARM = 20, N = 400 };
    int rc = 0;
    for (size_t g = 0; g < sizeof gaps / sizeof *gaps && rc == 0; g++) {
        double x[N];
        for (int i = 0; i < WARM + N; i++) {
            double t0 = now();
            while (now() - t0 < gaps[g] * 1e-6)
                ; /* spin: the child's CPU idles */
            char c = 'x';
            double s = now();
            if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
                rc = 1;
                break;
            }
            if (i >= WARM)
                x[i - WARM] = now() - s;
        }
        if (rc)
            break;
        qsort(x, N, sizeof *x, cmp);
        double m = 0;
        for (int i = 0; i < N; i++)
            m += x[i];
        printf("gap %5d us: round trip median %6.1f us, mean %6.1f, p90 %6.1f\n", gaps[g], x[N / 2] * 1e6,
               m / N * 1e6, x[N * 9 / 10] * 1e6);
    }
    char q = 'q';
    if (write(ab[1], &q, 1) != 1)
        rc = 1;
    waitpid(child, NULL, 0);
    return rc;
}
