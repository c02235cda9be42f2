// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* jail_policy.c - a running jail's policy: install, reload, allow, deny,
 * and follow the host's networks
 *
 * Every change compiles a complete new policy (configuration, the host's
 * networks as they are now, temporary changes) and swaps it in with one map
 * update (loader_set_policy()): a connect sees the old policy or the new
 * one, never a mix, never an empty one. Anything that fails before the swap
 * leaves the policy in force untouched.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "jail_policy.h"
#include "log.h"
#include "netaddr.h"

/* compile() - the complete policy: the configuration in force, @host and
 * the temporary changes. Return: 0 or -errno. */
static int compile(const struct jail_policy *jp, const struct hostnet *host, struct policy *next)
{
	struct host_facts facts;

	hostnet_facts(host, jp->gateway, jp->dns_forward, &facts);
	facts.dns_tcp = jp->dns_tcp;
	return policy_compile_live(jp->cfg, &facts, jp->live.entries, jp->live.n, next);
}

/* swap() - @next into the maps in one update, and into @jp->rules; on
 * failure @next is freed and the policy in force stays. Return: 0 or
 * -errno. */
static int swap(struct jail_policy *jp, struct policy *next)
{
	char why[256] = "";
	int err = jp->nft ? nftjail_set_policy(jp->nft, next, why, sizeof(why))
			  : loader_set_policy(jp->bpf, next->rules, next->n);

	if (err && why[0])
		log_warn("nft refused the jail's rules: %s", why);
	if (err) {
		policy_free(next);
		return err;
	}
	/* Keep what a reload compares with; the sources (96 bytes a rule)
	 * are only for tests and `doctor`. */
	free(next->sources);
	next->sources = NULL;
	policy_free(&jp->rules);
	jp->rules = *next;
	return 0;
}

int jail_policy_install(struct jail_policy *jp, const struct hostnet *host)
{
	struct policy next;
	int err = compile(jp, host, &next);

	return err ? err : swap(jp, &next);
}

void jail_policy_free(struct jail_policy *jp)
{
	policy_free(&jp->rules);
	live_clear(&jp->live);
}

