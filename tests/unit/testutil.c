// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* testutil.c - what the kernel tests share: a throwaway cgroup, the
 * events the loader hands over */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "cgroup.h"
#include "testutil.h"

static char cg_path[512];
static int cg_fd = -1;

void test_cgroup_close(void)
{
	if (cg_fd >= 0)
		close(cg_fd);
	cg_fd = -1;
	if (cg_path[0] && rmdir(cg_path) && errno != ENOENT)
		fprintf(stderr, "cannot remove %s: %s\n", cg_path, strerror(errno));
	cg_path[0] = '\0';
}

/* Criterion skips .fini (and atexit) when .init fails, so a cgroup can be
 * left behind by a test process that died: remove those of dead pids. */
static void remove_stale(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		const char *dash = strrchr(de->d_name, '-');
		char path[768];
		long pid;

		if (strncmp(de->d_name, "ebpfjail-test-", 14) || !dash)
			continue;
		pid = strtol(dash + 1, NULL, 10);
		if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
		if (rmdir(path) == 0)
			fprintf(stderr, "removed a dead test's cgroup %s\n", path);
	}
	if (d)
		closedir(d);
}

int test_cgroup_open(const char *tag)
{
	static int registered;
	char root[256];

	cr_assert_eq(cgroup_v2_root(root, sizeof(root)), 0, "no cgroup v2 mount");
	remove_stale(root);
	snprintf(cg_path, sizeof(cg_path), "%s/ebpfjail-test-%s-%d", root, tag, getpid());
	if (!registered++)
		atexit(test_cgroup_close);
	cr_assert_eq(mkdir(cg_path, 0755), 0, "mkdir %s: %s", cg_path, strerror(errno));
	cg_fd = open(cg_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(cg_fd, 0, "open %s: %s", cg_path, strerror(errno));
	return cg_fd;
}

int test_events_add(void *ctx, const struct jail_event *e)
{
	struct test_events *t = ctx;

	if (t->n < TEST_EVENTS_MAX)
		t->e[t->n++] = *e;
	t->total++;
	return 0;
}

struct nl_addr test_addr4(int ifindex, const char *a, uint8_t prefixlen)
{
	struct nl_addr x = { .family = AF_INET, .prefixlen = prefixlen, .ifindex = ifindex };

	inet_pton(AF_INET, a, x.addr);
	return x;
}

struct nl_route test_route4(uint32_t table, uint8_t type, int oif, const char *dst,
			    uint8_t dst_len, const char *gw, uint32_t gw_flags)
{
	struct nl_route r = { .family = AF_INET, .dst_len = dst_len, .type = type,
			      .table = table, .oif = oif };

	inet_pton(AF_INET, dst, r.dst);
	if (gw) {
		r.has_gateway = true;
		inet_pton(AF_INET, gw, r.gateway);
		r.flags = gw_flags;
	}
	return r;
}
