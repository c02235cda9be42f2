// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* suggest.c - `ebpfjail audit --suggest`: the lines that would allow what was denied
 *
 * Pure: audit records in, configuration text out. The decisions of what
 * may be suggested are the exit summary's (summary_advice()), so the two
 * never disagree on a metadata service or a daemon socket.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "builtin.h"
#include "netaddr.h"
#include "suggest.h"

/* reason_of() - the enum jail_reason named @name, or REASON_COUNT */
static unsigned int reason_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < REASON_COUNT; i++)
		if (reason_name(i) && !strcmp(reason_name(i), name))
			return i;
	return REASON_COUNT;
}

/* slot_of() - the destination @r names, as a summary slot (count 0) */
static struct summary_slot slot_of(const struct audit_record *r, unsigned int reason)
{
	struct summary_slot x = { .reason = (uint8_t)reason };

	if (r->path[0]) {
		x.is_unix = true; /* NUL-padded, as the kernel's event has it */
		memcpy(x.path, r->path, strnlen(r->path, sizeof(x.path)));
	} else if (netaddr_parse_ipv4(r->daddr, &x.daddr) == 0) {
		x.dport = r->dport <= UINT16_MAX ? (uint16_t)r->dport : 0;
	} else {
		x.reason = REASON_IPV6; /* no IPv4 address: no allow-ip line */
	}
	return x;
}

/* under_own_domain() - is @name in one of the host's own domains? */
static bool under_own_domain(const struct suggestions *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n_domains; i++) {
		char pattern[DNS_NAME_MAX + 3];

		snprintf(pattern, sizeof(pattern), "*.%s", s->domains[i]);
		if (dnsmsg_name_matches(pattern, name))
			return true;
	}
	return false;
}

/* by_name() - is an allow-host line for @r's host the one to suggest? The
 * host is whatever name the agent last looked the address up by, and the
 * agent chooses what it looks up: an allow-host line for a name of the
 * attacker's lets whoever runs that name's DNS decide what it opens,
 * private networks included. So only a name under the host's own domains
 * (resolv.conf's search and domain: a zone the user's network runs), and
 * only for a denial a name may lift (policy_name_refusal(): not the
 * gateway, loopback, link-local, reserved space, a block-cidr or the host
 * itself, whose rule is the address itself). Else allow-ip, which pins
 * the address. */
static bool by_name(const struct suggestions *s, const struct audit_record *r,
		    unsigned int reason)
{
	size_t n = strlen(r->rule);

	if (!r->host[0] || !dnsmsg_name_is_host(r->host) || !under_own_domain(s, r->host))
		return false;
	switch (reason) {
	case REASON_PRIVATE:
	case REASON_CGNAT:
	case REASON_HOST_ROUTE:
	case REASON_INTERNET:
		return true;
	case REASON_CONNECTED:
		return !(n > 3 && !strcmp(r->rule + n - 3, "/32"));
	default:
		return false;
	}
}

static bool same_destination(const struct summary_slot *a, const struct summary_slot *b)
{
	if (a->is_unix != b->is_unix)
		return false;
	if (a->is_unix)
		return !memcmp(a->path, b->path, sizeof(a->path));
	return a->daddr == b->daddr && a->dport == b->dport;
}

/* add_name() - a query the forwarder refused: an allow-host line lifts
 * only internet = off's; deny-host is the user's own, and a class or RD
 * refusal holds for allowed names too. The agent chose the name, so only
 * one under the host's own domains becomes a line (by_name() says why: an
 * exact name of the attacker's lets its DNS open the LAN); the others are
 * counted in a comment. Return: 0, or -ENOMEM. */
