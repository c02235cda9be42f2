// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_dnsfwd.c - the DNS forwarder's pure parts: whom it asks */
#include <arpa/inet.h>
#include <string.h>
#include <criterion/criterion.h>

#include "dnsfwd.h"

Test(dnsfwd, the_forwarder_asks_the_host_resolv_conf_nameservers)
{
	struct dnsfwd_opts o = { 0 };
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&o.upstreams[0];

	dnsfwd_parse_resolv("# c\nsearch x\nnameserver 10.0.0.53\nnameserver ::1\n"
			    "nameserver bogus\nnameserver 1.1.1.1\nnameserver 8.8.8.8\n", &o);
	cr_expect_eq(o.n_upstreams, 3);
	cr_expect_eq(s4->sin_addr.s_addr, inet_addr("10.0.0.53"));
	cr_expect_eq(ntohs(s4->sin_port), 53);
	cr_expect_eq(o.upstreams[1].ss_family, AF_INET6);
	dnsfwd_parse_resolv("search only\n", &o);
	cr_expect_eq(o.n_upstreams, 1);
	cr_expect_eq(s4->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
}

Test(dnsfwd, the_host_domains_are_its_search_and_domain_lines)
{
	char d[DNSFWD_DOMAINS_MAX][DNS_NAME_MAX + 1];

	cr_assert_eq(dnsfwd_parse_domains("nameserver 10.0.0.53\nsearch Corp.Example. lab.corp.example\n"
					  "domain home\nsearchx bogus\n", d), 3);
	cr_expect_str_eq(d[0], "corp.example");
	cr_expect_str_eq(d[1], "lab.corp.example");
	cr_expect_str_eq(d[2], "home");
	cr_expect_eq(dnsfwd_parse_domains("search a\\x\n", d), 0, "not a host name");
}
