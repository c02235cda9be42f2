// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* audit.c - denial events as JSON lines, the audit log, the exit summary */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>

#include "audit.h"
#include "builtin.h"
#include "log.h"
#include "netaddr.h"

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	o->len = n < 0 ? o->size : o->len + (size_t)n;
	if (o->len >= o->size)
		o->len = o->size - 1;
}

/* put_json_string() - the agent names its own threads (PR_SET_NAME takes any
 * bytes): escape everything but printable ASCII, so a comm cannot end the
 * line early and forge a record, or put invalid UTF-8 in the log. */
static void put_json_string(struct out *o, const char *s, size_t max)
{
	size_t i;

	put(o, "\"");
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			put(o, "\\u%04x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

static void put_time(struct out *o, struct timespec t)
{
	struct tm tm;
	char date[32];

	gmtime_r(&t.tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	put(o, "{\"time\": \"%s.%06ldZ\"", date, t.tv_nsec / 1000);
}

struct timespec audit_event_wall_time(uint64_t boot_ns)
{
	struct timespec real, boot, t;
	int64_t delta;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	delta = ((int64_t)boot.tv_sec * 1000000000LL + boot.tv_nsec) - (int64_t)boot_ns;
	delta = ((int64_t)real.tv_sec * 1000000000LL + real.tv_nsec) - delta;
	t.tv_sec = (time_t)(delta / 1000000000LL);
	t.tv_nsec = (long)(delta % 1000000000LL);
	return t;
}

static const char *proto_name(unsigned int p, char *buf, size_t size)
{
	switch (p) {
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 1:
		return "icmp";
	default:
		snprintf(buf, size, "%u", p);
		return buf;
	}
}

size_t audit_format_event(const struct jail_event *e, const char *jail, struct timespec wall,
			  char *buf, size_t size)
{
	struct out o = { buf, size, 0 };
	char addr[INET6_ADDRSTRLEN], rule[NETADDR_CIDR_STRLEN], proto[8];
	const char *hook = hook_name(e->hook), *reason = reason_name(e->reason);

	put_time(&o, wall);
	put(&o, ", \"jail\": ");
	put_json_string(&o, jail, 64);
	put(&o, ", \"pid\": %u, \"comm\": ", e->pid);
	put_json_string(&o, e->comm, sizeof(e->comm));
	put(&o, ", \"uid\": %u, \"proto\": ", e->uid);
	if (e->proto == 6 || e->proto == 17 || e->proto == 1)
		put(&o, "\"%s\"", proto_name(e->proto, proto, sizeof(proto)));
	else
		put(&o, "%u", e->proto);
	if (e->reason == REASON_IPV6 || e->reason == REASON_NON_IPV4) {
		if (e->reason == REASON_IPV6)
			inet_ntop(AF_INET6, e->daddr6, addr, sizeof(addr));
		else
			snprintf(addr, sizeof(addr), "%s", "");
		put(&o, ", \"daddr\": \"%s\"", addr);
	} else {
		netaddr_format(e->daddr, addr);
		put(&o, ", \"daddr\": \"%s\"", addr);
	}
	if (e->family == 10)
		put(&o, ", \"family\": \"inet6\"");
	put(&o, ", \"dport\": %u, \"hook\": \"%s\", \"reason\": \"%s\", \"rule\": ", e->dport,
	    hook ? hook : "?", reason ? reason : "?");
	if (e->reason == REASON_IPV6 || e->reason == REASON_NON_IPV4 ||
	    e->reason == REASON_IP_OPTIONS) {
		put(&o, "null}\n");
	} else {
		uint32_t net = htonl(ntohl(e->daddr) & netaddr_mask(e->rule_prefixlen));

		netaddr_format_cidr(net, e->rule_prefixlen, rule);
		put(&o, "\"%s\"}\n", rule);
	}
	return o.len;
}

size_t audit_format_lost(const char *jail, uint64_t lost, struct timespec wall, char *buf,
			 size_t size)
{
	struct out o = { buf, size, 0 };

	put_time(&o, wall);
	put(&o, ", \"jail\": ");
	put_json_string(&o, jail, 64);
	put(&o, ", \"lost\": %llu}\n", (unsigned long long)lost);
	return o.len;
}

static int make_dirs(char *path)
{
	char *slash;

	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0750) && errno != EEXIST) {
			*slash = '/';
			return -errno;
		}
		*slash = '/';
	}
	return 0;
}

int audit_open(const char *path)
{
	char copy[4096];
	int fd, err;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy))
		return -ENAMETOOLONG;
	err = make_dirs(copy);
	if (err)
		return log_err(err, "cannot create the directory of the audit log %s: %s", path,
			       strerror(-err));
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0640);
	if (fd < 0)
		return log_err(-errno, "cannot open the audit log %s: %s", path, strerror(errno));
	return fd;
}

int audit_append(int fd, const char *line, size_t len)
{
	ssize_t n = write(fd, line, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

void summary_add(struct summary *s, const struct jail_event *e)
{
	size_t i;

	s->total++;
	for (i = 0; i < s->n; i++) {
		struct summary_slot *x = &s->slots[i];

		if (x->daddr == e->daddr && x->dport == e->dport && x->reason == e->reason) {
			x->count++;
			return;
		}
	}
	if (s->n == SUMMARY_SLOTS) {
		s->other++;
		return;
	}
	s->slots[s->n++] = (struct summary_slot){ .daddr = e->daddr, .dport = e->dport,
						  .reason = e->reason, .proto = e->proto,
						  .count = 1 };
}

static int by_count(const void *a, const void *b)
{
	const struct summary_slot *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

size_t summary_format(const struct summary *s, char *buf, size_t size)
{
	struct summary_slot top[SUMMARY_SLOTS];
	struct out o = { buf, size, 0 };
	char a[NETADDR_CIDR_STRLEN];
	size_t i;

	if (!s->total && !s->lost)
		return 0;
	memcpy(top, s->slots, s->n * sizeof(top[0]));
	qsort(top, s->n, sizeof(top[0]), by_count);
	put(&o, "ebpfjail: denied %llu connection%s", (unsigned long long)s->total,
	    s->total == 1 ? "" : "s");
	for (i = 0; i < s->n && i < 3; i++) {
		const char *r = reason_name(top[i].reason);

		if (top[i].reason == REASON_IPV6 || top[i].reason == REASON_NON_IPV4 ||
		    top[i].reason == REASON_IP_OPTIONS) {
			put(&o, "%s %s x%llu", i ? "," : ":", r, (unsigned long long)top[i].count);
			continue;
		}
		netaddr_format(top[i].daddr, a);
		put(&o, "%s %s:%u (%s) x%llu", i ? "," : ":", a, top[i].dport, r,
		    (unsigned long long)top[i].count);
	}
	if (s->n > 3 || s->other)
		put(&o, ", ...");
	if (s->lost)
		put(&o, "; %llu not recorded (events lost)", (unsigned long long)s->lost);
	if (s->n && top[0].reason != REASON_IPV6 && top[0].reason != REASON_NON_IPV4 &&
	    top[0].reason != REASON_IP_OPTIONS) {
		netaddr_format(top[0].daddr, a);
		if (top[0].dport)
			put(&o, "; to allow the first: allow-ip = %s:%u", a, top[0].dport);
		else
			put(&o, "; to allow the first: allow-ip = %s", a);
	}
	put(&o, " (details: ebpfjail audit)\n");
	return o.len;
}
