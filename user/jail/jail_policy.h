/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* jail_policy.h - a running jail's policy: install it, reload it, allow and
 * deny on request (the supervisor's side of the control socket), follow the
 * host's networks */
#ifndef EBPFJAIL_JAIL_POLICY_H
#define EBPFJAIL_JAIL_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "audit.h"
#include "auditlog.h"
#include "config.h"
#include "dnsallow.h"
#include "dnsmsg.h"
#include "hostnet.h"
#include "livepolicy.h"
#include "engine.h"
#include "policy.h"

/* Where a reload reads the configuration again: the sources `run` read
 * (cmd_run.c gives the command line's), and the command that approves the
 * lines they hold unapproved. */
struct policy_sources {
	void (*read)(struct config *cfg, const void *ctx, uid_t agent_uid);
	void (*trust_hint)(const struct config *cfg, const void *ctx, uid_t agent_uid,
			   char *hint, size_t size);
	const void *ctx;
};

struct jail_policy {
	const char *id;
	struct engine *engine;          /* where the policy is in force */
	struct policy_sources sources;  /* what a reload reads again */
	struct config *cfg;             /* the configuration in force */
	uint32_t gateway;               /* the jail's gateway, fixed */
	uint32_t dns_forward;           /* pasta's DNS forward address, fixed */
	uid_t agent_uid;                /* whose approvals a reload reads */
	struct audit_log *audit;        /* where changes are recorded */
	struct policy rules;            /* in the maps now (rules only) */
	char refused[256];              /* the engine's words on the last policy
					   it refused, or "" */
	struct live_changes live;       /* allow/deny since the last reload */
	struct dnsallow names;          /* addresses allowed by name, until when */
	struct dnsallow denied;         /* addresses deny-host names answered:
					   blocked until when */
	struct dns_seen *seen;          /* what names answers gave lately, or NULL */
	bool names_dirty;               /* names changed but not yet in force */
	uint64_t capped_second;         /* the engine's cap on changes was hit
					   in this CLOCK_MONOTONIC second
					   (names_apply()), or 0 */
	bool names_full_logged;         /* said once: the names' table is full */
	bool denied_full_logged;        /* said once: deny-host's table is full
					   (its own flag: a full names' table
					   must not silence it) */
	bool names_cut_logged;          /* said once: an answer had too many */
	bool names_stale_logged;        /* said: the names could not be applied */
	bool names_unrecorded;          /* the last answer's entries, from
					   names_first on, await their record */
	bool names_unrecorded_held;     /* ... held back by the engine's cap */
	bool names_held;                /* entries held back by the cap wait
					   for the tick, which records them
					   in force */
	size_t names_first;
	bool host_stale;                /* the host's networks changed and could
					   not be read or applied (logged) */
	struct policy gained_since;     /* a burst's blocks in place: the rules
					   as its first was recorded, until the
					   rest are (flush_gained()) */
	bool gained_pending;
};

/**
 * jail_policy_install() - compile @jp->cfg, @host and the temporary changes
 * and replace the jail's policy maps in one step
 * Return: 0, or -errno (the policy in force is unchanged).
 */
int jail_policy_install(struct jail_policy *jp, const struct hostnet *host);

/**
 * jail_policy_host_changed() - the host's addresses or routes may have
 * changed (hostwatch.c): read them again, and if the policy they give
 * differs, swap it in as a reload would for them (configuration and
 * temporary changes kept) and write one audit record, policy "host",
 * naming each rule that came or went, uid 0
 * Return: 0 (the policy in force is up to date), or -errno (logged once
 * until it works again; the policy in force is unchanged; try again later).
 */
int jail_policy_host_changed(struct jail_policy *jp);

/**
 * jail_policy_host_gained() - the host has just gained @gained (addresses,
 * networks, routes from its notifications: hostwatch.c): block them in
 * the policy in force at once, in place (policy_block_gained()), before
 * the full read after the burst (jail_policy_host_changed()); audit records,
 * policy "host", "host gained (blocked at once): RULES", uid 0: the
 * burst's first change at once, what later ones added in one record before
 * the next whole policy (a VPN's thousand routes are two records, not one
 * per notification)
 * Return: 0 (nothing was new, or it is blocked), or -errno (the policy in
 * force is unchanged or only tighter: read the host's facts now).
 */
int jail_policy_host_gained(struct jail_policy *jp, const struct hostnet *gained);

/**
 * jail_policy_request() - carry out one control request ("reload",
 * "allow IP[:PORT] UID", "deny IP[:PORT] UID") and write the reply: a first
 * line "ok ..." or "error ...", then details
 */
void jail_policy_request(struct jail_policy *jp, const char *request, char *reply, size_t size);

/**
 * jail_policy_dns_answer() - the forwarder's answer @a to @q, before the
 * agent gets it: for an allow-host name, its addresses are allowed when
 * this returns; other names change nothing
 */
void jail_policy_dns_answer(struct jail_policy *jp, const struct dns_question *q,
			    const struct dns_answer *a);

/**
 * jail_policy_dns_released() - the same answer, once the agent has it: the
 * `dns` audit record of what it allowed (written here, not while the agent
 * waits; the supervisor reads no other event in between, so the record
 * still comes before any denial that follows from the answer)
 */
void jail_policy_dns_released(struct jail_policy *jp, const struct dns_question *q,
			      const struct dns_answer *a);

/* How long before a deny-host block's end its name is asked again
 * (jail_policy_denied_due()): a second's tick, and a resolver's retries. */
#define JAIL_DENY_ASK_AHEAD_NS (3 * 1000000000ULL)

/**
 * jail_policy_denied_due() - the deny-host names whose blocks end within
 * JAIL_DENY_ASK_AHEAD_NS, at most @max, into @names, their blocks held on
 * meanwhile: the caller asks the resolver for them again (dnsfwd_learn()),
 * and an answer renews the addresses it gives and lets the rest end
 * (dnsdeny_due() says why)
 * Return: how many.
 */
size_t jail_policy_denied_due(struct jail_policy *jp, char (*names)[DNS_NAME_MAX + 1],
			      size_t max);

/** jail_policy_expire_names() - the names' addresses whose time is up go
 * (the supervisor calls it every second) */
void jail_policy_expire_names(struct jail_policy *jp);

void jail_policy_free(struct jail_policy *jp);

#endif /* EBPFJAIL_JAIL_POLICY_H */
