// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_run.c - `ebpfjail run`: options, the jail, the agent, the exit status
 *
 * The command's part: read the options and configuration, resolve the
 * agent's user, have jail.c build the jail, start the agent in it, let
 * supervisor.c run the event loop, and turn what happened into the exit
 * status: the agent's own (128+N for signal N), 126/127 when it cannot be
 * executed or found, 125 with one line (the cause and the fix) when the
 * jail cannot be set up and verified or loses its network.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "agent.h"
#include "agentfs.h"
#include "builtin.h"
#include "auditlog.h"
#include "cli.h"
#include "jail.h"
#include "log.h"
#include "probe.h"
#include "supervisor.h"

extern char **environ;

/* refuse() - the one line of a fail-closed exit: the cause and the fix. */
static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int refuse(const char *fmt, ...)
{
	va_list ap;

	fputs("ebpfjail: cannot start the jail: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_REFUSED;
}

/* run_status() - what supervise() found, as run's exit status */
static int run_status(int err, int status)
{
	if (err)
		return EXIT_REFUSED; /* the cause is printed already */
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_REFUSED;
}

static int spawn_error(int err, const char *command)
{
	if (err == -ENOENT) {
		fprintf(stderr, "ebpfjail: %s: command not found\n", command);
		return 127;
	}
	if (err == -EACCES || err == -ENOEXEC || err == -EISDIR || err == -ELOOP) {
		fprintf(stderr, "ebpfjail: %s: cannot execute: %s\n", command, strerror(-err));
		return 126;
	}
	return refuse("cannot start %s: %s", command, strerror(-err));
}

static int run_unjailed(char **argv, const struct agent_user *u, const struct config *cfg)
{
	struct agent_spec spec = { .argv = argv, .user = u, .cgroup_fd = -1, .netns_fd = -1 };
	char **env = agent_env(environ, u, cfg);
	struct supervisor_loop loop = SUPERVISOR_LOOP_INIT;
	struct jail j = JAIL_INIT;
	sigset_t set;
	int err, status;

	fprintf(stderr,
		"ebpfjail: WARNING: egress-jail = off: %s runs WITHOUT the network jail; it can "
		"reach your LAN, the host's services and cloud metadata\n",
		argv[0]);
	if (!env)
		return refuse("out of memory");
	spec.envp = env;
	supervisor_block_signals(&set);
	err = supervisor_open(&loop, &j, &set);
	if (err) {
		agent_env_free(env);
		return refuse("cannot set up the supervisor's event loop: %s", strerror(-err));
	}
	err = agent_spawn(&spec, &j.proc);
	agent_env_free(env);
	if (err) {
		supervisor_close(&loop);
		return spawn_error(err, argv[0]);
	}
	err = supervise(&j, &loop, &status);
	return run_status(err, status);
}

/* start_agent() - the agent, last, into the jail's cgroup and namespace */
static int start_agent(struct jail *j, char **argv, const struct agent_user *u,
		       const struct config *cfg)
{
	struct agentfs fs = { .uid = u->uid, .gid = u->gid, .share_tmp = cfg->share_tmp,
			      .rootless = j->mode == JAIL_MODE_ROOTLESS, .own_cgroup = j->cg_fd >= 0,
			      .resolv_conf = j->resolv_conf, .denials = j->denials,
			      .n_unix_sockets = cfg->n_unix_socket };
	struct agent_spec spec = { .argv = argv, .user = u, .cgroup_fd = j->cg_fd,
				   .netns_fd = j->ns.fd, .fs = &fs,
				   .nofile = j->nofile.rlim_max ? &j->nofile : NULL,
				   .rootless = j->mode == JAIL_MODE_ROOTLESS };
	bool journal = !strcmp(cfg->audit_log, CONFIG_AUDIT_JOURNAL);
	const char *const *root_sockets;
	const char **masks;
	char log_dir[4096];
	size_t n;
	int err;

	/* Rootless, the audit log is the agent's user's file: read-only in
	 * its view (agentfs.c). */
	snprintf(log_dir, sizeof(log_dir), "%s", cfg->audit_log);
	if (!journal)
		*strrchr(log_dir, '/') = '\0';
	if (j->mode == JAIL_MODE_ROOTLESS && !journal && log_dir[0])
		fs.readonly_dir = log_dir;
	fs.unix_sockets = j->unix_sockets;
	/* With the records in the journal, its native socket is masked too:
	 * the attack is an agent that writes entries of its own with
	 * ebpfjail's identifier and fields (a rootless one as the same uid
	 * as its supervisor), which `ebpfjail audit` would show as records.
	 * syslog and stdout streams cannot set those fields. */
	root_sockets = builtin_root_sockets(&n);
	masks = calloc(n + 1, sizeof(*masks));
	if (!masks)
		return refuse("out of memory");
	memcpy(masks, root_sockets, n * sizeof(*masks));
	if (journal)
		masks[n++] = AUDIT_JOURNAL_SOCKET;
	fs.masks = masks;
	fs.n_masks = n;

	spec.envp = agent_env(environ, u, cfg);
	if (!spec.envp) {
		free(masks);
		return refuse("out of memory");
	}
	log_debug("jail %s ready: starting %s as uid %u", j->id, argv[0], u->uid);
	err = agent_spawn(&spec, &j->proc);
	agent_env_free(spec.envp);
	free(masks);
	if (err)
		return spawn_error(err, argv[0]);
	jail_protections(j, cfg->share_tmp, j->status.protections, sizeof(j->status.protections));
	supervisor_start_status(j, argv, u);
	return 0;
}

/* The sources a reload reads again: the command line's (jail_policy.h). */
static void read_sources(struct config *cfg, const void *ctx, uid_t agent_uid)
{
	cli_read_config(cfg, ctx, agent_uid);
}

static void sources_hint(const struct config *cfg, const void *ctx, uid_t agent_uid, char *hint,
			 size_t size)
{
	cli_trust_hint(cfg, ctx, agent_uid, hint, size);
}

static int run_jailed(struct cli_options *o, const struct agent_user *u, struct config *cfg,
		      bool rootless)
{
	struct supervisor_loop loop = SUPERVISOR_LOOP_INIT;
	struct jail j = JAIL_INIT;
	char line[1024];
	sigset_t set;
	int ret, err, status;

	/* The agent must not read the supervisor's memory (host-side sockets,
	 * the policy): not dumpable, so not ptrace-able even by the same uid. */
	prctl(PR_SET_DUMPABLE, 0);
	jailstate_new_id(j.id);
	/* The engine goes with the mode: BPF needs root on the host, and
	 * nftables always runs in the jail's own user namespace, also for
	 * root (engine = nftables). */
	j.mode = rootless ? JAIL_MODE_ROOTLESS : JAIL_MODE_ROOT;
	j.engine_kind = rootless ? ENGINE_KIND_NFTABLES : ENGINE_KIND_BPF;
	j.policy = (struct jail_policy){ .id = j.id, .cfg = cfg, .audit = &j.audit,
					 .agent_uid = u->uid,
					 .sources = { .read = read_sources, .trust_hint = sources_hint,
						      .ctx = o } };
	supervisor_block_signals(&set);
	err = jail_build(&j, cfg, supervisor_on_event, supervisor_on_dns_query);
	if (err) {
		ret = j.why[0] ? refuse("%s", j.why) : EXIT_REFUSED;
		goto out;
	}
	/* Said once the jail stands (a refusal stays one line); the BPF
	 * engine, root's usual, only with -v. */
	if (rootless)
		log_info("engine: nftables, rootless%s",
			 cfg->engine == ENGINE_AUTO ? " (not root on the host; the audit names no "
						      "process)" : "");
	else
		log_debug("engine: bpf%s", cfg->engine == ENGINE_AUTO ? " (root on the host)" : "");
	/* The loop before the agent: one that cannot hear everything stops
	 * the start, not the jail's hearing. */
	err = supervisor_open(&loop, &j, &set);
	if (err) {
		ret = refuse("cannot set up the supervisor's event loop: %s", strerror(-err));
		goto out;
	}
	ret = start_agent(&j, o->rest, u, cfg);
	if (ret) {
		supervisor_close(&loop);
		goto out;
	}
	err = supervise(&j, &loop, &status);
	ret = run_status(err, status);
out:
	jail_destroy(&j, supervisor_drain);
	/* Only now: the agent can stop the terminal's output (tcflow), and
	 * this write would wait while what it left behind ran on. */
	if (summary_format(&j.summary, line, sizeof(line)))
		fputs(line, stderr);
	return ret;
}

/* choose_engine() - BPF or the rootless engine (config.h), as doctor
 * decides. Return: 0, or EXIT_REFUSED with the cause and the fix printed. */
static int choose_engine(const struct config *cfg, const struct agent_user *u, bool *rootless)
{
	struct probe_result pr;

	/* doctor's check: it never says ok about what this refuses. */
	if (probe_engine(&pr, cfg) == PROBE_FAIL)
		return refuse("%s; %s", pr.detail, pr.fix);
	*rootless = probe_rootless(cfg);
	/* The jail's user namespace maps our own uid to itself, and no
	 * other: the agent is who runs ebpfjail. */
	if (*rootless && u->uid != geteuid())
		return refuse("the rootless engine runs the agent as you (uid %u), not uid %u; "
			      "run ebpfjail as the agent's user, without sudo",
			      (unsigned)geteuid(), (unsigned)u->uid);
	return 0;
}

static int refuse_config(const struct config *cfg, const struct cli_options *o, uid_t agent_uid)
{
	char hint[1024];

	if (!cfg->n_unapproved)
		return refuse("the configuration is invalid (see above); run 'ebpfjail config'");
	cli_trust_hint(cfg, o, agent_uid, hint, sizeof(hint));
	if (agent_uid == 0)
		return refuse("the lines above would loosen the jail of an agent run as root, "
			      "which can change every file; %s", hint);
	return refuse("the agent can change the configuration, and the lines above that loosen "
		      "the jail were not approved; if you wrote them, approve them: %s",
		      hint);
}

int cmd_run(const struct command *cmd, int argc, char **argv)
{
	struct agent_user user;
	struct cli_options o;
	struct config cfg;
	bool rootless = false;
	char why[512];
	int ret;

	ret = cli_parse(cmd, argc, argv, &o);
	if (ret != CLI_CONTINUE) {
		cli_options_free(&o);
		return ret;
	}
	if (o.n_rest == 0) {
		cli_options_free(&o);
		return cli_usage_error(cmd, "run: missing COMMAND");
	}
	config_init(&cfg);
	if (agent_user_resolve(o.user, environ, &user, why, sizeof(why))) {
		ret = refuse("%s", why);
		goto out;
	}
	/* Root without capabilities still owns every root-owned file:
	 * /etc/ebpfjail.conf is as much the agent's as the user's file is. */
	if (user.uid == 0)
		log_warn("the agent runs as root: it can change every root-owned file (the "
			 "configuration, ebpfjail's approvals, ebpfjail itself), so no configuration "
			 "file may loosen its jail; give it what it may reach with --allow-ip, "
			 "--local-port, --callback-port and --pass-env (unix-socket and share-tmp "
			 "with EBPFJAIL_UNIX_SOCKET and EBPFJAIL_SHARE_TMP)");
	if (cli_load_config(&cfg, &o, user.uid))
		ret = refuse_config(&cfg, &o, user.uid);
	else if (!cfg.egress_jail)
		ret = run_unjailed(o.rest, &user, &cfg);
	else if ((ret = choose_engine(&cfg, &user, &rootless)) == 0)
		ret = run_jailed(&o, &user, &cfg, rootless);
out:
	config_free(&cfg);
	cli_options_free(&o);
	return ret;
}
