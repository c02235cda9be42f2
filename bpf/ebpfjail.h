/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ebpfjail.h - the kernel/user ABI: policy map layout, reason codes, events,
 * denial tallies
 *
 * Included by the BPF programs (after vmlinux.h) and by user space (after
 * <linux/types.h>). Everything here is shared by both sides; change it in one
 * place and both follow.
 *
 * Theory of operation
 * -------------------
 * The whole policy is ONE longest-prefix-match trie, reached through a
 * one-slot array of maps (policy_outer[0]). A verdict is one trie lookup with
 * the key (destination address, destination port, prefix length 48):
 *
 *   prefixlen  data (network byte order)   meaning
 *   ---------  -------------------------   ---------------------------------
 *   48         addr . port                 allow-ip ADDR:PORT, the DNS
 *                                          exception (forward address, 53)
 *   32         addr                        allow-ip ADDR (every port), or a
 *                                          single blocked address
 *   0..32      addr / prefixlen            a blocked prefix
 *
 * The longest match wins, so "allow-ip first, then the DNS exception, then
 * the blocked prefixes" is the natural order of the trie: an allow-ip entry
 * is at least as long as any block it punches through (user space resolves
 * the tie at /32 in favour of the allow). No match means the internet:
 * allowed. The jail's own loopback (127.0.0.0/8) is allowed by the socket
 * hooks before the lookup, since those connections never leave the jail.
 *
 * Example: allow-ip = 10.1.2.3:502 and the built-in 10.0.0.0/8 block give
 *   { 48, 10.1.2.3 . 502 } -> { JAIL_ALLOW, REASON_ALLOW_IP }
 *   {  8, 10.0.0.0       } -> { JAIL_DENY,  REASON_PRIVATE  }
 * A connect to 10.1.2.3:502 matches /48 and passes; 10.1.2.3:22 matches /8
 * and is denied with rule 10.0.0.0/8.
 *
 * Protocols without ports (ICMP, fragments after the first, anything seen by
 * the TC program that is not TCP or UDP) are looked up with port 0, so they
 * never match a port-specific entry.
 *
 * Atomic replacement: user space builds a complete new trie, then swaps it
 * into policy_outer[0] with one map update. A program reads the slot once per
 * decision, so it sees either the old policy or the new one, never a mix and
 * never an empty trie.
 *
 * The jail's network namespace
 * ----------------------------
 * The agent may make network namespaces of its own (bubblewrap in the jail
 * does). A socket of such a namespace is not behind the jail's tap and TC
 * program, so the socket hooks compare the socket's namespace cookie
 * (bpf_get_netns_cookie()) with the jail's, set before load
 * (jail_netns_cookie in sock.bpf.c). Another namespace may reach its own
 * loopback (127.0.0.0/8, or an IPv4-mapped 127/8 on an AF_INET6 socket)
 * and nothing else: REASON_NETNS, whatever the trie says. Real IPv6 stays
 * REASON_IPV6. The cookie 0 matches no namespace, so an unset cookie
 * denies everything but loopback (fail closed). The event's rule is none
 * (rule_prefixlen 0, "rule": null in the log): no prefix was matched, and
 * no allow-ip line would help.
 *
 * Unix sockets: unix_policy
 * -------------------------
 * A second LPM trie, unix_policy, judges the pathname of a Unix socket
 * connect() or sendto() (kernel 6.7+). It holds allows only, and is
 * replaced in place, new entries first (policy.bpf.h says why). The key
 * is the path's bytes, compared from the first:
 *
 *   entry                  prefixlen        matches
 *   ---------------------  ---------------  ----------------------------
 *   prefix "/tmp/"         5 * 8 = 40       every path under /tmp/
 *   exact "/run/a.sock"    (11 + 1) * 8     that path alone: the NUL is
 *                          = 96             part of the entry
 *
 * A lookup key is the whole path, NUL-padded to UNIX_PATH_MAX bytes, with
 * prefixlen UNIX_PATH_MAX * 8. So "/run/a.sock" matches the exact entry
 * (byte 11 of the key is NUL), "/run/a.sockX" does not (byte 11 is 'X'),
 * and "/tmp/x/y.sock" matches the prefix. A match with action JAIL_ALLOW
 * allows; anything else is denied with REASON_UNIX:
 * - no match (an empty trie: nothing is allowed), or a path that does not
 *   start with '/'
 *   (a relative path is resolved against a working directory the hook
 *   does not know, so it is never judged; no entry can match it);
 * - a path with a ".." component, whatever the trie says:
 *   "/tmp/../run/docker.sock" would otherwise ride the "/tmp/" prefix.
 * Unnamed addresses and abstract names (sun_path[0] == 0) are allowed: an
 * abstract name lives in the socket's network namespace, and the jail has
 * its own. The hook runs before the kernel resolves the path (it sees the
 * string, not the file); docs/DESIGN.md, "Unix sockets", says what a string
 * can and cannot prove.
 */
