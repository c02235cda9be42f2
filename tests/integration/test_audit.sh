# test_audit.sh - `ebpfjail audit` on logs written by real jails

test_audit_empty_log_says_so() {
	netsim_up
	audit
	expect_rc 0
	expect_err "no denials recorded in $T/audit.jsonl yet"
}

test_audit_table_json_and_filters() {
	netsim_up
	jail -- "$T/probe" tcp:169.254.169.254:80 tcp:10.23.0.2:22
	expect_rc 0
	audit --json
	expect_rc 0
	expect_lines 2 "$T/out"
	expect_out '"daddr": "169.254.169.254", "dport": 80, "hook": "'"$HOOK4"'", "reason": "metadata"'
	local id
	id=$(sed -n 's/.*"jail": "\([0-9a-f]*\)".*/\1/p' "$T/out" | head -n1)
	audit
	expect_rc 0
	expect_out "TIME"
	local who='[0-9]+  probe' # the rootless engine names no process
	rootless && who='-  -'
	grep -qE "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}  $id +$who +4242  tcp    169\.254\.169\.254:80 +$HOOK4 +metadata    169\.254\.169\.254/32$" \
		"$T/out" || fail "table row: $(cat "$T/out")"
	audit --jail "$id" --since 10m --json
	expect_lines 2 "$T/out"
	audit --jail 00000000
	expect_rc 0
	expect_err "no denials match"
	audit --since 2099-01-01T00:00
	expect_err "no denials match"
	audit --since soon
	expect_rc 2
}

test_audit_follow_sees_a_new_denial() {
	netsim_up
	"$EBPFJAIL" audit --config "$T/jail.conf" --follow --json >"$T/follow.out" 2>&1 &
	local follower=$! i
	sleep 0.3
	jail -- "$T/probe" tcp:198.18.0.10:443
	for i in $(seq 1 100); do grep -q 198.18.0.10 "$T/follow.out" && break; sleep 0.05; done
	kill "$follower"
	wait "$follower" 2>/dev/null || true
	grep -q '"daddr": "198.18.0.10", "dport": 443, "hook": "connect4", "reason": "host-route"' \
		"$T/follow.out" || fail "--follow missed it: $(cat "$T/follow.out")"
}

test_flood_rotates_and_every_denial_is_logged_or_counted() {
	netsim_up
	# A follower from the start must see every line, across the rotation.
	"$EBPFJAIL" audit --config "$T/jail.conf" --follow --json >"$T/follow.out" 2>&1 &
	local follower=$!
	sleep 0.3
	# Denials of ~250 bytes each until the 8 MiB log has rotated: floods of
	# 2,000 to as many ports, so every send is a kind of its own and a
	# record (the kernel aggregates repeats of one kind), under the ring
	# buffer's ~3,300, each followed by a pause for the supervisor to drain
	# it, so the log grows however loaded the machine (at most 400 floods).
	# Whatever is lost is counted, and what the records count + lost must
	# add up to what was sent.
	# The positive control, first: one flood of 60,000 kinds at once, far
	# more than the ring buffer (~3,300) and the denials map (8,192) hold
	# before the supervisor's next read, so denials are certainly lost and
	# the sum holds only if the loss records count them.
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF
PROBE_FLOOD=60000 PROBE_FLOOD_PORTS=60000 $T/probe flood:10.23.0.3:5000 >$T/agent/burst
i=0
while [ ! -e $T/audit.jsonl.1 ] && [ \$i -lt 400 ]; do
	PROBE_FLOOD=2000 PROBE_FLOOD_PORTS=2000 $T/probe flood:10.23.0.2:5000
	sleep 0.02
	i=\$((i + 1))
done >$T/agent/floods
EOF
	jail -- sh "$T/agent.sh"
	expect_rc 0
	awk '$2 != 2000 { bad = 1 } END { exit bad }' "$T/agent/floods" ||
		fail "not every send was refused: $(awk '$2 != 2000' "$T/agent/floods" | head -n 3)"
	[ "$(awk '{ print $2 }' "$T/agent/burst")" = 60000 ] ||
		fail "not every send of the burst was refused: $(cat "$T/agent/burst")"
	local sent
	sent=$((60000 + 2000 * $(wc -l <"$T/agent/floods")))
	[ -e "$T/audit.jsonl.1" ] || fail "the log did not rotate ($(stat -c %s "$T/audit.jsonl") bytes)"
	"$EBPFJAIL" audit --config "$T/jail.conf" --json >"$T/all.jsonl"
	local logged lost
	logged=$(grep '"reason": "connected"' "$T/all.jsonl" | denial_counts)
	lost=$(lost_count <"$T/all.jsonl")
	[ "$lost" -gt 0 ] || fail "the burst of 60,000 kinds lost nothing: the loss path did not run"
	[ $((logged + lost)) -eq "$sent" ] || fail "$logged logged + $lost lost != $sent denials"
	# Oldest first across the rotated files, nothing out of order. Events
	# only: a loss or count record is written when its window closes,
	# after denials still waiting in the ring buffer were made.
	grep '"pid"' "$T/all.jsonl" | grep -v '"count"' | sed -n 's/^{"time": "\([^"]*\)".*/\1/p' | sort -c ||
		fail "audit lines are out of order across rotation"
	local i
	for i in $(seq 1 100); do
		[ "$(wc -l <"$T/follow.out")" -ge "$(wc -l <"$T/all.jsonl")" ] && break
		sleep 0.05
	done
	kill "$follower"
	wait "$follower" 2>/dev/null || true
	cmp -s "$T/follow.out" "$T/all.jsonl" ||
		fail "--follow saw $(wc -l <"$T/follow.out") lines, the log holds $(wc -l <"$T/all.jsonl")"
	echo "flood: $logged logged, $lost lost"
}

