// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_loader.c - the BPF programs on the real kernel: load, fill, attach, deny
 *
 * Needs root (BPF, cgroups, namespaces); skipped with the reason otherwise.
 * Each test makes its own cgroup and the jail's network namespace (whose
 * cookie the programs are loaded with); its probe children run there. It
 * has no routes, so no packet can leave the machine even if a verdict were
 * wrong: a connect is either refused by the hook (EPERM) or fails for lack
 * of a route (ENETUNREACH; loopback too, as lo is down). Each is asserted
 * exactly: "not EPERM" would also pass on EBADF or a timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <criterion/criterion.h>

#include "cgroup.h"
#include "loader.h"
#include "netns.h"
#include "testutil.h"

static int cg_fd = -1;
static struct jail_bpf *jail;
static struct netns ns = { .holder = -1, .fd = -1, .host_fd = -1, .user_fd = -1 };

static void setup(void)
{
	struct loader_options opts = { 0 };

	if (geteuid() != 0)
		cr_skip_test("needs root: loads BPF programs and creates cgroups");
	cr_assert_eq(netns_create(&ns), 0);
	opts.netns_cookie = ns.cookie;
	cr_assert_eq(loader_open(&opts, &jail), 0, "the kernel refused the BPF programs");
	cg_fd = test_cgroup_open("loader");
}

static void teardown(void)
{
	loader_close(jail);
	jail = NULL;
	test_cgroup_close();
	cg_fd = -1;
	netns_close(&ns);
}

static struct policy_rule rule(const char *addr, unsigned int prefixlen, uint16_t port,
			       enum policy_action action, enum jail_reason reason)
{
	struct policy_rule r = {
		.key = { .prefixlen = prefixlen, .addr = inet_addr(addr), .port = htons(port) },
		.value = { .action = (uint8_t)action, .reason = (uint8_t)reason,
			   .prefixlen = (uint8_t)prefixlen },
	};
	return r;
}

/* connect_errno() - in a child inside the test cgroup and the jail's
 * network namespace, TCP-connect to addr:port. The socket must exist:
 * connect() on a failed socket() is EBADF, which would pass for "not
 * EPERM". Return: the connect's errno, 0 on success. */
static int connect_errno(const char *addr, uint16_t port)
{
	int pipefd[2], status, err[2] = { -1, -1 }; /* socket's errno, connect's */
	pid_t pid;

	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
		char self[32];
		int fd, procs, e[2] = { 0, 0 };

		close(pipefd[0]);
		snprintf(self, sizeof(self), "%d", getpid());
		procs = openat(cg_fd, "cgroup.procs", O_WRONLY);
		if (procs < 0 || write(procs, self, strlen(self)) < 0 || setns(ns.fd, CLONE_NEWNET))
			_exit(99);
		sin.sin_addr.s_addr = inet_addr(addr);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			e[0] = errno;
		else if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
			e[1] = errno;
		if (write(pipefd[1], e, sizeof(e)) != sizeof(e))
			_exit(98);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], err, sizeof(err)) != sizeof(err))
		err[0] = err[1] = -1;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "probe child failed: %d", status);
	cr_assert_eq(err[0], 0, "the probe's socket() failed: %s", strerror(err[0]));
	return err[1];
}

TestSuite(loader, .init = setup, .fini = teardown, .timeout = 30);

Test(loader, no_policy_denies_everything)
{
	cr_assert_eq(loader_attach_cgroup(jail, cg_fd), 0);
	/* Fail closed: before any policy is installed nothing gets out. */
	cr_expect_eq(connect_errno("203.0.113.1", 80), EPERM);
}

Test(loader, connect4_follows_the_policy)
{
	struct policy_rule rules[] = {
		rule("10.0.0.0", 8, 0, JAIL_DENY, REASON_PRIVATE),
		rule("10.1.2.3", 48, 502, JAIL_ALLOW, REASON_ALLOW_IP),
	};

	cr_assert_eq(loader_set_policy(jail, rules, 2), 0);
	cr_assert_eq(loader_attach_cgroup(jail, cg_fd), 0);
	cr_expect_eq(connect_errno("10.9.9.9", 80), EPERM, "a blocked prefix is denied");
	cr_expect_eq(connect_errno("10.1.2.3", 22), EPERM, "an allow-ip port opens only that port");
	cr_expect_eq(connect_errno("10.1.2.3", 502), ENETUNREACH, "the allowed port passes the hook");
	cr_expect_eq(connect_errno("203.0.113.1", 80), ENETUNREACH, "the internet passes the hook");
	/* lo is down in the test's namespace: past the hook, no route. */
	cr_expect_eq(connect_errno("127.0.0.1", 9), ENETUNREACH, "the hook lets the jail's own loopback through");
}

