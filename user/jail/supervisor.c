// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* supervisor.c - the supervisor's event loop while the agent runs
 *
 * Theory of operation
 * -------------------
 * One thread, one epoll set: a signalfd (SIGCHLD and the signals to
 * forward), the BPF ring buffer (denials -> audit log and exit summary),
 * the relays, the control socket (`ebpfjail reload/allow/deny`), and the
 * watch on the host's addresses and routes with its settle timer
 * (hostwatch.c: what the host gains is blocked at its notification, the
 * whole read follows the burst); a one-second timerfd reads the counters (lost events,
 * what `ebpfjail status` shows) and nothing else does: no event costs a
 * counter read. Signals that did not come from the terminal are forwarded to the
 * agent. If pasta dies, the agent's cgroup is killed: no agent runs on
 * without its network. The loop ends when the agent is reaped.
 *
 * Job control, as sudo does it: the agent and its init are a process
 * group of their own (agent.c), the terminal's foreground while the
 * supervisor's group would be; a kill() of the agent's process group never
 * reaches the supervisor. The shell waits for the supervisor, so when the
 * terminal stops the agent (Ctrl-Z, or a background job touching it) the
 * supervisor stops too, handing the terminal back, and the shell sees the
 * job stop; `fg` or `bg` continues the supervisor, which continues the
 * agent (and `fg` gives it the terminal again). It stops only when both
 * happened: the terminal sent the agent's group a stop signal (the
 * kernel's own, SI_KERNEL, which the init reports) and the agent stopped,
 * within JOB_STOP_WINDOW_NS of each other in either order. A stop the
 * agent makes for itself (`kill -STOP $$`, `kill -STOP 0`) leaves the
 * supervisor running: audit log, control socket, relays and the host watch
 * go on. The supervisor stops only with the agent's cgroup frozen, so
 * nothing of the agent runs with nobody to audit it, whatever made the
 * terminal stop it; without a cgroup (rootless, no delegation) it never
 * stops and the agent goes on (job_stop()).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "control.h"
#include "denials.h"
#include "dnsallow.h"
#include "dnsdenials.h"
#include "jailinit.h"
#include "jailstate.h"
#include "log.h"
#include "supervisor.h"

/* view_append() - a record for the agent's own view of its denials: the
 * recent ones, so past JAIL_DENIALS_MAX it starts again (a flood must not
 * fill /run). */
static void view_append(struct jail *j, const char *line, size_t len)
{
	if (j->denials_fd < 0)
		return;
	if (j->denials_bytes + len > JAIL_DENIALS_MAX) {
		if (ftruncate(j->denials_fd, 0))
			return;
		j->denials_bytes = 0;
	}
	if (write(j->denials_fd, line, len) == (ssize_t)len)
		j->denials_bytes += len;
}

/* host_derived() - a reason whose rule is the host's own (its networks,
 * its routes, its administrator's block-cidr), not a public range */
static bool host_derived(uint8_t reason)
{
	return reason == REASON_CONNECTED || reason == REASON_HOST_ROUTE ||
	       reason == REASON_BLOCK_CIDR;
}

/* write_denial() - one record of @e's denial into the audit log, the
 * agent's view and the exit summary; @count > 0: a count record of that
 * many repeats, since @first_ns (ebpfjail.h, "Aggregation") */
static void write_denial(struct jail *j, const struct jail_event *e, uint64_t count,
			 uint64_t first_ns)
{
	struct timespec wall = audit_event_wall_time(e->time_ns), first = { 0 };
	char line[AUDIT_LINE_MAX];
	const char *host;
	size_t len;
	int err;

	if (count)
		first = audit_event_wall_time(first_ns);
	summary_add(&j->summary, e, count ? count : 1);
	/* The name the agent looked this address up by, if the forwarder
	 * answered it: `audit --suggest` can propose allow-host. */
	host = j->policy.seen ? dns_seen_name(j->policy.seen, e->daddr) : NULL;
	len = audit_format_denial(e, count, first, j->id, host, wall, line, sizeof(line));
	if (host_derived(e->reason)) {
		/* The attack: the rule of such a denial is one of the host's
		 * own networks (a LAN, a VPN's route, a block-cidr line), and
		 * probing an address per range would map them through the
		 * agent's view. There the rule is the address it tried. */
		struct jail_event v = *e;
		char vline[AUDIT_LINE_MAX];

		v.rule_prefixlen = 32;
		view_append(j, vline,
			    audit_format_denial(&v, count, first, j->id, host, wall, vline,
						sizeof(vline)));
	} else {
		view_append(j, line, len);
	}
	if (!audit_log_writable(&j->audit))
		return;
	err = audit_log_append(&j->audit, line, len);
	if (err)
		log_debug("cannot write to the audit log: %s", strerror(-err));
}

