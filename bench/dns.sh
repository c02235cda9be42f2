#!/usr/bin/env bash
# dns.sh - the jail's DNS forwarder against its peer, pasta's own DNS
# forwarder (pasta --dns-forward), in the simulated network (root), in
# rounds (bench/lib.sh)
#
# One client (probe dnsrr) asks A queries one after another for new names
# under bench.test, which the host's resolver (dnsmasq, synth-domain)
# answers with a new address in 11.0.0.0/16 each time (only answers: no
# packet goes there). A round runs each of the three once, the order
# alternating:
#   pasta      through a bare pasta's forwarder to the host's resolver
#   forwarder  through the jail's forwarder, nothing allowed by name
#   allow-host the same with internet = off and allow-host = *.bench.test:
#              every answer is an insertion into the policy before it is
#              released (a wildcard opens internet addresses)
# Prints lines for bench/run.sh; the target is SPEC.md's (<= 1.2x).
source "$(dirname "$0")/lib.sh"
if [ "${BENCH_SMOKE:-}" = 1 ]; then export PROBE_RR=200; else export PROBE_RR=${PROBE_RR:-3000}; fi

want plain "dns round trip, jail forwarder vs pasta's" us "<=1.2"
want named "dns round trip, allow-host insertion each vs pasta's" us "<=1.2"
bench_netsim

# dns_run VARIANT: one client run of VARIANT (pasta, plain, named); its
# mean round trip in us[VARIANT]
declare -A us
dns_run() {
	local ns inserted
	case $1 in
	pasta)
		# The peer, with the simulated host's resolv.conf, as the jail has it.
		ran "pasta's lookups" unshare --mount --propagation private -- sh -c '
			mount --bind "$0/resolv.conf" /etc/resolv.conf &&
			exec nsenter -t "$1" -n -- pasta --config-net --runas 0 -q --dns-forward 169.254.1.1 \
				-- "$0/probe" dnsrr:169.254.1.1:53' "$T" "$HOST" ;;
	plain) jailed "the forwarder" --pass-env PROBE_RR -- "$T/probe" dnsrr:169.254.1.1:53 ;;
	named)
		: >"$T/audit.jsonl"
		jailed "the forwarder with allow-host" --pass-env PROBE_RR --internet off \
			--allow-host '*.bench.test' -- "$T/probe" dnsrr:169.254.1.1:53 || return 1
		inserted=$(grep -c '"dns": "h-11-0-[-0-9]*.bench.test", "addrs": \["11\.0\.' "$T/audit.jsonl")
		[ "$inserted" -ge "$PROBE_RR" ] ||
			{ echo "dns: $inserted insertions for $PROBE_RR answers" >&2; return 1; } ;;
	esac || return 1
	ns=$(probe_figure "the $1 lookups" "$T/out") || return 1
	us[$1]=$(awk -v ns="$ns" 'BEGIN { print ns / 1000 }')
}

dns_round() {
	local v
	for v in $(order "$1" pasta plain named); do dns_run "$v" || return 1; done
	sample plain "${us[plain]}" "${us[pasta]}" && sample named "${us[named]}" "${us[pasta]}"
}
measure -m 41 dns_round plain named
