// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_run.c - `ebpfjail run`: build the jail, run the agent in it, clean up
 *
 * Theory of operation
 * -------------------
 * Setup, in an order where every step can fail closed (exit 125, nothing
 * started) and nothing is ever open before it is filtered:
 *   1. configuration, user, prerequisites; leftovers of dead jails removed
 *   2. state directory /run/ebpfjail/ID (so a killed run can be cleaned up)
 *   3. host facts over netlink -> policy -> BPF programs loaded and filled
 *   4. cgroup ROOT/ebpfjail/ID with the socket hooks attached
 *   5. network namespace (IPv6 off), pasta joined to it, tap up
 *   6. routes rebuilt and verified, TC classifier on the tap
 *   7. the agent: into the cgroup and namespace, as the user, no privileges
 * Then the supervisor waits: denial events go to the audit log, signals
 * that did not come from the terminal are forwarded, a stopped agent stops
 * the supervisor too (job control), and the agent's status becomes ours.
 * Cleanup on every path kills the cgroup first (so nothing runs after its
 * filters go), then pasta, the namespace and the programs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "agent.h"
#include "audit.h"
#include "cgroup.h"
#include "cli.h"
#include "control.h"
#include "hostnet.h"
#include "jailstate.h"
#include "loader.h"
#include "log.h"
#include "netaddr.h"
#include "netlink.h"
#include "netns.h"
#include "pasta.h"
#include "policy.h"
#include "policyctl.h"
#include "probe.h"
#include "relay.h"
#include "routes.h"

extern char **environ;

struct jail {
	char id[JAIL_ID_LEN + 1];
	char state_dir[256];
	char pasta_log[300];     /* pasta's stderr, for the refusal line */
	char pasta_path[4096];
	char cg_path[4096];
	int cg_fd;
	struct netns ns;
	pid_t pasta;
	pid_t agent;
	bool network_lost;         /* pasta died under the agent: exit 125 */
	struct jail_bpf *bpf;
	struct jail_policy policy; /* what reload, allow and deny change */
	int control_fd;            /* /run/ebpfjail/ID/control, or -1 */
	struct relays *relays;
	struct audit_log audit;
	struct summary summary;
	uint64_t lost_logged;
	struct jail_status status;
	time_t status_written;
};

/* refuse() - the one line of a fail-closed exit: the cause and the fix. */
static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int refuse(const char *fmt, ...)
{
	va_list ap;

	fputs("ebpfjail: cannot start the jail: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_REFUSED;
}

static int exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_REFUSED;
}

/* --- events ---------------------------------------------------------------- */

static int on_event(void *ctx, const struct jail_event *e)
{
	struct jail *j = ctx;
	char line[AUDIT_LINE_MAX];
	size_t len;

	summary_add(&j->summary, e);
	if (j->audit.fd < 0)
		return 0;
	len = audit_format_event(e, j->id, audit_event_wall_time(e->time_ns), line, sizeof(line));
	if (audit_log_append(&j->audit, line, len))
		log_debug("cannot write to the audit log: %s", strerror(errno));
	return 0;
}

/* log_lost() - events the ring buffer could not hold become one record. */
static void log_lost(struct jail *j)
{
	__u64 c[COUNTER_SLOTS];
	uint64_t lost = 0;
	struct timespec now;
	char line[AUDIT_LINE_MAX];
	unsigned int hook;
	size_t len;

	if (!j->bpf || loader_read_counters(j->bpf, c))
		return;
	for (hook = 0; hook < HOOK_COUNT; hook++)
		lost += c[hook * COUNTER_STRIDE + COUNTER_LOST];
	if (lost <= j->lost_logged)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	len = audit_format_lost(j->id, lost - j->lost_logged, now, line, sizeof(line));
	if (j->audit.fd >= 0)
		audit_log_append(&j->audit, line, len);
	j->summary.lost += lost - j->lost_logged;
	j->lost_logged = lost;
}