int supervisor_on_event(void *ctx, const struct jail_event *e)
{
	write_denial(ctx, e, 0, 0);
	return 0;
}

/* write_lost_record() - a lost record: @lost denials of @reason no
 * record shows */
static void write_lost_record(struct jail *j, unsigned int reason, uint64_t lost)
{
	char line[AUDIT_LINE_MAX];
	struct timespec now;
	size_t len;

	if (!lost)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	len = audit_format_lost(j->id, lost, reason, now, line, sizeof(line));
	view_append(j, line, len);
	if (audit_log_writable(&j->audit))
		audit_log_append(&j->audit, line, len);
}

/* write_lost() - write_lost_record(), and the exit summary counts them */
static void write_lost(struct jail *j, unsigned int reason, uint64_t lost)
{
	write_lost_record(j, reason, lost);
	j->summary.lost += lost;
}

/* write_dns_denial() - one record of a refused query into the audit log
 * (held: the agent waits for its answer) and the agent's view; @count > 0:
 * a count record (dnsdenials.h) */
static void write_dns_denial(struct jail *j, const char *name, const struct dnsdenials_kind *k,
			     uint64_t count, struct timespec first, struct timespec last)
{
	char line[AUDIT_DNS_LINE_MAX];
	size_t len = audit_format_dns_denial(j->id, name, k->qtype,
					     dns_refusal_rule((enum dns_refusal)k->refusal), count,
					     first, last, line, sizeof(line));

	int err;

	view_append(j, line, len);
	if (!audit_log_writable(&j->audit))
		return;
	err = audit_log_hold(&j->audit, line, len);
	if (err)
		log_debug("cannot write to the audit log: %s", strerror(-err));
}

int supervisor_on_dns_query(void *ctx, const struct dns_question *q)
{
	struct jail *j = ctx;
	enum dns_refusal why = dnsallow_judge(j->policy.cfg, q);
	struct dnsdenials_kind k = { .qtype = q->type, .refusal = (uint8_t)why };
	struct timespec now;

	if (why == DNS_ASK)
		return 0;
	summary_add_dns(&j->summary, q->name);
	if (!j->dns_refused)
		j->dns_refused = calloc(1, sizeof(*j->dns_refused));
	if (!j->dns_refused) {
		log_warn("jail %s: no memory to record a refused DNS query (counted, not "
			 "recorded)", j->id);
		return DNS_RCODE_REFUSED; /* refused all the same */
	}
	clock_gettime(CLOCK_REALTIME, &now);
	dnsdenials_domain(q->name, k.domain);
	if (dnsdenials_add(j->dns_refused, &k, q->name, now) == DNSDENIALS_NEW)
		write_dns_denial(j, q->name, &k, 0, now, now);
	/* A deny-host name's addresses are learned and blocked (another
	 * name's answer may give them), a few names a second: each costs a
	 * query and a policy change, and the agent picks names under a
	 * *.domain pattern as fast as it likes. */
	if (why == DNS_DENY_HOST && j->dns_learned < SUPERVISOR_DNS_LEARN_PER_S) {
		j->dns_learned++;
		return DNS_RCODE_REFUSED | DNSFWD_LEARN;
	}
	return DNS_RCODE_REFUSED;
}

static void write_dns_count(void *ctx, const struct dnsdenials_slot *s)
{
	write_dns_denial(ctx, s->name, &s->kind, s->repeats, s->first, s->last);
}

/* close_dns_window() - the forwarder's refusals of the window: count
 * records, and a lost record for those no record shows */
static void close_dns_window(struct jail *j)
{
	uint64_t lost;

	j->dns_learned = 0;
	if (!j->dns_refused)
		return;
	dnsdenials_close_window(j->dns_refused, write_dns_count, j);
	lost = j->dns_refused->lost;
	j->dns_refused->lost = 0;
	j->dns_lost += lost;
	/* A record only: the summary and status count every refusal
	 * already (summary_add_dns()), recorded or not. */
	write_lost_record(j, REASON_DNS, lost);
}


/* The engine's side of the loop (engine.h); none without a jail
 * (egress-jail = off). */
