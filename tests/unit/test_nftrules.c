// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_nftrules.c - the rootless engine's ruleset: it says what the trie
 * says, and the kernel enforces it for an unprivileged user */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <criterion/criterion.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <nftables/libnftables.h>

#include "audit.h"
#include "config.h"
#include "nflog.h"
#include "nftengine.h"
#include "nftjail.h"
#include "nftrules.h"
#include "policy.h"
#include "rootlessns.h"
#include "testutil.h"

/* The host: 192.0.2.10 on 192.0.2.0/24, a VPN route to 198.18.0.0/15,
 * pasta's gateway 198.51.100.1 and the DNS forward address 169.254.1.1. */
static const struct host_prefix addrs[] = { { 0x0a0200c0, 32 } };
static const struct host_prefix nets[] = { { 0x000200c0, 24 } };
static const struct host_prefix routes[] = { { 0x000012c6, 15 } };

static struct config cfg;
static struct policy pol;

static void compile(const char *conf)
{
	struct host_facts facts = {
		.addresses = addrs, .n_addresses = 1, .connected = nets, .n_connected = 1,
		.routes = routes, .n_routes = 1,
		.gateway = inet_addr("198.51.100.1"), .dns_forward = inet_addr("169.254.1.1"),
	};

	config_init(&cfg);
	config_parse_buffer(&cfg, "nft.conf", conf, strlen(conf));
	cr_assert(config_ok(&cfg));
	cr_assert_eq(policy_compile(&cfg, &facts, &pol), 0);
}

static void teardown(void)
{
	policy_free(&pol);
	config_free(&cfg);
}

static const char conf[] = "allow-ip = 10.1.2.3\n"       /* inside 10/8 */
			   "allow-ip = 10.1.2.4:502\n"   /* one port of it */
			   "allow-ip = 192.0.2.77\n"     /* on the host's LAN */
			   "block-cidr = 203.0.114.0/24\n"
			   "block-cidr = 8.8.8.8/32\n"
			   /* pasta's DNS address: refused all the same */
			   "allow-ip = 240.0.0.53:53\n";

/* range_rule() - the rule of the range holding @a (host order), or -1 */
static long range_rule(const struct nft_range *r, size_t n, uint32_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a < r[mid].first)
			hi = mid;
		else if (a > r[mid].last)
			lo = mid + 1;
		else
			return (long)r[mid].rule;
	}
	return -1;
}

/* Every rule's first and last address, and the addresses on either side:
 * the flattened ranges give each the rule the trie's longest match does
 * (policy_lookup(), on a port no address+port entry has). */
Test(nftrules, ranges_agree_with_the_trie, .fini = teardown)
{
	struct nft_range *r;
	size_t n, i, j;

	compile(conf);
	cr_assert_eq(nftrules_flatten(&pol, &r, &n), 0);
	for (i = 1; i < n; i++)
		cr_assert_gt(r[i].first, r[i - 1].last, "ranges %zu and %zu overlap", i - 1, i);
	for (i = 0; i < pol.n; i++) {
		const struct policy_key *k = &pol.rules[i].key;
		unsigned int len = k->prefixlen > 32 ? 32 : k->prefixlen;
		uint32_t first = ntohl(k->addr), last = first | (len ? ~0U >> len : ~0U);
		uint32_t probes[4] = { first, last, first - 1, last + 1 };

		for (j = 0; j < 4; j++) {
			long want = policy_lookup(&pol, htonl(probes[j]), htons(1));
			char a[INET_ADDRSTRLEN];
			uint32_t be = htonl(probes[j]);

			inet_ntop(AF_INET, &be, a, sizeof(a));
			cr_expect_eq(range_rule(r, n, probes[j]), want, "%s: ranges say rule %ld, trie %ld",
				     a, range_rule(r, n, probes[j]), want);
		}
	}
	free(r);
}

/* Prefixes that start or end at the ends of the address space, and /32s
 * at the ends of a block: no off-by-one at 0.0.0.0 or 255.255.255.255. */
Test(nftrules, nested_prefixes_at_the_edges, .fini = teardown)
{
	struct nft_range *r;
	size_t n;

	compile("block-cidr = 0.0.0.0/1\nallow-ip = 0.0.0.0\nallow-ip = 127.255.255.255\n");
	cr_assert_eq(nftrules_flatten(&pol, &r, &n), 0);
	cr_expect_eq(range_rule(r, n, 0), policy_lookup(&pol, 0, htons(1)));
	cr_expect_eq(range_rule(r, n, 1), policy_lookup(&pol, htonl(1), htons(1)));
	cr_expect_eq(range_rule(r, n, 0x7fffffff), policy_lookup(&pol, htonl(0x7fffffff), htons(1)));
	cr_expect_eq(range_rule(r, n, 0xffffffff), policy_lookup(&pol, 0xffffffff, htons(1)));
	free(r);
}

/* The transactions: the table first, unhooked; the elements, at most
 * NFTRULES_ELEMENTS_PER_STEP each; the hook and the old table's end last,
 * together. Pure: what the kernel tests below rely on, said plainly. */
Test(nftrules, script_steps, .fini = teardown)
{
	static char text[64 * 1000 + 1];
	struct nft_script sc;
	char *at = text;
	size_t i, elements = 0;
	int k;

	for (k = 0; k < 1000; k++)
		at += sprintf(at, "allow-ip = 198.18.%d.%d:443\n", k / 250, k % 250 + 1);
	compile(text);
	cr_assert_eq(nftrules_script(&pol, 3, 0, (const unsigned int[]){ 2 }, 1, &sc), 0);
	cr_assert_geq(sc.n, 3);
	cr_expect(strstr(sc.steps[0], "create table inet ebpfjail3\n"), "%.200s", sc.steps[0]);
	cr_expect(!strstr(sc.steps[0], "delete"), "step 0 deletes: %.200s", sc.steps[0]);
	for (i = 0; i + 1 < sc.n; i++)
		cr_expect(!strstr(sc.steps[i], "hook output"), "step %zu hooks the table", i);
	for (i = 1; i + 1 < sc.n; i++) {
		size_t n = 1;
		const char *c;

		cr_expect(!strncmp(sc.steps[i], "add element inet ebpfjail3 ", 27), "%.80s",
			  sc.steps[i]);
		for (c = sc.steps[i]; (c = strstr(c, ",\n")); c++)
			n++;
		cr_expect_leq(n, NFTRULES_ELEMENTS_PER_STEP, "step %zu: %zu elements", i, n);
		elements += n;
	}
	/* Two per addr:port entry (TCP and UDP). */
	cr_expect_geq(elements, 2 * 1000);
	cr_expect(strstr(sc.steps[sc.n - 1], "add chain inet ebpfjail3 output { type filter hook output"));
	cr_expect(strstr(sc.steps[sc.n - 1], "delete table inet ebpfjail2"));
	/* The DNS exception is no element: the forwarder is on lo, which the
	 * filter accepts first, and off lo the forward address is refused
	 * (an agent that sends around lo's route would reach pasta). */
	for (i = 1; i + 1 < sc.n; i++)
		cr_expect(!strstr(sc.steps[i], "169.254.1.1 . "), "step %zu: %.200s", i,
			  strstr(sc.steps[i], "169.254.1.1 . "));
	cr_expect(strstr(sc.steps[1], "198.18.0.1 . tcp . 443 : accept"), "%.200s", sc.steps[1]);
	nftrules_script_free(&sc);
	/* The first generation deletes none. */
	cr_assert_eq(nftrules_script(&pol, 1, 0, NULL, 0, &sc), 0);
	cr_expect(!strstr(sc.steps[sc.n - 1], "delete table"));
	nftrules_script_free(&sc);
}

