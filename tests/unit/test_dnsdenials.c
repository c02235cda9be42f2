// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_dnsdenials.c - the forwarder's refusals: judged, aggregated under a
 * bounded key, written and read back */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "audit.h"
#include "config.h"
#include "dnsallow.h"
#include "dnsdenials.h"
#include "summary.h"

static void config_with(struct config *cfg, const char *lines)
{
	config_init(cfg);
	config_parse_buffer(cfg, "t.conf", lines, strlen(lines));
	cr_assert_eq(cfg->n_errors, 0, "%s", cfg->n_diags ? cfg->diags[0].text : "");
}

static struct dns_question question(const char *name, uint16_t type, uint16_t class, bool rd)
{
	struct dns_question q = { .type = type, .class = class, .flags = rd ? DNS_FLAG_RD : 0 };

	snprintf(q.name, sizeof(q.name), "%s", name);
	return q;
}

/* The exfiltration the judge stops: with internet = off a name no
 * allow-host pattern matches never reaches the resolver, whatever its
 * type; a CH-class or RD=0 query neither, in any mode. The controls: the
 * allowed name is asked, and with internet = on any name is. */
Test(dnsdenials, internet_off_asks_only_allowed_names_in_class_in_with_rd)
{
	struct dns_question exfil = question("6b6579.exfil.attacker.test", 16, DNS_CLASS_IN, true);
	struct dns_question allowed = question("api.example.test", DNS_TYPE_A, DNS_CLASS_IN, true);
	struct dns_question below = question("a.cdn.example.test", DNS_TYPE_AAAA, DNS_CLASS_IN, true);
	struct dns_question chaos = question("api.example.test", 16, 3, true);
	struct dns_question cache = question("api.example.test", DNS_TYPE_A, DNS_CLASS_IN, false);
	struct config off, on;

	config_with(&off, "internet = off\nallow-host = api.example.test:443\n"
			  "allow-host = *.cdn.example.test\n");
	config_with(&on, "allow-host = api.example.test\n");
	cr_expect_eq(dnsallow_judge(&off, &exfil), DNS_NOT_ALLOWED);
	cr_expect_eq(dnsallow_judge(&off, &allowed), DNS_ASK);
	cr_expect_eq(dnsallow_judge(&off, &below), DNS_ASK);
	cr_expect_eq(dnsallow_judge(&off, &chaos), DNS_NOT_IN);
	cr_expect_eq(dnsallow_judge(&off, &cache), DNS_NO_RECURSION);
	cr_expect_eq(dnsallow_judge(&on, &exfil), DNS_ASK, "internet = on: the internet is open");
	cr_expect_eq(dnsallow_judge(&on, &chaos), DNS_NOT_IN, "the resolver's state: every mode");
	cr_expect_eq(dnsallow_judge(&on, &cache), DNS_NO_RECURSION, "its cache: every mode");
	cr_expect_str_eq(dns_refusal_rule(DNS_NOT_ALLOWED), "internet-off");
	config_free(&off);
	config_free(&on);
}

/* deny-host refuses in every mode, over an allow-host pattern that
 * matches the same name; a wildcard is not its apex. */
Test(dnsdenials, deny_host_refuses_in_every_mode_and_wins_over_allow_host)
{
	struct dns_question paste = question("www.paste.test", DNS_TYPE_A, DNS_CLASS_IN, true);
	struct dns_question apex = question("paste.test", DNS_TYPE_A, DNS_CLASS_IN, true);
	struct dns_question tunnel = question("Tunnel.Example.test", DNS_TYPE_AAAA, DNS_CLASS_IN, true);
	struct config on, off;

	config_with(&on, "deny-host = *.paste.test\ndeny-host = tunnel.example.test.\n");
	config_with(&off, "internet = off\nallow-host = *.paste.test\ndeny-host = *.paste.test\n");
	cr_expect_eq(dnsallow_judge(&on, &paste), DNS_DENY_HOST);
	cr_expect_eq(dnsallow_judge(&on, &apex), DNS_ASK);
	cr_expect_eq(dnsallow_judge(&on, &tunnel), DNS_DENY_HOST, "case and final dot");
	cr_expect_eq(dnsallow_judge(&off, &paste), DNS_DENY_HOST);
	config_free(&on);
	config_free(&off);
}

Test(dnsdenials, deny_host_takes_names_only)
{
	const char *bad[] = { "deny-host = paste.test:443\n", "deny-host = *\n",
			      "deny-host = 10.0.0.1\n", "deny-host = a*.test\n" };
	struct config cfg;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config_init(&cfg);
		config_parse_buffer(&cfg, "t.conf", bad[i], strlen(bad[i]));
		cr_expect_eq(cfg.n_errors, 1, "accepted: %s", bad[i]);
		cr_expect(cfg.n_diags && strstr(cfg.diags[0].text, "t.conf:1"), "%s",
			  cfg.n_diags ? cfg.diags[0].text : "");
		cr_expect_eq(cfg.n_deny_host, 0);
		config_free(&cfg);
	}
}

Test(dnsdenials, the_key_is_the_registered_domain)
{
	char d[DNS_NAME_MAX + 1];

	dnsdenials_domain("6b6579.exfil.attacker.test", d);
	cr_expect_str_eq(d, "attacker.test");
	dnsdenials_domain("a.b.example.co.uk", d);
	cr_expect_str_eq(d, "example.co.uk");
	dnsdenials_domain("user.github.io", d);
	cr_expect_str_eq(d, "user.github.io", "github.io is a public suffix");
	dnsdenials_domain("localhost", d);
	cr_expect_str_eq(d, "localhost");
}

static struct dnsdenials_slot written[8];
static size_t n_written;

