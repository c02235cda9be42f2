#!/usr/bin/env bash
# jail.sh - whole-jail benchmarks in the simulated network (root), in
# rounds (bench/lib.sh)
#
#   throughput  iperf3 from the jail to the simulated internet through the
#               tap with the TC filter, and with a switch before it letting
#               frames past it: the two take turns in phases of a quarter
#               second inside one long run, a round 24 phases; judged per
#               CPU second (the phases' bytes over CPU time) of the busiest
#               of iperf3's client, pasta and iperf3's server, and of the
#               three together; the wall clock's rate beside them
#   start-up    `ebpfjail run -- true` vs. `pasta --config-net --runas 0 --
#               true` (Debian 12's pasta needs --runas 0 as root): a round
#               is hyperfine with a few runs of each, the order alternating
#   flood       4 processes sending denied datagrams to 50 destinations in
#               turn, as fast as they can: the rate (timed inside the jail),
#               whether the audit log's counts per destination are exact
#               (in every round), what was lost, how many records it took
#   memory      the supervisor's peak RSS with 1,000 relay connections open
#               (once: a peak, not a comparison)
# Prints lines for bench/run.sh. BENCH_SMOKE=1 makes each one short.
source "$(dirname "$0")/lib.sh"
if [ "${BENCH_SMOKE:-}" = 1 ]; then runs=1 flood=80000 many=100; else runs=5 flood=2000000 many=1000; fi

# SPEC.md's tap target (>= 0.97x) is judged on the throughput at equal CPU
# (below: the wall clock's throughput wanders too widely here to decide 3%)
want tapcpu "tap throughput per CPU second of the busiest process, TC filter vs none (tap MTU 1500)" Gbit/CPU-s ">=0.97"
want tapall "tap throughput per CPU second of client, pasta and server together" Gbit/CPU-s ">=0.97"
want tap "tap throughput, wall clock, TC filter vs none" Gbit/s -
want stalls_filtered "tap: stalls in a filtered phase (round again)" stalls -
want stalls_bare "tap: stalls in a phase without filter (round again)" stalls -
want tapdrops "tap: the TC filter's denial records in those runs" records "==0"
want tapshot "tap: frames dropped at jail0's TC egress (the kernel's count)" frames "==0"
want startup "start-up, run -- true vs pasta" ms "<=1.2"
want rate "denied sends/s, 4 processes x 50 destinations" sends/s ">=1000000"
want exact "denial flood: destinations counted exactly" dest. "==1"
want lost "denial flood: denials lost" denials "==0"
want records "denial flood: records for $flood denials" records -
want peak "supervisor peak RSS, $many relay connections" MiB "<16"
want rss "supervisor RSS after them" MiB -
bench_netsim

