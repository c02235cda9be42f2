# netsim.sh - the simulated network the jail tests run in (sourced)
#
#   inet  203.0.113.1/24 (the host's default gateway, with a DNS server on
#         UDP and TCP 53, as home routers have), 198.51.100.7 web and UDP
#         echo ("the internet")
#   host  203.0.113.2/24 towards inet, default via 203.0.113.1
#         10.23.0.1/24 towards lan, 198.18.0.0/15 routed via the LAN (a VPN-
#         like internal route), docker0 172.17.0.1/16 (a docker-like
#         bridge), services on 127.0.0.1:5432, 172.17.0.1:8080 and
#         203.0.113.2:2222; AnyIP 192.0.2.0/24 (the host answers for it
#         itself) with a service on 192.0.2.10:80; resolv.conf names
#         10.23.0.53
#   inet  also 203.0.113.77, a neighbour on the host's connected network
#   lan   10.23.0.2/24: ssh-like 10.23.0.2:22, metadata 169.254.169.254:80,
#         DNS 10.23.0.53:53 (UDP and TCP echo: the host's resolver),
#         internal 198.18.0.10:443,
#         UDP 10.23.0.2:5000
# Every namespace is held by a "sleep" started with unshare: killing the
# holders removes the namespaces and everything in them. Nothing is named in
# /run/netns. Every listener that must stay silent logs what reaches it to
# $T/hits, so a test can prove a denied packet never arrived.

NETSIM_PIDS=()
NETSIM_LISTENERS=()

# The listen backlog of the simulated hosts' TCP servers: a real server's
# (nginx's 511, SOMAXCONN for Go's and systemd's), not socat's default of 5.
# socat accepts and forks one connection at a time, and clients that
# connect and close at once (test_dns.sh's hammer) outrun it on a busy
# machine: with 5 the LAN's kernel dropped their SYNs. Debian 12's pasta
# then resets the agent's retransmitted SYN while its own connect is still
# retrying (an RST without ACK, which a SYN_SENT socket ignores), so the
# agent's connect waited for its 3 s retry: a loss in the simulated
# network that looked like the jail's.
LISTEN_BACKLOG=1024

# _holder VAR: a new network namespace, held by a sleep whose pid goes in VAR
_holder() {
	unshare --net -- sleep 3600 </dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	printf -v "$1" %s $!
}

in_ns() { local pid=$1; shift; nsenter -t "$pid" -n -- "$@"; }

# _serve NS PROTO ADDR PORT NAME: a listener answering "NAME", logging hits
_serve() {
	local ns=$1 proto=$2 addr=$3 port=$4 name=$5 listen
	case $proto in
	tcp) listen="TCP-LISTEN:$port,bind=$addr,fork,reuseaddr,backlog=$LISTEN_BACKLOG" ;;
	udp) listen="UDP-RECVFROM:$port,bind=$addr,fork" ;;
	esac
	# A UDP server's shell reads the datagram before it answers: one that
	# exits first makes socat's write of it fail (EPIPE), and socat then
	# ends without sending the answer (1 probe in 500 under load needed a
	# retry).
	local answer="echo $name >>$T/hits; echo $name"
	[ "$proto" = udp ] && answer="head -c1 >/dev/null; $answer"
	_expect_listener "$ns" "$proto" "$addr" "$port"
	# nsenter execs socat: $! is the listener itself, so netsim_down kills it
	nsenter -t "$ns" -n -- socat "$listen" SYSTEM:"$answer" \
		</dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
}

