/* cli: the command-line layer.  The only place that prints errors for the
 * user and picks exit codes (0 success, 1 runtime failure, 2 bad input).
 * Each command is `int cmd_NAME(int argc, char **argv)` in cli/cmd_NAME.c
 * (argv[0] is the command name) and is registered in cli/tfsim.c.
 */
#ifndef CLI_H
#define CLI_H

#include <signal.h>
#include <stdio.h>

#include "sim/sim_err.h"
#include "sim/sim_table.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_INPUT = 2 };

typedef struct cli_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;  /* one line for `tfsim --help` */
    const char *usage;    /* full text for `tfsim CMD --help`, with examples */
} cli_command;

/* The command table (cli/tfsim.c). */
extern const cli_command cli_commands[];
extern const size_t cli_ncommands;

/* Build facts (generated build/.../buildinfo.c). */
extern const char tfsim_build_rev[];
extern const char tfsim_build_flags[];
#define TFSIM_VERSION "0.1.0"

/* msg with passwords masked (rep_redact: password=..., scheme://u:PASS@,
 * --password ...) into buf (len bytes, cut if longer); returns buf.  Every
 * message that may quote a connection string (libpq and hiredis errors
 * repeat it) is printed through this. */
#define CLI_REDACT_MAX (SIM_ERR_MSG_MAX + 64)
const char *cli_redact(const char *msg, char *buf, size_t len);

/* Print "tfsim CMD: message" (passwords masked) to stderr and return the
 * exit code matching err->code (1 or 2). */
int cli_fail(const char *cmd, const sim_err *err);
/* Print a usage error ("tfsim CMD: message; see tfsim CMD --help") and
 * return EXIT_INPUT. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An option given last, without the value it would take: "needs a value"
 * when the command's help names it, else "unknown option"; EXIT_INPUT. */
int cli_no_value(const char *cmd, const char *opt);
/* If argv holds -h/--help, print the command's usage to stdout and return 1. */
int cli_wants_help(const char *cmd, int argc, char **argv);
void cli_print_usage(const char *cmd, FILE *out);

/* Option helpers.  Each returns 0 on success, or prints a usage error and
 * returns EXIT_INPUT. */
int cli_parse_format(const char *cmd, const char *s, sim_format *out);
int cli_parse_u64(const char *cmd, const char *flag, const char *s, unsigned long long *out);
int cli_parse_long(const char *cmd, const char *flag, const char *s, long min, long max, long *out);

/* Flush standard output and check it for write errors (a full disk, a
 * closed file): on one, print "tfsim CMD: cannot write standard output:
 * REASON" (once per process) and return 1; else 0.  main() calls it after
 * every command and turns exit status 0 into 1 when it fails; a command
 * may call it earlier (before storing results, say). */
int cli_check_stdout(const char *cmd);
/* Before any work: can path be written later?  An existing file or device
 * is left to the writer; otherwise its folder must exist and be writable.
 * 0, or EXIT_FAIL after a message naming flag and path. */
int cli_check_out_dir(const char *cmd, const char *flag, const char *path);

/* Check the value of --vary as it is read (next: the argument after it,
 * or NULL): SECTION.KEY=VALUES, else a usage error (returned, EXIT_INPUT)
 * with a hint for the space-separated form `--vary KEY 1,2`. */
int cli_vary_arg(const char *cmd, const char *vary, const char *next);

/* For commands that talk to servers: ignore SIGPIPE (a server closing a
 * socket makes a write fail, not kill the process); SIGINT and SIGTERM set
 * *flag (borrowed, static storage: the run stops early and keeps what it
 * measured). */
void cli_stop_signals(volatile sig_atomic_t *flag);

/* Is stderr a terminal (progress bars only then)? */
int cli_stderr_tty(void);

/* tfsim fit on a `probe http` measurement (cli_fit_http.c): whether path
 * is one (its header starts with "latency_ms,"), and the command. */
int cli_fit_http_file(const char *path);
int cli_fit_http(int argc, char **argv);

#endif
