// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_dnsmsg.c - DNS messages as the forwarder reads them: what a
 * resolver says, and what an agent or a resolver could forge */
#include <errno.h>
#include <arpa/inet.h>
#include <string.h>
#include <criterion/criterion.h>

#include "dnsmsg.h"

struct msg {
	uint8_t b[1024];
	size_t n;
};

static void put(struct msg *m, const void *p, size_t n)
{
	cr_assert_leq(m->n + n, sizeof(m->b));
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void put16(struct msg *m, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(m, b, 2);
}

static void put32(struct msg *m, uint32_t v)
{
	put16(m, (uint16_t)(v >> 16));
	put16(m, (uint16_t)v);
}

/* put_name() - "a.b.c" as labels, the root after them */
static void put_name(struct msg *m, const char *name)
{
	const char *p = name;

	while (*p) {
		size_t n = strcspn(p, ".");
		uint8_t len = (uint8_t)n;

		put(m, &len, 1);
		put(m, p, n);
		p += n + (p[n] == '.');
	}
	put(m, "", 1);
}

/* header() - id 0x1234, @flags, one question, @ancount answers */
static void header(struct msg *m, uint16_t flags, uint16_t ancount, const char *name, uint16_t type)
{
	m->n = 0;
	put16(m, 0x1234);
	put16(m, flags);
	put16(m, 1);
	put16(m, ancount);
	put16(m, 0);
	put16(m, 0);
	put_name(m, name);
	put16(m, type);
	put16(m, DNS_CLASS_IN);
}

static void rr_a(struct msg *m, const char *owner, uint32_t ttl, const char *addr)
{
	struct in_addr a;

	put_name(m, owner);
	put16(m, DNS_TYPE_A);
	put16(m, DNS_CLASS_IN);
	put32(m, ttl);
	put16(m, 4);
	inet_pton(AF_INET, addr, &a);
	put(m, &a, 4);
}

static void rr_cname(struct msg *m, const char *owner, uint32_t ttl, const char *target)
{
	struct msg t = { .n = 0 };

	put_name(&t, target);
	put_name(m, owner);
	put16(m, DNS_TYPE_CNAME);
	put16(m, DNS_CLASS_IN);
	put32(m, ttl);
	put16(m, (uint16_t)t.n);
	put(m, t.b, t.n);
}

Test(dnsmsg, question_lower_case)
{
	struct dns_question q;
	struct msg m;

	header(&m, 0x0100, 0, "Forge.Example.ORG", DNS_TYPE_A);
	cr_assert_eq(dnsmsg_question(m.b, m.n, &q), 0);
	cr_expect_eq(q.id, 0x1234);
	cr_expect_str_eq(q.name, "forge.example.org");
	cr_expect_eq(q.type, DNS_TYPE_A);
	cr_expect_eq(q.end, m.n);
}

/* The A records of the asked name and of its CNAMEs, the smallest TTL on
 * the way; another name's records (a resolver's extras, or a forged
 * answer for a name nobody asked) are not taken. */
Test(dnsmsg, answer_follows_cnames_and_ignores_other_names)
{
	struct dns_answer a;
	struct msg m;
	char s[16];

	header(&m, 0x8180, 5, "git.example.org", DNS_TYPE_A);
	rr_cname(&m, "git.example.org", 300, "lb.example.net");
	rr_a(&m, "lb.example.net", 60, "192.168.5.10");
	rr_a(&m, "LB.example.net", 3600, "192.168.5.11");
	rr_a(&m, "other.example.org", 1, "10.9.9.9");
	rr_a(&m, "git.example.org", 120, "192.168.5.12");
	cr_assert_eq(dnsmsg_answer(m.b, m.n, &a), 0);
	cr_assert_eq(a.n, 3, "%zu addresses", a.n);
	inet_ntop(AF_INET, &a.addrs[0], s, sizeof(s));
	cr_expect_str_eq(s, "192.168.5.10");
	inet_ntop(AF_INET, &a.addrs[2], s, sizeof(s));
	cr_expect_str_eq(s, "192.168.5.12");
	cr_expect_eq(a.ttl, 60);
	cr_expect_eq(a.rcode, 0);
	cr_assert_eq(a.n_cname, 1, "the chain is not kept");
	cr_expect_str_eq(a.cname[0], "lb.example.net");
}

/* A CNAME out of the asked name's zone: the zone that answers is not the
 * one the user named (a lapsed vendor name, a dangling CNAME). */
Test(dnsmsg, zones_of_names)
{
	cr_expect(dnsmsg_in_zone("forge.lan.test", "git.lan.test"), "a sibling");
	cr_expect(dnsmsg_in_zone("forge.lan.test", "a.b.lan.test"));
	cr_expect(dnsmsg_in_zone("forge.lan.test", "lan.test"), "the parent itself");
	cr_expect(dnsmsg_in_zone("forge.lan.test", "FORGE.lan.test"));
	cr_expect_not(dnsmsg_in_zone("forge.lan.test", "forge.vendor.example"));
	cr_expect_not(dnsmsg_in_zone("forge.lan.test", "evillan.test"), "a suffix, not a zone");
	cr_expect_not(dnsmsg_in_zone("forge.lan.test", "test"));
	/* The parent is a single label: the name's own zone only. */
	cr_expect(dnsmsg_in_zone("forge.lan", "ci.forge.lan"));
	cr_expect_not(dnsmsg_in_zone("forge.lan", "git.lan"));
	cr_expect_not(dnsmsg_in_zone("localhost", "other"));
}

Test(dnsmsg, answer_with_compression)
{
	struct dns_answer a;
	struct msg m;
	uint8_t ptr[2] = { 0xc0, DNS_HEADER_LEN }; /* the question's name */
	struct in_addr ip;

	header(&m, 0x8180, 1, "forge.example.org", DNS_TYPE_A);
	put(&m, ptr, 2);
	put16(&m, DNS_TYPE_A);
	put16(&m, DNS_CLASS_IN);
	put32(&m, 30);
	put16(&m, 4);
	inet_pton(AF_INET, "10.1.2.3", &ip);
	put(&m, &ip, 4);
	cr_assert_eq(dnsmsg_answer(m.b, m.n, &a), 0);
	cr_expect_eq(a.n, 1);
	cr_expect_eq(a.addrs[0], ip.s_addr);
	cr_expect_eq(a.ttl, 30);
}

/* What an agent or a resolver could send to make the parser loop, read
 * past the end or join two names into one: each is refused. */
Test(dnsmsg, forged_messages_are_refused)
{
	struct dns_question q;
	struct dns_answer a;
	struct msg m;
	uint8_t self[2] = { 0xc0, DNS_HEADER_LEN }, fwd[2] = { 0xc0, 0xff };
	size_t full, cut;

	/* a pointer to itself, as the question's name */
	m.n = 0;
	put16(&m, 1);
	put16(&m, 0x0100);
	put16(&m, 1);
	put16(&m, 0);
	put32(&m, 0);
	put(&m, self, 2);
	put32(&m, 0x00010001);
	cr_expect_eq(dnsmsg_question(m.b, m.n, &q), -EINVAL, "a loop");
	/* a pointer forwards */
	m.n = DNS_HEADER_LEN;
	put(&m, fwd, 2);
	put32(&m, 0x00010001);
	cr_expect_eq(dnsmsg_question(m.b, m.n, &q), -EINVAL, "a forward pointer");
	/* every cut of a good answer */
	header(&m, 0x8180, 2, "a.example.org", DNS_TYPE_A);
	rr_cname(&m, "a.example.org", 5, "b.example.org");
	rr_a(&m, "b.example.org", 5, "10.0.0.1");
	full = m.n;
	for (cut = 0; cut < full; cut++)
		cr_expect_eq(dnsmsg_answer(m.b, cut, &a), -EINVAL, "cut at %zu", cut);
	cr_expect_eq(dnsmsg_answer(m.b, full, &a), 0);
	/* a dot inside a label: "a.b" as one label is not the name a.b */
	header(&m, 0x0100, 0, "ab", DNS_TYPE_A);
	m.b[DNS_HEADER_LEN + 2] = '.';
	cr_expect_eq(dnsmsg_question(m.b, m.n, &q), -EINVAL, "a dot in a label");
	m.b[DNS_HEADER_LEN + 2] = '\0';
	cr_expect_eq(dnsmsg_question(m.b, m.n, &q), -EINVAL, "a NUL in a label");
	/* two questions, or a query where an answer is wanted */
	header(&m, 0x8180, 0, "a.example.org", DNS_TYPE_A);
	m.b[5] = 2;
	cr_expect_eq(dnsmsg_question(m.b, m.n, &q), -EINVAL, "two questions");
	header(&m, 0x0100, 0, "a.example.org", DNS_TYPE_A);
	cr_expect_eq(dnsmsg_answer(m.b, m.n, &a), -EINVAL, "a query is no answer");
}

Test(dnsmsg, a_name_too_long_is_refused)
{
	struct dns_question q;
	char name[300];
	struct msg m;
	int i;

	for (i = 0; i < 64; i++)
		memcpy(name + i * 4, "abc.", 4);
	name[255] = '\0'; /* 255 characters: over DNS_NAME_MAX */
	header(&m, 0x0100, 0, name, DNS_TYPE_A);
	cr_expect_eq(dnsmsg_question(m.b, m.n, &q), -EINVAL);
}

Test(dnsmsg, empty_answer_for_aaaa)
{
	struct dns_answer a;
	uint8_t out[512];
	struct msg m;
	int n;

	header(&m, 0x0100, 0, "forge.example.org", DNS_TYPE_AAAA);
	n = dnsmsg_empty_answer(m.b, m.n, DNS_RCODE_NOERROR, out, sizeof(out));
	cr_assert_eq(n, (int)m.n);
	cr_expect_eq(out[0], 0x12);
	cr_expect_eq(out[1], 0x34);
	cr_expect_eq(out[2] & 0x80, 0x80, "QR");
	cr_expect_eq(out[2] & 0x01, 0x01, "RD kept");
	cr_expect_eq(out[3] & 0x0f, 0, "NOERROR");
	cr_assert_eq(dnsmsg_answer(out, (size_t)n, &a), 0);
	cr_expect_eq(a.n, 0);
	cr_expect_eq(dnsmsg_empty_answer(m.b, m.n, DNS_RCODE_NOERROR, out, 10), -ENOSPC);
	cr_expect_eq(dnsmsg_empty_answer(out, (size_t)n, DNS_RCODE_NOERROR, out, sizeof(out)), -EINVAL, "an answer");
}

Test(dnsmsg, name_patterns)
{
	cr_expect(dnsmsg_name_matches("forge.example.org", "forge.example.org"));
	cr_expect(dnsmsg_name_matches("Forge.Example.org.", "forge.example.org"));
	cr_expect_not(dnsmsg_name_matches("forge.example.org", "xforge.example.org"));
	cr_expect(dnsmsg_name_matches("*.example.org", "a.example.org"));
	cr_expect(dnsmsg_name_matches("*.example.org", "a.b.example.org"));
	cr_expect_not(dnsmsg_name_matches("*.example.org", "example.org"), "not the apex");
	cr_expect_not(dnsmsg_name_matches("*.example.org", "badexample.org"));
	cr_expect_not(dnsmsg_name_matches("*.example.org", "example.org.evil.net"));
}

Test(dnsmsg, only_host_names_are_host_names)
{
	cr_expect(dnsmsg_name_is_host("forge.lan"));
	cr_expect(dnsmsg_name_is_host("_ldap._tcp.x-y.example"));
	cr_expect(!dnsmsg_name_is_host(""));
	cr_expect(!dnsmsg_name_is_host("evil\nnames x.lab.test"));
	cr_expect(!dnsmsg_name_is_host("a b.lab.test"));
	cr_expect(!dnsmsg_name_is_host("\x1b[2J.lab.test"));
}

/* Only standard queries go to the resolver: an UPDATE (opcode 5) under an
 * allowed name could write a record pointing anywhere; a zone transfer
 * reads a zone. An answer is never a query. */
Test(dnsmsg, only_standard_queries_are_passed_on)
{
	struct dns_question q;
	struct msg m;

	header(&m, 0x0100, 0, "forge.lan", DNS_TYPE_A);
	cr_expect_eq(dnsmsg_check_query(m.b, m.n, &q), 0);
	cr_expect_str_eq(q.name, "forge.lan");
	header(&m, 0x2800, 0, "lan", 6); /* opcode 5: UPDATE, zone lan */
	cr_expect_eq(dnsmsg_check_query(m.b, m.n, &q), DNS_RCODE_NOTIMP);
	header(&m, 0x2000, 0, "lan", 6); /* opcode 4: NOTIFY */
	cr_expect_eq(dnsmsg_check_query(m.b, m.n, &q), DNS_RCODE_NOTIMP);
	header(&m, 0x0100, 1, "forge.lan", DNS_TYPE_A); /* a query with an answer in it */
	rr_a(&m, "forge.lan", 60, "10.0.0.5");
	cr_expect_eq(dnsmsg_check_query(m.b, m.n, &q), DNS_RCODE_NOTIMP);
	header(&m, 0x0000, 0, "lan", DNS_TYPE_AXFR);
	cr_expect_eq(dnsmsg_check_query(m.b, m.n, &q), DNS_RCODE_REFUSED);
	header(&m, 0x0000, 0, "lan", DNS_TYPE_IXFR);
	cr_expect_eq(dnsmsg_check_query(m.b, m.n, &q), DNS_RCODE_REFUSED);
	header(&m, 0x8180, 0, "forge.lan", DNS_TYPE_A); /* QR: an answer */
	cr_expect_eq(dnsmsg_check_query(m.b, m.n, &q), -EINVAL);
	cr_expect_eq(dnsmsg_check_query(m.b, 5, &q), -EINVAL);
	/* One additional record: EDNS's OPT (dig sends one), nothing else. */
	header(&m, 0x0100, 0, "forge.lan", DNS_TYPE_A);
	m.b[11] = 1;
	put(&m, "", 1);
	put16(&m, DNS_TYPE_OPT);
	put16(&m, 1232);
	put32(&m, 0);
	put16(&m, 0);
	cr_expect_eq(dnsmsg_check_query(m.b, m.n, &q), 0, "EDNS refused");
	cr_expect_eq(dnsmsg_check_query(m.b, m.n - 1, &q), DNS_RCODE_NOTIMP, "a cut OPT");
	put(&m, "x", 1);
	cr_expect_eq(dnsmsg_check_query(m.b, m.n, &q), DNS_RCODE_NOTIMP, "bytes after the OPT");
	header(&m, 0x0100, 0, "forge.lan", DNS_TYPE_A);
	m.b[11] = 1;
	rr_a(&m, "forge.lan", 60, "10.0.0.5"); /* an A record as the additional one */
	cr_expect_eq(dnsmsg_check_query(m.b, m.n, &q), DNS_RCODE_NOTIMP);
}

/* The answer taken is the one to the question asked with that ID; a late,
 * stray or spoofed one (another ID, QR clear, another name or type) is
 * not. */
Test(dnsmsg, only_the_answer_to_the_question_is_taken)
{
	struct dns_question q;
	struct msg m;

	header(&m, 0x0100, 0, "forge.lan", DNS_TYPE_A);
	cr_assert_eq(dnsmsg_question(m.b, m.n, &q), 0);
	header(&m, 0x8180, 1, "forge.lan", DNS_TYPE_A);
	rr_a(&m, "forge.lan", 60, "10.0.0.5");
	cr_expect(dnsmsg_is_answer_to(&q, 0x1234, m.b, m.n));
	cr_expect(!dnsmsg_is_answer_to(&q, 0x1235, m.b, m.n), "another ID");
	header(&m, 0x0180, 1, "forge.lan", DNS_TYPE_A);
	cr_expect(!dnsmsg_is_answer_to(&q, 0x1234, m.b, m.n), "QR clear");
	header(&m, 0x8180, 1, "other.lan", DNS_TYPE_A);
	cr_expect(!dnsmsg_is_answer_to(&q, 0x1234, m.b, m.n), "another name");
	header(&m, 0x8180, 1, "forge.lan", DNS_TYPE_AAAA);
	cr_expect(!dnsmsg_is_answer_to(&q, 0x1234, m.b, m.n), "another type");
	header(&m, 0x8180, 1, "FORGE.lan", DNS_TYPE_A);
	cr_expect(dnsmsg_is_answer_to(&q, 0x1234, m.b, m.n), "names compare without case");
	cr_expect(!dnsmsg_is_answer_to(&q, 0x1234, m.b, 11), "short");
	dnsmsg_set_id(m.b, 0xbeef);
	cr_expect_eq(dnsmsg_id(m.b), 0xbeef);
}

/* What a resolver could do to the forwarder: a TTL with the top bit set
 * is 0, not 68 years (RFC 2181 8); an error answer's records allow
 * nothing; a name of more pointers than a name has labels is refused. */
Test(dnsmsg, a_resolver_cannot_stretch_ttls_errors_or_pointer_chains)
{
	struct dns_answer a;
	struct msg m;
	uint16_t i;

	header(&m, 0x8180, 1, "forge.lan", DNS_TYPE_A);
	rr_a(&m, "forge.lan", 0x80000001U, "10.0.0.5");
	cr_assert_eq(dnsmsg_answer(m.b, m.n, &a), 0);
	cr_expect_eq(a.n, 1);
	cr_expect_eq(a.ttl, 0);
	header(&m, 0x8183, 1, "forge.lan", DNS_TYPE_A); /* NXDOMAIN */
	rr_a(&m, "forge.lan", 60, "10.0.0.5");
	cr_assert_eq(dnsmsg_answer(m.b, m.n, &a), 0);
	cr_expect_eq(a.n, 0);
	cr_expect_eq(a.rcode, 3);
	/* A TXT record whose data is 200 pointers, each to the one before it
	 * (the first to the question's name); then an A record whose owner
	 * points at the last: a chain of 200 jumps to "x". */
	header(&m, 0x8180, 2, "x", DNS_TYPE_A);
	put16(&m, 0xc000 | 12);
	put16(&m, 16); /* TXT */
	put16(&m, DNS_CLASS_IN);
	put32(&m, 60);
	put16(&m, 400);
	{
		size_t base = m.n;

		put16(&m, 0xc000 | 12);
		for (i = 1; i < 200; i++)
			put16(&m, (uint16_t)(0xc000 | (base + 2 * (i - 1))));
		put16(&m, (uint16_t)(0xc000 | (base + 2 * 199)));
	}
	put16(&m, DNS_TYPE_A);
	put16(&m, DNS_CLASS_IN);
	put32(&m, 60);
	put16(&m, 4);
	put(&m, "\x0a\x00\x00\x05", 4);
	cr_expect_eq(dnsmsg_answer(m.b, m.n, &a), -EINVAL);
}

/* The query the resolver gets carries the question and nothing of the
 * agent's else: no bytes after it, no EDNS options, no header bits, no
 * letter case (the question as parsed is lower case). */
Test(dnsmsg, the_upstream_query_is_built_not_copied)
{
	static const uint8_t agent[] = {
		0x12, 0x34, 0x01, 0x30, 0, 1, 0, 0, 0, 0, 0, 1, /* RD, AD, CD set */
		3, 'A', 'p', 'I', 7, 'e', 'x', 'A', 'm', 'p', 'l', 'e', 0, 0, 16, 0, 1,
		0, 0, 41, 0x10, 0x00, 0, 0, 0x80, 0, 0, 8, /* OPT: 4096, DO, 8 bytes */
		0xfd, 0xe9, 0, 4, 's', 'e', 'c', 'r',       /* option 65001: data */
	};
	struct dns_question q, back;
	uint8_t out[512];
	uint16_t size;
	bool dok;
	int n;

	cr_assert_eq(dnsmsg_check_query(agent, sizeof(agent), &q), 0);
	dnsmsg_query_edns(agent, sizeof(agent), &q, &size, &dok);
	cr_expect_eq(size, 4096);
	cr_expect(dok);
	n = dnsmsg_build_query(&q, 1232, dok, out, sizeof(out));
	cr_assert_gt(n, 0);
	cr_expect_eq(n, 12 + 13 + 4 + 11, "header, question and a bare OPT");
	cr_expect_eq(out[2], 0x01);
	cr_expect_eq(out[3], 0x00, "no AD, no CD");
	cr_expect(!memcmp(out + 12, "\3api\7example\0\0\x10\0\1", 17), "lower case, type TXT");
	cr_expect_eq(out[12 + 17 + 3], 1232 >> 8);
	cr_expect_eq(out[12 + 17 + 7], 0x80, "DO kept");
	cr_expect_eq(out[12 + 17 + 9], 0, "no option data");
	cr_assert_eq(dnsmsg_check_query(out, (size_t)n, &back), 0);
	cr_expect_str_eq(back.name, "api.example");
	n = dnsmsg_build_query(&q, 0, false, out, sizeof(out));
	cr_expect_eq(n, 12 + 13 + 4, "no OPT for a query without one");
	cr_expect_eq(out[11], 0);
}
