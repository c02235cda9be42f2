// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* config.c - the configuration: every key, every source, every rule
 *
 * Theory of operation
 * -------------------
 * Pure logic: the only system calls are the open/read of a file the caller
 * names. Sources are applied in the order the caller chooses (docs/DESIGN.md,
 * "Configuration": system file, user file or --config, EBPFJAIL_*
 * environment, flags); each key's
 * setter either replaces a single value (the last source wins) or appends
 * to a deduplicated list (repeatable keys accumulate).
 *
 * Nothing prints: every problem becomes a struct config_diag with its origin
 * ("FILE:LINE"), what is wrong and the offending text, quoted and escaped.
 * An error never stops parsing, so one run reports every mistake, but a
 * configuration with any error is never used (config_ok()): the caller
 * refuses to start, so nothing is half-applied.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>

#include "builtin.h"
#include "config.h"
#include "dnsmsg.h"
#include "unixpolicy.h"
#include "netaddr.h"

/* Longest piece of offending text quoted in a message. */
#define QUOTE_MAX 64

_Static_assert(CONFIG_UNIX_SOCKET_MAX + 1 == sizeof(((struct sockaddr_un *)0)->sun_path),
	       "a unix-socket path and its NUL fill sun_path");

/* What a key's line does to the jail. The agent runs as the user and can
 * write the user's files: a loosening line from such a file counts only
 * once `ebpfjail trust` approved it, or an agent would append
 * `allow-ip = <a LAN host>` and wait for the next run. */
enum key_effect {
	KEY_TIGHTENS,       /* block-cidr: never needs approval */
	KEY_LOOSENS,        /* every value loosens */
	KEY_LOOSENS_UNLESS, /* every value but .tight_value loosens */
	KEY_ROOT_FILE_ONLY, /* audit-log: only root-controlled files may set it */
};

struct key_def {
	const char *name; /* as in files: "allow-ip" */
	const char *env;  /* "EBPFJAIL_ALLOW_IP" */
	bool repeatable;
	enum key_effect effect;
	const char *tight_value; /* KEY_LOOSENS_UNLESS: the value that does not loosen */
	/* Return 0, or -EINVAL having written what is wrong into @why.
	 * apply() prints the value before @why, quoted and escaped: @why
	 * repeats none of it unless parsing proved it printable. */
	int (*set)(struct config *cfg, const char *value, const struct config_origin *origin,
		   char *why, size_t why_size);
	size_t origin_at; /* single-value keys: where struct config keeps the origin */
};

#define SINGLE(field) offsetof(struct config, field)

static void *xrealloc_array(void *ptr, size_t n, size_t size)
{
	void *p = reallocarray(ptr, n, size);

	if (!p)
		abort(); /* out of memory while reading a config: nothing sane to do */
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		abort();
	return p;
}

/* Grow *arr by one element of @size, return the new slot (zeroed). */
static void *append(void *arr_ptr, size_t *n, size_t size)
{
	void **arr = arr_ptr;
	char *slot;

	*arr = xrealloc_array(*arr, *n + 1, size);
	slot = (char *)*arr + *n * size;
	memset(slot, 0, size);
	(*n)++;
	return slot;
}

/* quote() - the offending text for a message: in double quotes, control and
 * non-ASCII bytes as \xNN, cut at QUOTE_MAX with "..." (a 1 MiB line must not
 * become a 4 MiB message, and garbage must not reach the terminal raw). */
static void quote(const char *s, size_t len, char *out, size_t size)
{
	size_t o = 0, i;

	out[o++] = '"';
	for (i = 0; i < len && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == QUOTE_MAX) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o++] = '"';
	out[o] = '\0';
}

void config_origin_format(const struct config_origin *origin, char *buf, size_t size)
{
	switch (origin->source) {
	case SOURCE_FILE:
		snprintf(buf, size, "%s:%u", origin->name, origin->line);
		break;
	case SOURCE_ENV:
		snprintf(buf, size, "env %s", origin->name);
		break;
	case SOURCE_FLAG:
		snprintf(buf, size, "flag %s", origin->name);
		break;
	default:
		snprintf(buf, size, "default");
		break;
	}
}

