// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bench_connect.c - the cost of connect() with the socket hooks attached
 *
 * A child in a throwaway cgroup and network namespace (lo only, so nothing
 * leaves the machine) connects TCP sockets to a listener on 203.0.113.1 and
 * closes them, N times, in three runs: no programs attached, the default
 * policy, and 10,000 allow-ip plus 10,000 block-cidr entries. Prints ns per
 * connect()+close() and the ratios (SPEC targets <= 1.10x and <= 1.15x).
 *
 * Then the policy update: the time to swap in a complete 100,000-entry policy,
 * and UDP connect() latency measured while swaps run back to back. First,
 * the BPF share of a jail's start: loader_open(), then with the first
 * policy and loader_attach_cgroup(), median of a few.
 *
 * Each run has a namespace of its own, made by netns_create() as the jail's
 * is (the programs are loaded with its cookie), so no run inherits another's
 * TIME_WAIT sockets.
 *
 * Usage: bench-connect [N]   (root; default N = 20000; N = 200 for a smoke run)
 * Output: "ROW<TAB>name<TAB>unit<TAB>value<TAB>baseline<TAB>target" lines,
 * which bench/run.sh turns into the table and the JSON document.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "benchutil.h"
#include "cgroup.h"
#include "loader.h"
#include "netns.h"
#include "policy.h"

/* bench_netns() - a namespace for one run: lo up with 203.0.113.1 on it.
 * Return: 0, or -1 (the namespace, if made, is closed). */
static int bench_netns(struct netns *ns)
{
	int status = -1;
	pid_t pid;

	if (netns_create(ns))
		return -1;
	pid = fork();
	if (pid == 0)
		_exit(setns(ns->fd, CLONE_NEWNET) ||
		      system("ip link set lo up && ip addr add 203.0.113.1/32 dev lo"));
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (status == 0)
		return 0;
	netns_close(ns);
	return -1;
}

/* In the cgroup and the run's namespace @ns_fd: N connects, best of 5
 * rounds (ns each). TCP: connect()+accept()+close(), what a client does;
 * UDP: connect() on one socket, nearly nothing but the hook, so its cost
 * shows. */
static double measure(int cg_fd, int ns_fd, long n, int type)
{
	int pipefd[2], status;
	double ns = -1;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(8080) };
		char self[32];
		double best = 1e18;
		int procs, lfd, round, one = 1;

		snprintf(self, sizeof(self), "%d", getpid());
		procs = openat(cg_fd, "cgroup.procs", O_WRONLY);
		if (procs < 0 || write(procs, self, strlen(self)) < 0 || setns(ns_fd, CLONE_NEWNET))
			_exit(1);
		sin.sin_addr.s_addr = inet_addr("203.0.113.1");
		lfd = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 4096))
			_exit(2);
		for (round = 0; round < 5; round++) {
			double t0 = bench_now_ns(), t;
			long i;

			int ufd = socket(AF_INET, SOCK_DGRAM, 0);

			for (i = 0; i < n && type == SOCK_STREAM; i++) {
				int fd = socket(AF_INET, SOCK_STREAM, 0), c;

				if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
					_exit(3);
				c = accept(lfd, NULL, NULL);
				close(c);
				close(fd);
			}
			for (i = 0; i < n && type == SOCK_DGRAM; i++)
				if (connect(ufd, (struct sockaddr *)&sin, sizeof(sin)))
					_exit(3);
			close(ufd);
			t = (bench_now_ns() - t0) / (double)n;
			if (t < best)
				best = t;
		}
		if (write(pipefd[1], &best, sizeof(best)) != sizeof(best))
			_exit(4);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &ns, sizeof(ns)) != sizeof(ns))
		ns = -1;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return ns;
}

static int load(const struct config *cfg, int cg_fd, __u64 cookie, struct jail_bpf **jail)
{
	struct loader_options opts = { .netns_cookie = cookie };
	struct host_facts none = { 0 };
	struct policy p;
	int err;

	err = policy_compile(cfg, &none, &p);
	if (!err)
		err = loader_open(&opts, jail);
	if (!err)
		err = loader_set_policy(*jail, p.rules, p.n);
	if (!err)
		err = loader_attach_cgroup(*jail, cg_fd);
	policy_free(&p);
	return err;
}

static double now_ms(void)
{
	return bench_now_ns() / 1e6;
}

/* policy_update() - swap time of a big policy, and connect() latency while
 * swaps run (vs. the same measurement without swaps). */
