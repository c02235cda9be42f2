/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* journal.h - the audit records in the systemd journal (libsystemd): each
 * record one entry (its fields: audit_journal_fields()), and read back
 *
 * `journalctl -t ebpfjail EBPFJAIL_REASON=metadata` finds them beside
 * everything else; `ebpfjail audit` reads the AUDIT_JOURNAL_RECORD field,
 * the record as the file would hold it, so its table and --json are the
 * same whichever the log is.
 */
#ifndef EBPFJAIL_JOURNAL_H
#define EBPFJAIL_JOURNAL_H

#include <stddef.h>
#include <time.h>
#include <sys/uio.h>

/**
 * journal_send() - one entry of @n fields (each "NAME=value") to journald
 * Return: 0 or -errno.
 */
int journal_send(const struct iovec *iov, size_t n);

/**
 * journal_listening() - whether systemd-journald takes entries at @socket:
 * a datagram socket connects to it (a leftover socket file with nobody
 * behind it refuses: ECONNREFUSED)
 * Return: 0 or -errno.
 */
int journal_listening(const char *socket);

struct journal_reader;

/**
 * journal_open() - the local journal's ebpfjail entries, oldest first:
 * only jail @jail's (NULL: every jail's), and only those from @since on (0:
 * all)
 * Return: 0 (@out to journal_close()), or -errno (-EACCES: not allowed to
 * read the system's journal).
 */
int journal_open(const char *jail, time_t since, struct journal_reader **out);

/**
 * journal_next() - the next entry's record (AUDIT_JOURNAL_RECORD) into
 * @line, its newline appended, NUL-terminated; entries without it (not a
 * record, or cut) are skipped
 * Return: 1 (a record), 0 (no more for now), or -errno.
 */
int journal_next(struct journal_reader *r, char *line, size_t size);

/**
 * journal_wait() - until the journal has more (or @timeout_ms passed)
 * Return: 0 or -errno.
 */
int journal_wait(struct journal_reader *r, int timeout_ms);

void journal_close(struct journal_reader *r);

#endif /* EBPFJAIL_JOURNAL_H */
