/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* config.h - the configuration: every key, every source, every rule */
#ifndef EBPFJAIL_CONFIG_H
#define EBPFJAIL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#define CONFIG_SYSTEM_PATH "/etc/ebpfjail.conf"
#define CONFIG_USER_RELPATH ".config/ebpfjail.conf"
#define CONFIG_DEFAULT_AUDIT_LOG "/var/log/ebpfjail/audit.jsonl"
/* A user's own, without root: under $XDG_STATE_HOME (~/.local/state). */
#define CONFIG_USER_AUDIT_LOG "ebpfjail/audit.jsonl"
/* audit-log's value for the systemd journal instead of a file */
#define CONFIG_AUDIT_JOURNAL "journal"

/**
 * config_default_audit_log() - where the audit log is unless audit-log
 * says: CONFIG_DEFAULT_AUDIT_LOG for root, else
 * $XDG_STATE_HOME/CONFIG_USER_AUDIT_LOG (or ~/.local/state/...)
 * Return: a static string.
 */
const char *config_default_audit_log(void);
#define CONFIG_DEFAULT_LOCAL_MODEL_PORT 1920

/* host-settle-ms: how long a burst of the host's network changes settles
 * before the jail reads them again whole (what the host gains is blocked at
 * its first notification whatever this says); the default is the shortest. */
#define CONFIG_HOST_SETTLE_MS_MIN 100
#define CONFIG_HOST_SETTLE_MS_MAX 600000
/* Longest accepted line; longer ones are an error, not a truncation. */
#define CONFIG_MAX_LINE 4096
/* Largest file read; a config is a few hundred bytes. */
#define CONFIG_MAX_FILE (1U << 20)
/* Longest unix-socket path: sockaddr_un's sun_path holds 108 bytes with the NUL. */
#define CONFIG_UNIX_SOCKET_MAX 107

enum config_source {
	SOURCE_DEFAULT = 0,
	SOURCE_FILE,
	SOURCE_ENV,
	SOURCE_FLAG,
};

/* Where a value came from: "default", "FILE:LINE", "env NAME", "flag --x". */
struct config_origin {
	enum config_source source;
	const char *name; /* file path (owned by struct config), env or flag name */
	unsigned int line;
};

struct config_allow_ip {
	uint32_t addr; /* network byte order */
	uint16_t port; /* host byte order; 0 = every port */
	struct config_origin origin;
};

/* allow-host = NAME[:PORT]: a name, or "*.example.org" for every name
 * under example.org (not example.org itself), in lower case without a
 * final dot; port 0 = every port. */
#define CONFIG_PROFILE_NAME_MAX 32

struct config_allow_host {
	char *pattern;
	uint16_t port;
	bool internet_only; /* a profile's line: a wildcard's strength, whatever
			       the pattern (dnsallow.h) */
	struct config_origin origin;
};

struct config_cidr {
	uint32_t addr; /* network byte order, host bits zero */
	uint8_t prefixlen;
	struct config_origin origin;
};

struct config_port {
	uint16_t port;
	struct config_origin origin;
};

struct config_name {
	char *name;
	struct config_origin origin;
};

enum config_severity {
	CONFIG_ERROR,
	CONFIG_WARNING,
};

/* One finished message: "ORIGIN: what is wrong with "TEXT"". */
struct config_diag {
	enum config_severity severity;
	char *text;
};

/*
 * What a file may loosen (docs/DESIGN.md, "Who may loosen the jail"). A file
 * the agent could have written (agent_writable) gives loosening lines
 * (allow-ip = ..., egress-jail = off, ...) only where `ebpfjail trust`
 * approved that exact line for that file; the others are refused. NULL, or
 * agent_writable false: a root-controlled file, every line counts.
 */
struct config_approval {
	bool agent_writable;
	bool user_writable; /* a uid but root could change it: audit-log is refused */
	char **lines; /* approved lines, "key = value" (see approved() in config.c) */
	size_t n_lines;
	bool *found;  /* NULL, or per line: the file holds it (config_parse() marks) */
};

/* Which engine enforces the policy (docs/DESIGN.md): BPF needs root in the
 * host's user namespace; nftables in a user namespace of the user's own
 * needs nothing. auto: BPF where it can load, else nftables. */
enum config_engine { ENGINE_AUTO, ENGINE_BPF, ENGINE_NFTABLES };

struct config {
	enum config_engine engine;
	struct config_origin engine_origin;
	bool egress_jail;
	struct config_origin egress_jail_origin;
	uint16_t local_model_port; /* 0 = disabled */
	struct config_origin local_model_port_origin;
	char *audit_log;
	struct config_origin audit_log_origin;
	unsigned int host_settle_ms; /* CONFIG_HOST_SETTLE_MS_MIN..._MAX */
	struct config_origin host_settle_ms_origin;
	/* Off: the agent gets a private /tmp, /dev/shm and /run/user/UID; on,
	 * the host's, with the sockets in them (tmux, ssh-agent, X11, D-Bus). */
	bool share_tmp;
	struct config_origin share_tmp_origin;
	/* Off: an allowlist-only jail (only allow-ip, allow-host, DNS and
	 * relays are reachable). */
	bool internet;
	struct config_origin internet_origin;

	/* Repeatable keys: accumulated over all sources, deduplicated, in the
	 * order first seen; each item keeps the origin of its first mention. */
	struct config_allow_ip *allow_ip;
	size_t n_allow_ip;
	struct config_allow_host *allow_host;
	size_t n_allow_host;
	/* deny-host = NAME or *.DOMAIN, as allow-host's patterns (no port) */
	struct config_name *deny_host;
	size_t n_deny_host;
	struct config_cidr *block_cidr;
	size_t n_block_cidr;
	struct config_port *local_port;
	size_t n_local_port;
	struct config_port *callback_port;
	size_t n_callback_port;
	struct config_name *pass_env;
	size_t n_pass_env;
	/* Host Unix sockets made reachable in the jail: absolute paths of at
	 * most CONFIG_UNIX_SOCKET_MAX bytes, without "." or ".." components,
	 * "//", a trailing "/", whitespace or "#". */
	struct config_name *unix_socket;
	size_t n_unix_socket;