# Throughput through the tap. pasta's tap path drops frames under an
# unbounded window (retransmits, 1 s stalls, 0.1-6 Gbit/s from run to run),
# so the window is fixed at 512 KiB, where it mostly runs without
# retransmits. Whole runs one after the other still differ by 20% and more
# here with nothing changed between them (the machine's speed wanders from
# second to second): more than the 3% the target allows. So the two
# variants take turns inside one long run, as the connect() rows take turns
# block by block: while the jail's agent runs iperf3, a switch before the
# jail's filter on jail0 (bench/tapswitch.bpf.c) lets frames past it or
# hands them on to it, flipped from outside (root) by a map update, for
# phases of tap_phase seconds; each phase's rate is the bytes jail0 sent in
# it (retransmits included) over its time. A round is tap_n_phases phases
# (ABBA ABBA ..., BAAB ... in even rounds), and a variant's figure in it
# the median of its phases' rates, so a dip of pasta's (a phase at half
# speed) falls on a phase or two, not on the figure. Rounds follow each
# other in the same run. A phase with less than a tenth of the run's best
# is a stall (pasta lost a burst: RTO backoff, seconds of nothing; a third
# of 12-second runs did here, the switch flipped or not): the jail is ended
# and the round starts again in a new one, up to tap_tries times. The rows
# below the throughput count the stalls by the variant whose phase they
# began in: a filter that dropped packets itself would show there.
# Data per CPU second: the same phases, each one's bytes over the CPU time a
# process ran in it (schedstat of every thread, ns), summed by variant over
# the round. These stand in for the throughput SPEC.md names, at equal CPU,
# and carry its target twice. The filter runs where TCP sends: in the
# client's sendmsg(), and in pasta's write() for the sends clocked by the
# ACKs pasta writes into the tap. Of the busiest process (the most CPU time
# per wall second over the round), the serial step the throughput waits on:
# pasta in every round here (0.86 CPU seconds a second, the client 0.30, the
# server 0.23), so the filter's cost there counts in full, not diluted by
# the others' CPU time. Of the three together, so that the client's share
# counts too. The wall clock's throughput is shown, without a target: here
# it wanders by a factor of two from second to second with no retransmit at
# all (iperf3 in a jail, 1.3 to 3.2 Gbit/s within one 4 s run), and a dip is
# mostly all three waiting (a loss, a hiccup of pasta's, another job's
# turn), which costs no CPU. Judged on it, the row stayed undecided at 41
# rounds in 4 of 15 runs, and at 81 when tried (rounds' standard deviation
# 0.07 to 0.18); per CPU second of the busiest they spread 0.05, of the
# three together 0.03 to 0.04. A drop costs no CPU either, and is not in
# these figures: the kernel's count of what jail0's TC egress dropped must
# be 0 (tap_end(), the tapshot row). No softirq time escaped to ksoftirqd in
# these runs. The agent of a jail runs iperf3 whenever $T/go.K appears (K
# from its first argument on), until $T/stop does.
pin=/sys/fs/bpf/ebpfjail-bench-$$ agent= tap_job= tap_k=0 tap_going= tap_best=0 tap_stalled= tap_tries=10 tap_shot=
tap_server= tap_tasks=()
tap_phase=0.25
bench_at_exit() { rm -rf "$pin" "$pin-maps"; }
if [ "${BENCH_SMOKE:-}" = 1 ]; then tap_n_phases=2; else tap_n_phases=24; fi
mkdir -p "$T/agent" && chown 4242 "$T/agent"
cat >"$T/tap.sh" <<EOF
k=\$1
while :; do
	for i in \$(seq 1 1200); do [ -e $T/go.\$k ] || [ -e $T/stop ] && break; sleep 0.05; done
	[ -e $T/go.\$k ] || exit 0
	timeout 960 iperf3 -c 198.51.100.7 -p 5201 -t 900 -w 512K -f m >$T/agent/run.\$k 2>&1
	touch $T/agent/done.\$k
	k=\$((k + 1))
done
EOF
tc_in_jail() { nsenter -t "$agent" -n -- tc "$@"; }

# tap_setup: the iperf3 server (once), a jail, the switch before its
# filter, checked. Return: 1, with the reason on stderr; 2 if pasta stalled
# before the check could see traffic (tap_check_switch()).
tap_setup() {
	local i
	if [ -z "$tap_server" ]; then
		nsenter -t "$INET" -n -- iperf3 -s -B 198.51.100.7 -p 5201 >/dev/null 2>&1 &
		tap_server=$!
		NETSIM_PIDS+=($!)
		_expect_listener "$INET" tcp 198.51.100.7 5201
		# a subshell: fail's exit ends the round (FAILED rows), not the script
		(_wait_listening "$INET") || return 1
	fi
	rm -f "$T/stop"
	jail_cmd -- sh "$T/tap.sh" $((tap_k + 1)) >"$T/tap.out" 2>&1 &
	tap_job=$!
	# "^sh": the agent, not the command line of the `ebpfjail run` that
	# started it (which ends with the same words)
	for i in $(seq 1 200); do agent=$(pgrep -n -u 4242 -f "^sh $T/tap.sh") && break; sleep 0.05; done
	[ -n "$agent" ] || { echo "tap: the jail's agent did not start: $(last_words "$T/tap.out")" >&2; return 1; }
	tc_in_jail filter show dev jail0 egress | grep -q 'jail_tc_egress.* direct-action' ||
		{ echo "tap: no TC filter of the jail's on its jail0" >&2; return 1; }
	bpftool prog load "$BUILD/bench/tapswitch.bpf.o" "$pin" type classifier pinmaps "$pin-maps" &&
		tc_in_jail filter add dev jail0 egress pref 1 bpf direct-action pinned "$pin" ||
		{ echo "tap: cannot put the switch before the jail's filter" >&2; return 1; }
	tap_start || return 1
	tap_check_switch
}

