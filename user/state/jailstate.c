// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* jailstate.c - /run/ebpfjail/ID: what a running jail leaves for others
 *
 * A jail whose supervisor was killed (SIGKILL, OOM) leaves its cgroup, with
 * the socket hooks still attached, and possibly processes of the agent.
 * They stay filtered; the next run finds the dead supervisor here and
 * removes the cgroup (killing what is left) and the state.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "builtin.h"
#include "cgroup.h"
#include "control.h"
#include "jailstate.h"
#include "log.h"

void jailstate_new_id(char id[JAIL_ID_LEN + 1])
{
	unsigned char r[JAIL_ID_LEN / 2];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		unsigned int seed = (unsigned int)getpid() ^ (unsigned int)time(NULL);

		for (i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)rand_r(&seed);
	}
	for (i = 0; i < sizeof(r); i++)
		snprintf(id + 2 * i, 3, "%02x", r[i]);
}

/* start_time() - field 22 of /proc/PID/stat, or 0 if there is no such process */
static unsigned long long start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* after "pid (comm)": field 3 is the state */
		for (field = 3, p = strtok(p + 1, " "); p && field < 22; field++)
			p = strtok(NULL, " ");
		if (p)
			t = strtoull(p, NULL, 10);
	}
	fclose(f);
	return t;
}

/* pid_ns() - the inode of our PID namespace, or 0 */
static unsigned long long pid_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : (unsigned long long)st.st_ino;
}

/* open_state() - a state file, as a stream, never through a link and never
 * waiting: a FIFO put there (a rootless agent is the user who owns the
 * state) would stall the supervisor, or `ebpfjail status`, for good. A
 * file that is not a regular one is refused. Return: it, or NULL with
 * errno set. */
