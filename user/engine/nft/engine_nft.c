// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* engine_nft.c - the nftables engine behind the face (engine.h): rules in
 * the jail's namespace, denials from NFLOG (nftjail.h). It changes only
 * the exact entries in place (/32 and address+port: a name's answer, a
 * `deny`), the rest with a whole ruleset. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "nftjail.h"

static int open_nft(const struct engine_options *o, void **impl, char *why, size_t why_size)
{
	struct nftjail *nj = calloc(1, sizeof(*nj));
	int err;

	if (!nj)
		return -ENOMEM;
	err = nftjail_open(nj, o->ns_fd, o->on_event, o->ctx, o->denial_window_ns);
	if (err) {
		free(nj);
		snprintf(why, why_size, "cannot read the jail's denials through NFLOG (%s); run "
			 "'ebpfjail doctor'", strerror(-err));
		return err;
	}
	*impl = nj;
	return 0;
}

static int set_policy(void *impl, const struct policy *p, char *why, size_t why_size)
{
	int err = nftjail_set_policy(impl, p, why, why_size);
	size_t len;

	if (!err)
		return 0;
	if (!why[0])
		snprintf(why, why_size, "%s", strerror(-err));
	len = strnlen(why, why_size);
	/* allow-host's rules need connection tracking, which a user
	 * namespace cannot load as a module. */
	if (p->keeps_flows && len + 1 < why_size)
		snprintf(why + len, why_size - len, "; allow-host needs the kernel's connection "
			 "tracking (as root: modprobe nf_conntrack)");
	return err;
}

static int change_policy(void *impl, const struct policy_rule *set, size_t n_set,
			 const struct policy_key *del, size_t n_del)
{
	return nftjail_change_policy(impl, set, n_set, del, n_del);
}

static int renew_kept(void *impl)
{
	return nftjail_renew_kept(impl);
}

static int events_fd(const void *impl)
{
	return nftjail_events_fd(impl);
}

static int events_poll(void *impl)
{
	return nftjail_events_poll(impl);
}

static int read_counters(void *impl, enum engine_counters which, __u64 c[COUNTER_SLOTS])
{
	return nftjail_read_counters(impl, which, c);
}

static int read_denials(void *impl, engine_denial_fn fn, void *ctx)
{
	return nftjail_read_denials(impl, fn, ctx);
}

static void close_nft(void *impl)
{
	nftjail_close(impl);
	free(impl);
}

const struct engine_ops engine_nft_ops = {
	.name = "nftables",
	.open = open_nft,
	.set_policy = set_policy,
	.change_policy = change_policy,
	.renew_kept = renew_kept,
	.events_fd = events_fd,
	.events_poll = events_poll,
	.read_counters = read_counters,
	.read_denials = read_denials,
	.close = close_nft,
};