#ifndef EBPFJAIL_ABI_H
#define EBPFJAIL_ABI_H


/* Keys compare address then port, both big-endian, as the trie walks bytes
 * from the most significant bit. */
#define POLICY_PREFIXLEN_PORT 48 /* addr (32 bits) + port (16 bits) */
#define POLICY_PREFIXLEN_ADDR 32
#define POLICY_MAX_ENTRIES (1U << 18) /* 262144: room for 100k+ entries */

struct policy_key {
	__u32 prefixlen; /* 0..48, see the table above */
	__u32 addr;      /* IPv4 address, network byte order */
	__u16 port;      /* destination port, network byte order */
	__u16 pad;       /* always 0; beyond prefixlen 48, never compared */
};

enum policy_action {
	JAIL_ALLOW = 0,
	JAIL_DENY = 1,
};

/* Why a destination was allowed or denied. Stable numbers: they are stored
 * in counters and events; reason_name() in user space gives the audit name. */
enum jail_reason {
	REASON_NONE = 0,      /* allowed: no rule matched (the internet) */
	REASON_ALLOW_IP,      /* allowed: allow-ip */
	REASON_DNS,           /* allowed: DNS to the forward address */
	REASON_JAIL_LOOPBACK, /* allowed: the jail's own 127.0.0.0/8 */
	REASON_ALLOW_HOST,    /* allowed: an address the forwarder's answer
				 for an allow-host name gave (user/dnsallow.h) */
	REASON_PRIVATE,       /* denied: 10/8, 172.16/12, 192.168/16 */
	REASON_CGNAT,         /* denied: 100.64/10 */
	REASON_LOOPBACK,      /* denied: 127/8 leaving the jail (TC) */
	REASON_LINK_LOCAL,    /* denied: 169.254/16 */
	REASON_METADATA,      /* denied: a cloud metadata address */
	REASON_CONNECTED,     /* denied: a network the host is connected to,
				 or one of the host's own addresses */
	REASON_HOST_ROUTE,    /* denied: a prefix the host routes elsewhere */
	REASON_GATEWAY,       /* denied: the jail's gateway (pasta's side) */
	REASON_MULTICAST,     /* denied: 224/4 */
	REASON_RESERVED,      /* denied: 0/8, 192.0.0/24, 240/4, broadcast */
	REASON_BLOCK_CIDR,    /* denied: a block-cidr entry */
	REASON_IPV6,          /* denied: an IPv6 destination */
	REASON_NON_IPV4,      /* denied (TC): a frame neither IPv4 nor ARP */
	REASON_IP_OPTIONS,    /* denied (TC): an IPv4 header with options */
	REASON_NETNS,         /* denied: a socket outside the jail's network
				 namespace, to anything but loopback */
	REASON_UNIX,          /* denied: a Unix socket path outside unix_policy */
	REASON_INTERNET,      /* denied: internet = off, and nothing allows it */
	REASON_DENY_HOST,     /* denied: an address a deny-host name's answer
				 gave (user/dnsallow.h), for its TTL */
	REASON_COUNT,
};

#define REASON_FIRST_DENY REASON_PRIVATE

/* Two addresses no frame on the jail's tap may go to, whatever the policy
 * says (an allow-ip or `ebpfjail allow` of them included), host byte order:
 * the jail's DNS forward address, 169.254.1.1, which is the supervisor's
 * forwarder's on the jail's lo, and pasta's own DNS forwarding address,
 * 240.0.0.53, which hands a datagram raw to the host's first resolver. A
 * frame to either on the tap was sent around lo's route (SO_BINDTODEVICE,
 * IP_UNICAST_IF or an IP_PKTINFO ifindex, none privileged) to reach the
 * host's resolver through pasta: a DNS UPDATE under an allowed name, reads
 * of its cache (docs/DESIGN.md, "DNS"). Refused with REASON_GATEWAY. */
