// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nftengine.c - the rootless engine's rules into the kernel (libnftables) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nftables/libnftables.h>

#include "nftengine.h"
#include "nftrules.h"

/* run() - one transaction of nft commands; @why: nft's first error line */
static int run(const char *text, char *why, size_t why_size)
{
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);
	int err = 0;

	if (!nft || nft_ctx_buffer_error(nft)) {
		err = -ENOMEM;
	} else if (nft_run_cmd_from_buffer(nft, text)) {
		const char *msg = nft_ctx_get_error_buffer(nft);

		snprintf(why, why_size, "%.*s", (int)strcspn(msg ? msg : "", "\n"), msg ? msg : "");
		err = -EINVAL;
	}
	if (nft)
		nft_ctx_free(nft);
	return err;
}

/* drop_table() - generation @gen's table gone (none is no error: the "add"
 * first makes the "delete" valid, and both are one transaction) */
static int drop_table(unsigned int gen, char *why, size_t why_size)
{
	char text[128];

	snprintf(text, sizeof(text), "add table inet %s%u\ndelete table inet %s%u\n",
		 NFTRULES_TABLE, gen, NFTRULES_TABLE, gen);
	return run(text, why, why_size);
}

int nftengine_apply(struct nftengine *e, const struct policy *p, char *why, size_t why_size)
{
	unsigned int gen = e->generation + 1;
	struct nft_script s;
	size_t i;
	int err;

	if (why_size)
		why[0] = '\0';
	err = nftrules_script(p, gen, e->generation ? e->generation : gen, &s);
	for (i = 0; !err && i < s.n; i++)
		err = run(s.steps[i], why, why_size);
	nftrules_script_free(&s);
	if (err) {
		/* Before the last step the old rules still hold: the new
		 * table, as far as it got, goes; the last step is one
		 * transaction, so it changed nothing. */
		char ignored[8];

		drop_table(gen, ignored, sizeof(ignored));
		return err;
	}
	e->generation = gen;
	return 0;
}

int nftengine_remove(struct nftengine *e, char *why, size_t why_size)
{
	int err;

	if (why_size)
		why[0] = '\0';
	if (!e->generation)
		return 0;
	err = drop_table(e->generation, why, why_size);
	if (!err)
		e->generation = 0;
	return err;
}