/* --- in the kernel, as an unprivileged user ------------------------------
 *
 * A child gives up root (uid and gid 65534), makes a user and a network
 * namespace of its own (as the rootless jail does), routes everything into
 * a veth pair there, loads the ruleset, and tries each kind of destination.
 * Nothing leaves the namespace: the veth's peer is in it too. */

struct try {
	const char *addr;
	int proto; /* IPPROTO_UDP (sendto) or IPPROTO_TCP (connect) */
	uint16_t port;
	int want; /* 0, or the errno */
};

static const struct try tries[] = {
	{ "10.0.0.5", IPPROTO_UDP, 53, EPERM },            /* private */
	{ "10.0.0.5", IPPROTO_TCP, 22, EHOSTUNREACH },     /* at once, no timeout */
	{ "10.1.2.3", IPPROTO_UDP, 9, 0 },                 /* allow-ip */
	{ "10.1.2.4", IPPROTO_UDP, 502, 0 },               /* allow-ip with its port */
	{ "10.1.2.4", IPPROTO_UDP, 503, EPERM },           /* ... and no other */
	{ "169.254.169.254", IPPROTO_UDP, 80, EPERM },     /* metadata */
	{ "169.254.1.1", IPPROTO_UDP, 53, EPERM },         /* the forward address off lo */
	{ "169.254.1.1", IPPROTO_TCP, 53, EHOSTUNREACH },  /* ... on every port */
	{ "169.254.1.1", IPPROTO_TCP, 80, EHOSTUNREACH },
	{ "240.0.0.53", IPPROTO_UDP, 53, EPERM },          /* pasta's DNS, allow-ip or not */
	{ "198.51.100.1", IPPROTO_UDP, 80, EPERM },        /* the gateway */
	{ "192.0.2.20", IPPROTO_UDP, 80, EPERM },          /* the host's LAN */
	{ "192.0.2.77", IPPROTO_UDP, 80, 0 },              /* ... allowed in it */
	{ "198.18.5.5", IPPROTO_UDP, 80, EPERM },          /* a host route */
	{ "203.0.114.9", IPPROTO_UDP, 80, EPERM },         /* block-cidr */
	{ "203.0.113.7", IPPROTO_UDP, 443, 0 },            /* the internet */
	{ "127.0.0.1", IPPROTO_UDP, 9, 0 },                /* the jail's own loopback */
};
#define N_TRIES (sizeof(tries) / sizeof(tries[0]))

static int try_one(const struct try *t)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(t->port) };
	int fd = socket(AF_INET, t->proto == IPPROTO_TCP ? SOCK_STREAM : SOCK_DGRAM, 0), err = 0;
	struct timeval tv = { .tv_sec = 3 };

	/* Not an errno of the try: on no socket, connect() is EBADF. */
	if (fd < 0)
		_exit(91);
	sin.sin_addr.s_addr = inet_addr(t->addr);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (t->proto == IPPROTO_TCP) {
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
			err = errno;
	} else if (sendto(fd, "x", 1, 0, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		err = errno;
	}
	close(fd);
	return err;
}

/* jail_netns() - in a child: the rootless namespace (rootlessns.h) with a
 * route out through a veth pair, both ends in it; _exit()s with 92 or 93 */
static void jail_netns(void)
{
	if (rootless_netns())
		_exit(92);
	if (system("ip link add j0 type veth peer name j1 && "
		   "ip link set j0 up && ip link set j1 up && ip addr add 203.0.113.2/24 dev j0 && "
		   "ip route add default via 203.0.113.1 dev j0 && "
		   "ip neigh add 203.0.113.1 lladdr 02:00:00:00:00:01 dev j0"))
		_exit(93);
}

/* enforce_child() - never returns: the results down @out, or an exit
 * status that says which step failed */
static void enforce_child(int out)
{
	char why[256];
	int results[N_TRIES], fd, i_wait;
	struct test_events logged = { 0 };
	struct nftengine engine = { 0 };
	uint64_t overflows = 0;
	size_t i;

	jail_netns();
	if (nftengine_apply(&engine, &pol, why, sizeof(why))) {
		fprintf(stderr, "nft: %s\n", why);
		_exit(94);
	}
	fd = nflog_open(NFTRULES_LOG_GROUP);
	if (fd < 0)
		_exit(96);
	for (i = 0; i < N_TRIES; i++)
		results[i] = try_one(&tries[i]);
	/* The log messages come within a moment: read them for 1 s, so
	 * that any extra one is seen too. */
	for (i_wait = 0; i_wait < 100; i_wait++) {
		if (nflog_read(fd, 2 * N_TRIES, test_events_add, &logged, &overflows) < 0 ||
		    overflows)
			_exit(97);
		usleep(10000);
	}
	if (write(out, results, sizeof(results)) != sizeof(results) ||
	    write(out, &logged, sizeof(logged)) != sizeof(logged))
		_exit(95);
	_exit(0);
}

/* in_child() - @fn in a forked child, which _exit()s with 0 or the number
 * of the step that failed (@steps names them); once it has exited 0, the
 * read end of the pipe it wrote its results into (less than a pipe's
 * buffer, so it never waits for a reader) */
static int in_child(void (*fn)(int out), const char *steps)
{
	int pipefd[2], status;
	pid_t pid;

	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(pipefd[0]);
		fn(pipefd[1]);
	}
	close(pipefd[1]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed at step %d (%s)",
		  WIFEXITED(status) ? WEXITSTATUS(status) : -1, steps);
	return pipefd[0];
}

/* allow-host: a name's addresses jump to the chain that marks their
 * connections, and the filter accepts marked packets first; without
 * allow-host no ct expression at all (connection tracking costs every
 * packet). */
