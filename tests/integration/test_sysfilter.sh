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

# The attack of issue 15: the user's own user+network namespace (a
# rootless container) with a route to the LAN through the host. Joined,
# the agent would hold CAP_NET_ADMIN over a network no TC filter watches.
# Its pid is not in the agent's /proc; a file naming the namespace is.
test_users_namespace_with_a_lan_route_cannot_be_joined() {
	netsim_up
	setpriv --reuid 4242 --regid 4242 --clear-groups unshare -Urn sleep 60 </dev/null >/dev/null 2>&1 &
	USERNS=$!
	trap 'kill $USERNS 2>/dev/null || true; netsim_down' EXIT
	local i
	for i in $(seq 1 100); do
		own_netns "$USERNS" && break
		sleep 0.02
	done
	# Never on: the veth would go into the machine's own namespace.
	own_netns "$USERNS" || fail "the user's namespace got no network namespace in 2 s"
	in_ns "$HOST" ip link add u-host type veth peer name u-ns netns "$USERNS"
	in_ns "$HOST" sh -e -c 'ip addr add 10.99.0.1/24 dev u-host; ip link set u-host up
		sysctl -qw net.ipv4.ip_forward=1'
	nsenter -t "$USERNS" -n -- sh -e -c 'ip link set lo up; ip addr add 10.99.0.2/24 dev u-ns
		ip link set u-ns up; ip route add default via 10.99.0.1'
	# Not vacuous: the user reaches the LAN through it.
	setpriv --reuid 4242 --regid 4242 --clear-groups nsenter --preserve-credentials -U -n -t "$USERNS" -- \
		"$T/probe" tcp:10.23.0.2:22 >"$T/control"
	grep -q ' ok ' "$T/control" || fail "the namespace does not reach the LAN: $(cat "$T/control")"
	# The listener logs from a child of its own: wait for that line
	# before clearing the log, or it lands after.
	for i in $(seq 1 100); do grep -qx lan-ssh "$T/hits" && break; sleep 0.05; done
	: >"$T/hits"
	JAIL_SETUP="touch $T/userns $T/netns && mount --bind /proc/$USERNS/ns/user $T/userns &&
		mount --bind /proc/$USERNS/ns/net $T/netns" \
		jail -- sh -c "[ -e /proc/$USERNS ] && echo pid-visible; nsenter --preserve-credentials --user=$T/userns --net=$T/netns -- '$T/probe' tcp:10.23.0.2:22; echo nsenter:\$?"
	expect_rc 0
	expect_no_out pid-visible
	expect_out "nsenter:1"
	expect_no_out "tcp:10.23.0.2:22 ok"
	expect_no_hit lan-ssh
}

# bubblewrap inside the jail (Claude Code's own sandbox uses it) works, and
# a network namespace it makes carries nothing out: the socket hooks allow
# such a socket loopback only (reason netns), and it has no route anyway.
test_bubblewrap_in_the_jail_works_and_its_namespace_leads_nowhere() {
	netsim_up
	command -v bwrap >/dev/null || fail "bwrap missing: scripts/deps.sh installs it"
	jail -- sh -c "bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-net --unshare-pid \
		--die-with-parent -- '$T/probe' tcp:198.51.100.7:80 udp:10.23.0.2:5000 tcp:127.0.0.1:9; echo bwrap:\$?;
		bwrap --ro-bind / / --dev /dev --proc /proc -- '$T/probe' tcp:198.51.100.7:80 tcp:10.23.0.2:22"
	expect_rc 0
	expect_out bwrap:0
	grep -q '^tcp:198.51.100.7:80 EPERM' "$T/out" || fail "bwrap --unshare-net: $(cat "$T/out")"
	grep -q '^udp:10.23.0.2:5000 EPERM' "$T/out" || fail "bwrap --unshare-net: $(cat "$T/out")"
	grep -q '^tcp:127.0.0.1:9 ECONNREFUSED' "$T/out" || fail "loopback in bwrap: $(cat "$T/out")"
	# Without --unshare-net it is the jail's namespace: the jail's verdicts.
	grep -q '^tcp:198.51.100.7:80 ok' "$T/out" || fail "bwrap: $(cat "$T/out")"
	grep -q '^tcp:10.23.0.2:22 EPERM' "$T/out" || fail "bwrap: $(cat "$T/out")"
	grep -q '"daddr": "198.51.100.7", "dport": 80, "hook": "connect4", "reason": "netns"' "$T/audit.jsonl" ||
		fail "no netns record: $(cat "$T/audit.jsonl")"
	expect_no_hit lan-udp
	expect_no_hit lan-ssh
}
