/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* denials.h - the supervisor's side of the kernel's aggregation: which
 * repeats are still to be written, and what was lost (pure)
 *
 * bpf/ebpfjail.h, "Aggregation", says what the kernel keeps. Once a second
 * the supervisor reads every tally of the denials map into a book:
 *
 *   denial_book_begin(b);
 *   for each (key, tally) of the map:
 *           n = denial_book_add(b, key, tally);   write "count": n if n > 0
 *   denial_book_end(b);
 *   lost = denial_book_lost(b, denied, events);  write "lost": lost if > 0
 *
 * The book remembers, per key, the repeats already written, so each repeat
 * is written once, however often the key is read.
 */
#ifndef EBPFJAIL_DENIALS_H
#define EBPFJAIL_DENIALS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "ebpfjail.h"

struct denial_written {
	struct denial_key key;
	uint64_t first_ns; /* the tally's: a key evicted and inserted again
			      is a new tally, with nothing written yet */
	uint64_t repeats;  /* written so far */
};

struct denial_book {
	struct denial_written *last; /* the last read's keys with repeats
					written, sorted by key */
	size_t n_last;
	struct denial_written *next; /* this read's, as they come */
	size_t n_next;
	uint64_t repeats_written;    /* every count record's count, summed */
	uint64_t lost_written;       /* every lost record's */
};

/**
 * denial_book_begin() - start a read of the map
 * Return: 0, or -ENOMEM (nothing is written in this read then).
 */
int denial_book_begin(struct denial_book *b);

/**
 * denial_book_add() - one tally as read from the map
 * Return: the repeats to write in a count record now: those not written
 * before. 0 when there are none, or when the book is full (they are
 * written by a later read).
 */
uint64_t denial_book_add(struct denial_book *b, const struct denial_key *k,
			 const struct denial_tally *t);

/** denial_book_end() - the read is over: its keys are what is remembered */
void denial_book_end(struct denial_book *b);

/**
 * denial_book_lost() - the denials no event or count record will ever
 * show, not yet written in a lost record
 * @denied: every denial, as the counters say (read before the map)
 * @events: the denials that went to the ring buffer (read with @denied)
 * While the agent runs this is at most the truth (ebpfjail.h says why);
 * once it is gone and the map was read after it, exact.
 * Return: how many to write in a lost record now (usually 0).
 */
uint64_t denial_book_lost(struct denial_book *b, uint64_t denied, uint64_t events);

/** denial_book_free() - free what the book holds; it can be begun again */
void denial_book_free(struct denial_book *b);

#endif /* EBPFJAIL_DENIALS_H */
