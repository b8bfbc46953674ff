/* val_line: one line of a text file, bounded, and its CSV fields, for the
 * line-oriented CSV readers (val_probe_http, val_cpu).
 *
 * Invariants: never writes more than cap bytes to buf (the line's end,
 * "\n" or "\r\n", is not stored; buf is NUL-terminated); a longer line is
 * read to its end and flagged, so that the next call starts on the next
 * line.  Cost: O(bytes of the line), one getc per byte.
 */
#ifndef VAL_LINE_H
#define VAL_LINE_H

#include <stddef.h>
#include <stdio.h>

#include "sim/sim_err.h"

/* Read one line of f into buf (cap >= 1 bytes, caller's).  Returns 1 with
 * a line (*len bytes; *nul set when it holds a NUL byte; *toolong when it
 * did not fit, the rest skipped), 0 at end of file, -1 on a read error
 * (errno from the stream). */
int val_line_read(FILE *f, char *buf, size_t cap, size_t *len, int *nul, int *toolong);

/* The next line of f (named name in messages) into buf (cap > max bytes),
 * checked: 1 with a line of at most max bytes and no NUL (++*lineno), 0
 * at end of file, -1 with err set: SIM_EINPUT "name:line: line longer
 * than max bytes" or "NUL byte in the line", or for a directory;
 * SIM_EFAIL on another read error. */
int val_line_next(FILE *f, const char *name, char *buf, size_t cap, size_t max,
                  unsigned long long *lineno, sim_err *err);

/* Split one line of CSV (libcsv, strict: quotes must pair) into fields:
 * their text, NUL-terminated, into text (cap bytes, caller's: at least
 * strlen(line) + max + 1), pointers to the first max of them into v, and
 * how many there were into *n (more than max: counted, not stored).
 * Returns 0, or -1 with why ("malformed CSV: ...", or "more than one
 * row" when the line holds a line break inside quotes). */
int val_line_split(const char *line, char *text, size_t cap, const char **v, size_t max,
                   size_t *n, char *why, size_t len);

#endif
