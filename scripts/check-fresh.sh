#!/usr/bin/env bash
# check-fresh.sh - `scripts/deps.sh && make check` on a fresh Debian 12 root
#
# Usage: scripts/check-fresh.sh    (root; `make check-fresh`)
#
# FRESH_SUITE=trixie: a Debian 13 root instead (its archives are this
# machine's with the suite's name; make check-trixie, and make
# check-trixie-build, which CI runs: FRESH_DEPS="--section build ..." for
# deps.sh, FRESH_CMD="make all unit check-apparmor").
#
# Proves that a new machine with nothing installed by hand passes the
# README's test command. Ends with "check-fresh: passed in M min S s" or
# "check-fresh: FAILED ...", and exits 0 only when it passed.
#
# Theory of operation:
# - The root: a minimal Debian 12 (mmdebstrap --variant=minbase: Essential
#   and required packages and apt) from the Debian archives this machine's
#   apt uses (scripts/apt-sources.sh), cached as a tarball in
#   $FRESH_CACHE (/var/cache/ebpfjail/fresh; rebuilt after a week or when
#   the sources change). Every run extracts it anew into a scratch
#   directory under /var/tmp, so no run sees another's installs or caches.
# - The tree: what a clean clone has, `git ls-files` (no build/, nothing
#   untracked; a tracked file's working copy, edits included), in
#   /root/ebpfjail, owned by root.
# - The machine around it: a cgroup of its own (below ours, on this host's
#   cgroup2, found in mountinfo; the controllers ours has, enabled for it,
#   as systemd delegates, and left enabled) entered with a cgroup namespace, so the
#   run sees a cgroup tree of its own and nothing of other runs'; private
#   mount, PID, IPC and UTS namespaces. In them: a new /proc and sysfs,
#   this host's cgroup layout mounted afresh (cgroup2 and v1 where mountinfo
#   says it has them: a hybrid host's stays hybrid), bpffs on /sys/fs/bpf
#   (what systemd mounts on a new machine; no debugfs or tracefs, which
#   nothing uses), a /dev of its own (the host's null, zero, full,
#   random, urandom, tty and net/tun nodes, a new devpts, /dev/shm), /run
#   as tmpfs (with /run/user and /run/lock, as systemd-tmpfiles leaves
#   it), then pivot_root: the host's file systems are gone from view. The
#   network namespace is the machine's, for apt; the suites make their own
#   for everything else.
# - Fresh means fresh: /var/cache/ebpfjail inside is empty (the current
#   pasta and the container suite's base image are built again). Three
#   things come from the host: /etc/resolv.conf and /etc/hosts (copied,
#   so apt can resolve its mirror), the certificate authorities the
#   site added (/usr/local/share/ca-certificates: a network whose proxy
#   signs https itself; ca-certificates takes them in when deps.sh
#   installs it, as on a machine of that site), and apt's download cache: the host's
#   /var/cache/apt/archives as the lower layer of an overlay, so .debs it
#   already holds are not fetched again (apt checks each against the
#   index; the host's cache is never written). FRESH_APT_CACHE=0 turns
#   that off.
# - One deviation from a new machine: /usr/sbin/policy-rc.d exits 101, as
#   in Debian's container images, so installing docker.io does not start
#   dockerd and containerd in the machine's network namespace.
# - `scripts/deps.sh && make check` runs as root with CI=true, stdin from
#   /dev/null, a clean environment; FRESH_CMD="make unit" runs that instead
#   of `make check` (after deps.sh), to try the root out.
# - The PID namespace is the machine's: the jail's BPF programs report
#   pids as the initial PID namespace numbers them
#   (bpf_get_current_pid_tgid), and the unit tests that compare them
#   (sock::every_way_out, unix_hooks::*) fail in a namespace of its own,
#   as they would in a CI container. The suites' helpers look only at this
#   run's jails, but the container suite's leftover checks (pasta, BPF
#   programs, network namespaces) are machine-wide: run it on a quiet
#   machine. FRESH_PIDNS=1 gives the run a PID namespace of its own.
# - The cgroup namespace is there for the cleanup: every process the run
#   starts, the container engines' included, stays in its cgroup. To
#   ebpfjail-entrypoint the run then looks like a container with a
#   cgroup namespace of its own, which it may remount writable: so
#   test_install's read-only cgroup case also drops CAP_SYS_ADMIN, as
#   Docker's default does.
# - Cleanup, on every exit (trap): cgroup.kill on the run's cgroup ends
#   every process of it, which ends the namespaces and with them every
#   mount (none was ever visible here: private propagation); the cgroups
#   are removed deepest first; the scratch directory is removed only when
#   nothing below it is mounted (rm --one-file-system either way).
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${FRESH_CACHE:-/var/cache/ebpfjail/fresh}
dest=/root/ebpfjail
suite=${FRESH_SUITE:-bookworm}
case $suite in
bookworm) name=debian12 what="Debian 12" ;;
trixie) name=debian13 what="Debian 13" ;;
*) echo "check-fresh: FRESH_SUITE=$suite: bookworm or trixie" >&2; exit 2 ;;
esac