static void diag(struct config *cfg, enum config_severity severity,
		 const struct config_origin *origin, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void vdiag(struct config *cfg, enum config_severity severity,
		  const struct config_origin *origin, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void vdiag(struct config *cfg, enum config_severity severity,
		  const struct config_origin *origin, const char *fmt, va_list ap)
{
	struct config_diag *d;
	char where[512], what[1024];
	size_t len;

	config_origin_format(origin, where, sizeof(where));
	vsnprintf(what, sizeof(what), fmt, ap);

	d = append(&cfg->diags, &cfg->n_diags, sizeof(*d));
	d->severity = severity;
	len = strlen(where) + strlen(what) + 3;
	d->text = malloc(len);
	if (!d->text)
		abort();
	snprintf(d->text, len, "%s: %s", where, what);
	if (severity == CONFIG_ERROR)
		cfg->n_errors++;
}

static void diag(struct config *cfg, enum config_severity severity,
		 const struct config_origin *origin, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(cfg, severity, origin, fmt, ap);
	va_end(ap);
}

void config_error(struct config *cfg, const struct config_origin *origin, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(cfg, CONFIG_ERROR, origin, fmt, ap);
	va_end(ap);
}

/* --- setters: one per key ---------------------------------------------- */

/* parse_on_off() - @value as a switch. Return: 0, or -EINVAL with @why set. */
static int parse_on_off(const char *value, bool *on, char *why, size_t why_size)
{
	if (strcmp(value, "on") && strcmp(value, "off")) {
		snprintf(why, why_size, "must be on or off");
		return -EINVAL;
	}
	*on = !strcmp(value, "on");
	return 0;
}

static int set_egress_jail(struct config *cfg, const char *value,
			   const struct config_origin *origin, char *why, size_t why_size)
{
	if (parse_on_off(value, &cfg->egress_jail, why, why_size))
		return -EINVAL;
	cfg->egress_jail_origin = *origin;
	return 0;
}

/* enum config_engine's names, as the configuration writes them */
static const char *const engine_names[] = { "auto", "bpf", "nftables" };

static int set_engine(struct config *cfg, const char *value, const struct config_origin *origin,
		      char *why, size_t why_size)
{
	size_t i;

	for (i = 0; i < sizeof(engine_names) / sizeof(engine_names[0]); i++) {
		if (!strcmp(value, engine_names[i])) {
			cfg->engine = (enum config_engine)i;
			cfg->engine_origin = *origin;
			return 0;
		}
	}
	/* Not the value: apply() quotes it, escaped, before @why. Raw, a
	 * byte such as 0x9b (CSI to a terminal reading 8-bit controls) from
	 * a file the agent wrote would reach the user's terminal. */
	snprintf(why, why_size, "must be auto, bpf or nftables");
	return -EINVAL;
}

const char *config_default_audit_log(void)
{
	static char path[4096];
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (geteuid() == 0)
		return CONFIG_DEFAULT_AUDIT_LOG;
	if (state && state[0] == '/')
		snprintf(path, sizeof(path), "%s/%s", state, CONFIG_USER_AUDIT_LOG);
	else if (home && home[0] == '/')
		snprintf(path, sizeof(path), "%s/.local/state/%s", home, CONFIG_USER_AUDIT_LOG);
	else
		snprintf(path, sizeof(path), "/nonexistent/%s", CONFIG_USER_AUDIT_LOG);
	return path;
}

static int set_share_tmp(struct config *cfg, const char *value,
			 const struct config_origin *origin, char *why, size_t why_size)
{
	if (parse_on_off(value, &cfg->share_tmp, why, why_size))
		return -EINVAL;
	cfg->share_tmp_origin = *origin;
	return 0;
}

/* explain_bad_ipv4() - say why @value is not an address, with the likely fix */
static void explain_bad_ipv4(const char *value, char *why, size_t why_size)
{
	const char *slash = strchr(value, '/');
	const char *colon = strchr(value, ':');
	bool has_alpha = false;
	const char *p;

	for (p = value; *p; p++)
		has_alpha |= isalpha((unsigned char)*p) != 0;

	if (colon && strchr(colon + 1, ':'))
		snprintf(why, why_size, "IPv6 is not supported: the jail is IPv4 only");
	else if (slash) {
		char bare[NETADDR_CIDR_STRLEN] = "";
		size_t n = (size_t)(slash - value);
		uint32_t addr;

		/* Suggest the bare form only when it is an address: the
		 * message must never echo unchecked bytes. */
		if (n < sizeof(bare)) {
			memcpy(bare, value, n);
			bare[n] = '\0';
		}
		if (netaddr_parse_ipv4(bare, &addr) == 0)
			snprintf(why, why_size,
				 "allow-ip takes one address, not a network: write \"allow-ip = %s\" "
				 "for each device to allow",
				 bare);
		else
			snprintf(why, why_size, "allow-ip takes one address, not a network");
	} else if (has_alpha)
		snprintf(why, why_size,
			 "not an IPv4 address: hostnames are not accepted, write the address");
	else
		snprintf(why, why_size,
			 "not a strict dotted-quad IPv4 address (four parts 0-255, no leading zeros)");
}

static int set_allow_ip(struct config *cfg, const char *value,
			const struct config_origin *origin, char *why, size_t why_size)
{
	char addr_text[64];
	const char *colon = strchr(value, ':');
	struct config_allow_ip *a;
	uint32_t addr;
	uint16_t port = 0;
	size_t i, n;
	int err;

	n = colon ? (size_t)(colon - value) : strlen(value);
	if (n >= sizeof(addr_text) || (colon && strchr(colon + 1, ':'))) {
		explain_bad_ipv4(value, why, why_size);
		return -EINVAL;
	}
	memcpy(addr_text, value, n);
	addr_text[n] = '\0';
	if (netaddr_parse_ipv4(addr_text, &addr)) {
		explain_bad_ipv4(value, why, why_size);
		return -EINVAL;
	}
	if (colon) {
		err = netaddr_parse_port(colon + 1, false, &port);
		if (err) {
			snprintf(why, why_size, "port after ':' must be 1-65535 in plain decimal");
			return -EINVAL;
		}
	}

	for (i = 0; i < cfg->n_allow_ip; i++)
		if (cfg->allow_ip[i].addr == addr && cfg->allow_ip[i].port == port)
			return 0;

	a = append(&cfg->allow_ip, &cfg->n_allow_ip, sizeof(*a));
	a->addr = addr;
	a->port = port;
	a->origin = *origin;

	{
		const struct builtin_block *b = builtin_match(addr);

		/* Accepted (the user may run the agent on a cloud VM that needs
		 * it), but an agent with metadata access can steal the
		 * instance's credentials: say so. */
		if (b && b->reason == REASON_METADATA)
			diag(cfg, CONFIG_WARNING, origin,
			     "allow-ip = %s opens a cloud metadata service (%s): "
			     "the agent can read the machine's credentials",
			     value, b->source);
	}
	return 0;
}

/* valid_host_pattern() - @name (lower case, no final dot) is a DNS name of
 * letters, digits and '-' in labels of 1-63 bytes, or "*." and one */
static bool valid_host_pattern(const char *name, char *why, size_t why_size)
{
	const char *p = name, *label = name;
	bool digits_only = true;

	if (!strncmp(p, "*.", 2))
		label = p = name + 2;
	if (!*p || !strcmp(name, "*")) {
		snprintf(why, why_size, "a name is needed (\"*\" alone would be the whole internet: "
			 "that is internet = on)");
		return false;
	}
	if (strlen(name) > DNS_NAME_MAX) {
		snprintf(why, why_size, "a name is at most %d characters", DNS_NAME_MAX);
		return false;
	}
	for (;; p++) {
		if (*p == '.' || !*p) {
			if (p == label || p - label > 63) {
				snprintf(why, why_size, "each part of a name is 1-63 characters");
				return false;
			}
			if (!*p)
				break;
			label = p + 1;
			continue;
		}
		if (*p == '*') {
			snprintf(why, why_size, "'*' may only start a name, as in *.example.org");
			return false;
		}
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_') {
			snprintf(why, why_size, "not a host name: letters, digits, '-' and '.' only");
			return false;
		}
		digits_only &= isdigit((unsigned char)*p) || *p == '.';
	}
	if (digits_only) {
		snprintf(why, why_size, "an address, not a name: write allow-ip = %s", name);
		return false;
	}
	return true;
}

/* parse_host_pattern() - @text (up to @n bytes) as a host pattern into
 * @name (lower case, no final dot) */
static int parse_host_pattern(const char *text, size_t n, char name[DNS_NAME_MAX + 8],
			      char *why, size_t why_size)
{
	size_t i;

	if (n >= DNS_NAME_MAX + 8) {
		snprintf(why, why_size, "a name is at most %d characters", DNS_NAME_MAX);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		name[i] = (char)tolower((unsigned char)text[i]);
	if (n && name[n - 1] == '.')
		n--; /* "example.org." is example.org */
	name[n] = '\0';
	return valid_host_pattern(name, why, why_size) ? 0 : -EINVAL;
}

static int set_allow_host(struct config *cfg, const char *value,
			  const struct config_origin *origin, char *why, size_t why_size)
{
	char name[DNS_NAME_MAX + 8];
	const char *colon = strchr(value, ':');
	struct config_allow_host *h;
	uint16_t port = 0;
	size_t i;

	if (parse_host_pattern(value, colon ? (size_t)(colon - value) : strlen(value), name, why,
			       why_size))
		return -EINVAL;
	if (colon && netaddr_parse_port(colon + 1, false, &port)) {
		snprintf(why, why_size, "port after ':' must be 1-65535 in plain decimal");
		return -EINVAL;
	}
	if (cfg->in_profile && !port) {
		snprintf(why, why_size, "a profile's name needs its port (NAME:PORT)");
		return -EINVAL;
	}
	for (i = 0; i < cfg->n_allow_host; i++)
		if (!strcmp(cfg->allow_host[i].pattern, name) && cfg->allow_host[i].port == port)
			return 0; /* the first line's strength: the user's own comes first */
	h = append(&cfg->allow_host, &cfg->n_allow_host, sizeof(*h));
	h->pattern = xstrdup(name);
	h->port = port;
	h->internet_only = cfg->in_profile;
	h->origin = *origin;
	return 0;
}

/* set_profile() - a profile's name: lower-case letters, digits and '-',
 * so that it names a file in the profiles' directory and nothing else */
static int set_profile(struct config *cfg, const char *value, const struct config_origin *origin,
		       char *why, size_t why_size)
{
	struct config_name *p;
	size_t i, n = strlen(value);

	if (!n || n > CONFIG_PROFILE_NAME_MAX || value[0] == '-' ||
	    strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789-") != n) {
		snprintf(why, why_size, "a profile's name is 1-%d lower-case letters, digits and '-'",
			 CONFIG_PROFILE_NAME_MAX);
		return -EINVAL;
	}
	for (i = 0; i < cfg->n_profile; i++)
		if (!strcmp(cfg->profile[i].name, value))
			return 0;
	p = append(&cfg->profile, &cfg->n_profile, sizeof(*p));
	p->name = xstrdup(value);
	p->origin = *origin;
	return 0;
}

static int set_deny_host(struct config *cfg, const char *value,
			 const struct config_origin *origin, char *why, size_t why_size)
{
	char name[DNS_NAME_MAX + 8];
	struct config_name *d;
	size_t i;

	if (strchr(value, ':')) {
		snprintf(why, why_size, "a name without a port: deny-host refuses the whole name");
		return -EINVAL;
	}
	if (strspn(value, "0123456789.") == strlen(value)) {
		/* Not valid_host_pattern()'s advice, which is allow-ip's. */
		snprintf(why, why_size, "an address, not a name: block-cidr = ADDRESS/32 blocks it");
		return -EINVAL;
	}
	if (parse_host_pattern(value, strlen(value), name, why, why_size))
		return -EINVAL;
	for (i = 0; i < cfg->n_deny_host; i++)
		if (!strcmp(cfg->deny_host[i].name, name))
			return 0;
	d = append(&cfg->deny_host, &cfg->n_deny_host, sizeof(*d));
	d->name = xstrdup(name);
	d->origin = *origin;
	return 0;
}

static int set_internet(struct config *cfg, const char *value,
			const struct config_origin *origin, char *why, size_t why_size)
{
	if (parse_on_off(value, &cfg->internet, why, why_size))
		return -EINVAL;
	cfg->internet_origin = *origin;
	return 0;
}

static int set_block_cidr(struct config *cfg, const char *value,
			  const struct config_origin *origin, char *why, size_t why_size)
{
	const char *slash = strchr(value, '/');
	char addr_text[64];
	struct config_cidr *c;
	uint8_t prefixlen = 32;
	uint32_t addr;
	size_t i, n;

	n = slash ? (size_t)(slash - value) : strlen(value);
	if (n >= sizeof(addr_text))
		goto bad;
	memcpy(addr_text, value, n);
	addr_text[n] = '\0';
	if (netaddr_parse_ipv4(addr_text, &addr))
		goto bad;
	if (slash && netaddr_parse_prefixlen(slash + 1, &prefixlen)) {
		snprintf(why, why_size, "prefix length after '/' must be 0-32");
		return -EINVAL;
	}
	if (ntohl(addr) & ~netaddr_mask(prefixlen)) {
		char net[NETADDR_CIDR_STRLEN];

		/* Refuse rather than round: the user may have meant a
		 * different prefix length, and guessing is how rules lie. */
		netaddr_format_cidr(htonl(ntohl(addr) & netaddr_mask(prefixlen)), prefixlen, net);
		snprintf(why, why_size, "has host bits set: did you mean %s?", net);
		return -EINVAL;
	}

	for (i = 0; i < cfg->n_block_cidr; i++)
		if (cfg->block_cidr[i].addr == addr && cfg->block_cidr[i].prefixlen == prefixlen)
			return 0;
	c = append(&cfg->block_cidr, &cfg->n_block_cidr, sizeof(*c));
	c->addr = addr;
	c->prefixlen = prefixlen;
	c->origin = *origin;
	return 0;

bad:
	snprintf(why, why_size, "not an IPv4 prefix like 192.0.2.0/24");
	return -EINVAL;
}

static int parse_port_value(const char *value, bool allow_zero, uint16_t *port, char *why,
			    size_t why_size)
{
	if (netaddr_parse_port(value, allow_zero, port)) {
		snprintf(why, why_size, "must be a port %s-65535 in plain decimal",
			 allow_zero ? "0 (off) or 1" : "1");
		return -EINVAL;
	}
	return 0;
}

static int add_port(struct config_port **list, size_t *n, uint16_t port,
		    const struct config_origin *origin)
{
	struct config_port *p;
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*list)[i].port == port)
			return 0;
	p = append(list, n, sizeof(*p));
	p->port = port;
	p->origin = *origin;
	return 0;
}

