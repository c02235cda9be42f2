// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* policy.c - compile the configuration and the host's facts into the policy trie
 *
 * Pure logic. Every rule is appended with its reason and where it came from;
 * then one sort puts equal keys side by side, allows before denies and
 * otherwise in the order appended, and keeps the first of each key. That is
 * "allow-ip wins over every block" and "the most specific built-in reason
 * wins" in O(n log n), which matters for 100,000-entry policies.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "builtin.h"
#include "netaddr.h"
#include "policy.h"

/* A rule while compiling: a temporary change wins over everything at its
 * key; then allows win over blocks; then the order it was added. */
struct pending {
	struct policy_rule rule;
	bool live;
	size_t seq;
	char source[POLICY_SOURCE_LEN];
};

struct builder {
	struct pending *items;
	size_t n, cap;
};

static int add(struct builder *b, uint32_t addr, unsigned int prefixlen, uint16_t port,
	       enum policy_action action, enum jail_reason reason, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

static int add(struct builder *b, uint32_t addr, unsigned int prefixlen, uint16_t port,
	       enum policy_action action, enum jail_reason reason, const char *fmt, ...)
{
	struct pending *p;
	va_list ap;

	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		struct pending *items = reallocarray(b->items, cap, sizeof(*items));

		if (!items)
			return -ENOMEM;
		b->items = items;
		b->cap = cap;
	}
	p = &b->items[b->n];
	memset(p, 0, sizeof(*p));
	p->seq = b->n++;
	p->rule.key.prefixlen = prefixlen;
	/* Keys hold the network address: the trie ignores the bits past
	 * prefixlen, but equal keys must compare equal in the sort below. */
	p->rule.key.addr =
		prefixlen >= 32 ? addr : htonl(ntohl(addr) & netaddr_mask(prefixlen));
	p->rule.key.port = prefixlen == POLICY_PREFIXLEN_PORT ? htons(port) : 0;
	p->rule.value.action = (uint8_t)action;
	p->rule.value.reason = (uint8_t)reason;
	p->rule.value.prefixlen = (uint8_t)(prefixlen > 32 ? 32 : prefixlen);
	va_start(ap, fmt);
	vsnprintf(p->source, sizeof(p->source), fmt, ap);
	va_end(ap);
	return 0;
}

int policy_key_compare(const struct policy_key *a, const struct policy_key *b)
{
	if (a->prefixlen != b->prefixlen)
		return a->prefixlen < b->prefixlen ? -1 : 1;
	if (a->addr != b->addr)
		return ntohl(a->addr) < ntohl(b->addr) ? -1 : 1;
	if (a->port != b->port)
		return ntohs(a->port) < ntohs(b->port) ? -1 : 1;
	return 0;
}

static int compare(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	int c = policy_key_compare(&x->rule.key, &y->rule.key);

	if (c)
		return c;
	if (x->live != y->live)
		return x->live ? -1 : 1;
	if (x->rule.value.action != y->rule.value.action)
		return x->rule.value.action == JAIL_ALLOW ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void origin_text(const struct config_origin *o, char *buf, size_t size)
{
	config_origin_format(o, buf, size);
}

static int add_prefixes(struct builder *b, const struct host_prefix *list, size_t n,
			unsigned int min_prefixlen, enum jail_reason reason, const char *what)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		char text[NETADDR_CIDR_STRLEN];

		if (list[i].prefixlen < min_prefixlen || list[i].prefixlen > 32)
			continue;
		netaddr_format_cidr(list[i].addr, list[i].prefixlen, text);
		err = add(b, list[i].addr, list[i].prefixlen, 0, JAIL_DENY, reason, "%s %s", what,
			  text);
	}
	return err;
}

/* add_live() - the temporary changes of `ebpfjail allow/deny`, last in
 * the builder and marked to win at their key. */
static int add_live(struct builder *b, const struct policy_live *live,
		    size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct policy_live *l = &live[i];

		err = add(b, l->addr, l->port ? POLICY_PREFIXLEN_PORT : 32, l->port,
			  l->allow ? JAIL_ALLOW : JAIL_DENY,
			  l->allow ? REASON_ALLOW_IP : REASON_BLOCK_CIDR, "ebpfjail %s (temporary)",
			  l->allow ? "allow" : "deny");
		if (!err)
			b->items[b->n - 1].live = true;
	}
	return err;
}

