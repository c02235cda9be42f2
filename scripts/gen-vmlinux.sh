#!/usr/bin/env bash
# gen-vmlinux.sh - regenerate vmlinux/vmlinux.h from the running kernel's BTF.
#
# vmlinux.h is committed so builds are reproducible and do not depend on the
# build machine's kernel; run this only when the BPF programs need types from
# a newer kernel, then review and commit the result.
set -euo pipefail
btf=${1:-/sys/kernel/btf/vmlinux}
out=$(dirname "$0")/../vmlinux/vmlinux.h
[ -r "$btf" ] || { echo "gen-vmlinux.sh: $btf not readable: the kernel needs CONFIG_DEBUG_INFO_BTF=y" >&2; exit 1; }
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
bpftool btf dump file "$btf" format c >"$tmp"
chmod 644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "gen-vmlinux.sh: wrote $out from $btf ($(uname -r))"
