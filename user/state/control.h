/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* control.h - a running jail's control socket: reload, allow, deny */
#ifndef EBPFJAIL_CONTROL_H
#define EBPFJAIL_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

#define CONTROL_SOCKET_NAME "control"
/* control_listen()'s name for the socket until it listens: no longer than
 * CONTROL_SOCKET_NAME, so that a state directory that fits, fits */
#define CONTROL_SOCKET_TMP_NAME "ctl.new"
#define CONTROL_MAX_REQUEST 256
#define CONTROL_MAX_REPLY 8192

/**
 * control_listen() - listen on STATE_DIR/control (root only, nonblocking)
 * Return: the listening fd, or -errno.
 */
int control_listen(const char *state_dir);

/**
 * control_accept() - take one request from a client of @lfd
 * @req: the request line, without its newline
 * @rootless: a rootless jail's supervisor (in the jail's user namespace):
 *            the client must be our own uid and outside the agent's PID
 *            namespace, rather than root with CAP_NET_ADMIN
 *
 * Waits at most a second for the request line. Return: the connection's fd
 * (answer with control_reply()), or -errno (nothing left to answer: -EAGAIN
 * when no client was waiting, -EPERM for a client that is not root or lacks
 * CAP_NET_ADMIN (rootless: another uid, a process of a jail, or one whose
 * PID namespace cannot be read), another -errno when the caller's
 * capabilities could not be read; the last two were told why).
 */
int control_accept(int lfd, char req[CONTROL_MAX_REQUEST], bool rootless);

/** control_reply() - send @text to the client and close @fd */
void control_reply(int fd, const char *text);

/**
 * control_request() - send @request to the jail whose state is @state_dir
 * and read its whole reply into @reply
 * Return: 0, or -errno (-ECONNREFUSED: no supervisor listens; -EPROTO: what
 * listens is a process inside a jail, and was told nothing).
 */
int control_request(const char *state_dir, const char *request, char *reply, size_t size);

#endif /* EBPFJAIL_CONTROL_H */
