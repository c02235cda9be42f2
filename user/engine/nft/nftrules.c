// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nftrules.c - the compiled policy as an nftables ruleset (pure) */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "netaddr.h"
#include "nftrules.h"

/* An address entry's span, host byte order. */
static uint32_t first_of(const struct policy_key *k)
{
	return ntohl(k->addr) & netaddr_mask(k->prefixlen);
}

static uint32_t last_of(const struct policy_key *k)
{
	return first_of(k) | ~netaddr_mask(k->prefixlen);
}

/* An address entry, as the sweep needs it. */
struct span {
	uint32_t first, last; /* host byte order */
	uint8_t len;
	size_t rule;
};

/* by_span() - outer prefixes before the inner ones they contain */
static int by_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return (int)x->len - (int)y->len;
}

struct ranges {
	struct nft_range *r;
	size_t n;
};

/* add_range() - @first..@last as a range of @rule, unless empty */
static void add_range(struct ranges *out, uint64_t first, uint32_t last, size_t rule)
{
	if (first <= last)
		out->r[out->n++] = (struct nft_range){ (uint32_t)first, last, rule };
}

/* flatten() - nftrules_flatten() of @p's entries of prefix length
 * @max_len and shorter */
static int flatten(const struct policy *p, unsigned int max_len, struct nft_range **out,
		   size_t *n)
{
	struct span *order = calloc(p->n + 1, sizeof(*order));
	struct ranges r = { calloc(2 * p->n + 1, sizeof(*r.r)), 0 };
	const struct span *stack[POLICY_PREFIXLEN_ADDR + 1];
	size_t i, m = 0, depth = 0;
	uint64_t cursor = 0; /* the first address not yet in a range */

	if (!order || !r.r) {
		free(order);
		free(r.r);
		return -ENOMEM;
	}
	for (i = 0; i < p->n; i++) {
		const struct policy_key *k = &p->rules[i].key;

		if (k->prefixlen > max_len)
			continue;
		order[m++] = (struct span){ first_of(k), last_of(k), (uint8_t)k->prefixlen, i };
	}
	qsort(order, m, sizeof(*order), by_span);
	/* A sweep from low addresses to high with the prefixes that contain
	 * the cursor on a stack, innermost on top: prefixes nest or are
	 * disjoint, never overlap otherwise. Each rule opens at most one
	 * range and closes one, so 2n + 1 ranges are room enough. */
	for (i = 0; i < m; i++) {
		while (depth && stack[depth - 1]->last < order[i].first) {
			add_range(&r, cursor, stack[depth - 1]->last, stack[depth - 1]->rule);
			cursor = (uint64_t)stack[depth - 1]->last + 1;
			depth--;
		}
		/* What the enclosing prefix holds before this one starts; a
		 * gap with none is the internet, in no range. */
		if (cursor < order[i].first) {
			if (depth)
				add_range(&r, cursor, order[i].first - 1, stack[depth - 1]->rule);
			cursor = order[i].first;
		}
		stack[depth++] = &order[i];
	}
	while (depth) {
		add_range(&r, cursor, stack[depth - 1]->last, stack[depth - 1]->rule);
		cursor = (uint64_t)stack[depth - 1]->last + 1;
		depth--;
	}
	free(order);
	*out = r.r;
	*n = r.n;
	return 0;
}

int nftrules_flatten(const struct policy *p, struct nft_range **out, size_t *n)
{
	return flatten(p, POLICY_PREFIXLEN_ADDR, out, n);
}

/* The transactions being written: one memstream each. */
struct writer {
	struct nft_script *out;
	FILE *f;          /* the current step, or NULL */
	char *text;
	size_t len;
	size_t in_step;   /* elements in the current step */
	bool in_command;  /* an element command is open: */
	const char *verb; /* "add" or "delete" */
	const char *map;  /* ... in this map */
	unsigned int gen;
	int err;
};

/* verdict_chain() - the chain @v's verdict jumps to, into @chain ("" for
 * accept), marked used in @k. Return: 0, or -EINVAL for a reason or
 * prefix length no deny chain can have (policy.c writes none). */
