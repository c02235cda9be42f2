// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_sock.c - the socket hooks on the real kernel, one probe per way out
 *
 * Each test makes the jail's network namespace (netns_create(), as the jail
 * does), whose only interface is lo (carrying the test's "internet" and
 * "private" addresses, so nothing can leave the machine), and loads the
 * programs with its cookie. A child joins a test cgroup with the hooks
 * attached, enters that namespace, drops to uid 4242, and tries every way
 * of sending: TCP and UDP connect, unconnected sendto, sendmmsg, TCP Fast
 * Open, AF_INET6 sockets with IPv4-mapped and real IPv6 destinations, the
 * jail loopback. Each result is compared with the verdict the policy
 * promises, and each denial with the single event it must have produced.
 * Another child does the same from a second, fresh namespace (the
 * "foreign" one, as bubblewrap in the jail would make): loopback only.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <criterion/criterion.h>

#include "builtin.h"
#include "cgroup.h"
#include "denials.h"
#include "loader.h"
#include "netns.h"
#include "testutil.h"
#include "policy.h"

#define PROBE_UID 4242
#define PROBE_COMM "jailprobe"

enum op {
	OP_TCP_CONNECT,
	OP_UDP_CONNECT,
	OP_UDP_SENDTO,
	OP_UDP_SENDMMSG_ALLOWED_THEN_DENIED, /* returns how many went: want 1 */
	OP_TCP_FASTOPEN,
};

struct probe {
	enum op op;
	int family;      /* AF_INET, or AF_INET6 for mapped or real IPv6 */
	char addr[48];   /* IPv4 dotted quad (mapped for AF_INET6), or IPv6 text */
	uint16_t port;
	int want_errno;  /* 0 = allowed */
	int hook;        /* expected event's hook, when denied */
	int reason;      /* expected event's reason, when denied */
};

static const struct probe probes[] = {
	{ OP_TCP_CONNECT, AF_INET, "203.0.113.1", 8080, 0, 0, 0 },
	{ OP_TCP_CONNECT, AF_INET, "10.9.9.9", 80, EPERM, HOOK_CONNECT4, REASON_PRIVATE },
	{ OP_TCP_CONNECT, AF_INET, "10.1.2.3", 502, 0, 0, 0 },
	{ OP_TCP_CONNECT, AF_INET, "10.1.2.3", 22, EPERM, HOOK_CONNECT4, REASON_PRIVATE },
	{ OP_TCP_CONNECT, AF_INET, "169.254.169.254", 80, EPERM, HOOK_CONNECT4, REASON_METADATA },
	{ OP_TCP_CONNECT, AF_INET, "127.0.0.1", 9000, 0, 0, 0 },
	{ OP_UDP_CONNECT, AF_INET, "10.9.9.9", 53, EPERM, HOOK_CONNECT4, REASON_PRIVATE },
	{ OP_UDP_CONNECT, AF_INET, "203.0.113.1", 9999, 0, 0, 0 },
	{ OP_UDP_SENDTO, AF_INET, "10.9.9.9", 5000, EPERM, HOOK_SENDMSG4, REASON_PRIVATE },
	{ OP_UDP_SENDTO, AF_INET, "192.168.1.1", 5000, EPERM, HOOK_SENDMSG4, REASON_PRIVATE },
	{ OP_UDP_SENDTO, AF_INET, "203.0.113.1", 9999, 0, 0, 0 },
	{ OP_UDP_SENDMMSG_ALLOWED_THEN_DENIED, AF_INET, "10.9.9.9", 5001, EPERM, HOOK_SENDMSG4,
	  REASON_PRIVATE },
	{ OP_TCP_FASTOPEN, AF_INET, "10.9.9.9", 80, EPERM, HOOK_CONNECT4, REASON_PRIVATE },
	{ OP_TCP_FASTOPEN, AF_INET, "203.0.113.1", 8080, 0, 0, 0 },
	{ OP_TCP_CONNECT, AF_INET6, "10.9.9.9", 81, EPERM, HOOK_CONNECT6, REASON_PRIVATE },
	{ OP_TCP_CONNECT, AF_INET6, "203.0.113.1", 8080, 0, 0, 0 },
	{ OP_UDP_CONNECT, AF_INET6, "10.9.9.9", 54, EPERM, HOOK_CONNECT6, REASON_PRIVATE },
	/* udpv6_sendmsg() hands mapped destinations to udp_sendmsg(): the
	 * sendmsg4 hook judges them, and the event says family inet6. */
	{ OP_UDP_SENDTO, AF_INET6, "10.9.9.9", 5002, EPERM, HOOK_SENDMSG4, REASON_PRIVATE },
	{ OP_UDP_SENDTO, AF_INET6, "203.0.113.1", 9999, 0, 0, 0 },
	{ OP_TCP_CONNECT, AF_INET6, "::1", 9000, EPERM, HOOK_CONNECT6, REASON_IPV6 },
	{ OP_UDP_SENDTO, AF_INET6, "2001:db8::1", 53, EPERM, HOOK_SENDMSG6, REASON_IPV6 },
	{ OP_UDP_CONNECT, AF_INET6, "::1", 53, EPERM, HOOK_CONNECT6, REASON_IPV6 },
	/* The DNS forward address: port 53 is the jail's forwarder's (UDP
	 * and TCP; no listener here), every other port refused. */
	{ OP_UDP_SENDTO, AF_INET, "169.254.1.1", 53, 0, 0, 0 },
	{ OP_UDP_CONNECT, AF_INET, "169.254.1.1", 53, 0, 0, 0 },
	{ OP_TCP_CONNECT, AF_INET, "169.254.1.1", 80, EPERM, HOOK_CONNECT4, REASON_GATEWAY },
	{ OP_UDP_SENDTO, AF_INET, "169.254.1.1", 5353, EPERM, HOOK_SENDMSG4, REASON_GATEWAY },
};