/* update_status() - what `ebpfjail status` shows: counters, relays */
static void update_status(struct jail *j)
{
	struct jail_status *st = &j->status;
	struct relay_listener_stats ls;
	__u64 c[COUNTER_SLOTS];
	unsigned int hook, reason, i;

	if (!j->state_dir[0] || !j->bpf || loader_read_counters(j->bpf, c))
		return;
	st->allowed = st->lost = 0;
	memset(st->denied, 0, sizeof(st->denied));
	for (hook = 0; hook < HOOK_COUNT; hook++) {
		for (reason = 0; reason < REASON_COUNT; reason++) {
			__u64 n = c[hook * COUNTER_STRIDE + reason];

			if (reason < REASON_FIRST_DENY)
				st->allowed += n;
			else
				st->denied[reason] += n;
		}
		st->lost += c[hook * COUNTER_STRIDE + COUNTER_LOST];
	}
	for (i = 0; j->relays && i < STATUS_RELAYS_MAX && !relays_listener(j->relays, i, &ls); i++) {
		snprintf(st->relays[i].kind, sizeof(st->relays[i].kind), "%s",
			 ls.dir == RELAY_INTO_HOST ? "local" : "callback");
		st->relays[i].port = ls.port;
		st->relays[i].open = ls.open;
		st->relays[i].total = ls.total;
	}
	st->n_relays = i;
	live_format(&j->policy.live, st->temporary, sizeof(st->temporary));
	jailstate_write_status(j->state_dir, st);
	j->status_written = time(NULL);
}

static void start_status(struct jail *j, char **argv, const struct agent_user *u)
{
	size_t used = 0;
	int i;

	j->status.agent = j->agent;
	j->status.uid = u->uid;
	snprintf(j->status.user, sizeof(j->status.user), "%s", u->name);
	j->status.started = time(NULL);
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

/* --- setup ----------------------------------------------------------------- */

static int write_resolv_conf(const char *path, uint32_t dns)
{
	char addr[NETADDR_CIDR_STRLEN], *line = NULL;
	size_t cap = 0;
	FILE *in, *out;

	out = fopen(path, "we");
	if (!out)
		return -errno;
	netaddr_format(dns, addr);
	fprintf(out, "# ebpfjail: DNS goes through pasta's forwarder to the host's resolver\n"
		     "nameserver %s\n",
		addr);
	/* search, domain and options stay as the host has them: names that
	 * resolve outside resolve inside. Host nameservers are not copied:
	 * they are blocked in the jail. */
	in = fopen("/etc/resolv.conf", "re");
	while (in && getline(&line, &cap, in) > 0)
		if (!strncmp(line, "search", 6) || !strncmp(line, "domain", 6) ||
		    !strncmp(line, "options", 7))
			fputs(line, out);
	if (in)
		fclose(in);
	free(line);
	fchmod(fileno(out), 0644);
	return fclose(out) ? -errno : 0;
}

/* last_line() - the last line pasta logged that is not syslog noise */
static void last_line(const char *path, char *buf, size_t size)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	while (f && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] && !strstr(line, "syslog"))
			snprintf(buf, size, "%s", line);
	}
	if (f)
		fclose(f);
	free(line);
}

static int wait_for_tap(struct jail *j, int *ifindex)
{
	struct timespec step = { 0, 1000 * 1000 };
	int i, status;

	for (i = 0; i < 5000; i++) { /* at most 5 s */
		*ifindex = nl_link_index(PASTA_IFNAME);
		if (*ifindex > 0)
			return 0;
		if (waitpid(j->pasta, &status, WNOHANG) == j->pasta) {
			j->pasta = -1;
			return -ECHILD;
		}
		nanosleep(&step, NULL);
	}
	return -ETIMEDOUT;
}

/* start_network() - the namespace (IPv6 off before anything can use it)
 * and pasta. pasta takes a few milliseconds to come up: the caller loads
 * the BPF programs meanwhile, then finish_network() waits for the tap.
 * Nothing runs in the namespace before the agent, which starts last. */
