# test_cli.sh - the command line: help, version, dispatch, exit statuses, config

test_version() {
	run "$EBPFJAIL" --version
	expect_rc 0
	grep -qE '^ebpfjail [0-9]+\.[0-9]+\.[0-9]+$' "$T/out" || fail "version: $(cat "$T/out")"
}

test_help_lists_every_command() {
	run "$EBPFJAIL" help
	expect_rc 0
	for c in run audit doctor status config help; do expect_out "  $c "; done
	run "$EBPFJAIL" --help
	expect_rc 0
	expect_out "Usage: ebpfjail COMMAND"
}

test_help_command() {
	for c in run audit doctor status config; do
		run "$EBPFJAIL" help "$c"
		expect_rc 0
		expect_out "Usage: ebpfjail $c"
		run "$EBPFJAIL" "$c" --help
		expect_rc 0
		expect_out "Usage: ebpfjail $c"
		run "$EBPFJAIL" "$c" -h
		expect_rc 0
	done
	run "$EBPFJAIL" help run
	expect_out "--allow-ip IP[:PORT]"
	expect_out "125"
}

test_usage_errors_exit_2_with_one_line_hint() {
	for args in "" "bogus" "--bogus" "run --bogus" "run" "run --user" "config --json" "audit --allow-ip 1.2.3.4" \
		"doctor --follow" "help bogus" "help run audit" "config extra" "config --config"; do
		# shellcheck disable=SC2086
		run "$EBPFJAIL" $args
		expect_rc 2
		expect_lines 1 "$T/err"
		expect_err "try 'ebpfjail help"
		[ ! -s "$T/out" ] || fail "usage error '$args' printed on stdout"
	done
}

test_config_example_file() {
	run "$EBPFJAIL" config --config "$SRC/etc/ebpfjail.conf"
	expect_rc 0
	expect_out "local-model-port = 1920"
	expect_out "etc/ebpfjail.conf:"
	[ ! -s "$T/err" ] || fail "the example config warns: $(cat "$T/err")"
}

test_example_documents_every_key() {
	for k in egress-jail allow-ip block-cidr local-port local-model-port callback-port pass-env \
		unix-socket share-tmp audit-log; do
		grep -q "^#* *$k = " "$SRC/etc/ebpfjail.conf" || fail "etc/ebpfjail.conf lacks $k"
	done
	grep -q '^local-model-port = 1920' "$SRC/etc/ebpfjail.conf" || fail "local-model-port not set"
	grep -q '^# callback-port = 53692' "$SRC/etc/ebpfjail.conf" || fail "no 53692 example"
	grep -q '^# callback-port = 1455' "$SRC/etc/ebpfjail.conf" || fail "no 1455 example"
}

test_config_error_names_file_line_text() {
	printf 'local-port = 5432\nallow-ip = 010.0.0.1\n' >bad.conf
	run "$EBPFJAIL" config --config bad.conf
	expect_rc 1
	expect_err 'bad.conf:2: allow-ip = "010.0.0.1"'
	[ ! -s "$T/out" ] || fail "an invalid configuration was printed"
}

test_config_missing_file() {
	run "$EBPFJAIL" config --config "$T/nope.conf"
	expect_rc 1
	expect_err "nope.conf:0: cannot open: No such file or directory"
}

test_config_precedence_across_all_sources() {
	with_etc true
	printf 'local-model-port = 1111\nallow-ip = 192.0.2.1\naudit-log = /tmp/sys.jsonl\n' >"$T/etc/ebpfjail.conf"
	printf 'local-model-port = 2222\nallow-ip = 192.0.2.2\n' >"$T/home/.config/ebpfjail.conf"
	chown 4242 "$T/home/.config/ebpfjail.conf"
	# The user's own lines that loosen the jail count once approved.
	run env SUDO_USER=jailtest SUDO_UID=4242 bash -c "$(declare -f with_etc skip private_varlib); with_etc \"\$@\"" _ "$EBPFJAIL" config
	expect_rc 1
	expect_err "ebpfjail.conf:2: allow-ip = \"192.0.2.2\" loosens the jail and was not approved"
	expect_err "approve them: sudo ebpfjail trust"
	run env SUDO_USER=jailtest SUDO_UID=4242 bash -c "$(declare -f with_etc skip private_varlib); with_etc \"\$@\"" _ "$EBPFJAIL" trust --yes
	expect_rc 0
	expect_out "approved for agents of uid 4242 (jailtest): $T/home/.config/ebpfjail.conf"
	run env SUDO_USER=jailtest SUDO_UID=4242 EBPFJAIL_LOCAL_MODEL_PORT=3333 EBPFJAIL_ALLOW_IP="192.0.2.3 192.0.2.1" \
		bash -c "$(declare -f with_etc skip private_varlib); with_etc \"\$@\"" _ "$EBPFJAIL" config --allow-ip 192.0.2.4 --callback-port 1455
	expect_rc 0
	expect_out "local-model-port = 3333"
	expect_out "# env EBPFJAIL_LOCAL_MODEL_PORT"
	expect_out "allow-ip = 192.0.2.1                     # /etc/ebpfjail.conf:2"
	expect_out "allow-ip = 192.0.2.2                     # $T/home/.config/ebpfjail.conf:2"
	expect_out "allow-ip = 192.0.2.3                     # env EBPFJAIL_ALLOW_IP"
	expect_out "allow-ip = 192.0.2.4                     # flag --allow-ip"
	expect_out "callback-port = 1455                     # flag --callback-port"
	expect_out "audit-log = /tmp/sys.jsonl               # /etc/ebpfjail.conf:3"
	[ "$(grep -c '^allow-ip' "$T/out")" -eq 4 ] || fail "allow-ip not deduplicated"
}