# _resolver: the host's resolver, a real one (dnsmasq) on 10.23.0.54 in the
# LAN, UDP and TCP, every query logged to $T/dns.log. Its names: an
# internal forge (TTL 1 h), a name with TTL 1 s, two wildcards
# (*.wild.lan.test on the LAN, *.wild.example.test on the internet, TTL
# 1 s), an internet host, a name pointing at the
# metadata service, two CNAMEs (alias.lan.test to forge.lan.test, its own
# zone; lapsed.lan.test to forge.vendor.test, another zone's name for the
# forge's address), and moving.lan.test, whose address is the first line
# of $T/moving.hosts (TTL 1 s; resolver_move rewrites it).
_resolver() {
	printf '10.23.0.83 moving.lan.test\n' >"$T/moving.hosts"
	: >"$T/more.hosts"
	nsenter -t "$LAN" -n -- dnsmasq --keep-in-foreground --conf-file=/dev/null --no-resolv \
		--no-hosts --listen-address=10.23.0.54 --bind-interfaces --port=53 --user=root \
		--pid-file= --log-queries --log-facility="$T/dns.log" --local-ttl=1 \
		--host-record=forge.lan.test,10.23.0.80,3600 --host-record=short.lan.test,10.23.0.81,1 \
		--host-record=web.example.test,198.51.100.7,3600 \
		--host-record=meta.lan.test,169.254.169.254,3600 \
		--host-record=forge.vendor.test,10.23.0.80,3600 \
		--cname=alias.lan.test,forge.lan.test --cname=lapsed.lan.test,forge.vendor.test \
		--address=/wild.lan.test/10.23.0.82 --address=/wild.example.test/198.51.100.7 \
		--addn-hosts="$T/moving.hosts" \
		--addn-hosts="$T/more.hosts" \
		--synth-domain=bench.test,11.0.0.0/16,h- \
		</dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	RESOLVER_PID=$!
	_expect_listener "$LAN" udp 10.23.0.54 53
	_expect_listener "$LAN" tcp 10.23.0.54 53
}

# lan_echo ADDR PORT: a TCP echo server on the LAN's ADDR:PORT, once bound
lan_echo() {
	nsenter -t "$LAN" -n -- socat TCP-LISTEN:"$2",bind="$1",fork,reuseaddr,backlog=$LISTEN_BACKLOG \
		EXEC:cat \
		</dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	_expect_listener "$LAN" tcp "$1" "$2"
	_wait_listening "$LAN"
}

# anyip_lan: every address of 10.23.16.0/20 is the LAN's own (a local
# route), with a TCP echo server on port 7 of each, and the host routes
# the prefix to the LAN
anyip_lan() {
	in_ns "$LAN" ip route add local 10.23.16.0/20 dev lo
	in_ns "$HOST" ip route add 10.23.16.0/20 via 10.23.0.2
	lan_echo 0.0.0.0 7
}

# lan_listen_drops: the connection requests the LAN's listeners dropped so
# far (TcpExtListenDrops of its namespace: a SYN that found its listen queue
# full), so that a test can tell a loss in the simulated network from one
# in the jail
lan_listen_drops() {
	in_ns "$LAN" awk '/^TcpExt:/ {
		if (!head) { for (i = 2; i <= NF; i++) name[i] = $i; head = 1; next }
		for (i = 2; i <= NF; i++) if (name[i] == "ListenDrops") print $i
	}' /proc/net/netstat
}

# resolver_move ADDR: moving.lan.test answers ADDR from now on
resolver_move() {
	printf '%s moving.lan.test\n' "$1" >"$T/moving.hosts"
	kill -HUP "$RESOLVER_PID"
	local i
	for i in $(seq 1 50); do
		[ "$(in_ns "$LAN" dig +short +tries=1 +time=1 @10.23.0.54 moving.lan.test)" = "$1" ] &&
			return 0
		sleep 0.05
	done
	fail "the resolver did not move moving.lan.test to $1"
}

# resolver_hosts < HOSTS: the resolver's names from now on include these
# hosts(5) lines; returns once it answers for the first name of the last
resolver_hosts() {
	cat >"$T/more.hosts"
	local name i
	name=$(tail -n 1 "$T/more.hosts" | awk '{ print $2 }')
	kill -HUP "$RESOLVER_PID"
	for i in $(seq 1 50); do
		[ -n "$(in_ns "$LAN" dig +short +tries=1 +time=1 @10.23.0.54 "$name")" ] && return 0
		sleep 0.05
	done
	fail "the resolver did not take the new hosts"
}

