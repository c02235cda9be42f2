// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nftengine.c - the rootless engine's rules into the kernel (libnftables) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nftables/libnftables.h>

#include "nftengine.h"
#include "nftrules.h"

int nftengine_apply(const struct policy *p, char *why, size_t why_size)
{
	/* "add table" first makes the "delete" that follows valid when the
	 * table is not there yet; all three are one transaction. */
	static const char replace[] = "add table inet " NFTRULES_TABLE "\n"
				      "delete table inet " NFTRULES_TABLE "\n";
	char *rules = nftrules_format(p), *text = NULL;
	struct nft_ctx *nft = NULL;
	int err = -ENOMEM;

	if (why_size)
		why[0] = '\0';
	if (!rules)
		return -ENOMEM;
	text = malloc(sizeof(replace) + strlen(rules));
	nft = nft_ctx_new(NFT_CTX_DEFAULT);
	if (!text || !nft || nft_ctx_buffer_error(nft))
		goto out;
	memcpy(text, replace, sizeof(replace) - 1);
	strcpy(text + sizeof(replace) - 1, rules);
	err = 0;
	if (nft_run_cmd_from_buffer(nft, text)) {
		const char *msg = nft_ctx_get_error_buffer(nft);

		snprintf(why, why_size, "%.*s", (int)strcspn(msg ? msg : "", "\n"), msg ? msg : "");
		err = -EINVAL;
	}
out:
	if (nft)
		nft_ctx_free(nft);
	free(text);
	free(rules);
	return err;
}
