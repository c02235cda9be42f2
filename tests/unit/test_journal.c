// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_journal.c - the audit records through a real systemd-journald and
 * back (audit-log = journal)
 *
 * Needs root: each test's child gets a mount namespace of its own, with
 * journald's runtime directories and journal storage on tmpfs, and starts
 * its own /lib/systemd/systemd-journald there. Nothing reaches the
 * machine's journal, if it has one.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <criterion/criterion.h>

#include "audit.h"
#include "auditlog.h"
#include "dnsmsg.h"
#include "journal.h"

#define JOURNALD "/lib/systemd/systemd-journald"

static pid_t journald = -1;

/* private_journald() - in this (child) process: a mount namespace of its
 * own, tmpfs where journald keeps its sockets and files, a machine ID, and
 * journald started there. Return: 0, or the step that failed (> 0). */
static int private_journald(void)
{
	static const char *const dirs[] = { "/run/systemd", "/run/log", "/var/log/journal" };
	struct stat st;
	size_t i;
	int fd;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 1;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		mkdir(dirs[i], 0755);
		if (mount("tmpfs", dirs[i], "tmpfs", 0, "mode=0755"))
			return 2;
	}
	/* journald names its files after the machine: one of the test's. */
	fd = open("/run/systemd/machine-id", O_WRONLY | O_CREAT | O_TRUNC, 0444);
	if (fd < 0 || write(fd, "0123456789abcdef0123456789abcdef\n", 33) != 33)
		return 3;
	close(fd);
	if (stat("/etc/machine-id", &st) == 0 &&
	    mount("/run/systemd/machine-id", "/etc/machine-id", NULL, MS_BIND, NULL))
		return 4;
	mkdir("/run/systemd/journal", 0755);
	journald = fork();
	if (journald < 0)
		return 5;
	if (journald == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 1);
		dup2(null, 2);
		setenv("SYSTEMD_LOG_LEVEL", "err", 1);
		execl(JOURNALD, JOURNALD, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200; i++) { /* at most 10 s */
		if (stat(AUDIT_JOURNAL_SOCKET, &st) == 0 && S_ISSOCK(st.st_mode))
			return 0;
		usleep(50000);
	}
	return 6;
}

static void stop_journald(void)
{
	if (journald > 0) {
		kill(journald, SIGTERM);
		waitpid(journald, NULL, 0);
	}
}

/* read_back() - the records the journal gives back, at most @max, waiting
 * at most 5 s for @want of them, into @lines */
static size_t read_back(char lines[][AUDIT_DNS_LINE_MAX + 2], size_t max, size_t want)
{
	struct journal_reader *r;
	size_t n = 0, tries;

	if (journal_open(NULL, 0, &r))
		return 0;
	for (tries = 0; tries < 50; tries++) {
		while (n < max && journal_next(r, lines[n], sizeof(lines[n])) > 0)
			n++;
		if (n >= want)
			break;
		journal_wait(r, 100);
	}
	journal_close(r);
	return n;
}

/* every_type() - one line of each kind of record into @lines. Return: how
 * many. */
static size_t every_type(char lines[][AUDIT_DNS_LINE_MAX + 2])
{
	struct jail_event e = { .pid = 42, .uid = 1000, .proto = IPPROTO_TCP, .hook = HOOK_CONNECT4,
				.reason = REASON_METADATA, .rule_prefixlen = 32, .family = AF_INET,
				.dport = 80 };
	struct jail_event u = { .pid = 43, .uid = 1000, .hook = HOOK_CONNECT_UNIX,
				.reason = REASON_UNIX, .family = AF_UNIX };
	uint32_t addrs[] = { inet_addr("198.51.100.7") };
	struct timespec t = { .tv_sec = time(NULL), .tv_nsec = 5000 };
	size_t n = 0;

	e.daddr = inet_addr("169.254.169.254");
	strcpy(e.comm, "curl");
	strcpy(u.comm, "ssh");
	strcpy(u.path, "/run/docker.sock");
	audit_format_event(&e, "j0000001", t, lines[n++], AUDIT_DNS_LINE_MAX);
	audit_format_denial(&e, 99, t, "j0000001", NULL, t, lines[n++], AUDIT_DNS_LINE_MAX);
	audit_format_event(&u, "j0000001", t, lines[n++], AUDIT_DNS_LINE_MAX);
	audit_format_lost("j0000001", 3, REASON_PRIVATE, t, lines[n++], AUDIT_DNS_LINE_MAX);
	audit_format_policy("j0000001", "deny", "10.0.0.5:502", 0, t, lines[n++],
			    AUDIT_DNS_LINE_MAX);
	audit_format_dns("j0000001", "web.example.test", NULL, 0, addrs, 1, NULL, 0, false, 60, t,
			 lines[n++], AUDIT_DNS_LINE_MAX);
	audit_format_dns_denial("j0000001", "x.paste.test", 16, "internet", 0, t, t, lines[n++],
				AUDIT_DNS_LINE_MAX);
	return n;
}

