# test_attack.sh - a prompt-injected agent attacking the jail itself: its
# private directories, its masks, its supervisor, its cgroup, the host's
# sockets. Each test is one attack; it passes when the attack is stopped.

# _atk: build the helper (system calls with no exec between them) into $T
_atk() {
	[ -x "$T/atk" ] && return 0
	cc -O2 -static -o "$T/atk" "$SRC/tests/integration/attack_helper.c" ||
		fail "cannot build attack_helper.c"
	chmod 755 "$T/atk"
}

_as_agent_user() { setpriv --reuid 4242 --regid 4242 --clear-groups "$@"; }

# The attack: `cd /tmp && ebpfjail run claude`. The current directory is
# a private directory itself, so it is not carried; the init does not chdir
# either, and the agent's cwd is still the host's /tmp under the tmpfs:
# ./tmux-UID/default, ./.X11-unix/X0, ./ssh-*/agent.* by relative path.
test_attack_cwd_at_tmp_does_not_reach_the_hosts_tmp() {
	netsim_up
	local dir d b n=0
	LEFT=
	trap 'netsim_down; rm -rf $LEFT' EXIT
	for dir in /tmp /dev/shm /run/user; do
		[ -d "$dir" ] || continue
		d=$(mktemp -d "$dir/ebpfjail-atk.XXXXXX")
		LEFT="$LEFT $d"
		b=$(basename "$d")
		chmod 755 "$d"
		echo secret >"$d/hostfile"
		unix_serve "$d/sock" host-sock
		cd "$dir"
		# Not vacuous: from there, unjailed, the agent's user reads the
		# file and reaches the socket by relative path.
		_as_agent_user sh -c "cat ./$b/hostfile; '$T/probe' unix:./$b/sock:0" >"$T/control" 2>&1
		grep -qx secret "$T/control" && grep -Eq "^unix:./$b/sock:0 (ok|sent) " "$T/control" ||
			fail "$dir/$b is not the user's to reach even unjailed: $(cat "$T/control")"
		jail -- sh -c "for f in ./$b/hostfile ./$b/sock /proc/self/cwd/$b/hostfile; do [ -e \$f ] && echo sees:\$f; done
			cat ./$b/hostfile; cat /proc/self/cwd/$b/hostfile; '$T/probe' unix:./$b/sock:0"
		cd "$T"
		n=$((n + 1))
		expect_rc 0
		expect_no_out sees:
		expect_no_out secret
		# ENOENT in the agent's own $dir, or EPERM first where the kernel
		# has the unix hooks (a relative path: they refuse it)
		r=$(result "unix:./$b/sock:0")
		[ "$r" = ENOENT ] || [ "$r" = EPERM ] || fail "unix:./$b/sock: '$r'"
	done
	[ "$n" -gt 0 ] || fail "none of /tmp, /dev/shm and /run/user is here"
	# one connection each, the unjailed ones
	[ "$(hit_count host-sock "$n")" -eq "$n" ] || fail "the agent reached the host's socket: $(cat "$T/hits")"
}

# The attack: a root agent (--user root) makes a user namespace, where its
# CapEff is full (in that namespace only), and asks its own supervisor to
# allow the LAN. The control socket checks uid 0 (SO_PEERCRED: kuid 0 is
# still 0) and CapEff in /proc/PID/status, not in which namespace.
test_attack_root_agent_cannot_allow_itself_from_a_user_namespace() {
	netsim_up
	_atk
	jail --user root -- sh -c "'$T/atk' userns-control \$(ls -d /run/ebpfjail/*/control | head -1) 'allow 10.23.0.2 0'; '$T/probe' tcp:10.23.0.2:22"
	expect_rc 0
	expect_no_out "reply ok"
	expect_result tcp:10.23.0.2:22 EPERM
	expect_no_hit lan-ssh
}

# The attack: a root agent owns every cgroup file (root's, 0644):
# `echo $$ >ROOT/cgroup.procs` took it out of the jail's cgroup (no socket
# hooks, no audit with pid/comm, no freeze, no kill when pasta dies) while
# it had no cgroup namespace of its own.
test_attack_root_agent_cannot_leave_its_cgroup() {
	netsim_up
	local cg
	cg=$(cgroup_mount)
	jail --user root -- sh -c "echo \$\$ >$cg/cgroup.procs; grep '^0::' /proc/self/cgroup; '$T/probe' tcp:10.23.0.2:22"
	expect_rc 0
	# Its cgroup namespace's root is its jail's cgroup, and it is still
	# there: the socket hooks answer at once (out of the cgroup, only the
	# TC filter would, by a timeout).
	grep -qx "0::/" "$T/out" || fail "the agent left its cgroup: $(cat "$T/out")"
	expect_result tcp:10.23.0.2:22 EPERM
	expect_no_hit lan-ssh
}