static int verdict_chain(struct nft_chains *k, const struct policy_value *v,
			 char chain[NFTRULES_CHAIN_MAX])
{
	chain[0] = '\0';
	if (v->action == JAIL_ALLOW && v->reason == REASON_ALLOW_HOST) {
		k->kept = true;
		snprintf(chain, NFTRULES_CHAIN_MAX, NFTRULES_KEPT_CHAIN);
		return 0;
	}
	if (v->action == JAIL_ALLOW)
		return 0;
	if (v->reason >= REASON_COUNT || v->prefixlen > POLICY_PREFIXLEN_ADDR)
		return -EINVAL;
	k->used[v->reason][v->prefixlen] = true;
	snprintf(chain, NFTRULES_CHAIN_MAX, "deny_%u_%u", v->reason, v->prefixlen);
	return 0;
}

/* put_verdict() - @v as a map's verdict (verdict_chain()). Return: 0 or
 * -EINVAL. */
static int put_verdict(FILE *f, struct nft_chains *k, const struct policy_value *v)
{
	char chain[NFTRULES_CHAIN_MAX];
	int err = verdict_chain(k, v, chain);

	if (!err && chain[0])
		fprintf(f, "jump %s", chain);
	else if (!err)
		fputs("accept", f);
	return err;
}

static void put_addr(FILE *f, uint32_t host_order)
{
	char text[NETADDR_CIDR_STRLEN];

	netaddr_format(htonl(host_order), text);
	fputs(text, f);
}

/* end_command() - the open element command, if any, closed */
static void end_command(struct writer *w)
{
	if (w->f && w->in_command)
		fputs(" }\n", w->f);
	w->in_command = false;
}

/* end_step() - the current step is written: it joins the script */
static void end_step(struct writer *w)
{
	char **steps;

	if (!w->f)
		return;
	end_command(w);
	/* A write that failed (no memory) shows in ferror() or fclose(). */
	if (ferror(w->f) | fclose(w->f))
		w->err = -ENOMEM;
	w->f = NULL;
	w->in_step = 0;
	steps = w->err ? NULL : realloc(w->out->steps, (w->out->n + 1) * sizeof(*steps));
	if (!steps) {
		free(w->text);
		w->err = -ENOMEM;
		return;
	}
	steps[w->out->n++] = w->text;
	w->out->steps = steps;
}

/* begin_step() - end the current step, start the next. Return: where to
 * write it, or NULL (w->err says why). */
static FILE *begin_step(struct writer *w)
{
	end_step(w);
	if (w->err)
		return NULL;
	w->f = open_memstream(&w->text, &w->len);
	if (!w->f)
		w->err = -ENOMEM;
	return w->f;
}

/* next_element() - start one more element to @verb ("add", "delete") in
 * @map: a new step every NFTRULES_ELEMENTS_PER_STEP. Return: where to
 * write it, or NULL. */
static FILE *next_element(struct writer *w, const char *verb, const char *map)
{
	if ((!w->f || w->in_step == NFTRULES_ELEMENTS_PER_STEP) && !begin_step(w))
		return NULL;
	if (!w->in_command || w->map != map || w->verb != verb) {
		end_command(w);
		fprintf(w->f, "%s element inet %s%u %s { ", verb, NFTRULES_TABLE, w->gen, map);
		w->in_command = true;
		w->verb = verb;
		w->map = map;
	} else {
		fputs(",\n\t", w->f);
	}
	w->in_step++;
	return w->f;
}

/* The protocols an address+port entry holds for, each its own element. */
static const struct { uint8_t proto; const char *name; } port_protos[] = {
	{ IPPROTO_TCP, "tcp" }, { IPPROTO_UDP, "udp" },
};
#define PORT_PROTOS (sizeof(port_protos) / sizeof(port_protos[0]))

/* is_exact() - a rule of the maps looked up by key (hosts: /32, ports:
 * address+port), not of the flattened ranges */
static bool is_exact(const struct policy_key *k)
{
	return k->prefixlen >= 32;
}

/* rule_elements() - exact rule @r as the elements of its map, into
 * @out: its verdict's (@k marks the chains they jump to), or bare keys to
 * delete (@k NULL). An address+port entry is one element per protocol:
 * one for a single protocol refuses the other as the trie does (reason
 * gateway, rule ADDR/32). The DNS exception is left out: it holds on lo
 * only, where the filter accepts first ("oif lo accept"); a packet to it
 * that gets this far was sent around lo's route (SO_BINDTODEVICE,
 * IP_UNICAST_IF, an IP_PKTINFO ifindex) to reach pasta and through it the
 * host's resolver, and the forward address's /32 refuses it (reason
 * gateway). Return: how many (0 to PORT_PROTOS), or -EINVAL
 * (verdict_chain()). */
