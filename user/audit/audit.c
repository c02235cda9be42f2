// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* audit.c - audit records as JSON lines: written (pure) and read back */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "audit.h"
#include "dnsmsg.h"
#include "builtin.h"
#include "netaddr.h"
#include "textbuf.h"

/* put_json_string() - the agent names its own threads (PR_SET_NAME takes any
 * bytes): escape everything but printable ASCII, so a comm cannot end the
 * line early and forge a record, or put invalid UTF-8 in the log. */
/* plain() - may @c stand for itself in a record's string (@also: more
 * that may not)? */
static bool plain(unsigned char c, const char *also)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && !strchr(also, c);
}

static void put_escaped(struct textbuf *o, const char *s, size_t max, const char *also)
{
	size_t i = 0, run;

	textbuf_literal(o, "\"");
	while (i < max && s[i]) {
		unsigned char c = (unsigned char)s[i];

		/* Plain characters a run at a time, one copy: a record goes
		 * with each answer, while the next query waits. */
		for (run = i; run < max && s[run] && plain((unsigned char)s[run], also); run++)
			;
		if (run > i) {
			textbuf_append(o, s + i, run - i);
			i = run;
		} else {
			textbuf_put(o, c == '"' || c == '\\' ? "\\%c" : "\\u%04x", c);
			i++;
		}
	}
	textbuf_literal(o, "\"");
}

static void put_json_string(struct textbuf *o, const char *s, size_t max)
{
	put_escaped(o, s, max, "");
}

void audit_json_string(const char *s, char *buf, size_t size)
{
	struct textbuf o = { buf, size, 0, false };

	put_json_string(&o, s, strlen(s));
}

/* put_stamp() - @t as RFC 3339, UTC, microseconds, quoted. The date and
 * time of day are the last call's while the second is: records come in
 * bursts (an answer each), and gmtime_r() and strftime() cost a record
 * more than the rest of it. */
static void put_stamp(struct textbuf *o, struct timespec t)
{
	static __thread time_t last = -1;
	static __thread char date[32];
	char frac[24];
	struct tm tm;

	if (t.tv_sec != last) {
		gmtime_r(&t.tv_sec, &tm);
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
		last = t.tv_sec;
	}
	snprintf(frac, sizeof(frac), ".%06ldZ\"", t.tv_nsec / 1000);
	textbuf_literal(o, "\"");
	textbuf_append(o, date, strlen(date));
	textbuf_append(o, frac, strlen(frac));
}

static void put_time(struct textbuf *o, struct timespec t)
{
	textbuf_literal(o, "{\"time\": ");
	put_stamp(o, t);
}

struct timespec audit_event_wall_time(uint64_t boot_ns)
{
	/* Wall minus boot clock, taken once: sampling both clocks per event
	 * jitters by a microsecond, which would put lines out of order. */
	static int64_t offset;
	struct timespec t;
	int64_t wall;

	if (!offset) {
		struct timespec real, boot;

		clock_gettime(CLOCK_REALTIME, &real);
		clock_gettime(CLOCK_BOOTTIME, &boot);
		offset = ((int64_t)real.tv_sec - boot.tv_sec) * 1000000000LL +
			 (real.tv_nsec - boot.tv_nsec);
	}
	wall = (int64_t)boot_ns + offset;
	t.tv_sec = (time_t)(wall / 1000000000LL);
	t.tv_nsec = (long)(wall % 1000000000LL);
	return t;
}

static const char *proto_name(unsigned int p, char *buf, size_t size)
{
	switch (p) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_ICMP:
		return "icmp";
	default:
		snprintf(buf, size, "%u", p);
		return buf;
	}
}

bool audit_event_is_unix(const struct jail_event *e)
{
	return e->hook == HOOK_CONNECT_UNIX || e->hook == HOOK_SENDMSG_UNIX;
}

/* put_count() - a count record's tail (ebpfjail.h, "Aggregation"), and
 * the line's end */
static void put_count(struct textbuf *o, uint64_t count, struct timespec first)
{
	if (count) {
		textbuf_put(o, ", \"count\": %llu, \"first\": ", (unsigned long long)count);
		put_stamp(o, first);
	}
	textbuf_put(o, "}\n");
}

size_t audit_format_event(const struct jail_event *e, const char *jail, struct timespec wall,
			  char *buf, size_t size)
{
	struct timespec none = { 0 };

	return audit_format_denial(e, 0, none, jail, NULL, wall, buf, size);
}

