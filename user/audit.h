/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* audit.h - denial events as JSON lines, the audit log, the exit summary */
#ifndef EBPFJAIL_AUDIT_H
#define EBPFJAIL_AUDIT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/types.h>

#include "ebpfjail.h"

#define AUDIT_LINE_MAX 512

/**
 * audit_format_event() - one event as a JSON line (with its newline), pure
 * @wall: when it happened, wall clock
 * Fields (SPEC "Audit"): time, jail, pid, comm, uid, proto, daddr, dport,
 * hook, reason, rule, and "family": "inet6" for IPv6 sockets.
 * Return: the line's length.
 */
size_t audit_format_event(const struct jail_event *e, const char *jail, struct timespec wall,
			  char *buf, size_t size);

/** audit_format_lost() - {"time": ..., "jail": ..., "lost": N} and a newline */
size_t audit_format_lost(const char *jail, uint64_t lost, struct timespec wall, char *buf,
			 size_t size);

/** audit_event_wall_time() - an event's boot-clock time as wall-clock time */
struct timespec audit_event_wall_time(uint64_t boot_ns);

/**
 * audit_open() - open (create) the audit log for appending
 *
 * The directory is created root-only (0750) and the file 0640: what was
 * denied, to where, is not every local user's business.
 * Return: an fd, or -errno (logged).
 */
int audit_open(const char *path);

/** audit_append() - write a line in one write(): O_APPEND keeps lines whole */
int audit_append(int fd, const char *line, size_t len);

/* The exit summary: the most frequent destinations. */
#define SUMMARY_SLOTS 64

struct summary_slot {
	uint32_t daddr;
	uint16_t dport;
	uint8_t reason;
	uint8_t proto;
	uint64_t count;
};

struct summary {
	struct summary_slot slots[SUMMARY_SLOTS];
	size_t n;
	uint64_t total, other; /* other: denials that found no free slot */
	uint64_t lost;
};

/** summary_add() - count one denial */
void summary_add(struct summary *s, const struct jail_event *e);

/**
 * summary_format() - one line: how many, the top destinations with reasons,
 * and the configuration line that would allow the most frequent one
 * Return: the length; 0 when nothing was denied.
 */
size_t summary_format(const struct summary *s, char *buf, size_t size);

#endif /* EBPFJAIL_AUDIT_H */
