// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_policy.c - policy compilation: what each destination gets, and why */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "builtin.h"
#include "netaddr.h"
#include "pasta.h"
#include "policy.h"

/* The host of these tests: 192.0.2.10 on 192.0.2.0/24 (a documentation
 * network, so only "connected" blocks it), a VPN route to 198.18.0.0/15, a
 * full-tunnel VPN pair, and pasta's gateway and DNS forwarder. */
static const struct host_prefix host_addrs[] = { { 0x0a0200c0, 32 } };       /* 192.0.2.10 */
static const struct host_prefix host_nets[] = { { 0x000200c0, 24 } };        /* 192.0.2.0/24 */
static const struct host_prefix host_routes[] = {
	{ 0x000012c6, 15 }, /* 198.18.0.0/15 via a VPN */
	{ 0x00000000, 1 },  /* 0.0.0.0/1: full tunnel, ignored */
	{ 0x00000080, 1 },  /* 128.0.0.0/1: full tunnel, ignored */
	{ 0x0000000b, 7 },  /* 10.0.0.0/7: shorter than /8, ignored */
};

struct lookup_case {
	char addr[16];
	uint16_t port;
	int action; /* JAIL_ALLOW or JAIL_DENY */
	int reason;
	char rule[20];
};

ParameterizedTestParameters(policy, lookups)
{
	static struct lookup_case cases[] = {
		{ "203.0.113.7", 443, JAIL_ALLOW, REASON_NONE, "" },
		{ "8.8.8.8", 53, JAIL_ALLOW, REASON_NONE, "" },
		/* range edges of the built-in blocks */
		{ "100.63.255.255", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "100.64.0.0", 80, JAIL_DENY, REASON_CGNAT, "100.64.0.0/10" },
		{ "100.127.255.255", 80, JAIL_DENY, REASON_CGNAT, "100.64.0.0/10" },
		{ "100.128.0.0", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "172.15.255.255", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "172.16.0.0", 80, JAIL_DENY, REASON_PRIVATE, "172.16.0.0/12" },
		{ "172.31.255.255", 80, JAIL_DENY, REASON_PRIVATE, "172.16.0.0/12" },
		{ "172.32.0.0", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "169.253.255.255", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "169.254.0.0", 80, JAIL_DENY, REASON_LINK_LOCAL, "169.254.0.0/16" },
		{ "169.254.255.255", 80, JAIL_DENY, REASON_LINK_LOCAL, "169.254.0.0/16" },
		{ "169.255.0.0", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "192.167.255.255", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "192.168.0.0", 80, JAIL_DENY, REASON_PRIVATE, "192.168.0.0/16" },
		{ "192.168.255.255", 80, JAIL_DENY, REASON_PRIVATE, "192.168.0.0/16" },
		{ "192.169.0.0", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "9.255.255.255", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "10.0.0.0", 80, JAIL_DENY, REASON_PRIVATE, "10.0.0.0/8" },
		{ "10.255.255.255", 80, JAIL_DENY, REASON_PRIVATE, "10.0.0.0/8" },
		{ "11.0.0.0", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "0.0.0.0", 80, JAIL_DENY, REASON_RESERVED, "0.0.0.0/8" },
		{ "127.0.0.1", 80, JAIL_DENY, REASON_LOOPBACK, "127.0.0.0/8" },
		{ "224.0.0.1", 5353, JAIL_DENY, REASON_MULTICAST, "224.0.0.0/4" },
		{ "239.255.255.250", 1900, JAIL_DENY, REASON_MULTICAST, "224.0.0.0/4" },
		{ "240.0.0.1", 80, JAIL_DENY, REASON_RESERVED, "240.0.0.0/4" },
		{ "255.255.255.255", 67, JAIL_DENY, REASON_RESERVED, "255.255.255.255/32" },
		{ "192.0.0.9", 80, JAIL_DENY, REASON_RESERVED, "192.0.0.0/24" },
		/* metadata: the most specific reason wins */
		{ "169.254.169.254", 80, JAIL_DENY, REASON_METADATA, "169.254.169.254/32" },
		{ "169.254.170.2", 80, JAIL_DENY, REASON_METADATA, "169.254.170.2/32" },
		{ "168.63.129.16", 80, JAIL_DENY, REASON_METADATA, "168.63.129.16/32" },
		{ "168.63.129.17", 80, JAIL_ALLOW, REASON_NONE, "" },
		{ "100.100.100.200", 80, JAIL_DENY, REASON_METADATA, "100.100.100.200/32" },
		/* host facts */
		{ "192.0.2.10", 22, JAIL_DENY, REASON_CONNECTED, "192.0.2.10/32" },
		{ "192.0.2.99", 22, JAIL_DENY, REASON_CONNECTED, "192.0.2.0/24" },
		{ "198.19.1.1", 443, JAIL_DENY, REASON_HOST_ROUTE, "198.18.0.0/15" },
		{ "198.20.0.0", 443, JAIL_ALLOW, REASON_NONE, "" },
		{ "130.0.0.1", 443, JAIL_ALLOW, REASON_NONE, "" }, /* 128/1 ignored */
		{ "11.1.1.1", 443, JAIL_ALLOW, REASON_NONE, "" },  /* 10/7 ignored */
		/* gateway and DNS */
		{ "198.51.100.1", 80, JAIL_DENY, REASON_GATEWAY, "198.51.100.1/32" },
		{ "198.51.100.1", 53, JAIL_ALLOW, REASON_DNS, "198.51.100.1/32" },
		{ "198.51.100.2", 53, JAIL_ALLOW, REASON_NONE, "" },
		/* block-cidr */
		{ "203.0.114.9", 443, JAIL_DENY, REASON_BLOCK_CIDR, "203.0.114.0/24" },
		/* allow-ip wins over every block; with a port, only that port */
		{ "10.1.2.3", 22, JAIL_ALLOW, REASON_ALLOW_IP, "10.1.2.3/32" },
		{ "10.1.2.4", 502, JAIL_ALLOW, REASON_ALLOW_IP, "10.1.2.4/32" },
		{ "10.1.2.4", 503, JAIL_DENY, REASON_PRIVATE, "10.0.0.0/8" },
		{ "192.0.2.10", 8080, JAIL_ALLOW, REASON_ALLOW_IP, "192.0.2.10/32" },
		{ "192.0.2.10", 8081, JAIL_DENY, REASON_CONNECTED, "192.0.2.10/32" },
		{ "169.254.169.254", 80, JAIL_DENY, REASON_METADATA, "169.254.169.254/32" },
		{ "203.0.114.77", 1, JAIL_ALLOW, REASON_ALLOW_IP, "203.0.114.77/32" },
		{ "198.51.100.1", 8053, JAIL_ALLOW, REASON_ALLOW_IP, "198.51.100.1/32" },
	};
	return cr_make_param_array(struct lookup_case, cases, sizeof(cases) / sizeof(cases[0]));
}