#define N_PROBES (sizeof(probes) / sizeof(probes[0]))

/* From a namespace that is not the jail's: its own loopback, nothing else,
 * whatever the policy says (the DNS exception, the internet, allow-ip). */
static const struct probe foreign_probes[] = {
	{ OP_TCP_CONNECT, AF_INET, "203.0.113.1", 8080, EPERM, HOOK_CONNECT4, REASON_NETNS },
	{ OP_TCP_CONNECT, AF_INET, "10.1.2.3", 502, EPERM, HOOK_CONNECT4, REASON_NETNS },
	{ OP_TCP_CONNECT, AF_INET, "10.9.9.9", 80, EPERM, HOOK_CONNECT4, REASON_NETNS },
	{ OP_UDP_CONNECT, AF_INET, "169.254.1.1", 53, EPERM, HOOK_CONNECT4, REASON_NETNS },
	{ OP_UDP_SENDTO, AF_INET, "203.0.113.1", 9999, EPERM, HOOK_SENDMSG4, REASON_NETNS },
	{ OP_TCP_FASTOPEN, AF_INET, "203.0.113.1", 8080, EPERM, HOOK_CONNECT4, REASON_NETNS },
	{ OP_TCP_CONNECT, AF_INET6, "203.0.113.1", 8080, EPERM, HOOK_CONNECT6, REASON_NETNS },
	{ OP_UDP_SENDTO, AF_INET6, "203.0.113.1", 9999, EPERM, HOOK_SENDMSG4, REASON_NETNS },
	{ OP_TCP_CONNECT, AF_INET6, "::1", 9000, EPERM, HOOK_CONNECT6, REASON_IPV6 },
	{ OP_TCP_CONNECT, AF_INET, "127.0.0.1", 9000, 0, 0, 0 },
	{ OP_TCP_CONNECT, AF_INET, "127.1.2.3", 9000, 0, 0, 0 },
	{ OP_TCP_CONNECT, AF_INET6, "127.0.0.1", 9000, 0, 0, 0 },
	{ OP_UDP_SENDTO, AF_INET, "127.0.0.1", 9999, 0, 0, 0 },
	{ OP_UDP_SENDTO, AF_INET6, "127.0.0.1", 9999, 0, 0, 0 },
};

