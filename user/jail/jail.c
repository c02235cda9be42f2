// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* jail.c - one jail's parts: build them in a fail-closed order, tear them down
 *
 * Theory of operation
 * -------------------
 * jail_build() goes in an order where every step can fail closed (nothing
 * started, the caller exits 125) and nothing is ever open before it is
 * filtered:
 *   1. prerequisites (the checks `ebpfjail doctor` makes); leftovers of
 *      dead jails removed; state directory /run/ebpfjail/ID (so a killed
 *      run can be cleaned up)
 *   2. the watch on the host's addresses and routes (hostwatch.c), host
 *      facts over netlink; cgroup ROOT/ebpfjail/ID (rootless: where the
 *      user may make one); network namespace (IPv6 off) and pasta
 *      started; meanwhile the engine opened (BPF: its socket hooks on
 *      the cgroup, denying all until) the policy is in force
 *   3. pasta's tap awaited, routes rebuilt and verified, the engine's
 *      part on the tap (BPF's TC classifier), the gateway answering; the
 *      jail's resolv.conf
 *   4. relays, audit log, control socket; then the relays' cap on
 *      connections, from the descriptors left (see limit_relays())
 * The agent is started by the caller, last, into the cgroup and namespace.
 * Every failure returns -errno and leaves a one-line cause and fix in
 * j->why; what was built stays for jail_destroy(), which undoes it on
 * every path, processes first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "control.h"
#include "hostnet.h"
#include "jail.h"
#include "landlock.h"
#include "log.h"
#include "netaddr.h"
#include "netlink.h"
#include "pasta.h"
#include "policy.h"
#include "probe.h"
#include "routes.h"
#include "tapcheck.h"
#include "unixpolicy.h"

/* fail() - record the one line of a fail-closed refusal: the cause and the
 * fix. Return: @err. */
static int fail(struct jail *j, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct jail *j, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
	return err;
}

static int write_resolv_conf(const char *path, uint32_t dns)
{
	char addr[NETADDR_CIDR_STRLEN], *line = NULL;
	size_t cap = 0;
	FILE *in, *out;

	out = fopen(path, "we");
	if (!out)
		return -errno;
	netaddr_format(dns, addr);
	fprintf(out, "# ebpfjail: DNS goes through the jail's forwarder to the host's resolver\n"
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

void jail_protections(struct jail *j, bool share_tmp, char *buf, size_t size)
{
	snprintf(buf, size, "pid-namespace %s seccomp netns-rule %s%s%s",
		 j->mode == JAIL_MODE_ROOTLESS ? "user-namespace" : "cgroup-namespace",
		 share_tmp ? "shared-tmp" : "private-tmp",
		 j->engine && engine_has_unix_hooks(j->engine) ? " unix-hooks" : "",
		 landlock_abi() >= LANDLOCK_ABI_SCOPES ? " landlock-scopes" : "");
}

void jail_pasta_last_line(const struct jail *j, char *buf, size_t size)
{
	char *line = NULL;
	size_t cap = 0, i;
	FILE *f = fopen(j->pasta_log, "re");

	buf[0] = '\0';
	while (f && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] && !strstr(line, "syslog"))
			snprintf(buf, size, "%s", line);
	}
	if (f)
		fclose(f);
	free(line);
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
}

/* pasta_reaped() - has pasta exited (and been reaped now)? */
static bool pasta_reaped(struct jail *j)
{
	int status;

	if (j->pasta > 0 && waitpid(j->pasta, &status, WNOHANG) == j->pasta)
		j->pasta = -1;
	return j->pasta < 0;
}

/* pasta_exited_late() - a pasta that dies after its tap appeared takes the
 * tap with it before it can be reaped, and what then fails on the tap
 * (routes, TC, the check) is only its echo: wait (at most 1 s) to see it
 * exit, for a message that names the cause. */
static bool pasta_exited_late(struct jail *j)
{
	struct timespec step = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 100 && !pasta_reaped(j); i++)
		nanosleep(&step, NULL);
	return j->pasta < 0;
}