/* overridden() - a rule that a temporary whole-address deny removes: a
 * longer addr+port entry for that address (an allow-ip X:P, the DNS
 * exception) would otherwise still let traffic through. */
static bool overridden(const struct pending *item, const struct policy_live *live, size_t n)
{
	size_t i;

	if (item->live || item->rule.key.prefixlen != POLICY_PREFIXLEN_PORT)
		return false;
	for (i = 0; i < n; i++)
		if (!live[i].allow && !live[i].port && live[i].addr == item->rule.key.addr)
			return true;
	return false;
}

static int collect(const struct config *cfg, const struct host_facts *f, struct builder *b)
{
	char where[POLICY_SOURCE_LEN / 2];
	size_t i;
	int err = 0;

	for (i = 0; i < builtin_blocks_count && !err; i++)
		err = add(b, htonl(builtin_blocks[i].host_addr), builtin_blocks[i].prefixlen, 0,
			  JAIL_DENY, builtin_blocks[i].reason, "built-in: %.80s",
			  builtin_blocks[i].source);

	/* pasta's side of the tap answers on every port it likes; the agent
	 * gets nothing from it (DNS is the forwarder's, on lo). */
	if (!err && f->gateway)
		err = add(b, f->gateway, 32, 0, JAIL_DENY, REASON_GATEWAY, "the jail's gateway");
	if (!err && f->dns_forward && f->dns_forward != f->gateway)
		err = add(b, f->dns_forward, 32, 0, JAIL_DENY, REASON_GATEWAY,
			  "the DNS forward address (other ports)");
	if (!err && f->dns_forward)
		err = add(b, f->dns_forward, POLICY_PREFIXLEN_PORT, 53, JAIL_ALLOW, REASON_DNS,
			  "DNS through the jail's forwarder");

	/* The host's own addresses: its services listen on them. */
	for (i = 0; i < f->n_addresses && !err; i++)
		err = add(b, f->addresses[i].addr, 32, 0, JAIL_DENY, REASON_CONNECTED,
			  "a host address");
	if (!err)
		err = add_prefixes(b, f->connected, f->n_connected, 0, REASON_CONNECTED,
				   "host-connected network");
	if (!err)
		err = add_prefixes(b, f->routes, f->n_routes, POLICY_MIN_ROUTE_PREFIXLEN,
				   REASON_HOST_ROUTE, "host route");

	for (i = 0; i < cfg->n_block_cidr && !err; i++) {
		origin_text(&cfg->block_cidr[i].origin, where, sizeof(where));
		err = add(b, cfg->block_cidr[i].addr, cfg->block_cidr[i].prefixlen, 0, JAIL_DENY,
			  REASON_BLOCK_CIDR, "block-cidr (%s)", where);
	}
	/* internet = off: whatever no longer rule matches is denied, so only
	 * what an allow (allow-ip, allow-host, DNS) or the jail's loopback
	 * lets through remains. */
	if (!err && !cfg->internet) {
		origin_text(&cfg->internet_origin, where, sizeof(where));
		err = add(b, 0, 0, 0, JAIL_DENY, REASON_INTERNET, "internet = off (%s)", where);
	}
	for (i = 0; i < cfg->n_allow_ip && !err; i++) {
		const struct config_allow_ip *a = &cfg->allow_ip[i];

		origin_text(&a->origin, where, sizeof(where));
		err = add(b, a->addr, a->port ? POLICY_PREFIXLEN_PORT : 32, a->port, JAIL_ALLOW,
			  REASON_ALLOW_IP, "allow-ip (%s)", where);
	}
	return err;
}

int policy_compile(const struct config *cfg, const struct host_facts *facts, struct policy *out)
{
	return policy_compile_live(cfg, facts, NULL, 0, out);
}


/* note_absent() - @p->absent for its rules as they are (sorted by prefix
 * length first: one pass) */
static void note_absent(struct policy *p)
{
	uint64_t present = 0;
	size_t i;

	for (i = 0; i < p->n; i++)
		present |= 1ULL << p->rules[i].key.prefixlen;
	p->absent = ~present;
}

/* absent() - does @p hold no rule of prefix length @len, as far as it
 * knows? */
static bool absent(const struct policy *p, unsigned int len)
{
	return p->absent >> len & 1;
}

