# test_doctor.sh - `ebpfjail doctor`: all well here, and the right failure
# when a prerequisite is taken away

doctor() { run "$EBPFJAIL" doctor --config "$T/doctor.conf" "$@"; }

test_doctor_passes_here() {
	printf 'audit-log = %s/audit.jsonl\n' "$T" >"$T/doctor.conf"
	doctor
	expect_rc 0
	expect_out "All is well"
	! grep -q '^fail' "$T/out" || fail "a check failed: $(cat "$T/out")"
	for c in configuration privileges BPF "cgroup v2" /dev/net/tun namespaces pasta \
		"callback ports" "audit log"; do
		grep -qE "^(ok|warn) +$c " "$T/out" || fail "no result for $c: $(cat "$T/out")"
	done
	doctor --json
	expect_rc 0
	expect_out '"ok": true}'
	grep -qE '\{"check": "pasta", "status": "(ok|warn)"' "$T/out" || fail "pasta: $(cat "$T/out")"
}

test_doctor_fails_without_pasta() {
	printf 'audit-log = %s/audit.jsonl\n' "$T" >"$T/doctor.conf"
	mkdir "$T/bin"
	ln -s "$(command -v dpkg-query)" "$T/bin/dpkg-query"
	run env PATH="$T/bin" "$EBPFJAIL" doctor --config "$T/doctor.conf"
	expect_rc 1
	expect_out "fail  pasta            pasta is not on PATH"
	expect_out "fix: install it: apt-get install passt"
}

test_doctor_fails_on_a_bad_config() {
	printf 'audit-log = %s/audit.jsonl\nlocal-port = 08\n' "$T" >"$T/doctor.conf"
	doctor
	expect_rc 1
	expect_out "fail  configuration    invalid: $T/doctor.conf:2: local-port = \"08\""
}

test_doctor_warns_about_a_busy_callback_port() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a private network namespace"
	printf 'audit-log = %s/audit.jsonl\ncallback-port = 7400\n' "$T" >"$T/doctor.conf"
	# In a namespace of its own, so the port is ours alone.
	run unshare --net -- sh -c 'ip link set lo up
		socat TCP-LISTEN:7400,bind=127.0.0.1,reuseaddr EXEC:cat & s=$!
		for i in $(seq 1 50); do ss -H -ltn "sport = :7400" | grep -q . && break; sleep 0.02; done
		"$0" doctor --config "$1"; rc=$?; kill $s; exit $rc' "$EBPFJAIL" "$T/doctor.conf"
	expect_rc 0
	expect_out "warn  callback ports   in use on the host's 127.0.0.1: 7400"
}

# As a user without root, doctor checks what the rootless engine needs (a
# user namespace with nftables and NFLOG in it, a /dev/net/tun the user may
# open; no subuid) and says what that engine does not give.
test_doctor_rootless_says_what_it_needs_and_lacks() {
	mkdir -p "$T/home" && chown 4242 "$T/home" && chmod 755 "$T"
	mknod -m 0666 "$T/tun" c 10 200
	rootless_doctor() {
		run unshare --mount --propagation private -- sh -c "$1"'
			exec setpriv --reuid 4242 --regid 4242 --clear-groups -- env -u XDG_STATE_HOME \
				HOME="$0/home" "$1" doctor' "$T" "$EBPFJAIL"
	}
	# a /dev/net/tun that is root's alone (as this machine's is)
	rootless_doctor "mount -t tmpfs none /dev/net && mknod -m 0600 /dev/net/tun c 10 200 &&"
	expect_rc 1
	expect_out "fail  /dev/net/tun     cannot open /dev/net/tun as uid 4242: the rootless engine's pasta needs it"
	expect_out "chmod 0666 /dev/net/tun"
	rootless_doctor "mount --bind $T/tun /dev/net/tun &&"
	expect_rc 0
	expect_out "All is well"
	expect_out "warn  engine           nftables, rootless (auto: not root on the host)"
	expect_out "the audit names no process"
	expect_out "ok    rootless         a user namespace with a network namespace, the jail's nftables rules and NFLOG work"
	expect_out "audit log        $T/home/.local/state/ebpfjail/audit.jsonl can be written"
	! grep -qE '^(ok|warn|fail) +(privileges|BPF|cgroup v2) ' "$T/out" || fail "root's checks: $(cat "$T/out")"
}
