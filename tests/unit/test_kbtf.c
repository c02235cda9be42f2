// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_kbtf.c - the kernel BTF facts the Unix hooks need: what libbpf's
 * full parse finds, from one pass through a small buffer */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/btf.h>
#include <criterion/criterion.h>

#include "kbtf.h"

/* member_offset() - @name's byte offset in struct @id of @btf, or -1 */
static long member_offset(const struct btf *btf, __s32 id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
	const struct btf_member *m = btf_members(t);
	__u16 i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			return (long)(btf_member_bit_offset(t, i) / 8);
	return -1;
}

/* The running kernel's own BTF: the same ids and offsets as libbpf's parse
 * of the whole of it. */
Test(kbtf, the_kernels_facts_are_libbpfs)
{
	struct kbtf_facts f;
	struct btf *btf;
	int fd = open(KBTF_VMLINUX, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		cr_skip_test("kernel lacks BTF (%s: %s)", KBTF_VMLINUX, strerror(errno));
	btf = btf__load_vmlinux_btf();
	cr_assert(btf, "libbpf cannot parse %s", KBTF_VMLINUX);
	if (btf__find_by_name_kind(btf, "bpf_sock_addr_kern", BTF_KIND_STRUCT) < 0 ||
	    member_offset(btf, btf__find_by_name_kind(btf, "bpf_sock_addr_kern", BTF_KIND_STRUCT),
			  "uaddrlen") < 0) {
		btf__free(btf);
		close(fd);
		cr_skip_test("kernel lacks the Unix socket hooks (6.7+: bpf_sock_addr_kern.uaddrlen)");
	}
	cr_assert_eq(kbtf_read(fd, &f), 0);
	cr_expect_eq(f.cast_to_kern_ctx,
		     (__u32)btf__find_by_name_kind(btf, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC));
	cr_expect_eq(f.rdonly_cast, (__u32)btf__find_by_name_kind(btf, "bpf_rdonly_cast",
								  BTF_KIND_FUNC));
	cr_expect_eq(f.sock_addr_kern,
		     (__u32)btf__find_by_name_kind(btf, "bpf_sock_addr_kern", BTF_KIND_STRUCT));
	cr_expect_eq(f.sockaddr_un, (__u32)btf__find_by_name_kind(btf, "sockaddr_un",
								  BTF_KIND_STRUCT));
	cr_expect_eq(f.uaddr_off, member_offset(btf, (__s32)f.sock_addr_kern, "uaddr"));
	cr_expect_eq(f.uaddrlen_off, member_offset(btf, (__s32)f.sock_addr_kern, "uaddrlen"));
	btf__free(btf);
	close(fd);
}

/* in_memfd() - @btf's raw bytes in a file to read, with @patch applied */
static int in_memfd(const struct btf *btf, void (*patch)(unsigned char *, __u32))
{
	__u32 size;
	const void *raw = btf__raw_data(btf, &size);
	unsigned char *copy = malloc(size);
	int fd = memfd_create("btf", MFD_CLOEXEC);

	cr_assert(raw && copy && fd >= 0);
	memcpy(copy, raw, size);
	if (patch)
		patch(copy, size);
	cr_assert_eq(write(fd, copy, size), (ssize_t)size);
	free(copy);
	return fd;
}

/* small() - a BTF with the wanted names, decoys first (a FUNC named as
 * the struct, a struct named as a kfunc, a name that ends in another),
 * and @pad bytes of strings before the struct's name (to put it across
 * the reader's 64 KiB buffer); its ids in @ids: kfunc, kfunc, struct,
 * sockaddr_un */
static struct btf *small(size_t pad, __s32 ids[4])
{
	struct btf *btf = btf__new_empty();
	__s32 u32, ptr, proto;
	unsigned int count;
	char filler[8192];

	cr_assert(btf);
	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	ptr = btf__add_ptr(btf, u32);
	proto = btf__add_func_proto(btf, ptr);
	cr_assert_geq(btf__add_func(btf, "bpf_sock_addr_kern", BTF_FUNC_GLOBAL, proto), 0);
	cr_assert_geq(btf__add_struct(btf, "bpf_rdonly_cast", 4), 0);
	cr_assert_geq(btf__add_field(btf, "uaddrlen", u32, 0, 0), 0);
	cr_assert_geq(btf__add_func(btf, "xbpf_cast_to_kern_ctx", BTF_FUNC_GLOBAL, proto), 0);
	/* Unique strings (libbpf keeps one copy of each) of n bytes with
	 * their NUL, n at least 16. */
	for (count = 0; pad; count++) {
		size_t n = pad <= sizeof(filler) ? pad : sizeof(filler) / 2;

		memset(filler, 'f', n - 1);
		filler[n - 1] = '\0';
		memcpy(filler, "pad", 3);
		filler[3 + snprintf(filler + 3, 12, "%08u", count)] = 'f';
		cr_assert_geq(btf__add_str(btf, filler), 0);
		pad -= n;
	}
	ids[2] = btf__add_struct(btf, "bpf_sock_addr_kern", 40);
	cr_assert_geq(btf__add_field(btf, "sk", ptr, 0, 0), 0);
	cr_assert_geq(btf__add_field(btf, "uaddr", ptr, 64, 0), 0);
	cr_assert_geq(btf__add_field(btf, "uaddrlen", u32, 256, 0), 0);
	ids[3] = btf__add_struct(btf, "sockaddr_un", 110);
	ids[0] = btf__add_func(btf, "bpf_cast_to_kern_ctx", BTF_FUNC_GLOBAL, proto);
	ids[1] = btf__add_func(btf, "bpf_rdonly_cast", BTF_FUNC_GLOBAL, proto);
	cr_assert(ids[0] > 0 && ids[1] > 0 && ids[2] > 0 && ids[3] > 0);
	return btf;
}

/* Decoys of the wrong kind or a longer name are not taken, and a name
 * across two of the reader's buffers is found, wherever it falls. */
Test(kbtf, the_right_kind_and_whole_names_across_reads)
{
	static const size_t pads[] = { 0, 65536 - 200, 65536 - 40, 65536 - 30, 65536 - 100,
				       3 * 65536 + 7 };
	size_t i;

	for (i = 0; i < sizeof(pads) / sizeof(pads[0]); i++) {
		struct kbtf_facts f;
		struct btf *btf;
		__s32 ids[4];
		int fd, k, err;

		/* Walk the struct's name across the boundary a byte at a time. */
		for (k = 0; k < (pads[i] ? 24 : 1); k++) {
			btf = small(pads[i] + (size_t)k, ids);
			fd = in_memfd(btf, NULL);
			err = kbtf_read(fd, &f);
			cr_assert_eq(err, 0, "pad %zu: %s", pads[i] + (size_t)k, strerror(-err));
			cr_expect_eq(f.cast_to_kern_ctx, (__u32)ids[0], "pad %zu", pads[i] + (size_t)k);
			cr_expect_eq(f.rdonly_cast, (__u32)ids[1]);
			cr_expect_eq(f.sock_addr_kern, (__u32)ids[2], "pad %zu", pads[i] + (size_t)k);
			cr_expect_eq(f.sockaddr_un, (__u32)ids[3]);
			cr_expect_eq(f.uaddr_off, 8);
			cr_expect_eq(f.uaddrlen_off, 32);
			close(fd);
			btf__free(btf);
		}
	}
}

static void bad_magic(unsigned char *raw, __u32 size)
{
	(void)size;
	raw[0] ^= 0xff;
}

/* The first type's kind set to one this reader does not know. */
static void unknown_kind(unsigned char *raw, __u32 size)
{
	const struct btf_header *h = (const struct btf_header *)raw;
	struct btf_type *t = (struct btf_type *)(raw + h->hdr_len + h->type_off);

	(void)size;
	t->info = (t->info & ~(0x1fU << 24)) | (31U << 24);
}

/* Not BTF, a kind whose size is unknown, a missing name, a file cut short:
 * each an error, never a guess. */
Test(kbtf, what_it_cannot_read_is_an_error)
{
	struct kbtf_facts f;
	struct btf *btf;
	__s32 ids[4];
	__u32 size;
	int fd;

	btf = small(0, ids);
	fd = in_memfd(btf, bad_magic);
	cr_expect_eq(kbtf_read(fd, &f), -EPROTO);
	close(fd);
	fd = in_memfd(btf, unknown_kind);
	cr_expect_eq(kbtf_read(fd, &f), -EPROTO);
	close(fd);
	fd = in_memfd(btf, NULL);
	btf__raw_data(btf, &size);
	cr_assert_eq(ftruncate(fd, size - 20), 0);
	cr_expect_eq(kbtf_read(fd, &f), -EPROTO, "cut short");
	close(fd);
	btf__free(btf);

	btf = btf__new_empty();
	cr_assert_geq(btf__add_int(btf, "int", 4, BTF_INT_SIGNED), 0);
	fd = in_memfd(btf, NULL);
	cr_expect_eq(kbtf_read(fd, &f), -ENOENT, "no name of ours");
	close(fd);
	btf__free(btf);
}

/* misplaced() - small()'s facts, but struct bpf_sock_addr_kern's uaddr at
 * bit @uaddr and uaddrlen at bit @uaddrlen of a struct of 40 bytes */
static struct btf *misplaced(__u32 uaddr, __u32 uaddrlen)
{
	struct btf *btf = btf__new_empty();
	__s32 u32, ptr, proto;

	cr_assert(btf);
	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	ptr = btf__add_ptr(btf, u32);
	proto = btf__add_func_proto(btf, ptr);
	cr_assert_geq(btf__add_struct(btf, "bpf_sock_addr_kern", 40), 0);
	cr_assert_geq(btf__add_field(btf, "sk", ptr, 0, 0), 0);
	cr_assert_geq(btf__add_field(btf, "uaddr", ptr, uaddr, 0), 0);
	cr_assert_geq(btf__add_field(btf, "uaddrlen", u32, uaddrlen, 0), 0);
	cr_assert_geq(btf__add_struct(btf, "sockaddr_un", 110), 0);
	cr_assert_geq(btf__add_func(btf, "bpf_cast_to_kern_ctx", BTF_FUNC_GLOBAL, proto), 0);
	cr_assert_geq(btf__add_func(btf, "bpf_rdonly_cast", BTF_FUNC_GLOBAL, proto), 0);
	return btf;
}

/* The hooks read the two fields through untrusted pointers: a read past
 * the struct is no verifier error but a 0, which allows. So offsets that
 * cannot be the fields' (past the end, misaligned, one on the other) are
 * no facts: -EPROTO, and the jail does not start. The control: the same
 * struct with them in place reads. */
Test(kbtf, offsets_that_cannot_be_the_fields_are_refused)
{
	static const struct { __u32 uaddr, uaddrlen; int want; } cases[] = {
		{ 64, 256, 0 },        /* the control */
		{ 64, 320, -EPROTO },  /* uaddrlen past the struct's 40 bytes */
		{ 320, 256, -EPROTO }, /* uaddr past it */
		{ 96, 256, -EPROTO },  /* a pointer at 12 bytes: misaligned */
		{ 64, 272, -EPROTO },  /* an int at 34 bytes: misaligned */
		{ 64, 64, -EPROTO },   /* both at one place */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct btf *btf = misplaced(cases[i].uaddr, cases[i].uaddrlen);
		struct kbtf_facts f;
		int fd = in_memfd(btf, NULL);

		cr_expect_eq(kbtf_read(fd, &f), cases[i].want, "uaddr at bit %u, uaddrlen at bit %u",
			     cases[i].uaddr, cases[i].uaddrlen);
		close(fd);
		btf__free(btf);
	}
}
