// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgroup.c - find the cgroup v2 hierarchy */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

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

int cgroup_parse_mountinfo(FILE *mountinfo, char *buf, size_t size)
{
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER */
	while (getline(&line, &cap, mountinfo) > 0) {
		char *save = NULL, *field, *mountpoint = NULL;
		int i;

		field = strtok_r(line, " \n", &save);
		for (i = 1; field && i < 5; i++)
			field = strtok_r(NULL, " \n", &save);
		mountpoint = field;
		while (field && strcmp(field, "-"))
			field = strtok_r(NULL, " \n", &save);
		field = field ? strtok_r(NULL, " \n", &save) : NULL;
		if (!mountpoint || !field || strcmp(field, "cgroup2"))
			continue;
		unescape(mountpoint);
		ret = strlen(mountpoint) < size ? 0 : -ENAMETOOLONG;
		if (!ret)
			strcpy(buf, mountpoint);
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
	ret = cgroup_parse_mountinfo(f, buf, size);
	fclose(f);
	return ret;
}
