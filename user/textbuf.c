// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* textbuf.c - appending formatted text to a fixed buffer, never past it */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "textbuf.h"

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
	t->len = t->size - 1;
	if (t->ellipsis && t->size > 4)
		memcpy(t->buf + t->size - 4, "...", 4);
}