# resolver_saw NAME: the host's resolver was asked for NAME
resolver_saw() {
	grep -q "query\[[A-Z]*\] $1 from" "$T/dns.log" 2>/dev/null
}

# _wait_listening NS: until every listener _serve (or _expect_listener)
# started in namespace NS is bound, address and port each, UDP or TCP
_wait_listening() {
	local ns=$1 i w have missing
	for i in $(seq 1 100); do
		have=$(in_ns "$ns" ss -H -ltun | awk '{ print $1, $5 }')
		missing=
		for w in "${NETSIM_LISTENERS[@]}"; do
			[ "${w%% *}" = "$ns" ] || continue
			# a whole line of ss's, matched by bash (no grep per listener)
			[[ $'\n'$have$'\n' == *$'\n'"${w#* }"$'\n'* ]] || missing="$missing ${w#* }"
		done
		[ -z "$missing" ] && return 0
		sleep 0.05
	done
	fail "listeners in namespace $ns did not come up:$missing"
}

# _expect_listener NS PROTO ADDR PORT: _wait_listening NS waits for it too
_expect_listener() { NETSIM_LISTENERS+=("$1 $2 $3:$4"); }

# unix_serve PATH NAME: a "run this" socket server at PATH (mode 0777)
# that answers NAME and logs each connection in $T/hits, once it listens.
# -U (only the answer flows): its shell exits without reading, and socat
# writing the client's "ping" into it got EPIPE and quit before the
# answer, 29 connections of 300 here. Every Unix-socket server of the
# suites runs so.
unix_serve() {
	socat -U UNIX-LISTEN:"$1",fork,mode=777 SYSTEM:"echo $2 >>$T/hits; echo $2" </dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	local i # the waiting loop's
	eval "$(unix_listening_sh "$1" $!)" || fail "nothing listens at $1"
}