static void compile_test_policy(struct config *cfg, struct policy *p)
{
	static const char conf[] = "block-cidr = 203.0.114.0/24\n"
				   "allow-ip = 10.1.2.3\n"
				   "allow-ip = 10.1.2.4:502\n"
				   "allow-ip = 192.0.2.10:8080\n"
				   "allow-ip = 203.0.114.77\n"
				   "allow-ip = 198.51.100.1:8053\n";
	struct host_facts facts = {
		.addresses = host_addrs, .n_addresses = 1,
		.connected = host_nets, .n_connected = 1,
		.routes = host_routes, .n_routes = 4,
		.gateway = inet_addr("198.51.100.1"),
		.dns_forward = inet_addr("198.51.100.1"),
	};

	config_init(cfg);
	config_parse_buffer(cfg, "p.conf", conf, sizeof(conf) - 1);
	cr_assert(config_ok(cfg));
	cr_assert_eq(policy_compile(cfg, &facts, p), 0);
}

ParameterizedTest(struct lookup_case *c, policy, lookups)
{
	struct config cfg;
	struct policy p;
	long i;

	compile_test_policy(&cfg, &p);
	i = policy_lookup(&p, inet_addr(c->addr), htons(c->port));
	if (c->reason == REASON_NONE) {
		cr_expect_eq(i, -1, "%s:%u matched %s", c->addr, c->port, i >= 0 ? p.sources[i] : "");
	} else {
		char rule[NETADDR_CIDR_STRLEN];

		cr_assert_geq(i, 0, "%s:%u matched nothing", c->addr, c->port);
		cr_expect_eq(p.rules[i].value.action, c->action, "%s:%u action (%s)", c->addr,
			     c->port, p.sources[i]);
		cr_expect_eq(p.rules[i].value.reason, c->reason, "%s:%u: %s, want %s (%s)", c->addr,
			     c->port, reason_name(p.rules[i].value.reason),
			     reason_name((unsigned)c->reason), p.sources[i]);
		netaddr_format_cidr(inet_addr(c->addr) & htonl(netaddr_mask(p.rules[i].value.prefixlen)),
				    p.rules[i].value.prefixlen, rule);
		cr_expect_str_eq(rule, c->rule, "%s:%u", c->addr, c->port);
	}
	policy_free(&p);
	config_free(&cfg);
}

Test(policy, keys_are_unique_and_normalised)
{
	struct config cfg;
	struct policy p;
	size_t i, j;

	compile_test_policy(&cfg, &p);
	for (i = 0; i < p.n; i++) {
		const struct policy_key *k = &p.rules[i].key;

		if (k->prefixlen <= 32)
			cr_expect_eq(ntohl(k->addr) & ~netaddr_mask(k->prefixlen), 0);
		cr_expect_eq(k->pad, 0);
		for (j = i + 1; j < p.n; j++)
			cr_expect(memcmp(k, &p.rules[j].key, sizeof(*k)), "duplicate key at %zu/%zu", i,
				  j);
	}
	policy_free(&p);
	config_free(&cfg);
}

Test(policy, no_host_facts_is_still_the_builtin_list)
{
	struct host_facts none = { 0 };
	struct config cfg;
	struct policy p;

	config_init(&cfg);
	cr_assert_eq(policy_compile(&cfg, &none, &p), 0);
	cr_expect_eq(p.n, builtin_blocks_count);
	cr_expect_eq(policy_lookup(&p, inet_addr("203.0.113.1"), htons(80)), -1);
	policy_free(&p);
	config_free(&cfg);
}

