#!/usr/bin/env bash
# run.sh - the integration suite: every test_* function of tests/integration/test_*.sh
#
# Usage: tests/integration/run.sh BINARY [PATTERN]
# Each test runs in its own subshell with a fresh scratch directory ($T)
# that is removed afterwards, whatever happened. DEBUG=1 keeps it and prints
# its path, and on a terminal leaves you in a shell inside the simulated
# host before the test's network is torn down (netsim.sh, _debug_shell).
# Ends with the line "N passed, M failed, K skipped"; exits 1 if anything
# failed.
#
# A skipped test (exit 77, its reason the last line) is counted and shown,
# never read as passed; under CI=true it is also a failure unless its
# reason starts with "kernel lacks" (a kernel feature truly absent).
#
# PASSES="root rootless" (the default): the whole suite as root, then the
# tests rootless.list names as an unprivileged user (ROOTLESS=1,
# netsim.sh), with the rootless engine.
#
# PASTA_DIRS="system DIR...": run the whole suite once per pasta, "system"
# being the one on PATH, DIR one put first on PATH (make check passes
# Debian 12's and the current release that scripts/build-pasta.sh builds).
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
export EBPFJAIL=$(realpath "${1:?usage: run.sh BINARY [PATTERN]}")
export SRC=$(cd "$here/../.." && pwd)
export BUILD=$(dirname "$EBPFJAIL")
pattern=${2:-}
passed=0 failed=0 skipped=0

run_suite() {
	local tag=$1 file tests t T out rc start took
	[ "${ROOTLESS:-}" = 1 ] && tag="${tag}[rootless] "
	for file in "$here"/test_*.sh; do
		tests=$(bash -c "source '$here/lib.sh'; source '$file'; declare -F" | awk '$3 ~ /^test_/ {print $3}')
		# A file that does not source, or defines no test, is a failure,
		# not an empty success.
		if [ $? -ne 0 ] || [ -z "$tests" ]; then
			failed=$((failed + 1))
			echo "FAIL    $tag$(basename "$file" .sh): no tests (does it source?)"
			continue
		fi
		for t in $tests; do
			[ -n "$pattern" ] && [[ $t != *$pattern* ]] && continue
			# The rootless pass runs the tests that rootless.list names,
			# and test_rootless_* (of that engine alone) only there.
			[ "${ROOTLESS:-}" = 1 ] && [[ $t != test_rootless_* ]] &&
				! grep -qx "$t" "$here/rootless.list" && continue
			[ "${ROOTLESS:-}" != 1 ] && [[ $t == test_rootless_* ]] && continue
			# Not under /tmp: the agent gets a private /tmp and would not see it.
			T=$(mktemp -d /var/tmp/ebpfjail-it.XXXXXX)
			out="$T.log" start=$SECONDS
			( set +o pipefail; export T; cd "$T" && source "$here/lib.sh" && source "$here/netsim.sh" && source "$file" && trap netsim_down EXIT && set -e && "$t" ) >"$out" 2>&1
			rc=$? took="$((SECONDS - start)) s" # which tests make the suite long
			case $rc in
			0) passed=$((passed + 1)); echo "ok      $tag$(basename "$file" .sh) $t ($took)" ;;
			77)
				skipped=$((skipped + 1))
				echo "skip    $tag$(basename "$file" .sh) $t: $(tail -n 1 "$out")"
				# CI must run everything but what the kernel cannot do.
				if [ "${CI:-}" = true ] && [[ $(tail -n 1 "$out") != "kernel lacks "* ]]; then
					failed=$((failed + 1))
					echo "FAIL    $tag$(basename "$file" .sh) $t: skipped under CI=true"
				fi
				;;
			*) failed=$((failed + 1)); echo "FAIL    $tag$(basename "$file" .sh) $t ($took)"; sed 's/^/    | /' "$out" ;;
			esac
			if [ "${DEBUG:-}" = 1 ]; then echo "    kept $T"; else rm -rf "$T"; fi
			rm -f "$out"
		done
	done
}

# PASSES="root rootless": the suite as root, then the tests rootless.list
# names once more as an unprivileged user with the rootless engine.
# every test_* function of the suite's files
all_tests() {
	local file
	for file in "$here"/test_*.sh; do
		bash -c "source '$here/lib.sh'; source '$file'; declare -F" | awk '$3 ~ /^test_/ {print $3}'
	done
}

# rootless.list names only tests that exist: a renamed test must not drop
# out of the rootless pass unseen.
check_rootless_list() {
	local all t
	all=$(all_tests)
	while read -r t; do
		grep -qx "$t" <<<"$all" && continue
		echo "FAIL    rootless.list names $t, which no test file has"
		failed=$((failed + 1))
	done <"$here/rootless.list"
	echo "# rootless pass: the $(grep -c . "$here/rootless.list") tests rootless.list names, of $(grep -c . <<<"$all")"
}

# The user's jails run $EBPFJAIL as uid 4242: a copy where it can reach it
# if it cannot (lib.sh's user_binary), removed at the end.
userbin=
trap '[ -z "$userbin" ] || rm -rf "$userbin"' EXIT
source "$here/lib.sh"
userbin=$(mktemp -d /var/tmp/ebpfjail-bin.XXXXXX) && user_binary "$userbin"
for pass in ${PASSES:-root rootless}; do
	[ "$pass" = rootless ] && export ROOTLESS=1 || unset ROOTLESS
	[ "$pass" = rootless ] && check_rootless_list
	for dir in ${PASTA_DIRS:-system}; do
		if [ "$dir" = system ]; then
			[ -n "${PASTA_DIRS:-}" ] && echo "# pasta: $(command -v pasta), $pass"
			run_suite ""
		else
			[ -x "$dir/pasta" ] || { echo "FAIL    no pasta in $dir"; failed=$((failed + 1)); continue; }
			echo "# pasta: $dir/pasta, $pass"
			PATH="$dir:$PATH" run_suite "[$(basename "$dir")] "
		fi
	done
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
