/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* netns.h - the jail's network namespace: create it, enter it, leave it */
#ifndef EBPFJAIL_NETNS_H
#define EBPFJAIL_NETNS_H

#include <sys/types.h>
#include <linux/types.h>

struct netns {
	pid_t holder; /* a capability-less process inside it, until released */
	int fd;       /* the namespace: keeps it alive */
	int host_fd;  /* the namespace we came from */
	__u64 cookie; /* its SO_NETNS_COOKIE: what the socket hooks compare */
};

/**
 * netns_create() - a new, empty network namespace
 *
 * Made by a child ("holder") that drops every capability and waits: pasta
 * (which keeps only a few capabilities of its own) may open
 * /proc/HOLDER/ns/net, where it could not open the namespace of a process
 * with full capabilities. The holder dies with us (PDEATHSIG). It reads
 * the namespace's cookie first, for the socket hooks (loader_options).
 * Return: 0 or -errno (a kernel without SO_NETNS_COOKIE, before 5.14, is
 * -ENOPROTOOPT: the hooks could not tell the jail's sockets from others).
 */
int netns_create(struct netns *ns);

/** netns_release_holder() - end the holder once pasta has joined */
void netns_release_holder(struct netns *ns);

/** netns_enter() / netns_leave() - move this (single-threaded) process */
int netns_enter(const struct netns *ns);
int netns_leave(const struct netns *ns);

/** netns_disable_ipv6() - in the current namespace, for lo and every new link */
int netns_disable_ipv6(void);

/** netns_close() - release everything; NULL fds are fine */
void netns_close(struct netns *ns);

#endif /* EBPFJAIL_NETNS_H */