static int rule_elements(struct nft_chains *k, const struct policy_rule *r,
			 struct nft_element out[PORT_PROTOS])
{
	static const struct policy_value other = { .action = JAIL_DENY, .reason = REASON_GATEWAY,
						   .prefixlen = 32 };
	const struct policy_value *v = &r->value;
	size_t j;

	memset(out, 0, PORT_PROTOS * sizeof(*out));
	if (r->key.prefixlen == 32) {
		out[0].add = k != NULL;
		out[0].map = NFT_MAP_HOSTS;
		memcpy(out[0].key, &r->key.addr, 4);
		out[0].key_len = 4;
		return k && verdict_chain(k, v, out[0].jump) ? -EINVAL : 1;
	}
	if (v->action == JAIL_ALLOW && v->reason == REASON_DNS)
		return 0;
	for (j = 0; j < PORT_PROTOS; j++) {
		bool holds = !v->proto || v->proto == port_protos[j].proto;

		out[j].add = k != NULL;
		out[j].map = NFT_MAP_PORTS;
		memcpy(out[j].key, &r->key.addr, 4);
		out[j].key[4] = port_protos[j].proto;
		memcpy(out[j].key + 8, &r->key.port, 2); /* network order, as th dport */
		out[j].key_len = 12;
		if (k && verdict_chain(k, holds ? v : &other, out[j].jump))
			return -EINVAL;
	}
	return (int)PORT_PROTOS;
}

/* put_exact() - rule @r's elements (rule_elements()), to add with their
 * verdicts */
static void put_exact(struct writer *w, struct nft_chains *k, const struct policy_rule *r)
{
	struct nft_element e[PORT_PROTOS];
	int i, n = rule_elements(k, r, e);
	FILE *f;

	if (n < 0)
		w->err = n;
	for (i = 0; i < n && !w->err; i++) {
		uint32_t addr;
		uint16_t port;

		f = next_element(w, "add", e[i].map == NFT_MAP_HOSTS ? NFTRULES_HOSTS_MAP : NFTRULES_PORTS_MAP);
		if (!f)
			return;
		memcpy(&addr, e[i].key, 4);
		put_addr(f, ntohl(addr));
		if (e[i].map == NFT_MAP_PORTS) {
			memcpy(&port, e[i].key + 8, 2);
			fprintf(f, " . %s . %u", port_protos[i].name, ntohs(port));
		}
		if (e[i].jump[0])
			fprintf(f, " : jump %s", e[i].jump);
		else
			fputs(" : accept", f);
	}
}

/* put_exacts() - every /32 and address+port entry of @p, as elements */
static void put_exacts(struct writer *w, struct nft_chains *k, const struct policy *p)
{
	size_t i;

	for (i = 0; i < p->n && !w->err; i++)
		if (is_exact(&p->rules[i].key))
			put_exact(w, k, &p->rules[i]);
}

static void put_ranges(struct writer *w, struct nft_chains *k, const struct policy *p,
		       const struct nft_range *r, size_t n)
{
	size_t i;

	for (i = 0; i < n && !w->err; i++) {
		FILE *f = next_element(w, "add", "addrs");

		if (!f)
			return;
		put_addr(f, r[i].first);
		if (r[i].last != r[i].first) {
			fputc('-', f);
			put_addr(f, r[i].last);
		}
		fputs(" : ", f);
		if (put_verdict(f, k, &p->rules[r[i].rule].value))
			w->err = -EINVAL;
	}
}

/* put_drop_table() - generation @gen's table gone, or no error if there is
 * none: the "add" first makes the "delete" valid, and in one transaction
 * nothing comes of it */
static void put_drop_table(FILE *f, unsigned int gen)
{
	fprintf(f, "add table inet %s%u\ndelete table inet %s%u\n", NFTRULES_TABLE, gen,
		NFTRULES_TABLE, gen);
}

int nftrules_drop_table(unsigned int gen, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	if (!f)
		return -ENOMEM;
	put_drop_table(f, gen);
	return ferror(f) | fclose(f) ? -ENOMEM : 0;
}

/* put_table() - the generation's table: one chain per kind of denial used
 * (log, then refuse), the maps (empty: the steps after fill them), and the
 * filter chain, not hooked yet */
