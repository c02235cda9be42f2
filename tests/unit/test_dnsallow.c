// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_dnsallow.c - allow-host: names' addresses and their lifetimes */
#include <errno.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "config.h"
#include "dnsallow.h"
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
	struct dnsallow_entry *gone;
	size_t added, n_gone;

	config_with(&cfg, "allow-host = forge.lan\nallow-host = *.cdn.example:443\n");
	cr_assert(dnsallow_wanted(&cfg, "forge.lan"));
	cr_assert(!dnsallow_wanted(&cfg, "other.lan"));
	cr_assert(!dnsallow_wanted(&cfg, "cdn.example"), "a wildcard is not its apex");
	cr_assert_eq(dnsallow_record(&t, &cfg, "forge.lan", a, 2, false, 1, 100 * S, &added), 0);
	cr_expect_eq(added, 2);
	cr_expect_eq(t.v[0].expires_ns, (100 + DNSALLOW_MIN_TTL_S) * S, "TTL 1 s lasts the minimum");
	cr_expect_eq(t.v[0].port, 0);
	/* Again with a longer TTL: renewed, nothing new. */
	cr_assert_eq(dnsallow_record(&t, &cfg, "forge.lan", a, 1, false, 3600, 101 * S, &added), 0);
	cr_expect_eq(added, 0);
	cr_expect_eq(t.v[0].expires_ns, (101 + 3600) * S);
	/* A shorter one later never shortens it. */
	dnsallow_record(&t, &cfg, "forge.lan", a, 1, false, 0, 102 * S, &added);
	cr_expect_eq(t.v[0].expires_ns, (101 + 3600) * S);
	/* The wildcard's port, its own entry. */
	dnsallow_record(&t, &cfg, "a.cdn.example", a, 1, false, 60, 100 * S, &added);
	cr_expect_eq(added, 1);
	cr_expect_eq(t.v[2].port, 443);
	/* Expiry: the second address (TTL 1 s) goes at 105 s, the others stay. */
	cr_expect_eq(dnsallow_expire(&t, 104 * S, &gone, &n_gone), 0);
	cr_expect_null(gone);
	cr_expect_eq(dnsallow_expire(&t, 105 * S, &gone, &n_gone), 1);
	cr_assert_eq(n_gone, 1);
	cr_expect_eq(gone[0].addr, a[1]);
	free(gone);
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
		cr_assert_eq(dnsallow_record(&t, &cfg, "x.pool.example", &a, 1, false, 60, S, &added), 0);
	}
	a = htonl(0x0a000001);
	cr_expect_eq(dnsallow_record(&t, &cfg, "x.pool.example", &a, 1, false, 60, S, &added), -ENOSPC);
	cr_expect_eq(added, 0);
	cr_expect_eq(t.n, DNSALLOW_MAX_ENTRIES);
	dnsallow_free(&t);
	config_free(&cfg);
}

/* The index (find()) after the entries moved: an expiry compacts the table,
 * and an entry it no longer finds would be added twice (two entries, two
 * rules, one expiry lost), one it finds at the wrong place renewed wrongly. */
Test(dnsallow, the_index_finds_every_entry_after_the_table_moved)
{
	struct dnsallow t = { 0 }, copy;
	struct dnsallow_entry *gone;
	struct config cfg;
	size_t added, n_gone, i;
	uint32_t a;

	config_with(&cfg, "allow-host = *.pool.example\n");
	for (i = 0; i < DNSALLOW_MAX_ENTRIES; i++) { /* odd ones for 10 s, even ones 100 s */
		a = htonl(0xc6336400U + (uint32_t)i * 7919U);
		cr_assert_eq(dnsallow_record(&t, &cfg, "x.pool.example", &a, 1, false,
					     i % 2 ? 10 : 100, S, &added), 0);
		cr_assert_eq(added, 1);
	}
	cr_assert_eq(dnsallow_expire(&t, 20 * S, &gone, &n_gone), DNSALLOW_MAX_ENTRIES / 2);
	free(gone);
	cr_assert_eq(dnsallow_copy(&t, &copy), 0);
	for (i = 0; i < DNSALLOW_MAX_ENTRIES; i++) {
		a = htonl(0xc6336400U + (uint32_t)i * 7919U);
		cr_assert_eq(dnsallow_record(&t, &cfg, "x.pool.example", &a, 1, false, 100, 30 * S,
					     &added), 0);
		cr_assert_eq(added, i % 2, "address %zu: %zu added", i, added);
		cr_assert_eq(dnsallow_record(&copy, &cfg, "x.pool.example", &a, 1, false, 100, 30 * S,
					     &added), 0, "the copy indexes its own");
		cr_assert_eq(added, i % 2);
	}
	cr_expect_eq(t.n, DNSALLOW_MAX_ENTRIES);
	dnsallow_free(&copy);
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
	dnsallow_record(&t, &cfg, "forge.lan", &a, 1, false, 60, S, &added);
	dnsallow_record(&t, &cfg, "db.lan", &b, 1, false, 60, S, &added);
	config_with(&next, "allow-host = db.lan\n"); /* the port changed too */
	cr_expect_eq(dnsallow_keep_configured(&t, &next), 2);
	cr_expect_eq(t.n, 0);
	dnsallow_free(&t);
	config_free(&cfg);
	config_free(&next);
}

