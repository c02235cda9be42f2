#!/usr/bin/env bash
# run.sh - the unit tests (Criterion), with skipped tests counted and shown
#
# Usage: tests/unit/run.sh BINARY [CRITERION-OPTIONS...]
# Criterion's own summary leaves skipped tests out of its count, so a run as
# non-root, where every kernel test skips itself, would read as all passed.
# This reads Criterion's TAP report instead and ends with the line
# "unit: N passed, M failed, K skipped", each skip with its reason. It exits
# non-zero when a test failed or vanished, and, under CI=true, when a test
# was skipped for any reason but a kernel feature that is truly absent (a
# skip whose reason starts with "kernel lacks").
set -u -o pipefail
bin=${1:?usage: run.sh BINARY [CRITERION-OPTIONS...]}
shift
tap=$(mktemp /tmp/ebpfjail-unit.XXXXXX)
trap 'rm -f "$tap"' EXIT

"$bin" --jobs 1 --tap="$tap" "$@"
rc=$?

planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap" | head -n 1)
failed=$(grep -c '^not ok ' "$tap")
skipped=$(grep -c '^ok .* # SKIP' "$tap")
passed=$(($(grep -c '^ok ' "$tap") - skipped))
grep '^ok .* # SKIP' "$tap" | sed 's/^ok - \(.*\)  # SKIP \(.*\)/skip    \1: \2/'
echo "unit: $passed passed, $failed failed, $skipped skipped"

if [ -n "${planned:-}" ] && [ $((passed + failed + skipped)) -ne "$planned" ]; then
	echo "unit: $planned tests planned, $((passed + failed + skipped)) reported (a crash?)" >&2
	rc=1
fi
if [ "${CI:-}" = true ] && grep '^ok .* # SKIP' "$tap" | grep -qv '# SKIP kernel lacks '; then
	echo "unit: CI=true: a test was skipped for a reason other than a missing kernel feature" >&2
	rc=1
fi
exit "$rc"
