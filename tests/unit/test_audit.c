// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_audit.c - audit lines: written, read back, filtered */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "audit.h"

static struct jail_event event(const char *daddr, uint16_t dport, uint8_t reason, const char *comm)
{
	struct jail_event e = { .pid = 42, .uid = 1000, .proto = IPPROTO_TCP, .hook = HOOK_CONNECT4,
				.reason = reason, .rule_prefixlen = 8, .family = AF_INET, .dport = dport };

	e.daddr = inet_addr(daddr);
	strncpy(e.comm, comm, sizeof(e.comm) - 1);
	return e;
}

Test(audit, line_has_every_field_and_reads_back)
{
	struct jail_event e = event("10.1.2.3", 22, REASON_PRIVATE, "curl");
	struct timespec t = { .tv_sec = 1795000000, .tv_nsec = 123456000 };
	struct audit_record r;
	char line[AUDIT_LINE_MAX];

	audit_format_event(&e, "abcd0123", t, line, sizeof(line));
	cr_expect_str_eq(line,
			 "{\"time\": \"2026-11-18T11:06:40.123456Z\", \"jail\": \"abcd0123\", \"pid\": 42, "
			 "\"comm\": \"curl\", \"uid\": 1000, \"proto\": \"tcp\", \"daddr\": \"10.1.2.3\", "
			 "\"dport\": 22, \"hook\": \"connect4\", \"reason\": \"private\", \"rule\": "
			 "\"10.0.0.0/8\"}\n");
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_eq(r.time.tv_sec, t.tv_sec);
	cr_expect_eq(r.time.tv_nsec, t.tv_nsec);
	cr_expect_str_eq(r.jail, "abcd0123");
	cr_expect_eq(r.pid, 42);
	cr_expect_str_eq(r.comm, "curl");
	cr_expect_str_eq(r.daddr, "10.1.2.3");
	cr_expect_eq(r.dport, 22);
	cr_expect_str_eq(r.reason, "private");
	cr_expect_str_eq(r.rule, "10.0.0.0/8");
}

/* A count record: the event's fields, then how many and since when. */
Test(audit, count_record_reads_back)
{
	struct jail_event e = event("10.1.2.3", 22, REASON_PRIVATE, "curl");
	struct timespec t = { .tv_sec = 1795000000, .tv_nsec = 123456000 };
	struct timespec first = { .tv_sec = 1794999990, .tv_nsec = 5000 };
	struct audit_record r;
	char line[AUDIT_LINE_MAX];

	audit_format_denial(&e, 123456789012ULL, first, "abcd0123", NULL, t, line, sizeof(line));
	cr_expect_str_eq(line,
			 "{\"time\": \"2026-11-18T11:06:40.123456Z\", \"jail\": \"abcd0123\", \"pid\": 42, "
			 "\"comm\": \"curl\", \"uid\": 1000, \"proto\": \"tcp\", \"daddr\": \"10.1.2.3\", "
			 "\"dport\": 22, \"hook\": \"connect4\", \"reason\": \"private\", \"rule\": "
			 "\"10.0.0.0/8\", \"count\": 123456789012, \"first\": "
			 "\"2026-11-18T11:06:30.000005Z\"}\n");
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_eq(r.count, 123456789012UL);
	cr_expect_str_eq(r.rule, "10.0.0.0/8");
}

Test(audit, hostile_comm_cannot_forge_a_line)
{
	struct jail_event e = event("10.1.2.3", 22, REASON_PRIVATE, "x\"}\n{\"jail\"");
	struct timespec t = { 0 };
	struct audit_record r;
	char line[AUDIT_LINE_MAX];

	audit_format_event(&e, "j", t, line, sizeof(line));
	cr_expect_eq(strchr(line, '\n'), line + strlen(line) - 1, "one line: %s", line);
	cr_expect(strstr(line, "\"comm\": \"x\\\"}\\u000a{\\\"jail\\\"\""), "%s", line);
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_str_eq(r.comm, "x\"}\n{\"jail\"");
	cr_expect_str_eq(r.jail, "j");
}

