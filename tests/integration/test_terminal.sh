# test_terminal.sh - the terminal passes through: stdin, window size, job
# control, signals (tmux is the terminal)

_tmux_jail() { # _tmux_jail SCRIPT: the jail command line, as a string for tmux (jail_cmd's)
	if rootless; then
		printf '%s' "unshare --mount --propagation private -- sh -c 'mount --bind $T/resolv.conf /etc/resolv.conf && mount --bind $T/varlib /var/lib/ebpfjail && mount --bind $T/tun /dev/net/tun && exec nsenter -t $HOST -n -- setpriv --reuid 4242 --regid 4242 --clear-groups -- env -u SUDO_UID -u SUDO_GID -u SUDO_USER -u XDG_STATE_HOME PATH=$PATH HOME=$T/home XDG_RUNTIME_DIR=$T/xdg $EBPFJAIL run --config $T/jail.conf -- sh $1'"
		return
	fi
	printf '%s' "unshare --mount --propagation private -- sh -c 'mount --bind $T/resolv.conf /etc/resolv.conf && exec nsenter -t $HOST -n -- env SUDO_UID=4242 SUDO_GID=4242 $EBPFJAIL run --config $T/jail.conf -- sh $1'"
}

_wait_for() { # _wait_for FILE TEXT: bounded wait until FILE holds TEXT
	local i
	for i in $(seq 1 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
	fail "$1 never showed '$2': $(cat "$1" 2>/dev/null)"
}

_wait_for_long() { # _wait_for_long FILE TEXT: as _wait_for, for up to 20 s
	local i
	for i in $(seq 1 400); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
	fail "$1 never showed '$2': $(cat "$1" 2>/dev/null)"
}

_tmux_start() { # _tmux_start COMMAND: a 90x25 terminal running COMMAND
	command -v tmux >/dev/null || fail "tmux missing: scripts/deps.sh installs it"
	TMUX_SOCK="$T/tmux.sock"
	tmux -S "$TMUX_SOCK" new-session -d -x 90 -y 25 "$1"
	trap 'tmux -S "$TMUX_SOCK" kill-server 2>/dev/null || true; netsim_down' EXIT
}

test_tty_size_stdin_and_winch() {
	netsim_up
	cat >"$T/tui.sh" <<'EOF'
trap 'echo winch:$(stty size)' WINCH
echo size:$(stty size)
read line
echo line:$line
sleep 1 & wait
sleep 1 & wait
EOF
	_tmux_start "$(_tmux_jail "$T/tui.sh") >$T/tty.out 2>&1; echo exit:\$? >>$T/tty.out"
	_wait_for "$T/tty.out" "size:25 90"
	tmux -S "$TMUX_SOCK" send-keys "hello jail" Enter
	_wait_for "$T/tty.out" "line:hello jail"
	tmux -S "$TMUX_SOCK" resize-window -x 100 -y 30
	_wait_for "$T/tty.out" "winch:30 100"
	_wait_for "$T/tty.out" "exit:0"
}

test_job_control() {
	netsim_up
	printf 'echo agent-started\nsleep 1\necho agent-finished\n' >"$T/slow.sh"
	_tmux_start "bash --norc -i"
	sleep 0.3
	tmux -S "$TMUX_SOCK" send-keys "$(_tmux_jail "$T/slow.sh")" Enter
	# Ctrl-Z once the agent runs (before, it would reach only the supervisor).
	local i
	for i in $(seq 1 100); do
		tmux -S "$TMUX_SOCK" capture-pane -p | grep -q '^agent-started' && break
		sleep 0.05
	done
	if _no_cgroup; then
		# Without a cgroup to freeze the agent there is no job control
		# (job_stop()): Ctrl-Z stops nothing for long, and says so.
		tmux -S "$TMUX_SOCK" send-keys C-z
		for i in $(seq 1 60); do
			tmux -S "$TMUX_SOCK" capture-pane -p | grep -q agent-finished && break
			sleep 0.05
		done
		tmux -S "$TMUX_SOCK" capture-pane -pJ >"$T/pane.out"
		grep -q agent-finished "$T/pane.out" || fail "the agent did not go on: $(cat "$T/pane.out")"
		grep -q "without a cgroup to freeze it ebpfjail cannot stop with it" "$T/pane.out" ||
			fail "the user was not told: $(cat "$T/pane.out")"
		return
	fi
	tmux -S "$TMUX_SOCK" send-keys C-z
	sleep 0.3
	tmux -S "$TMUX_SOCK" send-keys "jobs -l > $T/jobs.out" Enter
	_wait_for "$T/jobs.out" "Stopped"
	tmux -S "$TMUX_SOCK" send-keys "fg" Enter
	sleep 1.5
	tmux -S "$TMUX_SOCK" capture-pane -p >"$T/pane.out"
	grep -q agent-finished "$T/pane.out" || fail "the agent did not finish after fg: $(cat "$T/pane.out")"
}

# _no_cgroup: the running jail has no cgroup of its own (rootless without
# delegation), so no job control
_no_cgroup() {
	local i
	for i in $(seq 1 40); do ls "$(jail_state)"/*/status >/dev/null 2>&1 && break; sleep 0.05; done
	[ -z "$(cat "$(jail_state)"/*/cgroup 2>/dev/null)" ]
}

