#!/usr/bin/env bash
# -U: user-space lock waits (futex), by user call stack unwound from DWARF
# CFI.  A fixture (fixtures/ucontend.c) has threads contend on a pthread
# lock inside functions of known names and measures its own waits with
# clock_gettime around each lock call.  frugal must name that function for
# at least 99% of the fixture's waits it saw (all but the main thread's
# join), and their total must be within the fixture's own (+5%): its clock
# also counts what the lock call does outside the futex syscall, and any
# time the thread is preempted there, so the share is not fixed (one idle
# round: 93.9%, the fixture's total twice the usual; a fixed 95% floor
# failed it).  Every wait the kernel counts is in a row or a counted loss
# (below); that the waits are all named holds whether the fixture has frame
# pointers or not (Debian's libc has none),
# for a mutex, an rwlock and a condition variable; on a stripped binary
# whose debug file sits under a .build-id directory; for a process that
# exits before the report; and in one report with the kernel's rows.
# Every futex wait the kernel counts (perf stat, inside frugal's window)
# is in a row or a counted loss.  The thread that empties the kernel's
# buffers runs 10 nice levels ahead of the workload.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock -U" || finish
# frugal probes the futex event itself (under /sys/kernel/tracing, mounting
# tracefs there if need be): its one line is the skip's reason.  Any other
# failure is left to the checks below, to fail there.
if ! "$FRUGAL" lock -U -d 0.05 >/dev/null 2>"$_tmp/probe-u.err" &&
   grep -q 'no syscalls:sys_enter_futex event' "$_tmp/probe-u.err"; then
	skip "lock -U" "$(head -1 "$_tmp/probe-u.err")"
	finish
fi
SRC="$TOP/tests/lock/fixtures/ucontend.c"
# The reader unwinds each stack; on a machine whose CPUs are all busy (the
# soak's stress-ng) it runs late, and 128 stacks a CPU (the default ring)
# were seen to fill: counted as lost, as they must be, but the tests check
# the names, so they give the ring room, as a user on a loaded machine would.
U="--ring-size 4096"
gcc -O2 -g -fomit-frame-pointer -o "$_tmp/nofp" "$SRC" -lpthread &&
gcc -O2 -g -fno-omit-frame-pointer -o "$_tmp/fp" "$SRC" -lpthread || {
	fail "lock -U: fixture" "gcc failed"; finish; }

# share FRUGAL_JSON FIXTURE_OUT FUNC [TYPES]: the wait of the rows whose
# stack holds FUNC (and of TYPES, if given), the wait of all user rows but
# the main thread's (its join), and the fixture's own measure, as
# "named_ns seen_ns fixture_ns".
share() {
	python3 - "$1" "$2" "$3" "${4:-}" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
fixture = int(open(sys.argv[2]).read().split()[1])
func, types = sys.argv[3], sys.argv[4].split(",") if sys.argv[4] else None
user = [r for r in d["rows"] if r.get("user")]
ns = sum(r["wait_total_ns"] for r in user if
         any(f.split("+")[0] == func for f in r["stack"]) and
         (types is None or r["type"] in types))
seen = sum(r["wait_total_ns"] for r in user if not any(f.startswith("main+") for f in r["stack"]))
print(ns, seen, fixture)
EOF
}
# within NAMED SEEN FIXTURE NAME: >= 99% of what frugal saw named, and no
# more than the fixture's clock (+5%)
within() {
	check "$4 ($1 of $2 ns seen; the fixture's clock $3 ns)" python3 -c \
		"import sys; sys.exit(not (0 < $1 and $1 >= 0.99 * $2 and $1 <= 1.05 * $3))"
}