Test(audit, mapped_ipv6_and_lost_records)
{
	struct jail_event e = event("10.1.2.3", 443, REASON_PRIVATE, "node");
	struct timespec t = { 0 };
	struct audit_record r;
	char line[AUDIT_LINE_MAX];

	e.family = 10;
	e.hook = HOOK_CONNECT6;
	audit_format_event(&e, "j", t, line, sizeof(line));
	cr_expect(strstr(line, "\"daddr\": \"10.1.2.3\", \"family\": \"inet6\", \"dport\": 443"), "%s",
		  line);
	audit_format_lost("j", 17, REASON_METADATA, t, line, sizeof(line));
	cr_expect_str_eq(line, "{\"time\": \"1970-01-01T00:00:00.000000Z\", \"jail\": \"j\", \"lost\": 17, "
			       "\"reason\": \"metadata\"}\n");
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect(r.is_lost);
	cr_expect_eq(r.lost, 17);
	cr_expect_str_eq(r.reason, "metadata");
	cr_expect_neq(audit_parse_line("not json\n", &r), 0);
	cr_expect_neq(audit_parse_line("{\"time\": \"garbage\", \"jail\": \"j\"}\n", &r), 0);
}

Test(audit, since)
{
	time_t now = 1795000000, t;

	cr_assert_eq(audit_parse_since("10m", now, &t), 0);
	cr_expect_eq(t, now - 600);
	cr_assert_eq(audit_parse_since("2h", now, &t), 0);
	cr_expect_eq(t, now - 7200);
	cr_assert_eq(audit_parse_since("1d", now, &t), 0);
	cr_expect_eq(t, now - 86400);
	cr_assert_eq(audit_parse_since("2026-11-29T10:00", now, &t), 0);
	cr_assert_eq(audit_parse_since("2026-11-29T10:00:30", now, &t), 0);
	cr_expect_neq(audit_parse_since("10", now, &t), 0);
	cr_expect_neq(audit_parse_since("10x", now, &t), 0);
	cr_expect_neq(audit_parse_since("-5m", now, &t), 0);
	cr_expect_neq(audit_parse_since("yesterday", now, &t), 0);
	cr_expect_neq(audit_parse_since("2026-11-29T10:00 x", now, &t), 0);
}

static struct jail_event unix_event(const char *path, size_t len)
{
	struct jail_event e = { .pid = 42, .uid = 1000, .hook = HOOK_CONNECT_UNIX,
				.reason = REASON_UNIX, .family = 1 /* AF_UNIX */ };

	memcpy(e.path, path, len);
	strcpy(e.comm, "node");
	return e;
}

Test(audit, unix_line_has_the_path_instead_of_an_address)
{
	struct jail_event e = unix_event("/run/docker.sock", 16);
	struct timespec t = { .tv_sec = 1795000000, .tv_nsec = 123456000 };
	struct audit_record r;
	char line[AUDIT_LINE_MAX];

	audit_format_event(&e, "abcd0123", t, line, sizeof(line));
	cr_expect_str_eq(line,
			 "{\"time\": \"2026-11-18T11:06:40.123456Z\", \"jail\": \"abcd0123\", \"pid\": 42, "
			 "\"comm\": \"node\", \"uid\": 1000, \"proto\": \"unix\", \"path\": "
			 "\"/run/docker.sock\", \"hook\": \"connect_unix\", \"reason\": \"unix\", "
			 "\"rule\": null}\n");
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_str_eq(r.path, "/run/docker.sock");
	cr_expect_str_eq(r.daddr, "");
	cr_expect_str_eq(r.proto, "unix");
	cr_expect_str_eq(r.hook, "connect_unix");
	cr_expect_str_eq(r.reason, "unix");
	cr_expect_str_eq(r.rule, "");

	e.hook = HOOK_SENDMSG_UNIX;
	audit_format_event(&e, "j", t, line, sizeof(line));
	cr_expect(strstr(line, "\"hook\": \"sendmsg_unix\""), "%s", line);
}

/* The agent chooses the path's bytes: a newline, quotes, escapes and bytes
 * over 0x7f stay data, in one line that reads back as it was written. */
Test(audit, hostile_path_cannot_forge_a_line)
{
	static const char path[] = "/tmp/x\"}\n{\"jail\": \"evil\\\x01\xff";
	struct jail_event e = unix_event(path, sizeof(path) - 1);
	struct timespec t = { 0 };
	struct audit_record r;
	char line[AUDIT_LINE_MAX];

	audit_format_event(&e, "j", t, line, sizeof(line));
	cr_expect_eq(strchr(line, '\n'), line + strlen(line) - 1, "one line: %s", line);
	cr_expect(strstr(line, "\"path\": \"/tmp/x\\\"}\\u000a{\\\"jail\\\": \\\"evil\\\\\\u0001\\u00ff\""),
		  "%s", line);
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_str_eq(r.jail, "j");
	cr_expect_str_eq(r.path, "/tmp/x\"}\n{\"jail\": \"evil\\\x01?");
}