static int start_network(struct jail *j, const struct hostnet *host)
{
	struct pasta_opts po = { .path = j->pasta_path, .addr = host->default_addr,
				 .gateway = host->default_gateway,
				 .dns_forward = htonl(PASTA_DNS_FORWARD) };
	char version[128];
	int lo, err;

	if (pasta_find(j->pasta_path, sizeof(j->pasta_path)))
		return refuse("pasta is not on PATH; install it: apt-get install passt");
	j->policy.dns_forward = po.dns_forward;
	j->policy.dns_tcp = pasta_binary_forwards_tcp_dns(j->pasta_path, version, sizeof(version));
	log_debug("pasta %s, version %s: %s DNS", j->pasta_path, version,
		  j->policy.dns_tcp ? "UDP and TCP" : "UDP only (TCP 53 refused)");

	if (netns_create(&j->ns))
		return refuse("cannot create a network namespace; run as root on a kernel with "
			      "network namespaces");
	if (netns_enter(&j->ns))
		return EXIT_REFUSED;
	err = netns_disable_ipv6();
	if (!err) {
		lo = nl_link_index("lo");
		err = lo > 0 ? nl_link_up(lo) : lo;
	}
	netns_leave(&j->ns);
	if (err)
		return refuse("cannot configure the jail's namespace: %s", strerror(-err));

	snprintf(j->pasta_log, sizeof(j->pasta_log), "%s/pasta.log", j->state_dir);
	po.netns_pid = j->ns.holder;
	po.log_path = j->pasta_log;
	if (pasta_start(&po, &j->pasta))
		return refuse("cannot start pasta: %s", strerror(errno));
	return 0;
}

/* finish_network() - wait for pasta's tap, rebuild and verify the routes,
 * attach the TC filter. */
static int finish_network(struct jail *j, const struct hostnet *host)
{
	struct jail_net net = { .addr = host->default_addr, .gateway = host->default_gateway };
	struct net_state state;
	char why[256];
	int err;

	if (netns_enter(&j->ns))
		return EXIT_REFUSED;
	net.lo_ifindex = nl_link_index("lo");
	err = wait_for_tap(j, &net.tap_ifindex);
	netns_leave(&j->ns);
	if (err == -ECHILD) {
		char last[256] = "";

		last_line(j->pasta_log, last, sizeof(last));
		return refuse("pasta exited at start (\"%s\"); check 'pasta --version' and that "
			      "/dev/net/tun is usable",
			      last);
	}
	if (err)
		return refuse("pasta did not create the jail's interface within 5 s (its log: %s)",
			      j->pasta_log);
	netns_release_holder(&j->ns);

	if (netns_enter(&j->ns))
		return EXIT_REFUSED;
	err = routes_rebuild(&net);
	if (!err)
		err = routes_read(&state);
	if (!err) {
		err = routes_check(&net, &state, why, sizeof(why));
		routes_state_free(&state);
		if (err) {
			netns_leave(&j->ns);
			return refuse("the jail's routing is not what was set: %s", why);
		}
	}
	if (!err)
		err = loader_attach_tc(j->bpf, net.tap_ifindex);
	netns_leave(&j->ns);
	if (err)
		return refuse("cannot set up the jail's routes and TC filter: %s", strerror(-err));
	return 0;
}

static int build_jail(struct jail *j, char *resolv_path, size_t resolv_size)
{
	struct loader_options lo = { .on_event = on_event, .ctx = j };
	struct probe_result pr;
	struct hostnet host;
	char root[4096];
	int err;

	/* The same checks as `ebpfjail doctor`, so it never says ok about
	 * what this refuses. */
	if (probe_tun(&pr) == PROBE_FAIL || probe_cgroup(&pr, root, sizeof(root)) == PROBE_FAIL ||
	    probe_pasta(&pr, false) == PROBE_FAIL)
		return refuse("%s; %s", pr.detail, pr.fix);

	jailstate_cleanup_dead(root);
	err = jailstate_create(j->id, getpid(), j->state_dir, sizeof(j->state_dir));
	if (err)
		return refuse("cannot create the jail's state under %s: %s", JAILSTATE_DIR,
			      strerror(-err));

	err = hostnet_read(&host);
	if (err)
		return refuse("cannot read the host's addresses and routes: %s", strerror(-err));
	if (!host.default_gateway || !host.default_addr) {
		hostnet_free(&host);
		return refuse("the host has no IPv4 default route with an address: the jail would "
			      "have nothing to reach");
	}
	err = start_network(j, &host);
	if (err) {
		hostnet_free(&host);
		return err;
	}
	err = loader_open(&lo, &j->bpf);
	if (!err) {
		j->policy.bpf = j->bpf;
		j->policy.gateway = host.default_gateway;
		err = jail_policy_install(&j->policy, &host);
	}
	log_debug("policy: %zu rules", j->policy.rules.n);
	if (err) {
		hostnet_free(&host);
		if (err == -E2BIG)
			return refuse("the policy does not fit the BPF map (%u entries at most); "
				      "use fewer allow-ip and block-cidr entries",
				      POLICY_MAX_ENTRIES);
		return refuse("cannot load the BPF programs (%s); run 'ebpfjail doctor'",
			      strerror(-err));
	}

	err = cgroup_jail_create(root, j->id, j->cg_path, sizeof(j->cg_path), &j->cg_fd);
	if (!err)
		err = jailstate_set_cgroup(j->state_dir, j->cg_path);
	if (!err)
		err = loader_attach_cgroup(j->bpf, j->cg_fd);
	if (err) {
		hostnet_free(&host);
		return refuse("cannot set up the jail's cgroup under %s: %s", root, strerror(-err));
	}

	err = finish_network(j, &host);
	if (!err) {
		snprintf(resolv_path, resolv_size, "%s/resolv.conf", j->state_dir);
		err = write_resolv_conf(resolv_path, j->policy.dns_forward);
		if (err)
			err = refuse("cannot write the jail's resolv.conf: %s", strerror(-err));
	}
	hostnet_free(&host);
	return err;
}