static void record(struct jail_policy *jp, const char *action, const char *change,
		   unsigned long uid)
{
	char line[AUDIT_LINE_MAX];
	struct timespec now;
	size_t len;

	if (!jp->audit || jp->audit->fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	len = audit_format_policy(jp->id, action, change, uid, now, line, sizeof(line));
	audit_log_append(jp->audit, line, len);
}

static int install_now(struct jail_policy *jp)
{
	struct hostnet host;
	int err = hostnet_read(&host);

	if (err)
		return err;
	err = jail_policy_install(jp, &host);
	hostnet_free(&host);
	return err;
}

int jail_policy_host_changed(struct jail_policy *jp)
{
	char list[AUDIT_CHANGE_MAX - 16], change[AUDIT_CHANGE_MAX];
	struct hostnet host;
	struct policy next;
	int err;

	err = hostnet_read(&host);
	if (!err) {
		err = compile(jp, &host, &next);
		hostnet_free(&host);
	}
	if (!err && !live_rules_changes(&jp->rules, &next, list, sizeof(list))) {
		/* Nothing the policy holds changed (an address's lifetime
		 * renewed, the default route moved): nothing to swap. */
		policy_free(&next);
	} else if (!err) {
		err = swap(jp, &next);
		if (!err) {
			snprintf(change, sizeof(change), "host networks: %s", list);
			log_debug("jail %s: %s", jp->id, change);
			/* uid 0: the supervisor changed the policy; the
			 * kernel does not say who changed the host. */
			record(jp, "host", change, 0);
		}
	}
	/* A failure never loosens the jail: the policy in force stays (it
	 * blocks what the host had before), the caller tries again, and
	 * the user hears once, not once a try. */
	if (err && !jp->host_stale)
		log_warn("jail %s: cannot follow a change of the host's networks (%s); the policy "
			 "in force stays and will be updated once they can be read",
			 jp->id, strerror(-err));
	else if (!err && jp->host_stale)
		log_info("jail %s: the policy follows the host's networks again", jp->id);
	jp->host_stale = err != 0;
	return err;
}

static void reply_error(char *reply, size_t size, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void reply_error(char *reply, size_t size, const char *id, const char *fmt, ...)
{
	size_t n = (size_t)snprintf(reply, size, "error jail %s: ", id);
	va_list ap;

	if (n >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(reply + n, size - n, fmt, ap);
	va_end(ap);
}

static void reload(struct jail_policy *jp, unsigned long uid, char *reply, size_t size)
{
	char changes[512], restart[512], line[1200];
	struct config next, *prev = jp->cfg, saved = *prev;
	struct live_changes live = jp->live;
	struct policy before = jp->rules;
	size_t added, removed, i, len;
	int err;

	config_init(&next);
	cli_read_config(&next, jp->opts, jp->agent_uid);
	if (!config_ok(&next)) {
		char hint[1024];

		cli_trust_hint(&next, jp->opts, jp->agent_uid, hint, sizeof(hint));
		len = (size_t)snprintf(reply, size,
				       "error jail %s: the configuration is invalid; the running "
				       "policy is unchanged%s%s\n", jp->id,
				       hint[0] ? "; if you wrote the lines not approved, approve "
						 "them: " : "", hint);
		for (i = 0; i < next.n_diags && len < size; i++)
			if (next.diags[i].severity == CONFIG_ERROR)
				len += (size_t)snprintf(reply + len, size - len, "error: %s\n",
							next.diags[i].text);
		config_free(&next);
		return;
	}
	/* Install the new configuration with no temporary changes; put both
	 * back if that fails. */
	jp->rules = (struct policy){ 0 };
	jp->live = (struct live_changes){ 0 };
	*prev = next;
	err = install_now(jp);
	if (err) {
		*prev = saved;
		jp->live = live;
		jp->rules = before;
		config_free(&next);
		reply_error(reply, size, jp->id, "cannot install the new policy (%s); the running "
			    "policy is unchanged\n", strerror(-err));
		return;
	}
	live_rules_diff(&before, &jp->rules, &added, &removed);
	live_config_diff(&saved, &next, changes, sizeof(changes), restart, sizeof(restart));
	snprintf(line, sizeof(line), "%s%s%zu rules added, %zu removed%s%s%s", changes,
		 changes[0] ? "; " : "", added, removed,
		 live.n ? "; temporary allow/deny dropped" : "",
		 restart[0] ? "; needs a restart: " : "", restart);
	len = (size_t)snprintf(reply, size, "ok jail %s: reloaded: %s\n", jp->id, line);
	/* Warnings (an allowed metadata address, an unknown key) reach the
	 * caller as they would reach `ebpfjail run`'s. */
	for (i = 0; i < jp->cfg->n_diags && len < size; i++)
		len += (size_t)snprintf(reply + len, size - len, "%s: %s\n",
					jp->cfg->diags[i].severity == CONFIG_ERROR ? "error" : "warning",
					jp->cfg->diags[i].text);
	record(jp, "reload", line, uid);
	config_free(&saved);
	policy_free(&before);
	live_clear(&live);
}

static void allow_or_deny(struct jail_policy *jp, bool allow, const char *target,
			  unsigned long uid, char *reply, size_t size)
{
	struct live_changes saved = { 0 };
	struct config scratch;
	uint16_t port = 0;
	uint32_t addr;
	int err;

	/* The same strict IPV4[:PORT] as allow-ip, same messages. */
	config_init(&scratch);
	err = config_set(&scratch, "allow-ip", target,
			 &(struct config_origin){ .source = SOURCE_FLAG, .name = allow ? "allow" : "deny" });
	if (err || scratch.n_allow_ip != 1) {
		reply_error(reply, size, jp->id, "%s\n",
			    scratch.n_diags ? scratch.diags[0].text : "invalid address");
		config_free(&scratch);
		return;
	}
	addr = scratch.allow_ip[0].addr;
	port = scratch.allow_ip[0].port;
	config_free(&scratch);

	if (jp->live.n) {
		saved.entries = malloc(jp->live.n * sizeof(*saved.entries));
		if (!saved.entries) {
			reply_error(reply, size, jp->id, "out of memory\n");
			return;
		}
		memcpy(saved.entries, jp->live.entries, jp->live.n * sizeof(*saved.entries));
		saved.n = jp->live.n;
	}
	err = live_set(&jp->live, addr, port, allow);
	if (!err)
		err = install_now(jp);
	if (err) {
		live_clear(&jp->live);
		jp->live = saved;
		reply_error(reply, size, jp->id, "cannot change the policy (%s); it is unchanged\n",
			    strerror(-err));
		return;
	}
	live_clear(&saved);
	snprintf(reply, size, "ok jail %s: %s %s until the jail ends or the next reload\n", jp->id,
		 allow ? "allowed" : "denied", target);
	record(jp, allow ? "allow" : "deny", target, uid);
}

void jail_policy_request(struct jail_policy *jp, const char *request, char *reply, size_t size)
{
	char verb[16] = "", target[64] = "";
	unsigned long uid = 0;
	int n;

	n = sscanf(request, "%15s %63s %lu", verb, target, &uid);
	if (n >= 1 && !strcmp(verb, "reload")) {
		if (n == 2)
			uid = strtoul(target, NULL, 10);
		reload(jp, uid, reply, size);
	} else if (n >= 2 && (!strcmp(verb, "allow") || !strcmp(verb, "deny"))) {
		allow_or_deny(jp, !strcmp(verb, "allow"), target, uid, reply, size);
	} else {
		reply_error(reply, size, jp->id, "unknown request\n");
	}
}
