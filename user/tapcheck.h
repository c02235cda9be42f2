/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* tapcheck.h - is pasta serving the jail's tap: it answers ARP for the gateway */
#ifndef EBPFJAIL_TAPCHECK_H
#define EBPFJAIL_TAPCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/if_ether.h>

/**
 * tapcheck_request() - an ARP request "who has @gateway, tell @addr" (pure)
 * @mac: the tap's own hardware address
 * @addr, @gateway: network byte order
 */
void tapcheck_request(struct ether_arp *req, const uint8_t mac[ETH_ALEN], uint32_t addr,
		      uint32_t gateway);

/**
 * tapcheck_is_answer() - is this frame's payload the reply to that request
 * (pure): an ARP reply from @gateway to @addr
 */
bool tapcheck_is_answer(const void *buf, size_t len, uint32_t addr, uint32_t gateway);

/**
 * tapcheck_gateway_answers() - ask for the gateway's hardware address on the
 * tap, in the current network namespace, and wait for the answer
 *
 * pasta answers every ARP request on its tap itself, and only from its
 * main loop: an answer proves it started and passed its own sandboxing
 * (which comes after it creates the tap, and which Docker's default
 * seccomp profile makes fail). Nothing leaves the tap: ARP is not
 * forwarded to the host.
 * @timeout_ms: the whole wait; the request is repeated every 100 ms
 * Return: 0, -ETIMEDOUT, or -errno.
 */
int tapcheck_gateway_answers(int ifindex, uint32_t addr, uint32_t gateway, int timeout_ms);

#endif /* EBPFJAIL_TAPCHECK_H */
