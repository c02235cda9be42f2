/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* loader.h - load the jail's BPF programs, fill the policy, attach them */
#ifndef EBPFJAIL_LOADER_H
#define EBPFJAIL_LOADER_H

#include <stddef.h>
#include <linux/types.h>

#include "ebpfjail.h"

/* One entry of the policy trie (see bpf/ebpfjail.h). */
struct policy_rule {
	struct policy_key key;
	struct policy_value value;
};

struct jail_bpf;

/**
 * loader_open() - open and load the BPF programs (verifier included)
 * @out: the loaded programs; nothing is attached yet
 *
 * The policy slot is empty after this: the programs deny everything until
 * loader_set_policy() has run (fail closed).
 * Return: 0 or -errno.
 */
int loader_open(struct jail_bpf **out);

/**
 * loader_set_policy() - replace the whole policy, atomically
 * @rules: the complete new policy
 * @n: how many
 *
 * Builds a new trie beside the active one and swaps it in with one map
 * update, so no decision ever sees a half-filled policy.
 * Return: 0 or -errno (the old policy stays in force).
 */
int loader_set_policy(struct jail_bpf *jail, const struct policy_rule *rules, size_t n);

/**
 * loader_attach_cgroup() - attach the socket hooks to a cgroup
 * @cgroup_fd: an open directory fd of a cgroup v2 cgroup
 * Return: 0 or -errno; on failure nothing stays attached.
 */
int loader_attach_cgroup(struct jail_bpf *jail, int cgroup_fd);

/** loader_close() - detach everything and free it; NULL is fine */
void loader_close(struct jail_bpf *jail);

#endif /* EBPFJAIL_LOADER_H */
