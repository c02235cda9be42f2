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
 *  - draining: a reset (or an error) on fd[s] ends direction !s at once
 *    (its peer is gone), but what fd[s]'s peer sent before its reset still
 *    goes on: what fd[s] still reads and what pipe[s] holds. Once that is
 *    all written, nothing is read or written any more (quiet), and fd[!s]
 *    is reset (SO_LINGER 0) and closed when its peer has acknowledged all
 *    it was sent (a reset throws away what its socket still holds). So a
 *    reset passes through behind the data, as it does without a relay (a
 *    reset does not take back what was delivered). No event says
 *    "acknowledged": the relays' drain timer (a timerfd in their epoll
 *    set, armed only while some connection drains) looks at each draining
 *    connection, first after RELAY_DRAIN_CHECK_MS, then less and less
 *    often while nothing moves. A peer that acknowledges nothing more for
 *    RELAY_DRAIN_STALL_MS gets the reset all the same. If both sides were
 *    reset, nothing can go on: the connection closes at once.
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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

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
/* A draining connection whose peer has acknowledged nothing more for this
 * long is reset: a peer that never reads (or is blocked writing to us)
 * must still see the reset, as it would at once without a relay. */
#define RELAY_DRAIN_STALL_MS 5000
/* The drain timer's tick, and each draining connection's first look: a
 * loopback ACK takes microseconds. While nothing moves, a connection's
 * looks come twice as far apart each time, up to RELAY_DRAIN_LOOK_MAX_MS:
 * the agent may keep every connection it may open (RELAY_MAX_CONNS)
 * draining, and that costs at most one ioctl per connection that often,
 * plus a walk of the draining list per tick. */
#define RELAY_DRAIN_CHECK_MS 10
#define RELAY_DRAIN_LOOK_MAX_MS 320

struct conn;
struct listener;

/* What an epoll event's data.ptr points to. */
struct endpoint {
	enum { ENDPOINT_LISTENER, ENDPOINT_CONN, ENDPOINT_DRAIN_TIMER } kind;
	struct listener *listener; /* ENDPOINT_LISTENER */
	struct conn *conn;         /* ENDPOINT_CONN ... */
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
	uint64_t written[2]; /* bytes direction d has written to fd[!d] */
	bool reset[2];  /* fd[i] was reset or failed: direction !i is over */
	/* Draining (see "draining" above), times CLOCK_MONOTONIC: */
	bool draining;  /* a reset waits behind data */
	bool quiet;     /* all of it written, the sockets silenced */
	int drain_from; /* the side that was reset */
	uint64_t acked; /* of written[drain_from], acknowledged at the last look */
	uint64_t progress_ms;  /* when that last grew */
	uint64_t look_ms;      /* the next look */
	unsigned int look_every_ms;
	struct conn *drain_prev, *drain_next; /* the relays' draining list */
	bool dialling;
	bool closed; /* fds gone; freed after the current batch of events */
	struct listener *listener; /* whose connection this is */
	struct conn *prev, *next;
};

struct relays {
	int epfd;
	int timer_fd;           /* the drain timer, armed while any drains */
	struct endpoint timer;  /* its endpoint */
	struct conn *draining;  /* the connections draining */
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
	struct epoll_event ev = { .events = EPOLLIN };
	struct relays *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->host_ns = host_ns;
	r->jail_ns = jail_ns;
	r->max_conns = RELAY_MAX_CONNS;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	r->timer.kind = ENDPOINT_DRAIN_TIMER;
	ev.data.ptr = &r->timer;
	if (r->epfd < 0 || r->timer_fd < 0 || epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->timer_fd, &ev)) {
		if (r->epfd >= 0)
			close(r->epfd);
		if (r->timer_fd >= 0)
			close(r->timer_fd);
		free(r);
		return NULL;
	}
	return r;
}

/* drain_timer() - the drain timer on (a tick every RELAY_DRAIN_CHECK_MS)
 * or off. Return: 0, or -errno. */
