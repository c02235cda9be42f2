// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* mute_pasta.c - a "pasta" that creates the jail's tap and never serves it,
 * as a real one does when its sandboxing fails after the tap exists
 * (test_pasta.sh). Takes pasta's command line; uses --netns, --ns-ifname,
 * and --userns (a rootless jail's: joined first, as pasta does).
 *
 *   mute_pasta hang ARGS...	hold the tap until killed
 *   mute_pasta exit ARGS...	hold it for 0.3 s, then exit 1
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>

int main(int argc, char **argv)
{
	const char *netns = NULL, *userns = NULL, *ifname = "tap0";
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	int i, ns, tun;

	for (i = 2; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--netns"))
			netns = argv[i + 1];
		else if (!strcmp(argv[i], "--userns"))
			userns = argv[i + 1];
		else if (!strcmp(argv[i], "--ns-ifname"))
			ifname = argv[i + 1];
	}
	if (argc < 2 || !netns) {
		fprintf(stderr, "usage: mute_pasta hang|exit PASTA-ARGS (with --netns)\n");
		return 2;
	}
	ns = userns ? open(userns, O_RDONLY | O_CLOEXEC) : -1;
	if (userns && (ns < 0 || setns(ns, CLONE_NEWUSER))) {
		perror(userns);
		return 1;
	}
	ns = open(netns, O_RDONLY | O_CLOEXEC);
	if (ns < 0 || setns(ns, CLONE_NEWNET)) {
		perror(netns);
		return 1;
	}
	tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (tun < 0 || ioctl(tun, TUNSETIFF, &ifr)) {
		perror("tun");
		return 1;
	}
	fprintf(stderr, "Failed to sandbox process, exiting\n");
	if (!strcmp(argv[1], "exit")) {
		usleep(300 * 1000);
		return 1;
	}
	for (i = 0; i < 600; i++) /* 60 s at most */
		usleep(100 * 1000);
	return 0;
}
