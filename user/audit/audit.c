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

/* json_list() - a list of strings and numbers at @p ('[') into @out, its
 * values space-separated. Return: past it, or NULL. */
static const char *json_list(const char *p, char *out, size_t size)
{
	size_t o = 0;

	out[0] = '\0';
	for (p++;;) {
		char one[DNS_NAME_MAX + 1];
		size_t n;

		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ']')
			return p + 1;
		if (*p == '"') {
			p = json_string(p, one, sizeof(one));
			if (!p)
				return NULL;
		} else {
			n = strcspn(p, ",]");
			if (!p[n] || n >= sizeof(one))
				return NULL;
			memcpy(one, p, n);
			one[n] = '\0';
			p += n;
		}
		n = strlen(one);
		if (o + n + 2 > size)
			return NULL;
		if (o)
			out[o++] = ' ';
		memcpy(out + o, one, n + 1);
		o += n;
	}
}

/* A value as next_pair() gives it. */
enum json_kind { JSON_STRING, JSON_LIST, JSON_BARE };

/* next_pair() - the next "key": value of a record's object at *@p (past
 * its '{'), *@p moved past it: its key, and its value's text (a string
 * unescaped; a list space-separated, json_list(), or with @raw_list as it
 * stands between the brackets; a number, true, false or null as it
 * stands). Return: 1, 0 at the object's end, or -EINVAL. */
