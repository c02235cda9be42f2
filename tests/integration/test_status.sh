# test_status.sh - `ebpfjail status` with real jails

test_status_shows_a_running_jail_and_forgets_it() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF
$T/probe tcp:169.254.169.254:80 tcp:10.23.0.2:22 >/dev/null
touch $T/agent/ready
for i in \$(seq 1 200); do [ -e $T/end ] && break; sleep 0.05; done
EOF
	jail_cmd --local-port 7001 -- sh "$T/agent.sh" >"$T/jail.out" 2>"$T/jail.err" &
	local job=$! i
	for i in $(seq 1 100); do [ -e "$T/agent/ready" ] && break; sleep 0.05; done
	run_until "denied: metadata 1, connected 1" as_user "$EBPFJAIL" status
	expect_rc 0
	grep -qE '^[0-9a-f]{8}  running  [0-9]+ +\? +[0-9]+m[0-9]{2}s +[0-9]+ +2 +0  sh '"$T"'/agent.sh$' "$T/out" ||
		fail "status row: $(cat "$T/out")"
	expect_out "denied: metadata 1, connected 1"
	expect_out "relay: local 127.0.0.1:7001, 0 open, 0 in all"
	if rootless; then
		expect_out "engine: nftables"
		expect_out "protections: pid-namespace user-namespace seccomp netns-rule private-tmp"
	else
		expect_out "engine: bpf"
		expect_out "protections: pid-namespace cgroup-namespace seccomp netns-rule private-tmp unix-hooks"
	fi
	run as_user "$EBPFJAIL" status --json
	expect_rc 0
	expect_out '"state": "running"'
	expect_out '"uid": 4242'
	expect_out '"denied": {"metadata": 1, "connected": 1}'
	expect_out '"relays": [{"kind": "local", "port": 7001, "open": 0, "total": 0, "refused": 0}]'
	if rootless; then
		expect_out '"engine": "nftables", "protections": ["pid-namespace", "user-namespace", "seccomp", "netns-rule", "private-tmp"'
	else
		expect_out '"engine": "bpf", "protections": ["pid-namespace", "cgroup-namespace", "seccomp", "netns-rule", "private-tmp", "unix-hooks"'
	fi
	touch "$T/end"
	wait "$job" || fail "the jail failed: $(cat "$T/jail.err")"
	run as_user "$EBPFJAIL" status
	expect_rc 0
	expect_out "no jail is running"
}

test_status_reports_and_removes_a_dead_jail() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	mkdir -p /run/ebpfjail/deadbeef
	echo "999999999 1" >/run/ebpfjail/deadbeef/supervisor
	run as_user "$EBPFJAIL" status
	expect_rc 0
	expect_out "deadbeef  dead"
	[ ! -e /run/ebpfjail/deadbeef ] || { rm -rf /run/ebpfjail/deadbeef; fail "the dead jail's state stayed"; }
}
