#!/usr/bin/env bash
# Fetch two of Debian bookworm's 6.1 kernel ABIs, for checking `frugal btf
# abi` against genksyms' CRCs (tests/long/abi-crc.sh): from each, the
# vmlinux (taken out of the image package's vmlinuz, which keeps .BTF) and
# the Module.symvers of its headers package, and the modules that export
# symbols (with their split .BTF).  apt runs on a private state
# (scripts/apt-private.sh); nothing is installed.  About 57 MB downloaded
# (two cloud image packages of 27 MB, two headers packages of 1.5 MB); 2 x
# 80 MB kept.  Idempotent: an ABI already unpacked is reused.
#
#   scripts/fetch-abi-pair.sh [--dbg] [OLD NEW]    ABI numbers (default: 54 55)
#
# Prints one line per ABI: "ABI DIR VERSION", DIR holding vmlinux,
# Module.symvers and modules/ (the exporting ones, as under kernel/).
# With --dbg, also each ABI's -dbg vmlinux (DWARF beside its .BTF: btf
# abi's DWARF model), from its linux-image-...-dbg package (283 MB
# downloaded, 590 MB kept per ABI), as a fourth field: its path, under
# abi-dbg/ABI/.  Exit status 0, 1 on an error, 3 when the archive cannot
# be reached or no longer has the ABI.
set -eu
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
TOP=$CACHE/abi-pair
FLAVOUR=${FRUGAL_ABI_FLAVOUR:-cloud-amd64}
WHO=fetch-abi-pair
# shellcheck source=scripts/apt-private.sh
. "$(dirname "$0")/apt-private.sh"

# vmlinux_of BZIMAGE OUT: the ELF inside a bzImage, found by trying each
# compressor at each offset where its magic appears (the first that
# decompresses to an ELF wins).
vmlinux_of() {
	local img=$1 out=$2 off magic tool
	for magic in 'fd377a585a00:xz' '28b52ffd:zstd' '1f8b0800:gzip' '02214c18:lz4' '5d000000:lzma'; do
		tool=${magic#*:}
		command -v "$tool" >/dev/null 2>&1 || continue
		for off in $(LC_ALL=C grep -obUaP "$(echo "${magic%%:*}" | sed 's/../\\x&/g')" "$img" | cut -d: -f1); do
			tail -c +$((off + 1)) "$img" | "$tool" -dc 2>/dev/null > "$out.tmp" || true
			if [ "$(head -c 4 "$out.tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
				mv "$out.tmp" "$out"
				return 0
			fi
		done
	done
	rm -f "$out.tmp"
	return 1
}

fetch() {
	local abi=$1 K=$TOP/$1 img hdr d sv kdir m f
	[ -s "$K/VERSION" ] && [ -d "$K/modules" ] && return 0
	img=linux-image-6.1.0-$abi-$FLAVOUR
	hdr=linux-headers-6.1.0-$abi-$FLAVOUR
	apt_ready
	apt-cache "${APT_OPTS[@]}" show "$img" >/dev/null 2>&1 || {
		apt_update
		apt-cache "${APT_OPTS[@]}" show "$img" >/dev/null 2>&1 ||
			unreachable "$img: not in $APT_SUITES any more (pick two ABIs apt-cache still lists)"
	}
	rm -rf "$K"
	mkdir -p "$K/dl" "$K/root"
	(cd "$K/dl" && apt_download "$img" "$hdr")
	for d in "$K"/dl/*.deb; do
		timeout 300 dpkg-deb -x "$d" "$K/root" || die "$abi: cannot unpack $(basename "$d")"
	done
	vmlinux_of "$(find "$K/root" -type f -path '*/boot/vmlinuz-*' | head -1)" "$K/vmlinux" ||
		die "$abi: no ELF found in $img's vmlinuz"
	sv=$(find "$K/root" -name Module.symvers | head -1)
	[ -n "$sv" ] || die "$abi: no Module.symvers in $hdr"
	mv "$sv" "$K/Module.symvers"
	# The modules that export (Module.symvers names them), plain or compressed.
	mkdir -p "$K/modules"
	kdir=$(find "$K/root" -type d -path '*/lib/modules/*/kernel' | head -1)
	awk -F'\t' '$3 != "vmlinux" { print $3 }' "$K/Module.symvers" | sort -u |
	while read -r m; do
		for f in "$kdir/$m.ko" "$kdir/$m.ko.xz" "$kdir/$m.ko.zst"; do
			[ -f "$f" ] || continue
			mkdir -p "$K/modules/$(dirname "$m")"
			case $f in
			*.xz) xz -dc "$f" > "$K/modules/$m.ko" ;;
			*.zst) zstd -qdc "$f" > "$K/modules/$m.ko" ;;
			*) mv "$f" "$K/modules/$m.ko" ;;
			esac
		done
	done
	dpkg-deb -f "$(ls "$K"/dl/linux-image-*.deb)" Version > "$K/VERSION.tmp"
	rm -rf "$K/dl" "$K/root"
	mv "$K/VERSION.tmp" "$K/VERSION"
}

# fetch_dbg ABI: the -dbg package's vmlinux, alone, into abi-dbg/ABI/.
fetch_dbg() {
	local abi=$1 D=$CACHE/abi-dbg/$1 pkg=linux-image-6.1.0-$1-$FLAVOUR-dbg
	[ -s "$D/vmlinux" ] && return 0
	rm -rf "$D"
	mkdir -p "$D/dl" "$D/root"
	(cd "$D/dl" && apt_download "$pkg")
	timeout 600 dpkg-deb --fsys-tarfile "$D"/dl/*.deb |
		tar -x -C "$D/root" --wildcards './usr/lib/debug/boot/vmlinux-*' ||
		die "$abi: no vmlinux in $pkg"
	mv "$D"/root/usr/lib/debug/boot/vmlinux-* "$D/vmlinux.tmp"
	rm -rf "$D/dl" "$D/root"
	mv "$D/vmlinux.tmp" "$D/vmlinux"
}

DBG=
[ "${1-}" = --dbg ] && { DBG=1; shift; }
[ $# -eq 0 ] || [ $# -eq 2 ] || { echo "usage: $0 [--dbg] [OLD NEW]" >&2; exit 2; }
mkdir -p "$TOP"
exec 9>"$TOP/.lock"
flock 9
apt_private "$TOP/apt" bookworm bookworm-security
for abi in "${1:-54}" "${2:-55}"; do
	case $abi in *[!0-9]*|'') echo "$WHO: $abi: not an ABI number" >&2; exit 2 ;; esac
	fetch "$abi"
	if [ -n "$DBG" ]; then
		fetch_dbg "$abi"
		echo "$abi $TOP/$abi $(cat "$TOP/$abi/VERSION") $CACHE/abi-dbg/$abi/vmlinux"
	else
		echo "$abi $TOP/$abi $(cat "$TOP/$abi/VERSION")"
	fi
done
