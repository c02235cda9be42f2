// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* benchutil.c - what the C benchmarks share: the clock, the ROW format */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "benchutil.h"

double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

void bench_row(const char *name, const char *unit, double value, double baseline,
	       const char *target)
{
	printf("ROW\t%s\t%s\t%.3f\t%.3f\t%s\n", name, unit, value, baseline, target);
	fflush(stdout);
}

long bench_count(const char *what, const char *text, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max) {
		fprintf(stderr, "bench: %s must be a number from %ld to %ld, not '%s'\n", what, min,
			max, text);
		return -1;
	}
	return v;
}