#define JAIL_DNS_FORWARD_ADDR 0xa9fe0101U
#define JAIL_PASTA_DNS_ADDR 0xf0000035U

struct policy_value {
	__u8 action;    /* enum policy_action */
	__u8 reason;    /* enum jail_reason */
	__u8 prefixlen; /* this entry's own prefix length: the trie does not
			   say which prefix matched, events need it */
	__u8 proto;     /* 0: the entry holds for every protocol; else only
			   for this IPPROTO_*, and any other protocol is
			   denied with REASON_GATEWAY, rule addr/32 */
};

/* Why proto exists: the DNS exception once held for UDP alone, where
 * pasta did not forward TCP DNS. The jail's own forwarder takes both now
 * and policy.c writes proto 0 everywhere; the programs still honour it,
 * so an entry for one protocol stays possible. */

/* Connections that outlive their allow-host entry
 * -------------------------------------------------
 * An allow-host entry lasts for its answer's TTL; a connection opened while
 * it lasted must go on to its end after it is gone (a git clone longer than
 * the forge's TTL). The socket hooks judge a connection once, at connect();
 * the TC program judges every packet. So connect4, allowing by
 * REASON_ALLOW_HOST, keeps the socket's cookie with its destination in
 * kept_flows, and the TC program passes a packet the trie denies when its
 * socket's cookie is there with that destination. Cookies are never
 * reused within a boot, so a stale entry matches nothing; the map is an
 * LRU, so an agent that churns connections can only push out its own.
 *
 * `ebpfjail deny` and a reload re-judge them: each entry carries the
 * generation (kept_gen[0]) it was made in, user space bumps the generation
 * on either, and the TC program keeps only the current one's. A
 * connection whose name is still allowed passes by the trie anyway; one
 * whose entry expired, or that the change denies, is cut. */
#define KEPT_FLOWS_MAX_ENTRIES 16384

struct kept_flow {
	__u32 daddr;   /* network byte order */
	__u16 dport;   /* network byte order */
	__u16 pad;
	__u32 gen;     /* kept_gen[0] when connect4 allowed it */
};

/* Where a decision was taken. */
enum jail_hook {
	HOOK_CONNECT4 = 0,
	HOOK_SENDMSG4,
	HOOK_CONNECT6,
	HOOK_SENDMSG6,
	HOOK_TC,
	HOOK_CONNECT_UNIX, /* cgroup/connect_unix: connect() on AF_UNIX */
	HOOK_SENDMSG_UNIX, /* cgroup/sendmsg_unix: sendto()/sendmsg() with a path */
	HOOK_NFT_OUTPUT,   /* the rootless engine: nftables' output hook, read
			      back through NFLOG (no pid, no comm) */
	HOOK_COUNT,
};

/* Counters: a per-CPU array, COUNTER_STRIDE slots per hook. At index
 * hook * COUNTER_STRIDE + reason, every decision of that reason; at
 * hook * COUNTER_STRIDE + COUNTER_EVENTS(reason), the denials of that
 * reason that went to the ring buffer as events (the rest are repeats,
 * counted in the denials map; "Aggregation" below). */
#define COUNTER_EVENTS(reason) (REASON_COUNT + (reason))
#define COUNTER_STRIDE (2 * REASON_COUNT)
#define COUNTER_SLOTS (HOOK_COUNT * COUNTER_STRIDE)

/* The Unix socket policy: see "Unix sockets: unix_policy" above. */
#define UNIX_PATH_MAX 108 /* sizeof(((struct sockaddr_un *)0)->sun_path) */
#define UNIX_PREFIXLEN_FULL (UNIX_PATH_MAX * 8)
#define UNIX_POLICY_MAX_ENTRIES 1024
/* The Unix hooks' kfunc calls as the compiler writes them: calls of helper
 * numbers no kernel has, which the loader turns into calls of the kfuncs
 * bpf_cast_to_kern_ctx() and bpf_rdonly_cast() by their BTF ids. */
#define UNIX_KFUNC_CAST_TO_KERN_CTX 0x7ffe0001
#define UNIX_KFUNC_RDONLY_CAST 0x7ffe0002

