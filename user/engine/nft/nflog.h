/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* nflog.h - the rootless engine's denials, read back through NFLOG
 *
 * Each deny chain of the rootless ruleset (nftrules.h) logs the packet to
 * NFLOG group NFTRULES_LOG_GROUP with the prefix "ebpfjail REASON
 * PREFIXLEN " before it refuses it. The supervisor reads those messages
 * (libmnl) and makes each one the same struct jail_event the BPF engine's
 * ring buffer gives, hook HOOK_NFT_OUTPUT. What NFLOG cannot say: the
 * process (no pid, tid or comm: the packet knows its socket, not who sent
 * it) and its cgroup; the audit record writes "pid": null, "comm": null.
 * The uid and gid are the socket's, where the kernel gives them (a local
 * socket, as every packet in the output hook has).
 */
#ifndef EBPFJAIL_NFLOG_H
#define EBPFJAIL_NFLOG_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "ebpfjail.h"

/**
 * nflog_event() - one NFLOG packet message into an event (pure)
 * @msg: the netlink message, @len bytes
 * @e: the event: hook HOOK_NFT_OUTPUT, reason and rule from the prefix,
 *     destination, protocol and port from the packet, uid and gid where
 *     the kernel gave them (else JAIL_ID_UNKNOWN), time 0
 * Return: 0; -ENOENT for a message that is not one of ours (another
 * prefix, not a packet), -EINVAL for a malformed one.
 */
int nflog_event(const void *msg, size_t len, struct jail_event *e);

/**
 * nflog_open() - a netlink socket bound to NFLOG group @group of the
 * calling thread's network namespace, copying the first bytes of each
 * packet (enough for the IP and transport headers)
 * Return: the socket (non-blocking), or -errno.
 */
int nflog_open(unsigned int group);

/* Called for each event; a nonzero return stops the read once the current
 * datagram's events are handed over (as a engine_event_fn's would). */
typedef int (*nflog_event_fn)(void *ctx, const struct jail_event *e);

/**
 * nflog_read() - the events waiting on @fd to @fn, stamped with the time
 * they are read, one recv() at a time until it would block, at least @max
 * were handed over (a datagram's messages all go) or @max reads were made
 * @lost: incremented for each overflow of the socket (ENOBUFS: messages
 *        the kernel dropped, a number it does not tell)
 * Return: how many events, or -errno.
 */
int nflog_read(int fd, unsigned int max, nflog_event_fn fn, void *ctx, uint64_t *lost);

#endif /* EBPFJAIL_NFLOG_H */
