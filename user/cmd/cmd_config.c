// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_config.c - `ebpfjail config [KEY]`: the effective configuration and
 * its sources, whole or one key's lines */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* print_key() - the lines of config_print() that set @key */
static int print_key(const struct config *cfg, const char *key)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0, klen = strlen(key);
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return EXIT_TROUBLE;
	config_print(cfg, mem);
	fclose(mem);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, klen) && !strncmp(line + klen, " = ", 3))
			puts(line);
	free(text);
	return 0;
}

int cmd_config(const struct command *cmd, int argc, char **argv)
{
	struct cli_options o;
	struct config cfg;
	int ret;

	ret = cli_parse(cmd, argc, argv, &o);
	if (ret != CLI_CONTINUE)
		goto out;
	if (o.n_rest > 1 || (o.n_rest == 1 && !config_is_key(o.rest[0]))) {
		ret = cli_usage_error(cmd, "config: '%s' is not a configuration key",
				      o.rest[o.n_rest - 1]);
		goto out;
	}
	config_init(&cfg);
	if (cli_load_config(&cfg, &o, cli_agent_uid(&o)) == 0) {
		ret = o.n_rest ? print_key(&cfg, o.rest[0]) : (config_print(&cfg, stdout), 0);
	} else {
		char hint[1024];

		cli_trust_hint(&cfg, &o, cli_agent_uid(&o), hint, sizeof(hint));
		fprintf(stderr, "ebpfjail: the configuration is invalid; nothing would start%s%s\n",
			hint[0] ? "; if you wrote the lines not approved, approve them: " : "",
			hint);
		ret = EXIT_TROUBLE;
	}
	config_free(&cfg);
out:
	cli_options_free(&o);
	return ret;
}
