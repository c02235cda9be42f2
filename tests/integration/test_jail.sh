# test_jail.sh - `ebpfjail run` in the simulated network (netsim.sh), real pasta

test_internet_and_dns_allowed() {
	netsim_up
	jail -- sh -c '"$0/probe" tcp:198.51.100.7:80 udp:198.51.100.7:7 udp:203.0.113.1:53
		dig +short +tries=1 +time=3 web.example.test' "$T"
	expect_rc 0
	expect_result tcp:198.51.100.7:80 ok
	# DNS to the forward address goes through the jail's forwarder to the
	# host's resolver, 10.23.0.54, which the jail may not reach directly;
	# the gateway, a real router with its own DNS server, is not it.
	expect_out 198.51.100.7
	expect_result udp:203.0.113.1:53 EPERM
	expect_no_hit gateway-dns
	[ "$(hit_count inet-web 1)" -ge 1 ] || fail "the web server saw nothing"
	[ "$(hit_count inet-echo 1)" -ge 1 ] || fail "the UDP server saw nothing"
	resolver_saw web.example.test || fail "the host's resolver saw no query"
	expect_no_leftovers
}

test_blocked_destinations_get_eperm_and_never_arrive() {
	netsim_up
	jail -- "$T/probe" tcp:10.23.0.2:22 tcp:169.254.169.254:80 tcp:198.18.0.10:443 \
		tcp:172.17.0.1:8080 tcp:203.0.113.2:2222 tcp:203.0.113.1:80 udp:10.23.0.2:5000 \
		udp:10.23.0.53:53 tcp:192.168.1.1:80 tcp:100.64.0.1:80 tcp:224.0.0.1:80 \
		tcp:240.0.0.1:80 tcp6:::1:22 tcp6:::ffff:10.23.0.2:22 tcp6:2001:db8::1:80 \
		tcp:203.0.113.77:80 tcp:192.0.2.10:80
	expect_rc 0
	for spec in tcp:10.23.0.2:22 tcp:169.254.169.254:80 tcp:198.18.0.10:443 tcp:172.17.0.1:8080 \
		tcp:203.0.113.2:2222 tcp:203.0.113.1:80 udp:10.23.0.2:5000 udp:10.23.0.53:53 \
		tcp:192.168.1.1:80 tcp:100.64.0.1:80 tcp:224.0.0.1:80 tcp:240.0.0.1:80 \
		tcp6:::1:22 tcp6:::ffff:10.23.0.2:22 tcp6:2001:db8::1:80 tcp:203.0.113.77:80 \
		tcp:192.0.2.10:80; do
		case $spec in
		tcp:203.0.113.2:2222) expect_denied "$spec" ECONNREFUSED ;; # the jail's own address
		tcp:224.0.0.1:80) expect_denied "$spec" ENETUNREACH ;;
		tcp6:::1:22 | tcp6:2001:db8::1:80) expect_denied "$spec" EADDRNOTAVAIL ;;
		*) expect_denied "$spec" ;;
		esac
	done
	# Refused at once, not a timeout: the probe's own clock (microseconds).
	awk '$2 != "ok" && $3 > 100000 { bad = bad " " $1 } END { if (bad) { print "slow denials:" bad; exit 1 } }' \
		"$T/out" || fail "a denial took more than 100 ms"
	# a neighbour on the host's connected network, a host service on an
	# AnyIP prefix
	grep -q '"daddr": "203.0.113.77", "dport": 80, "hook": "'"$HOOK4"'", "reason": "connected"' \
		"$T/audit.jsonl" || fail "connected-network denial: $(cat "$T/audit.jsonl")"
	grep -q '"daddr": "192.0.2.10", "dport": 80, "hook": "'"$HOOK4"'", "reason": "host-route", "rule": "192.0.2.0/24"' \
		"$T/audit.jsonl" || fail "AnyIP denial: $(cat "$T/audit.jsonl")"
	for name in lan-ssh metadata vpn-internal docker-bridge host-addr gateway-web lan-udp lan-dns \
		inet-neighbour host-anyip; do
		expect_no_hit "$name"
	done
	expect_no_leftovers
}