#define N_FOREIGN_PROBES (sizeof(foreign_probes) / sizeof(foreign_probes[0]))

static struct netns ns = { .holder = -1, .fd = -1, .host_fd = -1, .user_fd = -1 };
static int cg_fd = -1;
static struct jail_bpf *jail;
static struct config cfg;
static struct policy pol;
static struct test_events seen; /* the denials, as the loader hands them over */

/* jail_netns() - the jail's namespace, with lo up and the test's
 * addresses on it, configured by a child (setns() wants one thread). */
static void jail_netns(void)
{
	int status;
	pid_t pid;

	cr_assert_eq(netns_create(&ns), 0);
	cr_assert_neq(ns.cookie, 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (setns(ns.fd, CLONE_NEWNET))
			_exit(1);
		_exit(system("ip link set lo up && ip addr add 203.0.113.1/32 dev lo && "
			     "ip addr add 10.1.2.3/32 dev lo && ip addr add 10.9.9.9/32 dev lo && "
			     "ip addr add 192.168.1.1/32 dev lo && "
			     "ip addr add 169.254.1.1/32 dev lo") ? 2 : 0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "cannot configure the namespace");
}

/* open_jail() - the programs on the test's cgroup and namespace
 * @window_ns: the window of aggregation; 1: every denial an event */
static void open_jail(__u64 window_ns)
{
	static const char conf[] = "allow-ip = 10.1.2.3:502\n";
	struct loader_options opts = { .on_event = test_events_add, .ctx = &seen,
				       .denial_window_ns = window_ns };
	struct host_facts none = { .dns_forward = htonl(0xa9fe0101) /* 169.254.1.1 */ };

	if (geteuid() != 0)
		cr_skip_test("needs root: BPF programs, cgroups and namespaces");
	config_init(&cfg);
	config_parse_buffer(&cfg, "sock.conf", conf, sizeof(conf) - 1);
	cr_assert(config_ok(&cfg));
	cr_assert_eq(policy_compile(&cfg, &none, &pol), 0);
	jail_netns();
	opts.netns_cookie = ns.cookie;
	cr_assert_eq(loader_open(&opts, &jail), 0);
	cr_assert_eq(loader_set_policy(jail, pol.rules, pol.n), 0);
	cg_fd = test_cgroup_open("sock");
	cr_assert_eq(loader_attach_cgroup(jail, cg_fd), 0);
	seen.n = seen.total = 0;
}

/* Every denial an event, so that each probe's can be checked. */
static void setup(void)
{
	open_jail(1);
}

/* The jail's own window: repeats are tallied. */
static void setup_aggregated(void)
{
	open_jail(0);
}

static void teardown(void)
{
	loader_close(jail);
	jail = NULL;
	policy_free(&pol);
	config_free(&cfg);
	test_cgroup_close();
	cg_fd = -1;
	netns_close(&ns);
}

/* --- the child ----------------------------------------------------------- */

static socklen_t make_addr(int family, const char *text, uint16_t port,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		inet_pton(AF_INET, text, &sin->sin_addr);
		return sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
		char mapped[64];

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (!strchr(text, ':')) {
			snprintf(mapped, sizeof(mapped), "::ffff:%s", text);
			text = mapped;
		}
		inet_pton(AF_INET6, text, &sin6->sin6_addr);
		return sizeof(*sin6);
	}
}

