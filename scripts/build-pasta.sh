#!/usr/bin/env bash
# build-pasta.sh - build a current pasta (Debian 13's source) for the tests
#
# Usage: scripts/build-pasta.sh [SUITE]      (SUITE defaults to trixie)
# Prints the directory that holds the built `pasta` (put it first on PATH).
#
# Debian 12 ships pasta 0.0~git20230309; most users run a newer one (Debian
# 13's 0.0~git20250503, Ubuntu, Fedora, Arch), which behaves differently in
# ways that broke the jail before (it quits when the namespace path it was
# given disappears). CI runs the integration suite with both. Debian 13's
# binary package needs a newer glibc, but its source builds here in seconds:
# apt fetches the source package from the mirror this machine already uses,
# through a private apt state directory (the machine's sources and lists are
# not touched; its mirror is read by apt-sources.sh, deb.debian.org if it
# names none). The .orig tarball is all the build needs.
#
# The result is cached in $PASTA_CACHE (default /var/cache/ebpfjail/pasta-
# SUITE): a later run, a fresh clone in CI included, reuses it. Remove the
# directory to rebuild (a new point release of the suite, say).
set -euo pipefail

suite=${1:-trixie}
cache=${PASTA_CACHE:-/var/cache/ebpfjail/pasta-$suite}

# A cached build is used if it is complete (VERSION is written last).
if [ -x "$cache/pasta" ] && [ -s "$cache/VERSION" ]; then
	echo "$cache"
	exit 0
fi

mirror=$("$(dirname "$0")/apt-sources.sh" --mirror 2>/dev/null) || mirror=http://deb.debian.org/debian
work=$(mktemp -d /tmp/ebpfjail-pasta.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sources" "$work/lists/partial" "$work/cache/archives/partial"
cat >"$work/sources/$suite.sources" <<EOF
Types: deb-src
URIs: $mirror
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt=(apt-get -q -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources"
	-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
	-o APT::Sandbox::User=root) # _apt cannot write into our mktemp directory
"${apt[@]}" update >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
# The .dsc may be missing from the pool while the tarballs are there: apt
# then exits 1 having fetched what matters, so judge by the tarball.
(cd "$work" && "${apt[@]}" source --download-only passt >>"$work/apt.log" 2>&1) || true
shopt -s nullglob
srcs=("$work"/passt_*.orig.tar.*)
orig=${srcs[0]:-}
[ -n "$orig" ] || { cat "$work/apt.log" >&2; echo "build-pasta.sh: no passt source for $suite" >&2; exit 1; }

# passt_0.0~git20250503.587980c.orig.tar.xz -> 0.0~git20250503.587980c
version=$(basename "$orig")
version=${version#passt_}
version=${version%.orig.tar.*}
mkdir "$work/src"
tar -xf "$orig" -C "$work/src" --strip-components=1
make -C "$work/src" -j"$(nproc)" VERSION="$version" passt passt.avx2 pasta pasta.avx2 \
	>"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }

# Filled beside the cache and moved into place whole: a concurrent run
# never sees (or runs) a half-copied pasta. pasta is passt under another
# name; passt re-executes passt.avx2 beside itself when the CPU has AVX2,
# as Debian's does.
mkdir -p "$(dirname "$cache")"
new="$cache.new.$$"
rm -rf "$new"
mkdir "$new"
cp "$work/src/passt" "$work/src/passt.avx2" "$new/"
ln -s passt "$new/pasta"
ln -s passt.avx2 "$new/pasta.avx2"
echo "$version" >"$new/VERSION"
rm -rf "$cache"
mv -T "$new" "$cache"
echo "$cache"