# The kernel aggregates repeats (bpf/ebpfjail.h, "Aggregation"): 4
# processes, each sending 2,000 datagrams to each of 50 destinations in
# turn (400,000 denials, paced over some 2 s so that the supervisor reads
# the tallies while they grow, not only at exit), leave a few hundred
# records whose counts add up exactly, per destination and per process,
# with nothing lost; the table shows the counts as xN.
test_flood_of_50_destinations_from_4_processes_counted_exactly() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/agent.sh" <<EOF
for i in 1 2 3 4; do
	PROBE_FLOOD=100000 PROBE_FLOOD_ADDRS=50 PROBE_FLOOD_PAUSE_US=10000 \\
		$T/probe flood:10.99.0.1:5353 >$T/agent/flood.\$i &
done
wait
EOF
	jail -- sh "$T/agent.sh"
	expect_rc 0
	cat "$T"/agent/flood.* | awk '$2 != 100000 { bad = 1 } END { exit bad }' ||
		fail "not every send was refused: $(cat "$T"/agent/flood.*)"
	audit --json
	expect_rc 0
	local records lost bad
	records=$(grep -c '"reason"' "$T/out")
	lost=$(lost_count <"$T/out")
	[ "$lost" -eq 0 ] || fail "$lost denials lost"
	[ "$(denial_counts <"$T/out")" -eq 400000 ] ||
		fail "the records count $(denial_counts <"$T/out") denials, 400000 were made"
	denial_counts daddr <"$T/out" >"$T/by-daddr"
	[ "$(wc -l <"$T/by-daddr")" -eq 50 ] || fail "$(wc -l <"$T/by-daddr") destinations, want 50"
	bad=$(awk '$2 != 8000' "$T/by-daddr")
	[ -z "$bad" ] || fail "per destination, want 4 x 2000: $bad"
	denial_counts pid <"$T/out" >"$T/by-pid"
	[ "$(wc -l <"$T/by-pid")" -eq 4 ] || fail "$(wc -l <"$T/by-pid") processes, want 4"
	bad=$(awk '$2 != 100000' "$T/by-pid")
	[ -z "$bad" ] || fail "per process, want 50 x 2000: $bad"
	# One event and at most one count record per kind and window: 200
	# kinds, a few windows.
	[ "$records" -le 2000 ] || fail "$records records for 400,000 repeats of 200 kinds"
	grep -q '"count": [0-9]*, "first": "' "$T/out" || fail "no count record: $(head -n 3 "$T/out")"
	audit
	expect_rc 0
	grep -qE '10\.99\.0\.[0-9]+:5353 +sendmsg4 +private +10\.0\.0\.0/8 +x[0-9]+$' "$T/out" ||
		fail "no xN in the table: $(head -n 5 "$T/out")"
	echo "flood of 50 destinations: $records records"
}

