// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* netns.c - the jail's network namespace: create it, enter it, leave it */
#include <errno.h>
#include <fcntl.h>
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

int netns_create(struct netns *ns)
{
	pid_t self;
	char path[64];
	__u64 cookie = 0;
	int pipefd[2], err = 0;

	ns->holder = -1;
	ns->fd = -1;
	ns->cookie = 0;
	ns->host_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns->host_fd < 0)
		return log_err(-errno, "cannot open this process's network namespace: %s",
			       strerror(errno));
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	self = getpid();
	ns->holder = fork();
	if (ns->holder < 0) {
		err = -errno;
		goto out;
	}
	if (ns->holder == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The supervisor died before the line above. Not "the parent
		 * is 1": as a container's PID 1 the supervisor is. */
		if (getppid() != self)
			_exit(1);
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

void netns_release_holder(struct netns *ns)
{
	if (ns->holder > 0) {
		kill(ns->holder, SIGKILL);
		waitpid(ns->holder, NULL, 0);
	}
	ns->holder = -1;
}

int netns_enter(const struct netns *ns)
{
	if (setns(ns->fd, CLONE_NEWNET))
		return log_err(-errno, "cannot enter the jail's network namespace: %s",
			       strerror(errno));
	return 0;
}

int netns_leave(const struct netns *ns)
{
	if (setns(ns->host_fd, CLONE_NEWNET))
		return log_err(-errno, "cannot return to the host's network namespace: %s",
			       strerror(errno));
	return 0;
}

static int write_sysctl(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* write_ipv6_off() - disable_ipv6 = 1 for every link and every new one,
 * through /proc/sys. Return: 0 or -errno. */
static int write_ipv6_off(void)
{
	int err = write_sysctl("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");

	if (!err)
		err = write_sysctl("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
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
	if (err)
		return log_err(err, "cannot disable IPv6 in the jail: %s", strerror(-err));
	return 0;
}

void netns_close(struct netns *ns)
{
	netns_release_holder(ns);
	if (ns->fd >= 0)
		close(ns->fd);
	if (ns->host_fd >= 0)
		close(ns->host_fd);
	ns->fd = ns->host_fd = -1;
}
