// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_config.c - the configuration parser: every key, every rule, every source */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "builtin.h"
#include "config.h"

enum via { VIA_FILE, VIA_ENV, VIA_FLAG };

/* Arrays, not pointers: Criterion runs each parameter in a fresh process
 * image, where the parent's pointers to literals are not valid. */
struct config_case {
	char name[40];
	enum via via;
	char text[128];     /* file text; for ENV "NAME=value"; for FLAG "key\tvalue" */
	unsigned int errors;
	unsigned int warnings;
	char expect[128];   /* in the printed config (no errors) or in the first diag */
};

static unsigned int count_warnings(const struct config *cfg)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < cfg->n_diags; i++)
		n += cfg->diags[i].severity == CONFIG_WARNING;
	return n;
}

static char *print_config(const struct config *cfg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	config_print(cfg, f);
	fclose(f);
	return buf;
}

static void apply_case(struct config *cfg, const struct config_case *c)
{
	config_init(cfg);
	if (c->via == VIA_FILE) {
		config_parse_buffer(cfg, "t.conf", c->text, strlen(c->text));
	} else if (c->via == VIA_ENV) {
		char text[sizeof(c->text)], *envp[] = { text, NULL };

		memcpy(text, c->text, sizeof(text));

		config_apply_env(cfg, envp);
	} else {
		static const struct config_origin flag = { .source = SOURCE_FLAG, .name = "--flag" };
		char key[64];
		const char *tab = strchr(c->text, '\t');

		snprintf(key, sizeof(key), "%.*s", (int)(tab - c->text), c->text);
		config_set(cfg, key, tab + 1, &flag);
	}
	config_finish(cfg);
}

