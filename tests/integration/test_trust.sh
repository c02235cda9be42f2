# test_trust.sh - the agent must not loosen its own jail through files it can
# write: `ebpfjail trust` approvals, audit-log from root's files only,
# configuration files that are not regular files

# _agent_conf: $T/agent/user.conf, the agent's user's (uid 4242) own file,
# as ~/.config/ebpfjail.conf is, starting from the root-owned jail.conf
_agent_conf() {
	mkdir -p "$T/agent" && chown 4242 "$T/agent"
	grep -v '^audit-log' "$T/jail.conf" >"$T/agent/user.conf"
	chown 4242 "$T/agent/user.conf"
}

# Finding 2: an agent appends allow-ip (or egress-jail = off) to its user's
# file and waits for the next run.
test_loosening_lines_need_approval() {
	netsim_up
	_agent_conf
	printf 'allow-ip = 10.23.0.2\n' >>"$T/agent/user.conf"
	jail --config "$T/agent/user.conf" -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 125
	expect_err "$T/agent/user.conf:2: allow-ip = \"10.23.0.2\" loosens the jail and was not approved"
	expect_err "if you wrote them, approve them: sudo ebpfjail trust --config $T/agent/user.conf"
	expect_no_hit lan-ssh

	run trust_cmd --config "$T/agent/user.conf"
	expect_rc 0
	expect_out "approved for agents of uid 4242"
	expect_out "  line 2: allow-ip = 10.23.0.2  (new)"
	jail --config "$T/agent/user.conf" -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 0
	expect_result tcp:10.23.0.2:22 ok

	# The agent adds more; only what changed is named, and nothing runs.
	jail --config "$T/agent/user.conf" -- sh -c "printf 'allow-ip = 10.23.0.53\negress-jail = off\n' >>$T/agent/user.conf"
	expect_rc 0
	jail --config "$T/agent/user.conf" -- "$T/probe" tcp:10.23.0.53:53
	expect_rc 125
	expect_err "user.conf:3: allow-ip = \"10.23.0.53\" loosens the jail and was not approved"
	expect_err "user.conf:4: egress-jail = \"off\" loosens the jail and was not approved"
	! grep -q 'user.conf:2' "$T/err" || fail "the approved line was named as changed"
	expect_no_hit lan-dns-tcp

	# Tightening needs no approval.
	sed -i '/^allow-ip = 10.23.0.53/d; /^egress-jail/d' "$T/agent/user.conf"
	printf 'block-cidr = 198.51.100.0/24\n' >>"$T/agent/user.conf"
	jail --config "$T/agent/user.conf" -- "$T/probe" tcp:10.23.0.2:22 tcp:198.51.100.80:80
	expect_rc 0
	expect_result tcp:10.23.0.2:22 ok
	expect_result tcp:198.51.100.80:80 EPERM

	# Approved again after a change, it runs; the removed line is withdrawn.
	sed -i 's/^allow-ip = 10.23.0.2$/allow-ip = 10.23.0.2:22/' "$T/agent/user.conf"
	run trust_cmd --config "$T/agent/user.conf"
	expect_rc 0
	expect_out "allow-ip = 10.23.0.2:22  (new)"
	expect_out "withdrawn: allow-ip = 10.23.0.2"
	jail --config "$T/agent/user.conf" -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 0
	expect_result tcp:10.23.0.2:22 ok
	expect_no_leftovers
}

# The agent itself cannot approve: not as its user, not as a root without
# capabilities (--user root).
test_agent_cannot_approve() {
	netsim_up
	_agent_conf
	printf 'allow-ip = 10.23.0.2\n' >>"$T/agent/user.conf"
	jail -- sh -c "'$T/ebpfjail' trust --config $T/agent/user.conf; echo rc=\$?"
	expect_rc 0
	expect_out "rc=1"
	expect_err "only root can approve a configuration"
	jail --user root -- sh -c "'$T/ebpfjail' trust --user 4242 --config $T/agent/user.conf; echo rc=\$?"
	expect_rc 0
	expect_out "rc=1"
	expect_err "only root can approve a configuration"
	[ -z "$(find "$T/varlib" -type f)" ] || fail "an approval was written: $(find "$T/varlib" -type f)"
	expect_no_leftovers
}

