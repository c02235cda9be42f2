# test_containers.sh - the README's container commands under real Podman and
# Docker (run.sh brings up the world; world.sh has the helpers)

# _jailed ENGINE: the README's line, as is, plus a name, a relay and the
# agent's command: the internet works, the LAN and the container's own
# gateway are refused at once, `ebpfjail audit` in the container shows
# the denials, a local-port relay reaches the container's loopback, and
# nothing is left on the host afterwards.
_jailed() {
	local engine=$1 gw pid
	case $engine in podman) gw=10.88.0.1 ;; docker) gw=172.17.0.1 ;; esac
	cat >"$T/agent.sh" <<EOF
cd /workspace
./probe tcp:203.0.113.10:80 tcp:192.168.77.5:80 tcp:$gw:81 >probe.tmp && mv probe.tmp probe.out
for i in \$(seq 1 300); do [ -e go ] && break; sleep 0.1; done
./probe tcp:127.0.0.1:8123 >relay.out
cat /proc/self/cgroup >cgroup.out
EOF
	workspace
	cp "$T/agent.sh" "$T/ws/agent.sh"
	ctr "$engine" "ebj-$engine" -e EBPFJAIL_LOCAL_PORT=8123 -- sh /workspace/agent.sh
	wait_file "$T/ws/probe.out" 30 || fail "the agent did not run: $(cat "$T/ebj-$engine.err")"
	expect_result_in "$T/ws/probe.out" tcp:203.0.113.10:80 ok
	expect_result_in "$T/ws/probe.out" tcp:192.168.77.5:80 EPERM
	expect_result_in "$T/ws/probe.out" "tcp:$gw:81" EPERM
	expect_at_once "$T/ws/probe.out" tcp:192.168.77.5:80
	expect_at_once "$T/ws/probe.out" "tcp:$gw:81"
	[ ! -s "$W/hits" ] || fail "a packet got through: $(cat "$W/hits")"
	# the audit, from inside the container (root there)
	"$engine" exec "ebj-$engine" ebpfjail audit >"$T/audit.out" 2>&1 || fail "audit: $(cat "$T/audit.out")"
	grep -q "192.168.77.5.*private" "$T/audit.out" || fail "the audit lacks the LAN denial: $(cat "$T/audit.out")"
	grep -q "$gw" "$T/audit.out" || fail "the audit lacks the gateway denial: $(cat "$T/audit.out")"
	# the profiles, where the image's binary looks for them
	"$engine" exec "ebj-$engine" ebpfjail config --profile github >"$T/config.out" 2>&1 ||
		fail "config --profile github: $(cat "$T/config.out")"
	grep -qE '^# allow-host = github.com:22 +# /usr/local/share/ebpfjail/profiles/github.conf:[0-9]+$' \
		"$T/config.out" || fail "the image's profile: $(cat "$T/config.out")"
	# the relay: a server on the container's own loopback
	pid=$(ctr_pid "$engine" "ebj-$engine")
	nsenter -t "$pid" -n socat TCP-LISTEN:8123,bind=127.0.0.1,reuseaddr,fork EXEC:cat </dev/null >/dev/null 2>&1 &
	echo $! >>"$T/pids"
	for i in $(seq 1 50); do nsenter -t "$pid" -n ss -ltn | grep -q 127.0.0.1:8123 && break; sleep 0.1; done
	touch "$T/ws/go"
	wait_ended "ebj-$engine" 30
	[ "$rc" = 0 ] || fail "the container exited $rc: $(cat "$T/ebj-$engine.err")"
	expect_result_in "$T/ws/relay.out" tcp:127.0.0.1:8123 ok
	grep -qx '0::/' "$T/ws/cgroup.out" || fail "the agent sees a cgroup beyond its own: $(cat "$T/ws/cgroup.out")"
	grep -q "denied 2 connections" "$T/ebj-$engine.err" || fail "no summary: $(cat "$T/ebj-$engine.err")"
	kill $(cat "$T/pids") 2>/dev/null || true
	expect_host_clean "the container ended"
}

test_podman_readme_command_jails_the_agent() { _jailed podman; }