# The attack: the same root agent ends any of the host's services
# (system.slice/cgroup.kill), another user's jail, or its own supervisor's
# cgroup. A cgroup of the test's stands for them. Stopped: its view of
# cgroup2 is its own jail's subtree, and /sys is read-only for it.
test_attack_root_agent_cannot_kill_a_host_cgroup() {
	netsim_up
	local cg i
	cg=$(cgroup_mount)
	mkdir "$cg/ebpfjail-atk-victim.$$"
	LEFT="$cg/ebpfjail-atk-victim.$$" CONTROL= VICTIM=
	trap 'kill $CONTROL $VICTIM 2>/dev/null || true; netsim_down; sleep 0.1; rmdir "$LEFT"' EXIT
	[ -e "$LEFT/cgroup.kill" ] || skip "kernel lacks cgroup.kill (Linux 5.14)"
	# Not vacuous: the same write, unjailed, ends what is in the cgroup.
	sleep 120 </dev/null >/dev/null 2>&1 &
	CONTROL=$!
	echo "$CONTROL" >"$LEFT/cgroup.procs"
	sh -c "echo 1 >$LEFT/cgroup.kill"
	for i in $(seq 1 100); do alive "$CONTROL" || break; sleep 0.02; done
	! alive "$CONTROL" || fail "writing cgroup.kill ends nothing even unjailed"
	sleep 120 </dev/null >/dev/null 2>&1 &
	VICTIM=$!
	echo "$VICTIM" >"$LEFT/cgroup.procs"
	jail --user root -- sh -c "echo 1 >$LEFT/cgroup.kill && echo wrote || echo refused"
	sleep 0.2
	alive "$VICTIM" || fail "a root agent killed a cgroup outside its jail"
	expect_out refused
}

# The attack: in a user and mount namespace of its own the agent tries to
# take the private /tmp and /dev/shm away (umount2), or clone / without
# what is mounted on it (open_tree without AT_RECURSIVE) to see the
# host's /tmp under the tmpfs. The mounts are locked: stopped.
test_attack_nested_namespace_cannot_uncover_the_private_dirs() {
	netsim_up
	_atk
	jail -- "$T/atk" mnt
	expect_rc 0
	expect_out "umount2-tmp Invalid argument"
	expect_out "umount2-dockersock Invalid argument"
	expect_out "open_tree-root Invalid argument"
	expect_no_out host-tmp
}

# The attack: the user's tmux server keeps its socket in $HOME (tmux -S,
# TMUX_TMPDIR) rather than /tmp; `run-shell` runs what the agent asks,
# outside the jail. No private directory covers $HOME; the cgroup unix
# hooks (SPEC: "every pathname connect outside the jail's own directories
# is judged") would.
test_attack_tmux_socket_in_home_is_out_of_reach() {
	netsim_up
	mkdir -p "$T/home/.tmux" "$T/agent"
	chown -R 4242:4242 "$T/home" "$T/agent"
	chmod 755 "$T"
	S=$T/home/.tmux/default
	_as_agent_user env -i PATH="$PATH" HOME="$T/home" tmux -S "$S" new-session -d "sleep 120"
	trap '_as_agent_user tmux -S "$S" kill-server 2>/dev/null || true; netsim_down' EXIT
	# Not vacuous: a client of the user's outside the jail gets it done.
	_as_agent_user env -i PATH="$PATH" HOME="$T/home" tmux -S "$S" run-shell "touch $T/agent/control" || true
	[ -e "$T/agent/control" ] || fail "run-shell does not work even unjailed"
	jail -- sh -c "tmux -S $S run-shell 'touch $T/agent/pwned'; echo tmux:\$?"
	expect_rc 0
	expect_out tmux:1
	expect_err "error connecting to $S (Operation not permitted)" # the unix hooks
	sleep 0.2
	[ ! -e "$T/agent/pwned" ] || fail "the agent ran a command through the user's tmux server in \$HOME"
}

# The attack: docker.sock is masked with /dev/null when the jail starts.
# dockerd restarts (an upgrade, `systemctl restart docker`): it unlinks and
# binds /run/docker.sock again. Unlinking a mount point in another mount
# namespace detaches what is mounted there, so the new socket is bare in
# the agent's namespace.
test_attack_masked_socket_recreated_by_its_daemon_stays_masked() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/daemon.sh" <<EOS
socat -U UNIX-LISTEN:/run/docker.sock,fork,mode=777 SYSTEM:"echo docker >>$T/hits; echo docker" </dev/null >/dev/null 2>&1 & echo \$! >$T/d1.pid
$(unix_listening_sh /run/docker.sock "\$(cat $T/d1.pid)")
( for i in \$(seq 1 300); do [ -e $T/agent/restart ] && break; sleep 0.05; done
  kill \$(cat $T/d1.pid); rm -f /run/docker.sock
  socat -U UNIX-LISTEN:/run/docker.sock,fork,mode=777 SYSTEM:"echo docker >>$T/hits; echo docker" </dev/null >/dev/null 2>&1 & echo \$! >$T/d2.pid
  sleep 0.3; touch $T/agent/restarted ) </dev/null >/dev/null 2>&1 &
