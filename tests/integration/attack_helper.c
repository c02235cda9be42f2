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
#include <sys/stat.h>

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
/* shm-poke ID [TEXT]: attach the SysV segment ID and write TEXT (at most
 * 6 bytes with its NUL; "agent" if not given) into it */
static int shm_poke(int id, const char *text)
{
	char *p = shmat(id, NULL, 0);

	if (p == (void *)-1) {
		printf("shm-poke %s\n", strerror(errno));
		return 1;
	}
	strncpy(p, text, 6);
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

/* cgroup-mount: a user, mount and cgroup namespace of our own (uid 0
 * mapped to itself: a root agent's euid), cgroup2 mounted afresh; what it
 * shows, and cgroup v1 mounted there */
static int cgroup_mount(void)
{
	const char *dir = "/tmp/atk-cg";
	struct dirent *e;
	char map[64];
	DIR *d;
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP)) {
		printf("unshare %s\n", strerror(errno));
		return 1;
	}
	fd = open("/proc/self/setgroups", O_WRONLY);
	if (fd >= 0) { (void)!write(fd, "deny", 4); close(fd); }
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)getuid());
	fd = open("/proc/self/uid_map", O_WRONLY);
	if (fd < 0 || write(fd, map, strlen(map)) < 0) printf("uid_map %s\n", strerror(errno));
	mkdir(dir, 0755);
	if (mount("cgroup2", dir, "cgroup2", 0, NULL)) {
		printf("cgroup2-mount %s\n", strerror(errno));
	} else {
		printf("cgroup2-mount ok\n");
		if ((d = opendir(dir)))
			while ((e = readdir(d)))
				if (!strcmp(e->d_name, "ebpfjail") || strstr(e->d_name, ".slice") ||
				    strstr(e->d_name, ".scope"))
					printf("host-cgroup: %s\n", e->d_name);
		umount2(dir, MNT_DETACH);
	}
	if (mount("cgroup", dir, "cgroup", 0, "none,name=systemd")) {
		printf("cgroup1-mount %s\n", strerror(errno));
		return 0;
	}
	printf("cgroup1-mount ok\n");
	/* the host's whole name=systemd hierarchy? (the init never left its
	 * root there, so the cgroup namespace is rooted at the host's root) */
	if ((d = opendir(dir)))
		while ((e = readdir(d)))
			if (e->d_type == DT_DIR && e->d_name[0] != '.')
				printf("v1-sees: %s\n", e->d_name);
	snprintf(map, sizeof(map), "%s/atk-escape", dir);
	printf("v1-mkdir %s\n", mkdir(map, 0755) ? strerror(errno) : "ok");
	snprintf(map, sizeof(map), "%s/atk-escape/cgroup.procs", dir);
	fd = open(map, O_WRONLY);
	printf("v1-move %s\n", fd < 0 || write(fd, "0", 1) < 0 ? strerror(errno) : "ok");
	snprintf(map, sizeof(map), "%s/atk-escape/notify_on_release", dir);
	fd = open(map, O_WRONLY);
	printf("v1-notify %s\n", fd < 0 || write(fd, "1", 1) < 0 ? strerror(errno) : "ok");
	snprintf(map, sizeof(map), "%s/release_agent", dir);
	fd = open(map, O_WRONLY);
	printf("v1-release_agent %s\n", fd < 0 || write(fd, "/x", 2) < 0 ? strerror(errno) : "ok");
	return 0;
}

/* sigqueue-init: signal PID 1 as the supervisor does, and plainly */
static int sigqueue_init(void)
{
	union sigval v = { .sival_int = 0x6a61696c };

	printf("sigqueue-init %s\n", sigqueue(1, SIGSTOP, v) ? strerror(errno) : "ok");
	printf("kill-init %s\n", kill(1, SIGTERM) ? strerror(errno) : "ok");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "cgroup-mount"))
		return cgroup_mount();
	if (argc == 2 && !strcmp(argv[1], "sigqueue-init"))
		return sigqueue_init();
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "shm-poke"))
		return shm_poke(atoi(argv[2]), argc == 4 ? argv[3] : "agent");
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