static int run_probe(const struct probe *p)
{
	struct sockaddr_storage ss, ok_ss;
	socklen_t len = make_addr(p->family, p->addr, p->port, &ss), ok_len;
	int type = p->op == OP_TCP_CONNECT || p->op == OP_TCP_FASTOPEN ? SOCK_STREAM : SOCK_DGRAM;
	int fd = socket(p->family, type | SOCK_CLOEXEC, 0), ret = 0;
	char byte = 'x';

	if (fd < 0)
		return -1000 - errno;
	switch (p->op) {
	case OP_TCP_CONNECT:
	case OP_UDP_CONNECT:
		ret = connect(fd, (struct sockaddr *)&ss, len) ? errno : 0;
		break;
	case OP_UDP_SENDTO:
		ret = sendto(fd, &byte, 1, 0, (struct sockaddr *)&ss, len) < 0 ? errno : 0;
		break;
	case OP_TCP_FASTOPEN:
		ret = sendto(fd, &byte, 1, MSG_FASTOPEN, (struct sockaddr *)&ss, len) < 0 ? errno : 0;
		break;
	case OP_UDP_SENDMMSG_ALLOWED_THEN_DENIED: {
		struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
		struct mmsghdr m[2];
		int sent;

		ok_len = make_addr(p->family, "203.0.113.1", 9999, &ok_ss);
		memset(m, 0, sizeof(m));
		m[0].msg_hdr = (struct msghdr){ .msg_name = &ok_ss, .msg_namelen = ok_len,
						.msg_iov = &iov, .msg_iovlen = 1 };
		m[1].msg_hdr = (struct msghdr){ .msg_name = &ss, .msg_namelen = len,
						.msg_iov = &iov, .msg_iovlen = 1 };
		sent = sendmmsg(fd, m, 2, 0);
		/* The first goes, the second is refused: sendmmsg reports 1,
		 * and a retry of the denied one alone fails with EPERM. */
		if (sent != 1)
			ret = -2000 - sent;
		else
			ret = sendmmsg(fd, &m[1], 1, 0) < 0 ? errno : -3000;
		break;
	}
	}
	close(fd);
	return ret;
}

static int listen_on(int type, const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(AF_INET, addr, port, &ss);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0), one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) ||
	    (type == SOCK_STREAM && listen(fd, 64)))
		return -1;
	return fd;
}

/* probe_child() - in the cgroup, in the jail's namespace (or, @foreign,
 * a fresh one of its own, as the agent may make), as PROBE_UID: run @fn,
 * which writes its results to @out. Returns the child's pid. */
static pid_t probe_child(void (*fn)(int out), int out, bool foreign)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid)
		return pid;

	char self[32];
	int procs;

	snprintf(self, sizeof(self), "%d", getpid());
	procs = openat(cg_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (procs < 0 || write(procs, self, strlen(self)) < 0)
		_exit(90);
	close(procs);
	if (foreign) {
		/* Only lo, and nothing on it but loopback: the probes that
		 * the hooks let through fail for lack of a route. */
		if (unshare(CLONE_NEWNET) || system("ip link set lo up"))
			_exit(91);
		if (listen_on(SOCK_STREAM, "0.0.0.0", 9000) < 0 ||
		    listen_on(SOCK_DGRAM, "127.0.0.1", 9999) < 0)
			_exit(93);
	} else {
		/* Everything on lo: the addresses are local, nothing can
		 * leave. Listeners for what should get through (listen() has
		 * no hook), bound while still root: 502 is a privileged port. */
		if (setns(ns.fd, CLONE_NEWNET))
			_exit(91);
		if (listen_on(SOCK_STREAM, "203.0.113.1", 8080) < 0 ||
		    listen_on(SOCK_STREAM, "10.1.2.3", 502) < 0 ||
		    listen_on(SOCK_STREAM, "127.0.0.1", 9000) < 0 ||
		    listen_on(SOCK_DGRAM, "203.0.113.1", 9999) < 0 ||
		    listen_on(SOCK_DGRAM, "169.254.1.1", 53) < 0)
			_exit(93);
	}
	prctl(PR_SET_NAME, PROBE_COMM);
	if (setresgid(PROBE_UID, PROBE_UID, PROBE_UID) || setresuid(PROBE_UID, PROBE_UID, PROBE_UID))
		_exit(92);
	fn(out);
	_exit(0);
}