	/* profile = NAME: allowlists shipped with ebpfjail, read once every
	 * source is (cli_read_config()) into allow_host */
	struct config_name *profile;
	size_t n_profile;
	bool in_profile; /* config_parse_profile() is parsing */

	/* Loosening lines of agent-writable files that their approval does
	 * not hold, "key = value" with their origin: each is also an error;
	 * `run` lists them, `trust` approves them. */
	struct config_name *unapproved;
	size_t n_unapproved;

	/* Files read, in order (for origins and for `ebpfjail config`). */
	char **files;
	size_t n_files;

	struct config_diag *diags;
	size_t n_diags;
	unsigned int n_errors;
};

/** config_init() - the defaults, no sources read yet */
void config_init(struct config *cfg);

/** config_free() - release everything config_init() and the loaders took */
void config_free(struct config *cfg);

/* A configuration file's bytes, and what it was when read. */
struct config_text {
	char *data;
	size_t len;
	struct stat st; /* of the descriptor it was read from */
};

/**
 * config_read_file() - read one configuration file, never blocking on it
 * @cfg: where a diagnostic goes
 * @path: the file
 * @must_exist: a missing file is an error (--config) rather than skipped
 * @text: the bytes, on success; free with config_text_free()
 *
 * Only a regular file of at most CONFIG_MAX_FILE bytes is read: a FIFO or
 * device is refused before it is opened, and the open does not block.
 * Return: 1 if the file was read, 0 if it is absent and may be, -errno when
 * it could not be read (a diagnostic was recorded).
 */
int config_read_file(struct config *cfg, const char *path, bool must_exist,
		     struct config_text *text);

/** config_text_free() - release config_read_file()'s bytes (safe on an empty @text) */
void config_text_free(struct config_text *text);

/**
 * config_load_file() - config_read_file() and config_parse() of a file whose
 * every line counts (@approval NULL) or that the agent may have written
 * Return: as config_read_file(). Errors in the file's lines are recorded in
 * @cfg (see config_ok()), not returned.
 */
int config_load_file(struct config *cfg, const char *path, bool must_exist,
		     const struct config_approval *approval);

/**
 * config_parse() - parse configuration text
 * @name: the name to put in origins and messages (a file path)
 * @data: the text, not NUL-terminated; may hold any bytes
 * @len: its length
 * @approval: what the file may loosen; NULL: everything (a root-controlled file)
 *
 * From an agent-writable file, audit-log is an error and each loosening
 * line the approval lacks is an error added to @cfg->unapproved.
 */
void config_parse(struct config *cfg, const char *name, const char *data, size_t len,
		  const struct config_approval *approval);

/**
 * config_parse_profile() - a profile's text (@name its file): allow-host
 * lines with ports only (anything else is an error naming the line), each
 * of internet-only strength; a line the configuration has already keeps
 * the configuration's strength
 */
void config_parse_profile(struct config *cfg, const char *name, const char *data, size_t len);

/** config_parse_buffer() - config_parse() of text whose every line counts */
static inline void config_parse_buffer(struct config *cfg, const char *name, const char *data,
				       size_t len)
{
	config_parse(cfg, name, data, len, NULL);
}

/**
 * config_apply_env() - apply EBPFJAIL_<KEY> variables
 * @envp: a NULL-terminated environment, as environ
 *
 * Repeatable keys take space-separated lists. Unknown EBPFJAIL_ names warn.
 */
void config_apply_env(struct config *cfg, char *const envp[]);

/**
 * config_set() - apply one key = value from any source (command-line flags)
 * @key: the key as written in files ("allow-ip")
 * @value: the value, already separated from the key
 * @origin: where it came from; @origin->name must outlive @cfg
 *
 * Return: 0, or -EINVAL after recording a diagnostic.
 */
int config_set(struct config *cfg, const char *key, const char *value,
	       const struct config_origin *origin);

/**
 * config_finish() - rules that span keys and sources, once all are applied:
 * a callback-port may not also be a local-port or the local-model-port.
 */
void config_finish(struct config *cfg);

/** config_error() - record an error about @origin's value ("ORIGIN: ...") */
void config_error(struct config *cfg, const struct config_origin *origin, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** config_ok() - true when no error was recorded */
static inline bool config_ok(const struct config *cfg)
{
	return cfg->n_errors == 0;
}

/**
 * config_print() - the effective configuration as a valid config file, each
 * value followed by a comment naming its origin
 */
void config_print(const struct config *cfg, FILE *out);

/** config_origin_format() - "FILE:LINE", "env NAME", "flag --x", "default" */
void config_origin_format(const struct config_origin *origin, char *buf, size_t size);

/** config_is_key() - true for a key the configuration knows */
bool config_is_key(const char *key);

/**
 * config_overridden() - is @line, one of the loosening lines config_parse()
 * listed in cfg->unapproved for a file, of a single-value key set again
 * further down that file, so that it has no effect?
 * @cfg: the same file as config_parse() read it (with its lines approved)
 * @line: "key = value" and its origin
 *
 * `ebpfjail trust` does not approve such a line: were the later one deleted
 * (by the agent), it would take effect unseen.
 * Return: true when another line of @cfg set the key's value in force.
 */
bool config_overridden(const struct config *cfg, const struct config_name *line);

#endif /* EBPFJAIL_CONFIG_H */
