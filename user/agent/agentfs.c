// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* agentfs.c - the agent's view of the file system: its own /proc, private
 * /tmp, /dev/shm and /run/user, masked daemon sockets, the jail's resolv.conf
 *
 * Theory of operation
 * -------------------
 * ebpfjail is a network jail, not a file system sandbox: the agent sees the
 * host's files as its user would. What it must not reach are the host's
 * Unix sockets that do for it what the network filter refuses (docs/
 * DESIGN.md, "Unix sockets"): a socket is reached through its path, so the
 * places where user-level sockets live are replaced, in the agent's own
 * mount namespace, by empty private ones:
 *   /tmp        tmux, X11 (/tmp/.X11-unix), ssh-agent, screen on some systems
 *   /dev/shm    shared memory, and sockets some programs put there
 *   /run/user   the session bus, Wayland, gpg/ssh agents, rootless podman
 *               and docker, systemd --user (systemd-run --user)
 * The sockets of daemons that grant root to their group or users (docker,
 * containerd, podman, libvirt, lxd, incus) live in /run and /var/lib: each
 * that exists is covered by /dev/null, so neither the path nor membership
 * in the daemon's group reaches it (a bind mount the agent cannot undo:
 * it has no CAP_SYS_ADMIN, and in a user namespace of its own the mount is
 * locked). The cgroup unix hooks judge what is left (sock's unix.bpf.c).
 *
 * Order, in the jail's init (root, in the agent's new PID namespace, in a
 * new mount namespace with private propagation, so nothing leaks back to
 * the host):
 *   1. what must survive the private directories is cloned first
 *      (open_tree): the current directory and each unix-socket under one
 *   2. a new /proc for the new PID namespace (kernel knobs read-only for
 *      a root agent), cgroup2 again for its cgroup namespace
 *   3. tmpfs over each private directory; /run/user/UID for the agent
 *   4. the clones moved into place, at the same paths
 *   5. masks, resolv.conf, its own /dev/mqueue (it has an IPC namespace
 *      of its own), the jails' state and screen's sessions hidden, /sys
 *      read-only for a root agent
 * Each failure is fatal (the agent does not start), except a unix-socket
 * that does not exist now, which is a warning.
 */
#include <fts.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/stat.h>

#include "agentfs.h"
#include "cgroup.h"
#include "jailstate.h"
#include "log.h"

static const char *const private_dirs[] = AGENTFS_PRIVATE_DIRS;
#define N_PRIVATE_DIRS (sizeof(private_dirs) / sizeof(private_dirs[0]))

/* Parts of /proc a root agent without capabilities could still write,
 * being their owner: kernel.core_pattern runs a program as real root,
 * sysrq-trigger reboots. Read-only, as container runtimes make them, but
 * only for a root agent: any mount over /proc makes it "not fully
 * visible", and a user namespace of the agent's (bubblewrap's --proc) can
 * then no longer mount a /proc of its own; another user cannot write
 * there anyway. */
static const char *const proc_readonly[] = { "/proc/sys", "/proc/sysrq-trigger", "/proc/bus",
					     "/proc/fs", "/proc/irq" };

#define MAX_CARRIED 64 /* the current directory and the unix-sockets */

struct carried {
	const char *path;
	int tree; /* open_tree() clone, or -1 */
	bool dir;
};

const char *agentfs_private_dir(const char *path)
{
	size_t i, n;

	for (i = 0; i < N_PRIVATE_DIRS; i++) {
		n = strlen(private_dirs[i]);
		if (!strncmp(path, private_dirs[i], n) && (path[n] == '/' || path[n] == '\0'))
			return private_dirs[i];
	}
	return NULL;
}

/* is_dir() - Return: whether @path is a directory (links followed). */
static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* bind_readonly() - @src on @dst, read-only (nosuid, nodev, noexec as
 * well when @noexec). Return: 0 or -errno. */
static int bind_readonly(const char *src, const char *dst, bool noexec)
{
	unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV;

	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL))
		return -errno;
	return mount(NULL, dst, NULL, flags | (noexec ? MS_NOEXEC : 0), NULL) ? -errno : 0;
}

