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
	nsenter -t "$HOST" -n -- "$T/probe" rstserve:127.0.0.1:7005 >"$T/rst.out" &
	NETSIM_PIDS+=($!)
	local i
	for i in $(seq 1 100); do grep -q listening "$T/rst.out" && break; sleep 0.02; done
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
	sleep 0.2
	after=$(ls "/proc/$sup/fd" | wc -l)
	touch "$T/end"
	wait "$job" || true
	grep -q " ok " "$T/agent/many.out" || fail "500 connections: $(cat "$T/agent/many.out")"
	[ "$before" -eq "$after" ] || fail "supervisor fds: $before before, $after after"
}
