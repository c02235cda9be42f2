/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* kbtf.h - the few facts of the kernel's BTF the Unix socket hooks need,
 * read in one pass without parsing the rest
 *
 * The hooks (bpf/unix.bpf.c) call two kfuncs and read two fields of the
 * kernel's struct bpf_sock_addr_kern. libbpf would resolve those by parsing
 * the whole of /sys/kernel/btf/vmlinux (5.4 MB on 6.18) into some 11 MB of
 * memory at every start of a jail: 45 ms of page faults on a
 * paravirtualized guest, where the start as a whole is 110 ms. Here the
 * file is read through a 64 KiB buffer, twice (its strings for the names,
 * then its types for the ids), and nothing of it is kept.
 */
#ifndef EBPFJAIL_KBTF_H
#define EBPFJAIL_KBTF_H

#include <stdint.h>

struct kbtf_facts {
	uint32_t cast_to_kern_ctx; /* the kfuncs' BTF ids */
	uint32_t rdonly_cast;
	uint32_t sock_addr_kern;   /* struct bpf_sock_addr_kern's type id */
	uint32_t sockaddr_un;      /* struct sockaddr_un's */
	uint32_t uaddr_off;        /* bytes into struct bpf_sock_addr_kern */
	uint32_t uaddrlen_off;
};

/* The kernel's own BTF. */
#define KBTF_VMLINUX "/sys/kernel/btf/vmlinux"

/**
 * kbtf_read() - the facts from the BTF in @fd (read from offset 0 with
 * pread: the file position is left alone)
 * Return: 0; -EPROTO (not BTF, or a kind this reader does not know the
 * size of); -ENOENT (a name is missing: a kernel without the Unix hooks'
 * kfuncs or fields); -errno of a read.
 */
int kbtf_read(int fd, struct kbtf_facts *out);

#endif /* EBPFJAIL_KBTF_H */
