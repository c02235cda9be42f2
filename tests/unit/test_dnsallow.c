// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_dnsallow.c - allow-host: names' addresses and their lifetimes, the
 * policy they make, the configuration that asks for them, and what the
 * forwarder reads from resolv.conf */
#include <errno.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <criterion/criterion.h>

#include "audit.h"
#include "config.h"
#include "dnsallow.h"
#include "dnsfwd.h"
#include "policy.h"

#define S 1000000000ULL

static uint32_t ip(const char *s)
{
	return inet_addr(s);
}

static void config_with(struct config *cfg, const char *lines)
{
	config_init(cfg);
	config_parse_buffer(cfg, "t.conf", lines, strlen(lines));
	cr_assert_eq(cfg->n_errors, 0, "%s", cfg->n_diags ? cfg->diags[0].text : "");
}

Test(dnsallow, an_answer_allows_each_address_for_its_ttl_at_least_the_minimum)
{
	uint32_t a[] = { ip("10.0.0.5"), ip("10.0.0.6") };
	struct dnsallow t = { 0 };
	struct config cfg;
	size_t added;

	config_with(&cfg, "allow-host = forge.lan\nallow-host = *.cdn.example:443\n");
	cr_assert(dnsallow_wanted(&cfg, "forge.lan"));
	cr_assert(!dnsallow_wanted(&cfg, "other.lan"));
	cr_assert(!dnsallow_wanted(&cfg, "cdn.example"), "a wildcard is not its apex");
	cr_assert_eq(dnsallow_record(&t, &cfg, "forge.lan", a, 2, 1, 100 * S, &added), 0);
	cr_expect_eq(added, 2);
	cr_expect_eq(t.v[0].expires_ns, (100 + DNSALLOW_MIN_TTL_S) * S, "TTL 1 s lasts the minimum");
	cr_expect_eq(t.v[0].port, 0);
	/* Again with a longer TTL: renewed, nothing new. */
	cr_assert_eq(dnsallow_record(&t, &cfg, "forge.lan", a, 1, 3600, 101 * S, &added), 0);
	cr_expect_eq(added, 0);
	cr_expect_eq(t.v[0].expires_ns, (101 + 3600) * S);
	/* A shorter one later never shortens it. */
	dnsallow_record(&t, &cfg, "forge.lan", a, 1, 0, 102 * S, &added);
	cr_expect_eq(t.v[0].expires_ns, (101 + 3600) * S);
	/* The wildcard's port, its own entry. */
	dnsallow_record(&t, &cfg, "a.cdn.example", a, 1, 60, 100 * S, &added);
	cr_expect_eq(added, 1);
	cr_expect_eq(t.v[2].port, 443);
	cr_expect_eq(dnsallow_next_expiry(&t), (100 + DNSALLOW_MIN_TTL_S) * S);
	/* Expiry: the second address (TTL 1 s) goes at 105 s, the others stay. */
	cr_expect_eq(dnsallow_expire(&t, 104 * S), 0);
	cr_expect_eq(dnsallow_expire(&t, 105 * S), 1);
	cr_expect_eq(t.n, 2);
	cr_expect_eq(t.v[0].addr, a[0]);
	cr_expect_eq(dnsallow_lifetime(86400 * 30), DNSALLOW_MAX_TTL_S);
	dnsallow_free(&t);
	config_free(&cfg);
}

Test(dnsallow, a_full_table_refuses_new_addresses_and_keeps_the_old)
{
	struct dnsallow t = { 0 };
	struct config cfg;
	size_t added, i;
	uint32_t a;

	config_with(&cfg, "allow-host = *.pool.example\n");
	for (i = 0; i < DNSALLOW_MAX_ENTRIES; i++) {
		a = htonl(0xc6336400U + (uint32_t)i);
		cr_assert_eq(dnsallow_record(&t, &cfg, "x.pool.example", &a, 1, 60, S, &added), 0);
	}
	a = htonl(0x0a000001);
	cr_expect_eq(dnsallow_record(&t, &cfg, "x.pool.example", &a, 1, 60, S, &added), -ENOSPC);
	cr_expect_eq(added, 0);
	cr_expect_eq(t.n, DNSALLOW_MAX_ENTRIES);
	dnsallow_free(&t);
	config_free(&cfg);
}

