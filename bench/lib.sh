# lib.sh - what the benchmark scripts share (sourced): the simulated network
# of the integration tests, a scratch dir, and the ROW output format

set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export EBPFJAIL=$top/build/ebpfjail BUILD=$top/build
T=$(mktemp -d /var/tmp/ebpfjail-bench.XXXXXX) # not /tmp: the agent has its own
export T
source "$top/tests/integration/lib.sh"
source "$top/tests/integration/netsim.sh"
trap 'netsim_down; rm -rf "$T"' EXIT
netsim_up >/dev/null

# row NAME UNIT VALUE BASELINE TARGET: one figure for bench/run.sh
row() { printf 'ROW\t%s\t%s\t%s\t%s\t%s\n' "$@"; }

# gbits < OUTPUT: the receiver's Gbit/s from iperf3's text output
gbits() { awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /bits\/sec/) { v = $i; u = $(i + 1) } }
	END { if (u ~ /^M/) v /= 1000; if (u ~ /^K/) v /= 1e6; print v + 0 }'; }

# median < NUMBERS: the middle one, whitespace-separated (the mean of the
# middle two for an even count)
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
