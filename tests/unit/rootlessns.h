/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* rootlessns.h - what a rootless jail runs in, for tests and benchmarks:
 * uid 65534, then uid 0 of a user and network namespace of its own
 * (plain C, no Criterion: bench-nft links it too) */
#ifndef EBPFJAIL_ROOTLESSNS_H
#define EBPFJAIL_ROOTLESSNS_H

/**
 * rootless_netns() - in a child that may change its credentials for good:
 * become uid and gid 65534, then make a user and a network namespace and
 * map 0 in it to 65534; IPv6 off (as in the jail: its neighbour discovery
 * would be denials), lo up
 * Return: 0, or -1 (errno says why).
 */
int rootless_netns(void);

/** rootless_write() - @text into the file @path. Return: 0, or -1. */
int rootless_write(const char *path, const char *text);

#endif /* EBPFJAIL_ROOTLESSNS_H */
