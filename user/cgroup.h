/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* cgroup.h - find the cgroup v2 hierarchy; make, fill and destroy jail cgroups */
#ifndef EBPFJAIL_CGROUP_H
#define EBPFJAIL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/**
 * cgroup_parse_mountinfo() - the mount point of the first cgroup2 mount
 * @mountinfo: a /proc/PID/mountinfo stream
 * @buf: result, with the kernel's \040-style escapes decoded
 *
 * Return: 0, -ENOENT when no cgroup2 file system is mounted, -ENAMETOOLONG.
 */
int cgroup_parse_mountinfo(FILE *mountinfo, char *buf, size_t size);

/**
 * cgroup_v2_root() - where cgroup v2 is mounted in this mount namespace
 *
 * Never assumed: hybrid hosts mount it at /sys/fs/cgroup/unified, pure v2
 * hosts at /sys/fs/cgroup, containers anywhere.
 * Return: 0 or -errno, as cgroup_parse_mountinfo().
 */
int cgroup_v2_root(char *buf, size_t size);


#define CGROUP_JAIL_PARENT "ebpfjail"

/**
 * cgroup_jail_create() - make ROOT/ebpfjail/ID for one jail
 * @path: result, the cgroup's directory
 * @fd: result, an O_DIRECTORY fd of it (for attaching programs)
 * Return: 0 or -errno (logged).
 */
int cgroup_jail_create(const char *root, const char *id, char *path, size_t size, int *fd);

/** cgroup_add() - move @pid into the cgroup. Return: 0 or -errno. */
int cgroup_add(int cg_fd, pid_t pid);

/**
 * cgroup_kill() - SIGKILL every process in the cgroup (cgroup.kill where the
 * kernel has it, so a forking process cannot slip out), without waiting
 * @path: the cgroup's directory
 * Return: nothing; what survives is found by cgroup_destroy(), which retries.
 */
void cgroup_kill(const char *path);

/**
 * cgroup_freeze() - freeze (cgroup.freeze, Linux 5.2) or thaw every process
 * in the cgroup, without waiting for the kernel to finish
 * Return: 0 or -errno.
 */
int cgroup_freeze(const char *path, bool frozen);

/**
 * cgroup_destroy() - kill every process in the cgroup, wait (bounded) until
 * it is empty, remove it
 * Return: 0 or -errno (logged: a cgroup that will not go is a leftover).
 */
int cgroup_destroy(const char *path);

#endif /* EBPFJAIL_CGROUP_H */