static int set_local_port(struct config *cfg, const char *value,
			  const struct config_origin *origin, char *why, size_t why_size)
{
	uint16_t port;

	if (parse_port_value(value, false, &port, why, why_size))
		return -EINVAL;
	return add_port(&cfg->local_port, &cfg->n_local_port, port, origin);
}

static int set_callback_port(struct config *cfg, const char *value,
			     const struct config_origin *origin, char *why, size_t why_size)
{
	uint16_t port;

	if (parse_port_value(value, false, &port, why, why_size))
		return -EINVAL;
	return add_port(&cfg->callback_port, &cfg->n_callback_port, port, origin);
}

static int set_local_model_port(struct config *cfg, const char *value,
				const struct config_origin *origin, char *why, size_t why_size)
{
	uint16_t port;

	if (parse_port_value(value, true, &port, why, why_size))
		return -EINVAL;
	cfg->local_model_port = port;
	cfg->local_model_port_origin = *origin;
	return 0;
}

/* set_host_settle_ms() - host-settle-ms: milliseconds, in range */
static int set_host_settle_ms(struct config *cfg, const char *value,
			      const struct config_origin *origin, char *why, size_t why_size)
{
	unsigned long ms;

	if (netaddr_parse_decimal(value, 6, &ms) || ms < CONFIG_HOST_SETTLE_MS_MIN ||
	    ms > CONFIG_HOST_SETTLE_MS_MAX) {
		snprintf(why, why_size, "must be milliseconds %u-%u in plain decimal",
			 CONFIG_HOST_SETTLE_MS_MIN, CONFIG_HOST_SETTLE_MS_MAX);
		return -EINVAL;
	}
	cfg->host_settle_ms = (unsigned int)ms;
	cfg->host_settle_ms_origin = *origin;
	return 0;
}

