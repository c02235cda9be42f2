// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* probe.c - the jail's prerequisites, checked: shared by `run` and `doctor` */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include "builtin.h"
#include "cgroup.h"
#include "loader.h"
#include "landlock.h"
#include "journal.h"
#include "log.h"
#include "netns.h"
#include "nflog.h"
#include "nftengine.h"
#include "nftrules.h"
#include "policy.h"
#include "pasta.h"
#include "auditlog.h"
#include "probe.h"

static enum probe_level set(struct probe_result *r, enum probe_level level, const char *name,
			    const char *fix, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static enum probe_level set(struct probe_result *r, enum probe_level level, const char *name,
			    const char *fix, const char *fmt, ...)
{
	va_list ap;

	r->level = level;
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->fix, sizeof(r->fix), "%s", level == PROBE_OK ? "" : fix);
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
	return level;
}

bool probe_host_root(void)
{
	unsigned long inside, outside, count;
	bool whole = false;
	FILE *f;

	if (geteuid() != 0)
		return false;
	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return false;
	whole = fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 &&
		outside == 0 && count == 4294967295UL;
	fclose(f);
	return whole;
}

bool probe_rootless(const struct config *cfg)
{
	return cfg->engine == ENGINE_NFTABLES || (cfg->engine == ENGINE_AUTO && !probe_host_root());
}

enum probe_level probe_engine(struct probe_result *r, const struct config *cfg)
{
	if (cfg->engine == ENGINE_BPF && !probe_host_root())
		return set(r, PROBE_FAIL, "engine", "run it with sudo, or use engine = nftables",
			   "engine = bpf needs root on the host (BPF programs need capabilities in "
			   "the host's user namespace)");
	if (!probe_rootless(cfg))
		return set(r, PROBE_OK, "engine", "", "bpf%s: cgroup socket hooks and a TC filter",
			   cfg->engine == ENGINE_AUTO ? " (auto: root on the host)" : "");
	return set(r, PROBE_WARN, "engine",
		   "run it as root (sudo) for the BPF engine, if you can",
		   "nftables, rootless%s: the same policy, enforced in the jail's own user and "
		   "network namespaces; the audit names no process (pid and comm are null), Unix "
		   "sockets are not judged per path (the private directories and masks still hold), "
		   "and a stopped job's processes are not frozen",
		   cfg->engine == ENGINE_AUTO ? " (auto: not root on the host)" : "");
}

/* Exit statuses of probe_rootless_ns()'s child. */
enum { ROOTLESS_OK, ROOTLESS_NO_USERNS, ROOTLESS_NO_NFT, ROOTLESS_NO_NFLOG, ROOTLESS_NO_POLICY };

/* rootless_rules() - a netns_run() function: the default policy's rules in
 * force, as the jail puts them, and NFLOG bound. Return: an exit status. */
static int rootless_rules(void *arg)
{
	struct nftengine engine = { 0 };
	char why[256];

	if (nftengine_apply(&engine, arg, why, sizeof(why))) {
		log_debug("nft: %s", why);
		return ROOTLESS_NO_NFT;
	}
	return nflog_open(NFTRULES_LOG_GROUP) < 0 ? ROOTLESS_NO_NFLOG : ROOTLESS_OK;
}

/* rootless_ns_child() - the jail's own steps (netns.h, nftengine.h) in a
 * child, which may join a user namespace for good */
static void rootless_ns_child(void)
{
	struct host_facts facts = { .gateway = htonl(0xc0000201), .dns_forward =
				    htonl(PASTA_DNS_FORWARD) };
	struct netns ns = { .holder = -1, .fd = -1, .host_fd = -1, .user_fd = -1 };
	struct config cfg;
	struct policy p;
	int ret;

	config_init(&cfg);
	if (policy_compile(&cfg, &facts, &p))
		_exit(ROOTLESS_NO_POLICY);
	if (netns_create_rootless(&ns) || netns_join_user(&ns))
		_exit(ROOTLESS_NO_USERNS);
	ret = netns_run(ns.fd, rootless_rules, &p);
	_exit(ret < 0 ? ROOTLESS_NO_NFT : ret);
}

