// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_status.c - `ebpfjail status`: not built yet; says so instead of pretending */
#include "cli.h"

int cmd_status(const struct command *cmd, int argc, char **argv)
{
	return cli_not_yet(cmd, argc, argv);
}
