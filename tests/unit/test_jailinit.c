// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* test_jailinit.c - the init's channel: messages, credentials, and what is
 * not one of ours (the init itself runs in every jail of the integration
 * suite) */
#include <errno.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <criterion/criterion.h>

#include "jailinit.h"

static int fds[2];

static void open_channel(void)
{
	cr_assert_eq(jailinit_channel(fds), 0);
}

static void close_channel(void)
{
	close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
}

TestSuite(jailinit, .init = open_channel, .fini = close_channel);

Test(jailinit, started_carries_the_senders_pid)
{
	struct jailinit_msg m;
	pid_t sender, child = fork();

	cr_assert_geq(child, 0);
	if (child == 0)
		_exit(jailinit_started(fds[1]) ? 1 : 0);
	cr_assert_eq(waitpid(child, NULL, 0), child);
	cr_assert_eq(jailinit_receive(fds[0], &m, &sender), 0);
	cr_expect_eq(m.event, JAILINIT_STARTED);
	cr_expect_eq(sender, child, "the credentials name the sender: %d, want %d", sender, child);
	cr_expect_eq(jailinit_receive(fds[0], &m, &sender), -EAGAIN);
}

Test(jailinit, foreign_messages_are_refused)
{
	struct jailinit_msg m = { .event = 99 };
	char junk[3] = "abc";
	pid_t sender;

	cr_assert_eq(send(fds[1], &m, sizeof(m), 0), (ssize_t)sizeof(m));
	cr_expect_eq(jailinit_receive(fds[0], &m, &sender), -EPROTO, "an unknown event");
	cr_assert_eq(send(fds[1], junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	cr_expect_eq(jailinit_receive(fds[0], &m, &sender), -EPROTO, "a short message");
	close(fds[1]);
	fds[1] = -1;
	cr_expect_eq(jailinit_receive(fds[0], &m, &sender), -EPIPE, "the init is gone");
}

/* The init, unjailed (no PID namespace): it reports the agent's stop,
 * continue and end in order, with the agent's own wait status. */
Test(jailinit, reports_stop_continue_and_end)
{
	struct jailinit_msg m;
	pid_t sender, init;
	int i, want[] = { JAILINIT_STOPPED, JAILINIT_CONTINUED, JAILINIT_EXITED };

	init = fork();
	cr_assert_geq(init, 0);
	if (init == 0) {
		sigset_t all;
		pid_t agent;

		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		agent = fork();
		if (agent == 0) {
			sigset_t none;

			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
			struct timespec t = { 0, 200 * 1000 * 1000 };

			raise(SIGSTOP);
			/* Long enough for the init to see it continued:
			 * a state an exit overtakes is never reported. */
			nanosleep(&t, NULL);
			_exit(7);
		}
		jailinit_run(fds[1], agent);
	}
	for (i = 0; i < 3; i++) {
		struct timespec step = { 0, 10 * 1000 * 1000 };
		int err, tries;

		for (tries = 0; tries < 500; tries++) { /* at most 5 s */
			err = jailinit_receive(fds[0], &m, &sender);
			if (err != -EAGAIN)
				break;
			nanosleep(&step, NULL);
		}
		cr_assert_eq(err, 0, "message %d: %d", i, err);
		cr_expect_eq(m.event, want[i], "message %d: event %d, want %d", i, m.event, want[i]);
		cr_expect_eq(sender, init);
		/* What the supervisor sends the init goes on to the agent. */
		if (m.event == JAILINIT_STOPPED)
			sigqueue(init, SIGCONT, (union sigval){ .sival_int = JAILINIT_FORWARD });
	}
	cr_expect(WIFEXITED(m.status) && WEXITSTATUS(m.status) == 7, "status %#x", m.status);
	waitpid(init, NULL, 0);
}