test_audit_records_each_denial() {
	netsim_up
	jail -- "$T/probe" tcp:169.254.169.254:80 tcp:198.18.0.10:443 tcp:203.0.113.1:80 \
		tcp6:::ffff:10.23.0.2:22
	expect_rc 0
	[ "$(wc -l <"$T/audit.jsonl")" -eq 4 ] || fail "want 4 audit lines: $(cat "$T/audit.jsonl")"
	# The rootless engine sees packets in the output hook: no process
	# (pid and comm null), and a mapped IPv6 destination is an IPv4 packet.
	local who='"comm": "probe"' pid='[0-9]+' mapped='"family": "inet6", "dport": 22, "hook": "connect6"'
	rootless && who='"comm": null' pid=null mapped='"dport": 22, "hook": "output"'
	grep -q "$who"', "uid": 4242, "proto": "tcp", "daddr": "169.254.169.254", "dport": 80, "hook": "'"$HOOK4"'", "reason": "metadata", "rule": "169.254.169.254/32"}' \
		"$T/audit.jsonl" || fail "metadata denial: $(cat "$T/audit.jsonl")"
	grep -q '"daddr": "198.18.0.10", "dport": 443, "hook": "'"$HOOK4"'", "reason": "host-route", "rule": "198.18.0.0/15"' \
		"$T/audit.jsonl" || fail "host route denial: $(cat "$T/audit.jsonl")"
	grep -q '"daddr": "203.0.113.1", "dport": 80, "hook": "'"$HOOK4"'", "reason": "gateway", "rule": "203.0.113.1/32"' \
		"$T/audit.jsonl" || fail "gateway denial: $(cat "$T/audit.jsonl")"
	grep -q '"daddr": "10.23.0.2", '"$mapped"', "reason": "connected"' \
		"$T/audit.jsonl" || fail "mapped denial: $(cat "$T/audit.jsonl")"
	grep -qE '^\{"time": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z", "jail": "[0-9a-f]{8}", "pid": '"$pid"',' \
		"$T/audit.jsonl" || fail "time/jail/pid: $(head -n1 "$T/audit.jsonl")"
	expect_err "ebpfjail: denied 4 connections"
	[ "$(stat -L -c %a "$T/audit.jsonl")" = 640 ] || fail "audit log mode $(stat -c %a "$T/audit.jsonl")"
}

test_allow_ip_opens_one_device() {
	netsim_up
	jail --allow-ip 10.23.0.2:22 -- "$T/probe" tcp:10.23.0.2:22 udp:10.23.0.2:5000 \
		tcp:169.254.169.254:80
	expect_rc 0
	expect_result tcp:10.23.0.2:22 ok
	expect_denied udp:10.23.0.2:5000
	expect_denied tcp:169.254.169.254:80
	[ "$(hit_count lan-ssh 1)" -ge 1 ] || fail "the allowed device saw nothing"
	expect_no_hit lan-udp
}

test_host_loopback_is_not_the_jails() {
	netsim_up
	# 127.0.0.1 in the jail is the jail's own loopback: nothing listens
	# there, and the host's 127.0.0.1:5432 never sees a thing.
	jail -- "$T/probe" tcp:127.0.0.1:5432
	expect_rc 0
	expect_result tcp:127.0.0.1:5432 ECONNREFUSED
	expect_no_hit host-loopback
}

