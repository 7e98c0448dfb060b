#!/usr/bin/env bash
# Fetch Debian's current cloud kernel debug package (vmlinux and modules with
# DWARF) and unpack it into the cache, for the BTF equivalence tests and the
# BTF benchmark.  Idempotent: a complete unpack is reused as it is.
#
#   scripts/fetch-kernel-dbg.sh        prints the unpacked directory
#
# Layout of $DIR (= ${FRUGAL_CACHE}/kernel-dbg):
#   PACKAGE      "NAME VERSION" of the unpacked package (written last)
#   vmlinux      link to the vmlinux with DWARF
#   modules/     link to the directory of *.ko with DWARF
#   root/        the unpacked package
#
# Exit status: 0, 1 on an error, 3 when the archive cannot be reached (the
# tests report that as a skip, tests/btf/fetch.inc).
set -eu
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
DIR=$CACHE/kernel-dbg
META=linux-image-cloud-amd64-dbg

mkdir -p "$CACHE"
exec 9>"$CACHE/.kernel-dbg.lock"
flock 9	# two test scripts may ask at once: one fetches, the other waits

if [ -s "$DIR/PACKAGE" ] && [ -e "$DIR/vmlinux" ] && [ -d "$DIR/modules" ]; then
	echo "$DIR"
	exit 0
fi

# apt_update: the system's package lists read again; exit 3 if the archive
# cannot be reached (apt-get may say only "W: Failed to fetch" and exit 0).
apt_update() {
	if ! apt-get update -qq >/dev/null 2>"$CACHE/.kernel-dbg.update.err" ||
	   grep -q 'Failed to fetch\|Could not resolve\|Temporary failure' "$CACHE/.kernel-dbg.update.err"; then
		echo "fetch-kernel-dbg: apt-get update: $(tail -1 "$CACHE/.kernel-dbg.update.err")" >&2
		exit 3
	fi
}

# The metapackage depends on the versioned package that holds the files.
pkg_of_meta() {
	apt-cache depends "$META" 2>/dev/null |
		awk '/Depends: linux-image-.*-dbg/ { print $2; exit }'
}
pkg=$(pkg_of_meta)
if [ -z "$pkg" ]; then
	apt_update
	pkg=$(pkg_of_meta)
fi
[ -n "$pkg" ] || { echo "fetch-kernel-dbg: no package behind $META" >&2; exit 1; }

rm -rf "$DIR"
mkdir -p "$DIR/dl"
cd "$DIR/dl"
if ! apt-get download -qq "$pkg" 2>/dev/null; then
	apt_update	# stale lists: the archive moved on
	apt-get download -qq "$pkg" || { echo "fetch-kernel-dbg: apt-get download $pkg failed" >&2; exit 3; }
fi
deb=$(ls ./*.deb)
ver=$(dpkg-deb -f "$deb" Version)
dpkg-deb -x "$deb" "$DIR/root"
rm -rf "$DIR/dl"

kver=${pkg#linux-image-}
kver=${kver%-dbg}
vmlinux=$DIR/root/usr/lib/debug/boot/vmlinux-$kver
moddir=$DIR/root/usr/lib/debug/lib/modules/$kver
[ -f "$vmlinux" ] || { echo "fetch-kernel-dbg: $pkg has no $vmlinux" >&2; exit 1; }
[ -d "$moddir" ] || { echo "fetch-kernel-dbg: $pkg has no $moddir" >&2; exit 1; }
ln -sfn "${vmlinux#"$DIR"/}" "$DIR/vmlinux"
ln -sfn "${moddir#"$DIR"/}" "$DIR/modules"
echo "$pkg $ver" > "$DIR/PACKAGE.tmp"
mv "$DIR/PACKAGE.tmp" "$DIR/PACKAGE"
echo "$DIR"