ParameterizedTestParameters(config, cases)
{
	static struct config_case cases[] = {
		/* good */
		{ "empty file", VIA_FILE, "", 0, 0, "egress-jail = on" },
		{ "egress off", VIA_FILE, "egress-jail = off\n", 0, 0, "egress-jail = off                        # t.conf:1" },
		{ "egress on", VIA_FILE, "egress-jail = on\n", 0, 0, "egress-jail = on                         # t.conf:1" },
		{ "allow bare", VIA_FILE, "allow-ip = 192.0.2.10\n", 0, 0, "allow-ip = 192.0.2.10 " },
		{ "allow port", VIA_FILE, "allow-ip = 192.0.2.10:443\n", 0, 0, "allow-ip = 192.0.2.10:443" },
		{ "allow port 1", VIA_FILE, "allow-ip = 10.0.0.7:1\n", 0, 0, "allow-ip = 10.0.0.7:1 " },
		{ "allow port 65535", VIA_FILE, "allow-ip = 10.0.0.7:65535\n", 0, 0, "allow-ip = 10.0.0.7:65535" },
		{ "allow zeros", VIA_FILE, "allow-ip = 0.0.0.0\n", 0, 0, "allow-ip = 0.0.0.0" },
		{ "allow broadcast", VIA_FILE, "allow-ip = 255.255.255.255\n", 0, 0, "allow-ip = 255.255.255.255" },
		{ "allow duplicate", VIA_FILE, "allow-ip = 10.1.1.1\nallow-ip = 10.1.1.1\n", 0, 0, "allow-ip = 10.1.1.1                      # t.conf:1\nlocal-model" },
		{ "allow two ports", VIA_FILE, "allow-ip = 10.1.1.1:80\nallow-ip = 10.1.1.1:81\n", 0, 0, "10.1.1.1:80                   # t.conf:1\nallow-ip = 10.1.1.1:81" },
		{ "allow metadata warns", VIA_FILE, "allow-ip = 169.254.169.254\n", 0, 1, "allow-ip = 169.254.169.254" },
		{ "allow azure warns", VIA_FILE, "allow-ip = 168.63.129.16:80\n", 0, 1, "allow-ip = 168.63.129.16:80" },
		{ "block cidr", VIA_FILE, "block-cidr = 198.18.0.0/15\n", 0, 0, "block-cidr = 198.18.0.0/15" },
		{ "block bare ip", VIA_FILE, "block-cidr = 203.0.113.7\n", 0, 0, "block-cidr = 203.0.113.7/32" },
		{ "block everything", VIA_FILE, "block-cidr = 0.0.0.0/0\n", 0, 0, "block-cidr = 0.0.0.0/0" },
		{ "block duplicate", VIA_FILE, "block-cidr = 10.0.0.0/8\nblock-cidr = 10.0.0.0/8\n", 0, 0, "block-cidr = 10.0.0.0/8                  # t.conf:1\nlocal-model" },
		{ "local port 1", VIA_FILE, "local-port = 1\n", 0, 0, "local-port = 1 " },
		{ "local port 65535", VIA_FILE, "local-port = 65535\n", 0, 0, "local-port = 65535" },
		{ "local port dedup", VIA_FILE, "local-port = 5432\nlocal-port = 5432\n", 0, 0, "local-port = 5432                        # t.conf:1\nlocal-model" },
		{ "model port off", VIA_FILE, "local-model-port = 0\n", 0, 0, "local-model-port = 0 " },
		{ "model port set", VIA_FILE, "local-model-port = 11434\n", 0, 0, "local-model-port = 11434" },
		{ "model port last wins", VIA_FILE, "local-model-port = 1\nlocal-model-port = 2\n", 0, 0, "local-model-port = 2                     # t.conf:2" },
		{ "callback port", VIA_FILE, "callback-port = 53692\ncallback-port = 1455\n", 0, 0, "callback-port = 53692                    # t.conf:1\ncallback-port = 1455" },
		{ "callback with model off", VIA_FILE, "local-model-port = 0\ncallback-port = 1920\n", 0, 0, "callback-port = 1920" },
		{ "pass env", VIA_FILE, "pass-env = ANTHROPIC_API_KEY\n", 0, 0, "pass-env = ANTHROPIC_API_KEY" },
		{ "pass env underscore", VIA_FILE, "pass-env = _X1\n", 0, 0, "pass-env = _X1" },
		{ "pass env lower ld", VIA_FILE, "pass-env = ld_library\n", 0, 0, "pass-env = ld_library" },
		{ "audit log", VIA_FILE, "audit-log = /tmp/a.jsonl\n", 0, 0, "audit-log = /tmp/a.jsonl" },
		{ "comment after value", VIA_FILE, "local-port = 5432 # postgres\n", 0, 0, "local-port = 5432 " },
		{ "comment glued", VIA_FILE, "local-port = 5432#x\n", 0, 0, "local-port = 5432 " },
		{ "comments and blanks", VIA_FILE, "# c\n\n   \n\t# indented\nlocal-port = 7\n", 0, 0, "local-port = 7                           # t.conf:5" },
		{ "crlf", VIA_FILE, "local-port = 8080\r\nallow-ip = 192.0.2.1\r\n", 0, 0, "allow-ip = 192.0.2.1                     # t.conf:2" },
		{ "tabs", VIA_FILE, "\tlocal-port\t=\t8081\t\n", 0, 0, "local-port = 8081" },
		{ "no spaces", VIA_FILE, "local-port=8082\n", 0, 0, "local-port = 8082" },
		{ "spaces in value trimmed", VIA_FILE, "local-port =  5 \n", 0, 0, "local-port = 5 " },
		{ "no final newline", VIA_FILE, "local-port = 9", 0, 0, "local-port = 9 " },
		{ "unknown key warns", VIA_FILE, "alow-ip = 1.2.3.4\n", 0, 1, "egress-jail = on" },
		{ "env repeatable list", VIA_ENV, "EBPFJAIL_ALLOW_IP=192.0.2.1  192.0.2.2:22", 0, 0, "allow-ip = 192.0.2.2:22                  # env EBPFJAIL_ALLOW_IP" },
		{ "env empty list", VIA_ENV, "EBPFJAIL_LOCAL_PORT=", 0, 0, "local-model-port = 1920" },
		{ "env single", VIA_ENV, "EBPFJAIL_EGRESS_JAIL=off", 0, 0, "egress-jail = off                        # env EBPFJAIL_EGRESS_JAIL" },
		{ "env unknown warns", VIA_ENV, "EBPFJAIL_ALLOWIP=1.2.3.4", 0, 1, "egress-jail = on" },
		{ "flag allow", VIA_FLAG, "allow-ip\t192.0.2.9:8443", 0, 0, "allow-ip = 192.0.2.9:8443                # flag --flag" },
		{ "share-tmp default off", VIA_FILE, "", 0, 0, "share-tmp = off                          # default" },
		{ "share-tmp on", VIA_FILE, "share-tmp = on\n", 0, 0, "share-tmp = on                           # t.conf:1" },
		{ "share-tmp off", VIA_FILE, "share-tmp = off\n", 0, 0, "share-tmp = off                          # t.conf:1" },
		{ "share-tmp last wins", VIA_FILE, "share-tmp = on\nshare-tmp = off\n", 0, 0, "share-tmp = off                          # t.conf:2" },
		{ "share-tmp env", VIA_ENV, "EBPFJAIL_SHARE_TMP=on", 0, 0, "share-tmp = on                           # env EBPFJAIL_SHARE_TMP" },
		{ "unix-socket", VIA_FILE, "unix-socket = /run/user/1000/gnupg/S.gpg-agent.ssh\n", 0, 0, "unix-socket = /run/user/1000/gnupg/S.gpg-agent.ssh # t.conf:1" },
		{ "unix-socket two in order", VIA_FILE, "unix-socket = /run/a.sock\nunix-socket = /run/b.sock\n", 0, 0, "unix-socket = /run/a.sock                # t.conf:1\nunix-socket = /run/b.sock                # t.conf:2" },
		{ "unix-socket dedup", VIA_FILE, "unix-socket = /run/a.sock\nunix-socket=/run/a.sock\n", 0, 0, "unix-socket = /run/a.sock                # t.conf:1\nshare-tmp" },
		{ "unix-socket dots in names", VIA_FILE, "unix-socket = /run/.s/..x/x../.../a.b\n", 0, 0, "unix-socket = /run/.s/..x/x../.../a.b" },
		{ "unix-socket comment", VIA_FILE, "unix-socket = /run/a.sock # db\n", 0, 0, "unix-socket = /run/a.sock                # t.conf:1" },
		{ "unix-socket non-ascii", VIA_FILE, "unix-socket = /run/\xc3\xa9.sock\n", 0, 0, "unix-socket = /run/\xc3\xa9.sock" },
		{ "unix-socket root refused", VIA_FILE, "unix-socket = /run/docker.sock\n", 1, 0, "t.conf:1: unix-socket = \"/run/docker.sock\": is the socket of a daemon that grants root" },
		{ "unix-socket rootless docker refused", VIA_FILE, "unix-socket = /run/user/1000/docker.sock\n", 1, 0, "t.conf:1: unix-socket = \"/run/user/1000/docker.sock\": is the socket of a daemon that grants root" },
		{ "unix-socket env list", VIA_ENV, "EBPFJAIL_UNIX_SOCKET=/run/a.sock  /run/b.sock", 0, 0, "/run/a.sock                # env EBPFJAIL_UNIX_SOCKET\nunix-socket = /run/b.sock   " },
		{ "unix-socket env dedup", VIA_ENV, "EBPFJAIL_UNIX_SOCKET=/run/a.sock /run/a.sock", 0, 0, "unix-socket = /run/a.sock                # env EBPFJAIL_UNIX_SOCKET\nshare-tmp" },
		{ "unix-socket env empty", VIA_ENV, "EBPFJAIL_UNIX_SOCKET=", 0, 0, "local-model-port = 1920                  # default\nshare-tmp" },
		{ "unix-socket flag", VIA_FLAG, "unix-socket\t/run/a.sock", 0, 0, "unix-socket = /run/a.sock                # flag --flag" },

		/* bad */
		{ "port 0", VIA_FILE, "local-port = 0\n", 1, 0, "t.conf:1: local-port = \"0\": must be a port 1-65535" },
		{ "port 65536", VIA_FILE, "local-port = 65536\n", 1, 0, "t.conf:1: local-port = \"65536\"" },
		{ "port leading zero", VIA_FILE, "local-port = 08\n", 1, 0, "local-port = \"08\"" },
		{ "port plus", VIA_FILE, "local-port = +5\n", 1, 0, "local-port = \"+5\"" },
		{ "port minus", VIA_FILE, "callback-port = -1\n", 1, 0, "callback-port = \"-1\"" },
		{ "port hex", VIA_FILE, "local-port = 0x10\n", 1, 0, "local-port = \"0x10\"" },
		{ "port trailing junk", VIA_FILE, "local-port = 5x\n", 1, 0, "local-port = \"5x\"" },
		{ "port space flag", VIA_FLAG, "local-port\t 5", 1, 0, "flag --flag: local-port = \" 5\"" },
		{ "port huge", VIA_FILE, "local-port = 99999999999999999999\n", 1, 0, "local-port = \"99999999999999999999\"" },
		{ "port empty", VIA_FILE, "local-port =\n", 1, 0, "t.conf:1: local-port: empty value" },
		{ "model port 65536", VIA_FILE, "local-model-port = 65536\n", 1, 0, "0 (off) or 1-65535" },
		{ "model port 00", VIA_FILE, "local-model-port = 00\n", 1, 0, "local-model-port = \"00\"" },
		{ "ip leading zero", VIA_FILE, "allow-ip = 010.0.0.1\n", 1, 0, "t.conf:1: allow-ip = \"010.0.0.1\": not a strict dotted-quad" },
		{ "ip short", VIA_FILE, "allow-ip = 10.1\n", 1, 0, "allow-ip = \"10.1\"" },
		{ "ip trailing word", VIA_FILE, "allow-ip = 1.2.3.4 x\n", 1, 0, "allow-ip = \"1.2.3.4 x\"" },
		{ "ip cidr", VIA_FILE, "allow-ip = 1.2.3.4/32\n", 1, 0, "write \"allow-ip = 1.2.3.4\"" },
		{ "ip network", VIA_FILE, "allow-ip = 10.0.0.0/24\n", 1, 0, "allow-ip takes one address, not a network" },
		{ "ipv6 loopback", VIA_FILE, "allow-ip = ::1\n", 1, 0, "IPv6 is not supported" },
		{ "ipv6 full", VIA_FILE, "allow-ip = 2001:db8::1\n", 1, 0, "IPv6 is not supported" },
		{ "ipv6 bracket port", VIA_FILE, "allow-ip = [::1]:80\n", 1, 0, "IPv6 is not supported" },
		{ "hostname", VIA_FILE, "allow-ip = example.com\n", 1, 0, "hostnames are not accepted" },
		{ "hostname port", VIA_FILE, "allow-ip = plc.lab:502\n", 1, 0, "hostnames are not accepted" },
		{ "ip octet 256", VIA_FILE, "allow-ip = 256.1.1.1\n", 1, 0, "allow-ip = \"256.1.1.1\"" },
		{ "ip five parts", VIA_FILE, "allow-ip = 1.2.3.4.5\n", 1, 0, "allow-ip = \"1.2.3.4.5\"" },
		{ "ip empty part", VIA_FILE, "allow-ip = 1..3.4\n", 1, 0, "allow-ip = \"1..3.4\"" },
		{ "ip port 0", VIA_FILE, "allow-ip = 1.2.3.4:0\n", 1, 0, "port after ':' must be 1-65535" },
		{ "ip port 65536", VIA_FILE, "allow-ip = 1.2.3.4:65536\n", 1, 0, "port after ':' must be 1-65535" },
		{ "ip port empty", VIA_FILE, "allow-ip = 1.2.3.4:\n", 1, 0, "port after ':'" },
		{ "ip port leading zero", VIA_FILE, "allow-ip = 1.2.3.4:080\n", 1, 0, "port after ':'" },
		{ "ip in env bad", VIA_ENV, "EBPFJAIL_ALLOW_IP=192.0.2.1 10.1", 1, 0, "env EBPFJAIL_ALLOW_IP: allow-ip = \"10.1\"" },
		{ "cidr host bits", VIA_FILE, "block-cidr = 10.0.0.1/8\n", 1, 0, "did you mean 10.0.0.0/8?" },
		{ "cidr /33", VIA_FILE, "block-cidr = 10.0.0.0/33\n", 1, 0, "prefix length after '/' must be 0-32" },
		{ "cidr /08", VIA_FILE, "block-cidr = 10.0.0.0/08\n", 1, 0, "prefix length after '/'" },
		{ "cidr short", VIA_FILE, "block-cidr = 10/8\n", 1, 0, "not an IPv4 prefix" },
		{ "cidr empty len", VIA_FILE, "block-cidr = 10.0.0.0/\n", 1, 0, "prefix length" },
		{ "egress yes", VIA_FILE, "egress-jail = yes\n", 1, 0, "egress-jail = \"yes\": must be on or off" },
		{ "egress env bad", VIA_ENV, "EBPFJAIL_EGRESS_JAIL=0", 1, 0, "env EBPFJAIL_EGRESS_JAIL" },
		{ "egress env empty", VIA_ENV, "EBPFJAIL_EGRESS_JAIL=", 1, 0, "egress-jail: empty value" },
		{ "pass PATH", VIA_FILE, "pass-env = PATH\n", 1, 0, "pass-env = \"PATH\": may not be passed" },
		{ "pass HOME", VIA_FILE, "pass-env = HOME\n", 1, 0, "\"HOME\": may not" },
		{ "pass USER", VIA_FILE, "pass-env = USER\n", 1, 0, "\"USER\": may not" },
		{ "pass LD_PRELOAD", VIA_FILE, "pass-env = LD_PRELOAD\n", 1, 0, "\"LD_PRELOAD\": may not" },
		{ "pass LD_LIBRARY_PATH", VIA_FLAG, "pass-env\tLD_LIBRARY_PATH", 1, 0, "flag --flag: pass-env = \"LD_LIBRARY_PATH\"" },
		{ "pass BASH_ENV", VIA_FILE, "pass-env = BASH_ENV\n", 1, 0, "\"BASH_ENV\": may not" },
		{ "pass ENV", VIA_FILE, "pass-env = ENV\n", 1, 0, "\"ENV\": may not" },
		{ "pass SHELLOPTS", VIA_FILE, "pass-env = SHELLOPTS\n", 1, 0, "\"SHELLOPTS\": may not" },
		{ "pass BASHOPTS", VIA_FILE, "pass-env = BASHOPTS\n", 1, 0, "\"BASHOPTS\": may not" },
		{ "pass IFS", VIA_FILE, "pass-env = IFS\n", 1, 0, "\"IFS\": may not" },
		{ "pass EBPFJAIL_", VIA_FILE, "pass-env = EBPFJAIL_AUDIT_LOG\n", 1, 0, "\"EBPFJAIL_AUDIT_LOG\": may not" },
		{ "pass digit first", VIA_FILE, "pass-env = 1ABC\n", 1, 0, "not a variable name" },
		{ "pass dash", VIA_FILE, "pass-env = A-B\n", 1, 0, "not a variable name" },
		{ "pass two names", VIA_FILE, "pass-env = A B\n", 1, 0, "not a variable name" },
		{ "audit relative", VIA_FILE, "audit-log = audit.jsonl\n", 1, 0, "must be an absolute path" },
		{ "no equals", VIA_FILE, "allow-ip 1.2.3.4\n", 1, 0, "t.conf:1: expected \"key = value\", got \"allow-ip 1.2.3.4\"" },
		{ "no key", VIA_FILE, "= 1.2.3.4\n", 1, 0, "t.conf:1: missing key" },
		{ "callback = model port", VIA_FILE, "callback-port = 1920\n", 1, 0, "t.conf:1: callback-port = 1920 is also the local-model-port (default)" },
		{ "callback = set model port", VIA_FILE, "local-model-port = 8000\ncallback-port = 8000\n", 1, 0, "also the local-model-port (t.conf:1)" },
		{ "callback = local port", VIA_FILE, "local-port = 5432\ncallback-port = 5432\n", 1, 0, "t.conf:2: callback-port = 5432 is also a local-port (t.conf:1)" },
		{ "control char", VIA_FILE, "audit-log = /tmp/a\x01" "b\n", 1, 0, "contains a control character" },
		{ "bare cr inside", VIA_FILE, "local-port = 1\r2\n", 1, 0, "local-port = \"1\\x0d2\"" },
		{ "binary garbage", VIA_FILE, "\x7f" "ELF\x02\x01\x01\n\xff\xfe=\x80\n", 1, 1, "t.conf:1: expected \"key = value\", got \"\\x7fELF\\x02\\x01\\x01\"" },
		{ "errors counted", VIA_FILE, "local-port = 0\nallow-ip = x\nbogus\nlocal-port = 22\n", 3, 0, "t.conf:1:" },
		{ "line 3 reported", VIA_FILE, "# one\nlocal-port = 1\nlocal-port = 70000\n", 1, 0, "t.conf:3: local-port = \"70000\"" },
		{ "share-tmp yes", VIA_FILE, "share-tmp = yes\n", 1, 0, "t.conf:1: share-tmp = \"yes\": must be on or off" },
		{ "share-tmp upper", VIA_FILE, "share-tmp = ON\n", 1, 0, "t.conf:1: share-tmp = \"ON\": must be on or off" },
		{ "share-tmp two words", VIA_FILE, "share-tmp = on off\n", 1, 0, "t.conf:1: share-tmp = \"on off\": must be on or off" },
		{ "share-tmp empty", VIA_FILE, "share-tmp =\n", 1, 0, "t.conf:1: share-tmp: empty value" },
		{ "host-settle-ms default", VIA_FILE, "", 0, 0, "host-settle-ms = 100                     # default" },
		{ "host-settle-ms set", VIA_FILE, "host-settle-ms = 30000\n", 0, 0, "host-settle-ms = 30000                   # t.conf:1" },
		{ "host-settle-ms max", VIA_FILE, "host-settle-ms = 600000\n", 0, 0, "host-settle-ms = 600000" },
		{ "host-settle-ms too short", VIA_FILE, "host-settle-ms = 99\n", 1, 0, "t.conf:1: host-settle-ms = \"99\": must be milliseconds 100-600000 in plain decimal" },
		{ "host-settle-ms too long", VIA_FILE, "host-settle-ms = 600001\n", 1, 0, "must be milliseconds 100-600000" },
		{ "host-settle-ms huge", VIA_FILE, "host-settle-ms = 99999999999999999999\n", 1, 0, "must be milliseconds" },
		{ "host-settle-ms leading zero", VIA_FILE, "host-settle-ms = 0100\n", 1, 0, "must be milliseconds" },
		{ "host-settle-ms unit", VIA_FILE, "host-settle-ms = 100ms\n", 1, 0, "must be milliseconds" },
		{ "host-settle-ms sign", VIA_FILE, "host-settle-ms = +100\n", 1, 0, "must be milliseconds" },
		{ "share-tmp env bad", VIA_ENV, "EBPFJAIL_SHARE_TMP=1", 1, 0, "env EBPFJAIL_SHARE_TMP: share-tmp = \"1\": must be on or off" },
		{ "unix relative", VIA_FILE, "unix-socket = run/a.sock\n", 1, 0, "t.conf:1: unix-socket = \"run/a.sock\": must be an absolute path" },
		{ "unix tilde", VIA_FILE, "unix-socket = ~/a.sock\n", 1, 0, "t.conf:1: unix-socket = \"~/a.sock\": must be an absolute path" },
		{ "unix abstract", VIA_FILE, "unix-socket = @dbus\n", 1, 0, "t.conf:1: unix-socket = \"@dbus\": must be an absolute path" },
		{ "unix root dir", VIA_FILE, "unix-socket = /\n", 1, 0, "t.conf:1: unix-socket = \"/\": is the root directory, not a socket" },
		{ "unix dotdot", VIA_FILE, "unix-socket = /run/../etc/a.sock\n", 1, 0, "t.conf:1: unix-socket = \"/run/../etc/a.sock\": has a \"..\" component: write the path without it" },
		{ "unix dotdot first", VIA_FILE, "unix-socket = /../run/a.sock\n", 1, 0, "t.conf:1: unix-socket = \"/../run/a.sock\": has a \"..\" component" },
		{ "unix dotdot last", VIA_FILE, "unix-socket = /run/a/..\n", 1, 0, "t.conf:1: unix-socket = \"/run/a/..\": has a \"..\" component" },
		{ "unix dot", VIA_FILE, "unix-socket = /run/./docker.sock\n", 1, 0, "t.conf:1: unix-socket = \"/run/./docker.sock\": has a \".\" component: write the path without it" },
		{ "unix dot last", VIA_FILE, "unix-socket = /run/.\n", 1, 0, "t.conf:1: unix-socket = \"/run/.\": has a \".\" component" },
		{ "unix double slash", VIA_FILE, "unix-socket = /run//docker.sock\n", 1, 0, "t.conf:1: unix-socket = \"/run//docker.sock\": contains \"//\": write the path with single slashes" },
		{ "unix leading double slash", VIA_FILE, "unix-socket = //run/a.sock\n", 1, 0, "t.conf:1: unix-socket = \"//run/a.sock\": contains \"//\"" },
		{ "unix trailing slash", VIA_FILE, "unix-socket = /run/a/\n", 1, 0, "t.conf:1: unix-socket = \"/run/a/\": ends in \"/\": name the socket, not its directory" },
		{ "unix space inside", VIA_FILE, "unix-socket = /run/a b.sock\n", 1, 0, "t.conf:1: unix-socket = \"/run/a b.sock\": contains whitespace: one path per line" },
		{ "unix two paths", VIA_FILE, "unix-socket = /run/a.sock /run/b.sock\n", 1, 0, "t.conf:1: unix-socket = \"/run/a.sock /run/b.sock\": contains whitespace" },
		{ "unix space flag", VIA_FLAG, "unix-socket\t/run/a b", 1, 0, "flag --flag: unix-socket = \"/run/a b\": contains whitespace" },
		{ "unix tab inside", VIA_FILE, "unix-socket = /run/a\tb\n", 1, 0, "t.conf:1: unix-socket = \"/run/a\\x09b\": contains a control character" },
		{ "unix control", VIA_FILE, "unix-socket = /run/a\x1b[0m\n", 1, 0, "t.conf:1: unix-socket = \"/run/a\\x1b[0m\": contains a control character" },
		{ "unix del", VIA_FILE, "unix-socket = /run/a\x7f\n", 1, 0, "t.conf:1: unix-socket = \"/run/a\\x7f\": contains a control character" },
		{ "unix hash via env", VIA_ENV, "EBPFJAIL_UNIX_SOCKET=/run/a#b", 1, 0, "env EBPFJAIL_UNIX_SOCKET: unix-socket = \"/run/a#b\": contains \"#\", which starts a comment" },
		{ "unix empty", VIA_FILE, "unix-socket =\n", 1, 0, "t.conf:1: unix-socket: empty value" },
		{ "unix env bad item", VIA_ENV, "EBPFJAIL_UNIX_SOCKET=/run/a.sock run/b", 1, 0, "env EBPFJAIL_UNIX_SOCKET: unix-socket = \"run/b\": must be an absolute path" },
		{ "engine nftables", VIA_FILE, "engine = nftables\n", 0, 0, "engine = nftables                        # t.conf:1" },
		{ "engine bpf", VIA_FILE, "engine = bpf\n", 0, 0, "engine = bpf " },
		{ "engine ebpf", VIA_FILE, "engine = ebpf\n", 1, 0, "t.conf:1: engine = \"ebpf\": must be auto, bpf or nftables" },
		{ "engine upper", VIA_ENV, "EBPFJAIL_ENGINE=BPF", 1, 0, "env EBPFJAIL_ENGINE: engine = \"BPF\": must be auto, bpf or nftables" },
	};
	return cr_make_param_array(struct config_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct config_case *c, config, cases)
{
	struct config cfg;
	char *printed;

	apply_case(&cfg, c);
	cr_expect_eq(cfg.n_errors, c->errors, "[%s] errors: got %u, want %u (first: %s)", c->name,
		     cfg.n_errors, c->errors, cfg.n_diags ? cfg.diags[0].text : "none");
	cr_expect_eq(count_warnings(&cfg), c->warnings, "[%s] warnings: got %u, want %u", c->name,
		     count_warnings(&cfg), c->warnings);
	if (c->errors == 0) {
		printed = print_config(&cfg);
		cr_expect(strstr(printed, c->expect), "[%s] printed config lacks \"%s\":\n%s", c->name,
			  c->expect, printed);
		free(printed);
	} else {
		cr_assert(cfg.n_diags > 0);
		cr_expect(strstr(cfg.diags[0].text, c->expect), "[%s] diag \"%s\" lacks \"%s\"",
			  c->name, cfg.diags[0].text, c->expect);
	}
	config_free(&cfg);
}

/* An unknown key within two edits of one is a hint; further, none. */
Test(config, unknown_key_hint)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "alow-ip = 1\n", "t.conf:1: unknown key \"alow-ip\" ignored; did you mean \"allow-ip\"?" },
		{ "allow-ipxx = 1\n", "t.conf:1: unknown key \"allow-ipxx\" ignored; did you mean \"allow-ip\"?" },
		{ "lowip = 1\n", "t.conf:1: unknown key \"lowip\" ignored" },
		{ "allow-ipxxx = 1\n", "t.conf:1: unknown key \"allow-ipxxx\" ignored" },
		{ "share-tm = on\n", "t.conf:1: unknown key \"share-tm\" ignored; did you mean \"share-tmp\"?" },
	};
	struct config cfg;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		config_init(&cfg);
		config_parse_buffer(&cfg, "t.conf", cases[i].text, strlen(cases[i].text));
		cr_assert_eq(cfg.n_diags, 1, "[%s] diags: %zu", cases[i].text, cfg.n_diags);
		cr_expect_str_eq(cfg.diags[0].text, cases[i].want);
		config_free(&cfg);
	}
}

