#!/usr/bin/env bash
# Exactness: in one run, perf counts the contention tracepoints of the same
# tasks frugal traces; frugal's completed contentions must equal perf's
# contention_end count, and its rows plus counted losses must add up to it.
# Then the overflow case: -t -M 8 over 200+ contending threads, where the
# kernel table holds 8 rows and the rest must arrive through the per-CPU
# buffers - which take no lock, so our own programs cause no contention and
# the kernel skips none of their runs.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock exactness" || finish
if ! perf stat -e lock:contention_end -x, -o /dev/null true 2>/dev/null; then
	skip "lock exactness" "perf cannot count lock:contention_end"
	finish
fi

# run NAME FRUGAL-OPTS TASKS DURATION BENCH-OPTS: the bench creates its
# tasks and waits (--delay); perf and frugal attach to all of them; it runs;
# both are stopped while its tasks are still alive (--hold), since perf
# stops counting a task partway through its exit and frugal does not.
run() {
	local name=$1 fopts=$2 n=$3 d=$4 bopts=$5 b p f i pids t0
	t0=$(date +%s.%N)
	"$FRUGAL" bench lock $bopts -d "$d" --delay 2 --hold 3 2>/dev/null & b=$!
	sleep 0.7
	pids=$(echo $b $(pgrep -P $b) | tr ' ' ,)
	perf stat -e lock:contention_begin,lock:contention_end -x, -o "$_tmp/$name.perf" -p "$pids" & p=$!
	"$FRUGAL" lock -v --json $fopts -p "$pids" >"$_tmp/$name.json" 2>"$_tmp/$name.err" & f=$!
	for i in $(seq 50); do grep -q attached "$_tmp/$name.err" && break; sleep 0.05; done
	# The run ends at t0 + 2.2 + n * 0.002 + d; stop one second into the hold.
	sleep "$(awk -v t0="$t0" -v n="$n" -v d="$d" -v now="$(date +%s.%N)" \
		'BEGIN { s = t0 + 3.2 + n * 0.002 + d - now; print (s > 0 ? s : 0) }')"
	kill -INT $f $p
	wait $f $p $b
	PERF_END=$(awk -F, '$3 == "lock:contention_end" { print $1 }' "$_tmp/$name.perf")
	PERF_BEGIN=$(awk -F, '$3 == "lock:contention_begin" { print $1 }' "$_tmp/$name.perf")
}

run plain "" 10 1 "-T 6 -P 4"
J=$_tmp/plain.json
completed=$(json $J 'd["accounting"]["completed"]')
check "exact: the run had contention ($completed)" test "${completed:-0}" -gt 20
skipped=$(json $J 'd["accounting"]["lost_skipped_end"]')
check "exact: completed + ends skipped == perf's contention_end ($completed + $skipped vs $PERF_END)" \
	test "$((completed + skipped))" = "$PERF_END"
check "exact: begins seen == perf's contention_begin" test "$(json $J 'd["accounting"]["begins"]')" = "$PERF_BEGIN"
check "exact: rows + filtered + losses == completed" test "$(json $J \
	'sum(r["contended"] for r in d["rows"]) + d["accounting"]["filtered"] + d["accounting"]["lost_no_begin"] + d["accounting"]["lost_ringbuf"]')" = "$completed"
check "exact: nothing lost" test "$(json $J 'd["accounting"]["lost_no_begin"] + d["accounting"]["lost_ringbuf"]')" = 0

run over "-t -M 8" 200 1.5 "-T 200 -P 0"
J=$_tmp/over.json
completed=$(json $J 'd["accounting"]["completed"]')
check "overflow: >= 200 tasks contended ($(json $J 'len(d["rows"])') rows)" test "$(json $J 'len(d["rows"])')" -ge 200
check "overflow: the kernel table held 8 rows, the ring carried the rest" test "$(json $J \
	'd["accounting"]["merged_from_overflow"] > 0 and d["map_entries"] == 8')" = True
check "overflow: nothing lost" test "$(json $J 'd["accounting"]["lost_no_begin"] + d["accounting"]["lost_ringbuf"]')" = 0
check "overflow: rows sum == completed == perf's contention_end ($completed vs $PERF_END)" test "$(json $J \
	'sum(r["contended"] for r in d["rows"])')/$completed" = "$PERF_END/$PERF_END"
check "overflow: no program run skipped by the kernel ($(json $J 'd["accounting"]["recursion_misses"]'))" \
	test "$(json $J 'd["accounting"]["recursion_misses"]')" = 0
finish
