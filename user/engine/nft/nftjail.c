// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nftjail.c - the rootless engine in a running jail: rules, denials,
 * aggregation (nftjail.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#include "netns.h"
#include "nflog.h"
#include "nftjail.h"
#include "nftrules.h"

/* An NFLOG read takes at most this many messages before the loop moves on
 * (the relays and the control socket wait meanwhile). */
#define NFTJAIL_POLL_MAX 4096

static int open_in_ns(void *arg)
{
	int *fd = arg;

	*fd = nflog_open(NFTRULES_LOG_GROUP);
	return *fd < 0 ? *fd : 0;
}

int nftjail_open(struct nftjail *nj, int ns_fd, engine_event_fn on_event, void *ctx,
		 uint64_t window_ns)
{
	int err, fd = -1;

	memset(nj, 0, sizeof(*nj));
	nj->ns_fd = ns_fd;
	nj->nflog_fd = -1;
	nj->on_event = on_event;
	nj->ctx = ctx;
	nj->window_ns = window_ns ? window_ns : DENIAL_WINDOW_NS;
	nj->slots = calloc(DENIALS_MAX_ENTRIES, sizeof(*nj->slots));
	if (!nj->slots)
		return -ENOMEM;
	err = netns_run(ns_fd, open_in_ns, &fd);
	if (err) {
		nftjail_close(nj);
		return err;
	}
	nj->nflog_fd = fd;
	return 0;
}

struct engine_call {
	struct nftengine *engine;
	const struct policy *policy;
	uint64_t *denied;
	char *why;
	size_t why_size;
};

static int denied_in_ns(void *arg)
{
	struct engine_call *c = arg;

	return nftengine_denied(c->engine, c->denied, c->why, c->why_size);
}

static int apply_in_ns(void *arg)
{
	struct engine_call *c = arg;

	return nftengine_apply(c->engine, c->policy, c->why, c->why_size);
}

int nftjail_set_policy(struct nftjail *nj, const struct policy *p, char *why, size_t why_size)
{
	uint64_t denied[REASON_COUNT];
	struct engine_call c = { .engine = &nj->engine, .policy = p, .denied = denied,
				.why = why, .why_size = why_size };
	struct policy copy;
	unsigned int r;
	int err;

	if (policy_copy(p, &copy))
		return -ENOMEM;
	/* The counters go with the old generation's table: kept first. A
	 * denial between this read and the new table is not in them, and
	 * can only be taken for lost, never counted twice. */
	err = netns_run(nj->ns_fd, denied_in_ns, &c);
	if (!err)
		err = netns_run(nj->ns_fd, apply_in_ns, &c);
	if (err) {
		policy_free(&copy);
		return err;
	}
	for (r = 0; r < REASON_COUNT; r++) {
		nj->denied_before[r] += denied[r];
		nj->denied_now[r] = 0;
	}
	policy_free(&nj->in_force);
	nj->in_force = copy;
	nj->in_force_valid = true;
	return 0;
}

struct change_call {
	struct nftjail *nj;
	const struct policy_rule *set;
	size_t n_set;
	const struct policy_key *del;
	size_t n_del;
	char why[256];
};

static int change_in_ns(void *arg)
{
	struct change_call *c = arg;

	return nftengine_change(&c->nj->engine, &c->nj->in_force, c->set, c->n_set, c->del,
				c->n_del, c->why, sizeof(c->why));
}

static int renew_in_ns(void *arg)
{
	struct change_call *c = arg;

	return nftengine_renew(&c->nj->engine, c->why, sizeof(c->why));
}

int nftjail_renew_kept(struct nftjail *nj)
{
	struct change_call c = { .nj = nj };
	int err = netns_run(nj->ns_fd, renew_in_ns, &c);

	if (err && err != -EOPNOTSUPP)
		log_warn("nftables: cannot judge the connections kept by name again: %s",
			 c.why[0] ? c.why : strerror(-err));
	return err;
}

static time_t monotonic_second(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

int nftjail_change_policy(struct nftjail *nj, const struct policy_rule *set, size_t n_set,
			  const struct policy_key *del, size_t n_del)
{
	struct change_call c = { .nj = nj, .set = set, .n_set = n_set, .del = del, .n_del = n_del };
	time_t second = monotonic_second();
	size_t i;
	int err;

	if (!nj->in_force_valid)
		return -EOPNOTSUPP;
	if ((uint64_t)second != nj->change_second) {
		nj->change_second = (uint64_t)second;
		nj->changes = 0;
	}
	/* The attack: an agent whose own name server answers each query
	 * with fresh addresses under an allowed wildcard keeps the
	 * supervisor changing the rules, and the user's `deny` waits behind it. */
	if (nj->changes >= NFTJAIL_CHANGES_PER_SECOND)
		return -EAGAIN;
	err = netns_run(nj->ns_fd, change_in_ns, &c);
	if (err == -EOPNOTSUPP)
		return err; /* nothing done */
	nj->changes++;
	for (i = 0; !err && i < n_set; i++)
		err = policy_set_rule(&nj->in_force, &set[i]);
	for (i = 0; !err && i < n_del; i++)
		policy_remove_rule(&nj->in_force, &del[i]);
	if (err) {
		/* What is in force is not known now: whole policies only. */
		nj->in_force_valid = false;
		log_warn("nftables: cannot change the jail's rules in place: %s",
			 c.why[0] ? c.why : strerror(-err));
	}
	return err;
}

int nftjail_events_fd(const struct nftjail *nj)
{
	return nj->nflog_fd;
}

/* key_hash() - FNV-1a over the whole key (its padding is always 0) */
static size_t key_hash(const struct denial_key *k)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return (size_t)h;
}

/* find_slot() - @k's slot, or the free one where it would go, or NULL when
 * the table is full and @k is not in it */
static struct nftjail_slot *find_slot(struct nftjail *nj, const struct denial_key *k)
{
	size_t i = key_hash(k) % DENIALS_MAX_ENTRIES, n;

	for (n = 0; n < DENIALS_MAX_ENTRIES; n++, i = (i + 1) % DENIALS_MAX_ENTRIES) {
		struct nftjail_slot *s = &nj->slots[i];

		if (!s->used || !memcmp(&s->key, k, sizeof(*k)))
			return s;
	}
	return NULL;
}

static void key_of(const struct jail_event *e, struct denial_key *k)
{
	memset(k, 0, sizeof(*k));
	k->daddr = e->daddr;
	k->dport = e->dport;
	k->proto = e->proto;
	k->hook = e->hook;
	k->reason = e->reason;
	k->rule_prefixlen = e->rule_prefixlen;
	k->family = e->family;
	if (e->reason == REASON_IPV6)
		memcpy(k->daddr6, e->daddr6, sizeof(k->daddr6));
}

/* aggregate() - an nflog_event_fn: one denial, as the BPF programs' record_denial() */
static int aggregate(void *ctx, const struct jail_event *e)
{
	struct nftjail *nj = ctx;
	uint64_t window = 1 + e->time_ns / nj->window_ns;
	struct nftjail_slot *s;
	struct denial_key k;

	if (e->reason >= REASON_COUNT)
		return 0;
	key_of(e, &k);
	s = find_slot(nj, &k);
	if (s && s->used && s->tally.window == window) {
		s->tally.repeats++;
		s->tally.last_ns = e->time_ns;
		return 0;
	}
	/* A new key, or its first denial in this window: an event. With
	 * the table full (more kinds than the kernel's map holds) a new key
	 * is an event each time, as a key the kernel could not keep. */
	if (s) {
		if (!s->used) {
			s->used = true;
			s->key = k;
			s->tally.first_ns = e->time_ns;
			nj->n_used++;
		}
		s->tally.window = window;
		s->tally.last_ns = e->time_ns;
		s->tally.uid = e->uid;
		s->tally.gid = e->gid;
	}
	nj->events[e->reason]++;
	return nj->on_event ? nj->on_event(nj->ctx, e) : 0;
}

int nftjail_events_poll(struct nftjail *nj)
{
	uint64_t overflows = nj->overflows;
	int n;

	if (nj->nflog_fd < 0)
		return 0;
	n = nflog_read(nj->nflog_fd, NFTJAIL_POLL_MAX, aggregate, nj, &nj->overflows);
	if (n > 0 || nj->overflows != overflows)
		nj->seen = true;
	return n;
}

int nftjail_read_counters(struct nftjail *nj, enum engine_counters which,
			  __u64 c[COUNTER_SLOTS])
{
	struct engine_call call = { .engine = &nj->engine, .denied = nj->denied_now };
	__u64 *row = c + HOOK_NFT_OUTPUT * COUNTER_STRIDE;
	unsigned int r, i;

	memset(c, 0, COUNTER_SLOTS * sizeof(*c));
	/* Every denial is logged, or rate-limited while others of that
	 * second are: nothing read since the last time, nothing to count.
	 * An idle jail costs no nft listing. */
	if (nj->seen || which == ENGINE_COUNTERS_FINAL) {
		int err = netns_run(nj->ns_fd, denied_in_ns, &call);

		if (err)
			return err;
		nj->seen = false;
	}
	/* The messages of every denial counted before the last read are
	 * queued by now: read them (a bounded number of times: a flood can
	 * keep the socket full, and its last ones are then taken for lost). */
	for (i = 0; i < 64 && nftjail_events_poll(nj) >= NFTJAIL_POLL_MAX; i++)
		;
	for (r = REASON_FIRST_DENY; r < REASON_COUNT; r++) {
		uint64_t now = nj->denied_before[r] + nj->denied_now[r];

		row[r] = which == ENGINE_COUNTERS_SETTLED ? nj->denied_given[r] : now;
		row[COUNTER_EVENTS(r)] = nj->events[r];
		if (which == ENGINE_COUNTERS_SETTLED)
			nj->denied_given[r] = now;
	}
	return 0;
}

int nftjail_read_denials(const struct nftjail *nj, engine_denial_fn fn, void *ctx)
{
	size_t i;

	for (i = 0; i < DENIALS_MAX_ENTRIES; i++)
		if (nj->slots[i].used && nj->slots[i].tally.repeats)
			fn(ctx, &nj->slots[i].key, &nj->slots[i].tally);
	return 0;
}

void nftjail_close(struct nftjail *nj)
{
	if (nj->nflog_fd >= 0)
		close(nj->nflog_fd);
	nj->nflog_fd = -1;
	free(nj->slots);
	nj->slots = NULL;
	policy_free(&nj->in_force);
	nj->in_force_valid = false;
}
