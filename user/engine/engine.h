/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* engine.h - the face both engines show the jail: the BPF one (loader.h,
 * root on the host) and the nftables one (nftjail.h, the rootless mode)
 *
 * The orchestration (jail.c, jail_policy.c, supervisor.c) calls only this.
 * What an engine cannot do is a stub that says so (-EOPNOTSUPP), as
 * systemd's socket-bind unit gives one face with stubs where a framework is
 * missing, so the callers never ask which engine they hold:
 * - engine_change_policy(): nftables changes only its exact entries in
 *   place (/32 and address+port: what a name's answer adds), and at most
 *   NFTJAIL_CHANGES_PER_SECOND times a second (-EAGAIN); the rest only
 *   as a whole ruleset;
 * - engine_renew_kept(): nftables renews only where allow-host is
 *   configured (-EOPNOTSUPP: no kept chain, so nothing is kept by name).
 */
#ifndef EBPFJAIL_ENGINE_H
#define EBPFJAIL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "ebpfjail.h"
#include "policy.h"
#include "unixpolicy.h"

enum engine_kind {
	ENGINE_KIND_BPF,      /* cgroup socket hooks and a TC filter: root only */
	ENGINE_KIND_NFTABLES, /* nftables in the jail's own namespaces */
};

/* Called for each denial event, with the ctx of engine_options; return 0
 * to go on. */
typedef int (*engine_event_fn)(void *ctx, const struct jail_event *event);

/* Called for each tally of the denials (bpf/ebpfjail.h, "Aggregation"). */
typedef void (*engine_denial_fn)(void *ctx, const struct denial_key *key,
				 const struct denial_tally *tally);

/* Which counters engine_read_counters() gives. An engine whose counters
 * are exact at every read (BPF's) gives the same for all three. */
enum engine_counters {
	ENGINE_COUNTERS_NOW,     /* as the kernel counts them now: what status shows */
	ENGINE_COUNTERS_SETTLED, /* those whose events must have been read: for
				    the losses (nftjail.h says why they lag) */
	ENGINE_COUNTERS_FINAL,   /* the agent is gone, the events drained: exact */
};

struct engine_options {
	engine_event_fn on_event; /* may be NULL: events are then discarded */
	void *ctx;
	__u64 denial_window_ns;   /* 0: DENIAL_WINDOW_NS; tests set 1 ns */
	int ns_fd;                /* the jail's network namespace */
	__u64 netns_cookie;       /* its cookie (netns.h); 0 where it has none */
	int cgroup_fd;            /* the jail's cgroup: BPF attaches its socket
				     hooks there; -1 for none */
	const struct unix_rule *unix_rules; /* the Unix socket paths allowed */
	size_t n_unix_rules;
};

struct engine;

/**
 * engine_open() - the engine @kind, loaded and ready for its first policy:
 * until engine_set_policy() it denies everything (fail closed)
 * Return: 0, or -errno with @why saying the engine's complaint (may be
 * empty).
 */
int engine_open(enum engine_kind kind, const struct engine_options *o, struct engine **out,
		char *why, size_t why_size);

/** engine_name() - "bpf" or "nftables", as status and the audit say it */
const char *engine_name(const struct engine *e);

/**
 * engine_set_policy() - @p whole in place of the policy in force, in one
 * step: no decision sees half of it
 * Return: 0, or -errno with @why saying the engine's complaint (may be
 * empty; the policy in force stays).
 */
int engine_set_policy(struct engine *e, const struct policy *p, char *why, size_t why_size);

/**
 * engine_change_policy() - the policy in force changed in place: @set's
 * rules added or replaced, then @del's keys removed, each an atomic step
 * Return: 0, -EOPNOTSUPP (only a whole policy can make this change:
 * engine_set_policy(); nothing was done), -EAGAIN (not now: nothing was
 * done, the next second can), or -errno (logged; what was done stays
 * done).
 */
int engine_change_policy(struct engine *e, const struct policy_rule *set, size_t n_set,
			 const struct policy_key *del, size_t n_del);

/**
 * engine_renew_kept() - a new generation of kept flows: the connections
 * allowed by name before it pass only while the policy lets them
 * Return: 0, -EOPNOTSUPP (nothing can be kept by name: no allow-host),
 * or -errno (logged).
 */
int engine_renew_kept(struct engine *e);

/**
 * engine_attach_in_ns() - what the engine puts on the jail's interface,
 * run inside the jail's network namespace (netns_run()) once pasta's tap
 * @tap_ifindex is up: BPF's TC filter; nothing for nftables
 * Return: 0 or -errno.
 */
int engine_attach_in_ns(struct engine *e, int tap_ifindex);

/** engine_has_unix_hooks() - whether pathname Unix sockets are judged per path */
bool engine_has_unix_hooks(struct engine *e);

/** engine_events_fd() - polls readable when denial events wait */
int engine_events_fd(const struct engine *e);

/**
 * engine_events_poll() - the waiting events to on_event, a bounded batch
 * (call again while it returns > 0 to drain); never blocks
 * Return: events handled, or -errno.
 */
int engine_events_poll(struct engine *e);

/**
 * engine_read_counters() - COUNTER_SLOTS values, index hook *
 * COUNTER_STRIDE + reason (bpf/ebpfjail.h)
 * Return: 0 or -errno.
 */
int engine_read_counters(struct engine *e, enum engine_counters which, __u64 c[COUNTER_SLOTS]);

/**
 * engine_read_denials() - every tally of the denials to @fn
 * Return: 0 or -errno.
 */
int engine_read_denials(struct engine *e, engine_denial_fn fn, void *ctx);

/** engine_close() - free everything; NULL is fine */
void engine_close(struct engine *e);

/* What each engine gives engine.c (engine_bpf.c, engine_nft.c): NULL for
 * what it cannot do. */
struct engine_ops {
	const char *name;
	int (*open)(const struct engine_options *o, void **impl, char *why, size_t why_size);
	int (*set_policy)(void *impl, const struct policy *p, char *why, size_t why_size);
	int (*change_policy)(void *impl, const struct policy_rule *set, size_t n_set,
			     const struct policy_key *del, size_t n_del);
	int (*renew_kept)(void *impl);
	int (*attach_in_ns)(void *impl, int tap_ifindex);
	bool (*has_unix_hooks)(void *impl);
	int (*events_fd)(const void *impl);
	int (*events_poll)(void *impl);
	int (*read_counters)(void *impl, enum engine_counters which, __u64 c[COUNTER_SLOTS]);
	int (*read_denials)(void *impl, engine_denial_fn fn, void *ctx);
	void (*close)(void *impl);
};

extern const struct engine_ops engine_bpf_ops;
extern const struct engine_ops engine_nft_ops;

#endif /* EBPFJAIL_ENGINE_H */