size_t audit_format_denial(const struct jail_event *e, uint64_t count, struct timespec first,
			   const char *jail, const char *host, struct timespec wall, char *buf,
			   size_t size)
{
	struct textbuf o = { buf, size, 0, false };
	char addr[INET6_ADDRSTRLEN], rule[NETADDR_CIDR_STRLEN], proto[8];
	const char *hook = hook_name(e->hook), *reason = reason_name(e->reason);

	put_time(&o, wall);
	textbuf_put(&o, ", \"jail\": ");
	put_json_string(&o, jail, 64);
	if (e->hook == HOOK_NFT_OUTPUT) {
		/* NFLOG knows the socket, not who sent through it (nflog.h). */
		textbuf_put(&o, ", \"pid\": null, \"comm\": null");
	} else {
		textbuf_put(&o, ", \"pid\": %u, \"comm\": ", e->pid);
		put_json_string(&o, e->comm, sizeof(e->comm));
	}
	if (e->uid == JAIL_ID_UNKNOWN)
		textbuf_put(&o, ", \"uid\": null, \"proto\": ");
	else
		textbuf_put(&o, ", \"uid\": %u, \"proto\": ", e->uid);
	if (audit_event_is_unix(e)) {
		/* The path instead of daddr and dport. The agent chose its
		 * bytes, as it chose its comm: escaped the same way. No rule:
		 * a path is denied unless an entry allows it. */
		textbuf_put(&o, "\"unix\", \"path\": ");
		put_json_string(&o, e->path, sizeof(e->path));
		textbuf_put(&o, ", \"hook\": \"%s\", \"reason\": \"%s\", \"rule\": null",
			    hook ? hook : "?", reason ? reason : "?");
		put_count(&o, count, first);
		return o.len;
	}
	if (e->proto == IPPROTO_TCP || e->proto == IPPROTO_UDP || e->proto == IPPROTO_ICMP)
		textbuf_put(&o, "\"%s\"", proto_name(e->proto, proto, sizeof(proto)));
	else
		textbuf_put(&o, "%u", e->proto);
	if (e->reason == REASON_IPV6 || e->reason == REASON_NON_IPV4) {
		if (e->reason == REASON_IPV6)
			inet_ntop(AF_INET6, e->daddr6, addr, sizeof(addr));
		else
			snprintf(addr, sizeof(addr), "%s", "");
		textbuf_put(&o, ", \"daddr\": \"%s\"", addr);
	} else {
		netaddr_format(e->daddr, addr);
		textbuf_put(&o, ", \"daddr\": \"%s\"", addr);
	}
	if (e->family == AF_INET6)
		textbuf_put(&o, ", \"family\": \"inet6\"");
	textbuf_put(&o, ", \"dport\": %u, \"hook\": \"%s\", \"reason\": \"%s\", \"rule\": ", e->dport,
	    hook ? hook : "?", reason ? reason : "?");
	/* netns: no prefix matched, the namespace decided (ebpfjail.h). */
	if (e->reason == REASON_IPV6 || e->reason == REASON_NON_IPV4 ||
	    e->reason == REASON_IP_OPTIONS || e->reason == REASON_NETNS) {
		textbuf_put(&o, "null");
	} else {
		uint32_t net = htonl(ntohl(e->daddr) & netaddr_mask(e->rule_prefixlen));

		netaddr_format_cidr(net, e->rule_prefixlen, rule);
		textbuf_put(&o, "\"%s\"", rule);
	}
	if (host) {
		textbuf_put(&o, ", \"host\": ");
		put_json_string(&o, host, DNS_NAME_MAX + 1);
	}
	put_count(&o, count, first);
	return o.len;
}

size_t audit_format_policy(const char *jail, const char *action, const char *change,
			   unsigned long uid, struct timespec wall, char *buf, size_t size)
{
	struct textbuf o = { buf, size, 0, false };

	put_time(&o, wall);
	textbuf_put(&o, ", \"jail\": ");
	put_json_string(&o, jail, 64);
	textbuf_put(&o, ", \"policy\": ");
	put_json_string(&o, action, 16);
	textbuf_put(&o, ", \"change\": ");
	put_json_string(&o, change, AUDIT_CHANGE_MAX);
	textbuf_put(&o, ", \"uid\": %lu}\n", uid);
	return o.len;
}

/* put_addrs() - "[\"a\", \"b\"]" */
static void put_addrs(struct textbuf *o, const uint32_t *addrs, size_t n)
{
	char a[NETADDR_CIDR_STRLEN];
	size_t i;

	textbuf_literal(o, "[");
	for (i = 0; i < n; i++) {
		netaddr_format(addrs[i], a);
		if (i)
			textbuf_literal(o, ", ");
		textbuf_literal(o, "\"");
		textbuf_append(o, a, strlen(a));
		textbuf_literal(o, "\"");
	}
	textbuf_literal(o, "]");
}

