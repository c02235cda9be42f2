/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* routes.h - the jail's routing, rebuilt from scratch and verified */
#ifndef EBPFJAIL_ROUTES_H
#define EBPFJAIL_ROUTES_H

#include <stddef.h>
#include <stdint.h>

#include "netlink.h"

/* What the jail's network must look like, and nothing more. */
struct jail_net {
	int lo_ifindex;
	int tap_ifindex;
	uint32_t addr;    /* the jail's address, network byte order (a /32) */
	uint32_t gateway; /* pasta's side */
	uint32_t dns_addr; /* the DNS forward address, a /32 on lo where the
			      supervisor's forwarder listens (dnsfwd.h) */
	bool ipv6_on;     /* IPv6 could not be turned off (a rootless jail in a
			     container: /proc/sys read-only): its link-local
			     addresses and routes are expected, and lead
			     nowhere, as the rootless engine's rules refuse
			     every IPv6 packet */
};

/* Everything read back from the jail's namespace. */
struct net_state {
	struct nl_addr *addrs;
	size_t n_addrs;
	struct nl_route *routes;
	size_t n_routes;
	struct nl_rule *rules;
	size_t n_rules;
};

/**
 * routes_check() - compare what the namespace holds with what it must hold
 * @want: the jail's interfaces, address and gateway
 * @have: addresses, routes (IPv4 and IPv6) and rules as dumped
 * @why: on failure, names the first unexpected or missing entry
 *
 * Pure. Accepted: main holds exactly "default via gateway dev tap onlink";
 * local holds the kernel's own entries for lo's 127.0.0.1/8 and the jail's
 * address; no other table has entries; the rules are the kernel's three
 * defaults; no IPv6 address or route except ::1 on lo; no multipath.
 * Return: 0, or -EPERM with @why filled.
 */
int routes_check(const struct jail_net *want, const struct net_state *have, char *why,
		 size_t why_size);

/** routes_read() - dump addresses, routes and rules of the current netns */
int routes_read(struct net_state *state);
void routes_state_free(struct net_state *state);

/**
 * routes_rebuild() - in the current netns, replace whatever pasta set up:
 * every IPv4 address of the tap and every IPv4 route outside the local
 * table go; the jail's address comes back as a /32 and one default route
 * via the gateway, on-link; the DNS forward address as a /32 on lo.
 * Return: 0 or -errno (logged).
 */
int routes_rebuild(const struct jail_net *net);

#endif /* EBPFJAIL_ROUTES_H */
