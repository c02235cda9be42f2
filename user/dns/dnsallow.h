/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* dnsallow.h - the addresses allowed by name: what the forwarder's answers
 * for allow-host names gave, and until when (pure)
 *
 * One entry per (address, port, strength): port 0 is every port
 * (allow-host = NAME), else that port only (allow-host = NAME:PORT). An
 * answer for a name that an allow-host pattern matches records each of its
 * addresses until now + max(TTL, DNSALLOW_MIN_TTL_S); a later answer of
 * the same strength renews it. An exact pattern's entry and a wildcard's
 * are apart, each with its own expiry, so that an answer for a wildcard
 * name (the agent picks it) never renews what only an exact name may
 * open: the exact name moved off a LAN address, and the agent kept the
 * address open by asking x.wildcard for it. A name that an exact pattern
 * matches is recorded exact only. Entries are only
 * added or renewed by answers and removed by time or by a reload that drops
 * their pattern, never replaced: two answers for one name (a round-robin
 * pool, a name that moved) both stay allowed for their own TTL, so an
 * answer in flight never loses an address a later one did not give
 * (Cilium's per-name lock guards the regeneration it does instead; docs/
 * DESIGN.md, "allow-host").
 */
#ifndef EBPFJAIL_DNSALLOW_H
#define EBPFJAIL_DNSALLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "dnsmsg.h"
#include "policy.h"

/* A client connects right after its answer (a few round trips later), but
 * a SYN lost once is retried after 1 s and again after 3 s: an answer
 * with TTL 0 or 1 s must still be good for the connect it was asked for.
 * Five seconds covers that; longer keeps an address the name no longer
 * gives open for longer. Cilium's default minimum (an hour) is for
 * programs that cache answers past their TTL; they get EPERM here and ask
 * again. */
#define DNSALLOW_MIN_TTL_S 5
/* A TTL of days would keep an address open for the whole session after the
 * name moved; a day is the longest any entry lasts without a new answer. */
#define DNSALLOW_MAX_TTL_S 86400
/* Addresses allowed by name at once: a session resolves a few dozen names
 * of a few addresses each. A table full refuses new ones (the answer is
 * still given; a connect to them is denied and audited as before). */
#define DNSALLOW_MAX_ENTRIES 4096

struct dnsallow_entry {
	uint32_t addr;       /* network byte order */
	uint16_t port;       /* host byte order; 0 = every port */
	uint32_t ttl;        /* as the last answer gave it, seconds */
	uint64_t expires_ns; /* CLOCK_MONOTONIC */
	bool exact;          /* an exact pattern gave it, a *.domain one if
			        not (part of the key; policy_name_refusal():
			        what it may open) */
	bool refused;        /* the policy does not let it through: refused
			        by name (metadata, the LAN for a wildcard...);
			        kept so its answers cost nothing, not shown */
	char name[DNS_NAME_MAX + 1]; /* the name last answered with it */
	bool dropped;        /* deny-host: its name answered again without it:
				it ends at its time, never held on (dnsdeny_due()) */
};

/* The index: open addressing over (address, port, strength), twice as
 * many slots as entries can be, each 1 + an entry's place in v (0: empty). */
#define DNSALLOW_INDEX_SLOTS (2 * DNSALLOW_MAX_ENTRIES)

struct dnsallow {
	struct dnsallow_entry *v;
	size_t n, cap;
	uint16_t *index;  /* DNSALLOW_INDEX_SLOTS, or NULL */
	bool indexed;     /* index holds v[0..n) as they are now */
};

/* The names the forwarder's answers gave each address lately, allowed or
 * not: a denial's record names the host the agent meant ("host"), and
 * `ebpfjail audit --suggest` proposes allow-host for it. A ring: the
 * newest DNS_SEEN_MAX addresses. */
#define DNS_SEEN_MAX 512

struct dns_seen {
	struct {
		uint32_t addr;
		char name[DNS_NAME_MAX + 1];
	} v[DNS_SEEN_MAX];
	size_t next, n;
};

/** dns_seen_add() - @name's answer gave @addrs */
void dns_seen_add(struct dns_seen *s, const char *name, const uint32_t *addrs, size_t n);

/** dns_seen_name() - the name whose answer last gave @addr, or NULL */
const char *dns_seen_name(const struct dns_seen *s, uint32_t addr);

/** dnsallow_wanted() - does an allow-host pattern of @cfg match @name? */
bool dnsallow_wanted(const struct config *cfg, const char *name);

/* Why the forwarder refuses a query (dnsallow_judge()) */
enum dns_refusal {
	DNS_ASK = 0,       /* not refused: the resolver is asked */
	DNS_DENY_HOST,     /* a deny-host pattern matches the name */
	DNS_NOT_ALLOWED,   /* internet = off: no allow-host pattern matches */
	DNS_NOT_IN,        /* a class other than IN */
	DNS_NO_RECURSION,  /* RD clear */
	DNS_REFUSAL_COUNT,
};

