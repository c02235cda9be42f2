#!/usr/bin/env bash
# run.sh - the container suite: ebpfjail-entrypoint under real Podman and
# Docker, with the README's Dockerfile and `run` lines, in a world of its own
#
# Usage: tests/containers/run.sh BINARY [PATTERN]
#
# The whole suite runs in a private mount and network namespace (the
# "world"): the engines, their bridges and every container live there, and
# so do the simulated internet (203.0.113.10), a LAN host (192.168.77.5)
# and the engines' gateways; nothing of it can reach a real network.
# cgroup2 is mounted on /sys/fs/cgroup in that mount namespace, which gives
# Podman and Docker a plain cgroup v2 host on a hybrid one. Engine state
# lives under one scratch directory, removed at the end with every
# cgroup the engines made; the base image's root file system (mmdebstrap,
# the packages the README's Dockerfile installs; a Debian 13 one too) is cached in
# /var/cache/ebpfjail/containers. Same output and skip rules as
# tests/integration/run.sh.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
EBPFJAIL=$(realpath "${1:?usage: run.sh BINARY [PATTERN]}") || exit 1
SRC=$(cd "$here/../.." && pwd)
export EBPFJAIL SRC
pattern=${2:-}

[ "$(id -u)" = 0 ] || { echo "container suite: run it as root"; exit 1; }
for tool in podman dockerd runc mmdebstrap socat bpftool; do
	command -v "$tool" >/dev/null || { echo "FAIL    container suite: $tool is missing (scripts/deps.sh)"; exit 1; }
done

source "$here/world.sh"
if [ -z "${EBPFJAIL_CTR_WORLD:-}" ]; then
	# Before the world: the mirror is out of its reach.
	EBPFJAIL_CTR_BASE=$(base_rootfs) || { echo "FAIL    container suite: no base image"; exit 1; }
	EBPFJAIL_CTR_BASE13=$(base_rootfs trixie) ||
		{ echo "FAIL    container suite: no Debian 13 base image"; exit 1; }
	export EBPFJAIL_CTR_BASE EBPFJAIL_CTR_BASE13
	cgroups_before=$(mktemp)
	find "$(cgroup_mount)" -type d >"$cgroups_before"
	EBPFJAIL_CTR_WORLD=1 unshare --mount --net --propagation private -- "$0" "$@"
	rc=$?
	# The engines' cgroups (libpod_parent/, docker/) outlive the world:
	# remove those this run made, deepest first, and nothing else.
	cg=$(cgroup_mount)
	find "$cg/libpod_parent" "$cg/docker" -depth -type d 2>/dev/null | grep -vxF -f "$cgroups_before" |
		while read -r d; do rmdir "$d" 2>/dev/null || true; done
	left=$(find "$cg/libpod_parent" "$cg/docker" -type d 2>/dev/null | grep -vxF -f "$cgroups_before" || true)
	rm -f "$cgroups_before"
	if [ -n "$left" ]; then
		echo "FAIL    the container suite left cgroups on the host: $left"
		exit 1
	fi
	exit "$rc"
fi

# --- in the world ------------------------------------------------------
passed=0 failed=0 skipped=0
[ -n "${CTR_XTRACE:-}" ] && set -x
world_up || { echo "FAIL    container suite: the world did not come up"; world_down; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
trap world_down EXIT

file="$here/test_containers.sh"
tests=$(bash -c "source '$SRC/tests/integration/lib.sh'; source '$file'; declare -F" | awk '$3 ~ /^test_/ {print $3}')
[ -n "$tests" ] || { echo "FAIL    test_containers.sh: no tests (does it source?)"; exit 1; }
for t in $tests; do
	[ -n "$pattern" ] && [[ $t != *$pattern* ]] && continue
	T=$(mktemp -d "$W/t.XXXXXX")
	out="$T.log"
	started=$(date +%s)
	( set +o pipefail; export T; cd "$T" && source "$SRC/tests/integration/lib.sh" &&
		source "$here/world.sh" && source "$file" && trap test_down EXIT && set -e && { [ -z "${CTR_XTRACE:-}" ] || set -x; } && "$t" ) >"$out" 2>&1
	rc=$?
	took="$(($(date +%s) - started)) s"
	case $rc in
	0) passed=$((passed + 1)); echo "ok      containers $t ($took)" ;;
	77)
		skipped=$((skipped + 1))
		echo "skip    containers $t: $(tail -n 1 "$out")"
		if [ "${CI:-}" = true ] && [[ $(tail -n 1 "$out") != "kernel lacks "* ]]; then
			failed=$((failed + 1))
			echo "FAIL    containers $t: skipped under CI=true"
		fi
		;;
	*) failed=$((failed + 1)); echo "FAIL    containers $t ($took)"; sed 's/^/    | /' "$out" ;;
	esac
	if [ "${DEBUG:-}" = 1 ]; then echo "    kept $T"; else rm -rf "$T"; fi
	rm -f "$out"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
