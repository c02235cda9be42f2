// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bench_connect.c - the cost of connect() with the socket hooks attached
 *
 * One measurement per run, for bench/connect.sh, which runs it in rounds
 * and leaves the judging to bench/lib.sh:
 *
 *   connect N BLOCKS ORDER
 *                      in each variant of ORDER (comma-separated: bare,
 *                      default, large), N TCP connect()+accept()+close() to
 *                      a listener on 203.0.113.1, then 10 N UDP connect()
 *                      on one socket (nearly nothing but the hook, so its
 *                      cost shows), in BLOCKS blocks, the variants taking
 *                      turns block by block: CPU ns each. bare has no
 *                      programs, default the default policy, large 10,000
 *                      allow-ip plus 10,000 block-cidr entries (SPEC
 *                      targets <= 1.10x and <= 1.15x of bare)
 *   startup RUNS       the BPF share of a jail's start, median of RUNS:
 *                      loader_open(), then with the first policy and
 *                      loader_attach_cgroup()
 *   swaps N ENTRIES ORDER
 *                      the time to swap in a complete ENTRIES-entry
 *                      policy, and the CPU ns of 10 N UDP connect() quiet
 *                      and while swaps run back to back, in the ORDER
 *                      given (quiet,busy)
 *
 * Each variant has a cgroup of its own (the programs attached to it) and a
 * network namespace of its own, made by netns_create() as the jail's is
 * (the programs are loaded with its cookie; lo only, so nothing leaves the
 * machine, and no run inherits another's TIME_WAIT sockets).
 *
 * Usage: bench-connect COMMAND ARGS...   (root)
 * Output: "FIG<TAB>key<TAB>value" lines (tcp.bare, udp.large, load, ...).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <poll.h>
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

#define NETNS_NONE { .holder = -1, .fd = -1, .host_fd = -1, .user_fd = -1 }
#define VARIANTS 3

static const char *const variant_names[VARIANTS] = { "bare", "default", "large" };

/* The run's cgroup: a directory under the v2 root with one child per
 * variant, removed on the way out. */
static char cg_root[512];

/* bench_cgroup() - @name under the run's cgroup, made and opened.
 * Return: its fd, or -1 (said on stderr). */
static int bench_cgroup(const char *name)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", cg_root, name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return perror(path), -1;
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		perror(path);
	return fd;
}

/* bench_cgroups_remove() - the run's cgroup and its children (empty by now:
 * every measuring child has been waited for) */
static void bench_cgroups_remove(void)
{
	const char *extra[] = { "startup", "swaps" };
	char path[600];
	size_t i;

	for (i = 0; i < VARIANTS + 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", cg_root,
			 i < VARIANTS ? variant_names[i] : extra[i - VARIANTS]);
		rmdir(path);
	}
	rmdir(cg_root);
}

/* bench_netns() - a namespace for one variant: lo up with 203.0.113.1 on it.
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

/*
 * A worker: a child in one variant's cgroup and namespace, with a listener
 * on 203.0.113.1:8080 and a UDP socket, that runs each command it reads
 * (struct worker_cmd) and writes back the CPU time it took (a double, ns).
 * It lives for the whole run, so that the parent can switch variants every
 * few milliseconds (what cancels the drift of a shared machine) at the
 * cost of two pipe writes. Its pipes are the parent's to close; closing
 * the command pipe ends it.
 */
struct worker {
	pid_t pid;
	int cmd; /* parent -> worker, or -1 */
	int res; /* worker -> parent, or -1 */
};

struct worker_cmd {
	int type; /* SOCK_STREAM: connect()+accept()+close(); SOCK_DGRAM: connect() */
	long n;
};

#define WORKER_NONE { .pid = -1, .cmd = -1, .res = -1 }

/* worker_loop() - the worker's side: commands until the pipe ends. TCP:
 * connect()+accept()+close(), what a client does; UDP: connect() on one
 * socket, nearly nothing but the hook, so its cost shows. Never returns. */
