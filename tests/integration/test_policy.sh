# test_policy.sh - `ebpfjail reload`, `allow` and `deny` on running jails

# A jail whose agent probes 10.23.0.2:22 (the LAN's ssh) once per step,
# when told to; step K prints what probe K got.
_policy_jail() {
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF
for k in \$(seq 1 $1); do
	for i in \$(seq 1 200); do [ -e $T/go.\$k ] && break; sleep 0.05; done
	$T/probe tcp:10.23.0.2:22 >$T/agent/r.\$k.tmp && mv $T/agent/r.\$k.tmp $T/agent/r.\$k
done
EOF
	jail_cmd -- sh "$T/agent.sh" >"$T/jail.out" 2>"$T/jail.err" &
	JOB=$!
	local i
	for i in $(seq 1 100); do # the only jail (expect_no_leftovers makes sure)
		JAIL_ID=$(ls "$(jail_state)"/*/control 2>/dev/null | awk -F/ '{ print $(NF - 1) }')
		[ -n "$JAIL_ID" ] && return 0
		sleep 0.05
	done
	fail "no control socket appeared"
}

# step K WANT: run probe step K in the jail, expect WANT
step() {
	touch "$T/go.$1"
	for i in $(seq 1 100); do [ -e "$T/agent/r.$1" ] && break; sleep 0.05; done
	local got
	got=$(awk '{ print $2 }' "$T/agent/r.$1" 2>/dev/null)
	# the rootless engine refuses TCP with EHOSTUNREACH (netsim.sh, expect_denied)
	rootless && [ "$2" = EPERM ] && [ "$got" = EHOSTUNREACH ] && return 0
	[ "$got" = "$2" ] || fail "step $1: got '${got:-nothing}', want $2"
}

test_allow_deny_and_reload_change_a_running_jail() {
	netsim_up
	_policy_jail 8
	step 1 EPERM
	# another user cannot reach the control socket, even pointed at it
	# (root's jails are in /run/ebpfjail, a rootless jail's in its user's
	# runtime directory)
	local run_dir=/run
	rootless && run_dir=$T/xdg
	run setpriv --reuid 4243 --regid 4243 --clear-groups -- env XDG_RUNTIME_DIR="$run_dir" \
		"$EBPFJAIL" allow 10.23.0.2:22
	expect_rc 1
	if rootless; then
		expect_err "cannot list the jails in $T/xdg/ebpfjail: Permission denied"
	else
		expect_err "the running jails are root's: run it with sudo"
	fi
	run as_user "$EBPFJAIL" allow 10.23.0.2:22
	expect_rc 0
	expect_out "jail $JAIL_ID: allowed 10.23.0.2:22 until the jail ends or the next reload"
	run as_user "$EBPFJAIL" status
	expect_out "temporary: allow 10.23.0.2:22 (until reload)"
	step 2 ok
	run as_user "$EBPFJAIL" deny --jail "$JAIL_ID" 10.23.0.2
	expect_rc 0
	step 3 EPERM
	run as_user "$EBPFJAIL" allow 10.23.0.2
	run as_user "$EBPFJAIL" status --json
	expect_out '"temporary": "allow 10.23.0.2"'
	step 4 ok
	# reload: the configuration is the whole truth again
	run as_user "$EBPFJAIL" reload
	expect_rc 0
	expect_out "jail $JAIL_ID: reloaded: 0 rules added, 1 removed; temporary allow/deny dropped"
	step 5 EPERM
	printf 'allow-ip = 10.23.0.2:22\nlocal-port = 7005\ncolour = blue\n' >>"$T/jail.conf"
	run as_user "$EBPFJAIL" reload --jail "$JAIL_ID"
	expect_rc 0
	expect_err "ebpfjail: warning: $T/jail.conf:5: unknown key"
	expect_out "reloaded: allow-ip +10.23.0.2:22; 1 rules added, 0 removed; needs a restart: local-port +7005"
	step 6 ok
	# a broken configuration leaves the running policy alone
	printf 'allow-ip = 10.23.0.300\n' >>"$T/jail.conf"
	run as_user "$EBPFJAIL" reload
	expect_rc 1
	expect_err "the configuration is invalid; the running policy is unchanged"
	expect_err "ebpfjail: error: $T/jail.conf:6"
	expect_err '"10.23.0.300"'
	step 7 ok
	sed -i '$d' "$T/jail.conf"
	sed -i '/allow-ip/d' "$T/jail.conf"
	run as_user "$EBPFJAIL" reload
	expect_out "allow-ip -10.23.0.2:22"
	step 8 EPERM
	wait "$JOB" || fail "the jail failed: $(cat "$T/jail.err")"
	expect_no_hit_count lan-ssh 4 # steps 2, 4, 6, 7
	# every change is in the audit log, with who made it
	grep -q '"policy": "allow", "change": "10.23.0.2:22", "uid": '"$OWNER_UID"'}' "$T/audit.jsonl" ||
		fail "no allow record: $(grep policy "$T/audit.jsonl")"
	grep -q '"policy": "deny", "change": "10.23.0.2", "uid": '"$OWNER_UID"'}' "$T/audit.jsonl" || fail "no deny record"
	grep -q '"policy": "reload", "change": "allow-ip +10.23.0.2:22; 1 rules added' "$T/audit.jsonl" ||
		fail "no reload record"
	run as_user "$EBPFJAIL" audit --config "$T/jail.conf"
	expect_out "policy deny 10.23.0.2 (by uid $OWNER_UID)"
	expect_no_leftovers
}

# expect_no_hit_count NAME N: the listener NAME was reached exactly N times
expect_no_hit_count() {
	local n
	n=$(grep -cx "$1" "$T/hits" || true)
	[ "$n" = "$2" ] || fail "$1 was reached $n times, want $2"
}

test_policy_commands_refuse_bad_input_and_no_jail() {
	run as_user "$EBPFJAIL" allow 10.1
	expect_rc 2
	expect_err "flag allow"
	expect_err '"10.1"'
	run as_user "$EBPFJAIL" deny 10.0.0.0/8
	expect_rc 2
	run as_user "$EBPFJAIL" allow
	expect_rc 2
	run as_user "$EBPFJAIL" allow 169.254.169.254
	expect_rc 1
	expect_err "opens a cloud metadata service"
	expect_err "no jail is running"
	run as_user "$EBPFJAIL" reload --jail 00000000
	expect_rc 1
	expect_err "no running jail has the id '00000000'"
}

# Reloads while the agent sends datagrams and connects to blocked addresses:
# they stay blocked through every swap, not one packet leaves.
test_concurrent_sends_during_reloads_stay_denied() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	# The agent sends until the test says it is done reloading (bounded:
	# 60 s), so every reload happens under load however slow the machine.
	cat >"$T/agent.sh" <<EOF
( while [ ! -e $T/agent/done ]; do $T/probe tcp:10.23.0.2:22; done ) >$T/agent/connects &
( while [ ! -e $T/agent/done ]; do PROBE_FLOOD=2000 $T/probe flood:10.23.0.2:5000; done ) >$T/agent/floods &
touch $T/agent/started
i=0
while [ ! -e $T/agent/done ] && [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i + 1)); done
wait
EOF
	jail_cmd -- sh "$T/agent.sh" >"$T/jail.out" 2>"$T/jail.err" &
	local job=$! i
	for i in $(seq 1 200); do [ -e "$T/agent/started" ] && break; sleep 0.05; done
	[ -e "$T/agent/started" ] || fail "the agent did not start: $(cat "$T/jail.err")"
	for i in $(seq 1 20); do
		# each reload changes the policy: the swap really happens
		printf 'allow-ip = 10.23.0.%d\nblock-cidr = 198.51.100.%d/32\n' $((100 + i)) $((100 + i)) >>"$T/jail.conf"
		run as_user "$EBPFJAIL" reload
		[ "$rc" -eq 0 ] || { touch "$T/agent/done"; fail "reload $i: $(cat "$T/err")"; }
		run as_user "$EBPFJAIL" allow 10.23.0.$((200 + i))
		[ "$rc" -eq 0 ] || { touch "$T/agent/done"; fail "allow $i: $(cat "$T/err")"; }
	done
	touch "$T/agent/done"
	wait "$job" || fail "the jail failed: $(cat "$T/jail.err")"
	[ -s "$T/agent/floods" ] || fail "the agent sent nothing"
	awk '$2 != 2000 { bad = 1 } END { exit bad }' "$T/agent/floods" ||
		fail "not every send was refused: $(awk '$2 != 2000' "$T/agent/floods" | head -n 3)"
	[ -s "$T/agent/connects" ] || fail "the agent connected nowhere"
	local refused=' EPERM '
	rootless && refused=' EHOSTUNREACH ' # netsim.sh, expect_denied
	! grep -v "$refused" "$T/agent/connects" | grep -q . ||
		fail "not every connect was refused: $(grep -v "$refused" "$T/agent/connects" | head -n 3)"
	expect_no_hit lan-udp
	expect_no_hit lan-ssh
	expect_no_leftovers
}

# The attack the control socket must stop: an agent run as root on purpose
# (uid 0, root's file permissions, no capabilities) asks its own jail to
# let it through.
test_agent_run_as_root_cannot_change_its_jail() {
	netsim_up
	jail --user root -- sh -c "'$T/ebpfjail' reload; '$T/ebpfjail' allow 10.23.0.2; '$T/probe' tcp:10.23.0.2:22"
	# Its PID namespace hides the supervisor, so it finds no jail; were
	# it found, its control socket would refuse (no CAP_NET_ADMIN).
	grep -qE "lacks CAP_NET_ADMIN|no jail is running" "$T/err" || fail "stderr: $(cat "$T/err")"
	expect_result tcp:10.23.0.2:22 EPERM
	expect_no_hit lan-ssh
	grep -q '"policy"' "$T/audit.jsonl" 2>/dev/null && fail "a policy change was recorded"
	expect_no_leftovers
}