static int drain_timer(struct relays *r, bool on)
{
	struct itimerspec t = { 0 };

	if (on) {
		t.it_interval.tv_sec = RELAY_DRAIN_CHECK_MS / 1000;
		t.it_interval.tv_nsec = (RELAY_DRAIN_CHECK_MS % 1000) * 1000000L;
		t.it_value = t.it_interval;
	}
	return timerfd_settime(r->timer_fd, 0, &t, NULL) ? -errno : 0;
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
	l->ep.kind = ENDPOINT_LISTENER;
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
	if (c->draining) {
		if (c->drain_prev)
			c->drain_prev->drain_next = c->drain_next;
		else
			r->draining = c->drain_next;
		if (c->drain_next)
			c->drain_next->drain_prev = c->drain_prev;
		/* A timer that cannot be stopped only ticks for nothing. */
		if (!r->draining)
			drain_timer(r, false);
	}
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

/* now_ms() - CLOCK_MONOTONIC in milliseconds */
static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* unacked() - bytes @fd's peer has yet to acknowledge (sent or not).
 * Return: that count; 0 if it cannot be read, so the reset that waits for
 * it passes on now rather than never. */
static int unacked(int fd)
{
	int n = 0;

	return ioctl(fd, SIOCOUTQ, &n) ? 0 : n;
}

/* drain_done() - look at draining @c at @now. Return: whether its drain is
 * over: what fd[s]'s peer sent has all been read, written and acknowledged,
 * or its reader has acknowledged nothing more for RELAY_DRAIN_STALL_MS. */
static bool drain_done(struct conn *c, uint64_t now)
{
	int s = c->drain_from, left = unacked(c->fd[!s]);
	uint64_t acked = c->written[s] - (uint64_t)left;

	if (c->eof[s] && !c->queued[s] && !left)
		return true;
	if (acked > c->acked) {
		c->acked = acked;
		c->progress_ms = now;
		c->look_every_ms = RELAY_DRAIN_CHECK_MS;
	} else if (c->look_every_ms < RELAY_DRAIN_LOOK_MAX_MS) {
		c->look_every_ms *= 2;
	}
	c->look_ms = now + c->look_every_ms;
	return now - c->progress_ms >= RELAY_DRAIN_STALL_MS;
}

/* start_drain() - fd[@s] was reset or failed: direction !s is over, and the
 * reset waits behind what fd[s]'s peer sent before it.
 * Return: 0, or -errno (no drain timer: the caller resets now). */
static int start_drain(struct relays *r, struct conn *c, int s)
{
	int err;

	c->reset[s] = true;
	if (c->draining)
		return 0;
	if (!r->draining && (err = drain_timer(r, true)))
		return err;
	c->draining = true;
	c->drain_from = s;
	c->acked = c->written[s] - (uint64_t)unacked(c->fd[!s]);
	c->progress_ms = now_ms();
	c->look_every_ms = RELAY_DRAIN_CHECK_MS;
	c->look_ms = c->progress_ms + c->look_every_ms;
	c->drain_prev = NULL;
	c->drain_next = r->draining;
	if (r->draining)
		r->draining->drain_prev = c;
	r->draining = c;
	return 0;
}

/* quieten() - a draining @c has written all it will: from now on neither
 * socket reports anything but an error or a hang-up. Return: 0, or -errno. */
static int quieten(struct relays *r, struct conn *c)
{
	struct epoll_event none = { .events = EPOLLET };
	int i;

	/* The attack: a client that half-closes, sends bytes nobody reads
	 * and holds still kept its socket ready (data, a FIN; one shut for
	 * writing is always writable), and a re-arm per turn made an event
	 * loop that spun the supervisor for as long as the client liked.
	 * Quiet, the drain timer does the looking. */
	for (i = 0; i < 2; i++) {
		none.data.ptr = &c->ep[i];
		if (epoll_ctl(r->epfd, EPOLL_CTL_MOD, c->fd[i], &none))
			return -errno;
	}
	c->quiet = true;
	return 0;
}

/* reset_due() - look at @c after it moved. Return: whether its reset passes
 * on now: both sides were reset, or one was and its drain is over (or
 * cannot go on quietly). */
static bool reset_due(struct relays *r, struct conn *c)
{
	int s = c->drain_from;

	if (c->reset[0] && c->reset[1])
		return true;
	if (!c->draining)
		return false;
	if (drain_done(c, now_ms()))
		return true;
	if (c->quiet || !c->eof[s] || c->queued[s])
		return false;
	/* All written: quiet from now on, or, if it cannot be, reset now. */
	return quieten(r, c) < 0;
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
				if (start_drain(r, c, d)) {
					conn_close(r, c, true);
					return false;
				}
			}
		}
		if (c->queued[d]) {
			n = splice(c->pipe[d][0], NULL, c->fd[!d], NULL, c->queued[d],
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK | more);
			if (n < 0 && errno != EAGAIN) {
				/* fd[!d]'s peer is gone, but what it sent
				 * before its reset may still wait in fd[!d]:
				 * have its direction look once more. */
				if (start_drain(r, c, !d) || rearm(r, c, !d)) {
					conn_close(r, c, true);
					return false;
				}
				break;
			}
			if (n > 0) {
				c->queued[d] -= (size_t)n;
				c->written[d] += (uint64_t)n;
			}
			if (c->queued[d])
				break; /* fd[!d] is full */
		}
		if (drained)
			break;
	}
	if (reset_due(r, c)) {
		conn_close(r, c, true);
		return false;
	}
	if (c->eof[d] && !c->queued[d] && !c->shut[d] && !c->draining) {
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
	/* Quiet: nothing moves any more, only the reset waits. A reset of
	 * the socket being drained ends the wait: the kernel drops what it
	 * held, but SIOCOUTQ (write_seq - snd_una) goes on counting it. */
	if (c->quiet) {
		if ((side != c->drain_from && (events & EPOLLERR)) || drain_done(c, now_ms()))
			conn_close(r, c, true);
		return;
	}
	/* A reset: what fd[side] received before it still goes on (its read
	 * reaches the error after the data); the reset passes on behind it
	 * (move(), reset_due()). */
	if ((events & EPOLLERR) && start_drain(r, c, side)) {
		conn_close(r, c, true);
		return;
	}
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

	c->ep[side].kind = ENDPOINT_CONN;
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

/* on_drain_timer() - a tick: each draining connection whose look is due is
 * looked at, and reset if its drain is over */
static void on_drain_timer(struct relays *r)
{
	uint64_t ticks, now = now_ms();
	struct conn *c, *next;

	/* EAGAIN: the timer was stopped after this tick was queued. */
	if (read(r->timer_fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return;
	for (c = r->draining; c; c = next) {
		next = c->drain_next;
		if (now >= c->look_ms && reset_due(r, c))
			conn_close(r, c, true);
	}
}

/* on_listener() - accept what waits on @l, a turn's worth */
static void on_listener(struct relays *r, struct listener *l)
{
	int fd, k;

	/* Level-triggered: what is left is reported again. */
	for (k = 0; k < RELAY_TURN_ACCEPTS; k++) {
		fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			break;
		accept_one(r, l, fd);
	}
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

		switch (ep->kind) {
		case ENDPOINT_DRAIN_TIMER:
			on_drain_timer(r);
			break;
		case ENDPOINT_LISTENER:
			on_listener(r, ep->listener);
			break;
		case ENDPOINT_CONN:
			if (ep->conn->closed)
				break;
			if (ep->conn->dialling) {
				if (ep->side == 1)
					on_dial(r, ep->conn);
				break;
			}
			on_event(r, ep->conn, ep->side, events[i].events);
			break;
		}
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
	close(r->timer_fd);
	close(r->epfd);
	free(r);
}