/* Variables that would let the environment take over the agent's process or
 * the jail's own markers: a PATH or LD_PRELOAD chosen outside the jail, or a
 * shell startup file, runs code the user never looked at. */
static bool pass_env_refused(const char *name)
{
	static const char *const exact[] = {
		"PATH", "HOME", "USER", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "IFS",
	};
	size_t i;

	if (!strncmp(name, "LD_", 3) || !strncmp(name, "EBPFJAIL_", 9))
		return true;
	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return true;
	return false;
}

static int set_pass_env(struct config *cfg, const char *value,
			const struct config_origin *origin, char *why, size_t why_size)
{
	struct config_name *e;
	const char *p;
	size_t i;

	for (p = value; *p; p++)
		if (!(isalpha((unsigned char)*p) || *p == '_' ||
		      (p > value && isdigit((unsigned char)*p))) ||
		    (p - value) >= 255) {
			snprintf(why, why_size,
				 "not a variable name (letters, digits and _, not starting with a digit)");
			return -EINVAL;
		}
	if (pass_env_refused(value)) {
		snprintf(why, why_size,
			 "may not be passed into the jail: the jail sets it itself, or it would "
			 "let the outside environment run code in the agent");
		return -EINVAL;
	}
	for (i = 0; i < cfg->n_pass_env; i++)
		if (!strcmp(cfg->pass_env[i].name, value))
			return 0;
	e = append(&cfg->pass_env, &cfg->n_pass_env, sizeof(*e));
	e->name = xstrdup(value);
	e->origin = *origin;
	return 0;
}

/* dot_component() - the first "." or ".." component of @path, its length
 * in *@n. Return: where it starts, or NULL when there is none. */
static const char *dot_component(const char *path, size_t *n)
{
	const char *p;

	for (p = path; p; p = strchr(p, '/')) {
		p += *p == '/';
		*n = strcspn(p, "/");
		if ((*n == 1 || *n == 2) && !strncmp(p, "..", *n))
			return p;
	}
	return NULL;
}

/* check_socket_path() - can @path be a unix-socket value? One spelling per
 * socket: the root-socket warning and the jail's masks compare paths as
 * written, so /run//docker.sock or /run/./docker.sock must not pass for a
 * socket other than /run/docker.sock.
 * Return: 0, or -EINVAL having written what is wrong into @why. */
static int check_socket_path(const char *path, char *why, size_t why_size)
{
	size_t len = strlen(path), n = 0;
	const char *dot = dot_component(path, &n);

	if (path[0] != '/')
		snprintf(why, why_size, "must be an absolute path");
	else if (len == 1)
		snprintf(why, why_size, "is the root directory, not a socket");
	else if (len > CONFIG_UNIX_SOCKET_MAX)
		snprintf(why, why_size, "is %zu bytes long; a Unix socket path holds at most %u",
			 len, CONFIG_UNIX_SOCKET_MAX);
	else if (strpbrk(path, " \t\n\v\f\r"))
		snprintf(why, why_size, "contains whitespace: one path per line");
	else if (strchr(path, '#'))
		snprintf(why, why_size,
			 "contains \"#\", which starts a comment in a configuration file");
	else if (strstr(path, "//"))
		snprintf(why, why_size, "contains \"//\": write the path with single slashes");
	else if (path[len - 1] == '/')
		snprintf(why, why_size, "ends in \"/\": name the socket, not its directory");
	else if (dot)
		snprintf(why, why_size, "has a \"%.*s\" component: write the path without it",
			 (int)n, dot);
	else
		return 0;
	return -EINVAL;
}

