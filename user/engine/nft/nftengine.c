// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nftengine.c - the rootless engine's rules into the kernel: whole
 * generations through libnftables, changes in place through libnftnl */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>
#include <nftables/libnftables.h>

#include "nftengine.h"
#include "nftrules.h"

/* run_transaction() - one transaction of nft commands
 * @why: nft's first error line, on failure
 * Return: 0, or -EINVAL (nft refused it). */
static int run_transaction(struct nft_ctx *nft, const char *text, char *why, size_t why_size)
{
	const char *msg;

	if (!nft_run_cmd_from_buffer(nft, text))
		return 0;
	msg = nft_ctx_get_error_buffer(nft);
	snprintf(why, why_size, "%.*s", (int)strcspn(msg ? msg : "", "\n"), msg ? msg : "");
	return -EINVAL;
}

/* open_nft() - a libnftables context whose errors go to a buffer */
static struct nft_ctx *open_nft(void)
{
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);

	if (nft && nft_ctx_buffer_error(nft)) {
		nft_ctx_free(nft);
		return NULL;
	}
	return nft;
}

/* drop_table() - generation @gen's table gone (none is no error) */
static int drop_table(struct nft_ctx *nft, unsigned int gen, char *why, size_t why_size)
{
	char text[128];

	if (nftrules_drop_table(gen, text, sizeof(text)))
		return -ENOMEM;
	return run_transaction(nft, text, why, why_size);
}

/* The most tables of ours a namespace can hold at once: the one in force,
 * and what a crash may have left. More are refused (fail closed). */
#define GENERATIONS_MAX 16

/* list_generations() - the generations whose tables exist here, read from
 * the kernel: the engine's own count may be stale (another supervisor, a
 * restart), and a table it did not know of must be neither overwritten
 * nor left hooked. Return: how many (in @gens), or -errno. */
static int list_generations(struct nft_ctx *nft, unsigned int gens[GENERATIONS_MAX], char *why,
			    size_t why_size)
{
	const char *out, *line, *next;
	int n = 0, err;

	if (nft_ctx_buffer_output(nft))
		return -ENOMEM;
	err = run_transaction(nft, "list tables inet\n", why, why_size);
	out = err ? NULL : nft_ctx_get_output_buffer(nft);
	for (line = out; !err && line && *line; line = next) {
		const char *nl = strchr(line, '\n');
		unsigned int gen;
		char end;

		next = nl ? nl + 1 : line + strlen(line);
		if (sscanf(line, "table inet " NFTRULES_TABLE "%u%c", &gen, &end) != 2 || end != '\n')
			continue;
		if (n == GENERATIONS_MAX)
			err = -E2BIG;
		else
			gens[n++] = gen;
	}
	nft_ctx_unbuffer_output(nft);
	if (err == -E2BIG)
		snprintf(why, why_size, "more than %d tables " NFTRULES_TABLE "N here",
			 GENERATIONS_MAX);
	return err ? err : n;
}

/* open_with_generations() - a context (@nft, the caller frees it) and the
 * generations in force; @why cleared first. Return: how many, or -errno
 * (no context then). */
static int open_with_generations(struct nft_ctx **nft, unsigned int gens[GENERATIONS_MAX],
				 char *why, size_t why_size)
{
	int n;

	if (why_size)
		why[0] = '\0';
	*nft = open_nft();
	if (!*nft)
		return -ENOMEM;
	n = list_generations(*nft, gens, why, why_size);
	if (n < 0) {
		nft_ctx_free(*nft);
		*nft = NULL;
	}
	return n;
}

int nftengine_apply(struct nftengine *e, const struct policy *p, char *why, size_t why_size)
{
	unsigned int gens[GENERATIONS_MAX], gen = 0;
	struct nft_ctx *nft;
	struct nft_script s;
	size_t i;
	int n, err;

	n = open_with_generations(&nft, gens, why, why_size);
	if (n < 0)
		return n;
	for (i = 0; i < (size_t)n; i++)
		gen = gens[i] > gen ? gens[i] : gen;
	gen++;
	err = nftrules_script(p, gen, e->chains.mark, gens, (size_t)n, &s);
	for (i = 0; !err && i < s.n; i++)
		err = run_transaction(nft, s.steps[i], why, why_size);
	/* Step 0 failed: the table is not ours, leave it. Later, before the
	 * last step, the old rules still hold: the new table, as far as it
	 * got, goes. The last step is one transaction: it changed nothing. */
	if (err && i > 1) {
		char ignored[8];

		drop_table(nft, gen, ignored, sizeof(ignored));
	}
	if (!err) {
		e->generation = gen;
		e->chains = s.chains;
	}
	if (s.steps)
		nftrules_script_free(&s);
	nft_ctx_free(nft);
	return err;
}