Test(nftrules, names_mark_their_connections, .fini = teardown)
{
	struct policy_name names[] = { { .addr = inet_addr("10.1.2.9"), .name = "a.lan" },
				       { .addr = inet_addr("10.1.2.10"), .port = 22, .name = "b.lan" } };
	struct policy_rule r;
	struct nft_script sc;
	char *all = NULL, want[256];
	size_t i, len = 0;
	FILE *f;

	compile("allow-host = *.lan\n");
	free(pol.sources);
	pol.sources = NULL;
	for (i = 0; i < 2; i++) {
		cr_assert(policy_name_rule(&pol, &names[i], NULL, 0, &r));
		cr_assert_eq(policy_insert_rule(&pol, &r), 0);
	}
	cr_assert_eq(nftrules_script(&pol, 1, 0, NULL, 0, &sc), 0);
	f = open_memstream(&all, &len);
	for (i = 0; i < sc.n; i++)
		fputs(sc.steps[i], f);
	fclose(f);
	cr_expect(strstr(all, "chain kept {\n\t\tct mark set 0x1 accept"), "%s", all);
	cr_expect(strstr(all, "set kept_marks {\n\t\ttype mark\n\t\telements = { 0x1 }"), "%s",
		  all);
	cr_expect(strstr(all, "10.1.2.9 : jump kept"), "%s", all);
	cr_expect(strstr(all, "10.1.2.10 . tcp . 22 : jump kept"), "%s", all);
	/* After the IP-options drop (a kept connection must not carry
	 * options the BPF engine drops), before the maps. */
	snprintf(want, sizeof(want),
		 "output ip hdrlength != 5 jump deny_%u_0\nadd rule inet ebpfjail1 output ct mark "
		 "@kept_marks accept\nadd rule inet ebpfjail1 output ip daddr . meta l4proto",
		 REASON_IP_OPTIONS);
	cr_expect(strstr(sc.steps[sc.n - 1], want), "%s", sc.steps[sc.n - 1]);
	nftrules_script_free(&sc);
	free(all);
	teardown();
	compile(conf);
	cr_assert_eq(nftrules_script(&pol, 1, 0, NULL, 0, &sc), 0);
	for (i = 0; i < sc.n; i++)
		cr_expect(!strstr(sc.steps[i], "ct mark"), "step %zu: %.200s", i, sc.steps[i]);
	nftrules_script_free(&sc);
}

/* renew_child() - never returns: a jail's table with allow-host, renewed
 * twice in place, listed down @out as nft(8) shows it */
static void renew_child(int out)
{
	struct nftengine engine = { 0 };
	struct nft_ctx *nft;
	const char *text;
	char why[256];

	jail_netns();
	if (nftengine_apply(&engine, &pol, why, sizeof(why))) {
		fprintf(stderr, "nft: %s\n", why);
		_exit(94);
	}
	if (nftengine_renew(&engine, why, sizeof(why)) || nftengine_renew(&engine, why, sizeof(why))) {
		fprintf(stderr, "renew: %s\n", why);
		_exit(96);
	}
	nft = nft_ctx_new(NFT_CTX_DEFAULT);
	if (!nft || nft_ctx_buffer_output(nft) || nft_run_cmd_from_buffer(nft, "list table inet ebpfjail1"))
		_exit(94);
	text = nft_ctx_get_output_buffer(nft);
	if (write(out, text, strlen(text)) != (ssize_t)strlen(text))
		_exit(95);
	_exit(0);
}

/* A renewal in place (`deny`, a reload, a host change with allow-host):
 * kept_marks holds the next mark alone, and the kept chain's one rule
 * marks new connections with it, as a whole generation would write. */
Test(nftrules, a_renewal_marks_with_the_next_mark_alone, .fini = teardown, .timeout = 60)
{
	char listing[16384], *kept, *marks;
	unsigned int set_to = 0, held = 0;
	ssize_t n;
	int fd;

	if (geteuid() != 0)
		cr_skip_test("needs root: to become another user (uid 65534)");
	compile("allow-host = a.lan\n");
	fd = in_child(renew_child, "92 namespaces, 93 ip, 94 nft, 95 pipe, 96 a renewal");
	n = read(fd, listing, sizeof(listing) - 1);
	close(fd);
	cr_assert_gt(n, 0);
	listing[n] = '\0';
	kept = strstr(listing, "chain kept {");
	marks = strstr(listing, "set kept_marks {");
	cr_assert(kept && marks, "%s", listing);
	cr_expect_eq(sscanf(kept, "chain kept { ct mark set 0x%x accept }", &set_to), 1, "%s", kept);
	cr_expect_eq(set_to, NFTRULES_KEPT_MARK + 2, "%s", kept);
	cr_expect(!strstr(kept + strlen("chain kept { ct mark set"), "ct mark set") ||
		  strstr(kept + strlen("chain kept { ct mark set"), "ct mark set") > strchr(kept, '}'),
		  "the kept chain has one rule: %s", kept);
	marks = strstr(marks, "elements = {");
	cr_assert(marks, "%s", listing);
	cr_expect_eq(sscanf(marks, "elements = { 0x%x }", &held), 1, "one mark alone: %.80s", marks);
	cr_expect_eq(held, NFTRULES_KEPT_MARK + 2, "%.80s", marks);
}

