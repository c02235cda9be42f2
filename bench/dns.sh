#!/usr/bin/env bash
# dns.sh - the jail's DNS forwarder against its peer, pasta's own DNS
# forwarder (pasta --dns-forward), in the simulated network (root)
#
# One client (probe dnsrr) asks A queries one after another for new names
# under bench.test, which the host's resolver (dnsmasq, synth-domain)
# answers with a new address in 11.0.0.0/16 each time (only answers: no
# packet goes there):
#   pasta      through a bare pasta's forwarder to the host's resolver
#   forwarder  through the jail's forwarder, nothing allowed by name
#   allow-host the same with internet = off and allow-host = *.bench.test:
#              every answer is an insertion into the policy before it is
#              released (a wildcard opens internet addresses)
# Prints ROW lines for bench/run.sh; the target is SPEC.md's (<= 1.2x).
set -u
if [ "${BENCH_SMOKE:-}" = 1 ]; then export PROBE_RR=200; else export PROBE_RR=${PROBE_RR:-4000}; fi
source "$(dirname "$0")/lib.sh"

ns() { awk '{ print $2 }'; }
# Rounds of the three in turn, the median of each: one round is a fraction
# of a second, and the figures wander by half from one to the next.
rounds=$([ "${BENCH_SMOKE:-}" = 1 ] && echo 1 || echo 5)
for k in $(seq 1 "$rounds"); do
	# The peer, with the simulated host's resolv.conf, as the jail has it.
	unshare --mount --propagation private -- sh -c '
		mount --bind "$0/resolv.conf" /etc/resolv.conf &&
		exec nsenter -t "$1" -n -- pasta --config-net --runas 0 -q --dns-forward 169.254.1.1 \
			-- "$0/probe" dnsrr:169.254.1.1:53' "$T" "$HOST" 2>/dev/null | ns >>"$T/pasta.ns"
	jail --pass-env PROBE_RR -- "$T/probe" dnsrr:169.254.1.1:53
	ns <"$T/out" >>"$T/plain.ns"
	: >"$T/audit.jsonl"
	jail --pass-env PROBE_RR --internet off --allow-host '*.bench.test' -- "$T/probe" \
		dnsrr:169.254.1.1:53
	ns <"$T/out" >>"$T/named.ns"
	inserted=$(grep -c '"dns": "h-11-0-[-0-9]*.bench.test", "addrs": \["11\.0\.' "$T/audit.jsonl")
	[ "$inserted" -ge "$PROBE_RR" ] ||
		{ echo "dns.sh: $inserted insertions for $PROBE_RR answers" >&2; exit 1; }
done
pasta_ns=$(median <"$T/pasta.ns") plain=$(median <"$T/plain.ns") named=$(median <"$T/named.ns")
for v in "$pasta_ns" "$plain" "$named"; do
	case $v in '' | *[!0-9.]*) echo "dns.sh: a run failed: pasta '$pasta_ns' jail '$plain' named '$named'" >&2; exit 1 ;; esac
done
us() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1000 }'; }
row "dns round trip, jail forwarder vs pasta's" us "$(us "$plain")" "$(us "$pasta_ns")" "<=1.2"
row "dns round trip, allow-host insertion each vs pasta's" us "$(us "$named")" "$(us "$pasta_ns")" "<=1.2"