Test(dnsallow, a_reload_drops_the_names_no_pattern_gives)
{
	uint32_t a = ip("10.0.0.5"), b = ip("10.0.0.6");
	struct dnsallow t = { 0 };
	struct config cfg, next;
	size_t added;

	config_with(&cfg, "allow-host = forge.lan\nallow-host = db.lan:5432\n");
	dnsallow_record(&t, &cfg, "forge.lan", &a, 1, 60, S, &added);
	dnsallow_record(&t, &cfg, "db.lan", &b, 1, 60, S, &added);
	config_with(&next, "allow-host = db.lan\n"); /* the port changed too */
	cr_expect_eq(dnsallow_keep_configured(&t, &next), 2);
	cr_expect_eq(t.n, 0);
	dnsallow_free(&t);
	config_free(&cfg);
	config_free(&next);
}

static const struct policy_rule *rule_at(const struct policy *p, uint32_t addr, uint16_t port)
{
	long i = policy_lookup(p, addr, htons(port));

	return i < 0 ? NULL : &p->rules[i];
}

Test(dnsallow, names_open_blocked_ranges_but_never_metadata_the_gateway_or_the_host)
{
	struct host_prefix own = { ip("10.23.0.1"), 32 }, net = { ip("10.23.0.0"), 24 };
	struct host_facts f = { .addresses = &own, .n_addresses = 1, .connected = &net,
				.n_connected = 1, .gateway = ip("192.0.2.1"),
				.dns_forward = ip("169.254.1.1"), .dns_tcp = true };
	struct policy_name names[] = {
		{ ip("10.23.0.80"), 0, "forge.lan" },       /* a connected network */
		{ ip("10.9.9.9"), 22, "ssh.lan" },          /* private, one port */
		{ ip("169.254.169.254"), 0, "meta.evil" },  /* metadata */
		{ ip("192.0.2.1"), 0, "gw.evil" },          /* the gateway */
		{ ip("10.23.0.1"), 0, "host.evil" },        /* the host itself */
		{ ip("127.0.0.1"), 0, "lo.evil" },          /* the host's loopback */
		{ ip("10.5.5.5"), 0, "denied.lan" },        /* `ebpfjail deny`ed */
		{ ip("198.51.100.7"), 0, "web.example" },   /* the internet: nothing */
	};
	struct policy_live live = { ip("10.5.5.5"), 0, false };
	struct policy p, base;
	struct config cfg;

	config_with(&cfg, "allow-host = *.lan\n");
	cr_assert_eq(policy_compile_live(&cfg, &f, &live, 1, &base), 0);
	cr_assert_eq(policy_compile_jail(&cfg, &f, &live, 1, names, 8, &p), 0);
	cr_expect_eq(rule_at(&p, ip("10.23.0.80"), 22)->value.reason, REASON_ALLOW_HOST);
	cr_expect_eq(rule_at(&p, ip("10.23.0.80"), 22)->value.action, JAIL_ALLOW);
	cr_expect_eq(rule_at(&p, ip("10.9.9.9"), 22)->value.reason, REASON_ALLOW_HOST);
	cr_expect_eq(rule_at(&p, ip("10.9.9.9"), 23)->value.reason, REASON_PRIVATE);
	cr_expect_eq(rule_at(&p, ip("169.254.169.254"), 80)->value.reason, REASON_METADATA);
	cr_expect_eq(rule_at(&p, ip("192.0.2.1"), 80)->value.reason, REASON_GATEWAY);
	cr_expect_eq(rule_at(&p, ip("10.23.0.1"), 80)->value.reason, REASON_CONNECTED);
	cr_expect_eq(rule_at(&p, ip("127.0.0.1"), 80)->value.reason, REASON_LOOPBACK);
	cr_expect_eq(rule_at(&p, ip("10.5.5.5"), 80)->value.action, JAIL_DENY);
	cr_expect_null(rule_at(&p, ip("198.51.100.7"), 80));
	cr_expect_eq(p.n, base.n + 2, "two entries added, no more");
	cr_expect_eq(policy_name_refusal(&base, ip("169.254.169.254"), 0), REASON_METADATA);
	cr_expect_eq(policy_name_refusal(&base, ip("10.23.0.80"), 0), REASON_NONE);
	policy_free(&p);
	policy_free(&base);
	config_free(&cfg);
}

