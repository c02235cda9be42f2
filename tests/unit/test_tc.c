// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_tc.c - the TC classifier on crafted frames (BPF_PROG_TEST_RUN)
 *
 * No interface and no namespace: the kernel runs the program on each frame
 * and returns its verdict, so these tests see exactly what the tap would.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <netinet/in.h>
#include <criterion/criterion.h>

#include "builtin.h"
#include "loader.h"
#include "policy.h"

#define MAX_FRAME 128

/* Laid out as in an skb: two bytes before the 14-byte Ethernet header (the
 * struct itself is 8-byte aligned for its size_t), so the IP header after
 * it is 4-byte aligned: the tests write it through struct iphdr. */
struct frame {
	unsigned char pad[2];
	unsigned char bytes[MAX_FRAME];
	size_t len;
};

static struct jail_bpf *jail;
static struct config cfg;
static struct policy pol;
static struct jail_event last_event;
static unsigned int n_events;

static int on_event(void *ctx, const struct jail_event *e)
{
	(void)ctx;
	last_event = *e;
	n_events++;
	return 0;
}

static void setup(void)
{
	static const char conf[] = "allow-ip = 10.1.2.3\nallow-ip = 10.1.2.4:502\n"
				   "block-cidr = 203.0.114.0/24\n"
				   /* refused on the tap all the same (ebpfjail.h) */
				   "allow-ip = 240.0.0.53:53\nallow-ip = 169.254.1.1:53\n";
	struct host_facts facts = {
		.gateway = inet_addr("198.51.100.1"),
		.dns_forward = inet_addr("169.254.1.1"),
	};
	struct loader_options opts = { .on_event = on_event };

	if (geteuid() != 0)
		cr_skip_test("needs root: loads BPF programs");
	config_init(&cfg);
	config_parse_buffer(&cfg, "tc.conf", conf, sizeof(conf) - 1);
	cr_assert(config_ok(&cfg));
	cr_assert_eq(policy_compile(&cfg, &facts, &pol), 0);
	cr_assert_eq(loader_open(&opts, &jail), 0);
	cr_assert_eq(loader_set_policy(jail, pol.rules, pol.n), 0);
	n_events = 0;
}

static void teardown(void)
{
	loader_close(jail);
	jail = NULL;
	policy_free(&pol);
	config_free(&cfg);
}

static struct frame ethernet(uint16_t ethertype)
{
	struct frame f = { .len = ETH_HLEN };
	struct ethhdr *eth = (struct ethhdr *)f.bytes;

	memset(eth->h_dest, 0x02, ETH_ALEN);
	memset(eth->h_source, 0x04, ETH_ALEN);
	eth->h_proto = htons(ethertype);
	return f;
}

/* ipv4() - Ethernet + IPv4 (+ the first 8 bytes of a TCP/UDP header when
 * @proto has ports and the frame is a first fragment). */
static struct frame ipv4(const char *daddr, uint8_t proto, uint16_t dport, uint16_t frag_off)
{
	struct frame f = ethernet(ETH_P_IP);
	struct iphdr *ip = (struct iphdr *)(f.bytes + ETH_HLEN);
	uint16_t *ports = (uint16_t *)(ip + 1);

	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = proto;
	ip->frag_off = htons(frag_off);
	ip->saddr = inet_addr("192.0.2.77");
	ip->daddr = inet_addr(daddr);
	f.len += sizeof(*ip);
	if ((proto == IPPROTO_TCP || proto == IPPROTO_UDP) && !(frag_off & 0x1fff)) {
		ports[0] = htons(40000);
		ports[1] = htons(dport);
		f.len += 8;
	} else {
		f.len += 8; /* ICMP header, or a later fragment's payload */
	}
	ip->tot_len = htons((uint16_t)(f.len - ETH_HLEN));
	return f;
}

