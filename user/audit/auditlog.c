// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* auditlog.c - the audit log: a file (open, rotate, append) or the
 * systemd journal
 *
 * Root writes it, so it is never where the agent points: audit-log comes
 * from root's configuration alone (config.c), no link on the path is
 * followed, the log's directory must be root's alone and is held open (all
 * later opens and renames are relative to it), and a file replaced under us
 * (rotated by another jail) is noticed (dev/ino) and reopened.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "audit.h"
#include "auditlog.h"
#include "builtin.h"
#include "config.h"
#include "journal.h"
#include "log.h"
#include "trust.h"

/* open_dir() - the directory holding @path (absolute), created as needed,
 * without following a link anywhere on the way. Return: fd or -errno. */
static int open_dir(const char *path, char *what, size_t what_size)
{
	char copy[4096], *comp, *next;
	int fd, sub;

	snprintf(copy, sizeof(copy), "%s", path);
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (comp = copy + 1; (next = strchr(comp, '/')); comp = next + 1) {
		struct stat st;
		int err;

		*next = '\0';
		if (!*comp) { /* "//" */
			*next = '/';
			continue;
		}
		sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 && errno == ENOENT &&
		    (!mkdirat(fd, comp, 0750) || errno == EEXIST))
			sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			err = -errno;
			if (!fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
				err = -ELOOP;
			snprintf(what, what_size, "%s", copy);
			close(fd);
			return err;
		}
		*next = '/';
		close(fd);
		fd = sub;
	}
	return fd;
}

void audit_log_file(const char *path, unsigned int n, char *buf, size_t size)
{
	if (n)
		snprintf(buf, size, "%s.%u", path, n);
	else
		snprintf(buf, size, "%s", path);
}

static int reopen(struct audit_log *log)
{
	struct stat st;
	int fd;

	fd = openat(log->dir_fd, log->name,
		    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
		    0640);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (log->fd >= 0)
		close(log->fd);
	log->fd = fd;
	log->dev = st.st_dev;
	log->ino = st.st_ino;
	return 0;
}

/* What a record costs of the journal budget's time (auditlog.h). */
#define JOURNAL_RECORD_NS (1000000000ULL / AUDIT_JOURNAL_PER_S)

static uint64_t now_ns(void);
static bool shed_pending(const struct audit_log *log);

/* open_journal() - records to the systemd journal: journald must be there
 * (fail closed: a jail whose records go nowhere does not start). Return:
 * 0 or -errno (logged). */
static int open_journal(struct audit_log *log)
{
	int err = journal_listening(AUDIT_JOURNAL_SOCKET);

	if (err)
		return log_err(err, "audit-log = journal, but no systemd-journald listens on %s (%s; "
			       "start it, or set audit-log to a file)", AUDIT_JOURNAL_SOCKET,
			       strerror(-err));
	log->fields = malloc(sizeof(*log->fields));
	log->budget = calloc(1, sizeof(*log->budget));
	if (!log->fields || !log->budget)
		return log_err(-ENOMEM, "audit-log = journal: out of memory");
	log->budget->credit_ns = AUDIT_JOURNAL_BURST * JOURNAL_RECORD_NS;
	log->journal = true;
	return 0;
}

int audit_log_open(struct audit_log *log, const char *path)
{
	char dir[4096] = "";
	struct stat st;
	int err;

	log->fd = log->dir_fd = -1;
	log->held = NULL;
	log->held_len = 0;
	log->journal = false;
	log->fields = NULL;
	log->budget = NULL;
	log->rotate_bytes = AUDIT_ROTATE_BYTES;
	if (!strcmp(path, CONFIG_AUDIT_JOURNAL))
		return open_journal(log);
	if (snprintf(log->path, sizeof(log->path), "%s", path) >= (int)sizeof(log->path))
		return -ENAMETOOLONG;
	log->name = strrchr(log->path, '/') + 1;
	err = open_dir(log->path, dir, sizeof(dir));
	if (err < 0)
		return log_err(err, "cannot open the directory of the audit log %s: %s%s%s", path,
			       dir, dir[0] ? ": " : "",
			       err == -ELOOP ? "a link (not followed: root writes there)"
					     : strerror(-err));
	log->dir_fd = err;
	if (fstat(log->dir_fd, &st))
		return log_err(-errno, "cannot open the directory of the audit log %s", path);
	/* Rootless, the log is the user's own: a directory others can write
	 * would let them replace it. */
	if (geteuid() != 0 && (st.st_uid != geteuid() || (st.st_mode & 022)))
		return log_err(-EPERM,
			       "the directory of the audit log %s belongs to uid %u, mode %03o: "
			       "it must be yours and writable by you alone (chmod go-w DIR)",
			       path, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 0777));
	if (geteuid() == 0 && !trust_root_only(&st, false))
		return log_err(-EPERM,
			       "the directory of the audit log %s belongs to uid %u, mode %03o: "
			       "root writes there, so it must be root's and writable by root alone "
			       "(chown root: DIR; chmod go-w DIR)",
			       path, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 0777));
	err = reopen(log);
	if (err)
		return log_err(err, "cannot open the audit log %s: %s", path, strerror(-err));
	return 0;
}

