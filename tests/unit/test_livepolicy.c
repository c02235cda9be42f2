// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_livepolicy.c - temporary allow/deny on top of the configuration, and
 * what a reload reports */
#include <string.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "livepolicy.h"
#include "policy.h"

static const struct host_facts facts = {
	.gateway = 0x016433c6,     /* 198.51.100.1 */
	.dns_forward = 0x016433c6,
};

static void parse(struct config *cfg, const char *text)
{
	config_init(cfg);
	config_parse_buffer(cfg, "t.conf", text, strlen(text));
	config_finish(cfg);
	cr_assert(config_ok(cfg), "%s", cfg->n_diags ? cfg->diags[0].text : "");
}

/* verdict() - JAIL_ALLOW or JAIL_DENY for addr:port under @p */
static int verdict(const struct policy *p, const char *addr, uint16_t port)
{
	long i = policy_lookup(p, inet_addr(addr), htons(port));

	return i < 0 ? JAIL_ALLOW : p->rules[i].value.action;
}

Test(livepolicy, allow_then_deny_then_nothing)
{
	struct live_changes lc = { 0 };
	struct policy p;
	struct config cfg;

	parse(&cfg, "allow-ip = 10.9.9.9:502\n");
	cr_assert_eq(live_set(&lc, inet_addr("10.1.1.1"), 0, true), 0);
	cr_assert_eq(policy_compile_live(&cfg, &facts, lc.entries, lc.n, &p), 0);
	cr_assert_eq(verdict(&p, "10.1.1.1", 22), JAIL_ALLOW);
	cr_assert_eq(verdict(&p, "10.1.1.2", 22), JAIL_DENY);
	policy_free(&p);

	/* deny replaces the allow of the same address: one entry */
	cr_assert_eq(live_set(&lc, inet_addr("10.1.1.1"), 0, false), 0);
	cr_assert_eq(lc.n, 1);
	cr_assert_eq(policy_compile_live(&cfg, &facts, lc.entries, lc.n, &p), 0);
	cr_assert_eq(verdict(&p, "10.1.1.1", 22), JAIL_DENY);
	policy_free(&p);

	/* deny of a whole address also stops the port an allow-ip opened */
	cr_assert_eq(live_set(&lc, inet_addr("10.9.9.9"), 0, false), 0);
	cr_assert_eq(policy_compile_live(&cfg, &facts, lc.entries, lc.n, &p), 0);
	cr_assert_eq(verdict(&p, "10.9.9.9", 502), JAIL_DENY);
	policy_free(&p);

	/* a reload starts from the configuration alone */
	live_clear(&lc);
	cr_assert_eq(policy_compile_live(&cfg, &facts, lc.entries, lc.n, &p), 0);
	cr_assert_eq(verdict(&p, "10.9.9.9", 502), JAIL_ALLOW);
	cr_assert_eq(verdict(&p, "10.1.1.1", 22), JAIL_DENY);
	policy_free(&p);
	config_free(&cfg);
}

Test(livepolicy, deny_wins_over_configured_allow_and_public_addresses)
{
	struct live_changes lc = { 0 };
	struct policy p;
	struct config cfg;

	parse(&cfg, "allow-ip = 10.2.2.2\n");
	live_set(&lc, inet_addr("10.2.2.2"), 0, false);
	live_set(&lc, inet_addr("203.0.113.5"), 443, false);
	cr_assert_eq(policy_compile_live(&cfg, &facts, lc.entries, lc.n, &p), 0);
	cr_assert_eq(verdict(&p, "10.2.2.2", 80), JAIL_DENY);
	cr_assert_eq(verdict(&p, "203.0.113.5", 443), JAIL_DENY);
	cr_assert_eq(verdict(&p, "203.0.113.5", 80), JAIL_ALLOW);
	/* the rule an event names stays an address, not a 48-bit key */
	cr_assert_eq(p.rules[policy_lookup(&p, inet_addr("203.0.113.5"), htons(443))].value.prefixlen,
		     32);
	policy_free(&p);

	/* a port allow on top of a whole-address deny opens that port only */
	live_set(&lc, inet_addr("10.2.2.2"), 22, true);
	cr_assert_eq(policy_compile_live(&cfg, &facts, lc.entries, lc.n, &p), 0);
	cr_assert_eq(verdict(&p, "10.2.2.2", 22), JAIL_ALLOW);
	cr_assert_eq(verdict(&p, "10.2.2.2", 23), JAIL_DENY);
	policy_free(&p);

	/* a later whole-address change ends the port-specific ones */
	live_set(&lc, inet_addr("10.2.2.2"), 0, false);
	cr_assert_eq(lc.n, 2);
	cr_assert_eq(policy_compile_live(&cfg, &facts, lc.entries, lc.n, &p), 0);
	cr_assert_eq(verdict(&p, "10.2.2.2", 22), JAIL_DENY);
	policy_free(&p);
	live_clear(&lc);
	config_free(&cfg);
}

