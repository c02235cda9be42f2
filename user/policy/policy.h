/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* policy.h - compile the configuration and the host's facts into the policy trie */
#ifndef EBPFJAIL_POLICY_H
#define EBPFJAIL_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "ebpfjail.h"

/* One entry of the policy trie (see bpf/ebpfjail.h). */
struct policy_rule {
	struct policy_key key;
	struct policy_value value;
};

struct host_prefix {
	uint32_t addr; /* network byte order */
	uint8_t prefixlen;
};

/* What the jail must know about the host it protects (from netlink in
 * `run`; plain inputs here). */
struct host_facts {
	const struct host_prefix *addresses; /* the host's own addresses */
	size_t n_addresses;
	const struct host_prefix *connected; /* networks on the host's links */
	size_t n_connected;
	const struct host_prefix *routes;    /* non-default routes */
	size_t n_routes;
	const struct host_prefix *local;     /* AnyIP prefixes: the host's own */
	size_t n_local;
	uint32_t gateway;     /* the jail's gateway (pasta's side); 0 = none */
	uint32_t dns_forward; /* pasta's DNS forward address; 0 = none */
};

/* Host routes shorter than this are ignored: full-tunnel VPNs install
 * 0.0.0.0/1 and 128.0.0.0/1, which would block the whole internet. */
#define POLICY_MIN_ROUTE_PREFIXLEN 8

#define POLICY_SOURCE_LEN 96

struct policy {
	struct policy_rule *rules; /* what goes into the trie */
	char (*sources)[POLICY_SOURCE_LEN]; /* why each rule is there */
	size_t n;
	size_t cap;
	/* Bit L set: no rule has prefix length L (policy_lookup() and the
	 * name checks skip its search); 0, as a policy built by hand has it,
	 * claims nothing. Set by the compile and the copy, cleared by an
	 * insert, left by a removal (a length it emptied is searched for
	 * nothing, never skipped wrongly). */
	uint64_t absent;
	bool keeps_flows; /* allow-host is configured: connections it allowed
			     go on after their entry expires (kept_flows in
			     BPF, a conntrack mark in nftables) */
	/* The host's own addresses and AnyIP prefixes, which no name may
	 * open (policy_name_refusal()); not in the trie as such. */
	struct host_prefix *own;
	size_t n_own;
};

/**
 * policy_compile() - build the complete policy
 * @cfg: a valid configuration (allow-ip, block-cidr)
 * @facts: the host's addresses, networks and routes, the jail's gateway
 * @out: result; free with policy_free()
 *
 * Built-in blocks, the gateway (every port), the DNS exception (forward
 * address, port 53), the host's addresses, connected networks and routes
 * (but none shorter than POLICY_MIN_ROUTE_PREFIXLEN), block-cidr, then the
 * allow-ip entries, which win over any block with the same prefix. At the
 * same prefix the first block listed here keeps its reason.
 * Return: 0, -E2BIG when the policy would not fit the trie, -ENOMEM.
 */
int policy_compile(const struct config *cfg, const struct host_facts *facts, struct policy *out);

/* A temporary change of a running jail (`ebpfjail allow/deny IP[:PORT]`). */
struct policy_live {
	uint32_t addr; /* network byte order */
	uint16_t port; /* host byte order; 0 = every port */
	bool allow;
};

/**
 * policy_compile_live() - policy_compile() plus temporary changes, which win
 * over every rule at the same key; a whole-address deny also removes the
 * longer addr+port entries of that address (so `deny X` stops X:P that an
 * allow-ip X:P let through). @live holds at most one entry per address and
 * port (see live_set()).
 */
int policy_compile_live(const struct config *cfg, const struct host_facts *facts,
			const struct policy_live *live, size_t n_live, struct policy *out);

/* An address an allow-host name's answer gave (user/dnsallow.h). */
struct policy_name {
	uint32_t addr;    /* network byte order */
	uint16_t port;    /* host byte order; 0 = every port */
	const char *name; /* the name asked for: the rule's source */
	bool wildcard;    /* only a *.domain pattern gave it: it may open
			     the internet (internet = off), no blocked range */
	bool deny;        /* a deny-host name's address: blocked (/32,
			     REASON_DENY_HOST), as a block-cidr is: an
			     allow-ip there wins, no name opens it */
};

/**
 * policy_compile_jail() - policy_compile_live() plus the addresses of
 * allowed names, each an allow (REASON_ALLOW_HOST) at its key, over
 * whatever blocks it, except where policy_name_refusal() refuses it or a
 * temporary `deny` names it; already allowed as much, it adds nothing.
 */
int policy_compile_jail(const struct config *cfg, const struct host_facts *facts,
			const struct policy_live *live, size_t n_live,
			const struct policy_name *names, size_t n_names, struct policy *out);

/**
 * policy_name_rule() - the rule policy_compile_jail() adds to @p for @nm,
 * in @r: false when it adds none (the internet, allowed anyway; allowed as
 * much already; a block at the very key; refused by policy_name_refusal()
 * or a temporary deny)
 */
