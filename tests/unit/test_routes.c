// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_routes.c - routes_check() on hand-made namespace states (pure)
 *
 * A state as the kernel dumps it for a correctly built jail passes; each
 * single surprise an attacker (or a pasta) could leave behind, an extra
 * address, route, table entry, policy rule, multipath or IPv6, is refused
 * with a reason that names it.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "routes.h"
#include "testutil.h"

/* The jail's routes: every gateway on-link. */
static struct nl_route route4(uint32_t table, uint8_t type, int oif, const char *dst,
			      uint8_t dst_len, const char *gw)
{
	return test_route4(table, type, oif, dst, dst_len, gw, RTNH_F_ONLINK);
}

#define LO 1
#define TAP 2

static struct jail_net want = { .lo_ifindex = LO, .tap_ifindex = TAP };

static struct nl_addr addrs[8];
static struct nl_route routes[16];
static struct nl_rule rules[8];
static struct net_state state;

static struct nl_rule rule4(uint32_t priority, uint32_t table)
{
	return (struct nl_rule){ .family = AF_INET, .action = FR_ACT_TO_TBL, .table = table,
				 .priority = priority };
}

/* good_state() - what a correctly built jail dumps: 127.0.0.1/8 on lo, the
 * jail's /32 on the tap, ::1, the kernel's local entries, one default
 * route via the gateway, the three default rules. */
static void good_state(void)
{
	struct net_state s = { addrs, 0, routes, 0, rules, 0 };
	struct nl_addr v6 = { .family = AF_INET6, .prefixlen = 128, .ifindex = LO };
	struct nl_route v6lo = { .family = AF_INET6, .dst_len = 128, .type = RTN_LOCAL,
				 .table = RT_TABLE_LOCAL, .oif = LO };

	inet_pton(AF_INET, "203.0.113.2", &want.addr);
	inet_pton(AF_INET, "203.0.113.1", &want.gateway);
	v6.addr[15] = 1;
	v6lo.dst[15] = 1;
	addrs[s.n_addrs++] = test_addr4(LO, "127.0.0.1", 8);
	addrs[s.n_addrs++] = test_addr4(TAP, "203.0.113.2", 32);
	addrs[s.n_addrs++] = v6;
	routes[s.n_routes++] = route4(RT_TABLE_MAIN, RTN_UNICAST, TAP, "0.0.0.0", 0, "203.0.113.1");
	routes[s.n_routes++] = route4(RT_TABLE_LOCAL, RTN_LOCAL, LO, "127.0.0.0", 8, NULL);
	routes[s.n_routes++] = route4(RT_TABLE_LOCAL, RTN_LOCAL, LO, "127.0.0.1", 32, NULL);
	routes[s.n_routes++] = route4(RT_TABLE_LOCAL, RTN_BROADCAST, LO, "127.255.255.255", 32, NULL);
	routes[s.n_routes++] = route4(RT_TABLE_LOCAL, RTN_LOCAL, TAP, "203.0.113.2", 32, NULL);
	routes[s.n_routes++] = v6lo;
	rules[s.n_rules++] = rule4(0, RT_TABLE_LOCAL);
	rules[s.n_rules++] = rule4(32766, RT_TABLE_MAIN);
	rules[s.n_rules++] = rule4(32767, RT_TABLE_DEFAULT);
	state = s;
}

static int check(char *why, size_t size)
{
	why[0] = '\0';
	return routes_check(&want, &state, why, size);
}

Test(routes, a_correct_jail_passes)
{
	char why[256];

	good_state();
	cr_expect_eq(check(why, sizeof(why)), 0, "refused: %s", why);
}

/* One surprise each: what it is, and the text the refusal must name. */
enum surprise {
	EXTRA_ADDRESS_ON_TAP,
	EXTRA_ADDRESS_ON_LO,
	IPV6_ADDRESS,
	TAP_ADDRESS_NOT_32,
	MISSING_TAP_ADDRESS,
	EXTRA_MAIN_ROUTE,
	ROUTE_IN_OTHER_TABLE,
	SECOND_DEFAULT_ROUTE,
	DEFAULT_VIA_OTHER_GATEWAY,
	MULTIPATH_DEFAULT,
	MISSING_DEFAULT,
	EXTRA_LOCAL_ENTRY,
	IPV6_ROUTE,
	EXTRA_RULE,
	MISSING_RULE,
};

