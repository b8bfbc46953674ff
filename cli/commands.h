/* The command list: one X(name, summary) line per command.  Command NAME
 * lives in cli/cmd_NAME.c and defines `int cmd_NAME(int, char **)` and
 * `const char cmd_NAME_usage[]` (the full --help text, with examples).
 * Keep one line per command so that parallel work merges cleanly. */
#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

#define CLI_COMMAND_LIST \
    X(run, "simulate one scenario (config file) and print its results") \
    X(sweep, "run a scenario over a list of values of one key, in parallel") \
    X(diff, "compare two scenarios with common random numbers (paired CIs)") \
    X(plan, "find the cheapest setting that meets a throughput / p99 target") \
    X(amdahl, "Amdahl analysis (seed or TigerBench data), law checks, USL fits") \
    X(calibrate, "fit unmeasurable model parameters to TigerBench measurements") \
    X(predict, "predict another architecture's throughput from a calibrated baseline") \
    X(report, "write an HTML page with charts of a results database (--db)") \
    X(export, "print stored runs, sweeps or measurements as text, CSV or JSON") \
    X(import, "store TigerBench CSVs or probe samples in a results database") \
    X(config, "print the config reference: every section and key, default, unit") \
    X(fit, "fit latency distributions (ML, KS, AD, AIC) to probe samples") \
    X(probe, "time TigerFans operations on real Redis, PostgreSQL, TigerBeetle; HTTP layer") \
    X(live, "run the TigerFans programs for real against Redis and PostgreSQL") \
    X(compare, "live runs and simulations side by side, with Amdahl and errors") \
    /* end */

#define X(name, summary) \
    int cmd_##name(int argc, char **argv); \
    extern const char cmd_##name##_usage[];
CLI_COMMAND_LIST
#undef X

#endif
