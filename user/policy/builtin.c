// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* builtin.c - the built-in blocked prefixes, the host sockets that grant root,
 * and the names of reason codes
 *
 * Every blocked prefix stops lateral movement from a prompt-injected agent
 * to something that is not "the internet": private and internal networks,
 * the host itself, and cloud metadata services that hand out credentials.
 * Every root socket is a way out of the jail altogether: whoever talks to
 * it is root on the host.
 */
#include <arpa/inet.h>

#include "builtin.h"
#include "netaddr.h"

#define BLOCK(a, b, c, d, len, why, src) \
	{ (uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d), len, why, src }

const struct builtin_block builtin_blocks[] = {
	BLOCK(0, 0, 0, 0, 8, REASON_RESERVED, "\"this network\", RFC 1122 section 3.2.1.3"),
	BLOCK(10, 0, 0, 0, 8, REASON_PRIVATE, "private, RFC 1918"),
	BLOCK(100, 64, 0, 0, 10, REASON_CGNAT, "shared address space (CGNAT, Tailscale), RFC 6598"),
	BLOCK(127, 0, 0, 0, 8, REASON_LOOPBACK, "the host's loopback, RFC 1122"),
	BLOCK(169, 254, 0, 0, 16, REASON_LINK_LOCAL, "link-local, RFC 3927"),
	BLOCK(172, 16, 0, 0, 12, REASON_PRIVATE, "private, RFC 1918"),
	BLOCK(192, 0, 0, 0, 24, REASON_RESERVED, "IETF protocol assignments, RFC 6890"),
	BLOCK(192, 168, 0, 0, 16, REASON_PRIVATE, "private, RFC 1918"),
	BLOCK(224, 0, 0, 0, 4, REASON_MULTICAST, "multicast, RFC 5771"),
	BLOCK(240, 0, 0, 0, 4, REASON_RESERVED, "reserved for future use, RFC 1112"),
	BLOCK(255, 255, 255, 255, 32, REASON_RESERVED, "limited broadcast, RFC 919"),

	/* Cloud metadata. Most sit inside a block above; listing them again
	 * makes the audit say "metadata", which is what the attempt was. */
	BLOCK(169, 254, 169, 254, 32, REASON_METADATA,
	      "instance metadata: AWS IMDS, GCP, Azure IMDS, OpenStack, Oracle, DigitalOcean, Hetzner"),
	BLOCK(169, 254, 170, 2, 32, REASON_METADATA, "AWS ECS task metadata and credentials endpoint"),
	BLOCK(169, 254, 170, 23, 32, REASON_METADATA, "AWS EKS Pod Identity Agent"),
	BLOCK(169, 254, 0, 23, 32, REASON_METADATA, "Tencent Cloud metadata (metadata.tencentyun.com)"),
	BLOCK(168, 63, 129, 16, 32, REASON_METADATA,
	      "Azure WireServer (public range: not covered by any private block)"),
	BLOCK(100, 100, 100, 200, 32, REASON_METADATA, "Alibaba Cloud ECS metadata"),
	BLOCK(192, 0, 0, 192, 32, REASON_METADATA, "Oracle Cloud Infrastructure legacy metadata"),
	BLOCK(169, 254, 42, 42, 32, REASON_METADATA, "Scaleway instance metadata"),
};

const size_t builtin_blocks_count = sizeof(builtin_blocks) / sizeof(builtin_blocks[0]);

const struct builtin_block *builtin_match(uint32_t addr)
{
	const struct builtin_block *best = NULL;
	uint32_t host = ntohl(addr);
	size_t i;

	for (i = 0; i < builtin_blocks_count; i++) {
		const struct builtin_block *b = &builtin_blocks[i];
		uint32_t mask = netaddr_mask(b->prefixlen);

		if ((host & mask) == b->host_addr && (!best || b->prefixlen > best->prefixlen))
			best = b;
	}
	return best;
}

/*
 * Sockets of host daemons that start containers or machines on request: a
 * client can mount the host's / into a privileged container and is root on
 * the host, in no jail at all, and membership of the socket's group is the
 * same as root. Both /run and /var/run spellings are listed: /var/run is a
 * link to /run on current systems, and the configuration's warning compares
 * paths as written.
 */
