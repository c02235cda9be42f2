# test_agentfs.sh - the agent's view of the file system: private /tmp,
# /dev/shm and /run/user, masked daemon sockets, unix-socket, share-tmp

# _as_user CMD...: CMD as uid 4242, the agent's user, outside the jail
_as_user() { setpriv --reuid 4242 --regid 4242 --clear-groups "$@"; }

# _host_tmp_dir NAME: a directory of the host's /tmp (0755, so the agent's
# user could reach it were /tmp not private), in DIR, removed at exit
_host_tmp_dir() {
	DIR=$(mktemp -d "/tmp/ebpfjail-$1.XXXXXX")
	chmod 755 "$DIR"
	trap 'netsim_down; rm -rf "$DIR"' EXIT
}

# The attack: the user's tmux server outside the jail runs what a client
# asks (run-shell), as the user, with the host's network.
test_users_tmux_server_is_out_of_reach() {
	netsim_up
	command -v tmux >/dev/null || fail "tmux missing: scripts/deps.sh installs it"
	DIR=$(mktemp -d /tmp/ebpfjail-tmux.XXXXXX)
	chown 4242:4242 "$DIR"
	mkdir "$T/agent" && chown 4242 "$T/agent"
	trap '_as_user tmux -S "$DIR/default" kill-server 2>/dev/null || true; rm -rf "$DIR"; netsim_down' EXIT
	_as_user env -i PATH="$PATH" HOME=/ tmux -S "$DIR/default" new-session -d "sleep 120"
	# Not vacuous: a client of the user outside the jail gets it done.
	_as_user env -i PATH="$PATH" HOME=/ tmux -S "$DIR/default" run-shell "touch $T/agent/control"
	[ -e "$T/agent/control" ] || fail "run-shell does not work even unjailed"
	jail -- sh -c "tmux -S '$DIR/default' run-shell 'touch $T/agent/pwned'; echo tmux:\$?"
	expect_out "tmux:1"
	sleep 0.2
	[ ! -e "$T/agent/pwned" ] || fail "the agent ran a command through the user's tmux server"
}

# The same for any socket server of the user's session in /tmp, /dev/shm
# or /run/user/UID (the session bus, systemd --user, Wayland, agents).
test_session_sockets_in_the_private_directories_are_out_of_reach() {
	netsim_up
	local dir shm
	dir=$(mktemp -d /tmp/ebpfjail-bus.XXXXXX)
	chmod 755 "$dir" # the user's to reach, were it not private
	shm=/dev/shm/ebpfjail-it.$$.sock
	LEFT="$dir $shm"
	trap 'netsim_down; rm -rf $LEFT' EXIT
	unix_serve "$dir/bus" tmp-bus
	unix_serve "$shm" shm-sock
	# /run/user/4242 in the test's own mount namespace, with its server.
	JAIL_SETUP="mount -t tmpfs -o mode=755 tmpfs /run/user && mkdir -m 700 /run/user/4242 &&
		chown 4242:4242 /run/user/4242 && { socat -U UNIX-LISTEN:/run/user/4242/bus,fork,mode=777 \
		SYSTEM:'echo user-bus >>$T/hits; echo user-bus' </dev/null >/dev/null 2>&1 & echo \$! >$T/bus.pid; } &&
		$(unix_listening_sh /run/user/4242/bus "\$(cat $T/bus.pid)") &&
		$T/probe unix:/run/user/4242/bus:0 >$T/control" \
		jail -- sh -c "'$T/probe' unix:$dir/bus:0 unix:$shm:0 unix:/run/user/4242/bus:0; echo tmp:\$(ls -A /tmp /dev/shm); stat -c '%u %a' /run/user/4242"
	kill "$(cat "$T/bus.pid")" 2>/dev/null || true
	grep -q ' ok ' "$T/control" || fail "the /run/user server does not answer: $(cat "$T/control")"
	expect_rc 0
	expect_result "unix:$dir/bus:0" ENOENT
	expect_result "unix:$shm:0" ENOENT
	expect_result unix:/run/user/4242/bus:0 ENOENT
	expect_out "tmp:/dev/shm: /tmp:" # both empty
	expect_out "4242 700" # the agent's own runtime directory
	expect_no_hit tmp-bus
	expect_no_hit shm-sock
	[ "$(grep -c user-bus "$T/hits")" -eq 1 ] || fail "the agent reached the session bus: $(cat "$T/hits")"
}