enum probe_level probe_rootless_ns(struct probe_result *r)
{
	static const char *const fix[] = {
		[ROOTLESS_NO_USERNS] = "allow unprivileged user namespaces: sysctl "
				       "user.max_user_namespaces=15000 (and "
				       "kernel.unprivileged_userns_clone=1 where it exists; on "
				       "Ubuntu, kernel.apparmor_restrict_unprivileged_userns=0)",
		[ROOTLESS_NO_NFT] = "load nf_tables (modprobe nf_tables, as root once, or at boot "
				    "from /etc/modules); 'ebpfjail doctor -v' shows nft's complaint",
		[ROOTLESS_NO_NFLOG] = "load nfnetlink_log (modprobe nfnetlink_log, as root once, or "
				      "at boot from /etc/modules)",
		[ROOTLESS_NO_POLICY] = "run 'ebpfjail doctor -v'",
	};
	static const char *const what[] = {
		[ROOTLESS_NO_USERNS] = "cannot create a user namespace with a network namespace, "
				       "mapped to this user",
		[ROOTLESS_NO_NFT] = "nftables refuses the jail's rules in its namespace",
		[ROOTLESS_NO_NFLOG] = "cannot read NFLOG in the jail's namespace",
		[ROOTLESS_NO_POLICY] = "cannot compile the default policy",
	};
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return set(r, PROBE_FAIL, "rootless", "", "cannot fork: %s", strerror(errno));
	if (pid == 0)
		rootless_ns_child();
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > ROOTLESS_NO_POLICY)
		return set(r, PROBE_FAIL, "rootless", "run 'ebpfjail doctor -v'",
			   "the check's child did not finish");
	if (WEXITSTATUS(status) != ROOTLESS_OK)
		return set(r, PROBE_FAIL, "rootless", fix[WEXITSTATUS(status)], "%s",
			   what[WEXITSTATUS(status)]);
	return set(r, PROBE_OK, "rootless", "",
		   "a user namespace with a network namespace, the jail's nftables rules and "
		   "NFLOG work without privileges (no subuid range needed)");
}

enum probe_level probe_privileges(struct probe_result *r)
{
	if (geteuid() != 0)
		return set(r, PROBE_FAIL, "privileges", "run it with sudo",
			   "not root: BPF, cgroups and namespaces need root");
	return set(r, PROBE_OK, "privileges", "", "running as root");
}

enum probe_level probe_tun(struct probe_result *r)
{
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0 && errno == EACCES && geteuid() != 0)
		return set(r, PROBE_FAIL, "/dev/net/tun",
			   "make it usable by every user, as Debian's udev does: chmod 0666 "
			   "/dev/net/tun (as root; a udev rule KERNEL==\"tun\", MODE=\"0666\" keeps it)",
			   "cannot open /dev/net/tun as uid %u: the rootless engine's pasta needs it",
			   (unsigned)geteuid());
	if (fd < 0)
		return set(r, PROBE_FAIL, "/dev/net/tun",
			   "load the tun module (modprobe tun), or pass --device /dev/net/tun to "
			   "the container",
			   "cannot open /dev/net/tun (%s): pasta needs it", strerror(errno));
	close(fd);
	return set(r, PROBE_OK, "/dev/net/tun", "", "present and openable");
}

/* owned_by_passt_package() - does dpkg say @path is a file of Debian's
 * passt package (dpkg-query -S: its database is dpkg's own to read). The
 * path goes to the shell as a variable, never as text of the command. */
static bool owned_by_passt_package(const char *path)
{
	char real[4096], line[256];
	bool found = false;
	FILE *p;

	if (!realpath(path, real) || setenv("EBPFJAIL_PASTA_FILE", real, 1))
		return false;
	p = popen("dpkg-query -S -- \"$EBPFJAIL_PASTA_FILE\" 2>/dev/null", "re");
	unsetenv("EBPFJAIL_PASTA_FILE");
	if (!p)
		return false;
	while (!found && fgets(line, sizeof(line), p))
		found = !strncmp(line, "passt: ", 7);
	pclose(p);
	return found;
}

