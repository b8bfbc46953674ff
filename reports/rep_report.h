/* rep_report: a self-contained HTML report of a results store, with SVG
 * charts drawn by gnuplot.
 *
 * Role: turn what rep_store holds into one page a person would rather look
 * at than read numbers: a header with counts, then one card per sweep
 * (newest first; its manifest, charts, result table), one per standalone
 * run, and one per imported measurement set.  Each chart has one unit.
 * Charts are found by the column names the simulator uses:
 *   - rows with `scope` = phase and `name` (or a `phase` column):
 *     throughput (or `simulated`) with a band from `throughput_ci` /
 *     `simulated_ci` (half-widths) or `ci_low`/`ci_high`, and the series
 *     `measured` (with `measured_lo`/`measured_hi`; `fitted` = no draws a
 *     point open, held out), `live`, `amdahl`, `usl` when present; latency
 *     percentiles `p50`, `p90`, `p99` (seconds; drawn in ms);
 *   - scope = component: `utilisation` (a busy share of the component's
 *     own capacity, 0..1, drawn in %) and `cores` (drawn in cores, with the
 *     host's capacity, host_cpu's cores / utilisation, as a line);
 *   - scope = kind: `mean` (seconds; drawn in ms); scope = batch: `mean`
 *     and `sd` (TigerBeetle batch size);
 *   - tables with `phase`, `concurrency` and `error_pct` (and
 *     `amdahl_error_pct`): prediction error per point;
 *   - a comparison (columns scope, name, metric, a, b, diff_ci,
 *     change_pct): A vs B per phase and per component with the paired
 *     interval; a plan (columns: the varied key first, throughput,
 *     throughput_ci, decision, target_throughput): throughput per setting
 *     by decision with the target;
 *   - measurement sets (validate/val_import.h): measured throughput per
 *     architecture, probe latency percentiles per operation.
 * A sweep over client.concurrency of a TigerFans architecture (read from
 * its config and overrides) gets the measured points of the newest
 * imported TigerBench set of that architecture.  Each card names what
 * limits its result (rep_bottleneck; per point for a sweep, for A and B of
 * a comparison).
 * The x axis is the sweep's varied key (a category axis when its values are
 * not numbers; integer ticks for a few whole numbers), or for a standalone
 * run its `concurrency` column when that takes at least two values; a run
 * without such an axis gets bar charts.  A chart appears only when its
 * data exists.
 *
 * Invariants: the page loads nothing from outside (inline CSS, inline SVG,
 * no scripts, no URLs); every text from the store is HTML-escaped; the
 * same store gives the same bytes.  gnuplot runs once per report as a child
 * process (`gnuplot SCRIPT`, found on PATH) writing into a private
 * temporary directory that is removed afterwards; a missing gnuplot or a
 * failing one is a SIM_EFAIL error, never a partial page.
 * Cost: O(stored cells shown) plus one gnuplot run (about 50 ms + 5 ms per
 * chart).  At most REP_REPORT_MAX_ITEMS sweeps, runs and measurement sets
 * each (the newest) and REP_REPORT_MAX_ROWS rows per HTML table are shown;
 * the page says what it left out.
 */
#ifndef REP_REPORT_H
#define REP_REPORT_H

#include <stdio.h>

#include "reports/rep_store.h"
#include "sim/sim_err.h"

#define REP_REPORT_MAX_ITEMS 50
#define REP_REPORT_MAX_ROWS 500

typedef struct rep_report_opts {
    const char *title;    /* page title; NULL: "tfsim results" */
    const char *source;   /* shown under the title (e.g. the database path); may be NULL */
    const char *gnuplot;  /* program to run; NULL: "gnuplot" on PATH */
    FILE *script;         /* if not NULL, the gnuplot script is also written here
                           * (borrowed; tests read the charts' data from it) */
} rep_report_opts;

/* Write the report for store s to out (both borrowed).  o may be NULL.
 * Returns SIM_OK, or an error status with err filled (nothing useful has
 * been written to out then). */
int rep_report_write(rep_store *s, const rep_report_opts *o, FILE *out, sim_err *err);

#endif
