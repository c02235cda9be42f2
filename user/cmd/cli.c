// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cli.c - shared option parsing and loading the configuration from every source */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/fsuid.h>

#include "agent.h"
#include "cli.h"
#include "log.h"
#include "trust.h"

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
	OPT_ALLOW_HOST,
	OPT_DENY_HOST,
	OPT_PROFILE,
	OPT_INTERNET,
	OPT_LOCAL_PORT,
	OPT_CALLBACK_PORT,
	OPT_PASS_ENV,
	OPT_ENGINE,
	OPT_USER,
	OPT_JSON,
	OPT_FOLLOW,
	OPT_SINCE,
	OPT_JAIL,
	OPT_SUGGEST,
	OPT_YES,
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
	{ { "allow-host", required_argument, NULL, OPT_ALLOW_HOST }, CLI_OPT_POLICY, "allow-host",
	  "--allow-host" },
	{ { "deny-host", required_argument, NULL, OPT_DENY_HOST }, CLI_OPT_POLICY, "deny-host",
	  "--deny-host" },
	{ { "profile", required_argument, NULL, OPT_PROFILE }, CLI_OPT_POLICY, "profile",
	  "--profile" },
	{ { "internet", required_argument, NULL, OPT_INTERNET }, CLI_OPT_POLICY, "internet",
	  "--internet" },
	{ { "local-port", required_argument, NULL, OPT_LOCAL_PORT }, CLI_OPT_POLICY, "local-port", "--local-port" },
	{ { "callback-port", required_argument, NULL, OPT_CALLBACK_PORT }, CLI_OPT_POLICY,
	  "callback-port", "--callback-port" },
	{ { "pass-env", required_argument, NULL, OPT_PASS_ENV }, CLI_OPT_POLICY, "pass-env", "--pass-env" },
	{ { "engine", required_argument, NULL, OPT_ENGINE }, CLI_OPT_POLICY, "engine", "--engine" },
	{ { "user", required_argument, NULL, OPT_USER }, CLI_OPT_USER, NULL, NULL },
	{ { "json", no_argument, NULL, OPT_JSON }, CLI_OPT_JSON, NULL, NULL },
	{ { "follow", no_argument, NULL, OPT_FOLLOW }, CLI_OPT_AUDIT, NULL, NULL },
	{ { "since", required_argument, NULL, OPT_SINCE }, CLI_OPT_AUDIT, NULL, NULL },
	{ { "jail", required_argument, NULL, OPT_JAIL }, CLI_OPT_AUDIT | CLI_OPT_JAIL, NULL, NULL },
	{ { "suggest", no_argument, NULL, OPT_SUGGEST }, CLI_OPT_AUDIT, NULL, NULL },
	{ { "yes", no_argument, NULL, OPT_YES }, CLI_OPT_YES, NULL, NULL },
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
		case OPT_SUGGEST:
			o->suggest = true;
			break;
		case OPT_YES:
			o->yes = true;
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

/* The invoking user's ~/.config/ebpfjail.conf. Under sudo that is
 * SUDO_USER's, not root's: the user configured the jail, root only runs it. */
int cli_user_config_path(char *buf, size_t size)
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
	return 0;
}

/* read_as() - config_read_file() with @pw's file-system identity and
 * groups; root's own come back after. Return: as config_read_file(), or
 * -EPERM (logged) if the identity could not be taken. */
static int read_as(struct config *cfg, const struct passwd *pw, const char *path,
		   bool must_exist, struct config_text *text)
{
	gid_t saved[256], groups[256];
	int n_saved = getgroups(256, saved), n = 256, ret;

	if (n_saved < 0 || getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0 ||
	    setgroups((size_t)n, groups))
		return log_err(-EPERM, "cannot take %s's identity to read %s", pw->pw_name, path);
	setfsgid(pw->pw_gid);
	setfsuid(pw->pw_uid);
	ret = config_read_file(cfg, path, must_exist, text);
	setfsuid(0);
	setfsgid(0);
	if (setgroups((size_t)n_saved, saved))
		abort(); /* root's groups are gone: nothing sane to go on with */
	return ret;
}

