/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* cgroup.h - find the cgroup v2 hierarchy; make, fill and destroy jail cgroups */
#ifndef EBPFJAIL_CGROUP_H
#define EBPFJAIL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/**
 * cgroup_parse_mountinfo() - the mount point of the next cgroup2 mount
 * @mountinfo: a /proc/PID/mountinfo stream (read up to that mount's line:
 *	call again for the one after)
 * @buf: result, with the kernel's \040-style escapes decoded
 * @mnt_root: result unless NULL: the mount's root within the hierarchy
 *	(field 4; "/" unless a subtree was bind-mounted)
 *
 * Return: 0, -ENOENT when there is no (further) cgroup2 mount, -ENAMETOOLONG.
 */
int cgroup_parse_mountinfo(FILE *mountinfo, char *buf, size_t size, char *mnt_root, size_t root_size);

/**
 * cgroup_v2_root() - where cgroup v2 is mounted in this mount namespace
 *
 * Never assumed: hybrid hosts mount it at /sys/fs/cgroup/unified, pure v2
 * hosts at /sys/fs/cgroup, containers anywhere.
 * Return: 0 or -errno, as cgroup_parse_mountinfo().
 */
int cgroup_v2_root(char *buf, size_t size);


/**
 * cgroup_parse_self() - our cgroup v2 path, from a /proc/PID/cgroup stream
 * (its "0::PATH" line; pure)
 * Return: 0, -ENOENT without one (a v1-only host), -ENAMETOOLONG.
 */
int cgroup_parse_self(FILE *proc_cgroup, char *buf, size_t size);

/**
 * cgroup_own_dir() - the directory of cgroup @own in one cgroup2 mount (pure)
 * @mountpoint, @mnt_root: the mount, as cgroup_parse_mountinfo() gives it
 *
 * Return: 0, -ENOENT when the mount does not hold that cgroup (a
 * bind-mounted subtree elsewhere, a mount of another cgroup namespace),
 * -ENAMETOOLONG.
 */
int cgroup_own_dir(const char *own, const char *mountpoint, const char *mnt_root, char *buf,
		   size_t size);

/**
 * cgroup_self() - this process's own cgroup2 directory, where a mount shows
 * it (cgroup_own() without the climb to a cgroup root owns)
 * Return: 0 or -errno.
 */
int cgroup_self(char *buf, size_t size);

/**
 * cgroup_own() - where this process's own cgroup is, in the cgroup2 mount
 *
 * Jails live under it, never at the mount's root: in a container that
 * sees the host's tree (Docker's --cgroupns host), a jail stays inside its
 * container's cgroup and resource limits. Return: 0 or -errno.
 */
int cgroup_own(char *buf, size_t size);

#define CGROUP_JAIL_PARENT "ebpfjail"

/** cgroup_jail_path() - BASE/ebpfjail/ID. Return: 0 or -ENAMETOOLONG. */
int cgroup_jail_path(const char *base, const char *id, char *path, size_t size);

/**
 * cgroup_jail_create() - make PATH (from cgroup_jail_path()) and its parent
 * @fd: result, an O_DIRECTORY fd of it (for attaching programs)
 * Return: 0 or -errno (logged).
 */
int cgroup_jail_create(const char *path, int *fd);

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