/* The DNS exception is the jail's forwarder's: UDP and TCP to the forward
 * address's port 53, every other port of it denied; a temporary allow of
 * it replaces it at its key. */
Test(policy, dns_exception_is_the_forwarders_udp_and_tcp)
{
	struct host_facts facts = { .gateway = inet_addr("203.0.113.1"),
				    .dns_forward = inet_addr("169.254.1.1") };
	struct policy_live allow_dns = { .addr = inet_addr("169.254.1.1"), .port = 53, .allow = true };
	struct config cfg;
	struct policy p;
	long i;

	config_init(&cfg);
	cr_assert_eq(policy_compile(&cfg, &facts, &p), 0);
	i = policy_lookup(&p, inet_addr("169.254.1.1"), htons(53));
	cr_assert_geq(i, 0);
	cr_expect_eq(p.rules[i].value.reason, REASON_DNS);
	cr_expect_eq(p.rules[i].value.proto, 0, "every protocol");
	i = policy_lookup(&p, inet_addr("169.254.1.1"), htons(80));
	cr_assert_geq(i, 0);
	cr_expect_eq(p.rules[i].value.action, JAIL_DENY);
	/* pasta's own DNS forwarding, a raw way to the host's resolver, is on
	 * an address nothing of the jail's may reach. */
	i = policy_lookup(&p, inet_addr(PASTA_DNS_DECOY), htons(53));
	cr_assert_geq(i, 0);
	cr_expect_eq(p.rules[i].value.action, JAIL_DENY);
	policy_free(&p);
	cr_assert_eq(policy_compile_live(&cfg, &facts, &allow_dns, 1, &p), 0);
	i = policy_lookup(&p, inet_addr("169.254.1.1"), htons(53));
	cr_assert_geq(i, 0);
	cr_expect_eq(p.rules[i].value.reason, REASON_ALLOW_IP);
	policy_free(&p);
	config_free(&cfg);
}

/* allow-host and internet = off: what names' addresses add to the policy */
static uint32_t nm_ip(const char *s)
{
	return inet_addr(s);
}

static void nm_config(struct config *cfg, const char *lines)
{
	config_init(cfg);
	config_parse_buffer(cfg, "t.conf", lines, strlen(lines));
	cr_assert_eq(cfg->n_errors, 0, "%s", cfg->n_diags ? cfg->diags[0].text : "");
}

static const struct policy_rule *nm_rule_at(const struct policy *p, uint32_t addr, uint16_t port)
{
	long i = policy_lookup(p, addr, htons(port));

	return i < 0 ? NULL : &p->rules[i];
}


/* What a name's answer may open: an exact name, blocked ranges (the
 * user's forge on the LAN, behind a VPN route); a wildcard, only the
 * internet that internet = off closed. Never: metadata, the gateway,
 * loopback, link-local, a block-cidr, the host's own addresses and AnyIP
 * prefixes, an address `ebpfjail deny` named. */