EOS
	trap 'kill $(cat $T/d1.pid $T/d2.pid 2>/dev/null) 2>/dev/null || true; netsim_down' EXIT
	# /run in the test's own mount namespace only.
	JAIL_SETUP="mount -t tmpfs -o mode=755 tmpfs /run && sh $T/daemon.sh" \
		jail -- sh -c "'$T/probe' unix:/run/docker.sock:0; touch $T/agent/restart
			for i in \$(seq 1 100); do [ -e $T/agent/restarted ] && break; sleep 0.05; done
			'$T/probe' unix:/run/docker.sock:0"
	expect_rc 0
	[ -e "$T/agent/restarted" ] || fail "the daemon did not restart"
	! grep -q 'docker.sock:0 ok' "$T/out" || fail "the agent reached the restarted docker.sock: $(cat "$T/out")"
	expect_no_hit docker
}

# The attack: `unix-socket = /tmp/d/agent.sock` was approved, but the name
# is a symlink (planted by any process of the user's: an agent run with
# share-tmp = on, or one that reached the host's /tmp) to /run/docker.sock.
# stat() and open_tree() follow it, root's socket passes the owner check,
# and the bind mount carries docker.sock in past its mask.
test_attack_carried_unix_socket_that_is_a_symlink_does_not_carry_docker() {
	netsim_up
	local d
	d=$(mktemp -d /tmp/ebpfjail-atk.XXXXXX)
	LEFT=$d
	trap 'kill $(cat $T/d.pid 2>/dev/null) 2>/dev/null || true; netsim_down; rm -rf "$LEFT"' EXIT
	chown 4242 "$d"
	ln -s /run/docker.sock "$d/agent.sock"
	echo "unix-socket = $d/agent.sock" >>"$T/jail.conf"
	# /run/docker.sock in the test's own mount namespace only. Not
	# vacuous: there, unjailed, the agent's user reaches docker through
	# the link.
	JAIL_SETUP="mount -t tmpfs -o mode=755 tmpfs /run && { socat -U UNIX-LISTEN:/run/docker.sock,fork,mode=777 \
		SYSTEM:'echo docker >>$T/hits; echo docker' </dev/null >/dev/null 2>&1 & echo \$! >$T/d.pid; } &&
		$(unix_listening_sh /run/docker.sock "\$(cat $T/d.pid)") &&
		setpriv --reuid 4242 --regid 4242 --clear-groups $T/probe unix:$d/agent.sock:0 >$T/control" \
		jail -- "$T/probe" unix:/run/docker.sock:0 "unix:$d/agent.sock:0"
	grep -Eq "^unix:$d/agent.sock:0 (ok|sent) " "$T/control" || fail "the link does not reach docker even unjailed: $(cat "$T/control")"
	# The jail refuses to start: a link on a unix-socket path is never
	# followed (open_tree would carry docker.sock in past its mask).
	expect_rc 125
	expect_err "unix-socket $d/agent.sock is not a socket" # the link itself, not followed
	[ ! -s "$T/out" ] || fail "the agent ran: $(cat "$T/out")"
	[ "$(hit_count docker 1)" -eq 1 ] || fail "the agent reached docker.sock: $(cat "$T/hits")"
}

# The attack: the jail shares the host's IPC namespace, so SysV shared
# memory, semaphores and message queues of the user's other processes
# (X11 MIT-SHM pixmaps, an editor's or a database's segments) are the
# agent's to read and write: `ipcs` lists them, shmat() opens them.
test_attack_sysv_ipc_of_the_users_processes_is_out_of_reach() {
	netsim_up
	_atk
	local id got
	id=$(_as_agent_user ipcmk -M 4096 -p 0600 | awk '{ print $NF }')
	SHMID=$id
	trap 'ipcrm -m $SHMID 2>/dev/null || true; netsim_down' EXIT
	[ -n "$id" ] || fail "ipcmk made no segment"
	# Not vacuous: the same write into the same segment, unjailed, lands.
	[ "$(_as_agent_user "$T/atk" shm-poke "$id" user)" = "shm-poke ok" ] || fail "shm-poke does not work even unjailed"
	[ "$("$T/atk" shm-read "$id")" = user ] || fail "shm-read does not see a write even unjailed"
	jail -- "$T/atk" shm-poke "$id"
	expect_out "shm-poke Invalid argument" # no such segment in its IPC namespace
	got=$("$T/atk" shm-read "$id") || fail "cannot read the segment back"
	[ "$got" = user ] || fail "the agent wrote into a host process's shared memory: $got"
}

