// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_hostwatch.c - which rtnetlink notifications mean "read the host
 * again" (pure), and the watch on a real namespace: a burst is one re-read,
 * an overrun is a change */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <criterion/criterion.h>

#include "hostwatch.h"

/* Messages are built here, one after another, as one datagram. */
static uint32_t buf[1024];
static size_t len;
static struct hostwatch_news news;

/* changed() - whether buf[..@n] says the host may have changed */
static bool changed(size_t n)
{
	memset(&news, 0, sizeof(news));
	hostwatch_parse(buf, n, &news);
	return news.changed;
}

/* put() - append a message of @type whose payload starts with @family */
static void put(uint16_t type, uint8_t family)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header((char *)buf + len);
	struct rtmsg *rtm;

	nlh->nlmsg_type = type;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm)); /* as long as ifaddrmsg and more */
	rtm->rtm_family = family;
	len += MNL_ALIGN(nlh->nlmsg_len);
}

static void reset(void)
{
	memset(buf, 0, sizeof(buf));
	len = 0;
}

Test(hostwatch, ipv4_route_and_address_changes_count, .init = reset)
{
	static const uint16_t types[] = { RTM_NEWROUTE, RTM_DELROUTE, RTM_NEWADDR, RTM_DELADDR };
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		reset();
		put(types[i], AF_INET);
		cr_assert(changed(len), "type %u", types[i]);
	}
}

Test(hostwatch, other_messages_do_not, .init = reset)
{
	cr_assert_not(changed(0));
	put(RTM_NEWLINK, AF_UNSPEC);
	put(RTM_NEWROUTE, AF_INET6);
	put(RTM_DELADDR, AF_INET6);
	put(RTM_NEWNEIGH, AF_INET);
	cr_assert_not(changed(len));
	/* one that counts, after them in the same datagram */
	put(RTM_DELROUTE, AF_INET);
	cr_assert(changed(len));
}

Test(hostwatch, overruns_errors_and_cut_off_messages_count, .init = reset)
{
	struct nlmsghdr *nlh;

	put(NLMSG_OVERRUN, 0);
	cr_assert(changed(len));
	cr_assert(news.unknown, "what an overrun lost is not known: read at once");
	reset();
	put(NLMSG_ERROR, 0);
	cr_assert(changed(len));
	/* a datagram cut off in the middle of a message (past its header) */
	reset();
	put(RTM_NEWLINK, AF_UNSPEC);
	put(RTM_NEWLINK, AF_UNSPEC);
	cr_assert(changed(len - 4));
	/* ... or in its header */
	reset();
	put(RTM_NEWLINK, AF_UNSPEC);
	cr_assert(changed(len + sizeof(*nlh) / 2));
	/* a route message too short to say its family */
	reset();
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWROUTE;
	cr_assert(changed(nlh->nlmsg_len));
}

/* wait_readable() - whether @fd becomes readable within @ms */
static bool wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A fresh namespace: nothing is pending; a burst of address and route
 * changes arms the timer once, and it fires one debounce later, once. */
Test(hostwatch, a_burst_is_one_reread)
{
	struct hostwatch hw = HOSTWATCH_INIT;
	long long start, waited;

	if (geteuid() != 0)
		cr_skip_test("needs root: a network namespace");
	cr_assert_eq(unshare(CLONE_NEWNET), 0);
	cr_assert_eq(hostwatch_open(&hw, HOSTWATCH_DEBOUNCE_MS), 0);
	/* the agent inherits neither; the supervisor never blocks on them */
	cr_assert(fcntl(hw.fd, F_GETFD) & FD_CLOEXEC);
	cr_assert(fcntl(hw.timer_fd, F_GETFD) & FD_CLOEXEC);
	cr_assert(fcntl(hw.fd, F_GETFL) & O_NONBLOCK);
	cr_assert(fcntl(hw.timer_fd, F_GETFL) & O_NONBLOCK);
	cr_assert_eq(hostwatch_receive(&hw), 0);
	cr_assert_not(hw.armed);

	cr_assert_eq(system("ip link set lo up && ip route add local 198.51.100.0/25 dev lo table local"
			    " && ip route add blackhole 203.0.113.0/24 table 100"
			    " && ip addr add 192.0.2.1/24 dev lo"), 0);
	start = now_ms();
	cr_assert(wait_readable(hw.fd, 1000));
	cr_assert_eq(hostwatch_receive(&hw), 0);
	cr_assert(hw.armed);
	cr_assert_not(hw.news.unknown);
	cr_assert(hw.news.n_routes > 0 || hw.news.n_addrs > 0, "the gains come with the news");
	cr_assert_eq(system("ip route add 198.18.0.0/15 dev lo"), 0);
	cr_assert(wait_readable(hw.fd, 1000));
	cr_assert_eq(hostwatch_receive(&hw), 0); /* the timer is not pushed back */
	cr_assert(wait_readable(hw.timer_fd, 1000));
	waited = now_ms() - start;
	cr_assert(hostwatch_due(&hw));
	cr_assert_not(hw.armed);
	cr_assert(waited >= HOSTWATCH_DEBOUNCE_MS - 10 && waited < 1000, "fired after %lld ms", waited);
	/* what came in before it fired is covered: no second re-read */
	cr_assert_not(wait_readable(hw.timer_fd, 2 * HOSTWATCH_DEBOUNCE_MS));
	hostwatch_close(&hw);
	cr_assert_eq(hw.fd, -1);
}

