# test_terminal.sh - the terminal passes through: stdin, window size, job
# control, signals (tmux is the terminal)

_tmux_jail() { # _tmux_jail SCRIPT: the jail command line, as a string for tmux
	printf '%s' "unshare --mount --propagation private -- sh -c 'mount --bind $T/resolv.conf /etc/resolv.conf && exec nsenter -t $HOST -n -- env SUDO_UID=4242 SUDO_GID=4242 $EBPFJAIL run --config $T/jail.conf -- sh $1'"
}

_wait_for() { # _wait_for FILE TEXT: bounded wait until FILE holds TEXT
	local i
	for i in $(seq 1 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
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
	tmux -S "$TMUX_SOCK" send-keys C-z
	sleep 0.3
	tmux -S "$TMUX_SOCK" send-keys "jobs -l > $T/jobs.out" Enter
	_wait_for "$T/jobs.out" "Stopped"
	tmux -S "$TMUX_SOCK" send-keys "fg" Enter
	sleep 1.5
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