/* finish() - @b's items sorted, one rule per key (the first after sorting
 * wins), into @out. Return: 0, -E2BIG or -ENOMEM (@out freed). */
static int finish(struct builder *b, const struct policy_live *live, size_t n_live,
		  struct policy *out)
{
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	if (b->n)
		qsort(b->items, b->n, sizeof(*b->items), compare);
	out->rules = calloc(b->n ? b->n : 1, sizeof(*out->rules));
	out->sources = calloc(b->n ? b->n : 1, sizeof(*out->sources));
	if (!out->rules || !out->sources) {
		policy_free(out);
		return -ENOMEM;
	}
	for (i = 0; i < b->n; i++) {
		const struct policy_key *k = &b->items[i].rule.key;

		if (n && !memcmp(k, &out->rules[n - 1].key, sizeof(*k)))
			continue;
		if (overridden(&b->items[i], live, n_live))
			continue;
		out->rules[n] = b->items[i].rule;
		memcpy(out->sources[n], b->items[i].source, POLICY_SOURCE_LEN);
		n++;
	}
	out->n = out->cap = n;
	note_absent(out);
	if (n > POLICY_MAX_ENTRIES) {
		policy_free(out);
		return -E2BIG;
	}
	return 0;
}

/* in_prefixes() - is @addr in one of @list's prefixes? */
static bool in_prefixes(const struct host_prefix *list, size_t n, uint32_t addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((ntohl(addr) & netaddr_mask(list[i].prefixlen)) ==
		    (ntohl(list[i].addr) & netaddr_mask(list[i].prefixlen)))
			return true;
	return false;
}

/* reason_refusal() - what a block for @reason refuses a name of that kind
 * (REASON_NONE: the name may open it) */
static enum jail_reason reason_refusal(uint8_t reason, bool wildcard)
{
	switch (reason) {
	/* A name's records are whatever its zone says, and a zone may be
	 * anyone's, or a record anyone's to write: a nip.io-style service
	 * answers any name with any address, a cloud's public zone names
	 * its customers' private load balancers, a dangling CNAME is
	 * anyone's to claim. So a wildcard (whose names the agent picks)
	 * opens only the internet, which internet = off closed: never a
	 * private network, the host's LAN or a VPN's. An exact name, the
	 * user's own forge or lab device, may open those. */
	case REASON_PRIVATE:
	case REASON_CGNAT:
	case REASON_CONNECTED:
	case REASON_HOST_ROUTE:
		return wildcard ? (enum jail_reason)reason : REASON_NONE;
	case REASON_INTERNET:
		return REASON_NONE;
	/* Never by name: the cloud's credentials, pasta's side, the host's
	 * loopback, link-local (no one names a link-local device in DNS;
	 * more metadata services live there), multicast and reserved
	 * space, and a block-cidr: the user's own, narrower word. */
	default:
		return (enum jail_reason)reason;
	}
}

static size_t find(const struct policy *p, const struct policy_key *key);

/* refusal_of() - policy_name_refusal() for @addr, whose longest match in
 * @base is @r (NULL: none), already looked up. Every block on the way to
 * the address counts, not the longest alone: the attack is a host route
 * or a connected network inside a block-cidr or link-local (10.6.1.0/24
 * under block-cidr = 10.6.0.0/16, a VPN's 169.254.100.0/24), whose
 * longest match an exact name may open, over the block it may not. */
static enum jail_reason refusal_of(const struct policy *base, const struct policy_rule *r,
				   uint32_t addr, bool wildcard)
{
	enum jail_reason why = REASON_NONE;
	unsigned int len;

	/* Allowed by the configuration or `allow`: nothing to refuse. Allowed
	 * by another name only, the blocks beneath still judge this one: an
	 * exact name's 10.1.2.3 must not let a wildcard's answer open
	 * 10.1.2.3:443, which outlives the exact entry. */
	if (!r || (r->value.action == JAIL_ALLOW && r->value.reason != REASON_ALLOW_HOST))
		return REASON_NONE;
	/* The host itself, AnyIP prefixes included: its services listen
	 * there, and allow-ip names the host on purpose. */
	if (in_prefixes(base->own, base->n_own, addr))
		return REASON_CONNECTED;
	if (r->value.action != JAIL_ALLOW)
		why = reason_refusal(r->value.reason, wildcard);
	for (len = 33; why == REASON_NONE && len-- > 0;) {
		struct policy_key k = { .prefixlen = len,
					.addr = len >= 32 ? addr
							  : htonl(ntohl(addr) & netaddr_mask(len)) };
		size_t at;

		if (absent(base, len))
			continue;
		at = find(base, &k);

		if (at < base->n && !policy_key_compare(&base->rules[at].key, &k) &&
		    base->rules[at].value.action != JAIL_ALLOW)
			why = reason_refusal(base->rules[at].value.reason, wildcard);
	}
	return why;
}

