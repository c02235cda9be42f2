# test_pasta.sh - the jail keeps its network for its whole life, with
# whichever pasta is first on PATH (make check runs the suite with Debian
# 12's and with a current one), and an agent never runs on without it.

# A jail busy for LONG_RUN_SECONDS (60 by default): a connect to the
# simulated internet every second, all must succeed, and a blocked one must
# stay EPERM to the end. Current pastas used to quit a second after start.
test_network_lasts_a_long_run() {
	netsim_up
	local secs=${LONG_RUN_SECONDS:-60} ok
	cat >"$T/agent.sh" <<EOF
#!/bin/sh
i=0
while [ \$i -lt $secs ]; do
	$T/probe tcp:198.51.100.7:80 tcp:10.23.0.2:22
	sleep 1
	i=\$((i + 1))
done
EOF
	chmod 755 "$T/agent.sh"
	jail -- "$T/agent.sh"
	expect_rc 0
	[ ! -s "$T/err" ] || ! grep -q "pasta" "$T/err" || fail "pasta trouble: $(cat "$T/err")"
	ok=$(grep -c '^tcp:198.51.100.7:80 ok ' "$T/out" || true)
	[ "$ok" -eq "$secs" ] || fail "$ok of $secs connects to the internet succeeded: $(grep -v ' ok ' "$T/out" | sort | uniq -c | head)"
	[ "$(grep -c '^tcp:10.23.0.2:22 EPERM ' "$T/out")" -eq "$secs" ] ||
		fail "a LAN connect was not EPERM: $(grep '^tcp:10.23.0.2:22' "$T/out" | grep -v EPERM | head -n 3)"
	expect_no_hit lan-ssh
	expect_no_leftovers
}

# pasta killed under a running agent: the agent (and what it started) is
# stopped, run exits 125 with one line naming the cause.
test_pasta_killed_stops_the_agent() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF
sleep 300 &
echo started >$T/agent/started
sleep 300
EOF
	jail_cmd -- sh "$T/agent.sh" >"$T/out" 2>"$T/err" &
	local job=$! i pasta procs p
	for i in $(seq 1 100); do [ -s "$T/agent/started" ] && break; sleep 0.05; done
	[ -s "$T/agent/started" ] || fail "the agent did not start: $(cat "$T/err")"
	procs=$(jail_procs)
	# This jail's pasta only (the supervisor's child), not every pasta on
	# the machine.
	pasta=$(pgrep -P "$(supervisor_pid)" -x 'pasta|passt|passt.avx2|pasta.avx2' || true)
	[ -n "$pasta" ] || fail "no pasta runs under the jail"
	kill -KILL $pasta
	for i in $(seq 1 100); do kill -0 "$job" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$job" 2>/dev/null && fail "run still runs 5 s after pasta died"
	set +e
	wait "$job"
	rc=$?
	set -e
	expect_rc 125
	expect_err "ebpfjail: pasta was killed by signal 9: the jail has no network any more, so its agent was stopped"
	[ "$(grep -vc "^ebpfjail: engine: " "$T/err")" -eq 1 ] || fail "want one line: $(cat "$T/err")"
	for p in $procs; do ! alive "$p" || fail "the agent's process $p survived"; done
	expect_no_leftovers
}

# pasta creates the jail's tap before it sandboxes itself: under Docker's
# default seccomp profile it then died (or, another pasta, hung), and the
# agent ran with no network. The agent starts only after pasta answered on
# the tap. mute_pasta.c stands for such a pasta: it makes the tap and
# never serves it, then hangs or exits.
test_pasta_that_does_not_serve_its_tap_keeps_the_agent_from_starting() {
	netsim_up
	local how
	mkdir -p "$T/bin" "$T/agent" && chown 4242 "$T/agent"
	cc -O2 -o "$T/mute_pasta" "$SRC/tests/integration/mute_pasta.c" || fail "cannot build mute_pasta.c"
	for how in hang exit; do
		printf '#!/bin/sh\nexec %s %s "$@"\n' "$T/mute_pasta" "$how" >"$T/bin/pasta"
		chmod 755 "$T/bin/pasta"
		JAIL_PATH="$T/bin:$PATH" jail -- touch "$T/agent/ran"
		expect_rc 125
		[ ! -e "$T/agent/ran" ] || fail "$how: the agent ran with a pasta that does not serve"
		if [ "$how" = hang ]; then
			expect_err "pasta does not answer on the jail's interface (\"Failed to sandbox process, exiting\")"
		else
			expect_err "pasta exited at start (\"Failed to sandbox process, exiting\")"
		fi
		[ "$(grep -c . "$T/err")" -eq 1 ] || fail "$how: want one line: $(cat "$T/err")"
		expect_no_leftovers
	done
}

# doctor names the pasta it found, its version, and that it is known to work.
test_doctor_names_pasta_and_its_version() {
	local path version
	path=$(command -v pasta)
	run "$EBPFJAIL" doctor
	grep -E "^(ok|warn) +pasta +$path, version [0-9]" "$T/out" ||
		fail "doctor: $(grep pasta "$T/out")"
	version=$(grep -E "^(ok|warn) +pasta" "$T/out" | sed 's/.*version \([^ ,;]*\).*/\1/')
	case $version in
	0.0~git20230309*) expect_out "known to work" ;; # Debian 12's
	0.0~git20250503*) expect_out "known to work" ;; # Debian 13's, built by make check
	esac
}

