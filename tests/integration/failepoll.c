// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* failepoll.c - fault injection for the supervisor's event loop: an
 * LD_PRELOAD library whose epoll_ctl(EPOLL_CTL_ADD) fails with ENOMEM for
 * the descriptors whose /proc/self/fd link starts with $FAIL_EPOLL_ADD
 * ("anon_inode:[signalfd]", "socket:"...), so a test sees what a failed
 * registration does. Only ebpfjail's own epoll_ctl() fails: in ebpfjail it
 * takes itself out of the environment at once, so pasta and the agent run
 * without it, and the programs before it (env, nsenter, setpriv) pass it on.
 *
 * Build: cc -shared -fPIC -o failepoll.so failepoll.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

static char match[128];

__attribute__((constructor)) static void init(void)
{
	const char *m = getenv("FAIL_EPOLL_ADD");

	if (strcmp(program_invocation_short_name, "ebpfjail"))
		return;
	snprintf(match, sizeof(match), "%s", m ? m : "");
	unsetenv("FAIL_EPOLL_ADD");
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
