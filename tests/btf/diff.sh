#!/usr/bin/env bash
# frugal btf diff and stat on real BTF: pahole's encoding of a fixture and of
# the same fixture with one member changed, the running kernel's BTF, split
# BTF, and bad input.  stat's counts are checked against bpftool's dump.
. "$(dirname "$0")/../lib.sh"

FX=$TOP/tests/btf/fixtures
PAHOLE=${PAHOLE:-/usr/bin/pahole}
W=$_tmp

if ! command -v "$PAHOLE" >/dev/null || ! command -v gcc >/dev/null; then
	skip "btf diff on pahole output" "needs pahole (dwarves) and gcc"
	finish
fi

# types.c as is, and with struct list's 'value' member renamed and moved.
gcc -g -O2 -c "$FX/types.c" -o "$W/a.o"
sed -e 's/^\tint value;$/\tlong renamed;/' "$FX/types.c" > "$W/types-b.c"
gcc -g -O2 -c "$W/types-b.c" -o "$W/b.o"
"$PAHOLE" -J --btf_gen_floats --btf_encode_detached="$W/a.btf" "$W/a.o" >/dev/null 2>&1
"$PAHOLE" -J --btf_gen_floats --btf_encode_detached="$W/b.btf" "$W/b.o" >/dev/null 2>&1

expect_exit "diff: a blob against itself is the same" 0 "$FRUGAL" btf diff "$W/a.btf" "$W/a.btf"
expect_exit "diff: raw BTF against its ELF object's... (no .BTF in a.o: exit 2)" 2 \
	"$FRUGAL" btf diff "$W/a.btf" "$W/a.o"
check "diff: the error names the file" grep -q "a.o: ELF file has no .BTF section" <<<"$err"

expect_exit "diff: a changed member is a difference" 1 "$FRUGAL" btf diff "$W/a.btf" "$W/b.btf"
check "diff: it is reported as struct list, changed" grep -qx '~ struct list' <<<"$out"
check "diff: with the old and new member lines" \
	grep -qx '    -   value 128 int' <<<"$out"
check "diff: ... and the new one" grep -qx '    +   renamed 128 long int' <<<"$out"
# struct list keeps its size (padding), so nothing that refers to it changes.
check "diff: that is the only difference" grep -qx "1 difference" <<<"$out"
expect_exit "diff --kinds enum: not an enum change" 0 "$FRUGAL" btf diff --kinds enum "$W/a.btf" "$W/b.btf"
expect_exit "diff -q prints nothing" 1 "$FRUGAL" btf diff -q "$W/a.btf" "$W/b.btf"
check "diff -q: empty output" test -z "$out"
expect_exit "diff --summary" 1 "$FRUGAL" btf diff --summary "$W/a.btf" "$W/b.btf"
check "diff --summary: one struct changed" \
	grep -qE '^struct +[0-9]+ +[0-9]+ +0 +0 +[1-9]' <<<"$out"

# The same BTF inside the ELF: pahole -J writes .BTF into a copy.
cp "$W/a.o" "$W/a-elf.o"
if "$PAHOLE" -J --btf_gen_floats "$W/a-elf.o" >/dev/null 2>&1; then
	expect_exit "diff: raw BTF and the same in an ELF .BTF section" 0 \
		"$FRUGAL" btf diff "$W/a.btf" "$W/a-elf.o"
fi

# Split BTF: the same object on two bases, each numbered differently.
gcc -g -O2 "$FX/types.c" "$FX/dup_a.c" "$FX/dup_b.c" -o "$W/prog"
"$PAHOLE" -J --btf_gen_floats --btf_encode_detached="$W/base1.btf" "$W/prog" >/dev/null 2>&1
"$PAHOLE" -J --btf_gen_floats --btf_encode_detached="$W/base2.btf" "$W/a.o" >/dev/null 2>&1
gcc -g -O2 -c "$FX/dup_a.c" -o "$W/mod.o"
"$PAHOLE" -J --btf_gen_floats --btf_base="$W/base1.btf" --btf_encode_detached="$W/split1.btf" "$W/mod.o" >/dev/null 2>&1
"$PAHOLE" -J --btf_gen_floats --btf_base="$W/base2.btf" --btf_encode_detached="$W/split2.btf" "$W/mod.o" >/dev/null 2>&1
expect_exit "diff: split BTF needs its base (exit 2)" 2 "$FRUGAL" btf diff "$W/split1.btf" "$W/split1.btf"
check "diff: ... and says so" grep -q "split1.btf: .*needs --base" <<<"$err"
expect_exit "diff --base: split BTF against itself" 0 \
	"$FRUGAL" btf diff --base "$W/base1.btf" "$W/split1.btf" "$W/split1.btf"
