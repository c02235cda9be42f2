// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_summary.c - the one-line summary of what was denied */
#include <string.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "summary.h"

static struct jail_event event(const char *daddr, uint16_t dport, uint8_t reason, const char *comm)
{
	struct jail_event e = { .pid = 42, .uid = 1000, .proto = IPPROTO_TCP,
				.hook = HOOK_CONNECT4, .reason = reason, .rule_prefixlen = 8,
				.family = AF_INET, .dport = dport };

	e.daddr = inet_addr(daddr);
	strncpy(e.comm, comm, sizeof(e.comm) - 1);
	return e;
}

Test(summary, line)
{
	struct summary s = { 0 };
	struct jail_event a = event("10.1.2.3", 22, REASON_PRIVATE, "ssh");
	struct jail_event b = event("169.254.169.254", 80, REASON_METADATA, "curl");
	char line[1024];

	cr_expect_eq(summary_format(&s, line, sizeof(line)), 0, "nothing denied, nothing said");
	summary_add(&s, &b);
	summary_add(&s, &a);
	summary_add(&s, &a);
	summary_format(&s, line, sizeof(line));
	cr_expect_str_eq(line, "ebpfjail: denied 3 connections: 10.1.2.3:22 (private) x2, "
			       "169.254.169.254:80 (metadata) x1; to allow the first: allow-ip = "
			       "10.1.2.3:22 (details: ebpfjail audit)\n");
}

/* Which allow-ip line the summary suggests: never a metadata service's. */
struct suggest_case {
	char name[48];
	struct {
		char daddr[16];
		uint16_t dport;
		uint8_t reason;
		unsigned int times; /* 0 ends the list */
	} denied[4];
	char want[160];   /* in the line */
	char absent[64];  /* not in the line */
};

ParameterizedTestParameters(summary, suggestion)
{
	static struct suggest_case cases[] = {
		{ "the first, when it may be allowed",
		  { { "10.1.2.3", 22, REASON_PRIVATE, 2 }, { "169.254.169.254", 80, REASON_METADATA, 1 } },
		  "; to allow the first: allow-ip = 10.1.2.3:22 (", "metadata service" },
		{ "metadata first: named, the next suggested",
		  { { "169.254.169.254", 80, REASON_METADATA, 5 }, { "10.1.2.3", 22, REASON_PRIVATE, 1 } },
		  "; 169.254.169.254 is a cloud metadata service, not allowed on purpose; to allow "
		  "10.1.2.3:22: allow-ip = 10.1.2.3:22 (",
		  "allow-ip = 169" },
		{ "only metadata: nothing suggested",
		  { { "169.254.169.254", 80, REASON_METADATA, 3 }, { "100.100.100.200", 80, REASON_METADATA, 1 } },
		  "; 169.254.169.254 is a cloud metadata service, not allowed on purpose (", "allow-ip" },
		{ "a metadata address under another rule",
		  { { "168.63.129.16", 80, REASON_BLOCK_CIDR, 2 }, { "192.168.1.5", 0, REASON_PRIVATE, 1 } },
		  "; 168.63.129.16 is a cloud metadata service, not allowed on purpose; to allow "
		  "192.168.1.5: allow-ip = 192.168.1.5 (",
		  "allow-ip = 168" },
		{ "no address, then metadata, then one to allow",
		  { { "0.0.0.0", 0, REASON_IPV6, 9 }, { "169.254.170.2", 80, REASON_METADATA, 4 },
		    { "10.9.9.9", 443, REASON_PRIVATE, 1 } },
		  "; 169.254.170.2 is a cloud metadata service, not allowed on purpose; to allow "
		  "10.9.9.9:443: allow-ip = 10.9.9.9:443 (",
		  "allow-ip = 169" },
		{ "metadata after the suggestion is not named",
		  { { "10.1.2.3", 22, REASON_PRIVATE, 3 }, { "169.254.169.254", 80, REASON_METADATA, 1 } },
		  "to allow the first: allow-ip = 10.1.2.3:22", "not allowed on purpose" },
	};

	return cr_make_param_array(struct suggest_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct suggest_case *c, summary, suggestion)
{
	struct summary s = { 0 };
	char line[1024];
	unsigned int i, k;

	for (i = 0; i < 4 && c->denied[i].times; i++) {
		struct jail_event e = event(c->denied[i].daddr, c->denied[i].dport,
					    c->denied[i].reason, "agent");

		for (k = 0; k < c->denied[i].times; k++)
			summary_add(&s, &e);
	}
	summary_format(&s, line, sizeof(line));
	cr_expect(strstr(line, c->want), "[%s] lacks \"%s\":\n%s", c->name, c->want, line);
	cr_expect(!strstr(line, c->absent), "[%s] has \"%s\":\n%s", c->name, c->absent, line);
}
