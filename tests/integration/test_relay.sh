# test_relay.sh - local-port and callback-port relays, real sockets both sides

# host_serve PORT SOCAT-ADDRESS: a service on the simulated host's 127.0.0.1
host_serve() {
	# -t 30: after the client half-closes, socat waits that long (not its
	# default 0.5 s) for the rest of the reply: under load 0.5 s cuts echoes.
	# backlog=1024: socat's default of 5 overflows with 500 connections at once.
	nsenter -t "$HOST" -n -- socat -t 30 "TCP-LISTEN:$1,bind=127.0.0.1,fork,reuseaddr,backlog=1024" "$2" \
		</dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	local i
	for i in $(seq 1 100); do
		in_ns "$HOST" ss -H -ltn "sport = :$1" | grep -q . && return 0
		sleep 0.02
	done
	fail "host service on port $1 did not start"
}

test_local_port_round_trip_and_neighbour_closed() {
	netsim_up
	host_serve 7001 EXEC:cat
	host_serve 7002 SYSTEM:"echo neighbour >>$T/hits"
	jail --local-port 7001 -- "$T/probe" tcpread:127.0.0.1:7001 tcp:127.0.0.1:7002
	expect_rc 0
	expect_result tcpread:127.0.0.1:7001 reply
	# Only the named port: the host's 7002 stays out of reach.
	expect_result tcp:127.0.0.1:7002 ECONNREFUSED
	expect_no_hit neighbour
}

test_local_model_port_is_a_local_port() {
	netsim_up
	host_serve 1920 EXEC:cat
	sed -i 's/^local-model-port = 0$/local-model-port = 1920/' "$T/jail.conf"
	jail -- "$T/probe" tcpread:127.0.0.1:1920
	expect_rc 0
	expect_result tcpread:127.0.0.1:1920 reply
}

test_100_mib_each_way_with_checksums() {
	netsim_up
	head -c 104857600 /dev/urandom >"$T/big.bin"
	chmod 644 "$T/big.bin"
	host_serve 7003 SYSTEM:"cat $T/big.bin"
	host_serve 7004 SYSTEM:"sha256sum"
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF
socat -u TCP:127.0.0.1:7003 - | sha256sum >$T/agent/down.sum
# Upload, half-close, and read the server's checksum of what it got.
socat -t 30 - TCP:127.0.0.1:7004 <$T/big.bin >$T/agent/up.sum
EOF
	jail --local-port 7003 --local-port 7004 -- sh "$T/agent.sh"
	expect_rc 0
	local want
	want=$(sha256sum <"$T/big.bin" | cut -d' ' -f1)
	[ "$(cut -d' ' -f1 "$T/agent/down.sum")" = "$want" ] || fail "download differs: $(cat "$T/agent/down.sum")"
	[ "$(cut -d' ' -f1 "$T/agent/up.sum")" = "$want" ] || fail "upload differs: $(cat "$T/agent/up.sum")"
}

test_reset_and_refusal_pass_through_at_once() {
	netsim_up
	host_probe_serve rstserve:127.0.0.1:7005 "$T/rst.out"
	# 7006 has no host listener at all.
	jail --local-port 7005 --local-port 7006 -- "$T/probe" tcpread:127.0.0.1:7005 tcpread:127.0.0.1:7006
	expect_rc 0
	expect_result tcpread:127.0.0.1:7005 ECONNRESET
	expect_result tcpread:127.0.0.1:7006 ECONNRESET
	# Refused at once, not left to time out (the probe would say ETIMEDOUT after 5 s).
	awk '$1 == "tcpread:127.0.0.1:7006" && $3 > 100000 { exit 1 }' "$T/out" ||
		fail "the refusal took over 100 ms: $(cat "$T/out")"
}