static int add_name(struct suggestions *s, const struct audit_record *r, unsigned long count)
{
	struct suggested_name *v;
	size_t i;

	if (strcmp(r->rule, "internet-off") || !dnsmsg_name_is_host(r->host)) {
		s->dns_other += count;
		return 0;
	}
	if (!under_own_domain(s, r->host)) {
		if (!s->dns_foreign)
			snprintf(s->dns_foreign_first, sizeof(s->dns_foreign_first), "%s", r->host);
		s->dns_foreign += count;
		return 0;
	}
	for (i = 0; i < s->n_names; i++)
		if (!strcmp(s->names[i].name, r->host)) {
			s->names[i].count += count;
			return 0;
		}
	if (s->n_names == s->cap_names) {
		size_t cap = s->cap_names ? 2 * s->cap_names : 16;

		v = realloc(s->names, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->names = v;
		s->cap_names = cap;
	}
	v = &s->names[s->n_names++];
	snprintf(v->name, sizeof(v->name), "%s", r->host);
	v->count = count;
	return 0;
}

static int by_name_count(const void *a, const void *b)
{
	const struct suggested_name *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

int suggest_add(struct suggestions *s, const struct audit_record *r)
{
	unsigned long count = r->count ? r->count : 1;
	struct summary_slot x;
	unsigned int reason;
	size_t i;

	if (r->is_lost || r->is_policy)
		return 0;
	if (!strcmp(r->proto, "dns"))
		return add_name(s, r, count);
	reason = reason_of(r->reason);
	if (reason == REASON_COUNT || reason < REASON_FIRST_DENY)
		return 0; /* not a denial this build knows */
	x = slot_of(r, reason);
	if (summary_advice(&x) == SUMMARY_NO_LINE) {
		s->no_line += count;
		return 0;
	}
	for (i = 0; i < s->n; i++) {
		if (same_destination(&s->slots[i], &x)) {
			/* a count from the log: saturate rather than wrap */
			s->slots[i].count = s->slots[i].count > UINT64_MAX - count ?
						    UINT64_MAX : s->slots[i].count + count;
			if (!s->hosts[i][0] && by_name(s, r, reason))
				memcpy(s->hosts[i], r->host, sizeof(s->hosts[i]));
			return 0;
		}
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct summary_slot *more = realloc(s->slots, cap * sizeof(*more));
		char (*hosts)[DNS_NAME_MAX + 1];

		if (!more)
			return -ENOMEM;
		s->slots = more;
		hosts = realloc(s->hosts, cap * sizeof(*hosts));
		if (!hosts)
			return -ENOMEM;
		s->hosts = hosts;
		s->cap = cap;
	}
	x.count = count;
	memset(s->hosts[s->n], 0, sizeof(s->hosts[s->n]));
	if (by_name(s, r, reason))
		memcpy(s->hosts[s->n], r->host, sizeof(s->hosts[s->n]));
	s->slots[s->n++] = x;
	return 0;
}

/* address_total() - every denial of @x's address, whatever the port */
static uint64_t address_total(const struct suggestions *s, const struct summary_slot *x)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!s->slots[i].is_unix && s->slots[i].daddr == x->daddr)
			total += s->slots[i].count;
	return total;
}

/* The order of the output: Unix paths after addresses; an address's ports
 * together, the address denied most first; within it, the port denied most
 * first. Ties by value, so the output is the same from run to run. */
struct ranked {
	const struct summary_slot *slot;
	uint64_t group; /* the address's total, or the path's count */
};

static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	const struct summary_slot *p = x->slot, *q = y->slot;

	if (p->is_unix != q->is_unix)
		return p->is_unix ? 1 : -1;
	if (x->group != y->group)
		return x->group < y->group ? 1 : -1;
	if (p->is_unix)
		return memcmp(p->path, q->path, sizeof(p->path));
	if (p->daddr != q->daddr)
		return ntohl(p->daddr) < ntohl(q->daddr) ? -1 : 1;
	if (p->count != q->count)
		return p->count < q->count ? 1 : -1;
	return p->dport < q->dport ? -1 : p->dport > q->dport;
}

/* warning() - what allowing a destination in this range opens, or NULL
 * for the internet (denied only where internet is off) */
static const char *warning(uint8_t reason)
{
	switch (reason) {
	case REASON_PRIVATE:
	case REASON_CGNAT:
		return "a private network: the agent reaches that host";
	case REASON_LINK_LOCAL:
		return "link-local: the agent reaches that device on the host's link";
	case REASON_CONNECTED:
		return "a network the host is on, or the host itself: the agent reaches it";
	case REASON_HOST_ROUTE:
		return "a network the host routes (a VPN?): the agent reaches it";
	case REASON_GATEWAY:
		return "the jail's gateway: the host's side of the jail";
	case REASON_LOOPBACK:
		return "loopback: a local-port line relays one of the host's ports instead";
	case REASON_BLOCK_CIDR:
		return "inside one of your own block-cidr lines";
	case REASON_MULTICAST:
	case REASON_RESERVED:
		return "a reserved or multicast address";
	default:
		return NULL;
	}
}

