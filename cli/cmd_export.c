/* tfsim export: print stored results as text, CSV or JSON.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "cli/cli.h"
#include "reports/rep_store.h"

const char cmd_export_usage[] =
    "usage: tfsim export DB [--run ID | --sweep ID | --measurements ID |\n"
    "                        --list runs|sweeps|measurements] [--format text|csv|json]\n"
    "\n"
    "Print what the results database DB holds, to stdout.  Without a selection,\n"
    "list the stored runs (id, time, command, sweep and point, seed, ...).\n"
    "\n"
    "options:\n"
    "  --run ID           the result table of run ID\n"
    "  --sweep ID         all stored points of sweep ID, one row per result row of\n"
    "                     each point, with columns point, the varied key and run first\n"
    "  --measurements ID  an imported measurement set\n"
    "  --list WHAT        list runs (default), sweeps or measurements\n"
    "  --format FMT       text (default, for people), csv (one header line, then one\n"
    "                     row per result) or json (an array of objects)\n"
    "\n"
    "examples:\n"
    "  tfsim export results.db --list sweeps\n"
    "  tfsim export results.db --sweep 1 --format csv > sweep1.csv\n"
    "  tfsim export results.db --run 1 --format json\n"
    "\n"
    "exit status: 0 printed; 1 database unreadable; 2 bad arguments, DB missing,\n"
    "not a tfsim database, or no such run/sweep.\n";

int cmd_export(int argc, char **argv)
{
    const char *dbpath = NULL, *list = NULL, *what = NULL;
    long id = 0;
    sim_format fmt = SIM_FMT_TEXT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int sel = !strcmp(a, "--run") || !strcmp(a, "--sweep") || !strcmp(a, "--measurements");
        if (sel || !strcmp(a, "--list") || !strcmp(a, "--format")) {
            if (i + 1 >= argc)
                return cli_usage_error("export", "%s needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--format")) {
                if (cli_parse_format("export", v, &fmt))
                    return EXIT_INPUT;
                continue;
            }
            if (what || list)
                return cli_usage_error("export", "give only one of --run, --sweep, "
                                                 "--measurements and --list");
            if (!strcmp(a, "--list")) {
                if (strcmp(v, "runs") && strcmp(v, "sweeps") && strcmp(v, "measurements"))
                    return cli_usage_error("export", "--list: '%s' is not runs, sweeps or "
                                                     "measurements", v);
                list = v;
            } else {
                if (cli_parse_long("export", a, v, 1, 0x7fffffffL, &id))
                    return EXIT_INPUT;
                what = a + 2;
            }
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("export", "unknown option '%s'", a);
        } else if (!dbpath) {
            dbpath = a;
        } else {
            return cli_usage_error("export", "unexpected argument '%s'", a);
        }
    }
    if (!dbpath)
        return cli_usage_error("export", "missing the results database (DB)");
    sim_err err;
    sim_err_clear(&err);
    rep_store *db = rep_store_open(dbpath, REP_STORE_READ, &err);
    if (!db)
        return cli_fail("export", &err);
    sim_table *t;
    if (what && !strcmp(what, "run"))
        t = rep_store_load_table(db, id, &err);
    else if (what && !strcmp(what, "sweep"))
        t = rep_store_sweep_table(db, id, &err);
    else if (what)
        t = rep_store_load_measurements(db, id, &err);
    else if (list && !strcmp(list, "sweeps"))
        t = rep_store_list_sweeps(db, &err);
    else if (list && !strcmp(list, "measurements"))
        t = rep_store_list_measurements(db, &err);
    else
        t = rep_store_list_runs(db, &err);
    rep_store_close(db);
    if (!t)
        return cli_fail("export", &err);
    int rc = sim_table_print(t, fmt, stdout);
    sim_table_free(t);
    if (rc || fflush(stdout)) {
        sim_err_set(&err, SIM_EFAIL, "cannot write to stdout");
        return cli_fail("export", &err);
    }
    return EXIT_OK;
}
