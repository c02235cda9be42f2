/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* builtin.h - the built-in blocked prefixes, the host sockets that grant root,
 * and the names of reason codes */
#ifndef EBPFJAIL_BUILTIN_H
#define EBPFJAIL_BUILTIN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "ebpfjail.h"

struct builtin_block {
	uint32_t host_addr; /* HOST byte order, so the table can be constant */
	uint8_t prefixlen;
	enum jail_reason reason;
	const char *source; /* what it is, and who documents it */
};

extern const struct builtin_block builtin_blocks[];
extern const size_t builtin_blocks_count;

/**
 * builtin_match() - the most specific built-in block containing @addr
 * @addr: network byte order
 * Return: the entry, or NULL when no built-in block applies.
 */
const struct builtin_block *builtin_match(uint32_t addr);

/**
 * builtin_root_sockets() - the usual paths of the Unix sockets of host daemons
 * that grant root to whoever can talk to them (docker, containerd, podman,
 * libvirt, lxd, incus, CRI-O, BuildKit), or act for their caller outside any
 * jail (systemd's private and Varlink sockets, the system bus), each as an
 * absolute path in the canonical form a unix-socket value must have (no
 * ".", "..", "//" or trailing "/"): masked in every jail
 * @n: set to the number of paths
 * Return: the paths, a constant array of @n.
 */
const char *const *builtin_root_sockets(size_t *n);

/**
 * builtin_root_groups() - the groups the packages of those daemons make for
 * access to their sockets ("docker", ...)
 * @n: set to the number of names
 * Return: the names, a constant array of @n.
 */
const char *const *builtin_root_groups(size_t *n);

/** reason_name() - the audit log's name of a reason ("private"), or NULL */
const char *reason_name(unsigned int reason);

/** hook_name() - the audit log's name of a hook ("connect4"), or NULL */
const char *hook_name(unsigned int hook);

#endif /* EBPFJAIL_BUILTIN_H */