static int engine_poll(struct jail *j)
{
	return j->engine ? engine_events_poll(j->engine) : 0;
}

static int engine_counters(struct jail *j, enum engine_counters which, __u64 c[COUNTER_SLOTS])
{
	return j->engine ? engine_read_counters(j->engine, which, c) : -ENOENT;
}

/* book_tally() - a engine_denial_fn: one tally of the map into the book */
static void book_tally(void *ctx, const struct denial_key *k, const struct denial_tally *t)
{
	struct jail *j = ctx;

	denial_book_add(&j->book, k, t);
}

/* denials_in() - every denial @c counts */
static uint64_t denials_in(const __u64 c[COUNTER_SLOTS])
{
	unsigned int hook, reason;
	uint64_t all = 0;

	for (hook = 0; hook < HOOK_COUNT; hook++)
		for (reason = REASON_FIRST_DENY; reason < REASON_COUNT; reason++)
			all += c[hook * COUNTER_STRIDE + reason];
	return all;
}

/* close_window() - the window is over (once a second, and at exit): the
 * repeats of every key into count records, and what was lost into a lost
 * record (ebpfjail.h, "Aggregation")
 * @c: the counters, read before the map
 * @all: every denial counted now (an engine's settled @c may lag a read
 *       behind, engine.h): the same as nothing new since the last
 *       complete read, nothing to read */
static void close_window(struct jail *j, const __u64 c[COUNTER_SLOTS], uint64_t all)
{
	uint64_t denied[REASON_COUNT] = { 0 }, events[REASON_COUNT] = { 0 };
	unsigned int hook, reason;
	size_t i, n;
	int err;

	for (hook = 0; hook < HOOK_COUNT; hook++) {
		for (reason = REASON_FIRST_DENY; reason < REASON_COUNT; reason++) {
			denied[reason] += c[hook * COUNTER_STRIDE + reason];
			events[reason] += c[hook * COUNTER_STRIDE + COUNTER_EVENTS(reason)];
		}
	}
	/* No denial since the last complete read: no tally has grown. An
	 * idle jail costs no read of the map. */
	if (all == j->denied_read)
		return;
	/* Events first, so that a kind's count record rarely comes before
	 * its event (a bounded batch: the loop is not held up). */
	engine_poll(j);
	err = denial_book_begin(&j->book);
	if (!err)
		err = engine_read_denials(j->engine, book_tally, j);
	n = denial_book_end(&j->book, err == 0);
	if (err || j->book.overflow) {
		if (err)
			log_debug("cannot read the denials map: %s", strerror(-err));
		/* A void read writes nothing; a loss taken now would count the
		 * repeats still waiting in the map. The next read does both. */
		return;
	}
	j->denied_read = all;
	for (i = 0; i < n; i++) {
		const struct denial_entry *d = &j->book.last[i];
		struct jail_event e = { 0 };

		if (!d->fresh)
			continue;
		denial_event(&e, &d->key, &d->tally, d->tally.last_ns, denial_key_is_unix(&d->key));
		write_denial(j, &e, d->fresh, d->tally.first_ns);
	}
	for (reason = REASON_FIRST_DENY; reason < REASON_COUNT; reason++)
		write_lost(j, reason, denial_book_lost(&j->book, reason, denied[reason],
							 events[reason]));
}

/* show_status() - what `ebpfjail status` shows: counters, relays */
static void show_status(struct jail *j, const __u64 c[COUNTER_SLOTS])
{
	struct jail_status *st = &j->status;
	struct relay_listener_stats ls;
	unsigned int hook, reason, i;

	if (!j->state_dir[0])
		return;
	st->allowed = 0;
	st->lost = j->book.lost_total + j->dns_lost;
	memset(st->denied, 0, sizeof(st->denied));
	st->denied[REASON_DNS] = j->summary.dns_refused; /* jailstate_denial() */
	for (hook = 0; hook < HOOK_COUNT; hook++) {
		for (reason = 0; reason < REASON_COUNT; reason++) {
			__u64 n = c[hook * COUNTER_STRIDE + reason];

			if (reason < REASON_FIRST_DENY)
				st->allowed += n;
			else
				st->denied[reason] += n;
		}
	}
	for (i = 0; j->relays && i < STATUS_RELAYS_MAX && !relays_listener(j->relays, i, &ls); i++) {
		snprintf(st->relays[i].kind, sizeof(st->relays[i].kind), "%s",
			 ls.dir == RELAY_INTO_HOST ? "local" : "callback");
		st->relays[i].port = ls.port;
		st->relays[i].open = ls.open;
		st->relays[i].total = ls.total;
		st->relays[i].refused = ls.refused;
	}
	st->n_relays = i;
	live_format(&j->policy.live, st->temporary, sizeof(st->temporary));
	dnsallow_format(&j->policy.names, st->names, sizeof(st->names));
	/* An idle jail costs nothing but this read, once a second. */
	if (!memcmp(st, &j->status_written, sizeof(*st)))
		return;
	if (jailstate_write_status(j->state_dir, st) == 0)
		j->status_written = *st;
}