/* The input the fuzzer found (tests/fuzz/crashes/config/engine-raw-byte.conf):
 * the engine key's message repeated its value raw, so a file the agent
 * wrote could put any byte on the user's terminal. */
Test(config, engine_value_escaped)
{
	static const char text[] = "engine = /run/user/10\xff" "b00/x\n";
	struct config cfg;

	config_init(&cfg);
	config_parse_buffer(&cfg, "t.conf", text, sizeof(text) - 1);
	cr_assert_eq(cfg.n_diags, 1, "diags: %zu", cfg.n_diags);
	cr_expect_str_eq(cfg.diags[0].text,
			 "t.conf:1: engine = \"/run/user/10\\xffb00/x\": must be auto, bpf or nftables");
	config_free(&cfg);
}

struct key_case {
	char key[32];
};

ParameterizedTestParameters(config, no_raw_bytes)
{
	/* Every key (config.c's keys[]). */
	static struct key_case keys[] = {
		{ "engine" }, { "egress-jail" }, { "allow-ip" }, { "allow-host" }, { "internet" },
		{ "block-cidr" }, { "local-port" }, { "local-model-port" }, { "callback-port" },
		{ "pass-env" }, { "unix-socket" }, { "share-tmp" }, { "audit-log" },
	};
	return cr_make_param_array(struct key_case, keys, sizeof(keys) / sizeof(keys[0]));
}

