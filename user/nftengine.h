/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* nftengine.h - the rootless engine's rules into the kernel (libnftables)
 *
 * The rootless engine (docs/DESIGN.md) enforces the compiled policy with
 * nftables in the jail's own network namespace, which the unprivileged
 * user owns through its user namespace: no privilege on the host is
 * needed. libnftables takes the ruleset nftrules_format() writes, as nft(8)
 * would read it from a file, and replaces the table in one transaction.
 * libnftables rather than libnftnl: the ruleset is text a person can read
 * (and `nft list ruleset` shows it back), and the parser does the sets,
 * interval maps and concatenations that would be a few hundred lines of
 * netlink attributes with libnftnl.
 */
#ifndef EBPFJAIL_NFTENGINE_H
#define EBPFJAIL_NFTENGINE_H

#include <stddef.h>

#include "policy.h"

/**
 * nftengine_apply() - replace the table NFTRULES_TABLE of the calling
 * thread's network namespace with @p's rules, in one transaction: the old
 * rules hold until the new ones are in, never neither
 * @why: on failure, nft's first error line
 * Return: 0, -ENOMEM, or -EINVAL (nft refused the ruleset, or has no
 * permission in this namespace: @why says which).
 */
int nftengine_apply(const struct policy *p, char *why, size_t why_size);

/**
 * nftengine_remove() - take the table away (nothing is filtered then);
 * no table is no error
 * Return: 0, -ENOMEM or -EINVAL (@why says why).
 */
int nftengine_remove(char *why, size_t why_size);

#endif /* EBPFJAIL_NFTENGINE_H */