Test(livepolicy, format_lists_the_changes_in_force)
{
	struct live_changes lc = { 0 };
	char buf[64];

	live_format(&lc, buf, sizeof(buf));
	cr_assert_str_eq(buf, "");
	live_set(&lc, inet_addr("10.0.0.5"), 502, true);
	live_set(&lc, inet_addr("192.0.2.7"), 0, false);
	live_format(&lc, buf, sizeof(buf));
	cr_assert_str_eq(buf, "allow 10.0.0.5:502, deny 192.0.2.7");
	live_format(&lc, buf, 12);
	cr_assert_str_eq(buf, "allow 10...");
	live_clear(&lc);
}

/* The mounts and masks of the agent's directories are made at start: a
 * reload says a changed unix-socket or share-tmp needs a restart. */
Test(livepolicy, config_diff_unix_socket_and_share_tmp_need_a_restart)
{
	struct config a, b, c;
	char changes[256], restart[512];

	parse(&a, "unix-socket = /run/a.sock\n");
	parse(&b, "unix-socket = /run/b.sock\nshare-tmp = on\n");
	cr_assert_eq(live_config_diff(&a, &b, changes, sizeof(changes), restart, sizeof(restart)), 2);
	cr_assert_str_eq(changes, "");
	cr_assert_str_eq(restart, "unix-socket +/run/b.sock -/run/a.sock; share-tmp = on");
	cr_assert_eq(live_config_diff(&b, &a, changes, sizeof(changes), restart, sizeof(restart)), 2);
	cr_assert_str_eq(restart, "unix-socket +/run/a.sock -/run/b.sock; share-tmp = off");
	/* Paths of the full length that differ only in their last byte. */
	parse(&c, "unix-socket = /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1\n");
	config_free(&a);
	parse(&a, "unix-socket = /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2\n");
	cr_assert_eq(strlen(a.unix_socket[0].name), CONFIG_UNIX_SOCKET_MAX);
	cr_assert_eq(live_config_diff(&a, &c, changes, sizeof(changes), restart, sizeof(restart)), 1);
	cr_expect(strstr(restart, "a1 -/aaa"), "%s", restart);
	config_free(&a);
	config_free(&b);
	config_free(&c);
}

Test(livepolicy, config_diff_names_what_changed)
{
	struct config a, b;
	char changes[256], restart[256];

	parse(&a, "allow-ip = 10.0.0.7:22\nallow-ip = 10.0.0.8\nblock-cidr = 192.0.2.0/24\n"
		  "local-port = 7001\n");
	parse(&b, "allow-ip = 10.0.0.8\nallow-ip = 10.0.0.5\nblock-cidr = 192.0.2.0/24\n"
		  "block-cidr = 198.18.0.0/15\nlocal-port = 7002\npass-env = FOO\n");
	cr_assert_eq(live_config_diff(&a, &b, changes, sizeof(changes), restart, sizeof(restart)), 2);
	cr_assert_str_eq(changes, "allow-ip +10.0.0.5 -10.0.0.7:22; block-cidr +198.18.0.0/15");
	cr_assert_str_eq(restart, "local-port +7002 -7001; pass-env +FOO");
	cr_assert_eq(live_config_diff(&a, &a, changes, sizeof(changes), restart, sizeof(restart)), 0);
	cr_assert_str_eq(changes, "");
	cr_assert_str_eq(restart, "");
	/* bounded: a long list ends in "..." */
	live_config_diff(&a, &b, changes, 20, restart, sizeof(restart));
	cr_assert_eq(strlen(changes), 19);
	cr_assert_str_eq(changes + 16, "...");
	config_free(&a);
	config_free(&b);
}

Test(livepolicy, rules_diff_counts_added_removed_and_changed)
{
	struct config a, b;
	struct policy pa, pb;
	size_t added, removed;

	parse(&a, "allow-ip = 10.0.0.7\nblock-cidr = 192.0.2.0/24\n");
	parse(&b, "block-cidr = 192.0.2.0/24\nblock-cidr = 10.0.0.7/32\nblock-cidr = 198.18.0.0/15\n");
	cr_assert_eq(policy_compile(&a, &facts, &pa), 0);
	cr_assert_eq(policy_compile(&b, &facts, &pb), 0);
	live_rules_diff(&pa, &pb, &added, &removed);
	/* 10.0.0.7/32 changed from allow to deny; 198.18.0.0/15 is new */
	cr_assert_eq(added, 2);
	cr_assert_eq(removed, 1);
	live_rules_diff(&pa, &pa, &added, &removed);
	cr_assert_eq(added + removed, 0);
	policy_free(&pa);
	policy_free(&pb);
	config_free(&a);
	config_free(&b);
}