test_callback_port_into_the_jail_and_gone_after() {
	netsim_up
	cat >"$T/agent.sh" <<'EOF'
exec socat TCP-LISTEN:7100,bind=127.0.0.1,reuseaddr EXEC:cat
EOF
	jail_cmd --callback-port 7100 -- sh "$T/agent.sh" >"$T/out" 2>"$T/err" &
	local job=$! i reply=""
	for i in $(seq 1 100); do
		reply=$(echo hello-jail | nsenter -t "$HOST" -n -- socat -t 2 - TCP:127.0.0.1:7100 2>/dev/null) || true
		[ "$reply" = hello-jail ] && break
		sleep 0.05
	done
	[ "$reply" = hello-jail ] || fail "no echo through the callback relay: '$reply' $(cat "$T/err")"
	wait "$job" || fail "the jail exited with $?: $(cat "$T/err")"
	! in_ns "$HOST" ss -H -ltn "sport = :7100" | grep -q . || fail "the callback relay outlived the jail"
}

test_occupied_callback_port_warns_and_skips() {
	netsim_up
	host_serve 7200 EXEC:cat
	jail --callback-port 7200 -- /bin/true
	expect_rc 0
	expect_err "callback-port 7200: cannot listen on the host's 127.0.0.1:7200 (already in use); this relay is skipped"
}

test_overlap_is_refused() {
	netsim_up
	jail --local-port 7300 --callback-port 7300 -- /bin/true
	expect_rc 125
	expect_err "callback-port = 7300 is also a local-port"
}

test_500_concurrent_connections_no_lost_byte_no_leaked_fd() {
	netsim_up
	host_serve 7001 EXEC:cat
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF
touch $T/agent/ready
for i in \$(seq 1 200); do [ -e $T/go ] && break; sleep 0.05; done
$T/probe many:127.0.0.1:7001 >$T/agent/many.out
touch $T/agent/done
for i in \$(seq 1 200); do [ -e $T/end ] && break; sleep 0.05; done
EOF
	jail_cmd --local-port 7001 -- sh "$T/agent.sh" >"$T/out" 2>"$T/err" &
	local job=$! sup i before after
	for i in $(seq 1 200); do [ -e "$T/agent/ready" ] && break; sleep 0.05; done
	sup=$(supervisor_pid)
	before=$(ls "/proc/$sup/fd" | wc -l)
	touch "$T/go"
	for i in $(seq 1 600); do [ -e "$T/agent/done" ] && break; sleep 0.05; done
	# the relay closes the last connections' fds as their ends reach it
	for i in $(seq 1 100); do
		after=$(ls "/proc/$sup/fd" | wc -l)
		[ "$after" -le "$before" ] && break
		sleep 0.05
	done
	touch "$T/end"
	wait "$job" || true
	grep -q " ok " "$T/agent/many.out" || fail "500 connections: $(cat "$T/agent/many.out")"
	[ "$before" -eq "$after" ] || fail "supervisor fds: $before before, $after after"
}

# _idle_jail N SOFT HARD: a jail started under RLIMIT_NOFILE SOFT:HARD whose
# agent holds N silent connections through the local-port 7001 relay (to a
# host service that takes them and never answers) until $T/release exists.
# The agent's own limits go to $T/agent/limits, the probe's result to
# $T/agent/idle.out; the jail runs as $JOB.
_idle_jail() {
	host_probe_serve holdserve:127.0.0.1:7001 "$T/hold.out"
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF2
echo "\$(ulimit -Sn) \$(ulimit -Hn)" >$T/agent/limits
PROBE_IDLE=$1 PROBE_IDLE_UNTIL=$T/release $T/probe idle:127.0.0.1:7001 >$T/agent/idle.out
EOF2
	(prlimit --pid "$BASHPID" --nofile="$2:$3" && jail_cmd --local-port 7001 -- sh "$T/agent.sh") \
		>"$T/jail.out" 2>"$T/jail.err" &
	JOB=$!
}

# _relay_status: the relay's line of `ebpfjail status` into $T/relay, once
# the agent's connections are all accounted for (open + refused = $1, at
# most 20 s)
_relay_status() {
	local i open refused
	for i in $(seq 1 200); do
		run "$EBPFJAIL" status
		grep "relay: local 127.0.0.1:7001" "$T/out" >"$T/relay" || true
		open=$(sed -n 's/.*, \([0-9]*\) open,.*/\1/p' "$T/relay")
		refused=$(sed -n 's/.*, \([0-9]*\) refused.*/\1/p' "$T/relay")
		[ $((${open:-0} + ${refused:-0})) -eq "$1" ] && return 0
		sleep 0.1
	done
	fail "status never accounted for $1 connections: $(cat "$T/relay") (jail: $(cat "$T/jail.err"))"
}