/* The longest line: a 108-byte path (no NUL) and a comm that all need
 * escaping still fit, whole, with their newline. */
Test(audit, longest_unix_line_fits)
{
	struct jail_event e = unix_event("", 0);
	struct timespec t = { 0 };
	struct audit_record r;
	char line[AUDIT_LINE_MAX];
	size_t len;

	memset(e.path, 0x01, sizeof(e.path));
	memset(e.comm, 0x7f, sizeof(e.comm));
	len = audit_format_event(&e, "abcd0123", t, line, sizeof(line));
	cr_expect_lt(len, sizeof(line) - 1, "%zu bytes", len);
	cr_expect_eq(line[len - 1], '\n');
	cr_expect(strstr(line, "\"rule\": null}\n"), "%s", line);
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_eq(strlen(r.path), UNIX_PATH_MAX);
}

Test(audit, netns_line_has_no_rule)
{
	struct jail_event e = event("203.0.113.7", 443, REASON_NETNS, "bwrap");
	struct timespec t = { 0 };
	char line[AUDIT_LINE_MAX];

	e.rule_prefixlen = 0;
	audit_format_event(&e, "j", t, line, sizeof(line));
	cr_expect(strstr(line, "\"daddr\": \"203.0.113.7\", \"dport\": 443, \"hook\": \"connect4\", "
			       "\"reason\": \"netns\", \"rule\": null}\n"),
		  "%s", line);
}

/* An NFLOG event's audit record: the process is unknown (null), the rest
 * as the BPF engine writes it. */
Test(audit, rootless_record_has_null_process)
{
	struct jail_event e = { .hook = HOOK_NFT_OUTPUT, .reason = REASON_PRIVATE,
				.rule_prefixlen = 8, .proto = IPPROTO_TCP, .dport = 22,
				.family = AF_INET, .uid = 1000 };
	struct timespec t = { 0 };
	struct audit_record r;
	char line[AUDIT_LINE_MAX];

	e.daddr = inet_addr("10.1.2.3");
	audit_format_event(&e, "j", t, line, sizeof(line));
	cr_expect(strstr(line, "\"pid\": null, \"comm\": null, \"uid\": 1000, \"proto\": \"tcp\", "
			       "\"daddr\": \"10.1.2.3\", \"dport\": 22, \"hook\": \"output\", "
			       "\"reason\": \"private\", \"rule\": \"10.0.0.0/8\""),
		  "%s", line);
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_eq(r.pid, AUDIT_UNKNOWN, "null read back as pid %lu", r.pid);
	cr_expect_eq(r.uid, 1000);
	cr_expect_str_eq(r.comm, "");
	e.uid = JAIL_ID_UNKNOWN;
	audit_format_event(&e, "j", t, line, sizeof(line));
	cr_expect(strstr(line, "\"uid\": null"), "%s", line);
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_eq(r.uid, AUDIT_UNKNOWN, "null read back as uid %lu (0 is root)", r.uid);
	/* A comm the agent named "null" is a string, not the unknown. */
	e.hook = HOOK_CONNECT4;
	strcpy(e.comm, "null");
	audit_format_event(&e, "j", t, line, sizeof(line));
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_str_eq(r.comm, "null");
}