Test(dnsallow, the_changes_between_two_policies_are_what_a_name_added)
{
	struct host_facts f = { .gateway = ip("192.0.2.1"), .dns_forward = ip("169.254.1.1") };
	struct policy_name name = { ip("10.0.0.5"), 0, "forge.lan" };
	struct policy_rule *set;
	struct policy_key *del;
	size_t n_set, n_del;
	struct policy a, b;
	struct config cfg;

	config_with(&cfg, "allow-host = forge.lan\n");
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, NULL, 0, &a), 0);
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, &name, 1, &b), 0);
	cr_assert_eq(policy_changes(&a, &b, &set, &n_set, &del, &n_del), 0);
	cr_expect_eq(n_set, 1);
	cr_expect_eq(n_del, 0);
	cr_expect_eq(set[0].key.addr, name.addr);
	cr_expect_eq(set[0].key.prefixlen, 32);
	free(set);
	free(del);
	/* And back: its key is deleted. */
	cr_assert_eq(policy_changes(&b, &a, &set, &n_set, &del, &n_del), 0);
	cr_expect_eq(n_set, 0);
	cr_expect_eq(n_del, 1);
	free(set);
	free(del);
	policy_free(&a);
	policy_free(&b);
	config_free(&cfg);
}

Test(dnsallow, internet_off_is_one_deny_of_everything_allows_punch_through)
{
	struct host_facts f = { .gateway = ip("192.0.2.1"), .dns_forward = ip("169.254.1.1"),
				.dns_tcp = true };
	struct policy p;
	struct config cfg;

	config_with(&cfg, "internet = off\nallow-ip = 198.51.100.9:443\n");
	cr_assert_eq(policy_compile(&cfg, &f, &p), 0);
	cr_expect_eq(rule_at(&p, ip("198.51.100.7"), 80)->value.reason, REASON_INTERNET);
	cr_expect_eq(rule_at(&p, ip("198.51.100.7"), 80)->value.prefixlen, 0);
	cr_expect_eq(rule_at(&p, ip("198.51.100.9"), 443)->value.action, JAIL_ALLOW);
	cr_expect_eq(rule_at(&p, ip("198.51.100.9"), 80)->value.reason, REASON_INTERNET);
	cr_expect_eq(rule_at(&p, ip("169.254.1.1"), 53)->value.reason, REASON_DNS);
	cr_expect_eq(rule_at(&p, ip("10.1.1.1"), 80)->value.reason, REASON_PRIVATE,
		     "a block keeps its own reason");
	policy_free(&p);
	config_free(&cfg);
}

Test(dnsallow, allow_host_lines_are_checked)
{
	static const struct {
		const char *value, *error;
	} bad[] = {
		{ "*", "a name is needed" },
		{ "*.", "a name is needed" },
		{ "a.*.org", "'*' may only start" },
		{ "10.0.0.1", "write allow-ip = 10.0.0.1" },
		{ "exa mple.org", "letters, digits" },
		{ "a..org", "1-63 characters" },
		{ "forge.lan:0", "1-65535" },
		{ "forge.lan:022", "1-65535" },
	};
	struct config cfg;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[128];

		config_init(&cfg);
		snprintf(line, sizeof(line), "allow-host = %s\n", bad[i].value);
		config_parse_buffer(&cfg, "t.conf", line, strlen(line));
		cr_expect_eq(cfg.n_errors, 1, "%s", bad[i].value);
		cr_expect(cfg.n_diags && strstr(cfg.diags[0].text, bad[i].error) &&
				  strstr(cfg.diags[0].text, "t.conf:1"),
			  "%s: %s", bad[i].value, cfg.n_diags ? cfg.diags[0].text : "(none)");
		cr_expect_eq(cfg.n_allow_host, 0);
		config_free(&cfg);
	}
	config_with(&cfg, "allow-host = Forge.LAN.\nallow-host = forge.lan\nallow-host = *.x.org:22\n");
	cr_expect_eq(cfg.n_allow_host, 2, "case and a final dot do not make a new name");
	cr_expect_str_eq(cfg.allow_host[0].pattern, "forge.lan");
	cr_expect_eq(cfg.allow_host[1].port, 22);
	config_free(&cfg);
}

