#!/usr/bin/env bash
# run.sh - every benchmark in one run: a table, then a JSON document
#
# Usage: bench/run.sh [--json FILE] [--smoke]
#   --json FILE  write the JSON document there instead of stdout
#   --smoke      a few seconds per benchmark, no verdicts (make check runs it
#                so the benchmarks cannot rot)
# Rows: name, ebpfjail figure, baseline, ratio, target, pass/fail. A target
# like "<=1.10" or ">=0.90" applies to the ratio; "<16" or ">=100000" with
# no baseline applies to the figure itself; "==1" wants the ratio exactly 1.
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
rows=$(mktemp) errs=$(mktemp) failed=0
trap 'rm -f "$rows" "$errs"' EXIT

# bench NAME COMMAND...: its ROW lines go to the table; a benchmark that
# fails fails the run (and so `make bench` and make check's smoke pass),
# with its last words, whatever figures it printed before
bench() {
	local name=$1 rc
	shift
	"$@" 2>"$errs" | grep '^ROW' >>"$rows"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "bench/run.sh: $name failed (exit $rc): $(tail -n 3 "$errs" | tr '\n' ' ')" >&2
		failed=1
	fi
}

if [ "$smoke" = 1 ]; then
	export BENCH_SMOKE=1 SECONDS_PER_RUN=1 PROBE_RR=2000
	bench bench-connect "$top/build/bench/bench-connect" 200
	bench bench-nft "$top/build/bench/bench-nft" 200 100
else
	bench bench-connect "$top/build/bench/bench-connect"
	bench bench-nft "$top/build/bench/bench-nft"
fi
bench relay.sh "$top/bench/relay.sh"
bench jail.sh "$top/bench/jail.sh"
bench dns.sh "$top/bench/dns.sh"

awk -F'\t' -v smoke="$smoke" -v json="$json" '
function verdict(v, b, t,   r, op, x) {
	if (t == "-" || smoke) return "-"
	r = b > 0 ? v / b : v
	op = t; sub(/[0-9.]+$/, "", op); x = substr(t, length(op) + 1) + 0
	if (op == "<=") return r <= x ? "pass" : "FAIL"
	if (op == ">=") return r >= x ? "pass" : "FAIL"
	if (op == "<") return r < x ? "pass" : "FAIL"
	if (op == "==") return r == x ? "pass" : "FAIL"
	return "-"
}
$1 == "ROW" {
	n++; name[n] = $2; unit[n] = $3; val[n] = $4; base[n] = $5; tgt[n] = $6
	ratio[n] = $5 > 0 ? $4 / $5 : 0; ver[n] = verdict($4, $5, $6)
}
END {
	printf "%-46s %-10s %12s %12s %7s %9s %s\n", "benchmark", "unit", "ebpfjail", "baseline", "ratio", "target", "result"
	for (i = 1; i <= n; i++)
		printf "%-46s %-10s %12.2f %12.2f %7.3f %9s %s\n", name[i], unit[i], val[i], base[i], ratio[i], tgt[i], ver[i]
	printf "{\"benchmarks\": [" > json
	for (i = 1; i <= n; i++)
		printf "%s{\"name\": \"%s\", \"unit\": \"%s\", \"value\": %s, \"baseline\": %s, \"ratio\": %.4f, \"target\": \"%s\", \"result\": \"%s\"}", \
			(i > 1 ? ", " : ""), name[i], unit[i], val[i] + 0, base[i] + 0, ratio[i], tgt[i], ver[i] > json
	printf "]}\n" > json
	if (n < 22) { print "bench/run.sh: only " n " of 22 figures came out" > "/dev/stderr"; exit 1 }
}' "$rows" || exit 1
exit "$failed"