/* Overrun: link notifications (which do not count) fill the socket, so the
 * kernel drops an address's: the ENOBUFS alone must arm the timer. */
Test(hostwatch, an_overrun_is_a_change)
{
	struct hostwatch hw = HOSTWATCH_INIT;
	int group = RTNLGRP_LINK, tiny = 0, i;

	if (geteuid() != 0)
		cr_skip_test("needs root: a network namespace");
	cr_assert_eq(unshare(CLONE_NEWNET), 0);
	cr_assert_eq(system("ip link set lo up"), 0);
	cr_assert_eq(hostwatch_open(&hw, HOSTWATCH_DEBOUNCE_MS), 0);
	cr_assert_eq(setsockopt(hw.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)), 0);
	cr_assert_eq(setsockopt(hw.fd, SOL_SOCKET, SO_RCVBUF, &tiny, sizeof(tiny)), 0);
	for (i = 0; i < 8; i++)
		cr_assert_eq(system(i % 2 ? "ip link set lo mtu 65000" : "ip link set lo mtu 60000"), 0);
	cr_assert_eq(system("ip addr add 192.0.2.1/24 dev lo"), 0);
	cr_assert_eq(hostwatch_receive(&hw), 0);
	cr_assert(hw.armed, "an overrun was not taken as a change");
	cr_assert(hw.news.unknown, "an overrun was taken as known");
	hostwatch_close(&hw);
}

/* A retry after a failed read must not wait for a long settle: arming
 * again only ever brings the timer forward (and never pushes it back). */
Test(hostwatch, arming_again_only_brings_the_timer_forward)
{
	struct hostwatch hw = HOSTWATCH_INIT;
	long long start, waited;

	cr_assert_eq(hostwatch_open(&hw, 600000), 0);
	cr_assert_eq(hw.settle_ms, 600000);
	start = now_ms();
	cr_assert_eq(hostwatch_arm(&hw, 600000), 0);
	cr_assert_eq(hostwatch_arm(&hw, 50), 0);
	cr_assert(wait_readable(hw.timer_fd, 2000), "the retry waited for the settle");
	waited = now_ms() - start;
	cr_expect(waited < 1000, "fired after %lld ms", waited);
	cr_assert(hostwatch_due(&hw));
	/* Later arms do not push a running timer back. */
	start = now_ms();
	cr_assert_eq(hostwatch_arm(&hw, 100), 0);
	cr_assert_eq(hostwatch_arm(&hw, 600000), 0);
	cr_assert(wait_readable(hw.timer_fd, 2000), "pushed back");
	waited = now_ms() - start;
	cr_expect(waited < 1000, "fired after %lld ms", waited);
	hostwatch_close(&hw);
	/* and a settle below the floor is the floor */
	cr_assert_eq(hostwatch_open(&hw, 1), 0);
	cr_expect_eq(hw.settle_ms, HOSTWATCH_DEBOUNCE_MS);
	hostwatch_close(&hw);
}

/* put_route() - append RTM_NEWROUTE for @dst/@dst_len in @table */
static void put_route(uint16_t type, const char *dst, uint8_t dst_len, uint32_t table)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header((char *)buf + len);
	struct rtmsg *rtm;
	struct in_addr a;

	nlh->nlmsg_type = type;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = dst_len;
	rtm->rtm_table = RT_TABLE_UNSPEC;
	rtm->rtm_type = RTN_UNICAST;
	inet_pton(AF_INET, dst, &a);
	mnl_attr_put(nlh, RTA_DST, 4, &a);
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	len += MNL_ALIGN(nlh->nlmsg_len);
}

