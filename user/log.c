// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* log.c - messages to stderr with one "ebpfjail: " prefix and a verbosity */
#include <errno.h>
#include <stdio.h>

#include "log.h"

static enum log_level current_level = LOG_INFO;

void log_set_level(enum log_level level)
{
	current_level = level;
}

enum log_level log_get_level(void)
{
	return current_level;
}

static void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	static const char *const prefix[] = {
		[LOG_ERR] = "error: ",
		[LOG_WARN] = "warning: ",
		[LOG_INFO] = "",
		[LOG_DEBUG] = "debug: ",
	};
	int saved_errno = errno;

	if (level > current_level)
		return;
	fprintf(stderr, "ebpfjail: %s", prefix[level]);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	errno = saved_errno;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

int log_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_ERR, fmt, ap);
	va_end(ap);
	return err;
}
