// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dnsfwd.c - the jail's DNS forwarder (dnsfwd.h)
 *
 * Theory of operation
 * -------------------
 * Three sockets live in the jail's namespace, made there by a thread
 * (netns_run()): a UDP socket and a TCP listener on the forward address,
 * port 53, and each accepted TCP client. Everything else is in ours: for
 * each query a UDP socket connected to one of the host's resolvers, from a
 * port the kernel picks, with an ID of our choosing. Sockets keep their
 * namespace, so one epoll set serves both sides: the supervisor's own
 * (dnsfwd_join()), so that a query or an answer is one wakeup and one
 * epoll_wait(), not two of each through a nested set.
 *
 * A query is a slot in a fixed table (DNSFWD_QUERIES_MAX): the agent's
 * message, its ID, where the answer goes (a UDP address or a TCP client),
 * and a deadline. No answer within DNSFWD_TRY_MS: the next resolver, on a
 * new socket, up to DNSFWD_TRIES times; then SERVFAIL. A full table also
 * answers SERVFAIL at once: the agent cannot make the supervisor hold
 * more than the table. An answer is taken only from the socket of its
 * query, with its ID and its question (name, type, class): another
 * answer (late, spoofed, for another name) is dropped, never given and
 * never allowed.
 *
 * TCP clients (DNSFWD_TCP_MAX, each closed after DNSFWD_TCP_IDLE_MS idle)
 * send length-prefixed queries; one is asked at a time per client, the
 * rest wait in its buffer. They are asked over TCP: a client asks over
 * TCP because a UDP answer was cut (TC), and the resolver would cut it
 * again. Such a query holds a buffer for the largest answer (64 KiB)
 * while it is in flight: at most DNSFWD_TCP_MAX of them.
 *
 * One timer, armed only while a query or TCP client exists, checks the
 * deadlines every DNSFWD_TICK_MS: an idle jail's forwarder never wakes.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "dnsfwd.h"
#include "log.h"
#include "netns.h"

#define DNSFWD_PORT 53
/* The largest query taken (a question is a few dozen bytes; EDNS options
 * add a few more) and the largest answer read (what a resolver may send
 * over UDP with EDNS: more is cut by the kernel and dropped here). */
#define DNSFWD_QUERY_MAX 1024
#define DNSFWD_ANSWER_MAX 65535
#define DNSFWD_TRY_MS 1000
#define DNSFWD_TRIES 3
#define DNSFWD_TCP_IDLE_MS 10000
#define DNSFWD_TICK_MS 100
#define DNSFWD_BATCH 16
/* Query IDs drawn from the kernel at once: one getrandom() for this many
 * queries instead of one each. */
#define DNSFWD_IDS 64
/* The largest EDNS payload asked for: DNS flag day 2020's, which no path
 * fragments. */
#define DNSFWD_EDNS_MAX 1232

/* A slot's UDP socket to a resolver carries at most this many queries,
 * one after another, for at most this long: its port, which the kernel
 * picked at random, is half of what an off-path spoofer must guess (the
 * ID is the other), and a port kept open is one it has time to find (SAD
 * DNS found ports through ICMP rate limits in seconds). A fresh socket for
 * every query costs a fifth of the forwarder's time (socket(), connect(),
 * epoll_ctl(), close()). */
#define DNSFWD_PORT_QUERIES 16
#define DNSFWD_PORT_MS 1000

enum slot_kind { SLOT_UDP, SLOT_TCP_LISTEN, SLOT_TIMER, SLOT_QUERY, SLOT_PORT, SLOT_CLIENT };

struct client {
	int fd; /* -1: free */
	uint8_t buf[2 + DNSFWD_QUERY_MAX];
	size_t have;
	bool asking; /* a query of its own is in flight */
	bool paused; /* its buffer is full: not read (not even polled) */
	uint64_t active_ns;
};

/* port - a slot's UDP socket, connected to one resolver: it outlives the
 * slot's queries (DNSFWD_PORT_QUERIES) */
struct port {
	int fd; /* -1: none */
	size_t upstream;
	unsigned int queries;
	uint64_t born_ns;
};

struct query {
	bool used;
	int fd; /* the socket to its resolver (UDP: its slot's port's), or -1 */
	uint16_t agent_id, id;
	struct dns_question q;
	struct sockaddr_in from; /* a UDP query's sender */
	struct client *client;   /* a TCP query's client, or NULL */
	bool over_tcp;
	bool learn;              /* ours (learn_instead()): no reply */
	uint16_t udp_size;       /* the agent's EDNS payload size, or 0 */
	bool dnssec_ok;          /* ... and its DO bit */
	uint8_t msg[DNSFWD_QUERY_MAX];
	size_t len;
	unsigned int tries;
	size_t upstream;
	uint64_t deadline_ns;
	bool connecting;  /* TCP upstream: connect() in progress */
	uint8_t *tcp;     /* TCP upstream: the answer as read, length first */
	size_t have;
};

