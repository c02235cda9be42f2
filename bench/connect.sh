#!/usr/bin/env bash
# connect.sh - connect() under the BPF engine's socket hooks (bench-connect)
# and the rootless engine's rules (bench-nft), in rounds (bench/lib.sh)
#
#   hooks     a round: bare, default and large (10,000 allow-ip + 10,000
#             block-cidr), N TCP and 10 N UDP connects each, taking turns
#             in 10 blocks (each variant's worker stays in its cgroup)
#   start-up  the BPF share of a jail's start, median of 21 (one run)
#   swaps     a 100,000-entry policy swapped in back to back, UDP connect()
#             meanwhile vs. quiet: 3 rounds (compiling it takes seconds)
#   rootless  a round: bare and default, 2 N connects each, taking turns
#             in 20 blocks; large (a 20,000-entry ruleset) against bare in
#             rounds of its own, 3 of one block each (nft takes seconds to
#             load so many interval elements, and a turn reloads them)
# The connect figures are CPU time (bench_cpu_ns() in bench/benchutil.c says
# why): what the hooks cost, not how many time slices the machine's other
# jobs took meanwhile.
# Prints lines for bench/run.sh; the targets are SPEC.md's Performance
# section. BENCH_SMOKE=1: small N and policies, one round.
source "$(dirname "$0")/lib.sh"
if [ "${BENCH_SMOKE:-}" = 1 ]; then
	n=200 blocks=2 startups=3 entries=1000 nft_large=100 slow=1 nft_n=200 nft_blocks=2
else
	n=4000 blocks=10 startups=21 entries=100000 nft_large=10000 slow=3
	# the rootless figures wander more: twice the connects, in shorter turns
	nft_n=8000 nft_blocks=20
fi

want load "BPF load (loader_open)" ms -
want attach "BPF load, empty policy, attach" ms -
want default "connect(), default policy" ns "<=1.10"
want large "connect(), 10k allow + 10k block" ns "<=1.15"
want udp_default "UDP connect() alone, default" ns -
want udp_large "UDP connect() alone, 20k entries" ns -
want swap "policy swap, $entries entries" ms -
want swap_udp "UDP connect() during policy swaps" ns -
want nft_default "rootless engine: connect(), default policy" ns "<=1.10"
want nft_large "rootless engine: connect(), $((2 * nft_large)) entries" ns -

# figures WHAT COMMAND...: COMMAND's FIG lines into fig[KEY]. Return: 1,
# with its last words on stderr, if it fails.
declare -A fig
figures() {
	local tag key value
	ran "$@" || return 1
	fig=()
	while IFS=$'\t' read -r tag key value; do
		[ "$tag" = FIG ] && fig[$key]=$value
	done <"$T/out"
}
connect=$BUILD/bench/bench-connect

startup_round() {
	figures bench-connect "$connect" startup "$startups" || return 1
	sample load "${fig[load]:-}" && sample attach "${fig[attach]:-}"
}

hooks_round() {
	figures bench-connect "$connect" connect "$n" "$blocks" "$(order "$1" bare default large | tr ' ' ,)" || return 1
	sample default "${fig[tcp.default]:-}" "${fig[tcp.bare]:-}" &&
		sample large "${fig[tcp.large]:-}" "${fig[tcp.bare]:-}" &&
		sample udp_default "${fig[udp.default]:-}" "${fig[udp.bare]:-}" &&
		sample udp_large "${fig[udp.large]:-}" "${fig[udp.bare]:-}"
}

swaps_round() {
	figures bench-connect "$connect" swaps "$n" "$entries" "$(order "$1" quiet busy | tr ' ' ,)" || return 1
	sample swap "${fig[swap]:-}" && sample swap_udp "${fig[udp.busy]:-}" "${fig[udp.quiet]:-}"
}

nft_round() {
	figures bench-nft "$BUILD/bench/bench-nft" "$nft_n" 0 "$nft_blocks" "$(order "$1" bare default | tr ' ' ,)" || return 1
	sample nft_default "${fig[tcp.default]:-}" "${fig[tcp.bare]:-}"
}

nft_large_round() {
	figures bench-nft "$BUILD/bench/bench-nft" "$n" "$nft_large" 1 "$(order "$1" bare large | tr ' ' ,)" ||
		return 1
	sample nft_large "${fig[tcp.large]:-}" "${fig[tcp.bare]:-}"
}

# Start-up first, before the big policies leave the kernel freeing tries.
measure -n 1 startup_round load attach
measure -m 41 hooks_round default large udp_default udp_large
measure -n "$slow" swaps_round swap swap_udp
measure -m 41 nft_round nft_default
measure -n "$slow" nft_large_round nft_large
