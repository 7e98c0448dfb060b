#!/usr/bin/env bash
# `frugal btf show -R -C NAMES` (pahole's --reorganize) and -S
# (--show_reorg_steps), byte for byte against pahole 1.30 (trixie's) and
# 1.32 (sid's), each on the same BTF, --pahole_compat naming the release:
#  - every struct of tests/btf/fixtures/layout.c, as pahole 1.32 encodes it;
#  - a sample of the running kernel's structs: every Nth of pahole's
#    --structs --sizes, of those with holes (-H 1) and of those with bit
#    holes (-B 1), sorted by name; each alone, then all in one -C list
#    (packing marks left by one struct's printing show in the next's);
#  - -V (pahole's verbose: each move named) on the fixture and a few
#    kernel structs;
#  - -S on the fixture and a few kernel structs, against 1.32 only:
#    pahole 1.30 crashes printing the first step (its class__fprintf()
#    reads the cacheline size through a NULL conf; fixed in 1.31).
# A struct whose reorganization pahole never ends (it runs on) is refused
# by frugal, nothing printed; so is a name pahole -R prints nothing for (a
# typedef of an anonymous struct: --sizes lists those by the typedef's
# name).  A comparison where pahole printed nothing fails.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/paholes.inc" "btf show -R"
W=$_tmp
SAMPLE=${FRUGAL_REORG_SAMPLE:-100}

# compare VER FILE ARGS...: pahole VER -F btf ARGS FILE and frugal btf show
# --pahole_compat VER ARGS FILE into $W/p.out and $W/f.out; the status:
# 0 the same bytes (and pahole printed some), 1 different, 2 pahole failed
# or printed nothing, 3 pahole did not end (10 s).
compare() {
	local ver=$1 file=$2 rc
	shift 2
	timeout 10 "${PAHOLE[$ver]}" -F btf "$@" "$file" >"$W/p.out" 2>"$W/p.err"
	rc=$?
	"$FRUGAL" btf show --pahole_compat "$ver" "$@" "$file" >"$W/f.out" 2>"$W/f.err"
	frc=$?
	[ $rc = 124 ] && return 3
	[ $rc != 0 ] || [ ! -s "$W/p.out" ] && return 2
	[ $frc = 0 ] && cmp -s "$W/p.out" "$W/f.out" && return 0
	return 1
}

# same LABEL VER FILE ARGS...: one check of compare's.
same() {
	local label=$1 ver=$2 n
	shift 2
	compare "$ver" "$@"
	case $? in
	0) pass "btf show $label ($ver): pahole's $(wc -l < "$W/p.out") lines, byte for byte" ;;
	1) n=$(wc -l < "$W/p.out")
	   fail "btf show $label ($ver)" "$(diff "$W/p.out" "$W/f.out" | grep -c '^[<>]') of $n lines differ: $(diff "$W/p.out" "$W/f.out" | head -4 | tr '\n\t' '| ') $(head -c 200 "$W/f.err")" ;;
	2) fail "btf show $label ($ver)" "pahole printed $(wc -l < "$W/p.out") lines: $(head -c 200 "$W/p.err")" ;;
	3) fail "btf show $label ($ver)" "pahole did not end in 10 s" ;;
	esac
}

# The fixture, encoded by pahole 1.32 (both sides read the anchor's BTF).
if ! gcc -g -O0 -c -o "$W/layout.o" "$TOP/tests/btf/fixtures/layout.c" 2>"$W/cc.err" ||
   ! "${PAHOLE[1.32]}" -J --btf_encode_detached="$W/layout.btf" "$W/layout.o" >/dev/null 2>&1; then
	fail "btf show -R: build the fixture" "$(head -3 "$W/cc.err")"
	finish
fi
FIX=$("${PAHOLE[1.32]}" -F btf --structs --sizes "$W/layout.btf" | cut -f1 | paste -sd,)
# Backwards, the structs that hold others come first: printing them infers
# their members' packing, which a copy takes over (struct packed's copy
# is packed only this way: outer_packed, printed first, marks it).
XIF=$(tr , '\n' <<< "$FIX" | tac | paste -sd,)
for ver in 1.30 1.32; do
	same "-R fixture, each struct (-C $FIX)" "$ver" "$W/layout.btf" -R -C "$FIX"
	same "-R fixture, backwards" "$ver" "$W/layout.btf" -R -C "$XIF"
	same "-R -V fixture (the moves named)" "$ver" "$W/layout.btf" -R -V -C "$FIX"
	same "-R --hex -E fixture" "$ver" "$W/layout.btf" -R --hex -E -C "$FIX"
done
same "-R -S fixture" 1.32 "$W/layout.btf" -R -S -C "$FIX"
# pahole prints the steps with its defaults, the final struct as asked
same "-R -S --hex -E fixture" 1.32 "$W/layout.btf" -R -S --hex -E -C "$FIX"
check "btf show -R: ... the steps in decimal (pahole's defaults)" \
	grep -q 'short int  *c;  */\*     2     2 \*/' "$W/f.out"