static int fail_pasta_exited(struct jail *j)
{
	char last[256] = "";

	jail_pasta_last_line(j, last, sizeof(last));
	return fail(j, -ECHILD, "pasta exited at start (\"%s\"); check 'pasta --version' and that "
		    "/dev/net/tun is usable; in a container, see README.md \"In a container\"",
		    last);
}

static int wait_for_tap(struct jail *j, int *ifindex)
{
	struct timespec step = { 0, 1000 * 1000 };
	int i;

	for (i = 0; i < 5000; i++) { /* at most 5 s */
		*ifindex = nl_link_index(PASTA_IFNAME);
		if (*ifindex > 0)
			return 0;
		if (pasta_reaped(j))
			return -ECHILD;
		nanosleep(&step, NULL);
	}
	return -ETIMEDOUT;
}

/* find_pasta() - pasta on PATH, if only root can have put it there, and
 * the forward address the jail's DNS goes to (its forwarder's, on lo) */
static int find_pasta(struct jail *j)
{
	char version[128];

	if (pasta_find(j->pasta_path, sizeof(j->pasta_path)))
		return fail(j, -ENOENT, "pasta is not on PATH; install it: apt-get install passt");
	if (!pasta_trusted(j->pasta_path))
		return fail(j, -EPERM, "will not run %s as the jail's pasta: it or a directory "
			    "above it is not root's alone (the agent could have put it there); put "
			    "first on PATH a pasta only root can write, such as Debian's "
			    "/usr/bin/pasta", j->pasta_path);
	j->policy.dns_forward = htonl(PASTA_DNS_FORWARD);
	pasta_version(j->pasta_path, version, sizeof(version));
	log_debug("pasta %s, version %s", j->pasta_path, version);
	return 0;
}

/* read_host() - the host's addresses and routes, watched from before the
 * first read, in the host's namespace: a VPN that connects between the read
 * and the agent's start must not stay open to it for the whole session.
 * Return: 0 with @host to free, or -errno (@host freed). */
static int read_host(struct jail *j, struct hostnet *host)
{
	int err;

	err = hostwatch_open(&j->watch, j->policy.cfg->host_settle_ms);
	if (err)
		return fail(j, err, "cannot watch the host's addresses and routes: %s",
			    strerror(-err));
	err = hostnet_read(host);
	if (err)
		return fail(j, err, "cannot read the host's addresses and routes: %s",
			    strerror(-err));
	if (!host->default_gateway || !host->default_addr) {
		hostnet_free(host);
		return fail(j, -ENETUNREACH, "the host has no IPv4 default route with an address: "
			    "the jail would have nothing to reach");
	}
	return 0;
}

/* The jail's network, one setup for both modes (docs/DESIGN.md). Root:
 * a network namespace made by a capability-less holder. Rootless: a user
 * namespace of the user's own with the network namespace in it; pasta
 * joins both from outside, and then the supervisor joins the user
 * namespace (every capability over the jail's namespaces, none on the
 * host) and can never return to the host's. So in both modes whatever
 * the supervisor does in the jail's namespace is done by the thread that
 * stays there (netns_worker_start(), netns_run()), and the supervisor's
 * own thread never leaves the host's namespace. */

struct ns_setup {
	struct jail *j;
	bool ipv6_may_stay; /* rootless: /proc/sys may be read-only */
	bool ipv6_on;
};

/* configure_ns() - a netns_run() function: IPv6 off, lo up. Rootless, a
 * container's /proc/sys may be read-only: IPv6 then stays on, and the
 * rules refuse every IPv6 packet whatever the sysctl says. */
static int configure_ns(void *arg)
{
	struct ns_setup *s = arg;
	int lo, err = netns_disable_ipv6();

	s->ipv6_on = s->ipv6_may_stay && (err == -EROFS || err == -EACCES || err == -EPERM);
	if (s->ipv6_on)
		log_debug("IPv6 stays on in the jail's namespace (%s); the rules refuse it",
			  strerror(-err));
	if (err && !s->ipv6_on)
		return err;
	lo = nl_link_index("lo");
	return lo > 0 ? nl_link_up(lo) : lo;
}

