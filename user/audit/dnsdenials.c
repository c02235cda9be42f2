// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dnsdenials.c - the forwarder's refusals, aggregated (pure; dnsdenials.h) */
#include <stdio.h>
#include <string.h>
#include <libpsl.h>

#include "dnsdenials.h"

void dns_registered_domain(const char *name, char out[DNS_NAME_MAX + 1])
{
	/* The built-in list: the same answer on every run, whatever the
	 * host's publicsuffix package holds. A name under a suffix the list
	 * does not know ("attacker.test") takes its last two labels (the
	 * list's "*" rule). */
	const char *reg = psl_registrable_domain(psl_builtin(), name);

	snprintf(out, DNS_NAME_MAX + 1, "%s", reg ? reg : name);
}

static bool same_kind(const struct dns_denial_kind *a, const struct dns_denial_kind *b)
{
	return a->qtype == b->qtype && a->refusal == b->refusal && !strcmp(a->domain, b->domain);
}

enum dns_denial_fate dns_denials_add(struct dns_denials *d, const struct dns_denial_kind *k,
				     const char *name, struct timespec now)
{
	struct dns_denial_slot *s;
	size_t i;

	d->total++;
	for (i = 0; i < d->n; i++) {
		s = &d->v[i];
		if (!same_kind(&s->kind, k))
			continue;
		if (!s->repeats++)
			snprintf(s->name, sizeof(s->name), "%s", name);
		s->last = now;
		return DNS_DENIAL_REPEAT;
	}
	if (d->n == DNS_DENIALS_MAX) {
		d->lost++;
		return DNS_DENIAL_LOST;
	}
	s = &d->v[d->n++];
	memset(s, 0, sizeof(*s));
	s->kind = *k;
	s->first = s->last = now;
	return DNS_DENIAL_NEW;
}

void dns_denials_close_window(struct dns_denials *d, dns_denial_fn fn, void *ctx)
{
	size_t i, kept = 0;

	for (i = 0; i < d->n; i++) {
		struct dns_denial_slot *s = &d->v[i];

		if (!s->repeats)
			continue; /* quiet for a window: forgotten */
		fn(ctx, s);
		s->repeats = 0;
		s->name[0] = '\0';
		d->v[kept++] = *s;
	}
	d->n = kept;
}
