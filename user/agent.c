// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* agent.c - start the agent: who it runs as, what it sees, what it keeps
 *
 * Theory of operation: the supervisor forks (into the jail's cgroup
 * directly, see fork_into_cgroup()); the child does every step
 * below as root and in this order, because each one needs privileges the
 * next one takes away. A failure of any step is reported to the parent
 * through a close-on-exec pipe (one int, the negative errno) and the child
 * exits: the parent then knows the command never ran (exit 125, or 126/127
 * for exec's own errors). Nothing reaches the pipe when exec succeeds.
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
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "agent.h"
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

/* fill_groups() - @u's supplementary groups, as initgroups() would set
 * them. Return: 0, or -E2BIG with @why filled. */
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
	u->n_groups = n;
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

/* --- the child ------------------------------------------------------------ */

static void fail(int report, int err, const char *what)
{
	log_err(0, "cannot start the agent: %s: %s", what, strerror(-err));
	if (write(report, &err, sizeof(err)) < 0)
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
	 * still needs CAP_SETUID. drop_remaining() clears them after it (a
	 * change away from root already has). */
	return 0;
}

static int drop_remaining(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

static void child(const struct agent_spec *s, int report, pid_t parent, bool in_cgroup)
{
	const struct agent_user *u = s->user;
	sigset_t none;
	int err, sig;

	/* The supervisor ignored or blocked signals the agent must feel. */
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The supervisor raised its own descriptor limit for the relays
	 * (jail.c); the agent runs with the one it was given. */
	if (s->nofile && setrlimit(RLIMIT_NOFILE, s->nofile))
		fail(report, -errno, "restoring the descriptor limit");

	if (s->cgroup_fd >= 0 && !in_cgroup && (err = cgroup_add(s->cgroup_fd, getpid())))
		fail(report, err, "joining the jail's cgroup");
	if (s->netns_fd >= 0 && setns(s->netns_fd, CLONE_NEWNET))
		fail(report, -errno, "joining the jail's network namespace");
	if (s->resolv_conf) {
		/* A private mount namespace: the jail's resolv.conf is seen
		 * by the agent only, read-only. */
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			fail(report, -errno, "creating a mount namespace");
		if (mount(s->resolv_conf, "/etc/resolv.conf", NULL, MS_BIND, NULL) ||
		    mount(NULL, "/etc/resolv.conf", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL))
			fail(report, -errno, "mounting the jail's /etc/resolv.conf");
	}

	if (setgroups((size_t)u->n_groups, u->groups))
		fail(report, -errno, "setting the user's groups");
	/* The bounding set needs CAP_SETPCAP to shrink: before the uid
	 * change. setresuid() away from root then clears the rest. */
	if ((err = drop_bounding_set()))
		fail(report, err, "dropping capabilities");
	if (setresgid(u->gid, u->gid, u->gid) || setresuid(u->uid, u->uid, u->uid))
		fail(report, -errno, "becoming the user");
	if ((err = drop_remaining()))
		fail(report, err, "dropping capabilities");
	/* Nothing the agent execs (sudo, setuid helpers, file capabilities)
	 * can give it back what it lost. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		fail(report, -errno, "setting no_new_privs");
	/* Set after the uid change, which clears it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(125);
	/* Only 0-2 cross into the agent: the report pipe is close-on-exec
	 * and so is everything else the supervisor holds. */
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC))
		fail(report, -errno, "closing the supervisor's file descriptors");
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

/* fork_into_cgroup() - fork(), the child born in cgroup cg_fd (clone3's
 * CLONE_INTO_CGROUP, Linux 5.7). Moving a process later by writing
 * cgroup.procs takes the cgroup threadgroup lock for writing, an RCU grace
 * period: 10-15 ms of every start. *in_cgroup says whether it worked; if
 * not (older kernel), the child joins by cgroup.procs. The supervisor is
 * single-threaded, so a raw clone3 is as safe as fork() for a child that
 * only makes system calls and execs. */
static pid_t fork_into_cgroup(int cg_fd, bool *in_cgroup)
{
	struct clone_args args = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD,
				   .cgroup = (unsigned)cg_fd };

	*in_cgroup = false;
	if (cg_fd >= 0) {
		pid_t pid = syscall(SYS_clone3, &args, sizeof(args));

		if (pid >= 0) {
			*in_cgroup = true;
			return pid;
		}
		if (errno != ENOSYS && errno != E2BIG && errno != EINVAL)
			return -1;
	}
	return fork();
}

int agent_spawn(const struct agent_spec *s, pid_t *pid)
{
	pid_t parent = getpid();
	int pipefd[2], err = 0;
	bool in_cgroup;
	ssize_t n;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	*pid = fork_into_cgroup(s->cgroup_fd, &in_cgroup);
	if (*pid < 0) {
		err = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (*pid == 0) {
		close(pipefd[0]);
		child(s, pipefd[1], parent, in_cgroup);
	}
	close(pipefd[1]);
	do
		n = read(pipefd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == sizeof(err)) {
		waitpid(*pid, NULL, 0);
		*pid = -1;
		return err < 0 ? err : -EPERM;
	}
	return 0;
}