static void collect(void *ctx, const struct dnsdenials_slot *s)
{
	(void)ctx;
	cr_assert_lt(n_written, 8);
	written[n_written++] = *s;
}

/* Unique labels under one domain are one kind: the first is written at
 * once, the rest of the window is one count record naming the window's
 * first, and a quiet kind is forgotten (its next refusal written anew). */
Test(dnsdenials, unique_labels_under_one_domain_are_one_kind)
{
	static struct dnsdenials d;
	struct dnsdenials_kind k = { .qtype = 16, .refusal = DNS_NOT_ALLOWED };
	struct timespec t = { 100, 0 };
	char name[64];
	int i;

	snprintf(k.domain, sizeof(k.domain), "attacker.test");
	n_written = 0;
	cr_expect_eq(dnsdenials_add(&d, &k, "00.exfil.attacker.test", t), DNSDENIALS_NEW);
	for (i = 1; i < 1000; i++) {
		snprintf(name, sizeof(name), "%02x%d.exfil.attacker.test", i & 0xff, i);
		cr_expect_eq(dnsdenials_add(&d, &k, name, t), DNSDENIALS_REPEAT);
	}
	k.qtype = DNS_TYPE_A; /* another type: another kind */
	cr_expect_eq(dnsdenials_add(&d, &k, "x.attacker.test", t), DNSDENIALS_NEW);
	dnsdenials_close_window(&d, collect, NULL);
	cr_assert_eq(n_written, 1);
	cr_expect_eq(written[0].repeats, 999);
	cr_expect_str_eq(written[0].name, "011.exfil.attacker.test");
	cr_expect_eq(written[0].first.tv_sec, 100);
	cr_expect_eq(d.total, 1001);
	cr_expect_eq(d.n, 1, "the A kind had no repeats: forgotten");
	dnsdenials_close_window(&d, collect, NULL);
	cr_expect_eq(n_written, 1);
	cr_expect_eq(d.n, 0);
	k.qtype = 16;
	cr_expect_eq(dnsdenials_add(&d, &k, "again.attacker.test", t), DNSDENIALS_NEW);
}

/* A registered domain per query: the table fills, the rest is lost and
 * counted, never a record each. */
Test(dnsdenials, a_domain_per_query_fills_the_table_and_the_rest_is_lost)
{
	static struct dnsdenials d;
	struct dnsdenials_kind k = { .qtype = 16, .refusal = DNS_NOT_ALLOWED };
	struct timespec t = { 0 };
	size_t i, fresh = 0;

	for (i = 0; i < DNSDENIALS_MAX + 100; i++) {
		snprintf(k.domain, sizeof(k.domain), "d%zu.test", i);
		fresh += dnsdenials_add(&d, &k, k.domain, t) == DNSDENIALS_NEW;
	}
	cr_expect_eq(fresh, DNSDENIALS_MAX);
	cr_expect_eq(d.lost, 100);
	n_written = 0;
	dnsdenials_close_window(&d, collect, NULL);
	cr_expect_eq(d.n, 0, "no repeats: room again");
}

Test(dnsdenials, a_record_escapes_the_name_and_reads_back)
{
	struct timespec t = { 1764583200, 0 }, first = { 1764583100, 0 };
	char line[AUDIT_DNS_LINE_MAX];
	struct audit_record r;

	audit_format_dns_denial("j1", "a\"b\n.attacker.test", 16, "internet-off", 0, first, t, line,
				sizeof(line));
	cr_expect(strstr(line, "\"pid\": null, \"comm\": null, \"uid\": null, \"proto\": \"dns\", "
			       "\"name\": \"a\\\"b\\u000a.attacker.test\", \"qtype\": \"TXT\", "
			       "\"hook\": \"dns\", \"reason\": \"dns\", \"rule\": \"internet-off\"}\n"),
		  "%s", line);
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_str_eq(r.proto, "dns");
	cr_expect_str_eq(r.qtype, "TXT");
	cr_expect_str_eq(r.reason, "dns");
	cr_expect_str_eq(r.rule, "internet-off");
	cr_expect_eq(r.pid, AUDIT_UNKNOWN);
	cr_expect(!r.is_dns, "a refusal is not an answer's record");
	audit_format_dns_denial("j1", "x.attacker.test", 65399, "deny-host", 41, first, t, line,
				sizeof(line));
	cr_expect(strstr(line, "\"qtype\": \"TYPE65399\""), "%s", line);
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_eq(r.count, 41);
	cr_expect_str_eq(r.host, "x.attacker.test");
}

/* The longest name, every byte escaped, still fits and reads back. */
Test(dnsdenials, the_longest_record_reads_back)
{
	char name[DNS_NAME_MAX + 1], line[AUDIT_DNS_LINE_MAX];
	struct timespec t = { 0 };
	struct audit_record r;
	size_t len;

	memset(name, '\x01', DNS_NAME_MAX);
	name[DNS_NAME_MAX] = '\0';
	len = audit_format_dns_denial("j1", name, 16, "internet-off", 7, t, t, line, sizeof(line));
	cr_assert_lt(len, sizeof(line));
	cr_expect_eq(line[len - 1], '\n');
	cr_assert_eq(audit_parse_line(line, &r), 0);
	cr_expect_eq(r.count, 7);
}

Test(dnsdenials, the_exit_summary_counts_refused_queries)
{
	static struct summary s;
	char line[512];

	summary_add_dns(&s, "bad\x1b[2J.attacker.test");
	summary_add_dns(&s, "paste.example.test");
	summary_add_dns(&s, "other.test");
	cr_assert(summary_format(&s, line, sizeof(line)));
	cr_expect_str_eq(line, "ebpfjail: refused 3 DNS queries (first: paste.example.test) "
			       "(details: ebpfjail audit)\n");
}
