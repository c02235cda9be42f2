// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_trust.c - `ebpfjail trust`: approve the lines of a configuration file
 * that loosen the jail, for a file the agent could have written
 *
 * The file is read once; those bytes are checked (an invalid file approves
 * nothing) and their loosening lines shown, then approved once root said
 * yes (or gave --yes), so what root approves is exactly what it was shown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "agent.h"
#include "cli.h"
#include "trust.h"

extern char **environ;

/* have_cap() - whether this process holds @cap in its effective set */
static bool have_cap(unsigned int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

/* has_line() - is @line one of @lines */
static bool has_line(char *const *lines, size_t n, const char *line)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(lines[i], line))
			return true;
	return false;
}

/* show() - what approving @lines would do: each loosening line of @found
 * (new ones marked), and each line of @old that goes. Return: how many are
 * new. */
static size_t show(const struct config *found, const struct config *checked,
		   const struct config_approval *old, char *const *lines, size_t n)
{
	size_t i, fresh = 0;

	for (i = 0; i < found->n_unapproved; i++) {
		const struct config_name *line = &found->unapproved[i];
		bool overridden = config_overridden(checked, line);
		bool known = has_line(old->lines, old->n_lines, line->name);

		printf("  line %u: %s%s\n", line->origin.line, line->name,
		       overridden ? "  (set again below: not approved)" : known ? "" : "  (new)");
		fresh += !overridden && !known;
	}
	for (i = 0; i < old->n_lines; i++)
		if (!has_line(lines, n, old->lines[i]))
			printf("  withdrawn: %s\n", old->lines[i]);
	if (!n)
		printf("  no line of it loosens the jail\n");
	return fresh;
}

/* confirmed() - root said yes on the terminal. The attack: a tool (or an
 * agent's script) that runs `sudo ebpfjail trust` for the user would get
 * every line it planted approved unseen; root must see them first. With no
 * terminal to ask on, only --yes approves. */
static bool confirmed(bool yes, size_t fresh)
{
	char answer[16];

	if (yes)
		return true;
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, "ebpfjail: trust: nothing approved: no terminal to ask on (--yes "
				"approves without asking)\n");
		return false;
	}
	printf("Approve %zu new line%s? [y/N] ", fresh, fresh == 1 ? "" : "s");
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin) ||
	    (strcmp(answer, "y\n") && strcmp(answer, "yes\n"))) {
		fprintf(stderr, "ebpfjail: trust: nothing approved\n");
		return false;
	}
	return true;
}

/* approve() - show what approving @lines would change, ask for what is new,
 * then save @lines as the file's approval; @found has every loosening line
 * with its number, @checked the file as read with them approved.
 * Return: 0, 1 when root said no, or -errno. */
static int approve(const char *path, const struct agent_user *u, char *const *lines, size_t n,
		   const struct config *found, const struct config *checked, bool yes)
{
	struct config_approval old;
	size_t fresh;
	int err;

	if (trust_load(path, u->uid, &old))
		fprintf(stderr, "ebpfjail: trust: the earlier approval of %s cannot be read: "
				"it is replaced, and nothing below is marked new or withdrawn "
				"against it\n", path);
	printf("%s, for agents of uid %u%s%s%s:\n", path, (unsigned int)u->uid,
	       u->name[0] ? " (" : "", u->name, u->name[0] ? ")" : "");
	fresh = show(found, checked, &old, lines, n);
	/* Only what loosens needs the question: a withdrawal tightens. */
	if (fresh && !confirmed(yes, fresh)) {
		err = 1;
		goto out;
	}
	err = trust_save(path, u->uid, lines, n);
	if (err) {
		fprintf(stderr, "ebpfjail: trust: cannot save the approval of %s: %s\n", path,
			strerror(-err));
		goto out;
	}
	printf("approved for agents of uid %u%s%s%s: %s\n", (unsigned int)u->uid,
	       u->name[0] ? " (" : "", u->name, u->name[0] ? ")" : "", path);
out:
	trust_approval_free(&old);
	return err;
}

/* check_and_approve() - @text is agent-writable: its loosening lines are
 * approved if, so approved, the file is valid */
