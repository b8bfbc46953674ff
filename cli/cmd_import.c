/* tfsim import: keep measurements in a results database for the report.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "reports/rep_store.h"
#include "validate/val_import.h"

const char cmd_import_usage[] =
    "usage: tfsim import FILE... --db DB [--format text|csv|json]\n"
    "\n"
    "Read measurement files, check them, and store each one's summary in the\n"
    "results database DB (created if missing) as a measurement set, so that\n"
    "tfsim report draws the measured points next to the simulations.  The kind\n"
    "of a file is told by its header:\n"
    "  TigerBench CSV (the benchmark dashboard's format, e.g.\n"
    "      tests/data/calibration.csv): per architecture, phase or operation\n"
    "      timing (kind) and concurrency, the mean over the repetitions, their\n"
    "      spread, min and max;\n"
    "  probe samples (tfsim probe --out): per operation and concurrency, the\n"
    "      count, mean, sd and p50/p90/p99 latency in seconds.\n"
    "The report overlays a TigerBench set's throughput on every sweep over\n"
    "client.concurrency of the same architecture.  Each import is a new set;\n"
    "nothing stored is changed.  Text output says what each set holds; csv and\n"
    "json print its rows (as tfsim export DB --measurements ID does).\n"
    "\n"
    "examples:\n"
    "  tfsim import tests/data/calibration.csv --db results.db\n"
    "  tfsim probe redis --socket /tmp/redis.sock --concurrency 1,4 --out samples.csv &&\n"
    "      tfsim import samples.csv --db results.db --format csv\n"
    "  tfsim sweep configs/tigerfans/pg_pg.ini --vary client.concurrency=1,5,10,20,50 \\\n"
    "      --db results.db && tfsim report results.db -o report.html\n"
    "\n"
    "exit status: 0 every file stored; 1 the database could not be written;\n"
    "2 a file is missing or not valid (the message names file:line: column), or\n"
    "bad arguments.\n";

static const char *str_at(const sim_table *t, int r, const char *col)
{
    const char *v = NULL;
    int c = sim_table_find_col(t, col);
    if (c < 0 || sim_table_cell(t, r, c, NULL, &v) != 2)
        return "";
    return v;
}

static double num_at(const sim_table *t, int r, const char *col)
{
    double v = NAN;
    int c = sim_table_find_col(t, col);
    if (c < 0 || sim_table_cell(t, r, c, &v, NULL) != 1)
        return NAN;
    return v;
}

/* For people: what the set holds, one line per architecture or per
 * operation and concurrency (latencies in ms); the rows themselves are
 * one `tfsim export DB --measurements ID` away. */
static void summary(const sim_table *t, val_import_kind kind)
{
    int n = sim_table_nrows(t);
    for (int r = 0; r < n; r++) {
        if (kind == VAL_IMPORT_SAMPLES) {
            printf("  %s at concurrency %.0f: %.0f samples, mean %.3f ms, p50 %.3f ms, "
                   "p99 %.3f ms\n",
                   str_at(t, r, "name"), num_at(t, r, "concurrency"), num_at(t, r, "count"),
                   1e3 * num_at(t, r, "mean"), 1e3 * num_at(t, r, "p50"),
                   1e3 * num_at(t, r, "p99"));
            continue;
        }
        const char *arch = str_at(t, r, "architecture");
        if (r > 0 && !strcmp(arch, str_at(t, r - 1, "architecture")))
            continue;
        int phase_rows = 0, kind_rows = 0;
        double lo = INFINITY, hi = -INFINITY;
        for (int k = r; k < n && !strcmp(arch, str_at(t, k, "architecture")); k++) {
            int ph = !strcmp(str_at(t, k, "scope"), "phase");
            phase_rows += ph;
            kind_rows += !ph;
            double c = num_at(t, k, "concurrency");
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
        }
        printf("  %s: %d phase rows, %d operation timing rows, concurrency %.0f to %.0f\n", arch,
               phase_rows, kind_rows, lo, hi);
    }
}

int cmd_import(int argc, char **argv)
{
    const char *cmd = "import", *db = NULL;
    const char *files[64];
    int nfiles = 0;
    sim_format fmt = SIM_FMT_TEXT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--db") || !strcmp(a, "--format") || !strcmp(a, "-f")) {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "%s needs a value", a);
            if (!strcmp(a, "--db"))
                db = argv[++i];
            else if (cli_parse_format(cmd, argv[++i], &fmt))
                return EXIT_INPUT;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error(cmd, "unknown option '%s'", a);
        } else if (nfiles == (int)(sizeof files / sizeof files[0])) {
            return cli_usage_error(cmd, "at most %zu files at once",
                                   sizeof files / sizeof files[0]);
        } else {
            files[nfiles++] = a;
        }
    }
    if (!nfiles)
        return cli_usage_error(cmd, "missing the measurement FILE");
    if (!db)
        return cli_usage_error(cmd, "missing --db DB (where to store the measurements)");
    sim_err err;
    sim_err_clear(&err);
    /* read and check every file first: a bad one stores nothing */
    sim_table *t[64];
    val_import_kind kind[64];
    int rc = EXIT_OK;
    for (int i = 0; i < nfiles; i++) {
        t[i] = val_import_read(files[i], &kind[i], &err);
        if (!t[i]) {
            rc = cli_fail(cmd, &err);
            for (int j = 0; j < i; j++)
                sim_table_free(t[j]);
            return rc;
        }
    }
    rep_store *s = rep_store_open(db, REP_STORE_WRITE, &err);
    if (!s)
        rc = cli_fail(cmd, &err);
    for (int i = 0; i < nfiles; i++) {
        if (rc == EXIT_OK) {
            char source[4200];
            snprintf(source, sizeof source, "%s %s", val_import_kind_name(kind[i]), files[i]);
            int64_t id = 0;
            if (rep_store_save_measurements(s, source, t[i], &id, &err)) {
                rc = cli_fail(cmd, &err);
            } else {
                if (fmt == SIM_FMT_TEXT) {
                    printf("measurement set %" PRId64 ": %s (%s), %d rows\n", id, files[i],
                           val_import_kind_name(kind[i]), sim_table_nrows(t[i]));
                    summary(t[i], kind[i]);
                } else if (sim_table_print(t[i], fmt, stdout)) {
                    rc = EXIT_FAIL;
                }
                if (cli_check_stdout(cmd))
                    rc = EXIT_FAIL;
                fprintf(stderr, "tfsim import: %s stored as measurement set %" PRId64 " in %s\n",
                        files[i], id, db);
            }
        }
        sim_table_free(t[i]);
    }
    rep_store_close(s);
    return rc;
}
