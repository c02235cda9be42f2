# world.sh - the container suite's world: engines, image, servers, README lines
# (sourced by run.sh, once to bring it up, then by every test)

source "$SRC/tests/integration/lib.sh" # mount_of, cgroup_mount, pasta_pids

CACHE=/var/cache/ebpfjail/containers
IMAGE=localhost/ebpfjail-test:latest
IMAGE13=localhost/ebpfjail-test13:latest # the same Dockerfile FROM debian:13
INTERNET=203.0.113.10 # the simulated internet: an echo server on port 80
LAN=192.168.77.5      # a private address: a server that records each hit

# readme_section TITLE: the README's "## TITLE" section
readme_section() { awk -v t="## $1" '$0 == t { on = 1; next } on && /^## / { exit } on' "$SRC/README.md"; }

# readme_block TITLE LANG: the first ```LANG block of that section
readme_block() {
	readme_section "$1" | awk -v l='```'"$2" '$0 == l { on = 1; next } on && /^```/ { exit } on'
}

# readme_run ENGINE: that engine's `run` line from the README, continuation
# lines joined, with "-it" dropped (no terminal here) and "IMAGE" last;
# printed without IMAGE, so a test can add its own flags before it
readme_run() {
	local section="In a container (Podman or Docker)" engine=$1
	[ "$1" = rlpodman ] && section="Rootless Podman" engine=podman
	readme_block "$section" sh | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
		awk -v e="$engine" '$1 == e && $2 == "run"' | sed -e 's/ -it / /' -e 's/  */ /g' -e 's/ IMAGE *$//' \
		-e "s/^podman /$1 /"
}

# readme_packages: what the README's Dockerfile installs with apt-get
readme_packages() {
	readme_block "In a container (Podman or Docker)" dockerfile | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
		sed -n 's/.*apt-get install -y \(--no-install-recommends \)\{0,1\}\([^&]*\).*/\2/p' | tr -s ' ' '\n' |
		grep -v '^$' | sort -u | paste -sd, -
}

# base_rootfs [SUITE]: a cached root file system of Debian 12 (bookworm,
# the default) or 13 (trixie) with those packages, as the README's RUN line
# installs them (on Debian 13 apt takes a package the time64 transition
# renamed, libelf1 for libelf1t64, by the name the line has)
base_rootfs() {
	local suite=${1:-bookworm} pkgs sum tar name=debian12
	[ "$suite" = trixie ] && name=debian13
	pkgs=$(readme_packages)
	[ -n "$pkgs" ] || { echo "the README's Dockerfile installs no packages" >&2; return 1; }
	sum=$(echo "$pkgs" | sha256sum | cut -c1-12)
	tar="$CACHE/$name-$sum.tar"
	if [ ! -s "$tar" ]; then
		mkdir -p "$CACHE"
		echo "# building the $suite base image ($pkgs) with mmdebstrap" >&2
		rm -f "$tar.partial.tar"
		# from the Debian archives the machine's apt uses, for the suite
		# (the machine may run another release)
		"$SRC/scripts/apt-sources.sh" --suite "$suite" |
			mmdebstrap --quiet --variant=minbase --include="$pkgs" "$suite" "$tar.partial.tar" - >&2 ||
			return 1
		mv "$tar.partial.tar" "$tar"
	fi
	echo "$tar"
}

# The README's Dockerfile, with its RUN line taken out: the base image
# already holds exactly what it installs (there is no mirror in the world).
test_dockerfile() {
	readme_block "In a container (Podman or Docker)" dockerfile | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
		grep -v '^RUN '
}

