/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* unixpolicy.h - which Unix socket paths the agent may reach (pure) */
#ifndef EBPFJAIL_UNIXPOLICY_H
#define EBPFJAIL_UNIXPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "ebpfjail.h"

/* One entry of unix_policy (bpf/ebpfjail.h, "Unix sockets: unix_policy"). */
struct unix_rule {
	const char *path; /* absolute, no ".." component */
	bool prefix;      /* a directory ("/tmp/", ending in '/'): everything
			     under it; else this socket path alone */
};

/* The rules of one jail; the paths are the policy's own copies. */
struct unix_policy {
	struct unix_rule *rules;
	size_t n;
};

/**
 * unixpolicy_path_problem() - what keeps @path from being a rule
 * @prefix: judged as a directory prefix, or as an exact socket path
 *
 * A rule must be absolute (a relative path is never allowed: the kernel
 * resolves it against a working directory the hook does not know), have no
 * ".." component (the hook refuses those whatever the rules say), and fit
 * sun_path: an exact path with its NUL (at most UNIX_PATH_MAX - 1 bytes),
 * a prefix ending in '/'. An exact path may not end in '/'.
 * Return: NULL when it may be a rule, else why not (a phrase for "PATH: ...").
 */
const char *unixpolicy_path_problem(const char *path, bool prefix);

/**
 * unixpolicy_has_dotdot() - whether @path has a ".." component, as the
 * hook judges it (the same rule on both sides)
 * Return: true if it has one.
 */
bool unixpolicy_has_dotdot(const char *path);

/**
 * unixpolicy_key() - the trie key of @r: a prefix compares strlen * 8 bits,
 * an exact path its NUL too, so "/run/a.sock" does not match "/run/a.sockX"
 * Return: 0, or -EINVAL when unixpolicy_path_problem() names a problem.
 */
int unixpolicy_key(const struct unix_rule *r, struct unix_key *key);

/**
 * unixpolicy_build() - the jail's Unix socket rules
 * @agent_uid: whose runtime directory is the agent's (/run/user/UID/)
 * @sockets: unix-socket paths (absolute), each an exact entry; may be NULL
 *           when @n_sockets is 0
 * @out: the rules; unixpolicy_free() them
 *
 * The prefixes "/tmp/", "/dev/shm/" and "/run/user/UID/", then @sockets.
 * Return: 0, -EINVAL for a socket path unixpolicy_path_problem() refuses
 * (@out is then empty), or -ENOMEM.
 */
int unixpolicy_build(uid_t agent_uid, const char *const *sockets,
		     size_t n_sockets, struct unix_policy *out);

/** unixpolicy_free() - release @p's rules; an empty policy is fine */
void unixpolicy_free(struct unix_policy *p);

/**
 * unixpolicy_grants_root() - a socket of a host daemon that hands its
 * caller root, or (rootless) containers outside the jail (docker,
 * containerd, podman, libvirt, lxd, incus, cri-o, buildkit): a unix-socket
 * line may not name one, and the exit summary never suggests allowing one,
 * as it never suggests a cloud metadata address. Judged by the paths the
 * jail masks (builtin_root_sockets()) and by the socket's file name and
 * directory, so /run/user/1000/docker.sock counts too.
 * Return: whether @path is such a socket.
 */
bool unixpolicy_grants_root(const char *path);

#endif /* EBPFJAIL_UNIXPOLICY_H */
