// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* loader.c - load the jail's BPF programs, fill the policy, attach them
 *
 * The only file that includes the generated skeleton.
 */
#include <errno.h>
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
};

int loader_open(struct jail_bpf **out)
{
	struct jail_bpf *jail;
	int err;

	libbpf_set_print(log_libbpf);
	jail = calloc(1, sizeof(*jail));
	if (!jail)
		return -ENOMEM;
	jail->skel = ebpfjail__open();
	if (!jail->skel) {
		err = log_err(-errno, "cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	err = ebpfjail__load(jail->skel);
	if (err) {
		log_err(err, "the kernel refused the BPF programs: %s (run with -v for the verifier log)",
			strerror(-err));
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
	 * reference to the trie, so closing our fd below keeps it alive. */
	if (bpf_map_update_elem(bpf_map__fd(jail->skel->maps.policy_outer), &zero, &trie_fd,
				BPF_ANY))
		err = log_err(-errno, "cannot install the policy: %s", strerror(errno));
out:
	close(trie_fd);
	return err;
}

int loader_attach_cgroup(struct jail_bpf *jail, int cgroup_fd)
{
	struct bpf_link *link;

	link = bpf_program__attach_cgroup(jail->skel->progs.jail_connect4, cgroup_fd);
	if (!link)
		return log_err(-errno, "cannot attach connect4 to the cgroup: %s", strerror(errno));
	jail->skel->links.jail_connect4 = link;
	return 0;
}

void loader_close(struct jail_bpf *jail)
{
	if (!jail)
		return;
	ebpfjail__destroy(jail->skel); /* destroys links too: detaches */
	free(jail);
}
