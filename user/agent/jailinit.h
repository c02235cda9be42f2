/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* jailinit.h - PID 1 of the agent's PID namespace: it forwards, reaps, reports */
#ifndef EBPFJAIL_JAILINIT_H
#define EBPFJAIL_JAILINIT_H

#include <stdint.h>
#include <sys/types.h>

/* What the jail's init tells the supervisor, one message each, over the
 * channel. The supervisor cannot wait for the agent itself: the agent is
 * the init's child, not its own. */
enum jailinit_event {
	JAILINIT_STARTED = 1, /* sent by the agent just before exec: the
				 message's credentials carry its pid, as the
				 supervisor's PID namespace numbers it */
	JAILINIT_STOPPED,     /* the agent stopped (waitpid WUNTRACED) */
	JAILINIT_CONTINUED,   /* the agent continued */
	JAILINIT_TERMINAL_STOP, /* the terminal sent the agent's process group
				   a stop (status: SIGTSTP, SIGTTIN or SIGTTOU) */
	JAILINIT_EXITED,      /* the agent is gone; status is its wait status */
};

/* What the supervisor queues to the init (sigqueue(), any signal number
 * but SIGSTOP and SIGKILL), as the signal's value; the init takes these
 * only from outside the agent's PID namespace (its parent, numbered 0):
 *   JAILINIT_FORWARD  pass the signal on to the agent. A plain kill() that
 *                     reached the init reached the agent too (a kill of
 *                     the whole process group), and would double.
 * No request may do more than the agent could itself: the sender of a
 * queued signal writes its own si_pid (rt_sigqueueinfo()). */
#define JAILINIT_FORWARD 0x6a61696c /* "jail" */

struct jailinit_msg {
	int32_t event;  /* enum jailinit_event */
	int32_t status; /* JAILINIT_EXITED: the agent's wait status */
};

/**
 * jailinit_channel() - the init's channel to the supervisor: a SEQPACKET
 * socket pair, close-on-exec, whose supervisor end receives the sender's
 * credentials with every message
 * @fds: [0] the supervisor's end (read without blocking by
 *       jailinit_receive()), [1] the init's and the agent's
 * Return: 0 or -errno.
 */
int jailinit_channel(int fds[2]);

/**
 * jailinit_started() - the agent says it is about to exec (its pid travels
 * as the message's credentials, translated by the kernel)
 * @fd: the channel's [1] end
 * Return: 0 or -errno.
 */
int jailinit_started(int fd);

/**
 * jailinit_receive() - one message from the channel, without blocking
 * @fd: the channel's [0] end
 * @m: the message
 * @sender: the pid of the process that sent it, in the caller's namespace
 * Return: 0, -EAGAIN when none is waiting, -EPIPE when the init is gone,
 * -EPROTO for a message that is not one of ours.
 */
int jailinit_receive(int fd, struct jailinit_msg *m, pid_t *sender);

/**
 * jailinit_run() - be the init of the agent's PID namespace (or, without
 * one, the agent's parent all the same) until the agent is gone: forward
 * the signals the supervisor sends to the agent, reap orphans (as PID 1),
 * report the agent's stops, continues and end, and the terminal's stops of
 * its process group, on @fd; then exit.
 * @fd: the channel's [1] end
 * @agent: the agent's pid
 * Every signal must be blocked already. Does not return.
 */
void jailinit_run(int fd, pid_t agent) __attribute__((noreturn));

#endif /* EBPFJAIL_JAILINIT_H */