test_config_flag_replaces_user_file() {
	with_etc true
	printf 'local-port = 1\n' >"$T/home/.config/ebpfjail.conf"
	printf 'local-port = 2\n' >other.conf
	run env SUDO_USER=jailtest bash -c "$(declare -f with_etc skip private_varlib); with_etc \"\$@\"" _ "$EBPFJAIL" config --config "$T/other.conf"
	expect_rc 0
	expect_out "local-port = 2"
	expect_no_out "local-port = 1 "
}

test_user_file_read_as_the_user() {
	# A symlink planted in the user's home must not make root read a file
	# the user cannot (and echo its lines in error messages).
	with_etc true
	echo "secret-line-of-root = 1" >"$T/rootonly"
	chmod 600 "$T/rootonly"
	ln -s "$T/rootonly" "$T/home/.config/ebpfjail.conf"
	run env SUDO_USER=jailtest bash -c "$(declare -f with_etc skip private_varlib); with_etc \"\$@\"" _ "$EBPFJAIL" config
	expect_rc 1
	expect_err "cannot open: Permission denied"
	! grep -q secret-line "$T/err" || fail "root's file was read through the user's symlink"
}

# The same for a --config file the agent could redirect, and for a file of
# root's group (root's own supplementary groups must not come along).
test_config_links_read_as_the_user() {
	with_etc true
	echo "secret-line-of-root = 1" >"$T/rootonly"
	chmod 600 "$T/rootonly"
	echo "secret-of-root-group = 1" >"$T/grouponly"
	chgrp 0 "$T/grouponly" && chmod 640 "$T/grouponly"
	mkdir "$T/agentdir" && chown 4242 "$T/agentdir"
	ln -s "$T/rootonly" "$T/agentdir/project.conf"
	run env SUDO_USER=jailtest SUDO_UID=4242 bash -c "$(declare -f with_etc skip private_varlib); with_etc \"\$@\"" _ "$EBPFJAIL" config --config "$T/agentdir/project.conf"
	expect_rc 1
	expect_err "cannot open: Permission denied"
	! grep -q secret "$T/err" || fail "root's file was read through the agent's link"
	ln -s "$T/grouponly" "$T/home/.config/ebpfjail.conf"
	run env SUDO_USER=jailtest SUDO_UID=4242 setpriv --groups 0 -- bash -c "$(declare -f with_etc skip private_varlib); with_etc \"\$@\"" _ "$EBPFJAIL" config
	expect_rc 1
	expect_err "cannot open: Permission denied"
	! grep -q secret "$T/err" || fail "a file of root's group was read with root's groups"
}

test_config_unknown_key_warns_but_runs() {
	printf 'alow-ip = 192.0.2.1\n' >typo.conf
	run "$EBPFJAIL" config --config typo.conf
	expect_rc 0
	expect_err 'warning: typo.conf:1: unknown key "alow-ip" ignored; did you mean "allow-ip"?'
}

test_config_overlap_refused() {
	run "$EBPFJAIL" config --config /dev/null --local-port 5432 --callback-port 5432
	expect_rc 1
	expect_err "callback-port = 5432 is also a local-port (flag --local-port)"
}

test_config_bad_flag_value() {
	run "$EBPFJAIL" config --config /dev/null --allow-ip 10.0.0.0/8
	expect_rc 1
	expect_err 'flag --allow-ip: allow-ip = "10.0.0.0/8": allow-ip takes one address, not a network: write "allow-ip = 10.0.0.0"'
}

test_config_key_prints_only_that_key() {
	printf 'allow-ip = 192.0.2.7\nblock-cidr = 198.18.0.0/15\n' >"$T/c.conf"
	run "$EBPFJAIL" config --config "$T/c.conf" --allow-ip 192.0.2.8 allow-ip
	expect_rc 0
	expect_lines 2 "$T/out"
	expect_out "allow-ip = 192.0.2.7"
	expect_out "allow-ip = 192.0.2.8"
	expect_no_out block-cidr
	run "$EBPFJAIL" config --config "$T/c.conf" alow-ip
	expect_rc 2
	expect_err "'alow-ip' is not a configuration key"
}

# engine: which one, where it came from; bpf without root refuses in one
# line (the cause and the fix), before anything is set up; a bad value
# names itself.
test_engine_is_chosen_said_and_refused_plainly() {
	chmod 755 "$T"
	run "$EBPFJAIL" config --engine nftables
	expect_out "engine = nftables                        # flag --engine"
	run "$EBPFJAIL" config --engine foo
	expect_err 'flag --engine: engine = "foo": must be auto, bpf or nftables'
	run setpriv --reuid 4242 --regid 4242 --clear-groups -- env HOME="$T" "$EBPFJAIL" run \
		--engine bpf -- /bin/true
	expect_rc 125
	expect_err "cannot start the jail: engine = bpf needs root on the host"
	expect_err "run it with sudo, or use engine = nftables"
	expect_lines 1 "$T/err"
	run setpriv --reuid 4242 --regid 4242 --clear-groups -- env HOME="$T" EBPFJAIL_ENGINE=bpf \
		"$EBPFJAIL" doctor
	expect_out "fail  engine           engine = bpf needs root on the host"
}