# unix_listening_sh PATH PID: shell code (for sh too: JAIL_SETUP) that waits
# up to 5 s until process PID (a number, or shell code for one) holds a
# socket that listens at PATH (an abstract name as @NAME), and fails if it
# does not. Not [ -S PATH ]: the file appears at bind(), and socat chmods
# it (mode=) before listen(); a connect in between is refused (the
# /run/user test's control probe got ECONNREFUSED so, once, in make
# check-fresh). PID's own socket: /proc/net/unix lists the sockets of
# every mount namespace (a real /run/docker.sock, another suite's server).
# PATH without spaces, quotes or backslashes. The code sets i: a bash
# caller makes it local.
unix_listening_sh() {
	local listens='ls -l /proc/@PID@/fd 2>/dev/null | sed -n "s/.*socket:\[\([0-9]*\)\]\$/\1/p" |
		awk -v p="@PATH@" '\''FILENAME == "-" { own[$1]; next }
		$4 == "00010000" && $8 == p && ($7 in own) { f = 1 } END { exit !f }'\'' - /proc/net/unix'
	listens=${listens//@PID@/$2}
	printf '{ for i in $(seq 1 250); do %s && break; sleep 0.02; false; done; }' "${listens//@PATH@/$1}"
}

# host_probe_serve SPEC OUT: a probe server (rstserve, holdserve, reqserve)
# on the simulated host's SPEC, its output to OUT, once it says "listening"
host_probe_serve() {
	nsenter -t "$HOST" -n -- "$T/probe" "$1" >"$2" &
	NETSIM_PIDS+=($!)
	local i
	for i in $(seq 1 100); do grep -q listening "$2" 2>/dev/null && return 0; sleep 0.02; done
	fail "probe $1 on the host did not listen: $(cat "$2")"
}

# own_netns PID: PID lives, in a network namespace other than this shell's
own_netns() {
	local ns
	ns=$(readlink "/proc/$1/ns/net") && [ "$ns" != "$(readlink /proc/self/ns/net)" ]
}

netsim_up() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	command -v socat >/dev/null || fail "socat missing: scripts/deps.sh installs it"
	_holder HOST
	_holder INET
	_holder LAN
	local i
	for i in $(seq 1 100); do # until unshare has made the namespaces
		own_netns "$LAN" && own_netns "$HOST" && own_netns "$INET" && break
		sleep 0.02
	done
	# Never on: what follows would configure the machine's own namespace.
	own_netns "$LAN" && own_netns "$HOST" && own_netns "$INET" ||
		fail "the simulated host, internet and LAN got no network namespaces in 2 s"
	: >"$T/hits"
	chmod 755 "$T"
	# One ip per namespace (ip -batch stops at the first command that
	# fails): an exec each was most of a test's setup on a busy machine.
	in_ns "$HOST" ip -batch - <<-EOF
		link add h-inet type veth peer name inet0 netns $INET
		link add h-lan type veth peer name lan0 netns $LAN
		link set lo up
		addr add 203.0.113.2/24 dev h-inet
		link set h-inet up
		addr add 10.23.0.1/24 dev h-lan
		link set h-lan up
		route add default via 203.0.113.1
		route add 198.18.0.0/15 via 10.23.0.2
		link add docker0 type bridge
		addr add 172.17.0.1/16 dev docker0
		link set docker0 up
		route add local 192.0.2.0/24 dev lo
	EOF
	in_ns "$INET" ip -batch - <<-EOF
		link set lo up
		addr add 203.0.113.1/24 dev inet0
		link set inet0 up
		addr add 203.0.113.77/24 dev inet0
		addr add 198.51.100.7/32 dev lo
		route add 10.23.0.0/24 via 203.0.113.2
	EOF
	in_ns "$LAN" ip -batch - <<-EOF
		link set lo up
		addr add 10.23.0.2/24 dev lan0
		link set lan0 up
		addr add 169.254.169.254/32 dev lo
		addr add 10.23.0.53/32 dev lo
		addr add 10.23.0.54/32 dev lo
		addr add 10.23.0.80/32 dev lo
		addr add 10.23.0.81/32 dev lo
		addr add 10.23.0.82/32 dev lo
		addr add 10.23.0.83/32 dev lo
		addr add 10.23.0.84/32 dev lo
		addr add 198.18.0.10/32 dev lo
		route add default via 10.23.0.1
	EOF
	_serve "$INET" tcp 198.51.100.7 80 inet-web
	_serve "$INET" udp 198.51.100.7 7 inet-echo
	_serve "$INET" tcp 203.0.113.1 80 gateway-web
	_serve "$INET" udp 203.0.113.1 53 gateway-dns
	_serve "$INET" tcp 203.0.113.1 53 gateway-dns-tcp
	_serve "$INET" tcp 203.0.113.77 80 inet-neighbour
	_serve "$LAN" tcp 10.23.0.2 22 lan-ssh
	_serve "$LAN" tcp 169.254.169.254 80 metadata
	_serve "$LAN" udp 10.23.0.53 53 lan-dns
	_serve "$LAN" tcp 10.23.0.53 53 lan-dns-tcp
	_serve "$LAN" tcp 198.18.0.10 443 vpn-internal
	_serve "$LAN" udp 10.23.0.2 5000 lan-udp
	_serve "$LAN" tcp 10.23.0.80 22 forge-ssh
	_serve "$LAN" tcp 10.23.0.80 80 forge-web
	_serve "$LAN" udp 10.23.0.80 5000 forge-udp
	_serve "$LAN" tcp 10.23.0.81 80 short-web
	_serve "$LAN" tcp 10.23.0.82 80 wild-web
	_serve "$LAN" tcp 10.23.0.83 80 moved-web
	_serve "$LAN" tcp 10.23.0.84 80 moved-web2
	_resolver
	_serve "$HOST" tcp 127.0.0.1 5432 host-loopback
	_serve "$HOST" tcp 172.17.0.1 8080 docker-bridge
	_serve "$HOST" tcp 203.0.113.2 2222 host-addr
	_serve "$HOST" tcp 192.0.2.10 80 host-anyip
	_wait_listening "$INET"
	_wait_listening "$LAN"
	_wait_listening "$HOST"
	printf 'search example.test lan.test\nnameserver 10.23.0.54\noptions ndots:1\n' >"$T/resolv.conf"
	printf 'audit-log = %s/audit.jsonl\nlocal-model-port = 0\n' "$T" >"$T/jail.conf"
	private_varlib
	cp "$BUILD/probe" "$T/probe"
	chmod 755 "$T/probe"
	# For the agent to run: the build may be under /tmp (a clone there),
	# which the agent sees as its own empty one.
	cp "$EBPFJAIL" "$T/ebpfjail"
	chmod 755 "$T/ebpfjail"
	# The hook an IPv4 socket's denial names: connect4 (or sendmsg4), or
	# the rootless engine's output hook, which sees packets, not calls.
	# Who owns the jail (its policy records' uid): root, or its user.
	HOOK4=connect4 OWNER_UID=0
	rootless && rootless_up && HOOK4=output OWNER_UID=4242
	return 0
}

