// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rootlessns.c - what a rootless jail runs in, for tests and benchmarks */
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "rootlessns.h"

int rootless_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

int rootless_netns(void)
{
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return -1;
	/* A changed uid leaves the process undumpable: its /proc files
	 * would stay root's, uid_map among them. A user who never was root
	 * has no such step. */
	if (prctl(PR_SET_DUMPABLE, 1) || unshare(CLONE_NEWUSER | CLONE_NEWNET))
		return -1;
	if (rootless_write("/proc/self/setgroups", "deny") ||
	    rootless_write("/proc/self/uid_map", "0 65534 1") ||
	    rootless_write("/proc/self/gid_map", "0 65534 1") ||
	    rootless_write("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1") ||
	    rootless_write("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1"))
		return -1;
	return system("ip link set lo up") ? -1 : 0;
}