Test(policy, names_open_blocked_ranges_but_never_metadata_the_gateway_or_the_host)
{
	struct host_prefix own = { nm_ip("10.23.0.1"), 32 }, net = { nm_ip("10.23.0.0"), 24 };
	struct host_prefix anyip = { nm_ip("10.99.0.0"), 16 };
	struct host_facts f = { .addresses = &own, .n_addresses = 1, .connected = &net,
				.n_connected = 1, .routes = &anyip, .n_routes = 1, .local = &anyip,
				.n_local = 1, .gateway = nm_ip("192.0.2.1"),
				.dns_forward = nm_ip("169.254.1.1") };
	struct policy_name names[] = {
		{ nm_ip("10.23.0.80"), 0, "forge.lan", false, false },      /* a connected network */
		{ nm_ip("10.9.9.9"), 22, "ssh.lan", false, false },         /* private, one port */
		{ nm_ip("169.254.169.254"), 0, "meta.evil", false, false }, /* metadata */
		{ nm_ip("192.0.2.1"), 0, "gw.evil", false, false },         /* the gateway */
		{ nm_ip("10.23.0.1"), 0, "host.evil", false, false },       /* the host itself */
		{ nm_ip("10.99.3.4"), 0, "anyip.evil", false, false },      /* the host's AnyIP */
		{ nm_ip("127.0.0.1"), 0, "lo.evil", false, false },         /* the host's loopback */
		{ nm_ip("169.254.7.7"), 0, "ll.evil", false, false },       /* link-local */
		{ nm_ip("10.5.5.5"), 0, "denied.lan", false, false },       /* `ebpfjail deny`ed */
		{ nm_ip("10.6.0.9"), 0, "blocked.lan", false, false },      /* in a block-cidr */
		{ nm_ip("10.7.7.7"), 0, "x.wild.lan", true, false },        /* a wildcard's, private */
		{ nm_ip("198.51.100.7"), 0, "web.example", false, false },  /* the internet: nothing */
		{ nm_ip("203.0.113.9"), 0, "y.wild.example", true, false }, /* the internet: nothing */
	};
	struct policy_live live = { nm_ip("10.5.5.5"), 0, false };
	struct policy p, base;
	struct config cfg;

	nm_config(&cfg, "allow-host = *.lan\nblock-cidr = 10.6.0.0/16\n");
	cr_assert_eq(policy_compile_live(&cfg, &f, &live, 1, &base), 0);
	cr_assert_eq(policy_compile_jail(&cfg, &f, &live, 1, names, 13, &p), 0);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.23.0.80"), 22)->value.reason, REASON_ALLOW_HOST);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.23.0.80"), 22)->value.action, JAIL_ALLOW);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.9.9.9"), 22)->value.reason, REASON_ALLOW_HOST);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.9.9.9"), 23)->value.reason, REASON_PRIVATE);
	cr_expect_eq(nm_rule_at(&p, nm_ip("169.254.169.254"), 80)->value.reason, REASON_METADATA);
	cr_expect_eq(nm_rule_at(&p, nm_ip("192.0.2.1"), 80)->value.reason, REASON_GATEWAY);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.23.0.1"), 80)->value.reason, REASON_CONNECTED);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.99.3.4"), 80)->value.reason, REASON_HOST_ROUTE);
	cr_expect_eq(nm_rule_at(&p, nm_ip("127.0.0.1"), 80)->value.reason, REASON_LOOPBACK);
	cr_expect_eq(nm_rule_at(&p, nm_ip("169.254.7.7"), 80)->value.reason, REASON_LINK_LOCAL);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.5.5.5"), 80)->value.action, JAIL_DENY);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.6.0.9"), 80)->value.reason, REASON_BLOCK_CIDR);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.7.7.7"), 80)->value.reason, REASON_PRIVATE);
	cr_expect_null(nm_rule_at(&p, nm_ip("198.51.100.7"), 80));
	cr_expect_eq(p.n, base.n + 2, "two entries added, no more");
	cr_expect_eq(policy_name_refusal(&base, nm_ip("169.254.169.254"), 0, false), REASON_METADATA);
	cr_expect_eq(policy_name_refusal(&base, nm_ip("10.99.3.4"), 0, false), REASON_CONNECTED);
	cr_expect_eq(policy_name_refusal(&base, nm_ip("10.23.0.80"), 0, false), REASON_NONE);
	cr_expect_eq(policy_name_refusal(&base, nm_ip("10.23.0.80"), 0, true), REASON_CONNECTED);
	policy_free(&p);
	policy_free(&base);
	config_free(&cfg);
}

/* internet = off: a wildcard's names open their internet addresses. */
Test(policy, a_wildcard_opens_the_internet_that_internet_off_closed)
{
	struct host_facts f = { .gateway = nm_ip("192.0.2.1"), .dns_forward = nm_ip("169.254.1.1") };
	struct policy_name name = { nm_ip("198.51.100.9"), 443, "a.cdn.example", true, false };
	struct policy p;
	struct config cfg;

	nm_config(&cfg, "internet = off\nallow-host = *.cdn.example:443\n");
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, &name, 1, &p), 0);
	cr_expect_eq(nm_rule_at(&p, nm_ip("198.51.100.9"), 443)->value.reason, REASON_ALLOW_HOST);
	cr_expect_eq(nm_rule_at(&p, nm_ip("198.51.100.9"), 80)->value.reason, REASON_INTERNET);
	policy_free(&p);
	config_free(&cfg);
}

