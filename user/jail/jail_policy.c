// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* jail_policy.c - a running jail's policy: install, reload, allow, deny,
 * and follow the host's networks
 *
 * Every change compiles a complete new policy (configuration, the host's
 * networks as they are now, temporary changes) and swaps it in with one map
 * update (engine_set_policy()): a connect sees the old policy or the new
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
#include <arpa/inet.h>
#include <sys/stat.h>

#include "dnsallow.h"
#include "jail_policy.h"
#include "log.h"
#include "netaddr.h"
#include "textbuf.h"

/* names_view() - the names' entries as policy.c judges them, the allowed
 * and then the denied ones, in *@names (NULL when there are none; free
 * it), @n of them. Return: 0 or -ENOMEM. */
static int names_view(const struct jail_policy *jp, struct policy_name **names, size_t *n)
{
	*names = NULL;
	*n = jp->names.n + jp->denied.n;
	if (!*n)
		return 0;
	*names = calloc(*n, sizeof(**names));
	if (!*names)
		return -ENOMEM;
	dnsallow_names(&jp->names, *names);
	dnsdeny_names(&jp->denied, *names + jp->names.n);
	return 0;
}

/* change_in_place() - the policy in force from @jp->rules to @next, only
 * the keys that differ (engine_change_policy()). Return: 0, -EOPNOTSUPP
 * (the engine takes only whole policies), or -errno (what was done stays
 * done). */
static int change_in_place(struct jail_policy *jp, const struct policy *next)
{
	struct policy_rule *set = NULL;
	struct policy_key *del = NULL;
	size_t n_set, n_del, set_tight, del_tight;
	int err = policy_changes(&jp->rules, next, &set, &n_set, &del, &n_del);

	if (err)
		return err;
	policy_tightening_first(&jp->rules, set, n_set, &set_tight, del, n_del, &del_tight);
	if (set_tight || del_tight)
		err = engine_change_policy(jp->engine, set, set_tight, del, del_tight);
	if (!err && (n_set > set_tight || n_del > del_tight))
		err = engine_change_policy(jp->engine, set + set_tight, n_set - set_tight,
					   del + del_tight, n_del - del_tight);
	free(set);
	free(del);
	return err;
}

/* compile() - the complete policy: the configuration in force, @host, the
 * temporary changes and the names' addresses. Return: 0 or -errno. */
static int compile(const struct jail_policy *jp, const struct hostnet *host, struct policy *next)
{
	struct policy_name *names;
	struct host_facts facts;
	size_t n;
	int err;

	hostnet_facts(host, jp->gateway, jp->dns_forward, &facts);
	if (names_view(jp, &names, &n))
		return -ENOMEM;
	err = policy_compile_jail(jp->cfg, &facts, jp->live.entries, jp->live.n, names, n, next);
	free(names);
	return err;
}

/* mark_refused() - which names' entries, from @first on, the policy in
 * force does not let through (policy_name_refusal() kept them out, or a
 * change failed): status shows only the others. From @first: an answer
 * changes only its own entries, and a look at every entry would cost each
 * answer the whole table. */
static void mark_refused(struct jail_policy *jp, size_t first)
{
	size_t i;

	for (i = first; i < jp->names.n; i++) {
		struct dnsallow_entry *e = &jp->names.v[i];
		long m = policy_lookup(&jp->rules, e->addr, htons(e->port));

		e->refused = m >= 0 && jp->rules.rules[m].value.action != JAIL_ALLOW;
	}
}

/* mark_held() - mark_refused() for an answer's entries, from @first on,
 * that the engine's change cap held back (names_add()'s -EAGAIN): not in
 * @jp->rules yet, so judged as the next second's tick will put them in
 * force. The record said "refused" for addresses the jail allowed a
 * second later, with nothing said: the user could not trust either. */
