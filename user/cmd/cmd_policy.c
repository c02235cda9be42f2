// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_policy.c - `ebpfjail reload`, `allow` and `deny`: ask running jails to
 * change their policy, over each one's control socket (see control.c) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "control.h"
#include "jailstate.h"
#include "log.h"

/* caller_uid() - who asked, for the audit log: the user behind sudo. */
static unsigned long caller_uid(void)
{
	const char *s = getenv("SUDO_UID");
	char *end;

	if (s && *s) {
		unsigned long uid;

		errno = 0;
		uid = strtoul(s, &end, 10);
		if (!errno && !*end)
			return uid;
	}
	return getuid();
}

/* print_reply() - the first line ("ok ..." or "error ...") to stdout or
 * stderr, the diagnostics after it (errors, warnings) to stderr.
 * Return: whether the jail said ok. */
static bool print_reply(const char *reply)
{
	bool ok = !strncmp(reply, "ok ", 3);
	size_t skip = ok ? 3 : !strncmp(reply, "error ", 6) ? 6 : 0;
	size_t len = strcspn(reply, "\n");

	fprintf(ok ? stdout : stderr, "%s%.*s\n", ok ? "" : "ebpfjail: ", (int)(len - skip),
		reply + skip);
	for (reply += len; reply[0] == '\n' && reply[1]; reply += len) {
		reply++;
		len = strcspn(reply, "\n");
		fprintf(stderr, "ebpfjail: %.*s\n", (int)len, reply);
	}
	return ok;
}

/* send_to_jails() - @request to every running jail, or to @only */
static int send_to_jails(const char *only, const char *request)
{
	struct jail_status *st = NULL;
	size_t n = 0, i, asked = 0, failed = 0;
	char dir[4096 + JAIL_ID_LEN + 2], reply[CONTROL_MAX_REPLY];
	int err;

	/* Root's jails are root's alone (see control.c); a user reaches its
	 * own rootless jails, in its own runtime directory. */
	err = jailstate_list(&st, &n);
	if (err && err != -ENOENT)
		return log_err(EXIT_TROUBLE, "cannot list the jails in %s: %s", jailstate_dir(),
			       strerror(-err));
	for (i = 0; i < n; i++) {
		if (!st[i].alive || (only && strcmp(only, st[i].id)))
			continue;
		asked++;
		snprintf(dir, sizeof(dir), "%s/%s", jailstate_dir(), st[i].id);
		err = control_request(dir, request, reply, sizeof(reply));
		if (err == -EPROTO) {
			log_err(0, "jail %s: its control socket is served from inside a jail, not by "
				"its supervisor; nothing was sent (see 'ebpfjail status')", st[i].id);
			failed++;
			continue;
		}
		if (err || !reply[0]) {
			log_err(0, "jail %s did not answer (%s); is it still starting?", st[i].id,
				err ? strerror(-err) : "no reply");
			failed++;
			continue;
		}
		if (!print_reply(reply))
			failed++;
	}
	free(st);
	if (!asked)
		return log_err(EXIT_TROUBLE, only ? "no running jail has the id '%s'%s" :
						    "no jail is running%s%s",
			       only ? only : "", jailstate_others_hint());
	return failed ? EXIT_TROUBLE : 0;
}

int cmd_reload(const struct command *cmd, int argc, char **argv)
{
	char request[CONTROL_MAX_REQUEST];
	struct cli_options o;
	int ret = cli_parse(cmd, argc, argv, &o);

	if (ret == CLI_CONTINUE) {
		snprintf(request, sizeof(request), "reload %lu", caller_uid());
		ret = send_to_jails(o.jail, request);
	}
	cli_options_free(&o);
	return ret;
}

static int allow_or_deny(const struct command *cmd, int argc, char **argv)
{
	struct config_origin origin = { .source = SOURCE_FLAG, .name = cmd->name };
	char request[CONTROL_MAX_REQUEST];
	struct cli_options o;
	struct config scratch;
	int ret = cli_parse(cmd, argc, argv, &o);

	if (ret != CLI_CONTINUE)
		goto out;
	if (o.n_rest != 1) {
		ret = cli_usage_error(cmd, "%s: give one IP[:PORT]", cmd->name);
		goto out;
	}
	/* Checked here with allow-ip's own rules, so a typo gets its message
	 * before any jail is asked. */
	config_init(&scratch);
	if (config_set(&scratch, "allow-ip", o.rest[0], &origin) || !config_ok(&scratch)) {
		ret = cli_usage_error(cmd, "%s",
				      scratch.n_diags ? scratch.diags[0].text : "invalid address");
		config_free(&scratch);
		goto out;
	}
	if (scratch.n_diags) /* a warning: allowing a metadata address */
		log_warn("%s", scratch.diags[0].text);
	config_free(&scratch);
	snprintf(request, sizeof(request), "%s %s %lu", cmd->name, o.rest[0], caller_uid());
	ret = send_to_jails(o.jail, request);
out:
	cli_options_free(&o);
	return ret;
}

int cmd_allow(const struct command *cmd, int argc, char **argv)
{
	return allow_or_deny(cmd, argc, argv);
}

int cmd_deny(const struct command *cmd, int argc, char **argv)
{
	return allow_or_deny(cmd, argc, argv);
}
