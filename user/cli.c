// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cli.c - shared option parsing and loading the configuration from every source */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/fsuid.h>

#include "cli.h"
#include "log.h"

extern char **environ;

const struct command *cli_find_command(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void cli_print_help(const struct command *cmd)
{
	printf("Usage: ebpfjail %s %s\n\n%s\n", cmd->name, cmd->synopsis, cmd->summary);
	if (cmd->help && cmd->help[0])
		printf("\n%s", cmd->help);
	printf("\nCommon options:\n"
	       "  --config FILE    read FILE instead of ~/.config/ebpfjail.conf\n"
	       "  -v, --verbose    say more (debug messages, libbpf's own)\n"
	       "  -q, --quiet      only errors\n"
	       "  -h, --help       this help\n");
}

int cli_usage_error(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("ebpfjail: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, " (try 'ebpfjail help %s')\n", cmd->name);
	else
		fputs(" (try 'ebpfjail help')\n", stderr);
	return EXIT_USAGE;
}

enum {
	OPT_CONFIG = 0x100,
	OPT_ALLOW_IP,
	OPT_LOCAL_PORT,
	OPT_CALLBACK_PORT,
	OPT_PASS_ENV,
	OPT_USER,
	OPT_JSON,
	OPT_FOLLOW,
	OPT_SINCE,
	OPT_JAIL,
};

struct option_def {
	struct option opt;
	unsigned int set; /* 0: every command */
	const char *key;  /* config key set by a policy flag */
	const char *flag; /* its name in origins: "--allow-ip" */
};

static const struct option_def option_defs[] = {
	{ { "config", required_argument, NULL, OPT_CONFIG }, 0, NULL, NULL },
	{ { "verbose", no_argument, NULL, 'v' }, 0, NULL, NULL },
	{ { "quiet", no_argument, NULL, 'q' }, 0, NULL, NULL },
	{ { "help", no_argument, NULL, 'h' }, 0, NULL, NULL },
	{ { "allow-ip", required_argument, NULL, OPT_ALLOW_IP }, CLI_OPT_POLICY, "allow-ip", "--allow-ip" },
	{ { "local-port", required_argument, NULL, OPT_LOCAL_PORT }, CLI_OPT_POLICY, "local-port", "--local-port" },
	{ { "callback-port", required_argument, NULL, OPT_CALLBACK_PORT }, CLI_OPT_POLICY,
	  "callback-port", "--callback-port" },
	{ { "pass-env", required_argument, NULL, OPT_PASS_ENV }, CLI_OPT_POLICY, "pass-env", "--pass-env" },
	{ { "user", required_argument, NULL, OPT_USER }, CLI_OPT_USER, NULL, NULL },
	{ { "json", no_argument, NULL, OPT_JSON }, CLI_OPT_JSON, NULL, NULL },
	{ { "follow", no_argument, NULL, OPT_FOLLOW }, CLI_OPT_AUDIT, NULL, NULL },
	{ { "since", required_argument, NULL, OPT_SINCE }, CLI_OPT_AUDIT, NULL, NULL },
	{ { "jail", required_argument, NULL, OPT_JAIL }, CLI_OPT_AUDIT | CLI_OPT_JAIL, NULL, NULL },
};

#define N_OPTION_DEFS (sizeof(option_defs) / sizeof(option_defs[0]))

int cli_parse(const struct command *cmd, int argc, char **argv, struct cli_options *o)
{
	struct option longopts[N_OPTION_DEFS + 1];
	size_t n = 0, i;
	int c;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < N_OPTION_DEFS; i++)
		if (!option_defs[i].set || (cmd->options & option_defs[i].set))
			longopts[n++] = option_defs[i].opt;
	memset(&longopts[n], 0, sizeof(longopts[n]));

	/* "+": stop at the first non-option, so `run -- cmd -v` or
	 * `run cmd -v` leaves -v to cmd. ":": we print our own errors. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, cmd->options & CLI_OPT_COMMAND ? "+:vqh" : ":vqh",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_print_help(cmd);
			return EXIT_SUCCESS;
		case 'v':
			log_set_level(LOG_DEBUG);
			break;
		case 'q':
			log_set_level(LOG_ERR);
			break;
		case OPT_CONFIG:
			o->config_path = optarg;
			break;
		case OPT_USER:
			o->user = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_FOLLOW:
			o->follow = true;
			break;
		case OPT_SINCE:
			o->since = optarg;
			break;
		case OPT_JAIL:
			o->jail = optarg;
			break;
		case ':':
			return cli_usage_error(cmd, "%s: option '%s' needs a value", cmd->name,
					       argv[optind - 1]);
		case '?':
			return cli_usage_error(cmd, "%s: unknown option '%s'", cmd->name,
					       argv[optind - 1]);
		default:
			for (i = 0; i < N_OPTION_DEFS; i++) {
				struct cli_flag_value *f;

				if (option_defs[i].opt.val != c || !option_defs[i].key)
					continue;
				o->flags = reallocarray(o->flags, o->n_flags + 1, sizeof(*o->flags));
				if (!o->flags)
					return log_err(EXIT_USAGE, "out of memory");
				f = &o->flags[o->n_flags++];
				f->key = option_defs[i].key;
				f->flag = option_defs[i].flag;
				f->value = optarg;
			}
			break;
		}
	}
	o->rest = argv + optind;
	o->n_rest = argc - optind;
	if (o->n_rest > 0 && !(cmd->options & (CLI_OPT_COMMAND | CLI_OPT_ARGS)))
		return cli_usage_error(cmd, "%s: unexpected argument '%s'", cmd->name, o->rest[0]);
	return CLI_CONTINUE;
}

void cli_options_free(struct cli_options *o)
{
	free(o->flags);
	o->flags = NULL;
}

/* user_config_path() - the invoking user's ~/.config/ebpfjail.conf.
 * Under sudo that is SUDO_USER's, not root's: the user configured the jail,
 * root only runs it. */
static int user_config_path(char *buf, size_t size, uid_t *uid, gid_t *gid)
{
	const char *sudo_user = getenv("SUDO_USER");
	struct passwd *pw = NULL;

	if (getuid() == 0 && sudo_user && *sudo_user)
		pw = getpwnam(sudo_user);
	if (!pw)
		pw = getpwuid(getuid());
	if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
		return -ENOENT;
	if ((size_t)snprintf(buf, size, "%s/%s", pw->pw_dir, CONFIG_USER_RELPATH) >= size)
		return -ENAMETOOLONG;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

/* load_as_user() - read the user's file with the user's file-system identity.
 * Root following a user-controlled path would read any file on the machine
 * (a symlink to /etc/shadow) and echo its lines in error messages. */
static void load_as_user(struct config *cfg, const char *path, uid_t uid, gid_t gid)
{
	bool switch_id = geteuid() == 0 && uid != 0;

	if (switch_id) {
		setfsgid(gid);
		setfsuid(uid);
	}
	config_load_file(cfg, path, false);
	if (switch_id) {
		setfsuid(0);
		setfsgid(0);
	}
}

void cli_read_config(struct config *cfg, const struct cli_options *o)
{
	char user_path[4096];
	uid_t uid;
	gid_t gid;
	size_t i;

	config_load_file(cfg, CONFIG_SYSTEM_PATH, false);
	if (o->config_path)
		config_load_file(cfg, o->config_path, true);
	else if (user_config_path(user_path, sizeof(user_path), &uid, &gid) == 0)
		load_as_user(cfg, user_path, uid, gid);
	config_apply_env(cfg, environ);
	for (i = 0; i < o->n_flags; i++) {
		struct config_origin origin = { .source = SOURCE_FLAG, .name = o->flags[i].flag };

		config_set(cfg, o->flags[i].key, o->flags[i].value, &origin);
	}
	config_finish(cfg);
}

int cli_load_config(struct config *cfg, const struct cli_options *o)
{
	size_t i;

	cli_read_config(cfg, o);
	for (i = 0; i < cfg->n_diags; i++) {
		if (cfg->diags[i].severity == CONFIG_ERROR)
			log_err(0, "%s", cfg->diags[i].text);
		else
			log_warn("%s", cfg->diags[i].text);
	}
	return config_ok(cfg) ? 0 : -EINVAL;
}
