/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* agent.h - start the agent: who it runs as, what it sees, what it keeps */
#ifndef EBPFJAIL_AGENT_H
#define EBPFJAIL_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "config.h"

#define AGENT_GROUPS_MAX 256

struct agent_user {
	uid_t uid;
	gid_t gid;
	char name[64];
	char home[1024];
	char shell[256];
	/* Supplementary groups, looked up by the supervisor: a lookup in the
	 * agent's child would run in the jail's cgroup, where glibc's try of
	 * nscd's socket is a Unix socket denial at every start. None for
	 * root or a uid without a name. */
	gid_t groups[AGENT_GROUPS_MAX];
	int n_groups;
};

/**
 * agent_user_resolve() - who the agent runs as
 * @user_opt: --user NAME|UID, or NULL
 * @envp: the supervisor's environment (SUDO_UID, SUDO_GID)
 * @why: on failure, the one-line cause and fix
 *
 * --user wins; otherwise SUDO_UID/SUDO_GID; real root with neither is
 * refused (an agent never runs as root by accident).
 * Return: 0 or -EPERM / -ENOENT / -E2BIG (more than AGENT_GROUPS_MAX groups)
 * with @why filled.
 */
int agent_user_resolve(const char *user_opt, char *const envp[], struct agent_user *out,
		       char *why, size_t why_size);

/**
 * agent_env() - the agent's environment (pure)
 * @host: the supervisor's environment
 * @u: the agent's user (HOME, USER, LOGNAME, SHELL)
 * @cfg: pass-env names
 *
 * A sensible base (PATH, TERM, locale, time zone, terminal colours), the
 * user's identity, EBPFJAIL=1, and each pass-env variable that is set.
 * Return: a NULL-terminated array; free with agent_env_free(), NULL on ENOMEM.
 */
char **agent_env(char *const host[], const struct agent_user *u, const struct config *cfg);
void agent_env_free(char **env);

struct agentfs;

struct agent_spec {
	char *const *argv;
	char **envp;             /* becomes the agent's environ */
	const struct agent_user *user;
	int cgroup_fd;           /* join this cgroup, or -1 */
	int netns_fd;            /* join this network namespace, and install the
				    system call filter; or -1 (unjailed) */
	const struct agentfs *fs; /* jailed: the agent's own PID and mount
				     namespaces, as agentfs.h says; NULL: neither */
	const struct rlimit *nofile; /* RLIMIT_NOFILE to restore, or NULL */
	bool rootless;           /* the supervisor is in the jail's user
				    namespace (netns.h), where setgroups() is
				    denied: the agent keeps the groups it has */
};

/* The processes agent_spawn() started, and who owns what: the supervisor
 * waits for the init (its child) and reads the channel; the agent is the
 * init's child. */
struct agent_proc {
	pid_t init;  /* the agent's init (jailinit.c): signals go to it */
	pid_t agent; /* the agent itself, as this PID namespace numbers it */
	int channel; /* the init's reports (struct jailinit_msg), non-blocking */
	pid_t pgrp;  /* the agent's process group: the init's pid, kept once
			the init is reaped */
	int tty;     /* the controlling terminal, whose foreground the agent's
			process group took from ours; or -1 */
};

/**
 * agent_spawn() - start the agent's init, which starts the agent and
 * execs it
 * @p: on success, the init, the agent, the channel and the tty (the caller
 *      closes both), and the process group
 *
 * The init makes a process group of its own (@p->pgrp) and, if ours held
 * the terminal's foreground, gives it that (@p->tty stays open for
 * agent_terminal_return() when the agent is gone). The init gets back the descriptor limit the supervisor raised for
 * itself, joins the cgroup and namespace, makes the agent's mount
 * namespace; the agent becomes the user (groups included), loses every
 * capability, sets no_new_privs, keeps only fds 0-2, dies with its init
 * (PDEATHSIG), as the init does with the supervisor, and execs.
 * Return: 0; -errno of a failed exec (-ENOENT: not found, -EACCES/-ENOEXEC:
 * not executable); other setup failures as -EPERM (logged by the child).
 */
int agent_spawn(const struct agent_spec *s, struct agent_proc *p);

/**
 * agent_terminal_return() - the terminal's foreground back to the caller's
 * process group if the agent's holds it (the job stops, the agent is gone)
 */
void agent_terminal_return(const struct agent_proc *p);

/**
 * agent_terminal_give() - the terminal's foreground to the agent's process
 * group if the caller's holds it (the job was continued by `fg`)
 */
void agent_terminal_give(const struct agent_proc *p);

/**
 * agent_terminal_reclaim() - the terminal's foreground to the agent's
 * process group if another group of the agent's took it (no job control:
 * a background write would stop the agent's group again at once)
 */
void agent_terminal_reclaim(const struct agent_proc *p);

#endif /* EBPFJAIL_AGENT_H */