# A reload after the agent changed its file keeps the running policy and
# says what to approve.
test_reload_keeps_policy_when_the_agent_loosens_its_file() {
	netsim_up
	_agent_conf
	JAIL_ID=
	jail_cmd --config "$T/agent/user.conf" -- sh -c "
		printf 'allow-ip = 10.23.0.2\n' >>$T/agent/user.conf
		touch $T/agent/appended
		for i in \$(seq 1 100); do [ -e $T/reloaded ] && break; sleep 0.05; done
		$T/probe tcp:10.23.0.2:22" >"$T/jail.out" 2>"$T/jail.err" &
	JOB=$!
	local i
	for i in $(seq 1 100); do [ -e "$T/agent/appended" ] && [ -S /run/ebpfjail/*/control ] && break; sleep 0.05; done
	run "$EBPFJAIL" reload
	touch "$T/reloaded"
	expect_rc 1
	expect_err "the running policy is unchanged; if you wrote the lines not approved, approve them: sudo ebpfjail trust --config $T/agent/user.conf"
	expect_err "user.conf:2: allow-ip = \"10.23.0.2\" loosens the jail and was not approved"
	wait "$JOB" || fail "the jail failed: $(cat "$T/jail.err")"
	grep -q 'tcp:10.23.0.2:22 EPERM' "$T/jail.out" || fail "the agent reached 10.23.0.2: $(cat "$T/jail.out")"
	expect_no_hit lan-ssh
	expect_no_leftovers
}

# Finding 6: with --user root, root's own files are the agent's too, and so
# are ebpfjail's approvals: no file loosens the jail of a root agent.
test_user_root_takes_loosening_from_flags_only() {
	netsim_up
	cp "$T/jail.conf" "$T/root.conf"
	printf 'allow-ip = 10.23.0.2\n' >>"$T/root.conf"
	jail --config "$T/root.conf" --user root -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 125
	expect_err "the agent runs as root: it can change every root-owned file"
	expect_err "root.conf:3: allow-ip = \"10.23.0.2\" loosens the jail and was not approved"
	expect_err "an agent run as root takes them from run's options only"
	expect_no_hit lan-ssh
	run trust_cmd --config "$T/root.conf" --user 0
	expect_rc 1
	expect_err "nothing is approved for an agent run as root"
	# An approval the root agent could write itself (the very record trust
	# writes for uid 4242, put under uid 0) counts for nothing.
	mv "$T/root.conf" "$T/root.keep"
	grep -v '^audit-log' "$T/root.keep" >"$T/root.conf" && chown 4242 "$T/root.conf"
	run trust_cmd --config "$T/root.conf"
	expect_rc 0
	expect_out "line 2: allow-ip = 10.23.0.2  (new)"
	mv "$T/root.keep" "$T/root.conf"
	mkdir -p "$T/varlib/trust/0"
	cp "$T"/varlib/trust/4242/* "$T/varlib/trust/0/"
	jail --config "$T/root.conf" --user root -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 125
	expect_err "root.conf:3: allow-ip = \"10.23.0.2\" loosens the jail and was not approved"
	expect_no_hit lan-ssh
	# From run's own options it works; run for the user, root's file counts.
	sed -i '/^allow-ip/d' "$T/root.conf"
	jail --config "$T/root.conf" --user root --allow-ip 10.23.0.2:22 -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 0
	expect_result tcp:10.23.0.2:22 ok
	printf 'allow-ip = 10.23.0.53\n' >>"$T/root.conf"
	jail --config "$T/root.conf" -- "$T/probe" tcp:10.23.0.53:53
	expect_rc 0
	expect_result tcp:10.23.0.53:53 ok
	expect_no_leftovers
}

# Finding 1: audit-log from a file the agent can write would let it aim
# root's appends (text it chose: its comm) at a root shell's start-up file.
test_audit_log_only_from_root_files() {
	netsim_up
	_agent_conf
	printf 'audit-log = %s/agent/bashrc\n' "$T" >>"$T/agent/user.conf"
	jail --config "$T/agent/user.conf" -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 125
	expect_err "user.conf:2: audit-log may only be set in a root-owned configuration file"
	[ ! -e "$T/agent/bashrc" ] || fail "root wrote where the agent said"
	run trust_cmd --config "$T/agent/user.conf"
	expect_rc 1
	expect_err "nothing approved"
	expect_no_leftovers
}

# The log's directory must be root's alone, and no link is followed to it.
test_audit_log_directory_must_be_roots() {
	netsim_up
	mkdir "$T/userlog" && chown 4242 "$T/userlog"
	sed -i "s|^audit-log = .*|audit-log = $T/userlog/audit.jsonl|" "$T/jail.conf"
	jail -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 125
	expect_err "the directory of the audit log $T/userlog/audit.jsonl belongs to uid 4242"
	[ ! -e "$T/userlog/audit.jsonl" ] || fail "root wrote into the user's directory"
	mkdir "$T/rootlog" && ln -s "$T/rootlog" "$T/loglink"
	sed -i "s|^audit-log = .*|audit-log = $T/loglink/audit.jsonl|" "$T/jail.conf"
	jail -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 125
	expect_err "a link (not followed: root writes there)"
	[ ! -e "$T/rootlog/audit.jsonl" ] || fail "the link was followed"
	expect_no_leftovers
}

# Finding 3: a FIFO in place of the configuration blocked `run` before it
# started and `reload` in the supervisor, for as long as the agent liked.
test_fifo_config_never_blocks() {
	netsim_up
	_agent_conf
	rm "$T/agent/user.conf"
	mkfifo "$T/agent/user.conf" && chown 4242 "$T/agent/user.conf"
	jail_cmd --config "$T/agent/user.conf" -- true >"$T/out" 2>"$T/err" &
	local pid=$! i
	for i in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then _kill_tree "$pid"; fail "run waited on the FIFO"; fi
	wait "$pid" && rc=0 || rc=$?
	expect_rc 125
	expect_err "user.conf:0: cannot read: a FIFO, not a configuration file"

	# The agent swaps its file for a FIFO, then root reloads.
	rm "$T/agent/user.conf"
	_agent_conf
	jail_cmd --config "$T/agent/user.conf" -- sh -c "
		rm $T/agent/user.conf && mkfifo $T/agent/user.conf && touch $T/agent/swapped
		for i in \$(seq 1 100); do [ -e $T/reloaded ] && break; sleep 0.05; done
		$T/probe tcp:10.23.0.2:22" >"$T/jail.out" 2>"$T/jail.err" &
	JOB=$!
	for i in $(seq 1 100); do [ -e "$T/agent/swapped" ] && [ -S /run/ebpfjail/*/control ] && break; sleep 0.05; done
	run timeout 20 "$EBPFJAIL" reload
	touch "$T/reloaded"
	expect_rc 1
	expect_err "cannot read: a FIFO, not a configuration file"
	run timeout 20 "$EBPFJAIL" status
	expect_rc 0
	wait "$JOB" || fail "the jail failed: $(cat "$T/jail.err")"
	grep -q 'tcp:10.23.0.2:22 EPERM' "$T/jail.out" || fail "$(cat "$T/jail.out")"
	expect_no_leftovers
}

