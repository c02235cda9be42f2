// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* netlink.c - rtnetlink: read and change addresses, routes, rules and links
 *
 * libmnl builds and walks the messages (attribute bounds checks included);
 * this file only says which messages and which attributes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/neighbour.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include "netlink.h"

struct vec {
	void *items;
	size_t n, size;
	int err;
};

static void *vec_push(struct vec *v)
{
	void *p = reallocarray(v->items, v->n + 1, v->size);

	if (!p) {
		v->err = -ENOMEM;
		return NULL;
	}
	v->items = p;
	p = (char *)v->items + v->n++ * v->size;
	memset(p, 0, v->size);
	return p;
}

/* talk() - send one request, run @cb on every reply until done or ACK. */
static int talk(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl;
	unsigned int seq = (unsigned int)time(NULL), portid;
	int ret;

	nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	do {
		ssize_t len = mnl_socket_recvfrom(nl, buf, sizeof(buf));

		if (len < 0) {
			ret = -errno;
			break;
		}
		ret = mnl_cb_run(buf, (size_t)len, seq, portid, cb, data);
	} while (ret > MNL_CB_STOP);
	if (ret < 0)
		ret = -errno;
out:
	mnl_socket_close(nl);
	return ret < 0 ? ret : 0;
}

static struct nlmsghdr *dump_request(char *buf, uint16_t type, int family, size_t hdrlen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtgenmsg *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	g = mnl_nlmsg_put_extra_header(nlh, hdrlen);
	g->rtgen_family = (unsigned char)family;
	return nlh;
}

/* dump() - one NLM_F_DUMP request; every reply becomes an element of *out */
static int dump(uint16_t type, int family, size_t hdrlen, mnl_cb_t cb, size_t elem, void **out,
		size_t *n)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct vec v = { .size = elem };
	int err;

	err = talk(dump_request(buf, type, family, hdrlen), cb, &v);
	if (!err)
		err = v.err;
	if (err) {
		free(v.items);
		return err;
	}
	*out = v.items;
	*n = v.n;
	return 0;
}

static void copy_addr(uint8_t dst[16], const struct nlattr *a)
{
	size_t len = mnl_attr_get_payload_len(a);

	memcpy(dst, mnl_attr_get_payload(a), len > 16 ? 16 : len);
}

void nl_parse_addr(const struct nlmsghdr *nlh, struct nl_addr *out)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a, *local = NULL, *address = NULL;

	memset(out, 0, sizeof(*out));
	mnl_attr_for_each(a, nlh, sizeof(*ifa)) {
		if (mnl_attr_get_type(a) == IFA_LOCAL)
			local = a;
		else if (mnl_attr_get_type(a) == IFA_ADDRESS)
			address = a;
	}
	out->family = ifa->ifa_family;
	out->prefixlen = ifa->ifa_prefixlen;
	out->scope = ifa->ifa_scope;
	out->ifindex = (int)ifa->ifa_index;
	if (local || address)
		copy_addr(out->addr, local ? local : address);
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_addr *out = vec_push(data);

	if (!out)
		return MNL_CB_ERROR;
	nl_parse_addr(nlh, out);
	return MNL_CB_OK;
}

int nl_dump_addrs(int family, struct nl_addr **out, size_t *n)
{
	return dump(RTM_GETADDR, family, sizeof(struct ifaddrmsg), addr_cb, sizeof(**out),
		    (void **)out, n);
}

void nl_parse_route(const struct nlmsghdr *nlh, struct nl_route *out)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	memset(out, 0, sizeof(*out));
	out->family = rtm->rtm_family;
	out->dst_len = rtm->rtm_dst_len;
	out->type = rtm->rtm_type;
	out->scope = rtm->rtm_scope;
	out->protocol = rtm->rtm_protocol;
	out->table = rtm->rtm_table;
	out->flags = rtm->rtm_flags;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		switch (mnl_attr_get_type(a)) {
		case RTA_DST:
			copy_addr(out->dst, a);
			break;
		case RTA_GATEWAY:
			copy_addr(out->gateway, a);
			out->has_gateway = true;
			break;
		case RTA_OIF:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				out->oif = (int)mnl_attr_get_u32(a);
			break;
		case RTA_TABLE:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				out->table = mnl_attr_get_u32(a);
			break;
		case RTA_MULTIPATH:
			out->multipath = true;
			break;
		}
	}
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_route *r = vec_push(data);

	if (!r)
		return MNL_CB_ERROR;
	nl_parse_route(nlh, r);
	return MNL_CB_OK;
}