/* start_network() - the namespace, configured (lo up, IPv6 off) before
 * pasta can use it where the supervisor may enter at once (root), right
 * after it joined the user namespace where it may not before (rootless),
 * and pasta. pasta takes a few milliseconds to come up: the caller loads
 * the engine meanwhile, then finish_network() waits for the tap. Nothing
 * runs in the namespace before the agent, which starts last. */
static int start_network(struct jail *j, const struct hostnet *host)
{
	bool rootless = j->mode == JAIL_MODE_ROOTLESS;
	struct pasta_opts po = { .path = j->pasta_path, .addr = host->default_addr,
				 .gateway = host->default_gateway, .rootless = rootless,
				 .runas_root = geteuid() == 0 };
	struct ns_setup s = { .j = j, .ipv6_may_stay = rootless };
	int err;

	err = find_pasta(j);
	if (err)
		return err;
	err = rootless ? netns_create_rootless(&j->ns) : netns_create(&j->ns);
	if (err && rootless)
		return fail(j, err, "cannot create the jail's user namespace (%s); the rootless "
			    "engine needs unprivileged user namespaces (sysctl "
			    "user.max_user_namespaces > 0; kernel.unprivileged_userns_clone = 1 where "
			    "it exists); run 'ebpfjail doctor'", strerror(-err));
	if (err)
		return fail(j, err, "cannot create a network namespace; run as root on a kernel "
			    "with network namespaces");
	if (!rootless) {
		err = netns_worker_start(j->ns.fd);
		if (!err)
			err = netns_run(j->ns.fd, configure_ns, &s);
		if (err)
			return fail(j, err, "cannot configure the jail's namespace: %s",
				    strerror(-err));
	}
	snprintf(j->pasta_log, sizeof(j->pasta_log), "%s/pasta.log", j->state_dir);
	po.netns_pid = j->ns.holder;
	po.log_path = j->pasta_log;
	/* Rootless, from the host's user namespace: pasta joins ours. */
	err = pasta_start(&po, &j->pasta);
	if (err)
		return fail(j, err, "cannot start pasta: %s", strerror(-err));
	if (rootless) {
		err = netns_join_user(&j->ns);
		if (!err)
			err = netns_worker_start(j->ns.fd);
		if (!err)
			err = netns_run(j->ns.fd, configure_ns, &s);
		if (err)
			return fail(j, err, "cannot configure the jail's namespace: %s",
				    strerror(-err));
	}
	j->ipv6_on = s.ipv6_on;
	return 0;
}

/* The steps of check_net(), for the message that names the failed one. */
enum net_step { NET_TAP, NET_ROUTES, NET_ENGINE, NET_GATEWAY };

struct net_check {
	struct jail *j;
	struct jail_net net;
	enum net_step step;
	char why[256];
};

/* check_net() - a netns_run() function: pasta's tap awaited, the routes
 * rebuilt and verified, what the engine puts on the tap, the gateway
 * answering */
static int check_net(void *arg)
{
	struct net_check *c = arg;
	struct net_state state;
	int err;

	c->step = NET_TAP;
	c->net.lo_ifindex = nl_link_index("lo");
	err = wait_for_tap(c->j, &c->net.tap_ifindex);
	if (err)
		return err;
	c->step = NET_ROUTES;
	err = routes_rebuild(&c->net);
	if (!err)
		err = routes_read(&state);
	if (err)
		return err;
	err = routes_check(&c->net, &state, c->why, sizeof(c->why));
	routes_state_free(&state);
	if (err)
		return err;
	c->why[0] = '\0';
	c->step = NET_ENGINE;
	err = engine_attach_in_ns(c->j->engine, c->net.tap_ifindex);
	if (err)
		return err;
	/* The tap alone proves little: pasta creates it before it sandboxes
	 * itself, and a pasta that then dies or hangs (Docker's default
	 * seccomp profile) left an agent running with no network. */
	c->step = NET_GATEWAY;
	return tapcheck_gateway_answers(PASTA_IFNAME, c->net.tap_ifindex, c->net.gateway, 3000);
}

/* finish_network() - check_net() in the jail's namespace, the holder
 * released once pasta has joined */
