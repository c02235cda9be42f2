// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_netaddr.c - address parsing, built-in blocks, mountinfo parsing */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "builtin.h"
#include "cgroup.h"
#include "netaddr.h"

Test(netaddr, strict_ipv4)
{
	static const char *const good[] = { "0.0.0.0", "1.2.3.4", "255.255.255.255", "10.0.0.1" };
	static const char *const bad[] = { "", "1", "1.2.3", "1.2.3.4.", ".1.2.3", "1.2.3.4.5",
					   "01.2.3.4", "1.2.3.256", "1.2.3.-1", "+1.2.3.4",
					   " 1.2.3.4", "1.2.3.4 ", "1.2.3.4x", "1.2.3.0004",
					   "0x1.2.3.4", "1..2.3" };
	uint32_t a;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cr_expect_eq(netaddr_parse_ipv4(good[i], &a), 0, "%s", good[i]);
		cr_expect_eq(a, inet_addr(good[i]), "%s", good[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(netaddr_parse_ipv4(bad[i], &a), -EINVAL, "'%s' accepted", bad[i]);
}

Test(netaddr, ports)
{
	uint16_t p;

	cr_expect_eq(netaddr_parse_port("1", false, &p), 0);
	cr_expect_eq(p, 1);
	cr_expect_eq(netaddr_parse_port("65535", false, &p), 0);
	cr_expect_eq(p, 65535);
	cr_expect_eq(netaddr_parse_port("0", false, &p), -ERANGE);
	cr_expect_eq(netaddr_parse_port("0", true, &p), 0);
	cr_expect_eq(netaddr_parse_port("65536", false, &p), -ERANGE);
	cr_expect_eq(netaddr_parse_port("08", false, &p), -EINVAL);
	cr_expect_eq(netaddr_parse_port("1000000", false, &p), -EINVAL);
	cr_expect_eq(netaddr_parse_port("", false, &p), -EINVAL);
}

Test(netaddr, format_and_mask)
{
	char buf[NETADDR_CIDR_STRLEN];

	netaddr_format_cidr(inet_addr("255.255.255.255"), 32, buf);
	cr_expect_str_eq(buf, "255.255.255.255/32");
	cr_expect_eq(netaddr_mask(0), 0);
	cr_expect_eq(netaddr_mask(10), 0xffc00000U);
	cr_expect_eq(netaddr_mask(32), 0xffffffffU);
}

Test(builtin, edges_and_metadata)
{
	static const struct {
		const char *addr;
		int reason; /* -1: no built-in block */
	} cases[] = {
		{ "100.63.255.255", -1 },         { "100.64.0.0", REASON_CGNAT },
		{ "100.127.255.255", REASON_CGNAT }, { "100.128.0.0", -1 },
		{ "172.15.255.255", -1 },         { "172.16.0.0", REASON_PRIVATE },
		{ "172.31.255.255", REASON_PRIVATE }, { "172.32.0.0", -1 },
		{ "169.253.255.255", -1 },        { "169.254.0.1", REASON_LINK_LOCAL },
		{ "169.255.0.0", -1 },            { "192.167.255.255", -1 },
		{ "192.168.0.0", REASON_PRIVATE }, { "192.169.0.0", -1 },
		{ "169.254.169.254", REASON_METADATA }, { "168.63.129.16", REASON_METADATA },
		{ "100.100.100.200", REASON_METADATA }, { "255.255.255.255", REASON_RESERVED },
		{ "0.1.2.3", REASON_RESERVED },   { "127.0.0.1", REASON_LOOPBACK },
		{ "224.0.0.251", REASON_MULTICAST }, { "203.0.113.1", -1 },
		{ "8.8.8.8", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct builtin_block *b = builtin_match(inet_addr(cases[i].addr));

		if (cases[i].reason < 0)
			cr_expect_null(b, "%s blocked as %s", cases[i].addr,
				       b ? reason_name(b->reason) : "");
		else
			cr_expect(b && (int)b->reason == cases[i].reason, "%s: want %s, got %s",
				  cases[i].addr, reason_name((unsigned)cases[i].reason),
				  b ? reason_name(b->reason) : "nothing");
	}
	for (i = 0; i < builtin_blocks_count; i++) {
		cr_expect_eq(builtin_blocks[i].host_addr & ~netaddr_mask(builtin_blocks[i].prefixlen),
			     0, "entry %zu has host bits", i);
		cr_expect(builtin_blocks[i].source && builtin_blocks[i].source[0], "entry %zu", i);
	}
	for (i = 0; i < REASON_COUNT; i++)
		cr_expect_not_null(reason_name((unsigned)i), "reason %zu has no name", i);
}

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
