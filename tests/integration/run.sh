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
# IT_JOBS=N (default 1; make integration: 3): the runs (a pass with one
# pasta each) side by side, N at a time, each a run.sh of its own (so
# "this run" in netsim.sh is that run's, and a test never takes another
# run's jail for its own). The first run's lines appear as they come, the
# others' once all have ended, in order; the counts are the runs' sums.
# The tests wait far more than they compute, and they must pass beside
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
			T=$(mktemp -d /var/tmp/ebpfjail-it.XXXXXX) current_T=$T
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

# run_side_by_side: every pass with every pasta as a run.sh of its own,
# IT_JOBS at a time; their output in order, their counts summed. Each run
# has what the suite's checks take as the machine's: its own cgroup (under
# ours: "no cgroup of a jail left" looks below the run's own), its own
# /run/ebpfjail (a private mount: "no jail left", ebpfjail status) and its
# own session (a test's "kill -USR1 0" as the agent's user reaches its own
# process group, not another run's). Two rootless runs never overlap: each
# is uid 4242 throughout, supervisor and pasta included, and the user's
# processes are one count (RLIMIT_NPROC: test_hostwatch.sh).
runs_logs= runs_own= runs_n=0 runs_summed=0
run_side_by_side() {
	local pass dir rootless_job= rootless_run=0
	runs_logs=$(mktemp -d /var/tmp/ebpfjail-runs.XXXXXX) || exit 1
	runs_own="$(cgroup_mount)$(sed -n 's/^0:://p' /proc/self/cgroup)"
	runs_own=${runs_own%/}
	trap _stop_runs EXIT
	for pass in ${PASSES:-root rootless}; do
		for dir in ${PASTA_DIRS:-system}; do
			while [ "$(jobs -pr | wc -l)" -ge "$IT_JOBS" ]; do wait -n; done
			if [ "$pass" = rootless ] && [ -n "$rootless_job" ]; then
				wait "$rootless_job"
				_run_leftovers "$rootless_run" # before the next uid 4242 run
			fi
			_start_run "$pass" "$dir"
			[ "$pass" = rootless ] && rootless_job=$! rootless_run=$runs_n
		done
	done
	wait
	_sum_runs
}

# _start_run PASS DIR: run $runs_n (the next) in the background: this
# script for PASS with DIR's pasta, in its cgroup, in a session of its own
# (setsid --wait: setsid forks when it is a group leader, and the job must
# end with the run), with a /run/ebpfjail of its own. The run's shell
# enters its cgroup before it execs anything, so all it starts is there;
# its pid, the session's, is kept in N.leader for _stop_runs.
# The first run's lines go out as they come.
_start_run() {
	local cg
	runs_n=$((runs_n + 1))
	cg="$runs_own/ebpfjail-run.$$.$runs_n"
	mkdir "$cg" || exit 1
	echo "$1 pass, pasta: $2" >"$runs_logs/$runs_n.name"
	set -- setsid --wait unshare --mount --propagation private -- sh -c '
		cg=$1 leader=$2; shift 2
		echo $$ >"$cg/cgroup.procs" && echo $$ >"$leader" &&
		mkdir -p /run/ebpfjail && mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run/ebpfjail &&
			exec "$@"' \
		sh "$cg" "$runs_logs/$runs_n.leader" env IT_JOBS=1 PASSES="$1" PASTA_DIRS="$2" "$here/run.sh" "$EBPFJAIL" "$pattern"
	if [ "$runs_n" -eq 1 ]; then
		"$@" 2>&1 | tee "$runs_logs/1" | grep --line-buffered -v '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$' &
	else
		"$@" >"$runs_logs/$runs_n" 2>&1 &
	fi
}

# _run_leftovers N: fail (and count) what run N left running in its cgroup
# after it ended, then end it
_run_leftovers() {
	local cg="$runs_own/ebpfjail-run.$$.$1" i
	for i in $(seq 1 40); do
		grep -qx "populated 0" "$cg/cgroup.events" 2>/dev/null && return 0
		sleep 0.05
	done
	failed=$((failed + 1))
	echo "FAIL    run $1 ($(cat "$runs_logs/$1.name")) left processes running:"
	ps -o pid=,user=,args= -p "$(find "$cg" -name cgroup.procs -exec cat {} + | paste -sd,)" 2>/dev/null | sed 's/^/    | /'
	echo 1 >"$cg/cgroup.kill"
}

