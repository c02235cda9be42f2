// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_control.c - the control socket's answers to root, on a real socket */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <poll.h>
#include <sys/time.h>
#include <time.h>
#include <criterion/criterion.h>

#include "control.h"

static char dir[] = "/tmp/ebpfjail-control.XXXXXX";
static char dir2[] = "/tmp/ebpfjail-control2.XXXXXX";
static int lfd = -1;

/* client() - a connected client that has sent @request */
static int client(const char *request)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, CONTROL_SOCKET_NAME);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "connect: %s", strerror(errno));
	cr_assert_eq(send(fd, request, strlen(request), 0), (ssize_t)strlen(request));
	return fd;
}

static void reply_of(int fd, char *buf, size_t size)
{
	ssize_t n = recv(fd, buf, size - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

static void setup(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: the control socket answers uid 0 only");
	cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	lfd = control_listen(dir);
	cr_assert_geq(lfd, 0, "control_listen: %s", strerror(-lfd));
}

static void teardown(void)
{
	char path[128];

	if (lfd >= 0)
		close(lfd);
	snprintf(path, sizeof(path), "%s/%s", dir, CONTROL_SOCKET_NAME);
	unlink(path);
	rmdir(dir);
}

TestSuite(control, .init = setup, .fini = teardown);

Test(control, root_with_cap_net_admin_is_heard)
{
	char req[CONTROL_MAX_REQUEST];
	int c = client("reload 0\n"), fd;

	fd = control_accept(lfd, req, false);
	cr_assert_geq(fd, 0, "control_accept: %s", strerror(-fd));
	cr_expect_str_eq(req, "reload 0");
	control_reply(fd, "ok\n");
	close(c);
}

/* Out of descriptors, the supervisor once told root "the caller lacks
 * CAP_NET_ADMIN". Whatever stops it from reading the caller's
 * capabilities, it says that, and not a capability the caller has. */
Test(control, out_of_descriptors_is_not_a_missing_capability)
{
	char req[CONTROL_MAX_REQUEST], reply[256];
	struct rlimit rl;
	int c = client("deny 10.0.0.1 0\n"), lowest, err;

	/* Room for the accepted connection, none for /proc/PID/status. */
	lowest = dup(0);
	cr_assert_geq(lowest, 0);
	close(lowest);
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = (rlim_t)lowest + 1;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0, "setrlimit: %s", strerror(errno));
	err = control_accept(lfd, req, false);
	cr_expect_eq(err, -EMFILE, "control_accept: %d (%s)", err, strerror(-err));
	reply_of(c, reply, sizeof(reply));
	cr_expect(!strstr(reply, "CAP_NET_ADMIN"), "a false cause: %s", reply);
	cr_expect(strstr(reply, "error cannot read the caller's capabilities: Too many open files"),
		  "reply: %s", reply);
}

/* in_child_pid_ns() - @fn as PID 1 of a new PID namespace (a jail's
 * process, as the supervisor sees it); its pid here */
static pid_t in_child_pid_ns(void (*fn)(void))
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(90);
		inner = fork();
		if (inner == 0)
			fn();
		_exit(inner > 0 && waitpid(inner, NULL, 0) == inner ? 0 : 91);
	}
	return pid;
}

/* jailed_client() - in a child: plain calls (no Criterion there) */
static void jailed_client(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static const char req[] = "allow 10.0.0.1 0\n";
	struct timeval five = { .tv_sec = 5 };
	char buf[256] = "";
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ssize_t n;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, CONTROL_SOCKET_NAME);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &five, sizeof(five)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(fd, req, strlen(req), 0) != (ssize_t)strlen(req))
		_exit(94);
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	_exit(strstr(buf, "inside a jail") ? 0 : 92);
}

/* Rootless, the agent is the same uid as the jail's user: a client of the
 * agent's PID namespace (below ours) is refused, and told why. */