struct dnsfwd {
	struct dnsfwd_opts o;
	int epfd; /* the caller's epoll set (dnsfwd_join()), or -1 */
	int udp_fd, tcp_fd, timer_fd;
	bool timer_armed;
	size_t next_upstream;
	struct query queries[DNSFWD_QUERIES_MAX];
	struct port ports[DNSFWD_QUERIES_MAX]; /* ports[i]: queries[i]'s */
	struct client clients[DNSFWD_TCP_MAX];
	struct dnsfwd_stats stats;
	uint16_t ids[DNSFWD_IDS]; /* random IDs not yet used: ids[0..n_ids) */
	size_t n_ids;
	uint8_t in[DNSFWD_BATCH][DNSFWD_QUERY_MAX + 1]; /* the agent's datagrams */
	uint8_t answer[DNSFWD_ANSWER_MAX];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t tag(enum slot_kind kind, size_t i)
{
	return DNSFWD_EVENT | (uint64_t)kind << 32 | i;
}

void dnsfwd_parse_resolv(const char *text, struct dnsfwd_opts *o)
{
	const char *line = text;

	o->n_upstreams = 0;
	while (line && *line && o->n_upstreams < DNSFWD_UPSTREAMS_MAX) {
		const char *end = strchr(line, '\n');
		char addr[INET6_ADDRSTRLEN + 1];
		struct sockaddr_storage *ss = &o->upstreams[o->n_upstreams];

		memset(ss, 0, sizeof(*ss));
		if (sscanf(line, "nameserver %46s", addr) == 1) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

			if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
				s4->sin_family = AF_INET;
				s4->sin_port = htons(DNSFWD_PORT);
				o->n_upstreams++;
			} else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
				s6->sin6_family = AF_INET6;
				s6->sin6_port = htons(DNSFWD_PORT);
				o->n_upstreams++;
			}
		}
		line = end ? end + 1 : NULL;
	}
	if (!o->n_upstreams) { /* resolv.conf(5): no nameserver is the local one */
		struct sockaddr_in *s4 = (struct sockaddr_in *)&o->upstreams[0];

		memset(&o->upstreams[0], 0, sizeof(o->upstreams[0]));
		s4->sin_family = AF_INET;
		s4->sin_port = htons(DNSFWD_PORT);
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		o->n_upstreams = 1;
	}
}

int dnsfwd_read_resolv(char text[DNSFWD_RESOLV_MAX])
{
	ssize_t n = -1;
	int fd = open("/etc/resolv.conf", O_RDONLY | O_NONBLOCK | O_CLOEXEC), err = 0;

	if (fd >= 0) {
		n = read(fd, text, DNSFWD_RESOLV_MAX - 1);
		err = n < 0 ? -errno : 0;
		close(fd);
	} else {
		err = -errno;
	}
	text[n > 0 ? n : 0] = '\0';
	return err;
}

size_t dnsfwd_parse_domains(const char *text, char out[][DNS_NAME_MAX + 1])
{
	const char *line = text;
	size_t n = 0;

	while (line && *line && n < DNSFWD_DOMAINS_MAX) {
		size_t len = strcspn(line, "\n"), k = 0;
		const char *p = line;

		if ((!strncmp(p, "search", 6) || !strncmp(p, "domain", 6)) &&
		    (p[6] == ' ' || p[6] == '\t')) {
			for (p += 6; p < line + len && n < DNSFWD_DOMAINS_MAX;) {
				p += strspn(p, " \t");
				k = strcspn(p, " \t\n");
				if (k && k <= DNS_NAME_MAX && p + k <= line + len) {
					size_t i;

					for (i = 0; i < k; i++)
						out[n][i] = (char)tolower((unsigned char)p[i]);
					if (out[n][k - 1] == '.')
						k--;
					out[n][k] = '\0';
					if (k && dnsmsg_name_is_host(out[n]))
						n++;
				}
				p += k ? k : 1;
			}
		}
		line = line[len] ? line + len + 1 : NULL;
	}
	return n;
}

struct listen_args {
	uint32_t addr;
	int udp, tcp;
};

/* make_listeners() - a netns_run() function: the two sockets on the
 * forward address, in the jail's namespace */
