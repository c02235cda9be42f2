/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* audit.h - denial events as JSON lines, the audit log, the exit summary */
#ifndef EBPFJAIL_AUDIT_H
#define EBPFJAIL_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/types.h>

#include "ebpfjail.h"

#define AUDIT_LINE_MAX 512

/**
 * audit_format_event() - one event as a JSON line (with its newline), pure
 * @wall: when it happened, wall clock
 * Fields (docs/DESIGN.md, "Audit"): time, jail, pid, comm, uid, proto, daddr, dport,
 * hook, reason, rule, and "family": "inet6" for IPv6 sockets.
 * Return: the line's length.
 */
size_t audit_format_event(const struct jail_event *e, const char *jail, struct timespec wall,
			  char *buf, size_t size);

/**
 * audit_json_string() - @s as a JSON string, quotes included, only printable
 * ASCII left unescaped (see put_json_string() in audit.c for why)
 */
void audit_json_string(const char *s, char *buf, size_t size);

/** audit_format_lost() - {"time": ..., "jail": ..., "lost": N} and a newline */
size_t audit_format_lost(const char *jail, uint64_t lost, struct timespec wall, char *buf,
			 size_t size);

/**
 * audit_format_policy() - a change of a running jail's policy:
 * {"time": ..., "jail": ..., "policy": "allow"|"deny"|"reload",
 *  "change": "10.0.0.5:502" or what the reload changed, "uid": WHO}
 */
size_t audit_format_policy(const char *jail, const char *action, const char *change,
			   unsigned long uid, struct timespec wall, char *buf, size_t size);

/** audit_event_wall_time() - an event's boot-clock time as wall-clock time */
struct timespec audit_event_wall_time(uint64_t boot_ns);

/* Rotation: at AUDIT_ROTATE_BYTES the log becomes PATH.1 (PATH.1 becomes
 * PATH.2, ...) and at most AUDIT_KEEP old files are kept. */
#define AUDIT_ROTATE_BYTES (8U << 20)
#define AUDIT_KEEP 4

struct audit_log {
	int fd;
	char path[4096];
	uint64_t dev, ino; /* of the file fd writes to */
	uint64_t rotate_bytes;
};

/**
 * audit_log_open() - open (create) the audit log for appending
 *
 * The directory is created root-only (0750) and the file 0640: what was
 * denied, to where, is not every local user's business.
 * Return: 0, or -errno (logged).
 */
int audit_log_open(struct audit_log *log, const char *path);

/**
 * audit_log_append() - write one line, whole
 *
 * One write() with O_APPEND: lines of several jails never interleave. If
 * the file has grown past the limit it is rotated first, under a lock so
 * two jails do not rotate twice; a jail whose file another one rotated
 * away reopens the new one.
 * Return: 0 or -errno.
 */
int audit_log_append(struct audit_log *log, const char *line, size_t len);

void audit_log_close(struct audit_log *log);

/** audit_log_file() - PATH for @n == 0, else PATH.n (rotated) */
void audit_log_file(const char *path, unsigned int n, char *buf, size_t size);

/* One line of the log, parsed (what `ebpfjail audit` shows). */
struct audit_record {
	struct timespec time;
	char jail[32];
	unsigned long pid, uid, dport, lost;
	char comm[64]; /* as escaped in the log, unescaped */
	char proto[16];
	char daddr[48];
	char family[8];
	char hook[16];
	char reason[16];
	char rule[24];
	char policy[16];  /* a policy change: allow, deny, reload */
	char change[256]; /* ... and what it changed */
	bool is_lost, is_policy;
};

/**
 * audit_parse_line() - one JSON line of the log into @r (pure)
 * Return: 0, or -EINVAL for a line that is not one of ours.
 */
int audit_parse_line(const char *line, struct audit_record *r);

/**
 * audit_parse_since() - "10m", "2h", "30s", "1d", or a local time
 * "2026-11-29T10:00" (seconds optional), relative to @now (pure)
 * Return: 0 with @out set, or -EINVAL.
 */
int audit_parse_since(const char *text, time_t now, time_t *out);

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
