/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* policy.bpf.h - the policy maps and the one decision every program makes
 *
 * Included by each BPF program of the jail. The maps are declared __weak so
 * that `bpftool gen object` links the per-concern objects into one, with one
 * copy of each map shared by the socket hooks and the TC classifier. The
 * Unix socket hooks' object is loaded apart and reuses these maps' fds.
 */
#ifndef EBPFJAIL_POLICY_BPF_H
#define EBPFJAIL_POLICY_BPF_H

#include "ebpfjail.h"

/* UAPI macros that vmlinux.h (types only) does not carry. IPPROTO_* are
 * enum constants there. */
#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10

/* Sizes, not BTF types: clang emits only a forward declaration for a struct
 * reached through the inner map template, and libbpf cannot size that. */
struct policy_trie {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, POLICY_MAX_ENTRIES);
	__uint(key_size, sizeof(struct policy_key));
	__uint(value_size, sizeof(struct policy_value));
};

/* The active policy: slot 0 holds the trie; user space swaps it whole. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct policy_trie);
} policy_outer SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COUNTER_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, EVENT_RINGBUF_BYTES);
} events SEC(".maps") __weak;

/* The Unix socket policy (bpf/ebpfjail.h). Declared here, not in
 * unix.bpf.c, so that the supervisor's object owns it even where the Unix
 * hooks are not loaded (unix.bpf.c is an object of its own, loader.c says
 * why, and uses this map's fd). Filled in place, not swapped
 * behind an outer map as the IP trie is. It holds allows only, so a
 * replacement that adds the new entries before it deletes the old ones
 * passes through their union and never through a state that allows what
 * neither allows; and an outer map's update costs a kernel RCU grace
 * period (8 to 16 ms here) at every start. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, UNIX_POLICY_MAX_ENTRIES);
	__type(key, struct unix_key);
	__type(value, struct unix_value);
} unix_policy SEC(".maps") __weak;

struct verdict {
	__u8 action; /* enum policy_action */
	__u8 reason; /* enum jail_reason */
	__u8 rule_prefixlen;
};

/* count() - add one to the (hook, reason) counter. Inlined: it runs on every
 * decision and a BPF-to-BPF call costs more than the increment. */
static __always_inline void count(__u32 hook, __u32 reason)
{
	__u32 slot = hook * COUNTER_STRIDE + reason;
	__u64 *n = bpf_map_lookup_elem(&counters, &slot);

	if (n)
		*n += 1;
}

/* policy_decide() - look up an IPv4 destination in the active policy trie.
 * @daddr: destination address, network byte order
 * @dport: destination port, network byte order (0 for portless protocols)
 * @proto: IPPROTO_* of the socket or packet
 *
 * Fails closed: a missing trie (user space not done loading, or a bug) is a
 * denial, so a jail whose policy never arrived lets nothing out.
 */
static __always_inline struct verdict policy_decide(__u32 daddr, __u16 dport, __u8 proto)
{
	struct verdict v = { .action = JAIL_DENY, .reason = REASON_RESERVED };
	struct policy_key key = {
		.prefixlen = POLICY_PREFIXLEN_PORT,
		.addr = daddr,
		.port = dport,
	};
	struct policy_value *val;
	__u32 zero = 0;
	void *trie;

	trie = bpf_map_lookup_elem(&policy_outer, &zero);
	if (!trie)
		return v;

	val = bpf_map_lookup_elem(trie, &key);
	if (!val) {
		v.action = JAIL_ALLOW;
		v.reason = REASON_NONE;
		return v;
	}
	/* An entry for one protocol only (the DNS exception where pasta
	 * does not forward TCP): any other protocol is refused. */
	if (val->proto && val->proto != proto) {
		v.reason = REASON_GATEWAY;
		v.rule_prefixlen = 32;
		return v;
	}
	v.action = val->action;
	v.reason = val->reason;
	v.rule_prefixlen = val->prefixlen;
	return v;
}

/* event_fill() - the fields of a network denial event that do not depend
 * on who took the decision: when, where to, which rule; the rest is zero (a
 * TC event has no process, the socket hooks fill theirs in afterwards).
 * @e: a record of JAIL_EVENT_INET_SIZE bytes (ebpfjail.h: no path)
 * @daddr6: an IPv6 destination (reason REASON_IPV6), or NULL
 * @family: AF_INET, or AF_INET6 for an IPv6 socket's (mapped) destination
 */
static __always_inline void event_fill(struct jail_event *e, __u32 hook, struct verdict v,
				       __u32 daddr, __u16 dport_be, __u8 proto, __u8 family,
				       const __u32 *daddr6)
{
	__builtin_memset(e, 0, JAIL_EVENT_INET_SIZE);
	e->time_ns = bpf_ktime_get_boot_ns();
	e->daddr = daddr;
	e->dport = bpf_ntohs(dport_be);
	e->proto = proto;
	e->hook = (__u8)hook;
	e->reason = v.reason;
	e->rule_prefixlen = v.rule_prefixlen;
	e->family = family;
	if (daddr6) {
		e->daddr6[0] = daddr6[0];
		e->daddr6[1] = daddr6[1];
		e->daddr6[2] = daddr6[2];
		e->daddr6[3] = daddr6[3];
	}
}

/* event_fill_process() - who a socket hook's denial came from: the
 * current task, its cgroup, uid and comm. Not for TC: no process there. */
static __always_inline void event_fill_process(struct jail_event *e)
{
	__u64 id = bpf_get_current_pid_tgid();

	e->cgroup_id = bpf_get_current_cgroup_id();
	e->pid = id >> 32;
	e->tid = (__u32)id;
	id = bpf_get_current_uid_gid();
	e->uid = (__u32)id;
	e->gid = id >> 32;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
}

#endif /* EBPFJAIL_POLICY_BPF_H */
