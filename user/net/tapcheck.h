/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* tapcheck.h - is pasta serving the jail's tap: it answers ARP for the gateway */
#ifndef EBPFJAIL_TAPCHECK_H
#define EBPFJAIL_TAPCHECK_H

#include <stdint.h>

/**
 * tapcheck_gateway_answers() - have the kernel of the current network
 * namespace resolve the gateway on the tap (ARP), and wait until it is
 * resolved
 *
 * pasta answers every ARP request on its tap itself, and only from its
 * main loop: an answer proves it started and passed its own sandboxing
 * (which comes after it creates the tap, and which Docker's default
 * seccomp profile makes fail). Nothing leaves the tap but ARP, which
 * pasta does not forward. Needs CAP_NET_ADMIN only (no raw socket:
 * Podman's default capabilities have no CAP_NET_RAW).
 * @ifname, @ifindex: the tap
 * @gateway: network byte order
 * @timeout_ms: the whole wait; the request is repeated every 100 ms
 * Return: 0, -ETIMEDOUT, or -errno.
 */
int tapcheck_gateway_answers(const char *ifname, int ifindex, uint32_t gateway, int timeout_ms);

#endif /* EBPFJAIL_TAPCHECK_H */