# cgroup_layout: "POINT TYPE SOURCE OPTIONS" of every cgroup2 and cgroup v1
# mount in mountinfo, and of the mounts they sit on (not / or /sys), in
# mountinfo's order: parents first
cgroup_layout() {
	awk '{
		for (i = 7; i <= NF; i++) if ($i == "-") break
		n++; point[n] = $5; line[n] = $5 " " $(i + 1) " " $(i + 2) " " $(i + 3)
		if ($(i + 1) == "cgroup" || $(i + 1) == "cgroup2") cg[n] = 1
	} END {
		for (j = 1; j <= n; j++) {
			if (!cg[j]) continue
			want[j] = 1
			for (k = 1; k <= n; k++)
				if (point[k] != "/" && point[k] != "/sys" && index(point[j], point[k] "/") == 1) want[k] = 1
		}
		for (j = 1; j <= n; j++) if (want[j]) print line[j]
	}' /proc/self/mountinfo
}

# inner R: in the new namespaces; set up R/root, pivot into it, run the check
inner() {
	local R=$1 root=$1/root point type src opts dev rc
	set -e
	mount --bind "$root" "$root" # pivot_root wants a mount point
	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	# The host's cgroup layout, afresh (in the cgroup namespace: rooted at
	# the run's own cgroup): every cgroup2 and cgroup v1 mount where the
	# host has it, and the file systems they sit on (the tmpfs of a hybrid
	# layout's /sys/fs/cgroup), nothing else of the host's.
	local cgroup2=
	while read -r point type src opts; do
		mkdir -p "$root$point"
		mount -t "$type" -o "$opts" "$src" "$root$point"
		[ "$type" = cgroup2 ] && cgroup2=$root$point
	done < <(cgroup_layout)
	# The run in a leaf, "init" (systemd's init.scope): the namespace's
	# root then holds no process, so a container engine may enable
	# controllers there (Podman's pods: EBUSY otherwise).
	[ -z "$cgroup2" ] || { mkdir "$cgroup2/init" && echo $$ >"$cgroup2/init/cgroup.procs"; }
	[ "$(stat -f -c %T "$root/sys/fs/bpf")" = bpf_fs ] || mount -t bpf bpf "$root/sys/fs/bpf"
	mount -t tmpfs -o mode=755,nosuid tmpfs "$root/dev"
	for dev in null zero full random urandom tty net/tun; do
		[ -e "/dev/$dev" ] || continue
		mkdir -p "$(dirname "$root/dev/$dev")"
		touch "$root/dev/$dev"
		mount --bind "/dev/$dev" "$root/dev/$dev"
	done
	mkdir "$root/dev/pts" "$root/dev/shm"
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts "$root/dev/pts"
	ln -s pts/ptmx "$root/dev/ptmx"
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm"
	ln -s /proc/self/fd "$root/dev/fd"
	ln -s /proc/self/fd/0 "$root/dev/stdin"
	ln -s /proc/self/fd/1 "$root/dev/stdout"
	ln -s /proc/self/fd/2 "$root/dev/stderr"
	mount -t tmpfs -o mode=755,nosuid,nodev tmpfs "$root/run"
	# what systemd-tmpfiles makes there on a booted Debian 12 (tests bind
	# mounts on /run/user, as a user's session directories live there)
	mkdir -m 0755 "$root/run/user"
	mkdir -m 1777 "$root/run/lock"
	if [ "${FRESH_APT_CACHE:-1}" != 0 ] && [ -d /var/cache/apt/archives ]; then
		mkdir -p "$R/apt/upper" "$R/apt/work" "$root/var/cache/apt/archives"
		mount -t overlay overlay -o "lowerdir=/var/cache/apt/archives,upperdir=$R/apt/upper,workdir=$R/apt/work" \
			"$root/var/cache/apt/archives"
	fi
	cd "$root"
	mkdir -p .host
	pivot_root . .host
	cd /
	umount -l /.host
	rmdir /.host
	set +e
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root USER=root \
		LOGNAME=root SHELL=/bin/bash CI=true bash -c '
		cd "$0" || exit 1
		start=$SECONDS
		scripts/deps.sh $2 || { echo "check-fresh: scripts/deps.sh failed"; exit 1; }
		echo "# check-fresh: scripts/deps.sh took $((SECONDS - start)) s"
		eval "$1"' "$dest" "${FRESH_CMD:-make check}" "${FRESH_DEPS:-}" </dev/null
	rc=$?
	return "$rc"
}

