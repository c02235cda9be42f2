// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_cgroup.c - finding the cgroup v2 mount in mountinfo (pure part) */
#include <errno.h>
#include <stdio.h>
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
	cr_assert_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/sys/fs/cgroup/unified");
	fclose(f);
	f = fmemopen(escaped, sizeof(escaped) - 1, "r");
	cr_assert_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/mnt/my cg");
	fclose(f);
	f = fmemopen(none, sizeof(none) - 1, "r");
	cr_expect_eq(cgroup_parse_mountinfo(f, buf, sizeof(buf)), -ENOENT);
	fclose(f);
}