static int set_unix_socket(struct config *cfg, const char *value,
			   const struct config_origin *origin, char *why, size_t why_size)
{
	struct config_name *s;
	size_t i;

	if (check_socket_path(value, why, why_size))
		return -EINVAL;
	/* Such a daemon starts a privileged container on request: the agent
	 * would be root on the host, in no jail. The jail masks these
	 * sockets; naming one cannot undo that, and must not seem to. */
	if (unixpolicy_grants_root(value)) {
		snprintf(why, why_size, "is the socket of a daemon that grants root to whoever can "
			 "use it, or acts for them outside any jail: the agent would leave the jail "
			 "through it, so it is never reachable there");
		return -EINVAL;
	}
	for (i = 0; i < cfg->n_unix_socket; i++)
		if (!strcmp(cfg->unix_socket[i].name, value))
			return 0;
	s = append(&cfg->unix_socket, &cfg->n_unix_socket, sizeof(*s));
	s->name = xstrdup(value);
	s->origin = *origin;
	return 0;
}

static int set_audit_log(struct config *cfg, const char *value,
			 const struct config_origin *origin, char *why, size_t why_size)
{
	if (value[0] != '/' && strcmp(value, CONFIG_AUDIT_JOURNAL)) {
		snprintf(why, why_size, "must be an absolute path or " CONFIG_AUDIT_JOURNAL);
		return -EINVAL;
	}
	free(cfg->audit_log);
	cfg->audit_log = xstrdup(value);
	cfg->audit_log_origin = *origin;
	return 0;
}

