#!/usr/bin/env bash
# run.sh - one libFuzzer target: the reproducible run of make check, or a long campaign
#
# Usage: tests/fuzz/run.sh check|long NAME BINARY [EXTRA-SEED-FILE...]
#
# Inputs: tests/fuzz/seeds/NAME/ (the committed seed corpus), every file
# given as EXTRA-SEED-FILE (etc/ebpfjail.conf for the config parser), and
# tests/fuzz/crashes/NAME/, every input that ever crashed the target.
#
# check (make fuzz, and so make check): the same tree gives the same result.
#   1. Every input runs once, as it is (a corpus entry would be cut to
#      -max_len; a crash input must run exactly as it crashed).
#   2. FUZZ_RUNS mutations (default 30000) with -seed=FUZZ_SEED (default 1),
#      from a corpus made afresh each time: nothing a previous run found
#      changes what this one does.
# long (make fuzz-long): FUZZ_SECONDS (default 600) of mutations with a
#   random seed, on a corpus kept in build/fuzz/NAME/corpus-long between
#   campaigns, so each one starts where the last stopped.
#
# A fixed seed alone does not repeat a run. libFuzzer's comparison tracing
# (-use_cmp) records the operands of the target's integer compares, and some
# are addresses (the optimizer turns pointer loops into integer ones): ASLR
# moves them on every run, and the size of the environment moves the stack.
# So the target always runs with no address randomization (setarch -R) and a
# fixed environment (env -i). Measured, 5000 runs with -seed=1 from the same
# corpus: as here, twice the same 328 new inputs; without it, 345 and 343,
# not the same ones. -use_cmp=0 repeats too, but is blind to the key names
# and magic values comparison tracing lets libFuzzer find.
#
# A crash writes its input to build/fuzz/NAME/artifacts/ and this script says
# to copy it into tests/fuzz/crashes/NAME/: committed there, every later
# make fuzz replays it. V=1 shows the full commands. Output lines follow the
# Makefile's ("  fuzz     NAME: ..."); the log is build/fuzz/NAME/*.log.
set -u -o pipefail
usage="usage: run.sh check|long NAME BINARY [EXTRA-SEED-FILE...]"
mode=${1:?$usage} name=${2:?$usage} bin=${3:?$usage}
shift 3
seeds=tests/fuzz/seeds/$name
crashes=tests/fuzz/crashes/$name
dir=$(dirname "$bin")/$name
fixed_env=(env -i PATH=/usr/bin:/bin setarch -R)
# -timeout: an input that runs 10 s is a hang, and a hang is a failure.
# FUZZ_FLAGS: the target's own (the Makefile's FUZZ_FLAGS_NAME: -max_len).
read -ra flags <<<"${FUZZ_FLAGS:-}"
common=(-timeout=10 -reload=0 -print_final_stats=1 "${flags[@]}")

say() { printf '  %-8s %s\n' fuzz "$name: $*"; }

# run LOG ARGS... - the target under the fixed layout; on failure, the end
# of its log and what to do with the input that crashed it.
# Return: the target's exit status.
run() {
	local log=$1 rc unit
	shift
	[ "${V:-}" = 1 ] && echo "${fixed_env[*]} $bin $*"
	"${fixed_env[@]}" "$bin" "$@" 2>"$log"
	rc=$?
	[ $rc -eq 0 ] && return 0
	tail -n 40 "$log"
	say "FAILED (exit $rc; the whole log is $log)"
	# The target's own word on the promise broken ("fuzz_config: ..."),
	# and the seed a random run drew, to run it again.
	sed -n "s/^fuzz_$name: /broken: /p" "$log" | while read -r line; do say "$line"; done
	[ "$log" = "$dir/fuzz-long.log" ] && say "$(sed -n 's/^INFO: Seed: /the seed was /p' "$log")"
	unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	if [ "$log" = "$dir/replay.log" ]; then
		say "a committed input fails: $(sed -n 's/^Running: //p' "$log" | tail -n 1)"
	elif [ -n "$unit" ]; then
		say "new crash input $unit: fix the cause, then cp $unit $crashes/ and commit it (make fuzz replays it from then on)"
	fi
	return $rc
}

[ -d "$seeds" ] || { say "no seed corpus $seeds"; exit 1; }
mkdir -p "$dir/artifacts" "$crashes"

case $mode in
check)
	inputs=("$seeds"/* "$@")
	mapfile -t crashed < <(find "$crashes" -type f | sort)
	# Its artifacts are copies of committed inputs: kept apart, and
	# never mistaken for new ones.
	rm -rf "$dir/replay"
	mkdir -p "$dir/replay"
	run "$dir/replay.log" -timeout=10 -artifact_prefix="$dir/replay/" "${inputs[@]}" "${crashed[@]}" || exit 1
	s=${#inputs[@]} c=${#crashed[@]}
	say "$s seed$([ "$s" = 1 ] || echo s) and $c crash input$([ "$c" = 1 ] || echo s) replayed as they are"

	rm -rf "$dir/corpus"
	mkdir -p "$dir/corpus"
	[ $# -eq 0 ] || cp "$@" "$dir/corpus/"
	runs=${FUZZ_RUNS:-30000} seed=${FUZZ_SEED:-1}
	start=$SECONDS
	run "$dir/fuzz.log" -seed="$seed" -runs="$runs" -artifact_prefix="$dir/artifacts/" \
		"${common[@]}" "$dir/corpus" "$seeds" "$crashes" || exit 1
	# "#30000	DONE   cov: 315 ft: 1401 corp: 317/372Kb lim: 3800 exec/s: 571 rss: 397Mb"
	result=$(sed -n 's/^#[0-9]*[[:space:]]*DONE *\(cov:.*corp: [0-9/a-zA-Z]*\).*/\1/p' "$dir/fuzz.log")
	say "$runs runs with -seed=$seed: $result, no crash ($((SECONDS - start)) s)"
	;;
long)
	mkdir -p "$dir/corpus-long"
	[ $# -eq 0 ] || cp -n "$@" "$dir/corpus-long/"
	secs=${FUZZ_SECONDS:-600}
	say "$secs s with a random seed on $dir/corpus-long; crash inputs go to $dir/artifacts/"
	run "$dir/fuzz-long.log" -max_total_time="$secs" -artifact_prefix="$dir/artifacts/" \
		"${common[@]}" "$dir/corpus-long" "$seeds" "$crashes" || exit 1
	say "$(sed -n 's/^INFO: Seed: \([0-9]*\)/seed \1/p' "$dir/fuzz-long.log" | head -n 1), $(sed -n 's/^Done \([0-9]*\) runs.*/\1 runs/p' "$dir/fuzz-long.log"), no crash"
	;;
*)
	echo "$usage" >&2
	exit 2
	;;
esac