# The attack: ~170 silent connections (six descriptors each: two sockets,
# two pipes) used to take every descriptor the supervisor had under the
# usual soft limit of 1024. Root's `ebpfjail deny` was then refused with a
# false "lacks CAP_NET_ADMIN" and status stopped updating. The supervisor
# raises its soft limit to the hard one; the agent keeps the limits it was
# given. (The hard limit is the test's own: raising it needs CAP_SYS_RESOURCE.)
test_1200_idle_connections_do_not_starve_the_supervisor() {
	local hard
	hard=$(ulimit -Hn)
	[ "$hard" = unlimited ] || [ "$hard" -ge 8192 ] ||
		skip "needs a hard RLIMIT_NOFILE of 8192 or more, not $hard, for 1200 relayed connections"
	netsim_up
	_idle_jail 1200 1024 "$hard"
	_relay_status 1200
	grep -q "1200 open, 1200 in all$" "$T/relay" || fail "relay: $(cat "$T/relay")"
	_control_answers_then_release
	[ "$(cat "$T/agent/limits")" = "1024 $hard" ] ||
		fail "the agent's RLIMIT_NOFILE is $(cat "$T/agent/limits"), not the 1024 $hard it was started with"
	grep -qx "idle:127.0.0.1:7001 open:1200,closed:0 [0-9]*" "$T/agent/idle.out" ||
		fail "the agent's connections: $(cat "$T/agent/idle.out")"
	expect_no_leftovers
}

# _control_answers_then_release: root's deny works and status shows it
# while the agent holds its connections; then the agent lets them go and
# the jail ends
_control_answers_then_release() {
	run timeout 15 "$EBPFJAIL" deny 10.23.0.9
	expect_rc 0
	expect_out "denied 10.23.0.9"
	run "$EBPFJAIL" status
	expect_out "temporary: deny 10.23.0.9"
	touch "$T/release"
	wait "$JOB" || fail "the jail failed: $(cat "$T/jail.err")"
}

# Where the hard limit leaves no room (1024:1024), connections over the
# relays' share of descriptors are refused at once and counted, and the
# control socket and status keep the descriptors reserved for them.
test_connections_over_the_descriptor_cap_are_refused_at_once() {
	netsim_up
	_idle_jail 400 1024 1024
	_relay_status 400
	local open refused
	open=$(sed -n 's/.*, \([0-9]*\) open,.*/\1/p' "$T/relay")
	refused=$(sed -n 's/.*, \([0-9]*\) refused.*/\1/p' "$T/relay")
	[ "${open:-0}" -gt 100 ] && [ "${refused:-0}" -gt 0 ] || fail "relay: $(cat "$T/relay")"
	_control_answers_then_release
	# The agent saw the refused ones end, the others held.
	grep -qx "idle:127.0.0.1:7001 open:400,closed:$refused [0-9]*" "$T/agent/idle.out" ||
		fail "the agent's connections: $(cat "$T/agent/idle.out"), $refused refused"
	echo "cap: $open relayed, $refused refused"
	expect_no_leftovers
}

