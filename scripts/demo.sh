#!/usr/bin/env bash
# demo.sh - `make demo`: ebpfjail run in a simulated network, with a demo agent
#
# Builds the integration tests' simulated host, internet and LAN in throwaway
# namespaces (no packet leaves this machine), runs a demo "agent" in the jail
# that tries the internet, a DNS lookup by name through the jail's own
# forwarder (user/dns/dnsfwd.c, 169.254.1.1:53 in the jail, which asks the
# simulated host's resolver), the LAN, cloud metadata, a VPN route and a
# host loopback service, prints what was allowed and denied, then the audit
# log. Needs root. Everything it creates is removed on exit.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export EBPFJAIL=$top/build/ebpfjail BUILD=$top/build
[ "$(id -u)" -eq 0 ] || { echo "demo.sh: run as root (sudo make demo)" >&2; exit 1; }
T=$(mktemp -d /var/tmp/ebpfjail-demo.XXXXXX) # not /tmp: the agent has its own
export T
source "$top/tests/integration/lib.sh"
source "$top/tests/integration/netsim.sh"
trap 'netsim_down; rm -rf "$T"' EXIT
set -e
netsim_up

cat >"$T/agent.sh" <<EOF
#!/bin/sh
# The demo agent: one line per attempt, from inside the jail.
exec $T/probe tcp:198.51.100.7:80 dns:web.example.test:0 tcp:10.23.0.2:22 \
	tcp:169.254.169.254:80 tcp:198.18.0.10:443 tcp:172.17.0.1:8080 \
	udp:10.23.0.53:53 tcp:127.0.0.1:5432 tcp6:::1:22
EOF
chmod 755 "$T/agent.sh"

echo "== ebpfjail run -- demo-agent (in a simulated host; see tests/integration/netsim.sh)"
jail -- "$T/agent.sh"
describe() {
	case $1 in
	tcp:198.51.100.7:80) echo "a web server on the internet" ;;
	dns:*) n=${1#dns:} && echo "DNS lookup of ${n%:*} through the jail's forwarder" ;;
	tcp:10.23.0.2:22) echo "ssh on the host's LAN" ;;
	tcp:169.254.169.254:80) echo "cloud metadata service" ;;
	tcp:198.18.0.10:443) echo "a network behind the host's VPN route" ;;
	tcp:172.17.0.1:8080) echo "a service on the docker bridge" ;;
	udp:10.23.0.53:53) echo "the host's own resolver, directly" ;;
	tcp:127.0.0.1:5432) echo "127.0.0.1:5432 (the jail's loopback, not the host's)" ;;
	tcp6:::1:22) echo "IPv6 loopback" ;;
	*) echo "$1" ;;
	esac
}
printf '\n%-60s %-14s %s\n' "destination" "result" "time"
while read -r spec result us; do
	case $result in
	ok | sent) verdict="allowed" ;;
	EPERM) verdict="DENIED" ;;
	*) verdict="$result" ;; # a lookup's answer, or what went wrong
	esac
	printf '%-60s %-14s %s us\n' "$(describe "$spec")" "$verdict" "$us"
done <"$T/out"
echo
cat "$T/err"
echo "exit status: $rc"
echo
echo "== the audit log ($T/audit.jsonl; 'ebpfjail audit' will render it)"
cat "$T/audit.jsonl"