struct unix_key {
	__u32 prefixlen;          /* bits of path compared: 0..UNIX_PREFIXLEN_FULL */
	char path[UNIX_PATH_MAX]; /* NUL-padded */
};

struct unix_value {
	__u8 action; /* enum policy_action: JAIL_ALLOW, else denied */
	__u8 pad[3];
};

#define EVENT_RINGBUF_BYTES (256 * 1024)
#define JAIL_COMM_LEN 16

/* One denial, as written to the ring buffer. TC events have no process:
 * pid, tid, uid, gid, comm and cgroup_id are zero. A denied IPv6 destination
 * (reason REASON_IPV6) is in daddr6, with daddr 0.
 *
 * The record's size depends on its kind, so an IPv4 flood fills the ring
 * buffer no faster than before Unix sockets had events:
 * - a network event (every hook but the two unix ones) is the first
 *   JAIL_EVENT_INET_SIZE bytes, daddr6 last;
 * - a Unix socket event (HOOK_CONNECT_UNIX, HOOK_SENDMSG_UNIX) is the whole
 *   struct: path instead of daddr6; daddr, dport and proto are 0, family is
 *   AF_UNIX, rule_prefixlen 0 (no rule: a path is denied unless allowed).
 * The reader (loader.c) copies a shorter record into a zeroed struct
 * jail_event, so every consumer sees a whole one.
 *
 * Example: connect("/run/docker.sock") by pid 4242 is a record of
 * sizeof(struct jail_event) bytes with hook HOOK_CONNECT_UNIX, reason
 * REASON_UNIX, family AF_UNIX and path "/run/docker.sock" followed by NULs.
 * The path is what the agent passed, cut where the kernel cuts it (the
 * first NUL or the address length): a 108-byte path has no NUL, so read it
 * with strnlen(path, UNIX_PATH_MAX). Its bytes are the agent's: escape
 * them before they reach a log or a terminal. */
/* A uid or gid no one told: the rootless engine's, where NFLOG had no
 * socket to name one ("uid": null in the log). */
#define JAIL_ID_UNKNOWN ((__u32)-1)

struct jail_event {
	__u64 time_ns;   /* bpf_ktime_get_boot_ns() */
	__u64 cgroup_id;
	__u32 pid;       /* thread group id, as user space calls a pid */
	__u32 tid;
	__u32 uid;
	__u32 gid;
	__u32 daddr;     /* destination, network byte order */
	__u16 dport;     /* destination port, HOST byte order; 0 if none */
	__u8 proto;      /* IPPROTO_* */
	__u8 hook;       /* enum jail_hook */
	__u8 reason;     /* enum jail_reason */
	__u8 rule_prefixlen; /* the matching prefix is daddr/rule_prefixlen */
	__u8 family;     /* AF_INET, or AF_INET6 for an IPv4-mapped address */
	__u8 pad;
	char comm[JAIL_COMM_LEN];
	union { /* last: see the sizes above */
		__u32 daddr6[4];          /* network byte order */
		char path[UNIX_PATH_MAX]; /* a Unix socket event's path */
	};
};

#define JAIL_EVENT_INET_SIZE (__builtin_offsetof(struct jail_event, daddr6) + 4 * sizeof(__u32))