Test(nftrules, enforced_for_an_unprivileged_user, .fini = teardown, .timeout = 60)
{
	int fd, results[N_TRIES];
	struct test_events logged;
	size_t i, j;

	if (geteuid() != 0)
		cr_skip_test("needs root: to become another user (uid 65534)");
	compile(conf);
	fd = in_child(enforce_child, "91 a try's socket(), 92 namespaces, 93 ip, 94 nft, 95 pipe, 96 nflog, 97 reading it");
	cr_assert_eq(read(fd, results, sizeof(results)), sizeof(results));
	cr_assert_eq(read(fd, &logged, sizeof(logged)), sizeof(logged));
	close(fd);
	for (i = 0; i < N_TRIES; i++)
		cr_expect_eq(results[i], tries[i].want, "%s %s:%u: %s, want %s", tries[i].addr,
			     tries[i].proto == IPPROTO_TCP ? "tcp" : "udp", tries[i].port,
			     results[i] ? strerror(results[i]) : "ok",
			     tries[i].want ? strerror(tries[i].want) : "ok");
	/* Each denial is an NFLOG event with what the audit record needs:
	 * destination, port, protocol, reason, rule, and the socket's uid (0
	 * in the child's own user namespace, as the listener sees it). One
	 * per datagram; a refused connect() logs its SYN once or twice (the
	 * kernel may send it again before the ICMP error lands). Nothing
	 * allowed is logged. */
	for (i = 0; i < N_TRIES; i++) {
		size_t seen = 0;

		for (j = 0; j < logged.n; j++) {
			const struct jail_event *e = &logged.e[j];

			if (e->daddr != inet_addr(tries[i].addr) || e->dport != tries[i].port ||
			    e->proto != tries[i].proto)
				continue;
			seen++;
			cr_expect_eq(e->hook, HOOK_NFT_OUTPUT);
			cr_expect_geq(e->reason, REASON_FIRST_DENY, "%s: reason %u", tries[i].addr,
				      e->reason);
			cr_expect_eq(e->uid, 0, "%s: uid %u", tries[i].addr, e->uid);
			cr_expect_eq(e->family, AF_INET);
		}
		if (!tries[i].want)
			cr_expect_eq(seen, 0, "%s:%u allowed, but logged", tries[i].addr, tries[i].port);
		else if (tries[i].proto == IPPROTO_UDP)
			cr_expect_eq(seen, 1, "%s:%u: %zu events", tries[i].addr, tries[i].port, seen);
		else
			cr_expect(seen == 1 || seen == 2, "%s:%u: %zu events", tries[i].addr,
				  tries[i].port, seen);
	}
	/* And the reasons and rules, for two of them. */
	for (j = 0; j < logged.n; j++) {
		if (logged.e[j].daddr == inet_addr("169.254.169.254"))
			cr_expect(logged.e[j].reason == REASON_METADATA &&
				  logged.e[j].rule_prefixlen == 32);
		if (logged.e[j].daddr == inet_addr("10.0.0.5"))
			cr_expect(logged.e[j].reason == REASON_PRIVATE &&
				  logged.e[j].rule_prefixlen == 8);
	}
}

/* A policy of 20,000 entries goes in as many transactions (one would be
 * refused from a user namespace: "Message too long"), and replacing it
 * leaves only the new generation: an allow that is gone is a denial. */
static void replace_child(int out)
{
	static const struct try big_tries[] = {
		{ "198.18.3.7", IPPROTO_UDP, 80, 0 },        /* allow-ip, in a host route */
		{ "198.18.3.251", IPPROTO_UDP, 80, EPERM },  /* not allowed */
		{ "45.7.9.1", IPPROTO_UDP, 80, EPERM },      /* block-cidr */
		{ "203.0.113.7", IPPROTO_UDP, 443, 0 },      /* the internet */
		{ "45.7.10.1", IPPROTO_UDP, 80, EPERM },     /* block-cidr, gone next */
	};
	struct nftengine engine = { 0 };
	int results[2][5];
	char why[256];
	size_t i;

	jail_netns();
	if (nftengine_apply(&engine, &pol, why, sizeof(why))) {
		fprintf(stderr, "nft: %s\n", why);
		_exit(94);
	}
	for (i = 0; i < 5; i++)
		results[0][i] = try_one(&big_tries[i]);
	/* Again, without the allow-ip lines and all block-cidr lines but one:
	 * 198.18.3.7 is denied now, and 45.7.10.1 allowed, which only the old
	 * table would deny (a drop in any hooked table is a drop). */
	policy_free(&pol);
	config_free(&cfg);
	compile("block-cidr = 45.7.9.0/24\n");
	if (nftengine_apply(&engine, &pol, why, sizeof(why)) || engine.generation != 2) {
		fprintf(stderr, "nft: %s\n", why);
		_exit(95);
	}
	for (i = 0; i < 5; i++)
		results[1][i] = try_one(&big_tries[i]);
	/* An engine that does not know of generation 2 (a restarted
	 * supervisor): it must not overwrite the rules in force, but put
	 * its own next to them and then take theirs away. */
	{
		struct nftengine stale = { 0 };

		if (nftengine_apply(&stale, &pol, why, sizeof(why)) || stale.generation != 3) {
			fprintf(stderr, "nft: %s (generation %u)\n", why, stale.generation);
			_exit(97);
		}
		if (try_one(&big_tries[0]) != EPERM || try_one(&big_tries[4]) != 0)
			_exit(98);
	}
	_exit(write(out, results, sizeof(results)) == sizeof(results) ? 0 : 96);
}

Test(nftrules, twenty_thousand_entries_replaced_whole, .fini = teardown, .timeout = 120)
{
	static char text[64 * 20000 + 1];
	char *at = text;
	static const int want[2][5] = { { 0, EPERM, EPERM, 0, EPERM }, { EPERM, EPERM, EPERM, 0, 0 } };
	int fd, results[2][5], i;

	if (geteuid() != 0)
		cr_skip_test("needs root: to become another user (uid 65534)");
	for (i = 0; i < 10000; i++) {
		at += sprintf(at, "allow-ip = 198.18.%d.%d\n", i / 250, i % 250 + 1);
		at += sprintf(at, "block-cidr = 45.%d.%d.0/24\n", i / 250, i % 250);
	}
	compile(text);
	fd = in_child(replace_child, "91 a try's socket(), 92 namespaces, 93 ip, 94/95 the two policies, 96 pipe, "
				     "97/98 the stale engine");
	cr_assert_eq(read(fd, results, sizeof(results)), sizeof(results));
	close(fd);
	for (i = 0; i < 5; i++) {
		cr_expect_eq(results[0][i], want[0][i], "20,000 entries, try %d: %s", i,
			     results[0][i] ? strerror(results[0][i]) : "ok");
		cr_expect_eq(results[1][i], want[1][i], "after the replacement, try %d: %s", i,
			     results[1][i] ? strerror(results[1][i]) : "ok");
	}
}


/* A flood: every denial counted by its chain, exactly; at most
 * NFTRULES_LOG_PER_SECOND a second (and the burst) logged; the difference
 * is what a lost record will say. */
#define FLOOD_SENDS 20000

static void flood_child(int out)
{
	static const struct try denied = { "10.0.0.5", IPPROTO_UDP, 53, EPERM };
	struct test_events logged = { 0 };
	struct nftengine engine = { 0 };
	uint64_t counted[REASON_COUNT], overflows = 0, results[3];
	int fd, i, refused = 0;
	char why[256];

	jail_netns();
	if (nftengine_apply(&engine, &pol, why, sizeof(why)))
		_exit(94);
	fd = nflog_open(NFTRULES_LOG_GROUP);
	if (fd < 0)
		_exit(96);
	for (i = 0; i < FLOOD_SENDS; i++)
		refused += try_one(&denied) == EPERM;
	for (i = 0; i < 50; i++) {
		if (nflog_read(fd, 100000, test_events_add, &logged, &overflows) < 0)
			_exit(97);
		usleep(10000);
	}
	if (nftengine_denied(&engine, counted, why, sizeof(why))) {
		fprintf(stderr, "nft: %s\n", why);
		_exit(98);
	}
	results[0] = (uint64_t)refused;
	results[1] = counted[REASON_PRIVATE];
	results[2] = logged.total;
	_exit(write(out, results, sizeof(results)) == sizeof(results) ? 0 : 95);
}