/* mkdir_parents() - every missing directory above @path, the agent's and
 * 0700, as the directories it stands for are the user's (ssh-agent's
 * /tmp/ssh-XXXX, gpg's /run/user/UID/gnupg, which gpg checks).
 * Return: 0 or -errno. */
static int mkdir_parents(const struct agentfs *fs, const char *path)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = strchr(buf + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (!mkdir(buf, 0700)) {
			if (chown(buf, fs->uid, fs->gid))
				return -errno;
		} else if (errno != EEXIST) {
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

/* is_masked() - Return: whether @st is one of the sockets mask_sockets()
 * covers. */
static bool is_masked(const struct agentfs *fs, const struct stat *st)
{
	struct stat m;
	size_t i;

	for (i = 0; i < fs->n_masks; i++)
		if (stat(fs->masks[i], &m) == 0 && m.st_dev == st->st_dev && m.st_ino == st->st_ino)
			return true;
	return false;
}

/* carry_socket() - clone a unix-socket that lies in a private directory.
 * The attack: the path is the user's to change, so a link planted there
 * (agent.sock -> /run/docker.sock) would carry docker into the jail, and a
 * check by path, then an open by path, could see two different files. The
 * socket is opened once, no link followed anywhere on the path, and what is
 * checked and cloned is that descriptor.
 * Return: 1 if cloned, 0 if it does not exist now (warned), -errno. */
static int carry_socket(const struct agentfs *fs, const char *path, struct carried *c)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	struct stat st;
	int fd, err = 0;

	fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0) {
		if (errno == ENOENT) {
			log_warn("unix-socket %s does not exist now; the jail starts without it", path);
			return 0;
		}
		return log_err(-errno, "unix-socket %s: %s%s", path, strerror(errno),
			       errno == ELOOP ? " (a link on its path: name the socket itself)" : "");
	}
	if (fstat(fd, &st))
		err = log_err(-errno, "unix-socket %s: %s", path, strerror(errno));
	else if (!S_ISSOCK(st.st_mode))
		err = log_err(-EINVAL, "unix-socket %s is not a socket", path);
	/* Root opens it for the agent: never another user's socket (another
	 * user's bus in /run/user/OTHER is 0666 inside a 0700 directory). */
	else if (st.st_uid != fs->uid && st.st_uid != 0)
		err = log_err(-EPERM, "unix-socket %s belongs to uid %u, not to the agent's user",
			      path, (unsigned)st.st_uid);
	else if (is_masked(fs, &st))
		err = log_err(-EPERM, "unix-socket %s is the socket of a daemon that grants root; it "
			      "is never carried into the jail", path);
	if (!err) {
		c->tree = open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		if (c->tree < 0)
			err = log_err(-errno, "unix-socket %s: cannot carry it into the jail: %s",
				      path, strerror(errno));
	}
	close(fd);
	if (err)
		return err;
	c->path = path;
	c->dir = false;
	return 1;
}

/* place() - a carried tree at its own path inside the private directory.
 * Return: 0 or -errno (logged). */
static int place(const struct agentfs *fs, const struct carried *c)
{
	int err = mkdir_parents(fs, c->path), fd;

	if (!err && c->dir && mkdir(c->path, 0755) && errno != EEXIST)
		err = -errno;
	if (!err && !c->dir) {
		fd = open(c->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0);
		if (fd < 0)
			err = -errno;
		else
			close(fd);
	}
	if (!err && move_mount(c->tree, "", AT_FDCWD, c->path, MOVE_MOUNT_F_EMPTY_PATH))
		err = -errno;
	if (err)
		return log_err(err, "cannot carry %s into the agent's private %s: %s", c->path,
			       agentfs_private_dir(c->path), strerror(-err));
	return 0;
}

/* private_dirs_mount() - an empty tmpfs over each private directory there
 * is; /run/user/UID for the agent. Return: 0 or -errno (logged). */
static int private_dirs_mount(const struct agentfs *fs)
{
	char run_user[64];
	size_t i;

	for (i = 0; i < N_PRIVATE_DIRS; i++) {
		const char *d = private_dirs[i];
		const char *mode = strcmp(d, "/run/user") ? "mode=1777" : "mode=0755";

		if (!is_dir(d))
			continue;
		if (mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, mode))
			return log_err(-errno, "cannot give the agent a private %s: %s", d,
				       strerror(errno));
	}
	if (!is_dir("/run/user"))
		return 0;
	snprintf(run_user, sizeof(run_user), "/run/user/%u", (unsigned)fs->uid);
	if (mkdir(run_user, 0700) || chown(run_user, fs->uid, fs->gid))
		return log_err(-errno, "cannot make the agent's %s: %s", run_user, strerror(errno));
	return 0;
}

