#!/usr/bin/env bash
# frugal btf abi against genksyms (make check-abi-crc; not in check: it
# downloads about 57 MB once, and 566 MB of -dbg packages for the DWARF
# model, then takes about a minute).  Two consecutive Debian bookworm 6.1 kernel
# ABIs (scripts/fetch-abi-pair.sh; FRUGAL_ABI_PAIR="OLD NEW", default
# "54 55", a real kABI break): each one's vmlinux BTF and its exporting
# modules' split BTF on it (the two trees in one run), the vmlinux's symbols
# from its Module.symvers, the modules' from their __ksymtab.  The added and removed sets must be Module.symvers'; the
# symbols reported changed must agree with the CRCs that changed, at 90%
# precision and recall at least, and every CRC change of a symbol whose BTF
# both kernels have must be reported (the misses are symbols BTF does not
# describe: 6.1's BTF has VARs only for per-CPU variables).  Also: the
# kernel against itself exits 0; the pair under 500 MB (its time is said,
# not asserted: times are bench-abi's); the DWARF model on the two ABIs'
# -dbg vmlinux (fetch-abi-pair.sh --dbg: 2 x 283 MB downloaded once) at
# 99% precision and recall (99.8% at least measured on every pair of
# Debian 12's ABIs 47 to 57), under 20 s and 500 MB; and,
# when scripts/fetch-kernel-dbg.sh's vmlinux is cached, that vmlinux with
# its .BTF hidden (its DWARF encoded on the fly) against its own BTF.
. "$(dirname "$0")/../lib.sh"
# shellcheck disable=SC2086
set -- ${FRUGAL_ABI_PAIR:-54 55}
GTIME=/usr/bin/time

if ! command -v python3 >/dev/null || [ ! -x "$GTIME" ]; then
	skip "abi-crc" "needs python3 and GNU time (/usr/bin/time)"
	finish
fi
list=$(bash "$TOP/scripts/fetch-abi-pair.sh" "$1" "$2" 2>"$_tmp/fetch.err"); rc=$?
case $rc in
0) ;;
3) skip "abi-crc" "$(tail -1 "$_tmp/fetch.err")"; finish ;;
*) fail "abi-crc: fetched" "$(tail -3 "$_tmp/fetch.err")"; finish ;;
esac
read -r _ A VA _ B VB <<<"$(tr '\n' ' ' <<<"$list")"
echo "# ABI $1 ($VA) -> $2 ($VB)"

expect_exit "abi-crc: $1 against itself: exit 0" 0 "$FRUGAL" btf abi \
	--symvers "$A/Module.symvers" "$A/vmlinux" "$A/vmlinux"
expect_exit "abi-crc: $1 -> $2: exit 12 (changed, incompatible)" 12 "$GTIME" -f '%e %M' -o "$_tmp/time" \
	"$FRUGAL" btf abi --json --symvers-a "$A/Module.symvers" --symvers-b "$B/Module.symvers" \
	"$A/vmlinux" "$B/vmlinux"
echo "$out" > "$_tmp/report.json"
read -r secs kb < <(tail -1 "$_tmp/time")
echo "# $1 -> $2: $secs s, $kb KB peak RSS"
check "abi-crc: under 500 MB" test "$kb" -lt 512000

# The symbols changed by CRC that frugal does not report, as a --symbols
# list: compared again, none may have BTF on either side.
python3 "$TOP/tests/long/abi-crc.py" vmlinux "$A/Module.symvers" "$B/Module.symvers" \
	"$_tmp/report.json" "$_tmp/missed" > "$_tmp/stats"