test_trust_help_and_root_file() {
	run "$EBPFJAIL" help trust
	expect_rc 0
	expect_out "Usage: ebpfjail trust [--config FILE] [--user USER|UID]"
	printf 'allow-ip = 192.0.2.1\n' >"$T/root.conf"
	run trust_cmd --config "$T/root.conf"
	expect_rc 0
	expect_out "can be changed by root alone: its lines count without approval for agents of uid 4242"
	run trust_cmd --config "$T/nope.conf"
	expect_rc 1
	expect_err "nope.conf:0: cannot open: No such file or directory"
}

# A single-value line set again further down has no effect: approving it
# would let it take effect, unseen, once the agent deletes the later line.
test_trust_skips_overridden_lines() {
	netsim_up
	_agent_conf
	printf 'egress-jail = off\negress-jail = on\n' >>"$T/agent/user.conf"
	run trust_cmd --config "$T/agent/user.conf"
	expect_rc 0
	expect_out "line 2: egress-jail = off  (set again below: not approved)"
	sed -i '/^egress-jail = on/d' "$T/agent/user.conf"
	jail --config "$T/agent/user.conf" -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 125
	expect_err "user.conf:2: egress-jail = \"off\" loosens the jail and was not approved"
	expect_no_leftovers
}

# Issue 30, finding 6: the user deletes an approved line (a tightening: no
# trust needed); the agent appends it again and the next run took it
# unseen. Now a run as root withdraws the approval of a line the file no
# longer holds, so the line added again is refused until approved again.
# Control: while approved, the same line opens the address.
test_a_deleted_approved_line_needs_trust_again() {
	netsim_up
	_agent_conf
	printf 'allow-ip = 10.23.0.2\n' >>"$T/agent/user.conf"
	run trust_cmd --config "$T/agent/user.conf"
	expect_rc 0
	jail --config "$T/agent/user.conf" -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 0
	expect_result tcp:10.23.0.2:22 ok
	[ "$(hit_count lan-ssh 1)" = 1 ] || fail "control: the approved line did not open the address"

	sed -i '/^allow-ip = 10.23.0.2$/d' "$T/agent/user.conf"
	jail --config "$T/agent/user.conf" -- sh -c "printf 'allow-ip = 10.23.0.2\n' >>$T/agent/user.conf"
	expect_rc 0
	expect_err "$T/agent/user.conf: 'allow-ip = 10.23.0.2' is no longer in it: its approval is withdrawn"
	jail --config "$T/agent/user.conf" -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 125
	expect_err "user.conf:2: allow-ip = \"10.23.0.2\" loosens the jail and was not approved"
	[ "$(grep -cx lan-ssh "$T/hits")" = 1 ] || fail "the line added again reached the LAN host"

	# Approved again, it counts again.
	run trust_cmd --config "$T/agent/user.conf"
	expect_rc 0
	expect_out "  line 2: allow-ip = 10.23.0.2  (new)"
	jail --config "$T/agent/user.conf" -- "$T/probe" tcp:10.23.0.2:22
	expect_rc 0
	expect_result tcp:10.23.0.2:22 ok
	expect_no_leftovers
}

