// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* relaystress.c - a relay's users, the way iperf3 and database clients use it
 *
 * Usage: relaystress serve ADDR:PORT
 *        relaystress client ADDR:PORT SESSIONS [SEED]
 *        relaystress hold ADDR:PORT MS FILE [reset]
 *        relaystress upload-reset ADDR:PORT
 *
 * The client holds one long-lived control connection (iperf3's, a database
 * session) and, beside it, opens SESSIONS short data connections one after
 * another. Each data connection carries checksummed bytes both ways at once:
 * the client sends its stream while the server sends its own, and the way
 * a session ends turns over five modes (enum session_mode): the client
 * half-closes first; the server does; the server resets; the server
 * half-closes and then closes with bytes unread, so a reset follows its
 * FIN; the server answers and then resets. Every byte must arrive, in
 * order, each side must see EOF only after the last byte, and a reset
 * must arrive as one, after every byte its sender had sent. Around
 * each session the control connection carries a ping and must answer it: a
 * relay that cuts the long connection when a short one ends (what cut
 * iperf3's control connection) breaks the very next ping.
 *
 * The server forks a child per connection; a child that finds a wrong byte
 * resets its connection, so the client counts it. The client prints
 * "sessions:N ok:K broken:B", each broken session's reason on stderr, and
 * exits 0 only when every session and the control connection held.
 * Every wait is bounded (10 s without progress is a stall).
 *
 * Two single sessions for a reset that must wait in the relay:
 *  - hold: a reader with a 2 KiB receive buffer asks for a 64 KiB answer
 *    that the server follows with a reset (SERVER_ANSWERS_THEN_RESETS),
 *    half-closes, creates FILE and holds still for MS before it reads:
 *    the reset waits in the relay behind what the reader has not taken.
 *    Then it must read the whole answer and ECONNRESET ("hold: ok"); with
 *    "reset", it resets instead of reading ("hold: reset").
 *  - upload-reset: the server writes and never reads
 *    (SERVER_WRITES_UNTIL_ERROR); the client sends until nothing more
 *    goes for FULL_MS (the server's window is 0) and resets. The server's
 *    child prints "writer: ERRNO after N ms" when its write fails, or
 *    "writer: still writing after N ms" after WRITER_MS.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define STALL_MS 10000
#define MAX_PAYLOAD (512 * 1024)
/* SERVER_ANSWERS_THEN_RESETS: how long the client waits before it reads,
 * so that the answer fills what it holds and the rest waits in the relay */
#define ANSWER_WAIT_US 50000
/* upload-reset: the way is full when nothing more goes for FULL_MS; at
 * most UPLOAD_MAX bytes. Its server gives up after WRITER_MS. */
#define FULL_MS 300
#define UPLOAD_MAX (64ULL << 20)
#define WRITER_MS 15000

/* The first byte of a connection says what it is. */
#define KIND_CONTROL 'C'
#define KIND_DATA 'D'

/* A data session's header, after its kind byte (network byte order). */
struct session_hdr {
	uint32_t seed;
	uint32_t up_len;   /* client -> server */
	uint32_t down_len; /* server -> client */
	uint32_t mode;
};

/* How a session ends. */
enum session_mode {
	CLIENT_SHUTS_FIRST,
	SERVER_SHUTS_FIRST,
	/* The server reads half of the client's stream and resets, as
	 * iperf3's server closes its data socket with bytes unread: the
	 * client must see the reset, the control connection must not. */
	SERVER_RESETS,
	/* The server half-closes at once, reads half and closes with the
	 * rest unread (an HTTP server done with its answer, iperf3's at
	 * TEST_END): its FIN comes first, then a reset for what still
	 * arrives, and the relay's next write to it fails with EPIPE. The
	 * client may see the reset or, if all it sent was in flight
	 * already, a clean end. */
	SERVER_SHUTS_THEN_CLOSES,
	/* The server writes its whole answer, waits until the peer's kernel
	 * has acknowledged every byte of it, and resets. Straight over
	 * loopback the client then reads the whole answer and only then
	 * ECONNRESET (a reset does not take back what was delivered): a
	 * relay, which acknowledged the answer, must deliver it before it
	 * passes the reset on. The client waits before it reads, so the
	 * answer is still in the relay when the reset comes. */
	SERVER_ANSWERS_THEN_RESETS,
	SESSION_MODES,
	/* Not in the rotation: upload-reset's. */
	SERVER_WRITES_UNTIL_ERROR = SESSION_MODES
};

/* stream_byte() - byte @i of the stream @seed names: both ends compute it,
 * so any byte lost, doubled or moved is seen */
static uint8_t stream_byte(uint32_t seed, uint64_t i)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL ^ seed;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return (uint8_t)x;
}

/* xorshift32() - the client's choice of seeds and lengths */
static uint32_t xorshift32(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* parse_number() - all of @s as a decimal number from 1 to @max. Return:
 * 0, or -1 if it is not one. */
static int parse_number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || *out < 1 || *out > max ? -1 : 0;
}

/* parse_addr() - ADDR:PORT into @sin. Return: 0, or -1 if it is not one. */
static int parse_addr(const char *spec, struct sockaddr_in *sin)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	unsigned long port;

	if (!colon || (size_t)(colon - spec) >= sizeof(host) || parse_number(colon + 1, 65535, &port))
		return -1;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sin->sin_addr) == 1 ? 0 : -1;
}

