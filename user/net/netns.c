// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* netns.c - the jail's network namespace: create it, enter it, leave it */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "log.h"
#include "netns.h"

static int drop_all_capabilities(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	return (int)syscall(SYS_capset, &hdr, data);
}

/* own_cookie() - the cookie of the caller's network namespace, from a
 * socket made there. Return: it, or 0 when the kernel cannot say. */
static __u64 own_cookie(void)
{
	socklen_t len = sizeof(__u64);
	__u64 cookie = 0;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) || len != sizeof(cookie))
		cookie = 0;
	close(fd);
	return cookie;
}

int netns_write_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

/* fork_holder() - a child that dies with us (PDEATHSIG, and at once if we
 * died before it was set). Return: 0 in it, its pid here, or -errno. */
static pid_t fork_holder(void)
{
	pid_t self = getpid(), pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The supervisor died before the line above. Not "the parent
		 * is 1": as a container's PID 1 the supervisor is. */
		if (getppid() != self)
			_exit(1);
	}
	return pid;
}

/* start_holder() - @ns emptied, the host's namespace opened, the pipe the
 * holder answers on, and the holder forked (0 in it). Return: 0 or
 * -errno; @pipefd[0] is -1 when nothing is left to close. */
static int start_holder(struct netns *ns, int pipefd[2])
{
	ns->holder = ns->fd = ns->user_fd = -1;
	ns->cookie = 0;
	pipefd[0] = pipefd[1] = -1;
	ns->host_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns->host_fd < 0)
		return -errno;
	if (pipe2(pipefd, O_CLOEXEC)) {
		pipefd[0] = pipefd[1] = -1;
		return -errno;
	}
	ns->holder = fork_holder();
	return ns->holder < 0 ? ns->holder : 0;
}

int netns_create(struct netns *ns)
{
	char path[64];
	__u64 cookie = 0;
	int pipefd[2], err = 0;

	err = start_holder(ns, pipefd);
	if (err && pipefd[0] < 0)
		return log_err(err, "cannot prepare a network namespace: %s", strerror(-err));
	if (err)
		goto out;
	if (ns->holder == 0) {
		/* Dumpable again (the supervisor is not): pasta's access to
		 * /proc/HOLDER/ns/net is a ptrace-style check. Harmless: the
		 * holder has nothing, not even capabilities. */
		if (unshare(CLONE_NEWNET))
			_exit(1);
		cookie = own_cookie();
		if (drop_all_capabilities() || prctl(PR_SET_DUMPABLE, 1))
			_exit(1);
		if (write(pipefd[1], &cookie, sizeof(cookie)) != sizeof(cookie))
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	if (read(pipefd[0], &cookie, sizeof(cookie)) != sizeof(cookie)) {
		err = log_err(-EPERM, "cannot create a network namespace (unshare CLONE_NEWNET failed)");
		goto out;
	}
	/* No cookie, no way for the hooks to know the jail's sockets: they
	 * would refuse all but loopback, so refuse here, saying why. */
	if (!cookie) {
		err = log_err(-ENOPROTOOPT, "cannot read the network namespace's cookie "
			      "(SO_NETNS_COOKIE, Linux 5.14+)");
		goto out;
	}
	ns->cookie = cookie;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", ns->holder);
	ns->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ns->fd < 0)
		err = log_err(-errno, "cannot open %s: %s", path, strerror(errno));
out:
	close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	return err;
}

/* write_id_map() - @text into /proc/@pid/@file */
static int write_id_map(pid_t pid, const char *file, const char *text)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	return netns_write_proc(path, text);
}

