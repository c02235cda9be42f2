/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* testutil.h - what the tests share: a throwaway cgroup, the events the
 * loader hands over, hand-made netlink dump entries */
#ifndef EBPFJAIL_TESTUTIL_H
#define EBPFJAIL_TESTUTIL_H

#include <stdint.h>
#include <linux/types.h>

#include "ebpfjail.h"
#include "netlink.h"

/**
 * test_cgroup_open() - make a uniquely named cgroup for this test process
 * @tag: part of the name, to tell suites apart in leftovers
 *
 * Its removal is registered with atexit(), so it goes away even when an
 * assertion ends the test early (Criterion skips .fini after a failed .init).
 * Return: an O_DIRECTORY fd of the cgroup; asserts on failure.
 */
int test_cgroup_open(const char *tag);

/** test_cgroup_close() - close the fd and remove the cgroup now */
void test_cgroup_close(void);

#define TEST_EVENTS_MAX 64

/* What the socket hooks reported: the first TEST_EVENTS_MAX in @e, all of
 * them counted in @total. */
struct test_events {
	struct jail_event e[TEST_EVENTS_MAX];
	unsigned int n, total;
};

/**
 * test_events_add() - an engine_event_fn for loader_options: @ctx is the
 * struct test_events that keeps @e
 * Return: 0 (keep going).
 */
int test_events_add(void *ctx, const struct jail_event *e);

/** test_addr4() - an IPv4 address dump entry: @a/@prefixlen on @ifindex */
struct nl_addr test_addr4(int ifindex, const char *a, uint8_t prefixlen);

/**
 * test_route4() - an IPv4 route dump entry: @dst/@dst_len in @table, of
 * @type, out of @oif, via @gw (NULL: none) with the next hop's @gw_flags
 */
struct nl_route test_route4(uint32_t table, uint8_t type, int oif, const char *dst,
			    uint8_t dst_len, const char *gw, uint32_t gw_flags);

#endif /* EBPFJAIL_TESTUTIL_H */
