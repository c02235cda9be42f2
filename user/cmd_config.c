// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_config.c - `ebpfjail config`: the effective configuration and its sources */
#include <stdio.h>

#include "cli.h"

int cmd_config(const struct command *cmd, int argc, char **argv)
{
	struct cli_options o;
	struct config cfg;
	int ret;

	ret = cli_parse(cmd, argc, argv, &o);
	if (ret != CLI_CONTINUE)
		goto out;
	config_init(&cfg);
	if (cli_load_config(&cfg, &o) == 0) {
		config_print(&cfg, stdout);
		ret = 0;
	} else {
		fprintf(stderr, "ebpfjail: the configuration is invalid; nothing would start\n");
		ret = EXIT_TROUBLE;
	}
	config_free(&cfg);
out:
	cli_options_free(&o);
	return ret;
}