# The attack: the agent's user is in group docker, and docker.sock (root's,
# group docker, 0660) starts a privileged container. Masked, and the group
# dropped: neither the path nor a link to it nor the group reaches it.
test_root_granting_daemon_socket_is_masked() {
	netsim_up
	chmod 755 "$T"
	cp -a /etc "$T/etc"
	cp "$T/resolv.conf" "$T/etc/resolv.conf"
	mkdir -p "$T/home"
	echo "jailtest:x:4242:4242::$T/home:/bin/sh" >>"$T/etc/passwd"
	echo "docker:x:4243:jailtest" >>"$T/etc/group"
	socat -U UNIX-LISTEN:"$T/docker.sock",fork SYSTEM:"echo docker >>$T/hits; echo docker" </dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	local i # the waiting loop's
	eval "$(unix_listening_sh "$T/docker.sock" $!)" || fail "nothing listens at $T/docker.sock"
	chgrp 4243 "$T/docker.sock" && chmod 660 "$T/docker.sock"
	# /run/docker.sock in the test's own mount namespace only.
	JAIL_SETUP="mount --bind $T/etc /etc && mount -t tmpfs -o mode=755 tmpfs /run &&
		touch /run/docker.sock && mount --bind $T/docker.sock /run/docker.sock &&
		setpriv --reuid 4242 --regid 4242 --init-groups $T/probe unix:/run/docker.sock:0 >$T/control" \
		jail -- sh -c "id -G; ln -s /run/docker.sock /tmp/d.sock; '$T/probe' unix:/run/docker.sock:0 unix:/var/run/docker.sock:0 unix:/tmp/d.sock:0"
	grep -q ' ok ' "$T/control" || fail "the group does not open the socket even unjailed: $(cat "$T/control")"
	expect_rc 0
	expect_no_out 4243 # the group that opens the socket is not the agent's
	for s in /run/docker.sock /var/run/docker.sock /tmp/d.sock; do
		r=$(result "unix:$s:0")
		[ "$r" = ECONNREFUSED ] || [ "$r" = EPERM ] || fail "unix:$s: $r"
	done
	[ "$(grep -c docker "$T/hits")" -eq 1 ] || fail "the agent reached docker.sock: $(cat "$T/hits")"
}

# unix-socket = PATH: that one socket of the host's /tmp, nothing beside it.
test_unix_socket_carries_one_socket_into_the_jail() {
	netsim_up
	_host_tmp_dir agent
	local dir=$DIR
	unix_serve "$dir/agent.sock" ssh-agent
	unix_serve "$dir/other.sock" other
	chown 4242 "$dir/agent.sock"
	echo "unix-socket = $dir/agent.sock" >>"$T/jail.conf"
	jail -- "$T/probe" "unix:$dir/agent.sock:0" "unix:$dir/other.sock:0"
	expect_rc 0
	expect_result "unix:$dir/agent.sock:0" ok
	expect_result "unix:$dir/other.sock:0" ENOENT
	expect_no_hit other
	# Another user's socket is never carried in for the agent.
	chown 4343 "$dir/agent.sock"
	jail -- /bin/true
	expect_rc 125
	expect_err "belongs to uid 4343"
	expect_no_leftovers
}

# share-tmp = on: the host's /tmp, as before ebpfjail had private ones.
test_share_tmp_on_shares_the_hosts_tmp() {
	netsim_up
	_host_tmp_dir share
	local dir=$DIR
	unix_serve "$dir/sock" shared
	echo "share-tmp = on" >>"$T/jail.conf"
	jail -- "$T/probe" "unix:$dir/sock:0"
	expect_rc 0
	expect_result "unix:$dir/sock:0" ok
}