# The supervisor's loop does O(1) work per event. It read every per-CPU
# counter slot after each wakeup (one bpf() each, ~150 per relayed
# message), which made a relayed round trip six times slower than pasta's.
# Counted, not timed: the supervisor's bpf() calls while 2000 round trips
# go through a local-port relay.
test_relay_round_trips_cost_the_supervisor_no_bpf_calls() {
	netsim_up
	command -v strace >/dev/null || fail "strace missing: scripts/deps.sh installs it"
	host_serve 7001 EXEC:cat
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF
for i in \$(seq 1 300); do [ -e $T/agent/go ] && break; sleep 0.1; done
PROBE_RR=2000 $T/probe rr:127.0.0.1:7001
EOF
	jail_cmd --local-port 7001 -- sh "$T/agent.sh" >"$T/out" 2>"$T/err" &
	local job=$! sup i calls splices
	sup=$(supervisor_pid)
	# splice() counted beside bpf(): the relay's own calls prove strace
	# attached to this supervisor and counted while the round trips ran.
	strace -c -e trace=bpf,splice -o "$T/strace.out" -p "$sup" 2>"$T/strace.err" &
	for i in $(seq 1 100); do [ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$sup/status")" != 0 ] && break; sleep 0.05; done
	[ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$sup/status")" != 0 ] || fail "strace did not attach: $(cat "$T/strace.err")"
	touch "$T/agent/go"
	wait "$job" || fail "run failed: $(cat "$T/err")"
	# strace writes its table when the supervisor exits
	for i in $(seq 1 100); do grep -q ' total$' "$T/strace.out" 2>/dev/null && break; sleep 0.05; done
	grep -q ' total$' "$T/strace.out" || fail "strace wrote no table: $(cat "$T/strace.out" "$T/strace.err")"
	grep -q '^rr:127.0.0.1:7001 [0-9]' "$T/out" || fail "no round trips: $(cat "$T/out")"
	splices=$(awk '$NF == "splice" { print $4 }' "$T/strace.out")
	[ "${splices:-0}" -ge 2000 ] || fail "strace counted ${splices:-no} splice() calls for 2000 relayed round trips: $(cat "$T/strace.out")"
	calls=$(awk '$NF == "bpf" { print $4 }' "$T/strace.out")
	# once a second (lost events, status) and at exit: a handful
	[ "${calls:-0}" -lt 200 ] || fail "the supervisor made $calls bpf() calls for 2000 round trips"
}

