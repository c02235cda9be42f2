// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* landlock.c - Landlock scopes for the agent: its signals and abstract
 * Unix sockets stay inside the jail
 *
 * A layer under the PID and network namespaces (docs/DESIGN.md,
 * "Processes"): were the agent to reach a process outside its domain
 * (a pidfd passed in, a namespace it should not be in), it still could not
 * signal it; an abstract socket bound outside its domain is refused even
 * in the same network namespace. Debian 12's headers predate scopes, so the
 * ABI is spelled out here as the kernel's UAPI has it.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "landlock.h"

#define RULESET_VERSION (1U << 0)            /* LANDLOCK_CREATE_RULESET_VERSION */
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET */
#define SCOPE_SIGNAL (1ULL << 1)             /* LANDLOCK_SCOPE_SIGNAL */

/* struct landlock_ruleset_attr as of ABI 6 */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

int landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, RULESET_VERSION);

	return v < 0 ? -errno : (int)v;
}

int landlock_scope_self(void)
{
	struct ruleset_attr attr = { .scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL };
	int abi = landlock_abi(), fd, err = 0;

	if (abi == -ENOSYS || abi == -EOPNOTSUPP || (abi > 0 && abi < LANDLOCK_ABI_SCOPES))
		return -EOPNOTSUPP;
	if (abi < 0)
		return abi;
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_landlock_restrict_self, fd, 0))
		err = -errno;
	close(fd);
	return err;
}