/* What a change of the host's networks did to the policy, rule by rule:
 * the text of its audit record. */
Test(livepolicy, rules_changes_name_each_rule)
{
	struct host_prefix before_routes[] = { { inet_addr("10.99.0.0"), 16 } };
	struct host_prefix after_routes[] = { { inet_addr("198.51.100.0"), 25 },
					      { inet_addr("192.0.2.0"), 24 } };
	struct host_facts before = facts, after = facts;
	struct policy pa, pb, pc;
	struct host_prefix many[40];
	struct config cfg;
	char text[240];
	size_t i;

	parse(&cfg, "allow-ip = 192.0.2.7:443\n");
	before.routes = before_routes;
	before.n_routes = 1;
	after.routes = after_routes;
	after.n_routes = 2;
	cr_assert_eq(policy_compile(&cfg, &before, &pa), 0);
	cr_assert_eq(policy_compile(&cfg, &after, &pb), 0);
	cr_assert_eq(live_rules_changes(&pa, &pb, text, sizeof(text)), 3);
	cr_assert_str_eq(text, "-10.99.0.0/16 host-route +192.0.2.0/24 host-route "
			       "+198.51.100.0/25 host-route");
	cr_assert_eq(live_rules_changes(&pa, &pa, text, sizeof(text)), 0);
	cr_assert_str_eq(text, "");

	/* bounded: what does not fit is counted, in key order */
	for (i = 0; i < 40; i++)
		many[i] = (struct host_prefix){ htonl(0xc6120000 + ((uint32_t)i << 8)), 24 };
	after.routes = many;
	after.n_routes = 40;
	cr_assert_eq(policy_compile(&cfg, &after, &pc), 0);
	cr_assert_eq(live_rules_changes(&pa, &pc, text, 100), 41);
	cr_assert(strlen(text) < 100);
	cr_assert_str_eq(text, "-10.99.0.0/16 host-route +198.18.0.0/24 host-route ... (39 more)");
	policy_free(&pa);
	policy_free(&pb);
	policy_free(&pc);
	config_free(&cfg);
}

/* A whole compile for the names (jail_policy.c, names_apply()) reads the
 * host afresh: the host's part of its changes is what it must judge kept
 * flows again for. A name's rules coming and going are not host changes;
 * a host route that came with them is, and must not hide among them. */
Test(livepolicy, host_changes_leave_the_names_rules_out)
{
	struct host_prefix vpn[] = { { inet_addr("198.51.100.0"), 24 } };
	struct host_facts after = facts;
	struct policy pa, pb, pc;
	struct policy_rule name = {
		.key = { .prefixlen = 32, .addr = inet_addr("203.0.113.9") },
		.value = { .action = JAIL_ALLOW, .reason = REASON_ALLOW_HOST, .prefixlen = 32 },
	};
	struct policy_rule denied = {
		.key = { .prefixlen = 32, .addr = inet_addr("203.0.113.10") },
		.value = { .action = JAIL_DENY, .reason = REASON_DENY_HOST, .prefixlen = 32 },
	};
	/* the user's `ebpfjail deny`, compiled in with the names */
	struct policy_rule user = {
		.key = { .prefixlen = 32, .addr = inet_addr("203.0.113.11") },
		.value = { .action = JAIL_DENY, .reason = REASON_BLOCK_CIDR, .prefixlen = 32 },
	};
	struct config cfg;
	char text[240];

	parse(&cfg, "internet = off\n");
	cr_assert_eq(policy_compile(&cfg, &facts, &pa), 0);
	cr_assert_eq(policy_copy(&pa, &pb), 0);
	cr_assert_eq(policy_insert_rule(&pb, &name), 0);
	cr_assert_eq(policy_insert_rule(&pb, &denied), 0);
	cr_assert_eq(policy_insert_rule(&pb, &user), 0);
	cr_assert_eq(live_rules_changes(&pa, &pb, text, sizeof(text)), 3, "the control: %s", text);
	cr_assert_eq(live_host_changes(&pa, &pb, text, sizeof(text)), 0, "%s", text);
	policy_free(&pb);
	after.routes = vpn;
	after.n_routes = 1;
	cr_assert_eq(policy_compile(&cfg, &after, &pc), 0);
	cr_assert_eq(policy_copy(&pc, &pb), 0); /* without sources, as in force */
	policy_free(&pc);
	cr_assert_eq(policy_insert_rule(&pb, &name), 0);
	cr_assert_eq(live_host_changes(&pa, &pb, text, sizeof(text)), 1);
	cr_assert_str_eq(text, "+198.51.100.0/24 host-route");
	policy_free(&pa);
	policy_free(&pb);
	config_free(&cfg);
}
