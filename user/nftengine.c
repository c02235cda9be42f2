// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nftengine.c - the rootless engine's rules into the kernel (libnftables) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nftables/libnftables.h>

#include "nftengine.h"
#include "nftrules.h"

/* "add table" first makes the "delete" that follows valid when the table
 * is not there yet; in one buffer they are one transaction. */
#define REMOVE_TABLE "add table inet " NFTRULES_TABLE "\ndelete table inet " NFTRULES_TABLE "\n"

/* run() - one transaction of nft commands; @why: nft's first error line */
static int run(const char *text, char *why, size_t why_size)
{
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);
	int err = 0;

	if (why_size)
		why[0] = '\0';
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

int nftengine_apply(const struct policy *p, char *why, size_t why_size)
{
	char *rules = nftrules_format(p), *text;
	int err;

	if (!rules)
		return -ENOMEM;
	text = malloc(sizeof(REMOVE_TABLE) + strlen(rules));
	if (!text) {
		free(rules);
		return -ENOMEM;
	}
	memcpy(text, REMOVE_TABLE, sizeof(REMOVE_TABLE) - 1);
	strcpy(text + sizeof(REMOVE_TABLE) - 1, rules);
	err = run(text, why, why_size);
	free(text);
	free(rules);
	return err;
}

int nftengine_remove(char *why, size_t why_size)
{
	return run(REMOVE_TABLE, why, why_size);
}
