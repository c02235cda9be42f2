// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* agent.c - start the agent: who it runs as, what it sees, what it keeps
 *
 * Theory of operation: the supervisor clones the agent's init (into the
 * jail's cgroup and, jailed, into a new PID namespace as its PID 1: see
 * spawn_init() and jailinit.c). The init, as root, joins the network
 * namespace and makes the agent's mount namespace (agentfs.c), then forks
 * the agent, which becomes the user, loses every capability, sets
 * no_new_privs, installs its system call filter and execs. Each step needs
 * privileges the next one takes away, hence the order. A failure of any
 * step is reported to the supervisor through a close-on-exec pipe (one
 * int, the negative errno) and the process exits: the supervisor then
 * knows the command never ran (exit 125, or 126/127 for exec's own
 * errors). Nothing reaches the pipe when exec succeeds; the agent's pid
 * comes on the init's channel, just before its exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "agent.h"
#include "agentfs.h"
#include "builtin.h"
#include "jailinit.h"
#include "landlock.h"
#include "sysfilter.h"
#include "cgroup.h"
#include "log.h"

static int fill_user(const struct passwd *pw, struct agent_user *u)
{
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	snprintf(u->home, sizeof(u->home), "%s", pw->pw_dir && *pw->pw_dir ? pw->pw_dir : "/");
	snprintf(u->shell, sizeof(u->shell), "%s",
		 pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh");
	return 0;
}

/* root_group() - Return: whether @gid opens a socket of a daemon that
 * grants root: the group of one that exists now, or one of the daemons'
 * usual groups. */
static bool root_group(gid_t gid)
{
	const char *const *paths, *const *names;
	struct group *gr;
	struct stat st;
	size_t n, i;

	paths = builtin_root_sockets(&n);
	for (i = 0; i < n; i++)
		if (stat(paths[i], &st) == 0 && S_ISSOCK(st.st_mode) && st.st_gid == gid &&
		    gid != 0)
			return true;
	names = builtin_root_groups(&n);
	for (i = 0; i < n; i++)
		if ((gr = getgrnam(names[i])) && gr->gr_gid == gid)
			return true;
	return false;
}

/* drop_root_groups() - @groups without the groups that open a daemon's
 * socket that grants root. The attack: the socket is masked when the jail
 * starts, but a daemon that restarts binds it again, bare in the agent's
 * view, and a link from /tmp passes the unix hooks; without the group,
 * the socket refuses it. A primary group stays (it cannot go): warned.
 * Return: how many are left. */
static int drop_root_groups(gid_t *groups, int n, gid_t primary)
{
	int i, kept = 0;

	for (i = 0; i < n; i++) {
		if (!root_group(groups[i])) {
			groups[kept++] = groups[i];
			continue;
		}
		if (groups[i] == primary)
			log_warn("the agent's primary group %u opens a daemon's socket that grants "
				 "root; it cannot be dropped", (unsigned)groups[i]);
		else
			log_debug("the agent does not get group %u: it opens a daemon's socket that "
				  "grants root", (unsigned)groups[i]);
	}
	return kept;
}

/* fill_groups() - @u's supplementary groups, as initgroups() would set
 * them, less those that grant root (drop_root_groups()).
 * Return: 0, or -E2BIG with @why filled. */
static int fill_groups(struct agent_user *u, char *why, size_t why_size)
{
	int n = AGENT_GROUPS_MAX;

	u->n_groups = 0;
	if (!u->name[0] || u->uid == 0)
		return 0;
	if (getgrouplist(u->name, u->gid, u->groups, &n) < 0) {
		snprintf(why, why_size, "user %s is in more than %d groups", u->name,
			 AGENT_GROUPS_MAX);
		return -E2BIG;
	}
	u->n_groups = drop_root_groups(u->groups, n, u->gid);
	return 0;
}

static const char *env_get(char *const envp[], const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

static int parse_id(const char *s, unsigned long *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end || *out > 0x7fffffffUL ? -EINVAL : 0;
}

int agent_user_resolve(const char *user_opt, char *const envp[], struct agent_user *u,
		       char *why, size_t why_size)
{
	struct passwd *pw;
	unsigned long id, gid;

	memset(u, 0, sizeof(*u));
	if (user_opt) {
		pw = parse_id(user_opt, &id) == 0 ? getpwuid((uid_t)id) : getpwnam(user_opt);
		if (!pw) {
			snprintf(why, why_size, "--user %s: no such user", user_opt);
			return -ENOENT;
		}
		fill_user(pw, u);
		return fill_groups(u, why, why_size);
	}
	if (parse_id(env_get(envp, "SUDO_UID"), &id) == 0 && id != 0) {
		pw = getpwuid((uid_t)id);
		if (pw)
			fill_user(pw, u);
		else /* a uid without a passwd entry: run it all the same */
			snprintf(u->home, sizeof(u->home), "/");
		u->uid = (uid_t)id;
		u->gid = parse_id(env_get(envp, "SUDO_GID"), &gid) == 0 ? (gid_t)gid : (gid_t)id;
		return fill_groups(u, why, why_size);
	}
	/* Not root: the agent is the user who runs us (the rootless engine). */
	if (getuid() != 0) {
		pw = getpwuid(getuid());
		if (pw)
			fill_user(pw, u);
		else
			snprintf(u->home, sizeof(u->home), "/");
		u->uid = getuid();
		u->gid = getgid();
		return fill_groups(u, why, why_size);
	}
	snprintf(why, why_size,
		 "refusing to run the agent as root: run ebpfjail through sudo, or say who "
		 "the agent runs as with --user USER (--user root if you really mean it)");
	return -EPERM;
}

/* The base the agent always gets from the host's environment, if set. */
static bool base_var(const char *var)
{
	static const char *const names[] = { "PATH",  "TERM", "COLORTERM", "LANG", "LANGUAGE",
					     "TZ",    "NO_COLOR", "TERM_PROGRAM",
					     "TERM_PROGRAM_VERSION" };
	size_t i, n = strcspn(var, "=");

	if (!strncmp(var, "LC_", 3))
		return true;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && !strncmp(var, names[i], n))
			return true;
	return false;
}

static int env_add(char ***env, size_t *n, const char *name, const char *value)
{
	char **e = reallocarray(*env, *n + 2, sizeof(**env));
	char *s;

	if (!e)
		return -ENOMEM;
	*env = e;
	if (value) {
		if (asprintf(&s, "%s=%s", name, value) < 0)
			return -ENOMEM;
	} else {
		s = strdup(name);
		if (!s)
			return -ENOMEM;
	}
	e[(*n)++] = s;
	e[*n] = NULL;
	return 0;
}

char **agent_env(char *const host[], const struct agent_user *u, const struct config *cfg)
{
	char **env = NULL;
	size_t n = 0, i;
	int err = 0;

	for (i = 0; host && host[i] && !err; i++)
		if (base_var(host[i]))
			err = env_add(&env, &n, host[i], NULL);
	if (!err && !env_get(env, "PATH"))
		err = env_add(&env, &n, "PATH", "/usr/local/bin:/usr/bin:/bin");
	if (!err)
		err = env_add(&env, &n, "HOME", u->home);
	if (!err && u->name[0])
		err = env_add(&env, &n, "USER", u->name);
	if (!err && u->name[0])
		err = env_add(&env, &n, "LOGNAME", u->name);
	if (!err && u->shell[0])
		err = env_add(&env, &n, "SHELL", u->shell);
	/* So the agent (and its user) can tell it is jailed. */
	if (!err)
		err = env_add(&env, &n, "EBPFJAIL", "1");
	for (i = 0; cfg && i < cfg->n_pass_env && !err; i++) {
		const char *v = env_get(host, cfg->pass_env[i].name);

		if (v)
			err = env_add(&env, &n, cfg->pass_env[i].name, v);
	}
	if (err || !env) {
		agent_env_free(env);
		return NULL;
	}
	return env;
}

void agent_env_free(char **env)
{
	size_t i;

	for (i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* --- the init and the agent ------------------------------------------------ */

/* fail() - a setup step failed: say which, tell the supervisor (-EPERM,
 * whatever the cause: ENOENT or EACCES there would read as the command's
 * own "not found" or "cannot execute"), exit. Does not return. */
static void fail(int report, int err, const char *what)
{
	int reported = -EPERM;

	log_msg(LOG_ERR, "cannot start the agent: %s: %s", what, strerror(-err));
	if (write(report, &reported, sizeof(reported)) < 0)
		log_debug("cannot report to the supervisor: %s", strerror(errno));
	_exit(125);
}

/* drop_bounding_set() - nothing to regain: an agent run as root on purpose
 * still cannot change routes, qdiscs or BPF programs, and no exec gives a
 * capability back. */
static int drop_bounding_set(void)
{
	int cap;

	for (cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			return -errno;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -errno;
	/* Permitted and effective stay until the uid change: setresuid()
	 * still needs CAP_SETUID. set_capabilities() clears them after it (a
	 * change away from root already has). */
	return 0;
}

/* set_capabilities() - permitted and effective become @keep (a capability
 * number), or nothing when @keep is -1. Return: 0 or -errno. */
static int set_capabilities(int keep)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (keep >= 0) {
		data[keep / 32].permitted = 1U << (keep % 32);
		data[keep / 32].effective = 1U << (keep % 32);
	}
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/* agent_child() - PID 2 (or the init's child, unjailed): becomes the user
 * with nothing to regain, then execs the command. */
static void agent_child(const struct agent_spec *s, int report, int channel, pid_t init)
{
	const struct agent_user *u = s->user;
	sigset_t none;
	int err, sig;

	/* The init blocks every signal; the agent must feel them. */
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (!s->rootless && setgroups((size_t)u->n_groups, u->groups))
		fail(report, -errno, "setting the user's groups");
	/* The bounding set needs CAP_SETPCAP to shrink: before the uid
	 * change. setresuid() away from root then clears the rest. */
	if ((err = drop_bounding_set()))
		fail(report, err, "dropping capabilities");
	if (setresgid(u->gid, u->gid, u->gid) || setresuid(u->uid, u->uid, u->uid))
		fail(report, -errno, "becoming the user");
	if ((err = set_capabilities(-1)))
		fail(report, err, "dropping capabilities");
	/* Nothing the agent execs (sudo, setuid helpers, file capabilities)
	 * can give it back what it lost. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		fail(report, -errno, "setting no_new_privs");
	/* Set after the uid change, which clears it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != init)
		_exit(125);
	/* Only 0-2 cross into the agent: the report pipe and the channel are
	 * close-on-exec and so is everything else the supervisor holds. */
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC))
		fail(report, -errno, "closing the supervisor's file descriptors");
	if ((err = jailinit_started(channel)))
		fail(report, err, "telling the supervisor");
	/* Signals and abstract sockets stay within the jail's domain
	 * (landlock.c). A kernel without scopes leaves that to the
	 * namespaces, and doctor says so. */
	if (s->netns_fd >= 0 && (err = landlock_scope_self()) && err != -EOPNOTSUPP)
		fail(report, err, "restricting the agent with Landlock");
	/* Last: the filter refuses setns(), which nothing above may need. */
	if (s->netns_fd >= 0 && (err = sysfilter_install()))
		fail(report, err, "installing the system call filter");

	environ = s->envp;
	execvp(s->argv[0], s->argv);
	err = -errno;
	if (write(report, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(err == -ENOENT ? 127 : 126);
}

/* close_all_but() - every descriptor from 3 on but @a and @b.
 * Return: 0 or -1 with errno set. */
static int close_all_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, mid = lo + 1 > 3 ? lo + 1 : 3;

	/* Started with 0-2 closed, a descriptor below 3 is ours: 0-2 stay. */
	if (lo > 3 && syscall(SYS_close_range, 3U, (unsigned)lo - 1, 0U))
		return -1;
	if (hi > mid && syscall(SYS_close_range, (unsigned)mid, (unsigned)hi - 1, 0U))
		return -1;
	return (int)syscall(SYS_close_range, (unsigned)(hi + 1 > 3 ? hi + 1 : 3), ~0U, 0U);
}

/* supervisor_gone() - Return: whether the supervisor died before
 * PDEATHSIG was set (its end of the channel is closed). */
static bool supervisor_gone(int channel)
{
	struct pollfd p = { .fd = channel, .events = POLLOUT };

	return poll(&p, 1, 0) < 0 || (p.revents & (POLLHUP | POLLERR));
}

/* init_child() - the supervisor's child: as root, joins the jail (cgroup,
 * network namespace, the agent's mount namespace), forks the agent, keeps
 * only CAP_KILL (to pass signals to an agent of another uid) and becomes
 * its init (jailinit.c). */
static void init_child(const struct agent_spec *s, int report, int channel, bool in_cgroup,
		       int tty)
{
	pid_t agent, self;
	sigset_t all;
	int err;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (supervisor_gone(channel))
		_exit(125);
	prctl(PR_SET_NAME, "ebpfjail-init"); /* in ps, not the supervisor */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	/* The attack: the agent's kill(0, SIGSTOP) reached every process of
	 * its process group, which was the shell's job, its supervisor
	 * included (the PID namespace does not filter a process group's
	 * signals, and a kernel without Landlock scopes lets them through):
	 * a stopped supervisor follows no route and records nothing. The
	 * init and the agent are a group of their own, which the agent
	 * cannot leave for ours: it cannot name it. It is the terminal's
	 * foreground if ours was (with every signal blocked, tcsetpgrp()
	 * from the background is allowed): Ctrl-C and Ctrl-Z reach the
	 * agent, and its reads from the terminal do not stop it. */
	if (setpgid(0, 0))
		fail(report, -errno, "making the agent's process group");
	if (tty >= 0 && tcsetpgrp(tty, getpid()))
		fail(report, -errno, "giving the agent the terminal");
	/* The supervisor raised its own descriptor limit for the relays
	 * (jail.c); the agent runs with the one it was given. */
	if (s->nofile && setrlimit(RLIMIT_NOFILE, s->nofile))
		fail(report, -errno, "restoring the descriptor limit");
	if (s->cgroup_fd >= 0 && !in_cgroup && (err = cgroup_add(s->cgroup_fd, getpid())))
		fail(report, err, "joining the jail's cgroup");
	if (s->netns_fd >= 0 && setns(s->netns_fd, CLONE_NEWNET))
		fail(report, -errno, "joining the jail's network namespace");
	/* The attack: a root agent owns the cgroup files, and writing its
	 * pid into the root's cgroup.procs took it out from under its socket
	 * hooks. In a cgroup namespace rooted at its jail's cgroup, the kernel
	 * refuses a move out of that subtree, whoever writes. */
	if (s->fs && unshare(CLONE_NEWCGROUP))
		fail(report, -errno, "creating a cgroup namespace");
	/* SysV shared memory, semaphores and message queues of the user's
	 * other processes (X11's MIT-SHM segments among them) stay theirs. */
	if (s->fs && unshare(CLONE_NEWIPC))
		fail(report, -errno, "creating an IPC namespace");
	if (s->fs && (err = agentfs_setup(s->fs)))
		fail(report, err, "setting up the agent's file system view");

	self = getpid(); /* 1 in the agent's PID namespace */
	agent = fork();
	if (agent < 0)
		fail(report, -errno, "forking the agent");
	if (agent == 0)
		agent_child(s, report, channel, self);
	/* The init never execs, so close-on-exec closes nothing for it: it
	 * would hold the supervisor's BPF maps, control socket, audit log and
	 * namespaces for as long as the agent runs. */
	if (close_all_but(report, channel))
		fail(report, -errno, "closing the supervisor's file descriptors");
	/* The init needs nothing but to signal the agent, another uid. The
	 * agent sees it (PID 1) and must not be able to use it. */
	if ((err = drop_bounding_set()) || (err = set_capabilities(CAP_KILL)) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		kill(agent, SIGKILL);
		fail(report, err ? err : -errno, "dropping the init's capabilities");
	}
	close(report); /* the supervisor sees EOF once the agent exec'd */
	jailinit_run(channel, agent);
}

/* spawn_init() - the init: born in cg_fd (clone3's CLONE_INTO_CGROUP,
 * Linux 5.7) and, when @pid_namespace, as PID 1 of a new PID namespace.
 * Moving a process later by writing cgroup.procs takes the cgroup
 * threadgroup lock for writing, an RCU grace period: 10-15 ms of every
 * start. *in_cgroup says whether it worked; if not (older kernel), the
 * child joins by cgroup.procs. The supervisor is single-threaded but for
 * its namespace worker, which waits in read() holding no lock (netns.h),
 * so a raw clone is as safe as fork() for a child that only
 * makes system calls and execs. */
static pid_t spawn_init(int cg_fd, bool pid_namespace, bool *in_cgroup)
{
	unsigned long newpid = pid_namespace ? CLONE_NEWPID : 0;
	struct clone_args args = { .flags = newpid, .exit_signal = SIGCHLD };
	pid_t pid;

	*in_cgroup = false;
	if (cg_fd >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (unsigned)cg_fd;
	}
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid >= 0) {
		*in_cgroup = cg_fd >= 0;
		return pid;
	}
	if (errno != ENOSYS && errno != E2BIG && errno != EINVAL)
		return -1;
	return syscall(SYS_clone, SIGCHLD | newpid, NULL, NULL, NULL, NULL);
}

/* first_started() - the agent's pid, from its JAILINIT_STARTED message
 * (sent before its exec, so waiting once the report pipe is closed). A
 * stop and continue before it may precede it. Return: pid, or -errno. */
static pid_t first_started(int channel, pid_t init)
{
	struct jailinit_msg m;
	pid_t sender;
	int err;

	while ((err = jailinit_receive(channel, &m, &sender)) == 0 || err == -EPROTO)
		if (!err && m.event == JAILINIT_STARTED && sender > 0 && sender != init)
			return sender;
	return err;
}

/* foreground_tty() - the controlling terminal, if our process group is its
 * foreground (the agent's takes it over); else -1: no terminal, or run in
 * the background, where the agent's group is in the background too */
static int foreground_tty(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0 && tcgetpgrp(fd) != getpgrp()) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* warn_kept_root_groups() - the rootless agent keeps every group of its
 * user (a user namespace of one's own cannot drop them: setgroups() is
 * denied there). The attack drop_root_groups() stops as root is then open:
 * a daemon that binds its masked socket again after the start is bare in
 * the agent's view, and the group lets the agent in. Said, not refused:
 * the BPF engine (root) closes it. */
static void warn_kept_root_groups(void)
{
	gid_t groups[AGENT_GROUPS_MAX];
	int n = getgroups(AGENT_GROUPS_MAX, groups), i;

	for (i = 0; i < n; i++)
		if (root_group(groups[i]))
			log_warn("the agent keeps group %u, which opens a daemon's socket that grants "
				 "root (without root a jail cannot drop a group): the socket is masked, "
				 "but not once its daemon binds it again; run through sudo (the BPF "
				 "engine drops the group) if that matters here",
				 (unsigned)groups[i]);
}

int agent_spawn(const struct agent_spec *s, struct agent_proc *p)
{
	int pipefd[2] = { -1, -1 }, channel[2] = { -1, -1 }, err = 0;
	bool return_terminal = true;
	bool in_cgroup;
	ssize_t n;

	p->init = p->agent = p->pgrp = -1;
	p->channel = -1;
	p->tty = foreground_tty();
	if (s->rootless)
		warn_kept_root_groups();
	if (pipe2(pipefd, O_CLOEXEC)) {
		err = -errno;
		goto out;
	}
	err = jailinit_channel(channel);
	if (err)
		goto out;
	p->init = spawn_init(s->cgroup_fd, s->fs != NULL, &in_cgroup);
	if (p->init < 0) {
		err = -errno;
		goto out;
	}
	if (p->init == 0) {
		close(pipefd[0]);
		close(channel[0]);
		init_child(s, pipefd[1], channel[1], in_cgroup, p->tty);
	}
	setpgid(p->init, p->init); /* as the child does: whoever runs first */
	p->pgrp = p->init;
	close(pipefd[1]);
	pipefd[1] = -1;
	close(channel[1]);
	channel[1] = -1;
	do
		n = read(pipefd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	if (n == sizeof(err)) {
		err = err < 0 ? err : -EPERM;
	} else {
		err = 0;
		p->agent = first_started(channel[0], p->init);
		if (p->agent < 0)
			err = -EPERM;
	}
	if (err) {
		kill(p->init, SIGKILL);
		waitpid(p->init, NULL, 0);
		p->init = p->agent = p->pgrp = -1;
		goto out;
	}
	return_terminal = false;
	p->channel = channel[0];
	channel[0] = -1;
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (channel[0] >= 0)
		close(channel[0]);
	if (channel[1] >= 0)
		close(channel[1]);
	if (return_terminal && p->tty >= 0) { /* the init may have taken it */
		tcsetpgrp(p->tty, getpgrp());
		close(p->tty);
		p->tty = -1;
	}
	return err;
}

void agent_terminal_return(const struct agent_proc *p)
{
	if (p->tty >= 0 && p->pgrp > 0 && tcgetpgrp(p->tty) == p->pgrp)
		tcsetpgrp(p->tty, getpgrp());
}

void agent_terminal_give(const struct agent_proc *p)
{
	if (p->tty >= 0 && p->pgrp > 0 && tcgetpgrp(p->tty) == getpgrp())
		tcsetpgrp(p->tty, p->pgrp);
}

void agent_terminal_reclaim(const struct agent_proc *p)
{
	pid_t fg = p->tty >= 0 ? tcgetpgrp(p->tty) : -1;

	/* Only from a group of the jail's: never from the shell's or ours. */
	if (fg > 0 && p->pgrp > 0 && fg != p->pgrp && fg != getpgrp())
		tcsetpgrp(p->tty, p->pgrp);
}
