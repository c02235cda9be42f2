// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_journal.c - the audit records through a real systemd-journald and
 * back (audit-log = journal)
 *
 * Needs root: each test's child is PID 1 of a PID namespace of its own
 * (in_child), with a mount namespace of its own, journald's runtime
 * directories and journal storage on tmpfs, and starts its own
 * /lib/systemd/systemd-journald there. Nothing reaches the machine's
 * journal, if it has one.
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
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <criterion/criterion.h>

#include "audit.h"
#include "auditlog.h"
#include "dnsmsg.h"
#include "journal.h"

#define JOURNALD "/lib/systemd/systemd-journald"

static pid_t journald = -1;
static int journald_status = -1; /* its wait status once it ended */

/* journald's own output, in the child's tmpfs: shown when a step fails */
#define JOURNALD_LOG "/run/systemd/journald.log"

static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* stop_journald() - SIGTERM, and SIGKILL if it has not ended 2 s later (a
 * journald stuck before its event loop must not hang the test) */
static void stop_journald(void)
{
	int i;

	if (journald <= 0)
		return;
	kill(journald, SIGTERM);
	for (i = 0; i < 40 && waitpid(journald, &journald_status, WNOHANG) == 0; i++)
		usleep(50000);
	if (i == 40) {
		kill(journald, SIGKILL);
		waitpid(journald, &journald_status, 0);
	}
	journald = -1;
}

/* fail_step() - in the child: journald stopped, what it said on stderr
 * (a journald that exited or never listened says why there), exit @step */
static _Noreturn void fail_step(int step)
{
	char buf[4096];
	ssize_t n;
	int fd;

	stop_journald();
	fd = open(JOURNALD_LOG, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		fprintf(stderr, "step %d; journald (ended with %d) said:\n", step,
			journald_status >= 0 ? exit_code(journald_status) : -1);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			fwrite(buf, 1, (size_t)n, stderr);
		close(fd);
	}
	_exit(step);
}

/* private_journald() - in this (child) process: a mount namespace of its
 * own, the /proc of its PID namespace (in_child), tmpfs where journald
 * keeps its sockets and files, a machine ID, and journald started there.
 * Return: 0, or the step that failed (> 0). */
static int private_journald(void)
{
	static const char *const dirs[] = { "/run/systemd", "/run/log", "/var/log/journal" };
	struct stat st;
	size_t i;
	int fd;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
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
		int log = open(JOURNALD_LOG, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(null, 1);
		dup2(log >= 0 ? log : null, 2);
		setenv("SYSTEMD_LOG_LEVEL", "info", 1);
		setenv("SYSTEMD_LOG_TARGET", "console", 1);
		execl(JOURNALD, JOURNALD, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200; i++) { /* at most 10 s */
		if (stat(AUDIT_JOURNAL_SOCKET, &st) == 0 && S_ISSOCK(st.st_mode))
			return 0;
		if (waitpid(journald, &journald_status, WNOHANG) == journald) {
			journald = -1;
			fail_step(6);
		}
		usleep(50000);
	}
	fail_step(6); /* nothing left running */
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
	if (audit_log_open(&log, "journal"))
		fail_step(20);
	for (i = 0; i < n; i++)
		if (i % 2 ? audit_log_hold(&log, wrote[i], strlen(wrote[i]))
			  : audit_log_append(&log, wrote[i], strlen(wrote[i])))
			fail_step(21);
	audit_log_close(&log);
	got = read_back(read, 16, n);
	stop_journald();
	if (got != n) {
		fprintf(stderr, "read back %zu records of %zu\n", got, n);
		fail_step(22);
	}
	for (i = 0; i < n; i++)
		if (strcmp(read[i], wrote[i])) {
			fprintf(stderr, "record %zu:\n  wrote %s  read  %s", i, wrote[i], read[i]);
			fail_step(23);
		}
	_exit(0);
}

/* in_child() - @fn as PID 1 of a PID namespace of its own (private_journald
 * gives it its /proc), its exit code. journald, its child there, reads
 * PID 1's cgroup as the root of the tree it serves: Debian 13's (systemd
 * 257) exits when the machine's PID 1 lies two or more levels outside its
 * cgroup namespace ("Failed to acquire cgroup root path", EUNATCH), as in
 * make check-fresh's nested Debian 13 root or below a systemd session's
 * cgroup. Senders share journald's PID namespace: it takes a client's
 * credentials by pid and stops reading a socket whose peer has none. Its
 * own PID namespace also keeps journald from turning on the machine's
 * kernel audit (refused outside the initial one).
 * Each process dies with its parent (PDEATHSIG): a namespace's PID 1
 * ignores every signal but SIGKILL from outside, and its end ends
 * journald, so an interrupted or timed-out test leaves nothing. */
static int in_child(void (*fn)(void))
{
	pid_t parent = getpid(), pid = fork();
	int status;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		pid_t init;

		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent ||
		    unshare(CLONE_NEWPID)) {
			perror("the test's PID namespace");
			_exit(7);
		}
		init = fork();
		if (init == 0) {
			if (prctl(PR_SET_PDEATHSIG, SIGKILL))
				_exit(7);
			fn();
		}
		if (init < 0 || waitpid(init, &status, 0) != init)
			_exit(7);
		_exit(exit_code(status));
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return exit_code(status);
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
	cr_expect_eq(rc, 0, "the child failed at step %d (1-6 journald, 7 its PID namespace, 20 "
			    "open, 21 write, 22 read back, 23 compare: stderr says which)", rc);
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
	    WEXITSTATUS(status))
		fail_step(30);
	if (audit_journal_fields(lines[1], strlen(lines[1]), &fields) ||
	    journal_send(fields.iov, fields.n))
		fail_step(31);
	got = read_back(read, 4, 2);
	stop_journald();
	if (got != 1 || strcmp(read[0], lines[1])) {
		fprintf(stderr, "read back %zu records, the first: %s", got, got ? read[0] : "-\n");
		fail_step(32);
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
	cr_expect_eq(rc, 0, "the child failed at step %d (1-6 journald, 7 its PID namespace, 30 "
			    "the other user's send, 31 root's, 32 what came back: stderr says)", rc);
}

