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
#
# JOBS=N (default 1): the runs (a pass with one pasta each) side by side,
# N at a time, each a run.sh of its own (so "this run" in netsim.sh is
# that run's, and a test never takes another run's jail for its own). The
# first run's lines appear as they come, the others' when it ends, in
# order; the counts are the runs' sums. The tests wait far more than they
# compute (the suite keeps 2 cores a third idle), and they must pass beside
# other jails and load anyway (other engineers' suites, stress-ng).
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
# run_side_by_side: every pass with every pasta as a run.sh of its own, JOBS
# at a time; their output in order, their counts summed. Each run has what
# the suite's checks take as the machine's: its own cgroup (under ours:
# "no cgroup of a jail left" looks below the run's own), its own
# /run/ebpfjail (a private mount: "no jail left", ebpfjail status) and its
# own session (a test's "kill -USR1 0" as the agent's user reaches its own
# process group, not another run's). Two rootless runs never overlap: both
# are uid 4242 throughout, and a test's RLIMIT_NPROC counts every process
# of that user.
runs_logs= runs_n=0 runs_own=
run_side_by_side() {
	local pass dir i line p f s rootless_job=
	runs_logs=$(mktemp -d /var/tmp/ebpfjail-runs.XXXXXX) || exit 1
	runs_own="$(cgroup_mount)$(sed -n 's/^0:://p' /proc/self/cgroup)"
	runs_own=${runs_own%/}
	trap 'kill $(jobs -p) 2>/dev/null; wait
		for i in $(seq 1 "$runs_n"); do _remove_cgroup "$runs_own/ebpfjail-run.$$.$i"; done
		rm -rf "$runs_logs"' EXIT
	for pass in ${PASSES:-root rootless}; do
		for dir in ${PASTA_DIRS:-system}; do
			while [ "$(jobs -pr | wc -l)" -ge "$JOBS" ]; do wait -n; done
			[ "$pass" = rootless ] && [ -n "$rootless_job" ] && wait "$rootless_job"
			runs_n=$((runs_n + 1))
			mkdir "$runs_own/ebpfjail-run.$$.$runs_n" || exit 1
			if [ "$runs_n" -eq 1 ]; then
				_one_run "$runs_own/ebpfjail-run.$$.$runs_n" "$pass" "$dir" 2>&1 | tee "$runs_logs/1" |
					grep --line-buffered -v '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$' &
			else
				_one_run "$runs_own/ebpfjail-run.$$.$runs_n" "$pass" "$dir" >"$runs_logs/$runs_n" 2>&1 &
			fi
			[ "$pass" = rootless ] && rootless_job=$!
		done
	done
	wait
	for i in $(seq 1 "$runs_n"); do
		[ "$i" -eq 1 ] || grep -v '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$' "$runs_logs/$i"
		# A run that ended without its counts (killed, crashed) failed.
		line=$(tail -n 1 "$runs_logs/$i")
		if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
			p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
			passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
		else
			failed=$((failed + 1))
			echo "FAIL    run $i of $runs_n ended without its counts: $line"
		fi
	done
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}

# _one_run CGROUP PASS DIR: this script for PASS with DIR's pasta, in
# CGROUP, in a session of its own, with a /run/ebpfjail of its own
_one_run() {
	setsid --wait unshare --mount --propagation private -- sh -c '
		cg=$1; shift
		mkdir -p /run/ebpfjail && mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run/ebpfjail &&
			echo $$ >"$cg/cgroup.procs" && exec "$@"' \
		sh "$1" env JOBS=1 PASSES="$2" PASTA_DIRS="$3" "$0" "$EBPFJAIL" "$pattern"
}

# _remove_cgroup DIR: DIR and below, whatever still runs there ended first
_remove_cgroup() {
	[ -d "$1" ] || return 0
	[ -e "$1/cgroup.kill" ] && echo 1 >"$1/cgroup.kill"
	find "$1" -depth -type d -exec rmdir {} + 2>/dev/null || sleep 0.2
	find "$1" -depth -type d -exec rmdir {} + 2>/dev/null
}

source "$here/lib.sh"
JOBS=${JOBS:-1}
if [ "$JOBS" -gt 1 ] && [ $(($(wc -w <<<"${PASSES:-root rootless}") * $(wc -w <<<"${PASTA_DIRS:-system}"))) -gt 1 ]; then
	run_side_by_side
	exit
fi

userbin=
trap '[ -z "$userbin" ] || rm -rf "$userbin"' EXIT
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
