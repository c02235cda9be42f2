/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* dnsfwd.h - the jail's DNS forwarder: the agent's queries to the host's
 * resolvers, every answer seen before the agent gets it
 *
 * Listens on the jail's DNS forward address, port 53, UDP and TCP, inside
 * the jail's network namespace (sockets made there by netns_run()); asks
 * the host's resolvers from the host's namespace, each query from a socket
 * of its own (a fresh source port and a random ID, and only the resolver's
 * answer to that question is taken). AAAA queries get an empty answer: the
 * jail is IPv4 only. Each query is first judged by on_query(): one it
 * refuses is answered REFUSED at once and never leaves. Before an A answer goes to the agent, on_answer() is
 * called with it: allow-host inserts its addresses there, so the agent can
 * never connect to an address it was given before the policy allows it.
 * After it is sent, on_released() is called with the same answer: what is
 * recorded about it (the audit) waits there, not in the agent's path.
 */
#ifndef EBPFJAIL_DNSFWD_H
#define EBPFJAIL_DNSFWD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "dnsmsg.h"

#define DNSFWD_UPSTREAMS_MAX 3 /* glibc's MAXNS */
#define DNSFWD_QUERIES_MAX 64  /* queries in flight; more get SERVFAIL */
#define DNSFWD_OWN_SLOTS 4     /* ... of them kept for dnsfwd_learn() */
#define DNSFWD_TCP_MAX 16      /* TCP clients at once; more are closed */
/* The most descriptors the forwarder holds: one a query, one a client, its
 * two listeners and timer. */
#define DNSFWD_FDS_MAX (DNSFWD_QUERIES_MAX + DNSFWD_TCP_MAX + 3)

/* Called for each A answer before it is released (on_answer; when it
 * returns, the answer goes to the agent) and again after (on_released). */
typedef void (*dnsfwd_answer_fn)(void *ctx, const struct dns_question *q,
				 const struct dns_answer *a);

/* Called for each standard query before it is asked (or answered at once,
 * as AAAA is): 0 asks it, DNS_RCODE_REFUSED refuses it (the caller has
 * recorded why); DNS_RCODE_REFUSED | DNSFWD_LEARN refuses it and still
 * asks the resolver for the name's A records, an answer on_answer() sees
 * and the agent never gets (deny-host: its addresses are blocked). */
#define DNSFWD_LEARN 0x100
typedef int (*dnsfwd_query_fn)(void *ctx, const struct dns_question *q);

struct dnsfwd_opts {
	int jail_ns;          /* the jail's network namespace (upstream sockets
				 are made in the caller's: the host's) */
	uint32_t listen_addr; /* network byte order, on the jail's lo */
	struct sockaddr_storage upstreams[DNSFWD_UPSTREAMS_MAX];
	size_t n_upstreams;
	dnsfwd_query_fn on_query;     /* or NULL: every query is asked */
	dnsfwd_answer_fn on_answer;
	dnsfwd_answer_fn on_released; /* or NULL */
	void *ctx;
};

struct dnsfwd_stats {
	uint64_t queries;  /* taken from the agent, UDP and TCP */
	uint64_t answered; /* answers sent to the agent: the resolver's, and
			      our own (empty AAAA, SERVFAIL, NOTIMP, REFUSED) */
	uint64_t failed;   /* of those, our errors: no resolver answered in
			      time, too many queries at once, not a standard
			      query */
	uint64_t refused;  /* of those, refused by on_query() */
	uint64_t dropped;  /* not a DNS query, or an answer that did not
			      match its question */
};

struct dnsfwd;

/**
 * dnsfwd_parse_resolv() - the nameservers of a resolv.conf text (IPv4 and
 * IPv6, at most DNSFWD_UPSTREAMS_MAX, port 53) into @o->upstreams; none
 * gives 127.0.0.1, as glibc does (pure)
 */
void dnsfwd_parse_resolv(const char *text, struct dnsfwd_opts *o);

#define DNSFWD_DOMAINS_MAX 6 /* glibc's MAXDNSRCH */
/* resolv.conf is a few lines; glibc reads no more than this either. */
#define DNSFWD_RESOLV_MAX 16384

/**
 * dnsfwd_read_resolv() - /etc/resolv.conf's text, at most
 * DNSFWD_RESOLV_MAX - 1 bytes, NUL-terminated (empty when unreadable);
 * opened without blocking (a FIFO there never hangs the jail)
 * Return: 0, or -errno.
 */
int dnsfwd_read_resolv(char text[DNSFWD_RESOLV_MAX]);

/**
 * dnsfwd_parse_domains() - the domains of a resolv.conf text's search and
 * domain lines (lower case, no final dot; at most DNSFWD_DOMAINS_MAX of
 * DNS_NAME_MAX + 1 bytes each): the names of the host's own network
 * Return: how many (pure).
 */
size_t dnsfwd_parse_domains(const char *text, char out[][DNS_NAME_MAX + 1]);

/**
 * dnsfwd_open() - bind the forwarder's sockets in the jail's namespace
 * Return: 0, or -errno (nothing left open).
 */
int dnsfwd_open(const struct dnsfwd_opts *o, struct dnsfwd **out);

/* Bit 63 of the data.u64 of the forwarder's events in the caller's epoll
 * set: the caller's own tags leave it clear. */
#define DNSFWD_EVENT (1ULL << 63)

/**
 * dnsfwd_join() - the forwarder's descriptors, and every one it opens
 * later, into the caller's epoll set @epfd (which must outlive them or be
 * closed first), each event's data.u64 with DNSFWD_EVENT set: for
 * dnsfwd_event()
 * Return: 0, or -errno.
 */
int dnsfwd_join(struct dnsfwd *f, int epfd);

/** dnsfwd_event() - one event of the forwarder's (@ev: its data.u64):
 * queries, answers, retries and timeouts that are due */
void dnsfwd_event(struct dnsfwd *f, uint64_t ev);

/**
 * dnsfwd_learn() - ask the resolver for @name's A records on the jail's own
 * behalf, as a refused query that asked for DNSFWD_LEARN does: on_answer()
 * sees the answer, and no one else gets it (deny-host's blocks, kept in
 * force while the name still answers them)
 * Return: 0; -EBUSY (every query slot is taken, DNSFWD_OWN_SLOTS too);
 * -EINVAL (not a host name); or the -errno of the send.
 */
int dnsfwd_learn(struct dnsfwd *f, const char *name);

void dnsfwd_stats(const struct dnsfwd *f, struct dnsfwd_stats *out);

void dnsfwd_free(struct dnsfwd *f);

#endif /* EBPFJAIL_DNSFWD_H */
