/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* textbuf.h - appending formatted text to a fixed buffer, never past it */
#ifndef EBPFJAIL_TEXTBUF_H
#define EBPFJAIL_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>

struct textbuf {
	char *buf;
	size_t size, len; /* buf always NUL-terminated when size > 0 */
	bool ellipsis;    /* text that does not fit ends in "..." */
};

/** textbuf_put() - append printf-style; what does not fit is cut off */
void textbuf_put(struct textbuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** textbuf_append() - append @n bytes of @s as they are, cut as
 * textbuf_put() cuts: for text copied a character at a time, where a
 * format would cost more than the copy */
void textbuf_append(struct textbuf *t, const char *s, size_t n);

/* textbuf_literal() - textbuf_append() of a string literal, its length
 * counted by the compiler ("" makes anything else an error) */
#define textbuf_literal(t, lit) textbuf_append((t), "" lit, sizeof(lit) - 1)

#endif /* EBPFJAIL_TEXTBUF_H */
