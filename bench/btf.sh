#!/usr/bin/env bash
# bench-btf: frugal btf encode beside pahole -J on Debian's cloud vmlinux
# (scripts/fetch-kernel-dbg.sh), same features, at -j1 and -j2, runs
# interleaved (pahole -j1, frugal -j1, pahole -j2, frugal -j2; BENCH_ROUNDS
# times, default 1).  Prints CPU (user+sys), wall and peak RSS of each run,
# then frugal/pahole ratios of the medians against the targets, and whether
# each tool's output is byte-identical across runs and -j values.
set -eu
O=${O:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case "$O" in /*) ;; *) O="$TOP/$O" ;; esac
FRUGAL=${FRUGAL:-$O/frugal}
PAHOLE=${PAHOLE:-/usr/bin/pahole}
ROUNDS=${BENCH_ROUNDS:-1}
FEATS="--btf_gen_floats --lang_exclude=rust"
GTIME=/usr/bin/time	# GNU time (package "time"): peak RSS via %M

[ -x "$FRUGAL" ] || { echo "bench-btf: $FRUGAL missing (make $FRUGAL)" >&2; exit 1; }
[ -x "$GTIME" ] || { echo "bench-btf: $GTIME missing (scripts/install-deps.sh installs 'time')" >&2; exit 1; }
[ -x "$PAHOLE" ] || { echo "bench-btf: no pahole at $PAHOLE (package dwarves)" >&2; exit 1; }
KDIR=$(bash "$TOP/scripts/fetch-kernel-dbg.sh")
VMLINUX=$(readlink -f "$KDIR/vmlinux")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run TOOL J ROUND: one encode under GNU time; appends "tool j cpu wall rss_kib".
run() {
	local tool=$1 j=$2 r=$3 out=$tmp/$1-j$2-$3.btf
	local cmd=("$PAHOLE" -J)
	[ "$tool" = frugal ] && cmd=("$FRUGAL" btf encode)
	"$GTIME" -f '%U %S %e %M' -o "$tmp/time" \
		"${cmd[@]}" -j"$j" $FEATS --btf_encode_detached="$out" "$VMLINUX" >/dev/null 2>"$tmp/err" ||
		{ echo "bench-btf: $tool -j$j failed: $(head -1 "$tmp/err")" >&2; exit 1; }
	read -r u s e m < <(tail -1 "$tmp/time")
	awk -v t="$tool" -v j="$j" -v u="$u" -v s="$s" -v e="$e" -v m="$m" \
		'BEGIN { printf "%s %s %.2f %.2f %d\n", t, j, u + s, e, m }' >> "$tmp/runs"
	printf '%-5s %-7s -j%-2s %8.2f %8.2f %9.0f\n' "$r" "$tool" "$j" \
		"$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" "$e" "$(awk -v m="$m" 'BEGIN { print m / 1024 }')"
}

echo "bench-btf: $(cat "$KDIR/PACKAGE"), $(basename "$VMLINUX"), $(( $(stat -c %s "$VMLINUX") >> 20 )) MiB"
echo "features: $FEATS; pahole $("$PAHOLE" --version); $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$VMLINUX" > /dev/null	# both tools start with the file in the page cache
printf '%-5s %-7s %-4s %8s %8s %9s\n' round tool jobs cpu_s wall_s rss_MiB
for r in $(seq 1 "$ROUNDS"); do
	for j in 1 2; do
		run pahole "$j" "$r"
		run frugal "$j" "$r"
	done
done

# median FIELD TOOL J: the median over rounds (field 3 cpu, 4 wall, 5 rss).
median() {
	awk -v f="$1" -v t="$2" -v j="$3" '$1 == t && $2 == j { print $f }' "$tmp/runs" |
		sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# line LABEL FIELD J UNIT_DIV UNIT TARGET: pahole, frugal, ratio, target verdict.
line() {
	local p f
	p=$(median "$2" pahole "$3")
	f=$(median "$2" frugal "$3")
	awk -v l="$1" -v p="$p" -v f="$f" -v d="$4" -v u="$5" -v t="$6" 'BEGIN {
		r = p > 0 ? f / p : 0
		v = t == "" ? "" : (r <= t ? "met" : "MISSED")
		printf "%-14s %10.2f %-3s %10.2f %-3s %7.2fx  %s\n", l, p / d, u, f / d, u, r,
			t == "" ? "" : sprintf("target <= %.2fx %s", t, v)
	}'
}
echo
printf '%-14s %14s %14s %8s\n' "" pahole frugal ratio
line "-j1 CPU" 3 1 1 s 0.6
line "-j1 wall" 4 1 1 s ""
line "-j1 peak RSS" 5 1 1024 MiB 0.25
line "-j2 CPU" 3 2 1 s 0.6
line "-j2 wall" 4 2 1 s 0.6
line "-j2 peak RSS" 5 2 1024 MiB 0.25

# Determinism: every output of a tool against its first.
same() {
	local first= f
	for f in "$tmp"/"$1"-*.btf; do
		[ -n "$first" ] || { first=$f; continue; }
		cmp -s "$first" "$f" || { echo no; return; }
	done
	echo yes
}
n=$(( ROUNDS * 2 ))
echo
echo "frugal output byte-identical across its $n runs (-j1 and -j2): $(same frugal)"
echo "pahole output byte-identical across its $n runs (-j1 and -j2): $(same pahole)"