static void put_table(FILE *f, unsigned int gen, const struct nft_chains *k)
{
	unsigned int reason, len;

	/* "create", not "add": it fails if the table exists. Whatever has
	 * the name (a generation in force that the caller did not know of)
	 * is never overwritten or deleted by this script. */
	fprintf(f, "create table inet %s%u\ntable inet %s%u {\n", NFTRULES_TABLE, gen,
		NFTRULES_TABLE, gen);
	for (reason = 0; reason < REASON_COUNT; reason++) {
		for (len = 0; len <= POLICY_PREFIXLEN_ADDR; len++) {
			if (!k->used[reason][len])
				continue;
			fprintf(f,
				"\tchain deny_%u_%u {\n"
				/* Every denial counted, a flood's logged at a
				 * rate the supervisor keeps up with: the
				 * difference is an exact "lost", as the BPF
				 * engine's sum gives (nftengine_denied()). */
				"\t\tcounter limit rate %u/second burst %u packets "
				"log group %d prefix \"ebpfjail %u %u \"\n"
				/* A dropped SYN is retransmitted until connect()
				 * times out; the ICMP error ends it at once. */
				"\t\tmeta l4proto 6 reject with icmpx admin-prohibited\n"
				"\t\tdrop\n"
				"\t}\n",
				reason, len, NFTRULES_LOG_PER_SECOND, NFTRULES_LOG_PER_SECOND,
				NFTRULES_LOG_GROUP, reason, len);
		}
	}
	/* A connection allowed by name: its conntrack entry is marked, and
	 * the filter accepts marked packets first, so it goes on after the
	 * name's entry expired (the BPF engine's kept_flows). */
	/* The filter accepts the marks in kept_marks: one, the generation's
	 * (nftrules_renew() puts another in place). */
	if (k->kept)
		fprintf(f, "\tchain kept {\n\t\tct mark set 0x%x accept\n\t}\n"
			   "\tset kept_marks {\n\t\ttype mark\n\t\telements = { 0x%x }\n\t}\n",
			k->mark, k->mark);
	fprintf(f,
		"\tmap ports {\n\t\ttype ipv4_addr . inet_proto . inet_service : verdict\n\t}\n"
		"\tmap hosts {\n\t\ttype ipv4_addr : verdict\n\t}\n"
		"\tmap addrs {\n\t\ttype ipv4_addr : verdict\n\t\tflags interval\n\t}\n"
		"}\n");
}

/* put_filter() - the hooked chain of generation @gen and its rules, for
 * the last step. The rules are in the base chain itself: a jump from it
 * to a chain of their own cost measurably more per packet (bench-nft). */
static void put_filter(FILE *f, unsigned int gen, bool keeps_flows)
{
	static const char *const rules[] = {
		/* The jail's own loopback and addresses never leave it (the
		 * socket hooks refuse 0.0.0.0 and the jail's own tap address
		 * instead, where the trie says so: here they stay inside). */
		"oif lo accept",
		/* Where IPv6 cannot be turned off (a container's read-only
		 * /proc/sys), the kernel's own neighbour discovery and MLD
		 * (ICMPv6 to link-scope multicast) are dropped without a
		 * record: the agent cannot send ICMPv6 (no raw socket, no
		 * ping socket), and such packets never leave the link.
		 * Protocols by number: a minimal image has no /etc/protocols. */
		"meta nfproto ipv6 meta l4proto 58 ip6 daddr ff02::/16 drop",
		"meta nfproto ipv6 jump deny_%u_0",
		/* Source routing and friends have no business leaving. */
		"ip hdrlength != 5 jump deny_%u_0",
		/* The output hook sees a datagram before it is cut into
		 * fragments: all of it is judged by its first part's address
		 * and port. A fragment built by hand (a raw socket, which the
		 * agent has no capability for) has no port to match: th
		 * does not match it, and the address alone decides. */
		"ip daddr . meta l4proto . th dport vmap @ports",
		/* The longest prefixes next, as the trie matches: the /32
		 * entries (a name's address, an allow-ip) in a map of their
		 * own, where one answer's addresses are added and taken
		 * away in place, then the ranges of the shorter ones. */
		"ip daddr vmap @hosts",
		"ip daddr vmap @addrs",
	};
	enum { KEPT_BEFORE = 4 }; /* the kept connections' rule: before the maps */
	const unsigned int arg[] = { 0, 0, REASON_IPV6, REASON_IP_OPTIONS, 0, 0, 0 };
	size_t i;

	fprintf(f, "add chain inet %s%u output { type filter hook output priority filter; "
		   "policy accept; }\n", NFTRULES_TABLE, gen);
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		/* A kept connection's packets pass before the maps judge them,
		 * but after the IPv6 and IP-options drops: a connection opened
		 * by name must not carry options the BPF engine drops. Only
		 * with allow-host: a ct expression turns connection tracking
		 * on in the namespace, which every packet then pays for. */
		/* The side door to the host's resolver (ebpfjail.h): the DNS
		 * forward address off lo and pasta's DNS address, refused
		 * whatever the maps say (an allow-ip of them included). */
		if (i == 1) {
			fprintf(f, "add rule inet %s%u output ip daddr { ", NFTRULES_TABLE, gen);
			put_addr(f, JAIL_DNS_FORWARD_ADDR);
			fputs(", ", f);
			put_addr(f, JAIL_PASTA_DNS_ADDR);
			fprintf(f, " } jump deny_%u_32\n", REASON_GATEWAY);
		}
		if (keeps_flows && i == KEPT_BEFORE)
			fprintf(f, "add rule inet %s%u output ct mark @kept_marks accept\n",
				NFTRULES_TABLE, gen);
		fprintf(f, "add rule inet %s%u output ", NFTRULES_TABLE, gen);
		fprintf(f, rules[i], arg[i]);
		fputc('\n', f);
	}
}

