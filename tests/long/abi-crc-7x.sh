#!/usr/bin/env bash
# frugal btf abi where there are no CRCs (make check-abi-crc; not in check).
# Debian's 7.x kernels are built without CONFIG_MODVERSIONS (they build
# Rust): their Module.symvers has every CRC 0, so a check from BTF or DWARF
# is the only kABI check there is.  Two of them, sid's and
# trixie-backports' cloud kernels (7.2.13 and 7.3.4 when written; about
# 710 MB of -dbg packages fetched once, scripts/fetch-sid.sh --symvers and
# scripts/fetch-trixie.sh --backports --symvers), the older first, each
# -dbg vmlinux (DWARF and BTF, no __ksymtab) with its headers package's
# Module.symvers: the report says there were no CRCs to compare with, runs
# as usual (a non-empty "by cause:", exit 12: changed, incompatible), the
# added and removed sets are Module.symvers', the CRC scoring says "no
# CRCs" rather than a precision of 0, and the run stays under 30 s and
# 500 MB.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/btf/fetch.inc"
GTIME=/usr/bin/time

if ! command -v python3 >/dev/null || [ ! -x "$GTIME" ]; then
	skip "abi-crc-7x" "needs python3 and GNU time (/usr/bin/time)"
	finish
fi
fetch "abi-crc-7x: sid's kernel" fetch-sid.sh --symvers || finish
S=$fetched/kernel-dbg
fetch "abi-crc-7x: trixie-backports' kernel" fetch-trixie.sh --backports --symvers || finish
T=$fetched/kernel-dbg
read -r _ VS < "$S/PACKAGE"
read -r _ VT < "$T/PACKAGE"
if dpkg --compare-versions "$VS" eq "$VT"; then
	skip "abi-crc-7x" "sid and trixie-backports have one kernel, $VS: no pair"
	finish
fi
A=$S B=$T
dpkg --compare-versions "$VS" lt "$VT" || { A=$T B=$S; }
VA=$(cut -d' ' -f2 "$A/PACKAGE") VB=$(cut -d' ' -f2 "$B/PACKAGE")
echo "# $VA -> $VB"

no_crcs="no symbol CRCs to compare with: every CRC in both Module.symvers is 0 (CONFIG_MODVERSIONS off)"
expect_exit "abi-crc-7x: $VA -> $VB: exit 12 (changed, incompatible)" 12 \
	"$GTIME" -f '%e %M' -o "$_tmp/time" "$FRUGAL" btf abi \
	--symvers-a "$A/Module.symvers" --symvers-b "$B/Module.symvers" "$A/vmlinux" "$B/vmlinux"
read -r secs kb < <(tail -1 "$_tmp/time")
echo "# $(head -1 <<<"$out")"
echo "# $VA -> $VB: $secs s, $kb KB peak RSS"
check "abi-crc-7x: every CRC 0 in both Module.symvers" \
	test -z "$(cut -f1 "$A/Module.symvers" "$B/Module.symvers" | grep -v '^0x00000000$')"
check "abi-crc-7x: ... said under the summary" test "$(sed -n 2p <<<"$out")" = "$no_crcs"
by_cause=$(grep '^by cause: ' <<<"$out")
echo "# $by_cause"
check "abi-crc-7x: a report by cause" grep -q '^by cause: [1-9][0-9]* types\? changed' <<<"$by_cause"
check "abi-crc-7x: ... its causes listed" grep -q '^\* .* (incompatible.*), reached by ' <<<"$out"
check "abi-crc-7x: under 30 s" awk -v s="$secs" 'BEGIN { exit !(s < 30) }'
check "abi-crc-7x: under 500 MB" test "$kb" -lt 512000

expect_exit "abi-crc-7x: --json: exit 12" 12 "$FRUGAL" btf abi --json \
	--symvers-a "$A/Module.symvers" --symvers-b "$B/Module.symvers" "$A/vmlinux" "$B/vmlinux"
echo "$out" > "$_tmp/report.json"
check "abi-crc-7x: --json: no_crcs names both sides" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
assert t["no_crcs"] == ["old", "new"] and t["causes"] > 0, t' "$_tmp/report.json"

# The CRC scoring of tests/long/abi-crc.py: the sets by Module.symvers, and
# no CRCs said, no precision or recall made of nothing.
python3 "$TOP/tests/long/abi-crc.py" vmlinux "$A/Module.symvers" "$B/Module.symvers" \
	"$_tmp/report.json" "$_tmp/missed" > "$_tmp/stats"
sed 's/^/# /' "$_tmp/stats"
stat() { awk -v k="$1" '$1 == k { print $2 }' "$_tmp/stats"; }
check "abi-crc-7x: removed = Module.symvers' removed" test "$(stat removed_equal)" = 1
check "abi-crc-7x: added = Module.symvers' added" test "$(stat added_equal)" = 1
check "abi-crc-7x: the scoring says no CRCs on either side" grep -qx 'no_crcs old new' "$_tmp/stats"
check "abi-crc-7x: ... and scores nothing" test -z "$(grep -E '^(precision|recall|crc_changed) ' "$_tmp/stats")"
finish
