/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* jailstate.h - /run/ebpfjail/ID: what a running jail leaves for others */
#ifndef EBPFJAIL_JAILSTATE_H
#define EBPFJAIL_JAILSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "ebpfjail.h"

#define JAILSTATE_DIR "/run/ebpfjail"
/* Inside a jail, its own denials, read-only (the file is the supervisor's
 * STATE/ID/denials.jsonl; the rest of JAILSTATE_DIR is hidden there). */
#define JAIL_DENIALS_VIEW JAILSTATE_DIR "/denials.jsonl"
/* ... in a rootless jail where JAILSTATE_DIR does not exist (an
 * unprivileged user cannot make it): in the agent's own runtime
 * directory, UID its uid. */
#define JAIL_DENIALS_VIEW_USER "/run/user/%u/ebpfjail/denials.jsonl"
/* The view is the recent denials: past this size it starts again. */
#define JAIL_DENIALS_MAX (1U << 20)
#define JAIL_ID_LEN 8

/**
 * jailstate_dir() - where this user's jails keep their state: root's in
 * JAILSTATE_DIR; a rootless user's in its runtime directory,
 * $XDG_RUNTIME_DIR/ebpfjail (or /run/user/UID/ebpfjail), which only it can
 * enter and which the agent's private /run/user hides
 */
const char *jailstate_dir(void);

/**
 * jailstate_others_hint() - for a user who finds no jail of its own: "" or,
 * when root has jails (JAILSTATE_DIR holds some), the hint that they are
 * root's (the user ran `sudo ebpfjail run`, now asks without sudo)
 */
const char *jailstate_others_hint(void);

/** jailstate_new_id() - a random id of JAIL_ID_LEN hex digits */
void jailstate_new_id(char id[JAIL_ID_LEN + 1]);

/**
 * jailstate_create() - /run/ebpfjail/ID, root-only, naming its supervisor
 * (pid and start time, so a recycled pid is not mistaken for it)
 * Return: 0 or -errno.
 */
int jailstate_create(const char *id, pid_t supervisor, char *dir, size_t size);

/** jailstate_set_cgroup() - record the jail's cgroup, for cleanup */
int jailstate_set_cgroup(const char *dir, const char *cgroup_path);

/** jailstate_remove() - remove the directory and what is in it */
void jailstate_remove(const char *dir);

/**
 * jailstate_cleanup_dead() - remove what jails whose supervisor died left:
 * their cgroups (processes killed) and state. Nothing else: a cgroup no
 * state names is not ours to kill.
 */
void jailstate_cleanup_dead(void);

/* What `ebpfjail status` shows of a jail; written by its supervisor. */
#define STATUS_RELAYS_MAX 16

struct jail_status {
	char id[JAIL_ID_LEN + 1];
	int supervisor;   /* pid */
	bool alive;       /* the supervisor runs (checked by jailstate_list) */
	int agent;        /* pid */
	unsigned int uid;
	char user[64];
	char command[256];
	long long started; /* seconds since the epoch */
	unsigned long long allowed, lost;
	unsigned long long denied[REASON_COUNT]; /* by reason (jailstate_denial()) */
	unsigned int n_relays;
	struct {
		char kind[16]; /* "local" or "callback" */
		unsigned int port;
		unsigned long long open, total, refused;
	} relays[STATUS_RELAYS_MAX];
	char temporary[256]; /* `ebpfjail allow/deny` changes in force */
	char names[512];     /* allow-host's names and addresses in force */
	char engine[16];     /* "bpf" or "nftables" (the rootless engine) */
	char protections[160]; /* what keeps the agent in, space-separated
				  words: see jail_protections() */
};

/**
 * jailstate_denial() - is status's denied[@reason] a count of denials: the
 * engine's denying reasons, and "dns", the queries the forwarder refused
 * (the engine's REASON_DNS allows; it counts no denial of its own)
 */
bool jailstate_denial(unsigned int reason);

/** jailstate_write_status() - replace DIR/status atomically (write, rename) */
int jailstate_write_status(const char *dir, const struct jail_status *st);

/**
 * jailstate_read_status() - parse DIR/status (pure apart from the read)
 * Return: 0 or -errno.
 */
int jailstate_read_status(const char *dir, struct jail_status *st);

/**
 * jailstate_list() - every jail under JAILSTATE_DIR, alive or not
 * @out: malloc'd array (free it), @n its length
 * Return: 0 or -errno.
 */
int jailstate_list(struct jail_status **out, size_t *n);

#endif /* EBPFJAIL_JAILSTATE_H */
