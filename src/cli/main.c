/* tfxc entry point. Stage: cli (top). The command line itself is tfx_cli_main (cli_main.c),
 * a function so that tests can run it in process. */
#include "cli/cli.h"

int main(int argc, char **argv) { return tfx_cli_main(argc, argv); }