# tap_end: the run going stopped, the frames jail0's TC egress dropped
# added to tap_shot (tap_count_shot), the jail ended, the switch's pins
# gone. Return: 1, with the reason on stderr, if the run did not end.
tap_end() {
	local rc=0
	[ -z "$tap_going" ] || tap_stop || rc=1
	tap_count_shot
	touch "$T/stop"
	[ -n "$tap_job" ] && wait "$tap_job" 2>/dev/null
	tap_job= agent=
	bench_at_exit
	return "$rc"
}

# tap_count_shot: the frames the jail's jail0 dropped at TC egress, added
# to tap_shot. The kernel counts every TC_ACT_SHOT on the clsact qdisc,
# whether the filter wrote a record of it or not. tap_shot is empty until
# a jail's count is read, and "unread" for good once one could not be (a
# jail that died): neither is a count of 0.
tap_count_shot() {
	local shot
	[ -n "$agent" ] || return 0 # no jail started
	shot=$(tc_in_jail -s qdisc show dev jail0 | awk '/^qdisc/ { c = /^qdisc clsact/; next }
		c && match($0, /dropped [0-9]+/) { print substr($0, RSTART + 8, RLENGTH - 8); exit }')
	if [ "$tap_shot" != unread ] && [[ $shot =~ ^[0-9]+$ ]]; then
		tap_shot=$((${tap_shot:-0} + 10#$shot))
	else
		tap_shot=unread
	fi
}

# tap_filter VARIANT: frames through the jail's filter (filtered) or past
# it (bare). Return: bpftool's status.
tap_filter() {
	bpftool map update pinned "$pin-maps/tap_bypass" key 0 0 0 0 value "$([ "$1" = bare ] && echo 1 || echo 0)" 0 0 0
}

# tap_sent VAR: "BYTES USEC CLIENT_NS PASTA_NS SERVER_NS" in VAR, jail0's
# transmitted bytes, the time, and the CPU time each process of
# tap_tasks[] has run, read together by the shell itself (no fork: nothing
# between them). Return: 1 if jail0's counters cannot be read (the jail is
# gone); 2 if a thread of the run is gone (its client ended: the run did).
tap_sent() {
	local name rest bytes i task ns cpu=()
	for i in "${!tap_tasks[@]}"; do
		cpu[i]=0
		# every thread (iperf3 runs one per stream since 3.16): words
		# of /proc paths, split on purpose
		for task in ${tap_tasks[i]}; do
			read -r ns _ <"$task/schedstat" || return 2
			cpu[i]=$((cpu[i] + ns))
		done 2>/dev/null
	done
	while read -r name rest; do
		[ "$name" = jail0: ] || continue
		read -r _ _ _ _ _ _ _ _ bytes _ <<<"$rest"
		printf -v "$1" '%s %s %s' "$bytes" "${EPOCHREALTIME/./}" "${cpu[*]}"
		return 0
	done </proc/"$agent"/net/dev
	return 1
}

# tap_start: a new iperf3 run of the jail's agent, past its slow start, and
# the threads that move its bytes in tap_tasks[] (the client's, pasta's,
# the server's). Return: 1, with the reason on stderr, if the jail is
# gone, or the run's client, pasta or server is not there, one each (a
# client that could not connect has ended: no stall, a fault).
tap_start() {
	local pids p
	tap_k=$((tap_k + 1))
	touch "$T/go.$tap_k"
	sleep 1.5
	kill -0 "$tap_job" 2>/dev/null || { tap_gone; return 1; }
	tap_going=1 tap_best=0
	# the processes that move the bytes: this jail's iperf3 (under its
	# agent's timeout), its pasta (the only one in the simulated host),
	# the server; their threads, for tap_sent()
	pids=("$(pgrep -x iperf3 -P "$(pgrep -x timeout -P "$agent")")" "$(pasta_pids)" "$tap_server")
	tap_tasks=()
	for p in "${pids[@]}"; do
		[[ $p =~ ^[0-9]+$ ]] ||
			{ echo "tap: not one client, pasta and server: '${pids[0]}' '${pids[1]}' '${pids[2]}'" >&2; return 1; }
		tap_tasks+=("$(echo /proc/"$p"/task/*)")
	done
}

# tap_stop: the jail's run $tap_k ended (its iperf3 stopped: the agent's
# timeout passes the TERM on). Return: 1, with the reason on stderr, if it
# did not end.
tap_stop() {
	local i
	tap_going=
	pkill -P "$agent" -x timeout
	for i in $(seq 1 200); do
		[ -e "$T/agent/done.$tap_k" ] || ! kill -0 "$tap_job" 2>/dev/null && break
		sleep 0.05
	done
	[ -e "$T/agent/done.$tap_k" ] && return 0
	kill -0 "$tap_job" 2>/dev/null || { tap_gone; return 1; }
	echo "tap: the jail's run $tap_k did not end" >&2
	return 1
}

# tap_gone: why the jail ended, on stderr (once: tap_job is then empty).
# Return: 1.
tap_gone() {
	local rc
	[ -n "$tap_job" ] || return 1
	wait "$tap_job"
	rc=$?
	tap_job=
	if [ "$rc" -gt 128 ]; then # what it printed last says nothing of why
		echo "tap: the jail was killed (exit $rc$(exit_signal "$rc"))" >&2
	else
		echo "tap: the jail ended (exit $rc): $(last_words "$T/tap.out")" >&2
	fi
	return 1
}

# tap_measure K: a round's phases in the run going, "VARIANT KBIT/S BYTES
# USEC CLIENT_NS PASTA_NS SERVER_NS" lines in $T/phases. Return: 1, with
# the reason on stderr, if one could not be measured; 2, with the stalled
# phase's variant in tap_stalled, if the run stalled or ended (the phases
# so far are moot).
tap_measure() {
	local p v a b a0 a1 a2 a3 a4 b0 b1 b2 b3 b4 rate rc
	: >"$T/phases"
	for p in $(seq 1 "$tap_n_phases"); do
		v=$(order $((p / 2 + $1)) filtered bare)
		v=${v%% *}
		tap_filter "$v" || { echo "tap: cannot set the filter to $v" >&2; return 1; }
		tap_sent a && sleep "$tap_phase" && tap_sent b
		rc=$?
		if [ "$rc" != 0 ]; then
			kill -0 "$tap_job" 2>/dev/null || tap_gone || return 1
			[ "$rc" = 2 ] && { tap_stalled=$v; return 2; }
			echo "tap: jail0's counters cannot be read" >&2
			return 1
		fi
		read -r a0 a1 a2 a3 a4 <<<"$a"
		read -r b0 b1 b2 b3 b4 <<<"$b"
		rate=$(((b0 - a0) * 8000 / (b1 - a1 + 1))) # kbit/s
		[ "$rate" -gt "$tap_best" ] && tap_best=$rate
		# under a tenth of the run's best, or under 1 Mbit/s (a run
		# that stalled before it was ever measured)
		if [ "$rate" -lt $((tap_best / 10)) ] || [ "$rate" -lt 1000 ]; then
			tap_stalled=$v
			return 2
		fi
		echo "$v $rate $((b0 - a0)) $((b1 - a1)) $((b2 - a2)) $((b3 - a3)) $((b4 - a4))" >>"$T/phases"
	done
}

# tap_check_switch: that the switch does what the variants' names say, in
# the run going: with it off the jail's filter runs for every frame, with it
# on for none (BPF run statistics, on for the check only). Return: 1, with
# the figures on stderr, if not; 2, with the variant in tap_stalled, if
# jail0 moved almost nothing meanwhile (pasta stalled: nothing to check).
tap_check_switch() {
	local v id stats n0 n1 a b a0 a1 b0 b1 ran= rc=0
	id=$(tc_in_jail filter show dev jail0 egress | sed -n 's/.*jail_tc_egress.* id \([0-9]*\) .*/\1/p')
	read -r stats </proc/sys/kernel/bpf_stats_enabled
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
	for v in filtered bare; do
		tap_filter "$v"
		n0=$(bpftool prog show id "$id" | sed -n 's/.* run_cnt \([0-9]*\).*/\1/p')
		if ! { tap_sent a && sleep 0.3 && tap_sent b; }; then
			tap_stalled=$v rc=2 # the jail is gone: tap_end() says why
			break
		fi
		n1=$(bpftool prog show id "$id" | sed -n 's/.* run_cnt \([0-9]*\).*/\1/p')
		ran+=" $v:$((${n1:-0} - ${n0:-0}))"
		# under 1 Mbit/s, as tap_measure() judges a phase
		read -r a0 a1 _ <<<"$a"
		read -r b0 b1 _ <<<"$b"
		[ $(((b0 - a0) * 8000 / (b1 - a1 + 1))) -lt 1000 ] && tap_stalled=$v rc=2
	done
	echo "$stats" >/proc/sys/kernel/bpf_stats_enabled
	[ "$rc" = 2 ] && return 2
	case $ran in
	" filtered:0 "* | *" bare:"[1-9]*) ;;
	*" bare:0") return 0 ;;
	esac
	echo "tap: the switch does not do what it says: the jail's filter (prog $id) ran$ran times in 0.3 s" >&2
	return 1
}

# tap_round K: a round's phases in a run that did not stall (starting a
# new run after each stall, up to tap_tries); each variant's figures: its
# phases' bytes over the busiest process's CPU time and over all three's
# (Gbit per CPU second, the judged rows) and its median phase rate
# (Gbit/s, the wall clock's); each process's CPU seconds a second to
# $T/tap_busy, the busiest's name to $T/tap_busiest. Return: 1, with the
# reason on stderr.
declare -A stalls
tap_round() {
	local try rc=2 rates tf tb bf bb cf cb busiest uc up us
	stalls=([filtered]=0 [bare]=0)
	for try in $(seq 1 $tap_tries); do
		rc=0
		if [ -z "$agent" ]; then
			tap_setup
			rc=$?
		fi
		if [ "$rc" = 0 ]; then
			tap_measure "$1"
			rc=$?
		fi
		[ "$rc" = 1 ] && return 1
		[ "$rc" = 0 ] && break
		stalls[$tap_stalled]=$((stalls[$tap_stalled] + 1))
		echo "tap: run $tap_k stalled in a $tap_stalled phase" >&2
		# A new jail and pasta: after a stall a new run in the same
		# one stalled again at once, six times in a row in one run
		tap_end || return 1
	done
	if [ "$rc" != 0 ]; then
		echo "tap: the run stalled or ended $tap_tries times in a row; the last: $(iperf_says "$T/agent/run.$tap_k")" >&2
		return 1
	fi
	# Gbit per CPU second: of the busiest process (the most CPU time per
	# wall second over the round, both variants), and of all three
	rates=$(awk "$BENCH_AWK_MEDIAN"'{ r[$1, ++n[$1]] = $2 / 1e6; bytes[$1] += $3; usec += $4
			for (i = 5; i <= 7; i++) { cpu[$1, i] += $i; cpu[$1] += $i; busy[i] += $i } }
		function of(k,   a, i) { for (i = 1; i <= n[k]; i++) a[i] = r[k, i]; sorted(a, n[k]); return median(a, n[k]) }
		# per_cpu(K, I): of process I (5 to 7); without I, of all three
		function per_cpu(k, i,   c) { c = i ? cpu[k, i] : cpu[k]; return c ? bytes[k] * 8 / c : 0 }
		END {
			name[5] = "client"; name[6] = "pasta"; name[7] = "server"
			b = 5
			for (i = 6; i <= 7; i++) if (busy[i] > busy[b]) b = i
			printf "%.4f %.4f %.4f %.4f %.4f %.4f %s", of("filtered"), of("bare"),
				per_cpu("filtered", b), per_cpu("bare", b), per_cpu("filtered"), per_cpu("bare"), name[b]
			for (i = 5; i <= 7; i++) printf " %.3f", usec ? busy[i] / usec / 1000 : 0
			printf "\n"
		}' "$T/phases")
	read -r tf tb bf bb cf cb busiest uc up us <<<"$rates"
	sample tapcpu "$bf" "$bb" && sample tapall "$cf" "$cb" && sample tap "$tf" "$tb" &&
		sample stalls_filtered "${stalls[filtered]}" && sample stalls_bare "${stalls[bare]}" || return 1
	printf 'client\t%s\npasta\t%s\nserver\t%s\n' "$uc" "$up" "$us" >>"$T/tap_busy"
	echo "$busiest" >>"$T/tap_busiest"
}
tap_log_start=$(cat "$T/audit.jsonl" 2>/dev/null | wc -l)
: >"$T/tap_busy"
: >"$T/tap_busiest"
# Up to 41 rounds. The filter's cost is 0 to 2% here, 1 to 3% from the
# target. A bootstrap of a 20-round run's rounds decides both judged rows
# within 41 in every run (the busiest's median 1.006, standard deviation
# 0.052, after 7 rounds on average; the three together 1.004, 0.034); the
# three together of a busy run (0.980, 0.035) in 99.7%.
measure -m 41 tap_round tapcpu tapall tap stalls_filtered stalls_bare
tap_end
# How busy each process was, and which one the judged figure was of
note_medians "tap: CPU seconds per second by process, medians" "$T/tap_busy"
[ -s "$T/tap_busiest" ] &&
	echo "NOTE	tap: the busiest process (the judged figure's), by rounds: $(sort "$T/tap_busiest" | uniq -c |
		awk '{ printf "%s%s in %d", (NR > 1 ? ", " : ""), $2, $1 }')"