Test(policy, the_changes_between_two_policies_are_what_a_name_added)
{
	struct host_facts f = { .gateway = nm_ip("192.0.2.1"), .dns_forward = nm_ip("169.254.1.1") };
	struct policy_name name = { nm_ip("10.0.0.5"), 0, "forge.lan", false, false };
	struct policy_rule *set;
	struct policy_key *del;
	size_t n_set, n_del;
	struct policy a, b;
	struct config cfg;

	nm_config(&cfg, "allow-host = forge.lan\n");
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

/* A change made a write at a time: the blocks written and the allows
 * deleted first, then the rest. The attack the other order opened: X's
 * /32 block becomes an allow while a new block of X:80 comes after it,
 * and in between X:80 is open, though both policies block it. */
Test(policy, a_change_tightens_before_it_loosens)
{
	const struct policy_value allow = { .action = JAIL_ALLOW, .reason = REASON_ALLOW_HOST,
					    .prefixlen = 32 },
				  block = { .action = JAIL_DENY, .reason = REASON_DENY_HOST,
					    .prefixlen = 32 };
	struct policy_key x = { .prefixlen = 32, .addr = nm_ip("198.51.100.7") },
			  x80 = { .prefixlen = POLICY_PREFIXLEN_PORT, .addr = nm_ip("198.51.100.7"),
				  .port = htons(80) },
			  y = { .prefixlen = 32, .addr = nm_ip("198.51.100.8") },
			  z = { .prefixlen = 32, .addr = nm_ip("198.51.100.9") };
	struct policy in_force = { 0 };
	struct policy_rule set[] = { { x, allow }, { x80, block } };
	struct policy_key del[] = { z, y };
	size_t set_tight, del_tight;

	cr_assert_eq(policy_insert_rule(&in_force, &(struct policy_rule){ x, block }), 0);
	cr_assert_eq(policy_insert_rule(&in_force, &(struct policy_rule){ y, allow }), 0);
	cr_assert_eq(policy_insert_rule(&in_force, &(struct policy_rule){ z, block }), 0);
	policy_tightening_first(&in_force, set, 2, &set_tight, del, 2, &del_tight);
	cr_expect_eq(set_tight, 1);
	cr_expect(!memcmp(&set[0].key, &x80, sizeof(x80)), "X:80's block first");
	cr_expect(!memcmp(&set[1].key, &x, sizeof(x)), "X's allow after it");
	cr_expect_eq(del_tight, 1);
	cr_expect(!memcmp(&del[0], &y, sizeof(y)), "Y's allow deleted first");
	cr_expect(!memcmp(&del[1], &z, sizeof(z)), "Z's block deleted last");
	policy_free(&in_force);
}

Test(policy, internet_off_is_one_deny_of_everything_allows_punch_through)
{
	struct host_facts f = { .gateway = nm_ip("192.0.2.1"), .dns_forward = nm_ip("169.254.1.1") };
	struct policy p;
	struct config cfg;

	nm_config(&cfg, "internet = off\nallow-ip = 198.51.100.9:443\n");
	cr_assert_eq(policy_compile(&cfg, &f, &p), 0);
	cr_expect_eq(nm_rule_at(&p, nm_ip("198.51.100.7"), 80)->value.reason, REASON_INTERNET);
	cr_expect_eq(nm_rule_at(&p, nm_ip("198.51.100.7"), 80)->value.prefixlen, 0);
	cr_expect_eq(nm_rule_at(&p, nm_ip("198.51.100.9"), 443)->value.action, JAIL_ALLOW);
	cr_expect_eq(nm_rule_at(&p, nm_ip("198.51.100.9"), 80)->value.reason, REASON_INTERNET);
	cr_expect_eq(nm_rule_at(&p, nm_ip("169.254.1.1"), 53)->value.reason, REASON_DNS);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.1.1.1"), 80)->value.reason, REASON_PRIVATE,
		     "a block keeps its own reason");
	policy_free(&p);
	config_free(&cfg);
}

Test(policy, adding_one_name_in_place_gives_what_a_whole_compile_gives)
{
	struct host_prefix net = { nm_ip("10.23.0.0"), 24 };
	struct host_facts f = { .connected = &net, .n_connected = 1, .gateway = nm_ip("192.0.2.1"),
				.dns_forward = nm_ip("169.254.1.1") };
	struct policy_name names[] = {
		{ nm_ip("10.23.0.80"), 0, "a.lan", false, false },  { nm_ip("10.23.0.80"), 22, "b.lan", false, false },
		{ nm_ip("10.9.0.1"), 443, "c.lan", false, false },  { nm_ip("169.254.169.254"), 0, "m.lan", false, false },
		{ nm_ip("10.23.0.0"), 0, "net.lan", false, false }, { nm_ip("198.51.100.1"), 0, "web.lan", false, false },
		{ nm_ip("10.23.0.77"), 0, "blocked.lan", false, false }, /* a /32 block-cidr's key */
	};
	struct policy whole, inplace, base;
	struct policy_rule r;
	struct config cfg;
	size_t i, n_added = 0;

	nm_config(&cfg, "allow-host = *.lan\nallow-ip = 10.23.0.9\nblock-cidr = 10.23.0.77/32\n");
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, names, 7, &whole), 0);
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, NULL, 0, &inplace), 0);
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, NULL, 0, &base), 0);
	free(inplace.sources);
	inplace.sources = NULL;
	for (i = 0; i < 7; i++) {
		if (!policy_name_rule(&inplace, &names[i], NULL, 0, &r))
			continue;
		cr_assert_eq(policy_insert_rule(&inplace, &r), 0);
		cr_expect_eq(policy_insert_rule(&inplace, &r), -EEXIST);
		n_added++;
	}
	cr_expect_eq(n_added, 4, "metadata, a block at the key and the internet add nothing");
	cr_assert_eq(inplace.n, whole.n);
	for (i = 0; i < whole.n; i++)
		cr_expect(!memcmp(&inplace.rules[i], &whole.rules[i], sizeof(r)), "rule %zu differs", i);
	/* Taking the names out gives back the policy without them. */
	for (i = 0; i < 7; i++) {
		struct policy_key k = { .prefixlen = names[i].port ? POLICY_PREFIXLEN_PORT : 32,
					.addr = names[i].addr,
					.port = names[i].port ? htons(names[i].port) : 0 };

		policy_remove_name_rule(&inplace, &k);
	}
	cr_assert_eq(inplace.n, base.n);
	for (i = 0; i < base.n; i++)
		cr_expect(!memcmp(&inplace.rules[i], &base.rules[i], sizeof(r)), "rule %zu differs", i);
	policy_free(&whole);
	policy_free(&inplace);
	policy_free(&base);
	config_free(&cfg);
}