/* Aggregation: the denials map
 * ----------------------------
 * A flood of one denial (a retry loop, a scanner) must leave exact totals
 * and a bounded log, not a ring buffer full of copies and a count of what
 * did not fit. So every denial is first looked up in an LRU hash keyed by
 * what it was (struct denial_key: pid, destination or path, port,
 * protocol, hook, reason, rule), and then is exactly one of:
 * - an event: the first denial of its key in a window (the boot-clock
 *   second, DENIAL_WINDOW_NS) goes to the ring buffer at once, and adds
 *   one to its (hook, reason) COUNTER_EVENTS slot;
 * - a repeat: every other one only adds one to its tally's repeats (an
 *   atomic add; threads of one pid share a key). A first denial whose
 *   event finds the ring buffer full becomes a repeat too, so a full ring
 *   buffer delays a record instead of losing it.
 * Then, last, the (hook, reason) counter adds one. Nothing here ever
 * resets or deletes: repeats only grow. The supervisor, once a second,
 * reads the map and writes one record with "count": N for each key whose
 * repeats grew since it last looked, remembering per key what it has
 * written (user/denials.c). Three windows of a 1,000-a-second retry loop
 * are 3 events and 3 count records of 999, whatever the flood's rate.
 *
 * What can be lost: a key the LRU evicts (more distinct keys within a
 * window than DENIALS_MAX_ENTRIES) takes its unwritten repeats with it,
 * and a key that cannot be inserted has nowhere to count. Both are found
 * by the sum: every denial is in its (hook, reason) counter, so, per
 * reason,
 *   lost = denials - events - repeats written
 * and the supervisor logs each difference as a "lost" record with its
 * reason: flooding new kinds to push one denial out of the map still
 * leaves "lost": 1, "reason": "metadata" in the log. Because the
 * counter is incremented after the event or the repeat, a denial the
 * supervisor sees counted is already in the ring buffer or the map: the
 * difference, taken while the agent runs, is never more than the truth,
 * and once the agent is gone it is exact.
 *
 * The tally's process fields (comm, uid, tid, cgroup) are the task's at
 * its key's latest event, refreshed once a window: an agent that execs or
 * renames itself cannot have its later denials logged under its old name.
 *
 * Example: pid 4242 sends 5,000 datagrams to 10.0.0.5:53 within 1.2 s
 * starting at second 100.9 of the boot clock: at 100.9 an event (window
 * 100); at 101.0 a new window, another event; the rest are 4,998 repeats,
 * written as "count" records when the supervisor next reads the map. */
#define DENIALS_MAX_ENTRIES 8192
#define DENIAL_WINDOW_NS 1000000000ULL

struct denial_key {
	__u32 pid;            /* 0 for TC: no process */
	__u32 daddr;          /* network byte order; 0 for a Unix socket */
	__u16 dport;          /* host byte order */
	__u8 proto;
	__u8 hook;
	__u8 reason;
	__u8 rule_prefixlen;
	__u8 family;
	__u8 pad;             /* always 0: the key is hashed whole */
	union {
		__u32 daddr6[4];          /* REASON_IPV6, else 0 */
		char path[UNIX_PATH_MAX]; /* a Unix socket's, NUL-padded */
	};
};

struct denial_tally {
	__u64 repeats;   /* denials of this key that were not events */
	__u64 window;    /* 1 + the window of its last event; 0: none yet */
	__u64 first_ns;  /* when the key was inserted: tells a key that was
			    evicted and inserted again from the old one */
	__u64 last_ns;   /* its latest denial */
	__u64 cgroup_id; /* who, as of its latest event */
	__u32 tid;
	__u32 uid;
	__u32 gid;
	__u32 pad;
	char comm[JAIL_COMM_LEN];
};

/* denial_key_is_unix() - a Unix socket denial's key: a path, no address */
static inline __attribute__((always_inline)) int denial_key_is_unix(const struct denial_key *k)
{
	return k->hook == HOOK_CONNECT_UNIX || k->hook == HOOK_SENDMSG_UNIX;
}

/* denial_event() - the event of @k's denial at @time_ns, with @t's process
 * fields; @is_unix: @e has room for the path (a whole struct jail_event),
 * else only JAIL_EVENT_INET_SIZE bytes are written. Shared by the BPF
 * programs (events) and the supervisor (its count records) so that a
 * record of either kind says the same. */
static inline __attribute__((always_inline)) void
denial_event(struct jail_event *e, const struct denial_key *k, const struct denial_tally *t,
	     __u64 time_ns, int is_unix)
{
	__builtin_memset(e, 0, JAIL_EVENT_INET_SIZE);
	e->time_ns = time_ns;
	e->cgroup_id = t->cgroup_id;
	e->pid = k->pid;
	e->tid = t->tid;
	e->uid = t->uid;
	e->gid = t->gid;
	e->daddr = k->daddr;
	e->dport = k->dport;
	e->proto = k->proto;
	e->hook = k->hook;
	e->reason = k->reason;
	e->rule_prefixlen = k->rule_prefixlen;
	e->family = k->family;
	__builtin_memcpy(e->comm, t->comm, JAIL_COMM_LEN);
	if (is_unix)
		__builtin_memcpy(e->path, k->path, UNIX_PATH_MAX);
	else
		__builtin_memcpy(e->daddr6, k->daddr6, sizeof(e->daddr6));
}

#endif /* EBPFJAIL_ABI_H */