Test(nftrules, a_flood_is_counted_exactly_and_logged_at_a_rate, .fini = teardown, .timeout = 60)
{
	uint64_t results[3];
	int fd;

	if (geteuid() != 0)
		cr_skip_test("needs root: to become another user (uid 65534)");
	compile(conf);
	fd = in_child(flood_child, "91 a try's socket(), 92 namespaces, 93 ip, 94 nft, 95 pipe, 96 nflog, 97 reading "
				   "it, 98 the counters");
	cr_assert_eq(read(fd, results, sizeof(results)), sizeof(results));
	close(fd);
	cr_expect_eq(results[0], FLOOD_SENDS, "%lu of %d refused", (unsigned long)results[0],
		     FLOOD_SENDS);
	cr_expect_eq(results[1], FLOOD_SENDS, "the chain counted %lu of %d",
		     (unsigned long)results[1], FLOOD_SENDS);
	cr_expect_geq(results[2], 1, "nothing logged");
	cr_expect_lt(results[2], FLOOD_SENDS, "every one logged: no limit");
	cr_log_info("flood: %lu counted, %lu logged", (unsigned long)results[1],
		    (unsigned long)results[2]);
}

/* The running jail's side (nftjail.c): NFLOG's denials aggregated as the
 * BPF programs aggregate them in the kernel, one event per key and window
 * and exact repeats, and the counters agree: nothing lost. */
#define AGG_A 300
#define AGG_B 200

struct agg_seen {
	uint64_t events;
	uint64_t repeats[2]; /* of 10.0.0.5 and 10.0.0.6 */
	size_t keys;
};

static int agg_event(void *ctx, const struct jail_event *e)
{
	struct agg_seen *seen = ctx;

	seen->events += e->hook == HOOK_NFT_OUTPUT && e->reason == REASON_PRIVATE && !e->pid;
	return 0;
}

static void agg_tally(void *ctx, const struct denial_key *k, const struct denial_tally *t)
{
	struct agg_seen *seen = ctx;

	seen->keys++;
	if (k->daddr == inet_addr("10.0.0.5") || k->daddr == inet_addr("10.0.0.6"))
		seen->repeats[k->daddr == inet_addr("10.0.0.6")] += t->repeats;
}

static void aggregate_child(int out)
{
	static const struct try a = { "10.0.0.5", IPPROTO_UDP, 53, EPERM };
	static const struct try b = { "10.0.0.6", IPPROTO_UDP, 53, EPERM };
	__u64 c[COUNTER_SLOTS];
	struct agg_seen seen = { 0 };
	struct nftjail nj;
	uint64_t results[6];
	int ns, i, refused = 0;
	char why[256];

	jail_netns();
	ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	/* An hour's window: every repeat of the burst is in the first one. */
	if (ns < 0 || nftjail_open(&nj, ns, agg_event, &seen, 3600ULL * 1000000000ULL))
		_exit(96);
	if (nftjail_set_policy(&nj, &pol, why, sizeof(why))) {
		fprintf(stderr, "nft: %s\n", why);
		_exit(94);
	}
	for (i = 0; i < AGG_A + AGG_B; i++)
		refused += try_one(i < AGG_A ? &a : &b) == EPERM;
	for (i = 0; i < 50; i++) {
		int n = nftjail_events_poll(&nj);

		if (n < 0)
			_exit(97);
		if (!n && seen.events >= 2)
			break;
		usleep(10000);
	}
	if (nftjail_read_counters(&nj, ENGINE_COUNTERS_FINAL, c) || nftjail_read_denials(&nj, agg_tally, &seen))
		_exit(98);
	results[0] = (uint64_t)refused;
	results[1] = seen.events;
	results[2] = seen.repeats[0];
	results[3] = seen.repeats[1];
	results[4] = c[HOOK_NFT_OUTPUT * COUNTER_STRIDE + REASON_PRIVATE];
	results[5] = c[HOOK_NFT_OUTPUT * COUNTER_STRIDE + COUNTER_EVENTS(REASON_PRIVATE)];
	nftjail_close(&nj);
	_exit(write(out, results, sizeof(results)) == sizeof(results) ? 0 : 95);
}

Test(nftrules, a_running_jail_aggregates_as_the_kernel_does, .fini = teardown, .timeout = 60)
{
	uint64_t r[6];
	int fd;

	if (geteuid() != 0)
		cr_skip_test("needs root: to become another user (uid 65534)");
	compile(conf);
	fd = in_child(aggregate_child, "91 a try's socket(), 92 namespaces, 93 ip, 94 nft, 95 pipe, 96 nftjail_open, "
				       "97 reading it, 98 the counters and tallies");
	cr_assert_eq(read(fd, r, sizeof(r)), sizeof(r));
	close(fd);
	cr_expect_eq(r[0], AGG_A + AGG_B, "%lu refused", (unsigned long)r[0]);
	cr_expect_eq(r[1], 2, "%lu events: want one per destination", (unsigned long)r[1]);
	cr_expect_eq(r[2], AGG_A - 1, "10.0.0.5: %lu repeats", (unsigned long)r[2]);
	cr_expect_eq(r[3], AGG_B - 1, "10.0.0.6: %lu repeats", (unsigned long)r[3]);
	cr_expect_eq(r[4], AGG_A + AGG_B, "the chains counted %lu", (unsigned long)r[4]);
	cr_expect_eq(r[5], 2, "the events' counter says %lu", (unsigned long)r[5]);
}

/* --- changes in place: a name's answer ----------------------------------- */

/* element() - whether @c holds, in step @step (or any: -1), the element
 * (@add, @map, @addr, @proto, @port) jumping to @jump ("" accept; NULL for
 * a delete) */
static bool element(const struct nft_change *c, long step, bool add, enum nft_map map,
		    const char *addr, uint8_t proto, uint16_t port, const char *jump)
{
	uint8_t key[NFTRULES_KEY_MAX] = { 0 };
	uint32_t a = inet_addr(addr);
	uint16_t p = htons(port);
	size_t i, s = 0;

	memcpy(key, &a, 4);
	if (map == NFT_MAP_PORTS) {
		key[4] = proto;
		memcpy(key + 8, &p, 2);
	}
	for (i = 0; i < c->n; i++) {
		const struct nft_element *e = &c->elements[i];

		while (s < c->n_steps && i >= c->step_end[s])
			s++;
		if ((step < 0 || (size_t)step == s) && e->add == add && e->map == map &&
		    e->key_len == (map == NFT_MAP_PORTS ? 12 : 4) && !memcmp(e->key, key, e->key_len) &&
		    (!add || !strcmp(e->jump, jump)))
			return true;
	}
	return false;
}

