# lib.sh - what the benchmark scripts share (sourced): rows measured in
# interleaved rounds and judged in one place, a scratch dir, and the
# simulated network of the integration tests (bench_netsim)
#
# Theory of operation. A script declares its rows first (want KEY NAME UNIT
# TARGET), so that bench/run.sh knows them even if the script dies. Then,
# per group of rows measured together, `measure ROUND KEY...` calls ROUND K
# for round K = 1, 2, ...: a round runs each variant once (the ebpfjail
# path and its baseline; relay.sh: once in each placement on the cores),
# in the order `order K ...` gives, forwards in odd rounds and backwards
# in even ones, so that drift (another job starting on this shared
# machine, a CPU warming up) falls on all of them alike; it
# calls `sample KEY VALUE [BASELINE]` once per row. A row's ratio in a
# round is VALUE / BASELINE (VALUE alone for a row with no baseline).
#
# bench_stats is the judge, the one place the figures become verdicts:
#   - the figure is the median of the rounds' ratios, its spread their
#     minimum..maximum, its interval the median's distribution-free
#     confidence interval of at least 90% (ranks j and n + 1 - j of n sorted
#     rounds, from the sign test's binomial): for 5 rounds, the spread itself
#   - a row is undecided while its target lies inside that interval: at 5
#     rounds, while the spread straddles the target, which is to say the
#     spread is wider than the distance from the median to the target and
#     on both sides of it. The spread itself never narrows with more rounds
#     (a minimum only falls, a maximum only rises); the interval, taken
#     between ranks that move inwards as rounds come, does
#   - rounds: BENCH_MIN_ROUNDS (5), then one more at a time while a row of
#     the group is undecided, up to BENCH_MAX_ROUNDS (15) or the group's own
#     bound (measure -m: 41 for rounds of a few seconds);
#     a row still undecided then is "uncertain" (its median is on either
#     side of the target by chance: no pass or FAIL the next run could
#     turn over). A NOTE line says which rows took more rounds and why
#   - a "==" target (an exact count) is not statistical: it must hold in
#     every round
#   - BENCH_SMOKE=1: one round, no verdicts
# A round that fails (returns non-zero, its reason the last line it wrote
# on stderr) ends its group: the rows are printed failed, with the reason.
#
# Lines for bench/run.sh on stdout: WANT (the declarations), ROW (a judged
# row), FAILED, NOTE.

set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export EBPFJAIL=$top/build/ebpfjail BUILD=$top/build
T=$(mktemp -d /var/tmp/ebpfjail-bench.XXXXXX) # not /tmp: the agent has its own
export T
source "$top/tests/integration/lib.sh"
source "$top/tests/integration/netsim.sh"
# bench_at_exit: what a script leaves outside $T and the simulated network
# (a pin under /sys/fs/bpf), undone; the script redefines it
bench_at_exit() { :; }
trap 'bench_at_exit; netsim_down; rm -rf "$T"' EXIT
: >"$T/want"

if [ "${BENCH_SMOKE:-}" = 1 ]; then
	BENCH_MIN_ROUNDS=${BENCH_MIN_ROUNDS:-1} BENCH_MAX_ROUNDS=${BENCH_MAX_ROUNDS:-1}
else
	BENCH_MIN_ROUNDS=${BENCH_MIN_ROUNDS:-5} BENCH_MAX_ROUNDS=${BENCH_MAX_ROUNDS:-15}
fi

# bench_netsim: the integration tests' simulated host, internet and LAN;
# and $EBPFJAIL where uid 4242's jails (ROOTLESS=1) can run it
bench_netsim() { netsim_up >/dev/null && user_binary "$T" >/dev/null; }

# want KEY NAME UNIT TARGET: declare a row. TARGET: "<=1.10", ">=0.97" or
# "<16" on the ratio (on the figure itself for a row without baseline),
# "==1" in every round, "-" for none
want() {
	printf '%s\t%s\t%s\t%s\n' "$@" >>"$T/want"
	printf 'WANT\t%s\t%s\t%s\t%s\n' "$@"
}

# figure WHAT VALUE: VALUE if it is a number, for $(...). Return: 1, with a
# line on stderr naming WHAT, if it is not (a probe's errno, an empty file)
figure() {
	case $2 in
	'' | *[!0-9.e+-]* | *[!0-9]) echo "$1: '$2' is not a figure" >&2; return 1 ;;
	esac
	echo "$2"
}

