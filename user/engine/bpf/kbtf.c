// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kbtf.c - the few facts of the kernel's BTF the Unix socket hooks need
 * (kbtf.h)
 *
 * Theory of operation
 * -------------------
 * A BTF file is a header, a type section and a string section; a type
 * names itself by an offset into the strings. So the strings come first:
 * one pass finds every offset at which each wanted name is a whole string
 * (a deduplicated BTF has one, a few are kept in case it is not). Then one
 * pass over the types, numbering them from 1, takes the two kfuncs (kind
 * FUNC) and the two structs whose names sit at those offsets, and the
 * byte offsets of two members of one of them. Each record's size follows
 * from its kind: a kind this file does not know stops the read (-EPROTO)
 * rather than guess, and the jail does not start without its hooks.
 *
 * Both passes read through one 64 KiB buffer with pread(); a name that
 * straddles two reads is compared against the end of the one before.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>

#include "kbtf.h"

#define KBTF_BUF 65536
#define NAME_MAX_LEN 32  /* the longest wanted name, and room to spare */
#define OFFSETS_MAX 8    /* whole-string copies of one name kept */

enum name { CAST, RDONLY, SOCK_ADDR_KERN, SOCKADDR_UN, UADDR, UADDRLEN, NAMES };

static const char *const wanted[NAMES] = {
	[CAST] = "bpf_cast_to_kern_ctx", [RDONLY] = "bpf_rdonly_cast",
	[SOCK_ADDR_KERN] = "bpf_sock_addr_kern", [SOCKADDR_UN] = "sockaddr_un",
	[UADDR] = "uaddr", [UADDRLEN] = "uaddrlen",
};

/* The string offsets of each wanted name. */
struct offsets {
	uint32_t at[NAMES][OFFSETS_MAX];
	unsigned int n[NAMES];
};

/* A section of the file, read through the buffer. */
struct reader {
	int fd;
	uint64_t pos, end; /* file offset of buf[0], of the section's end */
	size_t have, at;   /* bytes in buf, the next one to take */
	uint8_t buf[KBTF_BUF];
};

static void reader_start(struct reader *r, int fd, uint64_t off, uint64_t len)
{
	r->fd = fd;
	r->pos = off;
	r->end = off + len;
	r->have = r->at = 0;
}

/* refill() - the next bytes of the section into the buffer. Return: how
 * many (0 at the section's end), or -errno (-EPROTO: the file ended
 * first). */
static long refill(struct reader *r)
{
	uint64_t left;
	ssize_t n;

	r->pos += r->have;
	r->have = r->at = 0;
	left = r->end - r->pos;
	if (!left)
		return 0;
	n = pread(r->fd, r->buf, left < KBTF_BUF ? (size_t)left : KBTF_BUF, (off_t)r->pos);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -EPROTO;
	r->have = (size_t)n;
	return n;
}

/* take() - the next @n bytes of the section into @dst (NULL: skipped).
 * Return: 0, or -EPROTO (the section ended) or -errno. */
static int take(struct reader *r, void *dst, size_t n)
{
	while (n) {
		size_t k;

		if (r->at == r->have) {
			long got = refill(r);

			if (got <= 0)
				return got ? (int)got : -EPROTO;
		}
		k = r->have - r->at < n ? r->have - r->at : n;
		if (dst) {
			memcpy(dst, r->buf + r->at, k);
			dst = (uint8_t *)dst + k;
		}
		r->at += k;
		n -= k;
	}
	return 0;
}

/* The string section around one read: the read, and the last bytes of
 * the ones before it (a name may straddle two reads). */
struct window {
	const uint8_t *buf;
	uint8_t tail[NAME_MAX_LEN + 1];
	size_t tail_len;
	uint64_t before; /* section bytes before buf */
};

/* byte_at() - the section's byte at offset @x, or -1 where the window does
 * not reach */
static int byte_at(const struct window *w, uint64_t x)
{
	if (x >= w->before)
		return w->buf[x - w->before];
	if (w->before - x <= w->tail_len)
		return w->tail[w->tail_len - (size_t)(w->before - x)];
	return -1;
}

/* whole_string() - whether @name is a whole string whose NUL is at
 * section offset @end: its bytes before, and before them the section's
 * start or another string's NUL */
static bool whole_string(const struct window *w, uint64_t end, const char *name)
{
	size_t len = strlen(name), i;
	uint64_t start;

	if (end < len)
		return false;
	start = end - len;
	for (i = 0; i < len; i++)
		if (byte_at(w, start + i) != (uint8_t)name[i])
			return false;
	return start == 0 || byte_at(w, start - 1) == 0;
}

/* keep_tail() - the window's last NAME_MAX_LEN + 1 bytes kept, for the
 * next read */
static void keep_tail(struct window *w, size_t have)
{
	uint8_t both[sizeof(w->tail) * 2];
	size_t keep = sizeof(w->tail), n;

	if (have >= keep) {
		memcpy(w->tail, w->buf + have - keep, keep);
		w->tail_len = keep;
		return;
	}
	memcpy(both, w->tail, w->tail_len);
	memcpy(both + w->tail_len, w->buf, have);
	n = w->tail_len + have;
	keep = n < keep ? n : keep;
	memcpy(w->tail, both + n - keep, keep);
	w->tail_len = keep;
}

/* find_names() - every offset of the string section (@r) where a wanted
 * name is a whole string. Return: 0 or -errno. */