static int check_and_approve(const char *path, const struct config_text *text,
			     const struct agent_user *u, bool yes)
{
	struct config_approval approval = { .agent_writable = true, .user_writable = true };
	struct config found, checked;
	char **lines = NULL;
	size_t i, n = 0;
	int ret = EXIT_TROUBLE;

	config_init(&found);
	config_init(&checked);
	/* Nothing approved: every loosening line is listed in found. */
	config_parse(&found, path, text->data, text->len, &approval);
	approval.lines = calloc(found.n_unapproved + 1, sizeof(*approval.lines));
	lines = calloc(found.n_unapproved + 1, sizeof(*lines));
	if (!approval.lines || !lines)
		goto out;
	for (i = 0; i < found.n_unapproved; i++)
		if (!has_line(approval.lines, approval.n_lines, found.unapproved[i].name))
			approval.lines[approval.n_lines++] = found.unapproved[i].name;
	/* As run would read it with all of them approved: any error left is
	 * real. */
	config_parse(&checked, path, text->data, text->len, &approval);
	for (i = 0; i < checked.n_diags; i++)
		fprintf(stderr, "ebpfjail: %s: %s\n",
			checked.diags[i].severity == CONFIG_ERROR ? "error" : "warning",
			checked.diags[i].text);
	if (!config_ok(&checked)) {
		fprintf(stderr, "ebpfjail: trust: nothing approved: correct %s first\n", path);
		goto out;
	}
	for (i = 0; i < found.n_unapproved; i++)
		if (!config_overridden(&checked, &found.unapproved[i]) &&
		    !has_line(lines, n, found.unapproved[i].name))
			lines[n++] = found.unapproved[i].name;
	if (!approve(path, u, lines, n, &found, &checked, yes))
		ret = 0;
out:
	free(lines);
	free(approval.lines);
	config_free(&found);
	config_free(&checked);
	return ret;
}

int cmd_trust(const struct command *cmd, int argc, char **argv)
{
	struct config_text text = { 0 };
	struct cli_options o;
	struct agent_user u;
	struct config cfg;
	char path[4096], why[512];
	size_t i;
	int ret;

	ret = cli_parse(cmd, argc, argv, &o);
	if (ret != CLI_CONTINUE) {
		cli_options_free(&o);
		return ret;
	}
	config_init(&cfg);
	ret = EXIT_TROUBLE;
	/* An approval must come from root, not from an agent run as root
	 * (--user root): it holds no capabilities, so it cannot approve
	 * what it wrote into the configuration itself. */
	if (geteuid() != 0 || !have_cap(CAP_DAC_OVERRIDE)) {
		fprintf(stderr, "ebpfjail: trust: only root can approve a configuration: run it "
				"with sudo, outside any jail\n");
		goto out;
	}
	if (agent_user_resolve(o.user, environ, &u, why, sizeof(why))) {
		fprintf(stderr, "ebpfjail: trust: %s\n", why);
		goto out;
	}
	/* An agent run as root owns root's files, approvals included: none
	 * counts for it (trust.c), so none is written. */
	if (u.uid == 0) {
		fprintf(stderr, "ebpfjail: trust: nothing is approved for an agent run as root: it "
				"could write approvals itself; give it what it may reach with "
				"run's options (--allow-ip ...)\n");
		goto out;
	}
	if (o.config_path)
		snprintf(path, sizeof(path), "%s", o.config_path);
	else if (cli_user_config_path(path, sizeof(path))) {
		fprintf(stderr, "ebpfjail: trust: the invoking user has no home directory; name "
				"the file with --config FILE\n");
		goto out;
	}
	if (cli_read_file(&cfg, path, true, &text) <= 0) {
		for (i = 0; i < cfg.n_diags; i++)
			fprintf(stderr, "ebpfjail: error: %s\n", cfg.diags[i].text);
		goto out;
	}
	/* u.uid is not root here: what the agent can write is what any
	 * user but root can. */
	if (trust_agent_writable(path, &text.st, u.uid)) {
		ret = check_and_approve(path, &text, &u, o.yes);
		goto out;
	}
	printf("%s can be changed by root alone: its lines count without approval for agents "
	       "of uid %u\n", path, (unsigned int)u.uid);
	ret = 0;
out:
	config_text_free(&text);
	config_free(&cfg);
	cli_options_free(&o);
	return ret;
}
