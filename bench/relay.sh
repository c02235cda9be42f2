#!/usr/bin/env bash
# relay.sh - the local-port relay against its peer, pasta's own splice
# forwarder (pasta -T on the same host port), direct loopback and socat
#
# In the integration tests' simulated host (root; nothing leaves the machine):
#   throughput  iperf3 to the host's 127.0.0.1:5201: directly on the host,
#               from a pasta namespace through pasta -T, through a socat
#               relay on the host, and from inside the jail through
#               ebpfjail's local-port relay
#   round trip  1-byte request/response to an echo server on the host's
#               127.0.0.1:7001 that adds no process hop of its own (socat
#               PIPE, TCP_NODELAY): directly, through pasta -T, through the
#               relay
# Prints ROW lines for bench/run.sh (name, unit, value, baseline, target);
# the targets are SPEC.md's Performance section.
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

# pasta_peer PORT COMMAND...: COMMAND in a pasta namespace whose PORT is
# pasta's splice forward (-T) to the host's 127.0.0.1:PORT
pasta_peer() {
	local port=$1
	shift
	nsenter -t "$HOST" -n -- pasta --config-net --runas 0 -q -T "$port" -- "$@" 2>/dev/null
}
iperf_server
pasta_tput=$(pasta_peer 5201 iperf3 -c 127.0.0.1 -p 5201 -t "$SECONDS_PER_RUN" -f g | gbits)

nsenter -t "$HOST" -n -- socat TCP-LISTEN:7001,bind=127.0.0.1,fork,reuseaddr,nodelay PIPE </dev/null >/dev/null 2>&1 &
NETSIM_PIDS+=($!)
sleep 0.2
us() { awk '{ print $2 / 1000 }'; }
rr_direct=$(nsenter -t "$HOST" -n -- "$T/probe" rr:127.0.0.1:7001 | us)
rr_pasta=$(pasta_peer 7001 "$T/probe" rr:127.0.0.1:7001 | us)
jail --local-port 7001 -- "$T/probe" rr:127.0.0.1:7001
rr_relay=$(us <"$T/out")

row "relay vs pasta -T (throughput)" Gbit/s "$relay" "$pasta_tput" ">=1.1"
row "relay vs direct loopback" Gbit/s "$relay" "$direct" ">=0.85"
row "relay vs socat relay" Gbit/s "$relay" "$socat_relay" ">=3"
row "relay round trip vs pasta -T" us "$rr_relay" "$rr_pasta" "<=1.2"
row "relay round trip vs direct" us "$rr_relay" "$rr_direct" "-"