int nl_dump_routes(int family, struct nl_route **out, size_t *n)
{
	return dump(RTM_GETROUTE, family, sizeof(struct rtmsg), route_cb, sizeof(**out),
		    (void **)out, n);
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	struct vec *v = data;
	struct nl_rule *r;

	r = vec_push(v);
	if (!r)
		return MNL_CB_ERROR;
	r->family = frh->family;
	r->action = frh->action;
	r->src_len = frh->src_len;
	r->dst_len = frh->dst_len;
	r->table = frh->table;
	mnl_attr_for_each(a, nlh, sizeof(*frh)) {
		switch (mnl_attr_get_type(a)) {
		case FRA_PRIORITY:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				r->priority = mnl_attr_get_u32(a);
			break;
		case FRA_TABLE:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				r->table = mnl_attr_get_u32(a);
			break;
		case FRA_IIFNAME:
		case FRA_OIFNAME:
		case FRA_FWMARK:
		case FRA_UID_RANGE:
		case FRA_SPORT_RANGE:
		case FRA_DPORT_RANGE:
		case FRA_IP_PROTO:
		case FRA_L3MDEV:
		case FRA_TUN_ID:
			r->has_selector = true;
			break;
		}
	}
	return MNL_CB_OK;
}

int nl_dump_rules(int family, struct nl_rule **out, size_t *n)
{
	return dump(RTM_GETRULE, family, sizeof(struct fib_rule_hdr), rule_cb, sizeof(**out),
		    (void **)out, n);
}

int nl_link_index(const char *name)
{
	unsigned int i = if_nametoindex(name);

	return i ? (int)i : -ENODEV;
}

int nl_link_up(int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return talk(nlh, NULL, NULL);
}

int nl_addr_change(bool add, int ifindex, uint32_t addr, uint8_t prefixlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;

	nlh->nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = prefixlen;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (unsigned int)ifindex;
	mnl_attr_put_u32(nlh, IFA_LOCAL, addr);
	mnl_attr_put_u32(nlh, IFA_ADDRESS, addr);
	return talk(nlh, NULL, NULL);
}

int nl_route_delete(const struct nl_route *route)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	size_t alen = route->family == AF_INET ? 4 : 16;
	struct rtmsg *rtm;

	nlh->nlmsg_type = RTM_DELROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = route->family;
	rtm->rtm_dst_len = route->dst_len;
	rtm->rtm_type = route->type;
	rtm->rtm_scope = RT_SCOPE_NOWHERE; /* any scope */
	rtm->rtm_table = route->table < 256 ? (unsigned char)route->table : RT_TABLE_UNSPEC;
	mnl_attr_put_u32(nlh, RTA_TABLE, route->table);
	if (route->dst_len)
		mnl_attr_put(nlh, RTA_DST, alen, route->dst);
	if (route->oif)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)route->oif);
	return talk(nlh, NULL, NULL);
}

int nl_route_add_default(int ifindex, uint32_t gateway)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	/* onlink: the gateway is not inside the jail's /32, by design. */
	rtm->rtm_flags = RTNH_F_ONLINK;
	mnl_attr_put_u32(nlh, RTA_GATEWAY, gateway);
	mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)ifindex);
	return talk(nlh, NULL, NULL);
}

int nl_neigh_use(int ifindex, uint32_t addr)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ndmsg *ndm;

	nlh->nlmsg_type = RTM_NEWNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = AF_INET;
	ndm->ndm_ifindex = ifindex;
	/* NTF_USE: the kernel resolves the entry as if a packet needed it
	 * (neigh_event_send()), and nothing but ARP is sent. */
	ndm->ndm_flags = NTF_USE;
	mnl_attr_put_u32(nlh, NDA_DST, addr);
	return talk(nlh, NULL, NULL);
}
