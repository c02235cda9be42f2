/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* nftengine.h - the rootless engine's rules into the kernel (libnftables)
 *
 * The rootless engine (docs/DESIGN.md) enforces the compiled policy with
 * nftables in the jail's own network namespace, which the unprivileged
 * user owns through its user namespace: no privilege on the host is
 * needed. libnftables takes the transactions nftrules_script() writes, as
 * nft(8) would read them from files.
 * libnftables rather than libnftnl for those: the ruleset is text a person
 * can read (and `nft list ruleset` shows it back), and the parser does the
 * sets, interval maps and concatenations that would be a few hundred lines
 * of netlink attributes with libnftnl. A change in place (a name's answer,
 * `deny`) is elements of two plain maps, and there libnftnl writes them
 * in one netlink batch: libnftables would first read the table back (five
 * round trips, and caches of 128 KiB each to fill; the first answer
 * after the agent's start, its pages shared with the agent's init since
 * the fork, took 7 ms for 64 addresses, the next ones 1.9 ms).
 */
#ifndef EBPFJAIL_NFTENGINE_H
#define EBPFJAIL_NFTENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "nftrules.h"
#include "policy.h"

/* The engine in one network namespace: which generation of the rules it
 * last put in force (0: none yet). What is in force is read from the kernel
 * at each change, not taken from here. */
struct nftengine {
	unsigned int generation;
	struct nft_chains chains; /* the chains of that generation's table */
};

/**
 * nftengine_apply() - put @p's rules in force in the calling thread's
 * network namespace, in place of the ones @e has there (nftrules_script():
 * the old rules hold, whole, until the new ones are in, whole)
 * @e: the engine of this namespace; its generation is set on success
 * @p: the compiled policy
 * The new generation is one past the highest table of ours the namespace
 * holds, and the last step deletes every other one: rules the engine did
 * not know of are never overwritten, nor left hooked.
 * @why: on failure, nft's first error line
 * Return: 0; -ENOMEM; or -EINVAL (nft refused the ruleset, or has no
 * permission in this namespace: @why says which). On failure the rules
 * in force are the old ones (none, the first time: fail closed means the
 * caller does not start the agent then).
 */
int nftengine_apply(struct nftengine *e, const struct policy *p, char *why, size_t why_size);

/**
 * nftengine_change() - the generation in force changed in place, in the
 * calling thread's network namespace (nftrules_change(): @in_force is what
 * it holds now, @set's rules added or replaced, @del's keys removed)
 * Return: 0; -EOPNOTSUPP (only a whole generation can make this change:
 * nothing was done); -ENOMEM; or the kernel's -errno (it refused a step,
 * which left nothing of it done; @why says so; the steps before it stay
 * done).
 */
int nftengine_change(struct nftengine *e, const struct policy *in_force,
		     const struct policy_rule *set, size_t n_set, const struct policy_key *del,
		     size_t n_del, char *why, size_t why_size);

/**
 * nftengine_renew() - a new generation of kept connections, in place, in
 * the calling thread's network namespace: in one transaction, the set
 * kept_marks holds the mark one past the one in force alone, and the kept
 * chain's rule marks the names' new connections with it
 * Return: 0; -EOPNOTSUPP (no allow-host: nothing is kept by name);
 * -ENOMEM; or the kernel's -errno (@why says so; the old generation
 * stays).
 */
int nftengine_renew(struct nftengine *e, char *why, size_t why_size);

/**
 * nftengine_remove() - take every table of ours away (nothing is filtered
 * then)
 * Return: 0, -ENOMEM or -EINVAL (@why says why).
 */
int nftengine_remove(struct nftengine *e, char *why, size_t why_size);

/**
 * nftengine_denied() - every denial of the generation in force, per reason,
 * from its deny chains' counters: what NFLOG shows, and what it did not
 * (the chains log at most NFTRULES_LOG_PER_SECOND a second each, and a
 * socket that overflows drops messages). The difference from the events
 * read is the lost count. The counters are the generation's own: a new
 * policy starts them at 0, so the caller reads them before each change.
 * Return: 0, -ENOMEM, or -EINVAL (@why says why).
 */
int nftengine_denied(const struct nftengine *e, uint64_t denied[REASON_COUNT], char *why,
		     size_t why_size);

#endif /* EBPFJAIL_NFTENGINE_H */
