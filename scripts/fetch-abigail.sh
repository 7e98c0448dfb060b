#!/usr/bin/env bash
# Fetch Debian trixie's libabigail (abidiff 2.6) into the cache, for
# bench-abi, without touching the system: apt runs on a private sources
# list, package lists and cache (scripts/apt-private.sh); nothing is
# installed.  bookworm's abidiff 2.2 stops on Debian's 6.1 and 6.12 modules;
# 2.6 reads them.  abidiff runs through trixie's own loader and libraries:
# bin/abidiff is a wrapper that does so.
# Idempotent: what is complete is reused; two callers at once are serialised.
#
#   scripts/fetch-abigail.sh        prints DIR
#
# Layout of DIR (= ${FRUGAL_CACHE}/trixie/abigail):
#   root/                abidiff and the libraries it loads, unpacked
#   bin/abidiff          runs it through trixie's ld.so
#   VERSION              "abidiff VERSION" (written last)
#
# Exit status: 0, 1 on an error, 3 when the archive cannot be reached.
# FRUGAL_TRIXIE_MIRROR (or FRUGAL_DEBIAN_MIRROR) overrides the mirror.
set -eu
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
DIR=$CACHE/trixie/abigail
# abidiff's code is in libabigail5; the rest is what it loads (the
# Depends of libabigail5, libctf0, libdw1t64 and libxml2, recursively,
# without abigail-tools' python helpers, which abidiff does not use).
PKGS="abigail-tools libabigail5 libbpf1 libc6 libctf0 libbinutils libsframe1 libdw1t64
	libelf1t64 libgcc-s1 libstdc++6 libxml2 liblzma5 zlib1g libzstd1 libbz2-1.0"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }

WHO=fetch-abigail
# shellcheck source=scripts/apt-private.sh
. "$(dirname "$0")/apt-private.sh"
: "${FRUGAL_DEBIAN_MIRROR:=${FRUGAL_TRIXIE_MIRROR:-}}"

mkdir -p "$CACHE/trixie"
exec 9>"$CACHE/trixie/.abigail.lock"
flock 9
apt_private "$CACHE/trixie/apt" trixie

if [ ! -s "$DIR/VERSION" ]; then
	rm -rf "$DIR"
	mkdir -p "$DIR/dl" "$DIR/bin"
	# shellcheck disable=SC2086
	(cd "$DIR/dl" && apt_download $PKGS)
	for d in "$DIR"/dl/*.deb; do
		dpkg-deb -x "$d" "$DIR/root"
	done
	rm -rf "$DIR/dl"
	cat > "$DIR/bin/abidiff" <<'EOS'
#!/bin/sh
# abidiff from Debian trixie, through trixie's own loader and libraries.
R=$(dirname "$(dirname "$(readlink -f "$0")")")/root
L=$R/usr/lib/x86_64-linux-gnu
exec "$L/ld-linux-x86-64.so.2" --library-path "$L" "$R/usr/bin/abidiff" "$@"
EOS
	chmod +x "$DIR/bin/abidiff"
	"$DIR/bin/abidiff" --version > "$DIR/VERSION.tmp" 2>&1 ||
		die "trixie's abidiff does not run: $(head -1 "$DIR/VERSION.tmp")"
	mv "$DIR/VERSION.tmp" "$DIR/VERSION"
fi
echo "$DIR"
