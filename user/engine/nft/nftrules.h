/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* nftrules.h - the compiled policy as an nftables ruleset, for the rootless
 * engine (pure)
 *
 * The rootless engine enforces the policy policy_compile() built (the same
 * rules the BPF trie holds, not a copy) with nftables in the output hook of
 * the jail's own, user-owned network namespace. nftables has no
 * longest-prefix match with a verdict per prefix: an interval map refuses
 * overlapping ranges. So the trie is flattened first:
 *
 *   rules                         ranges (disjoint, each with its rule)
 *   10.0.0.0/8     deny private   10.0.0.0 - 10.1.2.2    -> 10.0.0.0/8
 *   10.1.2.3/32    allow-ip       10.1.2.3               -> 10.1.2.3/32
 *                                 10.1.2.4 - 10.255.255.255 -> 10.0.0.0/8
 *
 * The longest entries are not flattened: an address+port entry (allow-ip
 * ADDR:PORT, the DNS exception) becomes an element of a map keyed by
 * address, protocol and port, looked up first, as the trie's /48 entries
 * win over every shorter one, and a /32 one (a name's address, an
 * allow-ip) an element of a map keyed by address, looked up next. Those
 * two are what a name's answer changes, and their elements can be added
 * and deleted in place (nftrules_change()), where a range cannot.
 */
#ifndef EBPFJAIL_NFTRULES_H
#define EBPFJAIL_NFTRULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* The nftables tables the engine owns in the jail's namespace: one per
 * generation of the policy, "ebpfjail1", "ebpfjail2", ... */
#define NFTRULES_TABLE "ebpfjail"
/* Names in each table that a change in place writes to (nftengine.c): the
 * /32 map, the address . protocol . port map, the chain that marks
 * connections kept by name, and the set of marks the filter accepts. */
#define NFTRULES_HOSTS_MAP "hosts"
#define NFTRULES_PORTS_MAP "ports"
#define NFTRULES_KEPT_CHAIN "kept"
#define NFTRULES_KEPT_MARKS "kept_marks"
/* Elements per transaction. From a user namespace, libnftables' netlink
 * socket gets no more buffer than net.core.wmem_max (the privileged
 * SO_SNDBUFFORCE is refused), and a transaction must fit in it: some
 * 2,000 elements did not. */
#define NFTRULES_ELEMENTS_PER_STEP 500
/* The NFLOG group denials are logged to; a log prefix is
 * "ebpfjail REASON PREFIXLEN " (numbers: enum jail_reason, the rule's
 * prefix length), from which the audit record's reason and rule follow. */
#define NFTRULES_LOG_GROUP 7
/* Denials of one kind logged per second at most (each kind's chain has its
 * own limit); the rest are counted, not logged. */
#define NFTRULES_LOG_PER_SECOND 2000
/* The conntrack mark of the first generation of connections allowed by
 * name (each renewal, nftengine_renew(), takes the next; the namespace's
 * conntrack is the jail's alone: no one else marks its entries). */
#define NFTRULES_KEPT_MARK 0x1

struct nft_range {
	uint32_t first, last; /* host byte order, inclusive */
	size_t rule;          /* the policy rule the longest match gives it */
};

/**
 * nftrules_flatten() - @p's address entries (prefix length 32 and shorter)
 * as disjoint ranges in ascending order, each with the rule that
 * policy_lookup() finds for every address in it; addresses no rule covers
 * (the internet) are in no range
 * @out: the ranges, @n of them; free() them
 * Return: 0, or -ENOMEM.
 */
int nftrules_flatten(const struct policy *p, struct nft_range **out, size_t *n);

/* The chains a generation's verdicts jump to: a deny chain per kind of
 * denial (reason, prefix length), and the one that marks a name's
 * connections. */
struct nft_chains {
	bool used[REASON_COUNT][POLICY_PREFIXLEN_ADDR + 1];
	bool kept;
	uint32_t mark; /* ... with this conntrack mark */
};

/* A policy's rules as nft(8) commands, in transactions to run in order. */
struct nft_script {
	char **steps;
	size_t n;
	struct nft_chains chains; /* the generation's (nftrules_script()) */
};

