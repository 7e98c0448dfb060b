#!/usr/bin/env bash
# serve-soak.sh [MINUTES]: `frugal lock serve -U` for MINUTES (30), scraped
# every second, while a fixture keeps making new stacks and objects: every
# 20 seconds a new process takes one mutex from 2,000 functions, starting
# at another one each time (new user stacks, new pids, new mappings to
# symbolize), beside `frugal bench lock` runs (new processes, pipes and
# files: new kernel lock objects and stacks).  Every minute: the service's
# RSS and the bytes_memlock of the BPF maps it holds, and the series
# count.  The verdict: flat when the last sample is within FLAT_PCT (10)
# percent of the 5-minute one (the first 5 minutes fill the caches and
# the series bound).  Needs root; O= the build dir.
set -eu
MINUTES=${1:-30}
FLAT_PCT=${FLAT_PCT:-10}
O=${O:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
FRUGAL=$(realpath "$O/frugal")
say() { echo "serve-soak: $*" >&2; }
die() { say "$*"; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root"
"$FRUGAL" lock serve --help >/dev/null 2>&1 || die "$FRUGAL has no 'lock serve'"
for c in bpftool jq python3 gcc curl; do command -v "$c" >/dev/null || die "$c missing"; done
[ "$MINUTES" -ge 6 ] || say "fewer than 6 minutes: the verdict compares the last sample with the first"

tmp=$(mktemp -d)
cleanup() {
	local p
	for p in $(jobs -p); do pkill -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
	[ -n "${srv:-}" ] && kill -INT "$srv" 2>/dev/null
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

bash "$TOP/bench/lock/callers.sh" 2000 "$tmp/callers"
"$FRUGAL" lock serve -U --web.listen-address="127.0.0.1:$port" >"$tmp/serve.out" 2>&1 &
srv=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/metrics" >/dev/null && break; sleep 0.1; done
kill -0 "$srv" 2>/dev/null || die "the service failed: $(tail -3 "$tmp/serve.out")"
python3 "$TOP/bench/lock/scrape.py" "http://127.0.0.1:$port/metrics" 1 >"$tmp/scrapes" &
# The fixture, in a loop of its own until the end.
(
	i=0
	while :; do
		"$tmp/callers" 20 2 $((i * 97 + 1)) &
		"$FRUGAL" bench lock -T 2 -P 2 -d 18 --owner 1 >/dev/null 2>&1 || true
		wait
		i=$((i + 1))
	done
) &

. "$TOP/bench/lock/mem.sh"
printf '%6s %10s %12s %8s %10s\n' minute rss_kb maps_kb series scrapes
for m in $(seq "$MINUTES"); do
	sleep 60
	kill -0 "$srv" 2>/dev/null || die "the service died: $(tail -3 "$tmp/serve.out")"
	rss=$(rss_kb "$srv")
	maps=$(( $(map_memlock "$srv") / 1024 ))
	series=$(curl -sf "http://127.0.0.1:$port/metrics" | grep -c '^frugal_lock_contentions_total{' || true)
	printf '%6d %10d %12d %8d %10d\n' "$m" "$rss" "$maps" "$series" "$(wc -l <"$tmp/scrapes")" | tee -a "$tmp/samples"
done
bad=$(awk '$4 != 200' "$tmp/scrapes" | wc -l)
kill -INT "$srv"
wait "$srv" && rc=0 || rc=$?
srv=
ref=$(( MINUTES >= 6 ? 5 : 1 ))
verdict=$(awk -v ref="$ref" -v pct="$FLAT_PCT" '
	NR == ref { r = $2; mr = $3 } { l = $2; ml = $3 }
	END {
		grow = (l - r) / r * 100; mgrow = mr ? (ml - mr) / mr * 100 : 0
		printf "%s: RSS %d KB at minute %d, %d KB at the end (%+.1f%%); maps %d KB, then %d KB (%+.1f%%)\n",
			(grow <= pct && mgrow <= pct) ? "FLAT" : "GROWING", r, ref, l, grow, mr, ml, mgrow }' "$tmp/samples")
echo "serve-soak: $MINUTES minutes, $(wc -l <"$tmp/scrapes") scrapes ($bad failed), exit status $rc on SIGINT"
echo "serve-soak: $verdict (flat: within $FLAT_PCT%)"
[[ $verdict == FLAT* ]] && [ "$bad" -eq 0 ] && [ "$rc" -eq 0 ]
