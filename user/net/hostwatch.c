// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* hostwatch.c - notice when the host's addresses or routes change
 *
 * Theory of operation
 * -------------------
 * The policy blocks the host's addresses, connected networks and routes
 * (docs/DESIGN.md, "Policy"). They are read when the jail starts, but a
 * VPN that connects while the agent runs would leave its networks open
 * until the next reload. So the supervisor subscribes, in the host's
 * network namespace, to rtnetlink's IPv4 address and route notifications
 * (every table, the local one included: AnyIP prefixes live there).
 *
 * Two steps. At once, what a notification says the host gained (a new
 * address, network or route: struct hostwatch_news) is blocked in place
 * (jail_policy_host_gained()): an agent probing in a loop would otherwise
 * reach a VPN in the wait below. Then the facts are read again whole
 * (hostnet_read()), which cannot drift from what a start or a reload reads,
 * and that compile also opens what the host lost. A burst (a VPN pushing a
 * thousand routes) must be one such compile, not a thousand: the first
 * notification starts a one-shot timer (settle_ms, HOSTWATCH_DEBOUNCE_MS
 * unless configured longer) and later ones do not move it, so a steady
 * stream of changes cannot postpone the compile either. When it fires the
 * socket is emptied (the read that follows covers everything before it)
 * and the caller reads the facts and recompiles.
 *
 * A notification the kernel could not queue (ENOBUFS: the socket overran)
 * said something nobody knows, so it is "unknown", as is anything that
 * cannot be parsed: the caller reads the facts at once then, without the
 * wait (a gain nobody saw must not stay open for settle_ms).
 *
 * Notifications are read a batch (HOSTWATCH_BATCH) at a time, and a route
 * queued behind a thousand others stayed open to the agent until its batch
 * came: over a second on a loaded machine. So a full batch means more may
 * wait, a backlog: the socket is emptied unread, and the caller reads what
 * the host has now and blocks it in place (the kernel applies a change
 * before it queues its notification, so that read holds what the dropped
 * ones said). The batch's own gains are still in the news, to be blocked
 * first: that needs no read, so it holds even if the read fails.
 *
 * Both fds belong to the supervisor, are created before the jail reads the
 * host's facts for the first time (a change in between is not lost) and are
 * close-on-exec: the agent gets neither.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "hostwatch.h"

/* Datagrams read per wakeup: the supervisor's other work goes on during a
 * flood, and what is left keeps the socket readable. */
#define HOSTWATCH_BATCH 64
/* Batches dropped at most per wakeup once a backlog shows (a few ms); what
 * is left is a backlog again at the next. */
#define HOSTWATCH_EMPTY_BATCHES 64

int hostwatch_open(struct hostwatch *hw, unsigned int settle_ms)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE };
	int err;

	hw->armed = false;
	hw->timer_fd = -1;
	hw->settle_ms = settle_ms < HOSTWATCH_DEBOUNCE_MS ? HOSTWATCH_DEBOUNCE_MS : settle_ms;
	/* CLOEXEC: an agent holding a netlink socket of the host's namespace
	 * would read the host's networks from inside its jail. NONBLOCK: the
	 * supervisor must never stall on it while signals and denials wait. */
	hw->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (hw->fd < 0 || bind(hw->fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	hw->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (hw->timer_fd < 0)
		goto fail;
	return 0;
fail:
	err = -errno;
	hostwatch_close(hw);
	return err;
}

/* family_is_ipv4() - whether a message's payload starts with an IPv4
 * family byte (rtmsg and ifaddrmsg both start with it); a payload too
 * short to say counts as IPv4, to be read again rather than missed. */
static bool family_is_ipv4(const struct nlmsghdr *nlh)
{
	const unsigned char *family = mnl_nlmsg_get_payload(nlh);

	return mnl_nlmsg_get_payload_len(nlh) < 1 || *family == AF_INET;
}

/* gain() - a new address or route of @nlh into @news; one that does not
 * fit makes it unknown */
static void gain(const struct nlmsghdr *nlh, struct hostwatch_news *news)
{
	if (nlh->nlmsg_type == RTM_NEWADDR) {
		if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifaddrmsg) ||
		    news->n_addrs == HOSTWATCH_GAINS_MAX)
			news->unknown = true;
		else
			nl_parse_addr(nlh, &news->addrs[news->n_addrs++]);
	} else if (nlh->nlmsg_type == RTM_NEWROUTE) {
		if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct rtmsg) ||
		    news->n_routes == HOSTWATCH_GAINS_MAX)
			news->unknown = true;
		else
			nl_parse_route(nlh, &news->routes[news->n_routes++]);
	}
}