/* write_all() - blocking write of @len bytes. Return: 0, or -errno. */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* read_full() - blocking read of exactly @len bytes within STALL_MS.
 * Return: 0, -ENODATA on an early EOF, or -errno. */
static int read_full(int fd, void *buf, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char *p = buf;

	while (len) {
		ssize_t n;

		if (poll(&pfd, 1, STALL_MS) == 0)
			return -ETIMEDOUT;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENODATA;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* How an exchange() ended: the bytes it read, and the errno of the call
 * that failed (0: none did). */
struct exchange_end {
	uint64_t got;
	int err;
};

/* exchange() - send @send_len bytes of stream @send_seed while reading
 * @recv_len bytes of stream @recv_seed and then EOF, both at once (neither
 * side may wait for the other to read first: the buffers would fill and
 * both would block). @shut_first: half-close as soon as all is sent, before
 * the peer's EOF; otherwise only after it. @end: where it ended, or NULL.
 * Return: NULL, or a short reason. */
static const char *exchange(int fd, uint32_t send_seed, uint64_t send_len, uint32_t recv_seed,
			    uint64_t recv_len, bool shut_first, struct exchange_end *end)
{
	static char why[96];
	struct exchange_end none;
	uint64_t sent = 0, got = 0;
	bool eof = false, shut = false;
	uint8_t buf[16384];

	if (!end)
		end = &none;
	end->got = 0;
	end->err = 0;
	while (!eof || !shut) {
		struct pollfd pfd = { .fd = fd, .events = 0 };
		int r;

		if (sent == send_len && !shut && (shut_first || eof)) {
			if (shutdown(fd, SHUT_WR)) {
				end->err = errno;
				snprintf(why, sizeof(why), "shutdown: %s", strerror(errno));
				return why;
			}
			shut = true;
			continue;
		}
		if (!eof)
			pfd.events |= POLLIN;
		if (sent < send_len)
			pfd.events |= POLLOUT;
		if (!pfd.events)
			continue;
		r = poll(&pfd, 1, STALL_MS);
		if (r == 0) {
			end->err = ETIMEDOUT;
			snprintf(why, sizeof(why), "stall: sent %llu/%llu, got %llu/%llu",
				 (unsigned long long)sent, (unsigned long long)send_len,
				 (unsigned long long)got, (unsigned long long)recv_len);
			return why;
		}
		if (r < 0)
			continue;
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

			if (n == 0) {
				if (got != recv_len) {
					snprintf(why, sizeof(why), "EOF after %llu of %llu bytes",
						 (unsigned long long)got,
						 (unsigned long long)recv_len);
					return why;
				}
				eof = true;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				end->err = errno;
				snprintf(why, sizeof(why), "read: %s after %llu of %llu bytes",
					 strerror(errno), (unsigned long long)got,
					 (unsigned long long)recv_len);
				return why;
			}
			for (ssize_t i = 0; i < n; i++, got++)
				if (got >= recv_len || buf[i] != stream_byte(recv_seed, got)) {
					snprintf(why, sizeof(why), "wrong byte at %llu",
						 (unsigned long long)got);
					return why;
				}
			end->got = got;
		}
		if ((pfd.revents & POLLOUT) && sent < send_len) {
			size_t k = send_len - sent < sizeof(buf) ? (size_t)(send_len - sent) : sizeof(buf);
			ssize_t n;

			for (size_t i = 0; i < k; i++)
				buf[i] = stream_byte(send_seed, sent + i);
			n = send(fd, buf, k, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0 && errno != EAGAIN && errno != EINTR) {
				end->err = errno;
				snprintf(why, sizeof(why), "write: %s after %llu of %llu bytes",
					 strerror(errno), (unsigned long long)sent,
					 (unsigned long long)send_len);
				return why;
			}
			if (n > 0)
				sent += (uint64_t)n;
		}
	}
	return NULL;
}

/* serve_control() - echo each byte until EOF, then half-close and close */
static void serve_control(int fd)
{
	char buf[256];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		if (write_all(fd, buf, (size_t)n))
			return;
	if (n == 0)
		shutdown(fd, SHUT_WR);
}

/* answer_then_reset() - SERVER_ANSWERS_THEN_RESETS: @len bytes of @seed's
 * stream, then, once the peer's kernel has acknowledged all of them
 * (SIOCOUTQ: nothing left unacknowledged; at most STALL_MS), a reset */
static void answer_then_reset(int fd, uint32_t seed, uint32_t len)
{
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	uint8_t buf[16384];
	uint32_t sent = 0;
	int i, unacked = 1;

	while (sent < len) {
		uint32_t k = len - sent < sizeof(buf) ? len - sent : (uint32_t)sizeof(buf);

		for (uint32_t j = 0; j < k; j++)
			buf[j] = stream_byte(seed, sent + j);
		if (write_all(fd, buf, k))
			return;
		sent += k;
	}
	for (i = 0; i < STALL_MS && unacked; i++) {
		if (ioctl(fd, SIOCOUTQ, &unacked)) {
			perror("relaystress serve: SIOCOUTQ");
			break;
		}
		if (unacked)
			usleep(1000);
	}
	if (unacked > 0)
		fprintf(stderr, "relaystress serve: %d bytes never acknowledged\n", unacked);
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
}

/* write_until_error() - SERVER_WRITES_UNTIL_ERROR: write, never read,
 * until a write fails or WRITER_MS have passed; say which on stdout */
static void write_until_error(int fd)
{
	struct timespec t0, t;
	uint8_t buf[16384] = { 0 };
	long ms = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };

		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms >= WRITER_MS) {
			printf("writer: still writing after %ld ms\n", ms);
			break;
		}
		if (poll(&pfd, 1, 100) <= 0) /* and look at the clock again */
			continue;
		if (send(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
		    errno != EAGAIN && errno != EINTR) {
			printf("writer: %s after %ld ms\n", strerrorname_np(errno), ms);
			break;
		}
	}
	fflush(stdout);
}

