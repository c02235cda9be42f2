#!/usr/bin/env bash
# jail.sh - whole-jail benchmarks in the simulated network (root)
#
#   throughput  iperf3 from the jail to the simulated internet through the
#               tap with the TC filter, then the same jail with the filter
#               taken off from outside
#   start-up    `ebpfjail run -- true` vs. `pasta --config-net --runas 0 --
#               true` (Debian 12's pasta needs --runas 0 as root), hyperfine
#   flood       4 processes sending denied datagrams to 50 destinations in
#               turn, as fast as they can: the rate (timed inside the jail),
#               whether the audit log's counts per destination are exact,
#               what was lost, how many records it took
#   memory      the supervisor's peak RSS with 1,000 relay connections open
# Prints ROW lines for bench/run.sh. BENCH_SMOKE=1 makes each one short.
set -u
if [ "${BENCH_SMOKE:-}" = 1 ]; then secs=1 pairs=1 runs=3 flood=80000 many=100; else secs=2 pairs=8 runs=20 flood=4000000 many=1000; fi
source "$(dirname "$0")/lib.sh"

# throughput through the tap: one jail, runs with its TC filter and with the
# filter taken off from outside (root) in A-B-B-A order so drift cancels,
# median of each. pasta's
# tap path drops frames under an unbounded window (retransmits, 1 s stalls,
# 0.1-6 Gbit/s from run to run), so the window is fixed at 512 KiB, where
# it runs without retransmits on this kind of machine.
nsenter -t "$INET" -n -- iperf3 -s -B 198.51.100.7 -p 5201 >/dev/null 2>&1 &
NETSIM_PIDS+=($!)
sleep 0.3
mkdir -p "$T/agent" && chown 4242 "$T/agent"
cat >"$T/tap.sh" <<EOF
for k in \$(seq 1 $((2 * pairs))); do
	for i in \$(seq 1 400); do [ -e $T/go.\$k ] && break; sleep 0.05; done
	iperf3 -c 198.51.100.7 -p 5201 -t $secs -O 1 -w 512K -f g >$T/agent/run.\$k
	touch $T/agent/done.\$k
done
EOF
jail_cmd -- sh "$T/tap.sh" >/dev/null 2>&1 &
job=$!
for i in $(seq 1 200); do agent=$(pgrep -n -u 4242 -f "sh $T/tap.sh") && break; sleep 0.05; done
pin=/sys/fs/bpf/ebpfjail-bench-$$
tc_in_jail() { nsenter -t "$agent" -n -- tc "$@"; }
id=$(tc_in_jail filter show dev jail0 egress | sed -n 's/.* id \([0-9]*\).*/\1/p')
bpftool prog pin id "$id" "$pin"
filtered= bare=
for k in $(seq 1 $((2 * pairs))); do
	filter=$(( (k / 2 + 1) % 2 ))	# 1 0 0 1 1 0 0 1 ...
	if [ "$filter" = 1 ]; then
		tc_in_jail filter show dev jail0 egress | grep -q "id $id" ||
			tc_in_jail filter add dev jail0 egress bpf direct-action pinned "$pin"
	else
		tc_in_jail filter del dev jail0 egress
	fi
	touch "$T/go.$k"
	for i in $(seq 1 $((secs * 40 + 240))); do [ -e "$T/agent/done.$k" ] && break; sleep 0.05; done
	g=$(gbits <"$T/agent/run.$k")
	if [ "$filter" = 1 ]; then filtered="$filtered $g"; else bare="$bare $g"; fi
done
rm -f "$pin"
wait "$job" 2>/dev/null
row "tap throughput, TC filter vs none (MTU 65520)" Gbit/s "$(echo "$filtered" | median)" \
	"$(echo "$bare" | median)" ">=0.97"
rm -rf "$T/agent" "$T"/go.*

# start-up
printf 'exec nsenter -t %s -n -- env SUDO_UID=4242 SUDO_GID=4242 %s run --config %s -- /bin/true\n' \
	"$HOST" "$EBPFJAIL" "$T/jail.conf" >"$T/j.sh"
printf 'exec nsenter -t %s -n -- pasta --config-net --runas 0 -q -- /bin/true\n' "$HOST" >"$T/p.sh"
unshare --mount --propagation private -- sh -c 'mount --bind "$0/resolv.conf" /etc/resolv.conf &&
	exec hyperfine -N --warmup 2 --runs "$1" --export-json "$0/hf.json" "sh $0/j.sh" "sh $0/p.sh"' \
	"$T" "$runs" >/dev/null 2>&1
means=$(sed -n 's/.*"mean": \([0-9.e-]*\).*/\1/p' "$T/hf.json" | awk '{ printf "%s ", $1 * 1000 }')
row "start-up, run -- true vs pasta" ms "${means%% *}" "$(echo "$means" | awk '{ print $2 }')" "<=1.2"

# denial flood: 4 processes, 50 destinations each in turn
rm -f "$T"/audit.jsonl*
cat >"$T/flood.sh" <<EOF
start=\$(date +%s.%N)
for i in 1 2 3 4; do PROBE_FLOOD=$((flood / 4)) PROBE_FLOOD_ADDRS=50 $T/probe flood:10.99.0.1:5353 & done
wait
echo "elapsed \$start \$(date +%s.%N)"
EOF
jail -- sh "$T/flood.sh"
rate=$(awk -v n="$flood" '$1 == "elapsed" { printf "%.0f", n / ($3 - $2) }' "$T/out")
cat "$T"/audit.jsonl* >"$T/flood.jsonl" 2>/dev/null
records=$(grep '"reason"' "$T/flood.jsonl" | grep -vc '"lost"' || true)
lost=$(lost_count <"$T/flood.jsonl")
exact=$(denial_counts daddr <"$T/flood.jsonl" | awk -v want=$((flood / 50)) '$2 == want { n++ } END { print n + 0 }')
row "denied sends/s, 4 processes x 50 destinations" sends/s "${rate:-0}" 0 ">=1000000"
row "denial flood: destinations counted exactly" dest. "$exact" 50 "==1"
row "denial flood: denials lost" denials "$lost" 0 "==0"
row "denial flood: records for $flood denials" records "$records" 0 "-"

# memory with 1,000 relay connections
host_echo() {
	nsenter -t "$HOST" -n -- socat -t 30 "TCP-LISTEN:7001,bind=127.0.0.1,fork,reuseaddr,backlog=2048" EXEC:cat \
		</dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	sleep 0.3
}
host_echo
mkdir -p "$T/agent" && chown 4242 "$T/agent"
cat >"$T/agent.sh" <<EOF
PROBE_MANY=$many $T/probe many:127.0.0.1:7001 >$T/agent/many.out
touch $T/agent/done
for i in \$(seq 1 200); do [ -e $T/end ] && break; sleep 0.05; done
EOF
jail_cmd --local-port 7001 -- sh "$T/agent.sh" >/dev/null 2>&1 &
job=$!
for i in $(seq 1 1200); do [ -e "$T/agent/done" ] && break; sleep 0.05; done
sup=$(pgrep -n -x ebpfjail)
hwm=$(awk '/VmHWM/ { print $2 / 1024 }' "/proc/$sup/status")
rss=$(awk '/VmRSS/ { print $2 / 1024 }' "/proc/$sup/status")
touch "$T/end"
wait "$job" 2>/dev/null
row "supervisor peak RSS, $many relay connections" MiB "$hwm" 0 "<16"
row "supervisor RSS after them" MiB "$rss" 0 "-"
