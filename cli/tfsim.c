/* tfsim: command dispatch, --help and --version. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "sim/sim_cfg.h"

const cli_command cli_commands[] = {
#define X(name, summary) {#name, cmd_##name, summary, cmd_##name##_usage},
    CLI_COMMAND_LIST
#undef X
};
const size_t cli_ncommands = sizeof cli_commands / sizeof cli_commands[0];

static void usage(FILE *out)
{
    fprintf(out,
            "tfsim %s: discrete-event simulator for capacity planning of the TigerFans\n"
            "ticketing architecture (FastAPI + TigerBeetle + Redis + PostgreSQL).\n\n"
            "usage: tfsim COMMAND [ARGS...]     tfsim COMMAND --help\n\ncommands:\n",
            TFSIM_VERSION);
    for (size_t i = 0; i < cli_ncommands; i++)
        fprintf(out, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(out, "\nexit status: 0 success, 1 runtime failure (server down, limit hit),\n"
                 "2 bad input (config, CSV or flag; the message names file:line: key).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        if (argc > 2 && strcmp(cmd, "help") == 0)
            cli_print_usage(argv[2], stdout);
        else
            usage(stdout);
        return cli_check_stdout("help") ? EXIT_FAIL : EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("tfsim %s (%s)\n", TFSIM_VERSION, tfsim_build_rev);
        return cli_check_stdout("version") ? EXIT_FAIL : EXIT_OK;
    }
    for (size_t i = 0; i < cli_ncommands; i++) {
        if (!strcmp(cli_commands[i].name, cmd)) {
            if (cli_wants_help(cmd, argc - 1, argv + 1))
                return cli_check_stdout(cmd) ? EXIT_FAIL : EXIT_OK;
            int rc = cli_commands[i].fn(argc - 1, argv + 1);
            if (cli_check_stdout(cmd) && rc == EXIT_OK)
                rc = EXIT_FAIL;
            return rc;
        }
    }
    const char *best = NULL;
    int bd = 100;
    for (size_t i = 0; i < cli_ncommands; i++) {
        int d = sim_edit_distance(cmd, cli_commands[i].name);
        if (d < bd)
            bd = d, best = cli_commands[i].name;
    }
    if (best && bd <= 2 && bd < (int)strlen(cmd))
        fprintf(stderr, "tfsim: unknown command '%s' (did you mean %s? see: tfsim --help)\n", cmd,
                best);
    else
        fprintf(stderr, "tfsim: unknown command '%s' (see: tfsim --help)\n", cmd);
    return EXIT_INPUT;
}