/* No key's message holds a byte of its value raw: 0x9b is CSI to a terminal
 * that reads 8-bit controls, 0xff the byte the fuzzer found. Each value
 * reaches a different branch of the setters' checks (path, address, port,
 * prefix, name). */
ParameterizedTest(struct key_case *k, config, no_raw_bytes)
{
	static const char *const values[] = {
		"/run/user/10\xff" "b00/x", "\x9b" "31m", "1.2.3.4:\xff", "1.2.3.\xff",
		"10.0.0.0/\xff", "*.\xff.org", "a\xff" "b", "/run/./\xff",
	};
	char text[128];
	struct config cfg;
	size_t i, d;

	cr_assert(config_is_key(k->key), "%s is not a key any more", k->key);
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		snprintf(text, sizeof(text), "%s = %s\n", k->key, values[i]);
		config_init(&cfg);
		config_parse_buffer(&cfg, "t.conf", text, strlen(text));
		config_finish(&cfg);
		for (d = 0; d < cfg.n_diags; d++)
			for (const char *p = cfg.diags[d].text; *p; p++)
				cr_expect((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f,
					  "[%s = value %zu] byte 0x%02x raw in diag %zu", k->key, i,
					  (unsigned char)*p, d);
		config_free(&cfg);
	}
}

Test(config, one_mib_line)
{
	size_t len = 1 << 20;
	char *text = malloc(len + 32);
	struct config cfg;

	cr_assert_not_null(text);
	memcpy(text, "pass-env = ", 11);
	memset(text + 11, 'A', len);
	strcpy(text + 11 + len, "\nlocal-port = 7\n");
	config_init(&cfg);
	config_parse_buffer(&cfg, "big.conf", text, strlen(text));
	cr_assert_eq(cfg.n_errors, 1);
	cr_expect(strstr(cfg.diags[0].text, "big.conf:1: line is 1048587 bytes long, the limit is 4096"),
		  "%s", cfg.diags[0].text);
	cr_expect(strlen(cfg.diags[0].text) < 400, "the message quotes a bounded excerpt");
	/* The line after it is still read (and reported on, were it wrong). */
	cr_expect_eq(cfg.n_local_port, 1);
	cr_expect_eq(cfg.local_port[0].origin.line, 2);
	config_free(&cfg);
	free(text);
}

