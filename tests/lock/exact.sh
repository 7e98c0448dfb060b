#!/usr/bin/env bash
# Exactness: in one run, perf counts the contention tracepoints of the same
# tasks frugal traces; frugal's completed contentions plus the ends it counts
# as skipped must equal perf's contention_end count (or exceed it by at most
# the nested runs frugal took, which perf's own counting can skip), and its
# rows plus counted losses must add up to it.
# Then the overflow case: -t -M 8 over 200+ contending threads, where the
# kernel table holds 8 rows and the rest must arrive through the per-CPU
# buffers (which take no lock: our own programs cause no contention).
# Between them, --nested (a second program per tracepoint), and the nested
# path forced with --as-nested.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock exactness" || finish
if ! perf stat -e lock:contention_end -x, -o /dev/null true 2>/dev/null; then
	skip "lock exactness" "perf cannot count lock:contention_end"
	finish
fi

# run NAME FRUGAL-OPTS DURATION BENCH-OPTS: the bench creates its tasks and
# waits for SIGUSR1; perf and frugal attach to all of them; it runs; both
# are stopped once the bench says its run is over, while its tasks are
# still alive (--hold), since perf stops counting a task partway through
# its exit and frugal does not.
run() {
	local name=$1 fopts=$2 d=$3 bopts=$4 b p f pids
	"$FRUGAL" bench lock $bopts -d "$d" --start-on-usr1 --hold 20 2>"$_tmp/$name.bench" & b=$!
	pids=$(bench_ready "$_tmp/$name.bench" $b) || fail "$name: the bench said it was ready" "$(cat "$_tmp/$name.bench")"
	# perf starts with its counters off and says when they are all on (one
	# per thread, 200 threads in the overflow case): only then does frugal
	# start, and only once frugal has attached does the run start, so that
	# every event is seen by both.
	rm -f "$_tmp/ctl" "$_tmp/ack"
	mkfifo "$_tmp/ctl" "$_tmp/ack"
	perf stat -e lock:contention_begin,lock:contention_end -x, -o "$_tmp/$name.perf" \
		-D -1 --control fifo:"$_tmp/ctl","$_tmp/ack" -p "$pids" & p=$!
	exec 8<>"$_tmp/ctl" 9<>"$_tmp/ack"
	echo enable >&8
	read -r -t 120 ack <&9 && [ "$ack" = ack ] || fail "$name: perf stat enabled its counters" "no ack"
	"$FRUGAL" lock -v --json $fopts -p "$pids" >"$_tmp/$name.json" 2>"$_tmp/$name.err" & f=$!
	wait_for "$_tmp/$name.err" attached 120 || fail "$name: frugal attached" "$(tail -3 "$_tmp/$name.err")"
	kill -USR1 $b
	run_over "$_tmp/$name.bench" $b
	check "$name: the bench's run was over before the tracers stopped" grep -q "run over" "$_tmp/$name.bench"
	kill -INT $f $p
	wait $f $p
	exec 8>&- 9<&-
	kill $b; wait $b 2>/dev/null
	PERF_END=$(awk -F, '$3 == "lock:contention_end" { print $1 }' "$_tmp/$name.perf")
	PERF_BEGIN=$(awk -F, '$3 == "lock:contention_begin" { print $1 }' "$_tmp/$name.perf")
}

run plain "" 1 "-T 6 -P 4"
J=$_tmp/plain.json
completed=$(json $J 'd["accounting"]["completed"]')
check "exact: the run had contention ($completed)" test "${completed:-0}" -gt 20
check "exact: completed + ends skipped == perf's contention_end ($(seen $J) vs $PERF_END)" \
	test "$(matches_kernel $J "$PERF_END")" = True
# By default one program per tracepoint: nothing takes the runs the kernel
# skips, and every one of them is counted.
check "exact: begins seen + begins skipped == perf's contention_begin" test "$(json $J \
	"d['accounting']['begins'] + d['accounting']['lost_skipped_begin'] == $PERF_BEGIN and d['accounting']['nested_taken'] == 0")" = True
check "exact: rows + filtered + losses == completed" test "$(json $J \
	'sum(r["contended"] for r in d["rows"]) + d["accounting"]["filtered"] + d["accounting"]["lost_no_begin"] + d["accounting"]["lost_ringbuf"]')" = "$completed"
check_losses "exact: nothing lost but counted skipped runs" $J