size_t suggest_print(const struct suggestions *s, FILE *out)
{
	struct suggested_name *names;
	char what[UNIX_PATH_MAX + 24];
	struct ranked *r;
	size_t i, lines = 0;

	r = calloc(s->n ? s->n : 1, sizeof(*r));
	if (!r)
		return 0;
	for (i = 0; i < s->n; i++) {
		r[i].slot = &s->slots[i];
		r[i].group = s->slots[i].is_unix ? s->slots[i].count : address_total(s, &s->slots[i]);
	}
	qsort(r, s->n, sizeof(*r), by_rank);
	for (i = 0; i < s->n; i++) {
		const struct summary_slot *x = r[i].slot;
		const char *why;

		summary_slot_text(x, what, sizeof(what));
		/* The attack: an agent that hammers the metadata service or
		 * the Docker socket must not get its user to paste the line
		 * that hands it the machine's credentials, or the machine. */
		if (summary_advice(x) == SUMMARY_NEVER) {
			fprintf(out, "# not suggested: %s (x%llu) is %s\n", what,
				(unsigned long long)x->count,
				x->is_unix ? "a daemon socket that grants root"
					   : "a cloud metadata service");
			continue;
		}
		if (summary_advice(x) == SUMMARY_EVERY_PORT) {
			fprintf(out, "# not suggested: %s (x%llu) was tried without a port; "
				     "allow-ip = %s would open every port of it\n",
				what, (unsigned long long)x->count, what);
			continue;
		}
		why = x->is_unix ? NULL : warning(x->reason);
		if (s->hosts[x - s->slots][0]) {
			char line[DNS_NAME_MAX + 16];

			snprintf(line, sizeof(line), "%s:%u", s->hosts[x - s->slots], x->dport);
			fprintf(out, "allow-host = %-19s # x%llu, %s%s%s\n", line,
				(unsigned long long)x->count, what, why ? ", warning: " : "",
				why ? why : "");
			lines++;
			continue;
		}
		fprintf(out, "%s = %-21s # x%llu%s%s\n", x->is_unix ? "unix-socket" : "allow-ip", what,
			(unsigned long long)x->count, why ? ", warning: " : "", why ? why : "");
		lines++;
	}
	names = s->n_names ? malloc(s->n_names * sizeof(*names)) : NULL;
	if (names) {
		memcpy(names, s->names, s->n_names * sizeof(*names));
		qsort(names, s->n_names, sizeof(*names), by_name_count);
	}
	for (i = 0; names && i < s->n_names; i++) {
		fprintf(out, "allow-host = %-19s # x%llu, refused by the jail's DNS (internet = off)\n",
			names[i].name, (unsigned long long)names[i].count);
		lines++;
	}
	free(names);
	if (s->dns_foreign)
		fprintf(out, "# not suggested: %llu DNS quer%s for names outside your network's "
			     "domains (first: %s): an allow-host line would let their DNS decide "
			     "what they open; a profile or allow-ip is the line for them\n",
			(unsigned long long)s->dns_foreign, s->dns_foreign == 1 ? "y" : "ies",
			s->dns_foreign_first);
	if (s->dns_other)
		fprintf(out, "# %llu DNS quer%s no line can allow (deny-host, a class other than IN, "
			     "no recursion, names that are no host names)\n",
			(unsigned long long)s->dns_other, s->dns_other == 1 ? "y" : "ies");
	if (s->no_line)
		fprintf(out, "# %llu denial%s no line can allow (IPv6, frames that are not IPv4, "
			     "sockets in the agent's own network namespaces, unnameable paths)\n",
			(unsigned long long)s->no_line, s->no_line == 1 ? "" : "s");
	free(r);
	return lines;
}

void suggest_free(struct suggestions *s)
{
	free(s->slots);
	free(s->hosts);
	free(s->names);
	s->slots = NULL;
	s->hosts = NULL;
	s->names = NULL;
	s->n_names = s->cap_names = 0;
	s->n = s->cap = 0;
}