static FILE *open_state(const char *path, bool write)
{
	int flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
		    (write ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY);
	int fd = open(path, flags, 0644);
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	f = fdopen(fd, write ? "w" : "r");
	if (!f)
		close(fd);
	return f;
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = open_state(path, true);
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

static int read_file(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = open_state(path, false);
	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return 0;
}

const char *jailstate_dir(void)
{
	static char dir[4096];
	const char *run = getenv("XDG_RUNTIME_DIR");

	if (dir[0])
		return dir;
	if (geteuid() == 0)
		snprintf(dir, sizeof(dir), "%s", JAILSTATE_DIR);
	else if (run && run[0] == '/' && strlen(run) < sizeof(dir) - 16)
		snprintf(dir, sizeof(dir), "%s/ebpfjail", run);
	else
		snprintf(dir, sizeof(dir), "/run/user/%u/ebpfjail", (unsigned)geteuid());
	return dir;
}

const char *jailstate_others_hint(void)
{
	struct dirent *de;
	bool some = false;
	DIR *d;

	if (geteuid() == 0)
		return "";
	d = opendir(JAILSTATE_DIR);
	while (d && !some && (de = readdir(d)))
		some = de->d_name[0] != '.';
	if (d)
		closedir(d);
	return some ? " of yours; the running jails are root's: run it with sudo" : "";
}

int jailstate_create(const char *id, pid_t supervisor, char *dir, size_t size)
{
	char text[64], tmp[PATH_MAX];
	struct stat st;
	int err;

	/* Root's is for every user to read (status); a user's is its own. */
	if (mkdir(jailstate_dir(), geteuid() ? 0700 : 0755) && errno != EEXIST)
		return -errno;
	/* The attack: a runtime directory someone else made (a shared
	 * $XDG_RUNTIME_DIR) would hand them the control socket. */
	if (geteuid() && (lstat(jailstate_dir(), &st) || !S_ISDIR(st.st_mode) ||
			  st.st_uid != geteuid() || (st.st_mode & 077)))
		return -EACCES;
	/* Built under a dot name and renamed: a concurrent cleanup never
	 * sees a jail without its supervisor and takes it for dead. */
	snprintf(tmp, sizeof(tmp), "%s/.%s", jailstate_dir(), id);
	snprintf(dir, size, "%s/%s", jailstate_dir(), id);
	if (mkdir(tmp, 0700))
		return -errno;
	snprintf(text, sizeof(text), "%d %llu %llu\n", supervisor, start_time(supervisor), pid_ns());
	err = write_file(tmp, "supervisor", text);
	if (!err && rename(tmp, dir))
		err = -errno;
	if (err)
		jailstate_remove(tmp);
	return err;
}

int jailstate_set_cgroup(const char *dir, const char *cgroup_path)
{
	char text[4200];

	snprintf(text, sizeof(text), "%s\n", cgroup_path);
	return write_file(dir, "cgroup", text);
}

void jailstate_remove(const char *dir)
{
	static const char *const files[] = {
		"supervisor", "cgroup", "resolv.conf", "denials.jsonl", "pasta.log",
		CONTROL_SOCKET_NAME, CONTROL_SOCKET_TMP_NAME, "status", "status.tmp",
	};
	char path[512];
	size_t i;

	if (!dir[0])
		return;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	if (rmdir(dir) && errno != ENOENT)
		log_warn("cannot remove %s: %s", dir, strerror(errno));
}

/* supervisor_alive() - may DIR's jail still run? A supervisor of another
 * PID namespace (a /run shared with a container) cannot be looked up
 * here: its jail counts as alive, never ours to remove. */
static bool supervisor_alive(const char *dir)
{
	char text[96];
	unsigned long long started, ns = 0;
	int pid, n;

	if (read_file(dir, "supervisor", text, sizeof(text)))
		return false;
	n = sscanf(text, "%d %llu %llu", &pid, &started, &ns);
	if (n < 2)
		return false;
	if (n == 3 && ns != pid_ns())
		return true;
	return pid > 0 && start_time(pid) == started && started != 0;
}

void jailstate_cleanup_dead(void)
{
	char dir[512], cg[4400] = "";
	struct dirent *de;
	DIR *d;

	/* Only what a state names: a cgroup under some ebpfjail/ directory
	 * that no state here names may be another container's running jail
	 * (its /run is its own, the cgroup tree may be shared). Its state is
	 * written before its cgroup exists, so nothing of ours lacks one. */
	d = opendir(jailstate_dir());
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", jailstate_dir(), de->d_name);
		if (supervisor_alive(dir))
			continue;
		log_info("removing the leftovers of jail %s (its supervisor is gone)", de->d_name);
		if (read_file(dir, "cgroup", cg, sizeof(cg)) == 0 && cg[0] &&
		    cgroup_destroy(cg) != 0)
			continue; /* keep the state: the next run tries again */
		jailstate_remove(dir);
	}
	if (d)
		closedir(d);
}

bool jailstate_denial(unsigned int reason)
{
	return (reason >= REASON_FIRST_DENY && reason < REASON_COUNT) || reason == REASON_DNS;
}

int jailstate_write_status(const char *dir, const struct jail_status *st)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	unsigned int i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/status.tmp", dir);
	snprintf(path, sizeof(path), "%s/status", dir);
	f = open_state(tmp, true);
	if (!f)
		return -errno;
	fprintf(f, "agent %d\nuid %u\nuser %s\nstarted %lld\ncommand %s\nallowed %llu\nlost %llu\n",
		st->agent, st->uid, st->user[0] ? st->user : "-", st->started, st->command,
		st->allowed, st->lost);
	for (i = 0; i < REASON_COUNT; i++)
		if (jailstate_denial(i) && st->denied[i])
			fprintf(f, "denied %s %llu\n", reason_name(i), st->denied[i]);
	for (i = 0; i < st->n_relays; i++)
		fprintf(f, "relay %s %u %llu %llu %llu\n", st->relays[i].kind, st->relays[i].port,
			st->relays[i].open, st->relays[i].total, st->relays[i].refused);
	if (st->temporary[0])
		fprintf(f, "temporary %s\n", st->temporary);
	if (st->names[0])
		fprintf(f, "names %s\n", st->names);
	if (st->engine[0])
		fprintf(f, "engine %s\n", st->engine);
	if (st->protections[0])
		fprintf(f, "protections %s\n", st->protections);
	if (fclose(f) || rename(tmp, path))
		return -errno;
	return 0;
}