test_agent_has_no_privileges() {
	netsim_up
	cat >"$T/agent.sh" <<'EOF'
ip route add 198.51.100.0/24 dev jail0 2>/dev/null && echo route-added
ip link set jail0 down 2>/dev/null && echo link-down
tc qdisc del dev jail0 clsact 2>/dev/null && echo qdisc-deleted
# Its own cgroup namespace: the jail's cgroup is its root, and the host's
# hierarchy (ebpfjail/, the other jails, the host's services) is not there.
[ -e "$CG_ROOT/cgroup.procs" ] && echo cgroup-files-seen
grep -qx $$ "$CG_ROOT/cgroup.procs" && echo in-its-root
[ -e "$CG_ROOT/ebpfjail" ] && echo host-hierarchy-seen
echo $$ > "$CG_ROOT/cgroup.procs" 2>/dev/null && echo cgroup-written
echo "cgroup:$(grep '^0::' /proc/self/cgroup)"
grep -E '^(CapEff|CapPrm|CapBnd|CapAmb):' /proc/self/status
grep NoNewPrivs /proc/self/status
id -u
ls /proc/self/fd | sort -n | tr '\n' ' '; echo
echo "env:$EBPFJAIL"
kill -0 $PPID 2>/dev/null && echo can-signal-init
cat /proc/$PPID/environ >/dev/null 2>&1 && echo can-read-init
pgrep -x 'pasta|passt|passt.avx2|pasta.avx2' >/dev/null && echo pasta-visible
pgrep -x ebpfjail >/dev/null && echo supervisor-visible
echo "pids:$(ls /proc | grep -c '^[0-9]')"
echo "---resolv"
cat /etc/resolv.conf
EOF
	chmod 755 "$T/agent.sh"
	local cg setup=:
	cg=$(cgroup_mount)
	if rootless; then
		# Run from a cgroup delegated to the user (as systemd --user's
		# are): the jail gets its own there, shown at /sys/fs/cgroup.
		BOX="$cg/ebpfjail-test-box.$$"
		mkdir "$BOX" && chown -R 4242:4242 "$BOX"
		trap 'netsim_down; sleep 0.2; rmdir "$BOX/ebpfjail" "$BOX" 2>/dev/null || true' EXIT
		setup="echo \$\$ >$BOX/cgroup.procs" cg=/sys/fs/cgroup
	fi
	CG_ROOT=$cg JAIL_SETUP=$setup jail --pass-env CG_ROOT -- sh "$T/agent.sh"
	expect_rc 0
	expect_no_out route-added
	expect_no_out link-down
	expect_no_out qdisc-deleted
	expect_out cgroup-files-seen # so the write attempt is not vacuous
	expect_out in-its-root
	expect_no_out host-hierarchy-seen
	# Rootless, the jail's cgroup is its user's, so the agent's: writing
	# its root moves it within the one subtree it sees.
	rootless || expect_no_out cgroup-written
	expect_out "cgroup:0::/"
	for c in CapEff CapPrm CapBnd CapAmb; do expect_out "$c:	0000000000000000"; done
	expect_out "NoNewPrivs:	1"
	expect_out "4242"
	expect_out "env:1"
	# Its own PID namespace: the supervisor and pasta are out of sight,
	# and the one process above it, its init (root), out of reach.
	expect_no_out pasta-visible
	expect_no_out supervisor-visible
	expect_no_out can-signal-init
	expect_no_out can-read-init
	local pids
	pids=$(sed -n 's/^pids://p' "$T/out")
	[ "${pids:-99}" -le 5 ] || fail "the agent sees $pids processes: not its own PID namespace"
	# The jail's resolv.conf: only the jail's forwarder, the host's search
	# and options kept, the host's resolver gone.
	expect_out "nameserver 169.254.1.1"
	expect_out "search example.test"
	expect_out "options ndots:1"
	expect_no_out "10.23.0.54"
	grep -qE '^0 1 2 3 $' "$T/out" || fail "the agent holds more fds than 0-2 (3 is ls's own): $(cat "$T/out")"
	jail -- "$T/probe" raw:198.51.100.7:0 packet:any:0
	expect_result raw:198.51.100.7:0 EPERM
	expect_result packet:any:0 EAFNOSUPPORT
}

test_exit_statuses() {
	netsim_up
	jail -- sh -c 'exit 3'
	expect_rc 3
	jail -- sh -c 'kill -TERM $$'
	expect_rc 143
	jail -- "$T/no-such-command"
	expect_rc 127
	expect_err "command not found"
	printf 'not a program\n' >"$T/not-exec"
	chmod 644 "$T/not-exec"
	jail -- "$T/not-exec"
	expect_rc 126
	expect_no_leftovers
}

test_fail_closed_bad_config() {
	netsim_up
	echo 'allow-ip = 10.1' >>"$T/jail.conf"
	jail -- "$T/probe" tcp:198.51.100.7:80
	expect_rc 125
	expect_err 'jail.conf:3: allow-ip = "10.1"'
	[ ! -s "$T/out" ] || fail "the command ran"
	expect_no_leftovers
}

