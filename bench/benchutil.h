/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* benchutil.h - what the C benchmarks share: the clock, the FIG format, arguments */
#ifndef EBPFJAIL_BENCHUTIL_H
#define EBPFJAIL_BENCHUTIL_H

/** bench_now_ns() - CLOCK_MONOTONIC, in ns */
double bench_now_ns(void);

/**
 * bench_cpu_ns() - the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID),
 * in ns: what a loop of system calls costs, without the time slices other
 * jobs on a shared machine took meanwhile (which the wall clock counts, and
 * which land on one variant and not the next). It counts the softirq work
 * done on the thread's CPU while it runs (this kernel has no separate IRQ
 * time accounting): a loopback or veth packet's receive path.
 */
double bench_cpu_ns(void);

/**
 * bench_figure() - "FIG<TAB>key<TAB>value", flushed: one raw figure of a
 * round, which a script under bench/ turns into rows (bench/lib.sh judges
 * them: the C benchmarks measure, they do not decide)
 */
void bench_figure(const char *key, double value);

/**
 * bench_count() - @text as a count within [@min, @max], or -1 with a line
 * on stderr naming it (bad input changes nothing: the benchmark stops)
 */
long bench_count(const char *what, const char *text, long min, long max);

/**
 * bench_order() - @text, a comma-separated list of variant names from
 * @names[0..@n-1] ("large,default,bare"), as their indices in @order
 * (room for @n): the order a round runs them in, which the script
 * alternates from round to round. Each name at most once.
 * Return: how many, or -1 with a line on stderr.
 */
int bench_order(const char *text, const char *const names[], int n, int order[]);

#endif /* EBPFJAIL_BENCHUTIL_H */
