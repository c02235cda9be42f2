// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgroup.c - find the cgroup v2 hierarchy; make, fill and destroy jail cgroups */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "cgroup.h"
#include "log.h"

/* Decode mountinfo's octal escapes ("\040" is a space) in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

int cgroup_parse_mountinfo(FILE *mountinfo, char *buf, size_t size, char *mnt_root, size_t root_size)
{
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER */
	while (getline(&line, &cap, mountinfo) > 0) {
		char *save = NULL, *field, *mountpoint = NULL, *root = NULL;
		int i;

		field = strtok_r(line, " \n", &save);
		for (i = 1; field && i < 5; i++) {
			field = strtok_r(NULL, " \n", &save);
			if (i == 3)
				root = field;
		}
		mountpoint = field;
		while (field && strcmp(field, "-"))
			field = strtok_r(NULL, " \n", &save);
		field = field ? strtok_r(NULL, " \n", &save) : NULL;
		if (!mountpoint || !field || strcmp(field, "cgroup2"))
			continue;
		unescape(mountpoint);
		unescape(root);
		ret = strlen(mountpoint) < size ? 0 : -ENAMETOOLONG;
		if (!ret)
			strcpy(buf, mountpoint);
		if (!ret && mnt_root)
			ret = (size_t)snprintf(mnt_root, root_size, "%s", root) < root_size ?
				      0 : -ENAMETOOLONG;
		break;
	}
	free(line);
	return ret;
}

int cgroup_v2_root(char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int ret;

	if (!f)
		return -errno;
	ret = cgroup_parse_mountinfo(f, buf, size, NULL, 0);
	fclose(f);
	return ret;
}

int cgroup_parse_self(FILE *proc_cgroup, char *buf, size_t size)
{
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	while (getline(&line, &cap, proc_cgroup) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0::/", 4)) {
			ret = (size_t)snprintf(buf, size, "%s", line + 3) < size ? 0 : -ENAMETOOLONG;
			break;
		}
	}
	free(line);
	return ret;
}

int cgroup_own_dir(const char *own, const char *mountpoint, const char *mnt_root, char *buf,
		   size_t size)
{
	size_t n = strlen(mnt_root);

	/* "/" as the mount's root: it shows our cgroup namespace's root.
	 * Another root (a bind mount of a subtree, or "/.." for a mount made
	 * in another cgroup namespace) must hold our cgroup, or we have no
	 * directory of our own in this mount. */
	if (!strcmp(mnt_root, "/"))
		n = 0;
	else if (strncmp(own, mnt_root, n) || (own[n] != '/' && own[n] != '\0'))
		return -ENOENT;
	own += n;
	/* ".." where our cgroup lies outside our cgroup namespace's root */
	if (strstr(own, "/../") || (strlen(own) >= 3 && !strcmp(own + strlen(own) - 3, "/..")))
		return -ENOENT;
	return (size_t)snprintf(buf, size, "%s%s", mountpoint, strcmp(own, "/") ? own : "") < size ?
		       0 : -ENAMETOOLONG;
}

/* holds_self() - is DIR a cgroup2 directory that lists this process?
 * /proc/self/cgroup is not escaped (a v1 name with a newline can forge a
 * "0::" line) and a mount can hide another: only the kernel's own list
 * of members is trusted. */