Test(audit, a_dns_record_names_the_addresses_and_the_ttl)
{
	static struct dns_answer chain;
	uint32_t a[] = { inet_addr("10.0.0.5"), inet_addr("10.0.0.6") }, m = inet_addr("169.254.169.254");
	struct timespec t = { 0, 0 };
	char line[AUDIT_DNS_LINE_MAX];

	audit_format_dns("j1", "forge.lan", NULL, 22, a, 2, NULL, 0, false, 60, t, line, sizeof(line));
	cr_expect(strstr(line, "\"jail\": \"j1\", \"dns\": \"forge.lan\", \"addrs\": "
			       "[\"10.0.0.5\", \"10.0.0.6\"], \"port\": 22, \"ttl\": 60}\n"),
		  "%s", line);
	audit_format_dns("j1", "meta.lan", NULL, 0, NULL, 0, &m, 1, false, 5, t, line, sizeof(line));
	cr_expect(strstr(line, "\"addrs\": [], \"refused\": [\"169.254.169.254\"], \"port\": null"),
		  "%s", line);
	/* Held back by the engine's change cap: said, not "refused". */
	audit_format_dns("j1", "forge.lan", NULL, 22, a, 2, NULL, 0, true, 60, t, line, sizeof(line));
	cr_expect(strstr(line, "\"addrs\": [\"10.0.0.5\", \"10.0.0.6\"], \"held\": true, \"port\": 22"),
		  "%s", line);
	/* The CNAMEs say which zones answered. */
	memset(&chain, 0, sizeof(chain));
	snprintf(chain.cname[0], sizeof(chain.cname[0]), "forge.vendor.example");
	snprintf(chain.cname[1], sizeof(chain.cname[1]), "lb.vendor.example");
	chain.n_cname = 2;
	audit_format_dns("j1", "forge.lan", &chain, 0, a, 1, NULL, 0, false, 60, t, line,
			 sizeof(line));
	cr_expect(strstr(line, "\"dns\": \"forge.lan\", \"cname\": [\"forge.vendor.example\", "
			       "\"lb.vendor.example\"], \"addrs\": [\"10.0.0.5\"]"),
		  "%s", line);
}

/* The largest dns record (DNS_ADDRS_MAX addresses of the longest form) is
 * written whole and read back whole: `ebpfjail audit` skips a line it
 * cannot read, and a record of what a name opened must not vanish. */
Test(audit, the_largest_dns_record_reads_back)
{
	uint32_t a[DNS_ADDRS_MAX];
	struct timespec t = { 0, 0 };
	struct audit_record r;
	char line[AUDIT_DNS_LINE_MAX];
	size_t i, len;

	static struct dns_answer chain; /* the longest CNAMEs, every byte escaped */

	for (i = 0; i < DNS_ADDRS_MAX; i++)
		a[i] = htonl(0xffffff00U + (uint32_t)i); /* 255.255.255.x */
	for (i = 0; i < DNS_CNAME_DEPTH; i++)
		memset(chain.cname[i], 0x7f, DNS_NAME_MAX);
	chain.cname[0][0] = ']'; /* as if to end the list early */
	chain.n_cname = DNS_CNAME_DEPTH;
	len = audit_format_dns("j1", "forge.lan", &chain, 22, a, DNS_ADDRS_MAX / 2,
			       a + DNS_ADDRS_MAX / 2, DNS_ADDRS_MAX / 2, true, 60, t, line,
			       sizeof(line));
	cr_assert_lt(len, sizeof(line) - 1);
	cr_assert_eq(line[len - 1], '\n');
	cr_assert_eq(audit_parse_line(line, &r), 0, "%s", line);
	cr_expect(r.is_dns);
	cr_expect(strstr(r.addrs, "\"255.255.255.31\""), "%s", r.addrs);
	cr_expect(strstr(r.refused, "\"255.255.255.63\""), "%s", r.refused);
	cr_expect(r.held);
}

Test(audit, a_dns_record_parses)
{
	struct audit_record r;

	cr_assert_eq(audit_parse_line("{\"time\": \"2026-12-01T10:00:00.000000Z\", \"jail\": \"j1\", "
				      "\"dns\": \"x.lan\", \"addrs\": [\"10.0.0.1\", \"10.0.0.2\"], "
				      "\"port\": 22, \"ttl\": 60}\n", &r), 0);
	cr_expect(r.is_dns);
	cr_expect_str_eq(r.host, "x.lan");
	cr_expect_str_eq(r.addrs, "\"10.0.0.1\", \"10.0.0.2\"");
	cr_expect_eq(r.dport, 22);
	cr_expect_eq(r.ttl, 60);
}

/* field() - @j's field @name's value, NUL-terminated, or NULL */
static const char *field(const struct audit_journal *j, const char *name)
{
	static char value[AUDIT_JOURNAL_BYTES];
	size_t i, n = strlen(name);

	for (i = 0; i < j->n; i++) {
		const char *f = j->iov[i].iov_base;

		if (j->iov[i].iov_len > n && !strncmp(f, name, n) && f[n] == '=') {
			memcpy(value, f + n + 1, j->iov[i].iov_len - n - 1);
			value[j->iov[i].iov_len - n - 1] = '\0';
			return value;
		}
	}
	return NULL;
}

/* A record as journal fields: each key as EBPFJAIL_KEY (a list's values
 * space-separated, a null none), the line itself to read back, and a
 * MESSAGE of printable ASCII however hostile the comm. */
