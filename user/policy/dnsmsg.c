// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dnsmsg.c - DNS messages as the jail's forwarder reads them (pure) */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dnsmsg.h"

#define DNS_JUMPS_MAX 127 /* the most labels a name of 253 bytes can have */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* read_name() - the name at @off into @out (lower case, dotted, no final
 * dot), following compression pointers, each strictly backwards (so a
 * loop cannot be), and the offset just past it where it is written in
 * place into @end. Return: 0 or -EINVAL. */
static int read_name(const uint8_t *msg, size_t len, size_t off, char out[DNS_NAME_MAX + 1],
		     size_t *end)
{
	size_t used = 0, pos = off, limit = off;
	unsigned int jumps = 0;
	bool jumped = false;

	for (;;) {
		uint8_t n;

		if (pos >= len)
			return -EINVAL;
		n = msg[pos];
		if ((n & 0xc0) == 0xc0) {
			size_t to;

			if (pos + 1 >= len)
				return -EINVAL;
			to = (size_t)(n & 0x3f) << 8 | msg[pos + 1];
			/* Only backwards, and before where this name began:
			 * every jump makes progress towards the start. And
			 * few: a name has at most DNS_JUMPS_MAX labels, and a
			 * chain of thousands of pointers per record would
			 * cost a resolver's answer milliseconds each. */
			if (to >= limit || ++jumps > DNS_JUMPS_MAX)
				return -EINVAL;
			if (!jumped)
				*end = pos + 2;
			jumped = true;
			limit = to;
			pos = to;
			continue;
		}
		if (n & 0xc0)
			return -EINVAL; /* the reserved label types */
		if (n == 0)
			break;
		if (pos + 1 + n > len || used + n + (used ? 1 : 0) > DNS_NAME_MAX)
			return -EINVAL;
		if (used)
			out[used++] = '.';
		for (size_t i = 0; i < n; i++) {
			unsigned char c = msg[pos + 1 + i];

			/* A dot or NUL inside a label would make two names one. */
			if (c == '.' || c == '\0')
				return -EINVAL;
			out[used++] = (char)tolower(c);
		}
		pos += 1 + (size_t)n;
	}
	out[used] = '\0';
	if (!jumped)
		*end = pos + 1;
	return 0;
}

bool dnsmsg_name_is_host(const char *name)
{
	const char *p;

	if (!*name)
		return false;
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return false;
	return true;
}

int dnsmsg_question(const uint8_t *msg, size_t len, struct dns_question *q)
{
	size_t end;

	if (len < DNS_HEADER_LEN || get16(msg + 4) != 1)
		return -EINVAL;
	q->id = get16(msg);
	q->flags = get16(msg + 2);
	if (read_name(msg, len, DNS_HEADER_LEN, q->name, &end) || end + 4 > len)
		return -EINVAL;
	q->type = get16(msg + end);
	q->class = get16(msg + end + 2);
	q->end = end + 4;
	return 0;
}

