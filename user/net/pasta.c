// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pasta.c - start and stop pasta, which connects the jail to the host
 *
 * Flags (docs/DESIGN.md, "pasta"): no port forwarding either
 * way (-t/-u/-T/-U none: the host's and the jail's ports stay apart), no
 * gateway mapping (--no-map-gw: the gateway address is not a door to the
 * host's loopback), IPv4 only, pasta's own DNS forwarding on an address
 * the policy refuses (pasta.h, PASTA_DNS_DECOY), MTU 65520 (pasta's side
 * only: below), no DHCP/NDP/RA servers (the jail is configured by us:
 * routes_rebuild()). --runas 0 (as root) because Debian 12's pasta
 * otherwise drops to nobody and cannot join the namespace; it keeps only a few
 * capabilities of its own. The namespace is named by /proc/PID/ns/net, not
 * /run/netns, which AppArmor denies to older pastas.
 *
 * The tap itself stays at 1500: pasta sets its --mtu on the tap only with
 * --config-net, and we leave it. Measured with Debian 12's pasta through
 * the jail (iperf3, 2 s runs): at 1500, uploads 3.0-4.3 Gbit/s with no
 * retransmits and downloads 0.7; at 65520, downloads 5.5-7.1 but uploads
 * 0.05-2.5 with retransmits, and long uploads stalled for good at once in
 * 10 new jails of 10. A download 9 times slower beats an upload that
 * stops.
 *
 * --no-netns-quit: pastas since 2023 watch the namespace path they were
 * given and quit when it is gone; for a /proc/PID path they poll it once a
 * second (pasta.c, pasta_netns_quit_timer_handler()), so once the holder
 * process exits, pasta 0.0~git20250503 quits a second later and the jail
 * loses its network. pasta's life is ours to manage: it dies with us
 * (PDEATHSIG), and we stop the agent when it dies (cmd_run.c). Debian 12's
 * pasta accepts the flag too (it watches with inotify, which procfs never
 * fires, so it never quit there).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "log.h"
#include "netaddr.h"
#include "pasta.h"
#include "trust.h"

int pasta_find(char *buf, size_t size)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	int err = -ENOENT;

	if (!path || !*path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if ((size_t)snprintf(buf, size, "%s/pasta", dir) < size && access(buf, X_OK) == 0 &&
		    dir[0] == '/') {
			err = 0;
			break;
		}
	}
	free(copy);
	return err;
}

bool pasta_trusted(const char *path)
{
	struct stat st;

	return !stat(path, &st) && trust_root_only(&st, false) && trust_path_root_only(path);
}

int pasta_argv(const char *path, const struct pasta_opts *o, char *strings, size_t size,
	       char **argv)
{
	char addr[NETADDR_CIDR_STRLEN], gw[NETADDR_CIDR_STRLEN];
	static char *const fixed[] = {
		"--foreground", "--quiet", "--no-netns-quit",
		"--ipv4-only", "--no-map-gw",
		"--tcp-ports", "none", "--udp-ports", "none", "--tcp-ns", "none",
		"--udp-ns", "none", "--mtu", PASTA_MTU, "--ns-ifname", PASTA_IFNAME,
		"--no-dhcp", "--no-ndp", "--no-dhcpv6", "--no-ra",
		"--dns-forward", PASTA_DNS_DECOY,
	};
	size_t used = 0, i;
	int argc = 0;

	netaddr_format(o->addr, addr);
	netaddr_format(o->gateway, gw);
#define PUT(fmt, ...)                                                                    \
	do {                                                                             \
		argv[argc++] = strings + used;                                           \
		used += (size_t)snprintf(strings + used, size - used, fmt, __VA_ARGS__) + 1; \
	} while (0)
	PUT("%s", path);
	if (o->runas_root) {
		argv[argc++] = "--runas";
		argv[argc++] = "0";
	}
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		argv[argc++] = fixed[i];
	argv[argc++] = "--address";
	PUT("%s", addr);
	argv[argc++] = "--gateway";
	PUT("%s", gw);
	/* Rootless, pasta joins the jail's user namespace (it owns it, as
	 * the same user from its parent) for the capabilities it needs over
	 * the network namespace; as root it needs none. */
	if (o->rootless) {
		argv[argc++] = "--userns";
		PUT("/proc/%d/ns/user", o->netns_pid);
	}
	argv[argc++] = "--netns";
	PUT("/proc/%d/ns/net", o->netns_pid);
#undef PUT
	argv[argc] = NULL;
	return argc;
}

void pasta_version(const char *path, char *buf, size_t size)
{
	/* passt's util.h: VERSION_BLOB is VERSION "\nCopyright Red Hat\n"
	 * ..., one string constant, so the version is the text between the
	 * NUL before it and that newline. */
	static const char marker[] = "\nCopyright Red Hat\n";
	const char *data, *end, *start;
	struct stat st;
	void *map = MAP_FAILED;
	int fd;

	snprintf(buf, size, "unknown");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* A pasta is a few hundred KiB; anything much larger is not one. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (64 << 20))
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	data = map;
	end = memmem(data, (size_t)st.st_size, marker, sizeof(marker) - 1);
	if (end) {
		for (start = end; start > data && start[-1] && end - start < 100; start--)
			;
		if (start > data && !start[-1] && end > start && strncmp(start, "unknown", 7))
			snprintf(buf, size, "%.*s", (int)(end - start), start);
	}
	munmap(map, (size_t)st.st_size);
}

unsigned long pasta_version_date(const char *version)
{
	unsigned int y, m, d;
	const char *git = strstr(version, "git");
	char end;

	/* Debian: 0.0~gitYYYYMMDD.HASH-N */
	if (git && sscanf(git, "git%4u%2u%2u%c", &y, &m, &d, &end) == 4 && end == '.')
		goto found;
	/* upstream: YYYY_MM_DD.HASH */
	if (sscanf(version, "%4u_%2u_%2u%c", &y, &m, &d, &end) == 4 && end == '.')
		goto found;
	return 0;
found:
	if (y < 2020 || m < 1 || m > 12 || d < 1 || d > 31)
		return 0;
	return y * 10000UL + m * 100UL + d;
}

int pasta_start(const struct pasta_opts *o, pid_t *pid)
{
	char strings[4096 + 512], *argv[PASTA_MAX_ARGS]; /* the path, then addresses */

	pasta_argv(o->path, o, strings, sizeof(strings), argv);
	*pid = fork();
	if (*pid < 0)
		return -errno;
	if (*pid == 0) {
		int fd = open(o->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		sigset_t none;

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* pasta exits at start if SIGPIPE is ignored, and the
		 * supervisor ignores it (and SIGXFSZ): give it a clean signal
		 * state, and no terminal to scribble on. */
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		signal(SIGINT, SIG_IGN); /* Ctrl-C is the agent's, not pasta's */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, STDIN_FILENO);
		setsid();
		execv(o->path, argv);
		_exit(127);
	}
	return 0;
}

void pasta_stop(pid_t pid)
{
	int fd;

	if (pid <= 0)
		return;
	/* A pidfd polls readable the moment pasta exits: no sleep loop. */
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	kill(pid, SIGTERM);
	if (fd >= 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 2000) != 1) /* at most 2 s */
			kill(pid, SIGKILL);
		close(fd);
	}
	waitpid(pid, NULL, 0);
}
