#!/usr/bin/env bash
# -l: locks named by what holds them, on workloads whose truth is known.
# Four threads appending to one file through one shared descriptor
# (fixtures/fappend.c) wait on that file's f_pos_lock: the top mutex row
# must read `f_pos_lock of struct file` in every format, its offset the
# member's in the kernel's BTF.  The built-in workload's rwsem rows are its
# process's mmap_lock.  Nothing is lost while rows are named (the work is
# done at a row's first contention).  Needs bpf_get_kmem_cache (6.13+).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock -l names" || finish
"$FRUGAL" lock -l -v -d 0.05 >/dev/null 2>"$_tmp/probe.err"
if ! grep -q "slab cache names from bpf_get_kmem_cache" "$_tmp/probe.err"; then
	skip "lock -l names" "$(grep 'slab cache names' "$_tmp/probe.err" || head -1 "$_tmp/probe.err")"
	finish
fi
gcc -O2 -o "$_tmp/fappend" "$TOP/tests/lock/fixtures/fappend.c" -lpthread || {
	fail "lock -l names: fixture" "gcc failed"; finish; }
F="$_tmp/fappend $_tmp/data 4 0.6"
NAME="f_pos_lock of struct file"

# JSON, with the flame graph and the profile written beside it
"$FRUGAL" lock -l -v --json --svg "$_tmp/f.svg" --pprof "$_tmp/f.pb.gz" -- $F \
	>"$_tmp/f.json" 2>"$_tmp/f.err"
top='max((r for r in d["rows"] if r["type"] == "mutex"), key=lambda r: r["wait_total_ns"])'
check "file: the top mutex row is '$NAME' ($(json "$_tmp/f.json" "$top.get('name')"))" \
	test "$(json "$_tmp/f.json" "$top['name']")" = "$NAME"
check "file: its fields: member, object_type, symbol (the cache, as before)" holds "$_tmp/f.json" \
	"($top['member'], $top['object_type'], $top['symbol']) == ('f_pos_lock', 'struct file', '&filp')"
# The offset the program found is the member's in the kernel's BTF (pahole
# follows the anonymous union f_pos_lock sits in).
want=$(pahole -C file /sys/kernel/btf/vmlinux 2>/dev/null |
	sed -n 's|.*struct mutex *f_pos_lock; */\* *\([0-9]*\) .*|\1|p')
if [ -n "$want" ]; then
	check "file: its object_offset is f_pos_lock's in struct file ($want)" holds "$_tmp/f.json" \
		"$top['object_offset'] == $want"
else
	skip "file: object_offset" "no pahole to read struct file's layout"
fi
check "file: the flame graph's frame reads '$NAME'" grep -q "$NAME" "$_tmp/f.svg"
check "file: the profile's frame reads '$NAME'" sh -c "zcat '$_tmp/f.pb.gz' | grep -aq '$NAME'"
check "file: rows + filtered + losses == completed" test "$(json "$_tmp/f.json" \
	'sum(r["contended"] for r in d["rows"]) + d["accounting"]["filtered"] + d["accounting"]["lost_no_begin"] + d["accounting"]["lost_ringbuf"] == d["accounting"]["completed"]')" = True
check_losses "file: nothing lost but counted skipped runs" "$_tmp/f.json"

# the table's symbol column, CSV's fields, the folded frame
"$FRUGAL" lock -l -- $F >"$_tmp/f.txt" 2>/dev/null
check "file: the table's row reads '$NAME'" grep -Eq " $NAME +mutex\$" "$_tmp/f.txt"
"$FRUGAL" lock -l -x , -- $F >"$_tmp/f.csv" 2>/dev/null
check "file: CSV's header has member, object_type, object_offset" \
	grep -q '^contended,.*,address,symbol,type,member,object_type,object_offset$' "$_tmp/f.csv"
check "file: a CSV row &filp,mutex,f_pos_lock,struct file" grep -q ',&filp,mutex,f_pos_lock,struct file,[0-9]' "$_tmp/f.csv"
"$FRUGAL" lock -l --folded -- $F >"$_tmp/f.folded" 2>/dev/null
check "file: a folded stack '$NAME;[mutex]'" grep -q "^$NAME;\[mutex\] [0-9]" "$_tmp/f.folded"

# the built-in workload: its rwsem rows are its mm's mmap_lock
BENCH="$FRUGAL bench lock -T 4 -P 2 -d 0.7 --delay 0.3"
"$FRUGAL" lock -l -v --json -- $BENCH >"$_tmp/b.json" 2>"$_tmp/b.err"
check "bench: the top rwsem row is 'mmap_lock of struct mm_struct'" test "$(json "$_tmp/b.json" \
	'max((r for r in d["rows"] if r["type"].startswith("rwsem")), key=lambda r: r["wait_total_ns"])["name"]')" = "mmap_lock of struct mm_struct"
want=$(pahole -C mm_struct /sys/kernel/btf/vmlinux 2>/dev/null |
	sed -n 's|.*struct rw_semaphore *mmap_lock; */\* *\([0-9]*\) .*|\1|p')
if [ -n "$want" ]; then
	check "bench: the mmap_lock rows' object_offset is mmap_lock's in struct mm_struct ($want)" \
		holds "$_tmp/b.json" 'all(r.get("object_offset", '"$want"') == '"$want"' for r in d["rows"] if r["symbol"] == "mmap_lock")'
fi
check "bench: every row named by a member names its struct" holds "$_tmp/b.json" \
	'all(r["name"] == r["member"] + " of " + r["object_type"] for r in d["rows"] if r.get("member"))'
check_losses "bench: nothing lost but counted skipped runs" "$_tmp/b.json"
finish
