// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* control.c - a running jail's control socket: reload, allow, deny
 *
 * Each supervisor listens on /run/ebpfjail/ID/control, a Unix socket in a
 * directory only root can enter. `ebpfjail reload/allow/deny` connect, send
 * one line ("reload", "allow IP[:PORT] UID", "deny IP[:PORT] UID") and read
 * the reply until the supervisor closes the connection.
 *
 * The agent must never be heard on this socket: a prompt-injected agent
 * asking its own supervisor to `allow 10.0.0.1` would undo the jail. The
 * directory's mode keeps other users out; a client that is not uid 0 is
 * refused even if it got hold of a connection (SO_PEERCRED); and an agent
 * run as `--user root` (uid 0, so root's file permissions, but no
 * capabilities: bounding set emptied, no_new_privs) is refused because the
 * caller must hold CAP_NET_ADMIN, as changing a jail's network policy is
 * network administration.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "control.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5; Debian 12's headers lack it */
#endif

static int socket_path(const char *state_dir, const char *name, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if ((size_t)snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s", state_dir, name) >=
	    sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

/*
 * The socket is bound under a temporary name, made 0600, set listening and
 * only then renamed into place: bind() creates the file before listen(),
 * and a client that found the path in between (`ebpfjail reload` right as
 * the jail starts, a script waiting for the file) was refused.
 */
int control_listen(const char *state_dir)
{
	struct sockaddr_un sa, tmp;
	int fd, err;

	err = socket_path(state_dir, CONTROL_SOCKET_NAME, &sa);
	if (!err)
		err = socket_path(state_dir, CONTROL_SOCKET_TMP_NAME, &tmp);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(tmp.sun_path);
	if (bind(fd, (struct sockaddr *)&tmp, sizeof(tmp)) || chmod(tmp.sun_path, 0600) ||
	    listen(fd, 8) || rename(tmp.sun_path, sa.sun_path)) {
		err = -errno;
		unlink(tmp.sun_path);
		close(fd);
		return err;
	}
	return fd;
}

/* read_line() - one line within @timeout_ms; the line stays in @buf. */
static int read_line(int fd, char *buf, size_t size, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t len = 0;

	while (len + 1 < size) {
		ssize_t n;

		if (poll(&p, 1, timeout_ms) != 1)
			return -ETIMEDOUT;
		n = recv(fd, buf + len, size - 1 - len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		len += (size_t)n;
		buf[len] = '\0';
		if (memchr(buf, '\n', len)) {
			buf[strcspn(buf, "\n")] = '\0';
			return 0;
		}
	}
	return -E2BIG;
}

/* has_net_admin() - whether process @pid holds CAP_NET_ADMIN now, in our
 * user namespace. It just connected, so the pid is still its own.
 * Return: 1, 0, or -errno when its status cannot be read. */
static int has_net_admin(pid_t pid)
{
	char path[64], *line = NULL;
	struct stat theirs, ours;
	unsigned long long caps = 0;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0)
		if (!strncmp(line, "CapEff:", 7)) {
			caps = strtoull(line + 7, NULL, 16);
			found = true;
		}
	free(line);
	fclose(f);
	if (!found)
		return -ENODATA;
	if (!(caps & (1ULL << 12))) /* CAP_NET_ADMIN */
		return 0;
	/* The attack: a root agent makes a user namespace of its own, where
	 * its CapEff is full, and asks for `allow 10.0.0.1` from there (its
	 * uid is still 0 outside). Capabilities count in ours alone. */
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	if (stat(path, &theirs) || stat("/proc/self/ns/user", &ours))
		return -errno;
	return theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino;
}

/* in_nested_pid_ns() - is @pid in a PID namespace below ours (its
 * /proc/PID/status, readable by anyone, numbers it in more than one)?
 * Return: 1, 0, or -errno. */
static int in_nested_pid_ns(pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int nested = -ENODATA;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (nested == -ENODATA && getline(&line, &cap, f) > 0)
		if (!strncmp(line, "NSpid:", 6))
			nested = strchr(line + 6 + strspn(line + 6, " \t"), '\t') != NULL;
	free(line);
	fclose(f);
	return nested;
}

/* peer_still_there() - is the process that connected @fd still the one
 * /proc/PID showed? The attack: the caller connects and exits, a child of
 * it keeps the connection, and its pid, freed, goes to another process
 * (rootless: one of the user's outside every jail) whose /proc entry then
 * passes for the caller's. A pidfd taken at connect (SO_PEERPIDFD, 6.5+)
 * names that very process: if it is alive after the checks, they read its
 * entry. On older kernels the checks are made right at accept, before the
 * request is read, so the pid has the time from connect to accept to be
 * reused, not the second the request may take.
 * Return: 1 (yes, or no pidfd to tell), 0 (it exited), or -errno. */
static int peer_still_there(int pidfd)
{
	if (pidfd < 0)
		return 1;
	if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0)
		return 1;
	return errno == ESRCH ? 0 : -errno;
}

/* peer_pidfd() - the pidfd of @fd's peer, or -1 (a kernel before 6.5) */
static int peer_pidfd(int fd)
{
	socklen_t len = sizeof(int);
	int pidfd = -1;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len))
		return -1;
	return pidfd;
}

