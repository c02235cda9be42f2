// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_hostnet.c - the host's facts from hand-made netlink dumps (pure) */
#include <string.h>
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <criterion/criterion.h>

#include "hostnet.h"
#include "testutil.h"

static bool has(const struct host_prefix *list, size_t n, const char *addr, uint8_t prefixlen)
{
	uint32_t a = inet_addr(addr);
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i].addr == a && list[i].prefixlen == prefixlen)
			return true;
	return false;
}

/* A host on 203.0.113.2/24 (default via .1) and a LAN 10.23.0.1/24, a VPN
 * route, a route in another table, an AnyIP prefix and the kernel's own
 * local and broadcast entries. */
Test(hostnet, facts_from_dumps)
{
	const struct nl_addr addrs[] = {
		test_addr4(1, "127.0.0.1", 8),
		test_addr4(2, "203.0.113.2", 24),
		test_addr4(3, "10.23.0.1", 24),
	};
	const struct nl_route routes[] = {
		test_route4(RT_TABLE_MAIN, RTN_UNICAST, 2, "0.0.0.0", 0, "203.0.113.1", 0),
		test_route4(RT_TABLE_MAIN, RTN_UNICAST, 2, "203.0.113.0", 24, NULL, 0),
		test_route4(RT_TABLE_MAIN, RTN_UNICAST, 3, "198.18.0.0", 15, "10.23.0.2", 0),
		test_route4(100, RTN_UNICAST, 3, "10.99.0.0", 16, "10.23.0.2", 0),
		test_route4(RT_TABLE_LOCAL, RTN_LOCAL, 2, "203.0.113.2", 32, NULL, 0),
		test_route4(RT_TABLE_LOCAL, RTN_BROADCAST, 2, "203.0.113.255", 32, NULL, 0),
		test_route4(RT_TABLE_LOCAL, RTN_LOCAL, 1, "192.0.2.0", 24, NULL, 0),
		/* a local /32 with no address, and a local route elsewhere */
		test_route4(RT_TABLE_LOCAL, RTN_LOCAL, 1, "198.51.100.7", 32, NULL, 0),
		test_route4(100, RTN_LOCAL, 1, "198.51.100.64", 26, NULL, 0),
	};
	struct hostnet h;

	cr_assert_eq(hostnet_from_dumps(addrs, 3, routes, 9, &h), 0);
	cr_expect_eq(h.default_gateway, inet_addr("203.0.113.1"));
	cr_expect_eq(h.default_ifindex, 2);
	cr_expect_eq(h.default_addr, inet_addr("203.0.113.2"));
	cr_expect(has(h.addresses, h.n_addresses, "203.0.113.2", 32));
	cr_expect(has(h.addresses, h.n_addresses, "10.23.0.1", 32));
	cr_expect(has(h.connected, h.n_connected, "203.0.113.0", 24), "connected network lost");
	cr_expect(has(h.connected, h.n_connected, "10.23.0.0", 24), "connected network lost");
	cr_expect(has(h.routes, h.n_routes, "198.18.0.0", 15), "VPN route lost");
	cr_expect(has(h.routes, h.n_routes, "10.99.0.0", 16), "other table's route lost");
	cr_expect(has(h.routes, h.n_routes, "192.0.2.0", 24), "AnyIP prefix lost");
	cr_expect(!has(h.routes, h.n_routes, "0.0.0.0", 0), "the default route is not internal");
	cr_expect(!has(h.routes, h.n_routes, "203.0.113.255", 32), "a broadcast entry is no route");
	cr_expect(has(h.routes, h.n_routes, "198.51.100.7", 32), "a local /32 is not blocked");
	cr_expect(has(h.local, h.n_local, "198.51.100.7", 32), "a local /32 is not the host's own");
	cr_expect(has(h.local, h.n_local, "198.51.100.64", 26), "another table's local route");
	cr_expect(has(h.local, h.n_local, "192.0.2.0", 24), "AnyIP prefix not the host's own");
	hostnet_free(&h);
}
