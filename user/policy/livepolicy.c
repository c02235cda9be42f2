// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* livepolicy.c - changing a running jail's policy (pure logic)
 *
 * `ebpfjail allow/deny` add temporary entries on top of the configuration;
 * they last until the jail ends or the next `ebpfjail reload`, which makes
 * the configuration the whole truth again. A reload reports what it changed
 * and what only a restart can change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "builtin.h"
#include "livepolicy.h"
#include "netaddr.h"
#include "textbuf.h"

int live_set(struct live_changes *lc, uint32_t addr, uint16_t port, bool allow)
{
	struct policy_live *e;
	size_t i, kept = 0;

	/* The latest word on an address wins: a whole-address change ends
	 * the earlier ones of each of its ports too (`allow X:22` then `deny
	 * X` denies X:22). */
	for (i = 0; i < lc->n; i++)
		if (lc->entries[i].addr != addr || (port && lc->entries[i].port != port))
			lc->entries[kept++] = lc->entries[i];
	lc->n = kept;
	e = reallocarray(lc->entries, lc->n + 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	lc->entries = e;
	e[lc->n++] = (struct policy_live){ .addr = addr, .port = port, .allow = allow };
	return 0;
}

void live_clear(struct live_changes *lc)
{
	free(lc->entries);
	lc->entries = NULL;
	lc->n = 0;
}

void live_format(const struct live_changes *lc, char *buf, size_t size)
{
	struct textbuf t = { buf, size, 0, true };
	char a[NETADDR_CIDR_STRLEN];
	size_t i;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < lc->n; i++) {
		const struct policy_live *e = &lc->entries[i];

		netaddr_format(e->addr, a);
		textbuf_put(&t, "%s%s %s", i ? ", " : "", e->allow ? "allow" : "deny", a);
		if (e->port)
			textbuf_put(&t, ":%u", e->port);
	}
}

/* One repeatable key's items as text, for comparing two configurations. */
typedef void (*item_text_fn)(const struct config *c, size_t i, char *buf, size_t size);

static void allow_text(const struct config *c, size_t i, char *buf, size_t size)
{
	char a[NETADDR_CIDR_STRLEN];

	netaddr_format(c->allow_ip[i].addr, a);
	if (c->allow_ip[i].port)
		snprintf(buf, size, "%s:%u", a, c->allow_ip[i].port);
	else
		snprintf(buf, size, "%s", a);
}

static void allow_host_text(const struct config *c, size_t i, char *buf, size_t size)
{
	if (c->allow_host[i].port)
		snprintf(buf, size, "%s:%u", c->allow_host[i].pattern, c->allow_host[i].port);
	else
		snprintf(buf, size, "%s", c->allow_host[i].pattern);
}

static void cidr_text(const struct config *c, size_t i, char *buf, size_t size)
{
	char a[NETADDR_CIDR_STRLEN];

	netaddr_format_cidr(c->block_cidr[i].addr, c->block_cidr[i].prefixlen, a);
	snprintf(buf, size, "%s", a);
}

static void local_port_text(const struct config *c, size_t i, char *buf, size_t size)
{
	snprintf(buf, size, "%u", c->local_port[i].port);
}

static void callback_port_text(const struct config *c, size_t i, char *buf, size_t size)
{
	snprintf(buf, size, "%u", c->callback_port[i].port);
}

static void pass_env_text(const struct config *c, size_t i, char *buf, size_t size)
{
	snprintf(buf, size, "%s", c->pass_env[i].name);
}

static void unix_socket_text(const struct config *c, size_t i, char *buf, size_t size)
{
	snprintf(buf, size, "%s", c->unix_socket[i].name);
}

/* Room for the longest item: an allow-host name and port (259 bytes) (a unix-socket
 * path is at most CONFIG_UNIX_SOCKET_MAX). Cut short, two items sharing a
 * prefix would compare equal and a change would go unreported. */
#define ITEM_MAX 264

static bool has_item(const struct config *c, size_t n, item_text_fn text, const char *item)
{
	char buf[ITEM_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		text(c, i, buf, sizeof(buf));
		if (!strcmp(buf, item))
			return true;
	}
	return false;
}

static void diff_item(struct textbuf *t, bool *any, const char *key, char sign, const char *item)
{
	if (!*any)
		textbuf_put(t, "%s%s", t->len ? "; " : "", key);
	textbuf_put(t, " %c%s", sign, item);
	*any = true;
}

/* diff_key() - "KEY +a -b" into @t; return whether anything differed. */
static bool diff_key(struct textbuf *t, const char *key, const struct config *old, size_t n_old,
		     const struct config *new, size_t n_new, item_text_fn text)
{
	bool any = false;
	char buf[ITEM_MAX];
	size_t i;

	for (i = 0; i < n_new; i++) {
		text(new, i, buf, sizeof(buf));
		if (!has_item(old, n_old, text, buf))
			diff_item(t, &any, key, '+', buf);
	}
	for (i = 0; i < n_old; i++) {
		text(old, i, buf, sizeof(buf));
		if (!has_item(new, n_new, text, buf))
			diff_item(t, &any, key, '-', buf);
	}
	return any;
}

