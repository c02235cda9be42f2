// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_netaddr.c - strict address and port parsing, formatting, masks */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>

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
