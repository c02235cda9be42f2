/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* audit.h - audit records as JSON lines: written (pure) and read back */
#ifndef EBPFJAIL_AUDIT_H
#define EBPFJAIL_AUDIT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/uio.h>
#include <linux/types.h>

#include "ebpfjail.h"
#include "dnsmsg.h"

/* The longest event: a Unix socket path of 108 bytes that all need
 * escaping (\u00XX: 648 characters) and such a comm (96), with the rest. */
#define AUDIT_LINE_MAX 1024
/* A dns record: a name, and up to DNS_ADDRS_MAX addresses as JSON strings
 * ("255.255.255.255", with a comma and a space each) */
#define AUDIT_ADDRS_TEXT_MAX (DNS_ADDRS_MAX * (16 + 4))
/* ... and its CNAMEs, each of whose bytes may need escaping (\u00XX) */
#define AUDIT_CNAME_TEXT_MAX (DNS_CNAME_DEPTH * (6 * DNS_NAME_MAX + 4))
#define AUDIT_DNS_LINE_MAX (AUDIT_LINE_MAX + AUDIT_ADDRS_TEXT_MAX + AUDIT_CNAME_TEXT_MAX)
/* A policy record's "change" is cut after this many characters. */
#define AUDIT_CHANGE_MAX 240

/**
 * audit_format_event() - one event as a JSON line (with its newline), pure
 * @wall: when it happened, wall clock
 * Fields (docs/DESIGN.md, "Audit"): time, jail, pid, comm, uid, proto, daddr, dport,
 * hook, reason, rule, and "family": "inet6" for IPv6 sockets. A Unix socket
 * event has "proto": "unix" and "path" instead of daddr and dport, and
 * "rule": null, as a netns one has.
 * Return: the line's length.
 */
size_t audit_format_event(const struct jail_event *e, const char *jail, struct timespec wall,
			  char *buf, size_t size);

/**
 * audit_format_denial() - audit_format_event(), or with @count > 0 a count
 * record: @count more denials of @e's kind (bpf/ebpfjail.h, "Aggregation"),
 * the latest at @wall, "count": @count and "first": @first after the other
 * fields. @first is when this kind (the tally's key) was first denied, not
 * the first of these @count: a kind's every count record has the same.
 * @host: the name the jail's forwarder answered with e->daddr ("host"
 * last), or NULL.
 * Return: the line's length.
 */
size_t audit_format_denial(const struct jail_event *e, uint64_t count, struct timespec first,
			   const char *jail, const char *host, struct timespec wall, char *buf,
			   size_t size);

/**
 * audit_json_string() - @s as a JSON string, quotes included, only printable
 * ASCII left unescaped (see put_json_string() in audit.c for why)
 */
void audit_json_string(const char *s, char *buf, size_t size);

/**
 * audit_format_dns() - what an allow-host name's answer allowed:
 * {"time": ..., "jail": ..., "dns": NAME, "addrs": [...], "port": P or
 * null (every port), "ttl": N}, with "cname": [...] after "dns" when answer
 * @a (or NULL) followed CNAMEs, and "refused": [...] after "addrs" when
 * some addresses a name may not open (policy_name_refusal()) were in the
 * answer, and "held": true when the engine's change cap held the addresses
 * back (in force from the next second: a policy record says when); pure.
 * @buf: AUDIT_DNS_LINE_MAX bytes hold any.
 */
size_t audit_format_dns(const char *jail, const char *name, const struct dns_answer *a,
			uint16_t port, const uint32_t *addrs, size_t n, const uint32_t *refused,
			size_t n_refused, bool held, uint32_t ttl, struct timespec wall, char *buf,
			size_t size);

/**
 * audit_format_dns_denial() - a query the forwarder refused (dnsdenials.h):
 * {"time": ..., "jail": ..., "pid": null, "comm": null, "uid": null,
 *  "proto": "dns", "name": NAME, "qtype": "TXT", "hook": "dns",
 *  "reason": "dns", "rule": dns_refusal_rule()}, and with @count > 0 a
 * count record's "count" and "first" (audit_format_denial()); pure. The
 * forwarder hears a socket, not who sent through it: no process.
 */
size_t audit_format_dns_denial(const char *jail, const char *name, uint16_t qtype,
			       const char *rule, uint64_t count, struct timespec first,
			       struct timespec wall, char *buf, size_t size);

/**
 * audit_format_lost() - {"time": ..., "jail": ..., "lost": N, "reason": R}
 * and a newline: N denials of reason R that no record shows (bpf/ebpfjail.h,
 * "Aggregation"); no "reason" for a number reason_name() does not know
 */