int control_accept(int lfd, char req[CONTROL_MAX_REQUEST], bool rootless)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, err, pidfd, judged;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    cred.uid != (rootless ? geteuid() : 0)) {
		close(fd);
		return -EPERM;
	}
	pidfd = peer_pidfd(fd);
	if (rootless)
		judged = in_nested_pid_ns(cred.pid); /* at once: see peer_still_there() */
	else
		judged = has_net_admin(cred.pid);
	err = peer_still_there(pidfd);
	if (pidfd >= 0)
		close(pidfd);
	if (err <= 0) {
		/* Gone: what /proc showed may be another process's. */
		read_line(fd, req, CONTROL_MAX_REQUEST, 1000);
		control_reply(fd, "error the caller exited before it was heard\n");
		return -EPERM;
	}

	/* Only root gets here; still, a silent client may not stall the
	 * jail's relays and audit log for longer than a second. */
	err = read_line(fd, req, CONTROL_MAX_REQUEST, 1000);
	if (err) {
		close(fd);
		return err;
	}
	/* After the request is read: closing with it unread would reset the
	 * connection and the caller would never see why. */
	if (rootless) {
		/* The attack: rootless, the agent is the same uid as its
		 * user, and a state directory it can reach (a runtime
		 * directory outside /run/user) would let it ask for `allow
		 * 10.0.0.1`. Every process of a jail lives in the agent's PID
		 * namespace, below ours, and cannot leave it. */
		if (judged == 0)
			return fd;
		control_reply(fd, judged > 0 ? "error a process inside a jail cannot change a jail\n"
					     : "error cannot read the caller's PID namespace\n");
		return -EPERM;
	}
	err = judged;
	if (err < 0) {
		/* Not a capability the caller lacks (out of descriptors, root
		 * was once told that): what really happened. */
		char text[128];

		snprintf(text, sizeof(text), "error cannot read the caller's capabilities: %s\n",
			 strerror(-err));
		control_reply(fd, text);
		return err;
	}
	if (!err) {
		control_reply(fd, "error the caller lacks CAP_NET_ADMIN (an agent run as root "
				  "cannot change its own jail)\n");
		return -EPERM;
	}
	return fd;
}

void control_reply(int fd, const char *text)
{
	size_t len = strlen(text), done = 0;
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	while (done < len && poll(&p, 1, 1000) == 1) {
		ssize_t n = send(fd, text + done, len - done, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (n > 0)
			done += (size_t)n;
	}
	close(fd);
}

/* server_in_a_jail() - 0 for a server of our PID namespace, else -EPROTO
 * (or -errno when that cannot be told) */
static int server_in_a_jail(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int nested;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return -errno;
	if (cred.pid <= 0)
		return -EPROTO;
	nested = in_nested_pid_ns(cred.pid);
	return nested < 0 ? nested : nested ? -EPROTO : 0;
}

int control_request(const char *state_dir, const char *request, char *reply, size_t size)
{
	struct pollfd p = { .events = POLLIN };
	struct sockaddr_un sa;
	size_t len = 0;
	int fd, err;

	err = socket_path(state_dir, CONTROL_SOCKET_NAME, &sa);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(fd);
		return err;
	}
	/* The attack: an agent that got a state directory of its own where
	 * its jail's should be (a runtime directory it could rename) serves
	 * a control socket there, and hears what its user asks. A supervisor
	 * never lives in a PID namespace below ours (pid 0: one we cannot
	 * see at all). */
	err = server_in_a_jail(fd);
	if (err) {
		close(fd);
		return err;
	}
	if (send(fd, request, strlen(request), MSG_NOSIGNAL) < 0 ||
	    send(fd, "\n", 1, MSG_NOSIGNAL) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	/* A reload of a 100,000-entry policy takes a fraction of a second;
	 * 10 s means the supervisor is stuck. */
	p.fd = fd;
	reply[0] = '\0';
	while (len + 1 < size) {
		ssize_t n;

		if (poll(&p, 1, 10000) != 1) {
			err = -ETIMEDOUT;
			break;
		}
		n = read(fd, reply + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		len += (size_t)n;
		reply[len] = '\0';
	}
	close(fd);
	return err;
}
