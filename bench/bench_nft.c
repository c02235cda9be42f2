// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bench_nft.c - the cost of connect() with the rootless engine's rules
 *
 * One round per run, for bench/connect.sh, which runs it in rounds and
 * leaves the judging to bench/lib.sh. As uid 65534 in a user and network
 * namespace of its own (what the rootless engine runs in), a client
 * connects TCP sockets over a veth pair to a listener in a second
 * namespace (so every SYN passes the output hook, as a jail's do on their
 * way to the tap) and closes them, N times in each variant of ORDER: bare
 * (no rules), default (the default policy's) and large (M allow-ip plus M
 * block-cidr entries), in BLOCKS blocks, the variants taking turns block
 * by block (ABC CBA ...: each turn applies the variant's rules, outside
 * the timing). Nothing leaves the two namespaces. The figure is the
 * client's CPU time per connect (bench_cpu_ns()). SPEC.md: default <=
 * 1.10x of bare.
 *
 * Usage: bench-nft N M BLOCKS ORDER   (root, to become uid 65534; ORDER
 *                                     comma-separated, "large,default,bare")
 * Output: "FIG<TAB>tcp.VARIANT<TAB>ns" lines.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "benchutil.h"
#include "nftengine.h"
#include "policy.h"
#include "rootlessns.h"

/* listener() - in a namespace of its own: 203.0.113.1:8080 on the veth's
 * far end, accepting until killed; says "ready" down @ready */
static void listener(int ready)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(8080) };
	int fd, one = 1;

	/* Gone with the measuring child, whatever way it ends. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (unshare(CLONE_NEWNET))
		_exit(1);
	if (write(ready, "n", 1) != 1) /* the namespace exists: take j1 */
		_exit(1);
	/* Wait for j1 to arrive (bounded: 5 s). */
	for (int i = 0; i < 500 && system("ip link show j1 >/dev/null 2>&1"); i++)
		usleep(10000);
	if (system("ip link set lo up && ip addr add 203.0.113.1/24 dev j1 && ip link set j1 up"))
		_exit(2);
	sin.sin_addr.s_addr = inet_addr("203.0.113.1");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 4096))
		_exit(3);
	if (write(ready, "r", 1) != 1)
		_exit(4);
	for (;;)
		close(accept(fd, NULL, NULL));
}

/* connects() - @n connect()+close() to 203.0.113.1:8080: ns each */
static double connects(long n)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(8080) };
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	double t0 = bench_cpu_ns();
	long i;

	sin.sin_addr.s_addr = inet_addr("203.0.113.1");
	for (i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		/* A reset, not a FIN: no TIME_WAIT to run out of ports with,
		 * in every run alike. */
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
			_exit(14);
		close(fd);
	}
	return (bench_cpu_ns() - t0) / (double)n;
}

#define VARIANTS 3

static const char *const variant_names[VARIANTS] = { "bare", "default", "large" };

/* measure() - in a child: the namespaces, a warm-up, then the variants of
 * @order[0..@count-1] (bare: no rules; else @policies[v]) in turns of
 * @n / @blocks connects, the order reversed from one turn to the next;
 * @ns[v]: its ns per connect. Return: 0, or -1. */
static int measure(const struct policy *const policies[VARIANTS], long n, long blocks,
		   const int *order, int count, double ns[VARIANTS])
{
	int pipefd[2];
	int status;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		double got[VARIANTS] = { 0 };
		long b, per = n / blocks;
		struct nftengine engine = { 0 };
		char cmd[256], why[256], c;
		int ready[2], i, v;
		pid_t far;

		if (rootless_netns() || pipe(ready))
			_exit(10);
		far = fork();
		if (far < 0)
			_exit(10);
		if (far == 0) {
			close(pipefd[1]);
			close(ready[0]);
			listener(ready[1]);
		}
		/* Only the listener holds the write end: if it dies, the
		 * reads below see the end, not a wait for ever. */
		close(ready[1]);
		if (read(ready[0], &c, 1) != 1)
			_exit(11);
		snprintf(cmd, sizeof(cmd),
			 "ip link add j0 type veth peer name j1 netns %d"
			 " && ip addr add 203.0.113.2/24 dev j0 && ip link set j0 up", (int)far);
		if (system(cmd) || read(ready[0], &c, 1) != 1 || c != 'r')
			_exit(12);
		connects(n); /* warm up */
		for (b = 0; b < blocks; b++)
			for (i = 0; i < count; i++) {
				v = order[b % 2 ? count - 1 - i : i];
				/* No rules: an empty policy's table would still
				 * hook the output path; none at all is the base. */
				if (v == 0 && nftengine_remove(&engine, why, sizeof(why)))
					_exit(13);
				if (v && nftengine_apply(&engine, policies[v], why, sizeof(why))) {
					fprintf(stderr, "bench-nft: %s\n", why);
					_exit(13);
				}
				got[v] += connects(per) / (double)blocks;
			}
		kill(far, SIGKILL);
		waitpid(far, NULL, 0);
		_exit(write(pipefd[1], got, sizeof(got)) == sizeof(got) ? 0 : 15);
	}
	close(pipefd[1]);
	status = pid > 0 && read(pipefd[0], ns, sizeof(double) * VARIANTS) ==
				    (ssize_t)(sizeof(double) * VARIANTS) ? 0 : -1;
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return status;
}

int main(int argc, char **argv)
{
	struct host_facts none = { 0 };
	struct config plain, big;
	struct policy pp = { 0 }, pb = { 0 };
	const struct policy *policies[VARIANTS] = { NULL, &pp, &pb };
	double ns[VARIANTS];
	int order[VARIANTS], count, i, ret = 1;
	char line[64];
	long n, big_n, blocks;

	if (argc != 5) {
		fprintf(stderr, "usage: bench-nft N M BLOCKS ORDER\n");
		return 2;
	}
	n = bench_count("N", argv[1], 1, 10000000);
	big_n = bench_count("M", argv[2], 0, 64000);
	blocks = n > 0 ? bench_count("BLOCKS", argv[3], 1, n) : -1;
	count = bench_order(argv[4], variant_names, VARIANTS, order);
	if (n < 0 || big_n < 0 || blocks < 0 || count < 0)
		return 2;
	config_init(&plain);
	config_init(&big);
	for (i = 0; i < (int)big_n; i++) {
		int len = snprintf(line, sizeof(line), "allow-ip = 198.18.%d.%d\n", i / 250,
				   i % 250 + 1);

		config_parse_buffer(&big, "bench", line, (size_t)len);
		len = snprintf(line, sizeof(line), "block-cidr = 45.%d.%d.0/24\n", i / 250, i % 250);
		config_parse_buffer(&big, "bench", line, (size_t)len);
	}
	if (!config_ok(&big) || policy_compile(&plain, &none, &pp) ||
	    policy_compile(&big, &none, &pb))
		goto out;
	if (measure(policies, n, blocks, order, count, ns)) {
		fprintf(stderr, "bench-nft: the measuring child failed\n");
		goto out;
	}
	for (i = 0; i < count; i++) {
		snprintf(line, sizeof(line), "tcp.%s", variant_names[order[i]]);
		bench_figure(line, ns[order[i]]);
	}
	ret = 0;
out:
	policy_free(&pp);
	policy_free(&pb);
	config_free(&plain);
	config_free(&big);
	return ret;
}
