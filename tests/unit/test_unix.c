// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_unix.c - the Unix socket hooks on the real kernel (6.7+)
 *
 * The test binds real sockets in a scratch directory: some under a
 * directory that unix_policy allows as a prefix, one that is an exact
 * entry, others outside. A child joins a test cgroup with the hooks
 * attached, drops to uid 4242 and connects or sends to each path, spelled
 * every way that matters: as is, through "..", relative, cut short by a NUL
 * or by the address length, 108 bytes long, abstract. Each result must be
 * the promised one (EPERM from the hook, never ENOENT or ECONNREFUSED from
 * the path lookup that would come after it), and each denial exactly one
 * event with the path as the kernel would have resolved it.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "builtin.h"
#include "loader.h"
#include "netns.h"
#include "testutil.h"
#include "unixpolicy.h"

#define PROBE_UID 4242
#define PROBE_COMM "unixprobe"
#define MAX_PROBES 48
#define SUN_PATH_OFFSET offsetof(struct sockaddr_un, sun_path)

enum unix_op {
	OP_STREAM_CONNECT,
	OP_DGRAM_SENDTO,
	OP_DGRAM_CONNECT,
	OP_SEQPACKET_CONNECT,
};

struct unix_probe {
	enum unix_op op;
	char path[UNIX_PATH_MAX + 16]; /* the bytes of sun_path, maybe with NULs */
	size_t len;                    /* how many of them the address holds */
	bool chdir_scratch;            /* relative to the scratch directory */
	int want_errno;                /* 0 = went through */
	int hook;                      /* the event's, when denied */
	char want_path[UNIX_PATH_MAX + 1]; /* the event's path */
};

static struct unix_probe probes[MAX_PROBES];
static size_t n_probes;

static char scratch[64], allowed[128], outside[128], exact[128];
static char abstract_name[64];
static int cg_fd = -1, listeners[16], n_listeners;
static struct netns ns = { .holder = -1, .fd = -1, .host_fd = -1, .user_fd = -1 };
static struct jail_bpf *jail;
static struct test_events seen; /* the denials, as the loader hands them over */

/* listen_at() - a socket of @type bound to @path (abstract when @path[0]
 * is NUL, @len bytes), that uid 4242 may connect to */
static void listen_at(int type, const char *path, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	memcpy(sun.sun_path, path, len);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sun, (socklen_t)(SUN_PATH_OFFSET + len)), 0,
		     "bind %s: %s", path[0] ? path : "(abstract)", strerror(errno));
	if (type != SOCK_DGRAM)
		cr_assert_eq(listen(fd, 64), 0);
	if (path[0])
		cr_assert_eq(chmod(path, 0777), 0);
	listeners[n_listeners++] = fd;
}

static void add(enum unix_op op, const char *path, size_t len, int want_errno, int hook,
		const char *want_path)
{
	struct unix_probe *p = &probes[n_probes++];

	cr_assert_leq(n_probes, MAX_PROBES);
	memset(p, 0, sizeof(*p));
	p->op = op;
	memcpy(p->path, path, len);
	p->len = len;
	p->want_errno = want_errno;
	p->hook = hook;
	snprintf(p->want_path, sizeof(p->want_path), "%s", want_path ? want_path : "");
}

/* add_str() - a probe of @path as a C string, its NUL in the address */
static void add_str(enum unix_op op, const char *path, int want_errno)
{
	int hook = op == OP_DGRAM_SENDTO ? HOOK_SENDMSG_UNIX : HOOK_CONNECT_UNIX;

	add(op, path, strlen(path) + 1, want_errno, hook, path);
}

