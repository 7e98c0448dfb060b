#!/usr/bin/env bash
# Install the Debian packages one group of work needs.  Idempotent: does
# nothing when all are present, and runs `apt-get update` only when
# something is missing.
#
#   scripts/install-deps.sh build   building frugal (make), and the libbpf
#                                   source fetch it starts (dpkg-source)
#   scripts/install-deps.sh demo    build, and what `make demo` runs (make demo)
#   scripts/install-deps.sh check   demo, and every test tool: make check,
#                                   the check-* targets and the benchmarks
#   scripts/install-deps.sh [all]   the same as check (the default)
set -eu
# The web server of frugal lock serve: libmicrohttpd (with GnuTLS for TLS),
# libyaml for --web.config.file, libcrypt for bcrypt.
BUILD="make gcc libc6-dev pkg-config clang libbpf-dev libelf-dev libdw-dev zlib1g-dev bpftool
binutils dpkg-dev libmicrohttpd-dev libgnutls28-dev libyaml-dev libcrypt-dev"
# The demo's iodir benchmark reads peak RSS with GNU time and counts
# getdents64 with perf (without perf its column says NA).
DEMO="$BUILD time linux-perf"
# The tests and benchmarks: sanitizers and fuzzers (clang's runtime, llvm's
# symbolizer), make static's archives, pahole and bpftool's anchors, perf and
# bpftrace beside frugal lock, valgrind, the workloads (stress-ng, tmux),
# the SVG's browser test (chromium), pprof (golang), abidiff, the kernels
# under qemu (busybox, cpio), the Debian package (debhelper, lintian), man
# pages and completion; the web server's TLS checks (a certificate made
# by openssl, requests by curl).
CHECK="$DEMO llvm libclang-rt-14-dev libzstd-dev libbz2-dev liblzma-dev dwarves elfutils
linux-perf bpftrace python3 jq valgrind stress-ng tmux chromium golang-go abigail-tools
libc6-dbg busybox-static cpio qemu-system-x86 debhelper lintian man-db bash-completion
openssl curl prometheus python3-prometheus-client"
# (openssl, curl: the web server's TLS test; prometheus: promtool and the
# server the service's tests scrape with; python3-prometheus-client: its
# text and OpenMetrics parsers, tests/e2e/prom.sh.)

case "${1:-all}" in
build) PKGS=$BUILD ;;
demo) PKGS=$DEMO ;;
check|all) PKGS=$CHECK ;;
*) echo "usage: $0 [build | demo | check | all]" >&2; exit 2 ;;
esac

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