static void worker_loop(int cg_fd, int ns_fd, int cmd, int res)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(8080) };
	int procs, lfd, ufd, one = 1;
	struct worker_cmd c;
	char self[32];

	snprintf(self, sizeof(self), "%d", getpid());
	procs = openat(cg_fd, "cgroup.procs", O_WRONLY);
	if (procs < 0 || write(procs, self, strlen(self)) < 0 || setns(ns_fd, CLONE_NEWNET))
		_exit(1);
	sin.sin_addr.s_addr = inet_addr("203.0.113.1");
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ufd = socket(AF_INET, SOCK_DGRAM, 0);
	if (lfd < 0 || ufd < 0)
		_exit(2);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 4096))
		_exit(2);
	while (read(cmd, &c, sizeof(c)) == sizeof(c)) {
		double t0 = bench_cpu_ns(), t;
		long i;

		for (i = 0; i < c.n && c.type == SOCK_STREAM; i++) {
			int fd = socket(AF_INET, SOCK_STREAM, 0), a;

			if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
				_exit(3);
			a = accept(lfd, NULL, NULL);
			close(a);
			close(fd);
		}
		for (i = 0; i < c.n && c.type == SOCK_DGRAM; i++)
			if (connect(ufd, (struct sockaddr *)&sin, sizeof(sin)))
				_exit(3);
		t = bench_cpu_ns() - t0;
		if (write(res, &t, sizeof(t)) != sizeof(t))
			_exit(4);
	}
	_exit(0);
}

/* worker_start() - @w in the cgroup @cg_fd and the namespace @ns_fd; it
 * closes its copies of the pipes of the @n workers before it in @all, so
 * that each ends when its own command pipe closes. Fork the workers after
 * any other long-lived child (a namespace's holder would keep their pipes
 * open). Return: 0, or -1. */