static void make_dir(const char *path)
{
	cr_assert_eq(mkdir(path, 0755), 0, "mkdir %s: %s", path, strerror(errno));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void setup(void)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	struct loader_options opts = { .on_event = test_events_add, .ctx = &seen,
				       .denial_window_ns = 1 /* every denial an event */ };
	struct unix_rule rules[2];
	char path[256];
	int i;

	if (geteuid() != 0)
		cr_skip_test("needs root: BPF programs, cgroups and namespaces");
	cr_assert_eq(netns_create(&ns), 0);
	opts.netns_cookie = ns.cookie;
	cr_assert_eq(loader_open(&opts, &jail), 0);
	/* Attached first: where the kernel has the hooks but refused ours,
	 * that fails (the jail fails closed); only a kernel without them
	 * is a skip. */
	cg_fd = test_cgroup_open("unix");
	cr_assert_eq(loader_attach_cgroup(jail, cg_fd), 0, "the Unix socket hooks did not load");
	if (!loader_has_unix_hooks(jail))
		cr_skip_test("kernel lacks the cgroup Unix socket hooks (Linux 6.7+)");

	snprintf(scratch, sizeof(scratch), "/var/tmp/ebpfjail-unix-XXXXXX");
	cr_assert_not_null(mkdtemp(scratch));
	cr_assert_eq(chmod(scratch, 0755), 0);
	snprintf(allowed, sizeof(allowed), "%s/allowed/", scratch);
	snprintf(outside, sizeof(outside), "%s/outside/", scratch);
	snprintf(exact, sizeof(exact), "%s/exact.sock", scratch);
	make_dir(allowed);
	make_dir(outside);
	/* In each directory: s.sock (stream), d.sock (datagram), q.sock
	 * (seqpacket). */
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s%c.sock", i < 3 ? allowed : outside, "sdq"[i % 3]);
		listen_at(types[i % 3], path, strlen(path));
	}
	listen_at(SOCK_STREAM, exact, strlen(exact));
	snprintf(path, sizeof(path), "%sX", exact);
	listen_at(SOCK_STREAM, path, strlen(path));
	snprintf(abstract_name, sizeof(abstract_name), "%cebpfjail-unix-test-%d", 0, getpid());
	listen_at(SOCK_STREAM, abstract_name, 1 + strlen(abstract_name + 1));

	rules[0] = (struct unix_rule){ .path = allowed, .prefix = true };
	rules[1] = (struct unix_rule){ .path = exact, .prefix = false };
	cr_assert_eq(loader_set_unix_rules(jail, rules, 2), 0);
	seen.n = seen.total = 0;
	n_probes = 0;
}

static void teardown(void)
{
	int i;

	loader_close(jail);
	jail = NULL;
	test_cgroup_close();
	cg_fd = -1;
	netns_close(&ns);
	for (i = 0; i < n_listeners; i++)
		close(listeners[i]);
	n_listeners = 0;
	if (scratch[0] && strncmp(scratch, "/var/tmp/ebpfjail-unix-", 23) == 0)
		nftw(scratch, remove_one, 8, FTW_DEPTH | FTW_PHYS);
	scratch[0] = '\0';
}

/* --- the child ----------------------------------------------------------- */

static int run_probe(const struct unix_probe *p)
{
	static const int types[] = { [OP_STREAM_CONNECT] = SOCK_STREAM,
				     [OP_DGRAM_SENDTO] = SOCK_DGRAM,
				     [OP_DGRAM_CONNECT] = SOCK_DGRAM,
				     [OP_SEQPACKET_CONNECT] = SOCK_SEQPACKET };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len = (socklen_t)(SUN_PATH_OFFSET + p->len);
	int fd = socket(AF_UNIX, types[p->op] | SOCK_CLOEXEC, 0), ret;
	char byte = 'x';

	if (fd < 0)
		return -1000 - errno;
	memcpy(sun.sun_path, p->path, p->len);
	if (p->chdir_scratch && chdir(scratch))
		return -2000 - errno;
	if (p->op == OP_DGRAM_SENDTO)
		ret = sendto(fd, &byte, 1, 0, (struct sockaddr *)&sun, len) < 0 ? errno : 0;
	else
		ret = connect(fd, (struct sockaddr *)&sun, len) ? errno : 0;
	if (p->chdir_scratch && chdir("/"))
		ret = -3000 - errno;
	close(fd);
	return ret;
}

