// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* loader.c - load the jail's BPF programs, fill the policy, attach, read events
 *
 * The only file that includes the generated skeleton. Ownership: struct
 * jail_bpf owns the skeleton (programs, maps, cgroup links), the TC hook it
 * attached, and the ring buffer reader; loader_close() releases all three,
 * which detaches every program.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ebpfjail.skel.h"
#include "loader.h"
#include "log.h"

struct jail_bpf {
	struct ebpfjail *skel;
	struct ring_buffer *ringbuf;
	loader_event_fn on_event;
	void *ctx;
	struct bpf_tc_hook tc_hook;
	struct bpf_tc_opts tc_opts;
	bool tc_attached, tc_hook_created;
	int cgroup_fd; /* where the socket hooks are attached, or -1 */
	unsigned int budget; /* events left in this loader_events_poll() */
};

/* Events handed over per loader_events_poll(): an agent that floods denials
 * faster than the audit log is written would otherwise keep the supervisor
 * in one poll for ever, and `ebpfjail reload/deny`, relays and signals
 * would starve. The rest waits for the next round of the event loop (the
 * ring buffer's fd stays readable). */
#define EVENTS_PER_POLL 4096

static int handle_event(void *ctx, void *data, size_t size)
{
	struct jail_bpf *jail = ctx;
	int err;

	if (size < sizeof(struct jail_event))
		return 0; /* not ours: the ABI header is the only producer */
	err = jail->on_event ? jail->on_event(jail->ctx, data) : 0;
	if (!err && --jail->budget == 0)
		return -EAGAIN; /* libbpf: this one is consumed, stop here */
	return err;
}

int loader_open(const struct loader_options *opts, struct jail_bpf **out)
{
	struct jail_bpf *jail;
	int err;

	libbpf_set_print(log_libbpf);
	jail = calloc(1, sizeof(*jail));
	if (!jail)
		return -ENOMEM;
	jail->cgroup_fd = -1;
	if (opts) {
		jail->on_event = opts->on_event;
		jail->ctx = opts->ctx;
	}
	jail->skel = ebpfjail__open();
	if (!jail->skel) {
		err = log_err(-errno, "cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	if (opts && opts->tc_sample_interval_ns)
		jail->skel->rodata->tc_sample_interval_ns = opts->tc_sample_interval_ns;
	err = ebpfjail__load(jail->skel);
	if (err) {
		log_err(err, "the kernel refused the BPF programs: %s (run with -v for the verifier log)",
			strerror(-err));
		goto fail;
	}
	jail->ringbuf = ring_buffer__new(bpf_map__fd(jail->skel->maps.events), handle_event, jail,
					 NULL);
	if (!jail->ringbuf) {
		err = log_err(-errno, "cannot read the event ring buffer: %s", strerror(errno));
		goto fail;
	}
	*out = jail;
	return 0;
fail:
	loader_close(jail);
	return err;
}

int loader_set_policy(struct jail_bpf *jail, const struct policy_rule *rules, size_t n)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	__u32 zero = 0;
	size_t i;
	int trie_fd, err = 0;

	if (n > POLICY_MAX_ENTRIES)
		return log_err(-E2BIG, "the policy has %zu entries, at most %u fit", n,
			       POLICY_MAX_ENTRIES);
	trie_fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "jail_policy", sizeof(struct policy_key),
				 sizeof(struct policy_value), POLICY_MAX_ENTRIES, &opts);
	if (trie_fd < 0)
		return log_err(-errno, "cannot create the policy map: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		if (bpf_map_update_elem(trie_fd, &rules[i].key, &rules[i].value, BPF_ANY)) {
			err = log_err(-errno, "cannot fill the policy map: %s", strerror(errno));
			goto out;
		}
	}
	/* The swap: one update of the outer slot. The outer map holds its own
	 * reference to the trie, so closing our fd below keeps it alive; the
	 * old trie is freed once no program uses it any more (RCU). */
	if (bpf_map_update_elem(bpf_map__fd(jail->skel->maps.policy_outer), &zero, &trie_fd,
				BPF_ANY))
		err = log_err(-errno, "cannot install the policy: %s", strerror(errno));
out:
	close(trie_fd);
	return err;
}

static const struct {
	enum bpf_attach_type type;
	size_t prog_offset;
	const char *name;
} cgroup_hooks[] = {
	{ BPF_CGROUP_INET4_CONNECT, offsetof(struct ebpfjail, progs.jail_connect4), "connect4" },
	{ BPF_CGROUP_UDP4_SENDMSG, offsetof(struct ebpfjail, progs.jail_sendmsg4), "sendmsg4" },
	{ BPF_CGROUP_INET6_CONNECT, offsetof(struct ebpfjail, progs.jail_connect6), "connect6" },
	{ BPF_CGROUP_UDP6_SENDMSG, offsetof(struct ebpfjail, progs.jail_sendmsg6), "sendmsg6" },
};

#define N_CGROUP_HOOKS (sizeof(cgroup_hooks) / sizeof(cgroup_hooks[0]))

static int hook_prog_fd(const struct jail_bpf *jail, size_t i)
{
	struct bpf_program *const *prog =
		(void *)((const char *)jail->skel + cgroup_hooks[i].prog_offset);

	return bpf_program__fd(*prog);
}

