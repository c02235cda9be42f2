# test_install.sh - `make install` into a staging tree, the installed tool,
# and the container entrypoint

test_install_tree_man_pages_and_installed_binary() {
	local root="$T/root"
	mkdir -p "$root/etc"
	echo "allow-ip = 192.0.2.1 # mine" >"$root/etc/ebpfjail.conf"
	make -s -C "$SRC" install DESTDIR="$root" PREFIX=/usr >"$T/install.out" 2>&1 ||
		fail "make install: $(cat "$T/install.out")"
	local f
	for f in usr/bin/ebpfjail usr/bin/ebpfjail-entrypoint usr/share/man/man1/ebpfjail.1 \
		usr/share/man/man1/ebpfjail-entrypoint.1 \
		usr/share/man/man5/ebpfjail.conf.5 usr/share/bash-completion/completions/ebpfjail \
		etc/ebpfjail.conf.example; do
		[ -f "$root/$f" ] || fail "not installed: $f"
	done
	[ -x "$root/usr/bin/ebpfjail" ] || fail "the binary is not executable"
	[ -d "$root/var/log/ebpfjail" ] || fail "no audit log directory"
	# an existing configuration is never overwritten
	grep -qx "allow-ip = 192.0.2.1 # mine" "$root/etc/ebpfjail.conf" || fail "the config was overwritten"
	cmp -s "$SRC/etc/ebpfjail.conf" "$root/etc/ebpfjail.conf.example" || fail "the example differs"

	# the man pages render without a single warning
	for f in man1/ebpfjail-entrypoint.1 man1/ebpfjail.1 man5/ebpfjail.conf.5; do
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$root/usr/share/man/$f" >"$T/man.txt" 2>"$T/man.err" ||
			fail "man -l $f failed: $(cat "$T/man.err")"
		[ ! -s "$T/man.err" ] || fail "man -l $f warns: $(cat "$T/man.err")"
		[ "$(wc -l <"$T/man.txt")" -gt 40 ] || fail "man -l $f: too short"
	done
	grep -q "ebpfjail reload" "$T/man.txt" || grep -q "reload" "$root/usr/share/man/man1/ebpfjail.1" ||
		fail "ebpfjail(1) does not document reload"

	# the installed binary runs
	run "$root/usr/bin/ebpfjail" --version
	expect_rc 0
	expect_out "ebpfjail"
	run "$root/usr/bin/ebpfjail" doctor --config "$root/etc/ebpfjail.conf"
	[ "$rc" -le 1 ] || fail "doctor exited $rc: $(cat "$T/err")"
	expect_out "pasta"
	# ... and finds its profiles under its own prefix, not the tree's
	run "$root/usr/bin/ebpfjail" config --config "$root/etc/ebpfjail.conf" --profile github
	expect_rc 0
	grep -qE "^# allow-host = github.com:22 +# $root/usr/share/ebpfjail/profiles/github.conf:[0-9]+$" "$T/out" ||
		fail "the installed profile: $(cat "$T/out" "$T/err")"

	# completion: every command and every configuration key is offered
	local cmd key
	for cmd in $("$root/usr/bin/ebpfjail" help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }'); do
		grep -q "commands=.*\b$cmd\b" "$root/usr/share/bash-completion/completions/ebpfjail" ||
			fail "completion lacks the command $cmd"
	done
	for key in $(sed -n 's/^#* *\([a-z-]*\) = .*/\1/p' "$SRC/etc/ebpfjail.conf" | sort -u); do
		grep -q "keys=.*\b$key\b" "$root/usr/share/bash-completion/completions/ebpfjail" ||
			fail "completion lacks the key $key"
	done

	# ... and it really completes, as bash would call it
	cat >"$T/complete.sh" <<EOF
source /usr/share/bash-completion/bash_completion
source $root/usr/share/bash-completion/completions/ebpfjail
c() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\$# - 1)); COMP_LINE="\$*"; COMP_POINT=\${#COMP_LINE}; COMPREPLY=(); _ebpfjail; echo "\${COMPREPLY[*]}"; }
c ebpfjail rel
c ebpfjail audit --ja
c ebpfjail config block
c ebpfjail run --allow-ip 192.0.2.1 --pass
EOF
	bash "$T/complete.sh" >"$T/out" 2>/dev/null
	expect_lines 4 "$T/out"
	[ "$(sed -n 1p "$T/out")" = reload ] || fail "rel -> $(sed -n 1p "$T/out")"
	[ "$(sed -n 2p "$T/out")" = "--jail" ] || fail "audit --ja -> $(sed -n 2p "$T/out")"
	[ "$(sed -n 3p "$T/out")" = block-cidr ] || fail "config block -> $(sed -n 3p "$T/out")"
	[ "$(sed -n 4p "$T/out")" = --pass-env ] || fail "run ... --pass -> $(sed -n 4p "$T/out")"

	make -s -C "$SRC" uninstall DESTDIR="$root" PREFIX=/usr >/dev/null 2>&1 || fail "make uninstall failed"
	[ -z "$(find "$root/usr" -type f)" ] || fail "uninstall left: $(find "$root/usr" -type f)"
	[ -f "$root/etc/ebpfjail.conf" ] || fail "uninstall removed the configuration"
}