# The attack: kill(0, SIG) signals the whole process group, and the agent
# shared the caller's (`sudo ebpfjail run claude | tee log`: tee is the
# user's). The PID namespace does not limit a process-group kill; Landlock's
# signal scope does, but only on kernels with Landlock scopes (hidden here,
# as Debian 12's 6.1 has none): the agent's process group is its own.
test_attack_process_group_kill_does_not_reach_the_users_processes() {
	netsim_up
	hide_landlock
	mkdir "$T/agent" && chown 4242 "$T/agent"
	local i job agent
	_as_agent_user sh -c "trap 'touch $T/agent/got' USR1; touch $T/agent/ready
		for i in \$(seq 1 100); do sleep 0.2; done" </dev/null >/dev/null 2>&1 &
	VICTIM=$!
	trap 'kill $VICTIM 2>/dev/null || true; netsim_down' EXIT
	for i in $(seq 1 100); do [ -e "$T/agent/ready" ] && break; sleep 0.02; done
	# Not vacuous: the same kill, unjailed, from the same process group.
	_as_agent_user sh -c "trap '' USR1; kill -USR1 0"
	for i in $(seq 1 100); do [ -e "$T/agent/got" ] && break; sleep 0.02; done
	[ -e "$T/agent/got" ] || fail "a process-group signal does not reach the victim even unjailed"
	rm "$T/agent/got"
	# The agent's own trap shows its kill(0) ran and was delivered.
	jail_cmd -- sh -c "'$T/nolandlock' --check; trap 'echo own-got' USR1
		for i in \$(seq 1 200); do [ -e $T/go ] && break; sleep 0.05; done
		kill -USR1 0; sleep 0.2" >"$T/out" 2>"$T/err" &
	job=$!
	agent=$(agent_pid)
	[ "$(ps -o pgid= -p "$agent")" != "$(ps -o pgid= -p "$VICTIM")" ] ||
		fail "the agent shares its caller's process group"
	touch "$T/go"
	wait "$job" || fail "the jail failed: $(cat "$T/err")"
	expect_out "landlock errno ENOSYS"
	expect_out own-got
	sleep 0.3
	[ ! -e "$T/agent/got" ] || fail "the agent signalled a process of its user outside the jail"
}

# The attack (rootless, where the supervisor is the agent's uid, and
# --user root; on a kernel without Landlock scopes, as Debian 12's 6.1,
# hidden here): a child of the agent stops its whole process group,
# kill(0, SIGSTOP). The supervisor shared it and stopped: no host watch, no
# name expiry, no `deny`, no audit record while the agent's other
# processes ran on. The agent's group is its own: the stop reaches the
# agent alone, and the supervisor records what a process the stop did not
# reach (a session of its own) tries next.
test_attack_process_group_stop_never_stops_the_supervisor() {
	netsim_up
	hide_landlock
	# Writable for a --user root agent too: it has no CAP_DAC_OVERRIDE.
	mkdir -m 777 "$T/agent"
	local user=() job i pgid
	rootless || user=(--user root)
	cat >"$T/stop.sh" <<AGENT
'$T/nolandlock' --check >$T/agent/landlock
sleep 60 &
setsid sh -c 'touch $T/agent/apart
	for i in \$(seq 1 200); do [ -e $T/go ] && break; sleep 0.05; done
	$T/probe tcp:169.254.169.254:80 >$T/agent/probe.out' </dev/null >/dev/null 2>&1 &
for i in \$(seq 1 100); do [ -e $T/agent/apart ] && break; sleep 0.05; done
sh -c 'kill -STOP 0'
echo continued
AGENT
	# A process group of its own (set -m), so that where the attack works
	# it stops the jail, not this test.
	set -m
	jail_cmd "${user[@]}" -- sh "$T/stop.sh" >"$T/out" 2>"$T/err" &
	job=$!
	set +m
	SUP=$(supervisor_pid) AGENT=$(agent_pid)
	pgid=$(ps -o pgid= -p "$AGENT" | tr -d ' ')
	# Stopped processes act on nothing but SIGCONT and SIGKILL: all go on
	# before the teardown signals them.
	PGID=$pgid
	trap 'kill -CONT $SUP 2>/dev/null || true; kill -CONT -- -$PGID 2>/dev/null || true; netsim_down' EXIT
	# Not vacuous: the stop ran, and reached the agent's group.
	for i in $(seq 1 100); do [ "$(_state "$AGENT")" = T ] && break; sleep 0.05; done
	[ "$(_state "$AGENT")" = T ] || fail "the agent's kill(0, SIGSTOP) did not stop it: $(cat "$T/err")"
	[ "$(cat "$T/agent/landlock")" = "landlock errno ENOSYS" ] ||
		fail "Landlock is not hidden from the agent: $(cat "$T/agent/landlock")"
	sleep 0.3 # time enough for a supervisor in that group to stop
	[ "$(_state "$SUP")" != T ] || fail "the supervisor stopped with its agent's process group"
	touch "$T/go"
	for i in $(seq 1 100); do
		grep -q '"daddr": "169.254.169.254"' "$T/audit.jsonl" 2>/dev/null && break
		sleep 0.05
	done
	grep -q "\"daddr\": \"169.254.169.254\", \"dport\": 80, \"hook\": \"$HOOK4\", \"reason\": \"metadata\"" \
		"$T/audit.jsonl" || fail "no audit record of the next attempt: $(cat "$T/audit.jsonl" 2>/dev/null)"
	kill -CONT -- "-$pgid"
	wait "$job" || fail "the jail failed: $(cat "$T/err")"
	expect_out continued
	cat "$T/agent/probe.out" >>"$T/out"
	expect_denied tcp:169.254.169.254:80
}