/**
 * nftrules_script() - the transactions that put @p's rules, as generation
 * @gen (1 and up), in place of the tables of the @n_old generations @old;
 * its kept connections marked @mark (0: NFTRULES_KEPT_MARK), the one in
 * force, so that they go on (nftengine_renew() starts a new one)
 *   step 0     the table of generation @gen, created (it fails if a table
 *              of that name exists: nothing in force is overwritten): one
 *              chain per kind of denial (and the ones a name's answer
 *              may need: the kept chain with allow-host, a deny-host's)
 *              (log to NFLOG, then refuse: TCP with an ICMP
 *              "administratively prohibited", so that connect() fails at
 *              once instead of retransmitting into a drop; anything else
 *              dropped, which a sender sees as EPERM), the maps, empty, and
 *              the filter chain, not hooked
 *   1 .. n-2   the maps' elements, NFTRULES_ELEMENTS_PER_STEP at a time
 *   n-1        the swap: the filter hooked to the output path and the old
 *              generations' tables deleted, in one transaction
 * Until the last step the old rules hold, whole; after it, the new ones.
 * Return: 0 (free @out with nftrules_script_free()), -ENOMEM, or -EINVAL
 * for a rule no chain can express (a reason or prefix length out of range).
 */
int nftrules_script(const struct policy *p, unsigned int gen, uint32_t mark,
		    const unsigned int *old, size_t n_old, struct nft_script *out);

/* The exact maps a change in place writes, and their keys as the kernel
 * keeps them: a concatenation's parts each padded to 4 bytes. */
enum nft_map { NFT_MAP_HOSTS, NFT_MAP_PORTS };
#define NFTRULES_KEY_MAX 12 /* ports: address, protocol (1 of 4), port (2 of 4) */
#define NFTRULES_CHAIN_MAX 16 /* "deny_REASON_LEN", "kept" */

/* One element of a change in place. */
struct nft_element {
	bool add;         /* added with its verdict, or deleted (the key alone) */
	enum nft_map map; /* "hosts" (address) or "ports" (address . protocol . port) */
	uint8_t key[NFTRULES_KEY_MAX];
	uint8_t key_len;
	char jump[NFTRULES_CHAIN_MAX]; /* added: the chain its verdict jumps to, or
					  "" for accept */
};

/* A change in place: elements[0 .. step_end[0]) are one transaction,
 * elements[step_end[0] .. step_end[1]) the next, ... */
struct nft_change {
	struct nft_element *elements;
	size_t n;
	size_t *step_end;
	size_t n_steps;
};

/**
 * nftrules_change() - the transactions that change generation @gen (its
 * chains @chains, its rules @in_force) in place: @set's rules added or put
 * in place of @in_force's at their keys, @del's keys removed, as elements
 * of the exact maps (nftengine_change() writes them to the kernel as they
 * are, no parser or cache between). Each step is atomic, a key whose
 * verdict changes within one (deleted, then added); the additions come
 * before the deletes; a rule in force as it is writes nothing, nor a key
 * to delete that is not there.
 * Return: 0 (@out may have no steps; free it with nftrules_change_free()),
 * -EOPNOTSUPP for a change only a whole generation can make (a prefix
 * shorter than /32, a verdict whose chain the generation lacks), -ENOMEM,
 * -EINVAL as nftrules_script().
 */
int nftrules_change(const struct policy *in_force, const struct nft_chains *chains,
		    const struct policy_rule *set, size_t n_set, const struct policy_key *del,
		    size_t n_del, struct nft_change *out);

/** nftrules_change_free() - free @c's elements and steps; @c is empty after */
void nftrules_change_free(struct nft_change *c);

/** nftrules_script_free() - free @s's steps; @s is empty afterwards */
void nftrules_script_free(struct nft_script *s);

/**
 * nftrules_drop_table() - the transaction that deletes generation @gen's
 * table, and is no error where there is none, into @buf
 * Return: 0, or -ENOMEM when @size is too small.
 */
int nftrules_drop_table(unsigned int gen, char *buf, size_t size);

#endif /* EBPFJAIL_NFTRULES_H */