static void run_table(int out, const struct probe *table, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int r = run_probe(&table[i]);

		if (write(out, &r, sizeof(r)) != sizeof(r))
			_exit(94);
	}
}

static void all_probes(int out)
{
	run_table(out, probes, N_PROBES);
}

static void all_foreign_probes(int out)
{
	run_table(out, foreign_probes, N_FOREIGN_PROBES);
}

static void wait_child(pid_t pid)
{
	int status;

	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "probe child failed (exit %d; 95 is its socket())", WEXITSTATUS(status));
}

TestSuite(sock, .init = setup, .fini = teardown, .timeout = 60);

/* run_and_check() - run @table in a probe child; each result must be the
 * promised verdict, and each denial exactly one event with its fields */
static void run_and_check(const struct probe *table, size_t n, void (*fn)(int out),
			  bool foreign)
{
	static const char no_tail[sizeof(struct jail_event)];
	int results[N_PROBES], pipefd[2];
	unsigned int denied = 0, e = 0;
	pid_t pid;
	size_t i;

	cr_assert_leq(n, N_PROBES);
	cr_assert_eq(pipe(pipefd), 0);
	pid = probe_child(fn, pipefd[1], foreign);
	close(pipefd[1]);
	for (i = 0; i < n; i++)
		cr_assert_eq(read(pipefd[0], &results[i], sizeof(int)), sizeof(int),
			     "probe child stopped before probe %zu", i);
	close(pipefd[0]);
	wait_child(pid);
	loader_events_poll(jail, 0);

	for (i = 0; i < n; i++) {
		const struct probe *p = &table[i];

		cr_expect_eq(results[i], p->want_errno, "probe %zu (%s %s:%u): got %d (%s), want %s",
			     i, p->family == AF_INET ? "inet" : "inet6", p->addr, p->port, results[i],
			     results[i] > 0 ? strerror(results[i]) : "-",
			     p->want_errno ? strerror(p->want_errno) : "success");
		/* sendmmsg is denied twice: in the batch, then alone. */
		denied += p->want_errno ? (p->op == OP_UDP_SENDMMSG_ALLOWED_THEN_DENIED ? 2 : 1) : 0;
	}
	cr_assert_eq(seen.total, denied, "one event per denial: %u events, %u denials",
		     seen.total, denied);

	for (i = 0; i < n; i++) {
		const struct probe *p = &table[i];
		const struct jail_event *ev;

		if (!p->want_errno)
			continue;
		if (p->op == OP_UDP_SENDMMSG_ALLOWED_THEN_DENIED)
			e++; /* the batch's event; the retry's is checked below */
		ev = &seen.e[e++];
		cr_expect_eq(ev->pid, (uint32_t)pid, "probe %zu: pid %u", i, ev->pid);
		cr_expect_eq(ev->uid, PROBE_UID, "probe %zu: uid %u", i, ev->uid);
		cr_expect_str_eq(ev->comm, PROBE_COMM, "probe %zu", i);
		cr_expect_eq(ev->hook, p->hook, "probe %zu: hook %s, want %s", i, hook_name(ev->hook),
			     hook_name((unsigned)p->hook));
		cr_expect_eq(ev->reason, p->reason, "probe %zu: reason %s, want %s", i,
			     reason_name(ev->reason), reason_name((unsigned)p->reason));
		cr_expect_eq(ev->dport, p->port, "probe %zu: dport %u (byte order?)", i, ev->dport);
		cr_expect_eq(ev->family, p->family, "probe %zu: family %u", i, ev->family);
		cr_expect_neq(ev->cgroup_id, 0);
		cr_expect_neq(ev->time_ns, 0);
		/* A network record is shorter than the struct: the reader
		 * hands it over whole, the rest zeroes (bpf/ebpfjail.h). */
		cr_expect_eq(memcmp((const char *)ev + JAIL_EVENT_INET_SIZE, no_tail,
				    sizeof(*ev) - JAIL_EVENT_INET_SIZE), 0,
			     "probe %zu: bytes past a network record are not zero", i);
		if (p->reason == REASON_IPV6) {
			struct in6_addr want;

			inet_pton(AF_INET6, p->addr, &want);
			cr_expect_eq(memcmp(ev->daddr6, &want, 16), 0, "probe %zu: IPv6 address", i);
		} else if (p->reason == REASON_NETNS) {
			/* No prefix decided it: rule none (bpf/ebpfjail.h). */
			cr_expect_eq(ev->daddr, inet_addr(p->addr), "probe %zu: daddr", i);
			cr_expect_eq(ev->rule_prefixlen, 0, "probe %zu: rule /%u", i,
				     ev->rule_prefixlen);
		} else {
			cr_expect_eq(ev->daddr, inet_addr(p->addr), "probe %zu: daddr", i);
			long m = policy_lookup(&pol, inet_addr(p->addr), htons(p->port));

			cr_assert_geq(m, 0);
			cr_expect_eq(ev->rule_prefixlen, pol.rules[m].value.prefixlen,
				     "probe %zu: rule /%u, the model says /%u", i, ev->rule_prefixlen,
				     pol.rules[m].value.prefixlen);
		}
		cr_expect_eq(ev->proto,
			     p->op == OP_TCP_CONNECT || p->op == OP_TCP_FASTOPEN ? IPPROTO_TCP : IPPROTO_UDP,
			     "probe %zu: proto %u", i, ev->proto);
	}
}

