// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dnsallow.c - the addresses allowed by name (pure; dnsallow.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsallow.h"
#include "netaddr.h"
#include "textbuf.h"

#define NS_PER_S 1000000000ULL

/* copy_name() - @name into a record's field, cut at DNS_NAME_MAX. Each
 * answer's address takes a copy while the agent waits: snprintf()'s
 * format machinery costs more than the copy. */
static void copy_name(char dst[DNS_NAME_MAX + 1], const char *name)
{
	size_t n = strnlen(name, DNS_NAME_MAX);

	memcpy(dst, name, n);
	dst[n] = '\0';
}

void dns_seen_add(struct dns_seen *s, const char *name, const uint32_t *addrs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		s->v[s->next].addr = addrs[i];
		copy_name(s->v[s->next].name, name);
		s->next = (s->next + 1) % DNS_SEEN_MAX;
		if (s->n < DNS_SEEN_MAX)
			s->n++;
	}
}

const char *dns_seen_name(const struct dns_seen *s, uint32_t addr)
{
	size_t i;

	for (i = 1; i <= s->n; i++) { /* newest first */
		size_t k = (s->next + DNS_SEEN_MAX - i) % DNS_SEEN_MAX;

		if (s->v[k].addr == addr)
			return s->v[k].name;
	}
	return NULL;
}

/* internet_only() - may @h's names open only what internet = off closed:
 * a wildcard's (the agent picks the names under it), or a profile's
 * (profiles name public services, never a LAN) */
static bool internet_only(const struct config_allow_host *h)
{
	return !strncmp(h->pattern, "*.", 2) || h->internet_only;
}

bool dnsallow_wanted(const struct config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_allow_host; i++)
		if (dnsmsg_name_matches(cfg->allow_host[i].pattern, name))
			return true;
	return false;
}

enum dns_refusal dnsallow_judge(const struct config *cfg, const struct dns_question *q)
{
	if (dnsallow_denied(cfg, q->name))
		return DNS_DENY_HOST;
	/* In every mode: a CH-class query reads the resolver's own state, an
	 * RD=0 one its cache (which names the host looked up lately). */
	if (q->class != DNS_CLASS_IN)
		return DNS_NOT_IN;
	if (!(q->flags & DNS_FLAG_RD))
		return DNS_NO_RECURSION;
	if (cfg->internet)
		return DNS_ASK; /* the internet is open anyway (docs/DESIGN.md) */
	return dnsallow_wanted(cfg, q->name) ? DNS_ASK : DNS_NOT_ALLOWED;
}

const char *dns_refusal_rule(enum dns_refusal r)
{
	static const char *const rules[DNS_REFUSAL_COUNT] = {
		[DNS_ASK] = "none",
		[DNS_DENY_HOST] = "deny-host",
		[DNS_NOT_ALLOWED] = "internet-off",
		[DNS_NOT_IN] = "class",
		[DNS_NO_RECURSION] = "no-recursion",
	};

	return r < DNS_REFUSAL_COUNT ? rules[r] : "?";
}

uint32_t dnsallow_lifetime(uint32_t ttl)
{
	if (ttl < DNSALLOW_MIN_TTL_S)
		return DNSALLOW_MIN_TTL_S;
	return ttl > DNSALLOW_MAX_TTL_S ? DNSALLOW_MAX_TTL_S : ttl;
}

/* slot_of() - where @addr, @port, @exact's probe starts. The answers (and
 * so the addresses) may be an agent's own zone's, chosen to collide: its
 * worst is a probe over every entry, as a table without index would be. */
static size_t slot_of(uint32_t addr, uint16_t port, bool exact)
{
	uint32_t h = (addr ^ (uint32_t)port << 16 ^ exact) * 0x9e3779b1U;

	return (h >> 16) % DNSALLOW_INDEX_SLOTS;
}

static void index_put(struct dnsallow *t, size_t i)
{
	size_t s = slot_of(t->v[i].addr, t->v[i].port, t->v[i].exact);

	while (t->index[s])
		s = (s + 1) % DNSALLOW_INDEX_SLOTS;
	t->index[s] = (uint16_t)(i + 1);
}

