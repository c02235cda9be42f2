// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_auditlog.c - the audit log file: held lines written in order, when
 * due, and at close */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>

#include "auditlog.h"

static char dir[64], path[128];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/var/tmp/ebpfjail-auditlog.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/audit.jsonl", dir);
}

static void remove_dir(void)
{
	unlink(path);
	rmdir(dir);
}

/* file_text() - the log's whole text now, in @buf */
static const char *file_text(char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	cr_assert_geq(fd, 0);
	n = read(fd, buf, size - 1);
	close(fd);
	cr_assert_geq(n, 0);
	buf[n] = '\0';
	return buf;
}

TestSuite(auditlog, .init = make_dir, .fini = remove_dir);

Test(auditlog, a_held_line_waits_and_comes_before_the_next_appended)
{
	struct audit_log log;
	char text[256];

	cr_assert_eq(audit_log_open(&log, path), 0);
	cr_expect_eq(audit_log_due(&log), -1, "nothing held: nothing due");
	cr_assert_eq(audit_log_hold(&log, "held\n", 5), 0);
	cr_expect_str_eq(file_text(text, sizeof(text)), "", "a held line is not written at once");
	cr_expect(audit_log_due(&log) > 0 && audit_log_due(&log) <= 10,
		  "due within AUDIT_HOLD_NS, not now: %d ms", audit_log_due(&log));
	cr_assert_eq(audit_log_append(&log, "appended\n", 9), 0);
	cr_expect_str_eq(file_text(text, sizeof(text)), "held\nappended\n");
	cr_expect_eq(audit_log_due(&log), -1);
	audit_log_close(&log);
}

Test(auditlog, held_lines_are_due_in_time_and_written_at_close)
{
	struct timespec hold = { .tv_nsec = (long)AUDIT_HOLD_NS + 1000000 };
	struct audit_log log;
	char text[256];

	cr_assert_eq(audit_log_open(&log, path), 0);
	cr_assert_eq(audit_log_hold(&log, "one\n", 4), 0);
	nanosleep(&hold, NULL);
	cr_assert_eq(audit_log_hold(&log, "two\n", 4), 0);
	cr_expect_eq(audit_log_due(&log), 0, "the first line's time is up: all are due");
	cr_assert_eq(audit_log_flush(&log), 0);
	cr_expect_str_eq(file_text(text, sizeof(text)), "one\ntwo\n");
	cr_assert_eq(audit_log_hold(&log, "three\n", 6), 0);
	audit_log_close(&log);
	cr_expect_str_eq(file_text(text, sizeof(text)), "one\ntwo\nthree\n",
			 "close writes what is held");
}

Test(auditlog, a_full_hold_is_written_first_and_nothing_is_cut)
{
	static char line[AUDIT_HOLD_BYTES / 3], text[AUDIT_HOLD_BYTES * 2];
	struct audit_log log;
	size_t i;

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	cr_assert_eq(audit_log_open(&log, path), 0);
	for (i = 0; i < 4; i++)
		cr_assert_eq(audit_log_hold(&log, line, sizeof(line)), 0);
	cr_expect_eq(strlen(file_text(text, sizeof(text))), 3 * sizeof(line),
		     "three fit; the fourth wrote them first");
	audit_log_close(&log);
	cr_expect_eq(strlen(file_text(text, sizeof(text))), 4 * sizeof(line));
}