/* update_status() - show_status(), the counters read first */
static void update_status(struct jail *j)
{
	__u64 c[COUNTER_SLOTS];

	if (engine_counters(j, ENGINE_COUNTERS_NOW, c) == 0)
		show_status(j, c);
}

void supervisor_start_status(struct jail *j, char **argv, const struct agent_user *u)
{
	size_t used = 0;
	int i;

	j->status.agent = j->proc.agent;
	j->status.uid = u->uid;
	snprintf(j->status.user, sizeof(j->status.user), "%s", u->name);
	j->status.started = time(NULL);
	snprintf(j->status.engine, sizeof(j->status.engine), "%s",
		 j->engine ? engine_name(j->engine) : "none");
	for (i = 0; argv[i] && used + 1 < sizeof(j->status.command); i++) {
		int n = snprintf(j->status.command + used, sizeof(j->status.command) - used, "%s%s",
				 i ? " " : "", argv[i]);

		used += n > 0 ? (size_t)n : 0;
	}
	/* One line per key: a newline in an argument would start another. */
	for (i = 0; j->status.command[i]; i++)
		if (j->status.command[i] < 0x20)
			j->status.command[i] = '?';
	update_status(j);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGUSR1, SIGUSR2 };

void supervisor_block_signals(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGTSTP);
	sigaddset(set, SIGTTIN);
	sigaddset(set, SIGTTOU);
	sigprocmask(SIG_BLOCK, set, NULL);
	/* The attack: a relayed peer half-closes, then resets (an HTTP
	 * server done with its answer, iperf3's at the end of a test: FIN,
	 * then RST for what still arrives). The relay's next splice() into
	 * that socket fails with EPIPE, and splice() has no MSG_NOSIGNAL:
	 * the kernel raised SIGPIPE, the supervisor died of it and took the
	 * jail, every relayed connection and the agent with it. Ignored,
	 * the write fails with EPIPE and only that connection ends.
	 * SIGXFSZ likewise: under a small RLIMIT_FSIZE, an agent flooding
	 * distinct denials grew the audit log past it, and the write's
	 * signal killed the supervisor; ignored, the write fails with EFBIG
	 * like any failed write of the log. The agent and pasta set every signal back to
	 * its default before exec (agent.c, pasta.c). */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

/* stop_agent() - the agent and everything it started, at once: its
 * cgroup, or (rootless without one) its PID namespace, which ends with its
 * init; run then exits 125 */
static void stop_agent(struct jail *j)
{
	j->network_lost = true;
	if (j->cg_path[0])
		cgroup_kill(j->cg_path);
	if (j->proc.init > 0)
		kill(j->proc.init, SIGKILL);
}

/* pasta_died() - the jail's network is gone with pasta: an agent must not
 * run on without it in silence (it would fail in ways nobody connects to
 * the cause), so it is stopped, everything it started with it, and run
 * exits 125 with the cause once the agent is reaped. */
static void pasta_died(struct jail *j, int status)
{
	char last[256] = "", how[64];

	j->pasta = -1;
	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "was killed by signal %d", WTERMSIG(status));
	else
		snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(status));
	jail_pasta_last_line(j, last, sizeof(last));
	fprintf(stderr,
		"ebpfjail: pasta %s%s%s%s: the jail has no network any more, so its agent was "
		"stopped; run it again, and 'ebpfjail doctor' if this recurs\n",
		how, last[0] ? " (\"" : "", last, last[0] ? "\")" : "");
	stop_agent(j);
}

/* A terminal stop and the agent's stop belong together when this close:
 * the signalfd hands out SIGCHLD before SIGTSTP, and a program that
 * catches SIGTSTP tidies its screen before it stops. */
