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

static const struct policy *sorting; /* qsort() has no context argument */

/* by_span() - outer prefixes before the inner ones they contain */
static int by_span(const void *a, const void *b)
{
	const struct policy_key *x = &sorting->rules[*(const size_t *)a].key;
	const struct policy_key *y = &sorting->rules[*(const size_t *)b].key;
	uint32_t fx = first_of(x), fy = first_of(y);

	if (fx != fy)
		return fx < fy ? -1 : 1;
	return (int)x->prefixlen - (int)y->prefixlen;
}

struct ranges {
	struct nft_range *r;
	size_t n;
};

static void emit(struct ranges *out, uint64_t first, uint32_t last, size_t rule)
{
	if (first <= last)
		out->r[out->n++] = (struct nft_range){ (uint32_t)first, last, rule };
}

int nftrules_flatten(const struct policy *p, struct nft_range **out, size_t *n)
{
	size_t *order = calloc(p->n + 1, sizeof(*order)), stack[POLICY_PREFIXLEN_ADDR + 1];
	struct ranges r = { calloc(2 * p->n + 1, sizeof(*r.r)), 0 };
	size_t i, m = 0, depth = 0;
	uint64_t cursor = 0; /* the first address not yet in a range */

	if (!order || !r.r) {
		free(order);
		free(r.r);
		return -ENOMEM;
	}
	for (i = 0; i < p->n; i++)
		if (p->rules[i].key.prefixlen <= POLICY_PREFIXLEN_ADDR)
			order[m++] = i;
	sorting = p;
	qsort(order, m, sizeof(*order), by_span);
	/* A sweep from low addresses to high with the prefixes that contain
	 * the cursor on a stack, innermost on top: prefixes nest or are
	 * disjoint, never overlap otherwise. Each rule opens at most one
	 * range and closes one, so 2n + 1 ranges are room enough. */
	for (i = 0; i < m; i++) {
		const struct policy_key *k = &p->rules[order[i]].key;

		while (depth && last_of(&p->rules[stack[depth - 1]].key) < first_of(k)) {
			uint32_t end = last_of(&p->rules[stack[depth - 1]].key);

			emit(&r, cursor, end, stack[depth - 1]);
			cursor = (uint64_t)end + 1;
			depth--;
		}
		/* What the enclosing prefix holds before this one starts; a
		 * gap with none is the internet, in no range. */
		if (cursor < first_of(k)) {
			if (depth)
				emit(&r, cursor, first_of(k) - 1, stack[depth - 1]);
			cursor = first_of(k);
		}
		stack[depth++] = order[i];
	}
	while (depth) {
		uint32_t end = last_of(&p->rules[stack[depth - 1]].key);

		emit(&r, cursor, end, stack[depth - 1]);
		cursor = (uint64_t)end + 1;
		depth--;
	}
	free(order);
	*out = r.r;
	*n = r.n;
	return 0;
}

/* The kinds of denial: one chain each, named by reason and prefix length. */
struct kinds {
	bool used[REASON_COUNT][POLICY_PREFIXLEN_ADDR + 1];
};

static void put_verdict(FILE *f, struct kinds *k, const struct policy_value *v)
{
	if (v->action == JAIL_ALLOW) {
		fputs("accept", f);
		return;
	}
	k->used[v->reason % REASON_COUNT][v->prefixlen % (POLICY_PREFIXLEN_ADDR + 1)] = true;
	fprintf(f, "jump deny_%u_%u", v->reason % REASON_COUNT,
		v->prefixlen % (POLICY_PREFIXLEN_ADDR + 1));
}

static void put_addr(FILE *f, uint32_t host_order)
{
	char text[NETADDR_CIDR_STRLEN];

	netaddr_format(htonl(host_order), text);
	fputs(text, f);
}

/* put_ports() - the address+port entries, every protocol with ports they
 * hold for. One for a single protocol (the DNS exception where pasta does
 * not forward TCP) refuses the other as the trie does: reason gateway,
 * rule ADDR/32. */