static void run_probes(int out)
{
	char self[32];
	size_t i;
	int procs;

	snprintf(self, sizeof(self), "%d", getpid());
	procs = openat(cg_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (procs < 0 || write(procs, self, strlen(self)) < 0)
		_exit(90);
	close(procs);
	prctl(PR_SET_NAME, PROBE_COMM);
	if (setresgid(PROBE_UID, PROBE_UID, PROBE_UID) || setresuid(PROBE_UID, PROBE_UID, PROBE_UID))
		_exit(92);
	for (i = 0; i < n_probes; i++) {
		int r = run_probe(&probes[i]);

		if (write(out, &r, sizeof(r)) != sizeof(r))
			_exit(94);
	}
	_exit(0);
}

/* run_and_check() - every probe in a child; each result as promised, each
 * denial one event with its path */
static void run_and_check(void)
{
	int results[MAX_PROBES], pipefd[2], status;
	unsigned int denied = 0, e = 0;
	pid_t pid;
	size_t i;

	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(pipefd[0]);
		run_probes(pipefd[1]);
	}
	close(pipefd[1]);
	for (i = 0; i < n_probes; i++)
		cr_assert_eq(read(pipefd[0], &results[i], sizeof(int)), sizeof(int),
			     "probe child stopped before probe %zu", i);
	close(pipefd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "probe child failed (%d)", status);
	loader_events_poll(jail, 0);

	for (i = 0; i < n_probes; i++) {
		const struct unix_probe *p = &probes[i];

		cr_expect_eq(results[i], p->want_errno, "probe %zu (%.*s): got %d (%s), want %s", i,
			     (int)p->len, p->path[0] ? p->path : "@abstract", results[i],
			     results[i] > 0 ? strerror(results[i]) : "-",
			     p->want_errno ? strerror(p->want_errno) : "success");
		denied += p->want_errno == EPERM;
	}
	cr_assert_eq(seen.total, denied, "one event per denial: %u events, %u denials",
		     seen.total, denied);
	for (i = 0; i < n_probes; i++) {
		const struct unix_probe *p = &probes[i];
		const struct jail_event *ev;

		if (p->want_errno != EPERM)
			continue;
		ev = &seen.e[e++];
		cr_expect_eq(ev->hook, p->hook, "probe %zu: hook %s", i, hook_name(ev->hook));
		cr_expect_eq(ev->reason, REASON_UNIX, "probe %zu: reason %s", i,
			     reason_name(ev->reason));
		cr_expect_eq(ev->family, AF_UNIX, "probe %zu: family %u", i, ev->family);
		cr_expect_eq(ev->pid, (uint32_t)pid, "probe %zu: pid %u", i, ev->pid);
		cr_expect_eq(ev->uid, PROBE_UID, "probe %zu: uid %u", i, ev->uid);
		cr_expect_str_eq(ev->comm, PROBE_COMM, "probe %zu", i);
		cr_expect_eq(ev->daddr, 0);
		cr_expect_eq(ev->dport, 0);
		cr_expect_eq(ev->rule_prefixlen, 0);
		cr_expect_neq(ev->time_ns, 0);
		cr_expect_neq(ev->cgroup_id, 0);
		cr_expect_eq(strnlen(ev->path, sizeof(ev->path)), strlen(p->want_path),
			     "probe %zu: event path \"%.*s\", want \"%s\"", i, (int)sizeof(ev->path),
			     ev->path, p->want_path);
		cr_expect_eq(memcmp(ev->path, p->want_path, strlen(p->want_path)), 0,
			     "probe %zu: event path \"%.*s\", want \"%s\"", i, (int)sizeof(ev->path),
			     ev->path, p->want_path);
	}
}

TestSuite(unix_hooks, .init = setup, .fini = teardown, .timeout = 60);