Test(audit, a_record_as_journal_fields)
{
	struct jail_event e = event("169.254.169.254", 80, REASON_METADATA, "cu\033[2Jrl");
	struct timespec t = { .tv_sec = 1795000000, .tv_nsec = 123456000 };
	static struct audit_journal j;
	char line[AUDIT_LINE_MAX];
	size_t len = audit_format_event(&e, "abcd0123", t, line, sizeof(line));
	const char *v;

	cr_assert_eq(audit_journal_fields(line, len, &j), 0);
	cr_expect_str_eq(field(&j, "EBPFJAIL_REASON"), "metadata");
	cr_expect_str_eq(field(&j, "EBPFJAIL_DADDR"), "169.254.169.254");
	cr_expect_str_eq(field(&j, "EBPFJAIL_DPORT"), "80");
	cr_expect_str_eq(field(&j, "EBPFJAIL_JAIL"), "abcd0123");
	cr_expect_str_eq(field(&j, "EBPFJAIL_COMM"), "cu\033[2Jrl", "the journal holds the bytes");
	cr_expect_str_eq(field(&j, "SYSLOG_IDENTIFIER"), "ebpfjail");
	cr_expect_str_eq(field(&j, "PRIORITY"), "4");
	line[len - 1] = '\0';
	cr_expect_str_eq(field(&j, AUDIT_JOURNAL_RECORD), line);
	v = field(&j, "MESSAGE");
	cr_assert(v);
	cr_expect(strstr(v, "denied tcp 169.254.169.254:80 from cu?[2Jrl (pid 42): metadata"), "%s", v);
	for (; *v; v++)
		cr_expect(*v >= 0x20 && *v < 0x7f, "MESSAGE byte %#x", (unsigned char)*v);

	cr_expect_eq(audit_journal_fields("{}", 0, &j), -EINVAL, "an empty line is no record");
	len = audit_format_dns_denial("a", "x.paste.test", 16, "internet", 0, t, t, line, sizeof(line));
	cr_assert_eq(audit_journal_fields(line, len, &j), 0);
	cr_expect(!field(&j, "EBPFJAIL_PID"), "a null is no field");
	cr_expect_str_eq(field(&j, "EBPFJAIL_NAME"), "x.paste.test");
	cr_expect_str_eq(field(&j, "EBPFJAIL_HOOK"), "dns");

	len = audit_format_lost("a", 7, REASON_PRIVATE, t, line, sizeof(line));
	cr_assert_eq(audit_journal_fields(line, len, &j), 0);
	cr_expect_str_eq(field(&j, "EBPFJAIL_LOST"), "7");
	cr_expect_str_eq(field(&j, "PRIORITY"), "3");

	len = audit_format_policy("a", "deny", "10.0.0.5:502", 0, t, line, sizeof(line));
	cr_assert_eq(audit_journal_fields(line, len, &j), 0);
	cr_expect_str_eq(field(&j, "EBPFJAIL_POLICY"), "deny");
	cr_expect_str_eq(field(&j, "PRIORITY"), "6");

	cr_expect_eq(audit_journal_fields("not json\n", 9, &j), -EINVAL);
}

/* A dns record's lists, each value once, space-separated. */
Test(audit, a_dns_record_as_journal_fields)
{
	uint32_t addrs[] = { inet_addr("198.51.100.7"), inet_addr("198.51.100.8") };
	uint32_t refused[] = { inet_addr("10.0.0.1") };
	struct timespec t = { .tv_sec = 1795000000 };
	static struct audit_journal j;
	char line[AUDIT_DNS_LINE_MAX];
	size_t len = audit_format_dns("a", "www.example.test", NULL, 443, addrs, 2, refused, 1,
				      false, 60, t, line, sizeof(line));

	cr_assert_eq(audit_journal_fields(line, len, &j), 0);
	cr_expect_str_eq(field(&j, "EBPFJAIL_DNS"), "www.example.test");
	cr_expect_str_eq(field(&j, "EBPFJAIL_ADDRS"), "198.51.100.7 198.51.100.8");
	cr_expect_str_eq(field(&j, "EBPFJAIL_REFUSED"), "10.0.0.1");
	cr_expect_str_eq(field(&j, "EBPFJAIL_TTL"), "60");
	cr_expect_str_eq(field(&j, "PRIORITY"), "6");
}
