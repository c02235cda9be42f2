/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* sysfilter.h - the agent's seccomp filter: the system calls that would
 * take it around its jail */
#ifndef EBPFJAIL_SYSFILTER_H
#define EBPFJAIL_SYSFILTER_H

/**
 * sysfilter_install() - load the filter into the calling process; it holds
 * for everything the process execs and starts from then on
 *
 * Refused: setns() (EPERM: joining a namespace of the user's, such as a
 * rootless container's, where the agent would hold CAP_NET_ADMIN and no TC
 * filter watches), io_uring (ENOSYS: its socket operations bypass the
 * family check), socket() and socketpair() of every family but AF_UNIX,
 * AF_INET, AF_INET6 and AF_NETLINK (EAFNOSUPPORT: vsock to the
 * hypervisor, packet, TIPC, Bluetooth, XDP ...), and the TIOCSTI and
 * TIOCLINUX ioctls (EPERM: input pushed into the terminal runs in the shell
 * that started the jail once the agent exits). System calls of another
 * architecture (32-bit ones on x86-64) kill the process: the rules could
 * not judge them. unshare() stays allowed (bubblewrap in the jail).
 * Call it last before exec, after no_new_privs.
 * Return: 0 or -errno.
 */
int sysfilter_install(void);

#endif /* EBPFJAIL_SYSFILTER_H */