/* A change in place that stopped half-way (the second key is one the
 * kernel refuses) left the first in the trie, where the caller's policy
 * does not have it: the loader takes no change in place after it, only a
 * whole new policy, which has no trace of it. */
Test(loader, a_change_stopped_half_way_takes_a_whole_policy_next)
{
	struct policy_rule base = rule("10.0.0.0", 8, 0, JAIL_DENY, REASON_PRIVATE);
	struct policy_rule set[] = {
		rule("10.1.2.3", 32, 0, JAIL_ALLOW, REASON_ALLOW_HOST),
		rule("10.1.2.4", 32, 0, JAIL_ALLOW, REASON_ALLOW_HOST),
	};
	struct policy_rule later = rule("10.1.2.5", 32, 0, JAIL_ALLOW, REASON_ALLOW_HOST);

	set[1].key.prefixlen = 65; /* beyond the trie's 64 bits: EINVAL */
	cr_assert_eq(loader_set_policy(jail, &base, 1), 0);
	cr_assert_eq(loader_attach_cgroup(jail, cg_fd), 0);
	cr_expect_neq(loader_change_policy(jail, set, 2, NULL, 0), 0);
	/* The first key went in before the second failed: the drift. */
	cr_expect_eq(connect_errno("10.1.2.3", 80), ENETUNREACH, "the half-way change is in force");
	cr_expect_eq(loader_change_policy(jail, &later, 1, NULL, 0), -EOPNOTSUPP);
	cr_expect_eq(connect_errno("10.1.2.5", 80), EPERM, "nothing changed in place after it");
	cr_assert_eq(loader_set_policy(jail, &base, 1), 0);
	cr_expect_eq(connect_errno("10.1.2.3", 80), EPERM, "the whole policy has no trace of it");
	cr_expect_eq(loader_change_policy(jail, &later, 1, NULL, 0), 0);
	cr_expect_eq(connect_errno("10.1.2.5", 80), ENETUNREACH, "changes in place again");
}

Test(loader, detached_after_close)
{
	struct policy_rule deny_all = rule("0.0.0.0", 0, 0, JAIL_DENY, REASON_BLOCK_CIDR);

	cr_assert_eq(loader_set_policy(jail, &deny_all, 1), 0);
	cr_assert_eq(loader_attach_cgroup(jail, cg_fd), 0);
	cr_expect_eq(connect_errno("203.0.113.1", 80), EPERM);
	loader_close(jail);
	jail = NULL;
	cr_expect_eq(connect_errno("203.0.113.1", 80), ENETUNREACH, "nothing stays attached");
}

Test(loader, unset_netns_cookie_fails_closed)
{
	__u64 c[COUNTER_SLOTS];

	/* Loaded without the jail's cookie: no socket counts as the jail's,
	 * so even the internet (no policy entry at all) is refused, and the
	 * jail's own loopback still works. */
	loader_close(jail);
	cr_assert_eq(loader_open(NULL, &jail), 0);
	cr_assert_eq(loader_set_policy(jail, NULL, 0), 0);
	cr_assert_eq(loader_attach_cgroup(jail, cg_fd), 0);
	cr_expect_eq(connect_errno("203.0.113.1", 80), EPERM, "the internet, with cookie 0");
	cr_expect_eq(connect_errno("127.0.0.1", 9), ENETUNREACH, "loopback, with cookie 0");
	cr_assert_eq(loader_read_counters(jail, c), 0);
	cr_expect_eq(c[HOOK_CONNECT4 * COUNTER_STRIDE + REASON_NETNS], 1);
	cr_expect_eq(c[HOOK_CONNECT4 * COUNTER_STRIDE + REASON_JAIL_LOOPBACK], 1);
}

/* Where the kernel lacks the Unix socket hooks: everything else still
 * loads and attaches, and the loader says so. */
Test(loader, unix_hooks_off_still_loads_the_rest)
{
	struct loader_options opts = { .netns_cookie = ns.cookie, .unix_hooks_off = true };
	struct unix_rule rule = { .path = "/tmp/", .prefix = true };

	loader_close(jail);
	cr_assert_eq(loader_open(&opts, &jail), 0);
	cr_expect(!loader_has_unix_hooks(jail));
	cr_expect_eq(loader_set_unix_rules(jail, &rule, 1), 0, "filled all the same");
	cr_assert_eq(loader_set_policy(jail, NULL, 0), 0);
	cr_assert_eq(loader_attach_cgroup(jail, cg_fd), 0);
	cr_expect_eq(connect_errno("203.0.113.1", 80), ENETUNREACH, "the inet hooks work");
	loader_detach_cgroup(jail);
}