/* What the host gains is blocked in place (policy_block_gained()) exactly
 * as a whole compile with it blocks it: the blocks at their keys, an
 * allow-ip inside kept, a wildcard's rule under a new VPN route gone, an
 * exact name's kept, no name over a new address of the host's own. */
Test(policy, blocking_what_the_host_gained_in_place_gives_what_a_whole_compile_gives)
{
	struct host_prefix addrs[] = { { nm_ip("10.23.0.1"), 32 }, { nm_ip("198.51.100.50"), 32 } };
	struct host_prefix nets[] = { { nm_ip("10.23.0.0"), 24 }, { nm_ip("198.51.100.48"), 28 } };
	struct host_prefix routes[] = { { nm_ip("192.0.2.0"), 24 }, { nm_ip("203.0.113.0"), 29 },
					{ nm_ip("0.0.0.0"), 1 } };
	struct host_prefix anyip = { nm_ip("203.0.113.0"), 29 };
	struct host_facts before = { .addresses = addrs, .n_addresses = 1, .connected = nets,
				     .n_connected = 1, .gateway = nm_ip("192.0.2.1"),
				     .dns_forward = nm_ip("169.254.1.1") };
	struct host_facts after = { .addresses = addrs, .n_addresses = 2, .connected = nets,
				    .n_connected = 2, .routes = routes, .n_routes = 3,
				    .local = &anyip, .n_local = 1, .gateway = nm_ip("192.0.2.1"),
				    .dns_forward = nm_ip("169.254.1.1") };
	struct host_facts gained = { .addresses = &addrs[1], .n_addresses = 1,
				     .connected = &nets[1], .n_connected = 1, .routes = routes,
				     .n_routes = 3, .local = &anyip, .n_local = 1 };
	struct policy_name names[] = {
		{ nm_ip("192.0.2.5"), 0, "x.wild.example", true, false },     /* under the new route */
		{ nm_ip("192.0.2.7"), 443, "y.wild.example", true, false },   /* the same, one port */
		{ nm_ip("192.0.2.6"), 0, "forge.example", false, false },     /* exact: stays */
		{ nm_ip("192.0.2.8"), 0, "z.wild.example", true, false },     /* both kinds at one key */
		{ nm_ip("192.0.2.8"), 0, "forge.example", false, false },
		{ nm_ip("198.51.100.50"), 0, "forge.example", false, false }, /* the host's own now */
		{ nm_ip("203.0.113.3"), 0, "forge.example", false, false },   /* its AnyIP now */
		{ nm_ip("198.18.0.1"), 0, "w.wild.example", true, false },    /* elsewhere: stays */
	};
	size_t n_names = sizeof(names) / sizeof(names[0]), i;
	struct policy whole, inplace, compiled;
	struct config cfg;

	nm_config(&cfg, "internet = off\nallow-host = *.wild.example\nallow-host = forge.example\n"
			"allow-ip = 192.0.2.9\n");
	cr_assert_eq(policy_compile_jail(&cfg, &after, NULL, 0, names, n_names, &whole), 0);
	cr_assert_eq(policy_compile_jail(&cfg, &before, NULL, 0, names, n_names, &compiled), 0);
	cr_assert_eq(nm_rule_at(&compiled, nm_ip("192.0.2.5"), 80)->value.reason, REASON_ALLOW_HOST,
		     "control: before, the wildcard's rule opens the address");
	cr_assert_eq(policy_copy(&compiled, &inplace), 0);
	cr_assert_gt(policy_block_gained(&inplace, &gained, names, n_names, NULL, 0), 0);
	cr_expect_eq(nm_rule_at(&inplace, nm_ip("192.0.2.5"), 80)->value.reason, REASON_HOST_ROUTE);
	cr_expect_eq(nm_rule_at(&inplace, nm_ip("192.0.2.7"), 443)->value.reason, REASON_HOST_ROUTE);
	cr_expect_eq(nm_rule_at(&inplace, nm_ip("192.0.2.6"), 80)->value.reason, REASON_ALLOW_HOST);
	cr_expect_eq(nm_rule_at(&inplace, nm_ip("192.0.2.8"), 80)->value.reason, REASON_ALLOW_HOST);
	cr_expect_eq(nm_rule_at(&inplace, nm_ip("192.0.2.9"), 80)->value.reason, REASON_ALLOW_IP);
	cr_expect_eq(nm_rule_at(&inplace, nm_ip("198.51.100.50"), 80)->value.reason,
		     REASON_CONNECTED);
	cr_expect_eq(nm_rule_at(&inplace, nm_ip("198.51.100.49"), 80)->value.reason,
		     REASON_CONNECTED);
	cr_expect_eq(nm_rule_at(&inplace, nm_ip("203.0.113.3"), 80)->value.reason,
		     REASON_HOST_ROUTE);
	cr_expect_eq(nm_rule_at(&inplace, nm_ip("198.18.0.1"), 80)->value.reason, REASON_ALLOW_HOST);
	cr_assert_eq(inplace.n, whole.n);
	for (i = 0; i < whole.n; i++)
		cr_expect(!memcmp(&inplace.rules[i], &whole.rules[i], sizeof(whole.rules[i])),
			  "rule %zu differs", i);
	cr_expect_eq(inplace.n_own, whole.n_own);
	cr_expect_eq(policy_block_gained(&inplace, &gained, names, n_names, NULL, 0), 0,
		     "nothing new the second time");
	policy_free(&whole);
	policy_free(&inplace);
	policy_free(&compiled);
	config_free(&cfg);
}

