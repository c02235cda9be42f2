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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "cgroup.h"
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

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

static int read_file(const char *dir, const char *name, char *buf, size_t size)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return 0;
}

int jailstate_create(const char *id, pid_t supervisor, char *dir, size_t size)
{
	char text[64], tmp[512];
	int err;

	if (mkdir(JAILSTATE_DIR, 0755) && errno != EEXIST)
		return -errno;
	/* Built under a dot name and renamed: a concurrent cleanup never
	 * sees a jail without its supervisor and takes it for dead. */
	snprintf(tmp, sizeof(tmp), "%s/.%s", JAILSTATE_DIR, id);
	snprintf(dir, size, "%s/%s", JAILSTATE_DIR, id);
	if (mkdir(tmp, 0700))
		return -errno;
	snprintf(text, sizeof(text), "%d %llu\n", supervisor, start_time(supervisor));
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
	static const char *const files[] = { "supervisor", "cgroup", "resolv.conf", "pasta.log" };
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

static bool supervisor_alive(const char *dir)
{
	char text[64];
	unsigned long long started;
	int pid;

	if (read_file(dir, "supervisor", text, sizeof(text)) ||
	    sscanf(text, "%d %llu", &pid, &started) != 2)
		return false;
	return pid > 0 && start_time(pid) == started && started != 0;
}

void jailstate_cleanup_dead(const char *cgroup_root)
{
	char dir[512], cg[4400] = "", parent[4096];
	struct dirent *de;
	DIR *d;

	d = opendir(JAILSTATE_DIR);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", JAILSTATE_DIR, de->d_name);
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

	/* Cgroups no state names: their run died before recording them. */
	snprintf(parent, sizeof(parent), "%s/%s", cgroup_root, CGROUP_JAIL_PARENT);
	d = opendir(parent);
	while (d && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", JAILSTATE_DIR, de->d_name);
		snprintf(cg, sizeof(cg), "%s/%s", parent, de->d_name);
		if (stat(cg, &st) || !S_ISDIR(st.st_mode) || stat(dir, &st) == 0)
			continue;
		log_info("removing the leftover cgroup %s", cg);
		cgroup_destroy(cg);
	}
	if (d)
		closedir(d);
}