/* index_build() - the index for the entries as they are now, after a
 * change that moved them (drop_where()) or changed a key (weaken()).
 * Return: false if there is no memory for it (find() then scans). */
static bool index_build(struct dnsallow *t)
{
	size_t i;

	if (!t->index)
		t->index = calloc(DNSALLOW_INDEX_SLOTS, sizeof(*t->index));
	if (!t->index)
		return false;
	memset(t->index, 0, DNSALLOW_INDEX_SLOTS * sizeof(*t->index));
	for (i = 0; i < t->n; i++)
		index_put(t, i);
	t->indexed = true;
	return true;
}

/* find() - the entry for @addr on @port of that strength: an exact name's
 * and a wildcard's are apart, so that an answer for a wildcard name (the
 * agent picks it) never renews what only the exact name may open. Each
 * answer asks for each of its addresses: a scan of the table would cost
 * an answer the whole table (4,096 entries of 280 bytes). */
static struct dnsallow_entry *find(struct dnsallow *t, uint32_t addr, uint16_t port, bool exact)
{
	size_t i, s;

	if (t->indexed || index_build(t)) {
		for (s = slot_of(addr, port, exact); t->index[s]; s = (s + 1) % DNSALLOW_INDEX_SLOTS) {
			struct dnsallow_entry *e = &t->v[t->index[s] - 1];

			if (e->addr == addr && e->port == port && e->exact == exact)
				return e;
		}
		return NULL;
	}
	for (i = 0; i < t->n; i++)
		if (t->v[i].addr == addr && t->v[i].port == port && t->v[i].exact == exact)
			return &t->v[i];
	return NULL;
}

/* exact_for() - does an exact pattern of @cfg for @port match @name? */
static bool exact_for(const struct config *cfg, const char *name, uint16_t port)
{
	size_t h;

	for (h = 0; h < cfg->n_allow_host; h++)
		if (cfg->allow_host[h].port == port && !internet_only(&cfg->allow_host[h]) &&
		    dnsmsg_name_matches(cfg->allow_host[h].pattern, name))
			return true;
	return false;
}

/* append() - a new entry for @addr, @port, @exact, indexed; its other
 * fields 0. Return: it, or NULL (-ENOSPC: the table is full; -ENOMEM). */
static struct dnsallow_entry *append(struct dnsallow *t, uint32_t addr, uint16_t port, bool exact,
				     int *err)
{
	struct dnsallow_entry *e;

	if (t->n == DNSALLOW_MAX_ENTRIES) {
		*err = -ENOSPC;
		return NULL;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct dnsallow_entry *v = reallocarray(t->v, cap, sizeof(*v));

		if (!v) {
			*err = -ENOMEM;
			return NULL;
		}
		t->v = v;
		t->cap = cap;
	}
	e = &t->v[t->n++];
	*e = (struct dnsallow_entry){ .addr = addr, .port = port, .exact = exact };
	if (t->indexed)
		index_put(t, t->n - 1);
	return e;
}

int dnsallow_record(struct dnsallow *t, const struct config *cfg, const char *name,
		    const uint32_t *addrs, size_t n_addrs, bool outside_zone, uint32_t ttl,
		    uint64_t now_ns, size_t *added)
{
	uint64_t until = now_ns + dnsallow_lifetime(ttl) * NS_PER_S;
	size_t h, i;
	int err = 0;

	*added = 0;
	for (h = 0; h < cfg->n_allow_host; h++) {
		uint16_t port = cfg->allow_host[h].port;
		/* An exact name's strength only for what its own zone says:
		 * a CNAME into someone else's zone (a lapsed vendor name, a
		 * dangling one anyone may claim) gives that zone's answer,
		 * which opens the internet only, as a wildcard's does. */
		bool exact = !outside_zone && exact_for(cfg, name, port);

		if (!dnsmsg_name_matches(cfg->allow_host[h].pattern, name) ||
		    (exact && internet_only(&cfg->allow_host[h])))
			continue; /* not this name's, or its exact pattern's entry holds it */
		for (i = 0; i < n_addrs; i++) {
			struct dnsallow_entry *e = find(t, addrs[i], port, exact);

			if (!e) {
				e = append(t, addrs[i], port, exact, &err);
				if (!e)
					continue;
				(*added)++;
			}
			/* Renewed, never shortened: an earlier answer's
			 * longer TTL stands. */
			if (until > e->expires_ns)
				e->expires_ns = until;
			e->ttl = ttl;
			copy_name(e->name, name);
		}
	}
	return err;
}