Test(sock, every_way_out)
{
	run_and_check(probes, N_PROBES, all_probes, false);
}

/* A namespace the agent made (unshare, bubblewrap) is not behind the tap:
 * loopback only, and every other destination is EPERM with reason netns,
 * the policy's allows included. */
Test(sock, foreign_namespace_gets_loopback_only)
{
	run_and_check(foreign_probes, N_FOREIGN_PROBES, all_foreign_probes, true);
}

/* --- aggregation (bpf/ebpfjail.h, "Aggregation") ---------------------- */

#define FLOOD 100000

/* flood_ports - how many destination ports the child floods: 1, the same
 * datagram over and over; more, one port after another (a key each). */
static unsigned int flood_ports = 1;
/* flood_metadata_at - the send that goes to the metadata service instead
 * (169.254.169.254:80), or -1 */
static int flood_metadata_at = -1;

static void flood(int out)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), denied = 0, i;
	char byte = 'x';

	if (fd < 0)
		_exit(95); /* not a send that got through */
	for (i = 0; i < FLOOD; i++) {
		sin.sin_addr.s_addr = inet_addr(i == flood_metadata_at ? "169.254.169.254" : "10.9.9.9");
		sin.sin_port = htons((uint16_t)(i == flood_metadata_at ? 80 : 5000 + (unsigned int)i % flood_ports));
		denied += sendto(fd, &byte, 1, 0, (struct sockaddr *)&sin, sizeof(sin)) < 0 &&
			  errno == EPERM;
	}
	if (write(out, &denied, sizeof(denied)) != sizeof(denied))
		_exit(94);
}

struct flood_tally {
	__u64 keys, repeats;      /* of the flood's own kind (private) */
	__u64 lost_metadata, shown_metadata;
	struct denial_book book;
};

static void tally_flood(void *ctx, const struct denial_key *k, const struct denial_tally *t)
{
	struct flood_tally *f = ctx;

	cr_expect_eq(k->hook, HOOK_SENDMSG4);
	if (k->reason == REASON_METADATA) {
		cr_expect_eq(k->daddr, inet_addr("169.254.169.254"));
	} else {
		cr_expect_eq(k->reason, REASON_PRIVATE);
		cr_expect_eq(k->daddr, inet_addr("10.9.9.9"));
		f->keys++;
	}
	denial_book_add(&f->book, k, t);
}

/* run_flood() - FLOOD denied sends from a child in the jail's cgroup, the
 * ring buffer left unread meanwhile; then the events, the tallies and the
 * counters, as the supervisor reads them. Return: what the book says was
 * lost. */
