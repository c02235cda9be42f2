/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* pasta.h - start and stop pasta, which connects the jail to the host */
#ifndef EBPFJAIL_PASTA_H
#define EBPFJAIL_PASTA_H

#include <stdint.h>
#include <sys/types.h>

#define PASTA_IFNAME "jail0"
#define PASTA_MTU "65520"

struct pasta_opts {
	pid_t netns_pid;    /* a process inside the jail's namespace */
	uint32_t addr;      /* the jail's address (pasta's guest address) */
	uint32_t gateway;   /* pasta's side, also the DNS forward address */
	const char *log_path; /* pasta's stdout and stderr go here */
};

/**
 * pasta_find() - pasta's path on PATH
 * Return: 0 with @buf filled, or -ENOENT.
 */
int pasta_find(char *buf, size_t size);

/**
 * pasta_argv() - the command line (pure, for tests and `-v`)
 * @argv: room for PASTA_MAX_ARGS pointers; strings live in @strings
 * Return: the number of arguments.
 */
#define PASTA_MAX_ARGS 48
int pasta_argv(const char *path, const struct pasta_opts *o, char *strings, size_t size,
	       char **argv);

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
