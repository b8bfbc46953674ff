/* val_cpu: the CPU split of live TigerFans runs, as
 * scripts/live_cpu_phases.py writes it, read for `tfsim calibrate --cpu`.
 *
 * Format: the header
 *   arch,concurrency,phase,requests,ok,walltime,throughput,client_ms,server_ms,postgres_ms,redis_ms
 * then one row per phase run: arch names an architecture as TigerBench
 * does (pg_pg, pg_redis, tb_redis: 1..31 letters, digits, '_' or '-'),
 * concurrency an integer 1..1000000, phase one of checkout, webhook,
 * reserve, commit; requests and ok integers (ok <= requests), walltime
 * and throughput numbers >= 0; the four *_ms columns the CPU milliseconds
 * per request of the load generator, the server (all its threads),
 * PostgreSQL (every postgres process) and Redis, numbers >= 0 and below
 * VAL_CPU_MAX_MS.  Blank lines are skipped.
 *
 * Invariants: the reader keeps every row in order (memory O(rows)); a row
 * that breaks any rule stops it with SIM_EINPUT "file:line: column:
 * message" and nothing is returned, as does a file that cannot be opened
 * ("file: cannot open: reason") or is a directory; SIM_EFAIL on another
 * read error.  Cost: O(bytes).
 *
 * Ownership: val_cpu_read fills caller storage whose rows it owns
 * (val_cpu_fini frees them, also after a failure).
 */
#ifndef VAL_CPU_H
#define VAL_CPU_H

#include <stddef.h>

#include "sim/sim_err.h"

#define VAL_CPU_HEADER                                                                             \
    "arch,concurrency,phase,requests,ok,walltime,throughput,client_ms,server_ms,postgres_ms,"     \
    "redis_ms"
#define VAL_CPU_NCOLS 11
#define VAL_CPU_MAX_LINE 1024
#define VAL_CPU_ARCH_MAX 31
#define VAL_CPU_MAX_MS 1e6

/* The components measured, in the order of their columns. */
enum { VAL_CPU_CLIENT = 0, VAL_CPU_SERVER, VAL_CPU_POSTGRES, VAL_CPU_REDIS, VAL_CPU_NCOMP };
extern const char *const val_cpu_comp_names[VAL_CPU_NCOMP]; /* "client", ... */

typedef struct val_cpu_row {
    char arch[VAL_CPU_ARCH_MAX + 1];
    long concurrency;
    int phase;                 /* index into tf_phase_names */
    double throughput;         /* requests/s */
    double cpu[VAL_CPU_NCOMP]; /* CPU seconds per request */
    int line;
} val_cpu_row;

typedef struct val_cpu {
    val_cpu_row *rows; /* owned */
    size_t n, cap;
} val_cpu;

/* Read path into c (caller storage, zeroed by the call). */
int val_cpu_read(const char *path, val_cpu *c, sim_err *err);
void val_cpu_fini(val_cpu *c);

/* The mean CPU seconds per request of component comp over c's rows of
 * arch at concurrency conc and phase; NaN when there is no such row. */
double val_cpu_mean(const val_cpu *c, const char *arch, long conc, int phase, int comp);

#endif
