#!/usr/bin/env bash
# run.sh - every benchmark in one run: a table, then a JSON document
#
# Usage: bench/run.sh [--json FILE] [--smoke]
#   --json FILE  write the JSON document there instead of stdout
#   --smoke      one short round of each benchmark, no verdicts (make check
#                runs it so the benchmarks cannot rot)
#
# How a row is measured and judged (bench/lib.sh has the details and the
# one judge, bench_stats; the machine is shared, so every figure is noisy):
#   - A row compares ebpfjail with its baseline (pasta's own forwarder, the
#     same namespace without rules, ...) in rounds. A round runs each
#     variant once, the order alternating from round to round (ABC, CBA,
#     ...) so that drift falls on all alike, and gives one ratio. The
#     connect() benchmarks also take turns within a round, block by block,
#     and count CPU time, not wall time (the tap's throughput takes turns
#     in phases and is judged per CPU second); the relay's throughput and
#     1-byte round trip run each variant in every placement of the client,
#     the server and the forwarder on the cores.
#   - ratio: the median of the rounds' ratios; spread: their minimum and
#     maximum; the verdict compares the median with the target.
#   - Rounds: 5. While a row's target lies within the median's 90%
#     confidence interval (at 5 rounds that interval is the spread: the
#     spread straddles the target, wider than the distance from the median
#     to it), one more round at a time, up to the stated bound: 41 for the
#     rows whose rounds take seconds and whose true ratio sits within a few
#     percent of the target (connect() with either engine, DNS, tap
#     throughput per CPU second), 15 for the rest. A row still undecided
#     at its bound is "uncertain": its median is as likely on the other
#     side of the target, so it gets no pass or FAIL that the next run
#     could turn over. A note under the table names each row that took
#     more rounds, and why.
#   - Rows without a target stop at 5 rounds; costly ones run 3 (policy
#     swaps, the 20,000-entry nft ruleset), and one-off figures (a peak
#     RSS, the BPF load, a median of 21 already) run once.
#   - A "==" target (an exact count) must hold in every round.
#   - A benchmark that fails prints its rows "failed", with the reason; the
#     other rows still run, and the run exits 1. A missed target does not
#     fail the run: it is a finding, in the table.
# Columns: benchmark, unit, ebpfjail (the median figure), baseline (the
# median baseline), ratio, spread, rounds, target, result. A target like
# "<=1.10" or ">=0.90" applies to the ratio; "<16" or ">=1000000" with no
# baseline applies to the figure itself.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
json=/dev/stdout smoke=0
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=$2; shift 2 ;;
	--smoke) smoke=1; shift ;;
	*) echo "usage: bench/run.sh [--json FILE] [--smoke]" >&2; exit 2 ;;
	esac
done
rows=$(mktemp) errs=$(mktemp) failures=$(mktemp) failed=0
trap 'rm -f "$rows" "$errs" "$failures"' EXIT
[ "$smoke" = 1 ] && export BENCH_SMOKE=1

# bench SCRIPT: its lines, tagged with its name, into $rows, then how it
# ended (EXIT: status, last words), so that the rows it declared and never
# printed are printed failed with the reason
bench() {
	local name=$1 rc start=$SECONDS
	"$top/bench/$name" 2>"$errs" </dev/null |
		awk -v s="$name" '/^(WANT|ROW|FAILED|NOTE)\t/ { print s "\t" $0; fflush() }' >>"$rows"
	rc=${PIPESTATUS[0]}
	printf '%s\tEXIT\t%s\t%s\n' "$name" "$rc" "$(grep . "$errs" | tail -n 1)" >>"$rows"
	[ "$smoke" = 1 ] || echo "bench/run.sh: $name took $((SECONDS - start)) s" >&2
	if [ "$rc" -ne 0 ]; then
		# On stderr now, and under the table (stdout) too: a log cut to
		# its last lines still says which script failed and why.
		echo "bench/run.sh: $name failed (exit $rc$([ "$rc" -gt 128 ] && echo ", SIG$(kill -l $((rc - 128)))")): $(tail -n 3 "$errs" | tr '\n' ' ')" |
			tee -a "$failures" >&2
		failed=1
	fi
}

bench connect.sh
bench relay.sh
bench jail.sh
bench dns.sh
bench names.sh