# A project in /tmp keeps its path in the jail.
test_project_in_tmp_keeps_its_path() {
	netsim_up
	_host_tmp_dir proj
	local dir=$DIR
	echo hello >"$dir/file"
	chown -R 4242 "$dir"
	cd "$dir"
	jail -- sh -c "pwd; cat $dir/file; echo new >$dir/made"
	cd "$T"
	expect_rc 0
	expect_out "$dir"
	expect_out hello
	[ "$(cat "$dir/made")" = new ] || fail "the agent's write did not reach the project"
}

# Everyday lookups (glibc asks nscd and systemd's userdb on every user or
# group lookup) are no denials: each would be an audit record and a
# suggestion to open a root daemon's socket.
test_everyday_lookups_leave_no_unix_denials() {
	netsim_up
	jail -- sh -c 'id; ls -l / >/dev/null; getent passwd root >/dev/null; getent group root >/dev/null; getent hosts localhost >/dev/null; echo done'
	expect_rc 0
	expect_out done
	! grep -q '"reason": "unix"' "$T/audit.jsonl" 2>/dev/null || fail "unix denials: $(grep unix "$T/audit.jsonl")"
	expect_no_out "unix-socket ="
}

# The attack: GNU screen's sessions live in /run/screen/S-USER, outside
# the private directories; a session runs what a client asks. The unix
# hooks refuse the path itself, but a link from the agent's /tmp passes
# them (they judge the string): the directory is hidden.
test_screen_sessions_are_hidden() {
	netsim_up
	JAIL_SETUP="mount -t tmpfs -o mode=755 tmpfs /run && mkdir -p -m 777 /run/screen/S-jailtest &&
		{ socat -U UNIX-LISTEN:/run/screen/S-jailtest/1.pts-0,fork,mode=777 \
		SYSTEM:'echo screen >>$T/hits; echo screen' </dev/null >/dev/null 2>&1 & echo \$! >$T/screen.pid; } &&
		$(unix_listening_sh /run/screen/S-jailtest/1.pts-0 "\$(cat $T/screen.pid)") &&
		$T/probe unix:/run/screen/S-jailtest/1.pts-0:0 >$T/control" \
		jail -- sh -c "ln -s /run/screen/S-jailtest/1.pts-0 /tmp/s; '$T/probe' unix:/tmp/s:0; ls -A /run/screen; echo done"
	kill "$(cat "$T/screen.pid")" 2>/dev/null || true
	grep -q ' ok ' "$T/control" || fail "the screen stand-in does not answer: $(cat "$T/control")"
	expect_rc 0
	expect_out done
	expect_result unix:/tmp/s:0 ENOENT
	[ "$(grep -c screen "$T/hits")" -eq 1 ] || fail "the agent reached a screen session: $(cat "$T/hits")"
}

# The attack: started from a directory of the host's sockets (/tmp/tmux-UID,
# /tmp/.X11-unix, /run/user/UID) or one above them (TMUX_TMPDIR=/tmp/work),
# the jail would carry them in with the current directory, under a prefix
# the Unix hooks allow. Refused.
test_current_directory_with_host_sockets_is_refused() {
	netsim_up
	_host_tmp_dir cwd
	local dir=$DIR
	mkdir "$dir/tmux-4242" "$dir/project"
	unix_serve "$dir/tmux-4242/default" tmux
	cd "$dir"
	jail -- "$T/probe" unix:tmux-4242/default:0 "unix:$dir/tmux-4242/default:0"
	cd "$T"
	expect_rc 125
	expect_err "holds the host's socket $dir/tmux-4242/default"
	[ ! -s "$T/out" ] || fail "the agent ran: $(cat "$T/out")"
	cd "$dir/project" # beside the socket, not above it: fine
	jail -- /bin/true
	cd "$T"
	expect_rc 0
	[ ! -s "$T/out" ] || fail "the agent ran: $(cat "$T/out")"
	JAIL_SETUP="mount -t tmpfs tmpfs /run/user && mkdir -m 700 /run/user/4242 &&
		chown 4242 /run/user/4242 && cd /run/user/4242" jail -- /bin/true
	expect_rc 125
	expect_err "is in /run/user"
	expect_no_hit tmux
	expect_no_leftovers
}