/* start_relays() - local ports into the host (fail closed: the user asked
 * for them), callback ports into the jail (a busy host port only warns). */
static int start_relays(struct jail *j, const struct config *cfg)
{
	uint16_t model = cfg->local_model_port;
	size_t i, n = cfg->n_local_port;
	int err;

	j->relays = relays_new(j->ns.host_fd, j->ns.fd);
	if (!j->relays)
		return refuse("cannot set up the relays: %s", strerror(errno));
	/* The local ports, then the model port unless it is one of them. */
	for (i = 0; i < n; i++)
		if (cfg->local_port[i].port == model)
			model = 0;
	for (i = 0; i < n + (model != 0); i++) {
		uint16_t port = i < n ? cfg->local_port[i].port : model;

		err = relays_add(j->relays, RELAY_INTO_HOST, port);
		if (err)
			return refuse("local-port %u: cannot listen on the jail's 127.0.0.1:%u: %s", port,
				      port, strerror(-err));
	}
	for (i = 0; i < cfg->n_callback_port; i++) {
		uint16_t port = cfg->callback_port[i].port;

		err = relays_add(j->relays, RELAY_INTO_JAIL, port);
		if (err)
			log_warn("callback-port %u: cannot listen on the host's 127.0.0.1:%u (%s); this "
				 "relay is skipped",
				 port, port, err == -EADDRINUSE ? "already in use" : strerror(-err));
	}
	return 0;
}

static void destroy_jail(struct jail *j)
{
	/* Processes first: nothing may run once its filters are gone. */
	if (j->cg_path[0] && cgroup_destroy(j->cg_path) == 0)
		j->cg_path[0] = '\0';
	if (j->cg_fd >= 0)
		close(j->cg_fd);
	relays_free(j->relays);
	j->relays = NULL;
	if (j->control_fd >= 0)
		close(j->control_fd);
	j->control_fd = -1;
	pasta_stop(j->pasta);
	netns_close(&j->ns);
	if (j->bpf) {
		loader_events_poll(j->bpf, 0);
		log_lost(j);
	}
	loader_close(j->bpf);
	j->bpf = NULL;
	jail_policy_free(&j->policy);
	audit_log_close(&j->audit);
	/* A cgroup that would not go stays recorded for the next run. */
	if (!j->cg_path[0])
		jailstate_remove(j->state_dir);
}

/* --- supervision ----------------------------------------------------------- */

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH, SIGUSR1, SIGUSR2 };

static void block_signals(sigset_t *set)
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
}

/* pasta_died() - the jail's network is gone with pasta: an agent must not
 * run on without it in silence (it would fail in ways nobody connects to
 * the cause), so it is stopped, everything it started with it, and run
 * exits 125 with the cause once the agent is reaped. */
static void pasta_died(struct jail *j, int status)
{
	char last[256] = "", how[64];
	size_t i;

	j->pasta = -1;
	j->network_lost = true;
	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "was killed by signal %d", WTERMSIG(status));
	else
		snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(status));
	last_line(j->pasta_log, last, sizeof(last));
	for (i = 0; last[i]; i++) /* its log is not ours to pass to a terminal raw */
		if ((unsigned char)last[i] < 0x20 || last[i] == 0x7f)
			last[i] = '?';
	fprintf(stderr,
		"ebpfjail: pasta %s%s%s%s: the jail has no network any more, so its agent was "
		"stopped; run it again, and 'ebpfjail doctor' if this recurs\n",
		how, last[0] ? " (\"" : "", last, last[0] ? "\")" : "");
	if (j->cg_path[0])
		cgroup_kill(j->cg_path);
}