static int make_listeners(void *arg)
{
	struct listen_args *a = arg;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(DNSFWD_PORT),
				   .sin_addr = { a->addr } };
	int one = 1;

	a->udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	a->tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->udp < 0 || a->tcp < 0)
		return -errno;
	setsockopt(a->tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(a->udp, (struct sockaddr *)&sin, sizeof(sin)) ||
	    bind(a->tcp, (struct sockaddr *)&sin, sizeof(sin)) || listen(a->tcp, 64))
		return -errno;
	return 0;
}

static void arm_timer(struct dnsfwd *f, bool on)
{
	struct itimerspec its = { 0 };

	if (on == f->timer_armed)
		return;
	if (on) {
		its.it_interval.tv_nsec = DNSFWD_TICK_MS * 1000000L;
		its.it_value = its.it_interval;
	}
	if (timerfd_settime(f->timer_fd, 0, &its, NULL) == 0)
		f->timer_armed = on;
}

static int watch(struct dnsfwd *f, int fd, enum slot_kind kind, size_t i, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = tag(kind, i) };

	return epoll_ctl(f->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int dnsfwd_open(const struct dnsfwd_opts *o, struct dnsfwd **out)
{
	struct listen_args la = { .addr = o->listen_addr, .udp = -1, .tcp = -1 };
	struct dnsfwd *f;
	size_t i;
	int err;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->o = *o;
	f->epfd = f->udp_fd = f->tcp_fd = f->timer_fd = -1;
	for (i = 0; i < DNSFWD_QUERIES_MAX; i++)
		f->queries[i].fd = f->ports[i].fd = -1;
	for (i = 0; i < DNSFWD_TCP_MAX; i++)
		f->clients[i].fd = -1;
	f->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	err = f->timer_fd < 0 ? -errno : 0;
	if (!err)
		err = netns_run(o->jail_ns, make_listeners, &la);
	f->udp_fd = la.udp;
	f->tcp_fd = la.tcp;
	if (err) {
		dnsfwd_free(f);
		return err;
	}
	*out = f;
	return 0;
}

int dnsfwd_join(struct dnsfwd *f, int epfd)
{
	int err;

	f->epfd = epfd;
	err = watch(f, f->udp_fd, SLOT_UDP, 0, EPOLLIN);
	if (!err)
		err = watch(f, f->tcp_fd, SLOT_TCP_LISTEN, 0, EPOLLIN);
	if (!err)
		err = watch(f, f->timer_fd, SLOT_TIMER, 0, EPOLLIN);
	return err;
}

void dnsfwd_stats(const struct dnsfwd *f, struct dnsfwd_stats *out)
{
	*out = f->stats;
}

static void close_port(struct port *p)
{
	if (p->fd >= 0)
		close(p->fd); /* and out of the epoll set with it */
	p->fd = -1;
}

/* free_query() - @q's slot free again; a UDP query's port stays for the
 * slot's next query */
static void free_query(struct query *q)
{
	if (q->fd >= 0 && q->over_tcp)
		close(q->fd);
	q->fd = -1;
	q->client = NULL;
	free(q->tcp);
	q->tcp = NULL;
	q->used = false;
}

static void close_client(struct dnsfwd *f, struct client *c)
{
	size_t i;

	for (i = 0; i < DNSFWD_QUERIES_MAX; i++)
		if (f->queries[i].used && f->queries[i].client == c)
			free_query(&f->queries[i]); /* its answer has nowhere to go */
	close(c->fd);
	c->fd = -1;
	c->have = 0;
	c->asking = false;
	c->paused = false;
}

/* reply() - @msg (its ID already the agent's) to where @q came from */
static void reply(struct dnsfwd *f, const struct query *q, const uint8_t *msg, size_t len)
{
	if (q->learn)
		return; /* our own question: the agent had its answer */
	if (!q->over_tcp) {
		/* The agent's socket may be gone or full: a lost answer is
		 * a retry for it, as on any network. */
		if (sendto(f->udp_fd, msg, len, MSG_DONTWAIT, (const struct sockaddr *)&q->from,
			   sizeof(q->from)) >= 0)
			f->stats.answered++;
		return;
	}
	if (q->client) {
		uint8_t prefix[2] = { (uint8_t)(len >> 8), (uint8_t)len };
		/* sendmsg() only reads the iovec; C has no const iovec. */
		struct iovec iov[2] = { { prefix, 2 }, { (void *)(uintptr_t)msg, len } };
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

		/* Answers are small and the socket's buffer is empty (one
		 * query at a time): a short write means a client that does
		 * not read, and it goes. */
		if (sendmsg(q->client->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len + 2) {
			close_client(f, q->client);
			return;
		}
		f->stats.answered++;
		q->client->asking = false;
		q->client->active_ns = now_ns();
	}
}

/* reply_code() - an answer of our own to @q: no records, @rcode */
static void reply_code(struct dnsfwd *f, const struct query *q, uint8_t rcode)
{
	uint8_t out[DNSFWD_QUERY_MAX];
	int len = dnsmsg_empty_answer(q->msg, q->len, rcode, out, sizeof(out));

	if (len < 0) { /* cannot happen: a checked query, room for it */
		if (q->client)
			q->client->asking = false;
		return;
	}
	dnsmsg_set_id(out, q->agent_id);
	reply(f, q, out, (size_t)len);
}

/* fail_query() - reply_code() for one of our errors (counted) */
static void fail_query(struct dnsfwd *f, const struct query *q, uint8_t rcode)
{
	f->stats.failed++;
	reply_code(f, q, rcode);
}


/* port_for() - @q's slot's UDP socket, connected to @q's resolver: the
 * one it has while it is young enough and to that resolver, else a new
 * one (@fresh: a new one whatever the old). Return: its fd, or -errno. */
static int port_for(struct dnsfwd *f, const struct query *q, uint64_t now, bool fresh)
{
	size_t slot = (size_t)(q - f->queries);
	struct port *p = &f->ports[slot];
	const struct sockaddr_storage *up = &f->o.upstreams[q->upstream];
	socklen_t len = up->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						  : sizeof(struct sockaddr_in);
	int err;

	if (p->fd >= 0 && !fresh && p->upstream == q->upstream && p->queries < DNSFWD_PORT_QUERIES &&
	    now - p->born_ns < DNSFWD_PORT_MS * 1000000ULL) {
		p->queries++;
		return p->fd;
	}
	close_port(p);
	p->fd = socket(up->ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		return -errno;
	/* Connected: the kernel hands it only the resolver's datagrams, and
	 * binds its port (at random) here. */
	err = connect(p->fd, (const struct sockaddr *)up, len) ? -errno : 0;
	if (!err)
		err = watch(f, p->fd, SLOT_PORT, slot, EPOLLIN);
	if (err) {
		close_port(p);
		return err;
	}
	p->upstream = q->upstream;
	p->queries = 1;
	p->born_ns = now;
	return p->fd;
}

/* ask() - send @q to its resolver: a UDP query from its slot's port
 * (@retry: a new one, so that a late answer to the last try on the old
 * port is not taken), or for a TCP client's query a TCP connection of its
 * own (its answer may be larger than a datagram; asked over UDP, the
 * resolver would cut it and set TC, and the client asked over TCP for
 * exactly that reason), whose query goes once it is connected
 * (send_tcp_query()). Return: 0 or -errno. */
static int ask(struct dnsfwd *f, struct query *q, bool retry)
{
	const struct sockaddr_storage *up = &f->o.upstreams[q->upstream];
	socklen_t len = up->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						  : sizeof(struct sockaddr_in);
	uint64_t now = now_ns();
	int err;

	q->deadline_ns = now + DNSFWD_TRY_MS * 1000000ULL;
	q->have = 0;
	dnsmsg_set_id(q->msg, q->id);
	if (!q->over_tcp) {
		q->fd = port_for(f, q, now, retry);
		if (q->fd < 0)
			return q->fd;
		if (send(q->fd, q->msg, q->len, MSG_DONTWAIT) == (ssize_t)q->len)
			return 0;
		err = -errno;
		close_port(&f->ports[q - f->queries]);
		q->fd = -1;
		return err;
	}
	if (q->fd >= 0)
		close(q->fd); /* a late answer to the last try is not taken */
	q->connecting = true;
	q->fd = socket(up->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (q->fd < 0)
		return -errno;
	if (connect(q->fd, (const struct sockaddr *)up, len) && errno != EINPROGRESS) {
		err = -errno;
		close(q->fd);
		q->fd = -1;
		return err;
	}
	return watch(f, q->fd, SLOT_QUERY, (size_t)(q - f->queries), EPOLLOUT | EPOLLIN);
}

/* send_tcp_query() - @q's TCP connection is up: the length-prefixed query
 * in one write (a socket's empty buffer takes it whole). Return: 0 or -1
 * (the deadline tries again). */
static int send_tcp_query(struct dnsfwd *f, struct query *q)
{
	uint8_t prefix[2] = { (uint8_t)(q->len >> 8), (uint8_t)q->len };
	struct iovec iov[2] = { { prefix, 2 }, { q->msg, q->len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag(SLOT_QUERY, (size_t)(q - f->queries)) };
	int e = 0;
	socklen_t el = sizeof(e);

	if (getsockopt(q->fd, SOL_SOCKET, SO_ERROR, &e, &el) || e ||
	    sendmsg(q->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)q->len + 2 ||
	    epoll_ctl(f->epfd, EPOLL_CTL_MOD, q->fd, &ev))
		return -1;
	q->connecting = false;
	return 0;
}

/* next_id() - a random query ID, each used once. A guessable ID would let
 * a host off the path spoof the answer, and an answer for an allow-host
 * name opens the policy: no ID, no query. Return: 0, or -EAGAIN. */
static int next_id(struct dnsfwd *f, uint16_t *id)
{
	if (!f->n_ids) {
		if (getrandom(f->ids, sizeof(f->ids), GRND_NONBLOCK) != sizeof(f->ids))
			return -EAGAIN;
		f->n_ids = DNSFWD_IDS;
	}
	*id = f->ids[--f->n_ids];
	return 0;
}

/* learn_instead() - @q, answered already, into a query of our own for
 * the name's A records, over UDP, whose answer on_answer() sees and nobody
 * gets (reply() sends nothing for it): the agent's message cut after its
 * question, type A, class IN, recursion desired. */
static void learn_instead(struct query *q)
{
	q->learn = true;
	q->client = NULL;
	q->over_tcp = false;
	q->q.type = DNS_TYPE_A;
	q->q.class = DNS_CLASS_IN;
	q->q.flags = DNS_FLAG_RD;
	q->udp_size = 0;
}

/* send_upstream() - @q (its question in q->q) built as our own query,
 * with EDNS payload size @udp_size (0: no EDNS), asked of the next
 * resolver, and the retry timer armed. Return: 0, or -errno (@q is the
 * caller's to answer and free). */
static int send_upstream(struct dnsfwd *f, struct query *q, uint16_t udp_size)
{
	int rc = dnsmsg_build_query(&q->q, udp_size, q->dnssec_ok, q->msg, sizeof(q->msg));

	if (rc < 0)
		return rc;
	q->len = (size_t)rc;
	q->used = true;
	q->upstream = f->next_upstream++ % f->o.n_upstreams;
	rc = next_id(f, &q->id);
	if (!rc)
		rc = ask(f, q, false);
	if (!rc)
		arm_timer(f, true);
	return rc;
}

int dnsfwd_learn(struct dnsfwd *f, const char *name)
{
	struct query *q = NULL;
	size_t i;
	int rc;

	if (!dnsmsg_name_is_host(name) || strlen(name) > DNS_NAME_MAX)
		return -EINVAL;
	for (i = 0; i < DNSFWD_QUERIES_MAX && !q; i++)
		if (!f->queries[i].used)
			q = &f->queries[i];
	if (!q)
		return -EBUSY;
	memset(q, 0, sizeof(*q));
	q->fd = -1;
	memcpy(q->q.name, name, strlen(name) + 1);
	learn_instead(q);
	rc = send_upstream(f, q, 0);
	if (rc)
		free_query(q);
	return rc;
}

/* take_query() - one query from the agent: checked, answered at once
 * (AAAA, or a full table), or asked upstream */
static void take_query(struct dnsfwd *f, const uint8_t *msg, size_t len,
		       const struct sockaddr_in *from, struct client *client)
{
	struct query *q = NULL;
	struct query scratch;
	size_t i;
	int rc;

	f->stats.queries++;
	/* The last DNSFWD_OWN_SLOTS are the jail's own (dnsfwd_learn()): an
	 * agent that keeps every slot busy with names that never answer must
	 * not keep a deny-host block from being renewed. */
	for (i = 0; i < DNSFWD_QUERIES_MAX - DNSFWD_OWN_SLOTS && !q; i++)
		if (!f->queries[i].used)
			q = &f->queries[i];
	if (!q)
		q = &scratch;
	memset(q, 0, sizeof(*q));
	q->fd = -1;
	rc = len > sizeof(q->msg) ? -EINVAL : dnsmsg_check_query(msg, len, &q->q);
	if (rc < 0) {
		f->stats.dropped++; /* not a query: nothing to answer */
		return;
	}
	memcpy(q->msg, msg, len);
	q->len = len;
	dnsmsg_query_edns(msg, len, &q->q, &q->udp_size, &q->dnssec_ok);
	q->agent_id = dnsmsg_id(msg);
	q->over_tcp = client != NULL;
	q->client = client;
	if (from)
		q->from = *from;
	if (client)
		client->asking = true;

	if (rc) { /* an UPDATE, a zone transfer (dnsmsg_check_query()) */
		fail_query(f, q, (uint8_t)rc);
		return;
	}
	/* Before anything else, the AAAA shortcut included: a refused name
	 * gets no answer of any kind, and the policy hears of it. */
	if (f->o.on_query && (rc = f->o.on_query(f->o.ctx, &q->q))) {
		f->stats.refused++;
		reply_code(f, q, (uint8_t)rc);
		if (!(rc & DNSFWD_LEARN) || q == &scratch)
			return;
		learn_instead(q);
		if (client)
			client->asking = false; /* answered: the client goes on */
		client = NULL;
	}
	if (q->q.type == DNS_TYPE_AAAA && q->q.class == DNS_CLASS_IN) {
		/* IPv4 only: "no such address", at once */
		reply_code(f, q, DNS_RCODE_NOERROR);
		return;
	}
	if (q == &scratch) {
		fail_query(f, q, DNS_RCODE_SERVFAIL); /* the table is full */
		return;
	}
	if (client) {
		q->tcp = malloc(2 + DNSFWD_ANSWER_MAX);
		if (!q->tcp) {
			fail_query(f, q, DNS_RCODE_SERVFAIL);
			return;
		}
	}
	/* The resolver gets our own query for the question, not the agent's
	 * bytes (dnsmsg_build_query()); the agent's payload size caps the
	 * answer it can take. */
	if (send_upstream(f, q, q->udp_size ? (q->udp_size < 512 ? 512
					       : q->udp_size > DNSFWD_EDNS_MAX ? DNSFWD_EDNS_MAX
					       : q->udp_size) : 0)) {
		fail_query(f, q, DNS_RCODE_SERVFAIL);
		free_query(q);
	}
}

/* answer() - @q's answer @msg (in f->answer) to the agent, after
 * on_answer() has seen it; on_released() sees it after */
static void answer(struct dnsfwd *f, struct query *q, uint8_t *msg, size_t n)
{
	bool seen = false;
	struct dns_answer a;

	if (q->q.type == DNS_TYPE_A && q->q.class == DNS_CLASS_IN && !dnsmsg_answer(msg, n, &a) &&
	    f->o.on_answer) {
		f->o.on_answer(f->o.ctx, &q->q, &a); /* before the agent sees it */
		seen = true;
	}
	dnsmsg_set_id(msg, q->agent_id);
	reply(f, q, msg, n);
	if (seen && f->o.on_released)
		f->o.on_released(f->o.ctx, &q->q, &a);
	free_query(q);
}

/* from_upstream() - did @from (recvfrom()'s) come from @up, address and
 * port? A datagram from anyone else (a spoofer that found the port) must
 * not even be read as an answer. The port is connected, so the kernel
 * drops those already; this holds if it ever is not. */
static bool from_upstream(const struct sockaddr_storage *up, const struct sockaddr_storage *from)
{
	const struct sockaddr_in *a = (const struct sockaddr_in *)up;
	const struct sockaddr_in *b = (const struct sockaddr_in *)from;
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)up;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)from;

	if (up->ss_family != from->ss_family)
		return false;
	if (up->ss_family == AF_INET)
		return a->sin_port == b->sin_port && a->sin_addr.s_addr == b->sin_addr.s_addr;
	return a6->sin6_port == b6->sin6_port &&
	       !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr));
}

/* take_answer() - what a resolver sent on @q's UDP socket */
static void take_answer(struct dnsfwd *f, struct query *q)
{
	struct sockaddr_storage from;
	socklen_t fl;
	ssize_t n;

	for (;;) {
		fl = sizeof(from);
		n = recvfrom(q->fd, f->answer, sizeof(f->answer), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &fl);
		if (n < 0)
			return; /* EAGAIN, or an ICMP error: the deadline decides */
		if (from_upstream(&f->o.upstreams[q->upstream], &from) &&
		    dnsmsg_is_answer_to(&q->q, q->id, f->answer, (size_t)n))
			break;
		f->stats.dropped++;
	}
	answer(f, q, f->answer, (size_t)n);
}

/* drain_port() - datagrams on a port no query of its is waiting on: a
 * late answer to a query answered (or failed) already, or a spoofer's.
 * Dropped, all of them: left unread, they would wake the supervisor again
 * and again. */
static void drain_port(struct dnsfwd *f, struct port *p)
{
	int i;

	for (i = 0; p->fd >= 0 && i < DNSFWD_BATCH; i++) {
		if (recv(p->fd, f->answer, sizeof(f->answer), MSG_DONTWAIT) < 0)
			return;
		f->stats.dropped++;
	}
	close_port(p); /* more than a batch: someone floods it */
}

/* take_tcp_answer() - @q's TCP connection is up (its query goes), or has
 * sent more of the answer: into q->tcp, its two-byte length first */
static void take_tcp_answer(struct dnsfwd *f, struct query *q)
{
	size_t want;
	ssize_t n;

	if (q->connecting) {
		if (send_tcp_query(f, q)) {
			close(q->fd); /* refused: the deadline tries the next one */
			q->fd = -1;
		}
		return;
	}
	for (;;) {
		want = q->have < 2 ? 2 : 2 + ((size_t)q->tcp[0] << 8 | q->tcp[1]);
		if (q->have >= 2 && q->have == want)
			break;
		n = recv(q->fd, q->tcp + q->have, want - q->have, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			close(q->fd); /* the deadline tries the next one */
			q->fd = -1;
			return;
		}
		if (n < 0)
			return;
		q->have += (size_t)n;
	}
	if (!dnsmsg_is_answer_to(&q->q, q->id, q->tcp + 2, want - 2)) {
		f->stats.dropped++;
		close(q->fd);
		q->fd = -1;
		return;
	}
	answer(f, q, q->tcp + 2, want - 2);
}

/* take_udp() - the agent's datagrams, up to DNSFWD_BATCH in one call: a
 * batch that comes back short says the socket is empty, so one query
 * costs one read, not a second that finds nothing. */
static void take_udp(struct dnsfwd *f)
{
	struct sockaddr_in from[DNSFWD_BATCH];
	struct iovec iov[DNSFWD_BATCH];
	struct mmsghdr mm[DNSFWD_BATCH];
	int i, n;

	for (i = 0; i < DNSFWD_BATCH; i++) {
		iov[i] = (struct iovec){ f->in[i], sizeof(f->in[i]) };
		mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_name = &from[i],
						       .msg_namelen = sizeof(from[i]),
						       .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	n = recvmmsg(f->udp_fd, mm, DNSFWD_BATCH, MSG_DONTWAIT, NULL);
	for (i = 0; i < n; i++)
		take_query(f, f->in[i], mm[i].msg_len, &from[i], NULL);
}

/* pause_client() - poll @c for reading (@paused false) or only for its
 * end. The attack: a client that fills its buffer while its query is in
 * flight stays readable; polled, it would wake the supervisor at once,
 * again and again, for as long as its queries take. */
static void pause_client(struct dnsfwd *f, struct client *c, bool paused)
{
	struct epoll_event ev = { .events = paused ? EPOLLRDHUP : EPOLLIN | EPOLLRDHUP,
				  .data.u64 = tag(SLOT_CLIENT, (size_t)(c - f->clients)) };

	if (c->paused == paused)
		return;
	if (epoll_ctl(f->epfd, EPOLL_CTL_MOD, c->fd, &ev))
		close_client(f, c); /* cannot keep it in check: it goes */
	else
		c->paused = paused;
}

/* client_query() - the next whole query in @c's buffer, if it is not
 * already asking one */
static void client_query(struct dnsfwd *f, struct client *c)
{
	size_t len;

	if (c->fd < 0 || c->asking || c->have < 2)
		return;
	len = (size_t)c->buf[0] << 8 | c->buf[1];
	if (len < DNS_HEADER_LEN || len > DNSFWD_QUERY_MAX) {
		f->stats.dropped++;
		close_client(f, c);
		return;
	}
	if (c->have < 2 + len)
		return;
	take_query(f, c->buf + 2, len, NULL, c);
	if (c->fd < 0)
		return;
	memmove(c->buf, c->buf + 2 + len, c->have - 2 - len);
	c->have -= 2 + len;
}

/* client_next() - client_query() while queries answered at once (AAAA, an
 * error) leave the next one waiting, and a paused client read again once
 * its buffer has room */
static void client_next(struct dnsfwd *f, struct client *c)
{
	size_t had;

	do {
		had = c->have;
		client_query(f, c);
	} while (c->fd >= 0 && !c->asking && c->have && c->have < had);
	if (c->fd >= 0 && c->paused && c->have < sizeof(c->buf))
		pause_client(f, c, false);
}

static void take_client_data(struct dnsfwd *f, struct client *c)
{
	ssize_t n;

	if (c->paused) { /* polled for its end alone: it hung up */
		close_client(f, c);
		return;
	}
	while (c->fd >= 0 && c->have < sizeof(c->buf)) {
		n = recv(c->fd, c->buf + c->have, sizeof(c->buf) - c->have, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			close_client(f, c);
			return;
		}
		if (n < 0)
			break;
		c->have += (size_t)n;
		c->active_ns = now_ns();
	}
	client_next(f, c);
	if (c->fd >= 0 && c->have == sizeof(c->buf))
		pause_client(f, c, true); /* read on once a query made room */
}

static void take_connection(struct dnsfwd *f)
{
	struct client *c = NULL;
	size_t i;
	int fd;

	fd = accept4(f->tcp_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	for (i = 0; i < DNSFWD_TCP_MAX && !c; i++)
		if (f->clients[i].fd < 0)
			c = &f->clients[i];
	/* Full: closed at once, so the agent cannot hold the supervisor's
	 * descriptors. */
	if (!c || watch(f, fd, SLOT_CLIENT, (size_t)(c - f->clients), EPOLLIN | EPOLLRDHUP)) {
		close(fd);
		return;
	}
	c->fd = fd;
	c->have = 0;
	c->asking = false;
	c->paused = false;
	c->active_ns = now_ns();
	arm_timer(f, true);
}

/* tick() - deadlines: retry or fail queries, close idle clients */
static void tick(struct dnsfwd *f)
{
	uint64_t now = now_ns(), ticks;
	bool busy = false;
	size_t i;

	if (read(f->timer_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	for (i = 0; i < DNSFWD_QUERIES_MAX; i++) {
		struct query *q = &f->queries[i];

		if (!q->used)
			continue;
		if (now >= q->deadline_ns) {
			if (++q->tries < DNSFWD_TRIES) {
				q->upstream = (q->upstream + 1) % f->o.n_upstreams;
				if (ask(f, q, true) == 0) {
					busy = true;
					continue;
				}
			}
			fail_query(f, q, DNS_RCODE_SERVFAIL); /* no resolver answered */
			free_query(q);
			continue;
		}
		busy = true;
	}
	for (i = 0; i < DNSFWD_TCP_MAX; i++) {
		struct client *c = &f->clients[i];

		if (c->fd < 0)
			continue;
		if (!c->asking && now - c->active_ns >= DNSFWD_TCP_IDLE_MS * 1000000ULL)
			close_client(f, c);
		else
			busy = true;
	}
	arm_timer(f, busy);
}

void dnsfwd_event(struct dnsfwd *f, uint64_t ev)
{
	enum slot_kind kind = (enum slot_kind)((ev & ~DNSFWD_EVENT) >> 32);
	size_t idx = (size_t)(ev & 0xffffffffU), i;

	/* An event fetched in the caller's batch may be for a descriptor an
	 * earlier one of the batch closed (or whose number a new one took):
	 * each case checks that its slot still holds what was watched. */
	switch (kind) {
	case SLOT_UDP:
		take_udp(f);
		break;
	case SLOT_TCP_LISTEN:
		take_connection(f);
		break;
	case SLOT_TIMER:
		tick(f);
		break;
	case SLOT_QUERY:
		if (idx < DNSFWD_QUERIES_MAX && f->queries[idx].used && f->queries[idx].over_tcp &&
		    f->queries[idx].fd >= 0)
			take_tcp_answer(f, &f->queries[idx]);
		break;
	case SLOT_PORT:
		if (idx >= DNSFWD_QUERIES_MAX)
			break;
		if (f->queries[idx].used && !f->queries[idx].over_tcp &&
		    f->queries[idx].fd == f->ports[idx].fd)
			take_answer(f, &f->queries[idx]);
		else
			drain_port(f, &f->ports[idx]);
		break;
	case SLOT_CLIENT:
		if (idx < DNSFWD_TCP_MAX && f->clients[idx].fd >= 0)
			take_client_data(f, &f->clients[idx]);
		break;
	}
	/* Clients whose answer came while more queries waited in their
	 * buffer. */
	for (i = 0; i < DNSFWD_TCP_MAX; i++)
		client_next(f, &f->clients[i]);
}

void dnsfwd_free(struct dnsfwd *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < DNSFWD_QUERIES_MAX; i++) {
		free_query(&f->queries[i]);
		close_port(&f->ports[i]);
	}
	for (i = 0; i < DNSFWD_TCP_MAX; i++)
		if (f->clients[i].fd >= 0)
			close(f->clients[i].fd);
	if (f->udp_fd >= 0)
		close(f->udp_fd);
	if (f->tcp_fd >= 0)
		close(f->tcp_fd);
	if (f->timer_fd >= 0)
		close(f->timer_fd);
	free(f); /* the epoll set is the caller's */
}
