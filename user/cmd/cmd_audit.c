// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cmd_audit.c - `ebpfjail audit`: what the jails denied, oldest first
 *
 * With audit-log = journal, from the systemd journal (journal.h). Else it
 * reads the rotated files (PATH.4 ... PATH.1) and then PATH, so the newest
 * denial is the last line. --follow keeps reading PATH like `tail -F`: when
 * a jail rotates it away, the rest of the old file is read, then the new
 * one from its start, so nothing is skipped or shown twice.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "audit.h"
#include "auditlog.h"
#include "cli.h"
#include "jailstate.h"
#include "journal.h"
#include "log.h"
#include "dnsfwd.h"
#include "suggest.h"

struct filter {
	bool json;
	time_t since; /* 0: no limit */
	const char *jail;
	unsigned long shown;
	struct suggestions *suggest; /* --suggest: count, print nothing yet */
	int error;                   /* -ENOMEM while counting */
};

static void print_header(void)
{
	printf("%-19s  %-8s  %7s  %-15s  %6s  %-5s  %-21s  %-12s  %-10s  %-18s  %s\n", "TIME", "JAIL",
	       "PID", "COMM", "UID", "PROTO", "DESTINATION", "HOOK", "REASON", "RULE", "COUNT");
}

/* printable() - the log's text for a terminal: an agent chose its comm,
 * so nothing but printable ASCII is written, whatever the log holds. */