/* The budget alone: a burst of AUDIT_JOURNAL_BURST at once, then
 * AUDIT_JOURNAL_PER_S a second; what is shed is counted by reason (a count
 * record as its count), a policy record never; the loss records come a
 * round a second. */
Test(journal, the_budget_sheds_past_its_rate_and_counts_by_reason)
{
	static char line[AUDIT_DNS_LINE_MAX + 2], lost[4096];
	struct jail_event e = { .pid = 42, .uid = 1000, .proto = IPPROTO_TCP, .hook = HOOK_CONNECT4,
				.reason = REASON_METADATA, .rule_prefixlen = 32, .family = AF_INET,
				.dport = 80 };
	struct audit_journal_budget b = { .credit_ns = 0 };
	const uint64_t s = 1000000000ULL, t0 = 100 * s;
	struct timespec t = { .tv_sec = 1700000000 };
	size_t i, n, len;

	b.last_ns = t0 - 60 * s; /* long idle: the bucket is full */
	for (i = n = 0; i < AUDIT_JOURNAL_BURST + 10; i++)
		n += audit_journal_take(&b, t0);
	cr_expect_eq(n, AUDIT_JOURNAL_BURST, "a burst at once");
	for (i = n = 0; i < 2 * AUDIT_JOURNAL_PER_S; i++)
		n += audit_journal_take(&b, t0 + s);
	cr_expect_geq(n, AUDIT_JOURNAL_PER_S - 1);
	cr_expect_leq(n, AUDIT_JOURNAL_PER_S, "a second later: a second's worth");

	e.daddr = inet_addr("169.254.169.254");
	strcpy(e.comm, "curl");
	audit_format_event(&e, "j0000001", t, line, AUDIT_DNS_LINE_MAX);
	cr_expect(audit_journal_shed(&b, line));
	audit_format_denial(&e, 99, t, "j0000001", NULL, t, line, AUDIT_DNS_LINE_MAX);
	cr_expect(audit_journal_shed(&b, line));
	e.reason = REASON_PRIVATE;
	audit_format_event(&e, "j0000001", t, line, AUDIT_DNS_LINE_MAX);
	cr_expect(audit_journal_shed(&b, line));
	audit_format_policy("j0000001", "deny", "10.0.0.5:502", 0, t, line, AUDIT_DNS_LINE_MAX);
	cr_expect(!audit_journal_shed(&b, line), "a policy record is never shed");
	cr_expect_eq(b.shed[REASON_METADATA], 1 + 99);
	cr_expect_eq(b.shed[REASON_PRIVATE], 1);

	len = audit_journal_lost(&b, t0 + 2 * s, t, lost, sizeof(lost));
	lost[len] = '\0';
	cr_expect(strstr(lost, "\"jail\": \"j0000001\", \"lost\": 100, \"reason\": \"metadata\"}\n"),
		  "%s", lost);
	cr_expect(strstr(lost, "\"lost\": 1, \"reason\": \"private\"}\n"), "%s", lost);
	cr_expect_eq(b.shed[REASON_METADATA], 0, "counted once");
	audit_format_event(&e, "j0000001", t, line, AUDIT_DNS_LINE_MAX);
	cr_expect(audit_journal_shed(&b, line));
	cr_expect_eq(audit_journal_lost(&b, t0 + 2 * s + s / 2, t, lost, sizeof(lost)), 0,
		     "a round a second");
	cr_expect_gt(audit_journal_lost(&b, t0 + 3 * s, t, lost, sizeof(lost)), 0);
}