# pasta_tcp_dns: does the pasta on PATH forward TCP DNS? Read from its
# version string (an independent reading: strings, not ebpfjail's parser):
# Debian 12's says "unknown version" and does not; 0.0~git20250503 does.
pasta_tcp_dns() {
	local v
	v=$(strings -n 6 "$(readlink -f "$(command -v pasta)")" | grep -B1 -x 'Copyright Red Hat' | head -n 1)
	v=$(printf '%s' "$v" | sed -n 's/.*git\([0-9]\{8\}\).*/\1/p; s/^\([0-9]\{4\}\)_\([0-9][0-9]\)_\([0-9][0-9]\)\..*/\1\2\3/p')
	[ -n "$v" ] && [ "$v" -ge 20250503 ]
}

# DNS goes to its own forward address, never to the gateway (a real router
# with a DNS server of its own), and is the supervisor's forwarder's: UDP
# and TCP reach the host's resolver with every pasta (Debian 12's does not
# forward TCP DNS itself). The forward address's other ports are refused.
test_dns_over_tcp_and_udp() {
	netsim_up
	jail -- sh -c 'dig +short +tries=1 +time=3 web.example.test; echo tcp
		dig +short +tries=1 +time=3 +tcp web.example.test
		"$0/probe" tcp:203.0.113.1:53 tcp:169.254.1.1:80 udp:169.254.1.1:5353' "$T"
	expect_rc 0
	[ "$(grep -c '^198.51.100.7$' "$T/out")" -eq 2 ] || fail "UDP and TCP: $(cat "$T/out" "$T/err")"
	[ "$(grep -c 'query\[A\] web.example.test' "$T/dns.log")" -eq 2 ] ||
		fail "the host's resolver did not see both: $(cat "$T/dns.log")"
	expect_denied tcp:203.0.113.1:53
	# Rootless, the forward address is the jail's own on lo, which the
	# rules leave alone: nothing listens there but the forwarder.
	expect_denied tcp:169.254.1.1:80 ECONNREFUSED
	expect_denied udp:169.254.1.1:5353 sent
	expect_no_hit gateway-dns
	expect_no_hit gateway-dns-tcp
}

# A hand-made TCP SYN to the forward address through a raw socket, which
# the socket hooks never see (sent by root from the jail's namespace,
# outside its cgroup): the address is the jail's own (on lo), so the SYN
# never reaches the tap, pasta or anything beyond the jail.
test_raw_tcp_syn_to_the_dns_forward_address() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	jail_cmd -- sleep 30 >"$T/out" 2>"$T/err" &
	local job=$!
	nsenter -t "$(agent_pid)" -n -- "$T/probe" rawsyn:169.254.1.1:53 >"$T/raw.out"
	grep -q '^rawsyn:169.254.1.1:53 sent ' "$T/raw.out" || fail "probe: $(cat "$T/raw.out")"
	sleep 0.3
	kill -TERM "$(supervisor_pid)"
	wait "$job" || true
	! grep -q '"hook": "tc"' "$T/audit.jsonl" 2>/dev/null ||
		fail "the SYN went to the tap: $(cat "$T/audit.jsonl")"
	expect_no_hit gateway-dns-tcp
	expect_no_hit lan-dns-tcp
	expect_no_leftovers
}

# A refused connection on an internet host: current pastas pass the reset
# back at once (ECONNREFUSED); Debian 12's does not, and the agent's
# connect runs into its own timeout (the probe's is 2 s). Either way no
# packet of it reaches anything but that host. This records the difference.
test_refused_connection_by_pasta_generation() {
	netsim_up
	jail -- "$T/probe" tcp:198.51.100.7:81
	expect_rc 0
	if pasta_tcp_dns; then
		expect_result tcp:198.51.100.7:81 ECONNREFUSED
	else
		expect_result tcp:198.51.100.7:81 ETIMEDOUT
	fi
}

# A planted pasta never runs. The attack: the agent, running as its user,
# writes ~/.local/bin/pasta (Debian's ~/.profile puts that directory first
# on PATH); the next run executed it as the user in the host's network
# namespace, unjailed. Now a pasta runs only if root alone can have put it
# there (every part of its path root's, writable by no one else): 125,
# naming the file, and the planted one never ran. The control: the same
# wrapper in a root-owned directory runs, and so does the jail.
test_a_pasta_the_agent_could_write_never_runs() {
	netsim_up
	local dir
	# Each wrapper leaves a mark (in a directory the rootless pass's user
	# may write too) and runs the real pasta.
	mkdir -p "$T/planted/.local/bin" "$T/bin" "$T/marks"
	chmod 1777 "$T/marks"
	for dir in planted/.local/bin bin; do
		printf '#!/bin/sh\ntouch "%s"\nexec %s "$@"\n' "$T/marks/${dir%%/*}" \
			"$(command -v pasta)" >"$T/$dir/pasta"
		chmod 755 "$T/$dir/pasta"
	done
	chown -R 4242:4242 "$T/planted"
	JAIL_PATH="$T/planted/.local/bin:$PATH" jail -- /bin/true
	expect_rc 125
	expect_err "$T/planted/.local/bin/pasta is not run: it or a directory above it is not root's alone"
	[ ! -e "$T/marks/planted" ] || fail "the planted pasta ran"
	JAIL_PATH="$T/bin:$PATH" jail -- /bin/true
	expect_rc 0
	[ -e "$T/marks/bin" ] || fail "the control's pasta did not run: $(cat "$T/err")"
	expect_no_leftovers
}