# Finding 1: the agent names its processes. A comm like ESC[2J$(id) is
# data in every consumer: escaped in the JSON log, '?' for the control byte
# in the table, and never a byte a terminal or a shell would act on.
test_audit_agent_chosen_comm_stays_data() {
	netsim_up
	local name
	name=$(printf '\033[2J$(id)')
	mkdir -p "$T/agent" && cp "$T/probe" "$T/agent/$name" && chmod 755 "$T/agent" "$T/agent/$name"
	jail -- "$T/agent/$name" tcp:10.23.0.2:22
	expect_rc 0
	! grep -q $'\033' "$T/err" || fail "the exit summary passed an escape byte to the terminal"
	grep -qF '"comm": "\u001b[2J$(id)"' "$T/audit.jsonl" || fail "log: $(cat "$T/audit.jsonl")"
	audit
	expect_rc 0
	expect_out ' ?[2J$(id) '
	! grep -q $'\033' "$T/out" || fail "the table passed an escape byte to the terminal"
	! grep -q $'\033' "$T/audit.jsonl" || fail "the log holds a raw escape byte"
}

# The exit summary suggests the allow-ip line for the most frequent denial,
# but never for a cloud metadata service: an agent that hammers it must not
# get the user to paste the line that hands it the machine's credentials.
test_exit_summary_never_suggests_allowing_metadata() {
	netsim_up
	jail -- "$T/probe" tcp:169.254.169.254:80 tcp:169.254.169.254:80 tcp:10.23.0.2:22
	expect_rc 0
	expect_err "denied 3 connections: 169.254.169.254:80 (metadata) x2, 10.23.0.2:22 (connected) x1"
	expect_err "169.254.169.254 is a cloud metadata service, not allowed on purpose"
	expect_err "to allow 10.23.0.2:22: allow-ip = 10.23.0.2:22"
	! grep -q "allow-ip = 169" "$T/err" || fail "suggested: $(cat "$T/err")"
	# Nothing else denied: nothing to suggest.
	jail -- "$T/probe" tcp:100.100.100.200:80
	expect_rc 0
	expect_err "100.100.100.200 is a cloud metadata service, not allowed on purpose"
	! grep -q "allow-ip" "$T/err" || fail "suggested: $(cat "$T/err")"
	audit
	expect_rc 0
	! grep -q "allow-ip" "$T/out" || fail "ebpfjail audit suggests: $(cat "$T/out")"
	audit --json
	! grep -q "allow-ip" "$T/out" || fail "ebpfjail audit --json suggests: $(cat "$T/out")"
}

# --suggest turns the log into configuration lines: the LAN host's line
# (with its count and a warning) works when pasted into the configuration,
# and the metadata service is named, never suggested.
test_audit_suggest_lines_work_when_pasted() {
	netsim_up
	jail -- "$T/probe" tcp:10.23.0.2:22 tcp:169.254.169.254:80
	expect_rc 0
	expect_result tcp:10.23.0.2:22 EPERM
	jail -- "$T/probe" tcp:10.23.0.2:22
	audit --suggest
	expect_rc 0
	expect_out "allow-ip = 10.23.0.2:22          # x2, warning: a network the host is on"
	expect_out "# not suggested: 169.254.169.254:80 (x1) is a cloud metadata service"
	expect_no_out "allow-ip = 169.254.169.254"
	grep '^allow-ip' "$T/out" >>"$T/jail.conf"
	jail -- "$T/probe" tcp:10.23.0.2:22 tcp:169.254.169.254:80
	expect_rc 0
	expect_result tcp:10.23.0.2:22 ok
	expect_result tcp:169.254.169.254:80 EPERM
	[ "$(hit_count lan-ssh 1)" -ge 1 ] || fail "the pasted line did not let the jail reach the LAN host"
	audit --suggest --follow
	expect_rc 2
	expect_err "--suggest takes neither --follow nor --json"
}