/* Upper bounds of what nftnl writes, with no bounds check of its own, for
 * an element (key, verdict and chain attributes, nested) and a message
 * (headers, table and map names, the list's nest, a rule's three
 * expressions). */
#define ELEMENT_BYTES 128
#define MESSAGE_BYTES 512
/* an element's attributes: nests and headers (40), the key, the chain */
_Static_assert(40 + NFTRULES_KEY_MAX + NFTRULES_CHAIN_MAX <= ELEMENT_BYTES,
	       "ELEMENT_BYTES is no bound of an element");

/* A transaction being written for the kernel (libnftnl): its messages in
 * one buffer between a batch's begin and end, the last asking for an ACK
 * (batch_send()). */
struct batch {
	char *buf;
	size_t size, pos;
	struct nlmsghdr *last; /* the last message, or NULL */
	uint32_t seq;
};

/* batch_open() - room for @elements elements in @messages messages.
 * Return: 0 or -ENOMEM. */
static int batch_open(struct batch *b, size_t elements, size_t messages)
{
	b->size = elements * ELEMENT_BYTES + (messages + 2) * MESSAGE_BYTES;
	b->buf = malloc(b->size);
	if (!b->buf)
		return -ENOMEM;
	b->seq = (uint32_t)time(NULL);
	b->last = NULL;
	b->pos = nftnl_batch_begin(b->buf, b->seq++)->nlmsg_len;
	return 0;
}

/* batch_msg() - the next message's header: its payload goes after it,
 * then batch_done(). The room is the caller's promise (batch_open()). */
static struct nlmsghdr *batch_msg(struct batch *b, uint16_t type, uint16_t flags)
{
	return nftnl_nlmsg_build_hdr(b->buf + b->pos, type, NFPROTO_INET, flags, b->seq++);
}

/* batch_done() - the message at @nlh is whole: the next goes after it.
 * The bounds are batch_open()'s promise; one broken (a bigger key or
 * chain name than ELEMENT_BYTES holds) has already written past the end,
 * and nothing may go on from a corrupt heap. */
static void batch_done(struct batch *b, struct nlmsghdr *nlh)
{
	b->pos += nlh->nlmsg_len;
	b->last = nlh;
	if (b->pos + MESSAGE_BYTES > b->size)
		abort();
}

/* take_ack() - the kernel's answer to a batch whose last message, @seq,
 * asked for an ACK: the errors of the messages that failed (each is
 * answered, ACK or not), then that ACK. All are queued once sendmsg()
 * returned (netlink runs the batch in the sender's context), so nothing
 * here blocks. Return: 0, or the first error (the kernel aborted all). */
static int take_ack(struct mnl_socket *nl, uint32_t seq)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int first_err = 0;

	for (;;) {
		ssize_t len = recv(mnl_socket_get_fd(nl), buf, sizeof(buf), MSG_DONTWAIT);
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		int left = (int)len;

		/* Nothing more, and no ACK of the last: the batch as a whole
		 * was refused (its begin), or the answers did not fit. */
		if (len <= 0)
			return first_err ? first_err : len < 0 ? -errno : -EIO;
		for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
			const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

			if (nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			if (err->error < 0 && !first_err)
				first_err = err->error;
			if (err->msg.nlmsg_seq == seq)
				return first_err;
		}
	}
}

/* batch_send() - @b ended and sent over a socket of its own, in this
 * thread's namespace (the jail's); freed. One ACK, of the last message,
 * not one per message: a step of a few hundred messages had its ACKs
 * dropped by a receive queue of the default size (ENOBUFS), which a user
 * namespace cannot raise past net.core.rmem_max, and a change the kernel
 * made read as refused. An error's answer comes without the message it
 * refuses (CAP_ACK): a step is tens of KiB. Return: 0, -ENOMEM, or the
 * kernel's -errno (nothing of the batch was done). */
