// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* benchutil.c - what the C benchmarks share: the clock, the FIG format, arguments */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchutil.h"

double bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

void bench_figure(const char *key, double value)
{
	printf("FIG\t%s\t%.3f\n", key, value);
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

int bench_order(const char *text, const char *const names[], int n, int order[])
{
	bool seen[16] = { false };
	const char *p = text;
	int count = 0, v;

	if (n > 16)
		return -1;
	while (*p) {
		size_t len = strcspn(p, ",");

		for (v = 0; v < n; v++)
			if (strlen(names[v]) == len && !strncmp(p, names[v], len))
				break;
		if (v == n || seen[v]) {
			fprintf(stderr, "bench: '%.*s' in '%s' is not a variant, or a second time\n",
				(int)len, p, text);
			return -1;
		}
		seen[v] = true;
		order[count++] = v;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!count)
		fprintf(stderr, "bench: no variants in '%s'\n", text);
	return count ? count : -1;
}