# Inside the jail, `ebpfjail audit` shows the jail's own denials, so an
# agent that got EPERM can tell its user what was blocked and the line that
# would allow it. Another jail's denials are not in it, and nothing the
# agent writes reaches it (a root agent's neither: the mount is read-only).
test_agent_reads_its_own_denials_and_cannot_write_them() {
	netsim_up
	jail -- "$T/probe" tcp:10.23.0.53:53 # another jail's denial
	expect_rc 0
	mkdir "$T/agent" && chown 4242 "$T/agent"
	# The supervisor writes a denial into the agent's view once it has
	# read its event (the ring buffer, polled): under load that is after
	# the probe returns, so the agent waits for it (5 s at most), as its
	# user would look a moment later.
	cat >"$T/agent.sh" <<EOF2
$T/probe tcp:10.23.0.2:22
for i in \$(seq 1 100); do grep -q '"10.23.0.2"' /run/ebpfjail/denials.jsonl && break; sleep 0.05; done
$T/ebpfjail audit >$T/agent/table 2>$T/agent/table.err
$T/ebpfjail audit --suggest >$T/agent/suggest
$T/ebpfjail audit --json --since 10m >$T/agent/json
echo forged >>/run/ebpfjail/denials.jsonl 2>$T/agent/write.err && echo written >$T/agent/wrote
ls /run/ebpfjail >$T/agent/ls
PROBE_FLOOD=300 $T/probe flood:10.23.0.9:5000 >/dev/null
sleep 1.5 # a window closes: the repeats' count record
$T/ebpfjail audit --json >$T/agent/flood
EOF2
	jail -- sh "$T/agent.sh"
	expect_rc 0
	grep -q "10\.23\.0\.2:22 .*$HOOK4 *connected" "$T/agent/table" ||
		fail "the agent's table: $(cat "$T/agent/table" "$T/agent/table.err")"
	grep -q "this jail's own recent denials" "$T/agent/table.err" || fail "$(cat "$T/agent/table.err")"
	grep -q "^allow-ip = 10.23.0.2:22 " "$T/agent/suggest" || fail "suggest: $(cat "$T/agent/suggest")"
	[ "$(grep -c . "$T/agent/json")" = 1 ] || fail "the agent saw more than its own: $(cat "$T/agent/json")"
	# The host's network is the rule in root's log; the agent's view names
	# the address it tried, not the host's prefix.
	grep -q '"rule": "10.23.0.2/32"' "$T/agent/json" || fail "the agent's rule: $(cat "$T/agent/json")"
	grep -q '"daddr": "10.23.0.2".*"rule": "10.23.0.0/' "$T/audit.jsonl" || fail "root's log: $(cat "$T/audit.jsonl")"
	! grep -q 10.23.0.53 "$T/agent/table" "$T/agent/json" || fail "another jail's denial is visible"
	[ ! -e "$T/agent/wrote" ] || fail "the agent wrote into its view of its denials"
	[ "$(cat "$T/agent/ls")" = denials.jsonl ] || fail "the jails' state shows: $(cat "$T/agent/ls")"
	# Repeats reach the view as count records, while the agent runs.
	[ "$(grep 10.23.0.9 "$T/agent/flood" | denial_counts)" = 300 ] ||
		fail "the agent's view counts $(grep 10.23.0.9 "$T/agent/flood" | denial_counts) of 300"
	# as root, with the same result (the rootless engine runs no root agent)
	rootless && return 0
	jail --user root -- sh -c 'echo forged >>/run/ebpfjail/denials.jsonl || echo refused'
	expect_rc 0
	expect_out refused
	expect_err "Read-only file system"
}

# journal_world FUNCTION: FUNCTION in a mount namespace of its own where a
# systemd-journald of the test's own listens and keeps its files (tmpfs
# over /run/systemd, /run/log and /var/log/journal, persistent there as a
# workstation's are): the jails it runs,
# journalctl and `ebpfjail audit` meet that one, and nothing reaches the
# machine's journal. The simulated network stays the outer shell's.
journal_world() {
	[ -x /lib/systemd/systemd-journald ] ||
		fail "/lib/systemd/systemd-journald is missing: scripts/deps.sh installs it (systemd)"
	[ -d /run/systemd ] && [ -d /run/log ] || skip "no /run/systemd and /run/log to mount over"
	HOST=$HOST INET=$INET LAN=$LAN HOOK4=$HOOK4 OWNER_UID=$OWNER_UID RESOLVER_PID=$RESOLVER_PID \
		unshare --mount --propagation private -- bash -c '
		set -e
		source "$SRC/tests/integration/lib.sh"; source "$SRC/tests/integration/netsim.sh"
		source "$SRC/tests/integration/test_audit.sh"
		for d in /run/systemd /run/log /var/log/journal; do
			[ -d "$d" ] && mount -t tmpfs -o mode=0755 tmpfs "$d"
		done
		mkdir -p /run/systemd/journal
		echo 0123456789abcdef0123456789abcdef >/run/systemd/machine-id
		mount --bind /run/systemd/machine-id /etc/machine-id
		SYSTEMD_LOG_LEVEL=err /lib/systemd/systemd-journald </dev/null >/dev/null 2>&1 &
		journald=$!
		trap "kill $journald; wait $journald 2>/dev/null || true" EXIT
		for i in $(seq 1 200); do [ -S /run/systemd/journal/socket ] && break; sleep 0.05; done
		[ -S /run/systemd/journal/socket ] || fail "journald did not come up"
		# Persistent files (/var/log/journal, the tmpfs): a user has its
		# own there, which it may read (the records of a rootless jail).
		journalctl --flush
		"$0"' "$1"
}