static int policy_update(int cg_fd, long n, long entries)
{
	struct netns ns = { .holder = -1, .fd = -1, .host_fd = -1 };
	struct host_facts none = { 0 };
	struct loader_options opts = { 0 };
	struct config big;
	struct policy p = { 0 };
	struct jail_bpf *jail = NULL;
	double quiet, busy, t0, swap_ms = 0;
	char line[64];
	int swaps = 0, status, pipefd[2], ret = 1;
	long i;
	pid_t pid;

	config_init(&big);
	for (i = 0; i < entries; i++) {
		int len = snprintf(line, sizeof(line), "allow-ip = %ld.%ld.%ld.1\n", 20 + i / 65536,
				   (i / 256) % 256, i % 256);

		config_parse_buffer(&big, "bench", line, (size_t)len);
	}
	if (bench_netns(&ns))
		goto out;
	opts.netns_cookie = ns.cookie;
	if (policy_compile(&big, &none, &p) || loader_open(&opts, &jail) ||
	    loader_set_policy(jail, p.rules, p.n) || loader_attach_cgroup(jail, cg_fd))
		goto out;
	quiet = measure(cg_fd, ns.fd, n * 10, SOCK_DGRAM);
	/* The same measurement in a child, while this process swaps. */
	if (pipe(pipefd))
		goto out;
	pid = fork();
	if (pid == 0) {
		double t = measure(cg_fd, ns.fd, n * 10, SOCK_DGRAM);

		_exit(write(pipefd[1], &t, sizeof(t)) == sizeof(t) ? 0 : 1);
	}
	close(pipefd[1]);
	while (waitpid(pid, &status, WNOHANG) == 0 && swaps < 1000) {
		t0 = now_ms();
		if (loader_set_policy(jail, p.rules, p.n))
			break;
		swap_ms += now_ms() - t0;
		swaps++;
	}
	if (swaps == 1000)
		waitpid(pid, &status, 0);
	if (read(pipefd[0], &busy, sizeof(busy)) != sizeof(busy))
		busy = -1;
	close(pipefd[0]);
	snprintf(line, sizeof(line), "policy swap, %ld entries", entries);
	bench_row(line, "ms", swaps ? swap_ms / swaps : -1, 0, "-");
	bench_row("UDP connect() during policy swaps", "ns", busy, quiet, "-");
	ret = 0;
out:
	loader_close(jail);
	policy_free(&p);
	config_free(&big);
	netns_close(&ns);
	return ret;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* startup() - the BPF share of a jail's start, median of @runs: open
 * (libbpf, the kernel's BTF where kfuncs or CO-RE need it, the verifier),
 * then an empty policy (one update of the outer map: the kernel waits for
 * an RCU grace period) and the attach. */
static int startup(int cg_fd, int runs)
{
	double open_ms[32], all_ms[32];
	int i;

	if (runs > 32)
		runs = 32;
	for (i = 0; i < runs; i++) {
		struct jail_bpf *jail = NULL;
		double t0 = now_ms(), t1;
		int err = loader_open(NULL, &jail);

		t1 = now_ms();
		if (!err)
			err = loader_set_policy(jail, NULL, 0);
		if (!err)
			err = loader_attach_cgroup(jail, cg_fd);
		open_ms[i] = t1 - t0;
		all_ms[i] = now_ms() - t0;
		loader_close(jail);
		if (err)
			return 1;
	}
	qsort(open_ms, (size_t)runs, sizeof(open_ms[0]), by_value);
	qsort(all_ms, (size_t)runs, sizeof(all_ms[0]), by_value);
	bench_row("BPF load (loader_open)", "ms", open_ms[runs / 2], 0, "-");
	bench_row("BPF load, empty policy, attach", "ms", all_ms[runs / 2], 0, "-");
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	char root[256], path[512], line[64];
	struct config plain, big;
	struct netns ns[3] = { { .holder = -1, .fd = -1, .host_fd = -1 },
			       { .holder = -1, .fd = -1, .host_fd = -1 },
			       { .holder = -1, .fd = -1, .host_fd = -1 } };
	struct jail_bpf *jail = NULL;
	double bare, dflt, large, ubare, udflt, ularge;
	int cg_fd, i, ret = 1;

	/* A reader that goes away (| head) must not kill us before the
	 * cgroup below is removed: its rows are lost, not the cleanup. */
	signal(SIGPIPE, SIG_IGN);
	if (cgroup_v2_root(root, sizeof(root)))
		return fprintf(stderr, "no cgroup v2\n"), 1;
	snprintf(path, sizeof(path), "%s/ebpfjail-bench-%d", root, getpid());
	if (mkdir(path, 0755) || (cg_fd = open(path, O_RDONLY | O_DIRECTORY)) < 0)
		return perror(path), 1;

	config_init(&plain);
	config_init(&big);
	for (i = 0; i < 10000; i++) {
		int len = snprintf(line, sizeof(line), "allow-ip = 198.18.%d.%d\n", i / 250,
				   i % 250 + 1);

		config_parse_buffer(&big, "bench", line, (size_t)len);
		len = snprintf(line, sizeof(line), "block-cidr = 45.%d.%d.0/24\n", i / 250, i % 250);
		config_parse_buffer(&big, "bench", line, (size_t)len);
	}

	/* First, before the big policies leave the kernel freeing tries. */
	if (startup(cg_fd, n >= 20000 ? 21 : 3))
		goto out;
	if (bench_netns(&ns[0]) || bench_netns(&ns[1]) || bench_netns(&ns[2]))
		goto out;
	bare = measure(cg_fd, ns[0].fd, n, SOCK_STREAM);
	ubare = measure(cg_fd, ns[0].fd, n * 10, SOCK_DGRAM);
	if (load(&plain, cg_fd, ns[1].cookie, &jail))
		goto out;
	dflt = measure(cg_fd, ns[1].fd, n, SOCK_STREAM);
	udflt = measure(cg_fd, ns[1].fd, n * 10, SOCK_DGRAM);
	loader_close(jail);
	jail = NULL;
	if (load(&big, cg_fd, ns[2].cookie, &jail))
		goto out;
	large = measure(cg_fd, ns[2].fd, n, SOCK_STREAM);
	ularge = measure(cg_fd, ns[2].fd, n * 10, SOCK_DGRAM);
	loader_close(jail);
	jail = NULL;

	bench_row("connect(), default policy", "ns", dflt, bare, "<=1.10");
	bench_row("connect(), 10k allow + 10k block", "ns", large, bare, "<=1.15");
	bench_row("UDP connect() alone, default", "ns", udflt, ubare, "-");
	bench_row("UDP connect() alone, 20k entries", "ns", ularge, ubare, "-");
	ret = policy_update(cg_fd, n, n >= 20000 ? 100000 : 1000);
out:
	loader_close(jail);
	config_free(&plain);
	config_free(&big);
	for (i = 0; i < 3; i++)
		netns_close(&ns[i]);
	close(cg_fd);
	rmdir(path);
	return ret;
}