static int worker_start(struct worker *w, int cg_fd, int ns_fd, const struct worker *all, int n)
{
	int to[2], from[2];

	if (pipe(to))
		return -1;
	if (pipe(from)) {
		close(to[0]);
		close(to[1]);
		return -1;
	}
	w->pid = fork();
	if (w->pid == 0) {
		close(to[1]);
		close(from[0]);
		for (int i = 0; i < n; i++) {
			close(all[i].cmd);
			close(all[i].res);
		}
		worker_loop(cg_fd, ns_fd, to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	w->cmd = to[1];
	w->res = from[0];
	return w->pid > 0 ? 0 : -1;
}

/* worker_send() - start @n connects of @type in @w. Return: 0, or -1. */
static int worker_send(const struct worker *w, int type, long n)
{
	struct worker_cmd c = { .type = type, .n = n };

	return write(w->cmd, &c, sizeof(c)) == sizeof(c) ? 0 : -1;
}

/* worker_wait() - the CPU ns of what @w was sent, added to @total.
 * Return: 0, or -1 (the worker failed). */
static int worker_wait(const struct worker *w, double *total)
{
	double t;

	if (read(w->res, &t, sizeof(t)) != sizeof(t))
		return -1;
	*total += t;
	return 0;
}

/* workers_stop() - end @w[0..@n-1] and wait for them; empty ones are fine.
 * Every pipe is closed before the first wait: a worker forked later holds
 * copies of its elders' command pipes, which end only with it. */
static void workers_stop(struct worker *w, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (w[i].cmd >= 0)
			close(w[i].cmd);
		if (w[i].res >= 0)
			close(w[i].res);
	}
	for (i = 0; i < n; i++) {
		if (w[i].pid > 0)
			waitpid(w[i].pid, NULL, 0);
		w[i] = (struct worker)WORKER_NONE;
	}
}

/* interleaved() - @n connects of @type in each worker of @order[0..@count-1]
 * in @blocks blocks, the order reversed from one block to the next
 * (ABC CBA ABC ...): @ns[v], ns per connect. Return: 0, or -1. */
static int interleaved(struct worker *w, const int *order, int count, int type, long n, long blocks,
		       double ns[VARIANTS])
{
	double total[VARIANTS] = { 0 };
	long b, per = n / blocks;
	int i;

	for (b = 0; b < blocks; b++)
		for (i = 0; i < count; i++) {
			int v = order[b % 2 ? count - 1 - i : i];

			if (worker_send(&w[v], type, per) || worker_wait(&w[v], &total[v]))
				return -1;
		}
	for (i = 0; i < count; i++)
		ns[order[i]] = total[order[i]] / (double)(per * blocks);
	return 0;
}

/* load() - @cfg compiled, loaded for the namespace @cookie and attached to
 * @cg_fd. Return: 0 or -errno. */
static int load(const struct config *cfg, int cg_fd, __u64 cookie, struct jail_bpf **jail)
{
	struct loader_options opts = { .netns_cookie = cookie };
	struct host_facts none = { 0 };
	struct policy p = { 0 };
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

/* big_config() - @cfg with @entries allow-ip lines and as many block-cidr
 * lines (@entries at most 64,000) */
static void big_config(struct config *cfg, long entries)
{
	char line[64];
	long i;

	for (i = 0; i < entries; i++) {
		int len = snprintf(line, sizeof(line), "allow-ip = 198.18.%ld.%ld\n", i / 250,
				   i % 250 + 1);

		config_parse_buffer(cfg, "bench", line, (size_t)len);
		len = snprintf(line, sizeof(line), "block-cidr = 45.%ld.%ld.0/24\n", i / 250, i % 250);
		config_parse_buffer(cfg, "bench", line, (size_t)len);
	}
}

/* connects() - the variants of @order_text, @n TCP and 10 @n UDP connects
 * each, interleaved in @blocks blocks. Return: 0, or 1 (said on stderr). */
static int connects(long n, long blocks, const char *order_text)
{
	struct netns ns[VARIANTS] = { NETNS_NONE, NETNS_NONE, NETNS_NONE };
	struct worker w[VARIANTS] = { WORKER_NONE, WORKER_NONE, WORKER_NONE };
	struct jail_bpf *jail[VARIANTS] = { NULL };
	int order[VARIANTS], cg[VARIANTS] = { -1, -1, -1 };
	double tcp[VARIANTS], udp[VARIANTS];
	int count, i, v, ret = 1;
	struct config cfg[VARIANTS];
	char key[32];

	count = bench_order(order_text, variant_names, VARIANTS, order);
	if (count < 0 || blocks > n)
		return 1;
	for (v = 0; v < VARIANTS; v++)
		config_init(&cfg[v]);
	big_config(&cfg[2], 10000);
	/* Everything set up before the first measurement, so that none
	 * falls on another's loading. */
	for (i = 0; i < count; i++) {
		v = order[i];
		cg[v] = bench_cgroup(variant_names[v]);
		if (cg[v] < 0 || bench_netns(&ns[v])) {
			fprintf(stderr, "bench-connect: no cgroup or namespace for %s\n", variant_names[v]);
			goto out;
		}
		if (v && load(&cfg[v], cg[v], ns[v].cookie, &jail[v])) {
			fprintf(stderr, "bench-connect: cannot load the %s policy\n", variant_names[v]);
			goto out;
		}
	}
	for (v = 0; v < VARIANTS; v++)
		if (cg[v] >= 0 && worker_start(&w[v], cg[v], ns[v].fd, w, v)) {
			fprintf(stderr, "bench-connect: cannot start the %s worker\n", variant_names[v]);
			goto out;
		}
	if (interleaved(w, order, count, SOCK_STREAM, n, blocks, tcp) ||
	    interleaved(w, order, count, SOCK_DGRAM, n * 10, blocks, udp)) {
		fprintf(stderr, "bench-connect: a measuring worker failed\n");
		goto out;
	}
	for (i = 0; i < count; i++) {
		v = order[i];
		snprintf(key, sizeof(key), "tcp.%s", variant_names[v]);
		bench_figure(key, tcp[v]);
		snprintf(key, sizeof(key), "udp.%s", variant_names[v]);
		bench_figure(key, udp[v]);
	}
	ret = 0;
out:
	workers_stop(w, VARIANTS);
	for (v = 0; v < VARIANTS; v++) {
		loader_close(jail[v]);
		config_free(&cfg[v]);
		netns_close(&ns[v]);
		if (cg[v] >= 0)
			close(cg[v]);
	}
	return ret;
}

/* swaps() - swap time of a big policy, and UDP connect() latency while
 * swaps run vs. the same measurement without, in the order @order_text.
 * Return: 0, or 1 (said on stderr). */
static int swaps(long n, long entries, const char *order_text)
{
	static const char *const names[2] = { "quiet", "busy" };
	struct netns ns = NETNS_NONE;
	struct host_facts none = { 0 };
	struct loader_options opts = { 0 };
	struct policy p = { 0 };
	struct worker w = WORKER_NONE;
	struct jail_bpf *jail = NULL;
	double udp[2] = { -1, -1 }, t0, swap_ms = 0;
	int order[2], count, swapped = 0, cg, i, ret = 1;
	struct config big;
	char line[64];
	long e;

	count = bench_order(order_text, names, 2, order);
	if (count < 0)
		return 1;
	config_init(&big);
	for (e = 0; e < entries; e++) {
		int len = snprintf(line, sizeof(line), "allow-ip = %ld.%ld.%ld.1\n", 20 + e / 65536,
				   (e / 256) % 256, e % 256);

		config_parse_buffer(&big, "bench", line, (size_t)len);
	}
	cg = bench_cgroup("swaps");
	if (cg < 0 || bench_netns(&ns))
		goto out;
	opts.netns_cookie = ns.cookie;
	if (policy_compile(&big, &none, &p) || loader_open(&opts, &jail) ||
	    loader_set_policy(jail, p.rules, p.n) || loader_attach_cgroup(jail, cg)) {
		fprintf(stderr, "bench-connect: cannot load the %ld-entry policy\n", entries);
		goto out;
	}
	if (worker_start(&w, cg, ns.fd, NULL, 0))
		goto out;
	for (i = 0; i < count; i++) {
		struct pollfd done = { .fd = w.res, .events = POLLIN };

		udp[order[i]] = 0;
		if (worker_send(&w, SOCK_DGRAM, n * 10))
			goto out;
		/* busy: swaps back to back until the worker is done */
		while (order[i] == 1 && poll(&done, 1, 0) == 0 && swapped < 1000) {
			t0 = now_ms();
			if (loader_set_policy(jail, p.rules, p.n))
				break;
			swap_ms += now_ms() - t0;
			swapped++;
		}
		if (worker_wait(&w, &udp[order[i]]))
			udp[order[i]] = -1;
		else
			udp[order[i]] /= (double)(n * 10);
	}
	if (udp[0] < 0 || udp[1] < 0 || !swapped) {
		fprintf(stderr, "bench-connect: the swap measurement failed\n");
		goto out;
	}
	bench_figure("swap", swap_ms / swapped);
	bench_figure("udp.quiet", udp[0]);
	bench_figure("udp.busy", udp[1]);
	ret = 0;
out:
	workers_stop(&w, 1);
	loader_close(jail);
	policy_free(&p);
	config_free(&big);
	netns_close(&ns);
	if (cg >= 0)
		close(cg);
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
 * an RCU grace period) and the attach. Return: 0, or 1. */
static int startup(long runs)
{
	double open_ms[32], all_ms[32];
	int cg = bench_cgroup("startup");
	long i;

	if (cg < 0)
		return 1;
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
			err = loader_attach_cgroup(jail, cg);
		open_ms[i] = t1 - t0;
		all_ms[i] = now_ms() - t0;
		loader_close(jail);
		if (err) {
			close(cg);
			return fprintf(stderr, "bench-connect: loading failed: %s\n", strerror(-err)), 1;
		}
	}
	close(cg);
	qsort(open_ms, (size_t)runs, sizeof(open_ms[0]), by_value);
	qsort(all_ms, (size_t)runs, sizeof(all_ms[0]), by_value);
	bench_figure("load", open_ms[runs / 2]);
	bench_figure("attach", all_ms[runs / 2]);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench-connect connect N BLOCKS ORDER | startup RUNS | swaps N ENTRIES ORDER\n");
	return 2;
}

int main(int argc, char **argv)
{
	char root[256];
	sigset_t stop;
	long n, m;
	int ret;

	/* A reader that goes away (| head) must not kill us before the
	 * cgroups below are removed: the figures are lost, not the cleanup. */
	signal(SIGPIPE, SIG_IGN);
	/* Nor a TERM, INT or HUP (bench/run.sh interrupted, a pkill): held
	 * until the cgroups are gone, then taken as it came. The workers
	 * inherit the mask and end their block, a few seconds at most. A
	 * killed run left its cgroup behind before. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	if (argc < 3)
		return usage();
	if (cgroup_v2_root(root, sizeof(root)))
		return fprintf(stderr, "bench-connect: no cgroup v2\n"), 1;
	snprintf(cg_root, sizeof(cg_root), "%s/ebpfjail-bench-%d", root, getpid());
	if (mkdir(cg_root, 0755))
		return perror(cg_root), 1;
	n = bench_count("N", argv[2], 1, 10000000);
	if (!strcmp(argv[1], "connect") && argc == 5 && n > 0 &&
	    (m = bench_count("BLOCKS", argv[3], 1, n)) > 0)
		ret = connects(n, m, argv[4]);
	else if (!strcmp(argv[1], "startup") && argc == 3 && n > 0)
		ret = startup(n);
	else if (!strcmp(argv[1], "swaps") && argc == 5 && n > 0 &&
		 (m = bench_count("ENTRIES", argv[3], 1, 1000000)) > 0)
		ret = swaps(n, m, argv[4]);
	else
		ret = usage();
	bench_cgroups_remove();
	sigprocmask(SIG_UNBLOCK, &stop, NULL);
	return ret;
}
