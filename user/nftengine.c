// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nftengine.c - the rootless engine's rules into the kernel (libnftables) */
#include <errno.h>
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

int nftengine_apply(struct nftengine *e, const struct policy *p, char *why, size_t why_size)
{
	unsigned int gen = e->generation + 1;
	struct nft_ctx *nft;
	struct nft_script s;
	size_t i;
	int err;

	if (why_size)
		why[0] = '\0';
	err = nftrules_script(p, gen, e->generation, &s);
	if (err)
		return err;
	nft = open_nft();
	if (!nft) {
		nftrules_script_free(&s);
		return -ENOMEM;
	}
	for (i = 0; !err && i < s.n; i++)
		err = run_transaction(nft, s.steps[i], why, why_size);
	nftrules_script_free(&s);
	if (err) {
		/* Before the last step the old rules still hold: the new
		 * table, as far as it got, goes; the last step is one
		 * transaction, so it changed nothing. */
		char ignored[8];

		drop_table(nft, gen, ignored, sizeof(ignored));
	} else {
		e->generation = gen;
	}
	nft_ctx_free(nft);
	return err;
}

int nftengine_remove(struct nftengine *e, char *why, size_t why_size)
{
	struct nft_ctx *nft;
	int err;

	if (why_size)
		why[0] = '\0';
	if (!e->generation)
		return 0;
	nft = open_nft();
	if (!nft)
		return -ENOMEM;
	err = drop_table(nft, e->generation, why, why_size);
	nft_ctx_free(nft);
	if (!err)
		e->generation = 0;
	return err;
}
