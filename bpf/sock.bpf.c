// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sock.bpf.c - cgroup socket hooks: deny the agent's connects with EPERM */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "policy.bpf.h"

/* cgroup/sock_addr return values: 0 rejects the call with EPERM. */
#define VERDICT_DENY 0
#define VERDICT_ALLOW 1

SEC("cgroup/connect4")
int jail_connect4(struct bpf_sock_addr *ctx)
{
	struct verdict v;

	/* The jail's own loopback never leaves the namespace. */
	if ((bpf_ntohl(ctx->user_ip4) >> 24) == 127)
		return VERDICT_ALLOW;

	v = policy_decide(ctx->user_ip4, (__u16)ctx->user_port);
	count(HOOK_CONNECT4, v.reason);
	return v.action == JAIL_ALLOW ? VERDICT_ALLOW : VERDICT_DENY;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