# The attack: a root agent has its init's uid; ptrace, /proc/1/fd and
# /proc/1/environ would give it the init's descriptors (the supervisor's
# BPF maps, control socket, audit log, the host's network namespace).
# The init is not dumpable: stopped.
test_attack_root_agent_cannot_ptrace_or_read_its_init() {
	netsim_up
	jail --user root -- sh -c "'$T/probe' sys:ptrace:1; readlink /proc/1/fd/3 && echo fd-readable; cat /proc/1/environ >/dev/null && echo environ-readable; true"
	expect_rc 0
	expect_result sys:ptrace:1 EPERM
	expect_no_out fd-readable
	expect_no_out environ-readable
}

# Defence in depth: the init never execs, so close-on-exec closes nothing:
# it keeps every descriptor the supervisor had when it cloned it (BPF
# maps and programs, the control socket, the audit log and its
# directory, the host's and the jail's network namespaces, the cgroup).
# Were it ever reached, all of that would be. It needs 0-2 and its channel.
test_attack_init_holds_none_of_the_supervisors_descriptors() {
	netsim_up
	jail_cmd -- sleep 2 >"$T/out" 2>"$T/err" &
	local job=$! init i sup
	sup=$(supervisor_pid)
	for i in $(seq 1 100); do init=$(pgrep -P "$sup" -x ebpfjail-init) && break; sleep 0.05; done
	[ -n "$init" ] || fail "no init"
	local held
	held=$(ls -l "/proc/$init/fd" | grep -cE 'bpf-map|bpf-prog|net:\[|audit|/sys/fs/cgroup' || true)
	wait "$job" || true
	[ "$held" -eq 0 ] || fail "the init holds $held of the supervisor's descriptors"
}

# The attack: TIOCSTI through the x32 system call numbers (the same
# AUDIT_ARCH as x86-64), where a filter that looked only at the number
# would not match. libseccomp kills it: stopped.
test_attack_tiocsti_through_x32_numbers_is_refused() {
	netsim_up
	_atk
	jail -- sh -c "'$T/atk' x32; echo x32:\$?"
	expect_out "x32:159" # SIGSYS: killed by the filter
	expect_no_out x32-ioctl
}