Test(config, nul_byte)
{
	static const char text[] = "local-port = 5\0 7\n";
	struct config cfg;

	config_init(&cfg);
	config_parse_buffer(&cfg, "n.conf", text, sizeof(text) - 1);
	cr_assert_eq(cfg.n_errors, 1);
	cr_expect(strstr(cfg.diags[0].text, "n.conf:1: contains a NUL byte"), "%s", cfg.diags[0].text);
	cr_expect_eq(cfg.n_local_port, 0, "nothing of a bad line is applied");
	config_free(&cfg);
}

/* sun_path holds 108 bytes with the NUL: 107 is the longest path. */
Test(config, unix_socket_length_limit)
{
	static const struct {
		size_t len;
		unsigned int errors;
	} cases[] = { { 2, 0 }, { 106, 0 }, { 107, 0 }, { 108, 1 }, { 200, 1 }, { 4000, 1 } };
	char line[CONFIG_MAX_LINE + 1], want[128];
	struct config cfg;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int head = snprintf(line, sizeof(line), "unix-socket = /");

		memset(line + head, 'a', cases[i].len - 1);
		line[head + cases[i].len - 1] = '\0';
		config_init(&cfg);
		config_parse_buffer(&cfg, "t.conf", line, strlen(line));
		cr_expect_eq(cfg.n_errors, cases[i].errors, "%zu bytes: %u errors", cases[i].len,
			     cfg.n_errors);
		if (cases[i].errors) {
			cr_assert_gt(cfg.n_diags, 0);
			snprintf(want, sizeof(want),
				 ": is %zu bytes long; a Unix socket path holds at most 107",
				 cases[i].len);
			cr_expect(strstr(cfg.diags[0].text, "t.conf:1: unix-socket = \"/aaa"), "%s",
				  cfg.diags[0].text);
			cr_expect(strstr(cfg.diags[0].text, want), "%s", cfg.diags[0].text);
			cr_expect_eq(cfg.n_unix_socket, 0);
		} else {
			cr_assert_eq(cfg.n_unix_socket, 1);
			cr_expect_eq(strlen(cfg.unix_socket[0].name), cases[i].len);
		}
		config_free(&cfg);
	}
}

/* Every socket of a daemon that grants root is refused: the jail masks it,
 * and naming it must not seem to hand it over; other sockets pass. */
Test(config, unix_socket_root_daemons_refused)
{
	static const char *const root_by_name[] = {
		"/run/user/1000/docker.sock", "/home/u/run/docker.sock", "/var/lib/lxd/unix.socket",
	};
	static const char *const quiet[] = {
		"/run/postgresql/.s.PGSQL.5432", "/run/docker.sock.bak", "/run/docker",
		"/run/containerd/containerd.sock.ttrpc", "/run/user/1000/bus",
	};
	const char *const *root;
	char line[256], want[320];
	struct config cfg;
	size_t i, n, n_root;

	root = builtin_root_sockets(&n_root);
	cr_assert_gt(n_root, 0);
	for (i = 0; i < n_root + 3; i++) {
		const char *path = i < n_root ? root[i] : root_by_name[i - n_root];

		snprintf(line, sizeof(line), "unix-socket = %s\n", path);
		config_init(&cfg);
		config_parse_buffer(&cfg, "t.conf", line, strlen(line));
		cr_expect_eq(cfg.n_errors, 1, "%s is refused", path);
		cr_expect_eq(cfg.n_unix_socket, 0, "%s is not kept", path);
		cr_assert_eq(cfg.n_diags, 1, "%s: one message", path);
		snprintf(want, sizeof(want),
			 "t.conf:1: unix-socket = \"%s\": is the socket of a daemon that grants root "
			 "to whoever can use it, or acts for them outside any jail: the agent would "
			 "leave the jail through it, so it is never reachable there",
			 path);
		cr_expect_str_eq(cfg.diags[0].text, want);
		config_free(&cfg);
	}
	n = sizeof(quiet) / sizeof(quiet[0]);
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "unix-socket = %s\n", quiet[i]);
		config_init(&cfg);
		config_parse_buffer(&cfg, "t.conf", line, strlen(line));
		cr_expect_eq(cfg.n_diags, 0, "%s: %s", quiet[i], cfg.n_diags ? cfg.diags[0].text : "");
		config_free(&cfg);
	}
}

/* `ebpfjail trust` does not approve a line of a single-value key that is
 * set again further down: it would take effect once the later one went. */
struct overridden_case {
	char name[40];
	char text[128];
	char line[64];       /* the loosening line asked about, "key = value" */
	unsigned int lineno; /* and its line number */
	bool overridden;
};

ParameterizedTestParameters(config, overridden)
{
	static struct overridden_case cases[] = {
		{ "share-tmp on, off", "share-tmp = on\nshare-tmp = off\n", "share-tmp = on", 1, true },
		{ "share-tmp on, on", "share-tmp = on\nshare-tmp = on\n", "share-tmp = on", 1, true },
		{ "share-tmp last", "share-tmp = off\nshare-tmp = on\n", "share-tmp = on", 2, false },
		{ "share-tmp alone", "# x\nshare-tmp = on\n", "share-tmp = on", 2, false },
		{ "share-tmp, egress", "share-tmp = on\negress-jail = on\n", "share-tmp = on", 1, false },
		{ "egress-jail off, on", "egress-jail = off\negress-jail = on\n", "egress-jail = off", 1,
		  true },
		{ "egress, share-tmp", "egress-jail = off\nshare-tmp = off\n", "egress-jail = off", 1,
		  false },
		{ "model port", "local-model-port = 7\nlocal-model-port = 0\n", "local-model-port = 7", 1,
		  true },
		{ "unix-socket repeats", "unix-socket = /run/a.sock\nunix-socket = /run/b.sock\n",
		  "unix-socket = /run/a.sock", 1, false },
		{ "allow-ip repeats", "allow-ip = 192.0.2.1\nallow-ip = 192.0.2.2\n",
		  "allow-ip = 192.0.2.1", 1, false },
		{ "unknown key", "share-tmp = on\nshare-tmp = off\n", "share_tmp = on", 1, false },
	};
	return cr_make_param_array(struct overridden_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct overridden_case *c, config, overridden)
{
	struct config_name line = { c->line, { .source = SOURCE_FILE, .line = c->lineno } };
	struct config cfg;

	config_init(&cfg);
	config_parse_buffer(&cfg, "t.conf", c->text, strlen(c->text));
	cr_assert(config_ok(&cfg), "[%s] %s", c->name, cfg.n_diags ? cfg.diags[0].text : "");
	cr_expect_eq(config_overridden(&cfg, &line), c->overridden, "[%s] %s at line %u", c->name,
		     c->line, c->lineno);
	config_free(&cfg);
}

static char tmpdir[64];

static void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/ebpfjail-test-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
}