size_t audit_format_dns(const char *jail, const char *name, const struct dns_answer *a,
			uint16_t port, const uint32_t *addrs, size_t n, const uint32_t *refused,
			size_t n_refused, bool held, uint32_t ttl, struct timespec wall, char *buf,
			size_t size)
{
	struct textbuf o = { buf, size, 0, false };
	size_t i;

	put_time(&o, wall);
	textbuf_literal(&o, ", \"jail\": ");
	put_json_string(&o, jail, 64);
	textbuf_literal(&o, ", \"dns\": ");
	put_json_string(&o, name, DNS_NAME_MAX + 1);
	/* The names its CNAMEs led to: the zones that really answered
	 * (one outside the asked name's opens the internet only). */
	if (a && a->n_cname) {
		textbuf_literal(&o, ", \"cname\": [");
		/* A resolver's names may hold any byte but a dot: brackets
		 * escaped too, so that one cannot end the list early for a
		 * reader that looks for "]" (audit_parse_line()). */
		for (i = 0; i < a->n_cname; i++) {
			textbuf_put(&o, i ? ", " : "");
			put_escaped(&o, a->cname[i], DNS_NAME_MAX + 1, "[]");
		}
		textbuf_literal(&o, "]");
	}
	textbuf_literal(&o, ", \"addrs\": ");
	put_addrs(&o, addrs, n);
	if (n_refused) {
		textbuf_literal(&o, ", \"refused\": ");
		put_addrs(&o, refused, n_refused);
	}
	if (held)
		textbuf_literal(&o, ", \"held\": true");
	if (port)
		textbuf_put(&o, ", \"port\": %u, \"ttl\": %u}\n", port, ttl);
	else
		textbuf_put(&o, ", \"port\": null, \"ttl\": %u}\n", ttl);
	return o.len;
}

size_t audit_format_dns_denial(const char *jail, const char *name, uint16_t qtype,
			       const char *rule, uint64_t count, struct timespec first,
			       struct timespec wall, char *buf, size_t size)
{
	struct textbuf o = { buf, size, 0, false };
	char type[DNS_TYPE_NAME_MAX];

	put_time(&o, wall);
	textbuf_put(&o, ", \"jail\": ");
	put_json_string(&o, jail, 64);
	/* The agent chose the name's every byte: escaped, as a comm is. */
	textbuf_put(&o, ", \"pid\": null, \"comm\": null, \"uid\": null, \"proto\": \"dns\", "
		    "\"name\": ");
	put_json_string(&o, name, DNS_NAME_MAX + 1);
	textbuf_put(&o, ", \"qtype\": \"%s\", \"hook\": \"dns\", \"reason\": \"dns\", \"rule\": ",
		    dnsmsg_type_name(qtype, type));
	put_json_string(&o, rule, 32);
	put_count(&o, count, first);
	return o.len;
}

size_t audit_format_lost(const char *jail, uint64_t lost, unsigned int reason,
			 struct timespec wall, char *buf, size_t size)
{
	struct textbuf o = { buf, size, 0, false };
	const char *name = reason_name(reason);

	put_time(&o, wall);
	textbuf_put(&o, ", \"jail\": ");
	put_json_string(&o, jail, 64);
	textbuf_put(&o, ", \"lost\": %llu", (unsigned long long)lost);
	if (name)
		textbuf_put(&o, ", \"reason\": \"%s\"", name);
	textbuf_put(&o, "}\n");
	return o.len;
}

/* --- reading ---------------------------------------------------------------- */

/* json_string() - parse a JSON string at @p into @out; Return: past it, or NULL */
static const char *json_string(const char *p, char *out, size_t size)
{
	size_t o = 0;

	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		char c = *p;

		if (c == '\\') {
			p++;
			if (*p == 'u') {
				unsigned int v;

				if (sscanf(p + 1, "%4x", &v) != 1)
					return NULL;
				c = v < 0x80 ? (char)v : '?';
				p += 4;
			} else if (*p == 'n') {
				c = '\n';
			} else if (*p) {
				c = *p;
			} else {
				return NULL;
			}
		}
		if (o + 1 < size)
			out[o++] = c;
	}
	if (*p != '"')
		return NULL;
	out[o] = '\0';
	return p + 1;
}

/* copy_text() - as much of @src as fits, always terminated */
static void copy_text(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int parse_time(const char *s, struct timespec *t)
{
	struct tm tm = { 0 };
	long usec = 0;
	const char *rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);

	if (!rest)
		return -EINVAL;
	if (*rest == '.')
		usec = strtol(rest + 1, NULL, 10);
	t->tv_sec = timegm(&tm);
	t->tv_nsec = usec * 1000;
	return 0;
}

/* unknown() - a field the log says is null: not 0 (that would be root's
 * uid), but AUDIT_UNKNOWN, or an empty comm */
static void unknown(struct audit_record *r, const char *key)
{
	if (!strcmp(key, "pid"))
		r->pid = AUDIT_UNKNOWN;
	else if (!strcmp(key, "uid"))
		r->uid = AUDIT_UNKNOWN;
	else
		r->comm[0] = '\0';
}

