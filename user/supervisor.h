/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* supervisor.h - the supervisor's event loop while the agent runs */
#ifndef EBPFJAIL_SUPERVISOR_H
#define EBPFJAIL_SUPERVISOR_H

#include <signal.h>

#include "agent.h"
#include "jail.h"

/**
 * supervisor_block_signals() - block what the event loop reads from its
 * signalfd (SIGCHLD, job control, the signals it forwards), and ignore
 * SIGPIPE and SIGXFSZ (a relay's write to a reset peer, an audit log at
 * RLIMIT_FSIZE: the write must fail, not kill the supervisor); call
 * before any child starts, so none of their signals is missed
 * @set: filled with those signals, for supervise()
 */
void supervisor_block_signals(sigset_t *set);

/**
 * supervisor_on_event() - the loader's callback: one denial into the audit
 * log and the exit summary
 * @ctx: the struct jail
 * Return: 0.
 */
int supervisor_on_event(void *ctx, const struct jail_event *e);

/**
 * supervisor_start_status() - what `ebpfjail status` shows from now on:
 * the agent, its user and command line, counters and relays
 */
void supervisor_start_status(struct jail *j, char **argv, const struct agent_user *u);

/**
 * supervise() - run the event loop until the agent is reaped
 * @set: from supervisor_block_signals()
 * @status: the agent's wait status
 * Return: 0; -ENETDOWN when pasta died under the agent (which was then
 * stopped; the cause is printed); or -errno (logged) when the loop cannot
 * be set up.
 */
int supervise(struct jail *j, const sigset_t *set, int *status);

/**
 * supervisor_drain() - the denial events still in the ring buffer, and the
 * last window's count and loss records, into the audit log and summary
 * (at exit; jail_destroy()'s @drain)
 */
void supervisor_drain(struct jail *j);

#endif /* EBPFJAIL_SUPERVISOR_H */
