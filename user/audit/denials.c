// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* denials.c - which repeats are still to be written, and what was lost */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "denials.h"

/* The map holds DENIALS_MAX_ENTRIES tallies, but a read can bring more:
 * while it goes bucket by bucket, the LRU may evict a key it has read and
 * insert one in a bucket it has yet to read. Twice that covers a read
 * racing a flood of new kinds; a read that brings more writes nothing
 * (denial_book_end()). Pages the book never touches cost nothing. */
#define BOOK_SLOTS (2 * DENIALS_MAX_ENTRIES)

static int by_key(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct denial_key));
}

int denial_book_begin(struct denial_book *b)
{
	if (!b->next) {
		b->next = calloc(BOOK_SLOTS, sizeof(*b->next));
		b->last = calloc(BOOK_SLOTS, sizeof(*b->last));
		if (!b->next || !b->last) {
			denial_book_free(b);
			return -ENOMEM;
		}
	}
	b->n_next = 0;
	b->overflow = false;
	return 0;
}

void denial_book_add(struct denial_book *b, const struct denial_key *k,
		     const struct denial_tally *t)
{
	const struct denial_entry *was = NULL;
	struct denial_entry *now;
	uint64_t written = 0;

	/* No repeats: nothing to write, and nothing written before (a key's
	 * repeats only grow; a new incarnation starts with nothing written). */
	if (!b->next || !t->repeats)
		return;
	if (b->n_next == BOOK_SLOTS) {
		b->overflow = true;
		return;
	}
	if (b->n_last)
		was = bsearch(k, b->last, b->n_last, sizeof(*b->last), by_key);
	if (was && was->tally.first_ns == t->first_ns)
		written = was->written;
	now = &b->next[b->n_next++];
	now->key = *k;
	now->tally = *t;
	now->fresh = t->repeats > written ? t->repeats - written : 0;
	now->written = written + now->fresh;
}

size_t denial_book_end(struct denial_book *b, bool complete)
{
	struct denial_entry *swap = b->last;
	size_t i;

	if (!b->next || !complete || b->overflow) {
		b->n_next = 0; /* void: the book stays as the last read left it */
		return 0;
	}
	for (i = 0; i < b->n_next; i++)
		b->repeats_written[b->next[i].key.reason % REASON_COUNT] += b->next[i].fresh;
	qsort(b->next, b->n_next, sizeof(*b->next), by_key);
	b->last = b->next;
	b->n_last = b->n_next;
	b->next = swap;
	b->n_next = 0;
	return b->n_last;
}

uint64_t denial_book_lost(struct denial_book *b, unsigned int reason, uint64_t denied,
			  uint64_t events)
{
	uint64_t shown, lost;

	if (reason >= REASON_COUNT)
		return 0;
	shown = events + b->repeats_written[reason];
	if (denied <= shown)
		return 0;
	lost = denied - shown;
	if (lost <= b->lost_written[reason])
		return 0;
	lost -= b->lost_written[reason];
	b->lost_written[reason] += lost;
	b->lost_total += lost;
	return lost;
}

void denial_book_free(struct denial_book *b)
{
	free(b->next);
	free(b->last);
	b->next = b->last = NULL;
	b->n_next = b->n_last = 0;
}