/**
 * dnsallow_judge() - may the forwarder ask the resolver @q (a checked
 * standard query, dnsmsg_check_query())?
 * A deny-host name is refused in every mode, and so is a class other than
 * IN or RD clear (a CH-class query reads the resolver's own state, RD=0
 * its cache). With internet = off only what an allow-host pattern matches
 * is asked. The attack: every query the resolver forwards carries its
 * name out, and the agent chooses the labels ("<secret in
 * hex>.exfil.attacker.test" reaches the attacker's name server through
 * any recursive resolver).
 * Return: DNS_ASK, or why it is refused.
 */
enum dns_refusal dnsallow_judge(const struct config *cfg, const struct dns_question *q);

/** dns_refusal_rule() - a refusal's "rule" in its audit record */
const char *dns_refusal_rule(enum dns_refusal r);

/**
 * dnsallow_record() - @name's answer gave @addrs with @ttl: for each
 * allow-host pattern that matches @name, each address is allowed (on that
 * pattern's port) until @now_ns + the TTL, at least DNSALLOW_MIN_TTL_S and
 * at most DNSALLOW_MAX_TTL_S
 * @outside_zone: a CNAME on the way left @name's zone (dnsmsg_in_zone()):
 * the addresses get a wildcard's strength, whatever the pattern
 * @added: set to the number of entries that are new (the policy must
 * change before the answer is released)
 * Return: 0, or -ENOSPC when the table had no room for some (the others
 * are recorded), -ENOMEM.
 */
int dnsallow_record(struct dnsallow *t, const struct config *cfg, const char *name,
		    const uint32_t *addrs, size_t n_addrs, bool outside_zone, uint32_t ttl,
		    uint64_t now_ns, size_t *added);

/** dnsallow_lifetime() - how long an answer's @ttl allows its addresses, s */
uint32_t dnsallow_lifetime(uint32_t ttl);

/**
 * dnsallow_expire() - remove the entries whose time is up at @now_ns
 * @gone: set to a copy of them (free() it), @n_gone their number
 * Return: @n_gone, or -ENOMEM (nothing removed).
 */
long dnsallow_expire(struct dnsallow *t, uint64_t now_ns, struct dnsallow_entry **gone,
		     size_t *n_gone);

/**
 * dnsallow_keep_configured() - after a reload: remove the entries that no
 * allow-host pattern of @cfg gives any more (their name with their port),
 * and weaken those that only a wildcard gives now
 * Return: how many went or were weakened (the policy must be compiled
 * again if any).
 */
size_t dnsallow_keep_configured(struct dnsallow *t, const struct config *cfg);

/** dnsallow_denied() - does a deny-host pattern of @cfg match @name? */
bool dnsallow_denied(const struct config *cfg, const char *name);

/**
 * dnsdeny_record() - a deny-host name's answer gave @addrs with @ttl: each
 * is blocked until @now_ns + the TTL (dnsallow_lifetime()), an entry per
 * address (port 0, exact) in @t, a table of its own; a later answer
 * renews it, never shortens it. @name's entries the answer left out are
 * dropped: they end at their time.
 * @added: set to the number of entries that are new
 * Return: 0, or -ENOSPC (the others recorded), -ENOMEM.
 */
int dnsdeny_record(struct dnsallow *t, const char *name, const uint32_t *addrs, size_t n_addrs,
		   uint32_t ttl, uint64_t now_ns, size_t *added);

/**
 * dnsdeny_due() - the names of @t's blocks whose time is up within
 * @ahead_ns of @now_ns, each name once, at most @max, into @names: to ask
 * again, so that a block lasts while its name still answers the address
 * (the attack: an agent that waits out a block's TTL, then reaches the
 * denied service through an allowed name that shares its address). Each
 * of those blocks is held on to @now_ns + 2 * @ahead_ns, so it is due
 * again after @ahead_ns: a block ends only when an answer of its name left
 * it out (dnsdeny_record()), never because the asking failed (a full
 * query table, a resolver that times out: the agent can cause both).
 * Return: how many.
 */
size_t dnsdeny_due(struct dnsallow *t, uint64_t now_ns, uint64_t ahead_ns,
		   char (*names)[DNS_NAME_MAX + 1], size_t max);

/**
 * dnsdeny_keep_configured() - after a reload: remove the entries whose
 * name no deny-host pattern of @cfg matches. Return: how many went.
 */
size_t dnsdeny_keep_configured(struct dnsallow *t, const struct config *cfg);

/**
 * dnsallow_names() - the entries as policy_compile_jail() takes them, in
 * @out (room for t->n); the names point into @t
 */
void dnsallow_names(const struct dnsallow *t, struct policy_name *out);

/** dnsdeny_names() - dnsallow_names() of a deny table: each a deny */
void dnsdeny_names(const struct dnsallow *t, struct policy_name *out);

/**
 * dnsallow_format() - the entries not refused, as `ebpfjail status` shows
 * them, each name with its addresses: "forge.lan 10.0.0.5 10.0.0.6, db.lan
 * 10.0.0.7:5432"; empty when there are none; bounded by @size
 */
void dnsallow_format(const struct dnsallow *t, char *buf, size_t size);

/** dnsallow_copy() - @to, a table of its own with @from's entries.
 * Return: 0 or -ENOMEM. */
int dnsallow_copy(const struct dnsallow *from, struct dnsallow *to);

void dnsallow_free(struct dnsallow *t);

#endif /* EBPFJAIL_DNSALLOW_H */