/* handle_signal() - returns 1 when the agent has exited (status in *status). */
static int handle_signal(struct jail *j, const struct signalfd_siginfo *si, int *status)
{
	int sig = (int)si->ssi_signo, st;
	pid_t pid;

	if (sig != SIGCHLD) {
		/* The terminal signals the whole foreground process group,
		 * the agent included: forwarding those would double them.
		 * Signals sent with kill() are for the agent. */
		if (si->ssi_code == SI_USER || si->ssi_code == SI_QUEUE)
			kill(j->agent, sig);
		return 0;
	}
	while ((pid = waitpid(-1, &st, WNOHANG | WUNTRACED)) > 0) {
		if (pid == j->pasta && !WIFSTOPPED(st)) {
			pasta_died(j, st);
		} else if (pid == j->agent && WIFSTOPPED(st)) {
			/* Job control: the agent stopped (Ctrl-Z), so do we,
			 * so the shell sees the job stop; SIGCONT from `fg`
			 * reaches the whole group again. */
			raise(SIGSTOP);
		} else if (pid == j->agent) {
			*status = st;
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
		fd = control_accept(j->control_fd, req);
		if (fd == -EAGAIN)
			return;
		if (fd < 0)
			continue;
		jail_policy_request(&j->policy, req, reply, sizeof(reply));
		log_debug("control: %s: %s", req, reply);
		control_reply(fd, reply);
		update_status(j); /* `ebpfjail status` shows the change at once */
	}
}

static int supervise(struct jail *j, const sigset_t *set)
{
	struct epoll_event ev = { .events = EPOLLIN }, got[4];
	int sfd, efd, status = 0, done = 0, i, n;

	sfd = signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
	efd = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || efd < 0)
		return log_err(EXIT_REFUSED, "cannot watch signals: %s", strerror(errno));
	ev.data.fd = sfd;
	epoll_ctl(efd, EPOLL_CTL_ADD, sfd, &ev);
	if (j->bpf) {
		ev.data.fd = loader_events_fd(j->bpf);
		epoll_ctl(efd, EPOLL_CTL_ADD, ev.data.fd, &ev);
	}
	if (j->relays) {
		ev.data.fd = relays_fd(j->relays);
		epoll_ctl(efd, EPOLL_CTL_ADD, ev.data.fd, &ev);
	}
	if (j->control_fd >= 0) {
		ev.data.fd = j->control_fd;
		epoll_ctl(efd, EPOLL_CTL_ADD, ev.data.fd, &ev);
	}
	/* The agent may have exited before the signalfd existed. */
	{
		struct signalfd_siginfo si = { .ssi_signo = SIGCHLD };

		done = handle_signal(j, &si, &status);
	}
	while (!done) {
		n = epoll_wait(efd, got, 4, 1000);
		for (i = 0; i < n && !done; i++) {
			struct signalfd_siginfo si;

			if (j->relays && got[i].data.fd == relays_fd(j->relays)) {
				relays_dispatch(j->relays);
				continue;
			}
			if (got[i].data.fd == j->control_fd) {
				serve_control(j);
				continue;
			}
			if (got[i].data.fd != sfd) {
				loader_events_poll(j->bpf, 0);
				continue;
			}
			while (!done && read(sfd, &si, sizeof(si)) == sizeof(si))
				done = handle_signal(j, &si, &status);
		}
		if (j->bpf)
			log_lost(j);
		if (time(NULL) != j->status_written)
			update_status(j);
	}
	close(efd);
	close(sfd);
	return j->network_lost ? EXIT_REFUSED : exit_status(status);
}

static int spawn_error(int err, const char *command)
{
	if (err == -ENOENT) {
		fprintf(stderr, "ebpfjail: %s: command not found\n", command);
		return 127;
	}
	if (err == -EACCES || err == -ENOEXEC || err == -EISDIR || err == -ELOOP) {
		fprintf(stderr, "ebpfjail: %s: cannot execute: %s\n", command, strerror(-err));
		return 126;
	}
	return refuse("cannot start %s: %s", command, strerror(-err));
}

