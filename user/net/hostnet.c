// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* hostnet.c - what the policy must know about the host's network */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/rtnetlink.h>

#include "hostnet.h"
#include "netaddr.h"

static int push(struct host_prefix **list, size_t *n, uint32_t addr, uint8_t prefixlen)
{
	struct host_prefix *p = reallocarray(*list, *n + 1, sizeof(**list));

	if (!p)
		return -ENOMEM;
	*list = p;
	p[*n].addr = prefixlen ? htonl(ntohl(addr) & netaddr_mask(prefixlen)) : 0;
	p[*n].prefixlen = prefixlen;
	(*n)++;
	return 0;
}

int hostnet_from_dumps(const struct nl_addr *addrs, size_t n_addrs, const struct nl_route *routes,
		       size_t n_routes, struct hostnet *h)
{
	size_t i;
	int err = 0;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < n_routes && !err; i++) {
		const struct nl_route *r = &routes[i];
		uint32_t dst;

		if (r->family != AF_INET)
			continue;
		/* The local table: the host's own addresses, broadcast
		 * entries of its connected networks, and AnyIP prefixes (`ip
		 * route add local P dev lo`), for which the host answers every
		 * address of P itself: a way to its services that no address
		 * shows. A local /32 without an address is one too, and a
		 * local route in another table as well: every RTN_LOCAL
		 * route is the host's own (an address's /32 twice is one key). */
		if (r->table == RT_TABLE_LOCAL && r->type != RTN_LOCAL)
			continue;
		memcpy(&dst, r->dst, 4);
		if (r->dst_len == 0) {
			/* The first default route of main is the way out. */
			if (r->table == RT_TABLE_MAIN && r->has_gateway && !h->default_gateway) {
				memcpy(&h->default_gateway, r->gateway, 4);
				h->default_ifindex = r->oif;
			}
			continue;
		}
		err = push(&h->routes, &h->n_routes, dst, r->dst_len);
		if (!err && r->type == RTN_LOCAL)
			err = push(&h->local, &h->n_local, dst, r->dst_len);
	}
	for (i = 0; i < n_addrs && !err; i++) {
		const struct nl_addr *a = &addrs[i];
		uint32_t v4;

		if (a->family != AF_INET)
			continue;
		memcpy(&v4, a->addr, 4);
		err = push(&h->addresses, &h->n_addresses, v4, 32);
		if (!err && a->prefixlen < 32)
			err = push(&h->connected, &h->n_connected, v4, a->prefixlen);
		if (!err && a->ifindex == h->default_ifindex && !h->default_addr &&
		    h->default_ifindex)
			h->default_addr = v4;
	}
	if (err)
		hostnet_free(h);
	return err;
}

/* Dumps asked again when a change interrupted them: a read made during a
 * burst (a backlog of notifications, hostwatch.c) is when they are. */
#define HOSTNET_READ_TRIES 3

int hostnet_read(struct hostnet *h)
{
	struct nl_addr *addrs;
	struct nl_route *routes;
	size_t na, nr;
	int err, tries = 0;

	do {
		addrs = NULL, routes = NULL, na = nr = 0;
		/* EINTR: the kernel flagged the dump inconsistent
		 * (NLM_F_DUMP_INTR), so libmnl dropped it. */
		err = nl_dump_addrs(AF_INET, &addrs, &na);
		if (!err)
			err = nl_dump_routes(AF_INET, &routes, &nr);
		if (!err)
			err = hostnet_from_dumps(addrs, na, routes, nr, h);
		free(addrs);
		free(routes);
	} while (err == -EINTR && ++tries < HOSTNET_READ_TRIES);
	return err;
}

void hostnet_free(struct hostnet *h)
{
	free(h->addresses);
	free(h->connected);
	free(h->routes);
	free(h->local);
	memset(h, 0, sizeof(*h));
}

void hostnet_facts(const struct hostnet *h, uint32_t gateway, uint32_t dns_forward,
		   struct host_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->addresses = h->addresses;
	f->n_addresses = h->n_addresses;
	f->connected = h->connected;
	f->n_connected = h->n_connected;
	f->routes = h->routes;
	f->n_routes = h->n_routes;
	f->local = h->local;
	f->n_local = h->n_local;
	f->gateway = gateway;
	f->dns_forward = dns_forward;
}