# trust shows the lines before it approves them and asks on the terminal;
# with no terminal only --yes approves. The attack: a script run as the
# user's `sudo ebpfjail trust` got every line the agent planted approved
# unseen.
test_trust_shows_the_lines_and_asks() {
	netsim_up
	_agent_conf
	printf 'allow-ip = 10.23.0.2\n' >>"$T/agent/user.conf"
	TRUST_ASK=1 run trust_cmd --config "$T/agent/user.conf"
	expect_rc 1
	expect_out "  line 2: allow-ip = 10.23.0.2  (new)"
	expect_err "nothing approved: no terminal to ask on (--yes approves without asking)"
	[ -z "$(find "$T/varlib" -type f)" ] || fail "an approval was written: $(find "$T/varlib" -type f)"
	# On a terminal: "n" approves nothing, "y" approves.
	cat >"$T/ask.sh" <<EOF2
exec unshare --mount --propagation private -- sh -c 'mount --bind "$T/varlib" /var/lib/ebpfjail &&
	exec env SUDO_UID=4242 SUDO_GID=4242 "$EBPFJAIL" trust --config "$T/agent/user.conf"'
EOF2
	run sh -c "printf 'n\n' | timeout 20 script -qec 'sh $T/ask.sh' /dev/null"
	expect_out "  line 2: allow-ip = 10.23.0.2  (new)"
	expect_out "Approve 1 new line? [y/N]"
	expect_out "nothing approved"
	[ -z "$(find "$T/varlib" -type f)" ] || fail "'n' wrote an approval: $(find "$T/varlib" -type f)"
	run sh -c "printf 'y\n' | timeout 20 script -qec 'sh $T/ask.sh' /dev/null"
	expect_out "approved for agents of uid 4242"
	[ -n "$(find "$T/varlib" -type f)" ] || fail "control: 'y' wrote no approval"
}