Test(control, rootless_refuses_a_client_inside_a_jail)
{
	char req[CONTROL_MAX_REQUEST];
	int err, status;
	pid_t pid = in_child_pid_ns(jailed_client);
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	cr_assert_eq(poll(&p, 1, 5000), 1, "the jailed client did not connect within 5 s");
	err = control_accept(lfd, req, true);
	cr_expect_eq(err, -EPERM, "control_accept: %d (%s)", err, strerror(-err));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the client's status %d", status);
	/* and the same uid outside one is heard, without CAP_NET_ADMIN */
	err = client("reload 0\n");
	status = control_accept(lfd, req, true);
	cr_expect_geq(status, 0, "control_accept: %s", strerror(-status));
	if (status >= 0)
		control_reply(status, "ok\n");
	close(err);
}

static void impostor(void)
{
	int fd = control_listen(dir2);
	struct pollfd p = { .fd = fd, .events = POLLIN };

	/* Bounded: the test kills it anyway. */
	_exit(fd >= 0 && poll(&p, 1, 5000) == 1 ? 0 : 93);
}

/* The attack: an agent serves a control socket where its user's client
 * looks for its jail's. The client tells nothing to a server that lives
 * in a PID namespace below its own. */
Test(control, a_server_inside_a_jail_is_told_nothing)
{
	char reply[256];
	pid_t pid;
	int err, i;

	cr_assert(mkdtemp(dir2), "mkdtemp: %s", strerror(errno));
	pid = in_child_pid_ns(impostor);
	for (i = 0; i < 200; i++) { /* until it listens, at most 2 s */
		char path[128];

		snprintf(path, sizeof(path), "%s/%s", dir2, CONTROL_SOCKET_NAME);
		if (!access(path, F_OK))
			break;
		usleep(10000);
	}
	err = control_request(dir2, "allow 10.0.0.1 0", reply, sizeof(reply));
	cr_expect_eq(err, -EPROTO, "control_request: %d (%s)", err, strerror(-err));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/%s", dir2, CONTROL_SOCKET_NAME);
		unlink(path);
	}
	rmdir(dir2);
}

#define RELISTENS 500

/* relisten() - in a child, once the test says go: control_listen() in
 * @dir2 RELISTENS times, 100 us apart (the test connects meanwhile, even
 * on a loaded machine), each socket kept open and listening (only its name
 * goes to the next), then its status on @done (0, or the failing call's
 * errno), and a wait to be killed: no socket closes while the test still
 * connects, so a refused connect can only be a path that does not listen
 * yet */
static void relisten(int go, int done)
{
	struct rlimit fds;
	int i, n = RELISTENS, err = 0;
	char byte;

	if (getrlimit(RLIMIT_NOFILE, &fds) == 0 && fds.rlim_cur < RELISTENS + 64) {
		fds.rlim_cur = fds.rlim_max < RELISTENS + 64 ? fds.rlim_max : RELISTENS + 64;
		if (setrlimit(RLIMIT_NOFILE, &fds) == 0 && fds.rlim_cur < RELISTENS + 64)
			n = fds.rlim_cur > 64 ? (int)fds.rlim_cur - 64 : 1;
	}
	if (read(go, &byte, 1) != 1)
		_exit(98);
	for (i = 0; !err && i < n; i++) {
		int fd = control_listen(dir2);

		if (fd < 0)
			err = -fd;
		usleep(100);
	}
	if (write(done, &err, sizeof(err)) != sizeof(err))
		_exit(97);
	sleep(10);
	_exit(0);
}

/* A client that finds the path can connect: the socket is named only once
 * it listens. bind() makes the file before listen(), and `ebpfjail reload`
 * (or a script that waits for the file) was refused in between. A second
 * process names a new socket there RELISTENS times while this one connects
 * to whatever it finds, for at most 10 s. Control: connects found the path
 * and got in. */