static int batch_send(struct batch *b)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	int one = 1, err;

	if (!b->last) { /* nothing to change */
		if (nl)
			mnl_socket_close(nl);
		free(b->buf);
		b->buf = NULL;
		return 0;
	}
	b->last->nlmsg_flags |= NLM_F_ACK;
	b->pos += nftnl_batch_end(b->buf + b->pos, b->seq)->nlmsg_len;
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) ||
	    mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one)) ||
	    mnl_socket_sendto(nl, b->buf, b->pos) < 0)
		err = -errno;
	else
		err = take_ack(nl, b->last->nlmsg_seq);
	if (nl)
		mnl_socket_close(nl);
	free(b->buf);
	b->buf = NULL;
	return err;
}

/* a_set() - a map or set of generation @gen's table, for a message */
static struct nftnl_set *a_set(unsigned int gen, const char *name)
{
	struct nftnl_set *s = nftnl_set_alloc();
	char table[sizeof(NFTRULES_TABLE) + 12];

	if (!s)
		return NULL;
	snprintf(table, sizeof(table), "%s%u", NFTRULES_TABLE, gen);
	nftnl_set_set_str(s, NFTNL_SET_TABLE, table);
	nftnl_set_set_str(s, NFTNL_SET_NAME, name);
	return s;
}

/* put_elements() - @s's elements (none: the whole set, for a delete) as
 * one message; @s is freed. Return: 0, or -ENOMEM (@s NULL). */
