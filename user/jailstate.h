/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* jailstate.h - /run/ebpfjail/ID: what a running jail leaves for others */
#ifndef EBPFJAIL_JAILSTATE_H
#define EBPFJAIL_JAILSTATE_H

#include <stddef.h>
#include <sys/types.h>

#define JAILSTATE_DIR "/run/ebpfjail"
#define JAIL_ID_LEN 8

/** jailstate_new_id() - a random id of JAIL_ID_LEN hex digits */
void jailstate_new_id(char id[JAIL_ID_LEN + 1]);

/**
 * jailstate_create() - /run/ebpfjail/ID, root-only, naming its supervisor
 * (pid and start time, so a recycled pid is not mistaken for it)
 * Return: 0 or -errno.
 */
int jailstate_create(const char *id, pid_t supervisor, char *dir, size_t size);

/** jailstate_set_cgroup() - record the jail's cgroup, for cleanup */
int jailstate_set_cgroup(const char *dir, const char *cgroup_path);

/** jailstate_remove() - remove the directory and what is in it */
void jailstate_remove(const char *dir);

/**
 * jailstate_cleanup_dead() - remove what jails whose supervisor died left:
 * their cgroups (processes killed) and state. Also cgroups under
 * ROOT/ebpfjail that no state names (a run killed between the two).
 */
void jailstate_cleanup_dead(const char *cgroup_root);

#endif /* EBPFJAIL_JAILSTATE_H */