int cli_read_file(struct config *cfg, const char *path, bool must_exist,
		  struct config_text *text)
{
	const char *sudo_user = getenv("SUDO_USER");
	struct passwd *pw = NULL;

	/* Root following a path somebody else controls would read any file
	 * on the machine (the agent links its file to /etc/shadow, or to a
	 * file of root's group) and echo its lines in error messages: a file
	 * whose path root alone controls is read as root, any other with the
	 * invoking user's identity, groups included. */
	if (geteuid() == 0 && sudo_user && *sudo_user && !trust_path_root_only(path))
		pw = getpwnam(sudo_user);
	if (pw && pw->pw_uid != 0)
		return read_as(cfg, pw, path, must_exist, text);
	return config_read_file(cfg, path, must_exist, text);
}

/* load_file() - one configuration file, with what it may loosen */
static void load_file(struct config *cfg, const char *path, bool must_exist, uid_t agent_uid)
{
	struct config_approval approval = { 0 };
	struct config_text text;
	size_t i;
	int err;

	if (cli_read_file(cfg, path, must_exist, &text) <= 0)
		return;
	/* An approval that cannot be read approves nothing: the loosening
	 * lines are refused and named, never taken unseen. */
	err = trust_judge(path, &text.st, agent_uid, &approval);
	if (err)
		log_warn("%s: its approval cannot be read (%s): its lines that loosen the jail "
			 "count as not approved", path, strerror(-err));
	if (approval.n_lines)
		approval.found = calloc(approval.n_lines, sizeof(*approval.found));
	config_parse(cfg, path, text.data, text.len, &approval);
	/* Root reads the file as it is now: an approved line it no longer
	 * holds loses its approval, so one deleted and added again needs
	 * `trust` again (trust_withdraw_unfound()). */
	if (geteuid() == 0 && approval.found) {
		err = trust_withdraw_unfound(path, agent_uid, &approval);
		for (i = 0; err > 0 && i < approval.n_lines; i++)
			if (!approval.found[i])
				log_info("%s: '%s' is no longer in it: its approval is withdrawn "
					 "(added again, it needs 'sudo ebpfjail trust' again)", path,
					 approval.lines[i]);
		if (err < 0)
			log_warn("%s: the approval of lines no longer in it cannot be withdrawn "
				 "(%s)", path, strerror(-err));
	}
	free(approval.found);
	trust_approval_free(&approval);
	config_text_free(&text);
}

/* profile_path() - the file of profile @name: in the profiles beside
 * this binary (a build tree's build/profiles), else in its prefix's data
 * directory (PREFIX/bin/ebpfjail: PREFIX/share/ebpfjail/profiles).
 * Return: 0, or -errno. */
static int profile_path(const char *name, char *buf, size_t size)
{
	char exe[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe));
	size_t len;

	/* Where this binary is, never the environment: an agent that could
	 * name the directory would write its own "github" profile. */
	if (n <= 0)
		return -errno;
	if ((size_t)n == sizeof(exe))
		return -ENAMETOOLONG;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if ((size_t)snprintf(buf, size, "%s/profiles", exe) >= size) /* a build tree */
		return -ENAMETOOLONG;
	if (access(buf, F_OK)) {
		slash = strrchr(exe, '/'); /* PREFIX/bin: PREFIX/share/... */
		if (slash)
			*slash = '\0';
		if ((size_t)snprintf(buf, size, "%s/share/ebpfjail/profiles", exe) >= size)
			return -ENAMETOOLONG;
	}
	len = strlen(buf);
	if ((size_t)snprintf(buf + len, size - len, "/%s.conf", name) >= size - len)
		return -ENAMETOOLONG;
	return 0;
}

/* load_profiles() - each profile = NAME's allow-host lines (a profile is
 * root's file, all the way up: its lines are taken unapproved) */
