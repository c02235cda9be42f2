// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_doctor.c - `ebpfjail doctor`: every prerequisite, ok/warn/fail and the fix */
#include <stdio.h>
#include <string.h>

#include "audit.h"
#include "cli.h"
#include "log.h"
#include "probe.h"

static const char *const level_name[] = { "ok", "warn", "fail" };

static void print_result(const struct probe_result *r, bool json, bool first)
{
	char detail[700], fix[600];

	if (json) {
		audit_json_string(r->detail, detail, sizeof(detail));
		audit_json_string(r->fix, fix, sizeof(fix));
		printf("%s{\"check\": \"%s\", \"status\": \"%s\", \"detail\": %s, \"fix\": %s}",
		       first ? "" : ", ", r->name, level_name[r->level], detail, fix);
		return;
	}
	printf("%-5s %-16s %s\n", level_name[r->level], r->name, r->detail);
	if (r->level != PROBE_OK && r->fix[0])
		printf("%-5s %-16s fix: %s\n", "", "", r->fix);
}

int cmd_doctor(const struct command *cmd, int argc, char **argv)
{
	struct probe_result results[24], *r = results;
	struct cli_options o;
	struct config cfg;
	char root[4096];
	bool failed = false, rootless;
	int ret;
	size_t i, n;

	ret = cli_parse(cmd, argc, argv, &o);
	if (ret != CLI_CONTINUE) {
		cli_options_free(&o);
		return ret;
	}
	config_init(&cfg);
	/* Configuration problems become this check's lines, not loose ones. */
	cli_read_config(&cfg, &o, cli_agent_uid(&o));
	r->level = config_ok(&cfg) ? PROBE_OK : PROBE_FAIL;
	snprintf(r->name, sizeof(r->name), "configuration");
	snprintf(r->detail, sizeof(r->detail), "%s", r->level == PROBE_OK ? "parses" : "invalid");
	for (i = 0; i < cfg.n_diags; i++) {
		size_t len = strlen(r->detail);

		snprintf(r->detail + len, sizeof(r->detail) - len, "%s%s", i ? "; " : ": ",
			 cfg.diags[i].text);
		if (r->level == PROBE_OK)
			r->level = PROBE_WARN;
	}
	if (cfg.n_unapproved) {
		size_t len = (size_t)snprintf(r->fix, sizeof(r->fix),
					      "if you wrote the lines not approved: ");

		cli_trust_hint(&cfg, &o, cli_agent_uid(&o), r->fix + len, sizeof(r->fix) - len);
	} else {
		snprintf(r->fix, sizeof(r->fix), "%s",
			 r->level == PROBE_OK ? "" :
			 "correct the lines named; 'ebpfjail config' shows the result");
	}
	r++;
	rootless = probe_rootless(&cfg);
	probe_engine(r++, &cfg);
	if (rootless) {
		/* What the rootless engine needs instead of root, BPF and
		 * cgroups. */
		probe_rootless_ns(r++);
	} else {
		probe_privileges(r++);
		probe_bpf(r++);
		probe_cgroup(r++, root, sizeof(root));
		probe_bpffs(r++);
	}
	probe_tun(r++);
	if (!rootless) {
		probe_netns(r++);
		probe_userns(r++);
	}
	probe_pasta(r++, true);
	probe_apparmor(r++, rootless);
	probe_iproute2(r++);
	probe_callback_ports(r++, &cfg);
	probe_audit_log(r++, &cfg);
	probe_isolation(r++, &cfg);
	if (!rootless)
		probe_unix_hooks(r++);
	probe_landlock(r++);
	n = (size_t)(r - results);

	if (o.json)
		printf("{\"checks\": [");
	for (i = 0; i < n; i++) {
		print_result(&results[i], o.json, i == 0);
		failed |= results[i].level == PROBE_FAIL;
	}
	if (o.json)
		printf("], \"ok\": %s}\n", failed ? "false" : "true");
	else
		printf("%s\n", failed ? "Something is wrong: ebpfjail run would refuse to start."
				      : "All is well: ebpfjail run can start.");
	config_free(&cfg);
	cli_options_free(&o);
	return failed ? EXIT_TROUBLE : 0;
}