static const struct key_def keys[] = {
	/* The rootless engine has no Unix socket hooks (nor per-process
	 * attribution): an agent that could choose it would shed them. */
	{ "engine", "EBPFJAIL_ENGINE", false, KEY_LOOSENS_UNLESS, "auto", set_engine,
	  SINGLE(engine_origin) },
	{ "egress-jail", "EBPFJAIL_EGRESS_JAIL", false, KEY_LOOSENS_UNLESS, "on", set_egress_jail,
	  SINGLE(egress_jail_origin) },
	{ "allow-ip", "EBPFJAIL_ALLOW_IP", true, KEY_LOOSENS, NULL, set_allow_ip, 0 },
	/* A name's addresses are allowed over the blocks a name may lift
	 * (policy_name_refusal(): an exact name's over private, LAN and VPN
	 * ranges; a wildcard's over internet = off alone). */
	{ "allow-host", "EBPFJAIL_ALLOW_HOST", true, KEY_LOOSENS, NULL, set_allow_host, 0 },
	/* Names of public services, with internet-only strength: with
	 * internet = off, a door out all the same. */
	{ "profile", "EBPFJAIL_PROFILE", true, KEY_LOOSENS, NULL, set_profile, 0 },
	/* Only ever refuses: a name's answer and the addresses it gave. */
	{ "deny-host", "EBPFJAIL_DENY_HOST", true, KEY_TIGHTENS, NULL, set_deny_host, 0 },
	{ "internet", "EBPFJAIL_INTERNET", false, KEY_LOOSENS_UNLESS, "off", set_internet,
	  SINGLE(internet_origin) },
	{ "block-cidr", "EBPFJAIL_BLOCK_CIDR", true, KEY_TIGHTENS, NULL, set_block_cidr, 0 },
	{ "local-port", "EBPFJAIL_LOCAL_PORT", true, KEY_LOOSENS, NULL, set_local_port, 0 },
	{ "local-model-port", "EBPFJAIL_LOCAL_MODEL_PORT", false, KEY_LOOSENS_UNLESS, "0",
	  set_local_model_port, SINGLE(local_model_port_origin) },
	{ "callback-port", "EBPFJAIL_CALLBACK_PORT", true, KEY_LOOSENS, NULL, set_callback_port, 0 },
	{ "pass-env", "EBPFJAIL_PASS_ENV", true, KEY_LOOSENS, NULL, set_pass_env, 0 },
	/* A host socket is a door out of the network jail (a database, an
	 * agent holding keys, a daemon that starts containers). */
	{ "unix-socket", "EBPFJAIL_UNIX_SOCKET", true, KEY_LOOSENS, NULL, set_unix_socket, 0 },
	/* The host's /tmp and runtime directory hold the session bus, tmux,
	 * X11 and ssh-agent sockets: sharing them is many doors at once. */
	{ "share-tmp", "EBPFJAIL_SHARE_TMP", false, KEY_LOOSENS_UNLESS, "off", set_share_tmp,
	  SINGLE(share_tmp_origin) },
	{ "audit-log", "EBPFJAIL_AUDIT_LOG", false, KEY_ROOT_FILE_ONLY, NULL, set_audit_log,
	  SINGLE(audit_log_origin) },
	/* Never a loosening: what the host gains is blocked at its first
	 * notification (hostwatch.c); a longer wait only keeps what it
	 * lost blocked longer and gathers a longer burst into one read. */
	{ "host-settle-ms", "EBPFJAIL_HOST_SETTLE_MS", false, KEY_TIGHTENS, NULL,
	  set_host_settle_ms, SINGLE(host_settle_ms_origin) },
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static const struct key_def *find_key(const char *name)
{
	size_t i;

	for (i = 0; i < N_KEYS; i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

bool config_is_key(const char *key)
{
	return find_key(key) != NULL;
}

bool config_overridden(const struct config *cfg, const struct config_name *line)
{
	const struct key_def *k;
	char key[64];

	snprintf(key, sizeof(key), "%.*s", (int)strcspn(line->name, " "), line->name);
	k = find_key(key);
	if (!k || k->repeatable)
		return false;
	return ((const struct config_origin *)((const char *)cfg + k->origin_at))->line !=
	       line->origin.line;
}

/* edit_distance() - Levenshtein distance, capped: enough to suggest
 * "allow-ip" for "alow-ip". Only 2 or less makes a hint, and words whose
 * lengths differ by 3 cannot be that close, so they skip the table (a file
 * of unknown keys filled it once per key: the fuzzer spent about 70% of its
 * time here). Return: the distance, or 99 when it is surely above 2. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64];

	if (la >= 63 || lb >= 63 || la > lb + 2 || lb > la + 2)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag_prev = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) != b[j - 1];
			size_t best = diag_prev + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag_prev = up;
		}
	}
	return row[lb];
}

static void warn_unknown_key(struct config *cfg, const struct config_origin *origin,
			     const char *what, const char *key, size_t key_len)
{
	char q[QUOTE_MAX * 4 + 8], k[CONFIG_MAX_LINE + 1];
	const char *hint = NULL;
	size_t i;

	quote(key, key_len, q, sizeof(q));
	if (key_len < sizeof(k)) {
		memcpy(k, key, key_len);
		k[key_len] = '\0';
		for (i = 0; i < N_KEYS; i++)
			if (edit_distance(k, keys[i].name) <= 2)
				hint = keys[i].name;
	}
	if (hint)
		diag(cfg, CONFIG_WARNING, origin, "unknown %s %s ignored; did you mean \"%s\"?", what,
		     q, hint);
	else
		diag(cfg, CONFIG_WARNING, origin, "unknown %s %s ignored", what, q);
}

static bool has_control_char(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* approved() - may this line of a file the agent could have written count?
 * If not, say why (an error) and, for a loosening line, keep it for
 * `ebpfjail trust` and the refusal that names it. */
static bool approved(struct config *cfg, const struct key_def *key, const char *value,
		     const struct config_origin *origin, const struct config_approval *approval)
{
	char text[CONFIG_MAX_LINE + 32], q[QUOTE_MAX * 4 + 8];
	struct config_name *u;
	size_t i;

	if (!approval)
		return true;
	if (key->effect == KEY_ROOT_FILE_ONLY) {
		if (!approval->user_writable)
			return true;
		/* Root appends to the audit log, with text the agent
		 * chose (its comm): from a file the agent can change,
		 * audit-log would aim root's writes at a root shell's
		 * start-up file. */
		diag(cfg, CONFIG_ERROR, origin,
		     "%s may only be set in a root-owned configuration file such as %s "
		     "(root writes there, and the agent can change this file)",
		     key->name, CONFIG_SYSTEM_PATH);
		return false;
	}
	if (!approval->agent_writable || key->effect == KEY_TIGHTENS)
		return true;
	if (key->effect == KEY_LOOSENS_UNLESS && !strcmp(value, key->tight_value))
		return true;
	snprintf(text, sizeof(text), "%s = %s", key->name, value);
	for (i = 0; i < approval->n_lines; i++)
		if (!strcmp(approval->lines[i], text)) {
			if (approval->found)
				approval->found[i] = true;
			return true;
		}
	quote(value, strlen(value), q, sizeof(q));
	diag(cfg, CONFIG_ERROR, origin,
	     "%s = %s loosens the jail and was not approved (the agent can change this file)",
	     key->name, q);
	u = append(&cfg->unapproved, &cfg->n_unapproved, sizeof(*u));
	u->name = xstrdup(text);
	u->origin = *origin;
	return false;
}

static int apply(struct config *cfg, const struct key_def *key, const char *value,
		 const struct config_origin *origin, const struct config_approval *approval)
{
	char why[512], q[QUOTE_MAX * 4 + 8];

	quote(value, strlen(value), q, sizeof(q));
	if (value[0] == '\0') {
		diag(cfg, CONFIG_ERROR, origin, "%s: empty value", key->name);
		return -EINVAL;
	}
	if (has_control_char(value)) {
		diag(cfg, CONFIG_ERROR, origin, "%s = %s: contains a control character", key->name,
		     q);
		return -EINVAL;
	}
	if (!approved(cfg, key, value, origin, approval))
		return -EPERM;
	if (key->set(cfg, value, origin, why, sizeof(why))) {
		diag(cfg, CONFIG_ERROR, origin, "%s = %s: %s", key->name, q, why);
		return -EINVAL;
	}
	return 0;
}

int config_set(struct config *cfg, const char *key, const char *value,
	       const struct config_origin *origin)
{
	const struct key_def *k = find_key(key);

	if (!k) {
		warn_unknown_key(cfg, origin, "key", key, strlen(key));
		return -EINVAL;
	}
	return apply(cfg, k, value, origin, NULL);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* parse_line() - one line, NUL-free, without its newline */
static void parse_line(struct config *cfg, const struct config_origin *origin, char *line,
		       size_t len, const struct config_approval *approval)
{
	char q[QUOTE_MAX * 4 + 8];
	char *key, *eq, *value, *end;
	const struct key_def *k;

	if (len && line[len - 1] == '\r') /* CRLF files */
		line[--len] = '\0';
	end = memchr(line, '#', len);
	if (end) {
		*end = '\0';
		len = (size_t)(end - line);
	}
	while (len && is_blank(line[len - 1]))
		line[--len] = '\0';
	key = line;
	while (is_blank(*key))
		key++;
	if (*key == '\0')
		return;

	eq = strchr(key, '=');
	if (!eq) {
		quote(key, strlen(key), q, sizeof(q));
		diag(cfg, CONFIG_ERROR, origin, "expected \"key = value\", got %s", q);
		return;
	}
	value = eq + 1;
	while (eq > key && is_blank(eq[-1]))
		eq--;
	*eq = '\0';
	while (is_blank(*value))
		value++;
	if (*key == '\0') {
		quote(value, strlen(value), q, sizeof(q));
		diag(cfg, CONFIG_ERROR, origin, "missing key before \"= %s\"", q + 1);
		return;
	}

	/* A profile opens names to public services and nothing else: not a
	 * port of the host, a LAN address, another profile. */
	if (cfg->in_profile && strcmp(key, "allow-host")) {
		quote(key, strlen(key), q, sizeof(q));
		diag(cfg, CONFIG_ERROR, origin, "a profile holds allow-host lines only, not %s", q);
		return;
	}
	k = find_key(key);
	if (!k) {
		warn_unknown_key(cfg, origin, "key", key, strlen(key));
		return;
	}
	apply(cfg, k, value, origin, approval);
}

static const char *intern_file(struct config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_files; i++)
		if (!strcmp(cfg->files[i], name))
			return cfg->files[i];
	cfg->files = xrealloc_array(cfg->files, cfg->n_files + 1, sizeof(*cfg->files));
	cfg->files[cfg->n_files] = xstrdup(name);
	return cfg->files[cfg->n_files++];
}

void config_parse(struct config *cfg, const char *name, const char *data, size_t len,
		  const struct config_approval *approval)
{
	struct config_origin origin = { .source = SOURCE_FILE, .name = intern_file(cfg, name) };
	char *line = malloc(CONFIG_MAX_LINE + 1);
	size_t pos = 0;

	if (!line)
		abort();
	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t line_len = nl ? (size_t)(nl - (data + pos)) : len - pos;
		const char *start = data + pos;

		origin.line++;
		pos += line_len + (nl ? 1 : 0);
		if (line_len > CONFIG_MAX_LINE) {
			char q[QUOTE_MAX * 4 + 8];

			quote(start, line_len, q, sizeof(q));
			diag(cfg, CONFIG_ERROR, &origin, "line is %zu bytes long, the limit is %u: %s",
			     line_len, CONFIG_MAX_LINE, q);
			continue;
		}
		if (memchr(start, '\0', line_len)) {
			char q[QUOTE_MAX * 4 + 8];

			quote(start, line_len, q, sizeof(q));
			diag(cfg, CONFIG_ERROR, &origin,
			     "contains a NUL byte (is this a text file?): %s", q);
			continue;
		}
		memcpy(line, start, line_len);
		line[line_len] = '\0';
		parse_line(cfg, &origin, line, line_len, approval);
	}
	free(line);
}

void config_parse_profile(struct config *cfg, const char *name, const char *data, size_t len)
{
	cfg->in_profile = true;
	config_parse(cfg, name, data, len, NULL);
	cfg->in_profile = false;
}

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

int config_read_file(struct config *cfg, const char *path, bool must_exist,
		     struct config_text *text)
{
	struct config_origin origin = { .source = SOURCE_FILE, .name = intern_file(cfg, path) };
	size_t cap = 0;
	struct stat st;
	int fd, ret = 1;

	memset(text, 0, sizeof(*text));
	/* A FIFO or device in place of the file would block whoever reads
	 * it (the supervisor, at a reload) for as long as the agent likes:
	 * only a regular file is opened, and the open never waits. */
	if (stat(path, &st)) {
		ret = -errno;
		if (ret == -ENOENT && !must_exist)
			return 0;
		diag(cfg, CONFIG_ERROR, &origin, "cannot open: %s", strerror(-ret));
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		diag(cfg, CONFIG_ERROR, &origin, "cannot read: %s, not a configuration file",
		     file_kind(st.st_mode));
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		diag(cfg, CONFIG_ERROR, &origin, "cannot open: %s", strerror(-ret));
		return ret;
	}
	if (fstat(fd, &text->st) || !S_ISREG(text->st.st_mode)) { /* replaced meanwhile */
		ret = -EINVAL;
		diag(cfg, CONFIG_ERROR, &origin, "cannot read: %s, not a configuration file",
		     file_kind(text->st.st_mode));
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (text->len > CONFIG_MAX_FILE) {
			ret = -EFBIG;
			diag(cfg, CONFIG_ERROR, &origin,
			     "larger than %u KiB: not a configuration file", CONFIG_MAX_FILE >> 10);
			goto out;
		}
		if (text->len == cap) {
			cap = cap ? cap * 2 : 4096;
			text->data = xrealloc_array(text->data, cap, 1);
		}
		n = read(fd, text->data + text->len, cap - text->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			diag(cfg, CONFIG_ERROR, &origin, "cannot read: %s", strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		text->len += (size_t)n;
	}
out:
	close(fd);
	if (ret < 0)
		config_text_free(text);
	return ret;
}

void config_text_free(struct config_text *text)
{
	free(text->data);
	text->data = NULL;
	text->len = 0;
}

int config_load_file(struct config *cfg, const char *path, bool must_exist,
		     const struct config_approval *approval)
{
	struct config_text text;
	int ret = config_read_file(cfg, path, must_exist, &text);

	if (ret > 0)
		config_parse(cfg, path, text.data, text.len, approval);
	config_text_free(&text);
	return ret;
}

void config_apply_env(struct config *cfg, char *const envp[])
{
	size_t i;

	for (; envp && *envp; envp++) {
		const char *var = *envp, *eq = strchr(var, '=');
		const struct key_def *k = NULL;
		struct config_origin origin = { .source = SOURCE_ENV };

		if (!eq || strncmp(var, "EBPFJAIL_", 9))
			continue;
		for (i = 0; i < N_KEYS; i++)
			if (strlen(keys[i].env) == (size_t)(eq - var) &&
			    !strncmp(keys[i].env, var, (size_t)(eq - var)))
				k = &keys[i];
		if (!k) {
			origin.name = "EBPFJAIL_*";
			warn_unknown_key(cfg, &origin, "variable", var, (size_t)(eq - var));
			continue;
		}
		origin.name = k->env;
		if (!k->repeatable) {
			apply(cfg, k, eq + 1, &origin, NULL);
			continue;
		}
		/* Repeatable keys: a space-separated list; empty means none. */
		{
			char *list = xstrdup(eq + 1), *save = NULL, *item;

			for (item = strtok_r(list, " \t", &save); item;
			     item = strtok_r(NULL, " \t", &save))
				apply(cfg, k, item, &origin, NULL);
			free(list);
		}
	}
}

void config_finish(struct config *cfg)
{
	size_t i, j;

	/* A port relayed both ways would connect the jail's listener to the
	 * host's and back: refuse before anything starts. */
	for (i = 0; i < cfg->n_callback_port; i++) {
		const struct config_port *cb = &cfg->callback_port[i];
		char other[512];

		for (j = 0; j < cfg->n_local_port; j++) {
			if (cfg->local_port[j].port != cb->port)
				continue;
			config_origin_format(&cfg->local_port[j].origin, other, sizeof(other));
			diag(cfg, CONFIG_ERROR, &cb->origin,
			     "callback-port = %u is also a local-port (%s): a port is relayed "
			     "one way only",
			     cb->port, other);
		}
		if (cfg->local_model_port && cfg->local_model_port == cb->port) {
			config_origin_format(&cfg->local_model_port_origin, other, sizeof(other));
			diag(cfg, CONFIG_ERROR, &cb->origin,
			     "callback-port = %u is also the local-model-port (%s): a port is "
			     "relayed one way only; set local-model-port to another port or 0",
			     cb->port, other);
		}
	}
}

void config_init(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->egress_jail = true;
	cfg->internet = true;
	cfg->local_model_port = CONFIG_DEFAULT_LOCAL_MODEL_PORT;
	cfg->host_settle_ms = CONFIG_HOST_SETTLE_MS_MIN;
	cfg->audit_log = xstrdup(config_default_audit_log());
}

void config_free(struct config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->n_pass_env; i++)
		free(cfg->pass_env[i].name);
	for (i = 0; i < cfg->n_unix_socket; i++)
		free(cfg->unix_socket[i].name);
	free(cfg->unix_socket);
	for (i = 0; i < cfg->n_allow_host; i++)
		free(cfg->allow_host[i].pattern);
	free(cfg->allow_host);
	for (i = 0; i < cfg->n_deny_host; i++)
		free(cfg->deny_host[i].name);
	free(cfg->deny_host);
	for (i = 0; i < cfg->n_profile; i++)
		free(cfg->profile[i].name);
	free(cfg->profile);
	for (i = 0; i < cfg->n_unapproved; i++)
		free(cfg->unapproved[i].name);
	free(cfg->unapproved);
	for (i = 0; i < cfg->n_files; i++)
		free(cfg->files[i]);
	for (i = 0; i < cfg->n_diags; i++)
		free(cfg->diags[i].text);
	free(cfg->pass_env);
	free(cfg->files);
	free(cfg->diags);
	free(cfg->allow_ip);
	free(cfg->block_cidr);
	free(cfg->local_port);
	free(cfg->callback_port);
	free(cfg->audit_log);
	memset(cfg, 0, sizeof(*cfg));
}

static void print_line(FILE *out, const struct config_origin *origin, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void print_line(FILE *out, const struct config_origin *origin, const char *fmt, ...)
{
	char text[CONFIG_MAX_LINE + 64], where[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	config_origin_format(origin, where, sizeof(where));
	fprintf(out, "%-40s # %s\n", text, where);
}

void config_print(const struct config *cfg, FILE *out)
{
	char a[NETADDR_CIDR_STRLEN];
	size_t i;

	print_line(out, &cfg->engine_origin, "engine = %s",
		   engine_names[cfg->engine]);
	print_line(out, &cfg->egress_jail_origin, "egress-jail = %s",
		   cfg->egress_jail ? "on" : "off");
	for (i = 0; i < cfg->n_allow_ip; i++) {
		netaddr_format(cfg->allow_ip[i].addr, a);
		if (cfg->allow_ip[i].port)
			print_line(out, &cfg->allow_ip[i].origin, "allow-ip = %s:%u", a,
				   cfg->allow_ip[i].port);
		else
			print_line(out, &cfg->allow_ip[i].origin, "allow-ip = %s", a);
	}
	for (i = 0; i < cfg->n_block_cidr; i++) {
		netaddr_format_cidr(cfg->block_cidr[i].addr, cfg->block_cidr[i].prefixlen, a);
		print_line(out, &cfg->block_cidr[i].origin, "block-cidr = %s", a);
	}
	for (i = 0; i < cfg->n_local_port; i++)
		print_line(out, &cfg->local_port[i].origin, "local-port = %u",
			   cfg->local_port[i].port);
	print_line(out, &cfg->local_model_port_origin, "local-model-port = %u",
		   cfg->local_model_port);
	for (i = 0; i < cfg->n_callback_port; i++)
		print_line(out, &cfg->callback_port[i].origin, "callback-port = %u",
			   cfg->callback_port[i].port);
	for (i = 0; i < cfg->n_pass_env; i++)
		print_line(out, &cfg->pass_env[i].origin, "pass-env = %s", cfg->pass_env[i].name);
	for (i = 0; i < cfg->n_unix_socket; i++)
		print_line(out, &cfg->unix_socket[i].origin, "unix-socket = %s",
			   cfg->unix_socket[i].name);
	print_line(out, &cfg->share_tmp_origin, "share-tmp = %s", cfg->share_tmp ? "on" : "off");
	print_line(out, &cfg->host_settle_ms_origin, "host-settle-ms = %u", cfg->host_settle_ms);
	for (i = 0; i < cfg->n_profile; i++)
		print_line(out, &cfg->profile[i].origin, "profile = %s", cfg->profile[i].name);
	for (i = 0; i < cfg->n_allow_host; i++) {
		const struct config_allow_host *h = &cfg->allow_host[i];
		/* A profile's line as a comment: pasted back as a line of the
		 * user's own, it would be an exact name, which may open the
		 * LAN (the profile = line above brings it). */
		const char *from = h->internet_only ? "# " : "";

		if (h->port)
			print_line(out, &h->origin, "%sallow-host = %s:%u", from, h->pattern, h->port);
		else
			print_line(out, &h->origin, "%sallow-host = %s", from, h->pattern);
	}
	for (i = 0; i < cfg->n_deny_host; i++)
		print_line(out, &cfg->deny_host[i].origin, "deny-host = %s", cfg->deny_host[i].name);
	print_line(out, &cfg->internet_origin, "internet = %s", cfg->internet ? "on" : "off");
	print_line(out, &cfg->audit_log_origin, "audit-log = %s", cfg->audit_log);
}