/* mask_sockets() - /dev/null over each socket of a daemon that grants root.
 * Return: 0 or -errno (logged). */
static int mask_sockets(const struct agentfs *fs)
{
	struct stat st;
	size_t i;
	int err;

	for (i = 0; i < fs->n_masks; i++) {
		/* stat() follows /var/run -> /run; a path masked already is
		 * /dev/null now, no socket. */
		if (stat(fs->masks[i], &st) || !S_ISSOCK(st.st_mode))
			continue;
		err = bind_readonly("/dev/null", fs->masks[i], true);
		if (err)
			return log_err(err, "cannot mask %s from the agent: %s", fs->masks[i],
				       strerror(-err));
		log_debug("masked %s", fs->masks[i]);
	}
	return 0;
}

/* new_cgroup_view() - cgroup2 mounted again where it is, in the agent's
 * cgroup namespace: only its jail's subtree to see. Return: 0 or -errno. */
static int new_cgroup_view(void)
{
	char root[PATH_MAX];

	if (cgroup_v2_root(root, sizeof(root)))
		return 0; /* none mounted: nothing to show */
	/* The same file system on its own mount point is EBUSY: the host's
	 * view goes first (in this mount namespace only). */
	if (umount2(root, MNT_DETACH) ||
	    mount("cgroup2", root, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return log_err(-errno, "cannot mount the agent's view of %s: %s", root,
			       strerror(errno));
	return 0;
}

/* rootless_cgroup_view() - a rootless jail's: over all of /sys/fs/cgroup
 * (the v1 hierarchies of a hybrid host included) a cgroup2 of the agent's
 * cgroup namespace where that is rooted at the jail's own cgroup, else an
 * empty read-only tmpfs. The host's mounts are locked in this user
 * namespace, so they are covered, not replaced. The attack: the agent is
 * the user, and the host's tree holds the user's other cgroups (systemd
 * --user delegates them): cgroup.kill and freezer.state there stop its
 * other processes. Return: 0 or -errno (logged). */
static int rootless_cgroup_view(bool own_cgroup)
{
	const char *root = "/sys/fs/cgroup";

	if (!is_dir(root))
		return 0;
	if (own_cgroup && !mount("cgroup2", root, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return 0;
	if (mount("tmpfs", root, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755"))
		return log_err(-errno, "cannot hide %s from the agent: %s", root, strerror(errno));
	return 0;
}

/* new_proc() - /proc of the new PID namespace: only the jail's processes.
 * Return: 0 or -errno (logged). */
static int new_proc(const struct agentfs *fs)
{
	size_t i;
	int err;

	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return log_err(-errno, "cannot mount the agent's /proc: %s", strerror(errno));
	for (i = 0; fs->uid == 0 && i < sizeof(proc_readonly) / sizeof(proc_readonly[0]); i++) {
		if (access(proc_readonly[i], F_OK))
			continue;
		err = bind_readonly(proc_readonly[i], proc_readonly[i], true);
		if (err)
			return log_err(err, "cannot make %s read-only for the agent: %s",
				       proc_readonly[i], strerror(-err));
	}
	return 0;
}

/* root_agent_readonly() - /sys read-only, every mount under it, for a
 * root agent: it owns the files there, and some need no capability
 * (/sys/power/state suspends the host). Return: 0 or -errno (logged). */
static int root_agent_readonly(void)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };

	if (mount_setattr(AT_FDCWD, "/sys", AT_RECURSIVE, &ro, sizeof(ro)))
		return log_err(-errno, "cannot make /sys read-only for a root agent: %s",
			       strerror(errno));
	return 0;
}

/* private_ipc_view() - the agent has an IPC namespace of its own (the
 * init's clone): a POSIX message queue file system mounted for the host's
 * would still show the host's queues. Return: 0 or -errno (logged). */
static int private_ipc_view(void)
{
	if (!is_dir("/dev/mqueue"))
		return 0;
	if (mount("mqueue", "/dev/mqueue", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return log_err(-errno, "cannot mount the agent's /dev/mqueue: %s", strerror(errno));
	return 0;
}

/* Directories hidden under an empty, read-only tmpfs:
 *   JAILSTATE_DIR  the jails' state (control sockets, pasta's logs, every
 *                  jail's status): root's business, not a root agent's
 *   /run/screen    GNU screen's sessions of every user, which run what a
 *                  client asks (SCREENDIR elsewhere works in the jail) */
static const char *const hidden_dirs[] = { JAILSTATE_DIR, "/run/screen" };

/* show_denials() - the jail's own denials, @denials_fd (an O_PATH fd of
 * the supervisor's file, opened before JAILSTATE_DIR was hidden), bound
 * read-only at @view in the hiding tmpfs @dir, which is then made
 * read-only itself (@dir NULL: a directory of the agent's, left as it
 * is). Return: 0 or -errno (logged). */
static int show_denials(int denials_fd, const char *view, const char *dir)
{
	unsigned long ro = MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
	char src[32];
	int fd, err;

	fd = open(view, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return log_err(-errno, "cannot show the agent its denials: %s", strerror(errno));
	close(fd);
	snprintf(src, sizeof(src), "/proc/self/fd/%d", denials_fd);
	err = bind_readonly(src, view, true);
	if (!err && dir && mount(NULL, dir, NULL, ro, "mode=0755"))
		err = -errno;
	if (err)
		return log_err(err, "cannot show the agent its denials: %s", strerror(-err));
	return 0;
}

/* pin_ancestors() - each directory above @path whose parent the agent can
 * write (its own, or one others may write), bound onto itself: a mount
 * point cannot be renamed (EBUSY, in every mount namespace the agent can
 * make: their copies are locked). The attack: rootless, the agent renames
 * ~/.local/state away with the audit log's read-only mount in it and makes
 * a directory of its own where its user will look for the records; or the
 * same with a state directory it was kept out of, to serve a control
 * socket of its own there. Return: 0 or -errno (logged). */
static int pin_ancestors(const struct agentfs *fs, const char *path)
{
	char dir[PATH_MAX], parent[PATH_MAX], *slash;
	struct stat st;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return log_err(-ENAMETOOLONG, "%s: too long", path);
	for (;;) {
		snprintf(parent, sizeof(parent), "%s", dir);
		slash = strrchr(parent, '/');
		if (!slash || slash == parent)
			return 0; /* a child of /, which is root's */
		*slash = '\0';
		if (stat(parent, &st))
			return log_err(-errno, "cannot read %s: %s", parent, strerror(errno));
		if ((st.st_uid == fs->uid || (st.st_mode & (S_IWGRP | S_IWOTH))) &&
		    mount(dir, dir, NULL, MS_BIND | MS_REC, NULL))
			return log_err(-errno, "cannot keep %s in place for the agent: %s", dir,
				       strerror(errno));
		snprintf(dir, sizeof(dir), "%s", parent);
	}
}

/* hide() - an empty tmpfs over @dir, read-only; @view (a path in @dir, or
 * NULL): the jail's denials, @denials_fd, shown there first.
 * Return: 0 or -errno (logged). */
static int hide(const char *dir, const char *view, int denials_fd)
{
	if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | (view ? 0 : MS_RDONLY),
		  "mode=0755"))
		return log_err(-errno, "cannot hide %s from the agent: %s", dir, strerror(errno));
	return view ? show_denials(denials_fd, view, dir) : 0;
}

/* hide_dirs() - each of hidden_dirs[] that exists, JAILSTATE_DIR with the
 * jail's own denials in it (@denials_fd, or -1). A rootless jail's state
 * directory too, where the private /run/user did not hide it already
 * (share-tmp, a $XDG_RUNTIME_DIR elsewhere). The attack: the agent is the
 * user there, and the state directory holds its jail's control socket.
 * Rootless without JAILSTATE_DIR, the view is JAIL_DENIALS_VIEW_USER: in
 * the hiding tmpfs where that is the state directory, else in the private
 * /run/user/UID (none with share-tmp: that one is the host's).
 * Return: 0 or -errno. */
static int hide_dirs(const struct agentfs *fs, int denials_fd)
{
	char view[128], view_dir[128];
	bool shown = false;
	size_t i;
	int err;

	for (i = 0; i < sizeof(hidden_dirs) / sizeof(hidden_dirs[0]); i++) {
		bool here = denials_fd >= 0 && !strcmp(hidden_dirs[i], JAILSTATE_DIR);

		if (!is_dir(hidden_dirs[i]))
			continue;
		err = hide(hidden_dirs[i], here ? JAIL_DENIALS_VIEW : NULL, denials_fd);
		if (err)
			return err;
		shown |= here;
	}
	if (!fs->rootless)
		return 0;
	snprintf(view, sizeof(view), JAIL_DENIALS_VIEW_USER, (unsigned)fs->uid);
	snprintf(view_dir, sizeof(view_dir), "%s", view);
	*strrchr(view_dir, '/') = '\0';
	if (is_dir(jailstate_dir())) {
		bool here = denials_fd >= 0 && !shown && !strcmp(jailstate_dir(), view_dir);

		err = hide(jailstate_dir(), here ? view : NULL, denials_fd);
		if (!err)
			err = pin_ancestors(fs, jailstate_dir());
		if (err)
			return err;
		shown |= here;
	}
	/* Not with share-tmp (/run/user is the host's then), nor without a
	 * private /run/user (a system without it): no view, as the root
	 * engine has none without JAILSTATE_DIR. */
	*strchr(view_dir + strlen("/run/user/"), '/') = '\0';
	if (denials_fd < 0 || shown || fs->share_tmp || !is_dir(view_dir))
		return 0;
	err = mkdir_parents(fs, view);
	if (err)
		return log_err(err, "cannot show the agent its denials: %s", strerror(-err));
	return show_denials(denials_fd, view, NULL);
}

/* The most entries cwd_may_be_carried() reads: a project, not a home. */
#define CARRY_SCAN_MAX 20000

/* cwd_may_be_carried() - a current directory in a private directory is
 * carried in whole, with every socket in it. The attack: started from
 * /run/user/UID (the session bus), /tmp/tmux-UID, /tmp/.X11-unix or a
 * directory above one (TMUX_TMPDIR=/tmp/work), the jail would carry the
 * host's sockets in with it, under a prefix the Unix hooks allow. So never
 * from /run/user, nor from a tree that holds a socket anywhere (links not
 * followed, other file systems not entered), nor from one too large to
 * read through before the agent starts.
 * Return: 0 or -EPERM (logged). */
static int cwd_may_be_carried(const char *cwd)
{
	char *const paths[] = { (char *)(uintptr_t)cwd, NULL };
	unsigned int seen = 0;
	FTSENT *e;
	FTS *fts;
	int err = 0;

	if (!strcmp(agentfs_private_dir(cwd), "/run/user"))
		return log_err(-EPERM, "the current directory %s is in /run/user, where the "
			       "session's sockets live; start the agent from elsewhere", cwd);
	fts = fts_open(paths, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
	if (!fts)
		return log_err(-errno, "cannot read the current directory %s: %s", cwd,
			       strerror(errno));
	while (!err && (e = fts_read(fts))) {
		if (++seen > CARRY_SCAN_MAX)
			err = log_err(-EPERM, "the current directory %s is too large to check for the "
				      "host's sockets before the agent gets it (more than %d entries); "
				      "start it from a directory outside %s", cwd, CARRY_SCAN_MAX,
				      agentfs_private_dir(cwd));
		else if (e->fts_info == FTS_DEFAULT && S_ISSOCK(e->fts_statp->st_mode))
			err = log_err(-EPERM, "the current directory %s holds the host's socket %s, "
				      "which the agent would get with it; start it from elsewhere "
				      "(or share-tmp = on)", cwd, e->fts_path);
	}
	fts_close(fts);
	return err;
}

int agentfs_setup(const struct agentfs *fs)
{
	struct carried carried[MAX_CARRIED];
	char cwd[PATH_MAX];
	bool have_cwd, in_private;
	size_t n = 0, i;
	int err = 0, denials_fd = -1, resolv_fd = -1;
	char resolv[32];

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return log_err(-errno, "cannot create the agent's mount namespace: %s",
			       strerror(errno));
	/* The jail's own files, held first: they live in the jail's state
	 * directory, which the private /run/user (a rootless jail's) or the
	 * hiding of JAILSTATE_DIR (root's) takes out of sight. */
	if (fs->resolv_conf) {
		resolv_fd = open(fs->resolv_conf, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (resolv_fd < 0)
			return log_err(-errno, "cannot mount the jail's /etc/resolv.conf: %s",
				       strerror(errno));
		snprintf(resolv, sizeof(resolv), "/proc/self/fd/%d", resolv_fd);
	}
	if (fs->denials) {
		denials_fd = open(fs->denials, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (denials_fd < 0)
			return log_err(-errno, "cannot show the agent its denials %s: %s",
				       fs->denials, strerror(errno));
	}
	/* 1. What the private directories would hide, cloned now. The
	 * current directory (a project in /tmp) keeps its path. */
	have_cwd = getcwd(cwd, sizeof(cwd)) != NULL;
	in_private = !fs->share_tmp && have_cwd && agentfs_private_dir(cwd);
	if (in_private && strcmp(cwd, agentfs_private_dir(cwd))) {
		err = cwd_may_be_carried(cwd);
		if (err)
			return err;
		carried[n].tree = open_tree(AT_FDCWD, cwd,
					    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (carried[n].tree < 0)
			return log_err(-errno, "cannot keep the current directory %s: %s", cwd,
				       strerror(errno));
		carried[n].path = cwd;
		carried[n++].dir = true;
	}
	for (i = 0; i < fs->n_unix_sockets && !err; i++) {
		if (fs->share_tmp || !agentfs_private_dir(fs->unix_sockets[i]))
			continue; /* visible as it is */
		if (n == MAX_CARRIED) {
			err = log_err(-E2BIG, "more than %d unix-socket entries", MAX_CARRIED - 1);
			break;
		}
		err = carry_socket(fs, fs->unix_sockets[i], &carried[n]);
		if (err > 0) {
			n++;
			err = 0;
		}
	}
	/* 2-5. */
	if (!err)
		err = new_proc(fs);
	if (!err)
		err = fs->rootless ? rootless_cgroup_view(fs->own_cgroup) : new_cgroup_view();
	if (!err && !fs->share_tmp)
		err = private_dirs_mount(fs);
	for (i = 0; i < n && !err; i++)
		err = place(fs, &carried[i]);
	if (!err)
		err = mask_sockets(fs);
	if (!err && resolv_fd >= 0) {
		err = bind_readonly(resolv, "/etc/resolv.conf", false);
		if (err)
			log_err(err, "cannot mount the jail's /etc/resolv.conf: %s", strerror(-err));
	}
	if (!err)
		err = private_ipc_view();
	if (!err)
		err = hide_dirs(fs, denials_fd);
	/* The attack: rootless, the agent is the user who owns the audit
	 * log, and would rewrite the record of what it tried. */
	/* (not there: in a private directory, hidden already) */
	if (!err && fs->readonly_dir && is_dir(fs->readonly_dir) &&
	    (err = bind_readonly(fs->readonly_dir, fs->readonly_dir, true)))
		log_err(err, "cannot make %s read-only for the agent: %s", fs->readonly_dir,
			strerror(-err));
	if (!err && fs->readonly_dir && is_dir(fs->readonly_dir))
		err = pin_ancestors(fs, fs->readonly_dir);
	if (denials_fd >= 0)
		close(denials_fd);
	if (resolv_fd >= 0)
		close(resolv_fd);
	if (!err && fs->uid == 0)
		err = root_agent_readonly();
	/* The attack: `cd /tmp && ebpfjail run claude`. A process keeps its
	 * current directory under a new mount: without this, the agent would
	 * work in the host's /tmp, under its private one, by relative path.
	 * The path is resolved again in the agent's view (only there: a
	 * root-squashed home would refuse root). */
	if (!err && in_private && chdir(cwd))
		err = log_err(-errno, "cannot enter %s in the agent's view: %s", cwd, strerror(errno));
	/* Unreachable or too long to name: it could be anywhere, the host's
	 * /tmp included. */
	if (!err && !have_cwd && chdir("/"))
		err = log_err(-errno, "cannot enter / in the agent's view: %s", strerror(errno));
	for (i = 0; i < n; i++)
		close(carried[i].tree);
	return err;
}
