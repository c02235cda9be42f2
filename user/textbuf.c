// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* textbuf.c - appending formatted text to a fixed buffer, never past it */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "textbuf.h"

/* cut() - @t full: what did not fit ends in "..." if it says so */
static void cut(struct textbuf *t)
{
	t->len = t->size - 1;
	if (t->ellipsis && t->size > 4)
		memcpy(t->buf + t->size - 4, "...", 4);
}

void textbuf_put(struct textbuf *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!t->size || t->len + 1 >= t->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < t->size - t->len) {
		t->len += (size_t)n;
		return;
	}
	cut(t);
}

void textbuf_append(struct textbuf *t, const char *s, size_t n)
{
	if (!t->size || t->len + 1 >= t->size)
		return;
	if (n < t->size - t->len) {
		memcpy(t->buf + t->len, s, n);
		t->len += n;
		t->buf[t->len] = '\0';
		return;
	}
	memcpy(t->buf + t->len, s, t->size - t->len - 1);
	t->buf[t->size - 1] = '\0';
	cut(t);
}
