// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_trust.c - which files the agent could have written; approval records */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <criterion/criterion.h>

#include "trust.h"

static struct stat mode(uid_t uid, mode_t m)
{
	return (struct stat){ .st_uid = uid, .st_mode = m };
}

Test(trust, root_only)
{
	struct stat st;

	st = mode(0, S_IFREG | 0644);
	cr_expect(trust_root_only(&st, false));
	st = mode(1000, S_IFREG | 0644);
	cr_expect_not(trust_root_only(&st, false), "a user's file");
	st = mode(0, S_IFREG | 0664);
	cr_expect_not(trust_root_only(&st, false), "group-writable");
	st = mode(0, S_IFREG | 0646);
	cr_expect_not(trust_root_only(&st, false), "world-writable");
	st = mode(0, S_IFDIR | 01777);
	cr_expect(trust_root_only(&st, true), "/tmp: nobody replaces root's entries");
	st = mode(0, S_IFREG | 01666);
	cr_expect_not(trust_root_only(&st, false), "sticky means nothing on a file");
	st = mode(1000, S_IFDIR | 01777);
	cr_expect_not(trust_root_only(&st, true), "a user's sticky directory");
}

Test(trust, record_round_trip)
{
	char *lines[] = { "allow-ip = 192.0.2.1", "local-port = 5432" };
	struct config_approval a = { 0 };
	char *text = trust_record_format("/home/u/.config/ebpfjail.conf", 1000, lines, 2);

	cr_assert_not_null(text);
	cr_assert_eq(trust_record_parse(text, strlen(text), "/home/u/.config/ebpfjail.conf", &a), 0);
	cr_assert_eq(a.n_lines, 2);
	cr_expect_str_eq(a.lines[0], "allow-ip = 192.0.2.1");
	cr_expect_str_eq(a.lines[1], "local-port = 5432");
	trust_approval_free(&a);
	/* Another file's record (a name collision) approves nothing. */
	cr_expect_eq(trust_record_parse(text, strlen(text), "/home/u/other.conf", &a), -EINVAL);
	trust_approval_free(&a);
	/* Cut short: not what trust wrote. */
	cr_expect_eq(trust_record_parse(text, strlen(text) - 1, "/home/u/.config/ebpfjail.conf",
					&a),
		     -EINVAL);
	trust_approval_free(&a);
	free(text);
	cr_expect_eq(trust_record_parse("line allow-ip = 10.0.0.1\n", 25, "/x", &a), -EINVAL,
		     "no path line");
	trust_approval_free(&a);
	cr_expect_eq(trust_record_parse("path /x\nbogus\n", 14, "/x", &a), -EINVAL);
	trust_approval_free(&a);
}

/* A scratch tree under /tmp, owned by whoever runs the tests. */
static char dir[] = "/tmp/ebpfjail-trust.XXXXXX";
static char file[300], sub[300], link_path[300];

static void make_tree(void)
{
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/ebpfjail.conf", dir);
	snprintf(sub, sizeof(sub), "%s/open", dir);
	snprintf(link_path, sizeof(link_path), "%s/link.conf", dir);
	f = fopen(file, "w");
	cr_assert_not_null(f);
	fputs("allow-ip = 192.0.2.1\n", f);
	fclose(f);
	cr_assert_eq(chmod(file, 0644), 0);
}

static void remove_tree(void)
{
	char inner[400];

	snprintf(inner, sizeof(inner), "%s/ebpfjail.conf", sub);
	unlink(inner);
	rmdir(sub);
	unlink(link_path);
	unlink(file);
	rmdir(dir);
}

TestSuite(trust_files, .init = make_tree, .fini = remove_tree);

static bool writable(const char *path, uid_t agent)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0);
	return trust_agent_writable(path, &st, agent);
}

Test(trust_files, root_tree_is_root_only)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: the files must be root's");
	cr_expect_not(writable(file, 1000), "root's file in root's directories under /tmp");
	cr_expect(writable(file, 0), "an agent run as root owns root's files");
	cr_assert_eq(chmod(file, 0666), 0);
	cr_expect(writable(file, 1000), "world-writable file");
	cr_assert_eq(chmod(file, 0644), 0);
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_expect(writable(file, 1000), "a directory anybody can replace the file in");
	cr_assert_eq(chmod(dir, 0700), 0);
	cr_assert_eq(chown(dir, 1000, 1000), 0);
	cr_expect(writable(file, 1000), "a directory of the user's");
	cr_assert_eq(chown(dir, 0, 0), 0);
}

/* A link in root's directory to a file under a directory anybody can
 * write: the file is the agent's, however root's the link looks. */
Test(trust_files, link_target_counts)
{
	char inner[400];
	FILE *f;

	if (geteuid() != 0)
		cr_skip_test("needs root: the files must be root's");
	cr_assert_eq(mkdir(sub, 0777), 0);
	cr_assert_eq(chmod(sub, 0777), 0);
	snprintf(inner, sizeof(inner), "%s/ebpfjail.conf", sub);
	f = fopen(inner, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(chmod(inner, 0644), 0);
	cr_assert_eq(symlink(inner, link_path), 0);
	cr_expect(writable(link_path, 1000));
	cr_assert_eq(chmod(sub, 0755), 0);
	cr_expect_not(writable(link_path, 1000), "the same, once only root can change it");
	/* Another user's link in a sticky directory of root's (/tmp) picks
	 * which of root's files is read. */
	cr_assert_eq(chmod(dir, 01777), 0);
	cr_expect_not(writable(link_path, 1000), "root's link in a sticky directory");
	cr_assert_eq(lchown(link_path, 1000, 1000), 0);
	cr_expect(writable(link_path, 1000), "a user's link in a sticky directory");
	cr_assert_eq(chmod(dir, 0700), 0);
}