static int run_unjailed(char **argv, const struct agent_user *u, const struct config *cfg)
{
	struct agent_spec spec = { .argv = argv, .user = u, .cgroup_fd = -1, .netns_fd = -1 };
	char **env = agent_env(environ, u, cfg);
	struct jail j = { .agent = -1, .pasta = -1, .audit = { .fd = -1 } };
	sigset_t set;
	int err;

	fprintf(stderr,
		"ebpfjail: WARNING: egress-jail = off: %s runs WITHOUT the network jail; it can "
		"reach your LAN, the host's services and cloud metadata\n",
		argv[0]);
	if (!env)
		return refuse("out of memory");
	spec.envp = env;
	block_signals(&set);
	err = agent_spawn(&spec, &j.agent);
	agent_env_free(env);
	if (err)
		return spawn_error(err, argv[0]);
	return supervise(&j, &set);
}

int cmd_run(const struct command *cmd, int argc, char **argv)
{
	struct jail j = { .cg_fd = -1, .pasta = -1, .agent = -1, .audit = { .fd = -1 },
			  .control_fd = -1,
			  .ns = { .holder = -1, .fd = -1, .host_fd = -1 } };
	char why[512], resolv[300];
	struct agent_user user;
	struct agent_spec spec;
	struct cli_options o;
	struct config cfg;
	char **env = NULL;
	sigset_t set;
	int ret, err;

	ret = cli_parse(cmd, argc, argv, &o);
	if (ret != CLI_CONTINUE) {
		cli_options_free(&o);
		return ret;
	}
	if (o.n_rest == 0) {
		cli_options_free(&o);
		return cli_usage_error(cmd, "run: missing COMMAND");
	}
	config_init(&cfg);
	if (cli_load_config(&cfg, &o)) {
		ret = refuse("the configuration is invalid (see above); run 'ebpfjail config'");
		goto out;
	}
	{
		struct probe_result pr;

		if (probe_privileges(&pr) == PROBE_FAIL) {
			ret = refuse("%s; %s", pr.detail, pr.fix);
			goto out;
		}
	}
	if (agent_user_resolve(o.user, environ, &user, why, sizeof(why))) {
		ret = refuse("%s", why);
		goto out;
	}
	if (!cfg.egress_jail) {
		ret = run_unjailed(o.rest, &user, &cfg);
		goto out;
	}
	/* The agent must not read the supervisor's memory (host-side sockets,
	 * the policy): not dumpable, so not ptrace-able even by the same uid. */
	prctl(PR_SET_DUMPABLE, 0);
	jailstate_new_id(j.id);
	j.policy = (struct jail_policy){ .id = j.id, .opts = &o, .cfg = &cfg, .audit = &j.audit,
					 .agent_uid = user.uid };
	block_signals(&set);
	ret = build_jail(&j, resolv, sizeof(resolv));
	if (!ret)
		ret = start_relays(&j, &cfg);
	if (ret)
		goto cleanup;
	if (audit_log_open(&j.audit, cfg.audit_log)) {
		ret = refuse("the audit log %s cannot be written; set audit-log to a writable path",
			     cfg.audit_log);
		goto cleanup;
	}
	j.control_fd = control_listen(j.state_dir);
	if (j.control_fd < 0) {
		ret = refuse("cannot create the jail's control socket in %s: %s", j.state_dir,
			     strerror(-j.control_fd));
		goto cleanup;
	}

	env = agent_env(environ, &user, &cfg);
	if (!env) {
		ret = refuse("out of memory");
		goto cleanup;
	}
	spec = (struct agent_spec){ .argv = o.rest, .envp = env, .user = &user,
				    .cgroup_fd = j.cg_fd, .netns_fd = j.ns.fd,
				    .resolv_conf = resolv };
	log_debug("jail %s ready: starting %s as uid %u", j.id, o.rest[0], user.uid);
	err = agent_spawn(&spec, &j.agent);
	if (err) {
		ret = spawn_error(err, o.rest[0]);
		goto cleanup;
	}
	start_status(&j, o.rest, &user);
	ret = supervise(&j, &set);
	loader_events_poll(j.bpf, 0);
	log_lost(&j);
	{
		char line[1024];

		if (summary_format(&j.summary, line, sizeof(line)))
			fputs(line, stderr);
	}
cleanup:
	destroy_jail(&j);
out:
	agent_env_free(env);
	config_free(&cfg);
	cli_options_free(&o);
	return ret;
}