# An agent that stopped itself leaves its supervisor running (see below),
# so the shell still waits for the job; Ctrl-Z then suspends it as ever.
# (A full-screen program that suspends itself on Ctrl-Z, with the terminal
# in raw mode, takes this path: a second Ctrl-Z gives the shell back.)
test_ctrl_z_suspends_an_agent_that_stopped_itself() {
	netsim_up
	printf 'echo agent-started\nkill -STOP $$\necho agent-finished\n' >"$T/self.sh"
	_tmux_start "bash --norc -i"
	sleep 0.3
	tmux -S "$TMUX_SOCK" send-keys "$(_tmux_jail "$T/self.sh")" Enter
	local i agent=""
	for i in $(seq 1 100); do
		agent=$(awk '$1 == "agent" { print $2 }' /run/ebpfjail/*/status 2>/dev/null || true)
		[ -n "$agent" ] && [ "$(_state "$agent")" = T ] && break
		sleep 0.05
	done
	[ "$(_state "$agent")" = T ] || fail "the agent did not stop: $(tmux -S "$TMUX_SOCK" capture-pane -p)"
	tmux -S "$TMUX_SOCK" send-keys C-z
	sleep 0.3
	tmux -S "$TMUX_SOCK" send-keys "jobs -l > $T/jobs.out" Enter
	_wait_for "$T/jobs.out" "Stopped"
	tmux -S "$TMUX_SOCK" send-keys "fg; echo exit:\$? >$T/exit.out" Enter
	_wait_for_long "$T/exit.out" "exit:0"
	tmux -S "$TMUX_SOCK" capture-pane -p >"$T/pane.out"
	grep -q agent-finished "$T/pane.out" || fail "the agent did not finish after fg: $(cat "$T/pane.out")"
}

test_sigterm_is_forwarded() {
	netsim_up
	cat >"$T/trap.sh" <<'EOF'
trap 'echo got-term; exit 7' TERM
echo ready
sleep 20 & wait
EOF
	jail_cmd -- sh "$T/trap.sh" >"$T/out" 2>"$T/err" &
	local job=$!
	_wait_for "$T/out" ready
	kill -TERM "$(supervisor_pid)"
	rc=0
	wait "$job" || rc=$?
	expect_rc 7
	expect_out got-term
}


# The attack: the agent stops itself (kill -STOP, no terminal involved). Its
# supervisor used to stop with it, taking the audit log, the control socket
# and the relays along: root's `ebpfjail deny` hung, and what the agent's
# other processes tried meanwhile was only a lost count. It must keep
# working; only a stop from the terminal stops it (test_job_control).
test_agent_that_stops_itself_does_not_stop_its_supervisor() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF
( for i in \$(seq 1 200); do [ -e $T/go ] && break; sleep 0.05; done
  $T/probe tcp:169.254.169.254:80 >$T/agent/probe.out ) &
kill -STOP \$\$
wait
EOF
	jail_cmd -- sh "$T/agent.sh" >"$T/jail.out" 2>"$T/jail.err" &
	local job=$! i
	SUP=$(supervisor_pid) AGENT=
	# A stopped process acts on nothing but SIGCONT and SIGKILL: whatever
	# happens, both go on before the teardown signals them.
	trap 'kill -CONT $SUP $AGENT 2>/dev/null || true; netsim_down' EXIT
	for i in $(seq 1 100); do
		AGENT=$(awk '$1 == "agent" { print $2 }' /run/ebpfjail/*/status 2>/dev/null || true)
		[ -n "$AGENT" ] && [ "$(_state "$AGENT")" = T ] && break
		sleep 0.05
	done
	[ "$(_state "$AGENT")" = T ] || fail "the agent (${AGENT:-no pid}) did not stop: $(cat "$T/jail.err")"
	sleep 0.3 # time enough for a supervisor that follows its agent to stop
	run timeout 5 "$EBPFJAIL" deny 10.23.0.9
	expect_rc 0
	expect_out "denied 10.23.0.9"
	# Another agent process meanwhile: a record, not a lost count.
	touch "$T/go"
	for i in $(seq 1 100); do
		grep -q '"daddr": "169.254.169.254"' "$T/audit.jsonl" 2>/dev/null && break
		sleep 0.05
	done
	grep -q '"daddr": "169.254.169.254", "dport": 80, "hook": "connect4", "reason": "metadata"' \
		"$T/audit.jsonl" || fail "no audit record of the attempt: $(cat "$T/audit.jsonl" 2>/dev/null)"
	! grep -q '"lost"' "$T/audit.jsonl" || fail "events were lost: $(grep '"lost"' "$T/audit.jsonl")"
	[ "$(awk '{ print $2 }' "$T/agent/probe.out")" = EPERM ] || fail "probe: $(cat "$T/agent/probe.out")"
	[ "$(_state "$SUP")" != T ] || fail "the supervisor stopped with its agent"
	kill -CONT "$AGENT"
	wait "$job" || fail "the jail failed: $(cat "$T/jail.err")"
	expect_no_leftovers
}

