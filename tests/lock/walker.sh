#!/usr/bin/env bash
# The stack walker (docs/lock.md): after learning frame sizes from the
# kernel's unwinds, frugal walks stacks itself.  --stack-check unwinds every
# stack anyway and counts walked stacks that differ: there must be none, on
# both attach paths, at the default depth and at -v's, on the built-in
# workload and (when perf is there) on perf's scheduler and epoll benchmarks,
# whose paths are different.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "stack walker" || finish

acct() { json "$1" "d['accounting']['$2']"; }

# check_walk NAME FILE: the run walked most stacks and none differed.
check_walk() {
	local walked unwound mism waits
	walked=$(acct "$2" stacks_walked)
	unwound=$(acct "$2" stacks_unwound)
	mism=$(acct "$2" stack_mismatches)
	# Stacks are taken at the begin, once a wait (a repeated begin of one
	# wait keeps its first stack; nothing is filtered here).
	waits=$(json "$2" 'd["accounting"]["begins"] - d["accounting"]["rebegins"] - d["accounting"]["lost_task"]')
	check "$1: stacks were walked ($walked walked, $unwound unwound)" \
		test "${walked:-0}" -gt "${unwound:-0}"
	check "$1: no walked stack differs from the kernel's unwind ($mism)" test "$mism" = 0
	# The first difference, walked / unwound, as -v logged it.
	[ "$mism" = 0 ] || grep -A16 'differed, walked' "${2%.json}.err" || true
	check "$1: every wait got a stack ($walked + $unwound = $waits)" \
		test $((walked + unwound)) = "$waits"
}

BENCH="$FRUGAL bench lock -T 4 -P 2 -d 1"
"$FRUGAL" lock -v --max-stack 4 --stack-check --json -- $BENCH >"$_tmp/w.json" 2>"$_tmp/w.err"
check_walk "tp_btf" "$_tmp/w.json"
"$FRUGAL" lock --raw-tp -v --max-stack 4 --stack-check --json -- $BENCH >"$_tmp/r.json" 2>"$_tmp/r.err"
check_walk "raw_tp" "$_tmp/r.json"
"$FRUGAL" lock -v --stack-check --json -- $BENCH >"$_tmp/v.json" 2>"$_tmp/v.err"
check_walk "-v (8 frames)" "$_tmp/v.json"
# --nested: two probes per tracepoint, so the iterator's frame is on every stack.
"$FRUGAL" lock -v --nested --stack-check --json -- $BENCH >"$_tmp/t.json" 2>"$_tmp/t.err"
check_walk "--nested" "$_tmp/t.json"

if perf bench sched messaging -g 1 -l 1 >/dev/null 2>&1; then
	"$FRUGAL" lock -v --stack-check --json -- perf bench sched messaging -g 4 -p -l 200 \
		>"$_tmp/m.out" 2>/dev/null
	sed -n '/^{/,$p' "$_tmp/m.out" >"$_tmp/m.json"
	mism=$(acct "$_tmp/m.json" stack_mismatches)
	check "perf sched messaging: no walked stack differs ($mism)" test "$mism" = 0
	"$FRUGAL" lock --stack-check --json -- perf bench epoll wait -r 1 -t 4 \
		>"$_tmp/e.out" 2>/dev/null
	sed -n '/^{/,$p' "$_tmp/e.out" >"$_tmp/e.json"
	check_walk "perf epoll" "$_tmp/e.json"
else
	skip "perf's benchmarks" "perf bench is not available"
fi

# By default ours is the tracepoints' only probe, until another
# tracer attaches, and the tracepoint iterator's frame joins the stacks
# while it is there.  One bench run without bpftrace, one with it: walked
# stacks must stay right through the change, and the rows must not split
# over that frame (the report drops it and merges what it split).
if command -v bpftrace >/dev/null; then
	# The two runs are one workload, traced from its start: system-wide,
	# a wait in progress when frugal attached would end without its begin.
	# It runs the bench, says "first", and the second bench once told "go".
	two_runs='"$1" bench lock -T 4 -P 2 -d 1 >/dev/null 2>&1; : >"$2/first"
		while [ ! -e "$2/go" ]; do sleep 0.05; done
		"$1" bench lock -T 4 -P 2 -d 1 >/dev/null 2>&1'
	"$FRUGAL" lock -v --stack-check --json -- sh -c "$two_runs" sh "$FRUGAL" "$_tmp" \
		>"$_tmp/s.json" 2>"$_tmp/s.err" & f=$!
	until [ -e "$_tmp/first" ] || ! kill -0 $f 2>/dev/null; do sleep 0.05; done
	# The bench's comm is frugal's; bpftrace prints its count every 50 ms.
	bpftrace -e 'tracepoint:lock:contention_begin /comm == "frugal"/ { @n = count(); }
		interval:ms:50 { print(@n); }' >"$_tmp/bt.out" 2>&1 & bt=$!
	wait_for "$_tmp/bt.out" '^@n: ' || fail "one program: bpftrace attached" "$(cat "$_tmp/bt.out")"
	: >"$_tmp/go"
	wait_for "$_tmp/bt.out" '^@n: [0-9]\{4,\}'
	check "one program: bpftrace saw the second bench run beside us" \
		grep -q '^@n: [0-9]\{4,\}' "$_tmp/bt.out"
	wait $f
	stop_tracer $bt
	check_walk "one program, another tracer for a while" "$_tmp/s.json"
	check "one program: no two rows show the same caller and stack" holds "$_tmp/s.json" \
		'len(d["rows"]) == len(set((r["caller"], tuple(r["stack"])) for r in d["rows"]))'
	check "one program: merged, the rows still hold every wait (rows + losses == completed)" holds "$_tmp/s.json" \
		'sum(r["contended"] for r in d["rows"]) + d["accounting"]["filtered"] + d["accounting"]["lost_no_begin"] + d["accounting"]["lost_ringbuf"] == d["accounting"]["completed"]'
	# bpftrace was on contention_begin alone: the begins came through the
	# iterator, deeper by its frame, and the ends did not (lock.bpf.c,
	# same_frame()); each end must still have found its begin.
	check_losses "one program: every end found its begin, with another tracer on the begins alone" "$_tmp/s.json"
else
	skip "one program with another tracer" "bpftrace is not installed"
fi

"$FRUGAL" lock --no-stack-walk --json -- $BENCH >"$_tmp/n.json" 2>/dev/null
check "--no-stack-walk: nothing walked" test "$(acct "$_tmp/n.json" stacks_walked)" = 0
check "--no-stack-walk: the rows still name callers" \
	test "$(json "$_tmp/n.json" "sum(1 for r in d['rows'] if r['caller'])")" -gt 0
finish