static int finish_network(struct jail *j, const struct hostnet *host)
{
	struct net_check c = { .j = j, .net = { .addr = host->default_addr,
						.gateway = host->default_gateway,
						.dns_addr = j->policy.dns_forward,
						.ipv6_on = j->ipv6_on } };
	char last[256] = "";
	int err;

	err = netns_run(j->ns.fd, check_net, &c);
	if (!err) {
		netns_release_holder(&j->ns);
		return 0;
	}
	/* A tap gone with its pasta (ENODEV and the like) is only its echo. */
	if (err == -ECHILD || pasta_exited_late(j))
		return fail_pasta_exited(j);
	if (c.step == NET_TAP)
		return fail(j, err, "pasta did not create the jail's interface within 5 s (its "
			    "log: %s)", j->pasta_log);
	if (c.step == NET_ROUTES && c.why[0])
		return fail(j, err, "the jail's routing is not what was set: %s", c.why);
	if (c.step != NET_GATEWAY)
		return fail(j, err, "cannot set up the jail's routes and %s engine on its "
			    "interface: %s", engine_name(j->engine), strerror(-err));
	if (err != -ETIMEDOUT)
		return fail(j, err, "cannot check that pasta serves the jail's interface: %s",
			    strerror(-err));
	jail_pasta_last_line(j, last, sizeof(last));
	return fail(j, err, "pasta does not answer on the jail's interface (\"%s\"); check "
		    "'pasta --version'; in a container, see README.md \"In a container\"", last);
}

/* create_jail_cgroup() - BASE/ebpfjail/ID, recorded before it exists: a
 * cgroup no state names is never ours, and the leftover sweep leaves it
 * alone (another container's jail, with the host's cgroup tree in view,
 * must not be killed). Not ours (EEXIST: made before us, its processes not
 * ours to kill) or not made: destroyed neither by this run nor, should it
 * die now, by the next run's sweep. Return: 0 or -errno. */
static int create_jail_cgroup(struct jail *j, const char *base)
{
	int err = cgroup_jail_path(base, j->id, j->cg_path, sizeof(j->cg_path));

	if (!err)
		err = jailstate_set_cgroup(j->state_dir, j->cg_path);
	if (!err)
		err = cgroup_jail_create(j->cg_path, &j->cg_fd);
	if (err) {
		j->cg_path[0] = '\0';
		jailstate_set_cgroup(j->state_dir, "");
	}
	return err;
}

/* make_rootless_cgroup() - the jail's cgroup, as root's jails have it,
 * where this user may make one (the cgroup it runs in is delegated to it:
 * systemd --user's are): the agent's init is born in it, its cgroup
 * namespace is rooted there (the agent sees and can stop nothing else),
 * and it is frozen with a stopped job and killed with the jail. Where the
 * user may not, the jail has none, and the agent's cgroup namespace is
 * rooted at a cgroup of root's, whose files it cannot write. */
static void make_rootless_cgroup(struct jail *j)
{
	char base[PATH_MAX];
	int err;

	/* The cgroup we run in, not the root-owned one above it that root's
	 * jails take: the user's other processes could move the agent out of
	 * a cgroup of theirs, but rootless they are the agent's user, and
	 * its rules are its namespace's, not its cgroup's. */
	err = cgroup_self(base, sizeof(base));
	if (!err && access(base, W_OK))
		err = -errno; /* not delegated: the usual case, not an error */
	if (err) {
		log_debug("no cgroup of the jail's own: %s", strerror(-err));
		return;
	}
	err = create_jail_cgroup(j, base);
	if (err)
		log_debug("no cgroup of the jail's own under %s: %s", base, strerror(-err));
}

static void on_dns_answer(void *ctx, const struct dns_question *q, const struct dns_answer *a)
{
	struct jail *j = ctx;

	jail_policy_dns_answer(&j->policy, q, a);
}

static void on_dns_released(void *ctx, const struct dns_question *q,
			    const struct dns_answer *a)
{
	struct jail *j = ctx;

	jail_policy_dns_released(&j->policy, q, a);
}

/* start_dns() - the jail's DNS forwarder on the forward address (bound on
 * the jail's lo by routes_rebuild()), asking the resolvers of the host's
 * resolv.conf from the host's side: the agent never reaches them itself. */