engine_config() {
	local nofile nproc memlock
	# This machine's root has no CAP_SYS_RESOURCE: the engines' default
	# rlimits (above ours) cannot be set, and crun raises RLIMIT_MEMLOCK
	# for its own BPF device filter. runc, and our limits, work.
	nofile=$(ulimit -Hn) nproc=$(ulimit -Hu) memlock=$(ulimit -Hl)
	[ "$nofile" = unlimited ] && nofile=1048576
	{ [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768 # podman lowers it to this
	if [ "$memlock" = unlimited ]; then memlock=-1; else memlock=$((memlock * 1024)); fi
	mkdir -p "$W/podman"
	# CONTAINERS_CONF replaces the distribution's file: its default
	# capabilities (no NET_RAW on Debian 12) are carried over, so the
	# README's line gets what a user's Podman gives.
	cat >"$W/podman/containers.conf" <<EOF
[containers]
$(awk '/^default_capabilities = \[/ { on = 1 } on { print } on && /^\]/ { exit }' /usr/share/containers/containers.conf)
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc", "memlock=$memlock:$memlock"]
# no pids controller on cgroup2 on a hybrid host (it is bound to v1)
pids_limit = 0
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$W/podman/tmp"
EOF
	cat >"$W/podman/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$W/podman/root"
runroot = "$W/podman/run"
EOF
	export CONTAINERS_CONF="$W/podman/containers.conf" CONTAINERS_STORAGE_CONF="$W/podman/storage.conf"
	export DOCKER_HOST="unix://$W/docker.sock" DOCKER_BUILDKIT=0
	# Debian's docker client (20.10, like the daemon), whatever else is on PATH
	mkdir -p "$W/bin" && ln -sf /usr/bin/docker "$W/bin/docker"
	export PATH="$W/bin:$PATH"
}

start_dockerd() {
	local i
	dockerd --data-root "$W/docker" --exec-root "$W/dx" --host "$DOCKER_HOST" --pidfile "$W/docker.pid" \
		--iptables=false --ip6tables=false --default-ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" \
		>"$W/dockerd.log" 2>&1 &
	echo $! >"$W/dockerd.pid.0"
	for i in $(seq 1 100); do docker info >/dev/null 2>&1 && return 0; sleep 0.2; done
	echo "dockerd did not come up in 20 s: $(tail -n 5 "$W/dockerd.log")" >&2
	return 1
}

build_images() {
	local tar=$EBPFJAIL_CTR_BASE ctx=$W/ctx
	mkdir -p "$ctx"
	cp "$EBPFJAIL" "$ctx/ebpfjail"
	cp "$SRC/scripts/ebpfjail-entrypoint" "$ctx/ebpfjail-entrypoint"
	cp -r "$SRC/profiles" "$ctx/profiles"
	test_dockerfile >"$ctx/Dockerfile"
	grep -q '^FROM debian:12$' "$ctx/Dockerfile" || { echo "the README's Dockerfile is not FROM debian:12" >&2; return 1; }
	podman import -q "$tar" docker.io/library/debian:12 >/dev/null &&
		podman build -q -t "$IMAGE" "$ctx" >/dev/null || return 1
	# The same Dockerfile on a Debian 13 base (Podman only: the engines
	# are the same either way)
	mkdir -p "$W/ctx13"
	cp -r "$ctx/." "$W/ctx13/"
	sed -i 's/^FROM debian:12$/FROM debian:13/' "$W/ctx13/Dockerfile"
	podman import -q "$EBPFJAIL_CTR_BASE13" docker.io/library/debian:13 >/dev/null &&
		podman build -q -t "$IMAGE13" "$W/ctx13" >/dev/null || return 1
	docker import "$tar" debian:12 >/dev/null &&
		docker build -q -t "$IMAGE" "$ctx" >/dev/null || return 1
}

# Rootless Podman, as uid 4242 with no subuid range (Podman's single
# mapping) and storage of its own (vfs: no overlay without privileges on
# this kernel's layout). The host's /dev/net/tun is root's 0600 here
# (Debian's udev makes it 0666): a 0666 node stands in for it, in the
# world's mount namespace only.
RL_UID=4242

rlpodman() {
	setpriv --reuid $RL_UID --regid $RL_UID --clear-groups -- env -i PATH="$PATH" \
		HOME="$W/rl/home" XDG_RUNTIME_DIR="$W/rl/run" podman "$@"
}

rootless_podman_up() {
	local ctx=$W/rl/ctx
	mkdir -p "$W/rl/home/.config/containers" "$W/rl/run" "$ctx"
	cat >"$W/rl/home/.config/containers/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$W/rl/home/storage"
runroot = "$W/rl/run/storage"
[storage.options]
ignore_chown_errors = "true"
EOF
	cat >"$W/rl/home/.config/containers/containers.conf" <<EOF
[containers]
pids_limit = 0
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
	cp "$W/ctx/ebpfjail" "$W/ctx/ebpfjail-entrypoint" "$W/ctx/Dockerfile" "$ctx/"
	cp -r "$W/ctx/profiles" "$ctx/"
	cp "$EBPFJAIL_CTR_BASE" "$W/rl/base.tar"
	chown -R $RL_UID:$RL_UID "$W/rl"
	chmod 700 "$W/rl/run"
	chmod 755 "$W"
	mknod -m 0666 "$W/rl/tun" c 10 200 && mount --bind "$W/rl/tun" /dev/net/tun || return 1
	rlpodman import -q "$W/rl/base.tar" docker.io/library/debian:12 >/dev/null 2>"$W/rl/import.err" &&
		rlpodman build -q -t "$IMAGE" "$ctx" >/dev/null 2>"$W/rl/build.err" || {
		echo "rootless podman: $(tail -n 3 "$W/rl/import.err" "$W/rl/build.err")" >&2
		return 1
	}
	rm -f "$W/rl/base.tar"
}

# _serve ADDR PORT NAME CMD: a server in the world
_serve() {
	socat "TCP-LISTEN:$2,bind=$1,reuseaddr,fork" "$4" </dev/null >/dev/null 2>&1 &
	echo $! >>"$W/servers"
}

world_up() {
	W=$(mktemp -d /var/tmp/ebpfjail-ctr.XXXXXX)
	export W
	# Not in the tree: rootless Podman (uid 4242) starts in the current
	# directory, and a clone in root's 0700 home is out of its reach.
	cd "$W"
	if [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
		mount -t cgroup2 none /sys/fs/cgroup || return 1
	fi
	# The engines' and CNI's own state: in this mount namespace only.
	mount -t tmpfs none /run && mkdir -p /var/lib/cni && mount -t tmpfs none /var/lib/cni || return 1
	ip link set lo up
	ip addr add "$INTERNET/32" dev lo && ip addr add "$LAN/32" dev lo || return 1
	: >"$W/hits"
	_serve "$INTERNET" 80 internet EXEC:cat
	_serve "$LAN" 80 lan "SYSTEM:echo lan >>$W/hits"
	# the containers' gateways (10.88.0.1, 172.17.0.1): any address, port 81
	_serve 0.0.0.0 81 gateway "SYSTEM:echo gateway >>$W/hits"
	engine_config
	start_dockerd || return 1
	build_images || return 1
	rootless_podman_up || return 1
	# what the host runs before any jail: compared by expect_host_clean
	bpf_programs >"$W/progs.before" || return 1
	net_namespaces >"$W/netns.before"
}

world_down() {
	local p i
	podman rm -af -t 0 >/dev/null 2>&1 || true
	[ -d "$W/rl/home" ] && rlpodman rm -af -t 0 >/dev/null 2>&1 || true
	docker ps -aq 2>/dev/null | xargs -r docker rm -f >/dev/null 2>&1 || true
	if [ -s "$W/docker.pid" ]; then
		kill "$(cat "$W/docker.pid")" 2>/dev/null || true
		for i in $(seq 1 100); do [ -e "$W/docker.pid" ] || break; sleep 0.1; done
	fi
	if [ -s "$W/servers" ]; then kill $(cat "$W/servers") 2>/dev/null || true; fi
	# containerd and its shims, if dockerd left them
	for p in $(pgrep -f "$W" || true); do kill -KILL "$p" 2>/dev/null || true; done
	# rootless Podman's pause process (catatonit), which holds its user
	# namespace for the next run: nothing of the world's user may stay
	pkill -KILL -u $RL_UID 2>/dev/null || true
	wait 2>/dev/null || true
	grep -F " $W/" /proc/self/mountinfo | awk '{ print $5 }' | sort -r | xargs -r umount -l 2>/dev/null
	rm -rf "$W"
}

# --- what tests use -------------------------------------------------------

# bpf_programs: the cgroup and TC programs loaded on the machine
bpf_programs() {
	local all
	all=$(bpftool prog show) || return 1 # an empty list is not "clean"
	awk '$2 ~ /^(cgroup_sock_addr|sched_cls|cgroup_sock):?$/ { print $1 }' <<<"$all" | sort
}

# net_namespaces: every network namespace a process is in
net_namespaces() { lsns -t net -n -o NS | sort -u; }

# _new_since FILE: the lines of stdin that FILE lacks, on one line
_new_since() { { grep -vxF -f "$1" || true; } | tr '\n' ' '; }

# expect_host_clean: nothing of any jail is left: pasta, jail cgroups, BPF
# programs, the jails' network namespaces (bounded wait: the engines tear
# a killed container down asynchronously). Programs and namespaces are
# judged by what is new since world_up, not by equality: one that was
# there before and went away meanwhile is not a leak (a jail cgroup of an
# earlier suite, dying, keeps its programs until its last socket is
# freed: once seen ~100 s after the benchmark smoke run, mid-suite).
expect_host_clean() {
	local i left now new
	for i in $(seq 1 100); do
		left=""
		[ -z "$(pasta_pids)" ] || left="$left pasta:$(pasta_pids | tr '\n' ' ')"
		[ -z "$(find /sys/fs/cgroup -type d -name ebpfjail 2>/dev/null)" ] ||
			left="$left cgroups:$(find /sys/fs/cgroup -type d -name ebpfjail)"
		now=$(bpf_programs) || fail "bpftool prog show failed"
		new=$(printf '%s' "$now" | _new_since "$W/progs.before")
		[ -z "$new" ] || left="$left bpf:$new"
		new=$(net_namespaces | _new_since "$W/netns.before")
		[ -z "$new" ] || left="$left netns:$new"
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "left on the host after ${1:-the run}:$left"
}

# ctr ENGINE NAME [FLAGS...] -- COMMAND...: the README's run line for ENGINE,
# with FLAGS added, as container NAME, in the background; its output in
# $T/NAME.out and .err, its exit status in $T/NAME.rc when it ends. The
# agent's workspace is $T/ws, owned by the agent's uid (4242), with the
# probe in it.
ctr() {
	local engine=$1 name=$2 flags
	shift 2
	local extra=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do extra+=("$1"); shift; done
	shift
	flags=$(readme_run "$engine")
	[ -n "$flags" ] || fail "README has no '$engine run' line"
	workspace
	(
		set +e # the status is the point
		cd "$T/ws" &&
			eval "$flags --name $name \"\${extra[@]}\" \"\$IMAGE\" \"\$@\"" >"$T/$name.out" 2>"$T/$name.err" </dev/null
		echo $? >"$T/$name.rc"
	) &
	echo "$engine $name" >>"$T/containers"
}

workspace() {
	[ -d "$T/ws" ] && return 0
	mkdir -p "$T/ws"
	cp "$(dirname "$EBPFJAIL")/probe" "$T/ws/probe"
	chmod 755 "$T/ws/probe" "$T"
	chown -R 4242:4242 "$T/ws"
}

# wait_file FILE [SECONDS]: until FILE exists and is not empty
wait_file() {
	local i
	for i in $(seq 1 $((${2:-30} * 10))); do [ -s "$1" ] && return 0; sleep 0.1; done
	return 1
}

# wait_exists FILE [SECONDS]: until FILE exists
wait_exists() {
	local i
	for i in $(seq 1 $((${2:-30} * 10))); do [ -e "$1" ] && return 0; sleep 0.1; done
	return 1
}

# wait_ended NAME [SECONDS]: until the container's run returned; status in $rc
wait_ended() {
	wait_file "$T/$1.rc" "${2:-30}" || fail "$1 still runs: $(cat "$T/$1.err")"
	rc=$(cat "$T/$1.rc")
}

# result FILE SPEC: what the probe printed for SPEC
result_in() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }
expect_result_in() {
	local got
	got=$(result_in "$1" "$2")
	[ "$got" = "$3" ] || fail "$2: got '${got:-nothing}', want $3 ($(tr '\n' ';' <"$1"))"
}

# a denial "at once": the probe's time, in microseconds, under 0.5 s
expect_at_once() {
	local us
	us=$(awk -v s="$2" '$1 == s { print $3 }' "$1")
	[ -n "$us" ] && [ "$us" -lt 500000 ] || fail "$2 took ${us:-?} us"
}

# pod_cgroup_devices_open POD: Podman 4.3 with cgroupfs on cgroup v2 puts
# a deny-all device program on a pod's own cgroup, which every container
# in it then runs too (BPF_F_ALLOW_MULTI): even the pause container's
# /dev/null is refused ("error reopening /dev/null"). Each container has
# its own device program (runc's), so the pod's is detached; kubelet and
# systemd-managed Podman do not make it.
pod_cgroup_devices_open() {
	local cg progs id
	cg=/sys/fs/cgroup$(podman pod inspect "$1" --format '{{.CgroupPath}}') || return 1
	# "ID AttachType AttachFlags Name" rows (no jq: a fresh machine has none)
	progs=$(bpftool cgroup show "$cg") || return 1
	for id in $(awk '$2 == "cgroup_device" { print $1 }' <<<"$progs"); do
		bpftool cgroup detach "$cg" cgroup_device id "$id" || return 1
	done
}

ctr_pid() { "$1" inspect -f '{{.State.Pid}}' "$2"; }

test_down() {
	local engine name
	if [ -s "$T/containers" ]; then
		while read -r engine name; do
			case $engine in
			podman-kube) podman kube down "$name" >/dev/null 2>&1 || true ;;
			*) "$engine" rm -f "$name" >/dev/null 2>&1 || true ;;
			esac
		done <"$T/containers"
	fi
	if [ -s "$T/pids" ]; then kill $(cat "$T/pids") 2>/dev/null || true; fi
	wait 2>/dev/null || true
}
