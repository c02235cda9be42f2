// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tapswitch.bpf.c - the tap benchmark's switch (bench/jail.sh): a classifier
 * put before the jail's own on its tap that, while its one value is 1, ends
 * every frame's classification with a pass, so the jail's filter never runs;
 * while it is 0, hands every frame on to the jail's filter.
 *
 * The two variants of the tap row ("TC filter" and "none") then take turns
 * inside one iperf3 run by a map update: no filter is added or deleted under
 * traffic (doing so stalled two runs in three here, against one in three
 * without), and both variants run this classifier alike, so the difference
 * between them is the jail's filter (checked: with the switch on, the jail's
 * program ran 0 times in a second of traffic; off, 10,000).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define TC_ACT_UNSPEC (-1)
#define TC_ACT_OK 0

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tap_bypass SEC(".maps");

SEC("tc")
int tap_switch(struct __sk_buff *skb)
{
	__u32 zero = 0, *bypass = bpf_map_lookup_elem(&tap_bypass, &zero);

	(void)skb;
	return bypass && *bypass ? TC_ACT_OK : TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
