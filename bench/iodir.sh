#!/usr/bin/env bash
# bench-iodir: frugal's heap-free directory walk beside a glibc opendir/readdir
# walk of the same trees (every /proc/PID/task, and /sys), in one run.
# getdents64 calls are counted by perf on the syscall tracepoint.
set -eu
O=${O:-build}
WB=$O/bench/walkbench
[ -x "$WB" ] || { echo "bench-iodir: $WB missing (make $WB)" >&2; exit 1; }

count_getdents() {	# prints "walkbench line ; calls"
	local out calls
	if perf stat -x, -o "$tmp/perf" -e syscalls:sys_enter_getdents64 "$WB" "$@" >"$tmp/out" 2>/dev/null; then
		calls=$(grep getdents64 "$tmp/perf" | cut -d, -f1)
	else
		"$WB" "$@" >"$tmp/out"
		calls=NA
	fi
	# wall time: the best of three more runs (other work on 2 CPUs is noise)
	local best=
	for _ in 1 2 3; do
		local w; w=$(field wall_us "$("$WB" "$@")")
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$w; fi
	done
	out=$(sed "s/wall_us=[^ ]*/wall_us=$best/" "$tmp/out")
	echo "$out calls=$calls"
}
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0 || a == "NA" || b == "NA") print "-"; else printf "%.2fx", a / b }'; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-6s %-8s %9s %12s %14s %10s %10s\n' tree walker entries peak_heap_B total_malloc_B getdents64 best_ms
for tree in proc sys; do
	"$WB" iodir "$tree" >/dev/null	# warm the caches once for both
	o=$(count_getdents opendir "$tree")
	f=$(count_getdents iodir "$tree")
	for w in opendir iodir; do
		[ $w = opendir ] && l=$o || l=$f
		printf '%-6s %-8s %9s %12s %14s %10s %10.1f\n' "$tree" "$w" "$(field entries "$l")" \
			"$(field peak_heap "$l")" "$(field total_malloc "$l")" "$(field calls "$l")" \
			"$(awk -v u="$(field wall_us "$l")" 'BEGIN{print u/1000}')"
	done
	printf '%-6s %-8s %9s %12s %14s %10s %10s\n' "$tree" "ratio" "" \
		"$(field peak_heap "$f")B" "$(field total_malloc "$f")B" \
		"$(ratio "$(field calls "$f")" "$(field calls "$o")")" \
		"$(ratio "$(field wall_us "$f")" "$(field wall_us "$o")")"
done
echo "targets: frugal peak heap 0 bytes; getdents64 calls <= 1.20x opendir's"
echo "peak RSS of the walker (frugal, /sys): $( { /usr/bin/time -f %M "$WB" iodir sys >/dev/null; } 2>&1 | tail -1 ) KiB" 2>/dev/null || true
