#!/usr/bin/env bash
# `frugal btf show`, pahole's layout view, byte for byte against pahole 1.30
# (trixie's) and 1.32 (sid's), each on the same BTF, --pahole_compat naming
# the release: every struct and union (pahole with no -C) of
#  - tests/btf/fixtures/layout.c (holes, bitfields, packing, forced
#    alignments, flexible arrays, enums, function pointers, anonymous and
#    nested members, multi-dimensional arrays), as pahole 1.32 encodes it;
#  - two hand-made BTF blobs with one int[4][32], the inner array's id
#    before and after the outer's (pahole 1.32 prints them differently);
#  - the running kernel's BTF;
#  - Debian's 6.12 (trixie) and 7.x (sid) vmlinux, and sid's kvm.ko split
#    on its vmlinux (FRUGAL_SKIP_KERNEL=1 skips these);
# plain, --hex and -E; then -C, --sizes, --nr_members and pahole's filters
# (-a, -H, -B, -z, --padding_ge, --structs, --unions, --packed, -x, -y,
# --with_flexible_array...), -i (-d) and -f; frugal invoked as pahole; and what frugal does
# with a name or a file it cannot show.
# A comparison where pahole printed nothing fails.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/paholes.inc" "btf show"
W=$_tmp

# same LABEL VERSION ARGS...: pahole VERSION -F btf ARGS and frugal btf show
# --pahole_compat VERSION ARGS print the same bytes, and pahole printed some.
same() {
	local label=$1 ver=$2 rc n
	shift 2
	timeout 300 "${PAHOLE[$ver]}" -F btf "$@" >"$W/p.out" 2>"$W/p.err"
	rc=$?
	if [ $rc != 0 ] || [ ! -s "$W/p.out" ]; then
		fail "btf show $label ($ver)" "pahole exit $rc, $(wc -l < "$W/p.out") lines: $(head -c 200 "$W/p.err")"
		return
	fi
	if ! "$FRUGAL" btf show --pahole_compat "$ver" "$@" >"$W/f.out" 2>"$W/f.err"; then
		fail "btf show $label ($ver)" "frugal failed: $(head -c 200 "$W/f.err")"
		return
	fi
	n=$(wc -l < "$W/p.out")
	if cmp -s "$W/p.out" "$W/f.out"; then
		pass "btf show $label ($ver): pahole's $n lines, byte for byte"
	else
		fail "btf show $label ($ver)" "$(diff "$W/p.out" "$W/f.out" | grep -c '^[<>]') of $n lines differ: $(diff "$W/p.out" "$W/f.out" | head -4 | tr '\n\t' '| ')"
	fi
}

# The fixture, encoded by pahole 1.32 (both sides read the anchor's BTF).
if ! gcc -g -O0 -c -o "$W/layout.o" "$TOP/tests/btf/fixtures/layout.c" 2>"$W/cc.err" ||
   ! "${PAHOLE[1.32]}" -J --btf_encode_detached="$W/layout.btf" "$W/layout.o" >/dev/null 2>&1; then
	fail "btf show: build the fixture" "$(head -3 "$W/cc.err")"
	finish
fi

# A raw BTF blob: int, int[32] and int[4] of it (in that id order when
# $1 is 1, else the outer array first), and struct s { int a[4][32]; }.
python3 - "$W" <<'PYEOF'
import struct, sys
def blob(inner_first):
    strs = b"\0int\0s\0a\0"
    INT, ARR, STRUCT = 1, 3, 4
    t = struct.pack("<III", 1, INT << 24, 4) + struct.pack("<I", (1 << 24) | 32)
    inner = struct.pack("<III", 0, ARR << 24, 0) + struct.pack("<III", 1, 1, 32)
    if inner_first:   # [2] int[32], [3] [2][4]
        arrs = inner + struct.pack("<III", 0, ARR << 24, 0) + struct.pack("<III", 2, 1, 4)
    else:             # [2] [3][4], [3] int[32]
        arrs = struct.pack("<III", 0, ARR << 24, 0) + struct.pack("<III", 3, 1, 4) + inner
    outer = 3 if inner_first else 2
    s = struct.pack("<III", 5, (STRUCT << 24) | 1, 512) + struct.pack("<III", 7, outer, 0)
    types = t + arrs + s
    hdr = struct.pack("<HBBIIIII", 0xeb9f, 1, 0, 24, 0, len(types), len(types), len(strs))
    return hdr + types + strs
