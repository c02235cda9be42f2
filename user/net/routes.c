// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* routes.c - the jail's routing, rebuilt from scratch and verified
 *
 * Why rebuild: pasta copies the host's address with its prefix, which gives
 * the jail a connected route to the host's LAN, and newer pastas may add
 * more. A route is not a hole (the BPF programs decide), but a jail whose
 * routing says exactly "me, and everything via the gateway" has nothing for
 * an agent to find, and a check that refuses anything else catches pasta
 * or kernel changes before they matter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>

#include "log.h"
#include "netaddr.h"
#include "routes.h"

static const char *table_name(uint32_t t)
{
	static char buf[16];

	switch (t) {
	case RT_TABLE_MAIN:
		return "main";
	case RT_TABLE_LOCAL:
		return "local";
	case RT_TABLE_DEFAULT:
		return "default";
	default:
		snprintf(buf, sizeof(buf), "%u", t);
		return buf;
	}
}

static void describe(const struct nl_route *r, char *buf, size_t size)
{
	char dst[INET6_ADDRSTRLEN] = "", gw[INET6_ADDRSTRLEN] = "";

	inet_ntop(r->family, r->dst, dst, sizeof(dst));
	if (r->has_gateway)
		inet_ntop(r->family, r->gateway, gw, sizeof(gw));
	snprintf(buf, size, "table %s: %s %s/%u%s%s dev %d%s%s", table_name(r->table),
		 r->type == RTN_LOCAL       ? "local"
		 : r->type == RTN_BROADCAST ? "broadcast"
		 : r->type == RTN_UNICAST   ? "unicast"
					    : "type-other",
		 dst, r->dst_len, r->has_gateway ? " via " : "", gw, r->oif,
		 r->flags & RTNH_F_ONLINK ? " onlink" : "", r->multipath ? " multipath" : "");
}

static uint32_t dst4(const struct nl_route *r)
{
	uint32_t a;

	memcpy(&a, r->dst, 4);
	return a;
}

static bool is_host(const struct nl_route *r, int type, int oif, uint32_t addr)
{
	return r->type == type && r->oif == oif && r->dst_len == 32 && dst4(r) == addr;
}

/* The kernel's own local-table entries for our two IPv4 addresses. */
static bool expected_local(const struct jail_net *w, const struct nl_route *r)
{
	uint32_t lo_net = htonl(0x7f000000), lo_host = htonl(0x7f000001);

	if (r->type == RTN_LOCAL && r->oif == w->lo_ifindex && r->dst_len == 8 && dst4(r) == lo_net)
		return true;
	if (is_host(r, RTN_LOCAL, w->lo_ifindex, lo_host) ||
	    is_host(r, RTN_LOCAL, w->tap_ifindex, w->addr) ||
	    (w->dns_addr && is_host(r, RTN_LOCAL, w->lo_ifindex, w->dns_addr)))
		return true;
	/* lo's /8 broadcast; older kernels also list the network address. */
	return is_host(r, RTN_BROADCAST, w->lo_ifindex, htonl(0x7fffffff)) ||
	       is_host(r, RTN_BROADCAST, w->lo_ifindex, lo_net);
}

static bool expected_default(const struct jail_net *w, const struct nl_route *r)
{
	uint32_t gw;

	memcpy(&gw, r->gateway, 4);
	return r->table == RT_TABLE_MAIN && r->type == RTN_UNICAST && r->dst_len == 0 &&
	       r->has_gateway && gw == w->gateway && r->oif == w->tap_ifindex && !r->multipath;
}

static bool is_ipv6_loopback(const uint8_t a[16])
{
	static const uint8_t one[16] = { [15] = 1 };

	return !memcmp(a, one, 16);
}

static int check_addrs(const struct jail_net *w, const struct net_state *s, char *why, size_t n)
{
	char a[INET6_ADDRSTRLEN];
	bool lo_ok = false, tap_ok = false;
	size_t i;

	for (i = 0; i < s->n_addrs; i++) {
		const struct nl_addr *x = &s->addrs[i];
		uint32_t v4;

		memcpy(&v4, x->addr, 4);
		inet_ntop(x->family, x->addr, a, sizeof(a));
		if (x->family == AF_INET6 && x->ifindex == w->lo_ifindex && is_ipv6_loopback(x->addr))
			continue; /* ::1 on lo may remain: it leads nowhere */
		if (x->family == AF_INET6 && w->ipv6_on && x->addr[0] == 0xfe &&
		    (x->addr[1] & 0xc0) == 0x80)
			continue; /* link-local, fe80::/10 */
		if (x->family == AF_INET && x->ifindex == w->lo_ifindex && x->prefixlen == 8 &&
		    v4 == htonl(0x7f000001)) {
			lo_ok = true;
			continue;
		}
		if (x->family == AF_INET && x->ifindex == w->lo_ifindex && x->prefixlen == 32 &&
		    w->dns_addr && v4 == w->dns_addr)
			continue; /* the forwarder's address: it never leaves lo */
		if (x->family == AF_INET && x->ifindex == w->tap_ifindex && x->prefixlen == 32 &&
		    v4 == w->addr) {
			tap_ok = true;
			continue;
		}
		snprintf(why, n, "unexpected address %s/%u on interface %d", a, x->prefixlen,
			 x->ifindex);
		return -EPERM;
	}
	if (!lo_ok || !tap_ok) {
		snprintf(why, n, "missing address: %s", !lo_ok ? "127.0.0.1/8 on lo"
							      : "the jail's /32 on the tap");
		return -EPERM;
	}
	return 0;
}

