#!/usr/bin/env bash
# dns.sh - the jail's DNS forwarder against its peer, pasta's own DNS
# forwarder (pasta --dns-forward), in the simulated network (root)
#
# One client (probe dnsrr) asks A queries one after another for new names
# under bench.test, which the host's resolver (dnsmasq, synth-domain)
# answers with a new address in 10.99.0.0/16 each time:
#   pasta      through a bare pasta's forwarder to the host's resolver
#   forwarder  through the jail's forwarder, nothing allowed by name
#   allow-host the same with allow-host = *.bench.test: every answer is an
#              insertion into the policy before it is released
# Prints ROW lines for bench/run.sh; the target is SPEC.md's (<= 1.2x).
set -u
if [ "${BENCH_SMOKE:-}" = 1 ]; then export PROBE_RR=200; else export PROBE_RR=2000; fi
source "$(dirname "$0")/lib.sh"

ns() { awk '{ print $2 }'; }
# The peer, with the simulated host's resolv.conf, as the jail has it.
pasta_ns=$(unshare --mount --propagation private -- sh -c '
	mount --bind "$0/resolv.conf" /etc/resolv.conf &&
	exec nsenter -t "$1" -n -- pasta --config-net --runas 0 -q --dns-forward 169.254.1.1 \
		-- "$0/probe" dnsrr:169.254.1.1:53' "$T" "$HOST" 2>/dev/null | ns)
jail -- "$T/probe" dnsrr:169.254.1.1:53
plain=$(ns <"$T/out")
jail --allow-host '*.bench.test' -- "$T/probe" dnsrr:169.254.1.1:53
named=$(ns <"$T/out")
inserted=$(grep -c '"dns": "h-10-99-' "$T/audit.jsonl")
for v in "$pasta_ns" "$plain" "$named"; do
	case $v in '' | *[!0-9]*) echo "dns.sh: a run failed: pasta '$pasta_ns' jail '$plain' named '$named'" >&2; exit 1 ;; esac
done
[ "$inserted" -ge "$PROBE_RR" ] || { echo "dns.sh: $inserted insertions for $PROBE_RR answers" >&2; exit 1; }
us() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1000 }'; }
row "dns round trip, jail forwarder vs pasta's" us "$(us "$plain")" "$(us "$pasta_ns")" "<=1.2"
row "dns round trip, allow-host insertion each vs pasta's" us "$(us "$named")" "$(us "$pasta_ns")" "<=1.2"