/* installed_version() - pasta's version from the binary, else from dpkg
 * when the binary is Debian's (Debian 12's build says "unknown version") */
static void installed_version(const char *path, char *buf, size_t size)
{
	FILE *p;

	pasta_version(path, buf, size);
	if (strcmp(buf, "unknown") || !owned_by_passt_package(path))
		return;
	p = popen("dpkg-query -W -f='${Version}' passt 2>/dev/null", "re");
	if (!p)
		return;
	if (!fgets(buf, (int)size, p) || !buf[0])
		snprintf(buf, size, "unknown");
	buf[strcspn(buf, "\n")] = '\0';
	pclose(p);
}

static bool apparmor_enabled(void)
{
	char c = 'N';
	FILE *f = fopen("/sys/module/apparmor/parameters/enabled", "re");

	if (f) {
		if (fread(&c, 1, 1, f) != 1)
			c = 'N';
		fclose(f);
	}
	return c == 'Y';
}

enum probe_level probe_pasta(struct probe_result *r, bool want_version)
{
	char path[4096], version[128];
	unsigned long date;

	if (pasta_find(path, sizeof(path)))
		return set(r, PROBE_FAIL, "pasta", "install it: apt-get install passt",
			   "pasta is not on PATH");
	if (!pasta_trusted(path))
		return set(r, PROBE_FAIL, "pasta",
			   "put first on PATH a pasta only root can write, such as Debian's "
			   "/usr/bin/pasta",
			   "%s is not run: it or a directory above it is not root's alone (an "
			   "agent could have put it there)", path);
	if (!want_version)
		return set(r, PROBE_OK, "pasta", "", "%s", path);
	installed_version(path, version, sizeof(version));
	date = pasta_version_date(version);
	if (!date)
		return set(r, PROBE_WARN, "pasta",
			   "if the jail has no network, install Debian's passt package or a "
			   "release from " PASTA_TESTED_NAMES,
			   "%s, version %s: cannot tell whether it works with the jail", path,
			   version);
	if (date < PASTA_TESTED_OLDEST)
		return set(r, PROBE_WARN, "pasta", "install passt " PASTA_TESTED_OLDEST_NAME " or newer",
			   "%s, version %s: older than any pasta the jail is tested with", path,
			   version);
	if (date < PASTA_APPARMOR_FIXED && apparmor_enabled())
		return set(r, PROBE_WARN, "pasta",
			   "if run fails to start pasta, install a newer passt or put its "
			   "AppArmor profile in complain mode",
			   "%s, version %s, known to work, but its AppArmor profile (older than "
			   "2023-09-08) may deny parts of what the jail asks of it",
			   path, version);
	return set(r, PROBE_OK, "pasta", "", "%s, version %s, %s", path, version,
		   date == PASTA_TESTED_OLDEST || date == PASTA_TESTED_NEWEST ?
			   "known to work (tested with " PASTA_TESTED_NAMES ")" :
			   "expected to work (tested with " PASTA_TESTED_NAMES ")");
}

enum probe_level probe_cgroup(struct probe_result *r, char *base, size_t size)
{
	char mount[PATH_MAX], test[PATH_MAX + 64];
	int err;

	if (cgroup_v2_root(mount, sizeof(mount)))
		return set(r, PROBE_FAIL, "cgroup v2", "mount one: mount -t cgroup2 none /sys/fs/cgroup",
			   "no cgroup v2 file system is mounted");
	err = cgroup_own(base, size);
	if (err)
		return set(r, PROBE_FAIL, "cgroup v2",
			   "mount the cgroup v2 file system where this process's cgroup can be seen "
			   "(in a container: its own cgroup namespace)",
			   "this process's cgroup is not under %s: %s", mount, strerror(-err));
	snprintf(test, sizeof(test), "%s/ebpfjail-doctor-%d", base, getpid());
	if (mkdir(test, 0755))
		return set(r, PROBE_FAIL, "cgroup v2",
			   "run as root; in a container, mount the cgroup v2 file system read-write",
			   "%s is not writable: %s", base, strerror(errno));
	rmdir(test);
	return set(r, PROBE_OK, "cgroup v2", "", "mounted at %s; jails go under %s, writable", mount,
		   base);
}