static void mark_held(struct jail_policy *jp, size_t first)
{
	size_t i;

	for (i = first; i < jp->names.n; i++) {
		struct dnsallow_entry *e = &jp->names.v[i];
		struct policy_name nm = { .addr = e->addr, .port = e->port, .name = e->name,
					  .wildcard = !e->exact };
		struct policy_rule r;
		long m;

		if (policy_name_rule(&jp->rules, &nm, jp->live.entries, jp->live.n, &r)) {
			e->refused = false; /* its rule comes at the tick */
			continue;
		}
		m = policy_lookup(&jp->rules, e->addr, htons(e->port));
		e->refused = m >= 0 && jp->rules.rules[m].value.action != JAIL_ALLOW;
	}
}

static void record(struct jail_policy *jp, const char *action, const char *change,
		   unsigned long uid)
{
	char line[AUDIT_LINE_MAX];
	struct timespec now;
	size_t len;

	if (!jp->audit || !audit_log_writable(jp->audit))
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	len = audit_format_policy(jp->id, action, change, uid, now, line, sizeof(line));
	audit_log_append(jp->audit, line, len);
}

/* flush_gained() - one record of what the blocks in place added since the
 * burst's first was recorded, if anything */
static void flush_gained(struct jail_policy *jp)
{
	char list[AUDIT_CHANGE_MAX - 40], change[AUDIT_CHANGE_MAX];

	if (!jp->gained_pending)
		return;
	if (live_rules_changes(&jp->gained_since, &jp->rules, list, sizeof(list))) {
		snprintf(change, sizeof(change), "host gained (blocked at once): %s", list);
		record(jp, "host", change, 0);
	}
	policy_free(&jp->gained_since);
	jp->gained_pending = false;
}

/* swap() - @next into the maps in one update, and into @jp->rules; on
 * failure @next is freed and the policy in force stays. Return: 0 or
 * -errno. */
static int swap(struct jail_policy *jp, struct policy *next)
{
	int err = engine_set_policy(jp->engine, next, jp->refused, sizeof(jp->refused));

	if (err && jp->refused[0])
		log_warn("%s refused the jail's policy: %s", engine_name(jp->engine), jp->refused);
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
	mark_refused(jp, 0);
	return 0;
}

int jail_policy_install(struct jail_policy *jp, const struct hostnet *host)
{
	struct policy next;
	int err;

	flush_gained(jp);
	/* Here, before the agent runs, not at the first answer: 130 KiB
	 * zeroed then would be page faults in the agent's first lookup (7 to
	 * 25 us each on a paravirtualized guest, a third of its time). NULL:
	 * no names, no harm. */
	if (!jp->seen)
		jp->seen = calloc(1, sizeof(*jp->seen));
	err = compile(jp, host, &next);
	return err ? err : swap(jp, &next);
}