test_fail_closed_without_pasta() {
	netsim_up
	mkdir "$T/bin"
	for tool in sh env; do ln -s "$(command -v $tool)" "$T/bin/$tool"; done
	JAIL_PATH="$T/bin" jail -- /bin/true
	expect_rc 125
	expect_err "pasta is not on PATH; install it: apt-get install passt"
	expect_lines 1 "$T/err"
	expect_no_leftovers
}

test_fail_closed_without_tun() {
	netsim_up
	JAIL_SETUP="mount -t tmpfs none /dev/net" jail -- /bin/true
	expect_rc 125
	expect_err "cannot open /dev/net/tun"
	expect_lines 1 "$T/err"
}

test_fail_closed_on_unexpected_route() {
	netsim_up
	# A pasta that, before it starts, leaves a policy rule in the jail's
	# namespace: the check after the rebuild must refuse the launch.
	mkdir "$T/bin"
	cat >"$T/bin/pasta" <<EOF
#!/bin/sh
for a; do case \$a in /proc/*/ns/net) ns=\$a ;; esac; done
nsenter --net="\$ns" ip rule add from 192.0.2.9 lookup 100
exec $(command -v pasta) "\$@"
EOF
	chmod 755 "$T/bin/pasta"
	JAIL_PATH="$T/bin:$PATH" jail -- /bin/true
	expect_rc 125
	expect_err "the jail's routing is not what was set: unexpected IPv4 policy rule"
	expect_no_leftovers
}

test_refuses_root_without_sudo_uid() {
	netsim_up
	run nsenter -t "$HOST" -n -- env -u SUDO_UID "$EBPFJAIL" run --config "$T/jail.conf" -- /bin/true
	expect_rc 125
	expect_err "--user"
}

test_egress_jail_off_warns_and_runs_unjailed() {
	netsim_up
	echo 'egress-jail = off' >>"$T/jail.conf"
	jail -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 0
	expect_err "WARNING: egress-jail = off"
	expect_result tcp:10.23.0.2:22 ok
}

test_supervisor_sigkill_leaves_nothing_unfiltered() {
	netsim_up
	local job sup i procs p before tries survivors=0 dead=0
	# Not vacuous: a connect that gets through is seen by the LAN host.
	in_ns "$HOST" "$T/probe" tcp:10.23.0.2:22 >"$T/control"
	grep -q '^tcp:10.23.0.2:22 ok' "$T/control" || fail "the LAN host is not reachable even unjailed: $(cat "$T/control")"
	for i in $(seq 1 100); do grep -qx lan-ssh "$T/hits" && break; sleep 0.05; done
	grep -qx lan-ssh "$T/hits" || fail "the LAN host logged nothing"
	: >"$T/hits"
	# The agent starts a child that outlives it and keeps trying the LAN.
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF
( for i in \$(seq 1 300); do $T/probe tcp:10.23.0.2:22 >>$T/agent/late.out; sleep 0.1; done ) &
sleep 30
EOF
	chmod 755 "$T/agent.sh"
	jail_cmd -- sh "$T/agent.sh" >"$T/out" 2>"$T/err" &
	job=$!
	for i in $(seq 1 100); do [ -s "$T/agent/late.out" ] && break; sleep 0.05; done
	[ -s "$T/agent/late.out" ] || fail "the agent did not start: $(cat "$T/err")"
	# The agent's pids mean nothing outside its PID namespace: its
	# processes, as the host numbers them, are its init's tree.
	procs=$(jail_procs)
	[ "$(echo "$procs" | wc -w)" -ge 3 ] || fail "the jail's processes: $procs"
	sup=$(supervisor_pid)
	# before: the tries made while the supervisor lived, each of which
	# must be refused; tries: those made by the time the signal is sent,
	# which a survivor must add to.
	before=$(wc -l <"$T/agent/late.out")
	kill -KILL "$sup"
	tries=$(wc -l <"$T/agent/late.out")
	wait "$job" 2>/dev/null || true
	sleep 0.5
	# Each of the jail's processes is checked: it died with its
	# supervisor, or it still runs and is still filtered. A survivor is
	# shown filtered by the agent's probe loop's tries after the kill (one
	# each 0.1 s): survivors and no try after the kill is a failure.
	# Rootless, no survivor could be shown filtered: pasta died with the
	# supervisor and took the tap, so a survivor's tries find no route and
	# never reach nftables. There the agent's PID namespace ends with its
	# init, whose PR_SET_PDEATHSIG (SIGKILL, agent.c) fires when the
	# supervisor dies: none may survive (given up to 5 s to die).
	for i in $(seq 1 50); do
		survivors=0 dead=0
		for p in $procs; do
			if alive "$p"; then survivors=$((survivors + 1)); else dead=$((dead + 1)); fi
		done
		# As root a survivor may stay (still filtered, shown below): count once.
		if [ "$survivors" -eq 0 ] || ! rootless; then break; fi
		sleep 0.1
	done
	echo "after the kill: $dead of the jail's processes died, $survivors still run;" \
		"tries before it: $before, after it: $(awk -v before="$before" 'NR > before { print $2 }' "$T/agent/late.out" |
			sort | uniq -c | tr -s ' \n' ' ')"
	! rootless || [ "$survivors" -eq 0 ] ||
		fail "$survivors of the jail's processes outlived the rootless supervisor by over 5 s"
	[ "$survivors" -eq 0 ] || [ "$(wc -l <"$T/agent/late.out")" -gt "$tries" ] ||
		fail "$survivors of the jail's processes still run, but none tried the LAN after the kill"
	# Every try while the supervisor lived was refused (the rootless
	# engine refuses TCP with an ICMP error: EHOSTUNREACH). After the
	# kill, a rootless try may find no route at all (ENETUNREACH): pasta
	# died and took its tap and the routes through it, and connect() failed
	# at the route lookup, before any packet existed. As root, the cgroup
	# hook runs before that lookup (tcp_v4_pre_connect), so every try is
	# still EPERM.
	awk -v rootless="${ROOTLESS:-0}" -v before="$before" '
		$2 == "EPERM" { next }
		rootless == 1 && $2 == "EHOSTUNREACH" { next }
		rootless == 1 && NR > before && $2 == "ENETUNREACH" { next }
		{ print "try " NR (NR > before ? " (after the kill)" : " (before it)") ": " $0; bad = 1 }
		END { exit bad }' "$T/agent/late.out" >"$T/unrefused" ||
		fail "a try was not refused: $(cat "$T/unrefused")"
	expect_no_hit lan-ssh
	[ -z "$(pasta_pids)" ] || fail "pasta outlived its supervisor: $(pasta_pids)"
	# ...and the next run removes it all.
	jail -- /bin/true
	expect_rc 0
	for p in $procs; do ! alive "$p" || fail "the dead jail's process $p survived the next run"; done
	expect_no_leftovers
}

# Issue 16's two host-only reproducers. As a container's PID 1 (no
# --init), the namespace holder took its parent, pid 1, for a dead one.
test_supervisor_as_pid_1() {
	netsim_up
	run unshare --mount --propagation private -- sh -c 'mount --bind "$0/resolv.conf" /etc/resolv.conf &&
		mount --bind "$0/varlib" /var/lib/ebpfjail &&
		exec nsenter -t "$1" -n -- unshare --pid --fork --mount-proc env SUDO_UID=4242 SUDO_GID=4242 \
			"$2" run --config "$0/jail.conf" -- "$0/probe" tcp:198.51.100.7:80 tcp:10.23.0.2:22' \
		"$T" "$HOST" "$EBPFJAIL"
	expect_rc 0
	expect_result tcp:198.51.100.7:80 ok
	expect_result tcp:10.23.0.2:22 EPERM
	expect_no_leftovers
}

# Every container's /proc/sys is read-only: IPv6 is switched off in the
# jail all the same, from a procfs of its own, and the host's stays so.
test_read_only_proc_sys() {
	netsim_up
	JAIL_SETUP="mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys" \
		jail -- sh -c "cat /proc/sys/net/ipv6/conf/all/disable_ipv6 /proc/sys/net/ipv6/conf/default/disable_ipv6; '$T/probe' tcp:198.51.100.7:80"
	expect_rc 0
	[ "$(head -n 2 "$T/out" | tr '\n' ' ')" = "1 1 " ] || fail "IPv6 in the jail: $(cat "$T/out")"
	expect_result tcp:198.51.100.7:80 ok
	expect_no_leftovers
}

# _jail_from_cgroup CG: `jail -- sleep 30` started from cgroup CG, in the
# background (its pid in JOB); returns once its agent runs, with the one
# jail cgroup found under BASE/ebpfjail in JAILS (BASE: $2, else CG)
_jail_from_cgroup() {
	local base=${2:-$1}
	( echo "$BASHPID" >"$1/cgroup.procs" && jail_cmd -- sleep 30 ) >"$T/out" 2>"$T/err" &
	JOB=$!
	(agent_pid >/dev/null) || fail "the jail did not start: $(cat "$T/err")"
	JAILS=$(find "$base/ebpfjail" -mindepth 1 -maxdepth 1 -type d 2>/dev/null || true)
	[ "$(echo "$JAILS" | grep -c . || true)" = 1 ] || fail "no jail cgroup under $base: '$JAILS'"
}

# A jail's cgroup goes under the cgroup ebpfjail runs in, never at the
# mount's root: with the host's cgroup tree in view (Docker's --cgroupns
# host), a jail at the root escaped its container's cgroup and limits.
test_jail_cgroup_lives_under_its_own_cgroup() {
	netsim_up
	local own
	own="$(cgroup_mount)/ebpfjail-test-own.$$"
	mkdir "$own"
	OWN=$own
	trap 'netsim_down; sleep 0.2; rmdir "$OWN/ebpfjail" "$OWN" 2>/dev/null || true' EXIT
	_jail_from_cgroup "$own"
	grep -qx "$JAILS" /run/ebpfjail/*/cgroup || fail "the state names $(cat /run/ebpfjail/*/cgroup), not $JAILS"
	[ -z "$(find "$(cgroup_mount)/ebpfjail" -mindepth 1 -maxdepth 1 -type d 2>/dev/null)" ] ||
		fail "a jail cgroup at the mount's root"
	kill -TERM "$(supervisor_pid)"
	wait "$JOB" 2>/dev/null || true
	[ ! -e "$own/ebpfjail" ] || fail "left behind: $(find "$own/ebpfjail")"
	[ -z "$(ls -A /run/ebpfjail 2>/dev/null)" ] || fail "left in /run/ebpfjail: $(ls /run/ebpfjail)"
}

