/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* pasta.h - start and stop pasta, which connects the jail to the host */
#ifndef EBPFJAIL_PASTA_H
#define EBPFJAIL_PASTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "ebpfjail.h"

#define PASTA_IFNAME "jail0"
#define PASTA_MTU "65520"

/* The address the jail sends DNS to: 169.254.1.1, as Podman's pasta
 * networks use, the supervisor's forwarder's on the jail's lo (never the
 * tap: ebpfjail.h). Not the gateway, which is the address of a real router
 * (its own DNS server, for one), and no host's: the socket hooks let only
 * port 53 through to it. Host byte order. */
#define PASTA_DNS_FORWARD JAIL_DNS_FORWARD_ADDR

/* pasta's own DNS forwarding (--dns-forward), which hands a datagram raw
 * to the host's first resolver, sits on an address the policy refuses
 * everywhere (240/4, reserved) and no network uses: the jail's DNS is the
 * supervisor's forwarder, and an agent that sent around lo's route to the
 * forward address would otherwise reach the host's resolver through pasta
 * (docs/DESIGN.md, "DNS"). Given, not left out, so that no pasta picks a
 * default of its own (the gateway, for a resolver on the host's loopback). */
#define PASTA_DNS_DECOY "240.0.0.53" /* JAIL_PASTA_DNS_ADDR */

struct pasta_opts {
	const char *path;      /* the binary, from pasta_find() */
	pid_t netns_pid;       /* a process inside the jail's namespace */
	uint32_t addr;         /* the jail's address (pasta's guest address) */
	uint32_t gateway;      /* pasta's side of the tap */
	const char *log_path;  /* pasta's stdout and stderr go here */
	bool rootless;         /* the jail is a user namespace of ours: pasta
				  joins it (--userns) */
	bool runas_root;       /* --runas 0: we are root (Debian 12's pasta
				  would switch to nobody, and then could not
				  open a root-owned namespace) */
};

/**
 * pasta_find() - pasta's path on PATH
 * Return: 0 with @buf filled, or -ENOENT.
 */
int pasta_find(char *buf, size_t size);

/**
 * pasta_trusted() - may @path run as the jail's pasta? The agent runs as
 * its user and can write what the user can: a pasta it planted
 * (~/.local/bin comes first on Debian's PATH) would run unjailed next time,
 * in the host's network namespace. So the file and every directory on its
 * path, as written and resolved, must be root's alone (trust.h: as for the
 * configuration files that may loosen the jail). An agent run as root
 * (--user root) can replace root's files too: docs/DESIGN.md, "Who may
 * loosen the jail".
 */
bool pasta_trusted(const char *path);

/**
 * pasta_argv() - the command line (pure, for tests and `-v`)
 * @argv: room for PASTA_MAX_ARGS pointers; strings live in @strings
 * Return: the number of arguments.
 */
#define PASTA_MAX_ARGS 48
int pasta_argv(const char *path, const struct pasta_opts *o, char *strings, size_t size,
	       char **argv);

/* The pastas CI runs every integration test with: Debian 12's and Debian
 * 13's (scripts/build-pasta.sh). Release dates, YYYYMMDD. */
#define PASTA_TESTED_OLDEST 20230309
#define PASTA_TESTED_NEWEST 20250503
#define PASTA_TESTED_OLDEST_NAME "0.0~git20230309"
#define PASTA_TESTED_NAMES PASTA_TESTED_OLDEST_NAME " and 0.0~git20250503"
/* pastas from 2023-09-08 on ship an AppArmor profile that lets them open
 * /proc/PID/ns/net and the namespaces the jail uses. */
#define PASTA_APPARMOR_FIXED 20230908

/**
 * pasta_version() - the version a pasta binary was built with, read from
 * the file (no exec: `pasta --version` of 0.0~git20250503 prints nothing
 * into a pipe, and run should not pay for a process)
 * @path: the binary (a link to it is followed)
 * @buf: "0.0~git20250503.587980c-2", "2025_05_03.587980c", or "unknown"
 *       (Debian 12's build says "unknown version", and so does a file that
 *       cannot be read or holds no version)
 * @size: room in @buf
 */
void pasta_version(const char *path, char *buf, size_t size);

/**
 * pasta_version_date() - the release date in a pasta version string (pure)
 * @version: Debian's "0.0~git20250503.587980c-2" or upstream's
 *           "2025_05_03.587980c", as `pasta --version` or dpkg print them
 * Return: YYYYMMDD, or 0 when @version names no date.
 */
unsigned long pasta_version_date(const char *version);

/**
 * pasta_start() - run pasta in the foreground as our child
 * @pid: its pid
 * It dies with us (PDEATHSIG), so a killed supervisor leaves no pasta.
 * Return: 0 or -errno.
 */
int pasta_start(const struct pasta_opts *o, pid_t *pid);

/** pasta_stop() - SIGTERM, wait (bounded), then SIGKILL */
void pasta_stop(pid_t pid);

#endif /* EBPFJAIL_PASTA_H */