static const char *const root_sockets[] = {
	"/run/docker.sock",                       /* Docker (dockerd) */
	"/var/run/docker.sock",                   /* Docker (dockerd) */
	"/run/containerd/containerd.sock",        /* containerd */
	"/var/run/containerd/containerd.sock",    /* containerd */
	"/run/podman/podman.sock",                /* Podman, rootful API service */
	"/var/run/podman/podman.sock",            /* Podman, rootful API service */
	"/run/libvirt/libvirt-sock",              /* libvirt (libvirtd, virtproxyd) */
	"/var/run/libvirt/libvirt-sock",          /* libvirt (libvirtd, virtproxyd) */
	"/run/libvirt/virtqemud-sock",            /* libvirt's modular QEMU daemon */
	"/var/run/libvirt/virtqemud-sock",        /* libvirt's modular QEMU daemon */
	"/var/lib/lxd/unix.socket",               /* LXD, distribution package */
	"/var/snap/lxd/common/lxd/unix.socket",   /* LXD, snap */
	"/var/lib/incus/unix.socket",             /* Incus */
	"/run/crio/crio.sock",                    /* CRI-O */
	"/var/run/crio/crio.sock",                /* CRI-O */
	"/run/buildkit/buildkitd.sock",           /* BuildKit (privileged builds) */
	/* Not container engines, but they act for their caller outside any
	 * jail: PID 1's API (StartTransientUnit runs a command as root, on
	 * the host's network) and the system bus (systemd, NetworkManager,
	 * udisks, PackageKit, with polkit's allow_active for a logged-in
	 * user). */
	"/run/systemd/private",                   /* systemd (PID 1), root's */
	"/run/systemd/io.systemd.Manager",        /* systemd (PID 1), Varlink */
	"/run/dbus/system_bus_socket",            /* D-Bus system bus */
	"/var/run/dbus/system_bus_socket",        /* D-Bus system bus */
};

const char *const *builtin_root_sockets(size_t *n)
{
	*n = sizeof(root_sockets) / sizeof(root_sockets[0]);
	return root_sockets;
}

/* The groups those daemons' packages make for access to their sockets. */
static const char *const root_groups[] = {
	"docker",      /* Docker */
	"lxd",         /* LXD */
	"incus-admin", /* Incus */
	"libvirt",     /* libvirt */
};

const char *const *builtin_root_groups(size_t *n)
{
	*n = sizeof(root_groups) / sizeof(root_groups[0]);
	return root_groups;
}

static const char *const reason_names[REASON_COUNT] = {
	[REASON_NONE] = "none",
	[REASON_ALLOW_IP] = "allow-ip",
	[REASON_DNS] = "dns",
	[REASON_JAIL_LOOPBACK] = "jail-loopback",
	[REASON_ALLOW_HOST] = "allow-host",
	[REASON_PRIVATE] = "private",
	[REASON_CGNAT] = "cgnat",
	[REASON_LOOPBACK] = "loopback",
	[REASON_LINK_LOCAL] = "link-local",
	[REASON_METADATA] = "metadata",
	[REASON_CONNECTED] = "connected",
	[REASON_HOST_ROUTE] = "host-route",
	[REASON_GATEWAY] = "gateway",
	[REASON_MULTICAST] = "multicast",
	[REASON_RESERVED] = "reserved",
	[REASON_BLOCK_CIDR] = "block-cidr",
	[REASON_IPV6] = "ipv6",
	[REASON_NON_IPV4] = "non-ipv4",
	[REASON_IP_OPTIONS] = "ip-options",
	[REASON_NETNS] = "netns",
	[REASON_UNIX] = "unix",
	[REASON_INTERNET] = "internet",
	[REASON_DENY_HOST] = "deny-host",
};

const char *reason_name(unsigned int reason)
{
	return reason < REASON_COUNT ? reason_names[reason] : NULL;
}

static const char *const hook_names[HOOK_COUNT] = {
	[HOOK_CONNECT4] = "connect4",
	[HOOK_SENDMSG4] = "sendmsg4",
	[HOOK_CONNECT6] = "connect6",
	[HOOK_SENDMSG6] = "sendmsg6",
	[HOOK_TC] = "tc",
	[HOOK_CONNECT_UNIX] = "connect_unix",
	[HOOK_SENDMSG_UNIX] = "sendmsg_unix",
	[HOOK_NFT_OUTPUT] = "output",
};

const char *hook_name(unsigned int hook)
{
	return hook < HOOK_COUNT ? hook_names[hook] : NULL;
}
