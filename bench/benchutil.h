/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* benchutil.h - what the C benchmarks share: the clock, the ROW format */
#ifndef EBPFJAIL_BENCHUTIL_H
#define EBPFJAIL_BENCHUTIL_H

/** bench_now_ns() - CLOCK_MONOTONIC, in ns */
double bench_now_ns(void);

/**
 * bench_row() - "ROW<TAB>name<TAB>unit<TAB>value<TAB>baseline<TAB>target",
 * flushed: bench/run.sh turns these into the table and the JSON document
 */
void bench_row(const char *name, const char *unit, double value, double baseline,
	       const char *target);

/**
 * bench_count() - @text as a count within [@min, @max], or -1 with a line
 * on stderr naming it (bad input changes nothing: the benchmark stops)
 */
long bench_count(const char *what, const char *text, long min, long max);

#endif /* EBPFJAIL_BENCHUTIL_H */