if [ "${1:-}" = --inner ]; then
	inner "$2"
	exit
fi

[ "$(id -u)" -eq 0 ] || { echo "check-fresh: run it as root" >&2; exit 1; }
for tool in mmdebstrap git unshare pivot_root tar; do
	command -v "$tool" >/dev/null || { echo "check-fresh: $tool is missing (scripts/deps.sh)" >&2; exit 1; }
done
source "$top/tests/integration/lib.sh" # mount_of, cgroup_mount
started=$(date +%s)
R= sub=

# base_root: the cached minimal root tarball of $suite, built if missing or
# more than a week old
base_root() {
	local sources sum tar part
	. /etc/os-release
	[ "${VERSION_CODENAME:-}" = bookworm ] ||
		{ echo "check-fresh: this machine is not Debian 12: its archives would not build bookworm" >&2; return 1; }
	# Another suite: the same archives, its name in place of bookworm's
	# (bookworm-updates, bookworm-security with it).
	sources=$("$here/apt-sources.sh" --suite "$suite") || return 1
	sum=$(printf 'minbase\n%s\n' "$sources" | sha256sum | cut -c1-12)
	tar=$cache/$name-minbase-$sum.tar
	if [ -s "$tar" ] && [ -z "$(find "$tar" -mtime +7)" ]; then
		echo "$tar"
		return 0
	fi
	mkdir -p "$cache"
	part=$tar.partial.$$
	printf '%s\n' "$sources" >"$part.sources.list"
	echo "# check-fresh: building the $what root with mmdebstrap (minbase), from:" >&2
	sed 's/^/#   /' "$part.sources.list" >&2
	if ! mmdebstrap --quiet --variant=minbase "$suite" "$part.tar" "$part.sources.list" >&2; then
		rm -f "$part.tar" "$part.sources.list"
		return 1
	fi
	rm -f "$part.sources.list"
	mv "$part.tar" "$tar"
	echo "$tar"
}