#define JOB_STOP_WINDOW_NS (1000ULL * 1000 * 1000)

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* from_terminal() - a stop signal the terminal sent: Ctrl-Z (SIGTSTP), a
 * background read or write (SIGTTIN, SIGTTOU). The kernel sends those with
 * SI_KERNEL; kill() says SI_USER. */
static bool from_terminal(const struct signalfd_siginfo *si)
{
	return (si->ssi_signo == SIGTSTP || si->ssi_signo == SIGTTIN ||
		si->ssi_signo == SIGTTOU) && si->ssi_code == SI_KERNEL;
}

static void host_changed(struct jail *j);

/* job_stop() - stop with the agent when the terminal stopped it (see the
 * top of the file) as a shell's job stops, the terminal handed back to
 * the shell; once `fg` or `bg` continued us, the agent goes on too (the
 * shell continued our process group, not the agent's). */
static void job_stop(struct jail *j)
{
	int err;

	/* The attack: `kill -STOP $$` in the agent used to stop its
	 * supervisor, and with it the audit log, root's `ebpfjail deny` and
	 * the relays, while the agent's other processes ran on. A stop the
	 * terminal did not send is the agent's business alone. */
	if (!j->agent_stopped || !j->tty_stop_ns || now_ns() - j->tty_stop_ns > JOB_STOP_WINDOW_NS)
		return;
	j->tty_stop_ns = 0;
	/* The agent can make the terminal stop it whenever it likes (a
	 * process group of its own in the foreground, then a read from the
	 * init's), so we stop only with every process of it frozen: a
	 * stopped process continues itself (a timer's SIGCONT) and then the
	 * rest, and a queued request to the init can be forged. Without a
	 * cgroup to freeze there is no job control: the agent goes on. */
	err = j->cg_path[0] ? cgroup_freeze(j->cg_path, true) : -ENOENT;
	if (err) {
		if (!j->job_control_said)
			log_warn("the agent was stopped from the terminal, but without a cgroup to "
				 "freeze it ebpfjail cannot stop with it (the agent could go on "
				 "while nothing watched it): it goes on; end it with Ctrl-C");
		j->job_control_said = true;
		agent_terminal_reclaim(&j->proc);
		kill(-j->proc.pgrp, SIGCONT);
		return;
	}
	agent_terminal_return(&j->proc);
	raise(SIGSTOP);
	/* Continued. What happened meanwhile is in force before the agent
	 * runs again: the host's networks as they are now (a VPN that came up
	 * while we were stopped), and the names that expired. */
	host_changed(j);
	jail_policy_expire_names(&j->policy);
	agent_terminal_give(&j->proc); /* `fg` gave it to us */
	if ((err = cgroup_freeze(j->cg_path, false)))
		log_warn("cannot thaw the agent's cgroup: %s", strerror(-err));
	kill(-j->proc.pgrp, SIGCONT);
}

/* serve_init() - what the agent's init reports: stops and continues (for
 * job control), its end (the exit status). A message that claims to be the
 * init's but comes from another process is dropped. */
static void serve_init(struct jail *j)
{
	struct jailinit_msg m;
	pid_t sender;
	int err;

	while (j->proc.channel >= 0) {
		err = jailinit_receive(j->proc.channel, &m, &sender);
		if (err == -EPIPE) { /* the init is gone: no more reports */
			close(j->proc.channel);
			j->proc.channel = -1;
		}
		if (err && err != -EPROTO)
			return;
		if (err || sender != j->proc.init)
			continue;
		if (m.event == JAILINIT_EXITED) {
			j->agent_exited = true;
			j->agent_status = m.status;
		} else if (m.event == JAILINIT_STOPPED || m.event == JAILINIT_CONTINUED) {
			j->agent_stopped = m.event == JAILINIT_STOPPED;
			job_stop(j);
		} else if (m.event == JAILINIT_TERMINAL_STOP) {
			j->tty_stop_ns = now_ns();
			job_stop(j);
		}
	}
}

/* handle_signal() - returns 1 when the agent's init has exited: the
 * agent's status (or the init's, had it no chance to say) in *status. */