int nftrules_script(const struct policy *p, unsigned int gen, uint32_t mark,
		    const unsigned int *old, size_t n_old, struct nft_script *out)
{
	struct writer w = { .out = out, .gen = gen };
	struct nft_chains kinds = { 0 };
	struct nft_range *ranges;
	char *table = NULL;
	size_t n, i, table_len = 0;
	FILE *f;

	memset(out, 0, sizeof(*out));
	kinds.mark = mark ? mark : NFTRULES_KEPT_MARK;
	if (flatten(p, POLICY_PREFIXLEN_ADDR - 1, &ranges, &n))
		return -ENOMEM;
	/* Room for the table first: it is step 0, written once the elements
	 * have said which kinds of denial it needs. */
	out->steps = calloc(1, sizeof(*out->steps));
	out->n = out->steps ? 1 : 0;
	if (!out->steps)
		w.err = -ENOMEM;
	if (!w.err)
		put_exacts(&w, &kinds, p);
	if (!w.err)
		put_ranges(&w, &kinds, p, ranges, n);
	free(ranges);
	kinds.used[REASON_IPV6][0] = kinds.used[REASON_IP_OPTIONS][0] = true;
	kinds.used[REASON_GATEWAY][32] = true; /* put_filter()'s side door */
	/* What a name's answer may put in place (nftrules_change()): its
	 * addresses' jump to the kept chain, a deny-host's block; and what
	 * `ebpfjail deny ADDR[:PORT]` may: without its chain, the user's
	 * deny waited for a whole generation with every name's element
	 * (60-100 ms under an agent's churn of answers, bench/names.sh). */
	kinds.kept |= p->keeps_flows;
	kinds.used[REASON_DENY_HOST][32] = true;
	kinds.used[REASON_BLOCK_CIDR][32] = true; /* ADDR and ADDR:PORT alike */
	/* The swap, in one transaction: the new filter hooked, the old
	 * generation's table gone. Until then the old rules hold. */
	f = begin_step(&w);
	if (f) {
		put_filter(f, gen, kinds.kept);
		for (i = 0; i < n_old; i++)
			put_drop_table(f, old[i]);
	}
	end_step(&w);
	if (!w.err) {
		f = open_memstream(&table, &table_len);
		if (!f) {
			w.err = -ENOMEM;
		} else {
			put_table(f, gen, &kinds);
			if (ferror(f) | fclose(f))
				w.err = -ENOMEM;
		}
		if (!w.err)
			out->steps[0] = table;
		else
			free(table);
	}
	out->chains = kinds;
	if (w.err) {
		nftrules_script_free(out);
		return w.err;
	}
	return 0;
}

void nftrules_script_free(struct nft_script *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->steps[i]);
	free(s->steps);
	s->steps = NULL;
	s->n = 0;
}

