// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* trust.c - who may loosen the jail: files the agent could have written,
 * and the approvals `ebpfjail trust` keeps for them
 *
 * Theory of operation
 * -------------------
 * The agent runs as its user, so it can write that user's configuration
 * (docs/DESIGN.md, "Who may loosen the jail"). A file counts as
 * agent-writable unless it and every directory above it, as written and
 * with links resolved, belong to root and are writable by nobody else: then
 * no other uid can change or replace it, whatever it races. Under
 * `--user root` the agent is root (without capabilities, but owner of every
 * root-owned file), so every file counts.
 *
 * An approval is a small text file TRUST_DIR/UID/HASH (HASH of the file's
 * resolved path, which the record repeats), holding the loosening lines
 * root approved for that file and agents of that uid. It is trusted only if
 * root alone could have written it, by the same rule as a configuration
 * file. Writing replaces it in one rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trust.h"

/* owner_is_root() - @uid, as stat() gives it here, is root's. In a
 * rootless jail's user namespace (the supervisor joins it, netns.h) only
 * the user's own uid is mapped, and root's files read as the overflow uid,
 * as does every other unmapped owner's: no such owner is the agent, who
 * can only ever make files of its own uid, and cannot write another's
 * unless its mode lets it (which the callers check). So there "root's"
 * means "no uid the agent has". */
static bool owner_is_root(uid_t uid)
{
	unsigned long inside, outside, count, overflow = 0;
	bool root_mapped = false;
	FILE *f;

	if (uid == 0)
		return true;
	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return false; /* no map to read: no exception */
	while (fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3)
		root_mapped |= inside == 0;
	fclose(f);
	if (root_mapped)
		return false;
	f = fopen("/proc/sys/kernel/overflowuid", "re");
	if (!f || fscanf(f, "%lu", &overflow) != 1)
		overflow = 0;
	if (f)
		fclose(f);
	return overflow && uid == (uid_t)overflow;
}

bool trust_root_only(const struct stat *st, bool dir)
{
	if (!owner_is_root(st->st_uid))
		return false;
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return true;
	return dir && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);
}

/* dirs_root_only() - every directory from / to @path's parent is root's
 * alone, and so is @path itself if it is a link. A link on the way must be
 * root's (in a sticky directory such as /tmp, another user's link would
 * choose which of root's files is read); it is followed by the next step's
 * lstat(), and the caller checks the resolved path too, which covers where
 * the last one points. */
static bool dirs_root_only(const char *path)
{
	char prefix[PATH_MAX];
	const char *slash;
	struct stat st;

	if (path[0] != '/' || strlen(path) >= sizeof(prefix))
		return false;
	for (slash = path; slash; slash = strchr(slash + 1, '/')) {
		size_t n = slash == path ? 1 : (size_t)(slash - path);

		memcpy(prefix, path, n);
		prefix[n] = '\0';
		if (lstat(prefix, &st))
			return false;
		if (S_ISLNK(st.st_mode) ? !owner_is_root(st.st_uid) : !trust_root_only(&st, true))
			return false;
	}
	return lstat(path, &st) || !S_ISLNK(st.st_mode) || owner_is_root(st.st_uid);
}

/* absolute() - @path from / (relative ones from the working directory) */
static int absolute(const char *path, char *buf, size_t size)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return (size_t)snprintf(buf, size, "%s", path) < size ? 0 : -ENAMETOOLONG;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	return (size_t)snprintf(buf, size, "%s/%s", cwd, path) < size ? 0 : -ENAMETOOLONG;
}

bool trust_path_root_only(const char *path)
{
	char literal[PATH_MAX], *resolved;
	bool root_only;

	if (absolute(path, literal, sizeof(literal)))
		return false;
	resolved = realpath(path, NULL);
	root_only = resolved && dirs_root_only(literal) && dirs_root_only(resolved);
	free(resolved);
	return root_only;
}

bool trust_agent_writable(const char *path, const struct stat *st, uid_t agent_uid)
{
	return agent_uid == 0 || !trust_root_only(st, false) || !trust_path_root_only(path);
}

/* record_path() - TRUST_DIR/UID/HASH for @path as named (made absolute, not
 * resolved: an approval is for the file the configuration names, and a link
 * the agent re-points must not carry another file's approval over). FNV-1a
 * 64 of the path names the record, which repeats the path against
 * collisions. */
static int record_path(const char *path, uid_t agent_uid, char *buf, size_t size,
		       char *canonical, size_t canonical_size)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p;
	int err = absolute(path, canonical, canonical_size);

	if (err)
		return err;
	for (p = canonical; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 0x100000001b3ULL;
	}
	snprintf(buf, size, "%s/%u/%016llx", TRUST_DIR, (unsigned int)agent_uid,
		 (unsigned long long)h);
	return 0;
}

char *trust_record_format(const char *path, uid_t agent_uid, char *const *lines, size_t n_lines)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fprintf(f,
		"# ebpfjail trust: the loosening lines of this file approved for agents of uid %u\n"
		"path %s\n",
		(unsigned int)agent_uid, path);
	for (i = 0; i < n_lines; i++)
		fprintf(f, "line %s\n", lines[i]);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

