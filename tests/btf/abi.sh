#!/usr/bin/env bash
# frugal btf abi: fixtures with one exported symbol per kind of ABI change
# (abi_old.c -> abi_new.c), built here with gcc and encoded with frugal btf
# encode, both raw (.btf) and in the ELF (.o, whose __ksymtab names the
# exported symbols); a split module on two bases; --symbols; --json; bad
# input; the running kernel's BTF against itself.
. "$(dirname "$0")/../lib.sh"

FX=$TOP/tests/btf/fixtures
W=$_tmp

if ! command -v gcc >/dev/null; then
	skip "btf abi" "needs gcc"
	finish
fi

build() {	# build NAME SOURCE [CFLAGS...]: NAME.o (BTF in it) and NAME.btf
	local name=$1 src=$2; shift 2
	gcc -g -c "$@" "$src" -o "$W/$name.o" &&
		"$FRUGAL" btf encode --btf_encode_detached="$W/$name.btf" "$W/$name.o" &&
		"$FRUGAL" btf encode "$W/$name.o"
}
if ! build old "$FX/abi_old.c" || ! build new "$FX/abi_new.c"; then
	fail "abi: fixtures" "gcc or frugal btf encode failed"
	finish
fi

# The symbol's line, then its paths (the indented lines right after it).
# Only among "by symbol:" (the causes before it are told by cause_block).
sym_block() { awk -v s="$1" '/^by symbol:/ { in_syms = 1 } /^types changed:/ { in_syms = 0 }
	in_syms && $2 == s { on = 1; print; next } on && /^    / { print; next } { on = 0 }' <<<"$out"; }
# The cause's block in "by cause:".
cause_block() { awk -v t="* $1 (" 'index($0, t) == 1 { on = 1; print; next } on && /^    / { print; next } { on = 0 }' <<<"$out"; }
# The type's block in "types changed:".
type_block() { awk -v t="~ $1 (" 'index($0, t) == 1 { on = 1; print; next } on && /^    / { print; next } { on = 0 }' <<<"$out"; }
has() { grep -qxF -- "$2" <<<"$1"; }

expect_exit "abi: OLD against itself: exit 0" 0 "$FRUGAL" btf abi "$W/old.o" "$W/old.o"
check "abi: ... and only the summary" \
	test "$out" = "19 symbols: 0 added, 0 removed, 0 changed, 0 incompatible; 0 types changed"

expect_exit "abi: OLD -> NEW: changed and incompatible (12)" 12 "$FRUGAL" btf abi "$W/old.o" "$W/new.o"
check "abi: summary" has "$out" \
	"20 symbols: 1 added, 1 removed, 15 changed, 14 incompatible; 11 types changed"
check "abi: symbol removed, incompatible" has "$out" "- gone (removed, incompatible)"
check "abi: symbol added, compatible" has "$out" "+ fresh (added)"
check "abi: unchanged symbol not listed" test -z "$(sym_block same)"
check "abi: a symbol not exported is not compared" test -z "$(sym_block hidden)"
check "abi: forward declaration on one side is no change" test -z "$(sym_block use_opaque)"
check "abi: a typedef added on the way is no change" test -z "$(sym_block use_cb)"
b=$(sym_block p_type)
check "abi: parameter type" has "$b" "    parameter 1 (x): int -> long int"
check "abi: ... incompatible" has "$b" "~ p_type (changed, incompatible)"
check "abi: parameter count" has "$(sym_block p_count)" "    parameter count 1 -> 2"
check "abi: return type" has "$(sym_block ret_type)" "    return: int -> long int"
b=$(sym_block use_shared2)
check "abi: path through a pointer to the changed struct" has "$b" \
	"    parameter 2 (s): struct shared * -> struct shared: 3 changes"
b=$(type_block "struct shared")
check "abi: a type reached by two symbols, described once" \
	test "$(grep -c '^~ struct shared ' <<<"$out")" -eq 1
check "abi: ... with both symbols" has "$b" \
	"~ struct shared (incompatible), reached by 3 symbols: use_outer, use_shared1, use_shared2"
check "abi: size changed" has "$b" "    incompatible: size 8 -> 12 bytes"
check "abi: member offset changed" has "$b" "    incompatible: member 'hash' offset 32 -> 64 bits"
check "abi: member added to a grown struct is incompatible" has "$b" \
	"    incompatible: member 'inserted' added at offset 32 bits"
b=$(type_block "struct rm")
check "abi: member removed" has "$b" "    incompatible: member 'gone' removed"
check "abi: member added in the same size is compatible" has "$b" \
	"    compatible: member 'other' added at offset 32 bits"
check "abi: member retyped, struct by value" has "$(sym_block by_value)" \
	"    parameter 1 (m): struct mt: member 'v': long int -> long unsigned int"
check "abi: bitfield size" has "$(sym_block use_bf)" \
	"    parameter 1 (b): struct bf * -> struct bf: member 'y' bitfield size 5 -> 6"
check "abi: array size" has "$(type_block "struct arr")" \
	"    incompatible: member 'name': char[16] -> char[32]"
b=$(sym_block use_pad)
check "abi: member appended in padding: compatible" has "$b" "~ use_pad (changed)"
check "abi: ... its path" has "$b" \
	"    parameter 1 (p): struct pad * -> struct pad: member 'c' added at offset 40 bits"
b=$(sym_block use_color)
check "abi: enumerator appended: compatible" has "$b" "~ use_color (changed)"
check "abi: ... its path" has "$b" "    parameter 1 (c): enum color: enumerator BLUE = 2 added"
check "abi: enumerator value changed" has "$(sym_block use_lvl)" \
	"    parameter 1 (l): enum lvl: enumerator HIGH value 2 -> 3"
b=$(sym_block use_mode)
check "abi: enumerator removed, incompatible" has "$b" "~ use_mode (changed, incompatible)"
check "abi: ... its path" has "$b" "    parameter 1 (m): enum mode: enumerator M_C removed"
check "abi: a cycle ends, its path goes through both structs" has "$(sym_block use_cycle)" \
	"    parameter 1 (c): struct ca * -> struct ca: member 'b': struct cb * -> struct cb: member 'y': int -> long int"
b=$(sym_block use_outer)
check "abi: a changed type behind another changed type: one path, to the first" \
	test "$(wc -l <<<"$b")" -eq 2
check "abi: ... that path" has "$b" \
	"    parameter 1 (o): struct outer * -> struct outer: member 'a': int -> long int"

# By cause: each type changed of its own once, before the symbols.
check "abi: by cause: its heading" has "$out" \
	"by cause: 11 types changed (9 incompatible); 3 symbols changed in their own type"
check "abi: by cause: after the summary, then by symbol, then the types" test \
	"$(grep -n -e '^by cause:' -e '^by symbol:' -e '^types changed:' <<<"$out" | cut -d' ' -f1 | tr '\n' ' ')" = \
	"3:by 42:by 76:types "
b=$(cause_block "struct shared")
check "abi: by cause: a type reached by three symbols, once" \
	test "$(grep -c '^\* struct shared ' <<<"$out")" -eq 1
check "abi: by cause: the count and the first names" has "$b" \
	"* struct shared (incompatible), reached by 3 symbols: use_outer, use_shared1, use_shared2"
check "abi: by cause: the shortest path (use_outer's goes through struct outer)" has "$b" \
	"    path: use_shared1: parameter 1 (s): struct shared * -> struct shared: 3 changes"
check "abi: by cause: its changes, the offsets last" test \
	"$(sed -n 2,4p <<<"$b")" = "$(printf '    %s\n' "incompatible: size 8 -> 12 bytes" \
		"incompatible: member 'inserted' added at offset 32 bits" \
		"incompatible: member 'hash' offset 32 -> 64 bits")"
check "abi: by cause: most symbols first" test "$(grep -m1 '^\* ' <<<"$out")" = \
	"* struct shared (incompatible), reached by 3 symbols: use_outer, use_shared1, use_shared2"
check "abi: by cause: a compatible one" has "$(cause_block "enum color")" \
	"* enum color (compatible), reached by 1 symbol: use_color"

# Only compatible changes: 4 alone.
printf 'use_pad\nuse_color  # an enum\n# a comment\n\nsame\n' > "$W/compat.list"
expect_exit "abi --symbols: compatible changes only (4)" 4 \
	"$FRUGAL" btf abi --symbols "$W/compat.list" "$W/old.o" "$W/new.o"
check "abi --symbols: only the listed symbols" has "$out" \
	"3 symbols: 0 added, 0 removed, 2 changed, 0 incompatible; 2 types changed"
printf 'hidden\n' > "$W/hidden.list"
expect_exit "abi --symbols: overrides the export table" 12 \
	"$FRUGAL" btf abi --symbols "$W/hidden.list" "$W/old.o" "$W/new.o"
check "abi --symbols: ... hidden's change" has "$out" "    parameter 1 (x): int -> long int"

# Compatible changes that a stable kernel makes, and near misses of each
# (tests/btf/fixtures/abi_compat.c): NEW's changes are compatible, MISS's
# the same changes at another offset, of another type or width.
for v in old: new:-DNEW miss:-DMISS; do
	build "c_${v%%:*}" "$FX/abi_compat.c" ${v#*:} || fail "abi: compat fixtures" "gcc or frugal btf encode failed"
done
printf 'use_wrap\nuse_wrap2\nuse_wrap3\nuse_eb\nuse_eb2\n' > "$W/compat2.list"
expect_exit "abi: wrapped into a union, enum bitfield to integer: compatible (4)" 4 \
	"$FRUGAL" btf abi --symbols "$W/compat2.list" "$W/c_old.o" "$W/c_new.o"
check "abi: ... all five compatible" has "$out" \
	"5 symbols: 0 added, 0 removed, 5 changed, 0 incompatible; 5 types changed"
b=$(cause_block "struct wrap")
check "abi: a member wrapped into an anonymous union at its offset: compatible" has "$b" \
	"    compatible: member 'dev' wrapped into member (anon 1), at the same offset"
check "abi: ... and the union that holds it added in its place" has "$b" \
	"    compatible: member (anon 1) added at offset 64 bits"
b=$(cause_block "struct wrap3")
check "abi: ... before an anonymous union it had: that one matched still" test "$b" = \
	"$(printf '%s\n' "* struct wrap3 (compatible), reached by 1 symbol: use_wrap3" \
		"    compatible: member 'dev' wrapped into member (anon 1), at the same offset" \
		"    compatible: member (anon 1) added at offset 0 bits" \
		"    path: use_wrap3: parameter 1 (w): struct wrap3 * -> struct wrap3: 2 changes")"
check "abi: an enum bitfield into an unsigned integer of its width: compatible" has \
	"$(cause_block "struct eb")" "    compatible: member 'state': enum state:8 -> unsigned char, the same width"
check "abi: ... a negative value into a signed one: compatible" has \
	"$(cause_block "struct eb2")" "    compatible: member 'v': enum sgn:8 -> signed char, the same width"
expect_exit "abi: the near misses: incompatible (12)" 12 \
	"$FRUGAL" btf abi --symbols "$W/compat2.list" "$W/c_old.o" "$W/c_miss.o"
check "abi: ... all five" has "$out" \
	"5 symbols: 0 added, 0 removed, 5 changed, 5 incompatible; 6 types changed"
check "abi: wrapped at another offset (in a nested anonymous struct)" has "$(cause_block "struct wrap")" \
	"    incompatible: member 'dev' offset 64 -> 128 bits, wrapped into member (anon 1)"
check "abi: wrapped as another type" has "$(cause_block "struct wrap2")" \
	"    incompatible: member 'dev': struct dev * -> long int"
check "abi: ... the anonymous union it had, changed: its change found in it" has \
	"$(cause_block "union wrap3.(anon 1)")" "    incompatible: member 'y': long int -> int"
check "abi: an enum bitfield into a wider integer" has "$(cause_block "struct eb")" \
	"    incompatible: member 'state': enum state -> short unsigned int"
check "abi: a negative value into an unsigned integer" has "$(cause_block "struct eb2")" \
	"    incompatible: member 'v': enum sgn -> unsigned char"
# A struct whose size and offsets only follow a member that grew is no cause.
printf 'use_holder\nuse_holder2\nuse_an\nuse_ptrh\n' > "$W/follow.list"
expect_exit "abi: a struct that grew, embedded" 12 \
	"$FRUGAL" btf abi --symbols "$W/follow.list" "$W/c_old.o" "$W/c_new.o"
check "abi: ... the structs that embed it follow it" has "$out" \
	"by cause: 3 types changed (3 incompatible), 2 more only follow a type they embed"
b=$(cause_block "struct inner")
check "abi: ... told under its cause" has "$b" "    only follow it: struct holder, struct holder2"
check "abi: ... the path from the nearest symbol goes through one" has "$b" \
	"    path: use_holder: parameter 1 (h): struct holder * -> struct holder: member 'in': struct inner: 2 changes"
check "abi: ... and is no cause itself" test -z "$(cause_block "struct holder")"
check "abi: ... but a type changed: still described" has "$out" \
	"    incompatible: member 'tail' offset 96 -> 128 bits"
check "abi: ... not one that points to it" has "$(cause_block "struct ptrh")" \
	"    incompatible: member 'k' offset 64 -> 96 bits"
check "abi: an anonymous struct named by its member" has "$(cause_block "struct an.pos")" \
	"    path: use_an: parameter 1 (p): struct an * -> struct an: member 'pos': struct an.pos: member 'y': short int -> int"
expect_exit "abi: ... offsets moved before the member that grew" 12 \
	"$FRUGAL" btf abi --symbols "$W/follow.list" "$W/c_old.o" "$W/c_miss.o"
check "abi: ... then it is a cause of its own" has "$(cause_block "struct holder2")" \
	"    incompatible: member 'h' offset 0 -> 32 bits"
check "abi: ... the other one still follows" has "$(cause_block "struct inner")" \
	"    only follow it: struct holder"
expect_exit "abi --json: causes with followers" 12 \
	"$FRUGAL" btf abi --json --symbols "$W/follow.list" "$W/c_old.o" "$W/c_new.o"
check "abi --json: ... followers listed" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
c = {x["name"]: x for x in d["causes"]}
assert sorted(c) == ["struct an.pos", "struct inner", "struct ptrh"], sorted(c)
assert c["struct inner"]["followers"] == ["struct holder", "struct holder2"], c["struct inner"]
assert c["struct inner"]["reached"] == 3 and d["totals"]["causes"] == 3
assert d["totals"]["types_changed"] == 5, d["totals"]
' "$out"

# Raw BTF: no export table, every function is a symbol (hidden too).
expect_exit "abi: raw BTF" 12 "$FRUGAL" btf abi "$W/old.btf" "$W/new.btf"
check "abi: raw BTF compares every function" has "$out" \
	"21 symbols: 1 added, 1 removed, 16 changed, 15 incompatible; 11 types changed"
expect_exit "abi: raw BTF against its ELF" 0 "$FRUGAL" btf abi --symbols "$W/hidden.list" \
	"$W/old.btf" "$W/old.o"

expect_exit "abi --json" 12 "$FRUGAL" btf abi --json "$W/old.o" "$W/new.o"
check "abi --json: parsed and checked" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
s = {x["name"]: x for x in d["symbols"]}
t = {x["name"]: x for x in d["types"]}
assert s["gone"]["status"] == "removed" and s["gone"]["incompatible"]
assert s["fresh"]["status"] == "added" and not s["fresh"]["incompatible"]
assert s["use_pad"]["status"] == "changed" and not s["use_pad"]["incompatible"]
assert s["p_type"]["paths"] == ["parameter 1 (x): int -> long int"]
assert "same" not in s
assert t["struct shared"]["symbols"] == ["use_outer", "use_shared1", "use_shared2"]
assert {"change": "member \x27hash\x27 offset 32 -> 64 bits", "incompatible": True} \
	in t["struct shared"]["changes"]
c = {x["name"]: x for x in d["causes"]}
assert d["causes"][0]["name"] == "struct shared", d["causes"][0]
assert c["struct shared"]["reached"] == 3 and c["struct shared"]["objects"] == 1
assert c["struct shared"]["first_symbols"] == ["use_outer", "use_shared1", "use_shared2"]
assert c["struct shared"]["path"] == {"symbol": "use_shared1",
	"path": "parameter 1 (s): struct shared * -> struct shared: 3 changes"}, c["struct shared"]
assert c["struct shared"]["changes"] == t["struct shared"]["changes"]
assert not c["enum color"]["incompatible"] and c["struct shared"]["incompatible"]
assert all(x["followers"] == [] for x in d["causes"])
assert d["totals"] == {"symbols": 20, "added": 1, "removed": 1, "changed": 15,
	"incompatible": 14, "types_changed": 11, "causes": 11, "suppressed_symbols": 0,
	"suppressed_types": 0, "not_compared": {"unknown": 0, "functions": 0, "variables": 0,
	"per_cpu_variables": 0}, "picked_by_type": 0, "units_found": 0, "no_crcs": []}, d["totals"]
assert d["not_compared"] == []
assert d["model"] == "btf", d["model"]
' "$out"

# Suppressions: libabigail's sections, by name or regular expression.
cat > "$W/fn.supp" <<'SUPP'
# a comment
[suppress_function]
  name = p_type
  label = "changed on purpose"
[suppress_function]
  name_regexp = ^use_(lvl|mode)$
; gone is a function: a variable's rule does not suppress it
[suppress_variable]
  name = gone
SUPP
expect_exit "abi --suppressions: functions" 12 \
	"$FRUGAL" btf abi --suppressions "$W/fn.supp" "$W/old.o" "$W/new.o"
check "abi --suppressions: the totals count them" has "$out" \
	"20 symbols: 1 added, 1 removed, 12 changed, 11 incompatible; 11 types changed; suppressed: 3 symbols, 0 types"
check "abi --suppressions: by name, not reported" test -z "$(sym_block p_type)"
check "abi --suppressions: by regexp, not reported" test -z "$(sym_block use_lvl)$(sym_block use_mode)"
check "abi --suppressions: ... nor among a type's symbols" \
	test -z "$(grep -E 'reached by .*use_(lvl|mode)' <<<"$out")"
check "abi --suppressions: a variable's rule spares a function" has "$out" "- gone (removed, incompatible)"
printf '[suppress_type]\nname = shared\n[suppress_type]\nname_regexp = "^enum lvl$"\n' > "$W/type.supp"
expect_exit "abi --suppressions: types" 12 \
	"$FRUGAL" btf abi --suppressions "$W/type.supp" "$W/old.o" "$W/new.o"
check "abi --suppressions: types counted" has "$out" \
	"20 symbols: 1 added, 1 removed, 12 changed, 11 incompatible; 9 types changed; suppressed: 0 symbols, 2 types"
check "abi --suppressions: a suppressed type is not described" test -z "$(type_block "struct shared")"
check "abi --suppressions: a symbol reaching only it is unchanged" \
	test -z "$(sym_block use_shared1)$(sym_block use_lvl)"
check "abi --suppressions: a symbol reaching another change still changed" has "$(sym_block use_outer)" \
	"    parameter 1 (o): struct outer * -> struct outer: member 'a': int -> long int"
printf '[suppress_type]\n name_regexp = ^(pad|color)$\n[suppress_function]\nname=same\n' > "$W/compat.supp"
expect_exit "abi --suppressions: all changes suppressed: exit 0" 0 "$FRUGAL" btf abi \
	--symbols "$W/compat.list" --suppressions "$W/compat.supp" "$W/old.o" "$W/new.o"
check "abi --suppressions: ... said in the totals" has "$out" \
	"3 symbols: 0 added, 0 removed, 0 changed, 0 incompatible; 0 types changed; suppressed: 1 symbols, 2 types"
expect_exit "abi --suppressions: two files" 12 "$FRUGAL" btf abi --json \
	--suppressions "$W/fn.supp" --suppressions "$W/type.supp" "$W/old.o" "$W/new.o"
check "abi --suppressions --json: totals" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert (d["totals"]["suppressed_symbols"], d["totals"]["suppressed_types"]) == (3, 2), d["totals"]
assert "p_type" not in {x["name"] for x in d["symbols"]}
' "$out"

# Module.symvers: the lines of the object's module (named as the file), else all;
# the lists decide added and removed, as the export tables do.
printf '0x1\tsame\told\tEXPORT_SYMBOL\n0x2\tgone\told\tEXPORT_SYMBOL_GPL\n0x3\tp_type\told\tEXPORT_SYMBOL\tNS\n0x4\tuse_pad\tdrivers/other\tEXPORT_SYMBOL\n' > "$W/old.symvers"
printf '0x1\tsame\tvmlinux\tEXPORT_SYMBOL\n0x5\tp_type\tvmlinux\tEXPORT_SYMBOL\n0x6\tfresh\tvmlinux\tEXPORT_SYMBOL\n' > "$W/new.symvers"
expect_exit "abi --symvers-a/-b" 12 "$FRUGAL" btf abi --symvers-a "$W/old.symvers" \
	--symvers-b "$W/new.symvers" "$W/old.o" "$W/new.o"
check "abi --symvers: the module's lines on OLD, all lines on NEW" has "$out" \
	"4 symbols: 1 added, 1 removed, 1 changed, 2 incompatible; 0 types changed"
check "abi --symvers: overrides the export table" test -z "$(sym_block use_rm)"
expect_exit "abi --symvers: one file for both" 12 "$FRUGAL" btf abi --symvers "$W/old.symvers" \
	"$W/old.o" "$W/new.o"
check "abi --symvers: ... NEW (not named 'old') takes every line" has "$out" \
	"4 symbols: 1 added, 0 removed, 1 changed, 1 incompatible; 0 types changed; not compared, no BTF: 1 function"
check "abi --symvers: CRCs there, no word of their absence" \
	test -z "$(grep -F 'no symbol CRCs' <<<"$out")"
# Without CONFIG_MODVERSIONS (Debian's 7.x) every CRC is 0: said under the
# summary and in --json's totals, the check the same as with CRCs.
sed 's/^0x[0-9a-f]*/0x00000000/' "$W/old.symvers" > "$W/nocrc-old.symvers"
sed 's/^0x[0-9a-f]*/0x00000000/' "$W/new.symvers" > "$W/nocrc-new.symvers"
nocrc_line="no symbol CRCs to compare with: every CRC in both Module.symvers is 0 (CONFIG_MODVERSIONS off)"
expect_exit "abi --symvers, every CRC 0: exit 12 as with CRCs" 12 "$FRUGAL" btf abi \
	--symvers-a "$W/nocrc-old.symvers" --symvers-b "$W/nocrc-new.symvers" "$W/old.o" "$W/new.o"
check "abi --symvers, every CRC 0: the summary as with CRCs" test "$(head -1 <<<"$out")" = \
	"4 symbols: 1 added, 1 removed, 1 changed, 2 incompatible; 0 types changed"
check "abi --symvers, every CRC 0: said on the line below" test "$(sed -n 2p <<<"$out")" = "$nocrc_line"
expect_exit "abi --symvers, NEW's CRCs 0" 12 "$FRUGAL" btf abi \
	--symvers-a "$W/old.symvers" --symvers-b "$W/nocrc-new.symvers" "$W/old.o" "$W/new.o"
check "abi --symvers, NEW's CRCs 0: NEW's named" has "$out" \
	"no symbol CRCs to compare with: every CRC in NEW's Module.symvers is 0 (CONFIG_MODVERSIONS off)"
expect_exit "abi --symvers --json, OLD's CRCs 0" 12 "$FRUGAL" btf abi --json \
	--symvers-a "$W/nocrc-old.symvers" --symvers-b "$W/new.symvers" "$W/old.o" "$W/new.o"
check "abi --symvers --json: totals' no_crcs names OLD" python3 -c '
import json, sys
assert json.loads(sys.argv[1])["totals"]["no_crcs"] == ["old"]' "$out"
expect_exit "abi --symvers --json, CRCs there" 12 "$FRUGAL" btf abi --json \
	--symvers-a "$W/old.symvers" --symvers-b "$W/new.symvers" "$W/old.o" "$W/new.o"
check "abi --symvers --json, CRCs there: no_crcs empty" python3 -c '
import json, sys
assert json.loads(sys.argv[1])["totals"]["no_crcs"] == []' "$out"
printf '0x1\tsame\tvmlinux\tEXPORT_SYMBOL\n0x2 gone vmlinux EXPORT_SYMBOL\n' > "$W/bad.symvers"

# A module: split BTF on each side's own base.
gcc -g -c "$FX/abi_mod.c" -o "$W/mod_old.o" && "$FRUGAL" btf encode --btf_base="$W/old.btf" "$W/mod_old.o"
gcc -g -DNEW -c "$FX/abi_mod.c" -o "$W/mod_new.o" && "$FRUGAL" btf encode --btf_base="$W/new.btf" "$W/mod_new.o"
expect_exit "abi: module on two bases" 12 "$FRUGAL" btf abi --base-a "$W/old.btf" \
	--base-b "$W/new.btf" "$W/mod_old.o" "$W/mod_new.o"
check "abi: ... the module's symbol reaches the base's struct" has "$out" \
	"    parameter 1 (s): struct shared * -> struct shared: 3 changes"
expect_exit "abi --base: module against itself" 0 "$FRUGAL" btf abi --base "$W/old.btf" \
	"$W/mod_old.o" "$W/mod_old.o"
expect_exit "abi: module on two ELF bases, releases checked" 12 "$FRUGAL" btf abi --base-a "$W/old.o" \
	--base-b "$W/new.o" "$W/mod_old.o" "$W/mod_new.o"

# Two FUNCs of one name (vmlinux has two strncat: the exported one and an
# inline copy of another prototype), in the other order on NEW: the pair
# of the same type is compared, not the first against the first.  Raw BTF
# written here: frugal btf encode keeps one FUNC of a name.
python3 - "$W/dup_old.btf" "$W/dup_new.btf" <<'PY'
import struct, sys
strs = b"\0int\0long\0x\0dup\0"
INT, LONG, X, DUP = 1, 5, 10, 12
def btf(first_proto, second_proto):
    t = struct.pack("<IIII", INT, 1 << 24, 4, (1 << 24) | 32)        # [1] int
    t += struct.pack("<IIII", LONG, 1 << 24, 8, (1 << 24) | 64)      # [2] long
    t += struct.pack("<IIIII", 0, (13 << 24) | 1, 1, X, 1)           # [3] int (int x)
    t += struct.pack("<III", DUP, 12 << 24, first_proto)             # [4] dup
    t += struct.pack("<IIIII", 0, (13 << 24) | 1, 2, X, 2)           # [5] long (long x)
    t += struct.pack("<III", DUP, 12 << 24, second_proto)            # [6] dup
    return struct.pack("<HBBIIIII", 0xeB9F, 1, 0, 24, 0, len(t), len(t), len(strs)) + t + strs
open(sys.argv[1], "wb").write(btf(3, 5))
open(sys.argv[2], "wb").write(btf(5, 3))
PY
expect_exit "abi: two FUNCs of a name, in the other order: no change" 0 \
	"$FRUGAL" btf abi "$W/dup_old.btf" "$W/dup_new.btf"
check "abi: ... the name compared once, the guess said" has "$out" \
	"1 symbols: 0 added, 0 removed, 0 changed, 0 incompatible; 0 types changed; 1 of several functions of one name, picked by type (no DWARF address)"

# DWARF without .BTF (a -dbg vmlinux, a .ko built without BTF): encoded on
# the fly, the same report as from the BTF that frugal btf encode writes.
gcc -g -c "$FX/abi_old.c" -o "$W/old_dw.o" && gcc -g -c "$FX/abi_new.c" -o "$W/new_dw.o" &&
	gcc -g -c "$FX/abi_mod.c" -o "$W/mod_old_dw.o"
"$FRUGAL" btf abi "$W/old.o" "$W/new.o" > "$W/from_btf.txt"
expect_exit "abi: DWARF only, encoded on the fly" 12 env TMPDIR="$W" "$FRUGAL" btf abi "$W/old_dw.o" "$W/new_dw.o"
check "abi: ... the same report as from their BTF" test "$out" = "$(cat "$W/from_btf.txt")"
check "abi: ... silent without -v" test -z "$err"
expect_exit "abi -v: DWARF only" 12 "$FRUGAL" btf abi -v "$W/old_dw.o" "$W/new.o"
check "abi -v: ... says so in one line, for that file alone" \
	test "$err" = "frugal btf abi: $W/old_dw.o: no .BTF, its DWARF encoded here"
expect_exit "abi: a DWARF-only module on a DWARF-only base" 12 "$FRUGAL" btf abi \
	--base-a "$W/old_dw.o" --base-b "$W/new.o" "$W/mod_old_dw.o" "$W/mod_new.o"
check "abi: ... the module's symbol reaches the base's struct" has "$out" \
	"    parameter 1 (s): struct shared * -> struct shared: 3 changes"
expect_exit "abi: a DWARF-only module against its BTF" 0 env TMPDIR="$W" "$FRUGAL" btf abi \
	--base "$W/old.btf" "$W/mod_old_dw.o" "$W/mod_old.o"
check "abi: ... no encoding left behind in TMPDIR" test -z "$(ls "$W" | grep frugal-abi)"
gcc -c "$FX/abi_old.c" -o "$W/nodw.o"

# The exported function by its address: abi_exp_a.c's static user_read and
# abi_exp_b.c's exported one, whose struct key grows in NEW, linked in
# either order (ab: the static one first).  Their .BTF is written as a
# vmlinux's can be, with a FUNC for each (frugal btf encode keeps one of a
# name: the static one is encoded under another name, renamed in the raw
# BTF), beside the DWARF: the exported one is found by its address.
exp_so() {	# exp_so OUT ORDER [CFLAGS]: OUT.so, DWARF and such a .BTF; OUT.bo.so without DWARF
	local out=$1 order=$2; shift 2
	gcc -g -O1 -fPIC -c "$FX/abi_exp_a.c" -o "$W/exp_a.o" &&
	gcc -g -O1 -fPIC -Duser_read=user_reaZ -c "$FX/abi_exp_a.c" -o "$W/exp_z.o" &&
	gcc -g -O1 -fPIC "$@" -c "$FX/abi_exp_b.c" -o "$W/exp_b.o" || return 1
	if [ "$order" = ab ]; then
		gcc -shared -nostdlib -o "$W/$out.dw.so" "$W/exp_a.o" "$W/exp_b.o" &&
		gcc -shared -nostdlib -o "$W/twin.so" "$W/exp_z.o" "$W/exp_b.o"
	else
		gcc -shared -nostdlib -o "$W/$out.dw.so" "$W/exp_b.o" "$W/exp_a.o" &&
		gcc -shared -nostdlib -o "$W/twin.so" "$W/exp_b.o" "$W/exp_z.o"
	fi || return 1
	"$FRUGAL" btf encode --btf_encode_detached="$W/twin.btf" "$W/twin.so" &&
	sed -i 's/user_reaZ/user_read/' "$W/twin.btf" &&
	objcopy --add-section .BTF="$W/twin.btf" "$W/$out.dw.so" "$W/$out.so" &&
	objcopy --strip-debug "$W/$out.so" "$W/$out.bo.so"
}
if ! command -v objcopy >/dev/null; then
	fail "abi: the exported function by its address" "no objcopy (binutils: scripts/install-deps.sh)"
elif exp_so exp_ab_old ab && exp_so exp_ab_new ab -DNEW && exp_so exp_ba_old ba &&
	exp_so exp_ba_new ba -DNEW; then
	for o in ab ba; do
		expect_exit "abi: exported user_read by its address ($o): exit 12" 12 \
			"$FRUGAL" btf abi "$W/exp_${o}_old.so" "$W/exp_${o}_new.so"
		check "abi: ... ($o) the exported one's change found" has "$out" \
			"    parameter 1 (key): const struct key * -> struct key: 3 changes"
		# DWARF on both sides: root_key, which has no VAR, typed from it.
		check "abi: ... ($o) no guess said" has "$out" \
			"2 symbols: 0 added, 0 removed, 2 changed, 2 incompatible; 1 types changed"
		expect_exit "abi: ... ($o) NEW -> OLD too" 12 \
			"$FRUGAL" btf abi "$W/exp_${o}_new.so" "$W/exp_${o}_old.so"
		check "abi: ... ($o) NEW -> OLD: the change found" has "$out" \
			"    parameter 1 (key): const struct key * -> struct key: 3 changes"
	done
	# NEW's BTF with the static user_read alone (frugal btf encode keeps the
	# first of a name): the exported one has no FUNC there, not compared.
	cp "$W/exp_ab_new.dw.so" "$W/exp_one.so" && "$FRUGAL" btf encode "$W/exp_one.so"
	expect_exit "abi: the exported one without a FUNC on NEW: exit 12 (root_key)" 12 \
		"$FRUGAL" btf abi "$W/exp_ab_old.so" "$W/exp_one.so"
	check "abi: ... not compared with the static one, counted" test "$(head -1 <<<"$out")" = \
		"2 symbols: 0 added, 0 removed, 1 changed, 1 incompatible; 1 types changed; not compared, no BTF: 1 function"
	check "abi: ... root_key alone changed" test "$(grep '^~ ' <<<"$out" | cut -d' ' -f2 | tr '\n' ' ')" = \
		"root_key struct "
	expect_exit "abi: without DWARF, the static one compared (ab): exit 0" 0 \
		"$FRUGAL" btf abi "$W/exp_ab_old.bo.so" "$W/exp_ab_new.bo.so"
	check "abi: ... and the summary says it was a guess" test "$out" = \
		"2 symbols: 0 added, 0 removed, 0 changed, 0 incompatible; 0 types changed; not compared, no BTF: 1 variable; 1 of several functions of one name, picked by type (no DWARF address)"
	# DWARF alone: encoded with every global variable, so root_key is
	# compared; the encoder keeps no user_read of two prototypes (pahole's
	# consistent_func), which is counted.
	expect_exit "abi: DWARF only: the exported variable compared" 12 env TMPDIR="$W" \
		"$FRUGAL" btf abi --json "$W/exp_ab_old.dw.so" "$W/exp_ab_new.dw.so"
	check "abi: ... changed, and user_read named as not compared" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert [(s["name"], s["status"]) for s in d["symbols"]] == [("root_key", "changed")], d["symbols"]
assert d["not_compared"] == [{"name": "user_read", "kind": "functions"}], d["not_compared"]
assert d["totals"]["not_compared"]["functions"] == 1 and d["totals"]["picked_by_type"] == 0
' "$out"
	expect_exit "abi: BTF without the variable: counted" 0 \
		"$FRUGAL" btf abi --json "$W/exp_ab_old.bo.so" "$W/exp_ab_old.bo.so"
	check "abi: ... by kind in --json" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["not_compared"] == [{"name": "root_key", "kind": "variables"}], d["not_compared"]
assert d["totals"]["not_compared"]["variables"] == 1 and d["totals"]["picked_by_type"] == 1
' "$out"
else
	fail "abi: the exported function by its address" "gcc, objcopy or frugal btf encode failed"
fi

# The DWARF model (DWARF on both sides of linked files, as a -dbg vmlinux
# pair): each export's types as the unit defining it defines them, as
# genksyms' CRCs see them.  abi_unit_decl.c only declares struct blob,
# which grows in NEW, abi_unit_def.c defines it (abi_unit.h's); one
# file's BTF reaches blob from both.  abi_unit_def.c's own struct local
# grows too, opaque to genksyms.  Without DWARF (.bo.so) every pointer is
# followed.
unit_so() {	# unit_so OUT [CFLAGS]: OUT.so (DWARF and .BTF), OUT.bo.so (.BTF only)
	local out=$1; shift
	gcc -g -O1 -fPIC "$@" -c "$FX/abi_unit_decl.c" -o "$W/unit_decl.o" &&
	gcc -g -O1 -fPIC "$@" -c "$FX/abi_unit_def.c" -o "$W/unit_def.o" &&
	gcc -shared -nostdlib -o "$W/$out.so" "$W/unit_decl.o" "$W/unit_def.o" &&
	"$FRUGAL" btf encode "$W/$out.so" &&
	objcopy --strip-debug "$W/$out.so" "$W/$out.bo.so"
}
if ! command -v objcopy >/dev/null; then
	fail "abi: the DWARF model" "no objcopy (binutils: scripts/install-deps.sh)"
elif unit_so unit_old && unit_so unit_new -DNEW; then
	expect_exit "abi: DWARF model: exit 12" 12 "$FRUGAL" btf abi "$W/unit_old.so" "$W/unit_new.so"
	check "abi: DWARF model: said under the summary" test "$(sed -n 2p <<<"$out")" = \
		"model: each export's types as its unit's headers define them (DWARF, genksyms' view); its unit found for 6 of 6 symbols"
	check "abi: DWARF model: a struct its unit only declares is opaque" test -z "$(sym_block use_decl)"
	check "abi: ... for a variable too" test -z "$(sym_block holder_var)"
	check "abi: DWARF model: a struct its unit defines is followed" has "$(sym_block use_def)" \
		"    parameter 1 (b): struct blob * -> struct blob: 2 changes"
	check "abi: DWARF model: a struct the unit's .c file defines is opaque" test -z "$(sym_block use_local)"
	check "abi: DWARF model: a variable without a VAR, typed from DWARF" has "$(sym_block blob_var)" \
		"    type: struct blob: 2 changes"
	b=$(sym_block use_td)
	check "abi: DWARF model: a typedef on the way is a change, compatible" has "$b" "~ use_td (changed)"
	check "abi: ... its path" has "$b" \
		"    parameter 1 (p): const unsigned char * -> const u8 *, a typedef on the way"
	check "abi: DWARF model: the summary" has "$out" \
		"6 symbols: 0 added, 0 removed, 3 changed, 2 incompatible; 2 types changed"
	expect_exit "abi: DWARF model: --json" 12 "$FRUGAL" btf abi --json "$W/unit_old.so" "$W/unit_new.so"
	check "abi: DWARF model: --json says it" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["model"] == "units" and d["totals"]["units_found"] == 6, (d["model"], d["totals"])
assert sorted(s["name"] for s in d["symbols"]) == ["blob_var", "use_def", "use_td"], d["symbols"]
' "$out"
	expect_exit "abi: BTF model (no DWARF): exit 12" 12 "$FRUGAL" btf abi --json \
		"$W/unit_old.bo.so" "$W/unit_new.bo.so"
	check "abi: BTF model: every pointer followed, no typedef change, no variable typed" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["model"] == "btf" and d["totals"]["units_found"] == 0, (d["model"], d["totals"])
assert sorted(s["name"] for s in d["symbols"]) == ["use_decl", "use_def", "use_local"], d["symbols"]
assert sorted(s["name"] for s in d["not_compared"]) == ["blob_var", "holder_var"], d["not_compared"]
' "$out"
	expect_exit "abi: BTF model: text" 12 "$FRUGAL" btf abi "$W/unit_old.bo.so" "$W/unit_new.bo.so"
	check "abi: BTF model: no model line" test -z "$(grep '^model: ' <<<"$out")"
	check "abi: BTF model: the struct the unit only declares followed" has "$(sym_block use_decl)" \
		"    parameter 1 (h): struct holder * -> struct holder: member 'b': struct blob * -> struct blob: 2 changes"
else
	fail "abi: the DWARF model" "gcc, objcopy or frugal btf encode failed"
fi

# A real module: Debian's -dbg .ko with its .BTF taken out, encoded again on
# its vmlinux, against itself with its .BTF.  The package is fetched here
# (scripts/fetch-kernel-dbg.sh; cached, shared with kernel.sh).
. "$(dirname "$0")/fetch.inc"
if [ "${FRUGAL_SKIP_KERNEL:-0}" = 1 ]; then
	skip "abi: a real DWARF module" "FRUGAL_SKIP_KERNEL=1"
elif ! command -v objcopy >/dev/null; then
	fail "abi: a real DWARF module" "no objcopy (binutils: scripts/install-deps.sh)"
elif fetch "abi: a real DWARF module" fetch-kernel-dbg.sh; then
	KDBG=$fetched
	KO=$KDBG/modules/kernel/drivers/net/tun.ko
	objcopy --remove-section=.BTF --remove-section=.BTF.ext "$KO" "$W/tun_dw.ko"
	expect_exit "abi: Debian's tun.ko, DWARF encoded on the fly, against its BTF" 0 \
		"$FRUGAL" btf abi --base "$KDBG/vmlinux" "$KO" "$W/tun_dw.ko"
	check "abi: ... its exported symbols compared" has "$out" \
		"3 symbols: 0 added, 0 removed, 0 changed, 0 incompatible; 0 types changed"
fi

# Bad input: one line naming the file, exit 1, nothing on stdout.
bad() {	# bad NAME FILE-IN-MESSAGE WHAT ARGS...
	local name=$1 file=$2 what=$3; shift 3
	expect_exit "abi: $name: exit 1" 1 "$FRUGAL" btf abi "$@"
	check "abi: $name: one line naming the file" \
		test "$(wc -l <<<"$err")" -eq 1 -a -z "$out"
	check "abi: $name: says what is wrong" grep -qF "frugal btf abi: $file: $what" <<<"$err"
}
# Two trees, each a vmlinux and its modules below it: the vmlinux pair and
# each module pair of the same relative path in one report, a module in one
# tree only all added or removed, each module on its own tree's vmlinux.
mk_tree() {	# mk_tree DIR VMLINUX MOD (MOD as kernel/net/mod.ko)
	mkdir -p "$1/kernel/net" && cp "$2" "$1/vmlinux" && cp "$3" "$1/kernel/net/mod.ko"
}
mk_tree "$W/ta" "$W/old.o" "$W/mod_old.o" && cp "$W/mod_old.o" "$W/ta/kernel/only_old.ko"
mk_tree "$W/tb" "$W/new.o" "$W/mod_new.o" && ln -sf "$W/new.o" "$W/tb/vmlinux" && mkdir -p "$W/tb/extra" &&
	cp "$W/mod_new.o" "$W/tb/extra/fresh.ko" && : > "$W/tb/extra/notes.txt"
expect_exit "abi trees: a tree against itself: exit 0" 0 "$FRUGAL" btf abi "$W/ta" "$W/ta"
check "abi trees: ... every object's symbols counted" test "$out" = \
	"21 symbols: 0 added, 0 removed, 0 changed, 0 incompatible; 0 types changed"
expect_exit "abi trees: OLD_DIR -> NEW_DIR (12)" 12 "$FRUGAL" btf abi "$W/ta" "$W/tb"
check "abi trees: totals over vmlinux and modules" has "$out" \
	"23 symbols: 2 added, 2 removed, 16 changed, 16 incompatible; 12 types changed"
check "abi trees: a vmlinux symbol named after its object" has "$out" "- vmlinux: gone (removed, incompatible)"
check "abi trees: a module pair matched by relative path" has "$out" "~ mod: mod_use (changed, incompatible)"
check "abi trees: ... its path into its base's struct" has "$(sym_block mod:)" \
	"    parameter 1 (s): struct shared * -> struct shared: 3 changes"
check "abi trees: a module only in OLD: its exports removed" has "$out" \
	"- only_old: mod_use (removed, incompatible)"
check "abi trees: a module only in NEW: its exports added" has "$out" "+ fresh: mod_use (added)"
check "abi trees: a type described once per object" test \
	"$(grep -c -e '^~ vmlinux: struct shared (' -e '^~ mod: struct shared (' <<<"$out")" -eq 2
check "abi trees: ... with its object's symbols" has "$out" \
	"~ mod: struct shared (incompatible), reached by 1 symbol: mod: mod_use"
check "abi trees: by cause: a type changed alike in two objects, one cause" has "$out" \
	"* struct shared (incompatible, in 2 objects), reached by 4 symbols: mod: mod_use, vmlinux: use_outer, vmlinux: use_shared1, vmlinux: use_shared2"
check "abi trees: by cause: in one object, named after it" has "$out" \
	"* vmlinux: struct rm (incompatible), reached by 1 symbol: vmlinux: use_rm"
expect_exit "abi trees: --json" 12 "$FRUGAL" btf abi --json "$W/ta" "$W/tb"
check "abi trees: --json: one object, symbols named after their object" python3 -c '
import json, sys
r = json.loads(sys.argv[1])
names = {s["name"]: s["status"] for s in r["symbols"]}
assert names["fresh: mod_use"] == "added" and names["only_old: mod_use"] == "removed", names
assert names["mod: mod_use"] == "changed" and names["vmlinux: gone"] == "removed", names
assert r["totals"]["symbols"] == 23 and r["totals"]["types_changed"] == 12, r["totals"]
assert any(t["name"] == "mod: struct shared" for t in r["types"])
assert [c["objects"] for c in r["causes"] if c["name"] == "struct shared"] == [2], r["causes"]
' "$out"
mk_tree "$W/tc" "$W/old.o" "$W/mod_new.o"
bad "trees: a module of another kernel than its tree's vmlinux" "$W/tc/kernel/net/mod.ko" \
	"module built for kernel 6.1.0-2-fixture, base $W/tc/vmlinux is kernel 6.1.0-1-fixture" \
	"$W/ta" "$W/tc"
mkdir -p "$W/td" && cp "$W/mod_old.o" "$W/td/mod.ko"
bad "trees: no vmlinux" "$W/td" "no vmlinux below it" "$W/ta" "$W/td"
mk_tree "$W/te" "$W/old.o" "$W/mod_old.o" && : > "$W/te/kernel/z.ko.xz"
bad "trees: a compressed module" "$W/te/kernel/z.ko.xz" "compressed module" "$W/ta" "$W/te"
expect_exit "abi trees: a directory against a file is a usage error (2)" 2 "$FRUGAL" btf abi \
	"$W/ta" "$W/new.o"

check "abi trees: ... says which is the file, which the directory" test "$err" = \
	"frugal btf abi: $W/new.o: a file, against the directory $W/ta: give two files or two directories (trees) (see 'frugal btf abi --help')"
# An unpacked -dbg package: usr/lib/debug/boot/vmlinux-VERSION and
# usr/lib/debug/lib/modules/VERSION/..., whose VERSIONs differ.
for t in old:1 new:2; do
	d=$W/dbg_${t%%:*}/usr/lib/debug
	mkdir -p "$d/boot" "$d/lib/modules/6.1.0-${t#*:}-fixture/kernel/net"
	cp "$W/${t%%:*}.o" "$d/boot/vmlinux-6.1.0-${t#*:}-fixture"
	cp "$W/mod_${t%%:*}.o" "$d/lib/modules/6.1.0-${t#*:}-fixture/kernel/net/mod.ko"
done
expect_exit "abi trees: two unpacked -dbg packages (12)" 12 "$FRUGAL" btf abi "$W/dbg_old" "$W/dbg_new"
check "abi trees: ... vmlinux-VERSION is the tree's vmlinux" has "$out" "- vmlinux: gone (removed, incompatible)"
check "abi trees: ... modules paired below lib/modules/VERSION" has "$out" "~ mod: mod_use (changed, incompatible)"
# Two modules of other names: compared, and a warning line.
gcc -g -c -DMODNAME='"other"' "$FX/abi_mod.c" -o "$W/other.o" &&
	"$FRUGAL" btf encode --btf_base="$W/old.btf" "$W/other.o"
expect_exit "abi: two modules of other names: compared (exit 0)" 0 "$FRUGAL" btf abi \
	--base "$W/old.btf" "$W/mod_old.o" "$W/other.o"
check "abi: ... with a warning line" test "$err" = \
	"frugal btf abi: $W/other.o: warning: module 'other', compared with module 'mod' ($W/mod_old.o): not the same module"
expect_exit "abi: a module against itself: no warning" 0 "$FRUGAL" btf abi \
	--base "$W/old.btf" "$W/mod_old.o" "$W/mod_old.o"
check "abi: ... stderr empty" test -z "$err"

head -c 100 "$W/old.btf" > "$W/trunc.btf"
bad "missing file" "$W/nope" "No such file" "$W/nope" "$W/old.btf"
bad "not BTF nor ELF" "$FX/abi_old.c" "neither raw BTF" "$W/old.btf" "$FX/abi_old.c"
bad "an ELF with neither BTF nor DWARF" "$W/nodw.o" "ELF file has neither a .BTF section nor DWARF" \
	"$W/nodw.o" "$W/old.o"
bad "truncated BTF" "$W/trunc.btf" "not valid BTF" "$W/trunc.btf" "$W/old.btf"
head -c 3000 "$W/old.o" > "$W/trunc.o"
bad "truncated ELF" "$W/trunc.o" "truncated ELF file: 3000 bytes, its headers say" "$W/trunc.o" "$W/old.o"
for z in xz zstd; do
	if command -v "$z" >/dev/null; then
		"$z" -qc "$W/mod_old.o" > "$W/mod.ko.$z"
		bad "a module compressed with $z" "$W/mod.ko.$z" "$z-compressed: decompress it first ($z -d)" \
			--base "$W/old.btf" "$W/mod.ko.$z" "$W/mod_old.o"
	else
		skip "abi: a module compressed with $z" "no $z"
	fi
done
bad "split BTF without its base" "$W/mod_old.o" "ELF's .BTF section is not valid BTF (split BTF needs --base)" \
	"$W/mod_old.o" "$W/mod_new.o"
# A module on another base than its own: libbpf loads it, every name and
# id of its own lands elsewhere; the release, or the BTF itself, tells.
bad "module on another base (raw: the names tell)" "$W/mod_old.o" \
	"split BTF built on another base than $W/new.btf (type" \
	--base "$W/new.btf" "$W/mod_old.o" "$W/mod_new.o"
bad "module on the older base (raw)" "$W/mod_new.o" \
	"split BTF built on another base than $W/old.btf (type" \
	--base "$W/old.btf" "$W/mod_new.o" "$W/mod_new.o"
bad "module on another kernel's vmlinux (the releases tell)" "$W/mod_old.o" \
	"module built for kernel 6.1.0-1-fixture, base $W/new.o is kernel 6.1.0-2-fixture" \
	--base-a "$W/new.o" --base-b "$W/new.o" "$W/mod_old.o" "$W/mod_new.o"
bad "missing --symbols file" "$W/nope.list" "No such file" --symbols "$W/nope.list" \
	"$W/old.o" "$W/new.o"
bad "missing --suppressions file" "$W/nope.supp" "No such file" --suppressions "$W/nope.supp" \
	"$W/old.o" "$W/new.o"
bad "Module.symvers with blanks for tabs" "$W/bad.symvers" "2: expected CRC, symbol, module" \
	--symvers "$W/bad.symvers" "$W/old.o" "$W/new.o"
badsupp() {	# badsupp NAME WHAT CONTENT
	printf '%b' "$3" > "$W/bad.supp"
	bad "suppressions: $1" "$W/bad.supp" "$2" --suppressions "$W/bad.supp" "$W/old.o" "$W/new.o"
}
badsupp "unsupported section" "2: section [suppress_file] is not supported" \
	'# x\n[suppress_file]\nname = a\n'
badsupp "unsupported libabigail property" "3: property 'soname_regexp' is not supported" \
	'[suppress_function]\nname = a\nsoname_regexp = x\n'
badsupp "a line of neither kind" "2: expected '[section]' or 'property = value'" \
	'[suppress_type]\nname a\n'
badsupp "a bad regular expression" "2: bad regular expression" '[suppress_type]\nname_regexp = (a\n'
badsupp "a regular expression too costly to compile" "2: regular expression too costly" \
	'[suppress_type]\nname_regexp = ((a{200}){200})+\n'
# glibc's regcomp takes about the cube of a pattern's length in stars:
# "(.*)*" 1,500 times took 14 s, 300 times (over the bound) 0.15 s.
badsupp "a regular expression too long to compile" "2: regular expression too costly: over" \
	"[suppress_type]\\nname_regexp = $(printf '(.*)*%.0s' $(seq 300))\\n"
# Each within the bound (901), together over it (16,384): refused at the 19th
# pattern, line 38.
badsupp "patterns too costly together" "38: regular expression too costly: the file's" \
	"$(for i in $(seq 20); do printf '[suppress_type]\\nname_regexp = %s\\n' \
		"$(printf '(.*)*%.0s' $(seq 180))"; done)"
badsupp "a back-reference" "2: regular expression too costly: a back-reference" \
	'[suppress_type]\nname_regexp = (a)\\1\n'
badsupp "a property before any section" "1: a property before any section" 'name = a\n'
badsupp "a section naming nothing" "1: [suppress_function] names nothing" \
	'[suppress_function]\nlabel = x\n[suppress_type]\nname = b\n'
badsupp "an empty value" "2: 'name' has no value" '[suppress_type]\nname =\n'
expect_exit "abi: --symbols with --symvers is a usage error (2)" 2 "$FRUGAL" btf abi \
	--symbols "$W/compat.list" --symvers "$W/old.symvers" "$W/old.o" "$W/new.o"
expect_exit "abi: one file is a usage error (2)" 2 "$FRUGAL" btf abi "$W/old.o"

# The running kernel against itself: every function, in seconds.
if [ -r /sys/kernel/btf/vmlinux ] && [ -x /usr/bin/time ]; then
	expect_exit "abi: the kernel's BTF against itself: exit 0" 0 /usr/bin/time -f '%e %M' \
		-o "$W/time" "$FRUGAL" btf abi /sys/kernel/btf/vmlinux /sys/kernel/btf/vmlinux
	read -r secs kb < "$W/time"
	echo "# vmlinux against itself: $secs s, $kb KB peak RSS"
	check "abi: ... in under 5 s" awk -v s="$secs" 'BEGIN { exit !(s < 5) }'
else
	skip "abi: the kernel's BTF" "no /sys/kernel/btf/vmlinux or /usr/bin/time"
fi
finish
