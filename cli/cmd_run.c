#include "cli/cli.h"

const char cmd_run_usage[] = "usage: tfsim run CONFIG\n";

int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return EXIT_FAIL;
}
