// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nflog.c - the rootless engine's denials, read back through NFLOG
 *
 * libmnl builds and walks the messages (attribute bounds checks included);
 * this file only says which messages and which attributes.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "nflog.h"
#include "policy.h"

/* Bytes of each packet the kernel copies: an IPv6 header (40) and the
 * ports after it, or an IPv4 header with options and its ports. */
#define NFLOG_COPY_BYTES 96

/* keep_attr() - an mnl_attr_cb_t: a known attribute into the table @data */
static int keep_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(a, NFULA_MAX) > 0)
		tb[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

/* put_packet() - destination, protocol and port from the packet's bytes
 * Return: 0, or -EINVAL for neither IPv4 nor IPv6 (or cut short). */
static int put_packet(struct jail_event *e, const uint8_t *p, size_t len)
{
	size_t l4 = 0;

	if (len >= 20 && p[0] >> 4 == 4) {
		uint16_t frag;

		l4 = (size_t)(p[0] & 0x0f) * 4;
		if (l4 < 20)
			return -EINVAL;
		memcpy(&e->daddr, p + 16, 4);
		e->proto = p[9];
		e->family = AF_INET;
		memcpy(&frag, p + 6, 2);
		if (ntohs(frag) & 0x1fff)
			l4 = 0; /* a later fragment: no ports, as the rules judge it */
	} else if (len >= 40 && p[0] >> 4 == 6) {
		memcpy(e->daddr6, p + 24, 16);
		e->proto = p[6];
		e->family = AF_INET6;
		l4 = 40;
	} else {
		return -EINVAL;
	}
	if (l4 && (e->proto == IPPROTO_TCP || e->proto == IPPROTO_UDP) && len >= l4 + 4) {
		uint16_t ports[2];

		memcpy(ports, p + l4, sizeof(ports));
		e->dport = ntohs(ports[1]);
	}
	return 0;
}

/* our_prefix() - whether @prefix is exactly one the deny chains write,
 * "ebpfjail REASON PREFIXLEN " (nftrules.c): another rule's log (the
 * user's own nft rules in a namespace of theirs) is no denial of ours,
 * nor is a near miss ("ebpfjail +4 8", extra spaces) */
static bool our_prefix(const char *prefix, unsigned int *reason, unsigned int *prefixlen)
{
	char expect[32];

	if (sscanf(prefix, "ebpfjail %u %u ", reason, prefixlen) != 2 ||
	    *reason < REASON_FIRST_DENY || *reason >= REASON_COUNT ||
	    *prefixlen > POLICY_PREFIXLEN_ADDR)
		return false;
	snprintf(expect, sizeof(expect), "ebpfjail %u %u ", *reason, *prefixlen);
	return !strcmp(prefix, expect);
}

int nflog_event(const void *msg, size_t len, struct jail_event *e)
{
	const struct nlattr *tb[NFULA_MAX + 1] = { 0 };
	const struct nlmsghdr *nlh = msg;
	unsigned int reason, prefixlen;

	if (!mnl_nlmsg_ok(nlh, (int)len) || nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(struct nfgenmsg))
		return -EINVAL;
	if (NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_ULOG ||
	    NFNL_MSG_TYPE(nlh->nlmsg_type) != NFULNL_MSG_PACKET)
		return -ENOENT;
	if (mnl_attr_parse(nlh, sizeof(struct nfgenmsg), keep_attr, tb) < 0)
		return -EINVAL;
	if (!tb[NFULA_PREFIX] || mnl_attr_validate(tb[NFULA_PREFIX], MNL_TYPE_NUL_STRING) < 0 ||
	    !our_prefix(mnl_attr_get_str(tb[NFULA_PREFIX]), &reason, &prefixlen))
		return -ENOENT;
	if (!tb[NFULA_PAYLOAD])
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->hook = HOOK_NFT_OUTPUT;
	e->reason = (uint8_t)reason;
	e->rule_prefixlen = (uint8_t)prefixlen;
	e->uid = e->gid = JAIL_ID_UNKNOWN; /* unless the kernel says */
	if (tb[NFULA_UID] && mnl_attr_validate(tb[NFULA_UID], MNL_TYPE_U32) == 0)
		e->uid = ntohl(mnl_attr_get_u32(tb[NFULA_UID]));
	if (tb[NFULA_GID] && mnl_attr_validate(tb[NFULA_GID], MNL_TYPE_U32) == 0)
		e->gid = ntohl(mnl_attr_get_u32(tb[NFULA_GID]));
	return put_packet(e, mnl_attr_get_payload(tb[NFULA_PAYLOAD]),
			  mnl_attr_get_payload_len(tb[NFULA_PAYLOAD]));
}

/* configure() - one NFULNL_MSG_CONFIG request for @group, answered
 * Return: 0, or -errno (the kernel's answer, or -EPROTO for none). */
static int configure(int fd, unsigned int group, uint16_t attr, const void *data, size_t size)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *g;
	unsigned int tries, seq = attr; /* one request per attribute */
	ssize_t n;

	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_CONFIG;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons((uint16_t)group);
	mnl_attr_put(nlh, attr, size, data);
	if (send(fd, nlh, nlh->nlmsg_len, 0) < 0)
		return -errno;
	/* The answer is an NLMSG_ERROR for this request (error 0: done);
	 * packet messages of a group bound before may come first. */
	for (tries = 0; tries < 64; tries++) {
		const struct nlmsghdr *m = (const struct nlmsghdr *)buf;
		int left;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		for (left = (int)n; mnl_nlmsg_ok(m, left); m = mnl_nlmsg_next(m, &left)) {
			const struct nlmsgerr *ack = mnl_nlmsg_get_payload(m);

			if (m->nlmsg_type != NLMSG_ERROR || m->nlmsg_seq != seq ||
			    m->nlmsg_len < mnl_nlmsg_size(sizeof(*ack)))
				continue;
			return ack->error;
		}
	}
	return -EPROTO;
}