# scores STATS PREFIX SUFFIX: abi-crc.py's lines in STATS said (after
# "# PREFIX"), then checked, named "abi-crc: PREFIXremoved ...", "...
# precisionSUFFIX >= 90%": the added and removed sets are Module.symvers',
# precision and recall against the CRCs are 90% at least (a skip, saying
# so, when a side has no CRCs: FRUGAL_ABI_PAIR of a kernel without
# CONFIG_MODVERSIONS).
scores() {
	local f=$1 p=$2 s=$3 min=${4:-0.9} pct
	pct=$(awk -v m="$min" 'BEGIN { print m * 100 }')
	sed "s/^/# $p/" "$f"
	stat() { awk -v k="$1" '$1 == k { print $2 }' "$f"; }
	check "abi-crc: ${p}removed = Module.symvers' removed" test "$(stat removed_equal)" = 1
	check "abi-crc: ${p}added = Module.symvers' added" test "$(stat added_equal)" = 1
	if grep -q '^no_crcs ' "$f"; then
		skip "abi-crc: ${p}precision and recall$s" \
			"no CRCs in the Module.symvers of $(sed -n 's/^no_crcs //p' "$f" | sed 's/ / and /') (CONFIG_MODVERSIONS off)"
		return
	fi
	check "abi-crc: ${p}precision$s >= $pct%" awk -v p="$(stat precision)" -v m="$min" 'BEGIN { exit !(p >= m) }'
	check "abi-crc: ${p}recall$s >= $pct%" awk -v p="$(stat recall)" -v m="$min" 'BEGIN { exit !(p >= m) }'
}
scores "$_tmp/stats" "" " against the CRCs"
if [ -s "$_tmp/missed" ]; then
	expect_exit "abi-crc: the CRC changes not reported, compared by name" 0 "$FRUGAL" btf abi \
		--symbols "$_tmp/missed" "$A/vmlinux" "$B/vmlinux"
	check "abi-crc: ... none has BTF on either side" \
		test "$out" = "0 symbols: 0 added, 0 removed, 0 changed, 0 incompatible; 0 types changed"
fi

# The DWARF model: the -dbg vmlinux of each ABI, each export's types as
# the unit defining it defines them (genksyms' view), its variables typed
# from DWARF.  Said in --json; scored as above, at 99%.
dlist=$(bash "$TOP/scripts/fetch-abi-pair.sh" --dbg "$1" "$2" 2>"$_tmp/fetch.err"); rc=$?
case $rc in
0)
	read -r _ _ _ DA _ _ _ DB <<<"$(tr '\n' ' ' <<<"$dlist")"
	expect_exit "abi-crc: DWARF model: $1 -> $2 -dbg: exit 12" 12 "$GTIME" -f '%e %M' -o "$_tmp/time" \
		"$FRUGAL" btf abi --json --symvers-a "$A/Module.symvers" --symvers-b "$B/Module.symvers" \
		"$DA" "$DB"
	echo "$out" > "$_tmp/dwarf.json"
	read -r secs kb < <(tail -1 "$_tmp/time")
	echo "# DWARF model $1 -> $2: $secs s, $kb KB peak RSS"
	check "abi-crc: DWARF model: said in --json" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["model"] == "units" and d["totals"]["units_found"] > 0.9 * d["totals"]["symbols"], d["totals"]' \
		"$_tmp/dwarf.json"
	check "abi-crc: DWARF model: under 20 s" awk -v s="$secs" 'BEGIN { exit !(s < 20) }'
	check "abi-crc: DWARF model: under 500 MB" test "$kb" -lt 512000
	python3 "$TOP/tests/long/abi-crc.py" vmlinux "$A/Module.symvers" "$B/Module.symvers" \
		"$_tmp/dwarf.json" "$_tmp/dmissed" > "$_tmp/dstats"
	scores "$_tmp/dstats" "DWARF model: " " against the CRCs" 0.99
	;;
3) skip "abi-crc: DWARF model" "$(tail -1 "$_tmp/fetch.err")" ;;
*) fail "abi-crc: DWARF model: fetched" "$(tail -3 "$_tmp/fetch.err")" ;;
esac

