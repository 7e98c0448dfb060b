#!/usr/bin/env bash
# Seeds for fuzz_dwarf_scan: the sections of the BTF test fixtures, built
# with gcc and clang at DWARF 4 and 5, in the harness's layout (u16
# .debug_abbrev length, u16 .debug_str length, the two, then .debug_info).
#   fuzz/seeds-fuzz_dwarf_scan.sh DIR
set -eu
dir=$1
FX=$(dirname "$0")/../tests/btf/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	for dw in 4 5; do
		for src in types dup_a; do
			o=$tmp/$src.o
			# Linked (-r would keep relocations the harness does not apply).
			$cc -g -gdwarf-$dw -O2 -shared -fPIC "$FX/$src.c" -o "$o" 2>/dev/null || continue
			for sec in abbrev str info; do
				objcopy --dump-section .debug_$sec="$tmp/$sec" "$o" "$tmp/x" 2>/dev/null ||
					: >"$tmp/$sec"
			done
			la=$(stat -c %s "$tmp/abbrev") ls=$(stat -c %s "$tmp/str")
			[ "$la" -lt 65536 ] && [ "$ls" -lt 65536 ] || continue
			{ printf "\\x$(printf %02x $((la & 255)))\\x$(printf %02x $((la >> 8)))"
			  printf "\\x$(printf %02x $((ls & 255)))\\x$(printf %02x $((ls >> 8)))"
			  cat "$tmp/abbrev" "$tmp/str" "$tmp/info"; } >"$dir/$src-$cc-dwarf$dw"
		done
	done
done