# audit-log = journal: a jail's denials, count records, policy changes and
# names' records go to the journal as entries with their fields
# (journalctl -t ebpfjail EBPFJAIL_REASON=metadata finds the denial), and
# `ebpfjail audit` reads them back as from a file, table and --json. The
# agent cannot write entries of its own there (the attack: a forged
# record, or a flood in ebpfjail's name): the journal's native socket is
# masked in its view. The control: the same user outside the jail can.
test_audit_to_the_journal_and_back() {
	netsim_up
	journal_world _journal_round_trip
}
_journal_round_trip() {
	sed -i 's|^audit-log = .*|audit-log = journal|' "$T/jail.conf"
	mkdir -p "$T/agent" && chown 4242 "$T/agent"
	local forge='MESSAGE=forged
SYSLOG_IDENTIFIER=ebpfjail
EBPFJAIL_RECORD={"time": "2026-01-01T00:00:00.000000Z", "jail": "f0rged00", "policy": "allow", "change": "10.0.0.9", "uid": 0}'
	echo "$forge" >"$T/agent/forge"
	chmod 644 "$T/agent/forge"
	jail --internet off --allow-host web.example.test -- sh -c "
		\"$T/probe\" tcp:169.254.169.254:80 tcp:169.254.169.254:80 dnsconnect:web.example.test:80
		logger --journald=$T/agent/forge && echo forge:sent || echo forge:refused"
	expect_rc 0
	expect_out forge:refused
	setpriv --reuid 4242 --regid 4242 --clear-groups -- logger --journald="$T/agent/forge" ||
		fail "the control: uid 4242 outside the jail cannot write to the journal"
	# What the journal holds, not logger's status: the control's entry
	# alone (the jail's never came, whatever made logger fail).
	local i forged=0
	for i in $(seq 1 40); do
		forged=$(journalctl -q --no-pager -o cat MESSAGE=forged | wc -l)
		[ "$forged" -ge 1 ] && break
		sleep 0.05
	done
	[ "$forged" = 1 ] || fail "$forged forged entries in the journal, want the control's alone"
	run journalctl -t ebpfjail EBPFJAIL_REASON=metadata -o json --no-pager
	expect_rc 0
	grep -q '"EBPFJAIL_DADDR":"169.254.169.254"' "$T/out" || fail "journalctl: $(cat "$T/out" "$T/err")"
	local who='from probe \(pid [0-9]*\)' # the rootless engine names no process
	rootless && who='from -'
	grep -qE '"MESSAGE":"jail [0-9a-f]*: denied tcp 169.254.169.254:80 '"$who"': metadata' \
		"$T/out" || fail "no readable MESSAGE: $(cat "$T/out")"
	run journalctl -t ebpfjail EBPFJAIL_DNS=web.example.test -o json --no-pager
	grep -q '"EBPFJAIL_ADDRS":"198.51.100.7"' "$T/out" || fail "no dns entry: $(cat "$T/out")"
	# As the jail's user: root's jails' records are root's, a rootless
	# jail's its user's.
	audit --json
	expect_rc 0
	expect_out '"daddr": "169.254.169.254", "dport": 80, "hook": "'"$HOOK4"'", "reason": "metadata"'
	expect_out '"dns": "web.example.test", "addrs": ["198.51.100.7"]'
	# Another user's entries are no records; rootless, that user is the
	# reader, and its own entries its own.
	rootless || expect_no_out f0rged00
	audit
	expect_rc 0
	expect_out "169.254.169.254:80"
	expect_out "dns web.example.test: allowed 198.51.100.7"
}