# The two trees in one run (each a vmlinux, its Module.symvers and the
# modules that export): the vmlinux's symbols must be those of the run on
# the vmlinux pair above, the modules' (named "MODULE: SYMBOL") are
# checked against the CRCs.  A module in one tree only counts as its
# exports added or removed, as Module.symvers has them.
expect_exit "abi-crc: the trees $1 -> $2 in one run: exit 12" 12 "$GTIME" -f '%e %M' -o "$_tmp/time" \
	"$FRUGAL" btf abi --json "$A" "$B"
echo "$out" > "$_tmp/tree.json"
read -r secs kb < <(tail -1 "$_tmp/time")
echo "# trees $1 -> $2: $secs s, $kb KB peak RSS"
check "abi-crc: trees: the vmlinux part is the vmlinux run's" python3 -c '
import json, sys
t, v = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a = {(s["name"][len("vmlinux: "):], s["status"]) for s in t["symbols"] if s["name"].startswith("vmlinux: ")}
b = {(s["name"], s["status"]) for s in v["symbols"]}
sys.exit(a != b)' "$_tmp/tree.json" "$_tmp/report.json"
python3 "$TOP/tests/long/abi-crc.py" modules "$A/Module.symvers" "$B/Module.symvers" \
	"$_tmp/tree.json" > "$_tmp/mstats"
scores "$_tmp/mstats" "modules: " ""

# A module on the other ABI's vmlinux: its release tells; on that vmlinux's
# raw BTF (no release), its BTF does.
m=$(cd "$B/modules" && find . -name '*.ko' | sed 's|^\./||' | sort | head -1)
expect_exit "abi-crc: a $2 module on $1's vmlinux: exit 1" 1 "$FRUGAL" btf abi \
	--base "$A/vmlinux" "$B/modules/$m" "$B/modules/$m"
check "abi-crc: ... the releases named" grep -q "module built for kernel 6.1.0-$2-.*, base .* is kernel 6.1.0-$1-" <<<"$err"
if command -v objcopy >/dev/null; then
	objcopy -O binary --only-section=.BTF "$A/vmlinux" "$_tmp/a.btf"
	expect_exit "abi-crc: ... on $1's raw BTF: exit 1" 1 "$FRUGAL" btf abi \
		--base "$_tmp/a.btf" "$B/modules/$m" "$B/modules/$m"
	check "abi-crc: ... its BTF does not fit" grep -q "split BTF built on another base than" <<<"$err"
fi

# DWARF encoded on the fly: the -dbg vmlinux, its .BTF renamed away
# (scripts/fetch-kernel-dbg.sh, 282 MB, fetched here unless cached).
. "$TOP/tests/btf/fetch.inc"
if ! command -v objcopy >/dev/null; then
	fail "abi-crc: a -dbg vmlinux's DWARF" "no objcopy (binutils: scripts/install-deps.sh)"
elif fetch "abi-crc: a -dbg vmlinux's DWARF" fetch-kernel-dbg.sh; then
	KDBG=$fetched
	objcopy --rename-section .BTF=.BTF.hidden "$(readlink -f "$KDBG/vmlinux")" "$_tmp/vmlinux-dwarf"
	expect_exit "abi-crc: $(cut -d' ' -f1 "$KDBG/PACKAGE")'s DWARF, encoded, against its BTF: exit 0" 0 \
		"$GTIME" -f '%e %M' -o "$_tmp/time" "$FRUGAL" btf abi -v "$KDBG/vmlinux" "$_tmp/vmlinux-dwarf"
	read -r secs kb < <(tail -1 "$_tmp/time")
	echo "# $(head -1 <<<"$out"); $secs s, $kb KB peak RSS"
	check "abi-crc: ... said under -v" grep -q "vmlinux-dwarf: no .BTF, its DWARF encoded here" <<<"$err"
	rm -f "$_tmp/vmlinux-dwarf"
fi
finish