Test(control, the_path_appears_only_when_it_listens)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int refused = 0, heard = 0, other = 0, go[2], done[2], fd, err = -1;
	struct pollfd p;
	char tmp[128];
	time_t end;
	pid_t pid;

	cr_assert(mkdtemp(dir2), "mkdtemp: %s", strerror(errno));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir2, CONTROL_SOCKET_NAME);
	snprintf(tmp, sizeof(tmp), "%s/%s", dir2, CONTROL_SOCKET_TMP_NAME);
	cr_assert_eq(pipe(go), 0);
	cr_assert_eq(pipe(done), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		relisten(go[0], done[1]);
	close(go[0]);
	close(done[1]);
	p = (struct pollfd){ .fd = done[0], .events = POLLIN };
	end = time(NULL) + 10;
	if (write(go[1], "", 1) != 1)
		other++;
	while (!other && poll(&p, 1, 0) == 0 && time(NULL) < end) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			other++;
			break;
		}
		/* EAGAIN: that socket's backlog is full, but it listens */
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)) || errno == EAGAIN)
			heard++;
		else if (errno == ECONNREFUSED)
			refused++;
		close(fd);
	}
	if (!(p.revents & POLLIN) || read(done[0], &err, sizeof(err)) != sizeof(err))
		err = -1;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(go[1]);
	close(done[0]);
	unlink(sa.sun_path);
	unlink(tmp);
	rmdir(dir2);
	cr_expect_eq(err, 0, "the listener: %s", err < 0 ? "ended without a word, or took over 10 s" : strerror(err));
	cr_expect_eq(other, 0, "the test's own socket() or write() failed");
	cr_expect_eq(refused, 0, "%d connects refused at an existing path (%d heard)", refused, heard);
	cr_expect_gt(heard, 0, "no connect found a listening socket: the race never ran");
}

/* peer_pidfd_known() - does this kernel give a peer's pidfd (6.5+)? */
static bool peer_pidfd_known(void)
{
	int sv[2], pidfd = -1;
	socklen_t len = sizeof(pidfd);
	bool known;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	known = getsockopt(sv[0], SOL_SOCKET, 77 /* SO_PEERPIDFD */, &pidfd, &len) == 0;
	if (pidfd >= 0)
		close(pidfd);
	close(sv[0]);
	close(sv[1]);
	return known;
}

/* The attack: the caller connects, sends, and exits, and a child keeps the
 * connection; its pid, freed, could go to another process whose /proc
 * entry would then pass for the caller's. A caller gone before it is heard
 * is refused (its pidfd, SO_PEERPIDFD, says it exited), and told why.
 * Control: the same request from a caller that stays is heard. */
Test(control, a_caller_that_exited_before_it_was_heard_is_refused)
{
	char req[CONTROL_MAX_REQUEST], buf[128];
	int sv[2], status, err, fd;
	pid_t pid;
	ssize_t n;

	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* The connector sends, hands the connection to a child that
		 * keeps it and passes the reply on, and exits. */
		fd = client("reload 0\n");
		if (fork() == 0) {
			n = recv(fd, buf, sizeof(buf) - 1, 0);
			_exit(write(sv[1], buf, n > 0 ? (size_t)n : 0) < 0);
		}
		_exit(0);
	}
	close(sv[1]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	err = control_accept(lfd, req, false);
	n = read(sv[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (!peer_pidfd_known()) {
		/* Before 6.5 the pid's /proc entry is gone (not reused here):
		 * refused all the same, for another reason. */
		cr_expect_lt(err, 0, "control_accept: %d", err);
		cr_log_warn("no SO_PEERPIDFD on this kernel: only the refusal is checked");
	} else {
		cr_expect_eq(err, -EPERM, "control_accept: %d (%s)", err, strerror(-err));
		cr_expect(strstr(buf, "error the caller exited before it was heard"), "reply: %s",
			  buf);
	}
	close(sv[0]);
	fd = client("reload 0\n");
	err = control_accept(lfd, req, false);
	cr_expect_geq(err, 0, "control: a caller that stays is heard: %s", strerror(-err));
	if (err >= 0)
		control_reply(err, "ok\n");
	close(fd);
}