static __u64 run_flood(struct flood_tally *f, __u64 *events)
{
	__u64 c[COUNTER_SLOTS], lost, private, meta_events;
	int pipefd[2], denied = 0;
	size_t i, n;
	pid_t pid;

	cr_assert_eq(pipe(pipefd), 0);
	pid = probe_child(flood, pipefd[1], false);
	close(pipefd[1]);
	cr_assert_eq(read(pipefd[0], &denied, sizeof(denied)), sizeof(denied));
	close(pipefd[0]);
	wait_child(pid);
	cr_assert_eq(denied, FLOOD, "every send denied");

	while (loader_events_poll(jail, 0) > 0)
		;
	cr_assert_eq(loader_read_counters(jail, c), 0);
	private = FLOOD - (flood_metadata_at >= 0);
	cr_expect_eq(c[HOOK_SENDMSG4 * COUNTER_STRIDE + REASON_PRIVATE], private);
	*events = c[HOOK_SENDMSG4 * COUNTER_STRIDE + COUNTER_EVENTS(REASON_PRIVATE)];
	meta_events = c[HOOK_SENDMSG4 * COUNTER_STRIDE + COUNTER_EVENTS(REASON_METADATA)];
	cr_expect_eq(seen.total, *events + meta_events, "%u events read, %llu counted", seen.total,
		     (unsigned long long)(*events + meta_events));
	cr_assert_eq(denial_book_begin(&f->book), 0);
	cr_assert_eq(loader_read_denials(jail, tally_flood, f), 0);
	cr_assert(!f->book.overflow);
	n = denial_book_end(&f->book, true);
	for (i = 0; i < n; i++)
		if (f->book.last[i].key.reason == REASON_PRIVATE)
			f->repeats += f->book.last[i].fresh;
	lost = denial_book_lost(&f->book, REASON_PRIVATE, private, *events);
	cr_expect_eq(*events + f->repeats + lost, private, "%llu events + %llu repeats + %llu lost",
		     (unsigned long long)*events, (unsigned long long)f->repeats,
		     (unsigned long long)lost);
	f->lost_metadata = denial_book_lost(&f->book, REASON_METADATA,
					    c[HOOK_SENDMSG4 * COUNTER_STRIDE + REASON_METADATA],
					    meta_events);
	f->shown_metadata = meta_events + f->book.repeats_written[REASON_METADATA];
	denial_book_free(&f->book);
	return lost;
}

/* One destination: one key, its first denial an event (two when the
 * flood crossed a second of the boot clock), every other one a repeat. */
Test(sock_aggregation, flood_of_one_destination_is_one_exact_tally, .init = setup_aggregated, .fini = teardown, .timeout = 60)
{
	struct flood_tally f = { 0 };
	__u64 events;

	flood_ports = 1;
	cr_expect_eq(run_flood(&f, &events), 0, "nothing lost");
	cr_expect_eq(f.keys, 1);
	cr_expect(events >= 1 && events <= 2, "%llu events", (unsigned long long)events);
}

/* More new keys than the ring buffer holds events (~3,000), fewer than the
 * map holds tallies: the first denials that found it full are repeats,
 * written later, not lost. */
Test(sock_aggregation, full_ring_buffer_delays_first_denials_not_loses_them, .init = setup_aggregated, .fini = teardown, .timeout = 60)
{
	struct flood_tally f = { 0 };
	__u64 events;

	flood_ports = 6000;
	cr_expect_eq(run_flood(&f, &events), 0, "nothing lost");
	cr_expect_eq(f.keys, 6000);
	cr_expect_lt(events, 6000, "the ring buffer never filled (%llu events)",
		     (unsigned long long)events);
}

/* Three times as many keys as the map holds, each once, nothing read
 * meanwhile: the LRU evicts tallies whose repeats were never written.
 * Those are lost, and the sum says how many: never silent. (run_flood()'s
 * sum holds by construction here; it only catches an over-count.) */
