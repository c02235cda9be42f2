# test_agents.sh - real agents in the jail: Claude Code's own CLI (from
# npm, scripts/deps.sh's pin) against a mock of its API

CLAUDE_JS=/var/cache/ebpfjail/npm/@anthropic-ai/claude-code@2.0.10/package/cli.js

# mock_api NAME: the mock Anthropic API (mock_anthropic.js, plain HTTP) on
# the simulated internet's 198.51.100.7:443, which the resolver answers
# for NAME; every request a line of $T/api.log
mock_api() {
	echo "198.51.100.7 $1" | resolver_hosts
	nsenter -t "$INET" -n -- node "$SRC/tests/integration/mock_anthropic.js" 198.51.100.7 443 \
		"$T/api.log" "the mock says hello" </dev/null >/dev/null 2>&1 &
	NETSIM_PIDS+=($!)
	_expect_listener "$INET" tcp 198.51.100.7 443
	_wait_listening "$INET"
}

# The README's promise: `ebpfjail run --internet off --profile claude-code
# claude` just works. Claude Code answers a prompt through the profile's
# api.anthropic.com (ANTHROPIC_BASE_URL names it; the mock's log shows the
# prompt), while in the same jail a name the profile lacks does not
# resolve and an internet address nobody allowed is denied. The control:
# without the profile, the same claude -p reaches no API.
test_claude_code_runs_allowlist_only_with_its_profile() {
	[ -f "$CLAUDE_JS" ] || fail "no Claude Code at $CLAUDE_JS: run scripts/deps.sh"
	netsim_up
	mock_api api.anthropic.com
	mkdir -p "$T/agent/home" && chown -R 4242 "$T/agent"
	cat >"$T/agent.sh" <<-EOF
		export HOME=$T/agent/home ANTHROPIC_BASE_URL=http://api.anthropic.com:443
		export ANTHROPIC_API_KEY=sk-mock DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
		cd $T/agent && timeout \${WAIT:-60} node $CLAUDE_JS -p "what does the mock say?"
		echo "claude:\$?"
		$T/probe dnsconnect:evil.attacker.test:443 tcp:198.51.100.99:443
	EOF
	jail --internet off --profile claude-code -- sh "$T/agent.sh"
	expect_rc 0
	expect_out "the mock says hello"
	expect_out "claude:0"
	grep -q '^POST /v1/messages what does the mock say?$' "$T/api.log" ||
		fail "the API never saw the prompt: $(cat "$T/api.log")"
	expect_result dnsconnect:evil.attacker.test:443 noanswer
	grep -q '"name": "evil.attacker.test", "qtype": "A", "hook": "dns", "reason": "dns", "rule": "internet-off"' \
		"$T/audit.jsonl" || fail "no dns denial of the name the profile lacks: $(grep dns "$T/audit.jsonl")"
	! resolver_saw evil.attacker.test || fail "a name the profile lacks reached the resolver"
	expect_denied tcp:198.51.100.99:443
	grep -q '"daddr": "198.51.100.99", "dport": 443, .*"reason": "internet"' "$T/audit.jsonl" ||
		fail "no internet denial: $(cat "$T/audit.jsonl")"
	# The control: the same agent without the profile reaches no API (it
	# retries for as long as it is let: 8 s).
	cp "$T/api.log" "$T/api.log.before"
	jail --internet off -- env WAIT=8 sh "$T/agent.sh"
	! grep -q "the mock says hello" "$T/out" || fail "claude got an answer without the profile"
	cmp -s "$T/api.log" "$T/api.log.before" || fail "the API was reached without the profile: $(cat "$T/api.log")"
	grep -q '"name": "api.anthropic.com", "qtype": "A", "hook": "dns", "reason": "dns", "rule": "internet-off"' \
		"$T/audit.jsonl" || fail "no dns denial of the API's name: $(grep dns "$T/audit.jsonl")"
	expect_no_leftovers
}