cleanup() {
	local i left
	set +e
	trap - EXIT INT TERM HUP
	if [ -n "$sub" ] && [ -d "$sub" ]; then
		echo 1 >"$sub/cgroup.kill" 2>/dev/null ||
			find "$sub" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		for i in $(seq 1 100); do
			grep -qx 'populated 0' "$sub/cgroup.events" 2>/dev/null && break
			sleep 0.1
		done
		for i in $(seq 1 50); do
			find "$sub" -depth -type d -exec rmdir {} + 2>/dev/null
			[ -d "$sub" ] || break
			sleep 0.1
		done
		[ -d "$sub" ] && echo "check-fresh: cannot remove the cgroup $sub" >&2
	fi
	if [ -n "$R" ] && [ -d "$R" ]; then
		# Nothing was mounted in this namespace; should anything be, it
		# goes before a single file does.
		left=$(awk -v r="$R/" 'index($5, r) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
		[ -z "$left" ] || umount -l $left
		if awk -v r="$R/" 'index($5, r) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
			echo "check-fresh: still mounted below $R: left in place" >&2
		else
			rm -rf --one-file-system "$R"
		fi
	fi
}
trap cleanup EXIT
trap 'echo "check-fresh: FAILED: interrupted"; exit 130' INT
trap 'echo "check-fresh: FAILED: terminated"; exit 143' TERM HUP

tar=$(base_root) || { echo "check-fresh: FAILED: no $what root"; exit 1; }
R=$(mktemp -d /var/tmp/ebpfjail-fresh.XXXXXX)
mkdir "$R/root"
tar -xf "$tar" -C "$R/root" --numeric-owner || { echo "check-fresh: FAILED: cannot extract $tar"; exit 1; }
mkdir -p "$R/root$dest"
# tracked_files: the tree's files as NUL-terminated paths: what git tracks,
# or, in a tree without git (make check inside check-fresh: the Debian 13
# build), every file but the builds'
tracked_files() {
	if [ -e "$top/.git" ]; then
		git ls-files -z | while IFS= read -r -d '' f; do
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done
	else
		find . \( -path ./build -o -path './build-*' \) -prune -o \( -type f -o -type l \) -printf '%P\0'
	fi
}
(cd "$top" && tracked_files | tar --null -T - --owner=0 --group=0 -cf -) | tar -xf - -C "$R/root$dest" ||
	{ echo "check-fresh: FAILED: cannot copy the tree"; exit 1; }
cp -L /etc/resolv.conf "$R/root/etc/resolv.conf"
cp -L /etc/hosts "$R/root/etc/hosts"
if [ -d /usr/local/share/ca-certificates ]; then
	mkdir -p "$R/root/usr/local/share/ca-certificates" &&
		cp -RL /usr/local/share/ca-certificates/. "$R/root/usr/local/share/ca-certificates/"
fi
printf '#!/bin/sh\n# check-fresh: no service starts in the machine'"'"'s network namespace\nexit 101\n' \
	>"$R/root/usr/sbin/policy-rc.d"
chmod 755 "$R/root/usr/sbin/policy-rc.d"

cg=$(cgroup_mount)
[ -n "$cg" ] || { echo "check-fresh: FAILED: no cgroup2 mounted (the jail needs it)"; exit 1; }
own=$(sed -n 's/^0:://p' /proc/self/cgroup)
# A run killed outright (SIGKILL, the machine restarted) could not take its
# trap: its empty cgroup goes now, once its shell is gone.
for old in "$cg${own%/}"/ebpfjail-fresh.*; do
	[ -d "$old" ] && ! kill -0 "${old##*.}" 2>/dev/null &&
		grep -qx 'populated 0' "$old/cgroup.events" 2>/dev/null &&
		find "$old" -depth -type d -exec rmdir {} + 2>/dev/null
done
# The controllers the run's parent has, enabled for its children, as a
# booted machine's systemd enables them on the root and for a unit it
# delegates: Podman's pods enable them in turn below the run's namespace
# root, and with none to enable, podman kube play fails (EINVAL on
# cgroup.subtree_control). A machine booted without systemd has none
# enabled until something enables them; they stay enabled, as systemd
# would leave them. Below the root, the parent holds this script, and a
# domain controller (memory, io) cannot be enabled there (EBUSY): said
# with the kernel's reason, and the pod test then fails.
parent=$cg${own%/} missing=
for ctl in $(cat "$parent/cgroup.controllers"); do
	grep -qwF "$ctl" "$parent/cgroup.subtree_control" && continue
	err=$({ echo "+$ctl" >"$parent/cgroup.subtree_control"; } 2>&1) || missing="$missing $ctl (${err##*: })"
done
[ -z "$missing" ] || echo "# check-fresh: cannot enable below $parent:$missing; Podman's pods in the run need them"
sub=$cg${own%/}/ebpfjail-fresh.$$
mkdir "$sub" || { echo "check-fresh: FAILED: cannot create the cgroup $sub"; exit 1; }
echo "# check-fresh: $(git -C "$top" describe --always --dirty 2>/dev/null || echo "a tree without git") in a fresh $what root ($R), cgroup $sub"

pidns=()
[ "${FRESH_PIDNS:-0}" = 1 ] && pidns=(--pid --fork)
sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$sub" \
	unshare --cgroup --mount --ipc --uts "${pidns[@]}" --propagation private -- \
	bash "$here/check-fresh.sh" --inner "$R" </dev/null &
# In the background: a signal interrupts `wait` (it would wait for a
# foreground child to end first), and the trap ends the run's cgroup.
wait $!
rc=$?
took=$(($(date +%s) - started))
if [ "$rc" -eq 0 ]; then
	echo "check-fresh: passed in $((took / 60)) min $((took % 60)) s"
else
	echo "check-fresh: FAILED (exit $rc) after $((took / 60)) min $((took % 60)) s"
fi
exit "$rc"
