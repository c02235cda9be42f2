// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_pasta.c - pasta's command line and version strings (pure parts) */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "pasta.h"

Test(pasta, version_dates)
{
	cr_expect_eq(pasta_version_date("0.0~git20230309.7c7625d-1"), 20230309);
	cr_expect_eq(pasta_version_date("0.0~git20250503.587980c-2+deb13u1"), 20250503);
	cr_expect_eq(pasta_version_date("0.0~git20250503.587980c"), 20250503);
	cr_expect_eq(pasta_version_date("2025_05_03.587980c"), 20250503);
	cr_expect_eq(pasta_version_date("2024_12_11.09478d5"), 20241211);
	cr_expect_eq(pasta_version_date("unknown"), 0);
	cr_expect_eq(pasta_version_date("unknown version"), 0);
	cr_expect_eq(pasta_version_date(""), 0);
	cr_expect_eq(pasta_version_date("0.0~git2025"), 0);
	cr_expect_eq(pasta_version_date("0.0~git20251303.x"), 0);
	cr_expect_eq(pasta_version_date("2025_05_03"), 0);
}

/* The lifetime fix: without --no-netns-quit, pasta 0.0~git20250503 quits a
 * second after the namespace holder exits, and the jail loses its network. */
Test(pasta, argv_keeps_pasta_for_the_jails_life)
{
	struct pasta_opts o = { .netns_pid = 1234, .log_path = "/dev/null", .runas_root = true };
	char strings[512], *argv[PASTA_MAX_ARGS];
	bool netns_quit = false, netns = false, none = false, gw = false, dns = false;
	int argc, i;

	inet_pton(AF_INET, "203.0.113.2", &o.addr);
	inet_pton(AF_INET, "203.0.113.1", &o.gateway);
	argc = pasta_argv("/usr/bin/pasta", &o, strings, sizeof(strings), argv);
	cr_assert_lt(argc, PASTA_MAX_ARGS);
	cr_expect_null(argv[argc]);
	for (i = 1; i < argc; i++) {
		netns_quit |= !strcmp(argv[i], "--no-netns-quit");
		if (!strcmp(argv[i], "--netns"))
			netns = !strcmp(argv[i + 1], "/proc/1234/ns/net");
		if (!strcmp(argv[i], "--gateway"))
			gw = !strcmp(argv[i + 1], "203.0.113.1");
		if (!strcmp(argv[i], "--dns-forward"))
			dns = !strcmp(argv[i + 1], PASTA_DNS_DECOY);
		if (!strcmp(argv[i], "--tcp-ports"))
			none = !strcmp(argv[i + 1], "none");
	}
	cr_expect(netns_quit, "no --no-netns-quit");
	cr_expect(netns, "not the holder's namespace");
	cr_expect(none, "ports forwarded");
	cr_expect(gw, "wrong gateway");
	cr_expect(dns, "pasta's DNS forwarding is not on the decoy (never the gateway, never "
		       "the forward address)");
}

/* Rootless: pasta joins the jail's user namespace before its network
 * namespace, and keeps our uid unless we are root (a rootless container's). */
Test(pasta, argv_rootless_joins_the_user_namespace)
{
	struct pasta_opts o = { .netns_pid = 77, .log_path = "/dev/null", .rootless = true };
	char strings[512], *argv[PASTA_MAX_ARGS];
	int argc, i, userns = -1, netns = -1, runas = -1;

	argc = pasta_argv("/usr/bin/pasta", &o, strings, sizeof(strings), argv);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--userns") && !strcmp(argv[i + 1], "/proc/77/ns/user"))
			userns = i;
		if (!strcmp(argv[i], "--netns") && !strcmp(argv[i + 1], "/proc/77/ns/net"))
			netns = i;
		if (!strcmp(argv[i], "--runas"))
			runas = i;
	}
	cr_expect_geq(userns, 0, "no --userns /proc/77/ns/user");
	cr_expect_gt(netns, userns, "no --netns after --userns");
	cr_expect_lt(runas, 0, "--runas without root");
	o.runas_root = true;
	argc = pasta_argv("/usr/bin/pasta", &o, strings, sizeof(strings), argv);
	for (i = 1, runas = -1; i < argc; i++)
		if (!strcmp(argv[i], "--runas") && !strcmp(argv[i + 1], "0"))
			runas = i;
	cr_expect_geq(runas, 0, "no --runas 0 for root");
}

/* The version is read from the binary, as passt lays out VERSION_BLOB. */
static void version_of(const char *content, size_t len, char *buf, size_t size)
{
	char path[] = "/tmp/ebpfjail-test-pasta.XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, content, len), (ssize_t)len);
	close(fd);
	pasta_version(path, buf, size);
	unlink(path);
}

Test(pasta, version_read_from_the_binary)
{
	static const char debian13[] = "\x7f" "ELF\0junk\0pasta \0" "0.0~git20250503.587980c-2+deb13u1"
				       "\nCopyright Red Hat\nGNU General Public License\0more";
	static const char debian12[] = "ELF\0unknown version\nCopyright Red Hat\nGNU\0";
	static const char none[] = "ELF\0no marker here\0";
	char v[128];

	version_of(debian13, sizeof(debian13) - 1, v, sizeof(v));
	cr_expect_str_eq(v, "0.0~git20250503.587980c-2+deb13u1");
	version_of(debian12, sizeof(debian12) - 1, v, sizeof(v));
	cr_expect_str_eq(v, "unknown");
	version_of(none, sizeof(none) - 1, v, sizeof(v));
	cr_expect_str_eq(v, "unknown");
	pasta_version("/nonexistent/pasta", v, sizeof(v));
	cr_expect_str_eq(v, "unknown");
}