static int start_dns(struct jail *j, dnsfwd_query_fn on_query)
{
	struct dnsfwd_opts o = { .jail_ns = j->ns.fd,
				 .listen_addr = j->policy.dns_forward, .on_query = on_query,
				 .on_answer = on_dns_answer, .on_released = on_dns_released,
				 .ctx = j };
	char text[DNSFWD_RESOLV_MAX];
	int err;

	err = dnsfwd_read_resolv(text);
	if (err)
		log_warn("cannot read /etc/resolv.conf (%s): the jail's DNS asks 127.0.0.1",
			 strerror(-err));
	dnsfwd_parse_resolv(text, &o);
	err = dnsfwd_open(&o, &j->dns);
	if (err)
		return fail(j, err, "cannot start the jail's DNS forwarder: %s", strerror(-err));
	return 0;
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
		return fail(j, -errno, "cannot set up the relays: %s", strerror(errno));
	/* The local ports, then the model port unless it is one of them. */
	for (i = 0; i < n; i++)
		if (cfg->local_port[i].port == model)
			model = 0;
	for (i = 0; i < n + (model != 0); i++) {
		uint16_t port = i < n ? cfg->local_port[i].port : model;

		err = relays_add(j->relays, RELAY_INTO_HOST, port);
		if (err)
			return fail(j, err, "local-port %u: cannot listen on the jail's 127.0.0.1:%u: %s",
				    port, port, strerror(-err));
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

/* Descriptors the relays may never take: the control socket's client and
 * its caller's /proc status, a reload's configuration files, netlink
 * socket and new policy map, the audit log's rotation (lock file, new
 * log), the status file, the signalfd and epoll set, a connection being
 * refused. A few times what any of those needs at once. Plus the DNS
 * forwarder's most (a socket per query in flight, its TCP clients). */
#define JAIL_FD_RESERVE (64 + DNSFWD_FDS_MAX)

/* open_fds() - how many descriptors this process has open (256 when
 * /proc cannot say: a guess on the safe side) */
static unsigned int open_fds(void)
{
	unsigned int n = 0;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		return 256;
	while (readdir(d))
		n++;
	closedir(d);
	return n > 3 ? n - 3 : 0; /* ".", ".." and the directory's own */
}

/* raise_nofile() - the soft descriptor limit up to the hard one, the
 * original kept for the agent. The usual soft limit of 1024 is ~160
 * relayed connections; a hard limit is usually far higher. */
static void raise_nofile(struct jail *j)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &j->nofile))
		return;
	rl = j->nofile;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		log_debug("cannot raise the descriptor limit to %llu: %s",
			  (unsigned long long)rl.rlim_max, strerror(errno));
}

/* limit_relays() - the relays' cap: what the descriptor limit leaves
 * once the jail is built, less JAIL_FD_RESERVE. */
static void limit_relays(struct jail *j)
{
	struct relay_listener_stats ls;
	struct rlimit rl;
	unsigned int cap;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	cap = relay_conn_cap(rl.rlim_cur, open_fds(), JAIL_FD_RESERVE);
	relays_set_cap(j->relays, cap);
	log_debug("descriptors: limit %llu, relays capped at %u connections",
		  (unsigned long long)rl.rlim_cur, cap);
	/* "Hundreds of concurrent connections": say why a relay refuses. */
	if (cap < 500 && relays_listener(j->relays, 0, &ls) == 0)
		log_warn("the descriptor limit (%llu) leaves room for %u relayed connections; more "
			 "are refused (raise the hard limit, ulimit -Hn, for more)",
			 (unsigned long long)rl.rlim_cur, cap);
}

/* jail_cgroup() - the jail's cgroup: root's under @cg_base, required (the
 * BPF engine's socket hooks go on it); rootless, where the user may make
 * one (make_rootless_cgroup()). Return: 0 or -errno. */
static int jail_cgroup(struct jail *j, const char *cg_base)
{
	int err;

	if (j->mode == JAIL_MODE_ROOTLESS) {
		make_rootless_cgroup(j);
		return 0;
	}
	err = create_jail_cgroup(j, cg_base);
	if (err)
		return fail(j, err, "cannot set up the jail's cgroup under %s: %s", cg_base,
			    strerror(-err));
	return 0;
}

