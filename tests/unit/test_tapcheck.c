// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_tapcheck.c - the ARP request to pasta and the answer it must match (pure part) */
#include <arpa/inet.h>
#include <net/if_arp.h>
#include <string.h>
#include <criterion/criterion.h>

#include "tapcheck.h"

static const uint8_t mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 1 };

/* what pasta's arp() sends back: the request with the roles swapped */
static void answer(struct ether_arp *a, const struct ether_arp *req)
{
	*a = *req;
	a->arp_op = htons(ARPOP_REPLY);
	memcpy(a->arp_spa, req->arp_tpa, 4);
	memcpy(a->arp_tpa, req->arp_spa, 4);
}

Test(tapcheck, request_and_answer)
{
	uint32_t addr = inet_addr("198.51.100.2"), gw = inet_addr("198.51.100.1");
	struct ether_arp req, a;

	tapcheck_request(&req, mac, addr, gw);
	cr_expect_eq(ntohs(req.arp_op), ARPOP_REQUEST);
	cr_expect_eq(ntohs(req.arp_hrd), ARPHRD_ETHER);
	cr_expect_arr_eq(req.arp_sha, mac, ETH_ALEN);
	cr_expect_arr_eq(req.arp_spa, &addr, 4);
	cr_expect_arr_eq(req.arp_tpa, &gw, 4);

	answer(&a, &req);
	cr_expect(tapcheck_is_answer(&a, sizeof(a), addr, gw));
	/* our own request, seen going out on the same socket */
	cr_expect_not(tapcheck_is_answer(&req, sizeof(req), addr, gw));
	/* truncated, or about another address */
	cr_expect_not(tapcheck_is_answer(&a, sizeof(a) - 1, addr, gw));
	cr_expect_not(tapcheck_is_answer(&a, sizeof(a), addr, inet_addr("198.51.100.9")));
	cr_expect_not(tapcheck_is_answer(&a, sizeof(a), inet_addr("198.51.100.9"), gw));
	a.arp_pro = htons(0x86dd);
	cr_expect_not(tapcheck_is_answer(&a, sizeof(a), addr, gw));
}
