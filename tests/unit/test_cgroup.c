// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_cgroup.c - finding the cgroup v2 mount and our own cgroup in it (pure part) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>

#include "cgroup.h"

Test(cgroup, mountinfo)
{
	static char hybrid[] =
		"25 1 0:23 / /sys rw,nosuid - sysfs sysfs rw\n"
		"30 25 0:27 / /sys/fs/cgroup ro shared:9 - tmpfs tmpfs ro,mode=755\n"
		"41 30 0:38 / /sys/fs/cgroup/unified rw,relatime shared:10 - cgroup2 cgroup2 rw\n";
	static char escaped[] = "41 30 0:38 / /mnt/my\\040cg rw - cgroup2 none rw\n";
	static char none[] = "25 1 0:23 / /sys rw - sysfs sysfs rw\n";
	char buf[64];
	FILE *f;

	f = fmemopen(hybrid, sizeof(hybrid) - 1, "r");
	cr_assert_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf), NULL, 0), 0);
	cr_expect_str_eq(buf, "/sys/fs/cgroup/unified");
	fclose(f);
	f = fmemopen(escaped, sizeof(escaped) - 1, "r");
	cr_assert_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf), NULL, 0), 0);
	cr_expect_str_eq(buf, "/mnt/my cg");
	fclose(f);
	f = fmemopen(none, sizeof(none) - 1, "r");
	cr_expect_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf), NULL, 0), -ENOENT);
	fclose(f);
}

Test(cgroup, mountinfo_root_and_optional_fields)
{
	/* Podman's view: no optional field at all; the type follows "-". */
	static char podman[] =
		"1131 1123 0:38 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw\n";
	/* A subtree bind-mounted, two optional fields. */
	static char subtree[] = "77 30 0:38 /docker/abc /sys/fs/cgroup rw shared:10 master:3 - cgroup2 "
				"cgroup2 rw\n";
	char buf[64], root[64];
	FILE *f;

	f = fmemopen(podman, sizeof(podman) - 1, "r");
	cr_assert_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf), root, sizeof(root)), 0);
	cr_expect_str_eq(buf, "/sys/fs/cgroup");
	cr_expect_str_eq(root, "/");
	fclose(f);
	f = fmemopen(subtree, sizeof(subtree) - 1, "r");
	cr_assert_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf), root, sizeof(root)), 0);
	cr_expect_str_eq(root, "/docker/abc");
	fclose(f);
}

static int own(const char *proc_cgroup, const char *point, const char *root, char *buf, size_t size)
{
	char text[256], self[128];
	FILE *f;
	int ret;

	snprintf(text, sizeof(text), "%s", proc_cgroup);
	f = fmemopen(text, strlen(text), "r");
	ret = cgroup_parse_self(f, self, sizeof(self));
	fclose(f);
	return ret ? ret : cgroup_own_dir(self, point, root, buf, size);
}

Test(cgroup, own_dir)
{
	char buf[128];

	/* hybrid host: the v1 lines come first */
	cr_assert_eq(own("4:memory:/x\n0::/user.slice/session-2.scope\n", "/sys/fs/cgroup/unified", "/",
			 buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/sys/fs/cgroup/unified/user.slice/session-2.scope");
	/* the root cgroup, or a container's own cgroup namespace: no "/" at the end */
	cr_assert_eq(own("0::/\n", "/sys/fs/cgroup", "/", buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/sys/fs/cgroup");
	/* Docker --cgroupns host: the container's cgroup, never the mount's root */
	cr_assert_eq(own("0::/docker/0123abcd\n", "/sys/fs/cgroup", "/", buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/sys/fs/cgroup/docker/0123abcd");
	/* a subtree mounted: our cgroup relative to it */
	cr_assert_eq(own("0::/docker/abc/inner\n", "/cg", "/docker/abc", buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/cg/inner");
	cr_assert_eq(own("0::/docker/abc\n", "/cg", "/docker/abc", buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/cg");
	/* ... but not a sibling that shares the prefix, nor a subtree we are not in */
	cr_expect_eq(own("0::/docker/abcdef\n", "/cg", "/docker/abc", buf, sizeof(buf)), -ENOENT);
	cr_expect_eq(own("0::/other\n", "/cg", "/docker/abc", buf, sizeof(buf)), -ENOENT);
	/* the host's mount seen from a container's cgroup namespace */
	cr_expect_eq(own("0::/\n", "/sys/fs/cgroup", "/../..", buf, sizeof(buf)), -ENOENT);
	/* no cgroup v2 line (a v1-only host) */
	cr_expect_eq(own("1:name=systemd:/\n", "/cg", "/", buf, sizeof(buf)), -ENOENT);
	cr_expect_eq(own("0::/a/very/long/path\n", "/cg", "/", buf, 8), -ENAMETOOLONG);
}

Test(cgroup, mountinfo_next_mount)
{
	/* the host's mount, then the container's own on the same point */
	static char stacked[] = "41 30 0:38 /../.. /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
				"25 1 0:23 / /sys rw - sysfs sysfs rw\n"
				"90 41 0:38 / /sys/fs/cgroup ro - cgroup2 none rw\n";
	char buf[64], root[64];
	FILE *f = fmemopen(stacked, sizeof(stacked) - 1, "r");

	cr_assert_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf), root, sizeof(root)), 0);
	cr_expect_str_eq(root, "/../..");
	cr_assert_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf), root, sizeof(root)), 0);
	cr_expect_str_eq(root, "/");
	cr_expect_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf), root, sizeof(root)), -ENOENT);
	fclose(f);
}