enum jail_reason policy_name_refusal(const struct policy *base, uint32_t addr, uint16_t port,
				     bool wildcard)
{
	long i = policy_lookup(base, addr, htons(port));

	return refusal_of(base, i < 0 ? NULL : &base->rules[i], addr, wildcard);
}

/* own_prefixes() - the host's own addresses and AnyIP prefixes into
 * @p->own. Return: 0 or -ENOMEM. */
static int own_prefixes(const struct host_facts *f, struct policy *p)
{
	size_t n = f->n_addresses + f->n_local;

	if (!n)
		return 0;
	p->own = calloc(n, sizeof(*p->own));
	if (!p->own)
		return -ENOMEM;
	memcpy(p->own, f->addresses, f->n_addresses * sizeof(*p->own));
	memcpy(p->own + f->n_addresses, f->local, f->n_local * sizeof(*p->own));
	p->n_own = n;
	return 0;
}

/* denied_live() - `ebpfjail deny` of @addr (every port, or @port): the
 * user said so after the configuration, and a name's answer must not undo
 * it. */
static bool denied_live(const struct policy_live *live, size_t n, uint32_t addr, uint16_t port)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!live[i].allow && live[i].addr == addr && (!live[i].port || live[i].port == port))
			return true;
	return false;
}

bool policy_name_rule(const struct policy *p, const struct policy_name *nm,
		      const struct policy_live *live, size_t n_live, struct policy_rule *r)
{
	unsigned int len = nm->port ? POLICY_PREFIXLEN_PORT : 32;
	long m = policy_lookup(p, nm->addr, htons(nm->port));

	if (nm->deny)
		return false; /* a block (policy_compile_jail()), never an allow */
	if (m < 0) /* the internet, allowed: an entry would add nothing */
		return false;
	if (p->rules[m].value.action == JAIL_ALLOW && p->rules[m].key.prefixlen >= len)
		return false; /* already allowed as much */
	/* Never over a block of its own key (a VPN's host route, a /32
	 * block-cidr): a name's key is then never a block's, so taking it
	 * out gives back exactly the policy without it (policy_remove_rule(),
	 * an expiry that needs no compile and cannot fail open). */
	if (p->rules[m].key.prefixlen == len)
		return false;
	if (refusal_of(p, &p->rules[m], nm->addr, nm->wildcard) != REASON_NONE ||
	    denied_live(live, n_live, nm->addr, nm->port))
		return false;
	*r = (struct policy_rule){
		.key = { .prefixlen = len, .addr = nm->addr, .port = nm->port ? htons(nm->port) : 0 },
		.value = { .action = JAIL_ALLOW, .reason = REASON_ALLOW_HOST, .prefixlen = 32 },
	};
	return true;
}

