// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* fuzz_config.c - libFuzzer target: the configuration parser on any bytes
 *
 * Built with ASan and UBSan (make fuzz). Also checks two invariants the
 * parser promises: a valid result prints to text that parses back valid,
 * and every diagnostic is one line of printable text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* broken() - say which promise the input broke, then crash (libFuzzer saves
 * the input). Never returns. */
static void __attribute__((noreturn)) broken(const char *promise)
{
	fprintf(stderr, "fuzz_config: %s\n", promise);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cfg, again;
	char *printed = NULL;
	size_t len = 0, i;
	FILE *f;

	config_init(&cfg);
	config_parse_buffer(&cfg, "fuzz.conf", (const char *)data, size);
	config_finish(&cfg);
	for (i = 0; i < cfg.n_diags; i++)
		for (const char *p = cfg.diags[i].text; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				broken("a diagnostic holds a raw byte, which would reach the terminal");
	/* Every unix-socket kept is in the one spelling the jail compares. */
	for (i = 0; i < cfg.n_unix_socket; i++) {
		const char *u = cfg.unix_socket[i].name;
		size_t n = strlen(u);

		if (u[0] != '/' || n < 2 || n > CONFIG_UNIX_SOCKET_MAX || u[n - 1] == '/' ||
		    strstr(u, "//") || strstr(u, "/./") || strstr(u, "/../") ||
		    !strcmp(u + n - 2, "/.") || (n >= 3 && !strcmp(u + n - 3, "/..")) ||
		    strpbrk(u, " #"))
			broken("a unix-socket kept is not in the one spelling the jail compares");
	}
	if (config_ok(&cfg)) {
		f = open_memstream(&printed, &len);
		config_print(&cfg, f);
		fclose(f);
		config_init(&again);
		config_parse_buffer(&again, "printed", printed, len);
		config_finish(&again);
		if (!config_ok(&again) || again.n_allow_ip != cfg.n_allow_ip ||
		    again.n_block_cidr != cfg.n_block_cidr || again.n_pass_env != cfg.n_pass_env ||
		    again.n_unix_socket != cfg.n_unix_socket || again.share_tmp != cfg.share_tmp)
			broken("what `ebpfjail config` prints does not read back the same");
		config_free(&again);
		free(printed);
	}
	config_free(&cfg);
	return 0;
}
