#!/usr/bin/env bash
# deps.sh - install every Debian 12 package ebpfjail needs to build, test and run
#
# Usage: scripts/deps.sh           install what scripts/deps.list names (root)
#        scripts/deps.sh --check   only check that all of it is there
#        scripts/deps.sh --section NAME...   install (and check) only the
#                                  list's sections whose header starts with
#                                  NAME, dashes for spaces ("build",
#                                  "the-unit-tests"), and no
#                                  npm pin: a root that builds and runs the
#                                  unit tests (make check-trixie-build)
#
# scripts/deps.list is the one list: each program (or file) the build, the
# suites, the benchmarks and the product use, with its package. Installing
# is idempotent: when every package is installed it prints nothing, and it
# ends with the check, so a list whose package does not provide what the
# line names fails here and not in the middle of a test. --check is the
# first step of `make check`: "missing: slirp4netns (package slirp4netns)"
# for each absent one, and exit 1. Only Debian's own archive is used, and
# the npm registry for the pinned agents (npm_pins below).
set -euo pipefail
list=$(dirname "$0")/deps.list
[ -r "$list" ] || { echo "deps.sh: cannot read $list" >&2; exit 1; }

# entries: "NAME PACKAGE" lines, one per name, from the list (from the
# sections $sections names, if any: "|"-separated header beginnings)
sections=
entries() {
	awk -v want="$sections" '
		/^# --- / { name = substr($0, 7); gsub(/ /, "-", name); on = want == ""
			n = split(want, w, "|"); for (i = 1; i <= n; i++) if (index(name, w[i]) == 1) on = 1
			next }
		{ sub(/#.*/, "") }
		(want == "" || on) && NF >= 2 { for (i = 1; i < NF; i++) print $i, $NF }' "$list"
}

# present NAME: a program on PATH (or in the sbin directories a non-root
# PATH lacks), or an absolute path or glob that matches a file
present() {
	case $1 in
	/*) compgen -G "$1" >/dev/null ;;
	*) PATH="$PATH:/usr/sbin:/sbin" command -v "$1" >/dev/null ;;
	esac
}

# The real agents the suites jail, from the npm registry (the only other
# archive this machine reaches), pinned by version and by the registry's
# own integrity hash: "NAME VERSION sha512-BASE64", unpacked (no install
# scripts run) into $NPM_DIR/NAME@VERSION. Claude Code 2.0.10 is the
# newest that runs on Debian 12's Node.js 18.
NPM_DIR=/var/cache/ebpfjail/npm
npm_pins() {
	echo "@anthropic-ai/claude-code 2.0.10 sha512-y2B6OW5MneWYqzWq0NbzzgcsCtI0S7c//IDt4DYzmkGgpES3B2aFpmFB9wMvAuxy7aOs1gap3DIudobaFzs+YQ=="
}

# npm_fetch NAME VERSION INTEGRITY: the package's tarball, checked, unpacked
npm_fetch() {
	local dir="$NPM_DIR/$1@$2" url="https://registry.npmjs.org/$1/-/${1##*/}-$2.tgz" tgz want got
	tgz=$(mktemp)
	if ! curl -fsSL --retry 3 -o "$tgz" "$url"; then
		rm -f "$tgz"
		echo "deps.sh: $1@$2: cannot fetch $url" >&2
		return 1
	fi
	want=$(printf '%s' "${3#sha512-}" | base64 -d | od -An -tx1 | tr -d ' \n')
	got=$(sha512sum "$tgz" | cut -d' ' -f1)
	if [ "$want" != "$got" ]; then
		rm -f "$tgz"
		echo "deps.sh: $1@$2: the tarball's sha512 is not the pinned one" >&2
		return 1
	fi
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	if ! tar -xzf "$tgz" -C "$dir.tmp" --no-same-owner; then
		rm -rf "$tgz" "$dir.tmp"
		echo "deps.sh: $1@$2: cannot unpack the tarball" >&2
		return 1
	fi
	rm -f "$tgz"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
}

# npm_present NAME VERSION: the pin is unpacked
npm_present() { [ -f "$NPM_DIR/$1@$2/package/package.json" ]; }

check() {
	local name pkg version integrity missing=0
	# one line per name, its packages joined ("docker.io or docker-cli")
	while read -r name pkg; do
		present "$name" && continue
		echo "missing: $name (package $pkg)" >&2
		missing=$((missing + 1))
	done < <(entries | awk '{ sub(/\?$/, "", $2) } !($1 in p) { order[++n] = $1 }
		{ p[$1] = $1 in p ? p[$1] " or " $2 : $2 } END { for (i = 1; i <= n; i++) print order[i], p[order[i]] }')
	while read -r name version integrity; do
		npm_present "$name" "$version" && continue
		echo "missing: $name@$version (npm: scripts/deps.sh fetches it)" >&2
		missing=$((missing + 1))
	done < <(npm_pins)
	[ "$missing" -eq 0 ] && return 0
	echo "deps.sh: $missing missing: scripts/deps.sh installs them (as root)" >&2
	return 1
}

case ${1:-} in
--check) check; exit ;;
--section)
	shift
	[ $# -gt 0 ] || { echo "usage: scripts/deps.sh --section NAME..." >&2; exit 2; }
	sections=$(IFS='|'; echo "$*")
	npm_pins() { :; } ;;
"") ;;
*) echo "usage: scripts/deps.sh [--check | --section NAME...]" >&2; exit 2 ;;
esac

missing=() optional=()
for p in $(entries | awk '{ print $2 }' | sort -u); do
	dpkg-query -W -f='${Status}' "${p%\?}" 2>/dev/null | grep -q '^install ok installed$' && continue
	case $p in
	*\?) optional+=("${p%\?}") ;;
	*) missing+=("$p") ;;
	esac
done
# A PACKAGE? is installed where the archive has it (a name one release
# moved into a package of its own), as apt's lists say: read first where
# a fresh root has none.
if [ ${#optional[@]} -gt 0 ] && [ "$(id -u)" -eq 0 ]; then
	compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null || apt-get update -qq
	for p in "${optional[@]}"; do
		apt-cache show "$p" >/dev/null 2>&1 && missing+=("$p")
	done
fi
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps.sh: missing packages: ${missing[*]}; run as root (sudo $0)" >&2
		exit 1
	fi
	echo "deps.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
while read -r name version integrity; do
	npm_present "$name" "$version" && continue
	[ "$(id -u)" -eq 0 ] || { echo "deps.sh: $name@$version is missing; run as root" >&2; exit 1; }
	echo "deps.sh: fetching $name@$version from the npm registry"
	npm_fetch "$name" "$version" "$integrity"
done < <(npm_pins)
check
