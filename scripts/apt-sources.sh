#!/usr/bin/env bash
# apt-sources.sh - the Debian archives this machine's apt uses, one line each
#
# Usage: scripts/apt-sources.sh [--mirror | --suite NAME]
#
# Prints "deb URI SUITE COMPONENT..." for every enabled binary source of
# the machine's own release (/etc/os-release's codename, and its -updates
# and -security suites) in /etc/apt/sources.list and sources.list.d, one-
# line .list files and deb822 .sources files alike, that Debian's archive
# keyring signs: a third party's source (a keyring of its own) is left
# out, and so is one apt takes unsigned (trusted=yes): its packages, which
# anyone on the way could alter, would land in check-fresh's root. With --mirror, only the URI of the main archive (the first source of
# the bare codename). With --suite NAME, the same lines for release NAME
# (trixie-updates for bookworm-updates). make check-fresh builds its root from these, and
# build-pasta.sh fetches Debian 13's source from the same mirror: no script
# names a mirror of its own. APT_ETC=DIR reads DIR instead of /etc/apt.
set -euo pipefail
. /etc/os-release
codename=${VERSION_CODENAME:?/etc/os-release names no codename}
etc=${APT_ETC:-/etc/apt}

# KEYRING URI SUITE COMPONENT... lines, "-" for no Signed-By
all_sources() {
	local f
	# one-line format: deb [option=value ...] URI SUITE COMPONENT...
	for f in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -e 's/#.*//' "$f" | awk '$1 == "deb" {
			keyring = "-"; sub(/^[ \t]*deb[ \t]+/, "")
			if (match($0, /^\[[^]]*\]/)) {
				opts = substr($0, 2, RLENGTH - 2); $0 = substr($0, RLENGTH + 1)
				if (match(opts, /signed-by=[^ ]+/)) keyring = substr(opts, RSTART + 10, RLENGTH - 10)
				# apt reads yes, true, with, on and enable as yes
				if (opts ~ /(^|[ \t])trusted=(yes|true|with|on|enable)([ \t]|$)/) keyring = "unsigned"
			}
			$1 = $1; print keyring, $0
		}'
	done
	# deb822: stanzas of "Field: value", a blank line between them
	for f in "$etc"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		sed -e '/^[ \t]*#/d' "$f" | awk '
		function flush(   nu, ns, u, s, i, j, keyring) {
			if (tolower(f["enabled"]) != "no" && (" " f["types"] " ") ~ / deb /) {
				keyring = f["signed-by"] == "" ? "-" : f["signed-by"]
				if (tolower(f["trusted"]) ~ /^(yes|true|with|on|enable)$/) keyring = "unsigned"
				nu = split(f["uris"], u, " "); ns = split(f["suites"], s, " ")
				for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++)
					print keyring, u[i], s[j], f["components"]
			}
			delete f
		}
		/^[ \t]*$/ { flush(); next }
		/^[A-Za-z-]+:/ { k = tolower(substr($0, 1, index($0, ":") - 1)); v = substr($0, index($0, ":") + 1)
			gsub(/^[ \t]+|[ \t]+$/, "", v); f[k] = v; next }
		END { flush() }'
	done
}

sources=$(all_sources | awk -v c="$codename" '($3 == c || index($3, c "-") == 1) &&
	($1 == "-" || $1 ~ /debian-archive-keyring/) && !seen[$2 " " $3]++ { $1 = "deb"; print }')
[ -n "$sources" ] || { echo "apt-sources.sh: no Debian source of $codename in $etc" >&2; exit 1; }
case ${1:-} in
--mirror)
	awk -v c="$codename" '$3 == c { print $2; found = 1; exit } END { exit !found }' <<<"$sources" ||
		{ echo "apt-sources.sh: no source of $codename itself in $etc" >&2; exit 1; } ;;
--suite)
	# the same archives for another release: its name in place of ours
	awk -v c="$codename" -v s="${2:?--suite NAME}" '{ sub("^" c, s, $3); print }' <<<"$sources" ;;
"") echo "$sources" ;;
*) echo "usage: scripts/apt-sources.sh [--mirror | --suite NAME]" >&2; exit 2 ;;
esac
