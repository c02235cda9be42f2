// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_control.c - the control socket's answers to root, on a real socket */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <criterion/criterion.h>

#include "control.h"

static char dir[] = "/tmp/ebpfjail-control.XXXXXX";
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
