// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_unixpolicy.c - the Unix socket rules: which paths, which keys */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "unixpolicy.h"

struct path_case {
	char path[128];
	bool prefix;
	bool ok;
};

ParameterizedTestParameters(unixpolicy, path_problem)
{
	static struct path_case cases[] = {
		{ "/tmp/", true, true },
		{ "/run/user/1000/", true, true },
		{ "/", true, true },
		{ "/tmp", true, false },           /* a prefix ends in '/' */
		{ "tmp/", true, false },           /* relative */
		{ "", true, false },
		{ "/tmp/../run/", true, false },   /* ".." */
		{ "/run/ssh-agent.sock", false, true },
		{ "/run/a/./b.sock", false, true }, /* "." climbs nowhere */
		{ "/run/..b/c.sock", false, true }, /* "..b" is a name */
		{ "/run/b../c.sock", false, true },
		{ "/run/.../c.sock", false, true },
		{ "/run/../c.sock", false, false },
		{ "/run/c.sock/..", false, false },
		{ "/..", false, false },
		{ "run/c.sock", false, false },
		{ "./c.sock", false, false },
		{ "/run/c.sock/", false, false },  /* a socket is no directory */
		{ "", false, false },
	};

	return cr_make_param_array(struct path_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct path_case *c, unixpolicy, path_problem)
{
	const char *why = unixpolicy_path_problem(c->path, c->prefix);

	cr_expect_eq(why == NULL, c->ok, "\"%s\" (%s): %s", c->path, c->prefix ? "prefix" : "exact",
		     why ? why : "fine");
}

Test(unixpolicy, lengths)
{
	char p[UNIX_PATH_MAX + 2];

	memset(p, 'a', sizeof(p));
	p[0] = '/';
	/* An exact path needs room for its NUL: 107 bytes at most. */
	p[UNIX_PATH_MAX - 1] = '\0';
	cr_expect_null(unixpolicy_path_problem(p, false), "107 bytes");
	p[UNIX_PATH_MAX - 1] = 'a';
	p[UNIX_PATH_MAX] = '\0';
	cr_expect_not_null(unixpolicy_path_problem(p, false), "108 bytes");
	/* A prefix compares no NUL: 108 bytes fit. */
	p[UNIX_PATH_MAX - 1] = '/';
	cr_expect_null(unixpolicy_path_problem(p, true), "108-byte prefix");
	p[UNIX_PATH_MAX] = '/';
	p[UNIX_PATH_MAX + 1] = '\0';
	cr_expect_not_null(unixpolicy_path_problem(p, true), "109-byte prefix");
}

Test(unixpolicy, keys)
{
	struct unix_rule prefix = { "/tmp/", true }, exact = { "/run/a.sock", false };
	struct unix_rule bad = { "/run/../a.sock", false };
	struct unix_key k;
	size_t i;

	cr_assert_eq(unixpolicy_key(&prefix, &k), 0);
	cr_expect_eq(k.prefixlen, 5 * 8, "a prefix compares its bytes");
	cr_expect_eq(memcmp(k.path, "/tmp/", 5), 0);
	for (i = 5; i < UNIX_PATH_MAX; i++)
		cr_assert_eq(k.path[i], 0, "NUL-padded at %zu", i);
	cr_assert_eq(unixpolicy_key(&exact, &k), 0);
	cr_expect_eq(k.prefixlen, (11 + 1) * 8, "an exact path compares its NUL too");
	cr_expect_str_eq(k.path, "/run/a.sock");
	cr_expect_eq(unixpolicy_key(&bad, &k), -EINVAL);
}

Test(unixpolicy, build)
{
	const char *sockets[] = { "/home/u/.ssh/agent.sock", "/run/postgresql/.s.PGSQL.5432" };
	struct unix_policy up;
	size_t i;

	cr_assert_eq(unixpolicy_build(1000, sockets, 2, &up), 0);
	cr_assert_eq(up.n, 9, "3 directories, 2 unix-socket paths, 4 lookup sockets");
	cr_expect_str_eq(up.rules[0].path, "/tmp/");
	cr_expect_str_eq(up.rules[1].path, "/dev/shm/");
	cr_expect_str_eq(up.rules[2].path, "/run/user/1000/");
	for (i = 0; i < 3; i++)
		cr_expect(up.rules[i].prefix, "rule %zu is a prefix", i);
	cr_expect_str_eq(up.rules[3].path, sockets[0]);
	cr_expect_str_eq(up.rules[4].path, sockets[1]);
	cr_expect(!up.rules[3].prefix && !up.rules[4].prefix, "unix-socket paths are exact");
	cr_expect_str_eq(up.rules[5].path, "/run/nscd/socket");
	cr_expect_str_eq(up.rules[7].path, "/run/systemd/userdb/io.systemd.Multiplexer");
	cr_expect(!up.rules[7].prefix, "userdb's multiplexer alone, not its directory");
	cr_expect_neq(up.rules[3].path, sockets[0], "the policy's own copy");
	for (i = 0; i < up.n; i++)
		cr_expect_null(unixpolicy_path_problem(up.rules[i].path, up.rules[i].prefix));
	unixpolicy_free(&up);
	cr_expect_eq(up.n, 0);

	/* share-tmp: the host's directories, under the same prefixes. */
	cr_assert_eq(unixpolicy_build(0, NULL, 0, &up), 0);
	cr_assert_eq(up.n, 7);
	cr_expect_str_eq(up.rules[2].path, "/run/user/0/");
	unixpolicy_free(&up);
}

Test(unixpolicy, build_refuses_bad_sockets)
{
	const char *relative[] = { "/run/ok.sock", "agent.sock" };
	const char *dotdot[] = { "/tmp/../run/docker.sock" };
	struct unix_policy up = { 0 };

	cr_expect_eq(unixpolicy_build(1000, relative, 2, &up), -EINVAL);
	cr_expect_eq(up.n, 0);
	cr_expect_null(up.rules);
	cr_expect_eq(unixpolicy_build(1000, dotdot, 1, &up), -EINVAL);
	cr_expect_eq(up.n, 0);
}

Test(unixpolicy, grants_root)
{
	cr_expect(unixpolicy_grants_root("/run/docker.sock"));
	cr_expect(unixpolicy_grants_root("/var/run/docker.sock"));
	cr_expect(unixpolicy_grants_root("/run/user/1000/docker.sock"));
	cr_expect(unixpolicy_grants_root("/run/containerd/containerd.sock"));
	cr_expect(unixpolicy_grants_root("/run/podman/podman.sock"));
	cr_expect(unixpolicy_grants_root("/var/run/libvirt/libvirt-sock"));
	cr_expect(unixpolicy_grants_root("/var/snap/lxd/common/lxd/unix.socket"));
	cr_expect(unixpolicy_grants_root("/var/lib/incus/unix.socket"));
	cr_expect(!unixpolicy_grants_root("/run/user/1000/ssh-agent.sock"));
	cr_expect(!unixpolicy_grants_root("/run/postgresql/.s.PGSQL.5432"));
	cr_expect(!unixpolicy_grants_root("/tmp/unix.socket"));
	cr_expect(!unixpolicy_grants_root("/run/mydocker.sock"));
}