static int handle_signal(struct jail *j, const struct signalfd_siginfo *si, int *status)
{
	int sig = (int)si->ssi_signo, st;
	pid_t pid;

	if (sig != SIGCHLD) {
		if (from_terminal(si)) {
			j->tty_stop_ns = now_ns();
			job_stop(j);
		}
		/* The terminal signals the whole foreground process group,
		 * the agent included: forwarding those would double them.
		 * Signals sent with kill() are for the agent; its init passes
		 * them on. */
		if (si->ssi_code == SI_USER || si->ssi_code == SI_QUEUE)
			sigqueue(j->proc.init, sig, (union sigval){ .sival_int = JAILINIT_FORWARD });
		return 0;
	}
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == j->pasta) {
			pasta_died(j, st);
		} else if (pid == j->proc.init) {
			serve_init(j); /* its last words came before its end */
			j->proc.init = -1; /* reaped: its pid is no longer ours */
			*status = j->agent_exited ? j->agent_status : st;
			return 1;
		}
	}
	return 0;
}

/* serve_control() - answer the clients waiting on the control socket
 * (`ebpfjail reload/allow/deny`), a few at a time so the agent's events and
 * relays keep moving. */
static void serve_control(struct jail *j)
{
	char req[CONTROL_MAX_REQUEST], reply[CONTROL_MAX_REPLY];
	int i, fd;

	for (i = 0; i < 8; i++) {
		fd = control_accept(j->control_fd, req, j->mode == JAIL_MODE_ROOTLESS);
		if (fd == -EAGAIN)
			return;
		if (fd < 0)
			continue;
		jail_policy_request(&j->policy, req, reply, sizeof(reply));
		log_debug("control: %s: %s", req, reply);
		/* Before the reply: a `status` the client runs next shows the
		 * change (under load a reply first let it read the old file). */
		update_status(j);
		control_reply(fd, reply);
	}
}

/* How long the policy may fail to follow the host's networks. */
#define HOST_STALE_MAX_NS (3ULL * 1000 * 1000 * 1000)

/* host_changed() - the host's networks may have changed: the policy follows
 * them, or stays as it is and they are read again in a while. Fail
 * closed: the policy in force blocks what the host had, not what it
 * gained (a VPN that connects, a new route), so a policy that cannot
 * follow for HOST_STALE_MAX_NS stops the agent. */
static void host_changed(struct jail *j)
{
	if (jail_policy_host_changed(&j->policy) >= 0) {
		j->host_stale_ns = 0;
		return;
	}
	if (!j->host_stale_ns)
		j->host_stale_ns = now_ns();
	if (now_ns() - j->host_stale_ns < HOST_STALE_MAX_NS) {
		hostwatch_arm(&j->watch, HOSTWATCH_RETRY_MS);
		return;
	}
	if (j->network_lost)
		return;
	fprintf(stderr, "ebpfjail: the jail could not follow a change of the host's networks for "
			"%llu s, so its agent was stopped (it could have reached a network the host "
			"gained); run it again, and 'ebpfjail doctor' if this recurs\n",
		HOST_STALE_MAX_NS / 1000000000ULL);
	stop_agent(j);
}

/* host_news() - the host's notifications: what it gained blocked at once
 * (the attack: an agent connecting in a loop while a VPN comes up gets
 * through in the wait before the full read), the full read after the
 * burst. A backlog (notifications dropped unread behind a full batch): the
 * host as it is now, read and blocked in place, only ever tighter (what it
 * lost opens after the burst, as for any burst). What nobody could read
 * (an overrun), or a gain that cannot be blocked in place, is read whole
 * now. */
static void host_news(struct jail *j)
{
	const struct hostwatch_news *news = &j->watch.news;
	bool whole = hostwatch_receive(&j->watch) < 0; /* no timer: at once */
	struct hostnet host = { 0 };

	/* The batch's own gains first: that needs no read of the host, so
	 * they hold even if the read below fails. */
	if (news->n_addrs || news->n_routes) {
		if (hostnet_from_dumps(news->addrs, news->n_addrs, news->routes, news->n_routes, &host) ||
		    jail_policy_host_gained(&j->policy, &host) < 0)
			whole = true;
		hostnet_free(&host);
	}
	if (news->backlog && !whole && !news->unknown) {
		if (hostnet_read(&host) || jail_policy_host_gained(&j->policy, &host) < 0)
			whole = true;
		hostnet_free(&host);
	}
	if (whole || news->unknown)
		host_changed(j);
}

/* wait_ms() - the sooner of two epoll_wait() timeouts (-1: none) */
static int wait_ms(int a, int b)
{
	if (a < 0)
		return b;
	return b < 0 || a < b ? a : b;
}

/* ask_denied_again() - the deny-host names whose blocks are near their
 * end asked again (jail_policy_denied_due()), a few a second: the blocks
 * last while the names still answer their addresses */