# The terminal's own stop, provoked by the agent: it makes a process group
# of its own the terminal's foreground and writes from the old one with
# TOSTOP set, so the kernel stops the supervisor's group (SIGTTOU, as for
# any background job). The supervisor stops as job control wants; nothing
# of the agent may run on meanwhile, unaudited: its cgroup is frozen until
# `fg`. Rootless without a cgroup nothing can hold the agent (a stopped
# process continues itself with a timer's SIGCONT, and a request queued to
# its init can be forged), so the supervisor never stops: it goes on
# watching and refusing, and says why.
test_agent_cannot_run_on_while_a_terminal_stop_holds_its_supervisor() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/ttou.sh" <<EOF
exec perl -MPOSIX -e '
	my \$t = POSIX::Termios->new; \$t->getattr(0);
	\$t->setlflag(\$t->getlflag | TOSTOP); \$t->setattr(0, TCSANOW);
	my \$c = fork // die;
	if (!\$c) { setpgid(0, 0); exec "sh", "-c", \$ARGV[0]; }
	setpgid(\$c, \$c);
	tcsetpgrp(0, \$c) or die "tcsetpgrp: \$!";
	syswrite STDOUT, "background write\\n";
	waitpid \$c, 0;' \
	'for i in \$(seq 1 100); do $T/probe tcp:169.254.169.254:80 >>$T/agent/c.out; sleep 0.05; done'
