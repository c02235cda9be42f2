/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* cli.h - the command table, shared option parsing, loading the configuration */
#ifndef EBPFJAIL_CLI_H
#define EBPFJAIL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config.h"
#include "trust.h"

/* Exit statuses of ebpfjail itself (docs/DESIGN.md, "Commands and exit statuses"). */
#define EXIT_TROUBLE 1   /* doctor found a problem, config is invalid */
#define EXIT_USAGE 2     /* bad command line */
#define EXIT_REFUSED 125 /* run refused or failed before the command ran */
#define CLI_CONTINUE (-1) /* cli_parse(): no exit yet */

/* Which options a command takes, beyond --config, -v, -q and -h. */
enum cli_option_set {
	CLI_OPT_POLICY = 1 << 0, /* --allow-ip --local-port --callback-port --pass-env */
	CLI_OPT_USER = 1 << 1,   /* --user */
	CLI_OPT_JSON = 1 << 2,   /* --json */
	CLI_OPT_AUDIT = 1 << 3,  /* --follow --since --jail --suggest */
	CLI_OPT_COMMAND = 1 << 4, /* stop at the first non-option: COMMAND [ARG...] */
	CLI_OPT_JAIL = 1 << 5,   /* --jail (audit has it too) */
	CLI_OPT_ARGS = 1 << 6,   /* positional arguments among the options */
	CLI_OPT_YES = 1 << 7,    /* --yes: do it without asking */
};

struct cli_flag_value {
	const char *key;  /* config key */
	const char *flag; /* "--allow-ip" */
	const char *value;
};

struct cli_options {
	const char *config_path; /* --config, or NULL */
	const char *user;        /* --user */
	const char *since;       /* --since */
	const char *jail;        /* --jail */
	bool json, follow, suggest, yes;
	struct cli_flag_value *flags; /* policy flags, in command-line order */
	size_t n_flags;
	char **rest; /* positional arguments (the command for run) */
	int n_rest;
};

struct command {
	const char *name;
	int (*run)(const struct command *cmd, int argc, char **argv);
	unsigned int options; /* enum cli_option_set */
	const char *synopsis; /* what follows the name in usage lines */
	const char *summary;  /* one line for `ebpfjail help` */
	const char *help;     /* the options and details for `help COMMAND` */
};

extern const struct command commands[];

/** cli_find_command() - the command called @name, or NULL */
const struct command *cli_find_command(const char *name);

/** cli_print_main_help() - the list of commands on stdout; returns 0 */
int cli_print_main_help(void);

/** cli_print_help() - the full help of @cmd on stdout */
void cli_print_help(const struct command *cmd);

/**
 * cli_usage_error() - print "ebpfjail: MESSAGE" and a one-line hint
 * Return: EXIT_USAGE.
 */
int cli_usage_error(const struct command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * cli_parse() - parse a command's options
 * @argv: argv[0] is the command name
 *
 * Return: CLI_CONTINUE to go on, or an exit status to return now (help
 * printed: 0, usage error: EXIT_USAGE). Free @o with cli_options_free().
 */
int cli_parse(const struct command *cmd, int argc, char **argv, struct cli_options *o);

void cli_options_free(struct cli_options *o);

/**
 * cli_load_config() - read every configuration source, in the documented
 * order (docs/DESIGN.md, "Configuration"):
 * /etc/ebpfjail.conf, the invoking user's ~/.config/ebpfjail.conf or
 * --config, EBPFJAIL_* variables, the command-line flags in @o.
 * Diagnostics are printed; warnings do not fail.
 *
 * Return: 0 when the configuration is valid, -EINVAL when it is not.
 */
int cli_load_config(struct config *cfg, const struct cli_options *o, uid_t agent_uid);

/* The commands, one file each (cmd_NAME.c). */
int cmd_run(const struct command *cmd, int argc, char **argv);
int cmd_config(const struct command *cmd, int argc, char **argv);
int cmd_audit(const struct command *cmd, int argc, char **argv);
int cmd_doctor(const struct command *cmd, int argc, char **argv);
int cmd_status(const struct command *cmd, int argc, char **argv);
int cmd_reload(const struct command *cmd, int argc, char **argv);
int cmd_allow(const struct command *cmd, int argc, char **argv);
int cmd_deny(const struct command *cmd, int argc, char **argv);
int cmd_trust(const struct command *cmd, int argc, char **argv);

/** cli_read_config() - the same, printing nothing: diagnostics stay in @cfg */
void cli_read_config(struct config *cfg, const struct cli_options *o, uid_t agent_uid);

/* The agent's uid when nobody says who it is (root without sudo or --user):
 * a uid no approval is for, so only root-controlled files loosen. */
#define CLI_AGENT_UNKNOWN TRUST_ANY_USER

/** cli_agent_uid() - who an agent would run as (--user, SUDO_UID), or CLI_AGENT_UNKNOWN */
uid_t cli_agent_uid(const struct cli_options *o);

/**
 * cli_read_file() - config_read_file() of one configuration file, as the
 * invoking user (identity and groups) unless root alone controls its path
 * @cfg: where a diagnostic goes
 * @path: the file
 * @must_exist: a missing file is an error rather than skipped
 * @text: the bytes and the descriptor's stat, on success
 * Return: 1 read, 0 absent and may be, -errno (a diagnostic was recorded).
 */
int cli_read_file(struct config *cfg, const char *path, bool must_exist,
		  struct config_text *text);

/** cli_user_config_path() - ~/.config/ebpfjail.conf of the invoking user (SUDO_USER's); 0 or -errno */
int cli_user_config_path(char *buf, size_t size);

/**
 * cli_trust_hint() - the command(s) that approve @cfg's unapproved lines,
 * "sudo ebpfjail trust [--config FILE] [--user UID]", one per file
 */
void cli_trust_hint(const struct config *cfg, const struct cli_options *o, uid_t agent_uid,
		    char *buf, size_t size);

#endif /* EBPFJAIL_CLI_H */
