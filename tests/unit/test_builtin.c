// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_builtin.c - the built-in blocked prefixes and metadata addresses */
#include <string.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "builtin.h"
#include "netaddr.h"

Test(builtin, edges_and_metadata)
{
	static const struct {
		const char *addr;
		int reason; /* -1: no built-in block */
	} cases[] = {
		{ "100.63.255.255", -1 },         { "100.64.0.0", REASON_CGNAT },
		{ "100.127.255.255", REASON_CGNAT }, { "100.128.0.0", -1 },
		{ "172.15.255.255", -1 },         { "172.16.0.0", REASON_PRIVATE },
		{ "172.31.255.255", REASON_PRIVATE }, { "172.32.0.0", -1 },
		{ "169.253.255.255", -1 },        { "169.254.0.1", REASON_LINK_LOCAL },
		{ "169.255.0.0", -1 },            { "192.167.255.255", -1 },
		{ "192.168.0.0", REASON_PRIVATE }, { "192.169.0.0", -1 },
		{ "169.254.169.254", REASON_METADATA }, { "168.63.129.16", REASON_METADATA },
		{ "100.100.100.200", REASON_METADATA }, { "255.255.255.255", REASON_RESERVED },
		{ "0.1.2.3", REASON_RESERVED },   { "127.0.0.1", REASON_LOOPBACK },
		{ "224.0.0.251", REASON_MULTICAST }, { "203.0.113.1", -1 },
		{ "8.8.8.8", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct builtin_block *b = builtin_match(inet_addr(cases[i].addr));

		if (cases[i].reason < 0)
			cr_expect_null(b, "%s blocked as %s", cases[i].addr,
				       b ? reason_name(b->reason) : "");
		else
			cr_expect(b && (int)b->reason == cases[i].reason, "%s: want %s, got %s",
				  cases[i].addr, reason_name((unsigned)cases[i].reason),
				  b ? reason_name(b->reason) : "nothing");
	}
	for (i = 0; i < builtin_blocks_count; i++) {
		cr_expect_eq(builtin_blocks[i].host_addr & ~netaddr_mask(builtin_blocks[i].prefixlen),
			     0, "entry %zu has host bits", i);
		cr_expect(builtin_blocks[i].source && builtin_blocks[i].source[0], "entry %zu", i);
	}
	for (i = 0; i < REASON_COUNT; i++)
		cr_expect_not_null(reason_name((unsigned)i), "reason %zu has no name", i);
}

/* The sockets of daemons that grant root: the usual paths are all there,
 * each absolute and spelled as a unix-socket value must be. */
Test(builtin, root_sockets)
{
	static const char *const usual[] = {
		"/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
		"/run/podman/podman.sock", "/run/libvirt/libvirt-sock", "/var/lib/lxd/unix.socket",
		"/var/snap/lxd/common/lxd/unix.socket", "/var/lib/incus/unix.socket",
	};
	const char *const *root;
	size_t i, j, n;

	root = builtin_root_sockets(&n);
	for (i = 0; i < sizeof(usual) / sizeof(usual[0]); i++) {
		for (j = 0; j < n && strcmp(root[j], usual[i]); j++)
			;
		cr_expect_lt(j, n, "%s is not on the list", usual[i]);
	}
	for (i = 0; i < n; i++) {
		cr_expect_eq(root[i][0], '/', "%s", root[i]);
		cr_expect_null(strstr(root[i], "//"), "%s", root[i]);
		cr_expect_null(strstr(root[i], "/."), "%s", root[i]);
		for (j = 0; j < i; j++)
			cr_expect_str_neq(root[i], root[j], "listed twice");
	}
}
