/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* denials.h - the supervisor's side of the kernel's aggregation: which
 * repeats are still to be written, and what was lost (pure)
 *
 * bpf/ebpfjail.h, "Aggregation", says what the kernel keeps. Once a second
 * the supervisor reads every tally of the denials map into a book, and
 * only once the whole map was read does it write anything:
 *
 *   denial_book_begin(b);
 *   for each (key, tally) of the map:
 *           denial_book_add(b, key, tally);
 *   n = denial_book_end(b, read_ok);
 *   for i < n: b->last[i].fresh > 0: a count record of that many repeats
 *   per reason: lost = denial_book_lost(b, reason, denied, events);
 *               a lost record if > 0
 *
 * The book remembers, per key, the repeats already written, so each repeat
 * is written once, however often the key is read. A read that failed
 * halfway writes nothing and changes nothing: a key it missed would
 * otherwise be forgotten, and its repeats written again by the next read.
 */
#ifndef EBPFJAIL_DENIALS_H
#define EBPFJAIL_DENIALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "ebpfjail.h"

struct denial_entry {
	struct denial_key key;
	struct denial_tally tally; /* as read; first_ns tells a key evicted and
				      inserted again (nothing written yet) */
	uint64_t written;          /* repeats written, this read's included */
	uint64_t fresh;            /* repeats this read is to write */
};

struct denial_book {
	struct denial_entry *last; /* the last complete read's keys with
				      repeats, sorted by key */
	size_t n_last;
	struct denial_entry *next; /* this read's, as they come */
	size_t n_next;
	bool overflow;             /* this read brought more than fits */
	/* Per reason: every count record's count, and every lost record's,
	 * summed; and the lost records' total (what status shows). */
	uint64_t repeats_written[REASON_COUNT];
	uint64_t lost_written[REASON_COUNT];
	uint64_t lost_total;
};

/**
 * denial_book_begin() - start a read of the map
 * Return: 0, or -ENOMEM.
 */
int denial_book_begin(struct denial_book *b);

/** denial_book_add() - one tally as read from the map */
void denial_book_add(struct denial_book *b, const struct denial_key *k,
		     const struct denial_tally *t);

/**
 * denial_book_end() - the read is over
 * @complete: every key of the map was read (no error on the way)
 * Return: how many entries b->last holds now, each with the repeats it is
 * to write in .fresh (0: none); 0 when the read was incomplete or brought
 * more keys than the book holds (then nothing is written and the book is
 * as before; the repeats are written by a later read, or found lost).
 */
size_t denial_book_end(struct denial_book *b, bool complete);

/**
 * denial_book_lost() - the denials of @reason no event or count record
 * will ever show, not yet written in a lost record
 * @denied: every denial of @reason, as the counters say (read before the
 *          map)
 * @events: those that went to the ring buffer (read with @denied)
 * While the agent runs this is at most the truth (ebpfjail.h says why);
 * once it is gone and the map was read after it, exact.
 * Return: how many to write in a lost record now (usually 0).
 */
uint64_t denial_book_lost(struct denial_book *b, unsigned int reason, uint64_t denied,
			  uint64_t events);

/** denial_book_free() - free what the book holds; it can be begun again */
void denial_book_free(struct denial_book *b);

#endif /* EBPFJAIL_DENIALS_H */