/* open_holder_ns() - the holder's namespace @kind (user, net) */
static int open_holder_ns(pid_t holder, const char *kind)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", holder, kind);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int netns_create_rootless(struct netns *ns)
{
	char uid_map[32], gid_map[32];
	int pipefd[2], err = 0, child_err = 0;

	snprintf(uid_map, sizeof(uid_map), "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(gid_map, sizeof(gid_map), "%u %u 1", (unsigned)getegid(), (unsigned)getegid());
	err = start_holder(ns, pipefd);
	if (err && pipefd[0] < 0)
		return err;
	if (err)
		goto out;
	if (ns->holder == 0) {
		/* Dumpable (the supervisor is not): its maps are written, and
		 * its namespaces opened by pasta, through /proc/HOLDER, which
		 * only a dumpable process leaves to its own uid. */
		if (prctl(PR_SET_DUMPABLE, 1) || unshare(CLONE_NEWUSER | CLONE_NEWNET))
			child_err = -errno;
		if (write(pipefd[1], &child_err, sizeof(child_err)) != sizeof(child_err) || child_err)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	if (read(pipefd[0], &child_err, sizeof(child_err)) != sizeof(child_err) || child_err) {
		err = child_err ? child_err : -ECHILD;
		goto out;
	}
	/* setgroups denied first: it is what lets an unprivileged user map
	 * its gid, and it keeps the agent from dropping a group that a
	 * file's permissions deny it (a "negative" group). */
	err = write_id_map(ns->holder, "setgroups", "deny");
	if (!err)
		err = write_id_map(ns->holder, "uid_map", uid_map);
	if (!err)
		err = write_id_map(ns->holder, "gid_map", gid_map);
	if (err)
		goto out;
	ns->user_fd = open_holder_ns(ns->holder, "user");
	if (ns->user_fd < 0) {
		err = ns->user_fd;
		goto out;
	}
	ns->fd = open_holder_ns(ns->holder, "net");
	if (ns->fd < 0)
		err = ns->fd;
out:
	close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	return err;
}

int netns_join_user(const struct netns *ns)
{
	if (setns(ns->user_fd, CLONE_NEWUSER))
		return log_err(-errno, "cannot join the jail's user namespace: %s", strerror(errno));
	return 0;
}

struct ns_call {
	int ns_fd;
	int (*fn)(void *arg);
	void *arg;
	int ret;
};

/* enter() - this thread into @ns_fd, for good (a network namespace is per
 * thread: the others stay where they are) */
static int enter(int ns_fd)
{
	if (setns(ns_fd, CLONE_NEWNET))
		return log_err(-errno, "cannot enter the jail's network namespace: %s",
			       strerror(errno));
	return 0;
}

/* The worker: one thread that stays in a namespace and runs calls there,
 * so that nothing needs a new thread once the jail runs. The attack: a
 * rootless agent counts against its user's process limit, which the
 * supervisor shares; an agent that takes every task left would make each
 * new thread fail, and with it every policy change (a VPN the host adds,
 * `ebpfjail deny`). */
static struct {
	int ns_fd;   /* its namespace, or -1: no worker */
	int req[2];  /* struct ns_call * in, ... */
	int done[2]; /* ... one byte back once it ran */
	pthread_t thread;
} worker = { .ns_fd = -1, .req = { -1, -1 }, .done = { -1, -1 } };

static void *worker_thread(void *p)
{
	struct ns_call *c;
	char ok = enter(worker.ns_fd) == 0;

	(void)p;
	/* The first byte says whether it got in. */
	if (write(worker.done[1], &ok, 1) != 1 || !ok)
		return NULL;
	while (read(worker.req[0], &c, sizeof(c)) == sizeof(c)) {
		c->ret = c->fn(c->arg);
		if (write(worker.done[1], &ok, 1) != 1)
			break;
	}
	return NULL;
}

int netns_worker_start(int ns_fd)
{
	char ok = 0;
	int err;

	if (worker.ns_fd >= 0)
		return -EBUSY;
	if (pipe2(worker.req, O_CLOEXEC) || pipe2(worker.done, O_CLOEXEC)) {
		err = -errno;
		netns_worker_stop();
		return err;
	}
	worker.ns_fd = ns_fd;
	err = pthread_create(&worker.thread, NULL, worker_thread, NULL);
	if (err) {
		worker.ns_fd = -1;
		netns_worker_stop();
		return log_err(-err, "cannot start a thread: %s", strerror(err));
	}
	if (read(worker.done[0], &ok, 1) != 1 || !ok) {
		netns_worker_stop();
		return -EPERM; /* logged by enter() */
	}
	return 0;
}

void netns_worker_stop(void)
{
	int i;

	if (worker.ns_fd >= 0) {
		close(worker.req[1]); /* the worker reads the end, and ends */
		worker.req[1] = -1;
		pthread_join(worker.thread, NULL);
	}
	for (i = 0; i < 2; i++) {
		if (worker.req[i] >= 0)
			close(worker.req[i]);
		if (worker.done[i] >= 0)
			close(worker.done[i]);
		worker.req[i] = worker.done[i] = -1;
	}
	worker.ns_fd = -1;
}

static void *ns_thread(void *p)
{
	struct ns_call *c = p;

	c->ret = enter(c->ns_fd);
	if (!c->ret)
		c->ret = c->fn(c->arg);
	return NULL;
}

int netns_run(int ns_fd, int (*fn)(void *arg), void *arg)
{
	struct ns_call c = { .ns_fd = ns_fd, .fn = fn, .arg = arg }, *cp = &c;
	pthread_t t;
	char ok;
	int err;

	if (worker.ns_fd >= 0 && worker.ns_fd == ns_fd) {
		if (write(worker.req[1], &cp, sizeof(cp)) != sizeof(cp) ||
		    read(worker.done[0], &ok, 1) != 1)
			return log_err(-EPIPE, "the jail's namespace worker is gone");
		return c.ret;
	}
	err = pthread_create(&t, NULL, ns_thread, &c);
	if (err)
		return log_err(-err, "cannot start a thread: %s", strerror(err));
	pthread_join(t, NULL);
	return c.ret;
}

void netns_release_holder(struct netns *ns)
{
	if (ns->holder > 0) {
		kill(ns->holder, SIGKILL);
		waitpid(ns->holder, NULL, 0);
	}
	ns->holder = -1;
}

/* write_ipv6_off() - disable_ipv6 = 1 for every link and every new one,
 * through /proc/sys. Return: 0 or -errno. */
static int write_ipv6_off(void)
{
	int err = netns_write_proc("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");

	if (!err)
		err = netns_write_proc("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
	return err;
}

/* write_ipv6_off_in_fresh_proc() - the same from a child with a procfs of
 * its own, in a mount namespace of its own: a container's /proc/sys is
 * read-only, and must stay so (a writable one would hand an agent run as
 * root the host's sysctls); a fresh procfs mount is writable, and the
 * child (still in the jail's network namespace) writes the jail's.
 * Return: 0 or -errno. */
static int write_ipv6_off_in_fresh_proc(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
			_exit(126);
		status = write_ipv6_off();
		_exit(status == -ENOENT ? 2 : status ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 126)
		return -EROFS;
	return (int[]){ 0, -EIO, -ENOENT }[WEXITSTATUS(status) > 2 ? 1 : WEXITSTATUS(status)];
}

int netns_disable_ipv6(void)
{
	/* /proc/sys/net follows the namespace of the process that opens it. */
	int err = write_ipv6_off();

	if (err == -EROFS)
		err = write_ipv6_off_in_fresh_proc();
	if (err == -ENOENT)
		return 0; /* a kernel without IPv6: nothing to disable */
	return err;
}

void netns_close(struct netns *ns)
{
	netns_release_holder(ns);
	if (ns->fd >= 0)
		close(ns->fd);
	if (ns->host_fd >= 0)
		close(ns->host_fd);
	if (ns->user_fd >= 0)
		close(ns->user_fd);
	ns->fd = ns->host_fd = ns->user_fd = -1;
}
