// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_relay.c - the relays' cap on connections, from the descriptors left */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "relay.h"

struct cap_case {
	char name[48];
	uint64_t nofile;
	unsigned int in_use, reserve, want;
};

ParameterizedTestParameters(relay, cap)
{
	static struct cap_case cases[] = {
		/* (1024 - 30 - 64) / 6 = 155: the usual soft limit, not raised */
		{ "soft limit 1024", 1024, 30, 64, 155 },
		{ "a remainder is not a connection", 1024 + 5, 30, 64, 155 },
		{ "exactly one", 30 + 64 + RELAY_FDS_PER_CONN, 30, 64, 1 },
		{ "one descriptor short of one", 30 + 64 + RELAY_FDS_PER_CONN - 1, 30, 64, 0 },
		{ "nothing left but the reserve", 94, 30, 64, 0 },
		{ "less than in use", 16, 30, 64, 0 },
		{ "raised to 20000", 20000, 30, 64, 3317 },
		{ "raised to 2^20: RELAY_MAX_CONNS", 1048576, 30, 64, RELAY_MAX_CONNS },
		{ "no 32-bit overflow", (uint64_t)1 << 40, 30, 64, RELAY_MAX_CONNS },
	};

	return cr_make_param_array(struct cap_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct cap_case *c, relay, cap)
{
	unsigned int got = relay_conn_cap(c->nofile, c->in_use, c->reserve);

	cr_expect_eq(got, c->want, "[%s] got %u, want %u", c->name, got, c->want);
	/* Whatever the limit, the connections and the reserve fit in it. */
	if (got)
		cr_expect_leq((uint64_t)got * RELAY_FDS_PER_CONN + c->in_use + c->reserve, c->nofile,
			      "[%s] %u connections overrun the limit", c->name, got);
}