# What the filter dropped in all those runs, from the jail's audit log
# (written whole by the time the jail ended; a denial counted as "lost"
# has no hook, and these jails deny nothing) and from the kernel's count:
# a filter that dropped any of iperf3's frames FAILs here, whatever the
# rates said, with or without a record of it. (A drop costs no CPU, so the
# rates per CPU second would not show it.)
tap_records_round() {
	sample tapdrops "$(tail -n +$((tap_log_start + 1)) "$T/audit.jsonl" | grep -c -e '"hook": "tc"' -e '"lost":')"
}
measure -n 1 tap_records_round tapdrops
tap_shot_round() {
	case $tap_shot in
	'') echo "tap: no jail's TC egress counters were read (none started)" >&2; return 1 ;;
	unread) echo "tap: a jail's TC egress counters could not be read (the jail was gone)" >&2; return 1 ;;
	esac
	sample tapshot "$tap_shot"
}
measure -n 1 tap_shot_round tapshot

# start-up: each command run as the jail's user would through sudo
printf 'exec nsenter -t %s -n -- env SUDO_UID=4242 SUDO_GID=4242 %s run --config %s -- /bin/true\n' \
	"$HOST" "$EBPFJAIL" "$T/jail.conf" >"$T/j.sh"
printf 'exec nsenter -t %s -n -- pasta --config-net --runas 0 -q -- /bin/true\n' "$HOST" >"$T/p.sh"
startup_round() {
	local cmds=() v means
	for v in $(order "$1" j p); do cmds+=("sh $T/$v.sh"); done
	rm -f "$T/hf.json"
	ran "start-up: hyperfine" unshare --mount --propagation private -- sh -c '
		mount --bind "$0/resolv.conf" /etc/resolv.conf &&
		exec hyperfine -N --warmup 1 --runs "$1" --export-json "$0/hf.json" "$2" "$3"' \
		"$T" "$runs" "${cmds[@]}" || return 1
	# "command" then "mean" per result: ms, by script
	means=$(awk -F'"' '/"command":/ { c = $4 } /"mean":/ { split($3, m, /[:,]/); print c, m[2] * 1000 }' \
		"$T/hf.json")
	sample startup "$(echo "$means" | awk '$2 ~ /j\.sh$/ { print $3 }')" \
		"$(echo "$means" | awk '$2 ~ /p\.sh$/ { print $3 }')"
}
measure startup_round startup

