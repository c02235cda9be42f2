// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_summary.c - the one-line summary of what was denied */
#include <string.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>

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