static void put_ports(FILE *f, struct kinds *k, const struct policy *p)
{
	static const struct policy_value other = { .action = JAIL_DENY, .reason = REASON_GATEWAY,
						   .prefixlen = 32 };
	static const struct { uint8_t proto; const char *name; } protos[] = {
		{ IPPROTO_TCP, "tcp" }, { IPPROTO_UDP, "udp" },
	};
	const char *sep = "\t\telements = { ";
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		const struct policy_rule *r = &p->rules[i];

		if (r->key.prefixlen != POLICY_PREFIXLEN_PORT)
			continue;
		for (j = 0; j < sizeof(protos) / sizeof(protos[0]); j++) {
			bool holds = !r->value.proto || r->value.proto == protos[j].proto;

			fputs(sep, f);
			put_addr(f, ntohl(r->key.addr));
			fprintf(f, " . %s . %u : ", protos[j].name, ntohs(r->key.port));
			put_verdict(f, k, holds ? &r->value : &other);
			sep = ",\n\t\t\t";
		}
	}
	if (strcmp(sep, "\t\telements = { "))
		fputs(" }\n", f);
}

static void put_ranges(FILE *f, struct kinds *k, const struct policy *p,
		       const struct nft_range *r, size_t n)
{
	const char *sep = "\t\telements = { ";
	size_t i;

	for (i = 0; i < n; i++) {
		fputs(sep, f);
		put_addr(f, r[i].first);
		if (r[i].last != r[i].first) {
			fputc('-', f);
			put_addr(f, r[i].last);
		}
		fputs(" : ", f);
		put_verdict(f, k, &p->rules[r[i].rule].value);
		sep = ",\n\t\t\t";
	}
	if (n)
		fputs(" }\n", f);
}

/* put_chains() - one chain per kind of denial used: log, then refuse */
static void put_chains(FILE *f, const struct kinds *k)
{
	unsigned int reason, len;

	for (reason = 0; reason < REASON_COUNT; reason++) {
		for (len = 0; len <= POLICY_PREFIXLEN_ADDR; len++) {
			if (!k->used[reason][len])
				continue;
			fprintf(f,
				"\tchain deny_%u_%u {\n"
				"\t\tlog group %d prefix \"ebpfjail %u %u \"\n"
				/* A dropped SYN is retransmitted until connect()
				 * times out; the ICMP error ends it at once. */
				"\t\tmeta l4proto tcp reject with icmpx admin-prohibited\n"
				"\t\tdrop\n"
				"\t}\n",
				reason, len, NFTRULES_LOG_GROUP, reason, len);
		}
	}
}

char *nftrules_format(const struct policy *p)
{
	struct kinds kinds = { 0 };
	struct nft_range *ranges;
	char *maps = NULL, *text = NULL;
	size_t n, maps_len = 0, text_len = 0;
	FILE *f;

	if (nftrules_flatten(p, &ranges, &n))
		return NULL;
	/* The maps first, so that the kinds of denial they use are known
	 * when the chains are written before them. */
	f = open_memstream(&maps, &maps_len);
	if (!f) {
		free(ranges);
		return NULL;
	}
	fputs("\tmap ports {\n\t\ttype ipv4_addr . inet_proto . inet_service : verdict\n", f);
	put_ports(f, &kinds, p);
	fputs("\t}\n\tmap addrs {\n\t\ttype ipv4_addr : verdict\n\t\tflags interval\n", f);
	put_ranges(f, &kinds, p, ranges, n);
	fputs("\t}\n", f);
	free(ranges);
	kinds.used[REASON_IPV6][0] = kinds.used[REASON_IP_OPTIONS][0] = true;
	if (fclose(f))
		goto fail;
	f = open_memstream(&text, &text_len);
	if (!f)
		goto fail;
	fprintf(f, "table inet %s {\n", NFTRULES_TABLE);
	put_chains(f, &kinds);
	fputs(maps, f);
	fprintf(f,
		"\tchain output {\n"
		"\t\ttype filter hook output priority filter; policy accept;\n"
		/* The jail's own loopback and addresses never leave it. */
		"\t\toif lo accept\n"
		"\t\tmeta nfproto ipv6 jump deny_%u_0\n"
		/* Source routing and friends have no business leaving. */
		"\t\tip hdrlength != 5 jump deny_%u_0\n"
		/* Later fragments carry no port: th does not match them, so
		 * they are judged on the address alone, as by the trie. */
		"\t\tip daddr . meta l4proto . th dport vmap @ports\n"
		"\t\tip daddr vmap @addrs\n"
		"\t}\n"
		"}\n",
		REASON_IPV6, REASON_IP_OPTIONS);
	if (fclose(f)) {
		free(text);
		text = NULL;
	}
fail:
	free(maps);
	return text;
}