/* The attack: the user deletes `allow-host = nas.lan` and keeps
 * `*.lan`; nas.lan's LAN address must lose its exact strength, and the
 * caller must hear that the policy changed (it recompiles only then). */
Test(dnsallow, a_reload_that_leaves_only_a_wildcard_weakens_the_name_and_says_so)
{
	uint32_t a = ip("10.0.0.5");
	struct dnsallow t = { 0 };
	struct config cfg, next;
	size_t added;

	config_with(&cfg, "allow-host = *.lan\nallow-host = nas.lan\n");
	dnsallow_record(&t, &cfg, "nas.lan", &a, 1, false, 60, S, &added);
	cr_assert_eq(t.n, 1);
	cr_assert(t.v[0].exact);
	config_with(&next, "allow-host = *.lan\n");
	cr_expect_eq(dnsallow_keep_configured(&t, &next), 1);
	cr_expect_eq(t.n, 1);
	cr_expect_not(t.v[0].exact);
	/* Nothing changed: nothing to say. */
	cr_expect_eq(dnsallow_keep_configured(&t, &next), 0);
	dnsallow_free(&t);
	config_free(&cfg);
	config_free(&next);
}


/* The attack: an exact name gave a LAN address and moved away; the agent
 * kept asking x.wild.lan (a wildcard's name, its own to pick) for the
 * address, and each answer renewed the entry with the exact strength. The
 * wildcard's answer has an entry of its own; the exact one expires. */
Test(dnsallow, a_wildcard_answer_never_renews_an_exact_names_entry)
{
	uint32_t a = ip("10.0.0.5");
	struct dnsallow t = { 0 };
	struct dnsallow_entry *gone;
	struct config cfg;
	size_t added, n_gone;

	config_with(&cfg, "allow-host = nas.lan\nallow-host = *.wild.lan\n");
	dnsallow_record(&t, &cfg, "nas.lan", &a, 1, false, 1, 100 * S, &added);
	cr_assert_eq(added, 1);
	cr_assert(t.v[0].exact);
	cr_assert_eq(dnsallow_record(&t, &cfg, "x.wild.lan", &a, 1, false, 3600, 101 * S, &added), 0);
	cr_expect_eq(added, 1, "the wildcard's answer has no entry of its own");
	cr_assert_eq(t.n, 2);
	cr_expect_eq(t.v[0].expires_ns, (100 + DNSALLOW_MIN_TTL_S) * S, "the exact entry renewed");
	cr_expect_str_eq(t.v[0].name, "nas.lan");
	cr_expect_not(t.v[1].exact);
	cr_expect_eq(dnsallow_expire(&t, (100 + DNSALLOW_MIN_TTL_S) * S, &gone, &n_gone), 1);
	cr_assert_eq(n_gone, 1);
	cr_expect(gone[0].exact);
	free(gone);
	cr_assert_eq(t.n, 1);
	cr_expect_not(t.v[0].exact, "what is left is the wildcard's");
	/* The control: the exact name's own answer renews it. */
	dnsallow_record(&t, &cfg, "nas.lan", &a, 1, false, 60, 106 * S, &added);
	cr_expect_eq(added, 1);
	dnsallow_record(&t, &cfg, "nas.lan", &a, 1, false, 60, 107 * S, &added);
	cr_expect_eq(added, 0);
	cr_expect_eq(t.v[1].expires_ns, (107 + 60) * S);
	dnsallow_free(&t);
	config_free(&cfg);
}

/* A reload that leaves only the wildcard: the exact entry joins the
 * wildcard's own for that address, for the longer of their times. */
