/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* nftjail.h - the rootless engine in a running jail: its rules, its
 * denials, and their aggregation, as loader.h gives the BPF engine's
 *
 * The rules are nftengine.c's, put in force in the jail's network
 * namespace from a thread inside it (netns_run(): the supervisor cannot
 * enter and leave it, docs/DESIGN.md). The denials come from NFLOG
 * (nflog.c), and are aggregated here the way the BPF programs do it in
 * the kernel (bpf/ebpfjail.h, "Aggregation"): the first denial of a key
 * in a window is an event, at once; the others add to the key's tally,
 * which the supervisor reads once a second into count records, with the
 * same book (denials.c). The key's pid is 0: NFLOG does not know it.
 *
 * Counters: the deny chains count every denial in the kernel, logged or
 * not (their log is rate-limited, and a socket that overflows drops
 * messages), so lost = denials - events - repeats written, as with BPF.
 */
#ifndef EBPFJAIL_NFTJAIL_H
#define EBPFJAIL_NFTJAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ebpfjail.h"
#include "engine.h"
#include "nftengine.h"
#include "policy.h"

struct nftjail_slot {
	struct denial_key key;
	struct denial_tally tally;
	bool used;
};

struct nftjail {
	int ns_fd;               /* the jail's network namespace (not ours) */
	struct nftengine engine;
	int nflog_fd;
	uint64_t overflows;      /* NFLOG socket overflows seen */
	engine_event_fn on_event;
	void *ctx;
	uint64_t window_ns;      /* DENIAL_WINDOW_NS, or a test's */
	struct nftjail_slot *slots; /* DENIALS_MAX_ENTRIES, open addressing */
	size_t n_used;
	uint64_t events[REASON_COUNT];
	/* The deny chains' counters: of the generations before the one in
	 * force, and of that one as last read. */
	uint64_t denied_before[REASON_COUNT];
	uint64_t denied_now[REASON_COUNT];
	/* What nftjail_read_counters() gives: the counters as they were one
	 * read earlier (see there). */
	uint64_t denied_given[REASON_COUNT];
	bool seen;               /* an event or overflow since the last read */
	/* The rules in force, as nftjail_change_policy() changes them in
	 * place; not valid after a change that failed half done (a whole
	 * policy makes it so again). */
	struct policy in_force;
	bool in_force_valid;
	/* Changes in place this second (monotonic seconds): at most
	 * NFTJAIL_CHANGES_PER_SECOND. */
	uint64_t change_second;
	unsigned int changes;
};

/* Changes in place a second at most. Each is a libnftables transaction of
 * a few hundred microseconds to a few milliseconds: the cap keeps the
 * supervisor free for its other work (a `deny`, the relays) while the
 * agent makes its resolver answer fresh addresses as fast as it can. */
#define NFTJAIL_CHANGES_PER_SECOND 200

/**
 * nftjail_open() - the engine in the jail's network namespace @ns_fd: the
 * NFLOG socket bound there; no rules yet (nftjail_set_policy())
 * @window_ns: 0 for DENIAL_WINDOW_NS
 * Return: 0 or -errno (nothing is left to close then).
 */
int nftjail_open(struct nftjail *nj, int ns_fd, engine_event_fn on_event, void *ctx,
		 uint64_t window_ns);

/**
 * nftjail_set_policy() - @p's rules in force, in place of the old ones
 * (nftengine_apply()), the old generation's counters kept first
 * Return: 0 or -errno, @why saying nft's complaint.
 */
int nftjail_set_policy(struct nftjail *nj, const struct policy *p, char *why, size_t why_size);

/**
 * nftjail_change_policy() - the rules in force changed in place: @set's
 * added or replaced, then @del's keys removed (nftengine_change())
 * Return: 0; -EOPNOTSUPP (only a whole policy can make it); -EAGAIN (more
 * than NFTJAIL_CHANGES_PER_SECOND this second: nothing done, try in the
 * next); or -errno (logged; what was done stays done, and changes in
 * place wait for the next whole policy).
 */
int nftjail_change_policy(struct nftjail *nj, const struct policy_rule *set, size_t n_set,
			  const struct policy_key *del, size_t n_del);

/**
 * nftjail_renew_kept() - a new generation of kept connections in place
 * (nftengine_renew()): not under the cap, as it only tightens
 * Return: 0, -EOPNOTSUPP (nothing kept by name), or -errno (logged).
 */
int nftjail_renew_kept(struct nftjail *nj);

/** nftjail_events_fd() - the NFLOG socket, for epoll */
int nftjail_events_fd(const struct nftjail *nj);

/**
 * nftjail_events_poll() - the NFLOG messages waiting, aggregated
 * Return: how many denials were read, or -errno.
 */
int nftjail_events_poll(struct nftjail *nj);

/**
 * nftjail_read_counters() - as loader_read_counters(): COUNTER_SLOTS, only
 * the HOOK_NFT_OUTPUT row set (the deny reasons and their events; the
 * engine counts no allowed packet)
 * ENGINE_COUNTERS_SETTLED: the denials of the read before this one. An NFLOG
 * message reaches the socket a moment after its packet was counted, so a
 * denial counted now may not have been read yet, and would be taken for
 * lost; by the next read it has been. ENGINE_COUNTERS_FINAL: the counters now.
 * Return: 0 or -errno.
 */
int nftjail_read_counters(struct nftjail *nj, enum engine_counters which,
			  __u64 c[COUNTER_SLOTS]);

/**
 * nftjail_read_denials() - as loader_read_denials(): every tally with
 * repeats (one without has nothing for a count record)
 * Unlike the kernel's LRU map the table never evicts: past
 * DENIALS_MAX_ENTRIES kinds, each denial of a new kind is an event.
 */
int nftjail_read_denials(const struct nftjail *nj, engine_denial_fn fn, void *ctx);

/** nftjail_close() - the socket and the table; the rules stay in the
 * namespace, which goes with the jail */
void nftjail_close(struct nftjail *nj);

#endif /* EBPFJAIL_NFTJAIL_H */
