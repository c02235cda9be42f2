// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_denials.c - the book of repeats written and losses (user/denials.c) */
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "denials.h"

static struct denial_key key(uint32_t pid, const char *daddr, uint16_t dport)
{
	struct denial_key k = { .pid = pid, .dport = dport, .proto = 17, .hook = HOOK_SENDMSG4,
				.reason = REASON_PRIVATE, .rule_prefixlen = 8, .family = 2 };

	k.daddr = inet_addr(daddr);
	return k;
}

/* read_map() - one read of a "map" of @n tallies, as the supervisor reads
 * it; @out[i]: what the book says to write for tally i */
static void read_map(struct denial_book *b, const struct denial_key *k,
		     const struct denial_tally *t, size_t n, uint64_t *out)
{
	size_t i;

	cr_assert_eq(denial_book_begin(b), 0);
	for (i = 0; i < n; i++)
		out[i] = denial_book_add(b, &k[i], &t[i]);
	denial_book_end(b);
}

Test(denials, each_repeat_is_written_once)
{
	struct denial_key k[3] = { key(7, "10.0.0.1", 53), key(7, "10.0.0.2", 53),
				   key(8, "10.0.0.1", 53) };
	struct denial_tally t[3] = { { .repeats = 5, .first_ns = 100 },
				     { .repeats = 0, .first_ns = 200 },
				     { .repeats = 1, .first_ns = 300 } };
	struct denial_book b = { 0 };
	uint64_t out[3];

	read_map(&b, k, t, 3, out);
	cr_expect_eq(out[0], 5);
	cr_expect_eq(out[1], 0, "an event alone: nothing to write");
	cr_expect_eq(out[2], 1);

	/* Read again unchanged: nothing new. */
	read_map(&b, k, t, 3, out);
	cr_expect(out[0] == 0 && out[1] == 0 && out[2] == 0);

	/* Grown: only the growth, in whatever order a read brings them. */
	{
		struct denial_key rk[3] = { k[2], k[1], k[0] };
		struct denial_tally rt[3] = { t[2], t[1], t[0] };

		rt[2].repeats = 12;
		rt[1].repeats = 3;
		read_map(&b, rk, rt, 3, out);
		cr_expect(out[0] == 0 && out[1] == 3 && out[2] == 7, "%lu %lu %lu",
			  (unsigned long)out[0], (unsigned long)out[1], (unsigned long)out[2]);
	}
	cr_expect_eq(b.repeats_written, 12 + 3 + 1);
	denial_book_free(&b);
}

/* A key the LRU evicted and the kernel inserted again is a new tally,
 * counting from 0: what was written for the old one is no discount. */
Test(denials, a_tally_inserted_again_starts_over)
{
	struct denial_key k = key(7, "10.0.0.1", 53);
	struct denial_tally t = { .repeats = 40, .first_ns = 100 };
	struct denial_book b = { 0 };
	uint64_t out;

	read_map(&b, &k, &t, 1, &out);
	cr_expect_eq(out, 40);
	t = (struct denial_tally){ .repeats = 3, .first_ns = 5000 };
	read_map(&b, &k, &t, 1, &out);
	cr_expect_eq(out, 3);
	cr_expect_eq(b.repeats_written, 43);
	denial_book_free(&b);
}

/* lost = denied - events - repeats written; never written twice, never
 * more than the truth when a read saw more than the counters. */
Test(denials, losses_are_the_difference_written_once)
{
	struct denial_key k = key(7, "10.0.0.1", 53);
	struct denial_tally t = { .repeats = 90, .first_ns = 100 };
	struct denial_book b = { 0 };
	uint64_t out;

	read_map(&b, &k, &t, 1, &out);
	cr_expect_eq(denial_book_lost(&b, 100, 10), 0, "100 = 10 events + 90 repeats");
	/* The map was read after the counters: it saw 5 more. */
	t.repeats = 95;
	read_map(&b, &k, &t, 1, &out);
	cr_expect_eq(denial_book_lost(&b, 100, 10), 0);
	/* 20 denials more, 5 of them the map saw already, 10 evicted. */
	cr_expect_eq(denial_book_lost(&b, 120, 15), 10);
	cr_expect_eq(denial_book_lost(&b, 120, 15), 0, "written once");
	cr_expect_eq(b.lost_written, 10);
	denial_book_free(&b);
}

/* A failed begin writes nothing and forgets nothing. */
Test(denials, nothing_without_a_begin)
{
	struct denial_key k = key(7, "10.0.0.1", 53);
	struct denial_tally t = { .repeats = 9, .first_ns = 100 };
	struct denial_book b = { 0 };

	cr_expect_eq(denial_book_add(&b, &k, &t), 0);
	denial_book_end(&b);
	cr_expect_eq(b.repeats_written, 0);
}
