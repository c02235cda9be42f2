// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_agentfs.c - which paths lie in the agent's private directories (the
 * mounts themselves are the integration suite's, test_agentfs.sh) */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "agentfs.h"

/* Arrays, not pointers: Criterion copies parameters into the process that
 * runs the test. */
struct case_ {
	char path[48];
	char dir[16]; /* "": not private */
};

ParameterizedTestParameters(agentfs, private_dir)
{
	static struct case_ cases[] = {
		{ "/tmp", "/tmp" },
		{ "/tmp/", "/tmp" },
		{ "/tmp/ssh-XXXX/agent.1", "/tmp" },
		{ "/tmpfoo/sock", "" },
		{ "/dev/shm/x", "/dev/shm" },
		{ "/dev/shmem", "" },
		{ "/run/user/1000/bus", "/run/user" },
		{ "/run/user", "/run/user" },
		{ "/run/users/1000", "" },
		{ "/run/docker.sock", "" },
		{ "/var/tmp/x", "" },
		{ "/", "" },
	};

	return cr_make_param_array(struct case_, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct case_ *c, agentfs, private_dir)
{
	const char *got = agentfs_private_dir(c->path);

	if (c->dir[0])
		cr_expect(got && !strcmp(got, c->dir), "%s: got %s, want %s", c->path,
			  got ? got : "none", c->dir);
	else
		cr_expect_null(got, "%s: got %s, want none", c->path, got);
}