EOF
	_tmux_start "bash --norc -i"
	sleep 0.3
	tmux -S "$TMUX_SOCK" send-keys "$(_tmux_jail "$T/ttou.sh")" Enter
	local i sup="" cg n
	if _no_cgroup; then
		for i in $(seq 1 100); do [ -s "$T/agent/c.out" ] && break; sleep 0.05; done
		sup=$(supervisor_pid_from_state)
		[ -n "$sup" ] || fail "no supervisor in the jail's state"
		for i in $(seq 1 20); do
			[ "$(_state "$sup")" = T ] && fail "the supervisor stopped with no cgroup to hold the agent"
			sleep 0.05
		done
		for i in $(seq 1 200); do [ "$(wc -l <"$T/agent/c.out")" = 100 ] && break; sleep 0.05; done
		[ "$(grep -c " EHOSTUNREACH " "$T/agent/c.out")" = 100 ] ||
			fail "the agent's attempts: $(cat "$T/agent/c.out")"
		tmux -S "$TMUX_SOCK" capture-pane -pJ >"$T/pane.out"
		grep -q "without a cgroup to freeze it ebpfjail cannot stop with it" "$T/pane.out" ||
			fail "the user was not told: $(cat "$T/pane.out")"
		grep -q '"reason": "metadata"' "$T/audit.jsonl" || fail "audit: $(cat "$T/audit.jsonl")"
		return
	fi
	for i in $(seq 1 100); do
		sup=$(supervisor_pid_from_state)
		[ -n "$sup" ] && [ "$(_state "$sup")" = T ] && break
		sleep 0.05
	done
	[ -n "$sup" ] && [ "$(_state "$sup")" = T ] || fail "the supervisor did not stop: $(tmux -S "$TMUX_SOCK" capture-pane -p)"
	cg=$(cat "$(jail_state)"/*/cgroup 2>/dev/null || true) # rootless: maybe none
	if [ -n "$cg" ]; then
		for i in $(seq 1 40); do grep -qx "frozen 1" "$cg/cgroup.events" && break; sleep 0.05; done
	else
		sleep 0.2 # the init's stops
	fi
	n=$(cat "$T/agent/c.out" 2>/dev/null | wc -l)
	sleep 1
	[ "$(_state "$sup")" = T ] || fail "the supervisor went on by itself"
	[ "$(cat "$T/agent/c.out" 2>/dev/null | wc -l)" = "$n" ] ||
		fail "the agent ran on while its supervisor was stopped: $n attempts, then $(wc -l <"$T/agent/c.out")"
	[ -z "$cg" ] || grep -qx "frozen 1" "$cg/cgroup.events" ||
		fail "the agent's cgroup is not frozen: $(cat "$cg/cgroup.events")"
	tmux -S "$TMUX_SOCK" send-keys "fg; echo exit:\$? >$T/exit.out" Enter
	_wait_for_long "$T/exit.out" "exit:0"
	local refused=" EPERM "
	rootless && refused=" EHOSTUNREACH " # expect_denied says why
	[ "$(grep -c "$refused" "$T/agent/c.out")" = 100 ] || fail "the agent's attempts: $(cat "$T/agent/c.out")"
	# The rootless engine records a burst as counts (SPEC: 2,000 a second).
	if rootless; then
		grep -q '"reason": "metadata"' "$T/audit.jsonl" && ! grep -q '"lost"' "$T/audit.jsonl" ||
			fail "audit: $(cat "$T/audit.jsonl")"
	else
		[ "$(grep -c '"reason": "metadata"' "$T/audit.jsonl")" = 100 ] || fail "audit: $(cat "$T/audit.jsonl")"
	fi
}

# The jail takes the terminal's foreground for the agent's process group
# and gives it back: the shell reads the next command, and Ctrl-C ends the
# agent alone (the supervisor reports its signal).
test_the_agent_has_the_terminal_and_the_shell_gets_it_back() {
	netsim_up
	printf 'echo agent-pgrp:$(ps -o pgid= -p $$) fg:$(ps -o tpgid= -p $$)\nsleep 20\n' >"$T/fg.sh"
	_tmux_start "bash --norc -i"
	sleep 0.3
	tmux -S "$TMUX_SOCK" send-keys "$(_tmux_jail "$T/fg.sh"); echo exit:\$? >$T/exit.out" Enter
	local i
	for i in $(seq 1 100); do
		tmux -S "$TMUX_SOCK" capture-pane -p | grep -q '^agent-pgrp:' && break
		sleep 0.05
	done
	tmux -S "$TMUX_SOCK" capture-pane -p >"$T/pane.out"
	grep -Eq '^agent-pgrp: *([0-9]+) fg: *\1$' "$T/pane.out" ||
		fail "the agent's process group is not the terminal's foreground: $(grep agent-pgrp "$T/pane.out")"
	tmux -S "$TMUX_SOCK" send-keys C-c
	_wait_for "$T/exit.out" "exit:130"
	tmux -S "$TMUX_SOCK" send-keys "echo shell-reads:\$((6*7)) >$T/shell.out" Enter
	_wait_for "$T/shell.out" "shell-reads:42"
}

# The agent stops the terminal's output (tcflow, as Ctrl-S does) and exits,
# leaving a process behind: the supervisor's exit summary then blocks on
# the terminal. Its processes must be gone before that write, not run on
# for as long as the output stays stopped.
test_stopped_terminal_output_does_not_keep_the_agent_alive() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/flow.sh" <<EOF
sh -c 'for i in \$(seq 1 200); do $T/probe tcp:169.254.169.254:80 >>$T/agent/c.out; sleep 0.05; done' &
for i in \$(seq 1 100); do [ -s $T/agent/c.out ] && break; sleep 0.05; done
perl -MPOSIX -e 'tcflow(0, TCOOFF) or die "tcflow: \$!"'
echo \$\$ >$T/agent/pid
EOF
	_tmux_start "$(_tmux_jail "$T/flow.sh"); echo exit:\$? >$T/exit.out"
	_wait_for "$T/agent/pid" .
	local i cg n
	for i in $(seq 1 100); do
		cg=$(cat /run/ebpfjail/*/cgroup 2>/dev/null || true)
		[ -n "$cg" ] && break
		sleep 0.05
	done
	# The agent's shell is gone, its loop would run for 10 s more.
	for i in $(seq 1 60); do [ ! -d "$cg" ] && break; sleep 0.05; done
	n=$(wc -l <"$T/agent/c.out")
	sleep 0.5
	[ "$(wc -l <"$T/agent/c.out")" = "$n" ] ||
		fail "the agent's process ran on behind a stopped terminal: $n attempts, then $(wc -l <"$T/agent/c.out")"
	[ ! -d "$cg" ] || fail "the jail's cgroup outlived its agent: $(cat "$cg/cgroup.procs")"
	perl -MPOSIX -e 'open(my $t, "+<", $ARGV[0]) or die; tcflow(fileno($t), TCOON) or die "tcflow: $!"' \
		"$(tmux -S "$TMUX_SOCK" display -p '#{pane_tty}')"
	_wait_for "$T/exit.out" "exit:0"
}
