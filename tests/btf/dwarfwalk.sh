#!/usr/bin/env bash
# lib/dwarf_scan (the minimal walk) and lib/dwarf_die (the encoder's DIE
# cursor) against libdw, through bench/dwarfwalk: over every unit of a file
# all three must meet the same units, DIEs and attributes, and in lockstep
# with libdw ("dwarfwalk check") the cursor must read what libdw reads of
# every value the encoder uses: the tree, names and forms, constants,
# strings, references, flags, blocks, names through abstract origins, the
# first operation of each location.  Fixtures from
# gcc and clang at DWARF 4 and 5 (one -gdwarf64), a spread of modules of
# both kernel packages, and both vmlinux files (the packages come from the
# same cache as kernel.sh and kernel612.sh, fetched here if absent; only an
# archive that cannot be reached skips them).  A file the decoder cannot
# read is an error, never a partial count; a comparison of no file fails.
. "$(dirname "$0")/../lib.sh"

WALK=$O/bench/dwarfwalk
FX=$TOP/tests/btf/fixtures
W=$_tmp
[ -x "$WALK" ] || { fail "dwarfwalk" "$WALK missing (make check-build builds it)"; finish; }

# agree FILE...: one check for all; names the first file they differ on.
agree() {
	local label=$1 f a b bad= n=0
	shift
	for f in "$@"; do
		a=$("$WALK" libdw "$f" 2>&1 | cut -d' ' -f2-7)
		b=$("$WALK" raw "$f" 2>&1 | cut -d' ' -f2-7)
		c=$("$WALK" die "$f" 2>&1 | cut -d' ' -f2-7)
		n=$((n + 1))
		if [ -z "$a" ] || [ "$a" != "$b" ] || [ "$a" != "$c" ] || [[ "$a" != units* ]]; then
			bad="$(basename "$f"): libdw '$a', decoder '$b', cursor '$c'"
			break
		fi
		if ! d=$("$WALK" check "$f" 2>&1); then
			bad="$(basename "$f"): $(echo "$d" | tail -1)"
			break
		fi
	done
	[ "$n" -gt 0 ] || bad="no file to compare"
	check "$label: the decoder and the cursor meet what libdw meets, the cursor reads what libdw reads, in $n files${bad:+ ($bad)}" test -z "$bad"
}

# ---- fixtures -------------------------------------------------------------------
objs=()
for cc in gcc clang; do
	command -v "$cc" >/dev/null || continue
	for v in 4 5; do
		for src in "$FX"/types.c "$FX"/tags.c; do
			o=$W/$(basename "$src" .c)-$cc-$v.o
			"$cc" -g -gdwarf-$v -O2 -c "$src" -o "$o" 2>/dev/null && objs+=("$o")
		done
	done
done
gcc -g -gdwarf-5 -gdwarf64 -O2 -c "$FX/types.c" -o "$W/types-dwarf64.o" 2>/dev/null &&
	objs+=("$W/types-dwarf64.o")
gcc -g -O2 "$FX/dup_a.c" "$FX/dup_b.c" -shared -fPIC -o "$W/dup.so" 2>/dev/null && objs+=("$W/dup.so")
check "fixtures built (${#objs[@]})" test "${#objs[@]}" -ge 8
agree "fixtures" "${objs[@]}"

# Bad input: a file with no DWARF is an error for both walkers.
printf 'int x;\n' > "$W/nodw.c" && gcc -c "$W/nodw.c" -o "$W/nodw.o"
expect_exit "the decoder refuses a file without .debug_info" 1 "$WALK" raw "$W/nodw.o"
expect_exit "the cursor refuses a file without .debug_info" 1 "$WALK" die "$W/nodw.o"

# ---- the kernels' modules and vmlinux ---------------------------------------------
# spread N DIR: N of DIR's unpacked modules, spread over them by name.
spread() {
	find -L "$2" -name '*.ko' 2>/dev/null | sort -u | awk -v n="$1" '{ f[NR] = $0 }
		END { for (i = 0; i < n && NR; i++) print f[int(i * (NR - 1) / (n > 1 ? n - 1 : 1)) + 1] }' | sort -u
}
if [ "${FRUGAL_SKIP_KERNEL:-0}" = 1 ]; then
	skip "kernels" "FRUGAL_SKIP_KERNEL=1"
	finish
fi
. "$(dirname "$0")/fetch.inc"
if fetch "6.1 kernel" fetch-kernel-dbg.sh; then
	mapfile -t mods < <(spread 40 "$fetched/modules/")
	agree "6.1 modules" "${mods[@]}"
	agree "6.1 vmlinux" "$(readlink -f "$fetched/vmlinux")"
fi
if fetch "6.12 kernel" fetch-trixie.sh; then
	mapfile -t mods < <(spread 40 "$fetched/kernel-dbg/modules/")
	agree "6.12 modules" "${mods[@]}"
	agree "6.12 vmlinux" "$(readlink -f "$fetched/kernel-dbg/vmlinux")"
fi
finish