/* A rule that won its key in the compile stays; a name's gives way. */
Test(policy, a_gained_block_leaves_a_key_won_in_the_compile_and_takes_a_names)
{
	struct host_prefix gained_addr = { nm_ip("192.0.2.9"), 32 };
	struct host_prefix gained_route = { nm_ip("198.51.100.7"), 32 };
	struct host_facts f = { .gateway = nm_ip("192.0.2.1"), .dns_forward = nm_ip("169.254.1.1") };
	struct host_facts gained = { .addresses = &gained_addr, .n_addresses = 1,
				     .routes = &gained_route, .n_routes = 1 };
	struct policy_name name = { nm_ip("198.51.100.7"), 0, "forge.example", false, false };
	struct policy_live live = { nm_ip("203.0.113.4"), 0, true };
	struct host_prefix live_route = { nm_ip("203.0.113.4"), 32 };
	struct host_facts gained_live = { .routes = &live_route, .n_routes = 1 };
	struct policy compiled, p;
	struct config cfg;

	nm_config(&cfg, "internet = off\nallow-host = forge.example\nallow-ip = 192.0.2.9\n");
	cr_assert_eq(policy_compile_jail(&cfg, &f, &live, 1, &name, 1, &compiled), 0);
	cr_assert_eq(policy_copy(&compiled, &p), 0);
	cr_assert_eq(policy_block_gained(&p, &gained, &name, 1, &live, 1), 2,
		     "the name's key, and the new own address (its key stays allow-ip's)");
	cr_expect_eq(nm_rule_at(&p, nm_ip("192.0.2.9"), 80)->value.action, JAIL_ALLOW,
		     "allow-ip wins over the host's new address, as in the compile");
	cr_expect_eq(nm_rule_at(&p, nm_ip("198.51.100.7"), 80)->value.reason, REASON_HOST_ROUTE);
	cr_expect_eq(policy_block_gained(&p, &gained_live, &name, 1, &live, 1), 0,
		     "a temporary allow keeps its key");
	policy_free(&p);
	policy_free(&compiled);
	config_free(&cfg);
}

/* An AnyIP prefix whose key a block holds already (10.0.0.0/8, private)
 * changes no block, but the host answers every address in it now: an
 * exact name's rule there goes, and no later answer may open it. */
Test(policy, a_gained_own_prefix_over_a_block_still_closes_names)
{
	struct host_prefix anyip = { nm_ip("10.0.0.0"), 8 };
	struct host_facts f = { .gateway = nm_ip("192.0.2.1"), .dns_forward = nm_ip("169.254.1.1") };
	struct host_facts gained = { .routes = &anyip, .n_routes = 1, .local = &anyip, .n_local = 1 };
	struct policy_name name = { nm_ip("10.1.2.3"), 0, "forge.example", false, false };
	struct policy compiled, p;
	struct policy_rule r;
	struct config cfg;

	nm_config(&cfg, "allow-host = forge.example\n");
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, &name, 1, &compiled), 0);
	cr_assert_eq(nm_rule_at(&compiled, nm_ip("10.1.2.3"), 80)->value.reason, REASON_ALLOW_HOST,
		     "control: the exact name opens the private address");
	cr_assert_eq(policy_copy(&compiled, &p), 0);
	cr_assert_gt(policy_block_gained(&p, &gained, &name, 1, NULL, 0), 0);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.1.2.3"), 80)->value.reason, REASON_PRIVATE);
	cr_expect_not(policy_name_rule(&p, &name, NULL, 0, &r), "a later answer opens it again");
	cr_expect_eq(policy_block_gained(&p, &gained, &name, 1, NULL, 0), 0,
		     "nothing new the second time");
	policy_free(&p);
	policy_free(&compiled);
	config_free(&cfg);
}

/* A host route or connected network inside a block-cidr or link-local is
 * the longest match, and an exact name may open a host route: the block
 * around it still refuses the name. Control: the same route elsewhere. */
Test(policy, a_route_inside_a_block_no_name_may_open_still_refuses_names)
{
	struct host_prefix routes[] = { { nm_ip("10.6.1.0"), 24 }, { nm_ip("169.254.100.0"), 24 },
					{ nm_ip("198.18.0.0"), 15 } };
	struct host_facts f = { .routes = routes, .n_routes = 3, .gateway = nm_ip("192.0.2.1"),
				.dns_forward = nm_ip("169.254.1.1") };
	struct policy p;
	struct config cfg;

	nm_config(&cfg, "allow-host = forge.example\nblock-cidr = 10.6.0.0/16\n");
	cr_assert_eq(policy_compile(&cfg, &f, &p), 0);
	cr_expect_eq(nm_rule_at(&p, nm_ip("10.6.1.5"), 80)->value.reason, REASON_HOST_ROUTE,
		     "the route is the longest match");
	cr_expect_eq(policy_name_refusal(&p, nm_ip("10.6.1.5"), 0, false), REASON_BLOCK_CIDR);
	cr_expect_eq(policy_name_refusal(&p, nm_ip("169.254.100.5"), 0, false), REASON_LINK_LOCAL);
	cr_expect_eq(policy_name_refusal(&p, nm_ip("198.18.0.5"), 0, false), REASON_NONE,
		     "control: an exact name opens a VPN's route");
	cr_expect_eq(policy_name_refusal(&p, nm_ip("198.18.0.5"), 0, true), REASON_HOST_ROUTE);
	policy_free(&p);
	config_free(&cfg);
}