Test(unix_hooks, paths_judged)
{
	char p[256], q[256];

	/* Allowed: under the prefix, the exact entry, abstract names. */
	snprintf(p, sizeof(p), "%ss.sock", allowed);
	add_str(OP_STREAM_CONNECT, p, 0);
	snprintf(p, sizeof(p), "%sq.sock", allowed);
	add_str(OP_SEQPACKET_CONNECT, p, 0);
	snprintf(p, sizeof(p), "%sd.sock", allowed);
	add_str(OP_DGRAM_SENDTO, p, 0);
	add_str(OP_DGRAM_CONNECT, p, 0);
	snprintf(p, sizeof(p), "%s./s.sock", allowed); /* "." climbs nowhere */
	add_str(OP_STREAM_CONNECT, p, 0);
	add_str(OP_STREAM_CONNECT, exact, 0);
	add(OP_STREAM_CONNECT, abstract_name, 1 + strlen(abstract_name + 1), 0, 0, NULL);
	/* Allowed by the hook, then not found: the path lookup comes after. */
	snprintf(p, sizeof(p), "%smissing.sock", allowed);
	add_str(OP_STREAM_CONNECT, p, ENOENT);
	snprintf(p, sizeof(p), "%s..x", allowed); /* not a ".." component */
	add_str(OP_STREAM_CONNECT, p, ENOENT);

	/* Denied, and EPERM even where the path does not exist. */
	snprintf(p, sizeof(p), "%ss.sock", outside);
	add_str(OP_STREAM_CONNECT, p, EPERM);
	snprintf(p, sizeof(p), "%sq.sock", outside);
	add_str(OP_SEQPACKET_CONNECT, p, EPERM);
	snprintf(p, sizeof(p), "%sd.sock", outside);
	add_str(OP_DGRAM_SENDTO, p, EPERM);
	add_str(OP_DGRAM_CONNECT, p, EPERM);
	snprintf(p, sizeof(p), "%smissing.sock", outside);
	add_str(OP_STREAM_CONNECT, p, EPERM);
	snprintf(p, sizeof(p), "%sX", exact); /* the exact entry ends at its NUL */
	add_str(OP_STREAM_CONNECT, p, EPERM);
	snprintf(p, sizeof(p), "%s", scratch); /* the prefix's parent */
	add_str(OP_STREAM_CONNECT, p, EPERM);
	snprintf(p, sizeof(p), "%s../outside/s.sock", allowed); /* ".." out of the prefix */
	add_str(OP_STREAM_CONNECT, p, EPERM);
	snprintf(p, sizeof(p), "%s../allowed/s.sock", allowed); /* ".." even back in */
	add_str(OP_SEQPACKET_CONNECT, p, EPERM);
	snprintf(p, sizeof(p), "%s..", allowed); /* ".." at the end */
	add_str(OP_STREAM_CONNECT, p, EPERM);
	snprintf(p, sizeof(p), "%s../outside/d.sock", allowed);
	add_str(OP_DGRAM_SENDTO, p, EPERM);
	/* Relative: allowed/s.sock from the scratch directory. */
	add_str(OP_STREAM_CONNECT, "allowed/s.sock", EPERM);
	probes[n_probes - 1].chdir_scratch = true;
	add_str(OP_STREAM_CONNECT, "./allowed/s.sock", EPERM);
	probes[n_probes - 1].chdir_scratch = true;

	/* Cut where the kernel cuts: at the first NUL, or at the end of
	 * the address, whatever bytes follow. (What follows the address in
	 * the kernel's copy of it is not the agent's: zeroes on a kernel
	 * built with CONFIG_INIT_STACK_ALL_ZERO, as here, where ignoring
	 * the address length could not be seen; old stack bytes on others.
	 * The length is honoured all the same.) */
	snprintf(p, sizeof(p), "%ss.sock", allowed);
	memcpy(q, p, strlen(p) + 1);
	strcpy(q + strlen(p) + 1, "/../../outside/s.sock"); /* after the NUL: not seen */
	add(OP_STREAM_CONNECT, q, strlen(p) + 1 + strlen(q + strlen(p) + 1), 0, 0, NULL);
	snprintf(p, sizeof(p), "%ss.sock", outside);
	memcpy(q, p, strlen(p) + 1);
	strcpy(q + strlen(p) + 1, "junk");
	add(OP_STREAM_CONNECT, q, strlen(p) + 6, EPERM, HOOK_CONNECT_UNIX, p);
	snprintf(p, sizeof(p), "%ss.sockXYZ", allowed); /* the address ends before XYZ */
	add(OP_STREAM_CONNECT, p, strlen(p) - 3, 0, 0, NULL);
	snprintf(p, sizeof(p), "%sX", exact); /* ... before X: the exact entry */
	add(OP_STREAM_CONNECT, p, strlen(p) - 1, 0, 0, NULL);
	snprintf(p, sizeof(p), "%ss.sock/../x", outside);
	snprintf(q, sizeof(q), "%ss.sock", outside);
	add(OP_STREAM_CONNECT, p, strlen(q), EPERM, HOOK_CONNECT_UNIX, q);

	run_and_check();
}

/* The whole of sun_path, no NUL: the kernel takes all 108 bytes. */
Test(unix_hooks, full_length_paths)
{
	char p[UNIX_PATH_MAX + 1];
	size_t n = strlen(allowed);

	cr_assert_lt(n + 8, UNIX_PATH_MAX);
	memset(p, 'a', sizeof(p));
	memcpy(p, allowed, n);
	p[UNIX_PATH_MAX] = '\0';
	/* Under the prefix: allowed, so the lookup says ENOENT. */
	add(OP_STREAM_CONNECT, p, UNIX_PATH_MAX, ENOENT, 0, NULL);
	/* Ending in "/..": a ".." component at the very end. */
	memcpy(p + UNIX_PATH_MAX - 3, "/..", 3);
	add(OP_STREAM_CONNECT, p, UNIX_PATH_MAX, EPERM, HOOK_CONNECT_UNIX, p);
	/* Ending in "/.": nothing climbed. */
	memcpy(p + UNIX_PATH_MAX - 3, "a/.", 3);
	add(OP_STREAM_CONNECT, p, UNIX_PATH_MAX, ENOENT, 0, NULL);
	/* Outside, full length: denied, and the event holds all 108. */
	memcpy(p, outside, strlen(outside));
	add(OP_STREAM_CONNECT, p, UNIX_PATH_MAX, EPERM, HOOK_CONNECT_UNIX, p);
	run_and_check();
}