int dnsmsg_answer(const uint8_t *msg, size_t len, struct dns_answer *a)
{
	char want[DNS_CNAME_DEPTH + 1][DNS_NAME_MAX + 1];
	struct dns_question q;
	unsigned int ancount, i, n_want = 1, j;
	size_t pos;

	memset(a, 0, sizeof(*a));
	if (dnsmsg_question(msg, len, &q) || !(get16(msg + 2) & DNS_FLAG_QR))
		return -EINVAL;
	a->rcode = msg[3] & 0x0f;
	if (a->rcode != DNS_RCODE_NOERROR)
		return 0; /* an error's records (NXDOMAIN, SERVFAIL) allow nothing */
	a->ttl = UINT32_MAX;
	memcpy(want[0], q.name, sizeof(q.name));
	ancount = get16(msg + 6);
	pos = q.end;
	for (i = 0; i < ancount; i++) {
		char owner[DNS_NAME_MAX + 1];
		uint16_t type, class, rdlen;
		uint32_t ttl;
		bool ours = false;

		if (read_name(msg, len, pos, owner, &pos) || pos + 10 > len)
			return -EINVAL;
		type = get16(msg + pos);
		class = get16(msg + pos + 2);
		ttl = get32(msg + pos + 4);
		if (ttl & 0x80000000U)
			ttl = 0; /* RFC 2181 8: the top bit set means 0 */
		rdlen = get16(msg + pos + 8);
		pos += 10;
		if (pos + rdlen > len)
			return -EINVAL;
		for (j = 0; j < n_want && !ours; j++)
			ours = !strcmp(owner, want[j]);
		if (ours && class == DNS_CLASS_IN && type == DNS_TYPE_CNAME &&
		    n_want <= DNS_CNAME_DEPTH) {
			size_t ignored;

			if (read_name(msg, pos + rdlen, pos, want[n_want], &ignored))
				return -EINVAL;
			n_want++;
			a->ttl = ttl < a->ttl ? ttl : a->ttl;
		} else if (ours && class == DNS_CLASS_IN && type == DNS_TYPE_A && rdlen == 4) {
			if (a->n < DNS_ADDRS_MAX) {
				memcpy(&a->addrs[a->n++], msg + pos, 4);
				a->ttl = ttl < a->ttl ? ttl : a->ttl;
			} else {
				a->truncated_list = true;
			}
		}
		pos += rdlen;
	}
	if (!a->n)
		a->ttl = 0;
	for (j = 1; j < n_want; j++)
		memcpy(a->cname[a->n_cname++], want[j], sizeof(want[j]));
	return 0;
}

/* ends_below() - is @name @zone itself or a name below it? */
static bool ends_below(const char *name, const char *zone)
{
	size_t nl = strlen(name), zl = strlen(zone);

	if (nl == zl)
		return !strcasecmp(name, zone);
	return nl > zl && name[nl - zl - 1] == '.' && !strcasecmp(name + nl - zl, zone);
}

bool dnsmsg_in_zone(const char *asked, const char *name)
{
	const char *parent = strchr(asked, '.');

	if (parent && strchr(parent + 1, '.'))
		return ends_below(name, parent + 1);
	return ends_below(name, asked);
}

int dnsmsg_empty_answer(const uint8_t *query, size_t len, uint8_t rcode, uint8_t *out,
			size_t size)
{
	struct dns_question q;
	uint16_t flags;

	if (dnsmsg_question(query, len, &q) || (get16(query + 2) & DNS_FLAG_QR))
		return -EINVAL;
	if (q.end > size)
		return -ENOSPC;
	memcpy(out, query, q.end);
	flags = (uint16_t)(DNS_FLAG_QR | (get16(query + 2) & DNS_FLAG_RD) | DNS_FLAG_RA);
	out[2] = (uint8_t)(flags >> 8);
	out[3] = (uint8_t)(flags | (rcode & 0x0f));
	memset(out + 6, 0, 6);   /* no answer, authority or additional records */
	return (int)q.end;
}

