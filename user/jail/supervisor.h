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
 * supervisor_on_dns_query() - the forwarder's callback (dnsfwd_query_fn):
 * judge @q by the policy in force (dnsallow_judge()); a refused one is a
 * dns denial, aggregated (dnsdenials.h), in the audit log, the agent's view
 * and the exit summary
 * @ctx: the struct jail
 * Return: 0 (ask it), DNS_RCODE_REFUSED, or for a deny-host name that and
 * DNSFWD_LEARN (its addresses are blocked, jail_policy_dns_answer()).
 */
int supervisor_on_dns_query(void *ctx, const struct dns_question *q);

/* deny-host names whose addresses are learned, at most, each second */
#define SUPERVISOR_DNS_LEARN_PER_S 16
/* deny-host names asked again a second at most, before their blocks end
 * (jail_policy_denied_due()); the rest end with their TTL. */
#define SUPERVISOR_DENY_ASK_PER_S 16

/**
 * supervisor_start_status() - what `ebpfjail status` shows from now on:
 * the agent, its user and command line, counters and relays
 */
void supervisor_start_status(struct jail *j, char **argv, const struct agent_user *u);

/* The event loop's descriptors. */
struct supervisor_loop {
	int sfd; /* signalfd */
	int efd; /* epoll */
	int tfd; /* the second's timerfd, or -1 */
};

#define SUPERVISOR_LOOP_INIT { .sfd = -1, .efd = -1, .tfd = -1 }

/**
 * supervisor_open() - the event loop with every descriptor of @j but the
 * agent's (the engine's events, relays, DNS, control socket, the host's
 * watch), before the agent starts: a registration that fails stops the
 * start (fail closed), not the jail's hearing
 * @set: from supervisor_block_signals()
 * Return: 0, or -errno (logged; nothing is left open).
 */
int supervisor_open(struct supervisor_loop *l, struct jail *j, const sigset_t *set);

/** supervisor_close() - the loop's descriptors; an unopened loop is fine */
void supervisor_close(struct supervisor_loop *l);

/**
 * supervise() - the agent's init channel into @l, then the event loop
 * until the agent is reaped; @l is closed on return
 * @status: the agent's wait status
 * Return: 0; -ENETDOWN when pasta died under the agent (which was then
 * stopped; the cause is printed); or -errno (logged) when the init's
 * channel cannot be watched (the agent was stopped).
 */
int supervise(struct jail *j, struct supervisor_loop *l, int *status);

/**
 * supervisor_drain() - the denial events still in the ring buffer, and the
 * last window's count and loss records, into the audit log and summary
 * (at exit; jail_destroy()'s @drain)
 */
void supervisor_drain(struct jail *j);

#endif /* EBPFJAIL_SUPERVISOR_H */
