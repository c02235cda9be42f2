// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_suggest.c - `ebpfjail audit --suggest`: the lines that would allow what was denied */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "suggest.h"

/* add() - one log line, parsed as `ebpfjail audit` parses it */
static void add(struct suggestions *s, const char *line)
{
	struct audit_record r;

	cr_assert_eq(audit_parse_line(line, &r), 0, "unparsable: %s", line);
	cr_assert_eq(suggest_add(s, &r), 0);
}

#define DENY(daddr, dport, reason, extra)                                                        \
	"{\"time\": \"2026-12-01T10:00:00.000000Z\", \"jail\": \"j1\", \"pid\": 7, \"comm\": "   \
	"\"curl\", \"uid\": 1000, \"proto\": \"tcp\", \"daddr\": \"" daddr "\", \"dport\": " dport \
	", \"hook\": \"connect4\", \"reason\": \"" reason "\", \"rule\": null" extra "}\n"
#define UNIX(path)                                                                               \
	"{\"time\": \"2026-12-01T10:00:00.000000Z\", \"jail\": \"j1\", \"pid\": 7, \"comm\": "   \
	"\"sh\", \"uid\": 1000, \"proto\": \"unix\", \"path\": \"" path "\", \"hook\": "          \
	"\"connect_unix\", \"reason\": \"unix\", \"rule\": null}\n"

static char *print(const struct suggestions *s, size_t *lines)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	cr_assert(out);
	*lines = suggest_print(s, out);
	fclose(out);
	return text;
}

Test(suggest, grouped_counted_warned_and_never_metadata)
{
	struct suggestions s = { 0 };
	size_t lines;
	char *text;

	add(&s, DENY("10.1.2.3", "22", "private", ""));
	add(&s, DENY("10.1.2.3", "22", "private", ", \"count\": 4"));
	add(&s, DENY("169.254.169.254", "80", "metadata", ", \"count\": 50"));
	add(&s, DENY("10.1.2.3", "80", "private", ""));
	add(&s, DENY("192.168.1.9", "0", "private", ""));
	add(&s, DENY("169.254.7.7", "631", "link-local", ", \"count\": 2"));
	add(&s, DENY("::1", "22", "ipv6", ""));
	add(&s, UNIX("/run/user/1000/app.sock"));
	add(&s, UNIX("/var/run/docker.sock"));
	/* neither a loss nor a policy change is a denial */
	add(&s, "{\"time\": \"2026-12-01T10:00:00.000000Z\", \"jail\": \"j1\", \"lost\": 9}\n");
	text = print(&s, &lines);
	cr_expect_str_eq(text,
		"# not suggested: 169.254.169.254:80 (x50) is a cloud metadata service\n"
		"allow-ip = 10.1.2.3:22           # x5, warning: a private network: the agent reaches that host\n"
		"allow-ip = 10.1.2.3:80           # x1, warning: a private network: the agent reaches that host\n"
		"allow-ip = 169.254.7.7:631       # x2, warning: link-local: the agent reaches that device on the host's link\n"
		"# not suggested: 192.168.1.9 (x1) was tried without a port; allow-ip = 192.168.1.9 "
		"would open every port of it\n"
		"unix-socket = /run/user/1000/app.sock # x1\n"
		"# not suggested: /var/run/docker.sock (x1) is a daemon socket that grants root\n"
		"# 1 denial no line can allow (IPv6, frames that are not IPv4, sockets in the agent's "
		"own network namespaces, unnameable paths)\n");
	cr_expect_eq(lines, 4);
	free(text);
	suggest_free(&s);
}

/* Exact totals from many records: what the agent can act on is the sum. */
Test(suggest, counts_add_up_per_destination)
{
	struct suggestions s = { 0 };
	size_t lines, i;
	char *text;

	for (i = 0; i < 1000; i++)
		add(&s, i % 2 ? DENY("10.9.9.9", "5432", "private", "") :
				DENY("10.9.9.9", "5432", "private", ", \"count\": 3"));
	text = print(&s, &lines);
	cr_expect(strstr(text, "allow-ip = 10.9.9.9:5432         # x2000,") != NULL, "%s", text);
	cr_expect_eq(lines, 1);
	free(text);
	suggest_free(&s);
}

Test(suggest, nothing_denied_nothing_suggested)
{
	struct suggestions s = { 0 };
	size_t lines;
	char *text = print(&s, &lines);

	cr_expect_str_eq(text, "");
	cr_expect_eq(lines, 0);
	free(text);
	suggest_free(&s);
}