# sample KEY VALUE [BASELINE]: this round's figures for row KEY. Return: 1,
# with a line on stderr, if they are not numbers or BASELINE is not above 0
sample() {
	figure "$1" "$2" >/dev/null || return 1
	if [ $# -gt 2 ]; then
		figure "$1 (baseline)" "$3" >/dev/null || return 1
		awk -v b="$3" 'BEGIN { exit !(b > 0) }' || { echo "$1: baseline $3, not above 0" >&2; return 1; }
	fi
	printf '%s\t%s\t%s\t%s\n' "$1" "$bench_round" "$2" "${3:--}" >>"$T/samples"
}

# order K VARIANT...: the variants forwards for odd K, backwards for even K
order() {
	local k=$1
	shift
	if [ $((k % 2)) = 1 ]; then echo "$@"; else printf '%s\n' "$@" | tac | tr '\n' ' '; fi
}

# measure [-n ROUNDS | -m MAX] ROUND KEY...: the rows KEY... from rounds
# of ROUND (see the top of this file), or exactly ROUNDS of them (-n 1: a
# figure that needs no rounds, a peak or a count), or up to MAX of them
# rather than BENCH_MAX_ROUNDS (rounds of a few seconds, whose rows sit
# near their targets). Prints their ROW lines, or FAILED ones naming the
# round that failed and why.
measure() {
	local min=$BENCH_MIN_ROUNDS max=$BENCH_MAX_ROUNDS fn key why
	case $1 in
	-n) min=$2 max=$2; shift 2 ;;
	-m) max=$2; shift 2 ;; # moot in a smoke run: no row is ever undecided there
	esac
	fn=$1
	shift
	: >"$T/samples"
	bench_round=0
	while :; do
		bench_round=$((bench_round + 1))
		"$fn" "$bench_round" 2>"$T/round.err"
		if [ $? -ne 0 ]; then
			cat "$T/round.err" >&2
			why=$(grep . "$T/round.err" | tail -n 1)
			for key in "$@"; do
				printf 'FAILED\t%s\tround %s: %s\n' "$key" "$bench_round" "${why:-it failed, saying nothing}"
			done
			return 0
		fi
		cat "$T/round.err" >&2
		bench_stats more "$min" "$max" "$@" || break
	done
	bench_stats rows "$min" "$max" "$@"
}

# Awk functions for a program that takes medians: sorted(a, n) sorts
# a[1..n] in place (n is at most a few dozen), median(a, n) of a sorted a.
BENCH_AWK_MEDIAN='
	function sorted(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	}
	function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
'

# note_medians TITLE FILE: a NOTE line, TITLE then each name of FILE's
# "NAME<TAB>VALUE[<TAB>BASELINE]" lines (in the order names first come)
# with the median of its VALUEs (or of VALUE / BASELINE): what a figure
# over several parts (placements, processes) hides, part by part
note_medians() {
	awk -F'\t' -v title="$1" "$BENCH_AWK_MEDIAN"'
		!($1 in n) { names[++k] = $1 }
		{ v[$1, ++n[$1]] = NF > 2 ? $2 / $3 : $2 }
		END {
			for (j = 1; j <= k; j++) {
				for (i = 1; i <= n[names[j]]; i++) a[i] = v[names[j], i]
				sorted(a, n[names[j]])
				out = out (j > 1 ? ", " : "") names[j] " " sprintf("%.3f", median(a, n[names[j]]))
			}
			if (k) print "NOTE\t" title ": " out
		}' "$2"
}