enum probe_level probe_bpf(struct probe_result *r)
{
	struct jail_bpf *jail = NULL;
	enum log_level saved = log_get_level();
	struct stat st;
	int err;

	if (stat("/sys/kernel/btf/vmlinux", &st))
		return set(r, PROBE_FAIL, "BPF", "use a kernel built with CONFIG_DEBUG_INFO_BTF=y",
			   "the kernel has no BTF (/sys/kernel/btf/vmlinux)");
	log_set_level(LOG_ERR < saved ? LOG_ERR : saved);
	err = loader_open(NULL, &jail);
	log_set_level(saved);
	loader_close(jail);
	if (err)
		return set(r, PROBE_FAIL, "BPF",
			   "run as root on Linux 6.1 or newer with BPF; 'ebpfjail doctor -v' shows "
			   "the verifier's log",
			   "the kernel refused the jail's programs: %s", strerror(-err));
	return set(r, PROBE_OK, "BPF", "",
		   "cgroup sock_addr and TC programs, LPM trie, ring buffer and BTF all load");
}

enum probe_level probe_bpffs(struct probe_result *r)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs) || fs.f_type != BPF_FS_MAGIC)
		return set(r, PROBE_WARN, "bpffs", "mount -t bpf bpf /sys/fs/bpf",
			   "/sys/fs/bpf is not a bpf file system (ebpfjail pins nothing, "
			   "bpftool needs it to inspect a jail)");
	return set(r, PROBE_OK, "bpffs", "", "mounted at /sys/fs/bpf");
}

enum probe_level probe_netns(struct probe_result *r)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(unshare(CLONE_NEWNET | CLONE_NEWNS) ? 1 : 0);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (status != 0)
		return set(r, PROBE_FAIL, "namespaces",
			   "run as root; in a container, add --cap-add SYS_ADMIN --cap-add NET_ADMIN",
			   "cannot create network and mount namespaces");
	return set(r, PROBE_OK, "namespaces", "", "network and mount namespaces can be created");
}

enum probe_level probe_userns(struct probe_result *r)
{
	FILE *f = fopen("/proc/sys/user/max_user_namespaces", "re");
	long max = -1;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = -1;
		fclose(f);
	}
	if (max == 0)
		return set(r, PROBE_WARN, "user namespaces", "sysctl user.max_user_namespaces=15000",
			   "unprivileged user namespaces are off: not needed by ebpfjail (pasta "
			   "runs as root), but rootless pasta elsewhere will fail");
	return set(r, PROBE_OK, "user namespaces", "", "unprivileged user namespaces available");
}

enum probe_level probe_apparmor_judge(const struct apparmor_facts *f, bool rootless,
				      struct probe_result *r)
{
	char restricted[96] = "";

