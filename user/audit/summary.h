/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* summary.h - the one-line summary of what was denied, printed at exit */
#ifndef EBPFJAIL_SUMMARY_H
#define EBPFJAIL_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "ebpfjail.h"
#include "dnsmsg.h"

/* The exit summary: the most frequent destinations. */
#define SUMMARY_SLOTS 64

struct summary_slot {
	uint32_t daddr;
	uint16_t dport;
	uint8_t reason;
	uint8_t proto;
	bool is_unix;             /* a Unix socket path, not an address */
	char path[UNIX_PATH_MAX]; /* is_unix: the path, NUL-padded */
	uint64_t count;
};

struct summary {
	struct summary_slot slots[SUMMARY_SLOTS];
	size_t n;
	uint64_t total, other; /* other: denials that found no free slot */
	uint64_t lost;
	uint64_t dns_refused;  /* queries the forwarder refused */
	char dns_first[DNS_NAME_MAX + 1]; /* the first of them that is a host
					     name ("": none yet) */
};

/** summary_add() - count @n denials like @e (1, or a count record's) */
void summary_add(struct summary *s, const struct jail_event *e, uint64_t n);

/** summary_add_dns() - count one query the forwarder refused, for @name */
void summary_add_dns(struct summary *s, const char *name);

/**
 * summary_format() - one line: how many, the top destinations with reasons,
 * and the configuration line that would allow the most frequent one
 * (allow-ip, or unix-socket for a Unix socket path); a cloud metadata
 * service or a daemon socket that grants root excepted (named, not
 * suggested: the next denial is). Nothing for netns denials (no line
 * allows them) or paths no unix-socket line could name.
 * Then how many DNS queries were refused, and the first one's name.
 * Return: the length; 0 when nothing was denied.
 */
size_t summary_format(const struct summary *s, char *buf, size_t size);

enum summary_advice {
	SUMMARY_NO_LINE, /* no configuration line can allow it */
	SUMMARY_LINE,    /* allow-ip or unix-socket would */
	SUMMARY_NEVER,   /* one would, but it is never suggested: a cloud
			    metadata service, a daemon socket that grants root */
	SUMMARY_EVERY_PORT, /* tried without a port (ICMP, port 0): only a line
			       that opens every port of it would allow it */
};

/** summary_advice() - what may be said about allowing @x's destination */
enum summary_advice summary_advice(const struct summary_slot *x);

/** summary_path_text() - @x's path for a terminal: anything but printable
 * ASCII (the agent chose the bytes) as '?' */
void summary_path_text(const struct summary_slot *x, char *buf, size_t size);

/** summary_slot_text() - @x's destination as a line names it: ADDR:PORT,
 * ADDR (no port), or the path as summary_path_text() gives it */
void summary_slot_text(const struct summary_slot *x, char *buf, size_t size);

#endif /* EBPFJAIL_SUMMARY_H */