/* The socket's buffer: some 10,000 messages of NFLOG_COPY_BYTES each
 * (their memory is taken only as they queue). */
#define NFLOG_RCVBUF (8 << 20)

int nflog_open(unsigned int group)
{
	struct nfulnl_msg_config_cmd join = { .command = NFULNL_CFG_CMD_BIND };
	struct nfulnl_msg_config_mode mode = { .copy_range = htonl(NFLOG_COPY_BYTES),
					       .copy_mode = NFULNL_COPY_PACKET };
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	uint32_t one = htonl(1);
	int fd, err, rcvbuf = NFLOG_RCVBUF;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (fd < 0)
		return -errno;
	/* The default buffer holds some 250 messages: a burst of denials
	 * larger than that, before the loop reads, would be counted but not
	 * shown. The namespace's owner may force a larger one (the user
	 * namespace's capability counts for a socket of its own namespace);
	 * where it may not, the default stays. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		err = -errno;
		goto fail;
	}
	err = configure(fd, group, NFULA_CFG_CMD, &join, sizeof(join));
	if (!err)
		err = configure(fd, group, NFULA_CFG_MODE, &mode, sizeof(mode));
	/* One message per packet, at once: the kernel's default batches up
	 * to 100 of them for up to a second, and a denial is audited now. */
	if (!err)
		err = configure(fd, group, NFULA_CFG_QTHRESH, &one, sizeof(one));
	if (!err && fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		err = -errno;
	if (!err)
		return fd;
fail:
	close(fd);
	return err;
}

int nflog_read(int fd, unsigned int max, nflog_event_fn fn, void *ctx, uint64_t *lost)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int handed = 0, reads;
	bool stop = false;

	/* At most @max reads too: an overflow that comes back at once must
	 * not keep the caller here. */
	for (reads = 0; handed < max && reads < max && !stop; reads++) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		int left = (int)n;

		if (n < 0 && errno == ENOBUFS) {
			/* The socket overflowed: messages were dropped, how
			 * many the kernel does not say. Counted, never a reason
			 * to stop reading. */
			(*lost)++;
			continue;
		}
		if (n < 0)
			return errno == EAGAIN ? (int)handed : -errno;
		/* A datagram may hold several messages: all of them are
		 * handed over, even past @max (a recv() cannot be undone). */
		for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
			struct jail_event e;
			struct timespec now;

			if (nflog_event(nlh, nlh->nlmsg_len, &e))
				continue;
			/* NFLOG stamps only packets that came in: the time
			 * of an outgoing one is when it is read. */
			clock_gettime(CLOCK_BOOTTIME, &now);
			e.time_ns = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
			handed++;
			stop |= fn(ctx, &e) != 0;
		}
	}
	return (int)handed;
}