# --nested: a second program per tracepoint takes the runs nested in the
# first: the same identities, where a nested run taken may be one that
# perf's own counting skipped.
run twice "--nested" 1 "-T 6 -P 4"
J=$_tmp/twice.json
check "--nested: the run had contention ($(json $J 'd["accounting"]["completed"]'))" \
	test "$(json $J 'd["accounting"]["completed"]')" -gt 20
check "--nested: completed + ends skipped == perf's contention_end ($(seen $J) vs $PERF_END)" \
	test "$(matches_kernel $J "$PERF_END")" = True
check "--nested: begins seen + begins skipped == perf's contention_begin" test "$(json $J \
	"$PERF_BEGIN <= d['accounting']['begins'] + d['accounting']['lost_skipped_begin'] <= $PERF_BEGIN + d['accounting']['nested_taken']")" = True
check_losses "--nested: nothing lost but counted skipped runs" $J

# --as-nested: every run takes the path of a contention nested in our own
# programs (interrupts cannot be made to arrive on cue): keys built in the
# nested scratch space, every wait sent through the buffers even when its
# row is in the kernel table, and merged there by user space.
# The buffers here are big enough never to wake our reader during the run
# (the kernel wakes it at half a buffer).  A wake-up runs in an interrupt
# on the traced task's CPU, inside perf's own recursion guard, and may
# contend (on the run queue of our reader): we see that contention, and
# perf's counting drops it, one more end for us than for perf (about 1
# run in 10 under load with 128 KB buffers, 3 in 10 with 4 KB ones).
# This run sends 37,000 to 53,000 waits here, 66,000 once under a heavy
# load, past 8 MB buffers' mark (65,536 events of 64 bytes, counted as if
# every event went to one CPU's buffer): 32 MB ones leave four times that.
RING_KB=32768
run nested "--as-nested --ring-size $RING_KB" 1 "-T 6 -P 4"
J=$_tmp/nested.json
completed=$(json $J 'd["accounting"]["completed"]')
check "nested path: the run had contention ($completed)" test "${completed:-0}" -gt 20
check "nested path: the buffers never reached their wake-up mark ($(json $J 'd["accounting"]["overflow_events"]') events of <= 64 bytes)" \
	test "$(json $J "d['accounting']['overflow_events'] * 64 < $RING_KB * 1024 / 2")" = True
check "nested path: every wait came through the buffers" test "$(json $J \
	'd["accounting"]["aggregated_in_kernel"] == 0 and d["accounting"]["overflow_events"] == d["accounting"]["merged_from_overflow"] > 0')" = True
check "nested path: rows + filtered + losses == completed" test "$(json $J \
	'sum(r["contended"] for r in d["rows"]) + d["accounting"]["filtered"] + d["accounting"]["lost_no_begin"] + d["accounting"]["lost_ringbuf"]')" = "$completed"
check "nested path: one row per key (buffered waits merged into the kernel's rows)" test "$(json $J \
	'len(d["rows"]) == len(set((r["caller"], tuple(r["stack"])) for r in d["rows"]))')" = True
check "nested path: every row has its stack (the kernel row's definition)" test "$(json $J \
	'd["accounting"]["lost_stack"] > 0 or all(r["stack"] and r["caller"] != "[unknown]" for r in d["rows"])')" = True
check_losses "nested path: nothing lost but counted skipped runs" $J
check "nested path: completed + ends skipped == perf's contention_end ($(seen $J) vs $PERF_END)" \
	test "$(matches_kernel $J "$PERF_END")" = True

run over "-t -M 8 --ring-size $RING_KB" 1.5 "-T 200 -P 0"
J=$_tmp/over.json
completed=$(json $J 'd["accounting"]["completed"]')
check "overflow: >= 200 tasks contended ($(json $J 'len(d["rows"])') rows)" test "$(json $J 'len(d["rows"])')" -ge 200
check "overflow: the kernel table held 8 rows, the ring carried the rest" test "$(json $J \
	'd["accounting"]["merged_from_overflow"] > 0 and d["map_entries"] == 8')" = True
check_losses "overflow: nothing lost but counted skipped runs" $J
check "overflow: rows + losses == completed" test "$(json $J \
	'sum(r["contended"] for r in d["rows"]) + d["accounting"]["lost_no_begin"]')" = "$completed"
check "overflow: completed + ends skipped == perf's contention_end ($(seen $J) vs $PERF_END)" \
	test "$(matches_kernel $J "$PERF_END")" = True
finish
