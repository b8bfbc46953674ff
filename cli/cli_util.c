#include "cli/cli.h"

#include "reports/rep_store.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *cli_redact(const char *msg, char *buf, size_t len)
{
    rep_redact(msg, buf, len);
    return buf;
}

int cli_fail(const char *cmd, const sim_err *err)
{
    char buf[CLI_REDACT_MAX];
    fprintf(stderr, "tfsim %s: %s\n", cmd,
            err->msg[0] ? cli_redact(err->msg, buf, sizeof buf) : "failed");
    return err->code == SIM_EINPUT ? EXIT_INPUT : EXIT_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tfsim %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see: tfsim %s --help)\n", cmd);
    return EXIT_INPUT;
}

void cli_print_usage(const char *cmd, FILE *out)
{
    for (size_t i = 0; i < cli_ncommands; i++) {
        if (!strcmp(cli_commands[i].name, cmd)) {
            fprintf(out, "%s", cli_commands[i].usage);
            return;
        }
    }
}

int cli_check_out_dir(const char *cmd, const char *flag, const char *path)
{
    if (access(path, F_OK) == 0)
        return 0;
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (access(dir, W_OK | X_OK) == 0)
        return 0;
    fprintf(stderr, "tfsim %s: %s %s: cannot be written: %s: %s\n", cmd, flag, path, dir,
            strerror(errno));
    return EXIT_FAIL;
}

int cli_no_value(const char *cmd, const char *opt)
{
    const char *usage = NULL;
    for (size_t i = 0; i < cli_ncommands; i++)
        if (!strcmp(cli_commands[i].name, cmd))
            usage = cli_commands[i].usage;
    size_t n = strlen(opt);
    /* opt as a whole word of the help: not a prefix of a longer option */
    for (const char *p = usage; p && n && (p = strstr(p, opt)); p += n)
        if ((p == usage || !(isalnum((unsigned char)p[-1]) || p[-1] == '-')) &&
            !(isalnum((unsigned char)p[n]) || p[n] == '-' || p[n] == '_'))
            return cli_usage_error(cmd, "%s needs a value", opt);
    return cli_usage_error(cmd, "unknown option %s", opt);
}

int cli_wants_help(const char *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            cli_print_usage(cmd, stdout);
            return 1;
        }
    }
    return 0;
}

int cli_parse_format(const char *cmd, const char *s, sim_format *out)
{
    int f = sim_format_parse(s);
    if (f < 0)
        return cli_usage_error(cmd, "--format: '%s' is not text, csv or json", s ? s : "");
    *out = (sim_format)f;
    return 0;
}

int cli_parse_u64(const char *cmd, const char *flag, const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return cli_usage_error(cmd, "%s: expected a non-negative integer, got '%s'", flag,
                               s ? s : "");
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE)
        return cli_usage_error(cmd, "%s: expected a non-negative integer, got '%s'", flag, s);
    *out = v;
    return 0;
}

int cli_parse_long(const char *cmd, const char *flag, const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    if (!s || !*s)
        return cli_usage_error(cmd, "%s: missing value", flag);
    long v = strtol(s, &end, 10);
    if (*end || errno == ERANGE || v < min || v > max)
        return cli_usage_error(cmd, "%s: expected an integer in %ld..%ld, got '%s'", flag, min,
                               max, s);
    *out = v;
    return 0;
}

int cli_vary_arg(const char *cmd, const char *vary, const char *next)
{
    if (strchr(vary, '=') && vary[0] != '=')
        return 0;
    if (next && next[0] != '-' && !strchr(next, '='))
        return cli_usage_error(cmd, "--vary %s: expected SECTION.KEY=V1,V2,... (did you mean "
                               "--vary %s=%s?)", vary, vary, next);
    return cli_usage_error(cmd, "--vary %s: expected SECTION.KEY=V1,V2,... or SECTION.KEY=A..B",
                           vary);
}

int cli_stderr_tty(void) { return isatty(STDERR_FILENO); }

int cli_check_stdout(const char *cmd)
{
    static int reported;
    errno = 0;
    int bad = fflush(stdout) != 0;
    int e = errno;
    if (!bad && !ferror(stdout))
        return 0;
    if (!reported) {
        reported = 1;
        fprintf(stderr, "tfsim %s: cannot write standard output: %s\n", cmd,
                e ? strerror(e) : "write error");
    }
    return 1;
}

static volatile sig_atomic_t *stop_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    *stop_flag = 1;
}

void cli_stop_signals(volatile sig_atomic_t *flag)
{
    stop_flag = flag;
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}
