// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* summary.c - the one-line summary of what was denied, printed at exit */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "audit.h"
#include "builtin.h"
#include "netaddr.h"
#include "summary.h"
#include "textbuf.h"

void summary_add(struct summary *s, const struct jail_event *e)
{
	size_t i;

	s->total++;
	for (i = 0; i < s->n; i++) {
		struct summary_slot *x = &s->slots[i];

		if (x->daddr == e->daddr && x->dport == e->dport && x->reason == e->reason) {
			x->count++;
			return;
		}
	}
	if (s->n == SUMMARY_SLOTS) {
		s->other++;
		return;
	}
	s->slots[s->n++] = (struct summary_slot){ .daddr = e->daddr, .dport = e->dport,
						  .reason = e->reason, .proto = e->proto,
						  .count = 1 };
}

static int by_count(const void *a, const void *b)
{
	const struct summary_slot *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* no_address() - denials of something an allow-ip line cannot name */
static bool no_address(uint8_t reason)
{
	return reason == REASON_IPV6 || reason == REASON_NON_IPV4 || reason == REASON_IP_OPTIONS;
}

/* metadata() - a cloud metadata service: by the policy's reason, or by the
 * address whatever rule matched it (a block-cidr over it, say). */
static bool metadata(const struct summary_slot *x)
{
	const struct builtin_block *b = builtin_match(x->daddr);

	return x->reason == REASON_METADATA || (b && b->reason == REASON_METADATA);
}

size_t summary_format(const struct summary *s, char *buf, size_t size)
{
	struct summary_slot top[SUMMARY_SLOTS];
	struct textbuf o = { buf, size, 0, false };
	const struct summary_slot *pick = NULL, *meta = NULL;
	char a[NETADDR_CIDR_STRLEN];
	size_t i;

	if (!s->total && !s->lost)
		return 0;
	memcpy(top, s->slots, s->n * sizeof(top[0]));
	qsort(top, s->n, sizeof(top[0]), by_count);
	textbuf_put(&o, "ebpfjail: denied %llu connection%s", (unsigned long long)s->total,
	    s->total == 1 ? "" : "s");
	for (i = 0; i < s->n && i < 3; i++) {
		const char *r = reason_name(top[i].reason);

		if (no_address(top[i].reason)) {
			textbuf_put(&o, "%s %s x%llu", i ? "," : ":", r, (unsigned long long)top[i].count);
			continue;
		}
		netaddr_format(top[i].daddr, a);
		textbuf_put(&o, "%s %s:%u (%s) x%llu", i ? "," : ":", a, top[i].dport, r,
		    (unsigned long long)top[i].count);
	}
	if (s->n > 3 || s->other)
		textbuf_put(&o, ", ...");
	if (s->lost)
		textbuf_put(&o, "; %llu not recorded (events lost)", (unsigned long long)s->lost);
	/* The line for the most frequent denial an allow-ip can lift, but
	 * never for a metadata service: an agent that hammers one must not
	 * get its user to paste the line that hands it the machine's
	 * credentials. Say why it is skipped instead. */
	for (i = 0; i < s->n && !pick; i++) {
		if (no_address(top[i].reason))
			continue;
		if (!metadata(&top[i]))
			pick = &top[i];
		else if (!meta)
			meta = &top[i];
	}
	if (meta) {
		netaddr_format(meta->daddr, a);
		textbuf_put(&o, "; %s is a cloud metadata service, not allowed on purpose", a);
	}
	if (pick) {
		char what[NETADDR_CIDR_STRLEN + 8];

		netaddr_format(pick->daddr, a);
		if (pick->dport)
			snprintf(what, sizeof(what), "%s:%u", a, pick->dport);
		else
			snprintf(what, sizeof(what), "%s", a);
		if (pick == top)
			textbuf_put(&o, "; to allow the first: allow-ip = %s", what);
		else
			textbuf_put(&o, "; to allow %s: allow-ip = %s", what, what);
	}
	textbuf_put(&o, " (details: ebpfjail audit)\n");
	return o.len;
}