# The leftover sweep ended another container's running agent: with the
# host's cgroup tree shared, it found ebpfjail/ID with no state of its own
# and killed it (137). Only what its own state names may go.
test_leftover_sweep_spares_cgroups_it_has_no_state_for() {
	netsim_up
	OTHER="$(jails_cgroup)/0the0ther"
	mkdir -p "$OTHER"
	sleep 60 </dev/null >/dev/null 2>&1 &
	VICTIM=$!
	echo "$VICTIM" >"$OTHER/cgroup.procs"
	trap 'kill $VICTIM 2>/dev/null || true; netsim_down; sleep 0.2; rmdir "$OTHER" "$(dirname "$OTHER")" 2>/dev/null || true' EXIT
	jail -- /bin/true
	expect_rc 0
	alive "$VICTIM" || fail "the sweep killed a process of a cgroup it has no state for"
	[ -d "$OTHER" ] || fail "the sweep removed a cgroup it has no state for"
	# the same from `ebpfjail status`, which also sweeps dead jails
	run "$EBPFJAIL" status
	alive "$VICTIM" || fail "status killed a process of a cgroup it has no state for"
}

# Run from a cgroup its user owns (a desktop session's delegated
# user@UID.service), a jail under it could be emptied by that user: a
# process of theirs outside the jail moves the agent into a cgroup of
# theirs (the kernel checks write access to the destination's and the
# common ancestor's cgroup.procs only), away from the socket hooks. The
# jail goes under the nearest cgroup root owns instead.
test_jail_cgroup_never_under_a_cgroup_its_user_owns() {
	netsim_up
	local base user agent
	base="$(cgroup_mount)/ebpfjail-test-deleg.$$"
	user="$base/user@4242.service"
	mkdir -p "$user"
	chown 4242 "$user" "$user/cgroup.procs" "$user/cgroup.threads" "$user/cgroup.subtree_control"
	BASE=$base
	trap 'netsim_down; sleep 0.2; rmdir "$BASE/user@4242.service/ebpfjail" "$BASE/user@4242.service" "$BASE/ebpfjail" "$BASE" 2>/dev/null || true' EXIT
	_jail_from_cgroup "$user" "$base"
	agent=$(agent_pid)
	[ ! -e "$user/ebpfjail" ] || fail "a jail cgroup under the user's own cgroup"
	# the attack: the user moves the agent into the cgroup they own
	setpriv --reuid 4242 --regid 4242 --clear-groups sh -c "echo $agent >'$user/cgroup.procs'" 2>"$T/move.err" &&
		fail "the user moved the agent out of its jail's cgroup"
	grep -q "echo:" "$T/move.err" || fail "the move was not tried: $(cat "$T/move.err")"
	grep -qx "$agent" "$JAILS/cgroup.procs" ||
		fail "the agent is not in its jail's cgroup any more: $(cat /proc/"$agent"/cgroup)"
	kill -TERM "$(supervisor_pid)"
	wait "$JOB" 2>/dev/null || true
}

