#!/usr/bin/env bash
# bench-serve: what `frugal lock serve` costs, always on.  See docs/bench.md
# ("bench-serve") for what each figure means.
#   1. the workloads of bench-lock (bench/lock/lib.sh), untraced, and traced
#      by the service scraped every second, by the floor (frugal's programs
#      attached, doing nothing) and by perf 6.1 lock contention -b, over the
#      same workload runs: slowdowns in interleaved rounds, as bench-lock's;
#   2. the scrape's latency with 1,000 and with 10,000 series (a program
#      taking one mutex from that many functions, traced with -U);
#   3. the service's RSS and the memory of its kernel maps (bpftool's
#      bytes_memlock of the maps it holds) at the end of 2.
# scripts/serve-soak.sh watches the same two over 30 minutes.
#
# Environment: O (build dir), SLOW_ROUNDS (rounds, default 10), WORKLOADS
# (default "epoll-ctl messaging"), SCRAPES (scrapes per latency figure,
# default 60), SERIES (default "1000 10000").
set -eu
O=${O:-build}
SLOW_ROUNDS=${SLOW_ROUNDS:-10}
WORKLOADS=${WORKLOADS:-epoll-ctl messaging}
SCRAPES=${SCRAPES:-60}
SERIES=${SERIES:-1000 10000}
HERE=$(cd "$(dirname "$0")" && pwd)
FRUGAL=$(realpath "$O/frugal")

