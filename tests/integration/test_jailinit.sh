# test_jailinit.sh - the agent's own PID namespace: the user's other
# processes, the supervisor and pasta are out of its sight and reach


# The attack: a process of the agent's own user outside the jail (a shell,
# an editor, another jail's agent) is found in /proc and ptraced into
# running a command; nothing else stops the attach where Yama is absent,
# as here.
test_agent_cannot_reach_the_users_other_processes() {
	netsim_up
	setpriv --reuid 4242 --regid 4242 --clear-groups sleep 60 </dev/null >/dev/null 2>&1 &
	local victim=$! i
	VICTIM=$victim
	trap 'kill $VICTIM 2>/dev/null || true; netsim_down' EXIT
	# Until it is sleep: setpriv is not dumpable between its uid change
	# and the exec, and refuses ptrace.
	for i in $(seq 1 100); do [ "$(cat /proc/$victim/comm 2>/dev/null)" = sleep ] && break; sleep 0.05; done
	# So the test is not vacuous: outside the jail, the same user can.
	setpriv --reuid 4242 --regid 4242 --clear-groups "$T/probe" "sys:ptrace:$victim" >"$T/control"
	grep -q "^sys:ptrace:$victim ok" "$T/control" || fail "the attack fails even unjailed: $(cat "$T/control")"
	jail -- sh -c "'$T/probe' sys:ptrace:$victim sys:kill:$victim; [ -e /proc/$victim ] && echo victim-visible; pgrep -u 4242 -x sleep >/dev/null && echo sleep-visible; echo done"
	expect_rc 0
	expect_out done
	expect_result "sys:ptrace:$victim" ESRCH
	expect_result "sys:kill:$victim" ESRCH
	expect_no_out victim-visible
	expect_no_out sleep-visible
	[ "$(_state "$victim")" = S ] || fail "the victim is not left alone: state $(_state "$victim")"
}

# The agent's end is its own: an exit status, a signal, and whatever it
# left behind ends with it (its init's namespace goes).
test_agent_status_passes_through_its_init() {
	netsim_up
	local marker="617.$$" # this run's (other runs may test the same)
	jail -- sh -c "sleep $marker & kill -KILL \$\$"
	expect_rc 137
	jail -- sh -c 'echo "init:$(cat /proc/1/comm) ppid:$PPID self:$$"'
	expect_rc 0
	expect_out "init:ebpfjail-init ppid:1 self:2"
	[ -z "$(pgrep -u 4242 -fx "sleep ${marker/./\\.}")" ] || fail "the agent's sleep outlived it: $(pgrep -a -u 4242 sleep)"
	expect_no_leftovers
}

# A root agent has its init's uid: without Landlock's signal scope it could
# signal it (and every other process outside its domain it can name).
test_root_agent_cannot_signal_outside_its_domain() {
	netsim_up
	need_landlock_scopes
	jail --user root -- sh -c "'$T/probe' sys:kill:1; sh -c 'kill -0 \$\$' && echo own-ok"
	expect_rc 0
	expect_result sys:kill:1 EPERM
	expect_out own-ok
}

# An abstract socket bound in the jail's network namespace by a process
# outside the agent's domain is out of its reach.
test_abstract_socket_outside_the_domain_is_refused() {
	netsim_up
	need_landlock_scopes
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOS
for i in \$(seq 1 200); do [ -e $T/go ] && break; sleep 0.05; done
'$T/probe' unix:@ebpfjail-it:0 >$T/agent/probe.out
EOS
	jail_cmd -- sh "$T/agent.sh" >"$T/out" 2>"$T/err" &
	local job=$! agent
	agent=$(agent_pid)
	nsenter -t "$agent" -n -- socat -U ABSTRACT-LISTEN:ebpfjail-it,fork SYSTEM:"echo abstract >>$T/hits; echo abstract" </dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	nsenter -t "$agent" -n -- sh -c "$(unix_listening_sh @ebpfjail-it $!)" || fail "the abstract socket did not listen"
	touch "$T/go"
	wait "$job" || fail "the jail failed: $(cat "$T/err")"
	grep -q ' EPERM ' "$T/agent/probe.out" || fail "abstract socket: $(cat "$T/agent/probe.out")"
	expect_no_hit abstract
}