# bench_stats MODE MIN MAX KEY...: the judge, from $T/want and $T/samples.
# MODE more: NOTE lines for the rows that need more rounds; Return: 0 if
# another round is due. MODE rows: a ROW line per KEY: key, median value,
# median baseline, median ratio, spread min and max, interval low and high,
# rounds, result (pass, FAIL, uncertain or -), uncertain (1 or 0), and the rounds'
# ratios in the order they ran (comma-separated).
bench_stats() {
	local mode=$1 min=$2 max=$3
	shift 3
	awk -F'\t' -v mode="$mode" -v min="$min" -v max="$max" -v keys="$*" -v smoke="${BENCH_SMOKE:-0}" "$BENCH_AWK_MEDIAN"'
	# rank(n): the largest j for which the sorted rounds j..n+1-j hold the
	# true median with at least 90%: they miss it when j or more rounds fall
	# on one side, 2 P(B <= j - 1) for B binomial(n, 1/2)
	function rank(n,   j, cum, term) {
		term = 0.5 ^ n; cum = term
		for (j = 1; j + 1 <= (n + 1) / 2; j++) {
			term = term * (n - j + 1) / j
			if (2 * (cum + term) > 0.10) break
			cum += term
		}
		return j
	}
	# judge(k): fills med, lo, hi, smin, smax, verdict and undecided for row k
	function judge(k,   a, n, i, op, x, j) {
		n = cnt[k]
		for (i = 1; i <= n; i++) a[i] = ratio[k, i]
		sorted(a, n)
		med = median(a, n); smin = a[1]; smax = a[n]
		j = rank(n); lo = a[j]; hi = a[n + 1 - j]
		op = target[k]; sub(/[0-9.]+$/, "", op); x = substr(target[k], length(op) + 1) + 0
		undecided = 0; verdict = "-"
		if (op == "==") verdict = smin == x && smax == x ? "pass" : "FAIL"
		else if (op == "<=" || op == ">=" || op == "<") {
			if (op == "<=") verdict = med <= x ? "pass" : "FAIL"
			if (op == ">=") verdict = med >= x ? "pass" : "FAIL"
			if (op == "<") verdict = med < x ? "pass" : "FAIL"
			undecided = lo < x && x < hi
		}
		# A median whose 90% interval still holds the target at the
		# bound is on either side of it by chance: its verdict says so,
		# the same from run to run, not the side the median fell on.
		if (undecided) verdict = "uncertain"
		if (smoke == 1) { verdict = "-"; undecided = 0 }
	}
	function middle(k, what,   a, i) {
		for (i = 1; i <= cnt[k]; i++) a[i] = what == "v" ? value[k, i] : base[k, i]
		sorted(a, cnt[k])
		return median(a, cnt[k])
	}
	FILENAME == ARGV[1] { name[$1] = $2; target[$1] = $4; next }
	{ c = ++cnt[$1]; value[$1, c] = $3; base[$1, c] = $4; ratio[$1, c] = $4 == "-" ? $3 : $3 / $4 }
	END {
		nk = split(keys, key, " ")
		for (i = 1; i <= nk; i++) {
			k = key[i]
			if (!cnt[k]) {
				missing++
				if (mode == "rows") printf "FAILED\t%s\tno round gave it a figure\n", k
				continue
			}
			judge(k); n = cnt[k]
			if (mode == "rows") {
				all = ""
				for (r = 1; r <= n; r++) all = all (r > 1 ? "," : "") sprintf("%.4g", ratio[k, r])
				printf "ROW\t%s\t%.6g\t%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%d\t%s\t%d\t%s\n", k, middle(k, "v"),
					base[k, 1] == "-" ? "-" : sprintf("%.6g", middle(k, "b")), med, smin, smax, lo, hi,
					n, verdict, undecided, all
				if (undecided)
					printf "NOTE\t%s: still undecided after %d rounds (median %.4g, %.4g..%.4g holds the target %s): verdict uncertain\n",
						name[k], n, med, lo, hi, target[k]
			}
			if (undecided) left++
			if (undecided && n == min && n < max)
				printf "NOTE\t%s: spread %.4g..%.4g straddles the target %s (median %.4g) after %d rounds: more rounds, up to %d\n",
					name[k], smin, smax, target[k], med, n, max
			if (n < min) short++
			rounds = n
		}
		if (mode == "more") exit missing || !(short || (left && rounds < max))
	}' "$T/want" "$T/samples"
}

# iperf_says FILE: what to quote of iperf3's output for a run that moved
# nothing: its receiver line, or its last words
iperf_says() { grep receiver "$1" 2>/dev/null | tail -n 1 | grep . || last_words "$1"; }

# gbits < OUTPUT: the receiver's Gbit/s from iperf3's text output, or
# nothing (no receiver line: the run failed). Run iperf3 with -f m: with
# -f g a run that stalled (pasta's tap path can, for a second or more) is
# "0.00 Gbits/sec", no figure to take a ratio of, where it is a bad round.
gbits() { awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /bits\/sec/) { v = $i; u = $(i + 1) } }
	END { if (u == "") exit; if (u ~ /^M/) v /= 1000; if (u ~ /^K/) v /= 1e6; print v + 0 }'; }

# ran WHAT COMMAND...: COMMAND, its stdout in $T/out, its stderr in $T/err.
# Return: 1, with a line on stderr naming WHAT and its last words, if it
# fails.
ran() {
	local what=$1 rc
	shift
	"$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ "$rc" = 0 ] && return 0
	echo "$what failed (exit $rc$(exit_signal "$rc")): $(last_words "$T/err" "$T/out")" >&2
	return 1
}

# exit_signal STATUS: ", SIGNAME" for a status above 128 (a shell's way of
# saying the command was killed: 141 is iperf3 writing to a connection the
# relay closed, 137 someone's SIGKILL)
exit_signal() { [ "$1" -gt 128 ] && [ "$1" -lt 160 ] && echo ", SIG$(kill -l $(($1 - 128)))"; }

# jailed WHAT [RUN-OPTIONS] -- COMMAND...: ran WHAT, in a jail (jail_cmd)
jailed() {
	local what=$1
	shift
	ran "$what (in the jail)" jail_cmd "$@"
}

# last_words FILE...: the last line with something on it of the first FILE
# that has one (a command's stderr, then its stdout)
last_words() {
	local f
	for f in "$@"; do
		grep -q . "$f" 2>/dev/null && { grep . "$f" | tail -n 1; return 0; }
	done
	echo "(nothing said)"
}

# probe_figure WHAT FILE: the figure a probe printed in FILE ("SPEC
# RESULT"), for $(...). Return: 1, with a line on stderr, if it printed an
# errno or nothing instead.
probe_figure() { figure "$1" "$(awk 'NR == 1 { print $2 }' "$2")"; }
