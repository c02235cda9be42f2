#!/usr/bin/env bash
# run.sh - the Debian package: built from the tree, lintian, installed
# into a fresh Debian 12 root, used there, removed and purged
#
# Usage: tests/package/run.sh
#
# The package is built with dpkg-buildpackage from a copy of the tree's
# tracked files (the tree's own build/ stays as it is), checked with
# lintian (a warning or an error fails, an override in debian/ says why it
# is not one), and installed with dpkg into a minimal Debian 12 root made
# by mmdebstrap with the package's dependencies and man-db (cached in
# /var/cache/ebpfjail/package, keyed by that list). There, in a mount
# namespace of its own with /proc, /sys and /dev: ebpfjail --version,
# ebpfjail doctor --json (its checks, as JSON; the root has no pasta
# namespace to run, so some fail), man -l of each page, the example
# Kubernetes pod in the documentation; then dpkg -r takes
# every file dpkg -L listed except the conffiles (the configuration, the
# AppArmor profile), which must be kept, and dpkg -P takes those too.
# Ends with the line "N passed, M failed, 0 skipped", as the other suites.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$here/../.." && pwd)
CACHE=/var/cache/ebpfjail/package
W=$(mktemp -d /var/tmp/ebpfjail-package.XXXXXX)
passed=0 failed=0
trap 'umount -R "$W/root" 2>/dev/null; rm -rf "$W"' EXIT

[ "$(id -u)" = 0 ] || { echo "FAIL    package suite: run it as root"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

# check NAME COMMAND...: one check, ok or FAIL with what it said
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		passed=$((passed + 1))
		echo "ok      package $name"
	else
		failed=$((failed + 1))
		echo "FAIL    package $name"
		printf '%s\n' "$out" | tail -n 15 | sed 's/^/    | /'
		return 1 # the steps after it need it
	fi
}

# build: the .deb from a copy of the tracked files (of the tree but its
# builds where there is no git: make check-fresh copies a tree without it)
build() {
	mkdir -p "$W/src/ebpfjail-0.1.0"
	if [ -e "$SRC/.git" ]; then
		git -C "$SRC" ls-files -z | (cd "$SRC" && xargs -0 cp --parents -t "$W/src/ebpfjail-0.1.0") || return 1
	else
		tar -C "$SRC" --exclude=./build --exclude='./build-*' -cf - . | tar -xf - -C "$W/src/ebpfjail-0.1.0" ||
			return 1
	fi
	(cd "$W/src/ebpfjail-0.1.0" && dpkg-buildpackage -us -uc -b) >"$W/build.log" 2>&1 ||
		{ tail -n 20 "$W/build.log"; return 1; }
	ls "$W"/src/ebpfjail_*_amd64.deb
}

# lint: lintian on the build, no error or warning (overrides say why)
lint() {
	lintian --fail-on error,warning --info "$W"/src/ebpfjail_*_amd64.changes
}

# root: the Debian 12 root, cached, with the package's dependencies
root() {
	local deps pkgs sum tar
	deps=$(dpkg-deb -f "$W"/src/ebpfjail_*_amd64.deb Depends | tr ',' '\n' | sed 's/(.*//; s/ //g' | grep .)
	pkgs=$(printf '%s\n' $deps man-db | sort -u | paste -sd,)
	sum=$(echo "$pkgs" | sha256sum | cut -c1-12)
	tar="$CACHE/debian12-$sum.tar"
	if [ ! -s "$tar" ]; then
		mkdir -p "$CACHE"
		rm -f "$tar.partial.tar"
		"$SRC/scripts/apt-sources.sh" |
			mmdebstrap --quiet --variant=minbase --include="$pkgs" bookworm "$tar.partial.tar" - ||
			return 1
		mv "$tar.partial.tar" "$tar"
	fi
	mkdir "$W/root" && tar -C "$W/root" -xf "$tar"
}

# in_root COMMAND...: COMMAND in the root, with /proc, /sys and /dev
in_root() {
	unshare --mount --propagation private -- sh -c '
		r=$0
		mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" && mount --rbind /dev "$r/dev" &&
		exec chroot "$r" "$@"' "$W/root" "$@"
}

# use: install, run, remove, purge
use() {
	local f
	cp "$W"/src/ebpfjail_*_amd64.deb "$W/root/tmp/ebpfjail.deb"
	in_root dpkg -i /tmp/ebpfjail.deb || return 1
	in_root ebpfjail --version | grep -qx 'ebpfjail 0.1.0' || { echo "--version: $(in_root ebpfjail --version)"; return 1; }
	in_root ebpfjail doctor --json >"$W/doctor.json"
	[ $? -le 1 ] || { echo "doctor --json exited above 1"; return 1; }
	grep -q '"check": "pasta", "status": "ok"' "$W/doctor.json" ||
		{ echo "doctor: no pasta found ok: $(cat "$W/doctor.json")"; return 1; }
	for f in ebpfjail.1 ebpfjail-entrypoint.1; do
		in_root env MANWIDTH=80 man -l "/usr/share/man/man1/$f.gz" | grep -q "^NAME" ||
			{ echo "man -l $f"; return 1; }
	done
	in_root env MANWIDTH=80 man -l /usr/share/man/man5/ebpfjail.conf.5.gz | grep -q "audit-log" ||
		{ echo "man -l ebpfjail.conf.5"; return 1; }
	[ -s "$W/root/usr/share/doc/ebpfjail/examples/ebpfjail-pod.yaml" ] ||
		{ echo "no example Kubernetes pod in /usr/share/doc/ebpfjail/examples"; return 1; }
	in_root dpkg -L ebpfjail >"$W/files" || return 1
	in_root dpkg-query -W -f='${Conffiles}\n' ebpfjail | awk 'NF { print $1 }' >"$W/conffiles"
	grep -qx /etc/ebpfjail.conf "$W/conffiles" || { echo "no conffile /etc/ebpfjail.conf: $(cat "$W/conffiles")"; return 1; }
	in_root dpkg -r ebpfjail || return 1
	while read -r f; do
		[ -d "$W/root$f" ] && continue # directories others may share
		if grep -qxF "$f" "$W/conffiles"; then
			[ -f "$W/root$f" ] || { echo "dpkg -r took the configuration $f"; return 1; }
		elif [ -e "$W/root$f" ]; then
			echo "left after dpkg -r: $f"
			return 1
		fi
	done <"$W/files"
	in_root dpkg -P ebpfjail || return 1
	while read -r f; do
		[ ! -e "$W/root$f" ] || { echo "dpkg -P left $f"; return 1; }
	done <"$W/conffiles"
}

check "dpkg-buildpackage builds the .deb" build &&
	check "lintian has no error or warning" lint
if [ "$failed" = 0 ]; then
	check "a fresh Debian 12 root takes its dependencies" root &&
		check "installed, used, removed and purged there" use
fi
ls -l "$W"/src/ebpfjail_*_amd64.deb 2>/dev/null | awk '{ print "# the package: " $5 " bytes" }'
dpkg-deb -f "$W"/src/ebpfjail_*_amd64.deb Installed-Size 2>/dev/null | awk '{ print "# installed size: " $1 " KiB" }'
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
