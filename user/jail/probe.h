/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* probe.h - the jail's prerequisites, checked: shared by `run` and `doctor` */
#ifndef EBPFJAIL_PROBE_H
#define EBPFJAIL_PROBE_H

#include <stdbool.h>

#include "config.h"

enum probe_level {
	PROBE_OK,
	PROBE_WARN,
	PROBE_FAIL,
};

struct probe_result {
	enum probe_level level;
	char name[32];     /* "pasta", "/dev/net/tun", ... */
	char detail[320];  /* what was found */
	char fix[256];     /* what to do; empty when ok */
};

/**
 * probe_host_root() - root in the host's user namespace (uid_map the whole
 * identity), where BPF can load; a rootless container's root is not
 */
bool probe_host_root(void);

/**
 * probe_rootless() - whether `ebpfjail run` would use the rootless engine
 * (config.h, enum config_engine): engine = nftables, or auto without root
 * on the host
 */
bool probe_rootless(const struct config *cfg);

/* Each check fills @r and returns its level. `run` refuses to start on
 * PROBE_FAIL of the ones it calls, with the same words doctor prints, so
 * doctor can never say ok about something run then refuses. */

/**
 * probe_engine() - which engine run would use, and what the rootless one
 * does not give (a warning); engine = bpf without root fails
 */
enum probe_level probe_engine(struct probe_result *r, const struct config *cfg);

/**
 * probe_rootless_ns() - the rootless jail's own steps in a child: a user
 * namespace with a network namespace made and joined as netns.h makes
 * them, the default policy's nftables rules put in force, NFLOG bound
 */
enum probe_level probe_rootless_ns(struct probe_result *r);

enum probe_level probe_privileges(struct probe_result *r);
enum probe_level probe_tun(struct probe_result *r);
/* @version: also find pasta's version and say whether it is known to work
 * (doctor; run skips the few milliseconds) */
enum probe_level probe_pasta(struct probe_result *r, bool version);
/* @base: result, the cgroup jails are created under (cgroup_own()) */
enum probe_level probe_cgroup(struct probe_result *r, char *base, size_t size);
enum probe_level probe_bpf(struct probe_result *r);
enum probe_level probe_bpffs(struct probe_result *r);
enum probe_level probe_netns(struct probe_result *r);
enum probe_level probe_userns(struct probe_result *r);
/* What AppArmor restricts where it is on (Ubuntu), read by probe_apparmor(). */
struct apparmor_facts {
	bool enabled;
	int restrict_userns;   /* kernel.apparmor_restrict_unprivileged_userns:
				  1, 0, or -1 where the kernel has no such knob */
	bool ebpfjail_profile; /* etc/apparmor.d/ebpfjail is loaded */
	char pasta_mode[16];   /* passt's profile's mode ("enforce", ...), or "" */
};

/**
 * probe_apparmor() - AppArmor's restrictions on the jail: the user
 * namespace restriction without ebpfjail's profile fails the rootless
 * engine (@rootless), a profile that enforces on pasta is a warning
 */
enum probe_level probe_apparmor(struct probe_result *r, bool rootless);

/** probe_apparmor_judge() - probe_apparmor()'s verdict on @f (pure) */
enum probe_level probe_apparmor_judge(const struct apparmor_facts *f, bool rootless,
				      struct probe_result *r);
enum probe_level probe_iproute2(struct probe_result *r);
enum probe_level probe_callback_ports(struct probe_result *r, const struct config *cfg);
enum probe_level probe_audit_log(struct probe_result *r, const struct config *cfg);
/* What keeps the agent's processes in (docs/DESIGN.md, "Processes" and
 * "Unix sockets"): probe_isolation() the namespaces, the filter, the
 * private directories (a warning with share-tmp = on) and how many daemon
 * sockets are masked now; probe_unix_hooks() whether the kernel has the
 * cgroup Unix socket hooks and takes ours (a warning where it has none, a
 * failure where it refuses them, as run does); probe_landlock() whether
 * it has Landlock scopes (a warning where not). */
enum probe_level probe_isolation(struct probe_result *r, const struct config *cfg);
enum probe_level probe_unix_hooks(struct probe_result *r);
enum probe_level probe_landlock(struct probe_result *r);

#endif /* EBPFJAIL_PROBE_H */
