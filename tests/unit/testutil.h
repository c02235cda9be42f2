/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* testutil.h - what the kernel tests share: a throwaway cgroup */
#ifndef EBPFJAIL_TESTUTIL_H
#define EBPFJAIL_TESTUTIL_H

/**
 * test_cgroup_open() - make a uniquely named cgroup for this test process
 * @tag: part of the name, to tell suites apart in leftovers
 *
 * Its removal is registered with atexit(), so it goes away even when an
 * assertion ends the test early (Criterion skips .fini after a failed .init).
 * Return: an O_DIRECTORY fd of the cgroup; asserts on failure.
 */
int test_cgroup_open(const char *tag);

/** test_cgroup_close() - close the fd and remove the cgroup now */
void test_cgroup_close(void);

#endif /* EBPFJAIL_TESTUTIL_H */