for bin in nofp fp; do
	"$FRUGAL" lock $U --user-only --json --output "$_tmp/$bin.json" -- \
		"$_tmp/$bin" mutex 4 1500 20 >"$_tmp/$bin.out" 2>"$_tmp/$bin.err"
	read -r f a x < <(share "$_tmp/$bin.json" "$_tmp/$bin.out" contend_mutex pthread_mutex)
	within "$f" "$a" "$x" "lock -U ($bin): pthread_mutex waits named contend_mutex"
	check "lock -U ($bin): the caller column names the fixture's function" test "$(json \
		"$_tmp/$bin.json" 'max((r for r in d["rows"] if r["type"] == "pthread_mutex"), key=lambda r: r["wait_total_ns"])["caller"].startswith("contend_mutex+0x")')" = True
	# What went where, in the check's name: a failure then says why.
	acct=$(json "$_tmp/$bin.json" '" ".join("%s=%s" % (k[5:], v) for k, v in d["accounting"].items()
		if k.startswith("user_") and k[5:] in ("waits", "in_rows", "lost_begin", "lost_end",
		"unjoined", "lost_task", "open_at_stop", "lost_records", "queue_peak_bytes"))')
	check "lock -U ($bin): each wait in a row or a counted loss ($acct)" test "$(json "$_tmp/$bin.json" '[(
		a["user_completed"] == a["user_in_rows"] + a["user_filtered"] + a["user_lost_begin"] + a["user_lost_end"] + a["user_unjoined"] and
		a["user_waits"] == a["user_completed"] + a["user_open_at_stop"] + a["user_lost_task"] and
		a["user_in_rows"] == sum(r["contended"] for r in d["rows"]) and
		a["user_lost_begin"] + a["user_lost_end"] + a["user_lost_task"] == 0)
		for a in [d["accounting"]]][0]')" = True
done

# The unwinder stalled: each process's debug information comes 800 ms
# late (fixtures/slowdwfl.c, preloaded), longer than the fixture runs.  At
# the default ring (128 stacks a CPU) the records pile up faster than that:
# they must wait in user space, every wait named, none lost.
# (An ASan build of frugal refuses a preload ahead of its runtime unless
# told not to check: the preload only wraps libdwfl.)
gcc -O2 -shared -fPIC -o "$_tmp/slowdwfl.so" "$TOP/tests/lock/fixtures/slowdwfl.c" -ldl &&
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
SLOWDWFL_MS=800 LD_PRELOAD="$_tmp/slowdwfl.so" "$FRUGAL" lock --user-only --json \
	--output "$_tmp/slow.json" -- "$_tmp/nofp" mutex 4 1500 20 >"$_tmp/slow.out" 2>/dev/null
read -r f a x < <(share "$_tmp/slow.json" "$_tmp/slow.out" contend_mutex pthread_mutex)
within "$f" "$a" "$x" "lock -U: the unwinder 800 ms late, waits still named"
check "lock -U: the unwinder 800 ms late, nothing lost, the records queued ($(json \
	"$_tmp/slow.json" 'd["accounting"]["user_queue_peak_bytes"]') bytes at most)" test "$(json "$_tmp/slow.json" '[(
	a["user_lost_begin"] + a["user_lost_end"] + a["user_lost_records"] == 0 and
	a["user_queue_peak_bytes"] > 0 and
	a["user_completed"] == a["user_in_rows"] + a["user_unjoined"])
	for a in [d["accounting"]]][0]')" = True

# The thread that empties the kernel's buffers runs 10 nice levels ahead of
# frugal and the workload, the unwinder at frugal's: seen from the
# workload, which starts once the programs are attached and the reader is
# running; at nice 0, and under `nice -n 5`.
for ni in 0 5; do
	nice -n $ni "$FRUGAL" lock --user-only --output "$_tmp/nice.txt" -- sh -c \
		'for t in /proc/$PPID/task/*; do cut -d" " -f19 "$t/stat"; done' >"$_tmp/nice.out" 2>&1
	check "lock -U: under nice $ni, the buffers' reader at $((ni - 10)), the rest at $ni ($(tr '\n' ' ' <"$_tmp/nice.out"))" \
		test "$(sort -n "$_tmp/nice.out" | tr '\n' ' ')" = "$((ni - 10)) $ni "
done

# Our walk (memoized CFI rules) against libdwfl's unwinder, stack by
# stack, deep enough to reach the threads' outermost frames.
for bin in nofp fp; do
	"$FRUGAL" lock $U --user-only --stack-check --max-stack 30 --json --output "$_tmp/sc.json" -- \
		"$_tmp/$bin" mutex 4 500 20 >/dev/null 2>&1
	check "lock -U --stack-check ($bin): every stack walked, none differs from libdwfl's" \
		test "$(json "$_tmp/sc.json" '[a["user_stacks_walked"] == a["user_stacks_unwound"] > 0 and
		a["user_stack_mismatches"] == 0 and a["user_stacks_by_libdwfl"] == 0 and
		any(r["stack"][-1].startswith("__clone") for r in d["rows"]) for a in [d["accounting"]]][0]')" = True
