/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* agentfs.h - the agent's view of the file system: its own /proc, private
 * /tmp, /dev/shm and /run/user, masked daemon sockets, the jail's resolv.conf */
#ifndef EBPFJAIL_AGENTFS_H
#define EBPFJAIL_AGENTFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The directories the agent gets a private, empty tmpfs of (unless
 * share-tmp = on): where the host's user-level sockets live (tmux, screen
 * on some systems, ssh-agent, X11, the session bus, Wayland, rootless
 * container engines). */
#define AGENTFS_PRIVATE_DIRS { "/tmp", "/dev/shm", "/run/user" }

struct agentfs {
	uid_t uid;                    /* the agent's user, who owns /run/user/UID */
	gid_t gid;
	bool share_tmp;               /* keep the host's /tmp, /dev/shm, /run/user */
	bool rootless;                /* in the jail's user namespace: the host's
					 mounts are locked there */
	bool own_cgroup;              /* rootless: the agent's cgroup namespace is
					 rooted at a cgroup of the jail's own */
	const char *resolv_conf;      /* bound over /etc/resolv.conf, or NULL */
	const char *denials;          /* bound read-only at JAIL_DENIALS_VIEW (rootless,
					 without it: JAIL_DENIALS_VIEW_USER), or NULL */
	const char *readonly_dir;     /* bound read-only on itself, its ancestors
					 kept in place (agentfs.c, pin_ancestors()),
					 or NULL */
	char *const *unix_sockets;    /* unix-socket paths (absolute) */
	size_t n_unix_sockets;
	const char *const *masks;     /* sockets of daemons that grant root */
	size_t n_masks;
};

/**
 * agentfs_private_dir() - the private directory that holds @path (pure)
 * @path: an absolute path
 * Return: the directory, one of AGENTFS_PRIVATE_DIRS, or NULL.
 */
const char *agentfs_private_dir(const char *path);

/**
 * agentfs_setup() - give the calling process (the jail's init, in the
 * agent's new PID namespace) its own mount namespace as the agent sees it:
 * a new /proc with its kernel knobs read-only, the private directories
 * (with the current directory and each unix-socket that lies in them
 * carried over), each existing socket of @fs->masks covered, the jail's
 * resolv.conf
 * Return: 0 or -errno (logged, naming what failed).
 */
int agentfs_setup(const struct agentfs *fs);

#endif /* EBPFJAIL_AGENTFS_H */
