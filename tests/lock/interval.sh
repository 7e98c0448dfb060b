#!/usr/bin/env bash
# -I: a report every interval, each with its own rows and accounting, and
# nothing lost between them.  Over 10 s of the built-in workload, with perf
# counting the same tasks' contention tracepoints in the same window, the
# completed counts of the intervals (the last one partial, printed on
# SIGINT) add up to perf's contention_end count, as a whole run's does in
# exact.sh.  Then the shapes: the table's interval lines, CSV's time column
# and single header.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock -I" || finish
if ! perf stat -e lock:contention_end -x, -o /dev/null true 2>/dev/null; then
	skip "lock -I" "perf cannot count lock:contention_end"
	finish
fi

# The bench waits for SIGUSR1 until perf's counters are on (it says so)
# and frugal has attached: every event of the run is seen by both.
"$FRUGAL" bench lock -T 4 -P 4 -d 10 --start-on-usr1 --hold 20 2>"$_tmp/bench" & b=$!
pids=$(bench_ready "$_tmp/bench" $b) || fail "the bench said it was ready" "$(cat "$_tmp/bench")"
mkfifo "$_tmp/ctl" "$_tmp/ack"
perf stat -e lock:contention_end -x, -o "$_tmp/perf" -D -1 --control fifo:"$_tmp/ctl","$_tmp/ack" -p "$pids" & p=$!
exec 8<>"$_tmp/ctl" 9<>"$_tmp/ack"
echo enable >&8
read -r -t 120 ack <&9 && [ "$ack" = ack ] || fail "perf stat enabled its counters" "no ack"
"$FRUGAL" lock -v -I 1 --json -t -p "$pids" >"$_tmp/lines" 2>"$_tmp/err" & f=$!
wait_for "$_tmp/err" attached 120 || fail "frugal attached" "$(tail -3 "$_tmp/err")"
kill -USR1 $b
run_over "$_tmp/bench" $b
check "the bench's run was over before the tracers stopped" grep -q "run over" "$_tmp/bench"
kill -INT $f $p
wait $f $p
exec 8>&- 9<&-
kill $b; wait $b 2>/dev/null
PERF_END=$(awk -F, '$3 == "lock:contention_end" { print $1 }' "$_tmp/perf")

# The intervals summed into one report, for lock.inc's checks.
python3 - "$_tmp/lines" "$_tmp/sum.json" >"$_tmp/shape" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
total = {}
for d in lines:
    for k, v in d["accounting"].items():
        total[k] = total.get(k, 0) + v
ok_rows = all(sum(r["contended"] for r in d["rows"]) == d["accounting"]["in_rows"] for d in lines)
ok_parts = all(d["accounting"]["completed"] == d["accounting"]["in_rows"] + d["accounting"]["filtered"] +
               d["accounting"]["lost_no_begin"] + d["accounting"]["lost_ringbuf"] for d in lines)
numbers = [d["interval"] for d in lines]
json.dump({"accounting": total, "rows": []}, open(sys.argv[2], "w"))
# The reports keep to a grid from the start: the Kth ends K seconds or
# more after it (a late one shortens the next; none comes early).
ends, t = [], 0.0
for d in lines[:-1]:
    t += d["duration_s"]
    ends.append(t - len(ends) - 1)
print(len(lines), numbers == list(range(1, len(lines) + 1)), ok_rows, ok_parts,
      lines[-1]["duration_s"] if lines else 0, sum(1 for d in lines if d["accounting"]["completed"]),
      "%.3f" % min(ends or [-1]))
PY
read -r n ordered rows_ok parts_ok last_s busy shortest <"$_tmp/shape"
# Over a 10-s run, ten whole intervals at least (a loaded machine may take
# longer to say the run is over), none early, and a partial one.
check "-I 1 over a 10-s run: ten intervals or more ($n), and a partial one" test "$n" -ge 11
check "-I 1: the Kth report K s or more after the start (the earliest by $shortest s)" \
	python3 -c "import sys; sys.exit(not $shortest >= -0.01)"
check "intervals numbered 1.. in order, one JSON object a line" test "$ordered" = True
check "each interval's rows add up to its in_rows" test "$rows_ok" = True
check "each interval's completed = rows + filtered + losses" test "$parts_ok" = True
check "the last interval, cut by SIGINT, is printed, at most about an interval long ($last_s s)" \
	python3 -c "import sys; sys.exit(not 0 <= $last_s < 1.5)"
check "most intervals saw contention ($busy of $n)" test "$busy" -ge 8
check "the intervals' completed + skipped == perf's contention_end ($(seen "$_tmp/sum.json") vs $PERF_END)" \
	test "$(matches_kernel "$_tmp/sum.json" "$PERF_END")" = True
check_losses "nothing lost between intervals but counted skipped runs" "$_tmp/sum.json"

# The table and CSV over a short run: one block per interval, CSV's header once.
"$FRUGAL" lock -a -I 0.5 -d 1.2 >"$_tmp/table" 2>&1
check "table: an '=== interval N' line per interval (3)" test "$(grep -c '^=== interval [0-9]*: ' "$_tmp/table")" = 3
check "table: each interval with its accounting" test "$(grep -c '^=== accounting ===' "$_tmp/table")" = 3
# CSV over the built-in workload, which contends in every interval: the row
# check below then has rows to look at.
"$FRUGAL" lock -I 0.5 -x , -- "$FRUGAL" bench lock -T 4 -P 4 -d 1.2 >"$_tmp/csv" 2>"$_tmp/csv.err"
check "CSV: one header line, starting with a time column" test "$(grep -c '^time,contended,' "$_tmp/csv")" = 1
check "CSV: rows, each starting with the interval's time" python3 - "$_tmp/csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#")][1:]
sys.exit(not rows or not all(float(r[0]) > 1e9 for r in rows))
PY
expect_exit "-I with --folded is refused" 2 "$FRUGAL" lock -I 1 --folded
finish