# The attack: one relayed connection kept busy (the agent streams to a host
# service that reads as fast as it can) held the supervisor in the relay:
# it moved data while any moved, and so never came back to its other work.
# Root's `ebpfjail deny` waited seconds, and so did hostwatch (a network
# the host had just joined stayed open) and SIGTERM. Counted, not timed:
# with the supervisor slowed under strace (the stream always outruns it),
# the longest run of splice() calls between two epoll_wait() calls.
test_a_busy_relay_does_not_starve_the_supervisor() {
	netsim_up
	command -v strace >/dev/null || fail "strace missing: scripts/deps.sh installs it"
	nsenter -t "$HOST" -n -- socat -u -b 131072 TCP-LISTEN:7005,bind=127.0.0.1,reuseaddr OPEN:/dev/null \
		</dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	# Listening before the agent dials: a refused dial streams nothing.
	_expect_listener "$HOST" tcp 127.0.0.1 7005
	_wait_listening "$HOST"
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF2
socat -u -b 131072 /dev/zero TCP:127.0.0.1:7005 & s=\$!
touch $T/agent/streaming
for i in \$(seq 1 300); do [ -e $T/release ] && break; sleep 0.1; done
kill \$s
EOF2
	jail_cmd --local-port 7005 -- sh "$T/agent.sh" >"$T/jail.out" 2>"$T/jail.err" &
	JOB=$!
	local sup i longest
	sup=$(supervisor_pid)
	for i in $(seq 1 100); do [ -e "$T/agent/streaming" ] && break; sleep 0.05; done
	timeout 2 strace -e trace=splice,epoll_wait -o "$T/strace.out" -p "$sup" 2>/dev/null || true
	_control_answers_then_release
	longest=$(awk '/^splice\(/ { if (++run > max) max = run; next } /^epoll_wait\(/ { run = 0 }
		END { print max + 0 }' "$T/strace.out")
	grep -q '^splice(' "$T/strace.out" || fail "nothing streamed through the relay: $(head -3 "$T/strace.out")"
	# a turn is a few pipes' worth: a handful of calls each way
	[ "$longest" -lt 100 ] || fail "$longest splice() calls in a row without a look at other work"
	expect_no_leftovers
}

# A request written in two parts (TCP_NODELAY, as clients of request/response
# protocols do) to a server that answers once it has it whole: the relay's
# own socket held the second part back (Nagle) until the first was
# acknowledged, and the server delays that acknowledgement, so every request
# waited out a delayed ACK: 15-21 ms each, against 0.01 ms directly (pasta -T
# has the same stall: 13 ms). The relay sets TCP_NODELAY on both sockets and
# coalesces only what it knows is queued. The bound (2 ms) is a stall's,
# with a tenfold margin for load, not a speed target (bench/relay.sh has
# that).
test_a_request_in_two_parts_is_not_held_back() {
	netsim_up
	host_probe_serve reqserve:127.0.0.1:7006 "$T/req.out"
	local worst
	# Three connections: whether part two beats part one's ACK is a race
	# the stall loses on most connections, not on all.
	jail --local-port 7006 -- env PROBE_RR=500 "$T/probe" rr2:127.0.0.1:7006 rr2:127.0.0.1:7006 rr2:127.0.0.1:7006
	expect_rc 0
	[ "$(grep -c '^rr2:127.0.0.1:7006 [0-9]' "$T/out")" = 3 ] || fail "no round trips: $(cat "$T/out")"
	# a stall is milliseconds; stall-free it is ~60-150 us
	worst=$(awk '$1 == "rr2:127.0.0.1:7006" && $2 > max { max = $2 } END { print max + 0 }' "$T/out")
	[ "$worst" -lt 2000000 ] || fail "a two-part request took $((worst / 1000)) us through the relay"
	echo "two-part request through the relay: $((worst / 1000)) us on the slowest connection"
}

# relay_stress SESSIONS: tests/integration/relaystress.c's pattern through
# the local-port relay (server on the host, client in the jail) and then
# the callback-port relay (server in the jail, client on the host), beside
# stress-ng --cpu 2, and real iperf3 runs through the local-port relay
# (RELAY_STRESS_IPERF of them, each -t 1). A broken session, a cut control
# connection or a jail that does not end with status 0 fails.
relay_stress() {
	local sessions=$1 iperfs=${RELAY_STRESS_IPERF:-3} job i load
	netsim_up
	cp "$BUILD/relaystress" "$T/relaystress" && chmod 755 "$T/relaystress"
	command -v stress-ng >/dev/null || fail "stress-ng is missing (scripts/deps.sh installs it)"
	stress-ng --cpu 2 --timeout 600 >/dev/null 2>&1 &
	load=$!
	NETSIM_PIDS+=("$load")
	nsenter -t "$HOST" -n -- "$T/relaystress" serve 127.0.0.1:7400 >"$T/serve.out" 2>"$T/serve.err" &
	NETSIM_PIDS+=($!)
	nsenter -t "$HOST" -n -- iperf3 -s -B 127.0.0.1 -p 5201 >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	_expect_listener "$HOST" tcp 127.0.0.1 7400
	_expect_listener "$HOST" tcp 127.0.0.1 5201
	_wait_listening "$HOST"
	# The control: straight over the host's loopback, no relay, every
	# session holds; what the relays must do is what TCP itself does.
	run in_ns "$HOST" "$T/relaystress" client 127.0.0.1:7400 "$sessions" 3
	[ "$rc" -eq 0 ] || fail "straight over loopback, without a relay (exit $rc): $(cat "$T/out" "$T/err")"
	expect_out "sessions:$sessions ok:$sessions broken:0"
	mkdir "$T/agent" && chown 4242 "$T/agent"
	# iperf3 holds its control connection while a data connection comes
	# and goes beside it; its server shuts the data connection at the end
	# of the test and resets what still arrives. A pause between runs: the
	# server takes one test at a time.
	cat >"$T/agent.sh" <<AGENT
$T/relaystress client 127.0.0.1:7400 $sessions || exit 1
for i in \$(seq 1 $iperfs); do
	iperf3 -c 127.0.0.1 -p 5201 -t 1 >$T/agent/iperf.\$i 2>&1 || { echo "iperf3 run \$i failed"; exit 1; }
	sleep 0.5
done
AGENT
	jail --local-port 7400 --local-port 5201 -- sh "$T/agent.sh"
	[ "$rc" -eq 0 ] || fail "through the local-port relay (exit $rc): $(cat "$T/out" "$T/err") $(tail -n 3 "$T"/agent/iperf.* 2>/dev/null)"
	expect_out "sessions:$sessions ok:$sessions broken:0"
	[ "$iperfs" -eq 0 ] || grep -q "receiver" "$T/agent/iperf.$iperfs" || fail "iperf3's last run has no result: $(cat "$T/agent/iperf.$iperfs")"

	# The other way: the agent serves, the host's client comes in.
	cat >"$T/agent.sh" <<AGENT
$T/relaystress serve 127.0.0.1:7401 >$T/agent/serve.out 2>$T/agent/serve.err &
for i in \$(seq 1 $((600 + sessions * 6))); do [ -e $T/agent/done ] && break; sleep 0.05; done
kill \$!
AGENT
	jail_cmd --callback-port 7401 -- sh "$T/agent.sh" >"$T/jail.out" 2>"$T/jail.err" &
	job=$!
	_expect_listener "$HOST" tcp 127.0.0.1 7401
	_wait_listening "$HOST"
	for i in $(seq 1 200); do grep -q listening "$T/agent/serve.out" 2>/dev/null && break; sleep 0.05; done
	grep -q listening "$T/agent/serve.out" || fail "the agent's server did not listen: $(cat "$T/agent/serve.err")"
	run in_ns "$HOST" "$T/relaystress" client 127.0.0.1:7401 "$sessions" 7
	touch "$T/agent/done"
	wait "$job" || fail "the callback-port jail exited with $?: $(cat "$T/jail.err")"
	[ "$rc" -eq 0 ] || fail "through the callback-port relay (exit $rc): $(cat "$T/out" "$T/err" "$T/agent/serve.err")"
	expect_out "sessions:$sessions ok:$sessions broken:0"
	kill "$load" 2>/dev/null || true
	echo "$sessions sessions each way and $iperfs iperf3 runs, under stress-ng --cpu 2: none broken"
}

# The bug: a peer that half-closes and then resets (its FIN, then RST for
# what still arrives: iperf3's server at the end of every test) made the
# relay's next splice() fail with EPIPE, and splice() cannot pass
# MSG_NOSIGNAL: the kernel's SIGPIPE killed the supervisor, and the jail
# with it (iperf3: "control socket has closed unexpectedly", 1 run in 10).
# relaystress runs that pattern in every fifth session, beside the long
# control connection, with checksums both ways; another fifth has the
# server answer and then reset, and the answer must arrive whole before the
# reset, as it does without a relay. The 1000-session form is
# `make stress` (RELAY_STRESS_SESSIONS).
test_iperf3_pattern_through_both_relays_under_load() {
	relay_stress "${RELAY_STRESS_SESSIONS:-100}"
}

# The attacks (a hostile review's, on the relay that holds a reset back
# behind its data): a reader that holds still behind a reset kept its
# socket ready (its FIN, a socket shut for writing), and every turn re-armed
# it: the supervisor spun at 100% for as long as the reader liked (270,000
# dispatches a second, every other connection's round trip 20 times
# slower). And a reset towards a peer blocked writing to us waited for
# ever, where without a relay it arrives at once. Straight over loopback
# first (the control: both sessions end as they must), then through the
# local-port relay: while the reader holds still for 3 s the supervisor's
# CPU time stays small, then the whole answer arrives and the reset; the
# writer gets its reset (the relay's drain gives up after 5 s of no
# progress).
test_a_reset_waiting_in_the_relay_costs_nothing_and_still_arrives() {
	local sup cpu0 cpu1 used i
	netsim_up
	cp "$BUILD/relaystress" "$T/relaystress" && chmod 755 "$T/relaystress"
	# Appending: the file is emptied between the two halves.
	nsenter -t "$HOST" -n -- "$T/relaystress" serve 127.0.0.1:7400 >>"$T/serve.out" 2>"$T/serve.err" &
	NETSIM_PIDS+=($!)
	_expect_listener "$HOST" tcp 127.0.0.1 7400
	_wait_listening "$HOST"
	run in_ns "$HOST" "$T/relaystress" hold 127.0.0.1:7400 300 "$T/held"
	expect_rc 0
	expect_out "hold: ok"
	run in_ns "$HOST" "$T/relaystress" upload-reset 127.0.0.1:7400
	expect_rc 0
	for i in $(seq 1 200); do grep -q "^writer:" "$T/serve.out" && break; sleep 0.1; done
	grep -Eq "^writer: (ECONNRESET|EPIPE) after" "$T/serve.out" ||
		fail "straight over loopback the writer did not get the reset: $(cat "$T/serve.out")"
	: >"$T/serve.out"

	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<AGENT
$T/relaystress hold 127.0.0.1:7400 3000 $T/agent/holding >$T/agent/hold.out 2>&1
$T/relaystress hold 127.0.0.1:7400 1000 $T/agent/holding2 reset >$T/agent/hold2.out 2>&1
for i in \$(seq 1 300); do [ -e $T/agent/upload ] && break; sleep 0.05; done
$T/relaystress upload-reset 127.0.0.1:7400 >$T/agent/upload.out 2>&1
# The jail stays until the writer has had its answer: its end would reset
# every relayed connection anyway.
for i in \$(seq 1 300); do [ -e $T/agent/done ] && break; sleep 0.05; done
AGENT
	jail_cmd --local-port 7400 -- sh "$T/agent.sh" >"$T/jail.out" 2>"$T/jail.err" &
	local job=$!
	NETSIM_PIDS+=("$job")
	for i in $(seq 1 200); do [ -e "$T/agent/holding" ] && break; sleep 0.05; done
	[ -e "$T/agent/holding" ] || fail "the agent's reader never held: $(cat "$T/jail.err" "$T/agent/hold.out" 2>/dev/null)"
	sup=$(supervisor_pid)
	# The answer and its reset reach the relay within a few milliseconds
	# of the hold; then a second of it is measured.
	sleep 0.3
	cpu0=$(awk '{ print $14 + $15 }' "/proc/$sup/stat")
	sleep 1
	cpu1=$(awk '{ print $14 + $15 }' "/proc/$sup/stat")
	# The hold (3 s) must outlast the measured second, or it measured
	# nothing: hold prints only when it is done.
	[ ! -s "$T/agent/hold.out" ] || fail "the hold ended before the measurement did: $(cat "$T/agent/hold.out")"
	used=$(( (cpu1 - cpu0) * 1000 / $(getconf CLK_TCK) ))
	# A spinning supervisor takes ~1000 ms of the second; idle, ~0.
	[ "$used" -lt 300 ] || fail "the supervisor used $used ms of CPU in 1 s while a reset waited behind a reader"
	local fds_quiet fds_after
	for i in $(seq 1 200); do [ -e "$T/agent/holding2" ] && break; sleep 0.05; done
	sleep 0.3
	fds_quiet=$(ls "/proc/$sup/fd" | wc -l)
	for i in $(seq 1 200); do grep -q "hold: reset" "$T/agent/hold2.out" 2>/dev/null && break; sleep 0.05; done
	sleep 1
	fds_after=$(ls "/proc/$sup/fd" | wc -l)
	touch "$T/agent/upload"
	for i in $(seq 1 200); do grep -q "^writer:" "$T/serve.out" && break; sleep 0.1; done
	touch "$T/agent/done"
	wait "$job" || fail "the jail exited with $?: $(cat "$T/jail.err")"
	grep -q "hold: ok" "$T/agent/hold.out" || fail "through the relay: $(cat "$T/agent/hold.out")"
	# A reader that resets while its connection is quiet: the relay lets
	# go at once (its descriptors, 2 sockets and 2 pipes, are closed), not
	# after the 5 s stall.
	[ "$fds_quiet" -gt "$fds_after" ] && [ $((fds_quiet - fds_after)) -ge 6 ] ||
		fail "a reader's reset did not end its quiet connection: $fds_quiet descriptors held, $fds_after 1 s after the reset"
	# From the relay, within its 5 s drain stall and a margin: not from
	# the jail's end, which comes only once the writer has spoken.
	grep -Eq "^writer: (ECONNRESET|EPIPE) after [0-9]+ ms" "$T/serve.out" &&
		[ "$(sed -n 's/^writer: .* after \([0-9]*\) ms/\1/p' "$T/serve.out")" -lt 10000 ] ||
		fail "through the relay the writer did not get the reset within 10 s: $(cat "$T/serve.out") $(cat "$T/agent/upload.out")"
	echo "supervisor CPU while a reset waited behind a reader: $used ms in 1 s; $(cat "$T/serve.out")"
}
