// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_audit.c - `ebpfjail audit`: not built yet; says so instead of pretending */
#include "cli.h"

int cmd_audit(const struct command *cmd, int argc, char **argv)
{
	return cli_not_yet(cmd, argc, argv);
}