void hostwatch_parse(const void *buf, size_t len, struct hostwatch_news *news)
{
	const struct nlmsghdr *nlh = buf;
	int left;

	if (len > INT_MAX) {
		news->changed = news->unknown = true;
		return;
	}
	left = (int)len;
	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		switch (nlh->nlmsg_type) {
		case RTM_NEWROUTE:
		case RTM_DELROUTE:
		case RTM_NEWADDR:
		case RTM_DELADDR:
			if (family_is_ipv4(nlh)) {
				news->changed = true;
				gain(nlh, news);
			}
			break;
		case NLMSG_ERROR:
		case NLMSG_OVERRUN:
			news->changed = news->unknown = true;
			break;
		}
	}
	/* Bytes left over that are no whole message: a cut-off datagram. */
	if (left > 0)
		news->changed = news->unknown = true;
}

int hostwatch_arm(struct hostwatch *hw, unsigned int ms)
{
	struct itimerspec its = { .it_value = { .tv_sec = ms / 1000,
						.tv_nsec = (long)(ms % 1000) * 1000000L } },
			  left;

	/* Running: only ever sooner. */
	if (hw->armed && !timerfd_gettime(hw->timer_fd, &left) &&
	    (left.it_value.tv_sec < its.it_value.tv_sec ||
	     (left.it_value.tv_sec == its.it_value.tv_sec &&
	      left.it_value.tv_nsec <= its.it_value.tv_nsec)))
		return 0;
	if (timerfd_settime(hw->timer_fd, 0, &its, NULL))
		return -errno;
	hw->armed = true;
	return 0;
}

/* discard() - read and drop up to @batches batches of datagrams, or until
 * the socket is empty (the read that follows covers them) */
static void discard(int fd, int batches)
{
	char byte;
	int i;

	for (i = 0; i < batches * HOSTWATCH_BATCH; i++)
		if (recv(fd, &byte, sizeof(byte), MSG_TRUNC) < 0 && errno != EINTR &&
		    errno != ENOBUFS)
			return;
}

/* drain() - read a batch of datagrams into @news (NULL: only empty the
 * socket, the read that follows covers them) */
static void drain(int fd, struct hostwatch_news *news)
{
	/* Aligned for struct nlmsghdr; big enough for any rtnetlink
	 * notification of an address or route. */
	uint32_t buf[8192 / sizeof(uint32_t)];
	int i;

	if (!news) {
		discard(fd, HOSTWATCH_EMPTY_BATCHES);
		return;
	}
	news->changed = news->unknown = news->backlog = false;
	news->n_addrs = news->n_routes = 0;
	for (i = 0; i < HOSTWATCH_BATCH; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_TRUNC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0) {
			/* ENOBUFS: the kernel dropped notifications it had
			 * no room for. Ignoring that would leave a VPN that
			 * connected in the burst open to the agent: what
			 * was lost is unknown. Any other error too;
			 * ENOBUFS is reported once, so reading goes on. */
			news->changed = news->unknown = true;
			if (errno != ENOBUFS)
				break;
			continue;
		}
		if ((size_t)n > sizeof(buf))
			news->changed = news->unknown = true;
		else
			hostwatch_parse(buf, (size_t)n, news);
	}
	/* A full batch: more may wait. The attack: a VPN's route queued
	 * behind a thousand others stayed open, batch after batch, to an
	 * agent connecting in a loop. Dropped, it is in the read of the
	 * host the caller makes now. */
	if (i == HOSTWATCH_BATCH) {
		discard(fd, HOSTWATCH_EMPTY_BATCHES);
		news->changed = news->backlog = true;
	}
}

int hostwatch_receive(struct hostwatch *hw)
{
	drain(hw->fd, &hw->news);
	return hw->news.changed ? hostwatch_arm(hw, hw->settle_ms) : 0;
}

bool hostwatch_due(struct hostwatch *hw)
{
	uint64_t expirations;

	if (read(hw->timer_fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return false;
	hw->armed = false;
	drain(hw->fd, NULL);
	return true;
}

void hostwatch_close(struct hostwatch *hw)
{
	if (hw->fd >= 0)
		close(hw->fd);
	if (hw->timer_fd >= 0)
		close(hw->timer_fd);
	hw->fd = hw->timer_fd = -1;
	hw->armed = false;
}