/* round_trip_child() - every record type written with audit-log =
 * journal, read back through the journal as written: exit 0, or the step */
static void round_trip_child(void)
{
	static char wrote[8][AUDIT_DNS_LINE_MAX + 2], read[16][AUDIT_DNS_LINE_MAX + 2];
	struct audit_log log;
	size_t n, i, got;
	int step = private_journald();

	if (step)
		_exit(step);
	n = every_type(wrote);
	if (audit_log_open(&log, "journal")) {
		stop_journald();
		_exit(20);
	}
	for (i = 0; i < n; i++)
		if (i % 2 ? audit_log_hold(&log, wrote[i], strlen(wrote[i]))
			  : audit_log_append(&log, wrote[i], strlen(wrote[i]))) {
			stop_journald();
			_exit(21);
		}
	audit_log_close(&log);
	got = read_back(read, 16, n);
	stop_journald();
	if (got != n) {
		fprintf(stderr, "read back %zu records of %zu\n", got, n);
		_exit(22);
	}
	for (i = 0; i < n; i++)
		if (strcmp(read[i], wrote[i])) {
			fprintf(stderr, "record %zu:\n  wrote %s  read  %s", i, wrote[i], read[i]);
			_exit(23);
		}
	_exit(0);
}

static int in_child(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0)
		fn();
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void need_journald(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: a mount namespace and a journald of the test's own");
	cr_assert_eq(access(JOURNALD, X_OK), 0,
		     "%s is missing: scripts/deps.sh installs it (package systemd)", JOURNALD);
}

/* Every kind of record (a denial, a count record, a Unix socket denial, a
 * loss, a policy change, a name's answer, a refused query) into a real
 * journald and back, byte for byte as the file would hold it. */
Test(journal, every_record_type_goes_in_and_comes_back, .timeout = 60)
{
	int rc;

	need_journald();
	rc = in_child(round_trip_child);
	cr_expect_eq(rc, 0, "the child failed at step %d (1-6 journald, 20 open, 21 write, 22 read "
			    "back, 23 compare: stderr says which)", rc);
}

/* forged_child() - entries with ebpfjail's identifier and a record of the
 * right shape, one sent by root and one by uid 65534: only root's is read
 * back. Exit 0, or the step. */
static void forged_child(void)
{
	static char lines[2][AUDIT_DNS_LINE_MAX + 2], read[4][AUDIT_DNS_LINE_MAX + 2];
	static struct audit_journal fields;
	struct timespec t = { .tv_sec = time(NULL) };
	size_t got;
	int step = private_journald(), status;
	pid_t pid;

	if (step)
		_exit(step);
	audit_format_policy("forged01", "allow", "10.0.0.5", 0, t, lines[0], AUDIT_DNS_LINE_MAX);
	audit_format_policy("root0001", "allow", "10.0.0.6", 0, t, lines[1], AUDIT_DNS_LINE_MAX);
	pid = fork();
	if (pid == 0) { /* another local user: the attacker */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534) ||
		    audit_journal_fields(lines[0], strlen(lines[0]), &fields) ||
		    journal_send(fields.iov, fields.n))
			_exit(1);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		stop_journald();
		_exit(30);
	}
	if (audit_journal_fields(lines[1], strlen(lines[1]), &fields) ||
	    journal_send(fields.iov, fields.n)) {
		stop_journald();
		_exit(31);
	}
	got = read_back(read, 4, 2);
	stop_journald();
	if (got != 1 || strcmp(read[0], lines[1])) {
		fprintf(stderr, "read back %zu records, the first: %s", got, got ? read[0] : "-\n");
		_exit(32);
	}
	_exit(0);
}

/* The attack: another local user sends journal entries that look like a
 * jail's records (identifier, fields, a record of the right shape). The
 * journal says who sent each (_UID, from the socket's credentials), and
 * `ebpfjail audit` as root reads only root's. The control: the same entry
 * sent by root is read back, so the reader did read the journal. */
Test(journal, another_users_entries_are_not_records, .timeout = 60)
{
	int rc;

	need_journald();
	rc = in_child(forged_child);
	cr_expect_eq(rc, 0, "the child failed at step %d (1-6 journald, 30 the other user's send, "
			    "31 root's, 32 what came back: stderr says)", rc);
}
