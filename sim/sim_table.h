/* sim_table: a result table, printed as text for a person, or as CSV or
 * JSON for other tools.
 *
 * Role: every command builds one table of results (rows x named columns,
 * each cell a number, a string or empty) and prints it in the format asked
 * for.  CSV is one header line then one row per result; JSON is an array of
 * objects; text groups rows by the optional group column into blocks,
 * leaves out columns that are empty throughout a block, and shows a column
 * NAME that has a column NAME_ci (a CI half-width) as "mean ± half" (the
 * NAME_ci column itself is not shown): one interval notation for people.
 *
 * Invariants: columns are fixed once the first row is added; numbers print
 * with a fixed format ("%.10g" in CSV/JSON) so equal values give equal bytes;
 * NaN prints as an empty CSV cell, null in JSON, "-" in text.
 * Cost: O(rows x cols) memory; printing is O(cells).
 */
#ifndef SIM_TABLE_H
#define SIM_TABLE_H

#include <stdio.h>

#include "sim/sim_err.h"

typedef enum sim_format { SIM_FMT_TEXT = 0, SIM_FMT_CSV, SIM_FMT_JSON } sim_format;

/* Parse "text", "csv" or "json"; returns -1 for anything else. */
int sim_format_parse(const char *s);

typedef struct sim_table sim_table;

/* Returns a new empty table owned by the caller (free with sim_table_free),
 * or NULL on allocation failure.  title may be NULL; it is copied. */
sim_table *sim_table_new(const char *title);
void sim_table_free(sim_table *t);

/* Add a column (name copied).  text_fmt is the printf format used for
 * numbers in text output, e.g. "%.2f" (NULL: a whole number in full,
 * "%.0f", so that counts read as counts; any other "%.4g"); it must be a string
 * literal or outlive the table.  Returns the column index.  Adding the same
 * name twice returns the existing index. */
int sim_table_col(sim_table *t, const char *name, const char *text_fmt);

/* Mark column col as the grouping column for text output. */
void sim_table_group_by(sim_table *t, int col);

/* Start a new row; later set calls fill it.  Returns its index. */
int sim_table_row(sim_table *t);

/* Set a cell of the current (last) row.  By name: the column is created if
 * missing (with NULL text format).  Strings are copied. */
void sim_table_num(sim_table *t, int col, double v);
void sim_table_str(sim_table *t, int col, const char *s);
void sim_table_set_num(sim_table *t, const char *name, double v);
/* Set a cell of any existing row. */
void sim_table_num_at(sim_table *t, int row, int col, double v);
void sim_table_set_str(sim_table *t, const char *name, const char *s);

int sim_table_ncols(const sim_table *t);
int sim_table_nrows(const sim_table *t);
const char *sim_table_col_name(const sim_table *t, int col);
int sim_table_find_col(const sim_table *t, const char *name); /* -1 if absent */
/* Cell access: returns 1 for a number (in *v), 2 for a string (in *s,
 * borrowed from the table), 0 for empty. */
int sim_table_cell(const sim_table *t, int row, int col, double *v, const char **s);

/* Write "MEAN ± HALF" into buf, both numbers with the printf format fmt
 * (e.g. "%.1f"); just MEAN when half is NaN, infinite or not positive; "-"
 * when mean is NaN.  Every text table writes an interval this way. */
void sim_table_fmt_ci(char *buf, size_t len, const char *fmt, double mean, double half);

/* Print in the given format.  Returns 0, or -1 on a write error. */
int sim_table_print(const sim_table *t, sim_format fmt, FILE *out);

#endif