/* A denied address the jail's forwarder answered for a name: allow-host
 * for that name where it is under the host's own domains and a name may
 * lift the denial; allow-ip (the address pinned) for a name of anyone's
 * (the agent chooses what it looks up), the host's own address, or a
 * name that is not a host name. */
Test(suggest, names_the_forwarder_answered_get_allow_host)
{
	static char domains[][DNS_NAME_MAX + 1] = { "lan.test" };
	struct suggestions s = { .domains = domains, .n_domains = 1 };
	size_t lines;
	char *text;

	add(&s, DENY("10.23.0.80", "22", "connected", ", \"host\": \"forge.lan.test\""));
	add(&s, DENY("10.23.0.80", "22", "connected", ", \"host\": \"forge.lan.test\", \"count\": 2"));
	add(&s, "{\"time\": \"2026-12-01T10:00:00.000000Z\", \"jail\": \"j1\", \"pid\": 7, \"comm\": "
		"\"ssh\", \"uid\": 1000, \"proto\": \"tcp\", \"daddr\": \"10.23.0.1\", \"dport\": 22, "
		"\"hook\": \"connect4\", \"reason\": \"connected\", \"rule\": \"10.23.0.1/32\", "
		"\"host\": \"host.lan.test\"}\n");
	add(&s, DENY("198.51.100.9", "443", "internet", ", \"host\": \"api.example.test\""));
	add(&s, DENY("198.51.100.10", "443", "internet", ", \"host\": \"pkg.lan.test\""));
	/* a dns record is not a denial */
	add(&s, "{\"time\": \"2026-12-01T10:00:00.000000Z\", \"jail\": \"j1\", \"dns\": \"x.lan\", "
		"\"addrs\": [\"10.0.0.1\", \"10.0.0.2\"], \"port\": null, \"ttl\": 60}\n");
	text = print(&s, &lines);
	cr_expect_str_eq(text,
		"allow-host = forge.lan.test:22   # x3, 10.23.0.80:22, warning: a network the host is on, or the host itself: the agent reaches it\n"
		"allow-ip = 10.23.0.1:22          # x1, warning: a network the host is on, or the host itself: the agent reaches it\n"
		"allow-ip = 198.51.100.9:443      # x1\n"
		"allow-host = pkg.lan.test:443    # x1, 198.51.100.10:443\n");
	cr_expect_eq(lines, 4);
	free(text);
	suggest_free(&s);
}

#define REFUSED(name, rule, extra)                                                               \
	"{\"time\": \"2026-12-01T10:00:00.000000Z\", \"jail\": \"j1\", \"pid\": null, \"comm\": "\
	"null, \"uid\": null, \"proto\": \"dns\", \"name\": \"" name "\", \"qtype\": \"A\", "     \
	"\"hook\": \"dns\", \"reason\": \"dns\", \"rule\": \"" rule "\"" extra "}\n"

/* A name internet = off refused gets allow-host; deny-host, class and RD
 * refusals get no line (an allow-host line would not lift them), nor does
 * a name that is no host name. */
Test(suggest, names_the_forwarder_refused_get_allow_host)
{
	static char domains[][DNS_NAME_MAX + 1] = { "example.test" };
	struct suggestions s = { .domains = domains, .n_domains = 1 };
	size_t lines;
	char *text;

	add(&s, REFUSED("api.example.test", "internet-off", ""));
	add(&s, REFUSED("pkg.example.test", "internet-off", ", \"count\": 4, \"first\": \"2026-12-01T10:00:00.000000Z\""));
	add(&s, REFUSED("api.example.test", "internet-off", ""));
	add(&s, REFUSED("www.paste.test", "deny-host", ""));
	add(&s, REFUSED("version.bind", "class", ""));
	add(&s, REFUSED("a\\u001bb.test", "internet-off", ""));
	/* The agent's own names: never a line (their DNS would decide). */
	add(&s, REFUSED("6b6579.exfil.attacker.test", "internet-off", ""));
	add(&s, REFUSED("6b657a.exfil.attacker.test", "internet-off", ""));
	text = print(&s, &lines);
	cr_expect_str_eq(text,
		"allow-host = pkg.example.test    # x4, refused by the jail's DNS (internet = off)\n"
		"allow-host = api.example.test    # x2, refused by the jail's DNS (internet = off)\n"
		"# not suggested: 2 DNS queries for names outside your network's domains (first: 6b6579.exfil.attacker.test): an allow-host line would let their DNS decide what they open; a profile or allow-ip is the line for them\n"
		"# 3 DNS queries no line can allow (deny-host, a class other than IN, no recursion, names that are no host names)\n");
	cr_expect_eq(lines, 2);
	free(text);
	suggest_free(&s);
}