# On base1 (the whole program) dup_a's types are all in the base; on base2
# (types.c only) struct dup and its friends are the module's own.
expect_exit "diff --base-a/--base-b: different bases, different split types" 1 \
	"$FRUGAL" btf diff --base-a "$W/base1.btf" --base-b "$W/base2.btf" "$W/split1.btf" "$W/split2.btf"
check "diff: struct dup is only in the second split" grep -qx '+ struct dup' <<<"$out"

if [ -r /sys/kernel/btf/vmlinux ]; then
	expect_exit "diff: the running kernel's BTF against itself" 0 \
		"$FRUGAL" btf diff /sys/kernel/btf/vmlinux /sys/kernel/btf/vmlinux
fi

# ---- stat, checked against bpftool ------------------------------------------
stat_vs_bpftool() {
	local name=$1 file=$2 k want got bad=
	shift 2
	"$FRUGAL" btf stat "$@" "$file" > "$W/stat" || { fail "$name" "stat failed"; return; }
	bpftool btf dump file "$file" ${BASE:+--base-btf "$BASE"} > "$W/dump" 2>/dev/null ||
		{ skip "$name" "bpftool cannot dump $file"; return; }
	for k in INT PTR ARRAY STRUCT UNION ENUM ENUM64 FWD TYPEDEF VOLATILE CONST RESTRICT \
		 FUNC FUNC_PROTO VAR DATASEC FLOAT DECL_TAG TYPE_TAG; do
		want=$(grep -c "^\[[0-9]*\] $k " "$W/dump")
		got=$(awk -v k="$k" '$1 == k && NF == 3 { print $2 }' "$W/stat")
		[ "${got:-0}" = "$want" ] || bad="$bad $k:$got/$want"
	done
	want=$(grep -c '^\[[0-9]*\] ' "$W/dump")
	got=$(awk '/^types: +[0-9]+ \(/ { print $2 }' "$W/stat")
	[ "$got" = "$want" ] || bad="$bad total:$got/$want"
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "frugal/bpftool:$bad"; fi
}
stat_vs_bpftool "stat: counts per kind match bpftool's (fixture)" "$W/a.btf"
BASE=$W/base1.btf stat_vs_bpftool "stat --base: split counts match bpftool's" "$W/split1.btf" --base "$W/base1.btf"
if [ -r /sys/kernel/btf/vmlinux ]; then
	stat_vs_bpftool "stat: counts per kind match bpftool's (running kernel)" /sys/kernel/btf/vmlinux
fi
size=$(stat -c %s "$W/a.btf")
expect_exit "stat: total bytes" 0 "$FRUGAL" btf stat "$W/a.btf"
check "stat: total is the file's size ($size)" grep -qx "total: *$size bytes" <<<"$out"

# ---- bad input -------------------------------------------------------------------
printf 'not btf\n' > "$W/garbage"
head -c 100 "$W/a.btf" > "$W/short.btf"
for f in "$W/garbage" "$W/short.btf" "$W/nonexistent"; do
	expect_exit "diff: unreadable $(basename "$f") is exit 2" 2 "$FRUGAL" btf diff "$W/a.btf" "$f"
	check "diff: one line naming $(basename "$f")" \
		test "$(wc -l <<<"$err")" = 1 -a -n "$(grep -F "$(basename "$f")" <<<"$err")"
	expect_exit "stat: unreadable $(basename "$f") is exit 1" 1 "$FRUGAL" btf stat "$f"
	check "stat: one line naming $(basename "$f")" \
		test "$(wc -l <<<"$err")" = 1 -a -n "$(grep -F "$(basename "$f")" <<<"$err")"
done
expect_exit "diff: one file is a usage error" 2 "$FRUGAL" btf diff "$W/a.btf"
expect_exit "diff: unknown --kinds" 2 "$FRUGAL" btf diff --kinds bogus "$W/a.btf" "$W/a.btf"

finish
