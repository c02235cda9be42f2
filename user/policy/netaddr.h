/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* netaddr.h - strict IPv4 address, prefix and port parsing and formatting */
#ifndef EBPFJAIL_NETADDR_H
#define EBPFJAIL_NETADDR_H

#include <stdbool.h>
#include <stdint.h>

/* "255.255.255.255/32" and a NUL */
#define NETADDR_CIDR_STRLEN 19

/**
 * netaddr_parse_ipv4() - parse a strict dotted quad ("192.0.2.1")
 * @s: the text, NUL-terminated; nothing may precede or follow the address
 * @addr: result, network byte order
 *
 * Four decimal parts 0-255, no leading zeros (010 is octal to inet_aton),
 * no shorthand ("10.1"), no signs or spaces.
 * Return: 0, or -EINVAL.
 */
int netaddr_parse_ipv4(const char *s, uint32_t *addr);

/**
 * netaddr_parse_decimal() - plain decimal without sign or leading zero, at
 * most @max_digits long
 * Return: 0 with *@out, or -EINVAL.
 */
int netaddr_parse_decimal(const char *s, unsigned int max_digits, unsigned long *out);

/**
 * netaddr_parse_port() - parse a port: plain decimal 1-65535
 * @s: the text, NUL-terminated
 * @allow_zero: accept "0" as well (local-model-port = 0 disables it)
 * @port: result, host byte order
 *
 * No sign, no leading zero, no spaces.
 * Return: 0, -EINVAL for a malformed number, -ERANGE for one out of range.
 */
int netaddr_parse_port(const char *s, bool allow_zero, uint16_t *port);

/**
 * netaddr_parse_prefixlen() - parse a prefix length: plain decimal 0-32
 * Return: 0, -EINVAL or -ERANGE.
 */
int netaddr_parse_prefixlen(const char *s, uint8_t *prefixlen);

/** netaddr_mask() - the netmask of a prefix length, host byte order */
uint32_t netaddr_mask(unsigned int prefixlen);

/** netaddr_format() - "a.b.c.d" for an address in network byte order */
void netaddr_format(uint32_t addr, char buf[NETADDR_CIDR_STRLEN]);

/** netaddr_format_cidr() - "a.b.c.d/n" */
void netaddr_format_cidr(uint32_t addr, unsigned int prefixlen, char buf[NETADDR_CIDR_STRLEN]);

#endif /* EBPFJAIL_NETADDR_H */
