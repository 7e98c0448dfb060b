#!/usr/bin/env bash
# The lock tests N times in a row (default 10), idle or, with --load, while
# stress-ng keeps every CPU busy.  Outside `make check` (it takes ~10 minutes);
# prints one line per round and a summary, exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.."
n=10 load=
for a in "$@"; do
	case $a in
	--load) load=1 ;;
	[0-9]*) n=$a ;;
	*) echo "usage: $0 [N] [--load]" >&2; exit 2 ;;
	esac
done
# What `make check` builds first: some checks need a test binary (svg.sh's
# generated graphs), and would otherwise skip.
make -s check-build >/dev/null || { echo "lock soak: make check-build failed" >&2; exit 1; }
if [ -n "$load" ]; then
	stress-ng --cpu "$(nproc)" --timeout 0 -q & sp=$!
	trap 'kill $sp 2>/dev/null' EXIT
fi
bad=0
for i in $(seq "$n"); do
	out=$(bash tests/run lock/ 2>&1)
	out2=$(bash tests/run hardening/lock 2>&1)
	line=$(tail -1 <<<"$out") line2=$(tail -1 <<<"$out2")
	[ -n "${SOAK_LOG:-}" ] && printf '%s\n%s\n' "$out" "$out2" >>"$SOAK_LOG"
	echo "round $i: lock/ $line; hardening/lock $line2"
	case "$line $line2" in
	*" 0 failed"*" 0 failed"*) ;;
	*)	bad=$((bad + 1))
		grep -h '^\[.*\] not ok - ' <<<"$out
$out2" | sed 's/^/    /' ;;
	esac
done
echo "lock soak${load:+ (loaded)}: $((n - bad)) of $n rounds clean"
[ "$bad" = 0 ]