size_t live_config_diff(const struct config *old, const struct config *new, char *changes,
			size_t changes_size, char *restart, size_t restart_size)
{
	struct textbuf c = { changes, changes_size, 0, true }, r = { restart, restart_size, 0, true };
	size_t n = 0;

	if (changes_size)
		changes[0] = '\0';
	if (restart_size)
		restart[0] = '\0';
	diff_key(&c, "allow-ip", old, old->n_allow_ip, new, new->n_allow_ip, allow_text);
	diff_key(&c, "allow-host", old, old->n_allow_host, new, new->n_allow_host,
		 allow_host_text);
	if (old->internet != new->internet)
		textbuf_put(&c, "%sinternet = %s", c.len ? "; " : "", new->internet ? "on" : "off");
	diff_key(&c, "block-cidr", old, old->n_block_cidr, new, new->n_block_cidr, cidr_text);

	/* Relays, the agent's environment, the log and the jail itself were
	 * set up at start: a reload says so instead of ignoring them. */
	n += diff_key(&r, "local-port", old, old->n_local_port, new, new->n_local_port,
		      local_port_text);
	n += diff_key(&r, "callback-port", old, old->n_callback_port, new, new->n_callback_port,
		      callback_port_text);
	n += diff_key(&r, "pass-env", old, old->n_pass_env, new, new->n_pass_env, pass_env_text);
	n += diff_key(&r, "unix-socket", old, old->n_unix_socket, new, new->n_unix_socket,
		      unix_socket_text);
	if (old->local_model_port != new->local_model_port) {
		textbuf_put(&r, "%slocal-model-port %u -> %u", r.len ? "; " : "", old->local_model_port,
		    new->local_model_port);
		n++;
	}
	if (strcmp(old->audit_log, new->audit_log)) {
		textbuf_put(&r, "%saudit-log %s", r.len ? "; " : "", new->audit_log);
		n++;
	}
	if (old->egress_jail != new->egress_jail) {
		textbuf_put(&r, "%segress-jail = %s", r.len ? "; " : "", new->egress_jail ? "on" : "off");
		n++;
	}
	if (old->share_tmp != new->share_tmp) {
		textbuf_put(&r, "%sshare-tmp = %s", r.len ? "; " : "", new->share_tmp ? "on" : "off");
		n++;
	}
	if (old->host_settle_ms != new->host_settle_ms) {
		textbuf_put(&r, "%shost-settle-ms = %u", r.len ? "; " : "", new->host_settle_ms);
		n++;
	}
	return n;
}

/* One rule that is only in the old policy ('-') or only in the new ('+'). */
typedef void (*rule_change_fn)(void *ctx, char sign, const struct policy_rule *r);

/* rules_walk() - every rule in @b and not in @a and the reverse, in key
 * order; a key whose value changed is its old rule and its new one. */
static void rules_walk(const struct policy *a, const struct policy *b, rule_change_fn fn,
		       void *ctx)
{
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : policy_key_compare(&a->rules[i].key, &b->rules[j].key);

		if (c < 0) {
			fn(ctx, '-', &a->rules[i++]);
		} else if (c > 0) {
			fn(ctx, '+', &b->rules[j++]);
		} else {
			if (memcmp(&a->rules[i].value, &b->rules[j].value,
				   sizeof(a->rules[i].value))) {
				fn(ctx, '-', &a->rules[i]);
				fn(ctx, '+', &b->rules[j]);
			}
			i++;
			j++;
		}
	}
}

struct rule_count {
	size_t added, removed;
};

static void count_rule(void *ctx, char sign, const struct policy_rule *r)
{
	struct rule_count *c = ctx;

	(void)r;
	if (sign == '+')
		c->added++;
	else
		c->removed++;
}

void live_rules_diff(const struct policy *a, const struct policy *b, size_t *added,
		     size_t *removed)
{
	struct rule_count c = { 0, 0 };

	rules_walk(a, b, count_rule, &c);
	*added = c.added;
	*removed = c.removed;
}

/* Room kept at the end of the text for " ... (N more)". */
#define MORE_TEXT_LEN 24

struct rule_text {
	struct textbuf t;
	size_t n, hidden;
};

static void put_rule(void *ctx, char sign, const struct policy_rule *r)
{
	struct rule_text *rt = ctx;
	const char *reason = reason_name(r->value.reason);
	char a[NETADDR_CIDR_STRLEN], item[64];

	if (r->key.prefixlen == POLICY_PREFIXLEN_PORT) {
		netaddr_format(r->key.addr, a);
		snprintf(item, sizeof(item), "%c%s:%u %s", sign, a, ntohs(r->key.port),
			 reason ? reason : "?");
	} else {
		netaddr_format_cidr(r->key.addr, r->key.prefixlen, a);
		snprintf(item, sizeof(item), "%c%s %s", sign, a, reason ? reason : "?");
	}
	rt->n++;
	/* Once one change does not fit, the rest are only counted: the
	 * text stays in key order, with nothing skipped in its middle. */
	if (!rt->hidden && rt->t.len + 1 + strlen(item) + MORE_TEXT_LEN < rt->t.size)
		textbuf_put(&rt->t, "%s%s", rt->t.len ? " " : "", item);
	else
		rt->hidden++;
}

/* put_host_rule() - put_rule() for the rules the host's networks give
 * (its addresses, links and routes), not the names' or the user's */
static void put_host_rule(void *ctx, char sign, const struct policy_rule *r)
{
	if (r->value.reason == REASON_CONNECTED || r->value.reason == REASON_HOST_ROUTE)
		put_rule(ctx, sign, r);
}

static size_t changes_text(const struct policy *a, const struct policy *b,
			   void (*put)(void *ctx, char sign, const struct policy_rule *r), char *buf,
			   size_t size)
{
	struct rule_text rt = { { buf, size, 0, true }, 0, 0 };

	if (size)
		buf[0] = '\0';
	rules_walk(a, b, put, &rt);
	if (rt.hidden)
		textbuf_put(&rt.t, " ... (%zu more)", rt.hidden);
	return rt.n;
}

size_t live_rules_changes(const struct policy *a, const struct policy *b, char *buf, size_t size)
{
	return changes_text(a, b, put_rule, buf, size);
}

size_t live_host_changes(const struct policy *a, const struct policy *b, char *buf, size_t size)
{
	return changes_text(a, b, put_host_rule, buf, size);
}
