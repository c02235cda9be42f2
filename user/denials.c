// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* denials.c - which repeats are still to be written, and what was lost */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "denials.h"

/* The map holds at most DENIALS_MAX_ENTRIES tallies, so a read never
 * brings more keys; both arrays have room for that many from the start
 * (pages the book never touches cost nothing). */
#define BOOK_SLOTS DENIALS_MAX_ENTRIES

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
	return 0;
}

uint64_t denial_book_add(struct denial_book *b, const struct denial_key *k,
			 const struct denial_tally *t)
{
	const struct denial_written *was = NULL;
	struct denial_written *now;
	uint64_t written = 0;

	if (!b->next)
		return 0; /* begin failed: nothing written, nothing forgotten */
	if (b->n_last)
		was = bsearch(k, b->last, b->n_last, sizeof(*b->last), by_key);
	if (was && was->first_ns == t->first_ns)
		written = was->repeats;
	/* Nothing written and nothing to write: no need to remember it. The
	 * book cannot be full: one read brings at most the map's
	 * DENIALS_MAX_ENTRIES keys, and the kernel reads a hash map bucket by
	 * bucket, each key once. */
	if ((!written && !t->repeats) || b->n_next == BOOK_SLOTS)
		return 0;
	now = &b->next[b->n_next++];
	now->key = *k;
	now->first_ns = t->first_ns;
	now->repeats = t->repeats > written ? t->repeats : written;
	b->repeats_written += now->repeats - written;
	return now->repeats - written;
}

void denial_book_end(struct denial_book *b)
{
	struct denial_written *swap = b->last;

	if (!b->next)
		return;
	qsort(b->next, b->n_next, sizeof(*b->next), by_key);
	b->last = b->next;
	b->n_last = b->n_next;
	b->next = swap;
	b->n_next = 0;
}

uint64_t denial_book_lost(struct denial_book *b, uint64_t denied, uint64_t events)
{
	uint64_t shown = events + b->repeats_written, lost;

	if (denied <= shown)
		return 0;
	lost = denied - shown;
	if (lost <= b->lost_written)
		return 0;
	lost -= b->lost_written;
	b->lost_written += lost;
	return lost;
}

void denial_book_free(struct denial_book *b)
{
	free(b->next);
	free(b->last);
	b->next = b->last = NULL;
	b->n_next = b->n_last = 0;
}
