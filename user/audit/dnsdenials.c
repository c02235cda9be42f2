// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dnsdenials.c - the forwarder's refusals, aggregated (pure; dnsdenials.h) */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <libpsl.h>

#include "dnsdenials.h"

void dnsdenials_domain(const char *name, char out[DNS_NAME_MAX + 1])
{
	/* The built-in list: the same answer on every run, whatever the
	 * host's publicsuffix package holds. A name under a suffix the list
	 * does not know ("attacker.test") takes its last two labels (the
	 * list's "*" rule). */
	const psl_ctx_t *psl = psl_builtin();
	const char *reg = psl ? psl_registrable_domain(psl, name) : NULL;
	const char *last = strrchr(name, '.'), *before;

	if (!psl && last) { /* no list built in: the last two labels */
		before = memrchr(name, '.', (size_t)(last - name));
		reg = before ? before + 1 : name;
	}
	snprintf(out, DNS_NAME_MAX + 1, "%s", reg ? reg : name);
}

static bool same_kind(const struct dnsdenials_kind *a, const struct dnsdenials_kind *b)
{
	return a->qtype == b->qtype && a->refusal == b->refusal && !strcmp(a->domain, b->domain);
}

enum dnsdenials_fate dnsdenials_add(struct dnsdenials *d, const struct dnsdenials_kind *k,
				     const char *name, struct timespec now)
{
	struct dnsdenials_slot *s;
	size_t i;

	d->total++;
	for (i = 0; i < d->n; i++) {
		s = &d->v[i];
		if (!same_kind(&s->kind, k))
			continue;
		if (!s->repeats++)
			snprintf(s->name, sizeof(s->name), "%s", name);
		s->last = now;
		return DNSDENIALS_REPEAT;
	}
	if (d->n == DNSDENIALS_MAX) {
		d->lost++;
		return DNSDENIALS_LOST;
	}
	s = &d->v[d->n++];
	memset(s, 0, sizeof(*s));
	s->kind = *k;
	s->first = s->last = now;
	return DNSDENIALS_NEW;
}

void dnsdenials_close_window(struct dnsdenials *d, dnsdenials_fn fn, void *ctx)
{
	size_t i, kept = 0;

	for (i = 0; i < d->n; i++) {
		struct dnsdenials_slot *s = &d->v[i];

		if (!s->repeats)
			continue; /* quiet for a window: forgotten */
		fn(ctx, s);
		s->repeats = 0;
		s->name[0] = '\0';
		d->v[kept++] = *s;
	}
	d->n = kept;
}
