// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_sysfilter.c - the agent's seccomp filter, loaded into a test process
 * (Criterion runs each test in a process of its own) */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <criterion/criterion.h>

#include "sysfilter.h"

static void filtered(void)
{
	cr_assert_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	cr_assert_eq(sysfilter_install(), 0);
}

static int socket_errno(uint64_t family)
{
	long fd = syscall(SYS_socket, family, SOCK_STREAM, 0);

	if (fd >= 0) {
		close((int)fd);
		return 0;
	}
	return errno;
}

Test(sysfilter, families, .init = filtered)
{
	cr_expect_eq(socket_errno(AF_INET), 0);
	cr_expect_eq(socket_errno(AF_INET6), 0);
	cr_expect_eq(socket_errno(AF_UNIX), 0);
	cr_expect_eq(socket_errno(AF_VSOCK), EAFNOSUPPORT);
	cr_expect_eq(socket_errno(AF_PACKET), EAFNOSUPPORT);
	cr_expect_eq(socket_errno(AF_XDP), EAFNOSUPPORT);
	cr_expect_eq(socket_errno(63), EAFNOSUPPORT, "a family the headers do not know yet");
	/* The kernel reads an int: high bits set must not slip by. */
	cr_expect_eq(socket_errno((1ULL << 32) | AF_VSOCK), EAFNOSUPPORT);
}

Test(sysfilter, socketpair, .init = filtered)
{
	int sv[2];

	cr_expect_eq(socketpair(AF_VSOCK, SOCK_STREAM, 0, sv), -1);
	cr_expect_eq(errno, EAFNOSUPPORT);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[0]);
	close(sv[1]);
}

Test(sysfilter, setns_io_uring_tiocsti, .init = filtered)
{
	char params[120] = { 0 }, c = 'x';
	int fd = open("/proc/self/ns/net", O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_expect_eq(setns(fd, CLONE_NEWNET), -1);
	cr_expect_eq(errno, EPERM);
	close(fd);
	cr_expect_eq(syscall(__NR_io_uring_setup, 1, params), -1);
	cr_expect_eq(errno, ENOSYS);
	cr_expect_eq(syscall(SYS_ioctl, 0, (unsigned long)TIOCSTI | (1UL << 32), &c), -1);
	cr_expect_eq(errno, EPERM, "TIOCSTI with high bits set");
	cr_expect_eq(ioctl(0, TIOCLINUX, &c), -1);
	cr_expect_eq(errno, EPERM);
}
