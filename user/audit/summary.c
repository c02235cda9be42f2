// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* summary.c - the one-line summary of what was denied, printed at exit */
#include <ctype.h>
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
#include "unixpolicy.h"

/* same() - whether @e is @x's destination: the same path, or the same
 * address and port, with the same reason */
static bool same(const struct summary_slot *x, const struct jail_event *e, bool is_unix)
{
	if (x->reason != e->reason || x->is_unix != is_unix)
		return false;
	if (is_unix)
		return !memcmp(x->path, e->path, sizeof(x->path));
	return x->daddr == e->daddr && x->dport == e->dport;
}

void summary_add(struct summary *s, const struct jail_event *e, uint64_t n)
{
	bool is_unix = audit_event_is_unix(e);
	struct summary_slot *x;
	size_t i;

	s->total += n;
	for (i = 0; i < s->n; i++) {
		if (same(&s->slots[i], e, is_unix)) {
			s->slots[i].count += n;
			return;
		}
	}
	if (s->n == SUMMARY_SLOTS) {
		s->other += n;
		return;
	}
	x = &s->slots[s->n++];
	*x = (struct summary_slot){ .reason = e->reason, .proto = e->proto, .is_unix = is_unix,
				    .count = n };
	if (is_unix) {
		memcpy(x->path, e->path, sizeof(x->path));
	} else {
		x->daddr = e->daddr;
		x->dport = e->dport;
	}
}

void summary_add_dns(struct summary *s, const char *name)
{
	/* The agent chose the name: only a host name is ever shown. */
	if (!s->dns_first[0] && dnsmsg_name_is_host(name))
		snprintf(s->dns_first, sizeof(s->dns_first), "%s", name);
	s->dns_refused++;
}

/* put_dns() - "refused N DNS queries (first: NAME)" */
static void put_dns(struct textbuf *o, const struct summary *s)
{
	textbuf_put(o, "refused %llu DNS quer%s", (unsigned long long)s->dns_refused,
		    s->dns_refused == 1 ? "y" : "ies");
	if (s->dns_first[0])
		textbuf_put(o, " (first: %s)", s->dns_first);
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

void summary_path_text(const struct summary_slot *x, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < sizeof(x->path) && x->path[i] && i + 1 < size; i++)
		buf[i] = x->path[i] > 0x20 && x->path[i] < 0x7f ? x->path[i] : '?';
	buf[i] = '\0';
}

/* nameable_path() - a path a unix-socket line can name as it is: absolute,
 * no ".." (always refused), and only characters the configuration file
 * takes literally (no blanks, no '#', nothing a terminal would act on). */
static bool nameable_path(const struct summary_slot *x)
{
	char path[UNIX_PATH_MAX + 1];
	size_t i;

	memcpy(path, x->path, sizeof(x->path));
	path[sizeof(x->path)] = '\0';
	if (unixpolicy_path_problem(path, false))
		return false;
	for (i = 0; path[i]; i++)
		if (!isalnum((unsigned char)path[i]) && !strchr("/._+-@:,=~%", path[i]))
			return false;
	return true;
}

enum summary_advice summary_advice(const struct summary_slot *x)
{
	if (x->is_unix) {
		if (!nameable_path(x))
			return SUMMARY_NO_LINE;
		return unixpolicy_grants_root(x->path) ? SUMMARY_NEVER : SUMMARY_LINE;
	}
	/* netns: the socket was in a namespace of the agent's own; no
	 * allow-ip reaches out of that. */
	if (no_address(x->reason) || x->reason == REASON_NETNS)
		return SUMMARY_NO_LINE;
	/* The DNS forward address and pasta's DNS address: denied, it was
	 * sent around lo's route towards pasta, the side door to the host's
	 * resolver (ebpfjail.h), which no line opens. */
	if (x->daddr == htonl(JAIL_DNS_FORWARD_ADDR) || x->daddr == htonl(JAIL_PASTA_DNS_ADDR))
		return SUMMARY_NO_LINE;
	if (metadata(x))
		return SUMMARY_NEVER;
	/* The attack: ping a LAN host, and its user is told to paste the
	 * line that opens every port of it. */
	return x->dport ? SUMMARY_LINE : SUMMARY_EVERY_PORT;
}

void summary_slot_text(const struct summary_slot *x, char *buf, size_t size)
{
	char a[NETADDR_CIDR_STRLEN];

	if (x->is_unix) {
		summary_path_text(x, buf, size);
		return;
	}
	netaddr_format(x->daddr, a);
	if (x->dport)
		snprintf(buf, size, "%s:%u", a, x->dport);
	else
		snprintf(buf, size, "%s", a);
}

size_t summary_format(const struct summary *s, char *buf, size_t size)
{
	struct summary_slot top[SUMMARY_SLOTS];
	struct textbuf o = { buf, size, 0, false };
	const struct summary_slot *pick = NULL, *refused = NULL;
	char a[NETADDR_CIDR_STRLEN], what[UNIX_PATH_MAX + 1];
	size_t i;

	if (!s->total && !s->lost) {
		if (!s->dns_refused)
			return 0;
		textbuf_put(&o, "ebpfjail: ");
		put_dns(&o, s);
		textbuf_put(&o, " (details: ebpfjail audit)\n");
		return o.len;
	}
	memcpy(top, s->slots, s->n * sizeof(top[0]));
	qsort(top, s->n, sizeof(top[0]), by_count);
	textbuf_put(&o, "ebpfjail: denied %llu connection%s", (unsigned long long)s->total,
	    s->total == 1 ? "" : "s");
	for (i = 0; i < s->n && i < 3; i++) {
		const char *r = reason_name(top[i].reason);

		if (top[i].is_unix) {
			char p[UNIX_PATH_MAX + 1];

			summary_path_text(&top[i], p, sizeof(p));
			textbuf_put(&o, "%s %s (%s) x%llu", i ? "," : ":", p, r,
				    (unsigned long long)top[i].count);
			continue;
		}
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
	/* The line for the most frequent denial a configuration line can
	 * lift, but never for a metadata service or a daemon socket that
	 * grants root: an agent that hammers one must not get its user to
	 * paste the line that hands it the machine's credentials, or the
	 * machine. Say why it is skipped instead. */
	for (i = 0; i < s->n && !pick; i++) {
		enum summary_advice adv = summary_advice(&top[i]);

		if (adv == SUMMARY_LINE)
			pick = &top[i];
		else if (adv == SUMMARY_NEVER && !refused)
			refused = &top[i];
	}
	if (refused && refused->is_unix) {
		summary_path_text(refused, what, sizeof(what));
		textbuf_put(&o, "; %s is a daemon socket that grants root, not allowed on purpose",
			    what);
	} else if (refused) {
		netaddr_format(refused->daddr, a);
		textbuf_put(&o, "; %s is a cloud metadata service, not allowed on purpose", a);
	}
	if (pick) {
		const char *key = pick->is_unix ? "unix-socket" : "allow-ip";

		summary_slot_text(pick, what, sizeof(what));
		if (pick == top)
			textbuf_put(&o, "; to allow the first: %s = %s", key, what);
		else
			textbuf_put(&o, "; to allow %s: %s = %s", what, key, what);
	}
	if (s->dns_refused) {
		textbuf_put(&o, "; ");
		put_dns(&o, s);
	}
	textbuf_put(&o, " (details: ebpfjail audit)\n");
	return o.len;
}
