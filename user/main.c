// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* main.c - ebpfjail's entry point: find the command (commands.c) and run it */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2)
		return cli_usage_error(NULL, "missing command");
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("ebpfjail %s\n", EBPFJAIL_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cli_print_main_help();
	if (argv[1][0] == '-')
		return cli_usage_error(NULL, "unknown option '%s' before the command", argv[1]);
	cmd = cli_find_command(argv[1]);
	if (!cmd)
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	return cmd->run(cmd, argc - 1, argv + 1);
}
