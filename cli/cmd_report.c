/* tfsim report: an HTML page with charts from a results database.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "reports/rep_report.h"
#include "reports/rep_store.h"

const char cmd_report_usage[] =
    "usage: tfsim report DB -o FILE [--title TEXT]\n"
    "\n"
    "Write one self-contained HTML page (inline CSS and SVG, no scripts, nothing\n"
    "loaded from elsewhere) showing what the results database DB holds: one card\n"
    "per sweep with its charts, peak throughput and result table, one per run,\n"
    "the imported measurement sets, and each item's manifest (command, seed,\n"
    "config, git revision).  Charts appear when their data exists, one unit each:\n"
    "  throughput vs the varied key per phase (band: confidence interval; dots:\n"
    "  measured points of an imported TigerBench set of the same architecture,\n"
    "  see tfsim import; dashed: live, Amdahl, USL), latency percentiles (ms),\n"
    "  utilisation per component (% of its own capacity), CPU cores per process,\n"
    "  operation timings (ms), TigerBeetle batch size, prediction error; for a\n"
    "  diff, A vs B with the paired interval; for a plan, throughput per setting\n"
    "  by decision with the target.  Each card names its bottleneck.\n"
    "The page shows the newest 50 sweeps, runs and measurement sets of each kind.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  where to write the page ('-' for stdout); the file is\n"
    "                     replaced only once the whole page is ready\n"
    "  --title TEXT       page title (default: \"tfsim results\")\n"
    "\n"
    "Charts are drawn by gnuplot (Debian package gnuplot-nox), run once per report.\n"
    "\n"
    "examples:\n"
    "  tfsim sweep configs/tigerfans/tb_redis.ini --vary client.concurrency=1,10,50,100 --db results.db\n"
    "  tfsim report results.db -o report.html\n"
    "  tfsim report results.db -o - --title 'TigerFans capacity plan' > plan.html\n"
    "\n"
    "exit status: 0 page written; 1 gnuplot missing or failing, database unreadable\n"
    "or output not writable; 2 bad arguments, DB missing or not a tfsim database.\n";

/* Value of option argv[*i] ("--opt VALUE" or "--opt=VALUE"), or NULL if
 * argv[*i] is not that option.  *missing is set when the value is absent. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n))
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n])
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

/* Write the report into a temporary file beside path, then rename it. */
static int write_file(rep_store *db, const rep_report_opts *o, const char *path, sim_err *err)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 8);
    if (!tmp)
        return sim_err_set(err, SIM_EFAIL, "out of memory");
    snprintf(tmp, n + 8, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        sim_err_set(err, SIM_EFAIL, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return err->code;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "w");
    int rc = f ? rep_report_write(db, o, f, err)
               : sim_err_set(err, SIM_EFAIL, "%s: %s", tmp, strerror(errno));
    if (f && fclose(f) && rc == SIM_OK)
        rc = sim_err_set(err, SIM_EFAIL, "%s: cannot write: %s", path, strerror(errno));
    if (!f)
        close(fd);
    if (rc == SIM_OK && rename(tmp, path))
        rc = sim_err_set(err, SIM_EFAIL, "%s: cannot write: %s", path, strerror(errno));
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    const char *dbpath = NULL, *out = NULL, *title = NULL;
    for (int i = 1; i < argc; i++) {
        int missing = 0;
        const char *v;
        if ((v = opt_value(argc, argv, &i, "--output", &missing)) ||
            (v = opt_value(argc, argv, &i, "-o", &missing)))
            out = v;
        else if ((v = opt_value(argc, argv, &i, "--title", &missing)))
            title = v;
        else if (missing)
            return cli_usage_error("report", "%s needs a value", argv[i]);
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("report", "unknown option '%s'", argv[i]);
        else if (!dbpath)
            dbpath = argv[i];
        else
            return cli_usage_error("report", "unexpected argument '%s'", argv[i]);
    }
    if (!dbpath)
        return cli_usage_error("report", "missing the results database (DB)");
    if (!out)
        return cli_usage_error("report", "missing -o FILE (use -o - for stdout)");
    sim_err err;
    sim_err_clear(&err);
    rep_store *db = rep_store_open(dbpath, REP_STORE_READ, &err);
    if (!db)
        return cli_fail("report", &err);
    rep_report_opts o = {.title = title, .source = dbpath, .gnuplot = NULL};
    int rc = strcmp(out, "-") ? write_file(db, &o, out, &err)
                              : rep_report_write(db, &o, stdout, &err);
    rep_store_close(db);
    if (rc)
        return cli_fail("report", &err);
    if (strcmp(out, "-"))
        fprintf(stderr, "tfsim report: wrote %s\n", out);
    return EXIT_OK;
}
