// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* unix.bpf.c - cgroup Unix socket hooks: the paths the agent connects to
 *
 * Theory of operation
 * -------------------
 * Attached to the agent's cgroup beside the inet hooks (kernel 6.7+; on an
 * older kernel loader.c does not load them, and says so). net/unix/af_unix.c
 * runs them in connect() of every AF_UNIX socket type and in sendto()/
 * sendmsg() of a datagram socket with an address, after checking the
 * address's length and family and BEFORE it resolves the path: the hook sees
 * the string the agent passed (a kernel copy: the agent cannot change it
 * under us), not the file it names. So ENOENT or ECONNREFUSED never come
 * first: a path the policy refuses is EPERM, whether or not it exists.
 *
 * The decision (bpf/ebpfjail.h, "Unix sockets: unix_policy"):
 *   unnamed or abstract address   allowed (the jail's own namespace)
 *   no leading '/'                denied (relative: cannot be judged)
 *   a ".." component              denied, whatever unix_policy says
 *   matches a JAIL_ALLOW entry    allowed
 *   anything else                 denied, REASON_UNIX, one event with the path
 *
 * The path is not in the UAPI context: the kfunc bpf_cast_to_kern_ctx()
 * gives the kernel's struct bpf_sock_addr_kern, whose uaddr and uaddrlen
 * are read as bpf_rdonly_cast() makes it, and bpf_rdonly_cast() reads
 * uaddr as the struct sockaddr_un it is. The kfuncs' and structs' BTF ids
 * and the fields' offsets are the running kernel's, which the loader reads
 * (user/engine/bpf/kbtf.c) and gives here before the load: the ids and
 * offsets as constants below, the kfuncs by turning the two placeholder
 * calls into kfunc calls (loader.c). libbpf would take them from a parse
 * of the kernel's whole BTF, at every jail's start. The verifier checks
 * each read against the kernel's own BTF all the same: a wrong offset is
 * a refused load, never a wrong read.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "policy.bpf.h"

#define VERDICT_DENY 0
#define VERDICT_ALLOW 1

#define SUN_PATH_OFFSET 2 /* offsetof(struct sockaddr_un, sun_path): UAPI */

/* The running kernel's, set by the loader (kbtf.h): struct
 * bpf_sock_addr_kern's and struct sockaddr_un's type ids, and the byte
 * offsets of uaddr and uaddrlen in the first. */
const volatile __u32 kern_sock_addr_id = 0;
const volatile __u32 kern_sockaddr_un_id = 0;
const volatile __u32 kern_uaddr_off = 0;
const volatile __u32 kern_uaddrlen_off = 0;

/* Calls to helper numbers no kernel has (bpf/ebpfjail.h,
 * UNIX_KFUNC_CAST_TO_KERN_CTX, UNIX_KFUNC_RDONLY_CAST): the loader makes
 * them calls of the kfuncs by their BTF ids; left as they are, the
 * verifier refuses the program. Kernel 6.2+, so any kernel with the Unix
 * hooks (6.7+) has the kfuncs. */
static void *(*const jail_cast_to_kern_ctx)(void *ctx) = (void *)UNIX_KFUNC_CAST_TO_KERN_CTX;
static void *(*const jail_rdonly_cast)(void *obj, __u32 btf_id) = (void *)UNIX_KFUNC_RDONLY_CAST;

/* The walk over a path, one byte per bpf_loop() turn. */
struct path_walk {
	struct unix_key key; /* sun_path as copied, then as resolved */
	__u32 len;           /* bytes of sun_path in the address */
	__u8 ended;          /* a NUL was seen, or the address ended */
	__u8 seg;            /* the component so far: SEG_* */
	__u8 dotdot;         /* a ".." component was seen */
};

#define SEG_START 0  /* just after a '/' */
#define SEG_DOT 1    /* "/." */
#define SEG_DOTDOT 2 /* "/.." */
#define SEG_OTHER 3

/* walk_byte() - bpf_loop() callback: cut byte @i where the kernel will
 * (the first NUL, the end of the address), and follow the components: in
 * an absolute path every one starts after a '/', so ".." is "/.."
 * followed by '/' or the end. Return: 0 to go on, 1 past the last byte. */
static long walk_byte(__u64 i, void *ctx)
{
	struct path_walk *w = ctx;
	char c;

	if (i >= UNIX_PATH_MAX)
		return 1;
	c = w->key.path[i];
	if (w->ended || i >= w->len)
		c = 0;
	w->key.path[i] = c;
	if (c == 0)
		w->ended = 1;
	if (c == '/' || c == 0) {
		w->dotdot |= w->seg == SEG_DOTDOT;
		w->seg = SEG_START;
	} else if (c == '.' && w->seg == SEG_START) {
		w->seg = SEG_DOT;
	} else if (c == '.' && w->seg == SEG_DOT) {
		w->seg = SEG_DOTDOT;
	} else {
		w->seg = SEG_OTHER;
	}
	return 0;
}

/* read_path() - the path as the kernel will resolve it, into @w->key
 * (NUL-padded: bpf/ebpfjail.h, the lookup key), and whether it has a ".."
 * component (meaningful for an absolute path only)
 *
 * sun_path is copied whole (the kernel's copy of the address has room for
 * all 108 bytes; what lies past the address is cleared by the walk). The
 * walk is a bpf_loop() callback, not a loop: the verifier checks it once,
 * where it would walk a loop's 108 turns one by one, at every start of a
 * jail (about 3 ms a program on a small machine).
 */
static __always_inline void read_path(const struct sockaddr_un *un, struct path_walk *w)
{
	__builtin_memcpy(w->key.path, un->sun_path, UNIX_PATH_MAX);
	w->seg = SEG_OTHER; /* a relative path's first component is no ".." */
	bpf_loop(UNIX_PATH_MAX, walk_byte, w, 0);
	/* A path of all 108 bytes ends after the last. */
	w->dotdot |= w->seg == SEG_DOTDOT;
}

/* unix_allowed() - the trie's verdict on a path; no entry is a denial */
static __always_inline bool unix_allowed(const struct unix_key *key)
{
	struct unix_value *val = bpf_map_lookup_elem(&unix_policy, key);

	return val && val->action == JAIL_ALLOW;
}

/* deny_unix() - a denied path into its tally and, if due, an event */
static __always_inline void deny_unix(__u32 hook, const struct unix_key *key)
{
	struct denial_key k;

	denial_key_unix(&k, hook, key->path);
	record_denial(&k, 1, 1);
}

/* judge_unix() - the whole decision, shared by connect and sendmsg */
static __always_inline int judge_unix(struct bpf_sock_addr *ctx, __u32 hook)
{
	/* Read-only, as untrusted memory: a pointer loaded through the
	 * trusted context would cost the verifier a name search of the
	 * kernel's whole BTF (1.3 ms a program, at every jail's start). */
	const char *kern = jail_rdonly_cast(jail_cast_to_kern_ctx(ctx), kern_sock_addr_id);
	struct path_walk w = { .key = { .prefixlen = UNIX_PREFIXLEN_FULL } };
	const struct sockaddr_un *un;
	__u32 len = *(const __u32 *)(kern + kern_uaddrlen_off);

	/* Unnamed: nothing to reach by name (af_unix refuses it before the
	 * hook today; a hook that relied on that would break silently). */
	if (len <= SUN_PATH_OFFSET) {
		count(hook, REASON_NONE);
		return VERDICT_ALLOW;
	}
	w.len = len - SUN_PATH_OFFSET;
	un = jail_rdonly_cast(*(void *const *)(kern + kern_uaddr_off), kern_sockaddr_un_id);
	read_path(un, &w);
	/* Abstract: a name in the socket's network namespace, the jail's own
	 * (or one the agent made), where no host service listens. */
	if (w.key.path[0] == 0) {
		count(hook, REASON_NONE);
		return VERDICT_ALLOW;
	}
	/* Relative paths never match (every entry starts with '/'); ".."
	 * could climb out of an allowed prefix ("/tmp/../run/docker.sock"). */
	if (w.key.path[0] == '/' && !w.dotdot && unix_allowed(&w.key)) {
		count(hook, REASON_NONE);
		return VERDICT_ALLOW;
	}
	deny_unix(hook, &w.key);
	return VERDICT_DENY;
}

SEC("cgroup/connect_unix")
int jail_connect_unix(struct bpf_sock_addr *ctx)
{
	return judge_unix(ctx, HOOK_CONNECT_UNIX);
}

SEC("cgroup/sendmsg_unix")
int jail_sendmsg_unix(struct bpf_sock_addr *ctx)
{
	return judge_unix(ctx, HOOK_SENDMSG_UNIX);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