static int next_pair(const char **p, char *key, size_t key_size, char *text, size_t text_size,
		     bool raw_list, enum json_kind *kind)
{
	const char *q = *p;

	while (*q == ' ' || *q == ',')
		q++;
	if (*q == '}')
		return 0;
	q = json_string(q, key, key_size);
	if (!q)
		return -EINVAL;
	while (*q == ' ' || *q == ':')
		q++;
	*kind = *q == '"' ? JSON_STRING : *q == '[' ? JSON_LIST : JSON_BARE;
	if (*kind == JSON_STRING) {
		q = json_string(q, text, text_size);
	} else if (*kind == JSON_LIST && !raw_list) {
		q = json_list(q, text, text_size);
	} else {
		size_t n = *kind == JSON_LIST ? strcspn(q, "]") : strcspn(q, ",}");

		if ((*kind == JSON_LIST && !q[n]) || n >= text_size)
			return -EINVAL;
		if (*kind == JSON_LIST) { /* what is between the brackets */
			memcpy(text, q + 1, n - 1);
			text[n - 1] = '\0';
			q += n + 1;
		} else {
			memcpy(text, q, n);
			text[n] = '\0';
			q += n;
		}
	}
	if (!q)
		return -EINVAL;
	*p = q;
	return 1;
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
		enum json_kind kind;
		int got = next_pair(&p, key, sizeof(key), text, sizeof(text), true, &kind);
		bool quoted = kind == JSON_STRING;

		if (got < 0)
			return got;
		if (!got)
			break;
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

/* --- the journal -------------------------------------------------------------- */

/* printable_into() - @src's printable ASCII (others '?') onto @o */
static void printable_into(struct textbuf *o, const char *src)
{
	for (; *src; src++) {
		char c = *src >= 0x20 && *src < 0x7f ? *src : '?';

		textbuf_append(o, &c, 1);
	}
}

void audit_describe(const struct audit_record *r, char *buf, size_t size)
{
	struct textbuf o = { buf, size, 0, false };
	char text[AUDIT_ADDRS_TEXT_MAX];
	size_t i, k;

	buf[0] = '\0';
	textbuf_put(&o, "jail %s: ", r->jail);
	if (r->is_lost) {
		textbuf_put(&o, "%lu denials lost%s%s (more at once than could be recorded one by one)",
			    r->lost, r->reason[0] ? ", reason " : "", r->reason);
	} else if (r->is_policy) {
		textbuf_put(&o, "policy %s: ", r->policy);
		printable_into(&o, r->change);
		textbuf_put(&o, " (by uid %lu)", r->uid);
	} else if (r->is_dns) {
		/* the addresses as the log lists them, without their quotes */
		for (i = k = 0; r->addrs[i] && k + 1 < sizeof(text); i++)
			if (r->addrs[i] != '"')
				text[k++] = r->addrs[i];
		text[k] = '\0';
		textbuf_literal(&o, "dns ");
		printable_into(&o, r->host);
		textbuf_put(&o, ": allowed %s for %lu s", text[0] ? text : "nothing", r->ttl);
		if (r->refused[0])
			textbuf_literal(&o, ", some addresses refused");
	} else {
		textbuf_put(&o, "denied %s ", r->proto);
		if (r->path[0]) {
			printable_into(&o, r->path);
		} else if (!strcmp(r->proto, "dns")) { /* a refused query */
			printable_into(&o, r->host);
			textbuf_put(&o, " %s", r->qtype);
		} else {
			textbuf_put(&o, "%s:%lu", r->daddr[0] ? r->daddr : "-", r->dport);
		}
		textbuf_literal(&o, " from ");
		printable_into(&o, r->comm[0] ? r->comm : "-");
		if (r->pid != AUDIT_UNKNOWN)
			textbuf_put(&o, " (pid %lu)", r->pid);
		textbuf_put(&o, ": %s", r->reason);
		if (r->rule[0])
			textbuf_put(&o, ", rule %s", r->rule);
		if (r->count)
			textbuf_put(&o, ", %lu times", r->count);
	}
}

/* journal_add() - one field @name=@value (@len bytes) into @j. Return: 0 or
 * -E2BIG. */
static int journal_add(struct audit_journal *j, const char *name, const char *value, size_t len)
{
	size_t n = strlen(name);
	char *at = j->buf + j->used;

	if (j->n == AUDIT_JOURNAL_FIELDS_MAX || j->used + n + 1 + len > sizeof(j->buf))
		return -E2BIG;
	memcpy(at, name, n);
	at[n] = '=';
	memcpy(at + n + 1, value, len);
	j->iov[j->n++] = (struct iovec){ at, n + 1 + len };
	j->used += n + 1 + len;
	return 0;
}


/* A record's key as a journal field: "dport" is EBPFJAIL_DPORT. */
#define FIELD_PREFIX "EBPFJAIL_"

int audit_journal_fields(const char *line, size_t len, struct audit_journal *out)
{
	static char text[AUDIT_DNS_LINE_MAX], copy[AUDIT_DNS_LINE_MAX + 1];
	struct audit_record r;
	char name[48], key[32], message[512];
	const char *p = copy;
	int err = 0;
	size_t i;

	while (len && line[len - 1] == '\n')
		len--;
	if (len >= sizeof(copy))
		return -E2BIG;
	memcpy(copy, line, len);
	copy[len] = '\0';
	if (audit_parse_line(copy, &r))
		return -EINVAL;
	out->n = out->used = 0;
	while (*p == ' ')
		p++;
	for (p++; !err;) { /* past the '{': audit_parse_line() checked */
		enum json_kind kind;
		int got = next_pair(&p, key, sizeof(key), text, sizeof(text), false, &kind);
		size_t at = sizeof(FIELD_PREFIX) - 1;

		if (got < 0)
			return got;
		if (!got)
			break;
		if (kind == JSON_BARE && !strcmp(text, "null"))
			continue; /* the rootless engine's pid: no field, as journalctl shows none */
		memcpy(name, FIELD_PREFIX, at);
		for (i = 0; key[i] && at + i + 1 < sizeof(name); i++)
			name[at + i] = (key[i] >= 'a' && key[i] <= 'z') ? (char)(key[i] - 'a' + 'A')
				     : (key[i] >= '0' && key[i] <= '9') ? key[i] : '_';
		name[at + i] = '\0';
		err = journal_add(out, name, text, strlen(text));
	}
	audit_describe(&r, message, sizeof(message));
	if (!err)
		err = journal_add(out, AUDIT_JOURNAL_RECORD, copy, len);
	if (!err)
		err = journal_add(out, "MESSAGE", message, strlen(message));
	if (!err)
		err = journal_add(out, "PRIORITY", r.is_lost ? "3" : r.is_policy || r.is_dns ? "6" : "4",
				  1);
	if (!err)
		err = journal_add(out, "SYSLOG_IDENTIFIER", "ebpfjail", 8);
	return err;
}