struct surprise_case {
	enum surprise what;
	char names[48]; /* a part of the reason */
};

static void apply(enum surprise what)
{
	struct nl_route v6 = { .family = AF_INET6, .dst_len = 0, .type = RTN_UNICAST,
			       .table = RT_TABLE_MAIN, .oif = TAP };
	struct nl_addr a6 = { .family = AF_INET6, .prefixlen = 64, .ifindex = TAP, .addr = { 0xfe, 0x80 } };

	switch (what) {
	case EXTRA_ADDRESS_ON_TAP:
		addrs[state.n_addrs++] = test_addr4(TAP, "10.23.0.5", 24);
		break;
	case EXTRA_ADDRESS_ON_LO:
		addrs[state.n_addrs++] = test_addr4(LO, "192.168.1.1", 32);
		break;
	case IPV6_ADDRESS:
		addrs[state.n_addrs++] = a6;
		break;
	case TAP_ADDRESS_NOT_32:
		addrs[1].prefixlen = 24;
		break;
	case MISSING_TAP_ADDRESS:
		addrs[1] = addrs[--state.n_addrs];
		break;
	case EXTRA_MAIN_ROUTE:
		routes[state.n_routes++] = route4(RT_TABLE_MAIN, RTN_UNICAST, TAP, "10.0.0.0", 8, NULL);
		break;
	case ROUTE_IN_OTHER_TABLE:
		routes[state.n_routes++] = route4(100, RTN_UNICAST, TAP, "0.0.0.0", 0, "203.0.113.1");
		break;
	case SECOND_DEFAULT_ROUTE:
		routes[state.n_routes++] = routes[0];
		break;
	case DEFAULT_VIA_OTHER_GATEWAY:
		inet_pton(AF_INET, "203.0.113.9", routes[0].gateway);
		break;
	case MULTIPATH_DEFAULT:
		routes[0].multipath = true;
		break;
	case MISSING_DEFAULT:
		routes[0] = routes[--state.n_routes];
		break;
	case EXTRA_LOCAL_ENTRY:
		routes[state.n_routes++] = route4(RT_TABLE_LOCAL, RTN_LOCAL, TAP, "10.23.0.1", 32, NULL);
		break;
	case IPV6_ROUTE:
		routes[state.n_routes++] = v6;
		break;
	case EXTRA_RULE:
		rules[state.n_rules++] = rule4(100, 100);
		break;
	case MISSING_RULE:
		state.n_rules--;
		break;
	}
}

ParameterizedTestParameters(routes, every_surprise_is_refused)
{
	static struct surprise_case cases[] = {
		{ EXTRA_ADDRESS_ON_TAP, "unexpected address 10.23.0.5/24" },
		{ EXTRA_ADDRESS_ON_LO, "unexpected address 192.168.1.1/32" },
		{ IPV6_ADDRESS, "unexpected address fe80::/64" },
		{ TAP_ADDRESS_NOT_32, "unexpected address 203.0.113.2/24" },
		{ MISSING_TAP_ADDRESS, "missing address" },
		{ EXTRA_MAIN_ROUTE, "unexpected IPv4 route: table main" },
		{ ROUTE_IN_OTHER_TABLE, "unexpected IPv4 route: table 100" },
		{ SECOND_DEFAULT_ROUTE, "unexpected IPv4 route: table main" },
		{ DEFAULT_VIA_OTHER_GATEWAY, "via 203.0.113.9" },
		{ MULTIPATH_DEFAULT, "multipath" },
		{ MISSING_DEFAULT, "missing route" },
		{ EXTRA_LOCAL_ENTRY, "table local: local 10.23.0.1/32" },
		{ IPV6_ROUTE, "unexpected IPv6 route" },
		{ EXTRA_RULE, "unexpected IPv4 policy rule: priority 100" },
		{ MISSING_RULE, "default IPv4 policy rules" },
	};

	return cr_make_param_array(struct surprise_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct surprise_case *c, routes, every_surprise_is_refused)
{
	char why[256];

	good_state();
	apply(c->what);
	cr_expect_eq(check(why, sizeof(why)), -EPERM, "surprise %d passed", c->what);
	cr_expect(strstr(why, c->names) != NULL, "surprise %d: reason '%s' lacks '%s'", c->what,
		  why, c->names);
}