/* No rules: every pathname is denied, abstract names still pass. */
Test(unix_hooks, no_rules_denies_every_path)
{
	char p[256];

	cr_assert_eq(loader_set_unix_rules(jail, NULL, 0), 0);
	snprintf(p, sizeof(p), "%ss.sock", allowed);
	add_str(OP_STREAM_CONNECT, p, EPERM);
	add_str(OP_STREAM_CONNECT, exact, EPERM);
	snprintf(p, sizeof(p), "%sd.sock", allowed);
	add_str(OP_DGRAM_SENDTO, p, EPERM);
	add(OP_STREAM_CONNECT, abstract_name, 1 + strlen(abstract_name + 1), 0, 0, NULL);
	run_and_check();
}

/* A new rule set replaces the old: what only the old allowed is gone. */
Test(unix_hooks, rules_replaced)
{
	struct unix_rule rules[] = { { .path = outside, .prefix = true } };
	char p[256];

	cr_assert_eq(loader_set_unix_rules(jail, rules, 1), 0);
	snprintf(p, sizeof(p), "%ss.sock", outside);
	add_str(OP_STREAM_CONNECT, p, 0);
	snprintf(p, sizeof(p), "%ss.sock", allowed);
	add_str(OP_STREAM_CONNECT, p, EPERM);
	add_str(OP_STREAM_CONNECT, exact, EPERM);
	run_and_check();
}

Test(unix_hooks, bad_rules_refused)
{
	struct unix_rule bad[] = {
		{ .path = "tmp/", .prefix = true },
		{ .path = "/tmp", .prefix = true },
		{ .path = "/tmp/../run/", .prefix = true },
		{ .path = "/run/a.sock/", .prefix = false },
		{ .path = "", .prefix = false },
	};
	size_t i;

	cr_redirect_stderr(); /* each refusal says why, checked below */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(loader_set_unix_rules(jail, &bad[i], 1), -EINVAL, "rule %zu", i);
	fflush(stderr);
	cr_expect_stderr_eq_str(
		"ebpfjail: error: Unix socket rule \"tmp/\": is not absolute (a relative path is "
		"never allowed)\n"
		"ebpfjail: error: Unix socket rule \"/tmp\": is a directory prefix without its "
		"final '/'\n"
		"ebpfjail: error: Unix socket rule \"/tmp/../run/\": has a \"..\" component "
		"(always refused)\n"
		"ebpfjail: error: Unix socket rule \"/run/a.sock/\": ends in '/' (a socket is not "
		"a directory)\n"
		"ebpfjail: error: Unix socket rule \"\": is empty\n");
	/* Nothing changed: the setup's rules still hold. */
	add_str(OP_STREAM_CONNECT, exact, 0);
	run_and_check();
}

/* The counters: allowed under REASON_NONE, denied under REASON_UNIX. */
Test(unix_hooks, counted)
{
	__u64 c[COUNTER_SLOTS];
	char p[256];

	snprintf(p, sizeof(p), "%ss.sock", allowed);
	add_str(OP_STREAM_CONNECT, p, 0);
	snprintf(p, sizeof(p), "%ss.sock", outside);
	add_str(OP_STREAM_CONNECT, p, EPERM);
	snprintf(p, sizeof(p), "%sd.sock", outside);
	add_str(OP_DGRAM_SENDTO, p, EPERM);
	run_and_check();
	cr_assert_eq(loader_read_counters(jail, c), 0);
	cr_expect_eq(c[HOOK_CONNECT_UNIX * COUNTER_STRIDE + REASON_NONE], 1);
	cr_expect_eq(c[HOOK_CONNECT_UNIX * COUNTER_STRIDE + REASON_UNIX], 1);
	cr_expect_eq(c[HOOK_SENDMSG_UNIX * COUNTER_STRIDE + REASON_UNIX], 1);
}
