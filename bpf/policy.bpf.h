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

/* Sockets connected by REASON_ALLOW_HOST (ebpfjail.h, "Connections that
 * outlive their allow-host entry"): cookie -> destination. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, KEPT_FLOWS_MAX_ENTRIES);
	__type(key, __u64);
	__type(value, struct kept_flow);
} kept_flows SEC(".maps") __weak;

/* The generation of kept_flows in force (ebpfjail.h): one slot. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} kept_gen SEC(".maps") __weak;

/* kept_generation() - kept_gen[0], or 0 */
static __always_inline __u32 kept_generation(void)
{
	__u32 zero = 0, *gen = bpf_map_lookup_elem(&kept_gen, &zero);

	return gen ? *gen : 0;
}

/* Every denial's tally (ebpfjail.h, "Aggregation"). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DENIALS_MAX_ENTRIES);
	__type(key, struct denial_key);
	__type(value, struct denial_tally);
} denials SEC(".maps") __weak;

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

/* The window of aggregation (ebpfjail.h): DENIAL_WINDOW_NS, set before
 * load. Tests make it 1 ns, so that every denial is an event and its
 * fields can be checked one by one. */
const volatile __u64 denial_window_ns __weak = DENIAL_WINDOW_NS;

struct verdict {
	__u8 action; /* enum policy_action */
	__u8 reason; /* enum jail_reason */
	__u8 rule_prefixlen;
};

/* count() - add one to counter slot @reason of @hook (a reason, or
 * COUNTER_EVENTS(reason)). Inlined: it runs on every decision and a
 * BPF-to-BPF call costs more than the increment. Atomic although per-CPU:
 * the socket hooks run with migration, not preemption, disabled, and two
 * tasks on one CPU must not lose an increment (the sum in "Aggregation"
 * relies on every denial being counted). */
static __always_inline void count(__u32 hook, __u32 reason)
{
	__u32 slot = hook * COUNTER_STRIDE + reason;
	__u64 *n = bpf_map_lookup_elem(&counters, &slot);

	if (n)
		__sync_fetch_and_add(n, 1);
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

/* denial_key_inet() - the key of a network denial: what was tried, by
 * which process (@pid 0 for TC), and what decided it
 * @daddr6: an IPv6 destination (reason REASON_IPV6), or NULL
 * @family: AF_INET, or AF_INET6 for an IPv6 socket's (mapped) destination
 */
static __always_inline void denial_key_inet(struct denial_key *k, __u32 pid, __u32 hook,
					    struct verdict v, __u32 daddr, __u16 dport_be,
					    __u8 proto, __u8 family, const __u32 *daddr6)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->pid = pid;
	k->daddr = daddr;
	k->dport = bpf_ntohs(dport_be);
	k->proto = proto;
	k->hook = (__u8)hook;
	k->reason = v.reason;
	k->rule_prefixlen = v.rule_prefixlen;
	k->family = family;
	if (daddr6) {
		k->daddr6[0] = daddr6[0];
		k->daddr6[1] = daddr6[1];
		k->daddr6[2] = daddr6[2];
		k->daddr6[3] = daddr6[3];
	}
}

/* denial_key_unix() - the key of a Unix socket denial: the path, and the
 * process (no address, port or rule: ebpfjail.h, "Unix sockets") */
static __always_inline void denial_key_unix(struct denial_key *k, __u32 hook, const char *path)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->pid = bpf_get_current_pid_tgid() >> 32;
	k->hook = (__u8)hook;
	k->reason = REASON_UNIX;
	k->family = AF_UNIX;
	__builtin_memcpy(k->path, path, UNIX_PATH_MAX);
}

/* tally_who() - who a socket hook's denial came from: the current task,
 * its cgroup, uid and comm. Not for TC: no process there. */
static __always_inline void tally_who(struct denial_tally *t)
{
	__u64 id = bpf_get_current_pid_tgid();

	t->cgroup_id = bpf_get_current_cgroup_id();
	t->tid = (__u32)id;
	id = bpf_get_current_uid_gid();
	t->uid = (__u32)id;
	t->gid = id >> 32;
	bpf_get_current_comm(t->comm, sizeof(t->comm));
}

/* record_denial() - one denial, aggregated (ebpfjail.h, "Aggregation"): an
 * event if it is its key's first in this window and the ring buffer has
 * room, else a repeat; then its (hook, reason) counter, last, so that a
 * denial the supervisor sees counted is already an event or a repeat.
 * @with_process: fill the tally's process fields (the socket hooks)
 * @is_unix: @k has a path, and the event is a whole struct jail_event
 */
static __always_inline void record_denial(const struct denial_key *k, int with_process,
					  int is_unix)
{
	__u64 now = bpf_ktime_get_boot_ns(), window = now / denial_window_ns + 1;
	struct denial_tally *t, fresh;
	struct jail_event *e;

	t = bpf_map_lookup_elem(&denials, k);
	if (!t) {
		__builtin_memset(&fresh, 0, sizeof(fresh));
		fresh.first_ns = now;
		if (with_process)
			tally_who(&fresh);
		/* BPF_NOEXIST: a thread of the same process may have inserted
		 * the key on another CPU meanwhile; its tally stays. */
		bpf_map_update_elem(&denials, k, &fresh, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&denials, k);
		if (!t)
			goto counted; /* nowhere to count it: the sum finds it lost */
	}
	t->last_ns = now;
	/* Not atomic: two threads may both take the window's event. Each is
	 * still exactly one denial, so the totals stay exact. */
	if (t->window != window) {
		t->window = window;
		/* Who, as of now: after an exec or PR_SET_NAME the key's
		 * events and count records must not name the old comm. */
		if (with_process)
			tally_who(t);
		e = bpf_ringbuf_reserve(&events, is_unix ? sizeof(*e) : JAIL_EVENT_INET_SIZE, 0);
		if (e) {
			denial_event(e, k, t, now, is_unix);
			bpf_ringbuf_submit(e, 0);
			count(k->hook, COUNTER_EVENTS(k->reason));
			goto counted;
		}
		/* The ring buffer is full: a repeat, written within a second
		 * by the supervisor instead of lost. */
	}
	__sync_fetch_and_add(&t->repeats, 1);
counted:
	count(k->hook, k->reason);
}

#endif /* EBPFJAIL_POLICY_BPF_H */