test_entrypoint_names_the_missing_flags() {
	# a container started without NET_ADMIN
	run setpriv --bounding-set=-net_admin --inh-caps=-net_admin -- "$SRC/scripts/ebpfjail-entrypoint" true
	expect_rc 125
	expect_err "CAP_NET_ADMIN is missing"
	expect_err "--cap-add NET_ADMIN"
	run "$SRC/scripts/ebpfjail-entrypoint"
	expect_rc 125
	expect_err "no command to run"
	# a container whose /sys/fs/cgroup is mounted read-only (Docker's
	# default), without CAP_SYS_ADMIN to remount it (also the default):
	# the same wherever the suite runs, in the host's cgroup namespace or
	# in one of its own (make check-fresh), where the entrypoint would
	# rightly make a mount rooted at its namespace writable.
	local cg
	cg=$(cgroup_mount)
	run unshare --mount --propagation private -- sh -c \
		'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" &&
		exec setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin -- "$1" true' \
		"$cg" "$SRC/scripts/ebpfjail-entrypoint"
	expect_rc 125
	expect_err "is read-only"
	expect_err "--cgroupns"
}

# Rootless Podman: in a user namespace every capability looks present.
# The entrypoint must say that BPF cannot work there, not name flags.
test_entrypoint_in_a_user_namespace_takes_the_rootless_engine() {
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "$@" >"%s/args"\n' "$T" >"$T/bin/ebpfjail"
	chmod 755 "$T/bin/ebpfjail"
	# no /dev/net/tun: the flag is named, nothing runs
	run unshare --user --map-root-user --mount -- sh -c \
		'mount -t tmpfs none /dev/net && PATH="$1:$PATH" exec "$0" true' \
		"$SRC/scripts/ebpfjail-entrypoint" "$T/bin"
	expect_rc 125
	expect_err "add: --device /dev/net/tun"
	! grep -q "SYS_ADMIN\|NET_ADMIN" "$T/err" || fail "it names flags that would not help: $(cat "$T/err")"
	[ ! -e "$T/args" ] || fail "ebpfjail ran: $(cat "$T/args")"
	# a masked path in /proc (as Podman makes them): the agent's own
	# /proc could not be mounted, so the flag that unmasks them is named
	run unshare --user --map-root-user --mount -- sh -c \
		'mount --bind /dev/null /proc/keys && PATH="$1:$PATH" exec "$0" true' \
		"$SRC/scripts/ebpfjail-entrypoint" "$T/bin"
	expect_rc 125
	expect_err "add: --security-opt unmask=ALL"
	# with both: ebpfjail run, the agent the container's root (its only uid)
	run env PATH="$T/bin:$PATH" unshare --user --map-root-user -- "$SRC/scripts/ebpfjail-entrypoint" true
	expect_rc 0
	[ "$(cat "$T/args")" = "run --user root -- true" ] || fail "ran: $(cat "$T/args")"
}

# Docker and Podman mount a container's own cgroup namespace read-only;
# the entrypoint makes that mount writable (it shows only the container's
# subtree) and the jail's cgroup goes inside the container's. A cgroup of
# the test's, its own cgroup namespace and a fresh read-only cgroup2 mount
# stand for the container.
test_entrypoint_in_its_own_read_only_cgroup_namespace() {
	netsim_up
	local box
	box="$(cgroup_mount)/ebpfjail-test-box.$$"
	mkdir "$box"
	BOX=$box
	trap 'netsim_down; sleep 0.2; rmdir "$BOX/ebpfjail" "$BOX" 2>/dev/null || true' EXIT
	mkdir -p "$T/bin" && ln -s "$EBPFJAIL" "$T/bin/ebpfjail"
	run sh -c 'echo $$ >"$3/cgroup.procs" && exec unshare --cgroup --mount --propagation private -- sh -c '"'"'
		t=$0 host=$1 src=$2 cg=$3
		umount -l "$cg" && mount -t cgroup2 none "$cg" && mount -o remount,bind,ro "$cg" &&
		! mkdir "$cg/probe-rw" 2>/dev/null &&
		mount --bind "$t/resolv.conf" /etc/resolv.conf &&
		exec nsenter -t "$host" -n -- env PATH="$t/bin:$PATH" EBPFJAIL_USER=4242 \
			EBPFJAIL_AUDIT_LOG="$t/audit.jsonl" EBPFJAIL_LOCAL_MODEL_PORT=0 \
			"$src/scripts/ebpfjail-entrypoint" "$t/probe" tcp:10.23.0.2:22 tcp:198.51.100.7:80'"'"' "$0" "$1" "$2" "$4"' \
		"$T" "$HOST" "$SRC" "$box" "$(cgroup_mount)"
	expect_rc 0
	expect_result tcp:10.23.0.2:22 EPERM
	expect_result tcp:198.51.100.7:80 ok
	[ ! -e "$box/ebpfjail" ] || fail "left in the box: $(find "$box/ebpfjail")"
	expect_no_leftovers
}

test_entrypoint_runs_the_command_in_the_jail() {
	netsim_up
	mkdir -p "$T/bin" && ln -s "$EBPFJAIL" "$T/bin/ebpfjail"
	run unshare --mount --propagation private -- sh -c '
		mount --bind "$0/resolv.conf" /etc/resolv.conf &&
		exec nsenter -t "$1" -n -- env PATH="$0/bin:$PATH" EBPFJAIL_USER=4242 \
			EBPFJAIL_AUDIT_LOG="$0/audit.jsonl" EBPFJAIL_LOCAL_MODEL_PORT=0 \
			"$2/scripts/ebpfjail-entrypoint" "$0/probe" tcp:10.23.0.2:22 tcp:198.51.100.7:80' \
		"$T" "$HOST" "$SRC"
	expect_rc 0
	expect_result tcp:10.23.0.2:22 EPERM
	expect_result tcp:198.51.100.7:80 ok
	expect_no_hit lan-ssh
	expect_no_leftovers
}
