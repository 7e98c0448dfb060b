#!/usr/bin/env bash
# Install every Debian package that building, testing, the demo and the
# benchmarks need.  Idempotent: does nothing when all are present, and runs
# `apt-get update` only when something is missing.
set -eu
PKGS="make gcc libc6-dev pkg-config clang llvm libclang-rt-14-dev libbpf-dev libelf-dev libdw-dev
zlib1g-dev libzstd-dev libbz2-dev liblzma-dev bpftool dwarves elfutils binutils linux-perf bpftrace
python3 jq valgrind time stress-ng tmux chromium golang-go abigail-tools
libc6-dbg busybox-static cpio qemu-system-x86 debhelper dpkg-dev lintian
man-db bash-completion"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing; run as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
