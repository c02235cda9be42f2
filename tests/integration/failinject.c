// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* failinject.c - fault injection for the supervisor, an LD_PRELOAD library:
 *   FAIL_EPOLL_ADD=PREFIX  epoll_ctl(EPOLL_CTL_ADD) fails with ENOMEM for
 *       the descriptors whose /proc/self/fd link starts with PREFIX
 *       ("anon_inode:[signalfd]", "socket:"...): what a failed registration
 *       of the event loop does
 *   FAIL_ROUTE_DUMP=PATH  while PATH exists, a route dump asked in the
 *       network namespace ebpfjail started in (the host's: never the
 *       jail's, whose routes are checked too) fails with ENOBUFS: what a
 *       failed read of the host does
 * Only ebpfjail's own calls fail: in ebpfjail it takes itself out of the
 * environment at once, so pasta and the agent run without it, and the
 * programs before it (env, nsenter, setpriv) pass it on.
 *
 * Build: cc -shared -fPIC -o failinject.so failinject.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

static char match[128], route_dump_flag[256], host_netns[64];

__attribute__((constructor)) static void init(void)
{
	const char *m = getenv("FAIL_EPOLL_ADD"), *f = getenv("FAIL_ROUTE_DUMP");
	ssize_t n;

	if (strcmp(program_invocation_short_name, "ebpfjail"))
		return;

	snprintf(match, sizeof(match), "%s", m ? m : "");
	snprintf(route_dump_flag, sizeof(route_dump_flag), "%s", f ? f : "");
	n = readlink("/proc/thread-self/ns/net", host_netns, sizeof(host_netns) - 1);
	host_netns[n > 0 ? n : 0] = '\0';
	unsetenv("FAIL_EPOLL_ADD");
	unsetenv("FAIL_ROUTE_DUMP");
	unsetenv("LD_PRELOAD");
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
	static int (*real)(int, int, int, struct epoll_event *);
	char path[64], link[256];
	ssize_t n;

	if (!real)
		real = (int (*)(int, int, int, struct epoll_event *))dlsym(RTLD_NEXT, "epoll_ctl");
	if (op == EPOLL_CTL_ADD && match[0]) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			if (!strncmp(link, match, strlen(match))) {
				errno = ENOMEM;
				return -1;
			}
		}
	}
	return real(epfd, op, fd, event);
}

/* is_rtnetlink() - whether @fd is an rtnetlink socket (the supervisor
 * sends on UDP sockets in the host's namespace too: its DNS forwarder) */
static int is_rtnetlink(int fd)
{
	int domain = 0, proto = -1;
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) || domain != AF_NETLINK)
		return 0;
	len = sizeof(int);
	return !getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) && proto == NETLINK_ROUTE;
}

/* in_host_netns() - whether the calling thread is in the namespace
 * ebpfjail started in. Return: 1 if so; 0 if not, or if either link could
 * not be read (nothing is injected then, and a test that needs the
 * injection sees it missing). */
static int in_host_netns(void)
{
	char now[64];
	ssize_t n = readlink("/proc/thread-self/ns/net", now, sizeof(now) - 1);

	if (n <= 0)
		return 0;
	now[n] = '\0';
	return !strcmp(now, host_netns);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
	       socklen_t tolen)
{
	static ssize_t (*real)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	const struct nlmsghdr *nlh = buf;

	if (!real)
		real = (ssize_t(*)(int, const void *, size_t, int, const struct sockaddr *,
				   socklen_t))dlsym(RTLD_NEXT, "sendto");
	if (route_dump_flag[0] && len >= sizeof(*nlh) && nlh->nlmsg_type == RTM_GETROUTE &&
	    (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP && !access(route_dump_flag, F_OK) &&
	    is_rtnetlink(fd) && in_host_netns()) {
		errno = ENOBUFS;
		return -1;
	}
	return real(fd, buf, len, flags, to, tolen);
}