Test(sock_aggregation, evicted_tallies_are_counted_lost, .init = setup_aggregated, .fini = teardown, .timeout = 60)
{
	struct flood_tally f = { 0 };
	__u64 events, lost;

	flood_ports = 3 * DENIALS_MAX_ENTRIES;
	lost = run_flood(&f, &events);
	cr_expect_gt(lost, 0, "evictions lost nothing?");
	cr_expect_leq(f.keys, DENIALS_MAX_ENTRIES);
}

/* The attack: hide one denial in a flood of new kinds. The ring buffer
 * full, it is a repeat; the LRU then evicts it before the supervisor
 * reads the map. Its address is gone, but not its reason: the loss is
 * counted per reason, so the log still says a metadata denial was lost. */
Test(sock_aggregation, a_denial_pushed_out_of_the_map_keeps_its_reason, .init = setup_aggregated,
     .fini = teardown, .timeout = 60)
{
	struct flood_tally f = { 0 };
	__u64 events;

	flood_ports = 3 * DENIALS_MAX_ENTRIES;
	flood_metadata_at = 4000; /* past the ring buffer's ~3,000 events */
	run_flood(&f, &events);
	flood_metadata_at = -1;
	cr_expect_eq(f.lost_metadata + f.shown_metadata, 1,
		     "the metadata denial: %llu lost, %llu shown", (unsigned long long)f.lost_metadata,
		     (unsigned long long)f.shown_metadata);
	fprintf(stderr, "sock: a metadata denial in a flood of new kinds: %s\n",
		f.lost_metadata ? "lost, with its reason" : "shown");
}

#define SWAP_CONNECTS 200000

static void hammer_blocked(int out)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(80) };
	int leaked = 0, i;

	sin.sin_addr.s_addr = inet_addr("10.9.9.9");
	for (i = 0; i < SWAP_CONNECTS; i++) {
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			_exit(95); /* not a leak: connect() would say EBADF */
		/* UDP connect: no handshake, so each try is only the hook. */
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 || errno != EPERM)
			leaked++;
		close(fd);
	}
	if (write(out, &leaked, sizeof(leaked)) != sizeof(leaked))
		_exit(94);
}

Test(sock, policy_swap_never_opens_a_window)
{
	struct config big;
	struct policy p;
	struct host_facts none = { 0 };
	char line[64];
	int pipefd[2], leaked = -1, swaps = 0, status;
	pid_t pid;
	unsigned int i;

	/* A policy of ~5000 entries: filling it in place would leave a long
	 * window; swapping a complete trie leaves none. */
	config_init(&big);
	for (i = 0; i < 5000; i++) {
		snprintf(line, sizeof(line), "allow-ip = 198.18.%u.%u\n", i / 250, i % 250 + 1);
		config_parse_buffer(&big, "big.conf", line, strlen(line));
	}
	cr_assert(config_ok(&big));
	cr_assert_eq(policy_compile(&big, &none, &p), 0);

	cr_assert_eq(pipe(pipefd), 0);
	pid = probe_child(hammer_blocked, pipefd[1], false);
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	/* Swap back and forth until the child is done (bounded by its count). */
	while (waitpid(pid, &status, WNOHANG) == 0 && swaps < 100000) {
		cr_assert_eq(loader_set_policy(jail, swaps % 2 ? pol.rules : p.rules,
					       swaps % 2 ? pol.n : p.n), 0);
		swaps++;
	}
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "probe child failed (exit %d; 95 is its socket())", WEXITSTATUS(status));
	cr_assert_eq(read(pipefd[0], &leaked, sizeof(leaked)), sizeof(leaked));
	close(pipefd[0]);
	cr_expect_eq(leaked, 0, "%d of %d connects to a blocked address were not denied during %d swaps",
		     leaked, SWAP_CONNECTS, swaps);
	cr_expect_geq(swaps, 2, "the swaps overlapped the connects");
	fprintf(stderr, "sock: %d policy swaps of %zu entries during %d denied connects\n", swaps,
		p.n, SWAP_CONNECTS);
	policy_free(&p);
	config_free(&big);
}
