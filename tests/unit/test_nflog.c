// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_nflog.c - the rootless engine's denials, read back (user/engine/nft/nflog.c) */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <criterion/criterion.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>

#include "nflog.h"

/* Only our own prefix, whole, is a denial; a malformed packet is none. */
Test(nflog, foreign_and_malformed_messages_are_not_events)
{
	char buf[512];
	struct nlmsghdr *nlh;
	struct jail_event e;
	uint8_t ip[24] = { 0x45, 0, 0, 24, 0, 0, 0, 0, 64, IPPROTO_UDP, 0, 0,
			   192, 0, 2, 1, 10, 0, 0, 5, 0x9c, 0x40, 0, 53 };
	const char *prefixes[] = { "ebpfjail 5 8 ", "other 5 8 ", "ebpfjail 5 8 x", "ebpfjail 99 8 ",
				   "ebpfjail 5 33 ", "ebpfjail 5 8", "ebpfjail +5 8 ", "ebpfjail  5 8 " };
	int want[] = { 0, -ENOENT, -ENOENT, -ENOENT, -ENOENT, -ENOENT, -ENOENT, -ENOENT };
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		nlh = mnl_nlmsg_put_header(buf);
		nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_PACKET;
		mnl_nlmsg_put_extra_header(nlh, sizeof(struct nfgenmsg));
		mnl_attr_put_strz(nlh, NFULA_PREFIX, prefixes[i]);
		mnl_attr_put(nlh, NFULA_PAYLOAD, sizeof(ip), ip);
		cr_expect_eq(nflog_event(nlh, nlh->nlmsg_len, &e), want[i], "prefix '%s'", prefixes[i]);
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_PACKET;
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct nfgenmsg));
	mnl_attr_put_strz(nlh, NFULA_PREFIX, "ebpfjail 5 8 ");
	mnl_attr_put(nlh, NFULA_PAYLOAD, 10, ip); /* cut short */
	cr_expect_eq(nflog_event(nlh, nlh->nlmsg_len, &e), -EINVAL);
	/* The good one, read whole. */
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_PACKET;
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct nfgenmsg));
	mnl_attr_put_strz(nlh, NFULA_PREFIX, "ebpfjail 5 8 ");
	mnl_attr_put(nlh, NFULA_PAYLOAD, sizeof(ip), ip);
	mnl_attr_put_u32(nlh, NFULA_UID, htonl(1000));
	cr_assert_eq(nflog_event(nlh, nlh->nlmsg_len, &e), 0);
	cr_expect_eq(e.daddr, inet_addr("10.0.0.5"));
	cr_expect_eq(e.dport, 53);
	cr_expect_eq(e.proto, IPPROTO_UDP);
	cr_expect_eq(e.reason, REASON_PRIVATE);
	cr_expect_eq(e.rule_prefixlen, 8);
	cr_expect_eq(e.uid, 1000);
	cr_expect_eq(e.gid, JAIL_ID_UNKNOWN);
}
