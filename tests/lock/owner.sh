#!/usr/bin/env bash
# -o: rows keyed by the lock's owner when the wait began.  The bench's
# --owner workload has one thread ("holder") holding a file's inode lock
# through long writes while others ("waiter") write a page now and then:
# owner mode must charge at least 90% of the waiters' wait to the holder,
# and what has no recorded owner is a row of its own, never guessed.  (-Y
# keeps the lock types that record an owner: a spinlock wait has none.  The
# holder's own waits come while the lock is handed to a waiter, when it
# records no owner: that is why the waiters are traced, by thread id.)  Then -G with
# two cgroups: only the tasks of the cgroups named are traced.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock -o" || finish
BENCH="$FRUGAL bench lock -T 0 -P 0 --owner 3 -d 1 --delay 0.3"

# The waiters' waits, by owner: the bench's threads exist once it says it
# is ready, frugal follows the waiters' thread ids, the run starts once it
# has attached, and frugal stops once the run is over.
"$FRUGAL" bench lock -T 0 -P 0 --owner 2 -d 1 --start-on-usr1 --hold 20 2>"$_tmp/ob" & b=$!
bench_ready "$_tmp/ob" $b >/dev/null || fail "owner: the bench said it was ready" "$(cat "$_tmp/ob")"
tids=$(for t in /proc/$b/task/*; do [ "$(cat "$t/comm" 2>/dev/null)" = waiter ] && basename "$t"; done | paste -sd,)
"$FRUGAL" lock -o -Y rwsem,mutex --json -v --tid "$tids" >"$_tmp/o.json" 2>"$_tmp/o.err" & f=$!
wait_for "$_tmp/o.err" attached 120 || fail "owner: frugal attached" "$(tail -3 "$_tmp/o.err")"
kill -USR1 $b
run_over "$_tmp/ob" $b
kill -INT $f; wait $f; kill $b; wait $b 2>/dev/null
check "owner: -o implies -t (task rows), and JSON says they are owners" \
	test "$(json "$_tmp/o.json" 'd["mode"], d.get("owner")')" = "('task', True)"
# Which holder a wait is charged to: the holders at release where the
# kernel has lock:contended_release (Linux 7.x: tests/kernels/check.py
# checks them there), else the owner at begin, and the report says which.
if grep -q "contended_release yes" "$_tmp/o.err"; then
	check "owner: at release, where the kernel has lock:contended_release" test "$(json "$_tmp/o.json" \
		'd["owner_at"], d["owner_why"]')" = "('release', 'lock:contended_release')"
else
	check "owner: at begin, and JSON says why (no lock:contended_release here)" test "$(json "$_tmp/o.json" \
		'd["owner_at"], d["owner_why"], "shares" in d["accounting"]')" = \
		"('begin', 'this kernel has no lock:contended_release', False)"
	expect_exit "--owner-at release is refused without lock:contended_release" 1 \
		"$FRUGAL" lock -o --owner-at release -d 0.1
	check "--owner-at release: one line says why" \
		test "$(grep -c 'no lock:contended_release event' "$_tmp/stderr")" = 1
	expect_exit "--hold is refused without lock:contended_release" 1 "$FRUGAL" lock --hold -d 0.1
	check "--hold: one line says why" test "$(grep -c -- '--hold: this kernel has no lock:contended_release event' "$_tmp/stderr")" = 1
fi
expect_exit "--hold with -o is refused" 2 "$FRUGAL" lock --hold -o -d 0.1
expect_exit "--hold with -U is refused" 2 "$FRUGAL" lock --hold -U -d 0.1
check "owner: the holder is a row" test "$(json "$_tmp/o.json" \
	'any(r["comm"] == "holder" for r in d["rows"])')" = True
# Of the waits that began with an owner recorded: a wait that began while
# the lock was being released or handed over has none (the [no owner] row,
# longer when the machine is loaded and the releasing task is preempted),
# and is reported as such, not charged to a guess.
read -r share noown < <(json "$_tmp/o.json" '"%.1f %.1f" % (
	100 * sum(r["wait_total_ns"] for r in d["rows"] if r["comm"] == "holder") / max(1, sum(r["wait_total_ns"] for r in d["rows"] if r["pid"] != 0)),
	100 * sum(r["wait_total_ns"] for r in d["rows"] if r["pid"] == 0) / max(1, sum(r["wait_total_ns"] for r in d["rows"])))')
check "owner: >= 90% of the waiters' wait with a recorded owner is the holder's ($share%; $noown% had none)" \
	python3 -c "import sys; sys.exit(not $share >= 90)"
"$FRUGAL" lock -o --json -- $BENCH >"$_tmp/o2.json" 2>/dev/null
check "owner: waits without a recorded owner are one row, pid 0, [no owner]" test "$(json "$_tmp/o2.json" \
	'sum(1 for r in d["rows"] if r["pid"] == 0) <= 1 and all(r["pid"] != 0 or r["comm"] == "[no owner]" for r in d["rows"])')" = True
check "owner: the rows add up to the accounting" test "$(json "$_tmp/o2.json" \
	'sum(r["contended"] for r in d["rows"]) == d["accounting"]["in_rows"]')" = True

# -o -v: each owner row with the owner's stack at its first wait: the
# holder was writing its file, holding the file's inode lock.  The kernel
# gives no stack of a task running on another CPU at that moment, so the
# workload runs on one CPU: a waiter runs only while the holder is off it.
"$FRUGAL" lock -o -v -Y rwsem --json -- taskset -c 0 $BENCH >"$_tmp/ov.json" 2>"$_tmp/ov.err"
if grep -q "owners' stacks from bpf_task_from_pid" "$_tmp/ov.err"; then
	check "owner -v: the holder's stack is in the write path" test "$(json "$_tmp/ov.json" \
		'any(r["comm"] == "holder" and any(f.split("+")[0] in ("shmem_file_write_iter", "generic_perform_write", "vfs_write") for f in r.get("owner_stack", [])) for r in d["rows"])')" = True
else
	skip "owner -v: stacks" "$(grep "owners' stacks" "$_tmp/ov.err")"
fi

"$FRUGAL" lock -t -Y rwsem --json -- $BENCH >"$_tmp/t.json" 2>/dev/null
check "without -o, the waiters are the rows that wait most on the rwsem" test "$(json "$_tmp/t.json" \
	'max(d["rows"], key=lambda r: r["wait_total_ns"])["comm"]')" = waiter
expect_exit "-o with -l is refused" 2 "$FRUGAL" lock -o -l
expect_exit "--owner-at without -o is refused" 2 "$FRUGAL" lock --owner-at begin -d 0.1
expect_exit "--owner-at takes begin, release or auto" 2 "$FRUGAL" lock -o --owner-at end -d 0.1

# -l: a lock in a slab object is named by its cache, as perf names it; the
# holder's file's inode lock is in shmem_inode_cache.
"$FRUGAL" lock -l -v --json -- $BENCH >"$_tmp/l.json" 2>"$_tmp/l.err"
if grep -q "slab cache names from bpf_get_kmem_cache" "$_tmp/l.err"; then
	check "-l: the inode lock the waiters wait on is &shmem_inode_cache" test "$(json "$_tmp/l.json" \
		'max((r for r in d["rows"] if r["type"] == "rwsem:W"), key=lambda r: r["wait_total_ns"])["symbol"]')" = "&shmem_inode_cache"
	awk 'NR > 2 { print "&" $1 }' /proc/slabinfo | sort -u >"$_tmp/caches"
	json "$_tmp/l.json" '"\n".join(sorted({r["symbol"] for r in d["rows"] if r["symbol"].startswith("&")}))' >"$_tmp/named"
	check "-l: every slab name is a cache of /proc/slabinfo ($(tr '\n' ' ' <"$_tmp/named"))" \
		test -s "$_tmp/named" -a -z "$(comm -23 "$_tmp/named" "$_tmp/caches")"
else
	skip "-l slab names" "$(grep 'slab cache names' "$_tmp/l.err")"
fi

# -q: nothing logged, even with -v.
"$FRUGAL" lock -v -q -d 0.1 >/dev/null 2>"$_tmp/q.err"
check "-q: no log line with -v" test ! -s "$_tmp/q.err"

# -G: two cgroups of the v2 hierarchy, a bench in each.
root=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -z "$root" ] || ! mkdir "$root/frugal-test-a-$$" "$root/frugal-test-b-$$" 2>/dev/null; then
	skip "-G" "no writable cgroup v2 hierarchy here"
	finish
fi
A=/frugal-test-a-$$ B=/frugal-test-b-$$
in_cgroup() { local cg=$1; shift; sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$root$cg" "$@"; }
in_cgroup $A "$FRUGAL" bench lock -T 2 -P 2 -d 1 --delay 0.5 2>/dev/null & a=$!
in_cgroup $B "$FRUGAL" bench lock -T 2 -P 2 -d 1 --delay 0.5 2>/dev/null & b=$!
"$FRUGAL" lock -a -g -G $A --json -d 1.5 >"$_tmp/ga.json" 2>"$_tmp/ga.err" & f1=$!
"$FRUGAL" lock -a -g -G "$A,$B" --json -d 1.5 >"$_tmp/gab.json" 2>/dev/null & f2=$!
wait $f1 $f2 $a $b
check "-G A: rows, all of cgroup A" test "$(json "$_tmp/ga.json" \
	'len(d["rows"]) > 0 and all(r["cgroup"] == "'$A'" for r in d["rows"])')" = True
check "-G A,B: rows of both, of no other" test "$(json "$_tmp/gab.json" \
	'{r["cgroup"] for r in d["rows"]} == {"'$A'", "'$B'"}')" = True
rmdir "$root$A" "$root$B" 2>/dev/null
expect_exit "-G: a cgroup that does not exist, one line, exit 1" 1 "$FRUGAL" lock -G /no-such-cgroup-$$ -d 0.1
check "-G: the message names it" test "$err" = "frugal lock: -G: /no-such-cgroup-$$: No such file or directory"
finish