# rootless: the suite's rootless pass (run.sh ROOTLESS=1): `ebpfjail run`
# as an unprivileged user, uid 4242 without sudo, with the rootless engine
rootless() { [ "${ROOTLESS:-}" = 1 ]; }

# rootless_up: what the user has: a home, a runtime directory ($T/xdg, not
# under /run/user: the agent must not see it even there), its own audit
# log ($T/u, linked as $T/audit.jsonl for the tests), and a /dev/net/tun
# it may open (this machine's is root's 0600; Debian's udev makes it 0666)
rootless_up() {
	mknod -m 0666 "$T/tun" c 10 200
	mkdir -p "$T/home" "$T/xdg" "$T/u"
	chown 4242:4242 "$T/home" "$T/xdg" "$T/u"
	chmod 700 "$T/xdg" "$T/u"
	sed -i "s|^audit-log = .*|audit-log = $T/u/audit.jsonl|" "$T/jail.conf"
	ln -s u/audit.jsonl "$T/audit.jsonl"
}

# jail_state: where the running jails keep their state (status, control)
jail_state() { if rootless; then echo "$T/xdg/ebpfjail"; else echo /run/ebpfjail; fi; }

# as_user CMD...: CMD as the jail's owner: root, or in the rootless pass
# uid 4242 with its runtime directory (status, reload, allow, deny, audit)
as_user() {
	if rootless; then
		setpriv --reuid 4242 --regid 4242 --clear-groups -- env HOME="$T/home" \
			XDG_RUNTIME_DIR="$T/xdg" "$@"
	else
		"$@"
	fi
}

