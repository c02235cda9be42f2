// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* commands.c - the command table, the main help and `ebpfjail help` */
#include <stdio.h>

#include "cli.h"

static int cmd_help(const struct command *cmd, int argc, char **argv);

const struct command commands[] = {
	{ "run", cmd_run, CLI_OPT_POLICY | CLI_OPT_USER | CLI_OPT_COMMAND,
	  "[OPTIONS] [--] COMMAND [ARG...]", "Run COMMAND in the network egress jail.",
	  "Options:\n"
	  "  --allow-ip IP[:PORT]   also allow this address (every port, or PORT)\n"
	  "  --allow-host NAME[:PORT] also allow what DNS answers for NAME (*.x: below x)\n"
	  "  --deny-host NAME       refuse NAME in the jail's DNS (*.x: below x)\n"
	  "  --profile NAME         also allow a shipped allowlist (claude-code, github...)\n"
	  "  --internet on|off      off: only what is allowed, DNS and relays\n"
	  "  --local-port N         relay the host's 127.0.0.1:N into the jail\n"
	  "  --callback-port N      relay the host's 127.0.0.1:N to the jail's (logins)\n"
	  "  --pass-env NAME        pass this environment variable into the jail\n"
	  "  --user USER|UID        run COMMAND as this user (default: SUDO_UID)\n"
	  "  --engine auto|bpf|nftables  BPF (root on the host) or the rootless engine\n"
	  "The policy options repeat and add to the configuration files.\n\n"
	  "Exit status: COMMAND's own (128+N if killed by signal N); 125 when ebpfjail\n"
	  "refuses or fails before COMMAND runs; 126 not executable; 127 not found.\n" },
	{ "audit", cmd_audit, CLI_OPT_JSON | CLI_OPT_AUDIT, "[--follow | --suggest] [--json] [--since WHEN] [--jail ID]",
	  "Show the connections the jail denied, and why.",
	  "Options:\n"
	  "  --follow           keep printing new denials as they happen\n"
	  "  --suggest          the configuration lines that would allow them, with\n"
	  "                     counts and warnings (never a cloud metadata service)\n"
	  "  --json             JSON lines, as in the audit log\n"
	  "  --since WHEN       only newer ones: a duration (10m) or a time\n"
	  "  --jail ID          only this jail's\n" },
	{ "doctor", cmd_doctor, CLI_OPT_JSON, "[--json]",
	  "Check every prerequisite of the jail and the configuration.",
	  "Options:\n"
	  "  --json             one JSON object for machines\n\n"
	  "Exit status: 0 when nothing fails, 1 when something does, 2 on usage errors.\n" },
	{ "status", cmd_status, CLI_OPT_JSON, "[--json]",
	  "List running jails, their counters and relays.",
	  "Options:\n"
	  "  --json             one JSON object for machines\n" },
	{ "reload", cmd_reload, CLI_OPT_JAIL, "[--jail ID]",
	  "Apply the changed configuration to running jails, without a restart.",
	  "Each jail reads its configuration sources again (the files it was started\n"
	  "with, its environment and options), takes the host's networks as they are\n"
	  "now, and replaces its policy in one step. It prints what changed; relay,\n"
	  "pass-env, unix-socket, share-tmp, audit-log and host-settle-ms changes are\n"
	  "reported as needing a restart. A configuration error leaves the running policy as it\n"
	  "was. Temporary 'allow' and 'deny' changes end here.\n\n"
	  "Options:\n"
	  "  --jail ID          only this jail (default: every running jail)\n\n"
	  "Exit status: 0 when every jail reloaded, 1 when one did not or none runs.\n" },
	{ "allow", cmd_allow, CLI_OPT_JAIL | CLI_OPT_ARGS, "[--jail ID] IP[:PORT]",
	  "Allow an address (every port, or PORT) in running jails, for now.",
	  "The change lasts until the jail ends or the next 'ebpfjail reload', and is\n"
	  "recorded in the audit log. For a lasting change, add allow-ip to the\n"
	  "configuration and reload.\n\n"
	  "Options:\n"
	  "  --jail ID          only this jail (default: every running jail)\n" },
	{ "deny", cmd_deny, CLI_OPT_JAIL | CLI_OPT_ARGS, "[--jail ID] IP[:PORT]",
	  "Deny an address (every port, or PORT) in running jails, for now.",
	  "Wins over allow-ip and earlier 'allow' of the same address until the jail\n"
	  "ends or the next 'ebpfjail reload'; recorded in the audit log.\n\n"
	  "Options:\n"
	  "  --jail ID          only this jail (default: every running jail)\n" },
	{ "config", cmd_config, CLI_OPT_POLICY | CLI_OPT_ARGS, "[OPTIONS] [KEY]",
	  "Print the effective configuration and where each value came from.",
	  "Sources, each overriding or adding to the one before:\n"
	  "  " CONFIG_SYSTEM_PATH ", then ~/" CONFIG_USER_RELPATH " (SUDO_USER's under sudo)\n"
	  "  or the --config FILE, then EBPFJAIL_<KEY> variables, then the options\n"
	  "  --allow-ip, --local-port, --callback-port, --pass-env as for 'run'.\n"
	  "With KEY, only that key's lines.\n\n"
	  "Exit status: 0 when the configuration is valid (warnings allowed), 1 when not.\n" },
	{ "trust", cmd_trust, CLI_OPT_USER | CLI_OPT_YES, "[--config FILE] [--user USER|UID] [--yes]",
	  "Approve the lines of a configuration file that loosen the jail.",
	  "The agent runs as its user and can change that user's files, so lines that\n"
	  "loosen the jail (allow-ip, local-port, local-model-port, callback-port,\n"
	  "pass-env, unix-socket, egress-jail = off, share-tmp = on) count, in a file\n"
	  "the agent could have written, only once root approved them here. The file\n"
	  "(default: the invoking user's ~/" CONFIG_USER_RELPATH ", or --config FILE)\n"
	  "is read once and checked; its loosening lines are shown, the new ones\n"
	  "marked and the approved ones no longer in the file as withdrawn, and root\n"
	  "is asked on the terminal before they are approved for agents of that user\n"
	  "(SUDO_USER, or --user). With no terminal, nothing is approved unless --yes\n"
	  "is given. 'run' as root withdraws the approval of a line the file no\n"
	  "longer holds, so a line deleted and added again needs approval again.\n"
	  "After a change, 'run' refuses and 'reload' keeps the running policy until\n"
	  "the file is approved again. Lines that tighten (block-cidr, share-tmp =\n"
	  "off) never need approval. Run it as root (sudo), outside any jail.\n\n"
	  "Options:\n"
	  "  --config FILE      approve this file\n"
	  "  --user USER|UID    for agents of this user (default: the one calling sudo)\n"
	  "  --yes              approve without asking (for scripts)\n\n"
	  "Exit status: 0 when approved (or nothing needs approval), 1 when not\n"
	  "(refused at the question, no terminal to ask on, an invalid file).\n" },
	{ "help", cmd_help, CLI_OPT_COMMAND, "[COMMAND]", "Show help for ebpfjail or a COMMAND.",
	  NULL },
	{ NULL, NULL, 0, NULL, NULL, NULL },
};

