// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* engine_bpf.c - the BPF engine behind the face (engine.h): the loader's
 * programs (loader.h), their Unix socket rules, the socket hooks on the
 * jail's cgroup and the TC filter on its tap */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "loader.h"
#include "log.h"

/* open_bpf() - load, the Unix socket rules, the hooks on the cgroup. The
 * policy slot is empty until set_policy(), and an empty slot denies every
 * decision (bpf/policy.bpf.h): hooks on before the first policy can only
 * refuse, never let a socket out unjudged (and nothing runs in the
 * cgroup yet). */
static int open_bpf(const struct engine_options *o, void **impl, char *why, size_t why_size)
{
	struct loader_options lo = { .on_event = o->on_event, .ctx = o->ctx,
				     .denial_window_ns = o->denial_window_ns,
				     .netns_cookie = o->netns_cookie };
	struct jail_bpf *bpf;
	int err;

	err = loader_open(&lo, &bpf);
	if (err) {
		snprintf(why, why_size, "cannot load the BPF programs (%s); run 'ebpfjail doctor'",
			 strerror(-err));
		return err;
	}
	err = loader_set_unix_rules(bpf, o->unix_rules, o->n_unix_rules);
	log_debug("Unix socket hooks %s, %zu rules", loader_has_unix_hooks(bpf) ? "on" : "off",
		  o->n_unix_rules);
	if (err) {
		snprintf(why, why_size, "cannot install the Unix socket rules (%s); run 'ebpfjail "
			 "doctor'", strerror(-err));
		goto fail;
	}
	/* No cgroup, no hooks: nothing would judge the agent's sockets. */
	err = o->cgroup_fd >= 0 ? loader_attach_cgroup(bpf, o->cgroup_fd) : -EBADF;
	if (err) {
		snprintf(why, why_size, "cannot attach the socket hooks to the jail's cgroup (%s); "
			 "run 'ebpfjail doctor'", strerror(-err));
		goto fail;
	}
	*impl = bpf;
	return 0;
fail:
	loader_close(bpf);
	return err;
}

static int set_policy(void *impl, const struct policy *p, char *why, size_t why_size)
{
	int err = loader_set_policy(impl, p->rules, p->n);

	if (err == -E2BIG)
		snprintf(why, why_size, "the policy does not fit the BPF map (%u entries at most); "
			 "use fewer allow-ip and block-cidr entries", POLICY_MAX_ENTRIES);
	return err;
}

static int change_policy(void *impl, const struct policy_rule *set, size_t n_set,
			 const struct policy_key *del, size_t n_del)
{
	return loader_change_policy(impl, set, n_set, del, n_del);
}

static int renew_kept(void *impl)
{
	return loader_renew_kept_flows(impl);
}

static int attach_in_ns(void *impl, int tap_ifindex)
{
	return loader_attach_tc(impl, tap_ifindex);
}

static bool has_unix_hooks(void *impl)
{
	return loader_has_unix_hooks(impl);
}

static int events_fd(const void *impl)
{
	return loader_events_fd(impl);
}

static int events_poll(void *impl)
{
	return loader_events_poll(impl, 0);
}

/* The kernel's per-CPU counters are exact at every read: @which is moot. */
static int read_counters(void *impl, enum engine_counters which, __u64 c[COUNTER_SLOTS])
{
	(void)which;
	return loader_read_counters(impl, c);
}

static int read_denials(void *impl, engine_denial_fn fn, void *ctx)
{
	return loader_read_denials(impl, fn, ctx);
}

static void close_bpf(void *impl)
{
	loader_close(impl);
}

const struct engine_ops engine_bpf_ops = {
	.name = "bpf",
	.open = open_bpf,
	.set_policy = set_policy,
	.change_policy = change_policy,
	.renew_kept = renew_kept,
	.attach_in_ns = attach_in_ns,
	.has_unix_hooks = has_unix_hooks,
	.events_fd = events_fd,
	.events_poll = events_poll,
	.read_counters = read_counters,
	.read_denials = read_denials,
	.close = close_bpf,
};
