// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* relay.c - splice-based TCP relays between the host's and the jail's loopback
 *
 * Theory of operation
 * -------------------
 * Each relay is a listening socket on 127.0.0.1:N in one namespace; each
 * accepted connection gets a socket connected to 127.0.0.1:N in the other.
 * Sockets keep the namespace they were created in, so the supervisor creates
 * jail-side sockets in a thread inside the jail's namespace (netns_run())
 * and then uses them from the host.
 *
 * A connection is two sockets, fd[0] (accepted) and fd[1] (dialled), and two
 * pipes: pipe[d] carries what fd[d] reads to fd[!d]. Data moves with
 * splice() socket -> pipe -> socket and is never copied to user space. Both
 * sockets are in one edge-triggered epoll set. An event on fd[s] moves what
 * it lets move (move()): EPOLLIN carries direction s, EPOLLOUT resumes
 * direction !s where it stopped on a full fd[s]. A direction moves until
 * reading would block with the pipe empty, writing would block, or its turn
 * is over (RELAY_TURN_BYTES; the socket is then re-armed and waits behind
 * every other event). Both sockets set TCP_NODELAY, and SPLICE_F_MORE is
 * passed only when a read filled the pipe: the relay coalesces what it
 * knows is queued and never holds back what it has. Memory is bounded by
 * the two pipes (RELAY_PIPE_SIZE each, kernel memory) and one small struct
 * per connection.
 *
 * States and what ends them:
 *  - dialling: fd[1]'s connect() in progress; fd[0] is not read until it
 *    completes. A refused dial resets fd[0] at once (the jail's client sees
 *    ECONNRESET, never a hang).
 *  - open: data both ways. EOF on fd[d] with pipe[d] empty becomes
 *    shutdown(fd[!d], SHUT_WR): half-close passes through.
 *  - both directions shut: closed.
 *  - reset: a reset (or an error) on fd[s] ends direction !s at once (its
 *    peer is gone), but what fd[s]'s peer sent before its reset still goes
 *    on: what fd[s] still reads, what pipe[s] holds, and what fd[!s] has
 *    yet to transmit. Only then is fd[!s] reset (SO_LINGER 0) and the
 *    connection closed, so a reset passes through behind the data, as it
 *    does without a relay (a reset does not take back what was delivered).
 * Only the named ports exist: a relay dials its own port and nothing else.
 *
 * Descriptors: each connection holds RELAY_FDS_PER_CONN, and the agent
 * opens as many connections as it likes. Past the cap (relays_set_cap(),
 * set from what the descriptor limit leaves) a new connection is accepted
 * and reset at once, and counted: the supervisor's own descriptors (control
 * socket, audit log) are never the relays' to take.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "log.h"
#include "netns.h"
#include "relay.h"

/* Measured against 1 MiB (the most an unprivileged pipe may have): no
 * difference in throughput, a quarter of the memory a full pipe pins. A
 * pipe the kernel keeps smaller works too: splice() moves what fits, and
 * move() takes a short read for nothing more than that. */
#define RELAY_PIPE_SIZE (256 * 1024)
#define RELAY_BACKLOG 1024
/* Bytes one direction moves per turn before the others get theirs: a few
 * pipes' worth (about a millisecond at loopback speed). */
#define RELAY_TURN_BYTES (4 * RELAY_PIPE_SIZE)
/* Connections accepted per turn of a listener: an agent connecting as fast
 * as it can kept the supervisor in its accept loop. */
#define RELAY_TURN_ACCEPTS 64
/* Events per relays_dispatch(): with the turns above, what one call may
 * cost before the supervisor looks at its other work again. */
#define RELAY_BATCH 64
#define CONN_EVENTS (EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET)

struct conn;
struct listener;

struct endpoint {
	struct listener *listener; /* set for a listening socket */
	struct conn *conn;         /* else the connection ... */
	int side;                  /* ... and which of its sockets */
};

struct listener {
	struct endpoint ep;
	int fd;
	enum relay_direction dir;
	uint16_t port;
	unsigned int open;
	unsigned long total, refused;
};

struct conn {
	struct endpoint ep[2];
	int fd[2];
	int pipe[2][2];
	size_t queued[2];
	bool eof[2];
	bool shut[2];
	bool reset[2]; /* fd[i] was reset or failed: direction !i is over */
	bool dialling;
	bool closed; /* fds gone; freed after the current batch of events */
	struct listener *listener; /* whose connection this is */
	struct conn *prev, *next;
};

struct relays {
	int epfd;
	int host_ns, jail_ns;
	struct listener *listeners[64];
	unsigned int n_listeners;
	struct conn *conns;
	struct conn *dead; /* closed during this batch, freed at its end */
	unsigned int open, max_conns;
	unsigned long total, refused;
};

