// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nftengine.c - the rootless engine's rules into the kernel (libnftables) */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int nftengine_change(struct nftengine *e, const struct policy *in_force,
		     const struct policy_rule *set, size_t n_set, const struct policy_key *del,
		     size_t n_del, char *why, size_t why_size)
{
	struct nft_ctx *nft;
	struct nft_script s;
	size_t i;
	int err;

	if (why_size)
		why[0] = '\0';
	if (!e->generation)
		return -EOPNOTSUPP;
	err = nftrules_change(in_force, &e->chains, e->generation, set, n_set, del, n_del, &s);
	if (err || !s.n) {
		nftrules_script_free(&s);
		return err;
	}
	nft = open_nft();
	if (!nft)
		err = -ENOMEM;
	for (i = 0; !err && i < s.n; i++)
		err = run_transaction(nft, s.steps[i], why, why_size);
	if (nft)
		nft_ctx_free(nft);
	nftrules_script_free(&s);
	return err;
}

int nftengine_renew(struct nftengine *e, char *why, size_t why_size)
{
	uint32_t mark = e->chains.mark + 1;
	struct nft_ctx *nft;
	char text[512];
	int err;

	if (why_size)
		why[0] = '\0';
	if (!e->generation || !e->chains.kept)
		return -EOPNOTSUPP;
	if (nftrules_renew(e->generation, mark, text, sizeof(text)))
		return -ENOMEM;
	nft = open_nft();
	if (!nft)
		return -ENOMEM;
	err = run_transaction(nft, text, why, why_size);
	nft_ctx_free(nft);
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

int nftengine_denied(const struct nftengine *e, uint64_t denied[REASON_COUNT], char *why,
		     size_t why_size)
{
	unsigned int kind = REASON_COUNT; /* the deny chain being read, if any */
	const char *out, *line, *next;
	struct nft_ctx *nft;
	char cmd[64];
	int err;

	memset(denied, 0, REASON_COUNT * sizeof(*denied));
	if (why_size)
		why[0] = '\0';
	if (!e->generation)
		return 0;
	nft = open_nft();
	if (!nft || nft_ctx_buffer_output(nft)) {
		if (nft)
			nft_ctx_free(nft);
		return -ENOMEM;
	}
	snprintf(cmd, sizeof(cmd), "list table inet %s%u\n", NFTRULES_TABLE, e->generation);
	err = run_transaction(nft, cmd, why, why_size);
	out = err ? NULL : nft_ctx_get_output_buffer(nft);
	/* Each deny chain's first rule starts with its counter:
	 *   chain deny_4_8 {
	 *           counter packets 12 bytes 336 limit rate ... */
	for (line = out; line && *line; line = next) {
		const char *nl = strchr(line, '\n'), *c;
		unsigned int reason, len;
		uint64_t packets;

		next = nl ? nl + 1 : line + strlen(line);
		if (sscanf(line, " chain deny_%u_%u {", &reason, &len) == 2) {
			kind = reason < REASON_COUNT ? reason : REASON_COUNT;
			continue;
		}
		c = strstr(line, "counter packets ");
		if (kind < REASON_COUNT && c && sscanf(c, "counter packets %" SCNu64, &packets) == 1) {
			denied[kind] += packets;
			kind = REASON_COUNT;
		}
	}
	nft_ctx_unbuffer_output(nft);
	nft_ctx_free(nft);
	return err;
}