for f in (0, 1):
    open("%s/arrays%d.btf" % (sys.argv[1], f), "wb").write(blob(f))
PYEOF

for ver in 1.30 1.32; do
	for opt in "" --hex -E; do
		same "fixture ${opt:-(plain)}" "$ver" $opt "$W/layout.btf"
	done
	same "int[4][32], inner array first" "$ver" "$W/arrays1.btf"
	same "int[4][32], outer array first" "$ver" "$W/arrays0.btf"
done
# The two rules differ where they should: on the blob whose inner array comes first.
"$FRUGAL" btf show --pahole_compat 1.30 "$W/arrays1.btf" > "$W/a130"
"$FRUGAL" btf show --pahole_compat 1.32 "$W/arrays1.btf" > "$W/a132"
check "btf show: 1.30 prints int a[32][4], 1.32 int a[4][32] (inner array first)" \
	grep -q 'a\[32\]\[4\]' "$W/a130"
check "btf show: ... and 1.32 int a[4][32]" grep -q 'a\[4\]\[32\]' "$W/a132"

SYSBTF=/sys/kernel/btf/vmlinux
if [ -r "$SYSBTF" ]; then
	for ver in 1.30 1.32; do
		for opt in "" --hex -E; do
			same "running kernel ${opt:-(plain)}" "$ver" $opt "$SYSBTF"
		done
		same "running kernel -C task_struct,list_head,rq" "$ver" -C task_struct,list_head,rq "$SYSBTF"
		same "running kernel --sizes" "$ver" --sizes "$SYSBTF"
		same "running kernel --nr_members" "$ver" --nr_members "$SYSBTF"
		# pahole's filters (each prints something on a kernel's BTF)
		for opt in "-a" "-H 3" "-B 2" "-z 16" "--padding_ge 40" "--padding 4" \
			   "--structs" "--unions" "--packed" "--with_flexible_array" \
			   "--with_embedded_flexible_array" "-x sk" "-y tcp" "-a -y tcp" "-N" \
			   "-s -t ," "-a -s" "-a --packed -E" "--structs -H 1 -N" "--unions -x s" \
			   "-i list_head" "-i spinlock_t -d" "-f task_struct" "-f page --structs" \
			   "-M --classes_as_structs --first_obj_only --fixup_silly_bitfields --suppress_force_paddings" \
			   "-q" "-q -E" "-r -E" "--suppress_aligned_attribute" "--suppress_packed -E"; do
			# shellcheck disable=SC2086
			same "running kernel $opt" "$ver" $opt "$SYSBTF"
		done
	done
	# Where 1.30 and 1.32 filter unions differently
	for opt in "-H 2 --unions" "--unions --with_flexible_array"; do
		# shellcheck disable=SC2086
		"$FRUGAL" btf show --pahole_compat 1.30 $opt "$SYSBTF" > "$W/u130"
		# shellcheck disable=SC2086
		"$FRUGAL" btf show --pahole_compat 1.32 $opt "$SYSBTF" > "$W/u132"
		# shellcheck disable=SC2086
		"${PAHOLE[1.32]}" -F btf $opt "$SYSBTF" > "$W/p132"
		check "btf show $opt: every union as 1.30, none as 1.32, as each pahole" \
			test "$(grep -c '^union' "$W/u130")" -gt 0 -a ! -s "$W/u132" -a ! -s "$W/p132"
	done
	# As pahole: no -J, a name and no file (pahole reads the running kernel's BTF).
	ln -s "$FRUGAL" "$W/pahole"
	"${PAHOLE[1.32]}" -C sk_buff > "$W/p.sk" 2>&1
	FRUGAL_PAHOLE_COMPAT=1.32 "$W/pahole" sk_buff > "$W/f.sk" 2>&1
	check "invoked as pahole: 'pahole sk_buff' prints what pahole -C sk_buff prints" \
		cmp -s "$W/p.sk" "$W/f.sk"
	check "... which is a struct" grep -q '^struct sk_buff {' "$W/f.sk"
	# pahole prints the names found up to the first it lacks, then says so, exit 0.
	"${PAHOLE[1.32]}" -C list_head,no_such_type_x,rb_node > "$W/p.miss" 2> "$W/p.miss.err"
	prc=$?
	FRUGAL_PAHOLE_COMPAT=1.32 "$W/pahole" -C list_head,no_such_type_x,rb_node > "$W/f.miss" 2> "$W/f.miss.err"
	frc=$?
	check "invoked as pahole: an unknown -C name as pahole (exit $frc, pahole's $prc; same output and message)" \
		test "$frc" = "$prc" -a "$(cat "$W/p.miss" "$W/p.miss.err" | md5sum)" = "$(cat "$W/f.miss" "$W/f.miss.err" | md5sum)"
	expect_exit "btf show: an unknown -C name is an error" 1 \
		"$FRUGAL" btf show -C list_head,no_such_type_x "$SYSBTF"
	check "... naming it, and nothing printed (no partial output)" \
		test -z "$out" -a "$(grep -c "no_such_type_x" <<< "$err")" = 1