int jailstate_read_status(const char *dir, struct jail_status *st)
{
	char path[PATH_MAX], *line = NULL, word[32];
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/status", dir);
	f = open_state(path, false);
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *value = strchr(line, ' ');
		unsigned int i;

		line[strcspn(line, "\n")] = '\0';
		if (!value)
			continue;
		*value++ = '\0';
		if (!strcmp(line, "agent"))
			st->agent = atoi(value);
		else if (!strcmp(line, "uid"))
			st->uid = (unsigned int)strtoul(value, NULL, 10);
		else if (!strcmp(line, "user"))
			snprintf(st->user, sizeof(st->user), "%s", value);
		else if (!strcmp(line, "started"))
			st->started = strtoll(value, NULL, 10);
		else if (!strcmp(line, "command"))
			snprintf(st->command, sizeof(st->command), "%s", value);
		else if (!strcmp(line, "allowed"))
			st->allowed = strtoull(value, NULL, 10);
		else if (!strcmp(line, "lost"))
			st->lost = strtoull(value, NULL, 10);
		else if (!strcmp(line, "temporary"))
			snprintf(st->temporary, sizeof(st->temporary), "%s", value);
		else if (!strcmp(line, "names"))
			snprintf(st->names, sizeof(st->names), "%s", value);
		else if (!strcmp(line, "engine"))
			snprintf(st->engine, sizeof(st->engine), "%s", value);
		else if (!strcmp(line, "protections"))
			snprintf(st->protections, sizeof(st->protections), "%s", value);
		else if (!strcmp(line, "denied") || !strcmp(line, "relay")) {
			unsigned long long a = 0, b = 0, c = 0;
			unsigned int port = 0;

			if (!strcmp(line, "denied") && sscanf(value, "%31s %llu", word, &a) == 2) {
				for (i = 0; i < REASON_COUNT; i++)
					if (jailstate_denial(i) && !strcmp(word, reason_name(i)))
						st->denied[i] = a;
			} else if (sscanf(value, "%15s %u %llu %llu %llu", word, &port, &a, &b, &c) >= 4 &&
				   st->n_relays < STATUS_RELAYS_MAX) {
				memcpy(st->relays[st->n_relays].kind, word,
				       sizeof(st->relays[0].kind));
				st->relays[st->n_relays].kind[sizeof(st->relays[0].kind) - 1] = '\0';
				st->relays[st->n_relays].port = port;
				st->relays[st->n_relays].open = a;
				st->relays[st->n_relays].total = b;
				st->relays[st->n_relays].refused = c;
				st->n_relays++;
			}
		}
	}
	free(line);
	fclose(f);
	return 0;
}

int jailstate_list(struct jail_status **out, size_t *n)
{
	struct jail_status *list = NULL;
	struct dirent *de;
	char dir[512], text[64];
	DIR *d;

	*out = NULL;
	*n = 0;
	d = opendir(jailstate_dir());
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct jail_status *st, *grown;

		if (de->d_name[0] == '.' || strlen(de->d_name) != JAIL_ID_LEN)
			continue;
		grown = reallocarray(list, *n + 1, sizeof(*list));
		if (!grown)
			break;
		list = grown;
		st = &list[(*n)++];
		memset(st, 0, sizeof(*st));
		snprintf(st->id, sizeof(st->id), "%s", de->d_name);
		snprintf(dir, sizeof(dir), "%s/%s", jailstate_dir(), de->d_name);
		st->alive = supervisor_alive(dir);
		if (read_file(dir, "supervisor", text, sizeof(text)) == 0)
			st->supervisor = atoi(text);
		jailstate_read_status(dir, st);
	}
	closedir(d);
	*out = list;
	return 0;
}
