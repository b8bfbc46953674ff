/* tfsim fit SAMPLES.csv: fit service-time distributions to probe samples
 * (validate/val_fit). */
#include <string.h>

#include "cli/cli.h"
#include "validate/val_fit.h"

const char cmd_fit_usage[] =
    "usage: tfsim fit SAMPLES.csv [--config-out FILE] [--alpha A] [--quantiles N]\n"
    "                 [--max-samples N] [--chosen] [--format text|csv|json]\n"
    "\n"
    "Fit latency distributions to a samples CSV (operation,concurrency,latency_us,\n"
    "timestamp: what `tfsim probe --out` writes; \"-\" reads standard input), per\n"
    "operation and concurrency, by maximum likelihood: exponential, lognormal,\n"
    "gamma, Weibull and their shifted forms (a constant added).  Each fit gets\n"
    "its Kolmogorov-Smirnov D and p-value (asymptotic; lenient because the\n"
    "parameters come from the same data), Anderson-Darling A2 and AIC.  The\n"
    "chosen fit (*) is the lowest AIC among the families with KS p >= alpha;\n"
    "when none passes, the empirical distribution (N+1 sample quantiles).\n"
    "Groups with fewer than 20 samples are listed but not fitted.\n"
    "\n"
    "  --config-out FILE  also write the chosen fits as a config fragment (INI,\n"
    "                     values are distribution specs in seconds):\n"
    "                       [fit.redis.paymentsession]\n"
    "                       save = lognormal(mu=-8.6, sigma=0.3)   lowest concurrency\n"
    "                       save_c1 = ...  save_c16 = ...          each concurrency\n"
    "  --alpha A          KS level a family must pass (default 0.01)\n"
    "  --quantiles N      empirical fallback: N intervals (default 100, at most 200,\n"
    "                     so that the spec fits on one config line)\n"
    "  --max-samples N    per group; larger groups are reduced by reservoir\n"
    "                     sampling with a fixed seed (default 1000000)\n"
    "  --chosen           print only the chosen fit of each group\n"
    "  --format F         text (default), csv or json\n"
    "\n"
    "Output is deterministic: the same file gives the same bytes.  Bad input\n"
    "(header, column, value) is reported as FILE:LINE: COLUMN: message, exit 2.\n"
    "\n"
    "A `tfsim probe http` measurement (its header starts with latency_ms,) is\n"
    "fitted instead by simulation: the load generator's loop costs (client.cpu,\n"
    "client.pool_poll_cpu, client.pool_idle_cpu) and the stand-in server's\n"
    "(server.cpu_request), so that the simulated stub architecture (one await of\n"
    "the measured latency per request) gives the measured CPU per request of both\n"
    "processes (and, with --thr-weight, default 0.25, the throughput).  Options:\n"
    "  --fit KEYS         keys to fit (default the four above)\n"
    "  --fit-latency L    fit on the points of these latencies (ms) only; the\n"
    "                     others are held out (transfer to other backends)\n"
    "  --config FILE      start values (default: the embedded defaults); the\n"
    "                     architecture is always stub and host.cores the CPUs here\n"
    "  --set S.K=V        override a key;  --reps N (2), --iter N (300), --seed N\n"
    "  --config-out FILE  the fitted keys as an INI fragment\n"
    "It prints per point and phase the measured and simulated throughput and CPU\n"
    "per request with their errors, and the MAPE of fitted and held-out points.\n"
    "\n"
    "examples:\n"
    "  tfsim probe redis --socket /run/redis/redis.sock --out redis.csv\n"
    "  tfsim fit redis.csv\n"
    "  tfsim fit redis.csv --chosen --config-out redis-fit.ini\n"
    "  tfsim fit redis.csv --alpha 0.05 --format csv > fits.csv\n"
    "  tfsim probe http --latency-ms 0,2,10 --out http.csv\n"
    "  tfsim fit http.csv --fit-latency 2 --config-out client.ini\n";

int cmd_fit(int argc, char **argv)
{
    const char *cmd = "fit";
    const char *path = NULL, *config_out = NULL;
    sim_format fmt = SIM_FMT_TEXT;
    int chosen_only = 0;
    val_fit_opts o;
    val_fit_opts_init(&o);
    /* a probe http measurement has its own fit (and options) */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] == '-' && a[2]) {
            if (!strchr(a, '=') && strcmp(a, "--chosen"))
                i++; /* its value */
            continue;
        }
        if (cli_fit_http_file(a))
            return cli_fit_http(argc, argv);
        break;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        const char *eq = strchr(a, '=');
        char flag[32] = "";
        if (a[0] == '-' && a[1] == '-' && a[2]) {
            size_t fl = eq ? (size_t)(eq - a) : strlen(a);
            if (fl >= sizeof flag)
                return cli_usage_error(cmd, "unknown option '%s'", a);
            memcpy(flag, a, fl);
            flag[fl] = '\0';
            int takes = strcmp(flag, "--chosen") != 0;
            if (takes) {
                if (eq)
                    v = eq + 1;
                else if (i + 1 < argc)
                    v = argv[++i];
                else
                    return cli_no_value(cmd, flag);
            } else if (eq) {
                return cli_usage_error(cmd, "--chosen takes no value");
            }
        } else if (strcmp(a, "-") != 0 && a[0] == '-') {
            return cli_usage_error(cmd, "unknown option '%s'", a);
        }
        if (!flag[0]) {
            if (path)
                return cli_usage_error(cmd, "one samples file only (got '%s' and '%s')", path, a);
            path = a;
        } else if (!strcmp(flag, "--config-out")) {
            config_out = v;
        } else if (!strcmp(flag, "--format")) {
            if (cli_parse_format(cmd, v, &fmt))
                return EXIT_INPUT;
        } else if (!strcmp(flag, "--chosen")) {
            chosen_only = 1;
        } else if (!strcmp(flag, "--alpha")) {
            char *end;
            double al = strtod(v, &end);
            if (*end || end == v || !(al >= 0 && al < 1))
                return cli_usage_error(cmd, "--alpha: '%s' is not a level in [0, 1)", v);
            o.alpha = al;
        } else if (!strcmp(flag, "--quantiles")) {
            long q;
            if (cli_parse_long(cmd, "--quantiles", v, 1, VAL_FIT_MAX_QUANTILES, &q))
                return EXIT_INPUT;
            o.quantiles = (unsigned)q;
        } else if (!strcmp(flag, "--max-samples")) {
            long m;
            if (cli_parse_long(cmd, "--max-samples", v, VAL_FIT_MIN_N, 100000000, &m))
                return EXIT_INPUT;
            o.max_samples = (size_t)m;
        } else {
            return cli_usage_error(cmd, "unknown option '%s'", flag);
        }
    }
    if (!path)
        return cli_usage_error(cmd, "which samples file? (e.g. tfsim fit samples.csv)");

    sim_err err = {0};
    val_fit_result *r = val_fit_file(path, &o, &err);
    if (!r)
        return cli_fail(cmd, &err);
    sim_table *t = val_fit_table(r, chosen_only);
    int rc = EXIT_OK;
    if (sim_table_print(t, fmt, stdout) != 0) {
        sim_err_set(&err, SIM_EFAIL, "cannot write to standard output");
        rc = cli_fail(cmd, &err);
    }
    sim_table_free(t);
    if (rc == EXIT_OK && config_out) {
        if (val_fit_write_config(r, config_out, &err) != SIM_OK)
            rc = cli_fail(cmd, &err);
        else
            fprintf(stderr, "tfsim fit: config fragment in %s\n", config_out);
    }
    val_fit_result_free(r);
    return rc;
}