static void ask_denied_again(struct jail *j)
{
	char names[SUPERVISOR_DENY_ASK_PER_S][DNS_NAME_MAX + 1];
	size_t i, n;

	if (!j->dns)
		return;
	n = jail_policy_denied_due(&j->policy, names, SUPERVISOR_DENY_ASK_PER_S);
	for (i = 0; i < n; i++) {
		int err = dnsfwd_learn(j->dns, names[i]);

		/* The block holds meanwhile (dnsdeny_due()): said once. */
		if (err && !j->deny_ask_failed_said)
			log_warn("jail %s: cannot ask for %s again (%s): its deny-host block holds, "
				 "and it is asked again in %llu s", j->id, names[i], strerror(-err),
				 JAIL_DENY_ASK_AHEAD_NS / 1000000000ULL);
		j->deny_ask_failed_said |= err != 0;
	}
}

/* every_second() - what is not per event: the window's count records,
 * losses, the status file. Reading the counters after every wakeup cost a
 * relayed round trip its latency six times over (one bpf() per slot). */
static void every_second(struct jail *j)
{
	__u64 c[COUNTER_SLOTS], now[COUNTER_SLOTS];

	ask_denied_again(j);
	jail_policy_expire_names(&j->policy);
	close_dns_window(j); /* the forwarder's: not the engine's to read */
	/* The settled counters may lag a read behind the ones now (engine.h);
	 * now first: where both are exact (BPF), @c then counts at least
	 * what @now does, and an idle window never skips a denial. */
	if (engine_counters(j, ENGINE_COUNTERS_NOW, now) ||
	    engine_counters(j, ENGINE_COUNTERS_SETTLED, c))
		return;
	close_window(j, c, denials_in(now));
	show_status(j, now);
}

/* What woke the loop: each registered descriptor carries its kind, and the
 * loop switches on it (passt's union epoll_ref, epoll_type.h). */
enum wake {
	WAKE_SIGNAL,      /* the signalfd */
	WAKE_SECOND,      /* the timerfd: once a second */
	WAKE_ENGINE,      /* the engine's denial events */
	WAKE_RELAYS,
	WAKE_CONTROL,     /* a client of the control socket */
	WAKE_INIT,        /* the agent's init says something */
	WAKE_HOST,        /* the host's netlink notifications */
	WAKE_HOST_TIMER,  /* the full read after a burst of them is due */
};

static const char *const wake_name[] = {
	[WAKE_SIGNAL] = "signals",          [WAKE_SECOND] = "second timer",
	[WAKE_ENGINE] = "engine's events",  [WAKE_RELAYS] = "relays",
	[WAKE_CONTROL] = "control socket",
	[WAKE_INIT] = "agent's init",       [WAKE_HOST] = "host's notifications",
	[WAKE_HOST_TIMER] = "host's timer",
};

/* watch() - @fd into the loop as @kind. A registration that fails is a
 * jail that would stop hearing something (its denials, its agent's exit,
 * the host gaining a network) with nothing said: the caller fails closed.
 * Return: 0 or -errno (logged). */
static int watch(struct supervisor_loop *l, int fd, enum wake kind)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = kind };

	if (epoll_ctl(l->efd, EPOLL_CTL_ADD, fd, &ev))
		return log_err(-errno, "cannot watch the %s: %s", wake_name[kind], strerror(errno));
	return 0;
}

void supervisor_close(struct supervisor_loop *l)
{
	if (l->tfd >= 0)
		close(l->tfd);
	if (l->efd >= 0)
		close(l->efd);
	if (l->sfd >= 0)
		close(l->sfd);
	l->sfd = l->efd = l->tfd = -1;
}

