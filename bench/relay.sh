#!/usr/bin/env bash
# relay.sh - relay throughput and latency vs direct loopback and a socat relay
#
# In the integration tests' simulated host (root; nothing leaves the machine):
#   throughput  iperf3 to the host's 127.0.0.1:5201: directly on the host,
#               through a socat relay on the host, and from inside the jail
#               through ebpfjail's local-port relay
#   latency     1-byte request/response round trips to an echo server on
#               the host's 127.0.0.1:7001: directly, and through the relay
# Prints ROW lines for bench/run.sh (name, unit, value, baseline, target).
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
export PROBE_RR=${PROBE_RR:-20000}
source "$(dirname "$0")/lib.sh"

iperf_server() { # one client, then exit
	nsenter -t "$HOST" -n -- iperf3 -s -1 -B 127.0.0.1 -p 5201 >/dev/null 2>&1 &
	sleep 0.3
}

iperf_server
direct=$(nsenter -t "$HOST" -n -- iperf3 -c 127.0.0.1 -p 5201 -t "$SECONDS_PER_RUN" -f g | gbits)
iperf_server
nsenter -t "$HOST" -n -- socat TCP-LISTEN:5202,bind=127.0.0.1,reuseaddr,fork TCP:127.0.0.1:5201 &
NETSIM_PIDS+=($!)
sleep 0.2
socat_relay=$(nsenter -t "$HOST" -n -- iperf3 -c 127.0.0.1 -p 5202 -t "$SECONDS_PER_RUN" -f g | gbits)
iperf_server
jail --local-port 5201 -- iperf3 -c 127.0.0.1 -p 5201 -t "$SECONDS_PER_RUN" -f g
relay=$(gbits <"$T/out")

nsenter -t "$HOST" -n -- socat TCP-LISTEN:7001,bind=127.0.0.1,fork,reuseaddr EXEC:cat &
NETSIM_PIDS+=($!)
sleep 0.2
rr_direct=$(nsenter -t "$HOST" -n -- "$T/probe" rr:127.0.0.1:7001 | awk '{ print $2 }')
jail --local-port 7001 -- "$T/probe" rr:127.0.0.1:7001
rr_relay=$(awk '{ print $2 }' "$T/out")

row "relay vs direct loopback" Gbit/s "$relay" "$direct" ">=0.90"
row "relay vs socat relay" Gbit/s "$relay" "$socat_relay" ">=3"
row "relay round trip vs direct" us "$(awk -v x="$rr_relay" 'BEGIN { print x / 1000 }')" \
	"$(awk -v x="$rr_direct" 'BEGIN { print x / 1000 }')" "<=2"