static void printable(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < size; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

/* unquoted() - a dns record's list of addresses without its quotes */
static void unquoted(char *dst, const char *src)
{
	for (; *src; src++)
		if (*src != '"')
			*dst++ = *src;
	*dst = '\0';
}

static void print_row(const struct audit_record *r)
{
	/* Room for a path, an address and port, or a name and its type. */
	char when[32], dest[sizeof(r->host) + sizeof(r->qtype) + 8], comm[sizeof(r->comm)];
	char change[sizeof(r->change)];
	char rule_count[48], pid[24], uid[24];
	struct tm tm;

	localtime_r(&r->time.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	if (r->is_lost) {
		printf("%-19s  %-8s  %lu %s%sdenials lost (more kinds at once than the kernel could "
		       "count)\n", when, r->jail, r->lost, r->reason, r->reason[0] ? " " : "");
		return;
	}
	if (r->is_dns) {
		char addrs[sizeof(r->addrs)], refused[sizeof(r->refused)], port[32] = "every port";

		unquoted(addrs, r->addrs);
		unquoted(refused, r->refused);
		printable(dest, sizeof(dest), r->host);
		if (r->dport)
			snprintf(port, sizeof(port), "port %lu", r->dport);
		printf("%-19s  %-8s  dns %s: allowed %s, %s, for %lu s%s%s%s\n", when, r->jail, dest,
		       addrs[0] ? addrs : "nothing", port, r->ttl, refused[0] ? "; refused " : "",
		       refused, r->held ? "; held back by the engine's change cap until the next "
					  "second" : "");
		return;
	}
	if (r->is_policy) {
		printable(change, sizeof(change), r->change);
		printf("%-19s  %-8s  policy %s %s (by uid %lu)\n", when, r->jail, r->policy, change,
		       r->uid);
		return;
	}
	printable(comm, sizeof(comm), r->comm);
	if (r->path[0]) {
		printable(dest, sizeof(dest), r->path); /* the agent's bytes too */
	} else if (!strcmp(r->proto, "dns")) { /* a refused query: its name, its type */
		char name[sizeof(r->host)];

		printable(name, sizeof(name), r->host);
		snprintf(dest, sizeof(dest), "%s %s", name, r->qtype);
	} else if (strchr(r->daddr, ':')) {
		snprintf(dest, sizeof(dest), "[%s]:%lu", r->daddr, r->dport);
	} else {
		snprintf(dest, sizeof(dest), "%s:%lu", r->daddr[0] ? r->daddr : "-", r->dport);
	}
	/* A count record (the kernel's aggregation): that many more of the
	 * same, the latest at its time; nothing for a single denial. */
	if (r->count)
		snprintf(rule_count, sizeof(rule_count), "%-18s  x%lu", r->rule[0] ? r->rule : "-", r->count);
	/* The rootless engine knows no process: "-", not pid or uid 0. */
	snprintf(pid, sizeof(pid), r->pid == AUDIT_UNKNOWN ? "-" : "%lu", r->pid);
	snprintf(uid, sizeof(uid), r->uid == AUDIT_UNKNOWN ? "-" : "%lu", r->uid);
	printf("%-19s  %-8s  %7s  %-15s  %6s  %-5s  %-21s  %-12s  %-10s  %s\n", when, r->jail, pid,
	       comm[0] ? comm : "-", uid, r->proto, dest, r->hook, r->reason,
	       r->count ? rule_count : r->rule[0] ? r->rule : "-");
}

static void show_line(const char *line, struct filter *f)
{
	struct audit_record r;

	if (audit_parse_line(line, &r))
		return; /* not ours (or a torn line after a crash): skip it */
	if (f->since && r.time.tv_sec < f->since)
		return;
	if (f->jail && strcmp(f->jail, r.jail))
		return;
	if (f->suggest) {
		if (r.is_lost || r.is_policy || r.is_dns)
			return;
		if (suggest_add(f->suggest, &r))
			f->error = -ENOMEM;
		f->shown++;
		return;
	}
	if (f->json) {
		fputs(line, stdout);
	} else {
		if (!f->shown)
			print_header();
		print_row(&r);
	}
	f->shown++;
}

/* show_stream() - every complete line from @in's position on */
static void show_stream(FILE *in, struct filter *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	for (;;) {
		long at = ftell(in);

		n = getline(&line, &cap, in);
		if (n <= 0)
			break;
		if (line[n - 1] != '\n') {
			/* Half-written: leave it for the next read. */
			fseek(in, at, SEEK_SET);
			break;
		}
		show_line(line, f);
	}
	clearerr(in);
	free(line);
	fflush(stdout);
}

static int open_log(const char *file, FILE **out)
{
	*out = fopen(file, "re");
	if (*out)
		return 0;
	if (errno == ENOENT)
		return -ENOENT;
	return log_err(-errno, "cannot read the audit log %s: %s%s", file, strerror(errno),
		       errno == EACCES ? " (it is root's: run with sudo)" : "");
}

static int follow(const char *path, FILE *cur, struct filter *f)
{
	struct stat a, b;

	for (;;) {
		if (cur)
			show_stream(cur, f);
		poll(NULL, 0, 200);
		if (!cur) {
			if (open_log(path, &cur) == -EACCES)
				return EXIT_TROUBLE;
			continue;
		}
		/* Rotated or replaced: finish the old file, then the new one. */
		if (stat(path, &a) == 0 && fstat(fileno(cur), &b) == 0 && a.st_ino != b.st_ino) {
			show_stream(cur, f);
			fclose(cur);
			cur = NULL;
			open_log(path, &cur);
		}
	}
}

/* finish() - after the log was read: the suggestions, or what matched
 * nothing. Return: the exit status. */
static int finish(const struct cli_options *o, const struct filter *f, const char *file)
{
	if (f->error)
		return log_err(EXIT_TROUBLE, "audit: out of memory counting the denials");
	if (!f->shown)
		fprintf(stderr, "ebpfjail: %s in %s yet\n",
			o->since || o->jail ? "no denials match" : "no denials recorded", file);
	else if (f->suggest && !suggest_print(f->suggest, stdout))
		fprintf(stderr, "ebpfjail: no configuration line would allow what was denied\n");
	return 0;
}

/* jail_view() - inside a jail, the file of its own denials, or NULL
 * outside one: JAIL_DENIALS_VIEW, or a rootless jail's in the agent's
 * runtime directory */
static const char *jail_view(void)
{
	static char user_view[128];

	if (access(JAIL_DENIALS_VIEW, R_OK) == 0)
		return JAIL_DENIALS_VIEW;
	snprintf(user_view, sizeof(user_view), JAIL_DENIALS_VIEW_USER, (unsigned)getuid());
	if (getenv("EBPFJAIL") && access(user_view, R_OK) == 0)
		return user_view;
	return NULL;
}

/* show_jail_view() - in a jail, its own recent denials from @view
 * (read-only: the supervisor's file), not the audit log. */
static int show_jail_view(const struct cli_options *o, struct filter *f, const char *view)
{
	FILE *in = fopen(view, "re");

	if (!in)
		return log_err(EXIT_TROUBLE, "cannot read %s: %s", view, strerror(errno));
	fprintf(stderr, "ebpfjail: this jail's own recent denials (%s)\n", view);
	show_stream(in, f);
	if (o->follow) {
		fclose(in);
		return follow(view, NULL, f);
	}
	fclose(in);
	return finish(o, f, view);
}

/* show_journal() - the records in the systemd journal (audit-log =
 * journal), oldest first, then new ones as they come with --follow.
 * Return: the exit status. */
static int show_journal(const struct cli_options *o, struct filter *f)
{
	static char line[AUDIT_DNS_LINE_MAX + 2];
	struct journal_reader *r;
	int err = journal_open(o->jail, f->since, &r), n;

	if (err)
		return log_err(EXIT_TROUBLE, "cannot read the systemd journal: %s", err == -EACCES ?
			       "no journal file is readable (run with sudo, or as a member of the "
			       "systemd-journal group)" : strerror(-err));
	for (;;) {
		while ((n = journal_next(r, line, sizeof(line))) > 0)
			show_line(line, f);
		fflush(stdout);
		err = n;
		if (err || !o->follow || (err = journal_wait(r, -1)))
			break;
	}
	journal_close(r);
	if (err)
		return log_err(EXIT_TROUBLE, "cannot read the systemd journal: %s", strerror(-err));
	return finish(o, f, "the systemd journal");
}

/* own_domains() - the host's own domains, for --suggest (suggest.h): from
 * the resolv.conf of where audit runs (the jail's keeps the host's search
 * and domain lines) */
static size_t own_domains(char out[][DNS_NAME_MAX + 1])
{
	char text[DNSFWD_RESOLV_MAX];

	dnsfwd_read_resolv(text);
	return dnsfwd_parse_domains(text, out);
}

int cmd_audit(const struct command *cmd, int argc, char **argv)
{
	static char domains[DNSFWD_DOMAINS_MAX][DNS_NAME_MAX + 1];
	struct suggestions suggestions = { .domains = domains };
	struct filter f = { 0 };
	struct cli_options o;
	struct config cfg;
	const char *view;
	char file[4200];
	FILE *in = NULL;
	int ret, n, err;

	ret = cli_parse(cmd, argc, argv, &o);
	if (ret != CLI_CONTINUE)
		goto out_opts;
	f.json = o.json;
	f.jail = o.jail;
	if (o.suggest && (o.follow || o.json)) {
		ret = cli_usage_error(cmd, "audit: --suggest takes neither --follow nor --json");
		goto out_opts;
	}
	if (o.suggest) {
		f.suggest = &suggestions;
		suggestions.n_domains = own_domains(domains);
	}
	if (o.since && audit_parse_since(o.since, time(NULL), &f.since)) {
		ret = cli_usage_error(cmd,
				      "audit: --since '%s': want a duration (30s, 10m, 2h, 1d) or a "
				      "local time (2026-11-29T10:00)",
				      o.since);
		goto out_opts;
	}
	/* Inside a jail: its own denials, the only ones it may read. */
	view = jail_view();
	if (view) {
		ret = show_jail_view(&o, &f, view);
		goto out_suggest;
	}
	config_init(&cfg);
	if (cli_load_config(&cfg, &o, cli_agent_uid(&o))) {
		ret = EXIT_TROUBLE;
		goto out;
	}
	if (!strcmp(cfg.audit_log, CONFIG_AUDIT_JOURNAL)) {
		ret = show_journal(&o, &f);
		goto out;
	}
	for (n = AUDIT_KEEP; n >= 0; n--) {
		audit_log_file(cfg.audit_log, (unsigned int)n, file, sizeof(file));
		err = open_log(file, &in);
		if (err == -ENOENT)
			continue;
		if (err) {
			ret = EXIT_TROUBLE;
			goto out;
		}
		show_stream(in, &f);
		if (n > 0) {
			fclose(in);
			in = NULL;
		}
	}
	if (o.follow) {
		ret = follow(cfg.audit_log, in, &f);
		in = NULL;
		goto out;
	}
	ret = finish(&o, &f, cfg.audit_log);
out:
	config_free(&cfg);
out_suggest:
	suggest_free(&suggestions);
	if (in)
		fclose(in);
out_opts:
	cli_options_free(&o);
	return ret;
}
