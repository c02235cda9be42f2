// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* unixpolicy.c - which Unix socket paths the agent may reach (pure)
 *
 * The rules for bpf/unix.bpf.c's trie. The agent's own directories are
 * prefixes: /tmp/, /dev/shm/ and /run/user/UID/ are private tmpfs mounts in
 * the agent's mount namespace, so every socket there was made inside the
 * jail (a language server's, the agent's own tmux). With share-tmp on they
 * are the host's, and the same prefixes hold: the user opted into the
 * host's sockets there (the session bus included), and those directories
 * are where they live. Each unix-socket path is one exact entry, and so
 * is each of a few host sockets that only answer lookups (lookup_sockets
 * below). Every other pathname is denied. docs/DESIGN.md, "Unix sockets", says what a
 * path string can and cannot prove.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "unixpolicy.h"

bool unixpolicy_has_dotdot(const char *path)
{
	const char *p = path;

	/* Components are what lies between slashes; ".." alone is one. */
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		if (!p[n])
			return false;
		p += n + 1;
	}
}

const char *unixpolicy_path_problem(const char *path, bool prefix)
{
	size_t len = path ? strlen(path) : 0;

	if (!len)
		return "is empty";
	if (path[0] != '/')
		return "is not absolute (a relative path is never allowed)";
	if (unixpolicy_has_dotdot(path))
		return "has a \"..\" component (always refused)";
	if (prefix) {
		if (path[len - 1] != '/')
			return "is a directory prefix without its final '/'";
		if (len > UNIX_PATH_MAX)
			return "is longer than a socket path can be (108 bytes)";
		return NULL;
	}
	if (path[len - 1] == '/')
		return "ends in '/' (a socket is not a directory)";
	if (len + 1 > UNIX_PATH_MAX)
		return "is longer than a socket path can be (107 bytes)";
	return NULL;
}

int unixpolicy_key(const struct unix_rule *r, struct unix_key *key)
{
	size_t len;

	if (unixpolicy_path_problem(r->path, r->prefix))
		return -EINVAL;
	len = strlen(r->path);
	memset(key, 0, sizeof(*key));
	memcpy(key->path, r->path, len);
	/* An exact path compares its NUL as well: the lookup key is
	 * NUL-padded, so only the path itself has a NUL at that byte. */
	key->prefixlen = (__u32)(r->prefix ? len : len + 1) * 8;
	return 0;
}

void unixpolicy_free(struct unix_policy *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free((char *)(uintptr_t)p->rules[i].path);
	free(p->rules);
	p->rules = NULL;
	p->n = 0;
}

/* add() - one rule with its own copy of @path. Return: 0 or -ENOMEM. */
static int add(struct unix_policy *p, const char *path, bool prefix)
{
	char *copy = strdup(path);

	if (!copy)
		return -ENOMEM;
	p->rules[p->n].path = copy;
	p->rules[p->n].prefix = prefix;
	p->n++;
	return 0;
}

/* Host sockets that only answer lookups, which glibc asks for on every
 * user, group or host lookup in the jail (`id`, `ls -l`, getaddrinfo):
 * refused, each would be an audit record and a suggestion to open it.
 * They do nothing for the agent it could not do with DNS and /etc. */
static const struct unix_rule lookup_sockets[] = {
	{ "/run/nscd/socket", false },                        /* nscd */
	{ "/var/run/nscd/socket", false },                    /* nscd, as glibc spells it */
	/* nss-systemd asks userdbd's multiplexer; not the directory: PID 1
	 * serves its Varlink API on another socket there (DynamicUser). */
	{ "/run/systemd/userdb/io.systemd.Multiplexer", false },
	{ "/run/systemd/resolve/io.systemd.Resolve", false }, /* nss-resolve (varlink) */
};
#define N_LOOKUP_SOCKETS (sizeof(lookup_sockets) / sizeof(lookup_sockets[0]))

int unixpolicy_build(uid_t agent_uid, const char *const *sockets,
		     size_t n_sockets, struct unix_policy *out)
{
	char runtime[48];
	size_t i;
	int err = 0;

	/* The same prefixes whether share-tmp is on or off (see above). */
	out->rules = NULL;
	out->n = 0;
	for (i = 0; i < n_sockets; i++)
		if (unixpolicy_path_problem(sockets[i], false))
			return -EINVAL;
	out->rules = calloc(3 + n_sockets + N_LOOKUP_SOCKETS, sizeof(*out->rules));
	if (!out->rules)
		return -ENOMEM;
	snprintf(runtime, sizeof(runtime), "/run/user/%lu/", (unsigned long)agent_uid);
	err = add(out, "/tmp/", true);
	if (!err)
		err = add(out, "/dev/shm/", true);
	if (!err)
		err = add(out, runtime, true);
	for (i = 0; i < n_sockets && !err; i++)
		err = add(out, sockets[i], false);
	for (i = 0; i < N_LOOKUP_SOCKETS && !err; i++)
		err = add(out, lookup_sockets[i].path, lookup_sockets[i].prefix);
	if (err)
		unixpolicy_free(out);
	return err;
}

bool unixpolicy_grants_root(const char *path)
{
	/* The daemons whose API starts a container or VM of the caller's
	 * choosing: root on the host, or (rootless) a network namespace
	 * outside the jail. By file name, wherever it lives. */
	static const char *const names[] = {
		"docker.sock",  "containerd.sock", "podman.sock",    "crio.sock",
		"libvirt-sock", "virtqemud-sock",  "buildkitd.sock",
	};
	const char *base = strrchr(path, '/'), *const *paths;
	size_t i, n;

	paths = builtin_root_sockets(&n); /* the ones masked, by path */
	for (i = 0; i < n; i++)
		if (!strcmp(path, paths[i]))
			return true;
	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(base, names[i]))
			return true;
	/* lxd and incus call theirs unix.socket, in a directory of their name. */
	return !strcmp(base, "unix.socket") && (strstr(path, "/lxd/") || strstr(path, "/incus/"));
}