bool policy_name_rule(const struct policy *p, const struct policy_name *nm,
		      const struct policy_live *live, size_t n_live, struct policy_rule *r);

/**
 * policy_block_gained() - what the host has just gained (@gained: its new
 * addresses, connected networks, routes and AnyIP prefixes, read from
 * netlink notifications) blocked in @p (a policy without sources) at once,
 * as policy_compile_jail() would block it, before the full compile that
 * follows the burst: a deny at each new key (a rule already at that key
 * stays: an allow-ip, a temporary change or a block won it in the
 * compile; a name's rule there gives way), and the names' rules inside
 * the new prefixes judged again against them (@names with @live, as the
 * compile judges them: a wildcard's over a new VPN route goes).
 * Return: how many rules changed (0: @p is as it was), or -ENOMEM (@p
 * may hold part of the change: only blocks, never fewer).
 */
int policy_block_gained(struct policy *p, const struct host_facts *gained,
			const struct policy_name *names, size_t n_names,
			const struct policy_live *live, size_t n_live);

/**
 * policy_same_own() - do @a and @b hold the same own prefixes (in any
 * order)? A change of them alone changes no rule, but what names may open.
 */
bool policy_same_own(const struct policy *a, const struct policy *b);

/**
 * policy_copy() - @from's rules and own prefixes into @to (no sources)
 * Return: 0 or -ENOMEM.
 */
int policy_copy(const struct policy *from, struct policy *to);

/**
 * policy_insert_rule() - @r into @p in its place (a policy without
 * sources, as a jail keeps it): the fast way for one answer's addresses,
 * once the trie holds it
 * Return: 0, -EEXIST (its key is there), -EINVAL (sources), -ENOMEM.
 */
int policy_insert_rule(struct policy *p, const struct policy_rule *r);

/** policy_rule_at() - @p's rule at exactly @key, or NULL */
const struct policy_rule *policy_rule_at(const struct policy *p, const struct policy_key *key);

/**
 * policy_set_rule() - @r into @p (a policy without sources), in place of
 * the rule at its key if there is one
 * Return: 0, -EINVAL (sources), -ENOMEM.
 */
int policy_set_rule(struct policy *p, const struct policy_rule *r);

/**
 * policy_remove_rule() - the rule at @key out of @p (a policy without
 * sources). Return: whether there was one.
 */
bool policy_remove_rule(struct policy *p, const struct policy_key *key);

/**
 * policy_remove_name_rule() - take the name's rule at @key out of @p (a
 * policy without sources); what is left is the policy without that name
 * (policy_name_rule() never puts one over a block of its key)
 * Return: whether there was one.
 */
bool policy_remove_name_rule(struct policy *p, const struct policy_key *key);

/**
 * policy_name_refusal() - why a name's answer may not allow @addr:@port
 * (host byte order port, 0 = every port) in @base: the reason of the block
 * that stays (REASON_CONNECTED for one of the host's own addresses or
 * AnyIP prefixes), or REASON_NONE when it may. A name never opens
 * metadata, the gateway, loopback, link-local, multicast or reserved
 * space, a block-cidr, or the host itself; a @wildcard's only the
 * internet (internet = off), no private, LAN or VPN range.
 */
enum jail_reason policy_name_refusal(const struct policy *base, uint32_t addr, uint16_t port,
				     bool wildcard);

/**
 * policy_changes() - what turns trie @a into trie @b: the rules of @b that
 * @a lacks or holds with another value (@set), and the keys only @a has
 * (@del); both policies sorted as policy_compile() sorts them
 * Return: 0 with both arrays to free, or -ENOMEM.
 */
int policy_changes(const struct policy *a, const struct policy *b, struct policy_rule **set,
		   size_t *n_set, struct policy_key **del, size_t *n_del);

/**
 * policy_tightening_first() - order a change of @in_force (@set and @del,
 * as policy_changes() gives them) for an engine that makes it a key, or a
 * transaction, at a time: first the writes that tighten (a block written,
 * an allow deleted), in @set[0 .. *@n_set_tight) and @del[0 ..
 * *@n_del_tight), then the rest. Made in that order, with each part's
 * writes before its deletes, no moment between two writes lets through
 * what both the policy before and the one after block. The attack the
 * other order opened: an address's /32 block turned into an allow while
 * a new block of one of its ports came after it, and in between the port
 * was open.
 */
void policy_tightening_first(const struct policy *in_force, struct policy_rule *set, size_t n_set,
			     size_t *n_set_tight, struct policy_key *del, size_t n_del,
			     size_t *n_del_tight);

void policy_free(struct policy *p);

/** policy_key_compare() - the order policy_compile() sorts rules in */
int policy_key_compare(const struct policy_key *a, const struct policy_key *b);

/**
 * policy_lookup() - what the trie would answer for @addr:@port (both network
 * byte order), by the same longest-prefix rule; @p sorted as
 * policy_compile() sorts it (a binary search per prefix length)
 * Return: the matching rule's index, or -1 when nothing matches (allowed).
 */
long policy_lookup(const struct policy *p, uint32_t addr, uint16_t port);

#endif /* EBPFJAIL_POLICY_H */
