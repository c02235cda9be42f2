/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* log.h - messages to stderr with one "ebpfjail: " prefix and a verbosity */
#ifndef EBPFJAIL_LOG_H
#define EBPFJAIL_LOG_H

#include <stdarg.h>

enum log_level {
	LOG_ERR = 0,
	LOG_WARN,
	LOG_INFO,
	LOG_DEBUG,
};

void log_set_level(enum log_level level);
enum log_level log_get_level(void);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * log_err() - print an error and return the error code, in one step
 * @err: the value to return (a negative errno, or an exit status)
 *
 * Return: @err, so that callers write `return log_err(-errno, "...")`.
 */
int log_err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif /* EBPFJAIL_LOG_H */