Test(dnsallow, a_weakened_entry_joins_the_wildcards_own)
{
	uint32_t a = ip("10.0.0.5");
	struct dnsallow t = { 0 };
	struct config cfg, next;
	size_t added;

	config_with(&cfg, "allow-host = nas.lan\nallow-host = *.lan\n");
	dnsallow_record(&t, &cfg, "nas.lan", &a, 1, false, 3600, 100 * S, &added);
	cr_expect_eq(t.n, 1, "a name an exact pattern matches is recorded exact only");
	dnsallow_record(&t, &cfg, "x.lan", &a, 1, false, 60, 100 * S, &added);
	cr_assert_eq(t.n, 2);
	config_with(&next, "allow-host = *.lan\n");
	cr_expect_eq(dnsallow_keep_configured(&t, &next), 1);
	cr_assert_eq(t.n, 1);
	cr_expect_not(t.v[0].exact);
	cr_expect_eq(t.v[0].expires_ns, (100 + 3600) * S);
	dnsallow_free(&t);
	config_free(&cfg);
	config_free(&next);
}

/* The attack: the exact name is a CNAME into somebody else's zone (a
 * lapsed vendor name), whose answer is a LAN address. It gets a wildcard's
 * strength: the policy lets it open the internet only. */
Test(dnsallow, an_answer_from_outside_the_names_zone_is_a_wildcards)
{
	uint32_t a = ip("10.0.0.5");
	struct dnsallow t = { 0 };
	struct config cfg;
	size_t added;

	config_with(&cfg, "allow-host = forge.lan\n");
	cr_assert_eq(dnsallow_record(&t, &cfg, "forge.lan", &a, 1, true, 60, S, &added), 0);
	cr_assert_eq(t.n, 1);
	cr_expect_not(t.v[0].exact);
	/* The control: the same answer from its own zone is exact. */
	cr_assert_eq(dnsallow_record(&t, &cfg, "forge.lan", &a, 1, false, 60, S, &added), 0);
	cr_assert_eq(t.n, 2);
	cr_expect(t.v[1].exact);
	dnsallow_free(&t);
	config_free(&cfg);
}

/* A profile's exact name has a wildcard's strength: profiles name public
 * services, and a resolver that answers one with a LAN address (a
 * poisoned cache, a split horizon) must not open the LAN. The control: the
 * user's own line for the same name is exact. */
Test(dnsallow, a_profiles_name_opens_the_internet_only)
{
	static const char profile[] = "allow-host = api.example.test:443\n";
	uint32_t a[] = { ip("10.0.0.5") };
	struct dnsallow t = { 0 };
	struct config cfg;
	size_t added;

	config_init(&cfg);
	config_parse_profile(&cfg, "p.conf", profile, strlen(profile));
	cr_assert(config_ok(&cfg));
	cr_assert_eq(dnsallow_record(&t, &cfg, "api.example.test", a, 1, false, 60, 0, &added), 0);
	cr_assert_eq(added, 1);
	cr_expect(!t.v[0].exact);
	dnsallow_free(&t);
	config_free(&cfg);
	config_with(&cfg, "allow-host = api.example.test:443\n");
	cr_assert_eq(dnsallow_record(&t, &cfg, "api.example.test", a, 1, false, 60, 0, &added), 0);
	cr_expect(t.v[0].exact);
	dnsallow_free(&t);
	config_free(&cfg);
}

/* A deny-host answer's addresses, each until its TTL (the minimum for a
 * short one), renewed and never shortened; a reload without the pattern
 * drops them. */
Test(dnsallow, a_deny_host_answer_blocks_its_addresses_for_the_ttl)
{
	uint32_t a[] = { ip("198.51.100.9"), ip("198.51.100.10") };
	struct dnsallow t = { 0 }, copy;
	struct policy_name out[2];
	struct config cfg, later;
	size_t added;

	config_with(&cfg, "deny-host = *.paste.test\n");
	cr_expect(dnsallow_denied(&cfg, "www.paste.test"));
	cr_expect(!dnsallow_denied(&cfg, "paste.test"));
	cr_assert_eq(dnsdeny_record(&t, "www.paste.test", a, 2, 1, 10 * S, &added), 0);
	cr_expect_eq(added, 2);
	cr_expect_eq(t.v[0].expires_ns, (10 + DNSALLOW_MIN_TTL_S) * S);
	cr_assert_eq(dnsdeny_record(&t, "www.paste.test", a, 1, 600, 11 * S, &added), 0);
	cr_expect_eq(added, 0);
	cr_expect_eq(t.v[0].expires_ns, (11 + 600) * S);
	dnsdeny_names(&t, out);
	cr_expect(out[0].deny && out[1].deny);
	cr_assert_eq(dnsallow_copy(&t, &copy), 0);
	config_with(&later, "deny-host = other.test\n");
	cr_expect_eq(dnsdeny_keep_configured(&copy, &later), 2);
	cr_expect_eq(copy.n, 0);
	cr_expect_eq(t.n, 2, "the copy is its own");
	dnsallow_free(&t);
	dnsallow_free(&copy);
	config_free(&cfg);
	config_free(&later);
}