static int find_names(struct reader *r, struct offsets *o)
{
	struct window w = { .tail_len = 0, .before = 0 };
	long got;

	memset(o, 0, sizeof(*o));
	while ((got = refill(r)) > 0) {
		const uint8_t *p = r->buf, *nul;

		w.buf = r->buf;
		while ((nul = memchr(p, 0, (size_t)(r->buf + r->have - p)))) {
			uint64_t end = w.before + (uint64_t)(nul - r->buf);
			unsigned int n;

			for (n = 0; n < NAMES; n++)
				if (o->n[n] < OFFSETS_MAX && whole_string(&w, end, wanted[n]))
					o->at[n][o->n[n]++] = (uint32_t)(end - strlen(wanted[n]));
			p = nul + 1;
		}
		keep_tail(&w, r->have);
		w.before += r->have;
		r->at = r->have;
	}
	return (int)got;
}

static bool is(const struct offsets *o, enum name w, uint32_t name_off)
{
	unsigned int i;

	for (i = 0; i < o->n[w]; i++)
		if (o->at[w][i] == name_off)
			return true;
	return false;
}

/* extra_size() - the bytes after a type record of @kind with @vlen, or
 * -EPROTO for a kind this file does not know */
static long extra_size(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * (long)sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * (long)sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return (long)vlen * (long)sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * (long)sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * (long)sizeof(struct btf_var_secinfo);
	case BTF_KIND_UNKN:
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	}
	return -EPROTO;
}

/* members() - struct bpf_sock_addr_kern's members (@vlen of them, next
 * in @r): the byte offsets of uaddr and uaddrlen. Return: 0 or -errno. */
static int members(struct reader *r, const struct offsets *o, unsigned int vlen, bool bitfields,
		   struct kbtf_facts *out)
{
	unsigned int i;

	for (i = 0; i < vlen; i++) {
		struct btf_member m;
		uint32_t bits;
		int err = take(r, &m, sizeof(m));

		if (err)
			return err;
		bits = bitfields ? BTF_MEMBER_BIT_OFFSET(m.offset) : m.offset;
		if (bits % 8)
			continue; /* a bitfield: neither of ours */
		if (is(o, UADDR, m.name_off))
			out->uaddr_off = bits / 8;
		if (is(o, UADDRLEN, m.name_off))
			out->uaddrlen_off = bits / 8;
	}
	return 0;
}

/* find_types() - the wanted types' ids in the type section (@r).
 * Return: 0 or -errno. */
static int find_types(struct reader *r, const struct offsets *o, struct kbtf_facts *out)
{
	bool found_kern = false;
	uint32_t id, kern_size = 0;

	for (id = 1; r->pos + r->at < r->end; id++) {
		unsigned int kind, vlen;
		struct btf_type t;
		long extra;
		int err = take(r, &t, sizeof(t));

		if (err)
			return err;
		kind = BTF_INFO_KIND(t.info);
		vlen = BTF_INFO_VLEN(t.info);
		extra = extra_size(kind, vlen);
		if (extra < 0)
			return (int)extra;
		/* The first of each name, as libbpf's find_by_name_kind(). */
		if (kind == BTF_KIND_FUNC && !out->cast_to_kern_ctx && is(o, CAST, t.name_off))
			out->cast_to_kern_ctx = id;
		if (kind == BTF_KIND_FUNC && !out->rdonly_cast && is(o, RDONLY, t.name_off))
			out->rdonly_cast = id;
		if (kind == BTF_KIND_STRUCT && !out->sockaddr_un && is(o, SOCKADDR_UN, t.name_off))
			out->sockaddr_un = id;
		if (kind == BTF_KIND_STRUCT && !found_kern && is(o, SOCK_ADDR_KERN, t.name_off)) {
			found_kern = true;
			out->sock_addr_kern = id;
			kern_size = t.size;
			err = members(r, o, vlen, BTF_INFO_KFLAG(t.info), out);
		} else {
			err = take(r, NULL, (size_t)extra);
		}
		if (err)
			return err;
	}
	/* The hooks read through bpf_rdonly_cast()'s untrusted pointers: the
	 * verifier does not check a field's bounds there, and a read that
	 * faults gives 0, which the hook takes for an unnamed socket (allowed).
	 * So a misread offset must not load: a pointer (8 bytes, aligned) and
	 * an int (4), both inside the struct. */
	if (found_kern && (out->uaddr_off % 8 || out->uaddrlen_off % 4 ||
			   out->uaddr_off + 8 > kern_size || out->uaddrlen_off + 4 > kern_size ||
			   out->uaddr_off == out->uaddrlen_off))
		return -EPROTO;
	return 0;
}

int kbtf_read(int fd, struct kbtf_facts *out)
{
	static struct reader r; /* its 64 KiB out of the stack; one caller */
	struct btf_header h;
	struct offsets o;
	ssize_t n;
	int err;

	memset(out, 0, sizeof(*out));
	n = pread(fd, &h, sizeof(h), 0);
	if (n < 0)
		return -errno;
	if (n != sizeof(h) || h.magic != BTF_MAGIC || h.hdr_len < sizeof(h))
		return -EPROTO;
	reader_start(&r, fd, (uint64_t)h.hdr_len + h.str_off, h.str_len);
	err = find_names(&r, &o);
	if (!err) {
		reader_start(&r, fd, (uint64_t)h.hdr_len + h.type_off, h.type_len);
		err = find_types(&r, &o, out);
	}
	if (err)
		return err;
	/* uaddrlen is 6.7's, as the Unix hooks are; offset 0 is sk's. */
	if (!out->cast_to_kern_ctx || !out->rdonly_cast || !out->sock_addr_kern ||
	    !out->sockaddr_un || !out->uaddr_off || !out->uaddrlen_off)
		return -ENOENT;
	return 0;
}