# _kill_tree PID...: each PID and everything below it, the deepest first
# (a background jail is a few execs and forks deep; its supervisor forwards
# SIGTERM to the agent). One ps for the whole tree: a ps per process was a
# large part of the suite's time, as every test ends with its listeners here.
_kill_tree() {
	local pids
	[ $# -gt 0 ] || return 0
	pids=$(ps -eo pid=,ppid= | awk -v roots="$*" '
		function walk(p,   n, kid, i) {
			n = split(kids[p], kid, " ")
			for (i = 1; i <= n; i++) walk(kid[i])
			print p
		}
		{ kids[$2] = kids[$2] " " $1 }
		END { n = split(roots, root, " "); for (i = 1; i <= n; i++) walk(root[i]) }')
	[ -z "$pids" ] || kill $pids 2>/dev/null || true
}

# _debug_shell: with DEBUG=1 and a terminal, an interactive shell inside the
# simulated host before anything is torn down (as xdp-tools' DEBUG_TESTENV):
# the jail, its namespaces and $T are still there to look at. $HOST, $INET,
# $LAN (pids: nsenter -t PID -n) and $T are set in it.
_debug_shell() {
	[ "${DEBUG:-}" = 1 ] && [ -n "${HOST:-}" ] || return 0
	{ : </dev/tty; } 2>/dev/null || return 0
	echo "DEBUG: a shell in the simulated host (HOST=$HOST INET=$INET LAN=$LAN T=$T);" \
		"exit it to tear down" >/dev/tty
	HOST=$HOST INET=$INET LAN=$LAN T=$T nsenter -t "$HOST" -n -- bash -i </dev/tty >/dev/tty 2>&1 || true
}

netsim_down() {
	local p
	_debug_shell
	# A jail a failed test left running in the background goes first.
	_kill_tree $(jobs -p)
	for p in "${NETSIM_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	NETSIM_PIDS=()
	NETSIM_LISTENERS=()
}

# jail_cmd [RUN-OPTIONS] -- COMMAND...: `ebpfjail run` inside the simulated
# host, with its resolv.conf, as uid 4242 (as if through sudo). JAIL_PATH, if
# set, replaces PATH (to hide or wrap pasta); JAIL_NPROC, the run's
# RLIMIT_NPROC; JAIL_XDG (rootless), its runtime directory; JAIL_SETUP, if set, is shell
# code run first in the jail's private mount namespace (a test's mounts);
# JAIL_WRAP, a command that runs the rest, as root, before the uid change
# (hide_landlock's program; the benchmarks' taskset -c N): split on spaces.
jail_cmd() (
	rootless && exec unshare --mount --propagation private -- sh -c '
		t=$0 host=$1 bin=$2 path=$3 nproc=$4 xdg=$5; shift 5
		mount --bind "$t/resolv.conf" /etc/resolv.conf && mount --bind "$t/varlib" /var/lib/ebpfjail &&
		mount --bind "$t/tun" /dev/net/tun && eval "${JAIL_SETUP:-:}" &&
		exec ${JAIL_WRAP:-} ${nproc:+prlimit --nproc=$nproc} nsenter -t "$host" -n -- \
			setpriv --reuid 4242 --regid 4242 --clear-groups -- \
			env -u SUDO_UID -u SUDO_GID -u SUDO_USER -u XDG_STATE_HOME PATH="$path" \
			HOME="$t/home" XDG_RUNTIME_DIR="$xdg" "$bin" run --config "$t/jail.conf" "$@"' \
		"$T" "$HOST" "$EBPFJAIL" "${JAIL_PATH:-$PATH}" "${JAIL_NPROC:-}" \
		"${JAIL_XDG:-$T/xdg}" "$@"
	exec unshare --mount --propagation private -- sh -c '
		t=$0 host=$1 bin=$2 path=$3 nproc=$4; shift 4
		mount --bind "$t/resolv.conf" /etc/resolv.conf && mount --bind "$t/varlib" /var/lib/ebpfjail &&
		eval "${JAIL_SETUP:-:}" &&
		exec ${JAIL_WRAP:-} ${nproc:+prlimit --nproc=$nproc} nsenter -t "$host" -n -- env PATH="$path" SUDO_UID=4242 \
			SUDO_GID=4242 "$bin" run --config "$t/jail.conf" "$@"' \
		"$T" "$HOST" "$EBPFJAIL" "${JAIL_PATH:-$PATH}" "${JAIL_NPROC:-}" "$@"
)

# _this_run PID: PID descends from this run of the suite ($$: run.sh, or
# the script that sourced this file). Other engineers' suites run jails
# on the same machine at the same time, with the same uid 4242.
_this_run() {
	local p=$1
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		[ "$p" -eq $$ ] && return 0
		_ppid "$p" || return 1
		p=$REPLY
	done
	return 1
}

# _ppid PID: PID's parent in REPLY, read from /proc with no fork (the
# suite's helpers poll this)
_ppid() {
	local stat= # set: a process gone before the read leaves it empty, not unset (set -u)
	REPLY=
	# -d '': the whole file (a command may hold a newline; a line would
	# stop there and take a forged parent from the agent's own name)
	{ IFS= read -r -d '' stat <"/proc/$1/stat"; } 2>/dev/null
	[ -n "$stat" ] || return 1
	stat=${stat##*) } # past the command, which may hold spaces and ")"
	stat=${stat#* }   # past the state
	REPLY=${stat%% *}
}

# supervisor_pid: the running ebpfjail of this run (a test runs one jail
# at a time), the newest if there are several
supervisor_pid() {
	local i p comm
	for i in $(seq 1 100); do
		# Not a child of one (its agent's init, or a fork about to exec
		# pasta, gone a moment later): the supervisor's parent is the
		# caller's.
		for p in $(ps -o pid= --sort=-start_time -p "$(pgrep -d, -x ebpfjail || echo 0)"); do
			_ppid "$p" && { read -r comm <"/proc/$REPLY/comm"; } 2>/dev/null &&
				[ "$comm" = ebpfjail ] && continue
			_this_run "$p" && { echo "$p"; return 0; }
		done
		sleep 0.05
	done
	fail "no ebpfjail supervisor of this run is running"
}

# agent_pid: the running agent as the host numbers it (the pid the agent
# sees is its own PID namespace's), from its jail's status
agent_pid() {
	local i p
	for i in $(seq 1 100); do
		for p in $(awk '$1 == "agent" { print $2 }' "$(jail_state)"/*/status 2>/dev/null || true); do
			alive "$p" && _this_run "$p" && { echo "$p"; return 0; }
		done
		sleep 0.05
	done
	fail "no agent of this run is running"
}

# supervisor_pid_from_state: the supervisor of this test's jail, from its state
# (a jail under tmux is no child of this run; pgrep would find any run's)
supervisor_pid_from_state() {
	awk '{ print $1 }' "$(jail_state)"/*/supervisor 2>/dev/null | tail -n 1
}

# jails_cgroup: where this shell's jails get their cgroups (under its own)
jails_cgroup() {
	local own
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	echo "$(cgroup_mount)${own%/}/ebpfjail"
}

# jail_procs: the running jail's processes as the host numbers them: its
# init (the supervisor's child) and everything below it, the same for
# both engines (an orphan in the jail's PID namespace is the init's, and
# a PID namespace the agent makes itself hangs below it too)
jail_procs() {
	local sup init i
	sup=$(supervisor_pid)
	for i in $(seq 1 100); do init=$(pgrep -P "$sup" -x ebpfjail-init) && break; sleep 0.05; done
	[ -n "$init" ] || fail "the supervisor $sup has no init"
	ps -eo pid=,ppid= | awk -v init="$init" '{ up[$1] = $2 }
		END { for (p in up) { q = p; while (q != init && q in up) q = up[q]; if (q == init) print p } }'
}

# jail ...: jail_cmd with stdout in $T/out, stderr in $T/err, status in $rc
jail() { run jail_cmd "$@"; }
# audit [OPTIONS]: `ebpfjail audit` of the tests' log, as the jail's user,
# on the simulated host (its resolv.conf: --suggest reads its domains)
audit() {
	local who=()
	rootless && who=(setpriv --reuid 4242 --regid 4242 --clear-groups -- env HOME="$T/home"
		XDG_RUNTIME_DIR="$T/xdg")
	run unshare --mount --propagation private -- sh -c \
		'mount --bind "$0/resolv.conf" /etc/resolv.conf && exec "$@"' "$T" \
		"${who[@]}" "$EBPFJAIL" audit --config "$T/jail.conf" "$@"
}

# denial_counts [FIELD] < LOG: the denials the log's records stand for (one
# each, a count record its "count"): the total, or with FIELD (daddr, pid,
# dport) "VALUE N" lines, one per value
denial_counts() {
	awk -v f="${1:-}" '/"lost"/ { next } /"reason"/ {
		n = 1
		if (match($0, /"count": [0-9]+/)) n = substr($0, RSTART + 9, RLENGTH - 9) + 0
		if (f == "") { s += n; next }
		if (match($0, "\"" f "\": \"?[^,\"]*")) {
			v = substr($0, RSTART, RLENGTH); sub(/^[^:]*: "?/, "", v); c[v] += n
		}
	} END { if (f == "") print s + 0; else for (v in c) print v, c[v] }'
}

# lost_count < LOG: the denials its loss records count. A loss record
# names its reason after the count ({"time": ..., "lost": 587, "reason":
# "connected"}): the number is taken wherever it stands in the line, and
# a "lost" line whose count cannot be read fails the test rather than
# counting as nothing lost.
lost_count() {
	awk -v key='"lost": ' '/"lost"/ {
		if (!match($0, key "[0-9]+")) { print "unreadable loss record: " $0 > "/dev/stderr"; bad = 1; next }
		s += substr($0, RSTART + length(key), RLENGTH - length(key))
	} END { if (bad) exit 1; print s + 0 }'
}

# result SPEC: the result probe printed for SPEC
result() { awk -v s="$1" '$1 == s { print $2 }' "$T/out"; }
expect_result() {
	local got
	got=$(result "$1")
	[ "$got" = "$2" ] || fail "$1: got '${got:-nothing}', want $2 (stdout: $(tr '\n' ';' <"$T/out") stderr: $(cat "$T/err"))"
}
# expect_denied SPEC [ROOTLESS-ERRNO]: SPEC was refused at once with EPERM.
# The rootless engine refuses TCP with an ICMP "administratively
# prohibited" (the kernel says EHOSTUNREACH: an output-hook drop of a SYN
# would be retried until the timeout), and a destination that never leaves
# the jail's namespace (its own address, IPv6 with no route) fails there
# with ROOTLESS-ERRNO.
expect_denied() {
	local got
	got=$(result "$1")
	[ "$got" = EPERM ] && return 0
	if rootless; then
		[ "$got" = "${2:-}" ] && return 0
		[[ $1 == tcp* ]] && [ "$got" = EHOSTUNREACH ] && return 0
	fi
	fail "$1: got '${got:-nothing}', want EPERM (stdout: $(tr '\n' ';' <"$T/out") stderr: $(cat "$T/err"))"
}
expect_no_hit() { ! grep -qx "$1" "$T/hits" || fail "$1 received a packet from the jail"; }
# hit_count NAME N: how many hits NAME logged, once it logged at least N or
# after 5 s (a listener logs from a child of its own, which may run after
# its client is gone): a test's unjailed controls are N, the jail's more
hit_count() {
	local i
	for i in $(seq 1 100); do [ "$(grep -cx "$1" "$T/hits")" -ge "$2" ] && break; sleep 0.05; done
	grep -cx "$1" "$T/hits" || true
}

# _users_procs_of_this_test: uid 4242's running processes of this test:
# below this run, or with $T in their environment (a dead jail's orphan is
# pid 1's). Other suites run uid 4242 too, podman's containers among them.
_users_procs_of_this_test() {
	local p
	for p in $(ps -u 4242 -o pid=,stat= | awk '$2 !~ /Z/ { print $1 }'); do
		{ _this_run "$p" || grep -qzF "$T/" "/proc/$p/environ"; } 2>/dev/null &&
			ps -o pid=,stat=,comm= -p "$p"
	done
	return 0
}

# Nothing of a jail may stay behind it: state, cgroup, pasta.
expect_no_leftovers() {
	local cg
	cg=$(jails_cgroup)
	[ -z "$(ls -A "$(jail_state)" 2>/dev/null)" ] || fail "left in $(jail_state): $(ls "$(jail_state)")"
	# Rootless, no cgroup holds the jail: nothing of its user may run on.
	! rootless || [ -z "$(_users_procs_of_this_test)" ] ||
		fail "processes of uid 4242 left: $(_users_procs_of_this_test)"
	[ -z "$(find "$cg" -mindepth 1 -maxdepth 1 -type d 2>/dev/null)" ] ||
		fail "cgroups left: $(find "$cg" -mindepth 1 -maxdepth 1 -type d)"
	[ -z "$(pasta_pids)" ] || fail "pasta left running: $(pasta_pids)"
}