/* flood_child() - more denials than the budget takes at once, then one to
 * the metadata service, through a real journald: the first burst arrives
 * whole (the control), the rest come back as loss records by reason, the
 * metadata one among them. Exit 0, or the step. */
static void flood_child(void)
{
	static char line[AUDIT_DNS_LINE_MAX + 2], read[AUDIT_JOURNAL_BURST + 600][AUDIT_DNS_LINE_MAX + 2];
	struct jail_event e = { .pid = 42, .uid = 1000, .proto = IPPROTO_TCP, .hook = HOOK_CONNECT4,
				.reason = REASON_PRIVATE, .rule_prefixlen = 8, .family = AF_INET };
	struct timespec t = { .tv_sec = time(NULL) };
	struct audit_log log;
	size_t i, got = 0, denials = 0, lan = 0, tries;
	const char *p;
	bool metadata = false;
	int step = private_journald();

	if (step)
		_exit(step);
	if (audit_log_open(&log, "journal"))
		fail_step(40);
	strcpy(e.comm, "agent");
	e.daddr = inet_addr("10.0.0.1");
	for (i = 0; i < AUDIT_JOURNAL_BURST + 500; i++) {
		e.dport = (uint16_t)(i + 1);
		audit_format_event(&e, "j0000001", t, line, AUDIT_DNS_LINE_MAX);
		audit_log_hold(&log, line, strlen(line));
	}
	e.reason = REASON_METADATA;
	e.daddr = inet_addr("169.254.169.254");
	e.dport = 80;
	audit_format_event(&e, "j0000001", t, line, AUDIT_DNS_LINE_MAX);
	audit_log_hold(&log, line, strlen(line));
	audit_log_close(&log); /* the held ones, then the loss records */
	/* The budget refills while it sends (AUDIT_JOURNAL_PER_S): a few more
	 * than the burst may go, and the metadata denial itself may. Read
	 * until all of it is back: the metadata record is the last one. */
	for (tries = 0; tries < 50 && (!metadata || denials + lan < AUDIT_JOURNAL_BURST + 500);
	     tries++) {
		if (tries)
			usleep(100000);
		got = read_back(read, AUDIT_JOURNAL_BURST + 600, 1);
		denials = lan = 0;
		metadata = false;
		for (i = 0; i < got; i++) {
			denials += strstr(read[i], "\"reason\": \"private\", \"rule\"") != NULL;
			metadata |= strstr(read[i], "\"reason\": \"metadata\"") != NULL;
			p = strstr(read[i], "\"lost\": ");
			if (p && strstr(read[i], "\"reason\": \"private\"}"))
				lan += strtoul(p + 8, NULL, 10);
		}
	}
	stop_journald();
	if (denials < AUDIT_JOURNAL_BURST || denials > AUDIT_JOURNAL_BURST + AUDIT_JOURNAL_PER_S ||
	    denials + lan != AUDIT_JOURNAL_BURST + 500 || !metadata) {
		fprintf(stderr, "%zu records back, %zu denials, %zu LAN ones lost, metadata %d\n",
			got, denials, lan, metadata);
		fail_step(41);
	}
	_exit(0);
}

/* The attack: a flood of denials past what journald takes of a unit (it
 * drops the rest silently), then the metadata service: ebpfjail sheds past
 * its own, lower budget and says what it shed, by reason. */
Test(journal, a_flood_is_shed_and_its_metadata_denial_still_recorded, .timeout = 60)
{
	int rc;

	need_journald();
	rc = in_child(flood_child);
	cr_expect_eq(rc, 0, "the child failed at step %d (1-6 journald, 7 its PID namespace, 40 "
			    "open, 41 what came back: stderr says)", rc);
}