int cli_print_main_help(void)
{
	const struct command *c;

	printf("Usage: ebpfjail COMMAND [OPTIONS]\n\n"
	       "Run an AI coding agent where it reaches the internet, DNS and the addresses\n"
	       "you allow, and nothing else: no private networks, host services or cloud\n"
	       "metadata. Enforced in the kernel by eBPF; fails closed.\n\n"
	       "Commands:\n");
	for (c = commands; c->name; c++)
		printf("  %-8s %s\n", c->name, c->summary);
	printf("\nOptions:\n"
	       "  -h, --help     this help ('ebpfjail help COMMAND' for a command's)\n"
	       "  --version      print the version\n\n"
	       "Example: sudo ebpfjail run claude\n");
	return 0;
}

static int cmd_help(const struct command *cmd, int argc, char **argv)
{
	struct cli_options o;
	const struct command *target;
	int ret = cli_parse(cmd, argc, argv, &o);

	cli_options_free(&o);
	if (ret != CLI_CONTINUE)
		return ret;
	if (o.n_rest == 0) {
		return cli_print_main_help();
	}
	if (o.n_rest > 1)
		return cli_usage_error(cmd, "help: one command at a time");
	target = cli_find_command(o.rest[0]);
	if (!target)
		return cli_usage_error(cmd, "help: unknown command '%s'", o.rest[0]);
	cli_print_help(target);
	return 0;
}