/* rotate() - PATH -> PATH.1 -> ... -> PATH.AUDIT_KEEP (dropped), under a
 * lock; rotates only if the file is still the big one we saw. */
static void rotate(struct audit_log *log)
{
	char lock[4200], from[4200], to[4200];
	struct stat st;
	unsigned int i;
	int lfd;

	snprintf(lock, sizeof(lock), "%s.lock", log->name);
	lfd = openat(log->dir_fd, lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
		     0600);
	/* Another jail rotating holds it for a moment; one that holds it for
	 * ever (an agent run as root owns root's files) must not stall the
	 * supervisor: no rotation this time, the line is written all the
	 * same. */
	if (lfd < 0 || flock(lfd, LOCK_EX | LOCK_NB)) {
		if (lfd >= 0)
			close(lfd);
		return;
	}
	if (fstatat(log->dir_fd, log->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (uint64_t)st.st_ino == log->ino && (uint64_t)st.st_size >= log->rotate_bytes) {
		for (i = AUDIT_KEEP; i > 0; i--) {
			audit_log_file(log->name, i - 1, from, sizeof(from));
			audit_log_file(log->name, i, to, sizeof(to));
			/* the oldest is replaced, so dropped */
			renameat(log->dir_fd, from, log->dir_fd, to);
		}
	}
	close(lfd); /* releases the lock */
}

bool audit_log_writable(const struct audit_log *log)
{
	return log->journal || log->fd >= 0;
}

bool audit_journal_take(struct audit_journal_budget *b, uint64_t now_ns)
{
	uint64_t cap = AUDIT_JOURNAL_BURST * JOURNAL_RECORD_NS;

	if (now_ns > b->last_ns)
		b->credit_ns += now_ns - b->last_ns;
	b->last_ns = now_ns;
	if (b->credit_ns > cap)
		b->credit_ns = cap;
	if (b->credit_ns < JOURNAL_RECORD_NS)
		return false;
	b->credit_ns -= JOURNAL_RECORD_NS;
	return true;
}

bool audit_journal_shed(struct audit_journal_budget *b, const char *line)
{
	static struct audit_record r; /* big: not on the stack */
	unsigned int reason;

	if (audit_parse_line(line, &r)) {
		b->shed_other++;
		return true;
	}
	if (r.is_policy)
		return false;
	if (!b->jail[0])
		snprintf(b->jail, sizeof(b->jail), "%s", r.jail);
	for (reason = 0; reason < 64; reason++) {
		const char *name = reason_name(reason);

		if (r.reason[0] && !r.is_dns && name && !strcmp(name, r.reason)) {
			b->shed[reason] += r.is_lost ? r.lost : r.count ? r.count : 1;
			return true;
		}
	}
	b->shed_other++; /* a dns record, or a refused query (reason dns) */
	return true;
}

size_t audit_journal_lost(struct audit_journal_budget *b, uint64_t now_ns, struct timespec wall,
			  char *buf, size_t size)
{
	size_t len = 0, line;
	unsigned int reason;

	if (now_ns < b->lost_at_ns + 1000000000ULL)
		return 0;
	for (reason = 0; reason <= 64; reason++) {
		uint64_t *n = reason < 64 ? &b->shed[reason] : &b->shed_other;

		if (!*n)
			continue;
		/* other records: a loss record of no reason ("records") */
		line = audit_format_lost(b->jail, *n, reason < 64 ? reason : UINT_MAX, wall,
					 buf + len, size - len);
		if (len + line >= size)
			break; /* the rest in the next round */
		len += line;
		*n = 0;
		b->lost_at_ns = now_ns;
	}
	return len;
}

/* send_line() - one line (NUL-terminated, no newline) as a journal entry,
 * or shed past the budget (audit_journal_budget). Return: 0 or -errno. */
static int send_line(struct audit_log *log, char *line, size_t n, uint64_t now)
{
	int err;

	if (!audit_journal_take(log->budget, now) && audit_journal_shed(log->budget, line))
		return 0;
	err = audit_journal_fields(line, n, log->fields);
	return err ? err : journal_send(log->fields->iov, log->fields->n);
}

/* send_lines() - @len bytes of whole lines, each a journal entry, after
 * the loss records of what was shed before, if a second has passed.
 * Return: 0, or the first error (the other lines are sent all the same). */
static int send_lines(struct audit_log *log, const char *lines, size_t len)
{
	char line[AUDIT_JOURNAL_BYTES], lost[AUDIT_JOURNAL_BYTES];
	const char *end = lines + len;
	uint64_t now = now_ns();
	struct timespec wall;
	size_t n_lost, i, n;
	int first = 0, err;

	clock_gettime(CLOCK_REALTIME, &wall);
	n_lost = audit_journal_lost(log->budget, now, wall, lost, sizeof(lost));
	for (i = 0; i < n_lost; i += n + 1) {
		n = (size_t)((char *)memchr(lost + i, '\n', n_lost - i) - (lost + i));
		memcpy(line, lost + i, n);
		line[n] = '\0';
		/* Past the budget too: a round a second, a line a reason. */
		err = audit_journal_fields(line, n, log->fields);
		err = err ? err : journal_send(log->fields->iov, log->fields->n);
		first = first ? first : err;
	}
	while (lines < end) {
		const char *nl = memchr(lines, '\n', (size_t)(end - lines));

		n = nl ? (size_t)(nl - lines) : (size_t)(end - lines);
		if (n < sizeof(line)) {
			memcpy(line, lines, n);
			line[n] = '\0';
			err = send_line(log, line, n, now);
		} else {
			err = -E2BIG; /* none of ours is */
		}
		first = first ? first : err;
		lines += n + 1;
	}
	return first;
}

/* write_lines() - @len bytes of whole lines, in one write() */
static int write_lines(struct audit_log *log, const char *line, size_t len)
{
	struct stat st;
	ssize_t n;
	int err;

	if (log->journal)
		return send_lines(log, line, len);
	if (log->fd < 0)
		return -EBADF;
	/* Another jail rotated our file away: write to the new one. */
	if (fstatat(log->dir_fd, log->name, &st, AT_SYMLINK_NOFOLLOW) ||
	    (uint64_t)st.st_ino != log->ino ||
	    (uint64_t)st.st_dev != log->dev) {
		err = reopen(log);
		if (err)
			return err;
	}
	if (fstat(log->fd, &st) == 0 && (uint64_t)st.st_size + len > log->rotate_bytes &&
	    st.st_size > 0) {
		rotate(log);
		err = reopen(log);
		if (err)
			return err;
	}
	n = write(log->fd, line, len);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int audit_log_flush(struct audit_log *log)
{
	size_t len = log->held_len;

	if (!len)
		return log->journal ? send_lines(log, "", 0) : 0; /* what was shed */
	log->held_len = 0; /* a line that cannot be written now never will */
	return write_lines(log, log->held, len);
}

int audit_log_append(struct audit_log *log, const char *line, size_t len)
{
	int held_err = audit_log_flush(log), err = write_lines(log, line, len);

	return err ? err : held_err;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

int audit_log_hold(struct audit_log *log, const char *line, size_t len)
{
	int err = 0;

	if (!log->held)
		log->held = malloc(AUDIT_HOLD_BYTES);
	if (!log->held || len > AUDIT_HOLD_BYTES)
		return audit_log_append(log, line, len);
	if (log->held_len + len > AUDIT_HOLD_BYTES)
		err = audit_log_flush(log);
	if (!log->held_len)
		log->held_since = now_ns();
	memcpy(log->held + log->held_len, line, len);
	log->held_len += len;
	return err;
}

/* shed_pending() - whether the journal budget shed records that no loss
 * record has told of yet */
static bool shed_pending(const struct audit_log *log)
{
	unsigned int i;

	if (!log->budget)
		return false;
	for (i = 0; i < 64; i++)
		if (log->budget->shed[i])
			return true;
	return log->budget->shed_other != 0;
}

int audit_log_due(const struct audit_log *log)
{
	uint64_t at = log->held_since + AUDIT_HOLD_NS, now;

	/* What was shed: its loss records a second after the last round. */
	if (!log->held_len && shed_pending(log))
		at = log->budget->lost_at_ns + 1000000000ULL;
	else if (!log->held_len)
		return -1;
	now = now_ns();
	return now >= at ? 0 : (int)((at - now + 999999) / 1000000);
}

void audit_log_close(struct audit_log *log)
{
	audit_log_flush(log);
	if (shed_pending(log)) { /* the last loss records: now */
		log->budget->lost_at_ns = 0;
		send_lines(log, "", 0);
	}
	free(log->held);
	log->held = NULL;
	if (log->fd >= 0)
		close(log->fd);
	if (log->dir_fd >= 0)
		close(log->dir_fd);
	log->fd = log->dir_fd = -1;
	log->held = NULL;
	log->held_len = 0;
	free(log->fields);
	log->fields = NULL;
	free(log->budget);
	log->budget = NULL;
	log->journal = false;
}
