/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* dnsdenials.h - the forwarder's refusals, aggregated as the kernel's
 * denials are (bpf/ebpfjail.h, "Aggregation") (pure)
 *
 * A refused query is a denial of a kind: its query type, why it was
 * refused and its name's registered domain ("attacker.test" for
 * "<hex>.exfil.attacker.test"), not the whole name. The attack: an agent
 * that puts data in unique labels would otherwise make every query a
 * kind of its own, and a flood of records. The first refusal of a kind is
 * written at once with its full name; the repeats of each window (a
 * second, the supervisor's) become one count record at its end, with the
 * first full name of that window. A kind with no repeats in a window is
 * forgotten, so the table holds the kinds of about a second; a kind that
 * finds it full is counted as lost.
 *
 *   switch (dnsdenials_add(d, &k, name, now)) {
 *   case DNSDENIALS_NEW:      write a record of it
 *   case DNSDENIALS_REPEAT:   nothing yet
 *   case DNSDENIALS_LOST:     nothing: d->lost counts it
 *   }
 *   once a second: dnsdenials_close_window(d, write_count_record, ctx)
 */
#ifndef EBPFJAIL_DNSDENIALS_H
#define EBPFJAIL_DNSDENIALS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "dnsmsg.h"

/* The kinds of one window: a session's refusals are a few names; an agent
 * that makes up a registered domain per query gets this many records a
 * second, the rest lost (counted). */
#define DNSDENIALS_MAX 256

struct dnsdenials_kind {
	uint16_t qtype;
	uint8_t refusal;                 /* enum dns_refusal */
	char domain[DNS_NAME_MAX + 1];   /* the name's registered domain */
};

struct dnsdenials_slot {
	struct dnsdenials_kind kind;
	char name[DNS_NAME_MAX + 1];     /* the first full name of the window's
					    repeats ("" before one) */
	uint64_t repeats;                /* in this window */
	struct timespec first, last;     /* first refused (the kind), latest */
};

struct dnsdenials {
	struct dnsdenials_slot v[DNSDENIALS_MAX];
	size_t n;
	uint64_t total; /* every refusal, for status */
	uint64_t lost;  /* refusals no record will show (the table was full) */
};

enum dnsdenials_fate { DNSDENIALS_NEW, DNSDENIALS_REPEAT, DNSDENIALS_LOST };

/**
 * dnsdenials_domain() - @name's registered domain (the Public Suffix
 * List's, libpsl): "attacker.test" for "a.b.attacker.test", "x.co.uk"
 * for "a.x.co.uk"; @name itself when it has none (a public suffix, a
 * single label)
 */
void dnsdenials_domain(const char *name, char out[DNS_NAME_MAX + 1]);

/** dnsdenials_add() - one refusal of @k's kind, for @name, at @now */
enum dnsdenials_fate dnsdenials_add(struct dnsdenials *d, const struct dnsdenials_kind *k,
				     const char *name, struct timespec now);

typedef void (*dnsdenials_fn)(void *ctx, const struct dnsdenials_slot *s);

/**
 * dnsdenials_close_window() - the window is over: @fn is called for each
 * kind with repeats (its count record), which are then reset; the kinds
 * without any are forgotten
 */
void dnsdenials_close_window(struct dnsdenials *d, dnsdenials_fn fn, void *ctx);

#endif /* EBPFJAIL_DNSDENIALS_H */
