// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sysfilter.c - the agent's seccomp filter: the system calls that would
 * take it around its jail
 *
 * A deny list on top of everything else the jail does (docs/DESIGN.md,
 * "Processes"), built with libseccomp as flatpak and bubblewrap build
 * theirs: each rule names the way out it closes. Anything not listed is
 * allowed; a system call of another architecture kills the process
 * (libseccomp's default for a foreign architecture), since none of the
 * rules below would match it.
 */
#include <errno.h>
#include <stdbool.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "sysfilter.h"

/* The socket families the agent keeps: local sockets, the network the jail
 * filters, and netlink (ip, ss and friends read their own namespace). */
static const int kept_families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };

/* Families are numbered below FAMILY_LIMIT for years to come (the kernel
 * has 46 in 6.18 and refuses any number past its last itself). */
#define FAMILY_LIMIT 64

/* deny_families() - every family but the kept ones, refused for @syscall_nr.
 * A list of what is refused would miss the next new family: every number
 * but the kept ones is refused instead. The family is an int: only its low
 * 32 bits are compared, or a caller could set the high ones and slip by. */
static int deny_families(scmp_filter_ctx ctx, int syscall_nr)
{
	int family, err = 0;
	size_t i;

	for (family = 0; family < FAMILY_LIMIT && !err; family++) {
		bool kept = false;

		for (i = 0; i < sizeof(kept_families) / sizeof(kept_families[0]); i++)
			kept |= kept_families[i] == family;
		if (!kept)
			err = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), syscall_nr, 1,
					       SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu,
						       (scmp_datum_t)family));
	}
	return err;
}

int sysfilter_install(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int err;

	if (!ctx)
		return -ENOMEM;
	/* A namespace of the user's (a rootless container, unshare -r) gives
	 * the agent CAP_NET_ADMIN over a network no TC filter watches. Its
	 * own new namespaces stay possible: the socket hooks judge them. */
	err = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 0);
	/* io_uring's socket, connect and send operations never pass through
	 * socket(), so the family check below would not see them. */
	if (!err)
		err = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_setup), 0);
	if (!err)
		err = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_enter), 0);
	if (!err)
		err = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_register), 0);
	/* AF_VSOCK reaches the hypervisor, AF_PACKET and AF_XDP the wire
	 * under the jail's filters, the rest (TIPC, Bluetooth, ...) networks
	 * nobody filters. */
	if (!err)
		err = deny_families(ctx, SCMP_SYS(socket));
	if (!err)
		err = deny_families(ctx, SCMP_SYS(socketpair));
	/* TIOCSTI pushes input into the terminal, which the shell that
	 * started the jail reads once the agent exits; TIOCLINUX can do the
	 * same on a virtual console. The request is an int: compare its low
	 * 32 bits only, or a caller could set the high ones and slip by. */
	if (!err)
		err = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
	if (!err)
		err = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX));
	/* TIOCSETD changes the terminal's line discipline, which makes the
	 * kernel load a module of the agent's choosing (ldisc_autoload):
	 * kernel attack surface that no agent needs. */
	if (!err)
		err = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSETD));
	if (!err)
		err = seccomp_load(ctx);
	seccomp_release(ctx);
	return err;
}