/* An answer's addresses are elements added to and deleted from the maps
 * of the generation in force, as the kernel keeps their keys; a changed
 * verdict is a delete and an add in one step (the kernel refuses an add
 * over another verdict, and between two steps the address would fall to
 * its range); what is in force as it is writes nothing; a shorter prefix,
 * or a verdict whose chain the generation lacks, is only for a whole
 * generation. */
Test(nftrules, a_change_in_place_is_elements_of_the_exact_maps, .fini = teardown)
{
	struct policy_rule host = { .key = { .prefixlen = 32, .addr = inet_addr("10.1.2.9") },
				    .value = { .action = JAIL_ALLOW, .reason = REASON_ALLOW_HOST,
					       .prefixlen = 32 } };
	struct policy_rule port = host, blocked = host, wide = host, user = host, ip = host;
	struct nft_script whole;
	struct nft_change c;
	char deny_host[NFTRULES_CHAIN_MAX], deny_user[NFTRULES_CHAIN_MAX];

	port.key = (struct policy_key){ .prefixlen = POLICY_PREFIXLEN_PORT,
					.addr = inet_addr("10.1.2.10"), .port = htons(22) };
	blocked.value = (struct policy_value){ .action = JAIL_DENY, .reason = REASON_DENY_HOST,
					       .prefixlen = 32 };
	user.value = (struct policy_value){ .action = JAIL_DENY, .reason = REASON_BLOCK_CIDR,
					    .prefixlen = 32 };
	ip.key.addr = inet_addr("10.1.2.11");
	ip.value = (struct policy_value){ .action = JAIL_ALLOW, .reason = REASON_NONE,
					  .prefixlen = 32 };
	wide.key.prefixlen = 24;
	snprintf(deny_host, sizeof(deny_host), "deny_%d_32", REASON_DENY_HOST);
	snprintf(deny_user, sizeof(deny_user), "deny_%d_32", REASON_BLOCK_CIDR);
	compile("allow-host = *.lan\n");
	free(pol.sources);
	pol.sources = NULL;
	cr_assert_eq(nftrules_script(&pol, 4, 0, NULL, 0, &whole), 0);
	cr_expect(whole.chains.kept, "allow-host: the kept chain is there for the first name");
	cr_expect(whole.chains.used[REASON_DENY_HOST][32], "a deny-host's chain is there");
	cr_expect(whole.chains.used[REASON_BLOCK_CIDR][32], "`ebpfjail deny`'s chain is there");

	cr_assert_eq(nftrules_change(&pol, &whole.chains, (struct policy_rule[]){ host, port, ip }, 3,
				     NULL, 0, &c), 0);
	cr_expect_eq(c.n, 4, "a host, a port for each protocol, an allow-ip: %zu", c.n);
	cr_expect_eq(c.n_steps, 1);
	cr_expect(element(&c, 0, true, NFT_MAP_HOSTS, "10.1.2.9", 0, 0, "kept"));
	cr_expect(element(&c, 0, true, NFT_MAP_PORTS, "10.1.2.10", IPPROTO_TCP, 22, "kept"));
	cr_expect(element(&c, 0, true, NFT_MAP_PORTS, "10.1.2.10", IPPROTO_UDP, 22, "kept"));
	cr_expect(element(&c, 0, true, NFT_MAP_HOSTS, "10.1.2.11", 0, 0, ""), "accept");
	nftrules_change_free(&c);

	cr_assert_eq(policy_insert_rule(&pol, &host), 0);
	cr_assert_eq(nftrules_change(&pol, &whole.chains, &host, 1, NULL, 0, &c), 0);
	cr_expect_eq(c.n, 0, "in force as it is: %zu elements", c.n);
	nftrules_change_free(&c);
	cr_assert_eq(nftrules_change(&pol, &whole.chains, &blocked, 1, NULL, 0, &c), 0);
	cr_assert_eq(c.n_steps, 1);
	cr_assert_eq(c.n, 2);
	cr_expect(!c.elements[0].add && element(&c, 0, false, NFT_MAP_HOSTS, "10.1.2.9", 0, 0, NULL),
		  "the old verdict deleted first");
	cr_expect(c.elements[1].add && element(&c, 0, true, NFT_MAP_HOSTS, "10.1.2.9", 0, 0, deny_host),
		  "then the new one added, in the same step");
	nftrules_change_free(&c);
	cr_assert_eq(nftrules_change(&pol, &whole.chains, NULL, 0,
				     (struct policy_key[]){ host.key, port.key }, 2, &c), 0);
	cr_expect_eq(c.n, 1, "not in force, not deleted: %zu elements", c.n);
	cr_expect(element(&c, 0, false, NFT_MAP_HOSTS, "10.1.2.9", 0, 0, NULL));
	nftrules_change_free(&c);

	/* `ebpfjail deny ADDR:PORT` under a churn of names: in place */
	user.key = port.key;
	cr_assert_eq(nftrules_change(&pol, &whole.chains, &user, 1, NULL, 0, &c), 0);
	cr_assert_eq(c.n_steps, 1);
	cr_expect(element(&c, 0, true, NFT_MAP_PORTS, "10.1.2.10", IPPROTO_TCP, 22, deny_user));
	cr_expect(element(&c, 0, true, NFT_MAP_PORTS, "10.1.2.10", IPPROTO_UDP, 22, deny_user));
	nftrules_change_free(&c);

	cr_expect_eq(nftrules_change(&pol, &whole.chains, &wide, 1, NULL, 0, &c), -EOPNOTSUPP);
	cr_expect_eq(nftrules_change(&pol, &whole.chains, NULL, 0, &wide.key, 1, &c), -EOPNOTSUPP);
	whole.chains.used[REASON_DENY_HOST][32] = false;
	cr_expect_eq(nftrules_change(&pol, &whole.chains, &blocked, 1, NULL, 0, &c), -EOPNOTSUPP);
	nftrules_script_free(&whole);
}

/* A change of many keys is cut into steps of NFTRULES_ELEMENTS_PER_STEP
 * at most (a netlink batch from a user namespace must fit in
 * net.core.wmem_max), and a key whose verdict changes never straddles
 * two: its delete and its add are one transaction. */
