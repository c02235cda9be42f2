// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_probe.c - doctor's verdicts on what it read (the pure parts) */
#include <string.h>
#include <criterion/criterion.h>

#include "probe.h"

/* AppArmor as Ubuntu 24.04 has it and as others do: the user namespace
 * restriction fails the rootless engine unless ebpfjail's profile is
 * loaded, never root's; passt's profile in enforce mode is a warning. */
Test(probe, apparmor_restrictions_and_their_fixes)
{
	static const struct {
		const char *what;
		struct apparmor_facts f;
		bool rootless;
		enum probe_level want;
		const char *in_detail, *in_fix;
	} cases[] = {
		{ "off", { .enabled = false, .restrict_userns = 1 }, true, PROBE_OK, "not enabled", "" },
		{ "Ubuntu, rootless, no profile", { .enabled = true, .restrict_userns = 1 }, true,
		  PROBE_FAIL, "apparmor_restrict_unprivileged_userns = 1",
		  "apparmor_parser -r /etc/apparmor.d/ebpfjail" },
		{ "Ubuntu, rootless, the profile loaded",
		  { .enabled = true, .restrict_userns = 1, .ebpfjail_profile = true }, true, PROBE_OK,
		  "ebpfjail's profile allows its own", "" },
		{ "Ubuntu, root: not restricted", { .enabled = true, .restrict_userns = 1 }, false,
		  PROBE_OK, "unprivileged user namespaces restricted", "" },
		{ "no such knob", { .enabled = true, .restrict_userns = -1 }, true, PROBE_OK,
		  "no profile for pasta", "" },
		{ "passt enforced", { .enabled = true, .restrict_userns = 0, .pasta_mode = "enforce" },
		  false, PROBE_WARN, "confines passt/pasta", "journalctl -k" },
		{ "passt in complain mode",
		  { .enabled = true, .restrict_userns = 0, .pasta_mode = "complain" }, false, PROBE_OK,
		  "pasta's profile not enforced", "" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct probe_result r;

		cr_expect_eq(probe_apparmor_judge(&cases[i].f, cases[i].rootless, &r), cases[i].want,
			     "%s: %s", cases[i].what, r.detail);
		cr_expect_eq(r.level, cases[i].want, "%s", cases[i].what);
		cr_expect(strstr(r.detail, cases[i].in_detail), "%s: %s", cases[i].what, r.detail);
		cr_expect(strstr(r.fix, cases[i].in_fix), "%s: fix %s", cases[i].what, r.fix);
	}
}