void jail_policy_free(struct jail_policy *jp)
{
	flush_gained(jp); /* the jail ends before its burst's read */
	policy_free(&jp->rules);
	live_clear(&jp->live);
	dnsallow_free(&jp->names);
	dnsallow_free(&jp->denied);
	free(jp->seen);
	jp->seen = NULL;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int renew_kept(struct jail_policy *jp);

/* host_taken_in() - a whole policy put in force took in a change of the
 * host's networks (@list): as jail_policy_host_changed() does, the kept
 * flows judged again and a record */
static void host_taken_in(struct jail_policy *jp, const char *list)
{
	char change[AUDIT_CHANGE_MAX];

	renew_kept(jp);
	snprintf(change, sizeof(change), "host networks: %s", list);
	record(jp, "host", change, 0);
}

/* names_apply() - the names' addresses as they are now into the policy in
 * force: only the keys that change, in place (BPF: an answer waits for
 * this); where the engine takes only whole policies, or that fails, a
 * whole new policy; at the engine's cap (-EAGAIN), the next second's tick
 * if @may_wait, else a whole new policy now. Return: 0 or -errno (the
 * caller tries again: names_dirty). */
static int names_apply(struct jail_policy *jp, bool may_wait)
{
	char list[AUDIT_CHANGE_MAX - 16];
	struct hostnet host;
	struct policy next;
	bool host_moved;
	uint64_t second = monotonic_ns() / 1000000000ULL;
	int err;

	/* The cap came this second: the engine takes nothing more until the
	 * next (nftjail.c). Each answer of a flood would otherwise pay a
	 * netlink read, a whole compile and a diff, for nothing. */
	if (may_wait && jp->names_dirty && jp->capped_second == second)
		return -EAGAIN;
	flush_gained(jp);
	err = hostnet_read(&host);
	if (err)
		return err;
	err = compile(jp, &host, &next);
	hostnet_free(&host);
	if (err)
		return err;
	/* The read is fresh: a network the host gained a moment ago (a VPN
	 * that now routes an address a kept connection goes to) comes in
	 * here, before its notification is handled, and the host's paths
	 * then find nothing new to judge again or record. The attack: a
	 * flood of answers that keeps the names dirty, so that this compile
	 * takes the VPN's block in before the host watcher sees it. */
	host_moved = live_host_changes(&jp->rules, &next, list, sizeof(list)) ||
		     !policy_same_own(&jp->rules, &next);
	err = change_in_place(jp, &next);
	if (!err) {
		free(next.sources);
		next.sources = NULL;
		policy_free(&jp->rules);
		jp->rules = next;
		mark_refused(jp, 0);
	} else if (err == -EAGAIN && may_wait) {
		policy_free(&next); /* the engine's cap: the next second's tick */
		jp->capped_second = second;
	} else {
		err = swap(jp, &next);
	}
	jp->names_dirty = err != 0;
	if (!err && host_moved)
		host_taken_in(jp, list);
	return err;
}

/* names_stale() - after a change of the names' entries: said once when it
 * could not be put in force (names_dirty: tried again every second), and
 * once when it is again. Fails closed only while a removal is pending. */
static void names_stale(struct jail_policy *jp, int err)
{
	if (err == -EAGAIN && !jp->names_stale_logged)
		log_warn("jail %s: names answer new addresses faster than the engine takes them; "
			 "each second's are allowed at the next second's update, connections to "
			 "them denied until then", jp->id);
	else if (err && !jp->names_stale_logged)
		log_warn("jail %s: cannot update the addresses allowed by name (%s); trying again "
			 "every second", jp->id, strerror(-err));
	else if (!err && jp->names_stale_logged)
		log_info("jail %s: the addresses allowed by name are up to date again", jp->id);
	jp->names_stale_logged = err != 0;
	/* The records of held answers said "held": this one says when. */
	if (!err && !jp->names_dirty && jp->names_held) {
		jp->names_held = false;
		record(jp, "names", "the addresses answered while the engine's change cap held "
		       "them back are in force", 0);
	}
}

/* names_add() - the names' entries from @first on (an answer's new ones)
 * into the policy in force: their rules changed in place in one step and
 * then into @jp->rules (BPF: one map update each: an answer waits for
 * this, and a whole compile with every name grows with the table;
 * nftables: one small transaction); where the engine cannot, or a change
 * fails, names_apply(). Return: 0 or -errno (-EAGAIN: the engine's cap,
 * names_dirty: in force at the next second's tick). */
static int names_add(struct jail_policy *jp, size_t first)
{
	struct policy_rule *set;
	size_t i, n = 0;
	int err = 0;

	if (jp->names_dirty)
		return names_apply(jp, true);
	flush_gained(jp); /* its record must not take these for the host's */
	set = calloc(jp->names.n - first, sizeof(*set));
	if (!set)
		return names_apply(jp, true);
	/* Each rule judged with the ones before it in @jp->rules, as the
	 * compile judges them; taken out again if the engine fails. */
	for (i = first; i < jp->names.n && !err; i++) {
		const struct dnsallow_entry *e = &jp->names.v[i];
		struct policy_name nm = { .addr = e->addr, .port = e->port, .name = e->name,
					  .wildcard = !e->exact };

		if (!policy_name_rule(&jp->rules, &nm, jp->live.entries, jp->live.n, &set[n]))
			continue;
		err = policy_insert_rule(&jp->rules, &set[n]);
		n += !err;
	}
	if (!err && n)
		err = engine_change_policy(jp->engine, set, n, NULL, 0);
	if (err)
		for (i = 0; i < n; i++)
			policy_remove_name_rule(&jp->rules, &set[i].key);
	free(set);
	if (err == -EAGAIN) {
		jp->names_dirty = true;
		jp->capped_second = monotonic_ns() / 1000000000ULL;
		return err;
	}
	return err ? names_apply(jp, true) : 0;
}

/* twin_rule() - the rule the entry of the other strength for @gone's
 * address and port (dnsallow.h) gives, judged by the policy in force
 * without @gone's rule: true with @r if it opens what @gone did */
static bool twin_rule(const struct jail_policy *jp, const struct dnsallow_entry *gone,
		      struct policy_rule *r)
{
	size_t i;

	for (i = 0; i < jp->names.n; i++) {
		const struct dnsallow_entry *e = &jp->names.v[i];
		struct policy_name nm = { .addr = e->addr, .port = e->port, .name = e->name,
					  .wildcard = !e->exact };

		if (e->addr == gone->addr && e->port == gone->port)
			return policy_name_rule(&jp->rules, &nm, jp->live.entries, jp->live.n, r);
	}
	return false;
}

/* names_forget() - expired entries @gone (@n of them) out of the policy in
 * force: for BPF, their rules deleted in place (a name's key is never a
 * block's, policy_name_rule(): what is left is the policy without them, and
 * no compile or netlink read can fail in between) unless the other
 * strength's entry still opens it (an exact name's LAN address that a
 * wildcard answer also gave is closed when the exact entry expires); else,
 * or if that fails, names_apply(). Return: 0 or -errno. */
static int names_forget(struct jail_policy *jp, const struct dnsallow_entry *gone, size_t n)
{
	struct policy_rule r, *removed;
	struct policy_key *del;
	size_t i, n_del = 0;
	int err = 0;

	if (jp->names_dirty)
		return names_apply(jp, true);
	flush_gained(jp); /* its record must not take these for the host's */
	del = calloc(n ? n : 1, sizeof(*del));
	removed = calloc(n ? n : 1, sizeof(*removed));
	if (!del || !removed) {
		free(del);
		free(removed);
		return names_apply(jp, true);
	}
	for (i = 0; i < n && !err; i++) {
		struct policy_key key = {
			.prefixlen = gone[i].port ? POLICY_PREFIXLEN_PORT : 32, .addr = gone[i].addr,
			.port = gone[i].port ? htons(gone[i].port) : 0 };
		const struct policy_rule *was = policy_rule_at(&jp->rules, &key);

		if (!was || was->value.reason != REASON_ALLOW_HOST)
			continue; /* it was never in (refused, or allowed anyway) */
		removed[n_del] = *was;
		policy_remove_name_rule(&jp->rules, &key);
		if (twin_rule(jp, &gone[i], &r)) /* the same rule: the trie keeps it */
			err = policy_insert_rule(&jp->rules, &r);
		else
			del[n_del++] = key;
	}
	if (!err && n_del)
		err = engine_change_policy(jp->engine, NULL, 0, del, n_del);
	/* Not out of the engine: back into @jp->rules, so that the change
	 * names_apply() makes takes them out. */
	for (i = 0; err && i < n_del; i++)
		policy_set_rule(&jp->rules, &removed[i]);
	free(del);
	free(removed);
	if (err == -EAGAIN) {
		jp->names_dirty = true;
		jp->capped_second = monotonic_ns() / 1000000000ULL;
		return err;
	}
	return err ? names_apply(jp, true) : 0;
}

/* audit_names() - one dns record per port for @name's new entries, from
 * @first on: what they allowed, and what they could not, and the CNAMEs
 * of answer @a on the way */
static void audit_names(struct jail_policy *jp, const char *name, const struct dns_answer *a,
			size_t first, bool held)
{
	uint32_t allowed[DNS_ADDRS_MAX], refused[DNS_ADDRS_MAX];
	char line[AUDIT_DNS_LINE_MAX];
	struct timespec wall;
	size_t i, k, n_allowed, n_refused;

	if (!jp->audit || !audit_log_writable(jp->audit))
		return;
	clock_gettime(CLOCK_REALTIME, &wall);
	for (i = first; i < jp->names.n; i++) {
		const struct dnsallow_entry *e = &jp->names.v[i];

		if (i > first && jp->names.v[i - 1].port == e->port)
			continue; /* this port's record is written */
		n_allowed = n_refused = 0;
		for (k = i; k < jp->names.n && n_allowed + n_refused < DNS_ADDRS_MAX; k++) {
			const struct dnsallow_entry *x = &jp->names.v[k];

			if (x->port != e->port)
				continue;
			if (x->refused)
				refused[n_refused++] = x->addr;
			else
				allowed[n_allowed++] = x->addr;
		}
		audit_log_hold(jp->audit, line,
			       audit_format_dns(jp->id, name, a, e->port, allowed, n_allowed, refused,
						n_refused, held, dnsallow_lifetime(e->ttl), wall,
						line, sizeof(line)));
	}
}

/* deny_learned() - a deny-host name's answer (the forwarder's own query,
 * DNSFWD_LEARN): its addresses blocked for the answer's TTL, so that
 * another name's answer that gives them (a CDN, a second name of the
 * same host) opens nothing: an allow-host name sharing an address loses to
 * the deny, an allow-ip wins over it (policy_compile_jail()). A whole new
 * policy: at most a few names a second (supervisor.c). */
static void deny_learned(struct jail_policy *jp, const char *name, const struct dns_answer *a)
{
	char change[AUDIT_CHANGE_MAX], addr[NETADDR_CIDR_STRLEN];
	struct textbuf o = { change, sizeof(change), 0, true };
	size_t added = 0, i;
	int err = dnsdeny_record(&jp->denied, name, a->addrs, a->n, a->ttl, monotonic_ns(), &added);

	if (err && !jp->denied_full_logged) {
		log_warn("jail %s: %s's addresses cannot all be blocked: %s (at most %u addresses "
			 "by deny-host)", jp->id, name, strerror(-err), DNSALLOW_MAX_ENTRIES);
		jp->denied_full_logged = true;
	}
	if (!added)
		return;
	/* Not after the engine's cap (names_apply() waits for it): the
	 * agent's flood of answers must not hold a block back. */
	err = names_apply(jp, false);
	names_stale(jp, err);
	/* A connection kept by name to one of them (opened through another
	 * name before the deny-host name was asked) is judged again: cut. */
	if (!err)
		renew_kept(jp);
	textbuf_put(&o, "%s blocked for %u s:", name, dnsallow_lifetime(a->ttl));
	for (i = 0; i < a->n; i++) {
		netaddr_format(a->addrs[i], addr);
		textbuf_put(&o, " %s", addr);
	}
	record(jp, "deny-host", change, 0);
}

/* answer_denied() - does a deny-host pattern match @name, or a name its
 * answer's CNAMEs led to? The attack: an allowed name of the agent's own
 * (x.attacker.test, or any name under an allowed wildcard) as a CNAME
 * of the denied one gets the denied name's addresses. */
static bool answer_denied(const struct config *cfg, const char *name, const struct dns_answer *a)
{
	size_t i;

	for (i = 0; i < a->n_cname; i++)
		if (dnsallow_denied(cfg, a->cname[i]))
			return true;
	return dnsallow_denied(cfg, name);
}

void jail_policy_dns_answer(struct jail_policy *jp, const struct dns_question *q,
			    const struct dns_answer *a)
{
	bool outside_zone = false;
	size_t added = 0, i;
	int err;

	/* Only host names: under a wildcard the agent picks the labels,
	 * and one holding a newline or a terminal escape would reach the
	 * status file, the log and the user's terminal. Such a name
	 * resolves as any other and allows nothing. */
	if (!a->n || !dnsmsg_name_is_host(q->name))
		return;
	if (jp->seen)
		dns_seen_add(jp->seen, q->name, a->addrs, a->n);
	if (answer_denied(jp->cfg, q->name, a)) {
		deny_learned(jp, q->name, a); /* the deny wins over an allow-host */
		return;
	}
	if (!dnsallow_wanted(jp->cfg, q->name))
		return;
	for (i = 0; i < a->n_cname; i++)
		outside_zone |= !dnsmsg_in_zone(q->name, a->cname[i]);
	err = dnsallow_record(&jp->names, jp->cfg, q->name, a->addrs, a->n, outside_zone, a->ttl,
			      monotonic_ns(), &added);
	if (err && !jp->names_full_logged) {
		log_warn("jail %s: %s's addresses cannot all be allowed: %s (at most %u addresses "
			 "by name); connections to the rest are denied", jp->id, q->name,
			 strerror(-err), DNSALLOW_MAX_ENTRIES);
		jp->names_full_logged = true;
	}
	if (a->truncated_list && !jp->names_cut_logged) { /* once: answers are the agent's */
		log_warn("jail %s: %s has more than %u addresses; the rest are not allowed", jp->id,
			 q->name, DNS_ADDRS_MAX);
		jp->names_cut_logged = true;
	}
	if (!added)
		return; /* renewed: the policy already holds them */
	/* The answer is released when this returns: the addresses must be
	 * in force by then. */
	err = names_add(jp, jp->names.n - added);
	if (err == -EAGAIN) /* a flood of answers: said once */
		names_stale(jp, err);
	else if (err)
		log_warn("jail %s: cannot allow %s's addresses (%s); connections to them are denied "
			 "until it works", jp->id, q->name, strerror(-err));
	if (err == -EAGAIN)
		mark_held(jp, jp->names.n - added);
	else
		mark_refused(jp, err ? 0 : jp->names.n - added);
	jp->names_first = jp->names.n - added;
	jp->names_unrecorded = true;
	jp->names_unrecorded_held = err == -EAGAIN;
	jp->names_held |= err == -EAGAIN;
}

void jail_policy_dns_released(struct jail_policy *jp, const struct dns_question *q,
			      const struct dns_answer *a)
{
	if (!jp->names_unrecorded)
		return;
	jp->names_unrecorded = false;
	audit_names(jp, q->name, a, jp->names_first, jp->names_unrecorded_held);
}

size_t jail_policy_denied_due(struct jail_policy *jp, char (*names)[DNS_NAME_MAX + 1],
			      size_t max)
{
	return dnsdeny_due(&jp->denied, monotonic_ns(), JAIL_DENY_ASK_AHEAD_NS, names, max);
}

void jail_policy_expire_names(struct jail_policy *jp)
{
	struct dnsallow_entry *gone = NULL;
	size_t n = 0;
	int err = 0;

	/* A deny-host block whose time is up: the rest of the names with
	 * it, in a whole new policy (rare, as the blocks are). */
	if (dnsallow_expire(&jp->denied, monotonic_ns(), &gone, &n) > 0)
		jp->names_dirty = true;
	free(gone);
	gone = NULL;
	n = 0;
	if (dnsallow_expire(&jp->names, monotonic_ns(), &gone, &n) < 0)
		err = -ENOMEM; /* nothing removed: again next time */
	else if (n || jp->names_dirty)
		err = names_forget(jp, gone, n);
	/* What the entries left show: one that only its twin's rule opened
	 * (a wildcard's LAN address) is refused now. */
	if (n)
		mark_refused(jp, 0);
	free(gone);
	names_stale(jp, err);
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

/* renew_alone() - a new generation of kept flows, after a change that
 * blocked something: the connections allowed by name are judged again
 * (BPF: one array write; nftables: a new conntrack mark, in place). The
 * attack: a wildcard's connected UDP socket to X (an internet address
 * then) goes on to whatever a VPN that now routes X answers there.
 * Return: 0 (also where nothing can be kept by name) or -errno (logged). */
static int renew_alone(struct jail_policy *jp)
{
	int err = engine_renew_kept(jp->engine);

	return err == -EOPNOTSUPP ? 0 : err;
}

/* renew_kept() - `deny` and reload re-judge the connections allowed by
 * name (bpf/ebpfjail.h): a new generation of kept flows. The attack: an
 * agent that opened a connection by name would go on sending through it
 * after its user denied the address. Also when no allow-host line was in
 * force: a connection kept while a stale name was still in the policy (a
 * failed names_apply()) is cut by the next reload or deny too. Where the
 * new policy has no allow-host line, nftables has no kept chain (nothing
 * passes by its mark: a reload that takes away the last line cuts what
 * it opened) and nothing to renew.
 * Return: 0 or -errno (logged): the caller's reply says so. */
static int renew_kept(struct jail_policy *jp)
{
	int err = renew_alone(jp);

	if (err)
		log_warn("jail %s: connections allowed by name could not be judged again (%s)", jp->id,
			 strerror(-err));
	return err;
}

/* NOT_CUT - what a reply says when the policy changed but renew_kept()
 * failed: a user told "denied" would trust that a connection by name to
 * the address is cut, and it may go on. */
#define NOT_CUT "; but connections opened by name before could not be judged again (%s): " \
		"they may go on until they close or the jail is stopped"

int jail_policy_host_changed(struct jail_policy *jp)
{
	char list[AUDIT_CHANGE_MAX - 16], change[AUDIT_CHANGE_MAX];
	struct hostnet host;
	struct policy next;
	int err;

	flush_gained(jp); /* the burst's blocks in place first, then the read */
	err = hostnet_read(&host);
	if (!err) {
		err = compile(jp, &host, &next);
		hostnet_free(&host);
	}
	if (!err && !live_rules_changes(&jp->rules, &next, list, sizeof(list)) &&
	    policy_same_own(&jp->rules, &next)) {
		/* Nothing the policy holds changed (an address's lifetime
		 * renewed, the default route moved): nothing to swap. */
		policy_free(&next);
	} else if (!err) {
		err = swap(jp, &next);
		if (!err)
			renew_alone(jp);
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

int jail_policy_host_gained(struct jail_policy *jp, const struct hostnet *gained)
{
	char list[AUDIT_CHANGE_MAX - 40], change[AUDIT_CHANGE_MAX];
	struct policy_name *names;
	struct host_facts facts;
	struct policy next;
	size_t n;
	int err;

	hostnet_facts(gained, 0, 0, &facts);
	if (names_view(jp, &names, &n))
		return -ENOMEM;
	err = policy_copy(&jp->rules, &next);
	if (err) {
		free(names);
		return err; /* policy_copy() freed @next */
	}
	err = policy_block_gained(&next, &facts, names, n, jp->live.entries, jp->live.n);
	free(names);
	if (err <= 0) {
		policy_free(&next);
		return err;
	}
	/* Empty when only own prefixes came (no key changed). */
	live_rules_changes(&jp->rules, &next, list, sizeof(list));
	/* Only the keys that change, each in place (BPF's trie holds the old
	 * policy or one step more of the new, every step a tightening: blocks
	 * first, then the names' rules that go); a change the engine can
	 * make only whole swaps. A block never waits for the engine's cap on
	 * changes (-EAGAIN: a whole policy now). Either way the kept flows
	 * are judged again after it (renew_alone()). */
	err = change_in_place(jp, &next);
	if (err == -EAGAIN)
		err = -EOPNOTSUPP;
	if (err != -EOPNOTSUPP) {
		if (err) {
			/* The trie may be one step ahead of jp->rules (only
			 * tighter): names go through a whole compile until the
			 * full read puts them in step again, so no answer is
			 * judged against the copy that lacks the new blocks. */
			jp->names_dirty = true;
			policy_free(&next);
			return err;
		}
		/* Kept flows judged again at once, before anything else:
		 * until then one to a newly blocked address still passes. */
		if (renew_alone(jp))
			jp->names_dirty = true; /* logged; the next reload or deny renews */
		policy_free(&jp->rules);
		jp->rules = next;
		mark_refused(jp, 0);
	} else {
		err = swap(jp, &next);
		if (err)
			return err;
		if (renew_alone(jp))
			jp->names_dirty = true; /* logged; the next reload or deny renews */
	}
	log_debug("jail %s: host gained (blocked at once): %s", jp->id, list);
	/* The burst's first change is recorded now, the rest together
	 * before the next whole policy (flush_gained()). */
	if (!jp->gained_pending && list[0]) {
		snprintf(change, sizeof(change), "host gained (blocked at once): %s", list);
		record(jp, "host", change, 0);
		jp->gained_pending = !policy_copy(&jp->rules, &jp->gained_since);
	}
	return 0;
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
	struct dnsallow names = jp->names, kept = { 0 }, denied, kept_denied = { 0 };
	size_t added, removed, i, len;
	int err, renewed;

	flush_gained(jp); /* against the rules in force, before they are set aside
			   * (install_now() would compare with none) */
	config_init(&next);
	jp->sources.read(&next, jp->sources.ctx, jp->agent_uid);
	if (!config_ok(&next)) {
		char hint[1024];

		jp->sources.trust_hint(&next, jp->sources.ctx, jp->agent_uid, hint, sizeof(hint));
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
	/* Names a pattern no longer gives go, and names only a wildcard gives
	 * now lose their exact strength, in the policy installed (a copy of
	 * the table until it is): compiled from the table as it was, the new
	 * policy would open a deleted name's LAN address until a second
	 * compile, and for good if that one failed. */
	denied = jp->denied;
	err = dnsallow_copy(&names, &kept);
	if (!err)
		err = dnsallow_copy(&denied, &kept_denied);
	if (err) {
		dnsallow_free(&kept);
		config_free(&next);
		reply_error(reply, size, jp->id, "cannot install the new policy (%s); the running "
			    "policy is unchanged\n", strerror(-err));
		return;
	}
	dnsallow_keep_configured(&kept, &next);
	dnsdeny_keep_configured(&kept_denied, &next); /* a deny-host line gone */
	/* Install the new configuration with no temporary changes; put all
	 * back if that fails. */
	jp->rules = (struct policy){ 0 };
	jp->live = (struct live_changes){ 0 };
	jp->names = kept;
	jp->denied = kept_denied;
	*prev = next;
	err = install_now(jp);
	if (err) {
		*prev = saved;
		jp->live = live;
		jp->rules = before;
		jp->names = names;
		jp->denied = denied;
		dnsallow_free(&kept);
		dnsallow_free(&kept_denied);
		config_free(&next);
		reply_error(reply, size, jp->id, "cannot install the new policy (%s); the running "
			    "policy is unchanged\n", strerror(-err));
		return;
	}
	dnsallow_free(&names);
	dnsallow_free(&denied);
	jp->names_dirty = false; /* the whole policy, names and all, is in force */
	names_stale(jp, 0);
	/* Open connections by name are judged by the new policy. */
	renewed = renew_kept(jp);
	live_rules_diff(&before, &jp->rules, &added, &removed);
	live_config_diff(&saved, &next, changes, sizeof(changes), restart, sizeof(restart));
	snprintf(line, sizeof(line), "%s%s%zu rules added, %zu removed%s%s%s", changes,
		 changes[0] ? "; " : "", added, removed,
		 live.n ? "; temporary allow/deny dropped" : "",
		 restart[0] ? "; needs a restart: " : "", restart);
	if (renewed)
		reply_error(reply, size, jp->id, "reloaded: %s" NOT_CUT "\n", line, strerror(-renewed));
	else
		snprintf(reply, size, "ok jail %s: reloaded: %s\n", jp->id, line);
	len = strlen(reply);
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
	/* In place where the engine can (nftables: one small transaction
	 * for the address, where a whole ruleset with every name's element
	 * took 0.2 s), never after its cap: the user's deny must not wait
	 * behind the agent's flood of answers. */
	if (!err)
		err = names_apply(jp, false);
	if (err) {
		live_clear(&jp->live);
		jp->live = saved;
		reply_error(reply, size, jp->id, "cannot change the policy (%s); it is unchanged\n",
			    strerror(-err));
		return;
	}
	live_clear(&saved);
	/* A connection by name to it is cut too. The deny itself is in
	 * force either way: never taken back for this. */
	err = allow ? 0 : renew_kept(jp);
	if (err)
		reply_error(reply, size, jp->id, "denied %s for new connections" NOT_CUT "\n", target,
			    strerror(-err));
	else
		snprintf(reply, size, "ok jail %s: %s %s until the jail ends or the next reload\n",
			 jp->id, allow ? "allowed" : "denied", target);
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
