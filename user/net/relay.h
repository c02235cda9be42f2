/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* relay.h - splice-based TCP relays between the host's and the jail's loopback */
#ifndef EBPFJAIL_RELAY_H
#define EBPFJAIL_RELAY_H

#include <stdbool.h>
#include <stdint.h>

struct relays;

enum relay_direction {
	RELAY_INTO_HOST, /* local-port: jail 127.0.0.1:N -> host 127.0.0.1:N */
	RELAY_INTO_JAIL, /* callback-port: host 127.0.0.1:N -> jail 127.0.0.1:N */
};

/**
 * relays_new() - an empty set of relays with its own epoll instance and
 * drain timer (a timerfd in it)
 * @host_ns, @jail_ns: network namespace fds; the calling process is in
 * @host_ns whenever a relay function is called
 * Return: the set, or NULL (ENOMEM, or epoll or the timerfd failed: errno
 * says).
 */
struct relays *relays_new(int host_ns, int jail_ns);

/**
 * relays_add() - listen on 127.0.0.1:@port on one side, relay to the other
 *
 * The listening socket is created in the namespace it listens in (a socket
 * keeps the namespace it was made in), so one process holds both sides.
 * Return: 0, -EADDRINUSE when the port is taken, or -errno.
 */
int relays_add(struct relays *r, enum relay_direction dir, uint16_t port);

/* Connections at most, whatever the descriptor limit: one small struct and
 * two pipes each (bounded memory). */
#define RELAY_MAX_CONNS 4096
/* Descriptors one connection holds: its two sockets and two pipes. */
#define RELAY_FDS_PER_CONN 6

/**
 * relay_conn_cap() - how many connections fit in the descriptors left
 * (pure)
 * @nofile: the soft RLIMIT_NOFILE
 * @in_use: descriptors open now
 * @reserve: descriptors kept for everything else (the caller's to choose)
 *
 * Return: (@nofile - @in_use - @reserve) / RELAY_FDS_PER_CONN, at most
 * RELAY_MAX_CONNS; 0 when nothing is left.
 */
unsigned int relay_conn_cap(uint64_t nofile, unsigned int in_use, unsigned int reserve);

/**
 * relays_set_cap() - connections at most from now on (RELAY_MAX_CONNS
 * until called); one over it is reset at once and counted as refused
 */
void relays_set_cap(struct relays *r, unsigned int max_conns);

/** relays_fd() - an fd that polls readable when relays_dispatch() has work */
int relays_fd(const struct relays *r);

/**
 * relays_dispatch() - accept, connect and move data for one batch of ready
 * events, each connection a bounded turn
 * Never blocks. What is left keeps relays_fd() readable for the next call.
 * A failure of one connection closes that connection only.
 */
void relays_dispatch(struct relays *r);

struct relay_stats {
	unsigned int listeners;
	unsigned int open;      /* connections now */
	unsigned long total;    /* connections accepted */
	unsigned long refused;  /* over the cap, or the other side was not there */
};

void relays_stats(const struct relays *r, struct relay_stats *out);

struct relay_listener_stats {
	enum relay_direction dir;
	uint16_t port;
	unsigned int open;
	unsigned long total;
	unsigned long refused; /* over the cap, or the other side was not there */
};

/** relays_listener() - the @i-th listener's numbers. Return: 0, or -ENOENT past the last. */
int relays_listener(const struct relays *r, unsigned int i, struct relay_listener_stats *out);

/** relays_free() - close every listener and connection; NULL is fine */
void relays_free(struct relays *r);

#endif /* EBPFJAIL_RELAY_H */