struct relays *relays_new(int host_ns, int jail_ns)
{
	struct relays *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->host_ns = host_ns;
	r->jail_ns = jail_ns;
	r->max_conns = RELAY_MAX_CONNS;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0) {
		free(r);
		return NULL;
	}
	return r;
}

unsigned int relay_conn_cap(uint64_t nofile, unsigned int in_use, unsigned int reserve)
{
	uint64_t fit;

	if (nofile <= (uint64_t)in_use + reserve)
		return 0;
	fit = (nofile - in_use - reserve) / RELAY_FDS_PER_CONN;
	return fit < RELAY_MAX_CONNS ? (unsigned int)fit : RELAY_MAX_CONNS;
}

void relays_set_cap(struct relays *r, unsigned int max_conns)
{
	r->max_conns = max_conns < RELAY_MAX_CONNS ? max_conns : RELAY_MAX_CONNS;
}

int relays_fd(const struct relays *r)
{
	return r->epfd;
}

static int make_socket(void *arg)
{
	int *fd = arg;

	*fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	return *fd < 0 ? -errno : 0;
}

/* socket_in() - a TCP socket of namespace @ns (we are in host_ns), made
 * by a thread inside it (netns_run()): a rootless supervisor can enter
 * the jail's namespace but never come back. Return: it, or -1 with errno
 * set. */
static int socket_in(const struct relays *r, int ns)
{
	int fd = -1, err;

	if (ns == r->host_ns)
		return socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	err = netns_run(ns, make_socket, &fd);
	if (err) {
		errno = -err;
		return -1;
	}
	return fd;
}

static struct sockaddr_in loopback(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sin;
}

int relays_add(struct relays *r, enum relay_direction dir, uint16_t port)
{
	struct sockaddr_in sin = loopback(port);
	struct epoll_event ev = { .events = EPOLLIN };
	struct listener *l;
	int one = 1, err;

	if (r->n_listeners == sizeof(r->listeners) / sizeof(r->listeners[0]))
		return -ENOSPC;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->dir = dir;
	l->port = port;
	l->ep.listener = l;
	l->fd = socket_in(r, dir == RELAY_INTO_HOST ? r->jail_ns : r->host_ns);
	if (l->fd < 0 || setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l->fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(l->fd, RELAY_BACKLOG))
		goto fail;
	ev.data.ptr = &l->ep;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, l->fd, &ev))
		goto fail;
	r->listeners[r->n_listeners++] = l;
	return 0;
fail:
	err = -errno;
	if (l->fd >= 0)
		close(l->fd);
	free(l);
	return err;
}

