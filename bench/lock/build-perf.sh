#!/usr/bin/env bash
# Build the benchmark's anchor: perf from Debian's linux-source-6.1 package
# (or 6.12, from bookworm-security: its perf has `lock contention -o`) with
# BUILD_BPF_SKEL=1, which Debian's own linux-perf leaves out (so its
# `perf lock contention -b` refuses to run).  The binary is cached outside the
# repository and rebuilt only when the source package's version changes.
#
# Usage: bench/lock/build-perf.sh [6.1|6.12]   prints the path of the perf binary
# Environment: FRUGAL_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/frugal),
#              JOBS (default: number of CPUs).
set -eu

KVER=${1:-6.1}
case $KVER in 6.1|6.12) ;; *) echo "build-perf: $KVER: not 6.1 or 6.12" >&2; exit 2 ;; esac
SRC_PKG=linux-source-$KVER
TARBALL=/usr/src/$SRC_PKG.tar.xz
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}/perf-$KVER
# Build dependencies beyond scripts/install-deps.sh.  CI never runs the
# benchmarks, so they are installed here, on demand, rather than there.
BUILD_DEPS="$SRC_PKG flex bison"
# From 6.2, perf takes libtraceevent from the system.
[ "$KVER" = 6.1 ] || BUILD_DEPS="$BUILD_DEPS libtraceevent-dev"

log() { echo "build-perf: $*" >&2; }
die() { log "$*"; exit 1; }

pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

install_deps() {
	local missing='' p
	for p in $BUILD_DEPS; do pkg_installed "$p" || missing="$missing $p"; done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages:$missing; run as root"
	log "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null; } ||
		die "apt-get install$missing failed"
}

install_deps
version=$(dpkg-query -W -f='${Version}' "$SRC_PKG")
# The anchor's own changes (below) have a revision of their own.
[ "$KVER" = 6.12 ] && version="$version+runqueues-optional"
if [ -x "$CACHE/perf" ] && [ "$(cat "$CACHE/version" 2>/dev/null)" = "$version" ]; then
	echo "$CACHE/perf"
	exit 0
fi
[ -r "$TARBALL" ] || die "$TARBALL: missing (package $SRC_PKG $version)"

mkdir -p "$CACHE"
work=$(mktemp -d "$CACHE/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
log "building perf from $SRC_PKG $version (a few minutes; log: $CACHE/build.log)"
start=$(date +%s)

# Only the parts perf's own MANIFEST lists are needed; skip the rest of the tree.
# (6.12's MANIFEST adds arm64's sysreg tools; the top Makefile gives the version.)
tar -xJf "$TARBALL" -C "$work" --wildcards \
	"$SRC_PKG/tools" "$SRC_PKG/scripts/bpf_doc.py" "$SRC_PKG/kernel/bpf/disasm.c" \
	"$SRC_PKG/kernel/bpf/disasm.h" "$SRC_PKG/Makefile" \
	$([ "$KVER" = 6.1 ] || echo "$SRC_PKG/arch/arm64/tools" "$SRC_PKG/arch/*/include/uapi/asm/bpf_perf_event.h") ||
	die "$TARBALL: extraction failed"

# 6.12's skeleton also holds collect_lock_syms, which names the runqueue
# locks for -l through the per-CPU symbol `runqueues`; the verifier resolves
# it through kallsyms, which lists per-CPU data only with KALLSYMS_ALL, so on
# a kernel without it the whole skeleton fails to load ("ldimm64 failed to
# find the address for kernel symbol 'runqueues'") and `lock contention -b`
# cannot run at all.  The one change made to the anchor: that program is
# not loaded when kallsyms lacks the symbol (-l then names no runqueue
# lock; nothing the benchmark measures runs it): perf-6.12-runqueues.patch.
if [ "$KVER" = 6.12 ]; then
	patch -s -d "$work/$SRC_PKG" -p1 <"$(dirname "$0")/perf-6.12-runqueues.patch" ||
		die "perf-6.12-runqueues.patch does not apply"
fi

# Everything the lock benchmark does not use is switched off: it shortens the
# build and keeps the binary free of optional libraries.  The BPF skeletons
# need clang, libelf and zlib; perf builds its own bootstrap bpftool and libbpf.
opts="BUILD_BPF_SKEL=1 NO_LIBPYTHON=1 NO_LIBPERL=1 NO_GTK2=1 NO_SLANG=1
NO_LIBBABELTRACE=1 NO_LIBUNWIND=1 NO_LIBNUMA=1 NO_LIBCRYPTO=1 NO_JVMTI=1
NO_SDT=1 NO_LIBAUDIT=1 NO_DEMANGLE=1 NO_LIBZSTD=1 NO_LZMA=1 NO_LIBPFM4=1
NO_JEVENTS=1 NO_LIBCAP=1 NO_AUXTRACE=1 NO_LIBDW_DWARF_UNWIND=1 NO_DWARF=1
NO_LIBTRACEEVENT=0 WERROR=0"
mkdir -p "$work/out"
# shellcheck disable=SC2086
if ! make -C "$work/$SRC_PKG/tools/perf" O="$work/out" -j"${JOBS:-$(nproc)}" \
	$opts >"$CACHE/build.log" 2>&1; then
	tail -20 "$CACHE/build.log" >&2
	die "make failed; see $CACHE/build.log"
fi
"$work/out/perf" lock contention -h 2>&1 | grep -q -- '--use-bpf' ||
	die "built perf lacks BPF support (lock contention -b); see $CACHE/build.log"

install -m 0755 "$work/out/perf" "$CACHE/perf.new"
mv -f "$CACHE/perf.new" "$CACHE/perf"
echo "$version" >"$CACHE/version"
log "built in $(($(date +%s) - start)) s"
echo "$CACHE/perf"