static bool holds_self(const char *dir)
{
	struct statfs fs;
	bool found = false;
	int fd, procs, pid;
	FILE *f;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	procs = fstatfs(fd, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC ?
			openat(fd, "cgroup.procs", O_RDONLY | O_CLOEXEC) : -1;
	close(fd);
	f = procs >= 0 ? fdopen(procs, "re") : NULL;
	if (!f) {
		if (procs >= 0)
			close(procs);
		return false;
	}
	while (!found && fscanf(f, "%d", &pid) == 1)
		found = pid == getpid();
	fclose(f);
	return found;
}

/* root_owned() - is DIR/cgroup.procs root's (not a delegated subtree's) */
static bool root_owned(const char *dir)
{
	char procs[PATH_MAX + 16];
	struct stat st;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	return stat(procs, &st) == 0 && st.st_uid == 0;
}

/* own_cgroup() - cgroup_self()'s directory, and in @top the mount it is in */
static int own_cgroup(char *buf, size_t size, char *top, size_t top_size)
{
	char own[PATH_MAX], point[PATH_MAX], root[PATH_MAX], dir[PATH_MAX];
	FILE *f;
	int ret;

	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -errno;
	ret = cgroup_parse_self(f, own, sizeof(own));
	fclose(f);
	if (ret)
		return ret;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	/* Every cgroup2 mount: the last one whose directory for our cgroup
	 * really lists us (a container's own mount hides the host's). */
	ret = -ENOENT;
	while (cgroup_parse_mountinfo(f, point, sizeof(point), root, sizeof(root)) == 0) {
		if (cgroup_own_dir(own, point, root, dir, sizeof(dir)) || !holds_self(dir))
			continue;
		ret = (size_t)snprintf(buf, size, "%s", dir) < size ? 0 : -ENAMETOOLONG;
		snprintf(top, top_size, "%s", point);
	}
	fclose(f);
	return ret;
}

int cgroup_self(char *buf, size_t size)
{
	char top[PATH_MAX];

	return own_cgroup(buf, size, top, sizeof(top));
}

int cgroup_own(char *buf, size_t size)
{
	char top[PATH_MAX] = "";
	size_t len;
	int ret;

	ret = own_cgroup(buf, size, top, sizeof(top));
	if (ret)
		return ret;
	/* Up to the nearest cgroup root owns. Below a cgroup a user owns (a
	 * desktop session's delegated user@UID.service), that user's other
	 * processes could move the agent out of its jail's cgroup, away from
	 * the socket hooks: the kernel checks only write access to the
	 * destination's and the common ancestor's cgroup.procs. */
	len = strlen(top);
	while (strlen(buf) > len && !root_owned(buf)) {
		char *slash = strrchr(buf, '/');

		if (!slash || (size_t)(slash - buf) < len)
			break;
		*slash = '\0';
	}
	return root_owned(buf) ? 0 : -EACCES;
}

int cgroup_jail_path(const char *base, const char *id, char *path, size_t size)
{
	return (size_t)snprintf(path, size, "%s/%s/%s", base, CGROUP_JAIL_PARENT, id) < size ?
		       0 : -ENAMETOOLONG;
}

int cgroup_jail_create(const char *path, int *fd)
{
	char parent[PATH_MAX], *slash;
	int tries, err = 0;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	/* The parent goes with its last jail (cgroup_destroy()): one ending
	 * right now may remove it between our two mkdirs, so try again. */
	for (tries = 0; tries < 3; tries++) {
		if (mkdir(parent, 0755) && errno != EEXIST) {
			err = -errno;
			break;
		}
		err = mkdir(path, 0755) ? -errno : 0;
		if (err != -ENOENT)
			break;
	}
	if (err)
		return log_err(err, "cannot create the cgroup %s: %s", path, strerror(-err));
	*fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		err = log_err(-errno, "cannot open the cgroup %s: %s", path, strerror(errno));
		rmdir(path);
		return err;
	}
	return 0;
}

int cgroup_add(int cg_fd, pid_t pid)
{
	char buf[32];
	int fd, err = 0;

	fd = openat(cg_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(buf, sizeof(buf), "%d", pid);
	if (write(fd, buf, strlen(buf)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* kill_listed() - SIGKILL every pid in cgroup.procs (kernels before 5.14). */
static void kill_listed(const char *path)
{
	char procs[4200];
	FILE *f;
	int pid;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	f = fopen(procs, "re");
	if (!f)
		return;
	while (fscanf(f, "%d", &pid) == 1)
		if (pid > 0)
			kill(pid, SIGKILL);
	fclose(f);
}

/* remove_parent_if_empty() - ROOT/ebpfjail goes with the last jail; while
 * another jail lives in it, rmdir fails (EBUSY/ENOTEMPTY) and that is fine. */
static void remove_parent_if_empty(const char *path)
{
	char parent[4096], *slash;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (!slash)
		return;
	*slash = '\0';
	slash = strrchr(parent, '/');
	if (slash && !strcmp(slash + 1, CGROUP_JAIL_PARENT))
		rmdir(parent);
}

void cgroup_kill(const char *path)
{
	char file[4200];
	int fd;

	/* cgroup.kill (5.14+) kills atomically, forks included. The pid
	 * list is only the fallback: a pid read from it may be reused by an
	 * unrelated process before the kill() lands. */
	snprintf(file, sizeof(file), "%s/cgroup.kill", path);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && write(fd, "1", 1) == 1) {
		close(fd);
		return;
	}
	log_debug("cgroup.kill of %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	kill_listed(path);
}

int cgroup_freeze(const char *path, bool frozen)
{
	char file[4200];
	int fd, err = 0;

	snprintf(file, sizeof(file), "%s/cgroup.freeze", path);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, frozen ? "1" : "0", 1) != 1)
		err = -errno;
	close(fd);
	return err;
}

int cgroup_destroy(const char *path)
{
	struct timespec step = { 0, 1000 * 1000 };
	int i;

	cgroup_kill(path);
	for (i = 0; i < 5000; i++) { /* at most ~5 s */
		if (rmdir(path) == 0 || errno == ENOENT) {
			remove_parent_if_empty(path);
			return 0;
		}
		if (errno != EBUSY)
			break;
		kill_listed(path);
		nanosleep(&step, NULL);
	}
	return log_err(-errno, "cannot remove the cgroup %s: %s", path, strerror(errno));
}
