/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* livepolicy.h - changing a running jail's policy: temporary allow/deny
 * entries and what a reload changes (pure logic) */
#ifndef EBPFJAIL_LIVEPOLICY_H
#define EBPFJAIL_LIVEPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "policy.h"

/* The temporary changes of one jail: at most one entry per address and
 * port, the latest `allow` or `deny` for it. */
struct live_changes {
	struct policy_live *entries;
	size_t n;
};

/**
 * live_set() - record `allow` (@allow) or `deny` of @addr:@port (network
 * byte order address, host byte order port, 0 = every port), replacing an
 * earlier change of the same address and port (of every port of the
 * address, when @port is 0)
 * Return: 0, or -ENOMEM.
 */
int live_set(struct live_changes *lc, uint32_t addr, uint16_t port, bool allow);

void live_clear(struct live_changes *lc);

/**
 * live_format() - the changes as "allow 10.0.0.5:502, deny 192.0.2.7" (what
 * `ebpfjail status` shows); empty when there are none; bounded by @size
 */
void live_format(const struct live_changes *lc, char *buf, size_t size);

/**
 * live_config_diff() - what a reload from @old to @new changes, as one line
 * ("allow-ip +10.0.0.5 -10.0.0.7:22; block-cidr +192.0.2.0/24"; empty when
 * the policy keys are unchanged), and, in @restart, the changes that only a
 * new jail can apply ("local-port +7002", "pass-env -FOO", "unix-socket +PATH", "share-tmp = on",
 * "audit-log").
 * Return: the number of changes that need a restart.
 */
size_t live_config_diff(const struct config *old, const struct config *new, char *changes,
			size_t changes_size, char *restart, size_t restart_size);

/**
 * live_rules_diff() - rules in @b and not in @a (@added) and the reverse
 * (@removed); both policies as policy_compile() sorts them
 */
void live_rules_diff(const struct policy *a, const struct policy *b, size_t *added,
		     size_t *removed);

/**
 * live_rules_changes() - the same, rule by rule, as text: "+198.51.100.0/25
 * host-route -10.99.0.0/16 connected" (a rule whose verdict changed is its
 * old rule and its new one); what does not fit @size ends in "... (N more)"
 * Return: the number of changes; 0 when @a and @b are the same policy.
 */
size_t live_rules_changes(const struct policy *a, const struct policy *b, char *buf, size_t size);

/**
 * live_host_changes() - live_rules_changes() of only the rules the host's
 * networks give (REASON_CONNECTED, REASON_HOST_ROUTE): what the host
 * changed between @a and @b, not the names' answers or the user's
 * `allow`/`deny` compiled in with it
 */
size_t live_host_changes(const struct policy *a, const struct policy *b, char *buf, size_t size);

#endif /* EBPFJAIL_LIVEPOLICY_H */