/* A block near its end is due: its name, once for all its addresses,
 * asked again, and the block held on meanwhile; while no answer comes
 * (the ask failed: a full table, a resolver that times out) it stays and
 * is asked again; an answer renews what it gives and drops what it left
 * out, which then ends at its time and is never asked for again. */
Test(dnsallow, a_deny_host_block_ends_only_when_its_name_leaves_it_out)
{
	uint32_t a[] = { ip("198.51.100.7"), ip("198.51.100.8") };
	uint32_t b[] = { ip("198.51.100.9") };
	struct dnsallow t = { 0 };
	char names[4][DNS_NAME_MAX + 1];
	size_t added;

	cr_assert_eq(dnsdeny_record(&t, "www.paste.test", a, 2, 10, 0, &added), 0);
	cr_assert_eq(dnsdeny_record(&t, "far.paste.test", b, 1, 600, 0, &added), 0);
	cr_expect_eq(dnsdeny_due(&t, 6 * S, 3 * S, names, 4), 0, "10 s blocks: not at 6 s");
	cr_assert_eq(dnsdeny_due(&t, 7 * S, 3 * S, names, 4), 1, "due at 7 s, its name once");
	cr_expect_str_eq(names[0], "www.paste.test");
	cr_expect_eq(t.v[0].expires_ns, 13 * S, "held on while it is asked");
	cr_expect_eq(t.v[1].expires_ns, 13 * S);
	cr_expect_eq(dnsdeny_due(&t, 8 * S, 3 * S, names, 4), 0, "asked for already");
	/* no answer came: at 10 s it is due again, and still held */
	cr_assert_eq(dnsdeny_due(&t, 10 * S, 3 * S, names, 4), 1, "asked again: no answer came");
	cr_expect_gt(t.v[1].expires_ns, 10 * S, "a failed ask keeps the block");
	/* the answer at 11 s gives .7 alone: .8 is dropped */
	cr_assert_eq(dnsdeny_record(&t, "www.paste.test", a, 1, 10, 11 * S, &added), 0);
	cr_expect(!t.v[0].dropped && t.v[1].dropped && !t.v[2].dropped,
		  "only the address the answer left out, of that name's");
	cr_expect_eq(dnsdeny_due(&t, 16 * S, 3 * S, names, 4), 0,
		     "the dropped one is never asked for (it ends at 16 s)");
	cr_expect_eq(t.v[1].expires_ns, 16 * S, "and never held on");
	cr_expect_eq(dnsdeny_due(&t, 18 * S, 3 * S, names, 4), 1, "the renewed one, near 21 s");
	cr_expect_str_eq(names[0], "www.paste.test");
	cr_expect_eq(dnsdeny_due(&t, 19 * S, 3 * S, names, 1), 0, "and only once");
	dnsallow_free(&t);
}

/* More due names than one tick may ask: the rest are neither asked nor
 * held on, and are due the next tick (their blocks still run). */
Test(dnsallow, deny_host_names_beyond_a_ticks_cap_wait_for_the_next)
{
	uint32_t a[] = { ip("198.51.100.7") }, b[] = { ip("198.51.100.8") };
	struct dnsallow t = { 0 };
	char names[1][DNS_NAME_MAX + 1];
	size_t added;

	cr_assert_eq(dnsdeny_record(&t, "one.paste.test", a, 1, 10, 0, &added), 0);
	cr_assert_eq(dnsdeny_record(&t, "two.paste.test", b, 1, 10, 0, &added), 0);
	cr_assert_eq(dnsdeny_due(&t, 7 * S, 3 * S, names, 1), 1);
	cr_expect_str_eq(names[0], "one.paste.test");
	cr_expect_eq(t.v[1].expires_ns, 10 * S, "not asked: not held on");
	cr_assert_eq(dnsdeny_due(&t, 8 * S, 3 * S, names, 1), 1);
	cr_expect_str_eq(names[0], "two.paste.test");
	dnsallow_free(&t);
}
