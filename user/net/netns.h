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
	int user_fd;  /* rootless: the user namespace that owns it, or -1 */
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

/**
 * netns_create_rootless() - a new user namespace that maps the caller's
 * uid and gid to themselves, and a network namespace it owns (the rootless
 * engine, docs/DESIGN.md)
 *
 * Made by a holder that unshares both and waits; its maps are written from
 * here, as an unprivileged user may (its own uid and gid, setgroups
 * denied). Identity maps, not root: inside, the agent is its own uid, not
 * 0, so it loses every capability over the namespaces at exec (under
 * rootless Podman our uid, and so the agent's, is 0: there the emptied
 * bounding set and no_new_privs take them, agent.c). No cookie
 * (@ns->cookie stays 0): there are no socket hooks to give it to.
 * Return: 0 or -errno (not logged: the caller says it in one line).
 */
int netns_create_rootless(struct netns *ns);

/**
 * netns_join_user() - this (single-threaded) process into the jail's user
 * namespace: every capability over the jail's namespaces from then on,
 * none more on the host; it stays in the host's network namespace, and
 * can never return to it once it leaves (the host's belongs to a user
 * namespace where it has no capability); what it does in the jail's
 * namespace netns_run() does, as in root's jails
 * Return: 0 or -errno (logged).
 */
int netns_join_user(const struct netns *ns);

/**
 * netns_run() - @fn(@arg) in a thread of its own inside the network
 * namespace @ns_fd (the jail's); this thread stays where it is. Sockets @fn makes are
 * the jail's and work from any thread.
 * Return: what @fn returned, or -errno when the thread could not start or
 * enter the namespace.
 * With netns_worker_start() for @ns_fd, the worker runs it: no new thread.
 */
int netns_run(int ns_fd, int (*fn)(void *arg), void *arg);

/**
 * netns_worker_start() - one thread that stays in @ns_fd (the jail's) and
 * runs every netns_run() for it from then on, so that none needs a new
 * thread while the jail runs (a rootless agent shares its user's process
 * limit with the supervisor). Idle, it waits in read() and holds no lock,
 * so the supervisor's raw clone() of the agent's init stays safe.
 * Return: 0, -EBUSY (one runs already), or -errno.
 */
int netns_worker_start(int ns_fd);

/** netns_worker_stop() - end the worker (none: nothing to do) */
void netns_worker_stop(void);

/** netns_release_holder() - end the holder once pasta has joined */
void netns_release_holder(struct netns *ns);

/**
 * netns_write_proc() - @text into the /proc file @path (a sysctl, an id map)
 * Return: 0 or -errno.
 */
int netns_write_proc(const char *path, const char *text);

/**
 * netns_disable_ipv6() - in the current namespace, for lo and every new link
 * Return: 0 (also on a kernel without IPv6), or -errno: -EROFS where no
 * /proc/sys of the namespace can be written (a container's, rootless).
 */
int netns_disable_ipv6(void);

/** netns_close() - release everything; NULL fds are fine */
void netns_close(struct netns *ns);

#endif /* EBPFJAIL_NETNS_H */