/* find() - where @key is in @p's sorted rules, or would go */
static size_t find(const struct policy *p, const struct policy_key *key)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (policy_key_compare(&p->rules[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int policy_insert_rule(struct policy *p, const struct policy_rule *r)
{
	size_t at = find(p, &r->key);

	if (p->sources)
		return -EINVAL; /* it would lose step with the rules */
	if (at < p->n && !policy_key_compare(&p->rules[at].key, &r->key))
		return -EEXIST;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct policy_rule *rules = reallocarray(p->rules, cap, sizeof(*rules));

		if (!rules)
			return -ENOMEM;
		p->rules = rules;
		p->cap = cap;
	}
	memmove(&p->rules[at + 1], &p->rules[at], (p->n - at) * sizeof(*p->rules));
	p->rules[at] = *r;
	p->n++;
	p->absent &= ~(1ULL << r->key.prefixlen);
	return 0;
}

const struct policy_rule *policy_rule_at(const struct policy *p, const struct policy_key *key)
{
	size_t at = find(p, key);

	return at < p->n && !policy_key_compare(&p->rules[at].key, key) ? &p->rules[at] : NULL;
}

int policy_set_rule(struct policy *p, const struct policy_rule *r)
{
	size_t at = find(p, &r->key);

	if (p->sources || at == p->n || policy_key_compare(&p->rules[at].key, &r->key))
		return policy_insert_rule(p, r);
	p->rules[at].value = r->value;
	return 0;
}

bool policy_remove_rule(struct policy *p, const struct policy_key *key)
{
	size_t at = find(p, key);

	if (p->sources || at == p->n || policy_key_compare(&p->rules[at].key, key))
		return false;
	memmove(&p->rules[at], &p->rules[at + 1], (p->n - at - 1) * sizeof(*p->rules));
	p->n--;
	return true;
}

bool policy_remove_name_rule(struct policy *p, const struct policy_key *key)
{
	const struct policy_rule *r = policy_rule_at(p, key);

	return r && r->value.reason == REASON_ALLOW_HOST && policy_remove_rule(p, key);
}

/* block_key() - a deny of @addr/@prefixlen for @reason into @p unless a
 * rule at that key won it in the compile (an allow-ip, a temporary change,
 * a block); a name's rule there gives way, as it would in the compile
 * (policy_name_rule(): never over a block of its own key). Return: 1 when
 * @p changed, 0 when not, -ENOMEM. */
static int block_key(struct policy *p, uint32_t addr, unsigned int prefixlen,
		     enum jail_reason reason)
{
	struct policy_rule r = {
		.key = { .prefixlen = prefixlen,
			 .addr = prefixlen >= 32 ? addr : htonl(ntohl(addr) & netaddr_mask(prefixlen)) },
		.value = { .action = JAIL_DENY, .reason = (uint8_t)reason,
			   .prefixlen = (uint8_t)prefixlen },
	};
	size_t at = find(p, &r.key);
	int err;

	if (at < p->n && !policy_key_compare(&p->rules[at].key, &r.key)) {
		if (p->rules[at].value.reason != REASON_ALLOW_HOST)
			return 0;
		p->rules[at] = r;
		return 1;
	}
	err = policy_insert_rule(p, &r);
	return err ? err : 1;
}

static int block_prefixes(struct policy *p, const struct host_prefix *list, size_t n,
			  unsigned int min_prefixlen, enum jail_reason reason)
{
	size_t i;
	int changed = 0, c;

	for (i = 0; i < n; i++) {
		if (list[i].prefixlen < min_prefixlen || list[i].prefixlen > 32)
			continue;
		c = block_key(p, list[i].addr, list[i].prefixlen, reason);
		if (c < 0)
			return c;
		changed += c;
	}
	return changed;
}

/* own_has() - is @pfx one of @p's own prefixes already? */
static bool own_has(const struct policy *p, const struct host_prefix *pfx)
{
	size_t i;

	for (i = 0; i < p->n_own; i++)
		if (p->own[i].addr == pfx->addr && p->own[i].prefixlen == pfx->prefixlen)
			return true;
	return false;
}

/* gained_addr() - is @addr in one of the prefixes @g holds? */
static bool gained_addr(const struct host_facts *g, uint32_t addr)
{
	return in_prefixes(g->addresses, g->n_addresses, addr) ||
	       in_prefixes(g->connected, g->n_connected, addr) ||
	       in_prefixes(g->routes, g->n_routes, addr) || in_prefixes(g->local, g->n_local, addr);
}

/* name_still_opens() - whether a name of @names for the rule @r's address
 * and port (an exact one and a wildcard one may share it) is still given
 * that rule by @p, which no longer holds it */
static bool name_still_opens(const struct policy *p, const struct policy_rule *r,
			     const struct policy_name *names, size_t n_names,
			     const struct policy_live *live, size_t n_live)
{
	uint16_t port = r->key.prefixlen == POLICY_PREFIXLEN_PORT ? ntohs(r->key.port) : 0;
	struct policy_rule again;
	size_t i;

	for (i = 0; i < n_names; i++)
		if (names[i].addr == r->key.addr && names[i].port == port &&
		    policy_name_rule(p, &names[i], live, n_live, &again))
			return true;
	return false;
}

int policy_block_gained(struct policy *p, const struct host_facts *gained,
			const struct policy_name *names, size_t n_names,
			const struct policy_live *live, size_t n_live)
{
	const struct {
		const struct host_prefix *list;
		size_t n;
		unsigned int min;
		enum jail_reason reason;
	} blocks[] = {
		{ gained->addresses, gained->n_addresses, 32, REASON_CONNECTED },
		{ gained->connected, gained->n_connected, 0, REASON_CONNECTED },
		{ gained->routes, gained->n_routes, POLICY_MIN_ROUTE_PREFIXLEN, REASON_HOST_ROUTE },
	};
	size_t n_own = gained->n_addresses + gained->n_local, i, k;
	int changed = 0, c;

	/* Own first: no name may open the host itself (refusal_of()). A new
	 * own prefix is a change even where its key holds a block already
	 * (AnyIP over 10.0.0.0/8): an exact name must not open it. */
	if (n_own) {
		struct host_prefix *own = reallocarray(p->own, p->n_own + n_own, sizeof(*own));

		if (!own)
			return -ENOMEM;
		p->own = own;
		for (k = 0; k < 2; k++) {
			const struct host_prefix *list = k ? gained->local : gained->addresses;
			size_t n = k ? gained->n_local : gained->n_addresses;

			for (i = 0; i < n; i++)
				if (!own_has(p, &list[i])) {
					p->own[p->n_own++] = list[i];
					changed++;
				}
		}
	}
	/* The same blocks, reasons and bounds as collect(). */
	for (k = 0; k < sizeof(blocks) / sizeof(blocks[0]); k++) {
		c = block_prefixes(p, blocks[k].list, blocks[k].n, blocks[k].min, blocks[k].reason);
		if (c < 0)
			return c;
		changed += c;
	}
	/* The names' rules inside what is new, judged again without them:
	 * a wildcard answer opened 192.0.2.5 on the internet, then a VPN
	 * routes 192.0.2.0/24; until the compile after the burst, the /32
	 * would still win over the new block. An exact name keeps it. */
	for (i = 0; i < p->n;) {
		struct policy_rule r = p->rules[i];

		if (r.value.reason != REASON_ALLOW_HOST || !gained_addr(gained, r.key.addr)) {
			i++;
			continue;
		}
		policy_remove_name_rule(p, &r.key);
		if (name_still_opens(p, &r, names, n_names, live, n_live)) {
			c = policy_insert_rule(p, &r);
			if (c)
				return c;
			i++;
			continue;
		}
		changed++; /* p->rules[i] is the next rule now */
	}
	return changed;
}

bool policy_same_own(const struct policy *a, const struct policy *b)
{
	size_t i;

	if (a->n_own != b->n_own)
		return false;
	for (i = 0; i < a->n_own; i++)
		if (!own_has(b, &a->own[i]))
			return false;
	return true;
}

int policy_copy(const struct policy *from, struct policy *to)
{
	memset(to, 0, sizeof(*to));
	to->rules = calloc(from->n ? from->n : 1, sizeof(*to->rules));
	to->own = from->n_own ? calloc(from->n_own, sizeof(*to->own)) : NULL;
	if (!to->rules || (from->n_own && !to->own)) {
		policy_free(to);
		return -ENOMEM;
	}
	memcpy(to->rules, from->rules, from->n * sizeof(*to->rules));
	if (from->n_own)
		memcpy(to->own, from->own, from->n_own * sizeof(*to->own));
	to->n = to->cap = from->n;
	to->n_own = from->n_own;
	to->absent = from->absent;
	to->keeps_flows = from->keeps_flows;
	return 0;
}

int policy_compile_jail(const struct config *cfg, const struct host_facts *facts,
			const struct policy_live *live, size_t n_live,
			const struct policy_name *names, size_t n_names, struct policy *out)
{
	struct builder b = { 0 };
	size_t i, added = 0;
	int err;

	memset(out, 0, sizeof(*out));
	err = collect(cfg, facts, &b);
	for (i = 0; i < n_names && !err; i++)
		if (names[i].deny)
			err = add(&b, names[i].addr, 32, 0, JAIL_DENY, REASON_DENY_HOST,
				  "deny-host %.80s", names[i].name);
	if (!err)
		err = add_live(&b, live, n_live);
	if (!err)
		err = finish(&b, live, n_live, out);
	if (!err)
		err = own_prefixes(facts, out);
	/* Names on top of the policy they would change: judged against it
	 * (policy_name_rule()), then added as winners at their key, and the whole
	 * sorted again. */
	for (i = 0; i < n_names && !err; i++) {
		struct policy_rule r;

		if (!policy_name_rule(out, &names[i], live, n_live, &r))
			continue;
		err = add(&b, names[i].addr, r.key.prefixlen, names[i].port, JAIL_ALLOW,
			  REASON_ALLOW_HOST, "allow-host %.80s", names[i].name);
		if (!err)
			b.items[b.n - 1].live = true;
		added++;
	}
	if (!err && added) {
		policy_free(out);
		err = finish(&b, live, n_live, out);
		if (!err)
			err = own_prefixes(facts, out);
	}
	if (!err)
		out->keeps_flows = cfg->n_allow_host > 0;
	free(b.items);
	if (err)
		policy_free(out);
	return err;
}

int policy_compile_live(const struct config *cfg, const struct host_facts *facts,
			const struct policy_live *live, size_t n_live, struct policy *out)
{
	return policy_compile_jail(cfg, facts, live, n_live, NULL, 0, out);
}

int policy_changes(const struct policy *a, const struct policy *b, struct policy_rule **set,
		   size_t *n_set, struct policy_key **del, size_t *n_del)
{
	size_t i = 0, k = 0;

	*n_set = *n_del = 0;
	*set = calloc(b->n ? b->n : 1, sizeof(**set));
	*del = calloc(a->n ? a->n : 1, sizeof(**del));
	if (!*set || !*del) {
		free(*set);
		free(*del);
		*set = NULL;
		*del = NULL;
		return -ENOMEM;
	}
	/* Both sorted by key: one walk. */
	while (i < a->n || k < b->n) {
		int c = i == a->n   ? 1
			: k == b->n ? -1
				    : policy_key_compare(&a->rules[i].key, &b->rules[k].key);

		if (c < 0) {
			(*del)[(*n_del)++] = a->rules[i++].key;
		} else if (c > 0) {
			(*set)[(*n_set)++] = b->rules[k++];
		} else {
			if (memcmp(&a->rules[i].value, &b->rules[k].value, sizeof(b->rules[k].value)))
				(*set)[(*n_set)++] = b->rules[k];
			i++;
			k++;
		}
	}
	return 0;
}

void policy_tightening_first(const struct policy *in_force, struct policy_rule *set, size_t n_set,
			     size_t *n_set_tight, struct policy_key *del, size_t n_del,
			     size_t *n_del_tight)
{
	size_t i, n = 0;

	/* Within a part the order does not matter: each write alone
	 * tightens (or loosens) every address's verdict. */
	for (i = 0; i < n_set; i++)
		if (set[i].value.action == JAIL_DENY) {
			struct policy_rule r = set[n];

			set[n++] = set[i];
			set[i] = r;
		}
	*n_set_tight = n;
	for (i = n = 0; i < n_del; i++) {
		const struct policy_rule *was = policy_rule_at(in_force, &del[i]);

		if (was && was->value.action == JAIL_ALLOW) {
			struct policy_key k = del[n];

			del[n++] = del[i];
			del[i] = k;
		}
	}
	*n_del_tight = n;
}

void policy_free(struct policy *p)
{
	free(p->rules);
	free(p->sources);
	free(p->own);
	memset(p, 0, sizeof(*p));
}

long policy_lookup(const struct policy *p, uint32_t addr, uint16_t port)
{
	unsigned int len;

	/* Longest first: the address and port, then the address under each
	 * prefix length. The rules are sorted by prefix length, then key
	 * (policy_key_compare()), so each is one binary search: an answer's
	 * addresses are looked up while the agent waits, in a policy that
	 * holds every name's. */
	for (len = POLICY_PREFIXLEN_PORT + 1; len-- > 0;) {
		struct policy_key k = { .prefixlen = len };
		size_t at;

		if ((len > POLICY_PREFIXLEN_ADDR && len != POLICY_PREFIXLEN_PORT) || absent(p, len))
			continue;
		k.addr = len >= 32 ? addr : htonl(ntohl(addr) & netaddr_mask(len));
		k.port = len == POLICY_PREFIXLEN_PORT ? port : 0;
		at = find(p, &k);
		if (at < p->n && !policy_key_compare(&p->rules[at].key, &k))
			return (long)at;
	}
	return -1;
}