Test(nftrules, a_large_change_in_place_is_in_steps, .fini = teardown)
{
	size_t n = 3 * NFTRULES_ELEMENTS_PER_STEP / 2, i, s, from = 0;
	struct policy_rule *set = calloc(n, sizeof(*set));
	struct nft_script whole;
	struct nft_change c;

	cr_assert(set);
	compile("allow-host = *.lan\n");
	free(pol.sources);
	pol.sources = NULL;
	cr_assert_eq(nftrules_script(&pol, 4, 0, NULL, 0, &whole), 0);
	for (i = 0; i < n; i++) {
		set[i] = (struct policy_rule){
			.key = { .prefixlen = 32, .addr = htonl(0x0a010000 + (uint32_t)i) },
			.value = { .action = JAIL_ALLOW, .reason = REASON_ALLOW_HOST, .prefixlen = 32 } };
		if (i % 2 == 0)
			cr_assert_eq(policy_insert_rule(&pol, &set[i]), 0);
		if (i % 2 == 0) /* in force as a name: now a deny-host's block */
			set[i].value = (struct policy_value){ .action = JAIL_DENY,
							      .reason = REASON_DENY_HOST,
							      .prefixlen = 32 };
	}
	cr_assert_eq(nftrules_change(&pol, &whole.chains, set, n, NULL, 0, &c), 0);
	cr_expect_eq(c.n, n + n / 2, "%zu elements", c.n);
	cr_expect_geq(c.n_steps, 3);
	for (s = 0; s < c.n_steps; s++) {
		cr_expect_leq(c.step_end[s] - from, NFTRULES_ELEMENTS_PER_STEP, "step %zu", s);
		cr_expect(c.elements[from].add || c.elements[from + 1].add,
			  "step %zu starts with a whole pair", s);
		cr_expect(c.elements[c.step_end[s] - 1].add, "step %zu ends with an add", s);
		from = c.step_end[s];
	}
	cr_expect_eq(from, c.n);
	nftrules_change_free(&c);
	nftrules_script_free(&whole);
	free(set);
}

/* Review finding 6: a change whose deletes came in an earlier step than
 * its additions was looser in between. An address+port block (ports)
 * that gives way to a /32 block of the address (hosts), under the /32
 * allow of an allow-ip: deleted first, the port fell to the allow until
 * the next step. Every addition (with the delete of the key it replaces)
 * comes before every other delete. */
Test(nftrules, a_change_in_steps_adds_before_it_deletes, .fini = teardown)
{
	size_t n = NFTRULES_ELEMENTS_PER_STEP + 10, i, last_add = 0, first_del = SIZE_MAX;
	struct policy_rule *set = calloc(n, sizeof(*set)), old_port;
	struct nft_script whole;
	struct nft_change c;

	cr_assert(set);
	compile("allow-host = *.lan\n");
	free(pol.sources);
	pol.sources = NULL;
	cr_assert_eq(nftrules_script(&pol, 4, 0, NULL, 0, &whole), 0);
	old_port = (struct policy_rule){
		.key = { .prefixlen = POLICY_PREFIXLEN_PORT, .addr = inet_addr("10.9.0.1"),
			 .port = htons(80) },
		.value = { .action = JAIL_DENY, .reason = REASON_DENY_HOST, .prefixlen = 32 } };
	cr_assert_eq(policy_insert_rule(&pol, &old_port), 0);
	for (i = 0; i < n; i++)
		set[i] = (struct policy_rule){
			.key = { .prefixlen = 32, .addr = htonl(0x0a090000 + (uint32_t)i + 1) },
			.value = { .action = JAIL_DENY, .reason = REASON_DENY_HOST, .prefixlen = 32 } };
	cr_assert_eq(nftrules_change(&pol, &whole.chains, set, n, &old_port.key, 1, &c), 0);
	cr_expect_geq(c.n_steps, 2);
	for (i = 0; i < c.n; i++) {
		if (c.elements[i].add)
			last_add = i;
		else if (first_del == SIZE_MAX)
			first_del = i;
	}
	cr_expect_gt(first_del, last_add, "a delete at %zu before the add at %zu", first_del,
		     last_add);
	cr_expect(element(&c, (long)c.n_steps - 1, false, NFT_MAP_PORTS, "10.9.0.1", IPPROTO_TCP, 80,
			  NULL), "the port's block goes in the last step, after 10.9.0.1/32's");
	nftrules_change_free(&c);
	nftrules_script_free(&whole);
	free(set);
}

/* A /32 entry wins over its range in the kernel as in the trie, and
 * changes in place hold at once: a name's address opened, a name's port
 * opened for that port only, a deny over a name, and a name deleted. */
static void change_child(int out)
{
	static const struct try steps[][3] = {
		{ { "10.1.2.9", IPPROTO_UDP, 9, EPERM }, { "10.1.2.10", IPPROTO_UDP, 5353, EPERM },
		  { "10.1.2.3", IPPROTO_UDP, 9, 0 } },
		{ { "10.1.2.9", IPPROTO_UDP, 9, 0 }, { "10.1.2.10", IPPROTO_UDP, 5353, 0 },
		  { "10.1.2.10", IPPROTO_UDP, 5354, EPERM } },
		{ { "10.1.2.9", IPPROTO_UDP, 9, EPERM }, { "10.1.2.10", IPPROTO_UDP, 5353, 0 },
		  { "10.1.2.3", IPPROTO_UDP, 9, 0 } },
		{ { "10.1.2.9", IPPROTO_UDP, 9, EPERM }, { "10.1.2.10", IPPROTO_UDP, 5353, EPERM },
		  { "10.1.2.3", IPPROTO_UDP, 9, 0 } },
	};
	struct policy_rule host = { .key = { .prefixlen = 32, .addr = inet_addr("10.1.2.9") },
				    .value = { .action = JAIL_ALLOW, .reason = REASON_ALLOW_HOST,
					       .prefixlen = 32 } };
	struct policy_rule port = host, blocked = host;
	int results[4][3];
	struct nftengine engine = { 0 };
	struct policy in_force;
	char why[256];
	size_t s, i;

	port.key = (struct policy_key){ .prefixlen = POLICY_PREFIXLEN_PORT,
					.addr = inet_addr("10.1.2.10"), .port = htons(5353) };
	blocked.value = (struct policy_value){ .action = JAIL_DENY, .reason = REASON_DENY_HOST,
					       .prefixlen = 32 };
	jail_netns();
	if (nftengine_apply(&engine, &pol, why, sizeof(why)) || policy_copy(&pol, &in_force)) {
		fprintf(stderr, "nft: %s\n", why);
		_exit(94);
	}
	for (s = 0; s < 4; s++) {
		int err = 0;

		if (s == 1) {
			err = nftengine_change(&engine, &in_force, (struct policy_rule[]){ host, port },
					       2, NULL, 0, why, sizeof(why));
			err = err ? err : policy_set_rule(&in_force, &host);
			err = err ? err : policy_set_rule(&in_force, &port);
		} else if (s == 2) {
			err = nftengine_change(&engine, &in_force, &blocked, 1, NULL, 0, why,
					       sizeof(why));
			err = err ? err : policy_set_rule(&in_force, &blocked);
		} else if (s == 3) {
			err = nftengine_change(&engine, &in_force, NULL, 0, &port.key, 1, why,
					       sizeof(why));
		}
		if (err) {
			fprintf(stderr, "step %zu: %s: %s\n", s, strerror(-err), why);
			_exit(96);
		}
		for (i = 0; i < 3; i++)
			results[s][i] = try_one(&steps[s][i]);
	}
	for (s = 0; s < 4; s++)
		for (i = 0; i < 3; i++)
			if (results[s][i] != steps[s][i].want) {
				fprintf(stderr, "step %zu: %s:%u: %s, want %s\n", s, steps[s][i].addr,
					steps[s][i].port, strerror(results[s][i]),
					strerror(steps[s][i].want));
				_exit(97);
			}
	if (write(out, "k", 1) != 1)
		_exit(95);
	_exit(0);
}

