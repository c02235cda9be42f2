/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* trust.h - who may loosen the jail: files the agent could have written,
 * and the approvals `ebpfjail trust` keeps for them */
#ifndef EBPFJAIL_TRUST_H
#define EBPFJAIL_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "config.h"

/* Approvals: TRUST_DIR/UID/HASH, one per (agent uid, file), root's alone. */
#define TRUST_DIR "/var/lib/ebpfjail/trust"
/* An agent uid standing for every uid but root (no approval is for it). */
#define TRUST_ANY_USER ((uid_t)-1)
/* Largest approval read; one line per approved configuration line. */
#define TRUST_RECORD_MAX (1U << 20)

/**
 * trust_root_only() - could only root have changed what @st describes?
 * @dir: @st is a directory on the path to a file (a sticky directory owned by
 *       root counts: nobody else can rename or remove a root-owned entry)
 * Pure: owner root, writable by neither group nor others.
 */
bool trust_root_only(const struct stat *st, bool dir);

/**
 * trust_path_root_only() - can root alone change where @path leads: every
 * directory on it, as written and with links resolved, and every link?
 */
bool trust_path_root_only(const char *path);

/**
 * trust_agent_writable() - could the agent, or any uid but root, have
 * changed the file at @path?
 * @path: the file as the configuration names it
 * @st: the file as read (fstat of the descriptor its text came from)
 * @agent_uid: the uid the agent runs as; 0 (--user root) can change every
 *             root-owned file, so for it every file counts
 * Return: false only when the file and every directory on its path, as
 * written and with links resolved, can be changed by root alone.
 */
bool trust_agent_writable(const char *path, const struct stat *st, uid_t agent_uid);

/**
 * trust_judge() - what the file at @path, read as @st, may loosen for
 * agents of @agent_uid: @approval's flags, and for a file the agent could
 * have written, the lines approved for it (trust_load()); an agent run as
 * root gets none (it could have written them)
 * @path: the file as the configuration names it
 * @st: the file as read
 * @agent_uid: the uid the agent runs as
 * @approval: filled; free with trust_approval_free()
 * Return: as trust_load(); on an error nothing is approved.
 */
int trust_judge(const char *path, const struct stat *st, uid_t agent_uid,
		struct config_approval *approval);

/**
 * trust_load() - the lines approved for @path and agents of @agent_uid
 * @approval: its lines filled (no approval is zero lines), flags cleared
 * An approval in a place that anybody but root could change is ignored.
 * Return: 0, or -errno when an approval exists but cannot be read.
 */
int trust_load(const char *path, uid_t agent_uid, struct config_approval *approval);

/** trust_approval_free() - release trust_load()'s lines */
void trust_approval_free(struct config_approval *approval);

/**
 * trust_save() - approve @lines ("key = value") for @path and agents of
 * @agent_uid, replacing the file's earlier approval (in one rename)
 * Return: 0 or -errno.
 */
int trust_save(const char *path, uid_t agent_uid, char *const *lines, size_t n_lines);

/**
 * trust_withdraw_unfound() - the approval of @path for agents of @agent_uid
 * without the lines its file no longer holds (@approval, as trust_judge()
 * loaded it and config_parse() marked what it found). The attack: the user
 * deletes an approved `allow-ip` (a tightening, which needs no trust); the
 * agent appends it again and the next run would take it unseen. Root only.
 * Return: how many lines were withdrawn (0: nothing to do), or -errno.
 */
int trust_withdraw_unfound(const char *path, uid_t agent_uid,
			   const struct config_approval *approval);

/**
 * trust_record_format() - an approval's text (pure)
 * Return: a malloc'ed NUL-terminated text, NULL on ENOMEM.
 */
char *trust_record_format(const char *path, uid_t agent_uid, char *const *lines,
			  size_t n_lines);

/**
 * trust_record_parse() - the approved lines of an approval's text (pure)
 * @path: the file the approval must be for (another file's, after a name
 *        collision, approves nothing)
 * Return: 0, or -EINVAL for text that is not an approval of @path.
 */
int trust_record_parse(const char *data, size_t len, const char *path,
		       struct config_approval *approval);

#endif /* EBPFJAIL_TRUST_H */