check "... and the final struct in hex" grep -q 'short int  *c;  */\*   0x2   0x2 \*/' "$W/f.out"
check "btf show -R: ... where members move (-S shows a step)" grep -q '^/\* Moving ' "$W/f.out"
check "btf show -R: ... and bytes are saved" grep -q 'saved [0-9]* byte' "$W/f.out"
expect_exit "btf show -R: a union is refused (pahole prints nothing for it)" 1 \
	"$FRUGAL" btf show -R -C holes,uodd "$W/layout.btf"
check "... naming it, and nothing printed" test -z "$out" -a "$(grep -c "'uodd' is not a struct" <<< "$err")" = 1
expect_exit "btf show -R without -C is refused" 2 "$FRUGAL" btf show -R "$W/layout.btf"
expect_exit "btf show -S without -R is refused" 2 "$FRUGAL" btf show -S -C holes "$W/layout.btf"
expect_exit "btf show -R --sizes is refused" 2 "$FRUGAL" btf show -R --sizes -C holes "$W/layout.btf"
ln -s "$FRUGAL" "$W/pahole"
# As pahole, each is what pahole makes of it: -R alone prints every struct as it is.
"${PAHOLE[1.32]}" -F btf -R "$W/layout.btf" > "$W/p.as" 2>&1
FRUGAL_PAHOLE_COMPAT=1.32 "$W/pahole" -F btf -R "$W/layout.btf" > "$W/f.as" 2>&1
check "invoked as pahole: -R without -C prints what pahole does (every struct, as it is)" \
	cmp -s "$W/p.as" "$W/f.as"
"${PAHOLE[1.32]}" -F btf -R -s -C holes,bits "$W/layout.btf" > "$W/p.as" 2>&1
FRUGAL_PAHOLE_COMPAT=1.32 "$W/pahole" -F btf -R -s -C holes,bits "$W/layout.btf" > "$W/f.as" 2>&1
check "invoked as pahole: -R -s -C prints what pahole does (-R wins)" cmp -s "$W/p.as" "$W/f.as"
"${PAHOLE[1.32]}" -F btf -R -C uodd,holes "$W/layout.btf" > "$W/p.as" 2>&1
FRUGAL_PAHOLE_COMPAT=1.32 "$W/pahole" -F btf -R -C uodd,holes "$W/layout.btf" > "$W/f.as" 2>&1
check "invoked as pahole: -R -C uodd,holes prints what pahole does (the union: nothing)" \
	cmp -s "$W/p.as" "$W/f.as"
check "... which is the struct reorganized" grep -q '^struct holes {' "$W/f.as"

# whole LABEL VER FILE: every struct of FILE (pahole's --structs --sizes, sorted)
# reorganized, in -C lists of 1,000 names (an argument holds at most
# 128 KB), the same bytes as pahole's.  What frugal refuses is taken out
# of a list first, one name at a time as frugal names it, and checked on
# its own: pahole prints nothing for it, or does not end in 10 s.
whole() {
	local label="btf show -R: every struct of $1 ($2)" ver=$2 file=$3
	local chunk name try n=0 lines=0 bad="" loops=() none=()
	"${PAHOLE[$ver]}" -F btf --structs --sizes "$file" | cut -f1 | sort -u > "$W/whole"
	rm -f "$W"/chunk.*
	split -l 1000 -d "$W/whole" "$W/chunk."
	for chunk in "$W"/chunk.*; do
		for try in $(seq 50); do
			"$FRUGAL" btf show --pahole_compat "$ver" -R -C "$(paste -sd, "$chunk")" "$file" \
				> "$W/f.out" 2> "$W/f.err" && break
			name=$(sed -n "s/.*: '\([^']*\)'\( is not a struct\|: its reorganization does not end\).*/\1/p" "$W/f.err")
			if [ -z "$name" ]; then
				bad="frugal failed: $(head -c 200 "$W/f.err")"
				break 2
			fi
			if grep -q "is not a struct" "$W/f.err"; then none+=("$name"); else loops+=("$name"); fi
			grep -Fvx "$name" "$chunk" > "$chunk.t"
			mv "$chunk.t" "$chunk"
		done
		timeout 120 "${PAHOLE[$ver]}" -F btf -R -C "$(paste -sd, "$chunk")" "$file" > "$W/p.out" 2> "$W/p.err"
		if [ ! -s "$W/p.out" ] || ! cmp -s "$W/p.out" "$W/f.out"; then
			bad="$(diff "$W/p.out" "$W/f.out" | grep -c '^[<>]') of $(wc -l < "$W/p.out") lines differ: $(diff "$W/p.out" "$W/f.out" | head -4 | tr '\n\t' '| ')"
			break
		fi
		n=$((n + $(wc -l < "$chunk")))
		lines=$((lines + $(wc -l < "$W/p.out")))
	done
	for name in "${none[@]}"; do
		# (stderr aside: pahole 1.30 warns of 7.x's decl tags on other kinds)
		"${PAHOLE[$ver]}" -F btf -R -C "$name" "$file" > "$W/p.out" 2> /dev/null
		[ -s "$W/p.out" ] && bad="$bad; frugal refused '$name', pahole printed it"
	done
	for name in "${loops[@]}"; do
		timeout 10 "${PAHOLE[$ver]}" -F btf -R -C "$name" "$file" > /dev/null 2>&1
		[ $? != 124 ] && bad="$bad; frugal found no end to '$name', pahole's ended"
	done
	if [ -z "$bad" ] && [ $n -gt 0 ]; then
		pass "$label: $n byte for byte, pahole's $lines lines; refused: ${#loops[@]} that pahole never ends${loops:+ (${loops[*]})}, ${#none[@]} it prints nothing for${none:+ (${none[*]})}"
	else
		fail "$label" "$n the same, then: ${bad:-nothing compared}"
	fi
}