int audit_parse_line(const char *line, struct audit_record *r)
{
	const char *p = line;
	bool have_time = false;

	memset(r, 0, sizeof(*r));
	while (*p == ' ')
		p++;
	if (*p++ != '{')
		return -EINVAL;
	for (;;) {
		char key[32], text[AUDIT_DNS_LINE_MAX]; /* a dns record's lists, the longest */
		bool quoted;

		while (*p == ' ' || *p == ',')
			p++;
		if (*p == '}')
			break;
		p = json_string(p, key, sizeof(key));
		if (!p)
			return -EINVAL;
		while (*p == ' ' || *p == ':')
			p++;
		quoted = *p == '"';
		if (*p == '[') { /* a list of strings (a dns record's addrs) */
			size_t n = strcspn(p, "]");

			if (!p[n] || n >= sizeof(text))
				return -EINVAL;
			memcpy(text, p + 1, n - 1);
			text[n - 1] = '\0';
			p += n + 1;
		} else if (quoted) {
			p = json_string(p, text, sizeof(text));
			if (!p)
				return -EINVAL;
		} else {
			size_t n = strcspn(p, ",}");

			if (n >= sizeof(text))
				return -EINVAL;
			memcpy(text, p, n);
			text[n] = '\0';
			p += n;
		}
#define TEXT(field) copy_text(r->field, sizeof(r->field), text)
		if (!strcmp(key, "time"))
			have_time = parse_time(text, &r->time) == 0;
		else if (!strcmp(key, "jail"))
			TEXT(jail);
		else if (!quoted && !strcmp(text, "null") &&
			 (!strcmp(key, "pid") || !strcmp(key, "uid") || !strcmp(key, "comm")))
			unknown(r, key); /* the rootless engine's: no process */
		else if (!strcmp(key, "pid"))
			r->pid = strtoul(text, NULL, 10);
		else if (!strcmp(key, "uid"))
			r->uid = strtoul(text, NULL, 10);
		else if (!strcmp(key, "dport"))
			r->dport = strtoul(text, NULL, 10);
		else if (!strcmp(key, "count"))
			r->count = strtoul(text, NULL, 10);
		else if (!strcmp(key, "lost")) {
			r->lost = strtoul(text, NULL, 10);
			r->is_lost = true;
		} else if (!strcmp(key, "comm"))
			TEXT(comm);
		else if (!strcmp(key, "proto"))
			TEXT(proto);
		else if (!strcmp(key, "daddr"))
			TEXT(daddr);
		else if (!strcmp(key, "path"))
			TEXT(path);
		else if (!strcmp(key, "family"))
			TEXT(family);
		else if (!strcmp(key, "hook"))
			TEXT(hook);
		else if (!strcmp(key, "reason"))
			TEXT(reason);
		else if (!strcmp(key, "policy")) {
			TEXT(policy);
			r->is_policy = true;
		} else if (!strcmp(key, "change"))
			TEXT(change);
		else if (!strcmp(key, "host") || !strcmp(key, "name"))
			TEXT(host);
		else if (!strcmp(key, "qtype"))
			TEXT(qtype);
		else if (!strcmp(key, "dns")) {
			TEXT(host);
			r->is_dns = true;
		} else if (!strcmp(key, "addrs"))
			TEXT(addrs);
		else if (!strcmp(key, "refused"))
			TEXT(refused);
		else if (!strcmp(key, "held"))
			r->held = !quoted && !strcmp(text, "true");
		else if (!strcmp(key, "port")) /* a dns record's; null: every port */
			r->dport = strtoul(text, NULL, 10);
		else if (!strcmp(key, "ttl"))
			r->ttl = strtoul(text, NULL, 10);
		else if (!strcmp(key, "rule"))
			copy_text(r->rule, sizeof(r->rule), strcmp(text, "null") ? text : "");
#undef TEXT
	}
	return have_time && r->jail[0] ? 0 : -EINVAL;
}

int audit_parse_since(const char *text, time_t now, time_t *out)
{
	static const struct {
		char unit;
		long seconds;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
	struct tm tm = { 0 };
	const char *rest;
	char *end;
	long n;
	size_t i;

	n = strtol(text, &end, 10);
	if (end != text && n >= 0 && end[0] && !end[1]) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (*end == units[i].unit) {
				*out = now - n * units[i].seconds;
				return 0;
			}
		return -EINVAL;
	}
	rest = strptime(text, "%Y-%m-%dT%H:%M", &tm);
	if (rest && *rest == ':')
		rest = strptime(rest + 1, "%S", &tm);
	if (!rest || *rest)
		return -EINVAL;
	tm.tm_isdst = -1; /* a local time, as people type it */
	*out = mktime(&tm);
	return *out == (time_t)-1 ? -EINVAL : 0;
}