/* open_engine() - the engine, loaded with the Unix socket paths the agent
 * may reach (its own directories, and the unix-socket paths) and hooked
 * on the jail's cgroup where it uses one */
static int open_engine(struct jail *j, engine_event_fn on_event)
{
	struct engine_options o = { .on_event = on_event, .ctx = j, .ns_fd = j->ns.fd,
				    .netns_cookie = j->ns.cookie, .cgroup_fd = j->cg_fd };
	struct unix_policy up;
	char why[sizeof(j->why)];
	int err;

	err = unixpolicy_build(j->policy.agent_uid, (const char *const *)j->unix_sockets,
			       j->policy.cfg->n_unix_socket, &up);
	if (err)
		return fail(j, err, "cannot build the Unix socket rules: %s", strerror(-err));
	o.unix_rules = up.rules;
	o.n_unix_rules = up.n;
	err = engine_open(j->engine_kind, &o, &j->engine, why, sizeof(why));
	unixpolicy_free(&up);
	if (err)
		return fail(j, err, "%s", why[0] ? why : strerror(-err));
	j->policy.engine = j->engine;
	return 0;
}

/* install_policy() - the policy in force before anything can run in the
 * namespace (fail closed: no policy, no agent) */
static int install_policy(struct jail *j, const struct hostnet *host)
{
	int err;

	j->policy.gateway = host->default_gateway;
	err = jail_policy_install(&j->policy, host);
	log_debug("policy: %zu rules (%s)", j->policy.rules.n, engine_name(j->engine));
	if (err && j->policy.refused[0])
		return fail(j, err, "cannot put the jail's policy in force: %s; run 'ebpfjail "
			    "doctor'", j->policy.refused);
	if (err)
		return fail(j, err, "cannot put the jail's policy in force with %s (%s); run "
			    "'ebpfjail doctor'", engine_name(j->engine), strerror(-err));
	return 0;
}

/* build_filters() - host facts, cgroup, namespace and pasta, the engine
 * and its policy, then the network checked (and the engine's part on the
 * tap) once pasta's tap is up */
static int build_filters(struct jail *j, const char *cg_base, engine_event_fn on_event)
{
	struct hostnet host;
	int err;

	err = read_host(j, &host);
	if (err)
		return err;
	err = jail_cgroup(j, cg_base);
	if (!err)
		err = start_network(j, &host);
	/* The namespace exists now: its cookie tells BPF's socket hooks which
	 * sockets are the jail's (any other gets loopback only). */
	if (!err)
		err = open_engine(j, on_event);
	if (!err)
		err = install_policy(j, &host);
	if (!err)
		err = finish_network(j, &host);
	hostnet_free(&host);
	return err;
}