# denial flood: 4 processes, 50 destinations each in turn
cat >"$T/flood.sh" <<EOF
start=\$(date +%s.%N)
for i in 1 2 3 4; do PROBE_FLOOD=$((flood / 4)) PROBE_FLOOD_ADDRS=50 $T/probe flood:10.99.0.1:5353 & done
wait
echo "elapsed \$start \$(date +%s.%N)"
EOF
flood_round() {
	local rate records lost exact
	rm -f "$T"/audit.jsonl*
	jailed "the flood" -- sh "$T/flood.sh" || return 1
	rate=$(awk -v n="$flood" '$1 == "elapsed" { printf "%.0f", n / ($3 - $2) }' "$T/out")
	cat "$T"/audit.jsonl* >"$T/flood.jsonl" 2>/dev/null
	records=$(grep '"reason"' "$T/flood.jsonl" | grep -vc '"lost"')
	lost=$(lost_count <"$T/flood.jsonl")
	exact=$(denial_counts daddr <"$T/flood.jsonl" | awk -v want=$((flood / 50)) '$2 == want { n++ } END { print n + 0 }')
	sample rate "$rate" && sample exact "$exact" 50 && sample lost "$lost" && sample records "$records"
}
measure flood_round rate exact lost records

# memory with 1,000 relay connections
nsenter -t "$HOST" -n -- socat -t 30 "TCP-LISTEN:7001,bind=127.0.0.1,fork,reuseaddr,backlog=2048" EXEC:cat \
	</dev/null >/dev/null 2>&1 &