done

# rwlock: readers and writers, each named; cond: the wait in
# pthread_cond_wait, and the mutex taken back inside it, under contend_cond.
"$FRUGAL" lock $U --user-only --json --output "$_tmp/rw.json" -- \
	"$_tmp/nofp" rwlock 4 1500 20 >"$_tmp/rw.out" 2>/dev/null
read -r fw a x < <(share "$_tmp/rw.json" "$_tmp/rw.out" contend_rwlock_write pthread_rwlock:W)
read -r fr a x < <(share "$_tmp/rw.json" "$_tmp/rw.out" contend_rwlock_read pthread_rwlock:R)
within $((fw + fr)) "$a" "$x" "lock -U: pthread_rwlock waits named, writers and readers"
check "lock -U: rwlock rows of both modes" test "$(json "$_tmp/rw.json" \
	'sorted({r["type"] for r in d["rows"] if "rwlock" in r["type"]})')" = "['pthread_rwlock:R', 'pthread_rwlock:W']"
"$FRUGAL" lock $U --user-only --json --output "$_tmp/cv.json" -- \
	"$_tmp/nofp" cond 2 1000 50 >"$_tmp/cv.out" 2>/dev/null
read -r fc fall x < <(python3 - "$_tmp/cv.json" "$_tmp/cv.out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
fixture = int(open(sys.argv[2]).read().split()[1])
# the waits inside pthread_cond_wait: all of them, and those unwound on to
# contend_cond, its only caller
cv = [r for r in d["rows"] if r.get("user") and any("pthread_cond_wait" in f for f in r["stack"])]
named = sum(r["wait_total_ns"] for r in cv if any(f.startswith("contend_cond+") for f in r["stack"]))
print(named, sum(r["wait_total_ns"] for r in cv), fixture)
EOF
)
# The fixture's clock also counts what pthread_cond_wait does between its
# futex calls, and any time the thread is preempted there (by our own
# unwinding, say), so the waits are at most its figure, not a fixed share.
check "lock -U: pthread_cond waits, all unwound on to contend_cond ($fc of $fall ns)" \
	python3 -c "import sys; sys.exit(not ($fc > 0 and $fc >= 0.99 * $fall))"
check "lock -U: pthread_cond waits within the fixture's clock around them ($fc of $x ns)" \
	python3 -c "import sys; sys.exit(not ($fc <= 1.05 * $x))"
check "lock -U: the condition variable's rows say pthread_cond" test "$(json "$_tmp/cv.json" \
	'any(r["type"] == "pthread_cond" for r in d["rows"])')" = True

# A stripped binary: its symbols only in a debug file under .build-id.
cp "$_tmp/nofp" "$_tmp/stripped"
id=$(readelf -n "$_tmp/stripped" | awk '/Build ID/ { print $3 }')
mkdir -p "$_tmp/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug "$_tmp/stripped" "$_tmp/debug/.build-id/${id:0:2}/${id:2}.debug" &&
strip --strip-all "$_tmp/stripped"
check "lock -U: the stripped fixture has no symbol table" \
	bash -c "! readelf -S '$_tmp/stripped' | grep -q '\.symtab'"
"$FRUGAL" lock $U --user-only --json --output "$_tmp/st.json" --debug-dir "$_tmp/none:$_tmp/debug" -- \
	"$_tmp/stripped" mutex 4 1500 20 >"$_tmp/st.out" 2>/dev/null
read -r f a x < <(share "$_tmp/st.json" "$_tmp/st.out" contend_mutex pthread_mutex)
within "$f" "$a" "$x" "lock -U: stripped binary named from its .build-id debug file"

