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
#   scripts/fetch-trixie.sh --backports --source
#                       also linux-source-X.Y of that kernel (about 150 MB),
#                       for a kernel build (tests/long/kernel-build.sh)
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
if [ "${1-}" = --backports ]; then
	# The 7.x kernels: trixie-backports' metapackage names the newest.
	SUITE=trixie-backports
	DIR=$CACHE/trixie-backports
	shift
fi
mode=
case "${1-}" in
"") ;;
--pahole|--modules|--all-modules|--source) mode=$1 ;;
*) echo "usage: $0 [--backports] [--pahole | --modules < LIST | --all-modules | --source]" >&2; exit 2 ;;
esac
[ "$SUITE$mode" != trixie-backports--pahole ] || { echo "$0: no pahole from trixie-backports" >&2; exit 2; }
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

# ---- the 6.12 cloud kernel debug package --------------------------------------------
fetch_kernel() {
	local K=$DIR/kernel-dbg pkg deb ver kver vml
	[ -s "$K/PACKAGE" ] && [ -e "$K/vmlinux" ] && return 0
	apt_ready
	pkg=$(apt_dep "$META" '^linux-image-.*-dbg$')
	[ -n "$pkg" ] || die "no package behind $META in $SUITE"
	rm -rf "$K"
	mkdir -p "$K/deb"
	(cd "$K/deb" && apt_download "$pkg")
	deb=$(ls "$K"/deb/*.deb)
	ver=$(dpkg-deb -f "$deb" Version)
	kver=${pkg#linux-image-}
	kver=${kver%-dbg}
	dpkg-deb -c "$deb" > "$K/contents"
	awk -v p="./usr/lib/debug/lib/modules/$kver/" '
		/\.ko$/ && index($6, p) == 1 { print $3, substr($6, length(p) + 1) }' "$K/contents" \
		| sort -n > "$K/modules.list"
	[ -s "$K/modules.list" ] || die "$pkg lists no modules"
	# 7.x packages have boot/vmlinux-KVER as a link to lib/modules/KVER/vmlinux:
	# both are unpacked (tar takes a name that is not there as an error).
	vml=./usr/lib/debug/boot/vmlinux-$kver
	awk '{ print $6 }' "$K/contents" | grep -qx "./usr/lib/debug/lib/modules/$kver/vmlinux" &&
		vml="$vml ./usr/lib/debug/lib/modules/$kver/vmlinux"
	# shellcheck disable=SC2086
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$K" -f - $vml ||
		die "$pkg: cannot unpack vmlinux-$kver"
	rm -f "$K/contents"
	mkdir -p "$K/usr/lib/debug/lib/modules/$kver"
	ln -sfn "usr/lib/debug/boot/vmlinux-$kver" "$K/vmlinux"
	ln -sfn "usr/lib/debug/lib/modules/$kver" "$K/modules"
	echo "$pkg $ver" > "$K/PACKAGE.tmp"
	mv "$K/PACKAGE.tmp" "$K/PACKAGE"
}

# Unpack the modules named on stdin (or all) that are not there yet, in one
# pass over the package.  A module is unpacked to a temporary name first, so
# one that exists is complete.
fetch_modules() {
	local K=$DIR/kernel-dbg kver want=$DIR/.want bad m
	kver=$(readlink "$K/modules")
	kver=${kver##*/}
	if [ "$mode" = --all-modules ]; then
		[ -e "$K/ALL_MODULES" ] && return 0
		awk '{ print $2 }' "$K/modules.list" > "$want.all"
	else
		cat > "$want.all"
	fi
	bad=$(awk 'NR == FNR { have[$2] = 1; next } NF && !have[$0]' "$K/modules.list" "$want.all" | head -1)
	[ -z "$bad" ] || die "no module $bad in the package"
	while read -r m; do
		[ -n "$m" ] && [ ! -s "$K/modules/$m" ] && echo "./usr/lib/debug/lib/modules/$kver/$m"
	done < "$want.all" > "$want" || :
	if [ -s "$want" ]; then
		rm -rf "$K/unpack"
		mkdir -p "$K/unpack"
		dpkg-deb --fsys-tarfile "$K"/deb/*.deb | tar -x -C "$K/unpack" -f - -T "$want" ||
			die "cannot unpack the modules asked for"
		(cd "$K/unpack" && find . -name '*.ko' -print0) | while IFS= read -r -d '' f; do
			mkdir -p "$(dirname "$K/$f")"
			mv "$K/unpack/$f" "$K/$f"
		done
		rm -rf "$K/unpack"
	fi
	[ "$mode" = --all-modules ] && : > "$K/ALL_MODULES"
	rm -f "$want" "$want.all"
}

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

[ "$SUITE" = trixie-backports ] || fetch_pahole
if [ "$mode" != --pahole ]; then
	fetch_kernel
	case $mode in
	--source) fetch_source ;;
	"") ;;
	*) fetch_modules ;;
	esac
fi
echo "$DIR"
