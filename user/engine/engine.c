// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* engine.c - one face for both engines (engine.h): each call goes to the
 * engine's own, or is a stub that says what the engine cannot do */
#include <errno.h>
#include <stdlib.h>

#include "engine.h"

struct engine {
	const struct engine_ops *ops;
	void *impl;
};

int engine_open(enum engine_kind kind, const struct engine_options *o, struct engine **out,
		char *why, size_t why_size)
{
	const struct engine_ops *ops = kind == ENGINE_KIND_BPF ? &engine_bpf_ops : &engine_nft_ops;
	struct engine *e;
	int err;

	*out = NULL;
	if (why_size)
		why[0] = '\0';
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->ops = ops;
	err = ops->open(o, &e->impl, why, why_size);
	if (err) {
		free(e);
		return err;
	}
	*out = e;
	return 0;
}

const char *engine_name(const struct engine *e)
{
	return e->ops->name;
}

int engine_set_policy(struct engine *e, const struct policy *p, char *why, size_t why_size)
{
	if (why_size)
		why[0] = '\0';
	return e->ops->set_policy(e->impl, p, why, why_size);
}

int engine_change_policy(struct engine *e, const struct policy_rule *set, size_t n_set,
			 const struct policy_key *del, size_t n_del)
{
	if (!e->ops->change_policy)
		return -EOPNOTSUPP;
	return e->ops->change_policy(e->impl, set, n_set, del, n_del);
}

int engine_renew_kept(struct engine *e)
{
	return e->ops->renew_kept ? e->ops->renew_kept(e->impl) : -EOPNOTSUPP;
}

int engine_attach_in_ns(struct engine *e, int tap_ifindex)
{
	return e->ops->attach_in_ns ? e->ops->attach_in_ns(e->impl, tap_ifindex) : 0;
}

bool engine_has_unix_hooks(struct engine *e)
{
	return e->ops->has_unix_hooks && e->ops->has_unix_hooks(e->impl);
}

int engine_events_fd(const struct engine *e)
{
	return e->ops->events_fd(e->impl);
}

int engine_events_poll(struct engine *e)
{
	return e->ops->events_poll(e->impl);
}

int engine_read_counters(struct engine *e, enum engine_counters which, __u64 c[COUNTER_SLOTS])
{
	return e->ops->read_counters(e->impl, which, c);
}

int engine_read_denials(struct engine *e, engine_denial_fn fn, void *ctx)
{
	return e->ops->read_denials(e->impl, fn, ctx);
}

void engine_close(struct engine *e)
{
	if (!e)
		return;
	e->ops->close(e->impl);
	free(e);
}