size_t audit_format_lost(const char *jail, uint64_t lost, unsigned int reason,
			 struct timespec wall, char *buf, size_t size);

/**
 * audit_format_policy() - a change of a running jail's policy:
 * {"time": ..., "jail": ..., "policy": "allow"|"deny"|"reload"|"host",
 *  "change": "10.0.0.5:502" or what the reload changed, "uid": WHO}
 * "host" is the supervisor following a change of the host's networks
 * (uid 0: rtnetlink does not say who changed them).
 */
size_t audit_format_policy(const char *jail, const char *action, const char *change,
			   unsigned long uid, struct timespec wall, char *buf, size_t size);

/** audit_event_is_unix() - an event of a Unix socket hook: path, no address */
bool audit_event_is_unix(const struct jail_event *e);

/** audit_event_wall_time() - an event's boot-clock time as wall-clock time */
struct timespec audit_event_wall_time(uint64_t boot_ns);


/* A pid or uid the record says is null (the rootless engine's denials). */
#define AUDIT_UNKNOWN ULONG_MAX

/* One line of the log, parsed (what `ebpfjail audit` shows). */
struct audit_record {
	struct timespec time;
	char jail[32];
	unsigned long pid, uid, dport, lost; /* pid, uid: or AUDIT_UNKNOWN */
	unsigned long count; /* an aggregated record's "count"; 0: one */
	char comm[64]; /* as escaped in the log, unescaped */
	char proto[16];
	char daddr[48];
	char path[UNIX_PATH_MAX + 1]; /* a Unix socket denial's, unescaped */
	char family[8];
	char hook[16];
	char reason[16];
	char rule[24];
	char host[DNS_NAME_MAX + 1]; /* a denial's "host", a dns record's "dns",
					a refused query's "name" */
	char qtype[DNS_TYPE_NAME_MAX]; /* a refused query's */
	char addrs[AUDIT_ADDRS_TEXT_MAX]; /* a dns record's, as the log has them */
	char refused[AUDIT_ADDRS_TEXT_MAX];
	unsigned long ttl;
	bool is_dns;
	bool held; /* a dns record's: the engine's change cap held it back */
	char policy[16];  /* a policy change: allow, deny, reload, host */
	char change[256]; /* ... and what it changed */
	bool is_lost, is_policy;
};

/**
 * audit_parse_line() - one JSON line of the log into @r (pure)
 * Return: 0, or -EINVAL for a line that is not one of ours.
 */
int audit_parse_line(const char *line, struct audit_record *r);

/* A record as journal fields (audit_journal_fields()), each "NAME=value"
 * in iov[] (values may hold any byte: sd_journal_sendv()). */
#define AUDIT_JOURNAL_FIELDS_MAX 40
#define AUDIT_JOURNAL_BYTES (3 * AUDIT_DNS_LINE_MAX)
struct audit_journal {
	struct iovec iov[AUDIT_JOURNAL_FIELDS_MAX];
	size_t n;
	size_t used;
	char buf[AUDIT_JOURNAL_BYTES];
};

/* The journal field that holds the whole record, as the file's line. */
#define AUDIT_JOURNAL_RECORD "EBPFJAIL_RECORD"

/**
 * audit_journal_fields() - @line (one record of ours, its newline left
 * out or not) as journal fields: EBPFJAIL_KEY=value for each of its keys
 * (a list's values space-separated; a null is no field), AUDIT_JOURNAL_RECORD
 * with the line itself (what `ebpfjail audit` reads back), MESSAGE (what
 * the record says, for a person: printable ASCII only, the agent chose its
 * comm and names), PRIORITY (4 a denial, 3 a loss, 6 the rest) and
 * SYSLOG_IDENTIFIER=ebpfjail (pure)
 * Return: 0, or -EINVAL for a line that is not one of ours, -E2BIG.
 */
int audit_journal_fields(const char *line, size_t len, struct audit_journal *out);

/**
 * audit_describe() - what record @r says, for a person, into @buf:
 * printable ASCII only (pure)
 */
void audit_describe(const struct audit_record *r, char *buf, size_t size);

/**
 * audit_parse_since() - "10m", "2h", "30s", "1d", or a local time
 * "2026-11-29T10:00" (seconds optional), relative to @now (pure)
 * Return: 0 with @out set, or -EINVAL.
 */
int audit_parse_since(const char *text, time_t now, time_t *out);

#endif /* EBPFJAIL_AUDIT_H */
