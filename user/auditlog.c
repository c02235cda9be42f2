// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* auditlog.c - the audit log file: open, rotate, append
 *
 * Root writes it, so it is never where the agent points: the directory is
 * created root-only, the file is opened without following a link, and a
 * file replaced under us is noticed (dev/ino) and reopened.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "auditlog.h"
#include "log.h"

static int make_dirs(char *path)
{
	char *slash;

	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0750) && errno != EEXIST) {
			*slash = '/';
			return -errno;
		}
		*slash = '/';
	}
	return 0;
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

	fd = open(log->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY,
		  0640);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	if (log->fd >= 0)
		close(log->fd);
	log->fd = fd;
	log->dev = st.st_dev;
	log->ino = st.st_ino;
	return 0;
}

int audit_log_open(struct audit_log *log, const char *path)
{
	char copy[4096];
	int err;

	log->fd = -1;
	log->rotate_bytes = AUDIT_ROTATE_BYTES;
	if (snprintf(log->path, sizeof(log->path), "%s", path) >= (int)sizeof(log->path))
		return -ENAMETOOLONG;
	snprintf(copy, sizeof(copy), "%s", path);
	err = make_dirs(copy);
	if (err)
		return log_err(err, "cannot create the directory of the audit log %s: %s", path,
			       strerror(-err));
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

	snprintf(lock, sizeof(lock), "%s.lock", log->path);
	lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lfd < 0 || flock(lfd, LOCK_EX)) {
		if (lfd >= 0)
			close(lfd);
		return;
	}
	if (stat(log->path, &st) == 0 && (uint64_t)st.st_ino == log->ino &&
	    (uint64_t)st.st_size >= log->rotate_bytes) {
		for (i = AUDIT_KEEP; i > 0; i--) {
			audit_log_file(log->path, i - 1, from, sizeof(from));
			audit_log_file(log->path, i, to, sizeof(to));
			rename(from, to); /* the oldest is replaced, so dropped */
		}
	}
	close(lfd); /* releases the lock */
}

int audit_log_append(struct audit_log *log, const char *line, size_t len)
{
	struct stat st;
	ssize_t n;
	int err;

	if (log->fd < 0)
		return -EBADF;
	/* Another jail rotated our file away: write to the new one. */
	if (stat(log->path, &st) || (uint64_t)st.st_ino != log->ino ||
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

void audit_log_close(struct audit_log *log)
{
	if (log->fd >= 0)
		close(log->fd);
	log->fd = -1;
}
