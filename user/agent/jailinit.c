// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* jailinit.c - PID 1 of the agent's PID namespace: it forwards, reaps, reports
 *
 * Theory of operation
 * -------------------
 * The agent gets a PID namespace of its own (docs/DESIGN.md, "Processes"),
 * so the user's other processes, the supervisor and pasta are out of its
 * sight and reach. The namespace's first process is this init, the
 * supervisor's child; the agent is the init's child (PID 2). A PID 1 that
 * left a signal at its default would ignore it (the kernel protects a
 * namespace's init), so the agent cannot be PID 1: Ctrl-C must still end
 * it, and its exit status must still be its own.
 *
 * The init blocks every signal and reads them from a signalfd:
 *   - SIGCHLD: reap. Orphans of the agent (PID 1 inherits them) are
 *     reaped and forgotten; the agent's stop, continue and end are sent to
 *     the supervisor (which mirrors a terminal stop, see supervisor.c, and
 *     returns the status).
 *     When the agent is gone the init exits, and the kernel kills whatever
 *     the agent left in the namespace.
 *   - a signal the supervisor forwards (SIGTERM, SIGHUP, ... sent to it,
 *     queued with JAILINIT_FORWARD): passed on to the agent.
 *   - a stop the terminal sent (SIGTSTP, SIGTTIN, SIGTTOU from the kernel):
 *     it reached the agent; the supervisor is told, for job control.
 *   - any other: dropped. The terminal's (Ctrl-C, SIGWINCH) and a kill()
 *     of the whole process group reached the agent itself.
 * The init and the agent are a process group of their own (agent.c), the
 * terminal's foreground if the supervisor's was: a kill() of its process
 * group by the agent never reaches the supervisor.
 * The channel is a SEQPACKET socket pair: one message per event, and the
 * agent's first message (sent just before its exec) carries its pid as
 * credentials, which the kernel translates into the supervisor's numbering.
 * Nothing the agent sends can do more than tell its own story wrongly.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "jailinit.h"
#include "log.h"

int jailinit_channel(int fds[2])
{
	int on = 1;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds))
		return -errno;
	if (setsockopt(fds[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on))) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		return err;
	}
	return 0;
}

/* send_event() - one message to the supervisor. Return: 0 or -errno. */
static int send_event(int fd, enum jailinit_event event, int status)
{
	struct jailinit_msg m = { .event = event, .status = status };
	ssize_t n;

	do
		n = send(fd, &m, sizeof(m), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == sizeof(m) ? 0 : -errno;
}

int jailinit_started(int fd)
{
	return send_event(fd, JAILINIT_STARTED, 0);
}

int jailinit_receive(int fd, struct jailinit_msg *m, pid_t *sender)
{
	char control[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			     .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	ssize_t n;

	*sender = -1;
	do
		n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (n == 0)
		return -EPIPE;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			*sender = cred.pid;
		}
	if (n != sizeof(*m) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    m->event < JAILINIT_STARTED || m->event > JAILINIT_EXITED)
		return -EPROTO;
	return 0;
}

/* reap() - every child that changed state, the agent's reported.
 * Return: true once the agent is gone. */
static bool reap(int fd, pid_t agent)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG | WUNTRACED | WCONTINUED)) > 0) {
		if (pid != agent)
			continue; /* an orphan of the agent's, now reaped */
		if (WIFSTOPPED(status)) {
			send_event(fd, JAILINIT_STOPPED, 0);
		} else if (WIFCONTINUED(status)) {
			send_event(fd, JAILINIT_CONTINUED, 0);
		} else {
			send_event(fd, JAILINIT_EXITED, status);
			return true;
		}
	}
	return false;
}

/* from_supervisor() - @si claims to come from outside the agent's PID
 * namespace (numbered 0 there, as the init's parent is) or, without one,
 * from the parent. A claim only: rt_sigqueueinfo() lets any sender write
 * si_pid, so nothing taken from a queued signal may do more than the
 * agent could do itself (JAILINIT_FORWARD: signal the agent). */
static bool from_supervisor(const struct signalfd_siginfo *si)
{
	return si->ssi_pid == (uint32_t)getppid();
}

/* take_request() - what the supervisor queued (jailinit.h) */
static void take_request(const struct signalfd_siginfo *si, pid_t agent)
{
	if (si->ssi_int == JAILINIT_FORWARD)
		kill(agent, (int)si->ssi_signo);
}

void jailinit_run(int fd, pid_t agent)
{
	struct signalfd_siginfo si;
	sigset_t all;
	int sfd;

	sigfillset(&all);
	sfd = signalfd(-1, &all, SFD_CLOEXEC);
	if (sfd < 0) {
		log_msg(LOG_ERR, "the agent's init cannot watch signals: %s", strerror(errno));
		kill(agent, SIGKILL);
		_exit(125);
	}
	/* The agent may be gone already. */
	if (reap(fd, agent))
		_exit(0);
	for (;;) {
		ssize_t n = read(sfd, &si, sizeof(si));

		if (n != sizeof(si)) {
			if (n < 0 && errno == EINTR)
				continue;
			kill(agent, SIGKILL);
			_exit(125);
		}
		if (si.ssi_signo == SIGCHLD) {
			if (reap(fd, agent))
				_exit(0);
		} else if (si.ssi_code == SI_QUEUE && from_supervisor(&si)) {
			take_request(&si, agent);
		} else if (si.ssi_code == SI_KERNEL &&
			   (si.ssi_signo == SIGTSTP || si.ssi_signo == SIGTTIN ||
			    si.ssi_signo == SIGTTOU)) {
			send_event(fd, JAILINIT_TERMINAL_STOP, (int)si.ssi_signo);
		}
	}
}
