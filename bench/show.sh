#!/usr/bin/env bash
# bench-btf's layout view: `frugal btf show` beside pahole 1.30 (trixie's)
# and 1.32 (sid's) on the running kernel's BTF (/sys/kernel/btf/vmlinux),
# and on sid's 7.x vmlinux when it is cached (scripts/fetch-sid.sh
# --kernel): one struct (-C task_struct) and every struct and union.
# Rounds interleaved (BENCH_SHOW_ROUNDS, default 5), each run of a round
# the same command 10 times (GNU time counts CPU in 10 ms steps, and one
# struct takes less); the medians of CPU (user+sys) per command and of peak
# RSS per tool, and frugal's ratio to each pahole.
# Every pahole run is under `timeout` (BENCH_TIMEOUT seconds, default 120):
# a run it ends is marked HUNG and left out.  Each run's output is checked
# against pahole's of the same release: a figure for other bytes is no figure.
set -eu
O=${O:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case "$O" in /*) ;; *) O="$TOP/$O" ;; esac
FRUGAL=${FRUGAL:-$O/frugal}
ROUNDS=${BENCH_SHOW_ROUNDS:-5}
TIMEOUT=${BENCH_TIMEOUT:-120}
GTIME=/usr/bin/time
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}

[ -x "$FRUGAL" ] || { echo "bench-show: $FRUGAL missing" >&2; exit 1; }
[ -x "$GTIME" ] || { echo "bench-show: $GTIME missing (package 'time')" >&2; exit 1; }
tdir=$(bash "$TOP/scripts/fetch-trixie.sh" --pahole) || { echo "bench-show: no pahole 1.30" >&2; exit 1; }
sdir=$(bash "$TOP/scripts/fetch-sid.sh") || { echo "bench-show: no pahole 1.32" >&2; exit 1; }
declare -A PAHOLE=([1.30]=$tdir/pahole/bin/pahole [1.32]=$sdir/pahole/bin/pahole)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run LABEL TOOL VER ARGS...: one run under GNU time, "LABEL TOOL VER cpu rss" appended.
run() {
	local label=$1 tool=$2 ver=$3 rc=0 cmd
	shift 3
	if [ "$tool" = pahole ]; then
		cmd=(timeout "$TIMEOUT" "${PAHOLE[$ver]}" -F btf)
	else
		cmd=("$FRUGAL" btf show --pahole_compat "$ver")
	fi
	"$GTIME" -f '%U %S %M' -o "$tmp/time" bash -c \
		'for i in 1 2 3 4 5 6 7 8 9 10; do "$@" || exit; done' - "${cmd[@]}" "$@" \
		>"$tmp/$tool.out" 2>/dev/null || rc=$?
	if [ $rc = 124 ]; then
		printf '  %-28s %-7s %s HUNG (ended after %s s)\n' "$label" "$tool" "$ver" "$TIMEOUT"
		return 0
	fi
	[ $rc = 0 ] || { echo "bench-show: $tool $ver $label failed (exit $rc)" >&2; exit 1; }
	read -r u s m < <(tail -1 "$tmp/time")
	echo "$label $tool $ver $(awk -v u="$u" -v s="$s" 'BEGIN { print (u + s) / 10 }') $m" >> "$tmp/runs"
}

median() {	# median FIELD LABEL TOOL VER (field 4 cpu, 5 rss)
	awk -v f="$1" -v l="$2" -v t="$3" -v v="$4" '$1 == l && $2 == t && $3 == v { print $f }' "$tmp/runs" |
		sort -n | awk '{ x[NR] = $1 } END { if (!NR) print "-"; else print (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}

# bench FILE NAME: the rounds, then one table line per case and release.
bench() {
	local file=$1 name=$2 r ver label
	cat "$file" > /dev/null
	for ver in 1.30 1.32; do
		"${PAHOLE[$ver]}" -F btf "$file" > "$tmp/pahole.out" 2>/dev/null
		"$FRUGAL" btf show --pahole_compat "$ver" "$file" > "$tmp/frugal.out"
		cmp -s "$tmp/pahole.out" "$tmp/frugal.out" ||
			{ echo "bench-show: $name: frugal's text differs from pahole $ver's" >&2; exit 1; }
	done
	for r in $(seq 1 "$ROUNDS"); do
		for ver in 1.30 1.32; do
			for tool in pahole frugal; do
				run "$name:one" "$tool" "$ver" -C task_struct "$file"
				run "$name:all" "$tool" "$ver" "$file"
			done
		done
	done
	for label in "$name:one" "$name:all"; do
		for ver in 1.30 1.32; do
			awk -v l="$label" -v v="$ver" -v pc="$(median 4 "$label" pahole "$ver")" \
			    -v fc="$(median 4 "$label" frugal "$ver")" -v pm="$(median 5 "$label" pahole "$ver")" \
			    -v fm="$(median 5 "$label" frugal "$ver")" 'BEGIN {
				printf "%-22s %-5s %8.4f %8.4f %6.2fx %8.1f %8.1f %6.2fx\n", l, v, pc, fc,
					(pc > 0 ? fc / pc : 0), pm / 1024, fm / 1024, (pm > 0 ? fm / pm : 0) }'
		done
	done
}

echo "btf show beside pahole: medians of $ROUNDS rounds (one = -C task_struct, all = every struct and union)"
printf '%-22s %-5s %8s %8s %7s %8s %8s %7s\n' case pahole p_cpu_s f_cpu_s cpu p_MiB f_MiB rss
[ -r /sys/kernel/btf/vmlinux ] && bench /sys/kernel/btf/vmlinux "running-kernel"
V7=$CACHE/sid/kernel-dbg/vmlinux
[ -r "$V7" ] && bench "$V7" "sid-7.x-vmlinux"
exit 0