# The README's Dockerfile with a Debian 13 base (its packages as the RUN
# line names them, which apt maps onto Debian 13's time64 names): the
# same jail, the same checks.
test_podman_readme_image_on_debian_13_jails_the_agent() {
	podman run --rm --entrypoint cat "$IMAGE13" /etc/debian_version >"$T/version" 2>&1 ||
		fail "the Debian 13 image: $(cat "$T/version")"
	grep -q '^13' "$T/version" || fail "not Debian 13: $(cat "$T/version")"
	IMAGE=$IMAGE13 _jailed podman
}

# Rootless Podman, the README's line for it as uid 4242: the entrypoint
# picks the rootless engine by itself; the internet works, the LAN and the
# container's gateway (slirp4netns's 10.0.2.2) are refused at once (TCP
# with EHOSTUNREACH: the rootless engine's reject), the audit in the
# container has them without a process, the agent (the container's root)
# holds no capability, a relay works, nothing is left.
test_rootless_podman_readme_command_jails_the_agent() {
	local gw=10.0.2.2 pid
	cat >"$T/agent.sh" <<EOF
cd /workspace
grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status >caps.out
./probe tcp:203.0.113.10:80 tcp:192.168.77.5:80 tcp:$gw:81 >probe.tmp && mv probe.tmp probe.out
for i in \$(seq 1 300); do [ -e go ] && break; sleep 0.1; done
./probe tcp:127.0.0.1:8123 >relay.out
EOF
	workspace
	cp "$T/agent.sh" "$T/ws/agent.sh"
	ctr rlpodman ebj-rl -e EBPFJAIL_LOCAL_PORT=8123 -- sh /workspace/agent.sh
	wait_file "$T/ws/probe.out" 60 || fail "the agent did not run: $(cat "$T/ebj-rl.err")"
	grep -q "engine: nftables, rootless" "$T/ebj-rl.err" || fail "not the rootless engine: $(cat "$T/ebj-rl.err")"
	expect_result_in "$T/ws/probe.out" tcp:203.0.113.10:80 ok
	expect_result_in "$T/ws/probe.out" tcp:192.168.77.5:80 EHOSTUNREACH
	expect_result_in "$T/ws/probe.out" "tcp:$gw:81" EHOSTUNREACH
	expect_at_once "$T/ws/probe.out" tcp:192.168.77.5:80
	expect_at_once "$T/ws/probe.out" "tcp:$gw:81"
	[ ! -s "$W/hits" ] || fail "a packet got through: $(cat "$W/hits")"
	[ "$(grep -c ':	0000000000000000$' "$T/ws/caps.out")" = 3 ] ||
		fail "the agent holds capabilities: $(cat "$T/ws/caps.out")"
	rlpodman exec ebj-rl ebpfjail audit --json >"$T/audit.out" 2>&1 || fail "audit: $(cat "$T/audit.out")"
	grep -q '"pid": null, "comm": null, .*"daddr": "192.168.77.5", "dport": 80, "hook": "output", "reason": "private"' \
		"$T/audit.out" || fail "the audit lacks the LAN denial: $(cat "$T/audit.out")"
	grep -q "\"daddr\": \"$gw\".*\"reason\": \"gateway\"" "$T/audit.out" ||
		fail "the audit lacks the gateway denial: $(cat "$T/audit.out")"
	pid=$(ctr_pid rlpodman ebj-rl)
	nsenter -t "$pid" -n socat TCP-LISTEN:8123,bind=127.0.0.1,reuseaddr,fork EXEC:cat </dev/null >/dev/null 2>&1 &
	echo $! >>"$T/pids"
	for i in $(seq 1 50); do nsenter -t "$pid" -n ss -ltn | grep -q 127.0.0.1:8123 && break; sleep 0.1; done
	touch "$T/ws/go"
	wait_ended ebj-rl 30
	[ "$rc" = 0 ] || fail "the container exited $rc: $(cat "$T/ebj-rl.err")"
	expect_result_in "$T/ws/relay.out" tcp:127.0.0.1:8123 ok
	grep -q "denied 2 connections" "$T/ebj-rl.err" || fail "no summary: $(cat "$T/ebj-rl.err")"
	kill $(cat "$T/pids") 2>/dev/null || true
	expect_host_clean "the container ended"
}

