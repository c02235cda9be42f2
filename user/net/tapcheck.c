// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tapcheck.c - is pasta serving the jail's tap: it answers ARP for the gateway */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "netlink.h"
#include "tapcheck.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int tapcheck_gateway_answers(const char *ifname, int ifindex, uint32_t gateway, int timeout_ms)
{
	struct timespec step = { 0, 2 * 1000 * 1000 };
	long long deadline = now_ms() + timeout_ms, next = 0;
	struct arpreq req = { .arp_flags = 0 };
	struct sockaddr_in *pa = (struct sockaddr_in *)&req.arp_pa;
	int fd, err = -ETIMEDOUT;

	pa->sin_family = AF_INET;
	pa->sin_addr.s_addr = gateway;
	snprintf(req.arp_dev, sizeof(req.arp_dev), "%s", ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0); /* for SIOCGARP only */
	if (fd < 0)
		return -errno;
	for (;;) { /* bounded by the deadline */
		long long t = now_ms();

		if (t >= deadline)
			break;
		if (t >= next) {
			err = nl_neigh_use(ifindex, gateway);
			if (err)
				break;
			err = -ETIMEDOUT;
			next = t + 100;
		}
		/* ATF_COM: the entry holds the answer's hardware address */
		if (ioctl(fd, SIOCGARP, &req) == 0 && (req.arp_flags & ATF_COM)) {
			err = 0;
			break;
		}
		nanosleep(&step, NULL);
	}
	close(fd);
	return err;
}