/* An exact name opened 10.1.2.3 (private); a wildcard's answer for the same
 * address, one port, must still be refused: judged over the exact name's
 * rule it used to pass, and outlive it. Control: an exact name's own port
 * rule there is fine. */
Test(policy, another_names_rule_does_not_lift_the_blocks_beneath)
{
	struct host_facts f = { .gateway = nm_ip("192.0.2.1"), .dns_forward = nm_ip("169.254.1.1") };
	struct policy_name exact = { nm_ip("10.1.2.3"), 0, "forge.example", false, false };
	struct policy_name wild = { nm_ip("10.1.2.3"), 443, "x.w.example", true, false };
	struct policy_name exact_port = { nm_ip("10.1.2.3"), 22, "ssh.example", false, false };
	struct policy p;
	struct policy_rule r;
	struct config cfg;

	nm_config(&cfg, "allow-host = forge.example\nallow-host = *.w.example:443\n"
			"allow-host = ssh.example:22\n");
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, &exact, 1, &p), 0);
	free(p.sources);
	p.sources = NULL;
	cr_assert_eq(nm_rule_at(&p, nm_ip("10.1.2.3"), 443)->value.reason, REASON_ALLOW_HOST);
	cr_expect_not(policy_name_rule(&p, &wild, NULL, 0, &r),
		      "a wildcard's port rule over an exact name's address");
	cr_expect_eq(policy_name_refusal(&p, nm_ip("10.1.2.3"), 443, true), REASON_PRIVATE);
	cr_expect(policy_name_rule(&p, &exact_port, NULL, 0, &r), "control: an exact name's port");
	policy_free(&p);
	config_free(&cfg);
}

/* A deny-host name's addresses are blocked (reason deny-host) as a block-cidr is: an
 * allow-host name that shares one (a CDN) opens nothing there, on any
 * port; an allow-ip wins. The controls: the same allow-host name opens
 * the address without the deny, and another address of it stays open. */
Test(policy, a_deny_host_address_wins_over_allow_host_and_loses_to_allow_ip)
{
	struct host_facts f = { .gateway = nm_ip("192.0.2.1"), .dns_forward = nm_ip("169.254.1.1") };
	struct policy_name names[] = {
		{ nm_ip("198.51.100.9"), 0, "paste.evil", false, true },  /* denied */
		{ nm_ip("198.51.100.7"), 0, "paste.evil", false, true },  /* denied, allow-ip */
		{ nm_ip("198.51.100.9"), 443, "api.cdn", true, false },   /* shares the first */
		{ nm_ip("198.51.100.8"), 443, "api.cdn", true, false },   /* its own */
	};
	const struct policy_rule *r;
	struct policy p, without;
	struct config cfg;

	nm_config(&cfg, "internet = off\nallow-host = *.cdn:443\ndeny-host = *.evil\n"
			"allow-ip = 198.51.100.7\n");
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, names, 4, &p), 0);
	r = nm_rule_at(&p, nm_ip("198.51.100.9"), 443);
	cr_assert(r);
	cr_expect_eq(r->value.action, JAIL_DENY, "the deny wins over the CDN name");
	cr_expect_eq(r->value.reason, REASON_DENY_HOST);
	r = nm_rule_at(&p, nm_ip("198.51.100.9"), 80);
	cr_expect(r && r->value.action == JAIL_DENY);
	r = nm_rule_at(&p, nm_ip("198.51.100.7"), 80);
	cr_expect(r && r->value.action == JAIL_ALLOW && r->value.reason == REASON_ALLOW_IP,
		  "allow-ip wins over every block");
	r = nm_rule_at(&p, nm_ip("198.51.100.8"), 443);
	cr_expect(r && r->value.action == JAIL_ALLOW && r->value.reason == REASON_ALLOW_HOST);
	cr_expect(!policy_name_rule(&p, &names[0], NULL, 0, &(struct policy_rule){ 0 }),
		  "a deny is never an allow");
	/* Without the deny the same name opens the address. */
	cr_assert_eq(policy_compile_jail(&cfg, &f, NULL, 0, names + 2, 2, &without), 0);
	r = nm_rule_at(&without, nm_ip("198.51.100.9"), 443);
	cr_expect(r && r->value.action == JAIL_ALLOW && r->value.reason == REASON_ALLOW_HOST);
	policy_free(&p);
	policy_free(&without);
	config_free(&cfg);
}