int trust_record_parse(const char *data, size_t len, const char *path,
		       struct config_approval *approval)
{
	const char *end = data + len, *line, *nl;
	bool path_seen = false;

	for (line = data; line < end; line = nl + 1) {
		size_t n;

		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			return -EINVAL; /* cut short: not what trust_save() wrote */
		n = (size_t)(nl - line);
		if (n == 0 || line[0] == '#')
			continue;
		if (n > 5 && !strncmp(line, "path ", 5)) {
			if (n - 5 != strlen(path) || memcmp(line + 5, path, n - 5))
				return -EINVAL;
			path_seen = true;
		} else if (n > 5 && !strncmp(line, "line ", 5)) {
			char **grown = reallocarray(approval->lines, approval->n_lines + 1,
						    sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			approval->lines = grown;
			grown[approval->n_lines] = strndup(line + 5, n - 5);
			if (!grown[approval->n_lines])
				return -ENOMEM;
			approval->n_lines++;
		} else {
			return -EINVAL;
		}
	}
	return path_seen ? 0 : -EINVAL;
}

void trust_approval_free(struct config_approval *approval)
{
	size_t i;

	for (i = 0; i < approval->n_lines; i++)
		free(approval->lines[i]);
	free(approval->lines);
	approval->lines = NULL;
	approval->n_lines = 0;
}

int trust_load(const char *path, uid_t agent_uid, struct config_approval *approval)
{
	char record[PATH_MAX], canonical[PATH_MAX], *data = NULL;
	struct stat st;
	ssize_t n;
	int fd, err;

	memset(approval, 0, sizeof(*approval));
	if (record_path(path, agent_uid, record, sizeof(record), canonical, sizeof(canonical)))
		return 0; /* a file that cannot be resolved has no approval */
	fd = open(record, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	/* An approval somebody but root could have planted approves
	 * nothing. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !trust_root_only(&st, false) ||
	    !dirs_root_only(record) || st.st_size > (off_t)TRUST_RECORD_MAX) {
		close(fd);
		return 0;
	}
	data = malloc((size_t)st.st_size + 1);
	if (!data) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, data, (size_t)st.st_size);
	close(fd);
	err = n == st.st_size ? trust_record_parse(data, (size_t)n, canonical, approval) : -EIO;
	free(data);
	if (err) {
		trust_approval_free(approval);
		return err == -EINVAL ? 0 : err;
	}
	return 0;
}

int trust_judge(const char *path, const struct stat *st, uid_t agent_uid,
		struct config_approval *approval)
{
	bool user_writable = trust_agent_writable(path, st, TRUST_ANY_USER);
	int err = 0;

	memset(approval, 0, sizeof(*approval));
	/* An agent run as root owns root's files, the approvals included: it
	 * could write its own. For it, no file loosens: flags do. */
	if (agent_uid != 0 && user_writable)
		err = trust_load(path, agent_uid, approval);
	approval->user_writable = user_writable;
	approval->agent_writable = agent_uid == 0 || user_writable;
	return err;
}

int trust_withdraw_unfound(const char *path, uid_t agent_uid,
			   const struct config_approval *approval)
{
	char **kept;
	size_t n = 0, i;
	int err;

	if (!approval->found || !approval->n_lines)
		return 0;
	kept = calloc(approval->n_lines, sizeof(*kept));
	if (!kept)
		return -ENOMEM;
	for (i = 0; i < approval->n_lines; i++)
		if (approval->found[i])
			kept[n++] = approval->lines[i];
	err = n == approval->n_lines ? 0 : trust_save(path, agent_uid, kept, n);
	free(kept);
	return err ? err : (int)(approval->n_lines - n);
}

/* make_dir() - @path as a directory only root may change, created if absent */
static int make_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	if (stat(path, &st))
		return -errno;
	return S_ISDIR(st.st_mode) && trust_root_only(&st, true) ? 0 : -EPERM;
}

int trust_save(const char *path, uid_t agent_uid, char *const *lines, size_t n_lines)
{
	char record[PATH_MAX], canonical[PATH_MAX], tmp[PATH_MAX + 16], *text, *slash;
	size_t len, i;
	int fd, err;

	err = record_path(path, agent_uid, record, sizeof(record), canonical, sizeof(canonical));
	if (err)
		return err;
	if (strchr(canonical, '\n'))
		return -EINVAL;
	for (i = 0; i < n_lines; i++)
		if (strchr(lines[i], '\n'))
			return -EINVAL;
	/* TRUST_DIR's parents and TRUST_DIR/UID, each root's alone. */
	for (slash = strchr(record + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		err = make_dir(record);
		*slash = '/';
		if (err)
			return err;
	}
	if (!dirs_root_only(record))
		return -EPERM;
	text = trust_record_format(canonical, agent_uid, lines, n_lines);
	if (!text)
		return -ENOMEM;
	len = strlen(text);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", record);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		free(text);
		return -errno;
	}
	errno = 0;
	/* Approvals are not secret: the user's own `ebpfjail config` reads
	 * them. */
	if (fchmod(fd, 0644) || write(fd, text, len) != (ssize_t)len || fsync(fd))
		err = errno ? -errno : -EIO;
	free(text);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, record))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