Test(dnsallow, the_forwarder_asks_the_host_resolv_conf_nameservers)
{
	struct dnsfwd_opts o = { 0 };
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&o.upstreams[0];

	dnsfwd_parse_resolv("# c\nsearch x\nnameserver 10.0.0.53\nnameserver ::1\n"
			    "nameserver bogus\nnameserver 1.1.1.1\nnameserver 8.8.8.8\n", &o);
	cr_expect_eq(o.n_upstreams, 3);
	cr_expect_eq(s4->sin_addr.s_addr, ip("10.0.0.53"));
	cr_expect_eq(ntohs(s4->sin_port), 53);
	cr_expect_eq(o.upstreams[1].ss_family, AF_INET6);
	dnsfwd_parse_resolv("search only\n", &o);
	cr_expect_eq(o.n_upstreams, 1);
	cr_expect_eq(s4->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
}

Test(dnsallow, a_dns_record_names_the_addresses_and_the_ttl)
{
	uint32_t a[] = { ip("10.0.0.5"), ip("10.0.0.6") };
	struct timespec t = { 0, 0 };
	char line[AUDIT_LINE_MAX * 2];

	audit_format_dns("j1", "forge.lan", 22, a, 2, 60, t, line, sizeof(line));
	cr_expect(strstr(line, "\"jail\": \"j1\", \"dns\": \"forge.lan\", \"addrs\": "
			       "[\"10.0.0.5\", \"10.0.0.6\"], \"port\": 22, \"ttl\": 60}\n"),
		  "%s", line);
}

Test(dnsallow, adding_one_name_in_place_gives_what_a_whole_compile_gives)
{
	struct host_prefix net = { ip("10.23.0.0"), 24 };
	struct host_facts f = { .connected = &net, .n_connected = 1, .gateway = ip("192.0.2.1"),
				.dns_forward = ip("169.254.1.1"), .dns_tcp = true };
	struct policy_name names[] = {
		{ ip("10.23.0.80"), 0, "a.lan" },  { ip("10.23.0.80"), 22, "b.lan" },
		{ ip("10.9.0.1"), 443, "c.lan" },  { ip("169.254.169.254"), 0, "m.lan" },
		{ ip("10.23.0.0"), 0, "net.lan" }, { ip("198.51.100.1"), 0, "web.lan" },
	};
	struct policy whole, inplace;
	struct policy_rule r;
	struct config cfg;
	size_t i, n_added = 0;

	config_with(&cfg, "allow-host = *.lan\nallow-ip = 10.23.0.9\n");
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, names, 6, &whole), 0);
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, NULL, 0, &inplace), 0);
	free(inplace.sources);
	inplace.sources = NULL;
	for (i = 0; i < 6; i++) {
		int got = policy_add_name(&inplace, &names[i], NULL, 0, &r);

		cr_assert_geq(got, 0);
		n_added += (size_t)got;
	}
	cr_expect_eq(n_added, 4, "metadata and the internet add nothing");
	cr_assert_eq(inplace.n, whole.n);
	for (i = 0; i < whole.n; i++)
		cr_expect(!memcmp(&inplace.rules[i], &whole.rules[i], sizeof(r)), "rule %zu differs", i);
	policy_free(&whole);
	policy_free(&inplace);
	config_free(&cfg);
}
