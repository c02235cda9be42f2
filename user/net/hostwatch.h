/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* hostwatch.h - notice when the host's addresses or routes change */
#ifndef EBPFJAIL_HOSTWATCH_H
#define EBPFJAIL_HOSTWATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "netlink.h"

/* How long a change waits for the rest of its burst before the host's
 * facts are read again (by default: the configuration may say longer), and
 * how long after a failed read they are read again. */
#define HOSTWATCH_DEBOUNCE_MS 100
#define HOSTWATCH_RETRY_MS 1000

/* New addresses and routes one batch of datagrams may carry; more are
 * "unknown". */
#define HOSTWATCH_GAINS_MAX 128

/* What a batch of notifications said. */
struct hostwatch_news {
	bool changed; /* the facts must be read again, after the burst */
	bool unknown; /* something was lost or unreadable (an overrun, a
			 cut-off message, more gains than fit): what the
			 host gained is not known, so read the facts now */
	bool backlog; /* more than the batch waited, and was dropped
			 unread: what the host has now holds what they
			 said, so block it now (the gains below are the
			 batch's) */
	struct nl_addr addrs[HOSTWATCH_GAINS_MAX];   /* new IPv4 addresses */
	size_t n_addrs;
	struct nl_route routes[HOSTWATCH_GAINS_MAX]; /* new IPv4 routes */
	size_t n_routes;
};

struct hostwatch {
	int fd;       /* NETLINK_ROUTE, IPv4 route and address groups, or -1 */
	int timer_fd; /* one-shot timer: the facts are due to be read, or -1 */
	bool armed;   /* timer_fd is running */
	unsigned int settle_ms; /* the burst's wait: HOSTWATCH_DEBOUNCE_MS or longer */
	struct hostwatch_news news; /* what the last hostwatch_receive() read */
};

#define HOSTWATCH_INIT { .fd = -1, .timer_fd = -1, .settle_ms = HOSTWATCH_DEBOUNCE_MS }

/**
 * hostwatch_open() - subscribe to changes of IPv4 addresses and routes (of
 * every table, local included) in the current network namespace
 * @settle_ms: how long a burst settles before the facts are due (at least
 *             HOSTWATCH_DEBOUNCE_MS: shorter is taken as that)
 * Both descriptors are non-blocking and close-on-exec.
 * Return: 0 or -errno.
 */
int hostwatch_open(struct hostwatch *hw, unsigned int settle_ms);

/**
 * hostwatch_parse() - what a buffer of rtnetlink messages says, added to
 * @news
 * Pure. A new or deleted IPv4 address or route is a change; a new one is
 * also a gain, as the dumps give it (nl_parse_addr(), nl_parse_route()).
 * Anything that cannot be read as whole messages (a truncated buffer), an
 * overrun or error notice, and more gains than @news holds are unknown.
 */
void hostwatch_parse(const void *buf, size_t len, struct hostwatch_news *news);

/**
 * hostwatch_receive() - read a batch of what the socket holds into
 * @hw->news (a full batch: the rest is dropped, and the news says
 * backlog) and, if the host may have changed, start the timer unless it
 * runs already
 * Return: 0 or -errno from the timer.
 */
int hostwatch_receive(struct hostwatch *hw);

/**
 * hostwatch_due() - the timer fired: drop what the socket holds (the read
 * the caller makes now covers it) and stop
 * Return: true when the caller must read the host's facts again now.
 */
bool hostwatch_due(struct hostwatch *hw);

/**
 * hostwatch_arm() - have the timer fire in @ms milliseconds, or sooner if it
 * runs already and is due sooner (a retry after a failed read must not wait
 * for a long settle; a burst's later notifications never push it back)
 * Return: 0 or -errno.
 */
int hostwatch_arm(struct hostwatch *hw, unsigned int ms);

/** hostwatch_close() - close both descriptors; fine on HOSTWATCH_INIT */
void hostwatch_close(struct hostwatch *hw);

#endif /* EBPFJAIL_HOSTWATCH_H */
