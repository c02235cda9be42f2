#!/usr/bin/env bash
# deps.sh - install every Debian 12 package ebpfjail needs to build, test and run.
#
# Idempotent: when everything is present it prints nothing and exits 0.
# Only Debian's own archive is used; nothing is downloaded from anywhere else.
set -euo pipefail

packages=(
	# build
	make clang llvm gcc pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
	# netlink (routes, addresses, links) without hand-written message parsing
	libmnl-dev
	# the agent's seccomp filter (setns, io_uring, socket families, TIOCSTI)
	libseccomp-dev
	# the rootless engine: the policy as nftables rules in the jail's own
	# user-owned network namespace (user/nftengine.c says why libnftables)
	libnftables-dev
	# unit tests and the libFuzzer target (clang's sanitizer and fuzzer runtimes)
	libcriterion-dev libclang-rt-14-dev
	# man pages (scdoc source -> roff), checked with man -l; bash completion
	scdoc man-db bash-completion
	# runtime: pasta backs the jail's network namespace
	passt
	# integration tests: namespaces, veth, real clients
	iproute2 util-linux procps curl socat iperf3 hyperfine tmux
	# the simulated host's resolver (dnsmasq) and a real DNS client (dig)
	# for the forwarder's tests
	dnsmasq-base bind9-dnsutils
	# counting the supervisor's system calls (test_relay.sh)
	strace
	# bubblewrap inside the jail (Claude Code's own sandbox uses it)
	bubblewrap
	# the container suite: the runtimes the README's commands name (runc:
	# crun cannot raise RLIMIT_MEMLOCK without CAP_SYS_RESOURCE), Podman's
	# CNI bridge, and the image's root file system from the Debian mirror
	podman docker.io runc containernetworking-plugins mmdebstrap
	# scripts/build-pasta.sh (a current pasta from Debian 13's source, so
	# the suite runs with both), and `strings` to read pasta's version
	xz-utils binutils
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages: ${missing[*]}; run as root (sudo $0)" >&2
	exit 1
fi

echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
