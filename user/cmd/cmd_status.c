// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_status.c - `ebpfjail status`: the jails running now, and what they did */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "builtin.h"
#include "cgroup.h"
#include "cli.h"
#include "jailstate.h"
#include "log.h"

static unsigned long long total_denied(const struct jail_status *st)
{
	unsigned long long n = 0;
	unsigned int i;

	for (i = 0; i < REASON_COUNT; i++)
		if (jailstate_denial(i))
			n += st->denied[i];
	return n;
}

static void uptime(long long started, char *buf, size_t size)
{
	long long s = started ? (long long)time(NULL) - started : 0;

	if (s >= 3600)
		snprintf(buf, size, "%lldh%02lldm", s / 3600, s / 60 % 60);
	else
		snprintf(buf, size, "%lldm%02llds", s / 60, s % 60);
}

static void print_table(const struct jail_status *list, size_t n)
{
	size_t k;
	unsigned int i;

	printf("%-8s  %-7s  %-7s  %-12s  %-8s  %8s  %7s  %5s  %s\n", "ID", "STATE", "PID", "USER",
	       "UPTIME", "ALLOWED", "DENIED", "LOST", "COMMAND");
	for (k = 0; k < n; k++) {
		const struct jail_status *st = &list[k];
		char up[32], user[64];

		uptime(st->started, up, sizeof(up));
		snprintf(user, sizeof(user), "%s", st->user[0] && strcmp(st->user, "-") ? st->user : "?");
		printf("%-8s  %-7s  %-7d  %-12s  %-8s  %8llu  %7llu  %5llu  %s\n", st->id,
		       st->alive ? "running" : "dead", st->agent, user, up, st->allowed,
		       total_denied(st), st->lost, st->command);
		if (total_denied(st)) {
			const char *sep = "";

			printf("          denied:");
			for (i = 0; i < REASON_COUNT; i++)
				if (jailstate_denial(i) && st->denied[i]) {
					printf("%s %s %llu", sep, reason_name(i), st->denied[i]);
					sep = ",";
				}
			printf("\n");
		}
		for (i = 0; i < st->n_relays; i++) {
			printf("          relay: %s 127.0.0.1:%u, %llu open, %llu in all",
			       st->relays[i].kind, st->relays[i].port, st->relays[i].open,
			       st->relays[i].total);
			if (st->relays[i].refused)
				printf(", %llu refused", st->relays[i].refused);
			printf("\n");
		}
		if (st->temporary[0])
			printf("          temporary: %s (until reload)\n", st->temporary);
		if (st->names[0])
			printf("          by name: %s\n", st->names);
		if (st->engine[0])
			printf("          engine: %s\n", st->engine);
		if (st->protections[0])
			printf("          protections: %s\n", st->protections);
	}
}

/* print_words() - a list of plain words (our own: no escaping needed) as
 * JSON strings */
static void print_words(const char *words)
{
	const char *sep = "";
	size_t n;

	for (words += strspn(words, " "); *words; words += n + strspn(words + n, " ")) {
		n = strcspn(words, " ");
		printf("%s\"%.*s\"", sep, (int)n, words);
		sep = ", ";
	}
}

static void print_json(const struct jail_status *list, size_t n)
{
	char user[160], command[1100], temporary[600], names[1100];
	size_t k;
	unsigned int i;

	printf("{\"jails\": [");
	for (k = 0; k < n; k++) {
		const struct jail_status *st = &list[k];
		const char *sep = "";

		audit_json_string(st->user, user, sizeof(user));
		audit_json_string(st->command, command, sizeof(command));
		printf("%s{\"id\": \"%s\", \"state\": \"%s\", \"supervisor\": %d, \"agent\": %d, "
		       "\"uid\": %u, \"user\": %s, \"command\": %s, \"started\": %lld, "
		       "\"allowed\": %llu, \"lost\": %llu, \"denied\": {",
		       k ? ", " : "", st->id, st->alive ? "running" : "dead", st->supervisor,
		       st->agent, st->uid, user, command, st->started, st->allowed, st->lost);
		for (i = 0; i < REASON_COUNT; i++)
			if (jailstate_denial(i) && st->denied[i]) {
				printf("%s\"%s\": %llu", sep, reason_name(i), st->denied[i]);
				sep = ", ";
			}
		printf("}, \"relays\": [");
		for (i = 0; i < st->n_relays; i++)
			printf("%s{\"kind\": \"%s\", \"port\": %u, \"open\": %llu, \"total\": %llu, "
			       "\"refused\": %llu}",
			       i ? ", " : "", st->relays[i].kind, st->relays[i].port,
			       st->relays[i].open, st->relays[i].total, st->relays[i].refused);
		audit_json_string(st->temporary, temporary, sizeof(temporary));
		audit_json_string(st->names, names, sizeof(names));
		printf("], \"temporary\": %s, \"names\": %s, \"engine\": \"%s\", \"protections\": [",
		       temporary, names, st->engine[0] ? st->engine : "bpf");
		print_words(st->protections);
		printf("]}");
	}
	printf("]}\n");
}

int cmd_status(const struct command *cmd, int argc, char **argv)
{
	struct jail_status *list = NULL;
	struct cli_options o;
	size_t n = 0, i;
	bool dead = false;
	int ret;

	ret = cli_parse(cmd, argc, argv, &o);
	if (ret != CLI_CONTINUE)
		goto out;
	ret = jailstate_list(&list, &n);
	if (ret) {
		ret = log_err(EXIT_TROUBLE, "cannot read %s: %s", jailstate_dir(), strerror(-ret));
		goto out;
	}
	if (o.json)
		print_json(list, n);
	else if (n)
		print_table(list, n);
	else
		printf("no jail is running%s\n", jailstate_others_hint());
	for (i = 0; i < n; i++)
		dead |= !list[i].alive;
	/* Stale entries were shown as dead once; now they go (with whatever
	 * their cgroup still holds). */
	if (dead) {
		jailstate_cleanup_dead();
		if (!o.json)
			printf("(dead jails' leftovers removed)\n");
	}
	ret = 0;
out:
	free(list);
	cli_options_free(&o);
	return ret;
}