int supervisor_open(struct supervisor_loop *l, struct jail *j, const sigset_t *set)
{
	struct itimerspec second = { { 1, 0 }, { 1, 0 } };
	int err;

	l->sfd = signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
	l->efd = epoll_create1(EPOLL_CLOEXEC);
	if (l->sfd < 0 || l->efd < 0) {
		err = log_err(-errno, "cannot watch signals: %s", strerror(errno));
		goto fail;
	}
	err = watch(l, l->sfd, WAKE_SIGNAL);
	if (err)
		goto fail;
	/* Without a timerfd, epoll_wait()'s timeout stands in for it. */
	l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (l->tfd >= 0 && (timerfd_settime(l->tfd, 0, &second, NULL) || watch(l, l->tfd, WAKE_SECOND))) {
		close(l->tfd);
		l->tfd = -1;
	}
	err = j->engine ? watch(l, engine_events_fd(j->engine), WAKE_ENGINE) : 0;
	if (!err && j->relays)
		err = watch(l, relays_fd(j->relays), WAKE_RELAYS);
	/* The forwarder's sockets in this set themselves: a query is one
	 * wakeup, not a wakeup and a second epoll_wait() of its own set. */
	if (!err && j->dns) {
		err = dnsfwd_join(j->dns, l->efd);
		if (err)
			log_err(err, "cannot watch the DNS forwarder: %s", strerror(-err));
	}
	if (!err && j->control_fd >= 0)
		err = watch(l, j->control_fd, WAKE_CONTROL);
	if (!err && j->watch.fd >= 0)
		err = watch(l, j->watch.fd, WAKE_HOST);
	if (!err && j->watch.fd >= 0)
		err = watch(l, j->watch.timer_fd, WAKE_HOST_TIMER);
	if (!err)
		return 0;
fail:
	supervisor_close(l);
	return err;
}

/* dispatch() - one wakeup of @kind. Return: 1 once the agent is reaped. */
static int dispatch(struct jail *j, struct supervisor_loop *l, enum wake kind, int *status)
{
	struct signalfd_siginfo si;
	uint64_t ticks;
	int done = 0;

	switch (kind) {
	case WAKE_SIGNAL:
		while (!done && read(l->sfd, &si, sizeof(si)) == sizeof(si))
			done = handle_signal(j, &si, status);
		break;
	case WAKE_SECOND:
		if (read(l->tfd, &ticks, sizeof(ticks)) == sizeof(ticks))
			every_second(j);
		break;
	case WAKE_ENGINE:
		engine_poll(j);
		break;
	case WAKE_RELAYS:
		relays_dispatch(j->relays);
		break;
	case WAKE_CONTROL:
		serve_control(j);
		break;
	case WAKE_INIT:
		serve_init(j);
		break;
	case WAKE_HOST:
		host_news(j);
		break;
	case WAKE_HOST_TIMER:
		if (hostwatch_due(&j->watch))
			host_changed(j);
		break;
	}
	return done;
}

int supervise(struct jail *j, struct supervisor_loop *l, int *status)
{
	struct epoll_event got[4];
	int done = 0, i, n, err = 0;

	*status = 0;
	/* The init's channel exists once the agent was spawned. */
	if (j->proc.channel >= 0)
		err = watch(l, j->proc.channel, WAKE_INIT);
	if (err) {
		fprintf(stderr, "ebpfjail: the jail cannot hear its agent's init, so the agent was "
				"stopped\n");
		stop_agent(j);
		goto out;
	}
	/* The agent may have exited before the signalfd existed. */
	{
		struct signalfd_siginfo si = { .ssi_signo = SIGCHLD };

		done = handle_signal(j, &si, status);
	}
	while (!done) {
		int held = audit_log_due(&j->audit);

		/* Held audit lines (the DNS records) are written when due. */
		if (held == 0) {
			audit_log_flush(&j->audit);
			held = -1;
		}
		n = epoll_wait(l->efd, got, 4, wait_ms(l->tfd >= 0 ? -1 : 1000, held));
		if (n == 0 && held < 0)
			every_second(j);
		for (i = 0; i < n && !done; i++)
			if (got[i].data.u64 & DNSFWD_EVENT)
				dnsfwd_event(j->dns, got[i].data.u64);
			else
				done = dispatch(j, l, (enum wake)got[i].data.u64, status);
	}
out:
	supervisor_close(l);
	agent_terminal_return(&j->proc); /* the agent is gone: to the shell */
	if (j->proc.tty >= 0)
		close(j->proc.tty);
	j->proc.tty = -1;
	if (err)
		return err;
	return j->network_lost ? -ENETDOWN : 0;
}

void supervisor_drain(struct jail *j)
{
	__u64 c[COUNTER_SLOTS];

	/* The agent is gone: what the ring buffer holds (nothing adds to
	 * it now, so this ends), then the last window, exactly. An event
	 * left unread would be counted as shown and never written. */
	while (engine_poll(j) > 0)
		;
	if (engine_counters(j, ENGINE_COUNTERS_FINAL, c) == 0)
		close_window(j, c, denials_in(c));
	close_dns_window(j);
	denial_book_free(&j->book);
	free(j->dns_refused);
	j->dns_refused = NULL;
}