SYSBTF=/sys/kernel/btf/vmlinux
if [ ! -r "$SYSBTF" ]; then
	skip "btf show -R: the running kernel's BTF" "no $SYSBTF"
	finish
fi
# The sample, from pahole 1.32's lists: names sorted, each taken once.
P=${PAHOLE[1.32]}
pick() {	# pick COUNT: every Nth of stdin's sorted names, COUNT of them
	sort -u > "$W/list"
	awk -v n="$(wc -l < "$W/list")" -v k="$1" 'BEGIN { s = int(n / k); if (s < 1) s = 1 }
		NR % s == 1 || s == 1' "$W/list" | head -n "$1"
}
# Two that stress pahole's 16-bit offsets, where this kernel has them:
# saved_cmdlines_buffer ends after 16,388 moves, pglist_data never does.
"$P" -F btf --structs --sizes "$SYSBTF" | cut -f1 > "$W/structs"
{
	grep -xE 'pglist_data|saved_cmdlines_buffer' "$W/structs"
	pick $((SAMPLE / 2)) < "$W/structs"
	"$P" -F btf --structs -H 1 --sizes "$SYSBTF" | cut -f1 | pick $((SAMPLE * 3 / 10))
	"$P" -F btf --structs -B 1 --sizes "$SYSBTF" | cut -f1 | pick $((SAMPLE / 5))
} | sort -u > "$W/sample"
total=$(wc -l < "$W/sample")
for ver in 1.30 1.32; do
	same=0 moved=0 loops=() none=() bad=()
	: > "$W/ok.$ver"
	while read -r name; do
		compare "$ver" "$SYSBTF" -R -C "$name"
		case $? in
		0) same=$((same + 1)); echo "$name" >> "$W/ok.$ver"
		   grep -q 'saved [0-9]* byte' "$W/p.out" && moved=$((moved + 1)) ;;
		2) none+=("$name")
		   if [ $frc != 1 ] || [ -s "$W/f.out" ] || ! grep -q "'$name' is not a struct" "$W/f.err"; then
			bad+=("$name(pahole printed nothing, frugal exit $frc)")
		   fi ;;
		3) loops+=("$name")
		   # what frugal said: one line naming it, nothing printed, exit 1
		   if [ $frc != 1 ] || [ -s "$W/f.out" ] || ! grep -q "'$name': its reorganization does not end" "$W/f.err"; then
			bad+=("$name(loop: frugal exit $frc)")
		   fi ;;
		*) bad+=("$name($(diff "$W/p.out" "$W/f.out" | grep -c '^[<>]') lines)") ;;
		esac
	done < "$W/sample"
	if [ ${#bad[@]} = 0 ] && [ $same -gt 0 ]; then
		pass "btf show -R: $same of $total kernel structs byte for byte ($ver; $moved reorganized; refused: ${#loops[@]} that pahole never ends${loops:+ (${loops[*]})}, ${#none[@]} it prints nothing for${none:+ (${none[*]})})"
	else
		fail "btf show -R: kernel structs ($ver)" "$same of $total the same; differ: ${bad[*]:0:10}"
	fi
	# all of them in one -C list: each struct's printing leaves marks the next's shows
	same "-R -C the $(wc -l < "$W/ok.$ver") in one list" "$ver" "$SYSBTF" -R -C "$(paste -sd, "$W/ok.$ver")"
done
same "-R -S -C task_struct,sock_common,sk_buff,inode" 1.32 "$SYSBTF" -R -S -C task_struct,sock_common,sk_buff,inode
for ver in 1.30 1.32; do
	same "-R -V -C task_struct,sock_common,sk_buff,inode" "$ver" "$SYSBTF" -R -V -C task_struct,sock_common,sk_buff,inode
	whole "the running kernel" "$ver" "$SYSBTF"
done

debian_kernels "btf show -R" || finish
for ver in 1.30 1.32; do
	whole "6.12 vmlinux" "$ver" "$V612"
	whole "7.x vmlinux" "$ver" "$V7"
done
finish
