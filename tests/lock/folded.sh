#!/usr/bin/env bash
# --folded: stackcollapse's format, read back by a parser of that format
# (split at the last blank, frames at ';'), as flamegraph.pl reads it: the
# weights add up to the accounting's rows (--weight contended), kernel
# frames are marked "_[k]" and the lock type is the leaf, -t puts the task
# at the root, and the accounting goes to stderr.  Also --output: the
# report written whole into a file, nothing on stdout.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock --folded" || finish
BENCH="$FRUGAL bench lock -T 4 -P 4 -d 0.7 --delay 0.3"

# parse FILE: "lines weight_sum well_formed kernel_frames_marked leaf_is_type root"
parse() {
	python3 - "$1" <<'PY'
import re, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
ok = marked = leaf = True
total = 0
roots = set()
for l in lines:
    stack, _, w = l.rpartition(" ")
    if not stack or not w.isdigit() or int(w) <= 0:
        ok = False
        continue
    total += int(w)
    frames = stack.split(";")
    leaf &= bool(re.fullmatch(r"\[[a-zA-Z:-]+\]", frames[-1]))
    roots.add(frames[0])
    marked &= all(f.endswith("_[k]") for f in frames[:-1]) or len(frames) == 2
print(len(lines), total, ok, marked, leaf, len(roots))
PY
}

"$FRUGAL" lock --folded --weight contended -- $BENCH >"$_tmp/c.folded" 2>"$_tmp/c.err"
read -r n sum ok marked leaf roots < <(parse "$_tmp/c.folded")
in_rows=$(awk '/in rows \(all of them/ { print $NF }' "$_tmp/c.err")
check "caller: stacks were folded ($n lines)" test "$n" -gt 2
check "caller: every line is 'frames weight' with a positive weight" test "$ok" = True
check "caller: the contentions add up to the accounting's rows ($sum vs ${in_rows:-none})" test "$sum" = "${in_rows:-x}"
check "caller: kernel frames end in _[k]" test "$marked" = True
check "caller: the leaf is the lock type" test "$leaf" = True
check "caller: the accounting went to stderr" grep -q "^# === accounting ===" "$_tmp/c.err"
check "caller: the mmap path is there (down_write_killable_[k];...;[rwsem:W])" \
	grep -q "down_write_killable_\[k\];.*\[rwsem:W\] " "$_tmp/c.folded"

"$FRUGAL" lock --folded -- $BENCH >"$_tmp/w.folded" 2>"$_tmp/w.err"
read -r n sum ok marked leaf roots < <(parse "$_tmp/w.folded")
check "wait weight: well formed, weights in ns ($sum ns over $n lines)" test "$ok" = True -a "$sum" -gt "$n"

"$FRUGAL" lock -t --folded --weight contended -- $BENCH >"$_tmp/t.folded" 2>"$_tmp/t.err"
read -r n sum ok marked leaf roots < <(parse "$_tmp/t.folded")
in_rows=$(awk '/in rows \(all of them/ { print $NF }' "$_tmp/t.err")
check "task: the root is the task (comm-pid), one line a task" \
	test "$(grep -c '^frugal-[0-9]*;\[[a-zA-Z:-]*\] ' "$_tmp/t.folded")" = "$n" -a "$roots" = "$n"
check "task: the contentions add up to the accounting's rows" test "$sum" = "${in_rows:-x}"

expect_exit "--weight: a wrong value is refused" 2 "$FRUGAL" lock --folded --weight bytes
expect_exit "--folded with --json is refused" 2 "$FRUGAL" lock --folded --json

# --output: the report into a file, whole; stdout stays empty.
"$FRUGAL" lock --json --output "$_tmp/out.json" -- $BENCH >"$_tmp/stdout" 2>/dev/null
check "--output: nothing on stdout" test ! -s "$_tmp/stdout"
check "--output: the file holds the whole report" test "$(json "$_tmp/out.json" \
	'sum(r["contended"] for r in d["rows"]) == d["accounting"]["in_rows"]')" = True
check "--output: no temporary file left beside it" test "$(ls -A "$_tmp" | grep -c '^\.out\.json\.')" = 0
# Into a pipe (as into /dev/null): written into, never replaced by a file.
mkfifo "$_tmp/fifo"
timeout 30 cat "$_tmp/fifo" >"$_tmp/fifo.out" & c=$!
"$FRUGAL" lock --json --output "$_tmp/fifo" -- $BENCH >/dev/null 2>&1
wait $c
check "--output into a pipe: the reader got the whole report" test "$(json "$_tmp/fifo.out" \
	'sum(r["contended"] for r in d["rows"]) == d["accounting"]["in_rows"]')" = True
check "--output into a pipe: still a pipe, nothing left beside it" \
	test -p "$_tmp/fifo" -a "$(ls -A "$_tmp" | grep -c '^\.fifo\.')" = 0
expect_exit "--output into a directory: exit 1, before tracing" 1 "$FRUGAL" lock -d 30 --output "$_tmp"
check "--output into a directory: one line naming it" test "$err" = "frugal lock: $_tmp: Is a directory"
expect_exit "--output into a directory that does not exist: exit 1, before tracing" 1 \
	"$FRUGAL" lock -d 30 --output "$_tmp/none/x"
check "--output: one line naming the file" test "$err" = "frugal lock: $_tmp/none/x: No such file or directory"
expect_exit "--svg that cannot be written: exit 1, and --output's file not made" 1 \
	"$FRUGAL" lock -d 30 --output "$_tmp/o2" --svg "$_tmp/none/y"
check "--svg: the error names its file; nothing left behind" \
	test "$err" = "frugal lock: $_tmp/none/y: No such file or directory" -a "$(ls -A "$_tmp" | grep -c 'o2')" = 0
finish
