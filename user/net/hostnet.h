/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* hostnet.h - what the policy must know about the host's network */
#ifndef EBPFJAIL_HOSTNET_H
#define EBPFJAIL_HOSTNET_H

#include <stddef.h>

#include "netlink.h"
#include "policy.h"

struct hostnet {
	struct host_prefix *addresses; /* every IPv4 address of the host (/32) */
	size_t n_addresses;
	struct host_prefix *connected; /* every IPv4 network on its links */
	size_t n_connected;
	struct host_prefix *routes;    /* every non-default IPv4 route, any table */
	size_t n_routes;
	struct host_prefix *local;     /* AnyIP prefixes (also in routes): every
					  address in them is the host's own */
	size_t n_local;
	uint32_t default_gateway;      /* main table's default via; 0 = none */
	int default_ifindex;
	uint32_t default_addr;         /* the host's address on that interface */
};

/**
 * hostnet_from_dumps() - the host's facts from its address and route dumps
 * Pure. Every non-default route is internal, whatever its type (unicast
 * via a VPN, blackhole, unreachable) or table; of the local table, only
 * what the host answers for itself. Every RTN_LOCAL route, in any table
 * and of any length (AnyIP, a local /32 with no address), is the host's
 * own (@out->local).
 * Return: 0 or -ENOMEM.
 */
int hostnet_from_dumps(const struct nl_addr *addrs, size_t n_addrs, const struct nl_route *routes,
		       size_t n_routes, struct hostnet *out);

/** hostnet_read() - the same, from the current network namespace */
int hostnet_read(struct hostnet *out);

void hostnet_free(struct hostnet *h);

/** hostnet_facts() - the view policy_compile() takes; valid while @h is */
void hostnet_facts(const struct hostnet *h, uint32_t gateway, uint32_t dns_forward,
		   struct host_facts *facts);

#endif /* EBPFJAIL_HOSTNET_H */