/* The gains are what the dumps would give: the route's prefix and table,
 * the address and its prefix length; a deletion changes but gains nothing. */
Test(hostwatch, new_routes_and_addresses_are_gains, .init = reset)
{
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	struct in_addr a;

	put_route(RTM_NEWROUTE, "192.0.2.0", 24, 100);
	put_route(RTM_DELROUTE, "198.51.100.0", 24, RT_TABLE_MAIN);
	nlh = mnl_nlmsg_put_header((char *)buf + len);
	nlh->nlmsg_type = RTM_NEWADDR;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = 28;
	ifa->ifa_index = 7;
	inet_pton(AF_INET, "203.0.113.5", &a);
	mnl_attr_put(nlh, IFA_LOCAL, 4, &a);
	len += MNL_ALIGN(nlh->nlmsg_len);

	cr_assert(changed(len));
	cr_assert_not(news.unknown);
	cr_assert_eq(news.n_routes, 1, "the deletion is no gain");
	cr_expect_eq(news.routes[0].dst_len, 24);
	cr_expect_eq(news.routes[0].table, 100);
	cr_expect(!memcmp(news.routes[0].dst, "\xc0\x00\x02\x00", 4));
	cr_assert_eq(news.n_addrs, 1);
	cr_expect_eq(news.addrs[0].prefixlen, 28);
	cr_expect_eq(news.addrs[0].ifindex, 7);
	cr_expect(!memcmp(news.addrs[0].addr, &a, 4));
}

/* More gains than one batch holds: not known, so read at once. */
Test(hostwatch, more_gains_than_fit_are_unknown, .init = reset)
{
	struct hostwatch_news many;
	size_t i;

	memset(&many, 0, sizeof(many));
	for (i = 0; i <= HOSTWATCH_GAINS_MAX; i++) {
		reset();
		put_route(RTM_NEWROUTE, "192.0.2.0", 24, RT_TABLE_MAIN);
		hostwatch_parse(buf, len, &many);
		cr_assert_eq(many.unknown, i == HOSTWATCH_GAINS_MAX, "after %zu", i + 1);
	}
	cr_expect_eq(many.n_routes, HOSTWATCH_GAINS_MAX);
}

/* A backlog: more notifications than one batch reads. The attack: a route
 * queued behind a thousand others stayed open to the agent, batch after
 * batch. A full batch empties the socket and says backlog (the caller
 * reads the host now), and still carries its own gains (blocked first,
 * with no read); a batch that is not full is no backlog (the control). */
Test(hostwatch, a_backlog_is_dropped_and_said)
{
	struct hostwatch hw = HOSTWATCH_INIT;
	int big = 4 << 20;
	FILE *batch;
	int i;

	if (geteuid() != 0)
		cr_skip_test("needs root: a network namespace");
	cr_assert_eq(unshare(CLONE_NEWNET), 0);
	cr_assert_eq(system("ip link set lo up"), 0);
	cr_assert_eq(hostwatch_open(&hw, HOSTWATCH_DEBOUNCE_MS), 0);
	/* no overrun: that alone would make the news unknown */
	cr_assert_eq(setsockopt(hw.fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)), 0);

	cr_assert_eq(system("ip route add 192.0.2.0/24 dev lo"), 0);
	cr_assert(wait_readable(hw.fd, 1000));
	cr_assert_eq(hostwatch_receive(&hw), 0);
	cr_assert_not(hw.news.unknown, "one route is known");
	cr_assert_not(hw.news.backlog, "one route is a backlog");
	cr_assert_eq(hw.news.n_routes, 1);

	batch = popen("ip -batch -", "w");
	cr_assert(batch);
	for (i = 0; i < 300; i++)
		fprintf(batch, "route add 10.%d.%d.0/24 dev lo\n", i / 256, i % 256);
	cr_assert_eq(pclose(batch), 0);
	cr_assert(wait_readable(hw.fd, 1000));
	cr_assert_eq(hostwatch_receive(&hw), 0);
	cr_assert(hw.news.backlog, "300 routes read as %zu gains, no backlog", hw.news.n_routes);
	cr_assert_not(hw.news.unknown, "nothing was lost: the rcvbuf holds them all");
	cr_assert(hw.news.changed);
	cr_assert(hw.news.n_routes > 0 && hw.news.n_routes < 300, "the batch's gains: %zu", hw.news.n_routes);
	cr_assert_not(wait_readable(hw.fd, 0), "the backlog is still queued");
	hostwatch_close(&hw);
}
