/* val_samples: the latency-samples CSV written by the probes and read by
 * `tfsim fit`.
 *
 * Format: one header line `operation,concurrency,latency_us,timestamp`, then
 * one row per measured operation:
 *   operation    name such as redis.paymentsession.save: 1..63 characters
 *                from letters, digits, '.', '_' and '-' (so that it maps
 *                onto a config section and key); written quoted by libcsv
 *   concurrency  operations in flight when it was measured (an integer
 *                >= 1; the TigerBeetle probe puts the batch size here)
 *   latency_us   latency in microseconds, 0 to VAL_SAMPLES_MAX_LATENCY_US
 *                (one hour; the writer records a longer one as the bound)
 *   timestamp    completion time, seconds since the Unix epoch
 * Notes: a line `# key = value` after the header records a setting of the
 * measured server that a config fragment can carry over (e.g.
 * `# redis.io_threads = 4`); key and value are 1..63 letters, digits, '.',
 * '_' or '-'; at most VAL_SAMPLES_NOTES different keys, the last value of
 * a key wins.
 *
 * Writer invariants: rows are formatted with libcsv (csv_fwrite) into a
 * memory buffer and reach the file only as whole lines, one write(2) per
 * batch of at most VAL_SAMPLES_BATCH rows (and at every flush), so a run
 * killed at any moment leaves a file of complete lines, but for one case:
 * Linux stops a write(2) at a page boundary when a fatal signal is pending,
 * so the last row may be cut at a multiple of 4096 bytes (the reader then
 * reports that row, or reads it if the cut fell inside its last number).  Cost: O(1) per row, one system call per batch.
 *
 * Reader invariants: streaming, memory bounded by VAL_SAMPLES_MAX_ROW bytes
 * whatever the file size; every field is checked and the first problem is
 * reported as SIM_EINPUT "file:line: column: message".  Cost: O(bytes).
 */
#ifndef VAL_SAMPLES_H
#define VAL_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim_err.h"

#define VAL_SAMPLES_HEADER "operation,concurrency,latency_us,timestamp"
#define VAL_SAMPLES_BATCH 64
#define VAL_SAMPLES_OP_MAX 63
#define VAL_SAMPLES_MAX_ROW 4096
#define VAL_SAMPLES_MAX_CONC 1000000u
#define VAL_SAMPLES_NOTES 16
#define VAL_SAMPLES_MAX_LATENCY_US 3.6e9

typedef struct val_sample {
    char op[VAL_SAMPLES_OP_MAX + 1];
    unsigned concurrency;
    double latency_us;
    double timestamp;
} val_sample;

/* Is name a valid operation name (see above)? */
int val_samples_op_ok(const char *name);

typedef struct val_samples_writer val_samples_writer;

/* Open path for writing (created if missing).  An existing file is not
 * touched until the first batch of rows is written: then it is truncated
 * and gets the header line; a writer closed without rows leaves it as it
 * was (a new file gets the header alone).  Returns a writer owned by the
 * caller (close it with val_samples_close), or NULL with SIM_EFAIL in
 * err. */
val_samples_writer *val_samples_create(const char *path, sim_err *err);

/* Append one row (buffered; the batch is written when full).  op must pass
 * val_samples_op_ok (a bug otherwise).  Returns SIM_OK or SIM_EFAIL. */
int val_samples_add(val_samples_writer *w, const char *op, unsigned concurrency, double latency_us,
                    double timestamp, sim_err *err);

/* Add the note line "# key = value" after the rows added so far (it goes
 * out with the next batch of rows, or at close; a file that existed is
 * left alone while no rows come, as for rows).  key and value as above (a
 * bug otherwise).  Returns SIM_OK or SIM_EFAIL (out of memory). */
int val_samples_note(val_samples_writer *w, const char *key, const char *value, sim_err *err);

/* Write the buffered rows now.  Returns SIM_OK or SIM_EFAIL. */
int val_samples_flush(val_samples_writer *w, sim_err *err);

/* Rows added so far. */
uint64_t val_samples_rows(const val_samples_writer *w);

/* Flush, close and free w (NULL is allowed).  Returns SIM_OK or SIM_EFAIL;
 * w is freed in both cases. */
int val_samples_close(val_samples_writer *w, sim_err *err);

typedef struct val_samples_reader val_samples_reader;

/* Open path ("-" = standard input) and check its header.  Returns a reader
 * owned by the caller (val_samples_reader_free), or NULL with SIM_EINPUT in
 * err (the file cannot be opened, or its header is wrong). */
val_samples_reader *val_samples_open(const char *path, sim_err *err);

/* Read the next row into *s.  Returns 1 with a row, 0 at the end of the
 * file, -1 on error (err set: SIM_EINPUT "file:line: column: message", or
 * SIM_EFAIL on a read error).  After -1 further calls return -1. */
int val_samples_next(val_samples_reader *r, val_sample *s, sim_err *err);

/* The value of note `key` read so far (borrowed from r), or NULL. */
const char *val_samples_note_get(const val_samples_reader *r, const char *key);
/* Notes read so far; when i is below that count, *key and *value (borrowed
 * from r) get note i. */
size_t val_samples_notes(const val_samples_reader *r, size_t i, const char **key, const char **value);

/* Line number of the last row returned (1 = the header). */
uint64_t val_samples_line(const val_samples_reader *r);

void val_samples_reader_free(val_samples_reader *r);

#endif
