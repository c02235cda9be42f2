// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_policy.c - policy compilation: what each destination gets, and why */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "builtin.h"
#include "netaddr.h"
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

/* The DNS exception holds for UDP only where pasta does not forward TCP
 * DNS (bpf/ebpfjail.h, struct policy_value), for a temporary `allow` of
 * that address and port too; where pasta does, for every protocol. */
Test(policy, dns_exception_protocol_follows_pasta)
{
	struct host_facts facts = { .gateway = inet_addr("203.0.113.1"),
				    .dns_forward = inet_addr("169.254.1.1") };
	struct policy_live allow_dns = { .addr = inet_addr("169.254.1.1"), .port = 53, .allow = true };
	struct config cfg;
	struct policy p;
	long i;
	int tcp;

	config_init(&cfg);
	for (tcp = 0; tcp < 2; tcp++) {
		facts.dns_tcp = tcp;
		cr_assert_eq(policy_compile(&cfg, &facts, &p), 0);
		i = policy_lookup(&p, inet_addr("169.254.1.1"), htons(53));
		cr_assert_geq(i, 0);
		cr_expect_eq(p.rules[i].value.reason, REASON_DNS);
		cr_expect_eq(p.rules[i].value.proto, tcp ? 0 : IPPROTO_UDP, "dns_tcp %d", tcp);
		i = policy_lookup(&p, inet_addr("169.254.1.1"), htons(80));
		cr_assert_geq(i, 0);
		cr_expect_eq(p.rules[i].value.action, JAIL_DENY);
		policy_free(&p);

		cr_assert_eq(policy_compile_live(&cfg, &facts, &allow_dns, 1, &p), 0);
		i = policy_lookup(&p, inet_addr("169.254.1.1"), htons(53));
		cr_assert_geq(i, 0);
		cr_expect_eq(p.rules[i].value.reason, REASON_ALLOW_IP);
		cr_expect_eq(p.rules[i].value.proto, tcp ? 0 : IPPROTO_UDP,
			     "a temporary allow lifted the UDP-only limit (dns_tcp %d)", tcp);
		policy_free(&p);
	}
	config_free(&cfg);
}