Test(nftrules, changes_in_place_hold_at_once, .fini = teardown, .timeout = 60)
{
	char text[sizeof(conf) + 32];
	int fd;

	if (geteuid() != 0)
		cr_skip_test("needs root: to become another user (uid 65534)");
	snprintf(text, sizeof(text), "%sallow-host = a.lan\n", conf);
	compile(text);
	free(pol.sources);
	pol.sources = NULL;
	fd = in_child(change_child, "91 a try's socket(), 92 namespaces, 93 ip, 94 nft, 95 pipe, "
				    "96 a change, 97 a try's result (stderr says which)");
	close(fd);
}

/* A step of the most messages a change makes: every key's value changes,
 * so each is deleted and added again, a message each (runs of one). Their
 * ACKs wait in the socket's queue all at once: a default-sized queue drops
 * some (ENOBUFS), and a change the kernel made would read as refused. */
#define MANY_CHANGED (NFTRULES_ELEMENTS_PER_STEP / 2 - 10) /* one step: room for a rule held */

static void many_child(int out)
{
	static const struct try before = { "10.7.0.200", IPPROTO_UDP, 9, 0 },
				after = { "10.7.0.200", IPPROTO_UDP, 9, EPERM };
	struct policy_rule set[MANY_CHANGED];
	struct nftengine engine = { 0 };
	struct policy in_force;
	char why[256];
	size_t i;
	int err;

	jail_netns();
	if (policy_copy(&pol, &in_force))
		_exit(94);
	for (i = 0; i < MANY_CHANGED; i++) {
		set[i] = (struct policy_rule){
			.key = { .prefixlen = 32, .addr = htonl(0x0a070000 + (uint32_t)i + 1) },
			.value = { .action = JAIL_ALLOW, .reason = REASON_ALLOW_HOST, .prefixlen = 32 } };
		if (policy_set_rule(&in_force, &set[i]))
			_exit(94);
	}
	if (nftengine_apply(&engine, &in_force, why, sizeof(why))) {
		fprintf(stderr, "nft: %s\n", why);
		_exit(94);
	}
	if (try_one(&before) != before.want)
		_exit(97); /* the control: allowed by name before the change */
	for (i = 0; i < MANY_CHANGED; i++)
		set[i].value = (struct policy_value){ .action = JAIL_DENY, .reason = REASON_DENY_HOST,
						      .prefixlen = 32 };
	err = nftengine_change(&engine, &in_force, set, MANY_CHANGED, NULL, 0, why, sizeof(why));
	if (err) {
		fprintf(stderr, "the change: %s: %s\n", strerror(-err), why);
		_exit(96);
	}
	if (try_one(&after) != after.want)
		_exit(97);
	/* A refused message that asked for no ACK is still answered: a
	 * policy that says the blocks are not there writes adds (EXCL) over
	 * them, which the kernel refuses, and the change is an error. */
	for (i = 0; i < MANY_CHANGED; i++)
		policy_remove_rule(&in_force, &set[i].key);
	err = nftengine_change(&engine, &in_force, set, MANY_CHANGED, NULL, 0, why, sizeof(why));
	if (err != -EEXIST) {
		fprintf(stderr, "a change over elements that are there: %s: %s\n", strerror(-err), why);
		_exit(98);
	}
	if (write(out, "k", 1) != 1)
		_exit(95);
	_exit(0);
}

Test(nftrules, a_step_of_the_most_messages_is_acknowledged, .fini = teardown, .timeout = 60)
{
	struct nft_change c;
	size_t i, runs = 0;
	int fd;

	if (geteuid() != 0)
		cr_skip_test("needs root: to become another user (uid 65534)");
	compile(conf);
	/* the premise: one step, one message per element */
	{
		struct policy_rule set[MANY_CHANGED];
		struct policy in_force;
		struct nft_script whole;

		cr_assert_eq(policy_copy(&pol, &in_force), 0);
		for (i = 0; i < MANY_CHANGED; i++) {
			set[i] = (struct policy_rule){
				.key = { .prefixlen = 32, .addr = htonl(0x0a070000 + (uint32_t)i + 1) },
				.value = { .action = JAIL_ALLOW, .reason = REASON_ALLOW_HOST,
					   .prefixlen = 32 } };
			cr_assert_eq(policy_set_rule(&in_force, &set[i]), 0);
			set[i].value = (struct policy_value){ .action = JAIL_DENY,
							      .reason = REASON_DENY_HOST,
							      .prefixlen = 32 };
		}
		cr_assert_eq(nftrules_script(&in_force, 1, 0, NULL, 0, &whole), 0);
		cr_assert_eq(nftrules_change(&in_force, &whole.chains, set, MANY_CHANGED, NULL, 0, &c),
			     0);
		cr_expect_eq(c.n_steps, 1);
		for (i = 0; i < c.n; i++)
			runs += !i || c.elements[i].add != c.elements[i - 1].add ||
				c.elements[i].map != c.elements[i - 1].map;
		cr_expect_geq(runs, 2 * MANY_CHANGED, "%zu messages for %zu elements", runs, c.n);
		nftrules_change_free(&c);
		nftrules_script_free(&whole);
		policy_free(&in_force);
	}
	fd = in_child(many_child, "91 a try's socket(), 92 namespaces, 93 ip, 94 nft, 95 pipe, "
				  "96 the change, 97 a try's result, 98 a refused change");
	close(fd);
}