static void detach_cgroup_hooks(struct jail_bpf *jail, size_t n)
{
	while (n-- > 0)
		bpf_prog_detach2(hook_prog_fd(jail, n), jail->cgroup_fd, cgroup_hooks[n].type);
}

int loader_attach_cgroup(struct jail_bpf *jail, int cgroup_fd)
{
	size_t i;
	int err;

	if (jail->cgroup_fd >= 0)
		return -EBUSY;
	jail->cgroup_fd = fcntl(cgroup_fd, F_DUPFD_CLOEXEC, 3);
	if (jail->cgroup_fd < 0)
		return -errno;
	/* Attached to the cgroup itself, not through bpf_link: the programs
	 * stay in force when this process dies (even by SIGKILL), so a jail
	 * whose supervisor is gone stays filtered until the next run removes
	 * the cgroup. ALLOW_MULTI: programs of parent cgroups run as well. */
	for (i = 0; i < N_CGROUP_HOOKS; i++) {
		if (bpf_prog_attach(hook_prog_fd(jail, i), jail->cgroup_fd, cgroup_hooks[i].type,
				    BPF_F_ALLOW_MULTI)) {
			err = log_err(-errno, "cannot attach %s to the cgroup: %s",
				      cgroup_hooks[i].name, strerror(errno));
			goto undo;
		}
	}
	return 0;
undo:
	/* All or nothing: a jail with connect4 but no sendmsg4 would leak
	 * through unconnected UDP. */
	detach_cgroup_hooks(jail, i);
	close(jail->cgroup_fd);
	jail->cgroup_fd = -1;
	return err;
}

void loader_detach_cgroup(struct jail_bpf *jail)
{
	if (jail->cgroup_fd < 0)
		return;
	detach_cgroup_hooks(jail, N_CGROUP_HOOKS);
	close(jail->cgroup_fd);
	jail->cgroup_fd = -1;
}

int loader_attach_tc(struct jail_bpf *jail, int ifindex)
{
	int err;

	memset(&jail->tc_hook, 0, sizeof(jail->tc_hook));
	jail->tc_hook.sz = sizeof(jail->tc_hook);
	jail->tc_hook.ifindex = ifindex;
	jail->tc_hook.attach_point = BPF_TC_EGRESS;
	err = bpf_tc_hook_create(&jail->tc_hook);
	if (err && err != -EEXIST)
		return log_err(err, "cannot add a clsact qdisc to interface %d: %s", ifindex,
			       strerror(-err));
	jail->tc_hook_created = err == 0;

	memset(&jail->tc_opts, 0, sizeof(jail->tc_opts));
	jail->tc_opts.sz = sizeof(jail->tc_opts);
	jail->tc_opts.prog_fd = bpf_program__fd(jail->skel->progs.jail_tc_egress);
	err = bpf_tc_attach(&jail->tc_hook, &jail->tc_opts);
	if (err)
		return log_err(err, "cannot attach the TC classifier to interface %d: %s", ifindex,
			       strerror(-err));
	jail->tc_attached = true;
	return 0;
}

int loader_events_fd(const struct jail_bpf *jail)
{
	return ring_buffer__epoll_fd(jail->ringbuf);
}

int loader_events_poll(struct jail_bpf *jail, int timeout_ms)
{
	int n;

	jail->budget = EVENTS_PER_POLL;
	n = ring_buffer__poll(jail->ringbuf, timeout_ms);
	if (n == -EAGAIN)
		return EVENTS_PER_POLL; /* more may wait */
	return n == -EINTR ? 0 : n;
}

int loader_read_counters(const struct jail_bpf *jail, __u64 out[COUNTER_SLOTS])
{
	int ncpus = libbpf_num_possible_cpus(), fd = bpf_map__fd(jail->skel->maps.counters);
	__u64 *percpu;
	__u32 slot;
	int c, err = 0;

	if (ncpus < 0)
		return ncpus;
	percpu = calloc((size_t)ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (slot = 0; slot < COUNTER_SLOTS; slot++) {
		if (bpf_map_lookup_elem(fd, &slot, percpu)) {
			err = -errno;
			break;
		}
		out[slot] = 0;
		for (c = 0; c < ncpus; c++)
			out[slot] += percpu[c];
	}
	free(percpu);
	return err;
}

int loader_test_run_tc(struct jail_bpf *jail, const void *frame, size_t len, unsigned int repeat,
		       int *verdict, __u32 *duration_ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = (__u32)len,
		    .repeat = repeat);
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(jail->skel->progs.jail_tc_egress), &opts);
	if (err)
		return -errno;
	*verdict = (int)opts.retval;
	if (duration_ns)
		*duration_ns = opts.duration;
	return 0;
}

void loader_detach_tc(struct jail_bpf *jail)
{
	if (jail->tc_attached) {
		jail->tc_opts.flags = jail->tc_opts.prog_fd = jail->tc_opts.prog_id = 0;
		bpf_tc_detach(&jail->tc_hook, &jail->tc_opts);
	}
	if (jail->tc_hook_created)
		bpf_tc_hook_destroy(&jail->tc_hook);
	jail->tc_attached = jail->tc_hook_created = false;
}

void loader_close(struct jail_bpf *jail)
{
	if (!jail)
		return;
	loader_detach_cgroup(jail);
	ring_buffer__free(jail->ringbuf);
	ebpfjail__destroy(jail->skel);
	free(jail);
}
