// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* attack_helper.c - what test_attack.sh needs beyond probe: system calls
 * with no exec in between (a user namespace keeps its capabilities only
 * until the next exec) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

/* userns-control PATH LINE: unshare a user namespace (full CapEff in it, no
 * exec), connect to PATH, send LINE, print the reply */
static int userns_control(const char *path, const char *line)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[512];
	ssize_t n;
	int fd;

	if (unshare(CLONE_NEWUSER)) {
		printf("unshare %s\n", strerror(errno));
		return 1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		printf("connect %s\n", strerror(errno));
		return 1;
	}
	if (write(fd, line, strlen(line)) < 0 || write(fd, "\n", 1) < 0)
		return 1;
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		printf("reply %s", buf);
	}
	return 0;
}

#include <sys/mount.h>
#include <dirent.h>
/* mnt: in a new user+mount namespace, try to uncover the host's /tmp */
static int mnt(void)
{
	int fd;
	DIR *d;
	struct dirent *e;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) { printf("unshare %s\n", strerror(errno)); return 1; }
	printf("umount2-tmp %s\n", umount2("/tmp", MNT_DETACH) ? strerror(errno) : "ok");
	printf("umount2-dockersock %s\n", umount2("/dev/shm", MNT_DETACH) ? strerror(errno) : "ok");
	fd = syscall(SYS_open_tree, AT_FDCWD, "/", 1 /* OPEN_TREE_CLONE */);
	printf("open_tree-root %s\n", fd < 0 ? strerror(errno) : "ok");
	if (fd >= 0) {
		int t = openat(fd, "tmp", O_RDONLY | O_DIRECTORY);
		if (t >= 0 && (d = fdopendir(t)))
			while ((e = readdir(d)))
				printf("  host-tmp: %s\n", e->d_name);
	}
	fd = syscall(SYS_open_tree, AT_FDCWD, "/tmp", 1 | 0x8000 /* AT_RECURSIVE */);
	printf("open_tree-tmp-rec %s\n", fd < 0 ? strerror(errno) : "ok");
	fd = syscall(SYS_fsopen, "tmpfs", 0);
	printf("fsopen %s\n", fd < 0 ? strerror(errno) : "ok");
	return 0;
}

#include <sys/ioctl.h>
#include <termios.h>
/* x32-tiocsti: TIOCSTI through the x32 system call numbers */
static int x32(void)
{
	char c = 'x';
	long r = syscall(0x40000000 + 514, 0, TIOCSTI, &c);
	printf("x32-ioctl %s\n", r < 0 ? strerror(errno) : "ok");
	r = syscall(16, 0, TIOCCONS, 0);
	printf("tioccons %s\n", r < 0 ? strerror(errno) : "ok");
	int d = 3; /* N_SLIP... N_MOUSE=2 */
	r = syscall(16, 0, TIOCSETD, &d);
	printf("tiocsetd %s\n", r < 0 ? strerror(errno) : "ok");
	return 0;
}

#include <sys/shm.h>
/* shm-poke ID: attach the SysV segment ID and write "agent" into it */
static int shm_poke(int id)
{
	char *p = shmat(id, NULL, 0);

	if (p == (void *)-1) {
		printf("shm-poke %s\n", strerror(errno));
		return 1;
	}
	memcpy(p, "agent", 6);
	printf("shm-poke ok\n");
	return 0;
}

/* shm-read ID: what the segment holds */
static int shm_read(int id)
{
	char *p = shmat(id, NULL, SHM_RDONLY);

	if (p == (void *)-1)
		return 1;
	printf("%.6s\n", p);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "shm-poke"))
		return shm_poke(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "shm-read"))
		return shm_read(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "tty")) {
		int d = 2;
		printf("tioccons %s\n", ioctl(0, TIOCCONS, 0) ? strerror(errno) : "ok");
		printf("tiocsetd %s\n", ioctl(0, TIOCSETD, &d) ? strerror(errno) : "ok");
		d = 0;
		ioctl(0, TIOCSETD, &d);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "x32"))
		return x32();
	if (argc == 2 && !strcmp(argv[1], "mnt"))
		return mnt();
	if (argc == 4 && !strcmp(argv[1], "userns-control"))
		return userns_control(argv[2], argv[3]);
	fprintf(stderr, "usage\n");
	return 2;
}