static void conn_close(struct relays *r, struct conn *c, bool reset)
{
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	int i;

	for (i = 0; i < 2; i++) {
		if (c->fd[i] >= 0) {
			/* SO_LINGER 0: close() sends RST, so a reset (or a
			 * refused dial) reaches the peer as one. */
			if (reset)
				setsockopt(c->fd[i], SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
			close(c->fd[i]);
		}
		if (c->pipe[i][0] >= 0)
			close(c->pipe[i][0]);
		if (c->pipe[i][1] >= 0)
			close(c->pipe[i][1]);
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		r->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	r->open--;
	c->listener->open--;
	/* Events for the other socket may still wait in this batch: keep the
	 * memory until the batch is done. */
	c->closed = true;
	c->next = r->dead;
	r->dead = c;
}

static void free_dead(struct relays *r)
{
	while (r->dead) {
		struct conn *c = r->dead;

		r->dead = c->next;
		free(c);
	}
}

/* rearm() - have epoll report fd[@side] again if it is ready now: an
 * edge-triggered socket whose turn ended with work left raises no new edge
 * by itself (EPOLL_CTL_MOD re-polls it and queues its event).
 * Return: 0, or -errno (the connection would stall: the caller resets it). */
static int rearm(struct relays *r, struct conn *c, int side)
{
	struct epoll_event ev = { .events = CONN_EVENTS };

	ev.data.ptr = &c->ep[side];
	return epoll_ctl(r->epfd, EPOLL_CTL_MOD, c->fd[side], &ev) ? -errno : 0;
}

/* unsent() - bytes fd still has to transmit (queued, not yet sent) */
static int unsent(int fd)
{
	int n = 0;

	return ioctl(fd, SIOCOUTQNSD, &n) ? 0 : n;
}

/* reset_due() - fd[@s] was reset, and all its peer sent before has gone
 * on through fd[!s], transmitted: the reset may follow. A reset discards
 * what its socket has yet to transmit, so while fd[!s] holds some (its
 * reader is slow), TCP_NOTSENT_LOWAT 1 makes it writable only once it has
 * sent it all, and the re-poll has its EPOLLOUT report that moment (or
 * now, if it already has). */
static bool reset_due(struct relays *r, struct conn *c, int s)
{
	int one = 1;

	if (!c->reset[s] || !c->eof[s] || c->queued[s])
		return false;
	if (!unsent(c->fd[!s]))
		return true;
	/* Without the wakeup it would wait for ever: reset now instead. */
	return setsockopt(c->fd[!s], IPPROTO_TCP, TCP_NOTSENT_LOWAT, &one, sizeof(one)) ||
	       rearm(r, c, !s);
}

/* move() - carry direction @d (fd[d] -> pipe[d] -> fd[!d]) until reading
 * would block with nothing queued, writing would block (EPOLLOUT on
 * fd[!d] resumes it), or the turn is over.
 * Return: false if @c was closed. */
static bool move(struct relays *r, struct conn *c, int d)
{
	size_t turn = 0;

	/* fd[!d] was reset: what goes its way has nowhere to go. */
	while (!c->reset[!d] && turn < RELAY_TURN_BYTES) {
		unsigned int more = 0;
		bool drained = c->eof[d];
		ssize_t n;

		/* EAGAIN means "socket empty" only with the pipe empty: a pipe
		 * fills by its 64 slots too, one per run of small segments,
		 * long before RELAY_PIPE_SIZE bytes, and then says EAGAIN. */
		if (!c->eof[d] && c->queued[d] < RELAY_PIPE_SIZE) {
			size_t room = RELAY_PIPE_SIZE - c->queued[d];

			n = splice(c->fd[d], NULL, c->pipe[d][1], NULL, room,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				c->queued[d] += (size_t)n;
				turn += (size_t)n;
				/* A full pipe: more is waiting behind it, so
				 * the writer need not push a partial segment. */
				if ((size_t)n == room)
					more = SPLICE_F_MORE;
			} else if (n == 0) {
				c->eof[d] = drained = true;
			} else if (errno == EAGAIN) {
				drained = !c->queued[d];
			} else {
				/* A read reaches a reset only after the data
				 * before it: that data still goes on. */
				c->eof[d] = drained = true;
				c->reset[d] = true;
			}
		}
		if (c->queued[d]) {
			n = splice(c->pipe[d][0], NULL, c->fd[!d], NULL, c->queued[d],
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK | more);
			if (n < 0 && errno != EAGAIN) {
				/* fd[!d]'s peer is gone, but what it sent
				 * before its reset may still wait in fd[!d]:
				 * have its direction look once more. */
				c->reset[!d] = true;
				if (rearm(r, c, !d)) {
					conn_close(r, c, true);
					return false;
				}
				break;
			}
			if (n > 0)
				c->queued[d] -= (size_t)n;
			if (c->queued[d])
				break; /* fd[!d] is full */
		}
		if (drained)
			break;
	}
	if ((c->reset[0] && c->reset[1]) || reset_due(r, c, 0) || reset_due(r, c, 1)) {
		conn_close(r, c, true);
		return false;
	}
	if (c->eof[d] && !c->queued[d] && !c->shut[d] && !c->reset[d] && !c->reset[!d]) {
		/* Half-close, only after all that was read is written. */
		shutdown(c->fd[!d], SHUT_WR);
		c->shut[d] = true;
	}
	if (c->shut[0] && c->shut[1]) {
		conn_close(r, c, false);
		return false;
	}
	/* The attack: one connection kept busy held the supervisor here
	 * while data moved, and root's deny, hostwatch and SIGTERM waited.
	 * A turn is bounded; what is left waits behind the others. */
	if (turn >= RELAY_TURN_BYTES && rearm(r, c, d)) {
		conn_close(r, c, true);
		return false;
	}
	return true;
}

/* move_both() - each direction in turn, as far as it goes. Return: false if
 * @c was closed. */
static bool move_both(struct relays *r, struct conn *c)
{
	return move(r, c, 0) && move(r, c, 1);
}

/* on_event() - what @events on socket @side let move: what fd[side] reads,
 * and what waits in the pipe towards it once it is writable again */
static void on_event(struct relays *r, struct conn *c, int side, uint32_t events)
{
	/* A reset: what fd[side] received before it still goes on (its read
	 * reaches the error after the data); the reset passes on behind it
	 * (move(), reset_due()). */
	if (events & EPOLLERR)
		c->reset[side] = true;
	/* EPOLLOUT: room for what waits in pipe[!side], or a reset due once
	 * fd[side] has sent all it holds. */
	if ((events & EPOLLOUT) && (c->queued[!side] || c->reset[!side]) && !move(r, c, !side))
		return;
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		move(r, c, side);
}

/* watch() - set up socket @side of @c for relaying: TCP_NODELAY, and into
 * the epoll set, edge-triggered. Return: 0, or -1 with errno set. */
static int watch(struct relays *r, struct conn *c, int side)
{
	struct epoll_event ev = { .events = CONN_EVENTS };
	int one = 1;

	/* The client's segments are gone once read: without TCP_NODELAY a
	 * request written in two parts waited, part two held back until part
	 * one was acknowledged, for the server's delayed ACK (15-21 ms a
	 * request). Coalescing is SPLICE_F_MORE's job, only while more is
	 * known to be queued. */
	setsockopt(c->fd[side], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));

	c->ep[side].conn = c;
	c->ep[side].side = side;
	ev.data.ptr = &c->ep[side];
	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, c->fd[side], &ev);
}

