// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_denials.c - the book of repeats written and losses (user/audit/denials.c) */
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <criterion/criterion.h>

#include "denials.h"

static struct denial_key key(uint32_t pid, const char *daddr, uint16_t dport)
{
	struct denial_key k = { .pid = pid, .dport = dport, .proto = IPPROTO_UDP,
				.hook = HOOK_SENDMSG4, .reason = REASON_PRIVATE,
				.rule_prefixlen = 8, .family = AF_INET };

	k.daddr = inet_addr(daddr);
	return k;
}

/* read_map() - one read of a "map" of @n tallies, as the supervisor reads
 * it, @complete or failed halfway; @out[i]: what the book says to write
 * for tally i (0 for one it does not keep) */
static void read_map(struct denial_book *b, const struct denial_key *k,
		     const struct denial_tally *t, size_t n, bool complete, uint64_t *out)
{
	size_t i, j, kept;

	cr_assert_eq(denial_book_begin(b), 0);
	for (i = 0; i < n; i++)
		denial_book_add(b, &k[i], &t[i]);
	kept = denial_book_end(b, complete);
	for (i = 0; i < n; i++) {
		out[i] = 0;
		for (j = 0; j < kept; j++)
			if (!memcmp(&b->last[j].key, &k[i], sizeof(k[i])))
				out[i] = b->last[j].fresh;
	}
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

	read_map(&b, k, t, 3, true, out);
	cr_expect_eq(out[0], 5);
	cr_expect_eq(out[1], 0, "an event alone: nothing to write");
	cr_expect_eq(out[2], 1);

	/* Read again unchanged: nothing new. */
	read_map(&b, k, t, 3, true, out);
	cr_expect(out[0] == 0 && out[1] == 0 && out[2] == 0);

	/* Grown: only the growth, in whatever order a read brings them. */
	{
		struct denial_key rk[3] = { k[2], k[1], k[0] };
		struct denial_tally rt[3] = { t[2], t[1], t[0] };

		rt[2].repeats = 12;
		rt[1].repeats = 3;
		read_map(&b, rk, rt, 3, true, out);
		cr_expect(out[0] == 0 && out[1] == 3 && out[2] == 7, "%lu %lu %lu",
			  (unsigned long)out[0], (unsigned long)out[1], (unsigned long)out[2]);
	}
	cr_expect_eq(b.repeats_written[REASON_PRIVATE], 12 + 3 + 1);
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

	read_map(&b, &k, &t, 1, true, &out);
	cr_expect_eq(out, 40);
	t = (struct denial_tally){ .repeats = 3, .first_ns = 5000 };
	read_map(&b, &k, &t, 1, true, &out);
	cr_expect_eq(out, 3);
	cr_expect_eq(b.repeats_written[REASON_PRIVATE], 43);
	denial_book_free(&b);
}

/* A read that failed halfway writes nothing and forgets nothing: the
 * next complete read writes each repeat once. */
Test(denials, a_failed_read_changes_nothing)
{
	struct denial_key k[2] = { key(7, "10.0.0.1", 53), key(7, "10.0.0.2", 53) };
	struct denial_tally t[2] = { { .repeats = 5, .first_ns = 100 },
				     { .repeats = 3, .first_ns = 200 } };
	struct denial_book b = { 0 };
	uint64_t out[2];

	read_map(&b, k, t, 2, true, out);
	t[0].repeats = 9;
	read_map(&b, k, t, 1, false, out); /* stopped after k[0] */
	cr_expect_eq(out[0], 0, "a void read writes nothing");
	read_map(&b, k, t, 2, true, out);
	cr_expect(out[0] == 4 && out[1] == 0, "%lu %lu", (unsigned long)out[0],
		  (unsigned long)out[1]);
	cr_expect_eq(b.repeats_written[REASON_PRIVATE], 9 + 3);
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

	read_map(&b, &k, &t, 1, true, &out);
	cr_expect_eq(denial_book_lost(&b, REASON_PRIVATE, 100, 10), 0,
		     "100 = 10 events + 90 repeats");
	/* The map was read after the counters: it saw 5 more. */
	t.repeats = 95;
	read_map(&b, &k, &t, 1, true, &out);
	cr_expect_eq(denial_book_lost(&b, REASON_PRIVATE, 100, 10), 0);
	/* 20 denials more, 5 of them the map saw already, 10 evicted. */
	cr_expect_eq(denial_book_lost(&b, REASON_PRIVATE, 120, 15), 10);
	cr_expect_eq(denial_book_lost(&b, REASON_PRIVATE, 120, 15), 0, "written once");
	/* Per reason: one metadata denial pushed out of the map is its own. */
	cr_expect_eq(denial_book_lost(&b, REASON_METADATA, 1, 0), 1);
	cr_expect_eq(b.lost_written[REASON_PRIVATE], 10);
	cr_expect_eq(b.lost_total, 11);
	denial_book_free(&b);
}

/* Without a begin (it failed for memory), nothing is written. */
Test(denials, nothing_without_a_begin)
{
	struct denial_key k = key(7, "10.0.0.1", 53);
	struct denial_tally t = { .repeats = 9, .first_ns = 100 };
	struct denial_book b = { 0 };

	denial_book_add(&b, &k, &t);
	cr_expect_eq(denial_book_end(&b, true), 0);
	cr_expect_eq(b.repeats_written[REASON_PRIVATE], 0);
}