static const char *write_file(const char *name, const char *text)
{
	static char path[8][256];
	static int next;
	char *p = path[next++ % 8];
	FILE *f;

	snprintf(p, 256, "%s/%s", tmpdir, name);
	f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

TestSuite(config_files, .init = make_tmpdir, .fini = remove_tmpdir);

Test(config_files, missing_optional_and_required)
{
	struct config cfg;
	char path[300];

	snprintf(path, sizeof(path), "%s/absent.conf", tmpdir);
	config_init(&cfg);
	cr_expect_eq(config_load_file(&cfg, path, false, NULL), 0);
	cr_expect_eq(cfg.n_diags, 0, "an absent optional file is not an error");
	cr_expect_eq(config_load_file(&cfg, path, true, NULL), -ENOENT);
	cr_assert_eq(cfg.n_errors, 1);
	cr_expect(strstr(cfg.diags[0].text, "absent.conf:0: cannot open: No such file or directory"),
		  "%s", cfg.diags[0].text);
	config_free(&cfg);
}

Test(config_files, directory)
{
	struct config cfg;

	config_init(&cfg);
	cr_expect_eq(config_load_file(&cfg, tmpdir, true, NULL), -EINVAL);
	cr_assert_eq(cfg.n_errors, 1);
	cr_expect(strstr(cfg.diags[0].text, "a directory, not a configuration file"), "%s",
		  cfg.diags[0].text);
	config_free(&cfg);
}

/* A FIFO in place of the file would block the reader (the supervisor, at a
 * reload) for as long as the agent likes: refused at once, never opened. */
Test(config_files, fifo_refused_without_blocking, .timeout = 5)
{
	char path[300];
	struct config cfg;

	snprintf(path, sizeof(path), "%s/fifo.conf", tmpdir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	config_init(&cfg);
	cr_expect_eq(config_load_file(&cfg, path, false, NULL), -EINVAL);
	cr_assert_eq(cfg.n_errors, 1);
	cr_expect(strstr(cfg.diags[0].text, "fifo.conf:0: cannot read: a FIFO, not a configuration "
					    "file"), "%s", cfg.diags[0].text);
	config_free(&cfg);
}

Test(config_files, device_refused, .timeout = 5)
{
	struct config cfg;

	config_init(&cfg);
	cr_expect_eq(config_load_file(&cfg, "/dev/zero", false, NULL), -EINVAL);
	cr_assert_eq(cfg.n_errors, 1);
	cr_expect(strstr(cfg.diags[0].text, "/dev/zero:0: cannot read: a device"), "%s",
		  cfg.diags[0].text);
	config_free(&cfg);
}

Test(config_files, size_limit)
{
	const char *path = write_file("huge.conf", "");
	struct config cfg;

	cr_assert_eq(truncate(path, CONFIG_MAX_FILE + 1), 0);
	config_init(&cfg);
	cr_expect_eq(config_load_file(&cfg, path, false, NULL), -EFBIG);
	cr_assert_eq(cfg.n_errors, 1);
	cr_expect(strstr(cfg.diags[0].text, "larger than 1024 KiB"), "%s", cfg.diags[0].text);
	config_free(&cfg);
	cr_assert_eq(truncate(path, CONFIG_MAX_FILE), 0);
	config_init(&cfg);
	cr_expect_eq(config_load_file(&cfg, path, false, NULL), 1, "exactly the limit is read");
	config_free(&cfg);
}

Test(config_files, unreadable)
{
	const char *path = write_file("secret.conf", "local-port = 1\n");
	struct config cfg;
	int ret;

	cr_assert_eq(chmod(path, 0), 0);
	/* As root, read it as nobody would (the way user files are read). */
	if (geteuid() == 0) {
		setfsgid(65534);
		setfsuid(65534);
	}
	config_init(&cfg);
	ret = config_load_file(&cfg, path, false, NULL);
	setfsuid(0);
	setfsgid(0);
	cr_expect_eq(ret, -EACCES, "unreadable is an error even for an optional file");
	cr_assert_eq(cfg.n_errors, 1);
	cr_expect(strstr(cfg.diags[0].text, "secret.conf:0: cannot open: Permission denied"), "%s",
		  cfg.diags[0].text);
	cr_expect_eq(cfg.n_local_port, 0);
	config_free(&cfg);
}

Test(config_files, precedence_and_accumulation)
{
	const char *sys = write_file("system.conf", "egress-jail = on\nlocal-model-port = 1111\n"
						    "allow-ip = 192.0.2.1\naudit-log = /sys.jsonl\n"
						    "pass-env = A\n");
	const char *usr = write_file("user.conf", "local-model-port = 2222\nallow-ip = 192.0.2.2\n"
						  "allow-ip = 192.0.2.1\npass-env = B\n");
	char *envp[] = { "HOME=/root", "EBPFJAIL_LOCAL_MODEL_PORT=3333",
			 "EBPFJAIL_ALLOW_IP=192.0.2.3 192.0.2.2", "EBPFJAIL_EGRESS_JAIL=off", NULL };
	static const struct config_origin flag = { .source = SOURCE_FLAG, .name = "--allow-ip" };
	struct config cfg;
	char where[256];

	config_init(&cfg);
	cr_assert_eq(config_load_file(&cfg, sys, false, NULL), 1);
	cr_assert_eq(config_load_file(&cfg, usr, true, NULL), 1);
	config_apply_env(&cfg, envp);
	cr_assert_eq(config_set(&cfg, "allow-ip", "192.0.2.4", &flag), 0);
	cr_assert_eq(config_set(&cfg, "allow-ip", "192.0.2.3", &flag), 0);
	config_finish(&cfg);
	cr_assert(config_ok(&cfg));

	/* Single values: the last source wins, and says so. */
	cr_expect_eq(cfg.local_model_port, 3333);
	config_origin_format(&cfg.local_model_port_origin, where, sizeof(where));
	cr_expect_str_eq(where, "env EBPFJAIL_LOCAL_MODEL_PORT");
	cr_expect_eq(cfg.egress_jail, false);
	cr_expect_str_eq(cfg.audit_log, "/sys.jsonl");

	/* Repeatable: accumulated in order, deduplicated, first origin kept. */
	cr_assert_eq(cfg.n_allow_ip, 4);
	config_origin_format(&cfg.allow_ip[0].origin, where, sizeof(where));
	cr_expect(strstr(where, "system.conf:3"), "%s", where);
	config_origin_format(&cfg.allow_ip[1].origin, where, sizeof(where));
	cr_expect(strstr(where, "user.conf:2"), "%s", where);
	config_origin_format(&cfg.allow_ip[2].origin, where, sizeof(where));
	cr_expect_str_eq(where, "env EBPFJAIL_ALLOW_IP");
	config_origin_format(&cfg.allow_ip[3].origin, where, sizeof(where));
	cr_expect_str_eq(where, "flag --allow-ip");
	cr_expect_eq(cfg.n_pass_env, 2);
	config_free(&cfg);
}

/* share-tmp: the last source wins; unix-socket: every source adds, each
 * path once, with the origin of its first mention. */
Test(config_files, unix_socket_and_share_tmp_across_sources)
{
	const char *sys = write_file("system.conf", "share-tmp = on\nunix-socket = /run/a.sock\n");
	const char *usr = write_file("user.conf", "unix-socket = /run/b.sock\n"
						  "unix-socket = /run/a.sock\nshare-tmp = off\n");
	char *envp[] = { "EBPFJAIL_UNIX_SOCKET=/run/c.sock /run/b.sock", "EBPFJAIL_SHARE_TMP=on",
			 NULL };
	static const struct config_origin flag = { .source = SOURCE_FLAG, .name = "--x" };
	static const char *const want[][2] = {
		{ "/run/a.sock", "system.conf:2" },
		{ "/run/b.sock", "user.conf:1" },
		{ "/run/c.sock", "env EBPFJAIL_UNIX_SOCKET" },
		{ "/run/d.sock", "flag --x" },
	};
	struct config cfg;
	char where[256];
	size_t i;

	config_init(&cfg);
	cr_assert_eq(config_load_file(&cfg, sys, false, NULL), 1);
	cr_assert_eq(config_load_file(&cfg, usr, true, NULL), 1);
	cr_expect_eq(cfg.share_tmp, false, "the user's file overrides the system's");
	config_origin_format(&cfg.share_tmp_origin, where, sizeof(where));
	cr_expect(strstr(where, "user.conf:3"), "%s", where);
	config_apply_env(&cfg, envp);
	cr_assert_eq(config_set(&cfg, "unix-socket", "/run/d.sock", &flag), 0);
	cr_assert_eq(config_set(&cfg, "unix-socket", "/run/a.sock", &flag), 0);
	config_finish(&cfg);
	cr_assert(config_ok(&cfg), "%s", cfg.n_diags ? cfg.diags[0].text : "");

	cr_expect_eq(cfg.share_tmp, true);
	config_origin_format(&cfg.share_tmp_origin, where, sizeof(where));
	cr_expect_str_eq(where, "env EBPFJAIL_SHARE_TMP");
	cr_assert_eq(cfg.n_unix_socket, 4);
	for (i = 0; i < 4; i++) {
		cr_expect_str_eq(cfg.unix_socket[i].name, want[i][0]);
		config_origin_format(&cfg.unix_socket[i].origin, where, sizeof(where));
		cr_expect(strstr(where, want[i][1]), "%s: %s, want %s", want[i][0], where,
			  want[i][1]);
	}
	config_free(&cfg);
}

Test(config_files, printed_config_reads_back_the_same)
{
	const char *path = write_file("full.conf",
				      "egress-jail = off\nallow-ip = 192.0.2.1\nallow-ip = 10.0.0.7:502\n"
				      "block-cidr = 198.18.0.0/15\nlocal-port = 5432\n"
				      "local-model-port = 0\ncallback-port = 1455\npass-env = FOO\n"
				      "unix-socket = /run/user/1000/gnupg/S.gpg-agent.ssh\n"
				      "unix-socket = /run/a.sock\nshare-tmp = on\n"
				      "audit-log = /var/tmp/a.jsonl\n");
	struct config a, b;
	char *first, *second;
	const char *again;

	config_init(&a);
	config_load_file(&a, path, true, NULL);
	cr_assert(config_ok(&a));
	first = print_config(&a);
	again = write_file("again.conf", first);
	config_init(&b);
	config_load_file(&b, again, true, NULL);
	cr_assert(config_ok(&b), "%s", b.n_diags ? b.diags[0].text : "");
	second = print_config(&b);
	/* Same values in the same order; only the origins differ. */
	for (char *p = first, *q = second; p && q;
	     p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL,
		  q = strchr(q, '\n') ? strchr(q, '\n') + 1 : NULL) {
		size_t n = strcspn(p, "#");

		cr_expect(strncmp(p, q, n) == 0, "%.*s vs %.*s", (int)n, p, (int)n, q);
	}
	free(first);
	free(second);
	config_free(&a);
	config_free(&b);
}

/* --- what a file the agent could have written may loosen --------------- */

static const char agent_file[] = "egress-jail = off\n"
				 "allow-ip = 192.0.2.1\n"
				 "block-cidr = 198.18.0.0/15\n"
				 "local-port = 5432\n"
				 "local-model-port = 0\n"
				 "callback-port = 1455\n"
				 "pass-env = FOO\n"
				 "egress-jail = on\n";

Test(config_approval, nothing_approved_refuses_every_loosening_line)
{
	struct config_approval none = { .agent_writable = true };
	static const char *const want[] = { "egress-jail = off", "allow-ip = 192.0.2.1",
					     "local-port = 5432", "callback-port = 1455",
					     "pass-env = FOO" };
	static const unsigned int lines[] = { 1, 2, 4, 6, 7 };
	struct config cfg;
	size_t i;

	config_init(&cfg);
	config_parse(&cfg, "agent.conf", agent_file, strlen(agent_file), &none);
	cr_assert_eq(cfg.n_unapproved, 5);
	cr_expect_eq(cfg.n_errors, 5);
	for (i = 0; i < 5; i++) {
		cr_expect_str_eq(cfg.unapproved[i].name, want[i]);
		cr_expect_eq(cfg.unapproved[i].origin.line, lines[i]);
	}
	cr_expect(strstr(cfg.diags[1].text, "agent.conf:2: allow-ip = \"192.0.2.1\" loosens the "
					    "jail and was not approved"), "%s", cfg.diags[1].text);
	/* Refused lines change nothing; tightening ones count. */
	cr_expect_eq(cfg.n_allow_ip, 0);
	cr_expect_eq(cfg.n_local_port, 0);
	cr_expect_eq(cfg.n_callback_port, 0);
	cr_expect_eq(cfg.n_pass_env, 0);
	cr_expect_eq(cfg.n_block_cidr, 1);
	cr_expect_eq(cfg.local_model_port, 0);
	cr_expect(cfg.egress_jail);
	config_free(&cfg);
}

Test(config_approval, approved_lines_count)
{
	char *ok[] = { "allow-ip = 192.0.2.1", "pass-env = FOO" };
	struct config_approval approval = { .agent_writable = true, .lines = ok, .n_lines = 2 };
	static const char text[] = "allow-ip = 192.0.2.1\nallow-ip=192.0.2.1 # same line\n"
				   "pass-env = FOO\nallow-ip = 192.0.2.2\n";
	struct config cfg;

	config_init(&cfg);
	config_parse(&cfg, "a.conf", text, strlen(text), &approval);
	cr_expect_eq(cfg.n_allow_ip, 1);
	cr_expect_eq(cfg.n_pass_env, 1);
	cr_assert_eq(cfg.n_unapproved, 1, "the line added since the approval");
	cr_expect_str_eq(cfg.unapproved[0].name, "allow-ip = 192.0.2.2");
	cr_expect_eq(cfg.unapproved[0].origin.line, 4);
	config_free(&cfg);
}

/* What the file still holds is marked, so root's run can withdraw the
 * approval of a line that is gone (trust_withdraw_unfound()). */
Test(config_approval, the_approved_lines_a_file_holds_are_marked_found)
{
	char *ok[] = { "allow-ip = 192.0.2.1", "pass-env = FOO", "allow-ip = 192.0.2.9" };
	bool found[3] = { false, false, false };
	struct config_approval approval = { .agent_writable = true, .lines = ok, .n_lines = 3,
					    .found = found };
	static const char text[] = "allow-ip=192.0.2.1 # written another way\npass-env = FOO\n";
	struct config cfg;

	config_init(&cfg);
	config_parse(&cfg, "a.conf", text, strlen(text), &approval);
	cr_expect(config_ok(&cfg));
	cr_expect(found[0]);
	cr_expect(found[1]);
	cr_expect_not(found[2], "a line the file no longer holds is not found");
	config_free(&cfg);
}

Test(config_approval, root_controlled_file_needs_none)
{
	struct config_approval root = { .agent_writable = false };
	struct config cfg;

	config_init(&cfg);
	config_parse(&cfg, "etc.conf", agent_file, strlen(agent_file), &root);
	cr_expect(config_ok(&cfg));
	cr_expect_eq(cfg.n_allow_ip, 1);
	config_free(&cfg);
}

/* Root appends agent-chosen text (a comm) to the audit log: a file the
 * agent can change must not say where. */
Test(config_approval, audit_log_only_from_root_files)
{
	char *all[] = { "audit-log = /root/.bashrc" };
	struct config_approval approval = { .agent_writable = true, .user_writable = true,
					    .lines = all, .n_lines = 1 };
	static const char text[] = "audit-log = /root/.bashrc\n";
	struct config cfg;

	config_init(&cfg);
	config_parse(&cfg, "u.conf", text, strlen(text), &approval);
	cr_assert_eq(cfg.n_errors, 1, "not even an approval lets it through");
	cr_expect_eq(cfg.n_unapproved, 0);
	cr_expect_str_eq(cfg.audit_log, CONFIG_DEFAULT_AUDIT_LOG);
	cr_expect(strstr(cfg.diags[0].text, "u.conf:1: audit-log may only be set in a root-owned"),
		  "%s", cfg.diags[0].text);
	config_free(&cfg);
}

/* share-tmp = on and unix-socket loosen the jail; share-tmp = off tightens. */
struct approval_case {
	char name[48];
	bool agent_writable;
	char text[128];
	char approved[64];     /* one approved line, or "" */
	unsigned int errors;
	char unapproved[64];   /* the line refused, or "" */
	bool share_tmp;        /* in force afterwards */
	size_t n_unix_socket;  /* in force afterwards */
	char expect[160];      /* in the first diag, when there is one */
};

ParameterizedTestParameters(config_approval, new_keys)
{
	static struct approval_case cases[] = {
		{ "share-tmp on unapproved", true, "share-tmp = on\n", "", 1, "share-tmp = on", false, 0,
		  "a.conf:1: share-tmp = \"on\" loosens the jail and was not approved (the agent can "
		  "change this file)" },
		{ "share-tmp on approved", true, "share-tmp = on\n", "share-tmp = on", 0, "", true, 0, "" },
		{ "share-tmp on approved, spaced", true, "share-tmp=on  # yes\n", "share-tmp = on", 0, "",
		  true, 0, "" },
		{ "share-tmp off needs none", true, "share-tmp = off\n", "", 0, "", false, 0, "" },
		{ "share-tmp on after off", true, "share-tmp = off\nshare-tmp = on\n", "", 1,
		  "share-tmp = on", false, 0, "a.conf:2: share-tmp = \"on\" loosens the jail" },
		{ "share-tmp off approval is not on's", true, "share-tmp = on\n", "share-tmp = off", 1,
		  "share-tmp = on", false, 0, "a.conf:1: share-tmp = \"on\" loosens the jail" },
		{ "share-tmp on root file", false, "share-tmp = on\n", "", 0, "", true, 0, "" },
		{ "unix-socket unapproved", true, "unix-socket = /run/a.sock\n", "", 1,
		  "unix-socket = /run/a.sock", false, 0,
		  "a.conf:1: unix-socket = \"/run/a.sock\" loosens the jail and was not approved (the "
		  "agent can change this file)" },
		{ "unix-socket approved", true, "unix-socket = /run/a.sock\n", "unix-socket = /run/a.sock",
		  0, "", false, 1, "" },
		{ "unix-socket another approved", true, "unix-socket = /run/b.sock\n",
		  "unix-socket = /run/a.sock", 1, "unix-socket = /run/b.sock", false, 0,
		  "a.conf:1: unix-socket = \"/run/b.sock\" loosens" },
		{ "unix-socket root daemon", true, "unix-socket = /run/docker.sock\n",
		  "unix-socket = /run/docker.sock", 1, "", false, 0,
		  "a.conf:1: unix-socket = \"/run/docker.sock\": is the socket of a daemon" },
		{ "unix-socket root file", false, "unix-socket = /run/a.sock\n", "", 0, "", false, 1, "" },
		{ "unix-socket invalid approved", true, "unix-socket = /run/a/\n", "unix-socket = /run/a/",
		  1, "", false, 0, "a.conf:1: unix-socket = \"/run/a/\": ends in \"/\"" },
	};
	return cr_make_param_array(struct approval_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct approval_case *c, config_approval, new_keys)
{
	char *lines[] = { c->approved };
	struct config_approval approval = { .agent_writable = c->agent_writable,
					    .user_writable = c->agent_writable,
					    .lines = lines, .n_lines = c->approved[0] ? 1 : 0 };
	struct config cfg;

	config_init(&cfg);
	config_parse(&cfg, "a.conf", c->text, strlen(c->text), &approval);
	cr_expect_eq(cfg.n_errors, c->errors, "[%s] errors: got %u, want %u (first: %s)", c->name,
		     cfg.n_errors, c->errors, cfg.n_diags ? cfg.diags[0].text : "none");
	if (c->unapproved[0]) {
		cr_assert_eq(cfg.n_unapproved, 1, "[%s] unapproved: %zu", c->name, cfg.n_unapproved);
		cr_expect_str_eq(cfg.unapproved[0].name, c->unapproved, "[%s]", c->name);
	} else {
		cr_expect_eq(cfg.n_unapproved, 0, "[%s] unapproved: %zu", c->name, cfg.n_unapproved);
	}
	cr_expect_eq(cfg.share_tmp, c->share_tmp, "[%s] share_tmp", c->name);
	cr_expect_eq(cfg.n_unix_socket, c->n_unix_socket, "[%s] unix sockets: %zu", c->name,
		     cfg.n_unix_socket);
	if (c->expect[0]) {
		cr_assert(cfg.n_diags > 0, "[%s]", c->name);
		cr_expect(strstr(cfg.diags[0].text, c->expect), "[%s] diag \"%s\" lacks \"%s\"",
			  c->name, cfg.diags[0].text, c->expect);
	}
	config_free(&cfg);
}

Test(config, allow_host_lines_are_checked)
{
	static const char names[] = "allow-host = Forge.LAN.\nallow-host = forge.lan\n"
				    "allow-host = *.x.org:22\n";
	static const struct {
		const char *value, *error;
	} bad[] = {
		{ "*", "a name is needed" },
		{ "*.", "a name is needed" },
		{ "a.*.org", "'*' may only start" },
		{ "10.0.0.1", "write allow-ip = 10.0.0.1" },
		{ "exa mple.org", "letters, digits" },
		{ "a..org", "1-63 characters" },
		{ "forge.lan:0", "1-65535" },
		{ "forge.lan:022", "1-65535" },
	};
	struct config cfg;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[128];

		config_init(&cfg);
		snprintf(line, sizeof(line), "allow-host = %s\n", bad[i].value);
		config_parse_buffer(&cfg, "t.conf", line, strlen(line));
		cr_expect_eq(cfg.n_errors, 1, "%s", bad[i].value);
		cr_expect(cfg.n_diags && strstr(cfg.diags[0].text, bad[i].error) &&
				  strstr(cfg.diags[0].text, "t.conf:1"),
			  "%s: %s", bad[i].value, cfg.n_diags ? cfg.diags[0].text : "(none)");
		cr_expect_eq(cfg.n_allow_host, 0);
		config_free(&cfg);
	}
	config_init(&cfg);
	config_parse_buffer(&cfg, "t.conf", names, strlen(names));
	cr_expect_eq(cfg.n_errors, 0);
	cr_expect_eq(cfg.n_allow_host, 2, "case and a final dot do not make a new name");
	cr_expect_str_eq(cfg.allow_host[0].pattern, "forge.lan");
	cr_expect_eq(cfg.allow_host[1].port, 22);
	config_free(&cfg);
}

/* A profile is allow-host lines with ports, of internet-only strength,
 * each from its file and line; anything else in it is an error naming the
 * line, and taken nothing of. The user's own exact line for a name keeps
 * its strength. */
Test(config, a_profile_holds_allow_host_lines_with_ports_only)
{
	static const char profile[] = "# a profile\nallow-host = api.example.test:443\n"
				      "allow-host = forge.lan.test:22\n";
	static const char bad[] = "allow-host = a.test:443\nallow-ip = 10.0.0.1\n"
				  "local-port = 5432\nallow-host = b.test\nprofile = other\n"
				  "internet = on\nbogus-key = 1\n";
	struct config cfg;
	char *text;

	config_init(&cfg);
	config_parse_buffer(&cfg, "user.conf", "profile = p1\nallow-host = forge.lan.test:22\n",
			    strlen("profile = p1\nallow-host = forge.lan.test:22\n"));
	cr_assert_eq(cfg.n_profile, 1);
	cr_expect_str_eq(cfg.profile[0].name, "p1");
	config_parse_profile(&cfg, "/usr/share/ebpfjail/profiles/p1.conf", profile, strlen(profile));
	cr_assert(config_ok(&cfg), "%s", cfg.n_diags ? cfg.diags[0].text : "");
	cr_assert_eq(cfg.n_allow_host, 2);
	cr_expect(!cfg.allow_host[0].internet_only, "the user's exact line keeps its strength");
	cr_expect_str_eq(cfg.allow_host[1].pattern, "api.example.test");
	cr_expect(cfg.allow_host[1].internet_only);
	text = print_config(&cfg);
	cr_expect(strstr(text, "profile = p1                             # user.conf:1\n"), "%s", text);
	/* As a comment: pasted back, it would be the user's exact line. */
	cr_expect(strstr(text, "\n# allow-host = api.example.test:443      # "
			       "/usr/share/ebpfjail/profiles/p1.conf:2\n"), "%s", text);
	cr_expect(strstr(text, "\nallow-host = forge.lan.test:22           # user.conf:2\n"), "%s",
		  text);
	free(text);
	config_free(&cfg);

	config_init(&cfg);
	config_parse_profile(&cfg, "p2.conf", bad, strlen(bad));
	cr_expect_eq(cfg.n_errors, 6, "an unknown key in a profile too");
	cr_expect_eq(cfg.n_allow_host, 1, "only the one good line");
	cr_expect_eq(cfg.n_allow_ip, 0);
	cr_expect_eq(cfg.n_local_port, 0);
	cr_expect_eq(cfg.n_profile, 0);
	cr_expect(cfg.internet, "internet = on in a profile is refused, not taken");
	cr_expect(strstr(cfg.diags[0].text, "p2.conf:2: a profile holds allow-host lines only, not "
					    "\"allow-ip\""), "%s", cfg.diags[0].text);
	cr_expect(strstr(cfg.diags[2].text, "p2.conf:4") &&
		  strstr(cfg.diags[2].text, "needs its port"), "%s", cfg.diags[2].text);
	cr_expect(!cfg.in_profile);
	config_free(&cfg);
}

Test(config, a_profile_name_is_a_file_name_and_nothing_more)
{
	const char *bad[] = { "profile = ../etc/x\n", "profile = A\n", "profile = -x\n",
			      "profile = a/b\n", "profile = \n",
			      "profile = abcdefghijklmnopqrstuvwxyz0123456\n" };
	struct config cfg;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config_init(&cfg);
		config_parse_buffer(&cfg, "t.conf", bad[i], strlen(bad[i]));
		cr_expect_eq(cfg.n_errors, 1, "accepted: %s", bad[i]);
		cr_expect_eq(cfg.n_profile, 0);
		config_free(&cfg);
	}
}