/* drop_where() - remove the entries @gone says, keeping the order */
static size_t drop_where(struct dnsallow *t, bool (*gone)(const struct dnsallow_entry *e,
							 const void *arg),
			 const void *arg)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		if (!gone(&t->v[i], arg))
			t->v[n++] = t->v[i];
	i = t->n - n;
	t->n = n;
	if (i)
		t->indexed = false; /* they moved */
	return i;
}

static bool expired(const struct dnsallow_entry *e, const void *arg)
{
	return e->expires_ns <= *(const uint64_t *)arg;
}

long dnsallow_expire(struct dnsallow *t, uint64_t now_ns, struct dnsallow_entry **gone,
		     size_t *n_gone)
{
	size_t i, n = 0;

	*gone = NULL;
	*n_gone = 0;
	for (i = 0; i < t->n; i++)
		n += expired(&t->v[i], &now_ns);
	if (!n)
		return 0;
	*gone = calloc(n, sizeof(**gone));
	if (!*gone)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		if (expired(&t->v[i], &now_ns))
			(*gone)[(*n_gone)++] = t->v[i];
	drop_where(t, expired, &now_ns);
	return (long)n;
}

static bool unconfigured(const struct dnsallow_entry *e, const void *arg)
{
	const struct config *cfg = arg;
	size_t h;

	/* A deny-host line added by the reload takes what its names opened. */
	if (dnsallow_denied(cfg, e->name))
		return true;
	for (h = 0; h < cfg->n_allow_host; h++)
		if (cfg->allow_host[h].port == e->port &&
		    dnsmsg_name_matches(cfg->allow_host[h].pattern, e->name))
			return false;
	return true;
}

/* weaken() - @e, whose exact pattern is gone, into a wildcard's entry: its
 * own, or the one its address and port have, which then lasts as long as
 * the longer of the two (and @e's time is 0: gone) */
static void weaken(struct dnsallow *t, struct dnsallow_entry *e)
{
	struct dnsallow_entry *twin = find(t, e->addr, e->port, false);

	e->exact = false;
	if (!twin)
		return;
	if (e->expires_ns > twin->expires_ns)
		twin->expires_ns = e->expires_ns;
	e->expires_ns = 0;
}

size_t dnsallow_keep_configured(struct dnsallow *t, const struct config *cfg)
{
	size_t changed = drop_where(t, unconfigured, cfg), i;
	uint64_t merged = 0; /* weaken() gave them time 0 */

	/* What the patterns left may open: exact only if an exact one
	 * still gives it. A name that lost its exact line counts as a
	 * change: the attack is the user keeping `*.lan`, deleting
	 * `nas.lan` and reloading, while the compiled policy still opens
	 * nas.lan's LAN address until it is compiled again. */
	for (i = 0; i < t->n; i++) {
		if (!t->v[i].exact || exact_for(cfg, t->v[i].name, t->v[i].port))
			continue;
		weaken(t, &t->v[i]);
		changed++;
	}
	/* Their keys changed. The index was stale for the loop too, which
	 * asked only for the wildcard twin of an entry weakened there: no
	 * other entry has its address and port as an exact one. */
	if (changed)
		t->indexed = false;
	drop_where(t, expired, &merged);
	return changed;
}

void dnsallow_names(const struct dnsallow *t, struct policy_name *out)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		out[i] = (struct policy_name){ .addr = t->v[i].addr, .port = t->v[i].port,
					       .name = t->v[i].name, .wildcard = !t->v[i].exact };
}

