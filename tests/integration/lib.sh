# lib.sh - helpers for the integration tests (sourced; $EBPFJAIL is the binary)

fail() { echo "FAIL: $*" >&2; exit 1; }

# mount_of TYPE: the first mount point of that file system type (in
# mountinfo the type is the field after "-"; the optional fields before it
# vary in number)
mount_of() {
	awk -v type="$1" '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i + 1) == type) { print $5; exit } break } }' \
		/proc/self/mountinfo
}
cgroup_mount() { mount_of cgroup2; }
skip() { echo "$*"; exit 77; }

# user_binary DIR: tests run $EBPFJAIL as uid 4242 (the rootless pass, the
# benchmarks' rootless jails, the root pass's refusals of an unprivileged
# user); a build it cannot reach (a clone in root's 0700 home, as on a new
# machine) is copied into DIR (made reachable) with the profiles beside it
# (where it looks for them, root's), and EBPFJAIL names the copy
user_binary() {
	local profiles
	profiles=$(dirname "$EBPFJAIL")/profiles
	setpriv --reuid 4242 --regid 4242 --clear-groups -- test -x "$EBPFJAIL" && return 0
	chmod 755 "$1" && install -m 0755 "$EBPFJAIL" "$1/ebpfjail" || return 1
	if [ -d "$profiles" ]; then
		install -d -m 0755 "$1/profiles" && install -m 0644 "$profiles"/*.conf "$1/profiles/" || return 1
	fi
	echo "# uid 4242 cannot reach $EBPFJAIL; a copy in $1"
	export EBPFJAIL=$1/ebpfjail
}

# need_landlock_scopes [WHY]: skip where the kernel has no Landlock scopes
# (WHY, if given, says what then goes unprotected)
need_landlock_scopes() {
	local abi
	abi=$("$EBPFJAIL" doctor --json | grep -o '"check": "landlock", "status": "[a-z]*", "detail": "[^"]*' | grep -o 'ABI [0-9]*' | awk '{ print $2 }')
	[ "${abi:-0}" -ge 6 ] || skip "kernel lacks Landlock scopes (ABI ${abi:-none}, 6 needed)${1:+: $1}"
}

# _state PID: the process's state letter (S: sleeping, T: stopped), or nothing
_state() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || true; }

# hide_landlock: the jails this test starts (jail_cmd) run as on a kernel
# without Landlock (Debian 12's 6.1 has no scopes): $T/nolandlock wraps
# them (nolandlock.c), and `$T/nolandlock --check` in the agent says
# "landlock errno ENOSYS" if it holds there too
hide_landlock() {
	cc -O2 -o "$T/nolandlock" "$SRC/tests/integration/nolandlock.c" || fail "cannot build nolandlock.c"
	chmod 755 "$T/nolandlock"
	export JAIL_WRAP=$T/nolandlock
}

# run CMD...: run it, keeping stdout in $T/out, stderr in $T/err, status in $rc
run() {
	set +e
	"$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	set -e
}

# run_until TEXT COMMAND...: run COMMAND (as run does) until its stdout has
# TEXT, at most 50 times 0.1 s apart: for what the supervisor writes once a
# second (its status, its counts); a fixed sleep lost to a late supervisor
run_until() {
	local text=$1 i
	shift
	for i in $(seq 1 50); do
		run "$@"
		grep -qF -- "$text" "$T/out" && return 0
		sleep 0.1
	done
	return 0 # the last output stays for the caller's expect_out to judge
}

expect_rc() { [ "$rc" -eq "$1" ] || fail "exit status $rc, want $1; stderr: $(cat "$T/err")"; }
expect_out() { grep -qF -- "$1" "$T/out" || fail "stdout lacks '$1':"$'\n'"$(cat "$T/out")"; }
expect_err() { grep -qF -- "$1" "$T/err" || fail "stderr lacks '$1':"$'\n'"$(cat "$T/err")"; }
expect_no_out() { ! grep -qF -- "$1" "$T/out" || fail "stdout has '$1'"; }
expect_lines() {
	local n
	n=$(wc -l <"$2")
	[ "$n" -eq "$1" ] || fail "$2 has $n lines, want $1:"$'\n'"$(cat "$2")"
}

# with_etc CMD...: run CMD in a private mount namespace whose /etc is a copy
# in $T/etc, so a test can write /etc/ebpfjail.conf and /etc/passwd without
# touching the machine's. Sets up user "jailtest" (uid 4242) with home $T/home.
with_etc() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a private mount namespace"
	if [ ! -d "$T/etc" ]; then
		chmod 755 "$T"
		cp -a /etc "$T/etc"
		rm -f "$T/etc/ebpfjail.conf"
		mkdir -p "$T/home/.config"
		echo "jailtest:x:4242:4242::$T/home:/bin/sh" >>"$T/etc/passwd"
		chown -R 4242:4242 "$T/home"
	fi
	private_varlib
	unshare --mount --propagation private -- sh -c 'mount --bind "$0/etc" /etc &&
		mount --bind "$0/varlib" /var/lib/ebpfjail && exec "$@"' "$T" "$@"
}

# private_varlib: $T/varlib, which tests mount over /var/lib/ebpfjail (the
# approvals of `ebpfjail trust`) in their private mount namespaces, so no
# test reads or leaves an approval on the machine
private_varlib() {
	mkdir -p /var/lib/ebpfjail "$T/varlib"
	chmod 700 "$T/varlib"
}

# trust_cmd [OPTIONS]: `ebpfjail trust --yes` as through sudo by uid 4242,
# with the tests' /var/lib/ebpfjail (TRUST_ASK=1: without --yes, so it asks)
trust_cmd() {
	local yes=--yes
	[ -n "${TRUST_ASK:-}" ] && yes=
	private_varlib
	unshare --mount --propagation private -- sh -c 'mount --bind "$0/varlib" /var/lib/ebpfjail &&
		exec env SUDO_UID=4242 SUDO_GID=4242 "$@"' "$T" "$EBPFJAIL" trust $yes "$@"
}

# alive PID: running, not a zombie waiting for a reaper (nor dead). The
# stat file is read once: a check that it exists and a second read race
# the reaper (the second read then fails and a dead process was counted
# alive). The state follows the last ')': a name may hold spaces.
alive() {
	local stat=
	# -d '': the whole file, as _ppid reads it (a name may hold a newline)
	{ IFS= read -r -d '' stat <"/proc/$1/stat"; } 2>/dev/null
	[ -n "$stat" ] || return 1
	stat=${stat##*) }
	case ${stat%% *} in Z | X) return 1 ;; esac
}

# pasta_pids: running pasta processes (Debian's pasta is passt, exec'd as
# passt.avx2 on most CPUs; zombies waiting for a reaper do not count), of
# this test only once netsim.sh is up: those in its simulated host's
# network namespace, where its jails' supervisors start them (other
# suites on the machine run theirs at the same time)
pasta_pids() {
	local ns= p
	[ -z "${HOST:-}" ] || ns=$(readlink "/proc/$HOST/ns/net" 2>/dev/null || true)
	for p in $(ps -eo pid=,stat=,comm= | awk '$2 !~ /Z/ && $3 ~ /^(pasta|passt)(\.avx2)?$/ { print $1 }'); do
		[ -z "$ns" ] || [ "$(readlink "/proc/$p/ns/net" 2>/dev/null)" = "$ns" ] && echo "$p"
	done
	return 0
}

# failinject_wrap: $T/failwrap, a JAIL_WRAP that runs ebpfjail with
# failinject.c preloaded; its FAIL_* variables, from the environment, say
# what fails
failinject_wrap() {
	cc -shared -fPIC -O2 -o "$T/failinject.so" "$SRC/tests/integration/failinject.c" -ldl ||
		fail "cannot build failinject.c"
	chmod 755 "$T/failinject.so"
	printf '#!/bin/sh\nexec env LD_PRELOAD=%s "$@"\n' "$T/failinject.so" >"$T/failwrap"
	chmod 755 "$T/failwrap"
}