# The attack: a storm of the agent's own stops and continues (a child of
# PID 2 runs kill -STOP 2; kill -CONT 2 in a loop), each one a message on
# the init's channel, to keep the supervisor busy and root's `ebpfjail
# deny` unanswered. Stopped: the supervisor answers within a second.
test_attack_stop_continue_storm_does_not_stall_the_supervisor() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/storm.sh" <<EOS
( while [ ! -e $T/agent/stop ]; do kill -STOP 2; kill -CONT 2; done ) &
for i in \$(seq 1 200); do [ -e $T/agent/stop ] && break; sleep 0.05; done; wait
EOS
	jail_cmd -- sh "$T/storm.sh" >"$T/out" 2>"$T/err" &
	local job=$! id k s ms i
	for i in $(seq 1 100); do # the jail's status, once it names the agent
		id=$(awk '$1 == "agent" { print FILENAME }' /run/ebpfjail/*/status 2>/dev/null | head -1)
		[ -n "$id" ] && break
		sleep 0.1
	done
	[ -n "$id" ] || { touch "$T/agent/stop"; fail "the jail's status never named its agent: $(cat "$T/err")"; }
	id=$(basename "$(dirname "$id")")
	sleep 2 # not readiness: the storm runs a while before the first deny
	for k in 1 2 3; do
		s=$(date +%s%N)
		timeout 5 "$EBPFJAIL" deny --jail "$id" "192.0.2.$k" >/dev/null 2>&1 || { touch "$T/agent/stop"; fail "deny failed during the storm"; }
		ms=$((($(date +%s%N) - s) / 1000000))
		[ "$ms" -lt 1000 ] || { touch "$T/agent/stop"; fail "deny took $ms ms during the storm"; }
	done
	touch "$T/agent/stop"
	wait "$job" || fail "the jail failed: $(cat "$T/err")"
}

# The same cgroup escape for the ordinary agent (uid 4242): root's files,
# 0644. Stopped by plain file permissions.
test_attack_user_agent_cannot_leave_its_cgroup() {
	netsim_up
	local cg
	cg=$(cgroup_mount)
	jail -- sh -c "echo \$\$ >$cg/cgroup.procs; echo \$\$ >$(jails_cgroup)/cgroup.procs; grep '^0::' /proc/self/cgroup"
	grep -qx "0::/" "$T/out" || fail "the agent left its cgroup: $(cat "$T/out")"
}

# --- second pass ------------------------------------------------------------

# _standin PATH MODE OWNER: a socket at PATH (in the test's own /run) that
# records a hit; for JAIL_SETUP, which fails if it does not listen
# (listening, not only bound: socat binds, sets the mode and owner, then
# listens, and a connect in between is refused; and its own socket, not
# the host's /run/systemd/private or another suite's of the same path)
_standin() {
	echo "mkdir -p $(dirname "$1") && { socat -U UNIX-LISTEN:$1,fork,mode=$2,user=$3 SYSTEM:'echo standin >>$T/hits; echo standin' </dev/null >/dev/null 2>&1 & standin=\$!; echo \$standin >>$T/standin.pid; } &&
		$(unix_listening_sh "$1" '$standin')"
}

# The attack: the unix hooks judge the string, and /tmp is the agent's own:
# `ln -s /run/dbus/system_bus_socket /tmp/bus` and connect to /tmp/bus.
# The kernel follows the link to the host's system bus (polkit's
# allow_active actions, NetworkManager, udisks, PackageKit), which is no
# user's socket and not in a private directory. A stand-in socket at the
# system bus's path stands for dbus-daemon. Stopped: it is masked (a
# /dev/null bound over it), so the link leads to no socket.
test_attack_link_in_tmp_does_not_reach_the_system_bus() {
	netsim_up
	trap 'kill $(cat $T/standin.pid 2>/dev/null) 2>/dev/null || true; netsim_down' EXIT
	# Not vacuous: there, unjailed, the agent's user reaches it by a link.
	JAIL_SETUP="mount -t tmpfs -o mode=755 tmpfs /run && $(_standin /run/dbus/system_bus_socket 666 root) &&
		ln -s /run/dbus/system_bus_socket $T/bus && setpriv --reuid 4242 --regid 4242 --clear-groups $T/probe unix:$T/bus:0 >$T/control" \
		jail -- sh -c "ln -s /run/dbus/system_bus_socket /tmp/bus; '$T/probe' unix:/run/dbus/system_bus_socket:0 unix:/tmp/bus:0
			stat -L -c 'bus:%F %t:%T' /tmp/bus"
	grep -Eq "^unix:$T/bus:0 (ok|sent) " "$T/control" || fail "the stand-in is not reached even unjailed: $(cat "$T/control")"
	expect_rc 0
	expect_result unix:/run/dbus/system_bus_socket:0 EPERM
	expect_result unix:/tmp/bus:0 ECONNREFUSED
	expect_out "bus:character special file 1:3" # /dev/null
	[ "$(hit_count standin 1)" -eq 1 ] || fail "the agent reached the host's system bus: $(cat "$T/hits")"
}

# The attack: a root agent (uid 0, no capabilities) owns every root-only
# socket: systemd's /run/systemd/private (0600 root: `systemctl` talks to
# PID 1 over it, StartTransientUnit runs anything as real root, outside the
# jail, on the host's network), and the system bus as uid 0. A link from
# /tmp passes the unix hooks. Stopped: it is masked, as the system bus is.
test_attack_root_agent_link_does_not_reach_systemds_private_socket() {
	netsim_up
	trap 'kill $(cat $T/standin.pid 2>/dev/null) 2>/dev/null || true; netsim_down' EXIT
	# Not vacuous: there, unjailed, root reaches it by a link.
	JAIL_SETUP="mount -t tmpfs -o mode=755 tmpfs /run && $(_standin /run/systemd/private 600 root) &&
		ln -s /run/systemd/private $T/pid1 && $T/probe unix:$T/pid1:0 >$T/control" \
		jail --user root -- sh -c "ln -s /run/systemd/private /tmp/pid1; '$T/probe' unix:/tmp/pid1:0
			stat -L -c 'pid1:%F %t:%T' /tmp/pid1"
	grep -Eq "^unix:$T/pid1:0 (ok|sent) " "$T/control" || fail "the stand-in is not reached even unjailed: $(cat "$T/control")"
	expect_rc 0
	expect_result unix:/tmp/pid1:0 ECONNREFUSED
	expect_out "pid1:character special file 1:3" # /dev/null
	[ "$(hit_count standin 1)" -eq 1 ] || fail "a root agent reached /run/systemd/private: $(cat "$T/hits")"
}

# Not a test, a limitation (docs/DESIGN.md, "Unix sockets"): a root agent,
# after the daemon of a masked socket restarted, reaches its new socket
# through a link from /tmp (bare under the mask; dropping the daemon's group
# does nothing for uid 0, which owns root:docker 0660). A root agent can
# change every root-owned file as well; the peer check would close it.

# The attack: `cd /tmp/work && ebpfjail run claude`. The check for the
# host's sockets reads the current directory alone; one a level down
# (TMUX_TMPDIR=/tmp/work: /tmp/work/tmux-UID/default, an editor's server
# socket in /tmp/work/.cache) is carried in with the tree, under /tmp/,
# which the unix hooks allow.
test_attack_carried_cwd_does_not_bring_a_socket_from_a_subdirectory() {
	netsim_up
	local d
	d=$(mktemp -d /tmp/ebpfjail-atk.XXXXXX)
	LEFT=$d
	trap 'netsim_down; rm -rf "$LEFT"' EXIT
	mkdir "$d/tmux-4242"
	chown -R 4242:4242 "$d"
	unix_serve "$d/tmux-4242/default" host-sock
	cd "$d"
	# Not vacuous: from there, unjailed, the agent's user reaches it.
	_as_agent_user "$T/probe" "unix:$d/tmux-4242/default:0" >"$T/control"
	grep -Eq "^unix:$d/tmux-4242/default:0 (ok|sent) " "$T/control" || fail "the socket is not reached even unjailed: $(cat "$T/control")"
	jail -- "$T/probe" "unix:$d/tmux-4242/default:0"
	cd "$T"
	# The jail refuses to start: the tree it would carry in holds a socket.
	expect_rc 125
	expect_err "the current directory $d holds the host's socket $d/tmux-4242/default"
	[ ! -s "$T/out" ] || fail "the agent ran: $(cat "$T/out")"
	[ "$(hit_count host-sock 1)" -eq 1 ] || fail "the carried cwd brought the host's socket in: $(cat "$T/hits")"
}

# The attack: a root agent on a hybrid host (cgroup v1 hierarchies beside
# cgroup2) writes to a v1 hierarchy's root: cgroup.procs (out of the
# jail), release_agent (a program the kernel runs as real root),
# notify_on_release. Stopped: /sys is read-only for it.
test_attack_root_agent_cannot_write_a_cgroup_v1_hierarchy() {
	netsim_up
	local v1 f
	v1=$(mount_of cgroup)
	[ -n "$v1" ] || skip "no cgroup v1 hierarchy here (a pure cgroup v2 host): nothing to write to"
	# Not vacuous: each is there and root's to write, unjailed.
	for f in cgroup.procs release_agent notify_on_release; do
		[ -w "$v1/$f" ] || fail "$v1/$f is not root's to write even unjailed"
	done
	jail --user root -- sh -c "for f in $v1/cgroup.procs $v1/release_agent $v1/notify_on_release; do
		echo \$\$ >\$f && echo wrote:\$f; done; true"
	expect_rc 0
	expect_no_out wrote:
	for f in cgroup.procs release_agent notify_on_release; do expect_err "$v1/$f: Read-only file system"; done
}

# The attack: a root agent mounts cgroup2 afresh in a user and cgroup
# namespace of its own, to see (and kill) the cgroups above its jail, or
# cgroup v1's named hierarchy (name=systemd, no controller: mountable in a
# user namespace) in a cgroup namespace rooted where the init stood in it,
# the host's root: the host's whole tree, root's files. Stopped: a new
# cgroup2 mount is rooted in its own cgroup, and in a user namespace of its
# own it is not root (uid 0 of the host may not be mapped there).
test_attack_root_agent_cannot_reach_the_host_cgroups_another_way() {
	netsim_up
	_atk
	jail --user root -- "$T/atk" cgroup-mount
	expect_rc 0
	expect_out "cgroup2-mount ok" # the attack ran: a mount of its own, listed
	expect_no_out "host-cgroup:"
	# mounted, then tried
	! grep -q '^cgroup1-mount ok' "$T/out" || expect_out "v1-mkdir "
	expect_no_out "v1-mkdir ok"
	expect_no_out "v1-move ok"
}

# The attack: the supervisor forwards its own signals to the init with
# sigqueue(JAILINIT_FORWARD); the init passes any such signal on to the
# agent, believing it came from the supervisor. A root agent queues one
# itself (SIGSTOP, its own pid as the value), or plain signals PID 1.
# Stopped: Landlock's signal scope (the init is outside the domain).
test_attack_root_agent_cannot_signal_its_init() {
	netsim_up
	_atk
	jail --user root -- "$T/atk" sigqueue-init
	expect_out "sigqueue-init Operation not permitted"
	expect_out "kill-init Operation not permitted"
}

# What crosses exec: only 0-2. A descriptor of the supervisor's (a BPF
# map, the control socket, the host's network namespace) would be the way
# out.
test_attack_agent_gets_no_descriptor_beyond_stdio() {
	netsim_up
	jail --user root -- sh -c 'for f in /proc/self/fd/*; do echo "fd $f $(readlink $f)"; done'
	expect_rc 0
	local n
	n=$(grep -c '^fd ' "$T/out")
	[ "$n" -le 4 ] || fail "the agent has more descriptors than stdio: $(cat "$T/out")" # 0-2 and the glob's directory
	! grep -E 'bpf-|net:\[|socket:|/control|cgroup' "$T/out" || fail "the agent inherited a descriptor: $(cat "$T/out")"
}

# The attack: rootless, the agent is its user, and the host's cgroup tree
# holds the user's other cgroups (systemd --user delegates them): writing
# cgroup.kill or a v1 freezer.state there would kill or freeze its user's
# other processes, and a cgroup2 it mounts itself (in a user and cgroup
# namespace of its own) is rooted where its cgroup namespace is. The
# jail runs in a cgroup delegated to its user (as systemd --user's are),
# so it gets one of its own there. The victims: a sleep in another v2
# cgroup of the user's and one in a v1 freezer cgroup of the user's.
test_rootless_agent_cannot_stop_its_users_other_processes() {
	netsim_up
	local v2 v1 box victim1 victim2
	box="$(cgroup_mount)/ebpfjail-test-box.$$"
	v2="$(cgroup_mount)/ebpfjail-test-victim.$$"
	mkdir "$box" "$v2" && chown -R 4242:4242 "$box" "$v2"
	v1=""
	if [ -d /sys/fs/cgroup/freezer ]; then
		v1=/sys/fs/cgroup/freezer/ebpfjail-test-victim.$$
		mkdir "$v1" && chown -R 4242:4242 "$v1"
	fi
	V2=$v2 V1=$v1 BOX=$box
	trap 'kill $(cat "$V2/cgroup.procs" 2>/dev/null) 2>/dev/null; [ -z "$V1" ] ||
		{ echo THAWED >"$V1/freezer.state"; kill $(cat "$V1/cgroup.procs") 2>/dev/null; }
		netsim_down; sleep 0.2; rmdir "$BOX/ebpfjail" "$BOX" "$V2" ${V1:+"$V1"} 2>/dev/null || true' EXIT
	setpriv --reuid 4242 --regid 4242 --clear-groups sleep 60 </dev/null >/dev/null 2>&1 &
	victim1=$!
	echo "$victim1" >"$v2/cgroup.procs"
	if [ -n "$v1" ]; then
		setpriv --reuid 4242 --regid 4242 --clear-groups sleep 60 </dev/null >/dev/null 2>&1 &
		victim2=$!
		echo "$victim2" >"$v1/cgroup.procs"
	fi
	JAIL_SETUP="echo \$\$ >$box/cgroup.procs" jail -- sh -c "
		# (not its own view's root: that is its jail's cgroup, the
		# agent's to stop)
		for f in \$(find /sys/fs/cgroup -mindepth 2 \( -name cgroup.kill -o -name cgroup.freeze \
			-o -name freezer.state \) 2>/dev/null); do
			echo 1 >\$f 2>/dev/null && echo wrote \$f
			echo FROZEN >\$f 2>/dev/null && echo wrote \$f
		done
		unshare -Ucm --map-root-user sh -c 'mount -t cgroup2 none /sys/fs/cgroup &&
			for f in \$(find /sys/fs/cgroup -mindepth 2 -name cgroup.kill); do
				echo 1 >\$f && echo wrote \$f; done' 2>/dev/null
		true"
	expect_rc 0
	expect_no_out wrote
	[ -z "$(ls -A "$box/ebpfjail" 2>/dev/null)" ] || fail "the jail's cgroup stayed: $(ls "$box/ebpfjail")"
	alive "$victim1" || fail "the agent killed its user's process in a v2 cgroup"
	if [ -n "$v1" ]; then
		alive "$victim2" || fail "the agent killed its user's process in a v1 cgroup"
		[ "$(cat "$v1/freezer.state")" = THAWED ] || fail "the agent froze its user's v1 cgroup"
	fi
}

# The attack: the rootless audit log is its user's file, under
# ~/.local/state, read-only in the agent's view; renaming a directory above
# it would carry the read-only mount away, and the agent would put a log
# of its own where its user looks. And the same with the state directory,
# when the runtime directory is in the user's home: a control socket of
# the agent's where its user's `ebpfjail deny` goes.
test_rootless_agent_cannot_move_the_audit_log_or_the_state_away() {
	netsim_up
	sed -i '/^audit-log = /d' "$T/jail.conf" # the default: ~/.local/state/ebpfjail
	mkdir -p "$T/home/run" && chown 4242:4242 "$T/home/run" && chmod 700 "$T/home/run"
	JAIL_XDG=$T/home/run jail -- sh -c "
		'$T/probe' tcp:10.23.0.2:22 >/dev/null
		cd '$T/home'
		for d in .local/state/ebpfjail .local/state .local run/ebpfjail run; do
			mv \$d \$d.moved 2>/dev/null && echo moved \$d
		done
		true"
	expect_rc 0
	expect_no_out moved
	[ ! -e "$T/home/.local.moved" ] && [ ! -e "$T/home/.local/state.moved" ] &&
		[ ! -e "$T/home/run.moved" ] || fail "a directory was moved: $(ls -a "$T/home" "$T/home/.local")"
	grep -q '"daddr": "10.23.0.2", "dport": 22' "$T/home/.local/state/ebpfjail/audit.jsonl" ||
		fail "the denial is not where its user looks: $(find "$T/home" -name 'audit*')"
}
