#!/usr/bin/env bash
# test_lib.sh - bench/lib.sh's judge and rounds on made-up figures: when a
# row takes more rounds, when it stops, its verdict, a failed round (make
# bench-smoke runs it first; no root, nothing measured)
source "$(dirname "$0")/lib.sh"
unset BENCH_SMOKE
BENCH_MIN_ROUNDS=5 BENCH_MAX_ROUNDS=15
failures=0

# check WHAT GOT WANT
check() {
	if [ "$2" = "$3" ]; then return 0; fi
	echo "FAIL: $1: got '$2', want '$3'" >&2
	failures=$((failures + 1))
}

# rows KEY: the fields of KEY's ROW line from $T/lines, "ratio min max
# rounds result uncertain", or its FAILED line's reason
rows() { awk -F'\t' -v k="$1" '$1 == "ROW" && $2 == k { print $5 + 0, $6 + 0, $7 + 0, $10, $11, $12 }
	$1 == "FAILED" && $2 == k { print "failed:", $3 }' "$T/lines"; }

# From a list: round K's figures are the K-th of $ratios (baseline 1).
from_list() {
	local r
	r=$(echo "$ratios" | awk -v k="$1" '{ print $k }')
	sample a "$r" 1
}

want a "made-up row" x "<=1.10" >/dev/null

# All five rounds under the target: decided at 5, pass.
ratios="1.00 1.02 0.98 1.05 1.01"
measure from_list a >"$T/lines"
check "clear pass" "$(rows a)" "1.01 0.98 1.05 5 pass 0"
check "clear pass: no note" "$(grep -c NOTE "$T/lines")" 0

# The spread straddles the target at 5 rounds, then the rounds fall on one
# side: more rounds, a note, decided once the median's interval clears it.
ratios="1.00 1.20 1.02 0.99 1.03 1.01 1.04 1.00 1.02 1.03 1.00 1.01 1.02 1.03 1.00"
measure from_list a >"$T/lines"
check "straddling, then clear" "$(rows a)" "1.015 0.99 1.2 8 pass 0"
check "straddling: the note" "$(grep -c 'NOTE.*made-up row: spread 0.99..1.2 straddles the target <=1.10 (median 1.02) after 5 rounds: more rounds, up to 15' "$T/lines")" 1

# Straddling to the end: 15 rounds, uncertain (not the median's side,
# FAIL here, which the next run could turn over).
ratios="1.00 1.20 1.02 1.18 1.05 1.15 1.09 1.12 1.08 1.14 1.06 1.13 1.07 1.16 1.11"
measure from_list a >"$T/lines"
check "undecided at the bound" "$(rows a)" "1.11 1 1.2 15 uncertain 1"
check "undecided: the note" "$(grep -c 'still undecided after 15 rounds' "$T/lines")" 1

# -m: a bound of the group's own, here 31 rounds, for rounds that cost
# little: the rows above, undecided at 15, decide once later rounds come.
ratios="1.00 1.20 1.02 1.18 1.05 1.15 1.09 1.12 1.08 1.14 1.06 1.13 1.07 1.16 1.11 1.01 1.00 1.02 1.01 1.00 1.02 1.01 1.00 1.02 1.01 1.00 1.02 1.01 1.00 1.02 1.01"
measure -m 31 from_list a >"$T/lines"
check "a bound of its own" "$(rows a)" "1.035 1 1.2 26 pass 0"
check "a bound of its own: the note" "$(grep -c 'more rounds, up to 31' "$T/lines")" 1

# ">=" on a figure without baseline
want b "made-up rate" x ">=1000000" >/dev/null
absolute() { sample b "$(echo "1100000 1200000 1300000 1250000 1150000" | awk -v k="$1" '{ print $k }')"; }
measure absolute b >"$T/lines"
check "a figure's own target" "$(rows b)" "1200000 1100000 1300000 5 pass 0"

# "==": every round, not the median
want c "made-up count" x "==0" >/dev/null
exact() { sample c "$([ "$1" = 3 ] && echo 2 || echo 0)"; }
measure exact c >"$T/lines"
check "an exact count off once" "$(rows c)" "0 0 2 5 FAIL 0"

# A failed round fails its rows with the reason; the script goes on.
want d "made-up relay" x ">=1" >/dev/null
breaks() { [ "$1" -lt 3 ] || { echo "the jail's run $1 did not end" >&2; return 1; }; sample d 2 1; }
measure breaks d >"$T/lines" 2>/dev/null
check "a failed round" "$(rows d)" "failed: round 3: the jail's run 3 did not end"

# Not a figure: the round fails.
ratios="1.00 ETIMEDOUT"
measure from_list a >"$T/lines" 2>/dev/null
check "not a figure" "$(rows a)" "failed: round 2: a: 'ETIMEDOUT' is not a figure"

# order alternates
check "order, odd round" "$(order 3 x y z)" "x y z"
check "order, even round" "$(order 4 x y z | xargs)" "z y x"

# Smoke: one round, no verdict.
BENCH_SMOKE=1 BENCH_MIN_ROUNDS=1 BENCH_MAX_ROUNDS=1
ratios="1.30"
measure from_list a >"$T/lines"
check "smoke" "$(rows a)" "1.3 1.3 1.3 1 - 0"

[ "$failures" = 0 ] && echo "bench/test_lib.sh: all passed"
exit $((failures > 0))