int jail_build(struct jail *j, const struct config *cfg, engine_event_fn on_event,
	       dnsfwd_query_fn on_query)
{
	struct probe_result pr;
	char cg_base[PATH_MAX];
	size_t i;
	int err;

	j->why[0] = '\0';
	j->unix_sockets = calloc(cfg->n_unix_socket + 1, sizeof(*j->unix_sockets));
	if (!j->unix_sockets)
		return fail(j, -ENOMEM, "out of memory");
	for (i = 0; i < cfg->n_unix_socket; i++)
		j->unix_sockets[i] = cfg->unix_socket[i].name;
	raise_nofile(j);
	/* The same checks as `ebpfjail doctor`, so it never says ok about
	 * what this refuses. */
	if (probe_tun(&pr) == PROBE_FAIL ||
	    (j->mode == JAIL_MODE_ROOT && probe_cgroup(&pr, cg_base, sizeof(cg_base)) == PROBE_FAIL) ||
	    probe_pasta(&pr, false) == PROBE_FAIL)
		return fail(j, -ENOENT, "%s; %s", pr.detail, pr.fix);

	jailstate_cleanup_dead();
	err = jailstate_create(j->id, getpid(), j->state_dir, sizeof(j->state_dir));
	if (err == -EACCES && geteuid())
		return fail(j, err, "%s is not yours alone (it must be a directory of uid %u, mode "
			    "0700); set XDG_RUNTIME_DIR to a directory of your own", jailstate_dir(),
			    (unsigned)geteuid());
	if (err)
		return fail(j, err, "cannot create the jail's state under %s: %s", jailstate_dir(),
			    strerror(-err));
	err = build_filters(j, cg_base, on_event);
	if (err)
		return err;
	snprintf(j->resolv_conf, sizeof(j->resolv_conf), "%s/resolv.conf", j->state_dir);
	err = write_resolv_conf(j->resolv_conf, j->policy.dns_forward);
	if (err)
		return fail(j, err, "cannot write the jail's resolv.conf: %s", strerror(-err));
	/* Root's file, bound read-only into the agent's view: an agent that
	 * got EPERM can read what was blocked, and nothing it writes can
	 * reach the record (not even as root: the mount is read-only). */
	snprintf(j->denials, sizeof(j->denials), "%s/denials.jsonl", j->state_dir);
	j->denials_fd = open(j->denials, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
			     0644);
	if (j->denials_fd < 0)
		return fail(j, -errno, "cannot create the jail's view of its denials %s: %s",
			    j->denials, strerror(errno));
	err = start_dns(j, on_query);
	if (!err)
		err = start_relays(j, cfg);
	if (err)
		return err;
	err = audit_log_open(&j->audit, cfg->audit_log);
	if (err)
		return fail(j, err, "the audit log %s cannot be written; set audit-log to a "
			    "writable path", cfg->audit_log);
	j->control_fd = control_listen(j->state_dir);
	if (j->control_fd < 0)
		return fail(j, j->control_fd, "cannot create the jail's control socket in %s: %s",
			    j->state_dir, strerror(-j->control_fd));
	limit_relays(j);
	return 0;
}

void jail_destroy(struct jail *j, void (*drain)(struct jail *j))
{
	/* Processes first: nothing may run once its filters are gone. */
	if (j->cg_path[0] && cgroup_destroy(j->cg_path) == 0)
		j->cg_path[0] = '\0';
	/* Rootless, no cgroup holds them: the agent's PID namespace goes
	 * with its init, and everything in it. */
	if (j->mode == JAIL_MODE_ROOTLESS && j->proc.init > 0 && kill(j->proc.init, SIGKILL) == 0)
		waitpid(j->proc.init, NULL, 0);
	if (j->cg_fd >= 0)
		close(j->cg_fd);
	j->cg_fd = -1;
	/* The last events, while the rules' namespace is still there. */
	if (j->engine && drain)
		drain(j);
	if (j->proc.channel >= 0)
		close(j->proc.channel);
	j->proc.channel = -1;
	relays_free(j->relays);
	if (j->dns) {
		struct dnsfwd_stats st;

		dnsfwd_stats(j->dns, &st);
		log_debug("DNS: %llu queries, %llu answered, %llu failed, %llu refused, %llu dropped",
			  (unsigned long long)st.queries, (unsigned long long)st.answered,
			  (unsigned long long)st.failed, (unsigned long long)st.refused,
			  (unsigned long long)st.dropped);
		dnsfwd_free(j->dns);
		j->dns = NULL;
	}
	j->relays = NULL;
	if (j->control_fd >= 0)
		close(j->control_fd);
	j->control_fd = -1;
	hostwatch_close(&j->watch);
	pasta_stop(j->pasta);
	j->pasta = -1;
	netns_worker_stop();
	netns_close(&j->ns);
	engine_close(j->engine);
	j->engine = j->policy.engine = NULL;
	jail_policy_free(&j->policy);
	free(j->dns_refused);
	j->dns_refused = NULL;
	audit_log_close(&j->audit);
	if (j->denials_fd >= 0)
		close(j->denials_fd);
	j->denials_fd = -1;
	free(j->unix_sockets); /* the paths are the configuration's */
	j->unix_sockets = NULL;
	/* A cgroup that would not go stays recorded for the next run. */
	if (!j->cg_path[0] && j->state_dir[0])
		jailstate_remove(j->state_dir);
}