# The attack it stops: a supervisor whose event loop could not watch one of
# its descriptors would run the agent deaf (no denial read, no change of the
# host's networks followed, its init unheard) and say nothing. Fault
# injection (failinject.c) makes one registration fail: the start fails
# closed and the agent never runs. The positive control: the same injection,
# matching no descriptor, lets the agent run.
test_a_failed_event_registration_stops_the_start() {
	netsim_up
	failinject_wrap
	FAIL_EPOLL_ADD=no-such-descriptor JAIL_WRAP="$T/failwrap" jail -- sh -c 'echo ran'
	expect_rc 0
	expect_out ran
	for what in 'anon_inode:[signalfd]' 'anon_inode:[eventpoll]'; do
		FAIL_EPOLL_ADD=$what JAIL_WRAP="$T/failwrap" jail -- sh -c 'echo ran'
		expect_rc 125
		expect_err "cannot watch the"
		expect_err "cannot set up the supervisor's event loop"
		[ ! -s "$T/out" ] || fail "the agent ran with its $what unwatched"
		expect_no_leftovers
	done
}

# The jail's mode and its engine are two things (jail.h), and engine =
# nftables run by root is the rootless mode: the jail's own user namespace,
# mapping root to itself, with the nftables engine. The same policy holds:
# the internet is reached, a LAN host is refused by the engine's output
# hook (the audit's hook says which engine judged it) and never sees a
# packet. The root pass alone runs it (rootless.list does not name it).
test_root_with_the_nftables_engine_is_the_rootless_mode() {
	netsim_up
	# Rootless, the audit log's directory is read-only in the agent's
	# view: a directory of its own, as the rootless pass has it.
	mkdir "$T/u"
	sed -i "s|^audit-log = .*|audit-log = $T/u/audit.jsonl|" "$T/jail.conf"
	ln -sf u/audit.jsonl "$T/audit.jsonl"
	jail --engine nftables --user root -- sh -c '"$0/probe" tcp:198.51.100.7:80 tcp:10.23.0.2:22
		cat /proc/self/uid_map' "$T"
	expect_rc 0
	expect_result tcp:198.51.100.7:80 ok
	case $(result tcp:10.23.0.2:22) in
	EPERM | EHOSTUNREACH) ;;
	*) fail "tcp:10.23.0.2:22: got '$(result tcp:10.23.0.2:22)', want it refused" ;;
	esac
	expect_no_hit lan-ssh
	[ "$(hit_count inet-web 1)" -ge 1 ] || fail "the web server saw nothing"
	# Its own user namespace: root maps to root, and nothing else.
	grep -Eq '^ *0 +0 +1$' "$T/out" || fail "not in a user namespace of its own: $(cat "$T/out")"
	grep -q '"daddr": "10.23.0.2", "dport": 22, "hook": "output"' "$T/audit.jsonl" ||
		fail "no denial by the nftables engine's output hook: $(cat "$T/audit.jsonl")"
	expect_no_leftovers
}