else
	skip "btf show: the running kernel's BTF" "no $SYSBTF"
fi

# BTF no compiler writes, whose types hold themselves: a typedef that is
# its own const, a prototype whose parameter points to it.  pahole prints
# the second until its stack runs out; frugal refuses both in one line.
python3 - "$W" <<'PYEOF'
import struct, sys
def blob(types):
    strs = b"\0int\0t\0s\0a\0"
    return struct.pack("<HBBIIIII", 0xeb9f, 1, 0, 24, 0, len(types), len(types), len(strs)) + types + strs
INT, PTR, STRUCT, TYPEDEF, CONST, FUNC_PROTO = 1, 2, 4, 8, 10, 13
i = struct.pack("<IIII", 1, INT << 24, 4, (1 << 24) | 32)
s = lambda t: struct.pack("<IIIIII", 7, (STRUCT << 24) | 1, 8, 9, t, 0)
open(sys.argv[1] + "/loop1.btf", "wb").write(blob(i + struct.pack("<III", 5, TYPEDEF << 24, 3) +
    struct.pack("<III", 0, CONST << 24, 2) + s(2)))
open(sys.argv[1] + "/loop2.btf", "wb").write(blob(i + struct.pack("<IIIII", 0, (FUNC_PROTO << 24) | 1, 1, 0, 3) +
    struct.pack("<III", 0, PTR << 24, 2) + s(3)))
PYEOF
for f in loop1 loop2; do
	expect_exit "btf show: BTF whose types hold themselves ($f) is refused" 1 timeout 20 "$FRUGAL" btf show -E "$W/$f.btf"
	check "... in one line naming a type, nothing printed" \
		test -z "$out" -a "$(wc -l <<< "$err")" = 1 -a "$(grep -c 'holds itself' <<< "$err")" = 1
done

printf 'not BTF at all\n' > "$W/junk"
expect_exit "btf show: a file that is not BTF is refused" 1 "$FRUGAL" btf show "$W/junk"
check "... in one line naming it" test "$(wc -l <<< "$err")" = 1 -a -z "$out"
expect_exit "btf show: -F dwarf is refused (BTF only)" 2 "$FRUGAL" btf show -F dwarf "$W/layout.btf"

debian_kernels "btf show" || finish
KVM=kernel/arch/x86/kvm/kvm.ko
if ! echo "$KVM" | bash "$TOP/scripts/fetch-sid.sh" --modules >/dev/null 2>"$W/fetch.err"; then
	fail "btf show: unpack sid's $KVM" "$(tail -1 "$W/fetch.err")"
	finish
fi
for ver in 1.30 1.32; do
	for opt in "" --hex -E; do
		same "6.12 vmlinux ${opt:-(plain)}" "$ver" $opt "$V612"
		same "7.x vmlinux ${opt:-(plain)}" "$ver" $opt "$V7"
		same "7.x kvm.ko on its vmlinux ${opt:-(plain)}" "$ver" $opt --btf_base "$V7" "$KDIR/modules/$KVM"
	done
done
finish