# Rootless Podman without --security-opt unmask=ALL: the jail cannot give
# the agent its own /proc; the entrypoint says which flag, and exits 125.
test_rootless_podman_without_unmask_names_the_flag() {
	workspace
	local flags
	flags=$(readme_run rlpodman | sed 's/ --security-opt unmask=ALL//')
	rc=0
	(cd "$T/ws" && eval "$flags --name ebj-rl2 \"\$IMAGE\" true") >"$T/out" 2>"$T/err" </dev/null || rc=$?
	echo "rlpodman ebj-rl2" >>"$T/containers"
	[ "$rc" = 125 ] || fail "exit $rc, want 125: $(cat "$T/err")"
	grep -q "add: --security-opt unmask=ALL" "$T/err" || fail "no flag named: $(cat "$T/err")"
	expect_host_clean "the refusal"
}
test_docker_readme_command_jails_the_agent() { _jailed docker; }

# _stop_and_kill ENGINE: a long-running agent, stopped (SIGTERM to the
# supervisor, PID 1) and then killed (SIGKILL): nothing is left either way.
_stop_and_kill() {
	local engine=$1 how
	for how in stop kill; do
		rm -f "$T/ws/started"
		ctr "$engine" "ebj-$how" -- sh -c 'touch /workspace/started; sleep 300'
		wait_exists "$T/ws/started" 30 ||
			fail "the agent did not start: $(cat "$T/ebj-$how.err")"
		# The jail's cgroup is inside the container's own.
		find /sys/fs/cgroup -type d -path "*/ebpfjail/*" | grep -q . || fail "no jail cgroup"
		find /sys/fs/cgroup -mindepth 1 -maxdepth 1 -type d -name ebpfjail | grep -q . &&
			fail "a jail cgroup at the root: $(find /sys/fs/cgroup -maxdepth 2 -path '*/ebpfjail/*')"
		case $how in
		stop) "$engine" stop -t 10 "ebj-$how" >/dev/null ;;
		kill) "$engine" kill "ebj-$how" >/dev/null ;;
		esac
		wait_ended "ebj-$how" 20
		expect_host_clean "$engine $how"
	done
}

test_podman_stop_and_kill_leave_nothing() { _stop_and_kill podman; }
test_docker_stop_and_kill_leave_nothing() { _stop_and_kill docker; }

# _side_by_side ENGINE [FLAGS]: two jailed containers at once; one is
# killed and a third starts (and sweeps leftovers): the first one's agent
# goes on, still filtered. With FLAGS "--cgroupns host -v
# /sys/fs/cgroup:/sys/fs/cgroup:rw" (the flags the README used to give
# for Docker) the containers share the host's cgroup tree: the sweep
# killed the other container's agent then.
_side_by_side() {
	local engine=$1 i
	shift
	cat >"$T/agent.sh" <<'EOF'
for i in $(seq 1 600); do
	/workspace/probe tcp:203.0.113.10:80 tcp:192.168.77.5:80 >/workspace/a.now
	mv /workspace/a.now /workspace/a.out
	sleep 0.1
done
EOF
	workspace
	cp "$T/agent.sh" "$T/ws/agent.sh"
	ctr "$engine" ebj-a "$@" -- sh /workspace/agent.sh
	wait_file "$T/ws/a.out" 30 || fail "a did not start: $(cat "$T/ebj-a.err")"
	ctr "$engine" ebj-b "$@" -- sh -c 'touch /workspace/b; sleep 300'
	wait_exists "$T/ws/b" 30 || fail "b did not start: $(cat "$T/ebj-b.err")"
	"$engine" kill ebj-b >/dev/null
	wait_ended ebj-b 20
	ctr "$engine" ebj-c "$@" -- /workspace/probe tcp:192.168.77.5:80
	wait_ended ebj-c 30
	[ "$rc" = 0 ] || fail "c exited $rc: $(cat "$T/ebj-c.err")"
	grep -q 'removing the leftover' "$T/ebj-c.err" && fail "c removed something: $(cat "$T/ebj-c.err")"
	# a goes on: its agent is alive and still filtered
	rm -f "$T/ws/a.out"
	wait_file "$T/ws/a.out" 10 || fail "a's agent stopped: $(cat "$T/ebj-a.err")"
	expect_result_in "$T/ws/a.out" tcp:203.0.113.10:80 ok
	expect_result_in "$T/ws/a.out" tcp:192.168.77.5:80 EPERM
	[ ! -e "$T/ebj-a.rc" ] || fail "a ended: $(cat "$T/ebj-a.rc") $(cat "$T/ebj-a.err")"
	[ ! -s "$W/hits" ] || fail "a packet got through: $(cat "$W/hits")"
	"$engine" stop -t 10 ebj-a >/dev/null
	wait_ended ebj-a 20
	expect_host_clean "the three containers"
}

