# test_sysfilter.sh - ways out of the jail that are no network calls: the
# agent's seccomp filter (setns, io_uring, socket families, TIOCSTI)

# AF_VSOCK reaches the hypervisor (unfiltered: this kernel lets any user
# open one); AF_PACKET would see the wire under the filters.
test_socket_families_beyond_the_network_are_refused() {
	netsim_up
	jail -- "$T/probe" sys:vsock:0 packet:any:0 tcp:198.51.100.7:80
	expect_rc 0
	expect_result sys:vsock:0 EAFNOSUPPORT
	expect_result packet:any:0 EAFNOSUPPORT
	expect_result tcp:198.51.100.7:80 ok
}

# io_uring's socket operations would never pass through socket().
test_io_uring_is_refused() {
	netsim_up
	jail -- "$T/probe" sys:io_uring:0
	expect_rc 0
	expect_result sys:io_uring:0 ENOSYS
}

# A user namespace of the agent's user (a rootless container, unshare -r)
# would give it CAP_NET_ADMIN over a network no TC filter watches: joining
# one is refused. Making new ones stays allowed (bubblewrap in the jail).
test_joining_a_users_namespace_is_refused_making_one_is_not() {
	netsim_up
	jail -- sh -c "unshare -Ur sleep 20 & pid=\$!; sleep 0.5; '$T/probe' sys:setns:\$pid; kill \$pid; '$T/probe' sys:unshare:0"
	expect_rc 0
	grep -q '^sys:setns:[0-9]* EPERM' "$T/out" || fail "setns: $(cat "$T/out") $(cat "$T/err")"
	expect_result sys:unshare:0 ok
}

# TIOCSTI: input pushed into the terminal is read by the shell that started
# the jail once the agent exits, and runs outside it (this kernel still has
# dev.tty.legacy_tiocsti = 1).
test_agent_cannot_type_into_the_callers_shell() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	printf 'PROBE_STI="touch %s/pwned\n" exec %s/probe sys:tiocsti:0 >%s/agent/sti.out\n' "$T" "$T" "$T" >"$T/sti.sh"
	command -v tmux >/dev/null || fail "tmux missing: scripts/deps.sh installs it"
	TMUX_SOCK="$T/tmux.sock"
	tmux -S "$TMUX_SOCK" new-session -d -x 90 -y 25 "bash --norc -i"
	trap 'tmux -S "$TMUX_SOCK" kill-server 2>/dev/null || true; netsim_down' EXIT
	sleep 0.3
	tmux -S "$TMUX_SOCK" send-keys "unshare --mount --propagation private -- sh -c 'mount --bind $T/resolv.conf /etc/resolv.conf && exec nsenter -t $HOST -n -- env SUDO_UID=4242 SUDO_GID=4242 $EBPFJAIL run --config $T/jail.conf -- sh $T/sti.sh'; echo done >$T/done" Enter
	local i
	for i in $(seq 1 400); do [ -e "$T/done" ] && break; sleep 0.05; done
	[ -e "$T/done" ] || fail "the jail did not finish: $(tmux -S "$TMUX_SOCK" capture-pane -p)"
	sleep 1 # the shell would read and run what was pushed by now
	grep -q 'sys:tiocsti:0 EPERM' "$T/agent/sti.out" || fail "TIOCSTI: $(cat "$T/agent/sti.out")"
	[ ! -e "$T/pwned" ] || fail "the agent typed a command into the caller's shell"
}
