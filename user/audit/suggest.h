/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* suggest.h - `ebpfjail audit --suggest`: the lines that would allow what was denied */
#ifndef EBPFJAIL_SUGGEST_H
#define EBPFJAIL_SUGGEST_H

#include <stdint.h>
#include <stdio.h>

#include "audit.h"
#include "dnsmsg.h"
#include "summary.h"

/* What was denied, one slot per destination (address and port, or a Unix
 * socket path), with exact counts. */
struct suggestions {
	struct summary_slot *slots;
	/* For each slot, the name the agent looked its address up by, where
	 * an allow-host line for it would work; else "" (allow-ip). */
	char (*hosts)[DNS_NAME_MAX + 1];
	/* The host's own domains (resolv.conf's search and domain): only a
	 * name under one is suggested for allow-host. */
	char (*domains)[DNS_NAME_MAX + 1];
	size_t n_domains;
	size_t n, cap;
	uint64_t no_line; /* denials no configuration line can allow */
	/* Names the forwarder refused with internet = off, with counts. */
	struct suggested_name {
		char name[DNS_NAME_MAX + 1];
		uint64_t count;
	} *names;
	size_t n_names, cap_names;
	uint64_t dns_other; /* refusals no line can lift (deny-host, class, RD) */
	uint64_t dns_foreign; /* refused names outside the host's own domains */
	char dns_foreign_first[DNS_NAME_MAX + 1];
};

/**
 * suggest_add() - count one record of the audit log; anything but a denial
 * (a loss or policy record) is not counted. A record's "count" (an
 * aggregated one) counts as that many.
 * Return: 0, or -ENOMEM.
 */
int suggest_add(struct suggestions *s, const struct audit_record *r);

/**
 * suggest_print() - the configuration lines, ready to paste: one allow-ip
 * with its port (never without: that line would open every port), or
 * allow-host with its port where the log names the host the address was
 * looked up by (the jail's forwarder answered it) and a name may open it,
 * or
 * unix-socket line per destination, then allow-host for each name under
 * the host's own domains the forwarder refused (internet = off), most
 * refused first,, the addresses most
 * denied first and each address's ports together, every line with its
 * count and, for a destination inside a range ebpfjail blocks on purpose
 * (a private or link-local network, the host's own), a warning of what
 * allowing it opens. A cloud metadata service and a daemon socket that
 * grants root are named in a comment, never suggested. Comments start
 * with '#', so the whole output can go into a configuration file.
 * Return: the number of lines suggested.
 */
size_t suggest_print(const struct suggestions *s, FILE *out);

void suggest_free(struct suggestions *s);

#endif /* EBPFJAIL_SUGGEST_H */