/* The elements being written of a change in place. */
struct change_writer {
	struct nft_change *out;
	size_t cap;
	size_t in_step; /* elements in the current step */
	int err;
};

/* change_step() - end the current step (if it has elements) */
static void change_step(struct change_writer *w)
{
	size_t *ends;

	if (w->err || !w->in_step)
		return;
	ends = reallocarray(w->out->step_end, w->out->n_steps + 1, sizeof(*ends));
	if (!ends) {
		w->err = -ENOMEM;
		return;
	}
	ends[w->out->n_steps++] = w->out->n;
	w->out->step_end = ends;
	w->in_step = 0;
}

/* change_element() - room for one more element, in a new step every
 * NFTRULES_ELEMENTS_PER_STEP. Return: it (zeroed), or NULL (w->err). */
static struct nft_element *change_element(struct change_writer *w)
{
	struct nft_element *e;

	if (w->in_step == NFTRULES_ELEMENTS_PER_STEP)
		change_step(w);
	if (w->err)
		return NULL;
	if (w->out->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 8;

		e = reallocarray(w->out->elements, cap, sizeof(*e));
		if (!e) {
			w->err = -ENOMEM;
			return NULL;
		}
		w->out->elements = e;
		w->cap = cap;
	}
	e = &w->out->elements[w->out->n++];
	memset(e, 0, sizeof(*e));
	w->in_step++;
	return e;
}

/* change_exact() - rule @r's elements (rule_elements()) into the change */
static void change_exact(struct change_writer *w, struct nft_chains *k,
			 const struct policy_rule *r)
{
	struct nft_element e[PORT_PROTOS], *to;
	int i, n = rule_elements(k, r, e);

	if (n < 0)
		w->err = n;
	for (i = 0; i < n && !w->err; i++) {
		to = change_element(w);
		if (to)
			*to = e[i];
	}
}

/* change_together() - the next @n elements in one step (one transaction) */
static void change_together(struct change_writer *w, size_t n)
{
	if (w->in_step + n > NFTRULES_ELEMENTS_PER_STEP)
		change_step(w);
}

int nftrules_change(const struct policy *in_force, const struct nft_chains *chains,
		    const struct policy_rule *set, size_t n_set, const struct policy_key *del,
		    size_t n_del, struct nft_change *out)
{
	struct change_writer w = { .out = out };
	struct nft_chains needed = *chains;
	const struct policy_rule *r;
	size_t i;

	memset(out, 0, sizeof(*out));
	/* A shorter prefix is in the flattened ranges, where a change moves
	 * the bounds of others: only a whole generation makes it. */
	for (i = 0; i < n_set; i++)
		if (!is_exact(&set[i].key))
			return -EOPNOTSUPP;
	for (i = 0; i < n_del; i++)
		if (!is_exact(&del[i]))
			return -EOPNOTSUPP;
	/* The additions, then the deletes, as the BPF engine makes them:
	 * a change that spans steps is never looser between two of them
	 * than before and after. The attack the other order opened: an
	 * address+port block (ports) deleted in one step while the /32
	 * block that replaces it (hosts) came in the next, and in between
	 * the port fell to the address's allow. A key whose value changes
	 * is deleted and added in the same step: the kernel refuses an add
	 * over another verdict, and between two transactions its address
	 * would fall to the ranges. */
	for (i = 0; i < n_set && !w.err; i++) {
		r = policy_rule_at(in_force, &set[i].key);
		if (r && !memcmp(&r->value, &set[i].value, sizeof(r->value)))
			continue; /* in force as it is */
		change_together(&w, 2 * PORT_PROTOS);
		if (r)
			change_exact(&w, NULL, r);
		change_exact(&w, &needed, &set[i]);
	}
	for (i = 0; i < n_del && !w.err; i++) {
		r = policy_rule_at(in_force, &del[i]);
		if (r)
			change_exact(&w, NULL, r);
	}
	change_step(&w);
	/* A verdict jumps to a chain the generation lacks: only a whole one
	 * can add it (its rules would count twice in an existing one). */
	if (!w.err && memcmp(&needed, chains, sizeof(needed)))
		w.err = -EOPNOTSUPP;
	if (w.err) {
		nftrules_change_free(out);
		return w.err;
	}
	return 0;
}

void nftrules_change_free(struct nft_change *c)
{
	free(c->elements);
	free(c->step_end);
	memset(c, 0, sizeof(*c));
}