	if (!f->enabled)
		return set(r, PROBE_OK, "AppArmor", "", "not enabled");
	if (f->restrict_userns == 1)
		snprintf(restricted, sizeof(restricted), "; unprivileged user namespaces restricted%s",
			 f->ebpfjail_profile ? ", ebpfjail's profile allows its own" : "");
	/* Ubuntu 24.04's default: a user namespace made without a profile
	 * that allows it has no capability in it, and the rootless engine's
	 * network namespace and rules need them. Root (the BPF engine) is
	 * not restricted. */
	if (rootless && f->restrict_userns == 1 && !f->ebpfjail_profile)
		return set(r, PROBE_FAIL, "AppArmor",
			   "load ebpfjail's profile: sudo apparmor_parser -r /etc/apparmor.d/ebpfjail "
			   "(copy it there from /usr/share/ebpfjail/apparmor if it is missing); or "
			   "run as root",
			   "kernel.apparmor_restrict_unprivileged_userns = 1 and no AppArmor profile "
			   "for ebpfjail: the rootless engine cannot make its user namespace");
	if (f->pasta_mode[0] && !strcmp(f->pasta_mode, "enforce"))
		return set(r, PROBE_WARN, "AppArmor",
			   "if pasta fails to start, check 'journalctl -k | grep apparmor'",
			   "a profile confines passt/pasta (enforce)%s", restricted);
	return set(r, PROBE_OK, "AppArmor", "", "enabled, %s%s",
		   f->pasta_mode[0] ? "pasta's profile not enforced" : "no profile for pasta",
		   restricted);
}

enum probe_level probe_apparmor(struct probe_result *r, bool rootless)
{
	struct apparmor_facts f = { .enabled = apparmor_enabled(), .restrict_userns = -1 };
	char *line = NULL, name[256], mode[16];
	size_t cap = 0;
	FILE *in;

	in = fopen("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "re");
	if (in) {
		if (fscanf(in, "%d", &f.restrict_userns) != 1)
			f.restrict_userns = -1;
		fclose(in);
	}
	/* "NAME (MODE)" a line: "ebpfjail (unconfined)", "passt (enforce)" */
	in = fopen("/sys/kernel/security/apparmor/profiles", "re");
	while (in && getline(&line, &cap, in) > 0) {
		if (sscanf(line, "%255s (%15[a-z])", name, mode) != 2)
			continue;
		if (!strcmp(name, "ebpfjail"))
			f.ebpfjail_profile = true;
		else if ((strstr(name, "passt") || strstr(name, "pasta")) &&
			 strcmp(f.pasta_mode, "enforce"))
			memcpy(f.pasta_mode, mode, sizeof(f.pasta_mode));
	}
	if (in)
		fclose(in);
	free(line);
	return probe_apparmor_judge(&f, rootless, r);
}

enum probe_level probe_iproute2(struct probe_result *r)
{
	return set(r, PROBE_OK, "iproute2", "",
		   "not needed at run time: ebpfjail speaks netlink itself");
}

enum probe_level probe_callback_ports(struct probe_result *r, const struct config *cfg)
{
	char busy[256] = "";
	size_t i, used = 0;

	for (i = 0; i < cfg->n_callback_port; i++) {
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_port = htons(cfg->callback_port[i].port),
					   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (fd >= 0 && bind(fd, (struct sockaddr *)&sin, sizeof(sin)) && errno == EADDRINUSE)
			used += (size_t)snprintf(busy + used, sizeof(busy) - used, "%s%u",
						 used ? ", " : "", cfg->callback_port[i].port);
		if (fd >= 0)
			close(fd);
		if (used >= sizeof(busy))
			break;
	}
	if (used)
		return set(r, PROBE_WARN, "callback ports",
			   "stop what listens there, or change callback-port; run skips a busy one",
			   "in use on the host's 127.0.0.1: %s", busy);
	return set(r, PROBE_OK, "callback ports", "", "%zu configured, all free",
		   cfg->n_callback_port);
}

enum probe_level probe_audit_log(struct probe_result *r, const struct config *cfg)
{
	char dir[4096], *slash;