/* serve_data() - one session: the header, then both streams at once. A
 * wrong byte resets the connection, so the client counts the session. */
static void serve_data(int fd)
{
	struct session_hdr h;
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	const char *why;

	if (read_full(fd, &h, sizeof(h)))
		return;
	if (ntohl(h.mode) == SERVER_ANSWERS_THEN_RESETS) {
		answer_then_reset(fd, ntohl(h.seed) ^ 0x5a5a5a5a, ntohl(h.down_len));
		return;
	}
	if (ntohl(h.mode) == SERVER_WRITES_UNTIL_ERROR) {
		write_until_error(fd);
		return;
	}
	if (ntohl(h.mode) == SERVER_RESETS || ntohl(h.mode) == SERVER_SHUTS_THEN_CLOSES) {
		uint8_t *half = malloc(ntohl(h.up_len) / 2);

		if (ntohl(h.mode) == SERVER_SHUTS_THEN_CLOSES)
			shutdown(fd, SHUT_WR);
		if (half)
			read_full(fd, half, ntohl(h.up_len) / 2);
		free(half);
		if (ntohl(h.mode) == SERVER_RESETS)
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
		return;
	}
	why = exchange(fd, ntohl(h.seed) ^ 0x5a5a5a5a, ntohl(h.down_len), ntohl(h.seed),
		       ntohl(h.up_len), ntohl(h.mode) == SERVER_SHUTS_FIRST, NULL);
	if (why) {
		fprintf(stderr, "relaystress serve: %s\n", why);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
	}
}

