// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tapcheck.c - is pasta serving the jail's tap: it answers ARP for the gateway */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if_arp.h>
#include <sys/socket.h>

#include "tapcheck.h"

void tapcheck_request(struct ether_arp *req, const uint8_t mac[ETH_ALEN], uint32_t addr,
		      uint32_t gateway)
{
	memset(req, 0, sizeof(*req));
	req->arp_hrd = htons(ARPHRD_ETHER);
	req->arp_pro = htons(ETHERTYPE_IP);
	req->arp_hln = ETH_ALEN;
	req->arp_pln = sizeof(addr);
	req->arp_op = htons(ARPOP_REQUEST);
	memcpy(req->arp_sha, mac, ETH_ALEN);
	memcpy(req->arp_spa, &addr, sizeof(addr));
	memcpy(req->arp_tpa, &gateway, sizeof(gateway));
}

bool tapcheck_is_answer(const void *buf, size_t len, uint32_t addr, uint32_t gateway)
{
	struct ether_arp a;

	if (len < sizeof(a))
		return false;
	memcpy(&a, buf, sizeof(a));
	return a.arp_hrd == htons(ARPHRD_ETHER) && a.arp_pro == htons(ETHERTYPE_IP) &&
	       a.arp_hln == ETH_ALEN && a.arp_pln == sizeof(addr) && a.arp_op == htons(ARPOP_REPLY) &&
	       !memcmp(a.arp_spa, &gateway, sizeof(gateway)) && !memcmp(a.arp_tpa, &addr, sizeof(addr));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int tapcheck_gateway_answers(int ifindex, uint32_t addr, uint32_t gateway, int timeout_ms)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ARP),
				  .sll_ifindex = ifindex };
	struct sockaddr_ll to = ll;
	socklen_t len = sizeof(ll);
	long long deadline = now_ms() + timeout_ms, next = 0;
	struct ether_arp req;
	int fd, err = -ETIMEDOUT;

	/* SOCK_DGRAM: the kernel writes the Ethernet header. */
	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(ETH_P_ARP));
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&ll, sizeof(ll)) || getsockname(fd, (struct sockaddr *)&ll, &len)) {
		err = -errno;
		goto out;
	}
	if (ll.sll_halen != ETH_ALEN) {
		err = -EINVAL; /* not an Ethernet (tap) device */
		goto out;
	}
	tapcheck_request(&req, ll.sll_addr, addr, gateway);
	to.sll_halen = ETH_ALEN;
	memset(to.sll_addr, 0xff, ETH_ALEN);
	for (;;) { /* bounded by the deadline */
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long t = now_ms();
		unsigned char buf[128];
		ssize_t n;

		if (t >= deadline)
			break;
		if (t >= next) {
			if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&to, sizeof(to)) < 0 &&
			    errno != EAGAIN && errno != ENOBUFS) {
				err = -errno;
				break;
			}
			next = t + 100;
		}
		if (poll(&p, 1, (int)((next < deadline ? next : deadline) - t)) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
			if (tapcheck_is_answer(buf, (size_t)n, addr, gateway)) {
				err = 0;
				goto out;
			}
	}
out:
	close(fd);
	return err;
}
