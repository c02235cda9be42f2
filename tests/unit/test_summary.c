// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_summary.c - the one-line summary of what was denied */
#include <string.h>
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "summary.h"

static struct jail_event event(const char *daddr, uint16_t dport, uint8_t reason, const char *comm)
{
	struct jail_event e = { .pid = 42, .uid = 1000, .proto = IPPROTO_TCP,
				.hook = HOOK_CONNECT4, .reason = reason, .rule_prefixlen = 8,
				.family = AF_INET, .dport = dport };

	e.daddr = inet_addr(daddr);
	strncpy(e.comm, comm, sizeof(e.comm) - 1);
	return e;
}

Test(summary, line)
{
	struct summary s = { 0 };
	struct jail_event a = event("10.1.2.3", 22, REASON_PRIVATE, "ssh");
	struct jail_event b = event("169.254.169.254", 80, REASON_METADATA, "curl");
	char line[1024];

	cr_expect_eq(summary_format(&s, line, sizeof(line)), 0, "nothing denied, nothing said");
	summary_add(&s, &b, 1);
	summary_add(&s, &a, 1);
	summary_add(&s, &a, 1);
	summary_format(&s, line, sizeof(line));
	cr_expect_str_eq(line, "ebpfjail: denied 3 connections: 10.1.2.3:22 (private) x2, "
			       "169.254.169.254:80 (metadata) x1; to allow the first: allow-ip = "
			       "10.1.2.3:22 (details: ebpfjail audit)\n");
}

/* Which allow-ip line the summary suggests: never a metadata service's. */
struct suggest_case {
	char name[48];
	struct {
		char daddr[16];
		uint16_t dport;
		uint8_t reason;
		unsigned int times; /* 0 ends the list */
	} denied[4];
	char want[160];   /* in the line */
	char absent[64];  /* not in the line */
};

