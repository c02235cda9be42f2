// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tc.bpf.c - TC egress classifier on the jail's tap: every packet, decided
 *
 * The complete mediation point: whatever the socket hooks do not see (raw
 * sockets, unconnected ping sockets, protocols without a hook) still leaves
 * the namespace only through the tap, and here. Attached as clsact egress,
 * direct action: TC_ACT_OK passes, TC_ACT_SHOT drops.
 *
 * Order of checks:
 *   ARP                         pass (the tap needs its neighbour)
 *   IPv6                        drop, reason ipv6
 *   any other ethertype         drop, reason non-ipv4 (VLAN tags and QinQ
 *                               included: a tag would hide the real header)
 *   IPv4 shorter than 20 bytes,
 *   version != 4, IHL < 5       drop, reason non-ipv4 (malformed)
 *   IPv4 with options (IHL > 5) drop, reason ip-options (source routing and
 *                               friends have no business leaving the jail)
 *   everything else             the policy, on the destination address and,
 *                               for TCP and UDP first fragments, the port;
 *                               but the DNS forward address and pasta's
 *                               DNS address never (ebpfjail.h), reason
 *                               gateway
 * Later fragments carry no port and are judged on the address alone, so a
 * fragment to a blocked address is dropped whatever its first part said.
 *
 * Drops are counted per reason and tallied per destination like the socket
 * hooks' denials (bpf/ebpfjail.h, "Aggregation").
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "policy.bpf.h"

#define TC_ACT_OK 0
#define TC_ACT_SHOT 2
#define ETH_P_IP 0x0800
#define ETH_P_ARP 0x0806
#define ETH_P_IPV6 0x86DD
#define IP_OFFSET_MASK 0x1fff

/* drop() - a TC drop into its tally (no process: pid 0), and, if due, an
 * event. Aggregated like the socket hooks' denials, so a flood of frames
 * leaves exact counts and a bounded log, and cannot drown their events. */
static __always_inline int drop(struct verdict v, __u32 daddr, __u16 dport_be, __u8 proto,
				const __u32 *daddr6)
{
	struct denial_key k;

	denial_key_inet(&k, 0, HOOK_TC, v, daddr, dport_be, proto, daddr6 ? AF_INET6 : AF_INET,
			daddr6);
	record_denial(&k, 0, 0);
	return TC_ACT_SHOT;
}

static __always_inline int drop_reason(__u8 reason)
{
	struct verdict v = { .action = JAIL_DENY, .reason = reason };

	return drop(v, 0, 0, 0, NULL);
}

/* kept_flow() - is @skb from a socket that connect4 allowed by name to
 * this destination (ebpfjail.h, "Connections that outlive their allow-host
 * entry")? Its packets pass after the entry expired. A packet without a
 * socket (cookie 0) or to anywhere else is judged by the trie alone. */
static __always_inline bool kept_flow(struct __sk_buff *skb, __u32 daddr, __u16 dport_be)
{
	__u64 cookie = bpf_get_socket_cookie(skb);
	struct kept_flow *f;

	if (!cookie)
		return false;
	f = bpf_map_lookup_elem(&kept_flows, &cookie);
	return f && f->daddr == daddr && f->dport == dport_be && f->gen == kept_generation();
}

SEC("tc")
int jail_tc_egress(struct __sk_buff *skb)
{
	struct ethhdr eth;
	struct iphdr ip;
	__u16 ports[2];
	__u16 dport_be = 0;
	struct verdict v;

	/* bpf_skb_load_bytes() rather than direct packet access: it copes
	 * with non-linear skbs and bounds every read by skb->len, so a frame
	 * too short for a header fails the load and is dropped. */
	if (bpf_skb_load_bytes(skb, 0, &eth, sizeof(eth)))
		return drop_reason(REASON_NON_IPV4);
	if (eth.h_proto == bpf_htons(ETH_P_ARP)) {
		count(HOOK_TC, REASON_NONE);
		return TC_ACT_OK;
	}
	if (eth.h_proto == bpf_htons(ETH_P_IPV6)) {
		struct verdict v6 = { .action = JAIL_DENY, .reason = REASON_IPV6 };
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, sizeof(eth), &ip6, sizeof(ip6)))
			return drop(v6, 0, 0, 0, NULL);
		return drop(v6, 0, 0, ip6.nexthdr, ip6.daddr.in6_u.u6_addr32);
	}
	if (eth.h_proto != bpf_htons(ETH_P_IP))
		return drop_reason(REASON_NON_IPV4);

	if (bpf_skb_load_bytes(skb, sizeof(eth), &ip, sizeof(ip)) || ip.version != 4 || ip.ihl < 5)
		return drop_reason(REASON_NON_IPV4);
	if (ip.ihl > 5) {
		struct verdict vo = { .action = JAIL_DENY, .reason = REASON_IP_OPTIONS };

		return drop(vo, ip.daddr, 0, ip.protocol, NULL);
	}

	/* A first fragment too short to hold the ports is judged as
	 * portless: it cannot use a port-specific allow. */
	if ((ip.protocol == IPPROTO_TCP || ip.protocol == IPPROTO_UDP) &&
	    !(ip.frag_off & bpf_htons(IP_OFFSET_MASK)) &&
	    !bpf_skb_load_bytes(skb, sizeof(eth) + sizeof(ip), ports, sizeof(ports)))
		dport_be = ports[1];

	v = policy_decide(ip.daddr, dport_be, ip.protocol);
	/* The side door to the host's resolver (ebpfjail.h): never by the
	 * tap, whatever the trie says; the DNS exception holds on lo. */
	if (ip.daddr == bpf_htonl(JAIL_DNS_FORWARD_ADDR) || ip.daddr == bpf_htonl(JAIL_PASTA_DNS_ADDR)) {
		v.action = JAIL_DENY;
		v.reason = REASON_GATEWAY;
		v.rule_prefixlen = 32;
	}
	if (v.action != JAIL_ALLOW && kept_flow(skb, ip.daddr, dport_be)) {
		v.action = JAIL_ALLOW;
		v.reason = REASON_ALLOW_HOST;
	}
	if (v.action == JAIL_ALLOW) {
		count(HOOK_TC, v.reason);
		return TC_ACT_OK;
	}
	return drop(v, ip.daddr, dport_be, ip.protocol, NULL);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