# _sum_runs: every run's lines after the first's, in order, then the sum of
# their counts; a run that ended without its counts (killed, crashed) or
# left processes running failed. Returns 0 when nothing failed.
_sum_runs() {
	local i line
	for i in $(seq 1 "$runs_n"); do
		[ "$i" -eq 1 ] || grep -v '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$' "$runs_logs/$i"
		line=$(tail -n 1 "$runs_logs/$i")
		if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
			passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
			skipped=$((skipped + BASH_REMATCH[3]))
		else
			failed=$((failed + 1))
			echo "FAIL    run $i ($(cat "$runs_logs/$i.name")) ended without its counts: $line"
		fi
		_run_leftovers "$i"
	done
	runs_summed=1
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}

# _stop_runs: on every exit. Interrupted (make killed, Ctrl-C: the runs'
# sessions have no terminal, so no signal reaches them), each run's session
# gets SIGTERM, so its tests' traps take their namespaces, cgroups and
# scratch directories down, and a few seconds; then whatever is left in
# its cgroup is killed, and the runs' output so far is shown. Then the
# cgroups go, the deepest first.
_stop_runs() {
	local i j cg leader
	trap '' INT TERM HUP # a second Ctrl-C must not cut the cleanup short
	# Only a run still going is signalled: an ended run's session id may
	# be another process's by now.
	for i in $(seq 1 "$runs_n"); do
		cg="$runs_own/ebpfjail-run.$$.$i"
		grep -qx "populated 1" "$cg/cgroup.events" 2>/dev/null &&
			{ read -r leader <"$runs_logs/$i.leader"; } 2>/dev/null &&
			grep -qx "$leader" "$cg/cgroup.procs" && kill -TERM -- "-$leader" 2>/dev/null
	done
	for i in $(seq 1 "$runs_n"); do
		cg="$runs_own/ebpfjail-run.$$.$i"
		for j in $(seq 1 100); do
			grep -qx "populated 0" "$cg/cgroup.events" 2>/dev/null && break
			sleep 0.1
		done
		[ -e "$cg/cgroup.kill" ] && echo 1 >"$cg/cgroup.kill"
	done
	wait
	if [ "$runs_summed" = 0 ]; then
		for i in $(seq 2 "$runs_n"); do
			echo "# run $i ($(cat "$runs_logs/$i.name" 2>/dev/null)), interrupted:"
			cat "$runs_logs/$i" 2>/dev/null
		done
	fi
	for i in $(seq 1 "$runs_n"); do
		cg="$runs_own/ebpfjail-run.$$.$i"
		for j in $(seq 1 20); do
			[ -d "$cg" ] || break
			find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null
			sleep 0.05
		done
		[ ! -d "$cg" ] || echo "run.sh: cannot remove $cg" >&2
	done
	rm -rf "$runs_logs"
}

source "$here/lib.sh"
# DEBUG=1 opens a shell on the terminal, which a run of its own has not.
IT_JOBS=${IT_JOBS:-1}
[ "${DEBUG:-}" = 1 ] && IT_JOBS=1
if [ "$IT_JOBS" -gt 1 ] && [ $(($(wc -w <<<"${PASSES:-root rootless}") * $(wc -w <<<"${PASTA_DIRS:-system}"))) -gt 1 ]; then
	run_side_by_side
	exit
fi

# The user's jails run $EBPFJAIL as uid 4242: a copy where it can reach it
# if it cannot (lib.sh's user_binary), removed at the end.
# The test being run ($current_T) too, when a signal ends this script
# (its own trap takes its namespaces down).
userbin= current_T=
trap '[ -z "$userbin" ] || rm -rf "$userbin"; [ -z "$current_T" ] || rm -rf "$current_T" "$current_T.log"' EXIT
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
