/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* jail.h - one jail's parts: build them in a fail-closed order, tear them down */
#ifndef EBPFJAIL_JAIL_H
#define EBPFJAIL_JAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "agent.h"
#include "audit.h"
#include "auditlog.h"
#include "config.h"
#include "denials.h"
#include "dnsfwd.h"
#include "hostwatch.h"
#include "jailstate.h"
#include "engine.h"
#include "netns.h"
#include "jail_policy.h"
#include "relay.h"
#include "summary.h"

/* Who the supervisor is on the host, apart from which engine filters. The
 * two go together, chosen once (cmd_run.c): root with BPF, rootless with
 * nftables. */
enum jail_mode {
	JAIL_MODE_ROOT,     /* root on the host: a network namespace and cgroup
			       of root's */
	JAIL_MODE_ROOTLESS, /* the jail's own user namespace with its network
			       namespace in it; also for root with engine =
			       nftables (its user namespace maps root to itself) */
};

struct dnsdenials; /* dnsdenials.h */

/* Who owns what: everything here belongs to the supervisor process; the
 * agent gets none of its descriptors (agent.c closes them at exec). */
struct jail {
	char id[JAIL_ID_LEN + 1];
	char state_dir[256];
	char pasta_log[300];     /* pasta's stderr, for the refusal line */
	char pasta_path[4096];
	char cg_path[4096];
	char resolv_conf[300];   /* the agent's /etc/resolv.conf */
	char denials[300];       /* the agent's read-only view of its denials */
	int denials_fd;          /* ... written here, or -1 */
	uint64_t denials_bytes;  /* ... so far, since it last started again */
	char **unix_sockets;     /* the unix-socket paths, NULL-terminated (the
				    strings are the configuration's) */
	char why[640];           /* jail_build(): the cause and the fix */
	int cg_fd;
	struct netns ns;
	pid_t pasta;
	struct agent_proc proc;    /* the agent and its init */
	bool agent_stopped;        /* as the init last said */
	bool agent_exited;         /* the init said so: agent_status is its own */
	int agent_status;          /* the agent's wait status */
	uint64_t tty_stop_ns;      /* when the terminal last stopped the agent, CLOCK_MONOTONIC */
	bool job_control_said;     /* said once: no cgroup, so no job control */
	bool network_lost;         /* pasta died under the agent, or the policy
				      could not follow the host: exit 125 */
	uint64_t host_stale_ns;    /* since when the policy has failed to follow
				      the host's networks, CLOCK_MONOTONIC; 0: it
				      follows them */
	struct rlimit nofile;      /* RLIMIT_NOFILE as we were started: the agent's */
	enum jail_mode mode;
	enum engine_kind engine_kind; /* JAIL_MODE_ROOT: BPF; ROOTLESS: nftables */
	bool ipv6_on;              /* rootless: IPv6 could not be turned off */
	struct engine *engine;     /* the engine, once open, or NULL */
	struct jail_policy policy; /* what reload, allow and deny change */
	struct hostwatch watch;    /* the host's addresses and routes */
	int control_fd;            /* /run/ebpfjail/ID/control, or -1 */
	struct relays *relays;
	struct dnsfwd *dns;        /* the jail's DNS forwarder, or NULL */
	struct audit_log audit;
	struct summary summary;
	struct denial_book book;   /* repeats and losses written (denials.h) */
	struct dnsdenials *dns_refused; /* the forwarder's refusals (dnsdenials.h),
					    or NULL until the first */
	unsigned int dns_learned;  /* deny-host names learned this second */
	bool deny_ask_failed_said; /* a deny-host name could not be asked again */
	uint64_t dns_lost;         /* refusals no record shows, in all */
	uint64_t denied_read;      /* denials counted when the map was last read */
	struct jail_status status;
	struct jail_status status_written; /* as last written: unchanged, not rewritten */
};

/* Everything empty: what jail_destroy() can be called on at once. */
#define JAIL_INIT                                                                          \
	{ .cg_fd = -1, .pasta = -1, .denials_fd = -1, .proc = { .init = -1, .agent = -1, .pgrp = -1, .channel = -1, .tty = -1 },  \
	  .audit = { .fd = -1, .dir_fd = -1 },                                           \
	  .control_fd = -1, .ns = { .holder = -1, .fd = -1, .host_fd = -1, .user_fd = -1 },              \
	  .watch = HOSTWATCH_INIT }

/**
 * jail_build() - everything the agent will run in, in an order where each
 * step can fail closed and nothing is open before it is filtered: state
 * directory, the watch on the host's networks, host facts, cgroup,
 * namespace with pasta, the engine and its policy, routes checked, the
 * engine's part on the tap, resolv.conf, relays, audit log, control
 * socket; the descriptor limit raised first,
 * the relays capped last (the original limit stays in @j->nofile, for the
 * agent)
 * @j: JAIL_INIT, with id, mode, engine_kind and policy (its id, sources,
 *     cfg, agent_uid) set
 * @cfg: the configuration in force
 * @on_event: the loader's callback for denial events (ctx is @j)
 * @on_query: the forwarder's judge of each query (ctx is @j)
 * Return: 0, or -errno with @j->why saying the cause and the fix (empty
 * when the cause was logged already). Whatever was built is left for
 * jail_destroy().
 */
int jail_build(struct jail *j, const struct config *cfg, engine_event_fn on_event,
	       dnsfwd_query_fn on_query);

/**
 * jail_destroy() - processes first (nothing may run once its filters are
 * gone), then relays, control socket, pasta, namespace, programs
 * @drain: called once the processes are gone and before the programs go,
 *         to read their last events; may be NULL
 * A cgroup that would not go stays recorded for the next run's cleanup.
 */
void jail_destroy(struct jail *j, void (*drain)(struct jail *j));

/**
 * jail_protections() - what keeps the agent in, as `ebpfjail status` shows
 * it: space-separated words (pid-namespace, cgroup-namespace, seccomp,
 * netns-rule, private-tmp or shared-tmp; unix-hooks and landlock-scopes
 * where the kernel has them)
 */
void jail_protections(struct jail *j, bool share_tmp, char *buf, size_t size);

/**
 * jail_pasta_last_line() - the last line pasta logged, control characters
 * replaced (pasta's log is not ours to pass to a terminal raw); "" if none
 */
void jail_pasta_last_line(const struct jail *j, char *buf, size_t size);

#endif /* EBPFJAIL_JAIL_H */
