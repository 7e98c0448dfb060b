#!/usr/bin/env bash
# Fetch the source of the libbpf the BTF encoder links (Debian sid's source
# package, 1.7 or newer) into the cache, and print the unpacked tree's path.
# The build (Makefile, "libbpf for btf/") compiles it; nothing is installed.
#
# Why a second libbpf: the encoder's output is what libbpf's btf__dedup()
# makes of its types, and pahole 1.32 runs on libbpf 1.7, whose dedup
# folds a module's copies of base types that bookworm's libbpf 1.1 keeps
# (docs/btf.md, "Which libbpf").  lock/ keeps the system's libbpf.
#
# The source package comes through a private apt (scripts/apt-private.sh),
# its files checked against the archive's signed index, then unpacked with
# Debian's patches applied.  Idempotent: an unpacked tree is reused; two
# callers at once are serialised.
#
#   scripts/fetch-libbpf.sh        prints DIR, the source tree (DIR/src/Makefile)
#
# Exit status: 0, 1 on an error (sid's libbpf older than 1.7, say), 3 when
# the archive cannot be reached.  FRUGAL_DEBIAN_MIRROR overrides the mirror.
set -eu
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
DIR=$CACHE/libbpf
MIN_MAJOR=1 MIN_MINOR=7

[ $# = 0 ] || { echo "usage: $0" >&2; exit 2; }

WHO=fetch-libbpf
# shellcheck source=scripts/apt-private.sh
. "$(dirname "$0")/apt-private.sh"

mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9
if [ -s "$DIR/CURRENT" ] && [ -f "$DIR/$(cat "$DIR/CURRENT")/src/Makefile" ]; then
	echo "$DIR/$(cat "$DIR/CURRENT")"
	exit 0
fi

APT_SOURCES=1
apt_private "$DIR/apt" sid
rm -rf "$DIR/dl"
mkdir -p "$DIR/dl"
(cd "$DIR/dl" && apt_source libbpf)
dsc=$(ls "$DIR"/dl/libbpf_*.dsc 2>/dev/null | head -1)
[ -n "$dsc" ] || die "apt-get source libbpf gave no .dsc"
ver=$(sed -n 's/^Version: //p' "$dsc")		# 1:1.7.0-1 or 1.7.0-1
up=${ver#*:}
up=${up%-*}
major=${up%%.*} rest=${up#*.}
minor=${rest%%.*}
if [ "$major" -lt $MIN_MAJOR ] || { [ "$major" = $MIN_MAJOR ] && [ "$minor" -lt $MIN_MINOR ]; }; then
	die "sid's libbpf is $up, older than $MIN_MAJOR.$MIN_MINOR"
fi
rm -rf "$DIR/libbpf-$up"
dpkg-source --no-check -x "$dsc" "$DIR/libbpf-$up" >/dev/null 2>"$DIR/dl/unpack.err" ||
	die "dpkg-source -x $(basename "$dsc"): $(tail -1 "$DIR/dl/unpack.err")"
rm -rf "$DIR/dl"
echo "libbpf-$up" > "$DIR/CURRENT"
echo "$DIR/libbpf-$up"