int dnsmsg_check_query(const uint8_t *msg, size_t len, struct dns_question *q)
{
	unsigned int opcode;

	if (len < DNS_HEADER_LEN || (get16(msg + 2) & DNS_FLAG_QR) || dnsmsg_question(msg, len, q))
		return -EINVAL;
	opcode = (get16(msg + 2) >> 11) & 0x0f;
	if (opcode != 0 || get16(msg + 6) || get16(msg + 8) || get16(msg + 10) > 1)
		return DNS_RCODE_NOTIMP;
	/* The one additional record may be EDNS's OPT only (owner the root,
	 * the message's last bytes): any other record of the agent's choice
	 * would reach the resolver with it. */
	if (get16(msg + 10) &&
	    (q->end + 11 > len || msg[q->end] || get16(msg + q->end + 1) != DNS_TYPE_OPT ||
	     q->end + 11 + get16(msg + q->end + 9) != len))
		return DNS_RCODE_NOTIMP;
	if (q->type == DNS_TYPE_AXFR || q->type == DNS_TYPE_IXFR)
		return DNS_RCODE_REFUSED;
	return 0;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

int dnsmsg_build_query(const struct dns_question *q, uint16_t udp_size, bool dnssec_ok,
		       uint8_t *out, size_t size)
{
	const char *label = q->name;
	size_t pos = DNS_HEADER_LEN;

	if (size < DNS_HEADER_LEN + strlen(q->name) + 2 + 4 + 11)
		return -ENOSPC;
	memset(out, 0, DNS_HEADER_LEN);
	put16(out + 2, DNS_FLAG_RD);
	put16(out + 4, 1);
	put16(out + 10, udp_size ? 1 : 0);
	while (*label) { /* "" is the root: no label */
		size_t n = strcspn(label, ".");

		if (!n || n > 63)
			return -EINVAL;
		out[pos++] = (uint8_t)n;
		memcpy(out + pos, label, n);
		pos += n;
		label += n + (label[n] == '.');
	}
	out[pos++] = 0;
	put16(out + pos, q->type);
	put16(out + pos + 2, q->class);
	pos += 4;
	if (udp_size) {
		out[pos] = 0; /* the root */
		put16(out + pos + 1, DNS_TYPE_OPT);
		put16(out + pos + 3, udp_size);
		memset(out + pos + 5, 0, 6); /* extended rcode, version, flags, no data */
		if (dnssec_ok)
			out[pos + 7] = 0x80;
		pos += 11;
	}
	return (int)pos;
}

void dnsmsg_query_edns(const uint8_t *msg, size_t len, const struct dns_question *q,
		       uint16_t *udp_size, bool *dnssec_ok)
{
	*udp_size = 0;
	*dnssec_ok = false;
	if (len < DNS_HEADER_LEN || !get16(msg + 10) || q->end + 11 > len)
		return;
	*udp_size = get16(msg + q->end + 3);
	*dnssec_ok = msg[q->end + 7] & 0x80;
}

bool dnsmsg_is_answer_to(const struct dns_question *q, uint16_t id, const uint8_t *msg,
			 size_t len)
{
	struct dns_question aq;

	return len >= DNS_HEADER_LEN && (get16(msg + 2) & DNS_FLAG_QR) && get16(msg) == id &&
	       !dnsmsg_question(msg, len, &aq) && aq.type == q->type && aq.class == q->class &&
	       !strcmp(aq.name, q->name);
}

uint16_t dnsmsg_id(const uint8_t *msg)
{
	return get16(msg);
}

void dnsmsg_set_id(uint8_t *msg, uint16_t id)
{
	msg[0] = (uint8_t)(id >> 8);
	msg[1] = (uint8_t)id;
}

/* trimmed_len() - @s's length without one final dot */
static size_t trimmed_len(const char *s)
{
	size_t n = strlen(s);

	return n && s[n - 1] == '.' ? n - 1 : n;
}

bool dnsmsg_name_matches(const char *pattern, const char *name)
{
	size_t pl = trimmed_len(pattern), nl = trimmed_len(name);

	if (pl >= 2 && pattern[0] == '*' && pattern[1] == '.') {
		/* "*.example.org": a name that ends in ".example.org", with at
		 * least one label before it. */
		size_t sl = pl - 1; /* ".example.org" */

		return nl > sl && !strncasecmp(name + nl - sl, pattern + 1, sl);
	}
	return pl == nl && !strncasecmp(pattern, name, pl);
}

const char *dnsmsg_type_name(uint16_t type, char buf[DNS_TYPE_NAME_MAX])
{
	static const struct {
		uint16_t type;
		const char *name;
	} names[] = {
		{ 1, "A" },     { 2, "NS" },     { 5, "CNAME" },  { 6, "SOA" },   { 12, "PTR" },
		{ 13, "HINFO" }, { 15, "MX" },   { 16, "TXT" },   { 28, "AAAA" }, { 33, "SRV" },
		{ 35, "NAPTR" }, { 43, "DS" },   { 48, "DNSKEY" }, { 64, "SVCB" }, { 65, "HTTPS" },
		{ 99, "SPF" },  { 251, "IXFR" }, { 252, "AXFR" }, { 255, "ANY" }, { 257, "CAA" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type)
			return strcpy(buf, names[i].name);
	snprintf(buf, DNS_TYPE_NAME_MAX, "TYPE%u", type);
	return buf;
}
