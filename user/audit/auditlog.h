/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* auditlog.h - the audit log: a file (open, rotate, append) or the systemd
 * journal (audit-log = journal); the only part of the audit with system
 * calls; the lines come from audit.h */
#ifndef EBPFJAIL_AUDITLOG_H
#define EBPFJAIL_AUDITLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Rotation: at AUDIT_ROTATE_BYTES the log becomes PATH.1 (PATH.1 becomes
 * PATH.2, ...) and at most AUDIT_KEEP old files are kept. */
#define AUDIT_ROTATE_BYTES (8U << 20)
#define AUDIT_KEEP 4

/* Held lines (audit_log_hold()) are written at most AUDIT_HOLD_NS after the
 * first of them, in one write of at most AUDIT_HOLD_BYTES. */
#define AUDIT_HOLD_NS (10 * 1000 * 1000ULL)
#define AUDIT_HOLD_BYTES (64U << 10)

struct audit_journal;

/* journald drops a unit's entries past its rate limit (by default 10,000
 * in 30 s), and the sender never hears of it. The attack: an agent floods
 * denials of new kinds (each kind passes the kernel's cap of 2,000 a
 * second) until journald drops everything of the supervisor's unit, then
 * tries the metadata service, and no record of it is kept. ebpfjail's
 * own budget, well under journald's, sheds the records past it, counts
 * them by reason, and writes those counts as loss records ("lost"), a
 * round at most once a second (audit_journal_budget). */
#define AUDIT_JOURNAL_PER_S 150
#define AUDIT_JOURNAL_BURST 2000

/* The budget's state: pure (audit_journal_take(), audit_journal_shed()). */
struct audit_journal_budget {
	uint64_t credit_ns; /* time's worth of records it may send now */
	uint64_t last_ns;   /* CLOCK_MONOTONIC of the last take */
	uint64_t lost_at_ns; /* of the last round of loss records */
	uint64_t shed[64];  /* denials shed, by reason number */
	uint64_t shed_other; /* other records shed (dns, counts of no reason) */
	char jail[32];      /* whose: the records' "jail" */
};

struct audit_log {
	bool journal;      /* audit-log = journal: records to the systemd journal */
	struct audit_journal *fields; /* ... each one's fields, while it is sent */
	struct audit_journal_budget *budget; /* ... and how many it may send */
	int fd;
	int dir_fd;        /* the directory, held: nothing on its path is followed again */
	const char *name;  /* the file's name in it (points into path) */
	char path[4096];
	uint64_t dev, ino; /* of the file fd writes to */
	uint64_t rotate_bytes;
	char *held;        /* lines not yet written (AUDIT_HOLD_BYTES), or NULL */
	size_t held_len;
	uint64_t held_since; /* CLOCK_MONOTONIC ns of the first of them */
};

/**
 * audit_log_open() - open (create) the audit log for appending; @path
 * CONFIG_AUDIT_JOURNAL: the systemd journal, which must be listening
 * (AUDIT_JOURNAL_SOCKET), each record a journal entry
 * (audit_journal_fields())
 *
 * The directories are created root-only (0750) and the file 0640: what was
 * denied, to where, is not every local user's business. No link on the
 * path is followed, and the log's directory must be root's and writable by
 * root alone: root appends text an agent chose (its comm), so nobody else
 * may decide where that lands.
 * Return: 0, or -errno (logged).
 */
int audit_log_open(struct audit_log *log, const char *path);

/* Where systemd-journald takes records (sd_journal_sendv()). */
#define AUDIT_JOURNAL_SOCKET "/run/systemd/journal/socket"

/** audit_log_writable() - whether audit_log_open() succeeded: records go
 * somewhere */
bool audit_log_writable(const struct audit_log *log);

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

/**
 * audit_log_hold() - write one line soon: at the latest AUDIT_HOLD_NS after
 * the first line held (audit_log_due()), or before the next line appended
 * (lines stay in order), or at close. For records made while the agent
 * waits for an answer: a write per answer costs more than the answer.
 * A supervisor that dies loses what it held.
 * Return: 0 or -errno (of a write it had to do first).
 */
int audit_log_hold(struct audit_log *log, const char *line, size_t len);

/**
 * audit_log_due() - milliseconds until the held lines must be written (0:
 * now, audit_log_flush()), or -1 if none are held
 */
int audit_log_due(const struct audit_log *log);

/** audit_log_flush() - write the held lines. Return: 0 or -errno. */
int audit_log_flush(struct audit_log *log);

/** audit_log_close() - the held lines written, the files closed */
void audit_log_close(struct audit_log *log);

/**
 * audit_journal_take() - whether one more record may go to the journal at
 * @now_ns (CLOCK_MONOTONIC): AUDIT_JOURNAL_PER_S a second, AUDIT_JOURNAL_BURST
 * at once (pure)
 */
bool audit_journal_take(struct audit_journal_budget *b, uint64_t now_ns);

/**
 * audit_journal_shed() - record @line (one of ours, NUL-terminated) as
 * shed: the denials it stands for (its "count", a loss record's "lost")
 * under its reason. Return: false for a policy record, which is never
 * shed (the caller sends it anyway); true otherwise (pure).
 */
bool audit_journal_shed(struct audit_journal_budget *b, const char *line);

/**
 * audit_journal_lost() - the loss records of what was shed, into @buf (one
 * line each, as audit_format_lost() writes them), the counts cleared; none
 * within a second of the last round (pure). Return: the length written.
 */
size_t audit_journal_lost(struct audit_journal_budget *b, uint64_t now_ns, struct timespec wall,
			  char *buf, size_t size);

/** audit_log_file() - PATH for @n == 0, else PATH.n (rotated) */
void audit_log_file(const char *path, unsigned int n, char *buf, size_t size);

#endif /* EBPFJAIL_AUDITLOG_H */