/* serve() - accept on @sin for ever, a child per connection. Return: 1 if
 * it cannot listen or accept. */
static int serve(const struct sockaddr_in *sin)
{
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (const struct sockaddr *)sin, sizeof(*sin)) || listen(lfd, 1024)) {
		perror("relaystress serve");
		return 1;
	}
	signal(SIGCHLD, SIG_IGN); /* children reap themselves */
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		char kind;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			perror("relaystress accept");
			return 1;
		}
		if (fork() == 0) {
			close(lfd);
			if (read_full(fd, &kind, 1) == 0) {
				if (kind == KIND_CONTROL)
					serve_control(fd);
				else if (kind == KIND_DATA)
					serve_data(fd);
			}
			close(fd);
			_exit(0);
		}
		close(fd);
	}
}

/* dial() - a connection of @kind to @sin, its connect() bounded by
 * STALL_MS (SO_SNDTIMEO), then its kind byte. @rcvbuf: SO_RCVBUF before
 * the connect (its window follows it), or 0. Return: the fd, or -errno. */
static int dial(const struct sockaddr_in *sin, char kind, int rcvbuf)
{
	struct timeval stall = { .tv_sec = STALL_MS / 1000 };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if ((rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &stall, sizeof(stall)) ||
	    connect(fd, (const struct sockaddr *)sin, sizeof(*sin))) {
		/* A connect() that SO_SNDTIMEO ended says EINPROGRESS. */
		int err = errno == EINPROGRESS ? -ETIMEDOUT : -errno;

		close(fd);
		return err;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (write_all(fd, &kind, 1)) {
		close(fd);
		return -EIO;
	}
	return fd;
}

/* ping() - one line on the control connection, answered the same. Return:
 * NULL, or why not. */
static const char *ping(int ctl, unsigned int k)
{
	char out[16], in[16];
	int len = snprintf(out, sizeof(out), "%08u\n", k % 100000000u), err;

	if (write_all(ctl, out, (size_t)len))
		return "control connection: write failed";
	err = read_full(ctl, in, (size_t)len);
	if (err == -ENODATA)
		return "control connection: EOF before its end";
	if (err)
		return "control connection: no answer";
	return memcmp(in, out, (size_t)len) ? "control connection: wrong answer" : NULL;
}

/* client() - the control connection and @sessions data sessions beside it,
 * lengths and streams from @seed. Return: 0 if every one held, else 1. */
static int client(const struct sockaddr_in *sin, unsigned int sessions, uint32_t seed)
{
	unsigned int k, ok = 0, broken = 0;
	const char *why;
	int ctl, err;
	char c;

	ctl = dial(sin, KIND_CONTROL, 0);
	if (ctl < 0) {
		fprintf(stderr, "relaystress: control connection: %s\n", strerror(-ctl));
		return 1;
	}
	for (k = 0; k < sessions; k++) {
		enum session_mode mode = k % SESSION_MODES;
		struct session_hdr h;
		uint32_t up, down;
		struct exchange_end end = { 0 };
		int fd;

		why = ping(ctl, 2 * k);
		if (why) {
			fprintf(stderr, "relaystress: before session %u: %s\n", k, why);
			broken += sessions - k;
			break;
		}
		/* Lengths from 0 to MAX_PAYLOAD, often small, as a request
		 * and its answer are; now and then one side sends nothing. */
		up = xorshift32(&seed) % (MAX_PAYLOAD + 1) >> (xorshift32(&seed) % 8);
		down = xorshift32(&seed) % (MAX_PAYLOAD + 1) >> (xorshift32(&seed) % 8);
		h.seed = htonl(xorshift32(&seed));
		if (mode == SERVER_RESETS || mode == SERVER_SHUTS_THEN_CLOSES)
			up = 4 * MAX_PAYLOAD, down = 0;
		/* More than the client's socket holds while it waits: the
		 * rest is in the relay (its pipe, its socket's send queue)
		 * when the reset arrives. */
		if (mode == SERVER_ANSWERS_THEN_RESETS)
			up = 0, down = 4 * MAX_PAYLOAD;
		h.up_len = htonl(k % 7 == 3 && up <= MAX_PAYLOAD ? 0 : up);
		h.down_len = htonl(k % 11 == 5 && mode != SERVER_ANSWERS_THEN_RESETS ? 0 : down);
		h.mode = htonl(mode);
		fd = dial(sin, KIND_DATA, 0);
		if (fd < 0) {
			fprintf(stderr, "relaystress: session %u: connect: %s\n", k, strerror(-fd));
			broken++;
			continue;
		}
		why = write_all(fd, &h, sizeof(h)) ? "header not sent" : NULL;
		if (!why && mode == SERVER_ANSWERS_THEN_RESETS)
			usleep(ANSWER_WAIT_US);
		if (!why)
			why = exchange(fd, ntohl(h.seed), ntohl(h.up_len), ntohl(h.seed) ^ 0x5a5a5a5a,
				       ntohl(h.down_len),
				       mode == CLIENT_SHUTS_FIRST || mode == SERVER_RESETS ||
					       mode == SERVER_ANSWERS_THEN_RESETS,
				       &end);
		/* The whole answer, and then the reset as the call after it. */
		if (mode == SERVER_ANSWERS_THEN_RESETS) {
			static char cut[96];

			if (!why) {
				why = "the server's reset did not pass through";
			} else if (end.got != ntohl(h.down_len)) {
				snprintf(cut, sizeof(cut), "the reset cut the answer: %llu of %u bytes (%s)",
					 (unsigned long long)end.got, ntohl(h.down_len), why);
				why = cut;
			} else if (end.err == ECONNRESET) {
				why = NULL;
			}
		}
		/* A reset shows as whichever call meets it first. */
		if (mode == SERVER_RESETS || mode == SERVER_SHUTS_THEN_CLOSES) {
			bool reset = why && (end.err == ECONNRESET || end.err == EPIPE ||
					     end.err == ENOTCONN);

			if (reset || (!why && mode == SERVER_SHUTS_THEN_CLOSES))
				why = NULL;
			else if (!why)
				why = "the server's reset did not pass through";
		}
		close(fd);
		/* iperf3's order: the control connection speaks right as
		 * the data connection ends. */
		if (!why)
			why = ping(ctl, 2 * k + 1);
		if (why) {
			static const char *const names[] = {
				"client shuts first", "server shuts first", "server resets",
				"server shuts, then closes with bytes unread",
				"server answers, then resets"
			};

			fprintf(stderr, "relaystress: session %u (up %u, down %u, %s): %s\n", k,
				ntohl(h.up_len), ntohl(h.down_len), names[mode], why);
			broken++;
		} else {
			ok++;
		}
	}
	/* The control connection ends when we end it: our EOF, then its. */
	shutdown(ctl, SHUT_WR);
	err = read_full(ctl, &c, 1);
	if (err != -ENODATA) {
		fprintf(stderr, "relaystress: control connection did not end with ours (%s)\n",
			err ? strerror(-err) : "data after EOF");
		broken++;
	}
	close(ctl);
	printf("sessions:%u ok:%u broken:%u\n", sessions, ok, broken);
	return broken ? 1 : 0;
}

/* data_session() - a data connection to @sin with header @mode, @down
 * bytes asked for. Return: the fd, or -1 after saying why. */
static int data_session(const struct sockaddr_in *sin, enum session_mode mode, uint32_t down,
			int rcvbuf)
{
	struct session_hdr h = { .seed = htonl(0x1234567), .down_len = htonl(down),
				 .mode = htonl(mode) };
	int fd = dial(sin, KIND_DATA, rcvbuf);

	if (fd < 0) {
		fprintf(stderr, "relaystress: connect: %s\n", strerror(-fd));
		return -1;
	}
	if (write_all(fd, &h, sizeof(h))) {
		fprintf(stderr, "relaystress: header not sent\n");
		close(fd);
		return -1;
	}
	return fd;
}

/* hold() - see the top of the file. Return: 0 if the whole answer came,
 * then ECONNRESET; else 1. */
static int hold(const struct sockaddr_in *sin, unsigned long ms, const char *file, bool reset)
{
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	const uint32_t down = 64 * 1024;
	struct exchange_end end;
	const char *why;
	int fd = data_session(sin, SERVER_ANSWERS_THEN_RESETS, down, 2048), mark;

	if (fd < 0)
		return 1;
	/* Asked, half-closed (a request-and-wait client): the FIN leaves the
	 * relay's socket readable all the while it waits. */
	if (shutdown(fd, SHUT_WR)) {
		perror("relaystress hold: shutdown");
		close(fd);
		return 1;
	}
	mark = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (mark < 0) {
		perror(file);
		close(fd);
		return 1;
	}
	close(mark);
	usleep((useconds_t)ms * 1000);
	if (reset) {
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
		close(fd);
		printf("hold: reset\n");
		return 0;
	}
	why = exchange(fd, 0, 0, 0x1234567 ^ 0x5a5a5a5a, down, false, &end);
	close(fd);
	if (!why) {
		fprintf(stderr, "relaystress hold: the reset did not pass through\n");
		return 1;
	}
	if (end.got != down || end.err != ECONNRESET) {
		fprintf(stderr, "relaystress hold: %llu of %u bytes, then %s\n",
			(unsigned long long)end.got, down, why);
		return 1;
	}
	printf("hold: ok\n");
	return 0;
}

/* upload_reset() - see the top of the file. Return: 0 once it has reset. */
static int upload_reset(const struct sockaddr_in *sin)
{
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	uint8_t buf[16384] = { 0 };
	int fd = data_session(sin, SERVER_WRITES_UNTIL_ERROR, 0, 0);
	uint64_t sent = 0;

	if (fd < 0)
		return 1;
	/* Until the way is full: the server's window is 0, and the relay
	 * holds what is left. */
	while (sent < UPLOAD_MAX) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		ssize_t n;

		if (poll(&pfd, 1, FULL_MS) <= 0)
			break;
		n = send(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			sent += (uint64_t)n;
		else if (errno != EAGAIN && errno != EINTR)
			break;
	}
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
	close(fd);
	printf("upload-reset: reset after %llu KiB\n", (unsigned long long)(sent >> 10));
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long sessions, seed = 0x2545f491u, ms;
	struct sockaddr_in sin;

	if (argc == 3 && !strcmp(argv[1], "serve") && !parse_addr(argv[2], &sin))
		return serve(&sin);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "client") && !parse_addr(argv[2], &sin) &&
	    !parse_number(argv[3], 1000000, &sessions) &&
	    (argc == 4 || !parse_number(argv[4], UINT32_MAX, &seed)))
		return client(&sin, (unsigned int)sessions, (uint32_t)seed);
	if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "reset"))) && !strcmp(argv[1], "hold") &&
	    !parse_addr(argv[2], &sin) && !parse_number(argv[3], 60000, &ms))
		return hold(&sin, ms, argv[4], argc == 6);
	if (argc == 3 && !strcmp(argv[1], "upload-reset") && !parse_addr(argv[2], &sin))
		return upload_reset(&sin);
	fprintf(stderr, "usage: relaystress serve ADDR:PORT | client ADDR:PORT SESSIONS [SEED] |\n"
			"       hold ADDR:PORT MS FILE [reset] | upload-reset ADDR:PORT\n");
	return 2;
}