awk -F'\t' -v smoke="$smoke" -v json="$json" -v expect=32 '
function num(x) { return x == int(x) ? sprintf("%d", x) : x >= 1000 ? sprintf("%.0f", x) : sprintf("%.3f", x) }
function str(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
function jnum(x) { return x == "" || x == "-" ? "null" : x + 0 }
function each_round(list,   a, i, n, out) {
	n = split(list, a, ",")
	for (i = 1; i <= n; i++) out = out (i > 1 ? ", " : "") (a[i] + 0)
	return out
}
$2 == "WANT" { id = $1 SUBSEP $3; order[++n] = id; script[id] = $1; name[id] = $4; unit[id] = $5; tgt[id] = $6 }
$2 == "ROW" {
	id = $1 SUBSEP $3; got[id] = 1; val[id] = $4; base[id] = $5; ratio[id] = $6
	smin[id] = $7; smax[id] = $8; lo[id] = $9; hi[id] = $10; rounds[id] = $11; res[id] = $12; unc[id] = $13
	each[id] = $14
}
$2 == "FAILED" { id = $1 SUBSEP $3; got[id] = 1; res[id] = "failed"; why[id] = $4 }
$2 == "NOTE" { note[++notes] = $3 }
$2 == "EXIT" { rc[$1] = $3; last[$1] = $4 }
END {
	for (i = 1; i <= n; i++) {
		id = order[i]
		if (!got[id]) {
			res[id] = "failed"
			why[id] = sprintf("%s ended (exit %s) before this row: %s", script[id], rc[script[id]],
				last[script[id]] == "" ? "it said nothing" : last[script[id]])
		}
		if (res[id] == "failed") bad++
	}
	printf "%-52s %-8s %11s %11s %7s %-17s %6s %9s %s\n", "benchmark", "unit", "ebpfjail", "baseline",
		"ratio", "spread", "rounds", "target", "result"
	for (i = 1; i <= n; i++) {
		id = order[i]
		if (res[id] == "failed") {
			printf "%-52s %-8s %11s %11s %7s %-17s %6s %9s failed: %s\n", name[id], unit[id], "-", "-", "-",
				"-", "-", tgt[id], why[id]
			continue
		}
		absolute = base[id] == "-"
		spread = absolute ? num(smin[id]) ".." num(smax[id]) : sprintf("%.3f..%.3f", smin[id], smax[id])
		printf "%-52s %-8s %11.2f %11s %7s %-17s %6d %9s %s\n", name[id], unit[id], val[id],
			absolute ? "-" : sprintf("%.2f", base[id]), absolute ? "-" : sprintf("%.3f", ratio[id]),
			spread, rounds[id], tgt[id], res[id]
	}
	for (i = 1; i <= notes; i++) print "note: " note[i]
	if (smoke) print "smoke run: one round of each, no verdicts"
	else print "ratio: the median of the rounds; spread: their min..max; 5 rounds, then more while the" \
		" target lies within the median'"'"'s 90% interval, up to 15 or 41 (bench/run.sh)"
	printf "{\"benchmarks\": [" > json
	for (i = 1; i <= n; i++) {
		id = order[i]
		printf "%s{\"name\": %s, \"unit\": %s, \"target\": %s, \"result\": %s", (i > 1 ? ", " : ""), str(name[id]),
			str(unit[id]), str(tgt[id]), str(res[id]) > json
		if (res[id] == "failed")
			printf ", \"reason\": %s}", str(why[id]) > json
		else
			printf ", \"value\": %s, \"baseline\": %s, \"ratio\": %s, \"spread\": [%s, %s], \"interval\": [%s, %s], \"rounds\": %d, \"uncertain\": %s, \"each_round\": [%s]}",
				jnum(val[id]), jnum(base[id]), base[id] == "-" ? "null" : jnum(ratio[id]), jnum(smin[id]),
				jnum(smax[id]), jnum(lo[id]), jnum(hi[id]), rounds[id], (unc[id] ? "true" : "false"),
				each_round(each[id]) > json
	}
	printf "]}\n" > json
	if (n < expect) { print "bench/run.sh: only " n " of " expect " rows were declared" > "/dev/stderr"; exit 1 }
	exit bad > 0
}' "$rows" || failed=1
cat "$failures"
exit "$failed"
