/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* landlock.h - Landlock scopes for the agent: its signals and abstract
 * Unix sockets stay inside the jail */
#ifndef EBPFJAIL_LANDLOCK_H
#define EBPFJAIL_LANDLOCK_H

/* The first Landlock ABI with scopes (Linux 6.12): signals and abstract
 * Unix sockets. Before it, the agent relies on its PID and network
 * namespaces alone for those. */
#define LANDLOCK_ABI_SCOPES 6

/**
 * landlock_abi() - the kernel's Landlock ABI version
 * Return: 1 or more; -EOPNOTSUPP when Landlock is built in but disabled at
 * boot, -ENOSYS when the kernel has none.
 */
int landlock_abi(void);

/**
 * landlock_scope_self() - from now on, the calling process and everything
 * it starts can neither signal a process nor connect to an abstract Unix
 * socket outside its Landlock domain (no file system or network rules:
 * those would forbid the mounts bubblewrap inside the jail makes)
 * Needs no_new_privs. Return: 0, -EOPNOTSUPP when the kernel's ABI is
 * older than LANDLOCK_ABI_SCOPES or Landlock is off, or -errno.
 */
int landlock_scope_self(void);

#endif /* EBPFJAIL_LANDLOCK_H */