void dnsdeny_names(const struct dnsallow *t, struct policy_name *out)
{
	size_t i;

	dnsallow_names(t, out);
	for (i = 0; i < t->n; i++)
		out[i].deny = true;
}

bool dnsallow_denied(const struct config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_deny_host; i++)
		if (dnsmsg_name_matches(cfg->deny_host[i].name, name))
			return true;
	return false;
}

int dnsdeny_record(struct dnsallow *t, const char *name, const uint32_t *addrs, size_t n_addrs,
		   uint32_t ttl, uint64_t now_ns, size_t *added)
{
	uint64_t until = now_ns + dnsallow_lifetime(ttl) * NS_PER_S;
	size_t i, k;
	int err = 0;

	*added = 0;
	for (i = 0; i < t->n; i++) {
		for (k = 0; k < n_addrs && t->v[i].addr != addrs[k]; k++)
			;
		if (k == n_addrs && !strcmp(t->v[i].name, name))
			t->v[i].dropped = true;
	}
	for (i = 0; i < n_addrs; i++) {
		struct dnsallow_entry *e = find(t, addrs[i], 0, true);

		if (!e) {
			e = append(t, addrs[i], 0, true, &err);
			if (!e)
				continue;
			(*added)++;
		}
		if (until > e->expires_ns)
			e->expires_ns = until;
		e->ttl = ttl;
		e->dropped = false;
		copy_name(e->name, name);
	}
	return err;
}

size_t dnsdeny_due(struct dnsallow *t, uint64_t now_ns, uint64_t ahead_ns,
		   char (*names)[DNS_NAME_MAX + 1], size_t max)
{
	size_t i, k, n = 0;

	for (i = 0; i < t->n; i++) {
		struct dnsallow_entry *e = &t->v[i];

		if (e->dropped || e->expires_ns > now_ns + ahead_ns)
			continue;
		for (k = 0; k < n && strcmp(names[k], e->name); k++)
			;
		if (k == n && n == max)
			continue; /* the next time: it is due still */
		if (k == n)
			copy_name(names[n++], e->name);
		e->expires_ns = now_ns + 2 * ahead_ns;
	}
	return n;
}

size_t dnsdeny_keep_configured(struct dnsallow *t, const struct config *cfg)
{
	size_t i, kept = 0, n = t->n;

	for (i = 0; i < n; i++)
		if (dnsallow_denied(cfg, t->v[i].name))
			t->v[kept++] = t->v[i];
	t->n = kept;
	t->indexed = false; /* they moved */
	return n - kept;
}

void dnsallow_format(const struct dnsallow *t, char *buf, size_t size)
{
	struct textbuf o = { buf, size, 0, true };
	char a[NETADDR_CIDR_STRLEN];
	const char *last = NULL;
	size_t i;

	if (size)
		buf[0] = '\0';

	for (i = 0; i < t->n; i++) {
		const struct dnsallow_entry *e = &t->v[i];

		if (e->refused)
			continue;
		/* An answer's addresses are appended together: one name. */
		if (!last || strcmp(e->name, last))
			textbuf_put(&o, "%s%s", last ? ", " : "", e->name);
		last = e->name;
		netaddr_format(e->addr, a);
		textbuf_put(&o, " %s", a);
		if (e->port)
			textbuf_put(&o, ":%u", e->port);
	}
}

int dnsallow_copy(const struct dnsallow *from, struct dnsallow *to)
{
	*to = (struct dnsallow){ 0 };
	if (!from->n)
		return 0;
	to->v = reallocarray(NULL, from->n, sizeof(*to->v));
	if (!to->v)
		return -ENOMEM;
	memcpy(to->v, from->v, from->n * sizeof(*to->v));
	to->n = to->cap = from->n;
	return 0;
}

void dnsallow_free(struct dnsallow *t)
{
	free(t->v);
	free(t->index);
	memset(t, 0, sizeof(*t));
}