static void load_profiles(struct config *cfg)
{
	size_t i, n = cfg->n_profile;

	for (i = 0; i < n; i++) {
		const struct config_name *p = &cfg->profile[i];
		struct config_text text;
		char path[4096];
		int err = profile_path(p->name, path, sizeof(path));

		if (err) {
			config_error(cfg, &p->origin, "profile %s: cannot find the profiles: %s",
				     p->name, strerror(-err));
			continue;
		}
		err = config_read_file(cfg, path, false, &text);
		if (err == 0)
			config_error(cfg, &p->origin, "profile %s: no such profile (%s)", p->name, path);
		if (err <= 0)
			continue;
		/* The file as read and every directory above it: a profile
		 * is taken without approval. */
		if (!trust_root_only(&text.st, false) || !trust_path_root_only(path))
			config_error(cfg, &p->origin,
				     "profile %s: %s is not root's alone (a profile is taken without "
				     "approval, so only root may change it or a directory above it)",
				     p->name, path);
		else
			config_parse_profile(cfg, path, text.data, text.len);
		config_text_free(&text);
	}
}

uid_t cli_agent_uid(const struct cli_options *o)
{
	struct agent_user u;
	char why[256];

	if (!agent_user_resolve(o->user, environ, &u, why, sizeof(why)))
		return u.uid;
	return getuid() ? getuid() : CLI_AGENT_UNKNOWN; /* a user's own `ebpfjail config` */
}

void cli_read_config(struct config *cfg, const struct cli_options *o, uid_t agent_uid)
{
	char user_path[4096];
	size_t i;

	load_file(cfg, CONFIG_SYSTEM_PATH, false, agent_uid);
	if (o->config_path)
		load_file(cfg, o->config_path, true, agent_uid);
	else if (cli_user_config_path(user_path, sizeof(user_path)) == 0)
		load_file(cfg, user_path, false, agent_uid);
	config_apply_env(cfg, environ);
	for (i = 0; i < o->n_flags; i++) {
		struct config_origin origin = { .source = SOURCE_FLAG, .name = o->flags[i].flag };

		config_set(cfg, o->flags[i].key, o->flags[i].value, &origin);
	}
	load_profiles(cfg);
	config_finish(cfg);
}

void cli_trust_hint(const struct config *cfg, const struct cli_options *o, uid_t agent_uid,
		    char *buf, size_t size)
{
	char user_path[4096] = "";
	size_t len = 0, i, k;

	buf[0] = '\0';
	if (agent_uid == 0) {
		snprintf(buf, size, "an agent run as root takes them from run's options only "
				    "(--allow-ip, --local-port, --callback-port, --pass-env) and "
				    "EBPFJAIL_* variables (EBPFJAIL_UNIX_SOCKET, EBPFJAIL_SHARE_TMP)");
		return;
	}
	cli_user_config_path(user_path, sizeof(user_path));
	for (i = 0; i < cfg->n_unapproved && len < size; i++) {
		const char *file = cfg->unapproved[i].origin.name;
		bool named = false;

		for (k = 0; k < i && !named; k++)
			named = cfg->unapproved[k].origin.name == file; /* interned */
		if (named)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%ssudo ebpfjail trust", len ? "; " : "");
		if (len < size && strcmp(file, user_path))
			len += (size_t)snprintf(buf + len, size - len, " --config %s", file);
		if (len < size && (o->user || agent_uid == 0))
			len += (size_t)snprintf(buf + len, size - len, " --user %u",
						(unsigned int)agent_uid);
	}
}

int cli_load_config(struct config *cfg, const struct cli_options *o, uid_t agent_uid)
{
	size_t i;

	cli_read_config(cfg, o, agent_uid);
	for (i = 0; i < cfg->n_diags; i++) {
		if (cfg->diags[i].severity == CONFIG_ERROR)
			log_err(0, "%s", cfg->diags[i].text);
		else
			log_warn("%s", cfg->diags[i].text);
	}
	return config_ok(cfg) ? 0 : -EINVAL;
}
