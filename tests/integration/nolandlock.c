// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nolandlock.c - run a command as on a kernel without Landlock (before
 * Linux 5.13, or Debian 12's 6.1 without its scopes): a seccomp filter
 * makes landlock_create_ruleset() fail with ENOSYS for the command and
 * everything it starts, so what ebpfjail protects on such a kernel is
 * tested here, on one that has Landlock, without Landlock's help.
 *
 * Usage: nolandlock COMMAND [ARG...]  (root, or no_new_privs is set)
 *        nolandlock --check           prints "landlock ABI N" or
 *                                     "landlock errno NAME"
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#ifndef __x86_64__
#error "the filter checks x86_64's system call numbers"
#endif

static int check(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (abi < 0)
		printf("landlock errno %s\n", errno == ENOSYS ? "ENOSYS" : strerror(errno));
	else
		printf("landlock ABI %ld\n", abi);
	return 0;
}

int main(int argc, char **argv)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	if (argc == 2 && !strcmp(argv[1], "--check"))
		return check();
	if (argc < 2) {
		fprintf(stderr, "usage: nolandlock COMMAND [ARG...] | --check\n");
		return 2;
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("nolandlock: installing the filter");
		return 125;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "nolandlock: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
