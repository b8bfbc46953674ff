/* val_import: measurements as tables for the results store (`tfsim import`).
 *
 * Role: read a measurement file, tell its kind by its header, check it with
 * its own reader, and summarise it into one table that rep_store keeps as a
 * measurement set and rep_report draws next to the simulations:
 *
 *  - TigerBench CSV (val_tigerbench.h; header with phase, accounting,
 *    payments, concurrency, ...): one row per (architecture, phase or kind,
 *    concurrency) over its repetitions.  Columns
 *      architecture  "pg_pg", ...
 *      scope         "phase" or "kind"
 *      name          phase ("checkout") or kind ("accounting.hold")
 *      concurrency   requests in flight
 *      reps          repetitions (rows) behind the row
 *      throughput, throughput_sd, throughput_min, throughput_max
 *                    phase rows: requests/s (sd across repetitions)
 *      walltime      phase rows: mean wall time of the phase, s
 *      mean, sd, samples
 *                    kind rows: mean of the per-repetition means and the
 *                    pooled within-repetition sd, in seconds (transfers for
 *                    tb.batch_size), and the sample count
 *  - probe samples (val_samples.h; header operation,concurrency,latency_us,
 *    timestamp): one row per (operation, concurrency).  Columns
 *      scope "operation", name, concurrency, count, and mean, sd, p50, p90,
 *      p99 in seconds.
 * Rows come in the order of the source (architectures, then phases, then
 * kinds, by concurrency; operations in order of first appearance, by
 * concurrency).
 *
 * Errors: SIM_EINPUT for an unknown header or bad content, with the
 * reader's "file:line: column: message"; SIM_EFAIL when the file cannot be
 * read.  Cost: the TigerBench reader streams (memory O(groups)); samples
 * are kept per group to sort them for the quantiles (memory O(samples)).
 */
#ifndef VAL_IMPORT_H
#define VAL_IMPORT_H

#include "sim/sim_err.h"
#include "sim/sim_table.h"

typedef enum val_import_kind {
    VAL_IMPORT_TIGERBENCH = 1,
    VAL_IMPORT_SAMPLES
} val_import_kind;

/* "tigerbench" or "samples" */
const char *val_import_kind_name(val_import_kind k);

/* Read path and return its summary table (owned by the caller, free with
 * sim_table_free) with its kind in *kind (may be NULL), or NULL with err
 * set. */
sim_table *val_import_read(const char *path, val_import_kind *kind, sim_err *err);

#endif