static void accept_one(struct relays *r, struct listener *l, int fd)
{
	struct sockaddr_in sin = loopback(l->port);
	struct conn *c;
	int i;

	r->total++;
	/* The attack: hundreds of silent connections, six descriptors each,
	 * took every descriptor the supervisor had, and root's `ebpfjail
	 * deny` with them. Over the cap: reset this one at once (the client
	 * sees ECONNRESET, never a hang), keep the others going. */
	c = r->open < r->max_conns ? calloc(1, sizeof(*c)) : NULL;
	if (!c) {
		struct linger rst = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
		close(fd);
		r->refused++;
		l->refused++;
		return;
	}
	c->fd[0] = fd;
	c->fd[1] = -1;
	c->listener = l;
	l->open++;
	l->total++;
	for (i = 0; i < 2; i++)
		c->pipe[i][0] = c->pipe[i][1] = -1;
	c->next = r->conns;
	if (r->conns)
		r->conns->prev = c;
	r->conns = c;
	r->open++;

	for (i = 0; i < 2; i++) {
		if (pipe2(c->pipe[i], O_NONBLOCK | O_CLOEXEC))
			goto fail;
		fcntl(c->pipe[i][1], F_SETPIPE_SZ, RELAY_PIPE_SIZE);
	}
	c->fd[1] = socket_in(r, l->dir == RELAY_INTO_HOST ? r->host_ns : r->jail_ns);
	if (c->fd[1] < 0)
		goto fail;
	if (connect(c->fd[1], (struct sockaddr *)&sin, sizeof(sin))) {
		if (errno != EINPROGRESS)
			goto refused;
		c->dialling = true;
	}
	if (watch(r, c, 0) || watch(r, c, 1))
		goto fail;
	if (!c->dialling)
		move_both(r, c);
	return;
refused:
	r->refused++;
	l->refused++;
fail:
	conn_close(r, c, true);
}

static void on_dial(struct relays *r, struct conn *c)
{
	socklen_t len = sizeof(int);
	int err = 0;

	if (getsockopt(c->fd[1], SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		if (err != EINPROGRESS && err != EALREADY) {
			r->refused++;
			c->listener->refused++;
			conn_close(r, c, true);
			return;
		}
	}
	c->dialling = false;
	move_both(r, c);
}

void relays_dispatch(struct relays *r)
{
	struct epoll_event events[RELAY_BATCH];
	int n, i;

	/* One batch per call: events left over keep relays_fd() readable, and
	 * the supervisor comes back after its other work. */
	n = epoll_wait(r->epfd, events, RELAY_BATCH, 0);
	for (i = 0; i < n; i++) {
		struct endpoint *ep = events[i].data.ptr;

		if (ep->listener) {
			int fd, k;

			/* Level-triggered: what is left is reported again. */
			for (k = 0; k < RELAY_TURN_ACCEPTS; k++) {
				fd = accept4(ep->listener->fd, NULL, NULL,
					     SOCK_NONBLOCK | SOCK_CLOEXEC);
				if (fd < 0)
					break;
				accept_one(r, ep->listener, fd);
			}
			continue;
		}
		if (ep->conn->closed)
			continue;
		if (ep->conn->dialling) {
			if (ep->side == 1)
				on_dial(r, ep->conn);
			continue;
		}
		on_event(r, ep->conn, ep->side, events[i].events);
	}
	free_dead(r);
}

void relays_stats(const struct relays *r, struct relay_stats *out)
{
	out->listeners = r->n_listeners;
	out->open = r->open;
	out->total = r->total;
	out->refused = r->refused;
}

int relays_listener(const struct relays *r, unsigned int i, struct relay_listener_stats *out)
{
	if (i >= r->n_listeners)
		return -ENOENT;
	out->dir = r->listeners[i]->dir;
	out->port = r->listeners[i]->port;
	out->open = r->listeners[i]->open;
	out->total = r->listeners[i]->total;
	out->refused = r->listeners[i]->refused;
	return 0;
}

void relays_free(struct relays *r)
{
	unsigned int i;

	if (!r)
		return;
	while (r->conns)
		conn_close(r, r->conns, true);
	free_dead(r);
	for (i = 0; i < r->n_listeners; i++) {
		close(r->listeners[i]->fd);
		free(r->listeners[i]);
	}
	close(r->epfd);
	free(r);
}