# The C library's debug file, with and without: --debug-dir '' searches no
# debug directory, as on an install without libc6-dbg.  A wait begins in
# libc's internals (__lll_lock_wait, __futex_abstimed_wait_common), which
# only its .symtab names, in that file (or in MiniDebugInfo, which Debian's
# libc has not); .dynsym names pthread_mutex_lock.  Either way the caller is
# the fixture's function, the main thread's join is main's, the waits are
# named and every stack is walked as libdwfl walks it (.eh_frame suffices).
libc=$(ldd "$_tmp/nofp" | awk '$1 ~ /^libc\.so/ { print $3 }')
id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
mini=$(readelf -S "$libc" | grep -c '\.gnu_debugdata')
top='max((r for r in d["rows"] if r["type"] == "pthread_mutex"), key=lambda r: r["wait_total_ns"])'
joins='[r["caller"] for r in d["rows"] if any(f.startswith("main+") for f in r["stack"])]'
for dbg in none system; do
	if [ $dbg = none ]; then dd=(--debug-dir ''); lbl="--debug-dir '' (no debug file)"
	else dd=(); lbl="with libc's debug file"; fi
	j="$_tmp/lc-$dbg.json"
	"$FRUGAL" lock $U --user-only "${dd[@]}" --json --output "$j" -- \
		"$_tmp/nofp" mutex 4 1500 20 >"$_tmp/lc-$dbg.out" 2>/dev/null
	inner=$(json "$j" "$top['stack'][0]" 2>/dev/null)
	# What the case means: libc's innermost frame named only with the file.
	if [ $dbg = system ] && [ ! -e "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ]; then
		skip "lock -U with libc's debug file" "none for $libc (libc6-dbg)"
		continue
	elif [ $dbg = system ]; then
		check "lock -U $lbl: libc's internals named ($inner)" \
			holds "$j" "'(libc.so' in $top['stack'][0] and not $top['stack'][0].startswith('0x')"
	elif [ "$mini" = 0 ]; then
		check "lock -U $lbl: libc's internals unnamed ($inner)" \
			holds "$j" "'(libc.so' in $top['stack'][0] and $top['stack'][0].startswith('0x')"
	fi
	check "lock -U $lbl: the caller is the fixture's function ($(json "$j" "$top['caller']" \
		2>/dev/null))" holds "$j" "$top['caller'].startswith('contend_mutex+0x')"
	check "lock -U $lbl: the join's caller is main ($(json "$j" "$joins" 2>/dev/null))" \
		holds "$j" "$joins and all(c.startswith('main+0x') for c in $joins)"
	read -r f a x < <(share "$j" "$_tmp/lc-$dbg.out" contend_mutex pthread_mutex)
	within "$f" "$a" "$x" "lock -U $lbl: pthread_mutex waits named contend_mutex"
done
# The walk needs no debug file: .eh_frame has every rule, down to clone3.
"$FRUGAL" lock $U --user-only --debug-dir '' --stack-check --max-stack 30 --json \
	--output "$_tmp/lcs.json" -- "$_tmp/nofp" mutex 4 500 20 >/dev/null 2>&1
check "lock -U --stack-check --debug-dir '': every stack walked, none differs from libdwfl's" \
	holds "$_tmp/lcs.json" '[a["user_stacks_walked"] == a["user_stacks_unwound"] > 0 and
	a["user_stack_mismatches"] == 0 and a["user_stacks_by_libdwfl"] == 0 and
	any("(libc.so" in r["stack"][-1] for r in d["rows"]
	    if any(f.startswith("worker+") for f in r["stack"])) for a in [d["accounting"]]][0]'

# A process that exits before the report: the shell outlives the fixture.
"$FRUGAL" lock $U --user-only --json --output "$_tmp/ex.json" -- \
	sh -c "'$_tmp/nofp' mutex 4 1000 20 >'$_tmp/ex.out'; sleep 0.5" 2>/dev/null
read -r f a x < <(share "$_tmp/ex.json" "$_tmp/ex.out" contend_mutex pthread_mutex)
within "$f" "$a" "$x" "lock -U: a process gone before the report keeps its names"

# Kernel and user rows in one report: the fixture beside the bench's
# mmap_lock contention; kernel rows sum to the kernel accounting.
"$FRUGAL" lock $U -U --json --output "$_tmp/ku.json" -- sh -c \
	"'$_tmp/nofp' mutex 4 1000 20 >/dev/null & '$FRUGAL' bench lock -d 0.5 >/dev/null 2>&1; wait" 2>/dev/null
check "lock -U: kernel and user rows in one report, each adding up" test "$(json "$_tmp/ku.json" '(
	any(r.get("user") for r in d["rows"]) and any(not r.get("user") for r in d["rows"]) and
	sum(r["contended"] for r in d["rows"] if not r.get("user")) == d["accounting"]["in_rows"] and
	sum(r["contended"] for r in d["rows"] if r.get("user")) == d["accounting"]["user_in_rows"])')" = True