test_podman_two_jailed_containers_side_by_side() { _side_by_side podman; }
test_docker_two_jailed_containers_side_by_side() { _side_by_side docker; }
test_docker_side_by_side_with_the_hosts_cgroup_namespace() {
	_side_by_side docker --cgroupns host -v /sys/fs/cgroup:/sys/fs/cgroup:rw
}

# Docker's default seccomp profile: pasta cannot sandbox itself. The
# agent must not start (it used to, with no network).
test_docker_default_seccomp_fails_closed() {
	local flags
	flags=$(readme_run docker | sed 's/ --security-opt seccomp=unconfined//')
	workspace
	rc=0
	(cd "$T/ws" && eval "$flags --name ebj-seccomp \"\$IMAGE\" touch /workspace/ran") >"$T/out" 2>"$T/err" </dev/null ||
		rc=$?
	echo "docker ebj-seccomp" >>"$T/containers"
	expect_rc 125
	[ ! -e "$T/ws/ran" ] || fail "the agent ran"
	expect_err "pasta exited at start"
	expect_host_clean "a refused start"
}

# A user namespace (rootless Podman; here rootful Podman with --uidmap):
# every capability looks present inside, BPF still cannot be loaded. The
# entrypoint says that, not a flag to add.
test_podman_user_namespace_takes_the_rootless_engine() {
	local flags
	flags=$(readme_run podman)
	workspace
	rc=0
	(cd "$T/ws" && eval "$flags --uidmap 0:100000:65536 --gidmap 0:100000:65536 --name ebj-userns \"\$IMAGE\" true") \
		>"$T/out" 2>"$T/err" </dev/null || rc=$?
	echo "podman ebj-userns" >>"$T/containers"
	# Podman's masked /proc paths: the agent's own /proc could not be
	# mounted, and the flag that unmasks them is named.
	expect_rc 125
	expect_err "add: --security-opt unmask=ALL"
	! grep -q "add: --cap-add" "$T/err" || fail "it names flags that would not help: $(cat "$T/err")"
	rc=0
	(cd "$T/ws" && eval "$flags --uidmap 0:100000:65536 --gidmap 0:100000:65536 --security-opt unmask=ALL --name ebj-userns2 \"\$IMAGE\" true") \
		>"$T/out" 2>"$T/err" </dev/null || rc=$?
	echo "podman ebj-userns2" >>"$T/containers"
	expect_rc 0
	expect_err "engine: nftables, rootless"
	expect_host_clean "the run"
}

# The devcontainer's runArgs (README, "In a devcontainer"), as the
# devcontainer CLI passes them with its workspace mount.
test_docker_devcontainer_run_args() {
	local args
	args=$(readme_block "In a devcontainer" json | sed -n 's/.*"runArgs": *\[\(.*\)\].*/\1/p' | tr -d '",')
	[ -n "$args" ] || fail "no runArgs in the README"
	workspace
	# shellcheck disable=SC2086 # the arguments are words
	rc=0
	docker run --rm $args --name ebj-dev -v "$T/ws:/workspace" -w /workspace "$IMAGE" \
		/workspace/probe tcp:203.0.113.10:80 tcp:192.168.77.5:80 >"$T/out" 2>"$T/err" </dev/null || rc=$?
	expect_rc 0
	expect_result_in "$T/out" tcp:203.0.113.10:80 ok
	expect_result_in "$T/out" tcp:192.168.77.5:80 EPERM
	expect_host_clean "the devcontainer"
}