ParameterizedTestParameters(summary, suggestion)
{
	static struct suggest_case cases[] = {
		{ "the first, when it may be allowed",
		  { { "10.1.2.3", 22, REASON_PRIVATE, 2 }, { "169.254.169.254", 80, REASON_METADATA, 1 } },
		  "; to allow the first: allow-ip = 10.1.2.3:22 (", "metadata service" },
		{ "metadata first: named, the next suggested",
		  { { "169.254.169.254", 80, REASON_METADATA, 5 }, { "10.1.2.3", 22, REASON_PRIVATE, 1 } },
		  "; 169.254.169.254 is a cloud metadata service, not allowed on purpose; to allow "
		  "10.1.2.3:22: allow-ip = 10.1.2.3:22 (",
		  "allow-ip = 169" },
		{ "only metadata: nothing suggested",
		  { { "169.254.169.254", 80, REASON_METADATA, 3 }, { "100.100.100.200", 80, REASON_METADATA, 1 } },
		  "; 169.254.169.254 is a cloud metadata service, not allowed on purpose (", "allow-ip" },
		{ "a metadata address under another rule",
		  { { "168.63.129.16", 80, REASON_BLOCK_CIDR, 2 }, { "192.168.1.5", 502, REASON_PRIVATE, 1 } },
		  "; 168.63.129.16 is a cloud metadata service, not allowed on purpose; to allow "
		  "192.168.1.5:502: allow-ip = 192.168.1.5:502 (",
		  "allow-ip = 168" },
		/* A ping (port 0): its line would open every port of the host. */
		{ "tried without a port: never a portless line",
		  { { "192.168.1.5", 0, REASON_PRIVATE, 4 }, { "10.1.2.3", 22, REASON_PRIVATE, 1 } },
		  "; to allow 10.1.2.3:22: allow-ip = 10.1.2.3:22 (", "allow-ip = 192.168.1.5" },
		{ "no address, then metadata, then one to allow",
		  { { "0.0.0.0", 0, REASON_IPV6, 9 }, { "169.254.170.2", 80, REASON_METADATA, 4 },
		    { "10.9.9.9", 443, REASON_PRIVATE, 1 } },
		  "; 169.254.170.2 is a cloud metadata service, not allowed on purpose; to allow "
		  "10.9.9.9:443: allow-ip = 10.9.9.9:443 (",
		  "allow-ip = 169" },
		{ "metadata after the suggestion is not named",
		  { { "10.1.2.3", 22, REASON_PRIVATE, 3 }, { "169.254.169.254", 80, REASON_METADATA, 1 } },
		  "to allow the first: allow-ip = 10.1.2.3:22", "not allowed on purpose" },
		/* netns: no line allows it, so the next denial is suggested */
		{ "netns: nothing to suggest",
		  { { "203.0.113.7", 443, REASON_NETNS, 5 }, { "10.1.2.3", 22, REASON_PRIVATE, 1 } },
		  "203.0.113.7:443 (netns) x5, 10.1.2.3:22 (private) x1; to allow 10.1.2.3:22: "
		  "allow-ip = 10.1.2.3:22 (",
		  "allow-ip = 203" },
		{ "netns alone: no suggestion",
		  { { "203.0.113.7", 443, REASON_NETNS, 2 } },
		  "denied 2 connections: 203.0.113.7:443 (netns) x2 (details", "allow" },
	};

	return cr_make_param_array(struct suggest_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct suggest_case *c, summary, suggestion)
{
	struct summary s = { 0 };
	char line[1024];
	unsigned int i, k;

	for (i = 0; i < 4 && c->denied[i].times; i++) {
		struct jail_event e = event(c->denied[i].daddr, c->denied[i].dport,
					    c->denied[i].reason, "agent");

		for (k = 0; k < c->denied[i].times; k++)
			summary_add(&s, &e, 1);
	}
	summary_format(&s, line, sizeof(line));
	cr_expect(strstr(line, c->want), "[%s] lacks \"%s\":\n%s", c->name, c->want, line);
	cr_expect(!strstr(line, c->absent), "[%s] has \"%s\":\n%s", c->name, c->absent, line);
}

static struct jail_event unix_event(const char *path)
{
	struct jail_event e = { .pid = 42, .uid = 1000, .hook = HOOK_CONNECT_UNIX,
				.reason = REASON_UNIX, .family = 1 /* AF_UNIX */ };

	memcpy(e.path, path, strnlen(path, sizeof(e.path)));
	return e;
}

Test(summary, unix_denial_suggests_unix_socket)
{
	struct summary s = { 0 };
	struct jail_event a = unix_event("/run/user/1000/ssh-agent.sock");
	struct jail_event b = unix_event("/run/postgresql/.s.PGSQL.5432");
	struct jail_event c = event("10.1.2.3", 22, REASON_PRIVATE, "ssh");
	char line[1024];

	summary_add(&s, &a, 1);
	summary_add(&s, &b, 1);
	summary_add(&s, &a, 1);
	summary_add(&s, &c, 1);
	summary_format(&s, line, sizeof(line));
	cr_expect_str_eq(line, "ebpfjail: denied 4 connections: /run/user/1000/ssh-agent.sock (unix) "
			       "x2, /run/postgresql/.s.PGSQL.5432 (unix) x1, 10.1.2.3:22 (private) x1; "
			       "to allow the first: unix-socket = /run/user/1000/ssh-agent.sock "
			       "(details: ebpfjail audit)\n");
}

/* A unix event's daddr and dport are 0: two paths are two destinations,
 * and a path is never the same destination as an address. */
Test(summary, paths_are_told_apart)
{
	struct summary s = { 0 };
	struct jail_event a = unix_event("/run/a.sock"), b = unix_event("/run/b.sock");
	struct jail_event ip = event("0.0.0.0", 0, REASON_UNIX, "x");

	summary_add(&s, &a, 1);
	summary_add(&s, &b, 1);
	summary_add(&s, &ip, 1);
	cr_expect_eq(s.n, 3);
}

/* Which paths a unix-socket line is suggested for. */
struct path_case {
	char path[UNIX_PATH_MAX];
	char want[200];
	char absent[64];
};

ParameterizedTestParameters(summary, unix_paths)
{
	static struct path_case cases[] = {
		/* a daemon socket that grants root: named, never suggested */
		{ "/run/docker.sock",
		  "; /run/docker.sock is a daemon socket that grants root, not allowed on purpose (",
		  "unix-socket =" },
		{ "/var/run/libvirt/libvirt-sock", "grants root, not allowed on purpose", "unix-socket" },
		/* ".." and relative paths: no line could allow them */
		{ "/tmp/../run/x.sock", "/tmp/../run/x.sock (unix) x1 (details", "unix-socket" },
		{ "relative.sock", "relative.sock (unix) x1 (details", "unix-socket" },
		/* bytes a configuration line cannot carry, or a terminal
		 * would act on: shown as '?', not suggested */
		{ "/tmp/a b.sock", "/tmp/a?b.sock (unix)", "unix-socket" },
		{ "/tmp/a#b.sock", "/tmp/a#b.sock (unix)", "unix-socket" },
		{ "/tmp/\x1b[2J.sock", "/tmp/?[2J.sock (unix)", "unix-socket" },
		{ "/run/app/sock-1.2_x@y:z", "to allow the first: unix-socket = /run/app/sock-1.2_x@y:z",
		  "not allowed" },
	};

	return cr_make_param_array(struct path_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct path_case *c, summary, unix_paths)
{
	struct summary s = { 0 };
	struct jail_event e = unix_event(c->path);
	char line[1024];

	summary_add(&s, &e, 1);
	summary_format(&s, line, sizeof(line));
	cr_expect(strstr(line, c->want), "[%s] lacks \"%s\":\n%s", c->path, c->want, line);
	cr_expect(!strstr(line, c->absent), "[%s] has \"%s\":\n%s", c->path, c->absent, line);
}

/* The next denial is suggested past a refused socket, as past metadata. */
Test(summary, root_socket_first_then_the_next)
{
	struct summary s = { 0 };
	struct jail_event a = unix_event("/run/docker.sock"), b = unix_event("/run/app.sock");
	char line[1024];

	summary_add(&s, &a, 1);
	summary_add(&s, &a, 1);
	summary_add(&s, &b, 1);
	summary_format(&s, line, sizeof(line));
	cr_expect(strstr(line, "; /run/docker.sock is a daemon socket that grants root, not allowed "
			       "on purpose; to allow /run/app.sock: unix-socket = /run/app.sock ("),
		  "%s", line);
}
