#!/usr/bin/env bash
# Filters applied in BPF (-Y, -L, -S), and the report's -E, -k, -F and -x,
# each checked on parsed output.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock filters" || finish
BENCH="$FRUGAL bench lock -T 4 -P 4 -d 0.6 --delay 0.3"

"$FRUGAL" lock -Y mutex --json -- $BENCH >"$_tmp/y.json" 2>/dev/null
check "-Y mutex: only mutex rows, and some" test "$(json "$_tmp/y.json" \
	'len(d["rows"]) > 0 and all(r["type"]=="mutex" for r in d["rows"])')" = True
check "-Y mutex: the others are counted as filtered" test "$(json "$_tmp/y.json" \
	'd["accounting"]["filtered"] > 0 and d["accounting"]["completed"] == sum(r["contended"] for r in d["rows"]) + d["accounting"]["filtered"] + d["accounting"]["lost_no_begin"] + d["accounting"]["lost_ringbuf"]')" = True
"$FRUGAL" lock -Y rwsem:W --json -- $BENCH >"$_tmp/yw.json" 2>/dev/null
check "-Y rwsem:W: only rwsem:W rows" test "$(json "$_tmp/yw.json" \
	'len(d["rows"]) > 0 and all(r["type"]=="rwsem:W" for r in d["rows"])')" = True

# -L: the mmap_lock address found by -l in one run cannot be known in
# advance, so filter on an address that is not a lock and expect nothing,
# then on a static lock symbol and expect the filter to resolve it.
"$FRUGAL" lock -L 0x1000 --json -- $BENCH >"$_tmp/L.json" 2>/dev/null
# (an end whose begin the kernel skipped is counted as lost_no_begin, not
# as filtered: the begin was never seen, so neither was its lock)
check "-L: an address nobody locks gives no rows, all filtered ($(json "$_tmp/L.json" \
	'[d["accounting"][k] for k in ("completed", "filtered", "lost_no_begin", "lost_ringbuf")]'))" \
	test "$(json "$_tmp/L.json" 'len(d["rows"]) == 0 and d["accounting"]["filtered"] > 0 and d["accounting"]["completed"] == d["accounting"]["filtered"] + d["accounting"]["lost_no_begin"] + d["accounting"]["lost_ringbuf"]')" = True
check_losses "-L: ... and any loss is explained by skipped or dropped begins" "$_tmp/L.json"
expect_exit "-L: a symbol that does not exist is a usage error" 2 "$FRUGAL" lock -L no_such_lock_symbol -d 0.1
check "-L: the message names the value" grep -q "no_such_lock_symbol" <<<"$err"
sym=$(awk '$2 ~ /^[dDbB]$/ { print $3; exit }' /proc/kallsyms)
if [ -n "$sym" ]; then
	check "-L: a kernel data symbol ($sym) is accepted" "$FRUGAL" lock -L "$sym" -d 0.1 -x,
else
	skip "-L: a kernel data symbol is accepted" "no data symbols in /proc/kallsyms"
fi

"$FRUGAL" lock -S anon_pipe_write --json -- $BENCH >"$_tmp/S.json" 2>/dev/null
# On failure the name says how many rows and the first one without it.
check "-S anon_pipe_write: rows all have it in their stack ($(json "$_tmp/S.json" \
	'"%d rows%s" % (len(d["rows"]), "".join(" e.g. %d waits: " % r["contended"] + ";".join(r["stack"]) for r in d["rows"] if not any("anon_pipe_write" in f for f in r["stack"]))[:600])'))" \
	test "$(json "$_tmp/S.json" \
	'len(d["rows"]) > 0 and all(any("anon_pipe_write" in f for f in r["stack"]) for r in d["rows"])')" = True
# -S looks at the frames shown, not at one more kept below them: with one
# tracing frame on top instead of two, the kernel keeps a frame the report
# does not show.  anon_pipe_write is never a wait's first frame (a lock's
# slow path is), and is the second of the pipe mutex's.
"$FRUGAL" lock -S anon_pipe_write --max-stack 1 --json -- $BENCH >"$_tmp/S1.json" 2>/dev/null
check "-S anon_pipe_write --max-stack 1: no rows, every wait filtered ($(json "$_tmp/S1.json" \
	'[len(d["rows"]), d["accounting"]["filtered"]] + [r["stack"] for r in d["rows"]][:2]'))" \
	test "$(json "$_tmp/S1.json" 'len(d["rows"]) == 0 and d["accounting"]["filtered"] > 0')" = True
"$FRUGAL" lock -S anon_pipe_write --max-stack 2 --json -- $BENCH >"$_tmp/S2.json" 2>/dev/null
check "-S anon_pipe_write --max-stack 2: rows, each with it as its second frame" \
	test "$(json "$_tmp/S2.json" \
	'len(d["rows"]) > 0 and all(len(r["stack"]) == 2 and "anon_pipe_write" in r["stack"][1] for r in d["rows"])')" = True

# report options over one table of rows
"$FRUGAL" lock -k contended -E 2 -x , -F contended,wait_min,avg_wait -- $BENCH >"$_tmp/x.csv" 2>/dev/null
check "-x: CSV header with the -F fields" test "$(head -1 "$_tmp/x.csv")" = "contended,wait_min,avg_wait,type,caller"
check "-x -E 2 -k contended: two rows, raw numbers, sorted by contended" python3 - "$_tmp/x.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#")][1:]
assert len(rows) == 2, rows
assert all(x.isdigit() for r in rows for x in r[:3]), rows
assert int(rows[0][0]) >= int(rows[1][0]), rows
PY
check "-x: accounting as # comments" grep -q '^# contentions completed' "$_tmp/x.csv"

"$FRUGAL" lock -k wait_max --json -- $BENCH >"$_tmp/k.json" 2>/dev/null
check "-k wait_max: rows in descending max wait" test "$(json "$_tmp/k.json" \
	'[r["wait_max_ns"] for r in d["rows"]] == sorted([r["wait_max_ns"] for r in d["rows"]], reverse=True)')" = True
check "--json: metadata" test "$(json "$_tmp/k.json" \
	'd["mode"] == "caller" and d["map_entries"] == 16384 and d["attach"] in ("tp_btf","raw_tp") and d["targets"]["exit_status"] == 0')" = True
finish
