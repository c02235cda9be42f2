// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* journal.c - the audit records in the systemd journal (journal.h)
 *
 * The only file that includes libsystemd's headers: <syslog.h>, which
 * they include, takes log.h's names (LOG_ERR...).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <systemd/sd-journal.h>

#include "audit.h"
#include "journal.h"

struct journal_reader {
	sd_journal *j;
};

int journal_send(const struct iovec *iov, size_t n)
{
	return sd_journal_sendv(iov, (int)n);
}

int journal_listening(const char *socket_path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, err = 0;

	if (strlen(socket_path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, socket_path, strlen(socket_path) + 1);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)&sun, sizeof(sun)))
		err = -errno;
	close(fd);
	return err;
}

int journal_open(const char *jail, time_t since, struct journal_reader **out)
{
	struct journal_reader *r = calloc(1, sizeof(*r));
	char match[64];
	int err;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	err = sd_journal_open(&r->j, SD_JOURNAL_LOCAL_ONLY);
	/* A user may read no journal file at all: that is no "nothing
	 * recorded". */
	if (!err && sd_journal_has_runtime_files(r->j) <= 0 &&
	    sd_journal_has_persistent_files(r->j) <= 0)
		err = -EACCES;
	if (!err)
		err = sd_journal_add_match(r->j, "SYSLOG_IDENTIFIER=ebpfjail", 0);
	/* The native protocol only: what syslog(3) or a stdout stream sent
	 * with the identifier (the agent may reach those) is no record. */
	if (!err)
		err = sd_journal_add_match(r->j, "_TRANSPORT=journal", 0);
	/* Entries root sent (a jail of root's), or the reader's own uid (a
	 * rootless jail's): the attack is another local user who sends
	 * entries with ebpfjail's identifier and fields, which a file of
	 * root's never held. _UID is journald's, from the socket's
	 * credentials: the sender cannot choose it. Two matches of one field
	 * are either one. A reader's own entries are any of its processes'
	 * (as a rootless jail's file log is the user's to write): `audit` as
	 * root shows root's alone. */
	if (!err)
		err = sd_journal_add_match(r->j, "_UID=0", 0);
	if (!err && getuid() != 0) {
		snprintf(match, sizeof(match), "_UID=%u", (unsigned)getuid());
		err = sd_journal_add_match(r->j, match, 0);
	}
	if (!err && jail) {
		snprintf(match, sizeof(match), "EBPFJAIL_JAIL=%s", jail);
		err = sd_journal_add_match(r->j, match, 0);
	}
	if (!err)
		err = since ? sd_journal_seek_realtime_usec(r->j, (uint64_t)since * 1000000ULL)
			    : sd_journal_seek_head(r->j);
	if (err) {
		journal_close(r);
		return err;
	}
	*out = r;
	return 0;
}

int journal_next(struct journal_reader *r, char *line, size_t size)
{
	const size_t skip = sizeof(AUDIT_JOURNAL_RECORD); /* "NAME=" */
	const void *data;
	size_t len;
	int err;

	for (;;) {
		err = sd_journal_next(r->j);
		if (err <= 0)
			return err;
		err = sd_journal_get_data(r->j, AUDIT_JOURNAL_RECORD, &data, &len);
		if (err == -ENOENT || (!err && (len <= skip || len - skip + 2 > size)))
			continue; /* not one of ours, or not whole */
		if (err)
			return err;
		memcpy(line, (const char *)data + skip, len - skip);
		line[len - skip] = '\n';
		line[len - skip + 1] = '\0';
		return 1;
	}
}

int journal_wait(struct journal_reader *r, int timeout_ms)
{
	int err = sd_journal_wait(r->j, timeout_ms < 0 ? (uint64_t)-1
						       : (uint64_t)timeout_ms * 1000ULL);

	return err < 0 ? err : 0;
}

void journal_close(struct journal_reader *r)
{
	if (!r)
		return;
	if (r->j)
		sd_journal_close(r->j);
	free(r);
}