static int put_elements(struct batch *b, struct nftnl_set *s, bool add)
{
	struct nlmsghdr *nlh;

	if (!s)
		return -ENOMEM;
	/* EXCL: an add over an element that is there (another verdict) is
	 * refused, never a silent overwrite. */
	nlh = batch_msg(b, add ? NFT_MSG_NEWSETELEM : NFT_MSG_DELSETELEM,
			add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	nftnl_set_elems_nlmsg_build_payload(nlh, s);
	nftnl_set_free(s);
	batch_done(b, nlh);
	return 0;
}

/* put_run() - the run of elements of @c from @i to before @end with one
 * verb and one map, as one message of generation @gen. Return: the first
 * element after the run, or -ENOMEM. */
static long put_run(struct batch *b, unsigned int gen, const struct nft_change *c, size_t i,
		    size_t end)
{
	const struct nft_element *first = &c->elements[i];
	struct nftnl_set *s = a_set(gen, first->map == NFT_MAP_HOSTS ? NFTRULES_HOSTS_MAP : NFTRULES_PORTS_MAP);

	for (; s && i < end && c->elements[i].add == first->add && c->elements[i].map == first->map;
	     i++) {
		const struct nft_element *e = &c->elements[i];
		struct nftnl_set_elem *se = nftnl_set_elem_alloc();

		if (!se) {
			nftnl_set_free(s);
			return -ENOMEM;
		}
		nftnl_set_elem_set(se, NFTNL_SET_ELEM_KEY, e->key, e->key_len);
		if (e->add)
			nftnl_set_elem_set_u32(se, NFTNL_SET_ELEM_VERDICT,
					       e->jump[0] ? (uint32_t)NFT_JUMP : NF_ACCEPT);
		if (e->add && e->jump[0])
			nftnl_set_elem_set_str(se, NFTNL_SET_ELEM_CHAIN, e->jump);
		nftnl_set_elem_add(s, se);
	}
	return put_elements(b, s, first->add) ? -ENOMEM : (long)i;
}

int nftengine_change(struct nftengine *e, const struct policy *in_force,
		     const struct policy_rule *set, size_t n_set, const struct policy_key *del,
		     size_t n_del, char *why, size_t why_size)
{
	struct nft_change c;
	struct batch b;
	size_t step, i = 0;
	long next;
	int err;

	if (why_size)
		why[0] = '\0';
	if (!e->generation)
		return -EOPNOTSUPP;
	err = nftrules_change(in_force, &e->chains, set, n_set, del, n_del, &c);
	for (step = 0; !err && step < c.n_steps; step++) {
		size_t end = c.step_end[step];

		/* One message per run: at most one per element. */
		err = batch_open(&b, end - i, end - i);
		while (!err && i < end) {
			next = put_run(&b, e->generation, &c, i, end);
			err = next < 0 ? (int)next : 0;
			i = next < 0 ? i : (size_t)next;
		}
		if (!err)
			err = batch_send(&b);
		free(b.buf);
	}
	if (err && err != -EOPNOTSUPP && why_size)
		snprintf(why, why_size, "the kernel refused a change of %s%u's maps: %s",
			 NFTRULES_TABLE, e->generation, strerror(-err));
	nftrules_change_free(&c);
	return err;
}

/* put_kept_rule() - the kept chain's one rule, "ct mark set MARK accept",
 * as nft(8) writes it: MARK into a register, the register into the
 * connection's mark, and the verdict. Return: 0 or -ENOMEM. */
static int put_kept_rule(struct batch *b, const char *table, uint32_t mark)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nftnl_expr *imm = nftnl_expr_alloc("immediate"), *ct = nftnl_expr_alloc("ct"),
			  *accept = nftnl_expr_alloc("immediate");
	struct nlmsghdr *nlh;

	if (!r || !imm || !ct || !accept) {
		nftnl_rule_free(r);
		nftnl_expr_free(imm);
		nftnl_expr_free(ct);
		nftnl_expr_free(accept);
		return -ENOMEM;
	}
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, table);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, NFTRULES_KEPT_CHAIN);
	nftnl_expr_set_u32(imm, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
	nftnl_expr_set(imm, NFTNL_EXPR_IMM_DATA, &mark, sizeof(mark));
	nftnl_rule_add_expr(r, imm);
	nftnl_expr_set_u32(ct, NFTNL_EXPR_CT_KEY, NFT_CT_MARK);
	nftnl_expr_set_u32(ct, NFTNL_EXPR_CT_SREG, NFT_REG_1);
	nftnl_rule_add_expr(r, ct);
	nftnl_expr_set_u32(accept, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(accept, NFTNL_EXPR_IMM_VERDICT, NF_ACCEPT);
	nftnl_rule_add_expr(r, accept);
	nlh = batch_msg(b, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	batch_done(b, nlh);
	return 0;
}

/* put_marks() - generation @gen's kept_marks flushed and given @mark
 * alone. Return: 0 or -ENOMEM. */
static int put_marks(struct batch *b, unsigned int gen, uint32_t mark)
{
	struct nftnl_set_elem *se;
	struct nftnl_set *marks;
	int err = put_elements(b, a_set(gen, NFTRULES_KEPT_MARKS), false); /* all: flushed */

	if (err)
		return err;
	marks = a_set(gen, NFTRULES_KEPT_MARKS);
	se = marks ? nftnl_set_elem_alloc() : NULL;
	if (!se) {
		if (marks)
			nftnl_set_free(marks);
		return -ENOMEM;
	}
	nftnl_set_elem_set(se, NFTNL_SET_ELEM_KEY, &mark, sizeof(mark)); /* host order */
	nftnl_set_elem_add(marks, se);
	return put_elements(b, marks, true);
}

/* put_chain_flush() - every rule of @table's @chain deleted (a rule
 * delete without a handle). Return: 0 or -ENOMEM. */
static int put_chain_flush(struct batch *b, const char *table, const char *chain)
{
	struct nftnl_rule *flush = nftnl_rule_alloc();
	struct nlmsghdr *nlh;

	if (!flush)
		return -ENOMEM;
	nftnl_rule_set_str(flush, NFTNL_RULE_TABLE, table);
	nftnl_rule_set_str(flush, NFTNL_RULE_CHAIN, chain);
	nlh = batch_msg(b, NFT_MSG_DELRULE, 0);
	nftnl_rule_nlmsg_build_payload(nlh, flush);
	nftnl_rule_free(flush);
	batch_done(b, nlh);
	return 0;
}

int nftengine_renew(struct nftengine *e, char *why, size_t why_size)
{
	uint32_t mark = e->chains.mark + 1;
	char table[sizeof(NFTRULES_TABLE) + 12];
	struct batch b;
	int err;

	if (why_size)
		why[0] = '\0';
	if (!e->generation || !e->chains.kept)
		return -EOPNOTSUPP;
	snprintf(table, sizeof(table), "%s%u", NFTRULES_TABLE, e->generation);
	/* One transaction: kept_marks holds the new mark alone (the old
	 * generation's connections pass only while the maps let them), and
	 * the kept chain marks the names' new connections with it. */
	err = batch_open(&b, 1, 4);
	if (err)
		return err;
	err = put_marks(&b, e->generation, mark);
	if (!err)
		err = put_chain_flush(&b, table, NFTRULES_KEPT_CHAIN);
	if (!err)
		err = put_kept_rule(&b, table, mark);
	if (!err)
		err = batch_send(&b);
	free(b.buf);
	if (err && why_size)
		snprintf(why, why_size, "the kernel refused a new generation of %s's kept "
			 "connections: %s", table, strerror(-err));
	if (!err)
		e->chains.mark = mark;
	return err;
}

int nftengine_remove(struct nftengine *e, char *why, size_t why_size)
{
	unsigned int gens[GENERATIONS_MAX];
	struct nft_ctx *nft;
	int n, i, err = 0;

	n = open_with_generations(&nft, gens, why, why_size);
	if (n < 0)
		return n;
	for (i = 0; i < n && !err; i++)
		err = drop_table(nft, gens[i], why, why_size);
	nft_ctx_free(nft);
	if (!err)
		e->generation = 0;
	return err;
}

/* A dump of the deny chains' counters (nftengine_denied()). */
struct denied_read {
	uint64_t *denied;
	int err;
};

/* add_counter() - nftnl_expr_foreach()'s callback: a counter's packets to
 * @data (uint64_t *) */
static int add_counter(struct nftnl_expr *e, void *data)
{
	uint64_t *packets = data;

	if (!strcmp(nftnl_expr_get_str(e, NFTNL_EXPR_NAME), "counter"))
		*packets += nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS);
	return 0;
}

/* take_rule() - one rule of the dump: a deny chain's counter (its first
 * rule's, the only one it has) to its reason. Return: MNL_CB_OK, or
 * MNL_CB_ERROR (no memory). */
static int take_rule(const struct nlmsghdr *nlh, void *data)
{
	struct denied_read *d = data;
	struct nftnl_rule *r = nftnl_rule_alloc();
	unsigned int reason, len;
	uint64_t packets = 0;
	const char *chain;
	char end;

	if (!r) {
		d->err = -ENOMEM;
		return MNL_CB_ERROR;
	}
	if (nftnl_rule_nlmsg_parse(nlh, r) == 0 && (chain = nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) &&
	    sscanf(chain, "deny_%u_%u%c", &reason, &len, &end) == 2 && reason < REASON_COUNT) {
		nftnl_expr_foreach(r, add_counter, &packets);
		d->denied[reason] += packets;
	}
	nftnl_rule_free(r);
	return MNL_CB_OK;
}

int nftengine_denied(const struct nftengine *e, uint64_t denied[REASON_COUNT], char *why,
		     size_t why_size)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], table[sizeof(NFTRULES_TABLE) + 12];
	struct denied_read d = { .denied = denied };
	uint32_t seq = (uint32_t)time(NULL), portid;
	struct mnl_socket *nl = NULL;
	struct nftnl_rule *filter;
	struct nlmsghdr *nlh;
	int ret;

	memset(denied, 0, REASON_COUNT * sizeof(*denied));
	if (why_size)
		why[0] = '\0';
	if (!e->generation)
		return 0;
	/* The rules of the generation's table alone, read with their
	 * counters: one dump, nothing of the maps (libnftables' "list
	 * table" read every element too: 19 ms a second with 4,096 names,
	 * the supervisor waiting). */
	filter = nftnl_rule_alloc();
	if (!filter)
		return -ENOMEM;
	snprintf(table, sizeof(table), "%s%u", NFTRULES_TABLE, e->generation);
	nftnl_rule_set_str(filter, NFTNL_RULE_TABLE, table);
	nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETRULE, NFPROTO_INET, NLM_F_DUMP, seq);
	nftnl_rule_nlmsg_build_payload(nlh, filter);
	nftnl_rule_free(filter);
	nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) ||
	    mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	do {
		ssize_t len = mnl_socket_recvfrom(nl, buf, sizeof(buf));

		ret = len < 0 ? MNL_CB_ERROR : mnl_cb_run(buf, (size_t)len, seq, portid, take_rule, &d);
	} while (ret > MNL_CB_STOP);
	ret = ret < 0 ? (d.err ? d.err : -errno) : 0;
out:
	if (ret && why_size)
		snprintf(why, why_size, "cannot read %s's counters: %s", table, strerror(-ret));
	if (nl)
		mnl_socket_close(nl);
	return ret;
}