"$FRUGAL" lock $U -U -- "$_tmp/nofp" mutex 4 1500 20 >"$_tmp/ku.txt" 2>/dev/null
check "lock -U: the table shows the user rows' type and caller" \
	grep -Eq 'pthread_mutex +contend_mutex\+0x[0-9a-f]+ \(nofp\)' "$_tmp/ku.txt"

# The kernel's count: perf stat of the fixture's futex wait entries, run
# inside frugal's window, equals the waits in rows under the fixture's frames.
ops=$(for b in 0 6 9 11 13; do for f in 0 128 256 384; do
	[ $f -ge 256 ] && [ $b != 9 ] && [ $b != 13 ] && continue; echo -n "op == $((b | f)) || "; done; done)
ops="${ops% || }"
"$FRUGAL" lock $U --user-only --json --output "$_tmp/pk.json" -- perf stat -x, -o "$_tmp/pk.perf" \
	-e syscalls:sys_enter_futex --filter "$ops" -- "$_tmp/nofp" mutex 4 1500 20 >/dev/null 2>&1
kernel=$(grep sys_enter_futex "$_tmp/pk.perf" | cut -d, -f1)
check "lock -U: every futex wait perf stat counts is in a row ($kernel counted)" test "$(json "$_tmp/pk.json" \
	"$kernel > 0 and sum(r['contended'] for r in d['rows'] if any('(nofp)' in f for f in r['stack'])) == $kernel")" = True

# -Y with user types; -t and -l give user rows their own keys.
"$FRUGAL" lock $U --user-only -Y futex --json --output "$_tmp/yf.json" -- "$_tmp/nofp" mutex 4 1500 20 >/dev/null 2>&1
check "lock -U: -Y futex keeps the join, filters the mutex waits (counted)" test "$(json "$_tmp/yf.json" \
	'all(r["type"] == "futex" for r in d["rows"]) and d["accounting"]["user_filtered"] > 0')" = True
"$FRUGAL" lock $U --user-only -l --json --output "$_tmp/ul.json" -- "$_tmp/nofp" mutex 4 1500 20 >/dev/null 2>&1
check "lock -U -l: the mutex's row names the variable" test "$(json "$_tmp/ul.json" \
	'any(r["symbol"] == "fixture_mutex" for r in d["rows"])')" = True
"$FRUGAL" lock $U --user-only -t --json --output "$_tmp/ut.json" -- "$_tmp/nofp" mutex 4 1500 20 >/dev/null 2>&1
check "lock -U -t: rows by thread, the fixture's comm" test "$(json "$_tmp/ut.json" \
	'len([r for r in d["rows"] if r["comm"] == "nofp"]) >= 2')" = True
"$FRUGAL" lock $U --user-only --folded -- "$_tmp/nofp" mutex 4 1500 20 >"$_tmp/uf.txt" 2>/dev/null
check "lock -U --folded: user frames, outermost first, then the type" \
	grep -Eq '(^|;)start_thread;worker;contend_mutex;[^ ]*\[pthread_mutex\] [0-9]+$' "$_tmp/uf.txt"
if command -v go >/dev/null || [ -x /usr/lib/go/bin/go ]; then
	GO=$(command -v go || echo /usr/lib/go/bin/go)
	"$FRUGAL" lock $U --user-only --pprof "$_tmp/u.pb.gz" -- "$_tmp/nofp" mutex 4 1500 20 >/dev/null 2>&1
	check "lock -U --pprof: go tool pprof reads the user functions" \
		bash -c "'$GO' tool pprof -top '$_tmp/u.pb.gz' 2>/dev/null | grep -q contend_mutex"
else
	skip "lock -U --pprof" "no go toolchain (golang-go) for go tool pprof"
fi

# Bad options: one line, exit 2.
expect_exit "lock -U: -o is refused" 2 "$FRUGAL" lock -U -o -d 0.1
expect_exit "lock -U: --user-stack-size not a power of two" 2 "$FRUGAL" lock -U --user-stack-size 1000 -d 0.1
expect_exit "lock -U: --debug-dir must be absolute" 2 "$FRUGAL" lock -U --debug-dir rel -d 0.1
expect_exit "lock -U: --debug-dir, an empty entry" 2 "$FRUGAL" lock -U --debug-dir /tmp::/usr -d 0.1
expect_exit "lock -U: --debug-dir, a relative entry" 2 "$FRUGAL" lock -U --debug-dir /tmp:rel -d 0.1
finish
