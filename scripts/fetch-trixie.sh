#!/usr/bin/env bash
# Fetch Debian 13 (trixie)'s pahole 1.30 and its 6.12 cloud kernel debug
# package into the cache, for the pahole 1.30 equivalence test and the BTF
# benchmark, without touching the system: apt runs on a private sources
# list, package lists and cache; nothing is installed.  pahole runs through
# trixie's own loader and libraries (bin/pahole is a wrapper that does so).
# Idempotent: what is complete is reused; two callers at once are serialised.
#
#   scripts/fetch-trixie.sh                     pahole + vmlinux; prints DIR
#   scripts/fetch-trixie.sh --pahole            pahole only (about 5 MB)
#   scripts/fetch-trixie.sh --modules < LIST    also the modules LIST names
#                                               (paths under modules/, one a line)
#   scripts/fetch-trixie.sh --all-modules       also every module
#   scripts/fetch-trixie.sh --backports [--modules < LIST | --all-modules]
#                       the same for trixie-backports' newest cloud kernel
#                       debug package (7.x, about 350 MB), no pahole, in
#                       ${FRUGAL_CACHE}/trixie-backports
#   scripts/fetch-trixie.sh [--backports] --symvers
#                       also that kernel's Module.symvers, from its headers
#                       package at the same version (about 1.5 MB): the
#                       exports of a -dbg vmlinux (7.x's CRCs are all 0)
#   scripts/fetch-trixie.sh --backports --source
#                       also linux-source-X.Y of that kernel (about 150 MB),
#                       for a kernel build (tests/long/kernel-build.sh)
#   scripts/fetch-trixie.sh --arm64 [--modules < LIST]
#                       trixie's arm64 cloud kernel debug package (6.12,
#                       about 320 MB), no pahole, in ${FRUGAL_CACHE}/trixie-arm64:
#                       another architecture's DWARF for the encoder
#
# Layout of DIR (= ${FRUGAL_CACHE}/trixie):
#   apt/                 private apt state (sources.list, lists, cache)
#   pahole/root/         pahole and the libraries it loads, unpacked
#   pahole/bin/pahole    runs pahole 1.30 through trixie's ld.so
#   pahole/VERSION       "pahole VERSION" (written last)
#   kernel-dbg/PACKAGE   "NAME VERSION" of the kernel debug package (written last)
#   kernel-dbg/vmlinux   link to the vmlinux with DWARF
#   kernel-dbg/modules/  link to the directory of *.ko with DWARF (only those
#                        asked for are unpacked)
#   kernel-dbg/modules.list   "SIZE PATH" of every module in the package
#   kernel-dbg/deb/      the package itself (~320 MB), for later modules
#   kernel-dbg/Module.symvers   its headers package's (--symvers)
#   kernel-src/PACKAGE   "NAME VERSION" of linux-source-X.Y (--source; last)
#   kernel-src/linux-source.tar.xz   its tarball
#
# Exit status: 0, 1 on an error, 3 when the archive cannot be reached.
# FRUGAL_TRIXIE_MIRROR (or FRUGAL_DEBIAN_MIRROR) overrides the Debian mirror
# (default: the one this machine's own apt sources name, else deb.debian.org).
set -eu
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
DIR=$CACHE/trixie
META=linux-image-cloud-amd64-dbg
# pahole and what it loads (ldd of trixie's pahole, libdw's and libelf's deps).
PAHOLE_PKGS="pahole libdw1t64 libelf1t64 libbpf1 libc6 zlib1g libzstd1 liblzma5 libbz2-1.0"

SUITE=trixie
APT_ARCH=
if [ "${1-}" = --backports ]; then
	# The 7.x kernels: trixie-backports' metapackage names the newest.
	SUITE=trixie-backports
	DIR=$CACHE/trixie-backports
	shift
elif [ "${1-}" = --arm64 ]; then
	# Read as data only: a module of another machine, never run here.
	DIR=$CACHE/trixie-arm64
	META=linux-image-cloud-arm64-dbg
	APT_ARCH=arm64
	shift
fi
mode=
case "${1-}" in
"") ;;
--pahole|--modules|--all-modules|--source|--symvers) mode=$1 ;;
*) echo "usage: $0 [--backports | --arm64] [--pahole | --modules < LIST | --all-modules | --source | --symvers]" >&2; exit 2 ;;
esac
[ "$SUITE$mode" != trixie-backports--pahole ] || { echo "$0: no pahole from trixie-backports" >&2; exit 2; }
[ -z "$APT_ARCH" ] || case $mode in
	--pahole|--source) echo "$0: --arm64 is for the kernel and its modules" >&2; exit 2 ;;
esac
[ "$mode" != --source ] || [ "$SUITE" = trixie-backports ] ||
	{ echo "$0: --source is for --backports' kernel" >&2; exit 2; }

WHO=fetch-trixie
# shellcheck source=scripts/apt-private.sh
. "$(dirname "$0")/apt-private.sh"
: "${FRUGAL_DEBIAN_MIRROR:=${FRUGAL_TRIXIE_MIRROR:-}}"

mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9	# two test scripts may ask at once: one fetches, the other waits
apt_private "$DIR/apt" "$SUITE"

# ---- pahole 1.30 ------------------------------------------------------------------
fetch_pahole() {
	apt_pahole "$DIR/pahole" trixie "" $PAHOLE_PKGS
}

# ---- the cloud kernel debug package and its modules: scripts/kernel-dbg.inc ----
# shellcheck source=scripts/kernel-dbg.inc
. "$(dirname "$0")/kernel-dbg.inc"

# ---- the source of that kernel's release (--source) ---------------------------------
fetch_source() {
	local S=$DIR/kernel-src ver pkg
	[ -s "$S/PACKAGE" ] && return 0
	read -r _ ver < "$DIR/kernel-dbg/PACKAGE"	# 7.3.4-1~bpo13+1
	pkg=linux-source-$(echo "$ver" | cut -d. -f1-2)
	rm -rf "$S"
	mkdir -p "$S/deb"
	(cd "$S/deb" && apt_download "$pkg")
	dpkg-deb --fsys-tarfile "$S"/deb/*.deb | tar -x -C "$S" -f - --wildcards './usr/src/linux-source-*.tar.xz' ||
		die "$pkg: cannot unpack its tarball"
	mv "$S"/usr/src/linux-source-*.tar.xz "$S/linux-source.tar.xz"
	echo "$pkg $(dpkg-deb -f "$S"/deb/*.deb Version)" > "$S/PACKAGE.tmp"
	rm -rf "$S/usr" "$S/deb"
	mv "$S/PACKAGE.tmp" "$S/PACKAGE"
}

[ "$SUITE" = trixie-backports ] || [ -n "$APT_ARCH" ] || fetch_pahole
if [ "$mode" != --pahole ]; then
	fetch_kernel "$DIR/kernel-dbg" "$META"
	case $mode in
	--source) fetch_source ;;
	--symvers) fetch_symvers "$DIR/kernel-dbg" ;;
	"") ;;
	*) fetch_modules "$DIR/kernel-dbg" "$mode" "$DIR/.want" ;;
	esac
fi
echo "$DIR"
