#!/usr/bin/env bash
# Fetch Debian sid's pahole 1.32 into the cache, for the pahole 1.32
# equivalence test, without touching the system: apt runs on a private
# sources list, package lists and cache (scripts/apt-private.sh); nothing is
# installed.  pahole runs through sid's own loader and libraries (sid's
# libc, libbpf 1.7, libdwarves1): bin/pahole is a wrapper that does so.
# With --kernel, also sid's newest cloud kernel debug package (7.2.13 when
# written, about 380 MB), whose modules are what a user of sid encodes.
# Idempotent: what is complete is reused; two callers at once are serialised.
#
#   scripts/fetch-sid.sh             pahole; prints DIR
#   scripts/fetch-sid.sh --kernel    pahole + the kernel debug package's vmlinux
#   scripts/fetch-sid.sh --symvers   ... and that kernel's Module.symvers (from
#                                    its headers package, 1.5 MB: the exports
#                                    of a -dbg vmlinux, whose CRCs are all 0 in
#                                    7.x: no CONFIG_MODVERSIONS)
#   scripts/fetch-sid.sh --modules < LIST   also the modules LIST names
#                                    (paths under modules/, one a line)
#   scripts/fetch-sid.sh --all-modules      also every module
#
# Layout of DIR (= ${FRUGAL_CACHE}/sid):
#   apt/                 private apt state (sources.list, lists, cache)
#   pahole/root/         pahole and the libraries it loads, unpacked
#   pahole/bin/pahole    runs pahole 1.32 through sid's ld.so
#   pahole/VERSION       "pahole VERSION" (written last)
#   kernel-dbg/          the kernel debug package, laid out as fetch-trixie.sh
#                        lays its own (scripts/kernel-dbg.inc), with
#                        Module.symvers under --symvers
#
# Exit status: 0, 1 on an error (sid's pahole is not 1.32 any more, say),
# 3 when the archive cannot be reached.  FRUGAL_SID_MIRROR (or
# FRUGAL_DEBIAN_MIRROR) overrides the Debian mirror.
set -eu
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
DIR=$CACHE/sid
# pahole 1.32 keeps its code in libdwarves1; the rest is what it and libdw,
# libelf and libbpf load (ldd of sid's pahole).
META=linux-image-cloud-amd64-dbg
PAHOLE_PKGS="pahole libdwarves1 libdw1t64 libelf1t64 libbpf1 libc6 zlib1g libzstd1 liblzma5 libbz2-1.0"
WANT_VERSION=v1.32

mode=
case "${1-}" in
""|--pahole) ;;
--kernel|--symvers|--modules|--all-modules) mode=$1 ;;
*) echo "usage: $0 [--pahole | --kernel | --symvers | --modules < LIST | --all-modules]" >&2; exit 2 ;;
esac

WHO=fetch-sid
# shellcheck source=scripts/apt-private.sh
. "$(dirname "$0")/apt-private.sh"
# shellcheck source=scripts/kernel-dbg.inc
. "$(dirname "$0")/kernel-dbg.inc"
: "${FRUGAL_DEBIAN_MIRROR:=${FRUGAL_SID_MIRROR:-}}"

mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9
apt_private "$DIR/apt" sid

fetch_pahole() {
	apt_pahole "$DIR/pahole" sid "$WANT_VERSION" $PAHOLE_PKGS
}

fetch_pahole
case $mode in
"") ;;
--kernel) fetch_kernel "$DIR/kernel-dbg" "$META" ;;
--symvers) fetch_kernel "$DIR/kernel-dbg" "$META"
	   fetch_symvers "$DIR/kernel-dbg" ;;
*) fetch_kernel "$DIR/kernel-dbg" "$META"
   fetch_modules "$DIR/kernel-dbg" "$mode" "$DIR/.want" ;;
esac
echo "$DIR"
