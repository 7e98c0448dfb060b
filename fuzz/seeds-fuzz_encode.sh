#!/usr/bin/env bash
# Seeds for fuzz_encode: the BTF test fixtures compiled with gcc and clang
# at DWARF 4 and 5 (ET_REL, so relocations are exercised) and one linked
# program; each file gets the harness's leading option byte.
#   fuzz/seeds-fuzz_encode.sh DIR
set -eu
dir=$1
FX=$(dirname "$0")/../tests/btf/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	for dw in 4 5; do
		for src in types dup_a tags; do
			[ $src = tags ] && [ $cc = gcc ] && continue
			$cc -g -gdwarf-$dw -O2 -c "$FX/$src.c" -o "$tmp/$src.o" 2>/dev/null || continue
			# Option byte: alternate legacy/all features and one/two workers.
			printf "\\x$(printf %02x $(( (n * 0x40) & 0xc0 )))" >"$dir/$src-$cc-dwarf$dw"
			cat "$tmp/$src.o" >>"$dir/$src-$cc-dwarf$dw"
			n=$((n + 1))
		done
	done
done
if command -v gcc >/dev/null &&
   gcc -g -O2 "$FX/dup_a.c" "$FX/dup_b.c" -o "$tmp/prog" 2>/dev/null; then
	{ printf '\x00'; cat "$tmp/prog"; } >"$dir/prog-gcc"
fi
# The hand-written DWARF the encoder must refuse.
if gcc -c "$FX/bad_dwarf.S" -o "$tmp/bad.o" 2>/dev/null; then
	{ printf '\x00'; cat "$tmp/bad.o"; } >"$dir/bad_dwarf"
fi