# deploy/kubernetes/ebpfjail-pod.yaml under `podman kube play`, as is but
# for the image, the workspace and the agent's command: the init container
# makes the audit volume root's, the agent reaches the internet and is
# refused the LAN and the pod's gateway, the audit container's log (what
# `kubectl logs POD -c audit` shows) has the denials as JSON, and `kube
# down` leaves nothing.
test_podman_kube_play_of_the_kubernetes_pod() {
	local yaml="$SRC/deploy/kubernetes/ebpfjail-pod.yaml" i vol
	cat >"$T/agent.sh" <<'EOF2'
cd /workspace
./probe tcp:203.0.113.10:80 tcp:192.168.77.5:80 tcp:10.88.0.1:81 >probe.out.tmp
stat -c '%u %a' /var/log/ebpfjail >logdir.out
mv probe.out.tmp probe.out
EOF2
	workspace
	cp "$T/agent.sh" "$T/ws/agent.sh"
	grep -q '^      image: ebpfjail-agent:latest$' "$yaml" || fail "the pod's image line moved"
	grep -q '^      args: \["claude"\]$' "$yaml" || fail "the pod's args line moved"
	grep -q '^        path: /srv/workspace$' "$yaml" || fail "the pod's workspace line moved"
	grep -q '^  automountServiceAccountToken: false$' "$yaml" || fail "the pod gives the agent an API token"
	# Podman 4.3 mounts a ConfigMap whole, not one key of it (subPath:
	# Podman 4.4): the key's text, from a file, stands in for it.
	awk '/^  ebpfjail.conf: \|$/ { on = 1; next } on && /^    / { print substr($0, 5); next } on { exit }' \
		"$yaml" >"$T/ebpfjail.conf"
	grep -qx 'audit-log = /var/log/ebpfjail/audit.jsonl' "$T/ebpfjail.conf" ||
		fail "the ConfigMap's ebpfjail.conf: $(cat "$T/ebpfjail.conf")"
	sed -e "s|^      image: ebpfjail-agent:latest$|      image: $IMAGE|" \
		-e 's|^      args: \["claude"\]$|      args: ["sh", "/workspace/agent.sh"]|' \
		-e "s|^        path: /srv/workspace$|        path: $T/ws|" \
		-e '/^          subPath: ebpfjail.conf$/d' \
		-e "/^    - name: config$/,/^        name: ebpfjail-config$/c\\    - name: config\n      hostPath:\n        path: $T/ebpfjail.conf\n        type: File" \
		"$yaml" >"$T/pod.yaml"
	grep -c "path: $T/ebpfjail.conf" "$T/pod.yaml" | grep -qx 1 || fail "the pod's config volume moved: $(cat "$T/pod.yaml")"
	echo "podman-kube $T/pod.yaml" >>"$T/containers"
	podman kube play --start=false "$T/pod.yaml" >"$T/play.out" 2>&1 || fail "kube play: $(cat "$T/play.out")"
	pod_cgroup_devices_open ebpfjail-agent
	# A kubelet makes an emptyDir 0777, Podman 0755: as a kubelet would.
	vol=$(podman inspect ebpfjail-agent-agent \
		--format '{{range .Mounts}}{{if eq .Destination "/var/log/ebpfjail"}}{{.Source}}{{end}}{{end}}')
	[ -d "$vol" ] || fail "no audit volume: '$vol'"
	chmod 0777 "$vol"
	podman pod start ebpfjail-agent >"$T/start.out" 2>&1 || fail "pod start: $(cat "$T/start.out")"
	wait_file "$T/ws/probe.out" 30 ||
		fail "the agent did not run: $(podman logs ebpfjail-agent-agent 2>&1 | tail -n 20)"
	expect_result_in "$T/ws/probe.out" tcp:203.0.113.10:80 ok
	expect_result_in "$T/ws/probe.out" tcp:192.168.77.5:80 EPERM
	expect_result_in "$T/ws/probe.out" tcp:10.88.0.1:81 EPERM
	[ ! -s "$W/hits" ] || fail "a packet got through: $(cat "$W/hits")"
	# the audit container's output: one JSON record per denial
	for i in $(seq 1 100); do
		podman logs ebpfjail-agent-audit >"$T/audit.out" 2>&1 || true
		grep -q '"10.88.0.1"' "$T/audit.out" && grep -q '"192.168.77.5"' "$T/audit.out" && break
		sleep 0.1
	done
	grep -q '"daddr": "192.168.77.5", "dport": 80, "hook": "[a-z_0-9]*", "reason": "private"' "$T/audit.out" ||
		fail "the audit container lacks the LAN denial: $(cat "$T/audit.out")"
	grep -q '"daddr": "10.88.0.1", "dport": 81,' "$T/audit.out" || fail "the audit container lacks the gateway denial: $(cat "$T/audit.out")"
	grep -qx '0 755' "$T/ws/logdir.out" || fail "the audit volume, as the agent sees it: $(cat "$T/ws/logdir.out")"
	podman kube down "$T/pod.yaml" >"$T/down.out" 2>&1 || fail "kube down: $(cat "$T/down.out")"
	expect_host_clean "kube down"
}
