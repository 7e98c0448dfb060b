#!/usr/bin/env bash
# bench-abi: frugal btf abi beside abidiff (libabigail 2.6, Debian trixie's,
# scripts/fetch-abigail.sh) on kernel modules of two Debian kernels: 6.1.192-3's
# (scripts/fetch-kernel-dbg.sh) against 6.12's (scripts/fetch-trixie.sh),
# the -dbg packages' .ko, which keep their code, __ksymtab and DWARF (for
# abidiff) and .BTF (split, for frugal, on each side's vmlinux).
# BENCH_ABI_MODULES=N modules found in both (default 6), spread by size;
# each tool once per module under `timeout BENCH_ABI_TIMEOUT` (default
# 600 s).  Prints each run's exit status, CPU (user+sys), wall and peak
# RSS, then abidiff/frugal ratios where both finished.  A run that timed
# out or crashed is marked so, not dropped.  frugal's time includes loading
# both vmlinux BTFs (its bases); abidiff reads the module's DWARF alone.
set -eu
O=${O:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case "$O" in /*) ;; *) O="$TOP/$O" ;; esac
FRUGAL=${FRUGAL:-$O/frugal}
NMODS=${BENCH_ABI_MODULES:-6}
LIMIT=${BENCH_ABI_TIMEOUT:-600}
GTIME=/usr/bin/time	# GNU time (package "time"): peak RSS via %M

[ -x "$FRUGAL" ] || { echo "bench-abi: $FRUGAL missing (make $FRUGAL)" >&2; exit 1; }
[ -x "$GTIME" ] || { echo "bench-abi: $GTIME missing (scripts/install-deps.sh installs 'time')" >&2; exit 1; }
# abidiff 2.2 (bookworm) stops on these modules (an assertion in its symtab
# reader); trixie's 2.6 reads them: fetched (scripts/fetch-abigail.sh) and
# run through trixie's loader.  BENCH_ABIDIFF overrides it.
if [ -n "${BENCH_ABIDIFF:-}" ]; then
	ABIDIFF=$BENCH_ABIDIFF
elif ab=$(bash "$TOP/scripts/fetch-abigail.sh"); then
	ABIDIFF=$ab/bin/abidiff
else
	ABIDIFF=$(command -v abidiff) ||
		{ echo "bench-abi: no abidiff (scripts/fetch-abigail.sh failed, no abigail-tools)"; exit 0; }
fi
KOLD=$(bash "$TOP/scripts/fetch-kernel-dbg.sh")
KNEW=$(bash "$TOP/scripts/fetch-trixie.sh")/kernel-dbg
VOLD=$(readlink -f "$KOLD/vmlinux")
VNEW=$(readlink -f "$KNEW/vmlinux")
MOLD=$(readlink -f "$KOLD/modules")
MNEW=$(readlink -f "$KNEW/modules")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The file of MODULE in DIR: plain or compressed.
modfile() { local f; for f in "$1/$2" "$1/$2.xz" "$1/$2.zst"; do [ -f "$f" ] && break; done; echo "$f"; }

# The modules in both kernels (compressed or not), by size; NMODS spread over them.
list() { (cd "$1" && find . -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst') | sed 's/\.\(xz\|zst\)$//' | sort; }
# 6.12's modules are unpacked on demand: the candidates are those in 6.1's
# tree and in 6.12's package list, by their size there; NMODS spread over
# them are unpacked (scripts/fetch-trixie.sh --modules).
awk '{ print $1, "./" $2 }' "$KNEW/modules.list" | sort -k2 > "$tmp/newlist"
# Only modules that export: abidiff, in its kernel mode, compares the
# exported symbols alone, and reports nothing on a module without any.
exporting() { while read -r m; do readelf -SW "$1/$m" 2>/dev/null | grep -q ' __ksymtab' && echo "$m"; done; }
list "$MOLD" | exporting "$MOLD" | join -1 1 -2 2 -o 2.1,2.2 - "$tmp/newlist" | sort -n > "$tmp/sized"
total=$(wc -l < "$tmp/sized")
[ "$total" -gt 0 ] || { echo "bench-abi: no module in both $MOLD and $KNEW/modules.list" >&2; exit 1; }
awk -v n="$NMODS" -v t="$total" 'n >= t || NR % int(t / n) == 0 { print $2 }' "$tmp/sized" |
	tail -n "$NMODS" > "$tmp/mods"
sed 's|^\./||' "$tmp/mods" | bash "$TOP/scripts/fetch-trixie.sh" --modules > /dev/null

# A plain .ko in $tmp for a compressed one; the path itself otherwise.
plain() {	# plain DIR MODULE SIDE
	local f
	f=$(modfile "$1" "$2")
	case "$f" in
	*.xz) xz -dc "$f" > "$tmp/$3.ko"; echo "$tmp/$3.ko" ;;
	*.zst) zstd -qdc "$f" > "$tmp/$3.ko"; echo "$tmp/$3.ko" ;;
	*) echo "$f" ;;
	esac
}

# run TOOL MODULE CMD...: one run under timeout and GNU time; prints its row.
run() {
	local tool=$1 mod=$2 rc note=""; shift 2
	rc=0
	"$GTIME" -f '%U %S %e %M' -o "$tmp/time" timeout "$LIMIT" "$@" >/dev/null 2>"$tmp/err" || rc=$?
	case $rc in
	124) note="timeout after ${LIMIT} s" ;;
	0 | 4 | 8 | 12) ;;
	*) note="failed: $(grep -v '^Command ' "$tmp/err" | head -1 | cut -c1-70)" ;;
	esac
	read -r u s e m < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.:]+ [0-9]+$' "$tmp/time" | tail -1)
	awk -v t="$tool" -v mod="$mod" -v rc="$rc" -v u="$u" -v s="$s" -v e="$e" -v m="$m" \
		-v note="$note" 'BEGIN {
		printf "%-26s %-8s %4s %8.2f %8.2f %8.1f  %s\n", mod, t, rc, u + s, e, m / 1024, note
		printf "%s %s %s %.2f %.2f %d %d\n", mod, t, rc, u + s, e, m, note != "" > "/dev/stderr"
	}' 2>> "$tmp/runs"
}

echo "bench-abi: $(cat "$KOLD/PACKAGE") -> $(cat "$KNEW/PACKAGE"): $NMODS of the $total modules in both"
echo "abidiff $("$ABIDIFF" --version | sed 's/.*: //'); $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-26s %-8s %4s %8s %8s %8s\n' module tool exit cpu_s wall_s rss_MiB
while read -r m; do
	name=$(basename "$m" .ko)
	old=$(plain "$MOLD" "$m" old)
	new=$(plain "$MNEW" "$m" new)
	cat "$VOLD" "$VNEW" "$old" "$new" > /dev/null	# both start from the page cache
	run frugal "$name" "$FRUGAL" btf abi --base-a "$VOLD" --base-b "$VNEW" "$old" "$new"
	run abidiff "$name" "$ABIDIFF" "$old" "$new"
done < "$tmp/mods"

# Ratios abidiff/frugal where both finished; a failed or timed-out abidiff is a
# lower bound (its limit) or nothing.
echo
printf '%-26s %10s %10s %10s\n' module cpu_ratio wall_ratio rss_ratio
awk '
	$2 == "frugal" { fc[$1] = $4; fw[$1] = $5; fm[$1] = $6; fbad[$1] = $7 }
	$2 == "abidiff" { ac[$1] = $4; aw[$1] = $5; am[$1] = $6; abad[$1] = $7; rc[$1] = $3; order[n++] = $1 }
	function r(a, b) { return b > 0 ? sprintf("%9.1fx", a / b) : "        -" }
	END {
		for (i = 0; i < n; i++) {
			m = order[i]
			if (fbad[m]) { printf "%-26s %s\n", m, "frugal did not finish"; continue }
			if (rc[m] == 124) { printf "%-26s %10s %10s %10s  abidiff timed out: at least\n", m, "", r(aw[m], fw[m]), ""; continue }
			if (abad[m]) { printf "%-26s %s\n", m, "abidiff failed: no ratio"; continue }
			printf "%-26s %10s %10s %10s\n", m, r(ac[m], fc[m]), r(aw[m], fw[m]), r(am[m], fm[m])
		}
	}' "$tmp/runs"