NETSIM_PIDS+=($!)
_expect_listener "$HOST" tcp 127.0.0.1 7001
mem_server=ok
(_wait_listening "$HOST") || mem_server=down # memory_round says so
cat >"$T/agent.sh" <<EOF
PROBE_MANY=$many $T/probe many:127.0.0.1:7001 >$T/agent/many.out
touch $T/agent/done
for i in \$(seq 1 200); do [ -e $T/end ] && break; sleep 0.05; done
EOF
memory_round() {
	local i job sup hwm rss
	[ "$mem_server" = ok ] || { echo "memory: the host's server on 127.0.0.1:7001 did not listen" >&2; return 1; }
	rm -f "$T/agent/done" "$T/end"
	jail_cmd --local-port 7001 -- sh "$T/agent.sh" >"$T/mem.out" 2>&1 &
	job=$!
	for i in $(seq 1 1200); do [ -e "$T/agent/done" ] && break; sleep 0.05; done
	sup=$(supervisor_pid)
	hwm=$(awk '/VmHWM/ { print $2 / 1024 }' "/proc/$sup/status" 2>/dev/null)
	rss=$(awk '/VmRSS/ { print $2 / 1024 }' "/proc/$sup/status" 2>/dev/null)
	touch "$T/end"
	wait "$job" 2>/dev/null
	[ -e "$T/agent/done" ] || { echo "memory: the agent's connections did not finish: $(last_words "$T/mem.out")" >&2; return 1; }
	awk '$2 == "ok" { ok = 1 } END { exit !ok }' "$T/agent/many.out" ||
		{ echo "memory: the relay connections: $(last_words "$T/agent/many.out")" >&2; return 1; }
	sample peak "$hwm" && sample rss "$rss"
}
measure -n 1 memory_round peak rss