static int verdict(const struct frame *f)
{
	int v = -1;

	int err = loader_test_run_tc(jail, f->bytes, f->len, 1, &v, NULL);

	cr_assert_eq(err, 0, "BPF_PROG_TEST_RUN failed on a %zu-byte frame: %s", f->len,
		     strerror(-err));
	return v;
}

static __u64 tc_counter(unsigned int reason)
{
	__u64 c[COUNTER_SLOTS];

	cr_assert_eq(loader_read_counters(jail, c), 0);
	return c[HOOK_TC * COUNTER_STRIDE + reason];
}

TestSuite(tc, .init = setup, .fini = teardown, .timeout = 60);

Test(tc, arp_passes)
{
	struct frame f = ethernet(ETH_P_ARP);

	f.len = 42;
	cr_expect_eq(verdict(&f), TC_ACT_OK);
	cr_expect_eq(n_events, 0);
}

Test(tc, non_ipv4_ethertypes_drop)
{
	static const struct {
		uint16_t type;
		unsigned int reason;
	} cases[] = {
		{ ETH_P_IPV6, REASON_IPV6 },      { ETH_P_8021Q, REASON_NON_IPV4 },
		{ ETH_P_8021AD, REASON_NON_IPV4 }, { 0x88b5, REASON_NON_IPV4 },
		{ ETH_P_PPP_SES, REASON_NON_IPV4 }, { 0x0000, REASON_NON_IPV4 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct frame f = ethernet(cases[i].type);
		__u64 before = tc_counter(cases[i].reason);

		f.len = 60;
		cr_expect_eq(verdict(&f), TC_ACT_SHOT, "ethertype 0x%04x passed", cases[i].type);
		cr_expect_eq(tc_counter(cases[i].reason), before + 1, "ethertype 0x%04x not counted",
			     cases[i].type);
	}
}

Test(tc, ipv6_event_has_the_address)
{
	struct frame f = ethernet(ETH_P_IPV6);
	unsigned char *ip6 = f.bytes + ETH_HLEN;

	ip6[0] = 0x60;
	ip6[6] = IPPROTO_TCP;
	inet_pton(AF_INET6, "2001:db8::7", ip6 + 24);
	f.len += 40 + 20;
	cr_expect_eq(verdict(&f), TC_ACT_SHOT);
	cr_expect_eq(loader_events_poll(jail, 0), 1);
	cr_expect_eq(last_event.reason, REASON_IPV6);
	cr_expect_eq(last_event.family, AF_INET6);
	cr_expect_eq(last_event.proto, IPPROTO_TCP);
	cr_expect_eq(memcmp(last_event.daddr6, ip6 + 24, 16), 0);
}

Test(tc, malformed_and_options_drop)
{
	struct frame f = ipv4("203.0.113.1", IPPROTO_TCP, 443, 0);
	struct iphdr *ip = (struct iphdr *)(f.bytes + ETH_HLEN);

	cr_expect_eq(verdict(&f), TC_ACT_OK, "the well-formed frame passes");
	ip->ihl = 6;
	cr_expect_eq(verdict(&f), TC_ACT_SHOT, "IPv4 options");
	cr_expect_eq(tc_counter(REASON_IP_OPTIONS), 1);
	ip->ihl = 15;
	cr_expect_eq(verdict(&f), TC_ACT_SHOT, "IHL 15");
	ip->ihl = 4;
	cr_expect_eq(verdict(&f), TC_ACT_SHOT, "IHL below 5");
	ip->ihl = 5;
	ip->version = 6;
	cr_expect_eq(verdict(&f), TC_ACT_SHOT, "version 6 under the IPv4 ethertype");
	ip->version = 4;

	cr_expect_eq(tc_counter(REASON_IP_OPTIONS), 2);
	cr_expect_eq(tc_counter(REASON_NON_IPV4), 2);
}

Test(tc, truncated_frames_drop)
{
	/* BPF_PROG_TEST_RUN itself refuses an IPv4 or IPv6 frame shorter
	 * than its IP header (the kernel cannot build that skb), so
	 * truncation is checked where the program still sees the frame: bare
	 * Ethernet headers, and a first fragment cut inside its ports
	 * (tc::fragments). In the program every header read is bounded by
	 * bpf_skb_load_bytes(), which fails rather than reads past the end. */
	struct frame f = ethernet(ETH_P_8021Q);

	cr_expect_eq(verdict(&f), TC_ACT_SHOT, "a bare VLAN-tagged Ethernet header");
	f = ethernet(ETH_P_ARP);
	cr_expect_eq(verdict(&f), TC_ACT_OK, "a bare ARP header passes: ARP is not routed");
	cr_expect_eq(tc_counter(REASON_NON_IPV4), 1);
}

Test(tc, verdict_classes)
{
	static const struct {
		const char *daddr;
		uint8_t proto;
		uint16_t dport;
		int verdict;
		unsigned int reason;
	} cases[] = {
		{ "203.0.113.1", IPPROTO_TCP, 443, TC_ACT_OK, REASON_NONE },
		{ "203.0.113.1", IPPROTO_UDP, 443, TC_ACT_OK, REASON_NONE },
		{ "203.0.113.1", IPPROTO_ICMP, 0, TC_ACT_OK, REASON_NONE },
		{ "203.0.113.1", 132 /* SCTP */, 0, TC_ACT_OK, REASON_NONE },
		{ "10.9.9.9", IPPROTO_TCP, 80, TC_ACT_SHOT, REASON_PRIVATE },
		{ "10.9.9.9", IPPROTO_ICMP, 0, TC_ACT_SHOT, REASON_PRIVATE },
		{ "10.9.9.9", 47 /* GRE */, 0, TC_ACT_SHOT, REASON_PRIVATE },
		{ "100.64.1.1", IPPROTO_UDP, 3478, TC_ACT_SHOT, REASON_CGNAT },
		{ "127.0.0.1", IPPROTO_TCP, 22, TC_ACT_SHOT, REASON_LOOPBACK },
		{ "169.254.1.2", IPPROTO_TCP, 80, TC_ACT_SHOT, REASON_LINK_LOCAL },
		{ "169.254.169.254", IPPROTO_TCP, 80, TC_ACT_SHOT, REASON_METADATA },
		{ "224.0.0.251", IPPROTO_UDP, 5353, TC_ACT_SHOT, REASON_MULTICAST },
		{ "255.255.255.255", IPPROTO_UDP, 67, TC_ACT_SHOT, REASON_RESERVED },
		{ "203.0.114.9", IPPROTO_TCP, 443, TC_ACT_SHOT, REASON_BLOCK_CIDR },
		{ "198.51.100.1", IPPROTO_TCP, 80, TC_ACT_SHOT, REASON_GATEWAY },
		{ "198.51.100.1", IPPROTO_ICMP, 0, TC_ACT_SHOT, REASON_GATEWAY },
		{ "198.51.100.1", IPPROTO_UDP, 53, TC_ACT_SHOT, REASON_GATEWAY },
		/* The DNS exception is the forwarder's on lo: a frame to it on
		 * the tap was sent around lo's route, to reach pasta. */
		{ "169.254.1.1", IPPROTO_UDP, 53, TC_ACT_SHOT, REASON_GATEWAY },
		{ "169.254.1.1", IPPROTO_TCP, 53, TC_ACT_SHOT, REASON_GATEWAY },
		{ "169.254.1.1", IPPROTO_TCP, 80, TC_ACT_SHOT, REASON_GATEWAY },
		{ "240.0.0.53", IPPROTO_UDP, 53, TC_ACT_SHOT, REASON_GATEWAY },
		{ "169.254.1.1", IPPROTO_ICMP, 0, TC_ACT_SHOT, REASON_GATEWAY },
		{ "10.1.2.3", IPPROTO_ICMP, 0, TC_ACT_OK, REASON_ALLOW_IP },
		{ "10.1.2.4", IPPROTO_TCP, 502, TC_ACT_OK, REASON_ALLOW_IP },
		{ "10.1.2.4", IPPROTO_TCP, 503, TC_ACT_SHOT, REASON_PRIVATE },
		{ "10.1.2.4", IPPROTO_ICMP, 0, TC_ACT_SHOT, REASON_PRIVATE },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct frame f = ipv4(cases[i].daddr, cases[i].proto, cases[i].dport, 0);
		__u64 before = tc_counter(cases[i].reason);

		n_events = 0;
		cr_expect_eq(verdict(&f), cases[i].verdict, "%s proto %u port %u", cases[i].daddr,
			     cases[i].proto, cases[i].dport);
		cr_expect_eq(tc_counter(cases[i].reason), before + 1, "%s: reason %s not counted",
			     cases[i].daddr, reason_name(cases[i].reason));
		loader_events_poll(jail, 0);
		if (cases[i].verdict == TC_ACT_OK) {
			cr_expect_eq(n_events, 0, "%s: event for a pass", cases[i].daddr);
			continue;
		}
		cr_expect_eq(n_events, 1, "%s: %u events", cases[i].daddr, n_events);
		cr_expect_eq(last_event.hook, HOOK_TC);
		cr_expect_eq(last_event.reason, cases[i].reason);
		cr_expect_eq(last_event.daddr, inet_addr(cases[i].daddr));
		cr_expect_eq(last_event.dport, cases[i].dport, "dport in host order");
		cr_expect_eq(last_event.proto, cases[i].proto);
		cr_expect_eq(last_event.pid, 0);
	}
}

Test(tc, fragments)
{
	/* Later fragments have no ports: judged on the address alone. */
	struct frame later_blocked = ipv4("10.9.9.9", IPPROTO_UDP, 0, 185);
	struct frame later_allowed_port = ipv4("10.1.2.4", IPPROTO_UDP, 0, 185);
	struct frame later_internet = ipv4("203.0.113.1", IPPROTO_UDP, 0, 185);
	struct frame first_allowed = ipv4("10.1.2.4", IPPROTO_UDP, 502, 0x2000 /* MF */);
	struct frame first_blocked = ipv4("10.9.9.9", IPPROTO_UDP, 53, 0x2000);
	struct frame tiny_first = ipv4("10.1.2.4", IPPROTO_TCP, 502, 0x2000);

	cr_expect_eq(verdict(&later_blocked), TC_ACT_SHOT);
	cr_expect_eq(verdict(&later_allowed_port), TC_ACT_SHOT,
		     "a later fragment cannot use a port-specific allow");
	cr_expect_eq(verdict(&later_internet), TC_ACT_OK);
	cr_expect_eq(verdict(&first_allowed), TC_ACT_OK);
	cr_expect_eq(verdict(&first_blocked), TC_ACT_SHOT);
	/* A first fragment cut before its ports is judged portless. */
	tiny_first.len = ETH_HLEN + 20 + 3;
	cr_expect_eq(verdict(&tiny_first), TC_ACT_SHOT);
}

Test(tc, agrees_with_the_policy_model)
{
	/* Every rule of the compiled policy, probed at its own address and
	 * one past its end: the kernel's trie and policy_lookup() agree. */
	size_t i;

	for (i = 0; i < pol.n; i++) {
		const struct policy_key *k = &pol.rules[i].key;
		uint32_t addrs[2] = { k->addr, 0 };
		unsigned int len = k->prefixlen > 32 ? 32 : k->prefixlen, j;
		char a[INET_ADDRSTRLEN];

		addrs[1] = htonl(ntohl(k->addr) + (len ? (uint32_t)(1ULL << (32 - len)) : 0));
		for (j = 0; j < 2; j++) {
			uint16_t port = k->port ? ntohs(k->port) : 443;
			long m = policy_lookup(&pol, addrs[j], htons(port));
			const struct policy_value *v = m >= 0 ? &pol.rules[m].value : NULL;
			/* A rule for one protocol only refuses every other; the
			 * DNS side door's addresses never pass the tap. */
			bool side_door = addrs[j] == htonl(JAIL_DNS_FORWARD_ADDR) ||
					 addrs[j] == htonl(JAIL_PASTA_DNS_ADDR);
			int want = side_door || (v && (v->action == JAIL_DENY ||
						       (v->proto && v->proto != IPPROTO_TCP)))
					   ? TC_ACT_SHOT
					   : TC_ACT_OK;
			struct frame f;

			inet_ntop(AF_INET, &addrs[j], a, sizeof(a));
			f = ipv4(a, IPPROTO_TCP, port, 0);
			cr_expect_eq(verdict(&f), want, "%s:%u: kernel and model disagree", a, port);
		}
	}
}

/* sum_tallies() - a engine_denial_fn: how many keys, how many repeats */
static void sum_tallies(void *ctx, const struct denial_key *k, const struct denial_tally *t)
{
	__u64 *sums = ctx;

	(void)k;
	sums[0]++;
	sums[1] += t->repeats;
}

/* A flood of one frame is one key: its first drop an event, the rest
 * repeats in the tally, every one counted. */
Test(tc_aggregation, drops_counted_repeats_tallied, .init = setup, .fini = teardown)
{
	struct frame f = ipv4("10.9.9.9", IPPROTO_TCP, 80, 0);
	__u64 sums[2] = { 0, 0 };
	__u32 ns = 0;
	int v;

	cr_assert_eq(loader_test_run_tc(jail, f.bytes, f.len, 10000, &v, &ns), 0);
	cr_expect_eq(v, TC_ACT_SHOT);
	cr_expect_eq(tc_counter(REASON_PRIVATE), 10000, "every drop is counted");
	loader_events_poll(jail, 0);
	/* Two when the runs crossed a second of the boot clock. */
	cr_expect(n_events == 1 || n_events == 2, "one event per window: %u", n_events);
	cr_expect_eq(tc_counter(COUNTER_EVENTS(REASON_PRIVATE)), n_events);
	cr_assert_eq(loader_read_denials(jail, sum_tallies, sums), 0);
	cr_expect_eq(sums[0], 1, "one key: %llu", (unsigned long long)sums[0]);
	cr_expect_eq(sums[1] + n_events, 10000, "%llu repeats + %u events", (unsigned long long)sums[1],
		     n_events);
	fprintf(stderr, "tc: %u ns per dropped packet (BPF_PROG_TEST_RUN, 10000 runs)\n", ns);

	f = ipv4("203.0.113.1", IPPROTO_TCP, 443, 0);
	cr_assert_eq(loader_test_run_tc(jail, f.bytes, f.len, 100000, &v, &ns), 0);
	cr_expect_eq(v, TC_ACT_OK);
	fprintf(stderr, "tc: %u ns per passed packet (BPF_PROG_TEST_RUN, 100000 runs)\n", ns);
}

/* --- attached to a real interface ----------------------------------------
 *
 * Two throwaway namespaces joined by a veth pair: the "jail" (203.0.113.2,
 * a route to 10.9.9.9 via the peer) and the "peer" (203.0.113.1 and
 * 10.9.9.9). The classifier sits on the jail's veth egress; the peer counts
 * what arrives. No socket hooks are attached, so only TC decides. */

#include <sched.h>
#include <net/if.h>
#include <sys/wait.h>

static int wait_byte(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

static void send_byte(int fd)
{
	if (write(fd, "x", 1) != 1)
		_exit(80);
}

/* udp_bound() - a UDP socket on @addr:5000 whose receive gives up after
 * @wait_ms. Return: the socket, or -1. */
static int udp_bound(const char *addr, long wait_ms)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(5000) };
	struct timeval tv = { .tv_sec = wait_ms / 1000, .tv_usec = (wait_ms % 1000) * 1000 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	sin.sin_addr.s_addr = inet_addr(addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ? -1 : fd;
}

/* peer(): runs in its own namespace; reports what arrived on @report. */
static void peer(int go, int ready, int report)
{
	int allowed, blocked, got[2] = { 0, 0 };
	char buf[16];

	if (unshare(CLONE_NEWNET))
		_exit(70);
	send_byte(ready); /* namespace exists: the jail may move veth1 in */
	if (wait_byte(go) ||
	    system("ip link set lo up && ip addr add 203.0.113.1/24 dev veth1 && "
		   "ip addr add 10.9.9.9/32 dev veth1 && ip link set veth1 up"))
		_exit(71);
	/* A loaded machine may take seconds to bring the link up and
	 * resolve ARP: the allowed packets are waited for as long as that,
	 * one by one; the blocked ones only briefly, once they are in. */
	allowed = udp_bound("203.0.113.1", 5000);
	blocked = udp_bound("10.9.9.9", 500);
	if (allowed < 0 || blocked < 0)
		_exit(72);
	send_byte(ready);
	while (got[0] < 3 && recv(allowed, buf, sizeof(buf), 0) > 0)
		got[0]++;
	while (recv(blocked, buf, sizeof(buf), 0) > 0)
		got[1]++;
	if (write(report, got, sizeof(got)) != sizeof(got))
		_exit(73);
	_exit(0);
}

static void jail_side(int report)
{
	int to_peer[2], from_peer[2], fd, status, i;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(5000) };
	char cmd[256];
	pid_t pid;

	if (unshare(CLONE_NEWNET) || pipe(to_peer) || pipe(from_peer))
		_exit(60);
	pid = fork();
	if (pid == 0)
		peer(to_peer[0], from_peer[1], report);
	if (wait_byte(from_peer[0]))
		_exit(61);
	snprintf(cmd, sizeof(cmd),
		 "ip link set lo up && ip link add veth0 type veth peer name veth1 && "
		 "ip link set veth1 netns %d && ip addr add 203.0.113.2/24 dev veth0 && "
		 "ip link set veth0 up && ip route add 10.9.9.9/32 via 203.0.113.1",
		 pid);
	if (system(cmd))
		_exit(62);
	if (loader_attach_tc(jail, (int)if_nametoindex("veth0")))
		_exit(63);
	send_byte(to_peer[1]);
	if (wait_byte(from_peer[0]))
		_exit(64);
	/* Sent before the link is up, a datagram is dropped, not queued. */
	for (i = 0; i < 100 && system("ip -o link show veth0 | grep -q 'state UP'"); i++)
		usleep(50 * 1000);

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		_exit(65);
	for (i = 0; i < 3; i++) {
		sin.sin_addr.s_addr = inet_addr("203.0.113.1");
		sendto(fd, "ok", 2, 0, (struct sockaddr *)&sin, sizeof(sin));
		sin.sin_addr.s_addr = inet_addr("10.9.9.9");
		sendto(fd, "no", 2, 0, (struct sockaddr *)&sin, sizeof(sin));
	}
	waitpid(pid, &status, 0);
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 69);
}

Test(tc, attached_to_a_real_interface, .timeout = 30)
{
	int pipefd[2], got[2] = { -1, -1 }, status;
	pid_t pid;

	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		jail_side(pipefd[1]);
	close(pipefd[1]);
	cr_assert_eq(read(pipefd[0], got, sizeof(got)), sizeof(got), "the peer reported nothing");
	close(pipefd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "jail side exit %d",
		  WEXITSTATUS(status));
	cr_expect_eq(got[0], 3, "the internet address got %d of 3 (ARP must pass too)", got[0]);
	cr_expect_eq(got[1], 0, "the blocked address got %d packets", got[1]);
	cr_expect_geq(tc_counter(REASON_PRIVATE), 3);
}
