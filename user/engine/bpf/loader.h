/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* loader.h - load the jail's BPF programs, fill the policy, attach, read events */
#ifndef EBPFJAIL_LOADER_H
#define EBPFJAIL_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "ebpfjail.h"
#include "engine.h"
#include "policy.h"
#include "unixpolicy.h"

struct jail_bpf;

struct loader_options {
	engine_event_fn on_event; /* may be NULL: events are then discarded */
	void *ctx;
	/* The window of aggregation (bpf/ebpfjail.h); 0: DENIAL_WINDOW_NS.
	 * Tests set 1 ns: every denial an event. */
	__u64 denial_window_ns;
	/* The jail's network namespace (struct netns's cookie): a socket in
	 * any other may reach its loopback only. 0 matches no namespace, so
	 * every socket gets loopback only (fail closed). */
	__u64 netns_cookie;
	/* Leave the Unix socket hooks out, as on a kernel without them
	 * (tests of that path; never set by the jail). */
	bool unix_hooks_off;
};

/**
 * loader_open() - open and load the BPF programs (verifier included)
 * @opts: event callback and tunables; NULL for defaults (netns_cookie 0:
 *        nothing but loopback gets out, fine for a load test)
 * @out: the loaded programs; nothing is attached yet
 *
 * The policy slots are empty after this: the programs deny everything until
 * loader_set_policy() and loader_set_unix_rules() have run (fail closed).
 * The Unix socket hooks are loaded where the kernel has them (6.7+), see
 * loader_has_unix_hooks().
 * Return: 0 or -errno.
 */
int loader_open(const struct loader_options *opts, struct jail_bpf **out);

/**
 * loader_set_policy() - replace the whole policy, atomically
 * @rules: the complete new policy
 * @n: how many
 *
 * Builds a new trie beside the active one and swaps it in with one map
 * update, so no decision ever sees a half-filled policy.
 * Return: 0 or -errno (the old policy stays in force).
 */
int loader_set_policy(struct jail_bpf *jail, const struct policy_rule *rules, size_t n);

/**
 * loader_has_unix_hooks() - whether the Unix socket hooks are loaded (and
 * attached by loader_attach_cgroup()): false on a kernel before 6.7,
 * where pathname Unix sockets are not judged. Where the kernel has them,
 * loader_open() loads them or fails. For doctor and status.
 */
bool loader_has_unix_hooks(const struct jail_bpf *jail);

/**
 * loader_renew_kept_flows() - a new generation of kept_flows: connections
 * allowed by name before it pass only while the trie lets them
 * (bpf/ebpfjail.h; `ebpfjail deny` and reload re-judge them)
 * Return: 0, or -errno (logged).
 */
int loader_renew_kept_flows(struct jail_bpf *jail);

/**
 * loader_change_policy() - change the trie in force in place: @set's
 * entries added or replaced, then @del's keys removed (each one an atomic
 * map update; for a few keys, where a whole new trie would cost more than
 * the change: allow-host's answers)
 * Return: 0, or -errno (logged; what was done stays done, and from then
 * on this returns -EOPNOTSUPP until loader_set_policy() put a whole new
 * trie in place: the caller swaps in a whole policy then).
 */
int loader_change_policy(struct jail_bpf *jail, const struct policy_rule *set, size_t n_set,
			 const struct policy_key *del, size_t n_del);

/**
 * loader_set_unix_rules() - replace the whole Unix socket policy (not in one
 * step: see below)
 * @rules: the paths a Unix socket may connect or send to (unixpolicy_build()
 *         makes the jail's); every other pathname is denied
 * @n: how many, at most UNIX_POLICY_MAX_ENTRIES
 *
 * Replaced in place, the new entries first, then the old ones out: in
 * between, the union of the two is allowed, never what neither allows.
 * On a kernel without the hooks the map is filled all the same, and
 * nothing reads it.
 * Return: 0, -EINVAL for a rule unixpolicy_key() refuses (logged with the
 * reason; nothing changed), -E2BIG, or -errno (the map may then hold the
 * union).
 */
int loader_set_unix_rules(struct jail_bpf *jail, const struct unix_rule *rules, size_t n);

/**
 * loader_attach_cgroup() - attach the socket hooks to a cgroup: the four
 * inet ones, and the two Unix ones where loaded
 * @cgroup_fd: an open directory fd of a cgroup v2 cgroup
 *
 * They stay attached if this process dies: only loader_detach_cgroup(),
 * loader_close() or removing the cgroup takes them off.
 * Return: 0 or -errno; on failure none of them stays attached.
 */
int loader_attach_cgroup(struct jail_bpf *jail, int cgroup_fd);

/**
 * loader_attach_tc() - attach the classifier to @ifindex's clsact egress
 *
 * Runs in the caller's network namespace, which must be the interface's.
 * Creates the clsact qdisc if there is none.
 * Return: 0 or -errno.
 */
int loader_attach_tc(struct jail_bpf *jail, int ifindex);

/**
 * loader_detach_tc() - take the classifier off again
 *
 * Must run in the interface's network namespace, like loader_attach_tc():
 * an ifindex means another interface elsewhere. loader_close() does not
 * do it; a jail's qdisc goes with its namespace.
 */
void loader_detach_tc(struct jail_bpf *jail);

/** loader_detach_cgroup() - take the socket hooks off their cgroup */
void loader_detach_cgroup(struct jail_bpf *jail);

/** loader_events_fd() - an fd that polls readable when events wait */
int loader_events_fd(const struct jail_bpf *jail);

/**
 * loader_events_poll() - hand waiting events to the callback, at most a
 * few thousand per call (call again while it returns > 0 to drain)
 * @timeout_ms: how long to wait for the first one; 0 never blocks
 * Return: events handled, or -errno.
 */
int loader_events_poll(struct jail_bpf *jail, int timeout_ms);

/**
 * loader_read_counters() - sum the per-CPU counters
 * @out: COUNTER_SLOTS values, index hook * COUNTER_STRIDE + reason
 * Return: 0 or -errno.
 */
int loader_read_counters(const struct jail_bpf *jail, __u64 out[COUNTER_SLOTS]);

/**
 * loader_read_denials() - every tally of the denials map (bpf/ebpfjail.h,
 * "Aggregation") to @fn, some hundreds per system call. A key the kernel
 * inserts meanwhile may be missed (the next read has it); none comes twice.
 * Return: 0, or -errno.
 */
int loader_read_denials(const struct jail_bpf *jail, engine_denial_fn fn, void *ctx);

/**
 * loader_test_run_tc() - run the classifier on a crafted frame
 * (BPF_PROG_TEST_RUN), for tests and benchmarks
 * @repeat: how many runs; @duration_ns gets the mean time of one
 * Return: 0 or -errno; @verdict gets TC_ACT_*.
 */
int loader_test_run_tc(struct jail_bpf *jail, const void *frame, size_t len, unsigned int repeat,
		       int *verdict, __u32 *duration_ns);

/** loader_close() - detach the socket hooks, free everything; NULL is fine */
void loader_close(struct jail_bpf *jail);

#endif /* EBPFJAIL_LOADER_H */