say() { echo "bench-serve: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (BPF programs, perf -b)"
for c in bpftool jq python3 gcc; do
	command -v "$c" >/dev/null || die "$c missing (run scripts/install-deps.sh)"
done
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
"$FRUGAL" lock serve --help >/dev/null 2>&1 || die "$FRUGAL has no 'lock serve'"
PERF=$(bash "$HERE/lock/build-perf.sh") || die "could not build perf 6.1"

tmp=$(mktemp -d)
stats_prev=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	local p
	for p in $(cat "$tmp/running" 2>/dev/null) $(jobs -p); do
		pkill -INT -P "$p" 2>/dev/null || true
		kill -INT "$p" 2>/dev/null || true
	done
	for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	sysctl -qw kernel.bpf_stats_enabled="$stats_prev" || true
	[ -n "${KEEP:-}" ] && echo "kept $tmp" >&2 || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# The slowdown without BPF statistics (two clock reads per program run,
# charged to every tool alike), as bench-lock measures it.
sysctl -qw kernel.bpf_stats_enabled=0
SERVE_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
. "$HERE/lock/lib.sh"

# scraped CMD...: CMD, with the service (when it is the tool traced: $cur)
# scraped every second meanwhile; the scrapes' lines go to $tmp/scrapes.
scraped() {
	local sp rc=0
	if [ "$cur" != serve ]; then "$@"; return; fi
	python3 "$HERE/lock/scrape.py" "http://127.0.0.1:$SERVE_PORT/metrics" 1 >>"$tmp/scrapes" &
	sp=$!
	"$@" || rc=$?
	kill -TERM "$sp" 2>/dev/null; wait "$sp" 2>/dev/null || true
	return $rc
}

# ---- 1. slowdown ---------------------------------------------------------------

TOOLS="serve floor perf"
declare -A R
for wl in $WORKLOADS; do
	say "$wl: $SLOW_ROUNDS rounds of untraced/traced pairs for: $TOOLS"
	for r in $(seq "$SLOW_ROUNDS"); do
		read -ra order <<<"$TOOLS"
		k=$(( (r - 1) % ${#order[@]} ))
		order=("${order[@]:k}" "${order[@]:0:k}")
		for cur in "${order[@]}"; do
			[ $((r % 2)) -eq 1 ] && interruptible "$tmp/base" workload_run "$wl"
			interruptible "$tmp/res" traced_run "$cur" caller "$tmp/$cur.$wl" scraped workload_run "$wl"
			[ $((r % 2)) -eq 0 ] && interruptible "$tmp/base" workload_run "$wl"
			base=$(cat "$tmp/base") cost=$(cat "$tmp/$cur.$wl.cmd")
			echo "$cur $wl $r slowdown base=$base traced=$cost" >>"$tmp/log"
			echo "$r $base" >>"$tmp/$wl.bases"
			echo "$r $cost" >>"$tmp/$cur.$wl.traced"
		done
	done
	for t in $TOOLS; do
		per_round "$tmp/$wl.bases" "$tmp/$t.$wl.traced" >"$tmp/$t.$wl.slowr"
		R[$t.$wl.slow]=$(cut -d' ' -f2 "$tmp/$t.$wl.slowr" | median)
	done
	R[$wl.vs_perf]=$(paired "$tmp/serve.$wl.slowr" "$tmp/perf.$wl.slowr")
	R[$wl.vs_floor]=$(paired "$tmp/serve.$wl.slowr" "$tmp/floor.$wl.slowr")
done
cur=
R[scrape1.n]=$(wc -l <"$tmp/scrapes" 2>/dev/null || echo 0)
R[scrape1.ms]=$(awk '$4 == 200 { print $1 * 1000 }' "$tmp/scrapes" 2>/dev/null | median)
R[scrape1.samples]=$(awk '$4 == 200 { print $3 }' "$tmp/scrapes" 2>/dev/null | median)

# ---- 2. and 3. scrape latency by series, memory ----------------------------------

. "$HERE/lock/mem.sh"

for n in $SERIES; do
	say "$n series: a program taking one mutex from $n functions, traced with -U"
	bash "$HERE/lock/callers.sh" "$n" "$tmp/callers"
	"$tmp/callers" 0 4 >/dev/null &
	fix=$!
	"$FRUGAL" lock serve -U -p "$fix" --series-max=$((2 * n)) \
		--web.listen-address="127.0.0.1:$SERVE_PORT" >"$tmp/serve.$n.out" 2>&1 &
	srv=$!
	echo "$srv" >"$tmp/running"
	# Wait (up to 5 minutes) until the caller series are all there.
	have=0
	for _ in $(seq 300); do
		kill -0 "$srv" 2>/dev/null || die "the service failed: $(tail -3 "$tmp/serve.$n.out")"
		have=$(curl -sf "http://127.0.0.1:$SERVE_PORT/metrics" | grep -c '^frugal_lock_contentions_total{' || true)
		[ "$have" -ge "$n" ] && break
		sleep 1
	done
	R[s$n.series]=$have
	python3 "$HERE/lock/scrape.py" "http://127.0.0.1:$SERVE_PORT/metrics" 1 "$SCRAPES" >"$tmp/scrapes.$n"
	R[s$n.ms]=$(awk '$4 == 200 { print $1 * 1000 }' "$tmp/scrapes.$n" | median)
	R[s$n.max]=$(awk '$4 == 200 { print $1 * 1000 }' "$tmp/scrapes.$n" | sort -g | tail -1)
	R[s$n.kb]=$(awk '$4 == 200 { print $2 / 1024 }' "$tmp/scrapes.$n" | median)
	R[s$n.rss]=$(rss_kb "$srv")
	R[s$n.maps]=$(map_memlock "$srv")
	kill -INT "$srv"; wait "$srv" || die "the service exited with status $? on SIGINT"
	kill "$fix"; wait "$fix" 2>/dev/null || true
	rm -f "$tmp/running"
done

# ---- the table ---------------------------------------------------------------------

cell() { echo "${R[$1]:-NA}"; }
row() { printf '%-44s %10s %10s %10s  %s\n' "$@"; }
echo
echo "bench-serve: $(uname -r), $(nproc) CPUs; perf -b from linux-source-6.1 $(cat "$(dirname "$PERF")/version"); $SLOW_ROUNDS rounds, medians"
row "slowdown (traced/untraced)" serve floor perf-6.1 "serve against perf, against the floor"
for wl in $WORKLOADS; do
	row "$wl" "$(cell serve.$wl.slow)" "$(cell floor.$wl.slow)" "$(cell perf.$wl.slow)" \
		"$(cell $wl.vs_perf); $(cell $wl.vs_floor)"
done
row "scrapes during the slowdown runs" "$(cell scrape1.n)" "" "" "median $(cell scrape1.ms) ms, $(cell scrape1.samples) samples"
echo
row "scrape of /metrics" series "median ms" "max ms" "body KB, RSS KB, map memlock KB"
for n in $SERIES; do
	row "  $n callers (-U)" "$(cell s$n.series)" "$(cell s$n.ms)" "$(cell s$n.max)" \
		"$(cell s$n.kb), $(cell s$n.rss), $(( $(cell s$n.maps) / 1024 ))"
done
cp "$tmp/log" "$O/bench-serve.log" 2>/dev/null && say "per-run figures: $O/bench-serve.log"