	if (!strcmp(cfg->audit_log, CONFIG_AUDIT_JOURNAL)) {
		int err = journal_listening(AUDIT_JOURNAL_SOCKET);

		if (err)
			return set(r, PROBE_FAIL, "audit log", "start systemd-journald, or set "
				   "audit-log to a file", "journal: no systemd-journald listens on %s (%s)",
				   AUDIT_JOURNAL_SOCKET, strerror(-err));
		return set(r, PROBE_OK, "audit log", "", "the systemd journal (%s)",
			   AUDIT_JOURNAL_SOCKET);
	}
	snprintf(dir, sizeof(dir), "%s", cfg->audit_log);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	/* The nearest existing ancestor must be writable: run creates the rest. */
	while (dir[0] && access(dir, F_OK))
		if ((slash = strrchr(dir, '/')))
			*slash = '\0';
	if (access(dir[0] ? dir : "/", W_OK))
		return set(r, PROBE_FAIL, "audit log", "run as root, or set audit-log to a writable path",
			   "%s cannot be written (%s is not writable)", cfg->audit_log,
			   dir[0] ? dir : "/");
	return set(r, PROBE_OK, "audit log", "", "%s can be written", cfg->audit_log);
}

#define LANDLOCK_FIX                                                                       \
	"a kernel with Landlock scopes (Linux 6.12+, landlock in its lsm= list) adds a layer; " \
	"the PID and network namespaces hold without it"

enum probe_level probe_unix_hooks(struct probe_result *r)
{
	struct jail_bpf *jail = NULL;
	enum log_level saved = log_get_level();
	bool on;
	int err;

	log_set_level(LOG_ERR < saved ? LOG_ERR : saved);
	err = loader_open(NULL, &jail);
	on = !err && loader_has_unix_hooks(jail);
	log_set_level(saved);
	loader_close(jail);
	if (err) /* run would refuse: so does doctor, with the cause */
		return set(r, PROBE_FAIL, "unix hooks", "'ebpfjail doctor -v' shows the verifier's log",
			   "the kernel refused the jail's programs: %s", strerror(-err));
	if (on)
		return set(r, PROBE_OK, "unix hooks", "",
			   "every Unix socket path the agent connects to outside its own directories "
			   "is refused and audited (reason unix)");
	return set(r, PROBE_WARN, "unix hooks",
		   "Linux 6.7+ judges and audits each Unix socket path; the private directories "
		   "and masks hold without it",
		   "this kernel has no cgroup Unix socket hooks: Unix sockets are kept in by the "
		   "private directories and masks alone");
}

enum probe_level probe_landlock(struct probe_result *r)
{
	int abi = landlock_abi();

	if (abi >= LANDLOCK_ABI_SCOPES)
		return set(r, PROBE_OK, "landlock", "",
			   "ABI %d: the agent can signal no process and reach no abstract socket "
			   "outside its jail", abi);
	if (abi > 0)
		return set(r, PROBE_WARN, "landlock", LANDLOCK_FIX,
			   "ABI %d has no scopes: the agent's signals and abstract sockets are "
			   "kept in by its namespaces alone", abi);
	return set(r, PROBE_WARN, "landlock", LANDLOCK_FIX,
		   "not available: the agent's signals and abstract sockets are kept in by its "
		   "namespaces alone");
}

enum probe_level probe_isolation(struct probe_result *r, const struct config *cfg)
{
	const char *const *masks;
	size_t n, i, masked = 0;
	struct stat st;

	/* Rootless there is no cgroup of the agent's own; a user namespace
	 * holds it instead. */
	const char *ns = probe_rootless(cfg) ? "user and PID" : "PID and cgroup";

	masks = builtin_root_sockets(&n);
	for (i = 0; i < n; i++)
		masked += stat(masks[i], &st) == 0 && S_ISSOCK(st.st_mode);
	if (cfg->share_tmp)
		return set(r, PROBE_WARN, "isolation", "share-tmp = off keeps the host's sockets there "
			   "out of the agent's reach",
			   "%s namespaces, seccomp; share-tmp = on: the host's /tmp, /dev/shm and "
			   "/run/user with their sockets (tmux, ssh-agent, the session bus) are the "
			   "agent's; %zu root-granting daemon socket%s masked", ns, masked,
			   masked == 1 ? "" : "s");
	return set(r, PROBE_OK, "isolation", "",
		   "%s namespaces, seccomp (setns, io_uring, socket families, TIOCSTI), private "
		   "/tmp, /dev/shm and /run/user; %zu root-granting daemon socket%s masked", ns,
		   masked, masked == 1 ? "" : "s");
}