static int check_routes(const struct jail_net *w, const struct net_state *s, char *why, size_t n)
{
	bool have_default = false;
	size_t i;

	for (i = 0; i < s->n_routes; i++) {
		const struct nl_route *r = &s->routes[i];
		char d[160];

		if (r->family == AF_INET6 && r->table == RT_TABLE_LOCAL && r->dst_len == 128 &&
		    is_ipv6_loopback(r->dst) && !r->multipath)
			continue;
		if (r->family == AF_INET6 && w->ipv6_on)
			continue; /* link-local and multicast: refused by the rules */
		if (r->family == AF_INET && r->table == RT_TABLE_LOCAL && !r->multipath &&
		    expected_local(w, r))
			continue;
		if (r->family == AF_INET && expected_default(w, r) && !have_default) {
			have_default = true;
			continue;
		}
		describe(r, d, sizeof(d));
		snprintf(why, n, "unexpected %s route: %s", r->family == AF_INET6 ? "IPv6" : "IPv4",
			 d);
		return -EPERM;
	}
	if (!have_default) {
		snprintf(why, n, "missing route: default via the gateway on the tap");
		return -EPERM;
	}
	return 0;
}

static int check_rules(const struct net_state *s, char *why, size_t n)
{
	static const struct {
		uint32_t priority, table;
	} defaults[] = { { 0, RT_TABLE_LOCAL }, { 32766, RT_TABLE_MAIN }, { 32767, RT_TABLE_DEFAULT } };
	unsigned int seen = 0;
	size_t i, j;

	for (i = 0; i < s->n_rules; i++) {
		const struct nl_rule *r = &s->rules[i];
		bool ok = false;

		if (r->family != AF_INET)
			continue; /* IPv6 has no address or route: its rules lead nowhere */
		for (j = 0; j < 3; j++)
			if (r->priority == defaults[j].priority && r->table == defaults[j].table &&
			    r->action == FR_ACT_TO_TBL && !r->has_selector && !r->src_len &&
			    !r->dst_len && !(seen & (1U << j))) {
				seen |= 1U << j;
				ok = true;
			}
		if (!ok) {
			snprintf(why, n, "unexpected IPv4 policy rule: priority %u table %s action %u",
				 r->priority, table_name(r->table), r->action);
			return -EPERM;
		}
	}
	if (seen != 7) {
		snprintf(why, n, "the kernel's default IPv4 policy rules are not all there");
		return -EPERM;
	}
	return 0;
}

int routes_check(const struct jail_net *want, const struct net_state *have, char *why,
		 size_t why_size)
{
	int err = check_addrs(want, have, why, why_size);

	if (!err)
		err = check_routes(want, have, why, why_size);
	if (!err)
		err = check_rules(have, why, why_size);
	return err;
}

int routes_read(struct net_state *s)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = nl_dump_addrs(AF_UNSPEC, &s->addrs, &s->n_addrs);
	if (!err)
		err = nl_dump_routes(AF_UNSPEC, &s->routes, &s->n_routes);
	if (!err)
		err = nl_dump_rules(AF_UNSPEC, &s->rules, &s->n_rules);
	if (err)
		routes_state_free(s);
	return err;
}

void routes_state_free(struct net_state *s)
{
	free(s->addrs);
	free(s->routes);
	free(s->rules);
	memset(s, 0, sizeof(*s));
}

int routes_rebuild(const struct jail_net *net)
{
	struct net_state s;
	size_t i;
	int err;

	err = routes_read(&s);
	if (err)
		return log_err(err, "cannot read the jail's routes: %s", strerror(-err));
	/* Addresses first: deleting one takes its kernel routes with it. */
	for (i = 0; i < s.n_addrs && !err; i++) {
		uint32_t a;

		memcpy(&a, s.addrs[i].addr, 4);
		if (s.addrs[i].family == AF_INET && s.addrs[i].ifindex == net->tap_ifindex)
			err = nl_addr_change(false, net->tap_ifindex, a, s.addrs[i].prefixlen);
	}
	routes_state_free(&s);
	if (err)
		return log_err(err, "cannot remove pasta's address from the tap: %s", strerror(-err));

	err = routes_read(&s);
	for (i = 0; i < s.n_routes && !err; i++) {
		const struct nl_route *r = &s.routes[i];

		if (r->family == AF_INET && r->table != RT_TABLE_LOCAL)
			err = nl_route_delete(r);
	}
	routes_state_free(&s);
	if (err)
		return log_err(err, "cannot clear the jail's routes: %s", strerror(-err));

	err = nl_addr_change(true, net->tap_ifindex, net->addr, 32);
	if (!err && net->dns_addr)
		err = nl_addr_change(true, net->lo_ifindex, net->dns_addr, 32);
	if (!err)
		err = nl_link_up(net->tap_ifindex);
	if (!err)
		err = nl_route_add_default(net->tap_ifindex, net->gateway);
	if (err)
		return log_err(err, "cannot set up the jail's address and default route: %s",
			       strerror(-err));
	return 0;
}
