// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sock.bpf.c - cgroup socket hooks: the agent's connects and sends, decided
 *
 * Attached to the agent's cgroup. A denial returns 0, which the kernel turns
 * into EPERM for connect()/sendmsg() at once (no timeout for the agent to
 * wait out), and is tallied for the audit log (bpf/ebpfjail.h,
 * "Aggregation").
 *
 * What each hook sees (net/ipv4/af_inet.c, udp.c, tcp.c, ping.c):
 * - connect4/connect6: connect() on TCP, UDP and ping sockets, and TCP Fast
 *   Open's sendto(MSG_FASTOPEN), through the protocol's pre_connect.
 * - sendmsg4/sendmsg6: UDP sendto()/sendmsg()/sendmmsg() with an address,
 *   once per message. A connected socket was judged at connect().
 * - An AF_INET6 socket sending to an IPv4-mapped address (::ffff:a.b.c.d)
 *   reaches sendmsg4 (udpv6_sendmsg hands it to udp_sendmsg), and connect6
 *   for connect(). Either way the IPv4 address is judged.
 * Raw sockets, unconnected ping sockets and anything else have no hook here:
 * the TC classifier on the tap sees their packets.
 *
 * The hooks run for every socket of the cgroup, in whatever network
 * namespace the socket lives. A namespace the agent made itself (unshare,
 * bubblewrap) is not behind the tap: the TC program never sees its packets.
 * So a socket outside the jail's namespace gets its own loopback and
 * nothing else (bpf/ebpfjail.h, "The jail's network namespace").
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "policy.bpf.h"

/* cgroup/sock_addr return values: 0 rejects the call with EPERM. */
#define VERDICT_DENY 0
#define VERDICT_ALLOW 1

/* The jail's network namespace, as SO_NETNS_COOKIE gives it in user space;
 * set before load. 0 (never a namespace's cookie) leaves every socket
 * "foreign": loopback only, the rest denied. */
const volatile __u64 jail_netns_cookie = 0;

/* deny() - a socket hook's denial into its tally and, if due, an event.
 * Inlined into each hook: the verifier then sees the ctx type directly. */
static __always_inline void deny(struct bpf_sock_addr *ctx, __u32 hook, struct verdict v,
				 __u32 daddr, __u16 dport_be, const __u32 *daddr6)
{
	struct denial_key k;

	/* The socket's family: inet6 marks an IPv4-mapped destination. Only
	 * the IPv6 hooks may read user_ip6: the address comes as an argument
	 * so each inlined copy touches the fields its hook owns. */
	denial_key_inet(&k, bpf_get_current_pid_tgid() >> 32, hook, v, daddr, dport_be,
			(__u8)ctx->protocol, ctx->family == AF_INET6 ? AF_INET6 : AF_INET, daddr6);
	record_denial(&k, 1, 0);
}

/* judge_ipv4() - the whole decision for an IPv4 destination, shared by the
 * four hooks so a mapped address is judged exactly as its IPv4 form. */
static __always_inline int judge_ipv4(struct bpf_sock_addr *ctx, __u32 hook, __u32 daddr,
				      __u16 dport_be)
{
	struct verdict v;

	/* The jail's own loopback never leaves the namespace: the agent's
	 * tools (language servers, test servers) talk over it. 127/8 on the
	 * tap, which would be the host's loopback, is the TC program's. */
	if ((bpf_ntohl(daddr) >> 24) == 127) {
		count(hook, REASON_JAIL_LOOPBACK);
		return VERDICT_ALLOW;
	}
	/* A socket of another namespace (one the agent made) has no tap and
	 * no TC program behind it: whatever it reached beyond its loopback
	 * would go unwatched. Such a namespace has no way out today (the
	 * agent lacks the privileges to link it to anything); the hooks do
	 * not rely on that. One helper call and a compare, only for what
	 * leaves loopback. The socket's namespace, not the caller's: a
	 * socket passed between namespaces is judged where it lives. */
	if (bpf_get_netns_cookie(ctx) != jail_netns_cookie) {
		v = (struct verdict){ .action = JAIL_DENY, .reason = REASON_NETNS };
		deny(ctx, hook, v, daddr, dport_be, NULL);
		return VERDICT_DENY;
	}
	v = policy_decide(daddr, dport_be, (__u8)ctx->protocol);
	if (v.action == JAIL_ALLOW) {
		/* A connection by name goes on after its entry expires
		 * (ebpfjail.h, "Connections that outlive ..."). Only at
		 * connect(): a datagram sent with an address is judged
		 * each time. */
		if (v.reason == REASON_ALLOW_HOST && hook != HOOK_SENDMSG4) {
			struct kept_flow f = { .daddr = daddr, .dport = dport_be,
					       .gen = kept_generation() };
			__u64 cookie = bpf_get_socket_cookie(ctx);

			bpf_map_update_elem(&kept_flows, &cookie, &f, BPF_ANY);
		}
		count(hook, v.reason);
		return VERDICT_ALLOW;
	}
	deny(ctx, hook, v, daddr, dport_be, NULL);
	return VERDICT_DENY;
}

/* judge_ipv6() - IPv6 has no route out of the jail, but a hook that let it
 * pass would rely on that alone; deny all but IPv4-mapped addresses. */
static __always_inline int judge_ipv6(struct bpf_sock_addr *ctx, __u32 hook)
{
	struct verdict v = { .action = JAIL_DENY, .reason = REASON_IPV6 };
	__u16 dport_be = (__u16)ctx->user_port;
	__u32 ip6[4];

	ip6[0] = ctx->user_ip6[0];
	ip6[1] = ctx->user_ip6[1];
	ip6[2] = ctx->user_ip6[2];
	ip6[3] = ctx->user_ip6[3];
	if (ip6[0] == 0 && ip6[1] == 0 && ip6[2] == bpf_htonl(0x0000ffff))
		return judge_ipv4(ctx, hook, ip6[3], dport_be);

	deny(ctx, hook, v, 0, dport_be, ip6);
	return VERDICT_DENY;
}

SEC("cgroup/connect4")
int jail_connect4(struct bpf_sock_addr *ctx)
{
	return judge_ipv4(ctx, HOOK_CONNECT4, ctx->user_ip4, (__u16)ctx->user_port);
}

SEC("cgroup/sendmsg4")
int jail_sendmsg4(struct bpf_sock_addr *ctx)
{
	return judge_ipv4(ctx, HOOK_SENDMSG4, ctx->user_ip4, (__u16)ctx->user_port);
}

SEC("cgroup/connect6")
int jail_connect6(struct bpf_sock_addr *ctx)
{
	return judge_ipv6(ctx, HOOK_CONNECT6);
}

SEC("cgroup/sendmsg6")
int jail_sendmsg6(struct bpf_sock_addr *ctx)
{
	return judge_ipv6(ctx, HOOK_SENDMSG6);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
