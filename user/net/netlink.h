/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* netlink.h - rtnetlink: read and change addresses, routes, rules and links */
#ifndef EBPFJAIL_NETLINK_H
#define EBPFJAIL_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlmsghdr;

/* Every call opens its own socket, in the caller's network namespace at the
 * time of the call: setns() first to work on another namespace. */

struct nl_addr {
	uint8_t family;
	uint8_t prefixlen;
	uint8_t scope;
	int ifindex;
	uint8_t addr[16]; /* IFA_LOCAL (or IFA_ADDRESS), network byte order */
};

struct nl_route {
	uint8_t family;
	uint8_t dst_len;
	uint8_t type;     /* RTN_UNICAST, RTN_LOCAL, RTN_BROADCAST, ... */
	uint8_t scope;
	uint8_t protocol;
	uint32_t table;
	uint32_t flags;   /* rtm_flags (RTNH_F_ONLINK) */
	int oif;
	bool has_gateway;
	bool multipath;   /* RTA_MULTIPATH present */
	uint8_t dst[16];
	uint8_t gateway[16];
};

struct nl_rule {
	uint8_t family;
	uint8_t action;   /* FR_ACT_TO_TBL, ... */
	uint8_t src_len, dst_len;
	uint32_t table;
	uint32_t priority;
	bool has_selector; /* iif, oif, fwmark, uid range, ports, ... */
};

/* Dumps: *out is malloc'd (free it), *n its length. family: AF_INET,
 * AF_INET6 or AF_UNSPEC for both. Return: 0 or -errno. */
int nl_dump_addrs(int family, struct nl_addr **out, size_t *n);
int nl_dump_routes(int family, struct nl_route **out, size_t *n);
int nl_dump_rules(int family, struct nl_rule **out, size_t *n);

/**
 * nl_parse_addr() - one RTM_NEWADDR or RTM_DELADDR message, from a dump or a
 * notification, as the dumps give it
 * @nlh: a whole message with its struct ifaddrmsg (the caller checks the
 *       length); attributes that do not fit are not read
 * @out: filled
 * Pure.
 */
void nl_parse_addr(const struct nlmsghdr *nlh, struct nl_addr *out);

/**
 * nl_parse_route() - one RTM_NEWROUTE or RTM_DELROUTE message, as
 * nl_parse_addr() for addresses
 * @nlh: a whole message with its struct rtmsg (the caller checks the length)
 * @out: filled
 */
void nl_parse_route(const struct nlmsghdr *nlh, struct nl_route *out);

/** nl_link_index() - the ifindex of @name, or -ENODEV */
int nl_link_index(const char *name);

/** nl_link_up() - set IFF_UP on @ifindex. Return: 0 or -errno. */
int nl_link_up(int ifindex);

/** nl_addr_change() - add (@add) or delete an IPv4 address. Return: 0 or -errno. */
int nl_addr_change(bool add, int ifindex, uint32_t addr, uint8_t prefixlen);

/** nl_route_delete() - delete a route exactly as dumped. Return: 0 or -errno. */
int nl_route_delete(const struct nl_route *route);

/**
 * nl_route_add_default() - "default via @gateway dev @ifindex onlink" in main
 * Return: 0 or -errno.
 */
int nl_route_add_default(int ifindex, uint32_t gateway);

/**
 * nl_neigh_use() - have the kernel resolve @addr's hardware address on
 * @ifindex now (an ARP request), as a packet to it would
 * Return: 0 or -errno.
 */
int nl_neigh_use(int ifindex, uint32_t addr);

#endif /* EBPFJAIL_NETLINK_H */
