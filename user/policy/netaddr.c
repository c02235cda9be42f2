// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* netaddr.c - strict IPv4 address, prefix and port parsing and formatting
 *
 * Deliberately stricter than inet_aton(): a policy file is a security
 * boundary, and "010.0.0.1" (octal 8.0.0.1 to inet_aton) or "10.1"
 * (10.0.0.1) would allow something other than what the user read.
 */
#include <errno.h>
#include <stdio.h>
#include <arpa/inet.h>

#include "netaddr.h"

int netaddr_parse_decimal(const char *s, unsigned int max_digits, unsigned long *out)
{
	unsigned long v = 0;
	unsigned int n = 0;

	if (s[0] == '0' && s[1] != '\0')
		return -EINVAL;
	for (; *s; s++, n++) {
		if (*s < '0' || *s > '9' || n == max_digits)
			return -EINVAL;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	if (n == 0)
		return -EINVAL;
	*out = v;
	return 0;
}

int netaddr_parse_ipv4(const char *s, uint32_t *addr)
{
	uint32_t host = 0;
	int part;

	for (part = 0; part < 4; part++) {
		char digits[4];
		unsigned int n = 0;
		unsigned long v;

		while (*s >= '0' && *s <= '9' && n < 3)
			digits[n++] = *s++;
		digits[n] = '\0';
		if (netaddr_parse_decimal(digits, 3, &v) || v > 255)
			return -EINVAL;
		host = host << 8 | (uint32_t)v;
		if (part < 3 && *s++ != '.')
			return -EINVAL;
	}
	if (*s)
		return -EINVAL;
	*addr = htonl(host);
	return 0;
}

int netaddr_parse_port(const char *s, bool allow_zero, uint16_t *port)
{
	unsigned long v;

	if (netaddr_parse_decimal(s, 6, &v))
		return -EINVAL;
	if (v > 65535 || (v == 0 && !allow_zero))
		return -ERANGE;
	*port = (uint16_t)v;
	return 0;
}

int netaddr_parse_prefixlen(const char *s, uint8_t *prefixlen)
{
	unsigned long v;

	if (netaddr_parse_decimal(s, 3, &v))
		return -EINVAL;
	if (v > 32)
		return -ERANGE;
	*prefixlen = (uint8_t)v;
	return 0;
}

uint32_t netaddr_mask(unsigned int prefixlen)
{
	return prefixlen == 0 ? 0 : 0xffffffffU << (32 - prefixlen);
}

void netaddr_format(uint32_t addr, char buf[NETADDR_CIDR_STRLEN])
{
	uint32_t h = ntohl(addr);

	snprintf(buf, NETADDR_CIDR_STRLEN, "%u.%u.%u.%u", h >> 24, (h >> 16) & 0xff,
		 (h >> 8) & 0xff, h & 0xff);
}

void netaddr_format_cidr(uint32_t addr, unsigned int prefixlen, char buf[NETADDR_CIDR_STRLEN])
{
	uint32_t h = ntohl(addr);

	snprintf(buf, NETADDR_CIDR_STRLEN, "%u.%u.%u.%u/%u", h >> 24, (h >> 16) & 0xff,
		 (h >> 8) & 0xff, h & 0xff, prefixlen);
}
