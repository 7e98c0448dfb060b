#!/usr/bin/env bash
# -l: locks named by what holds them, on workloads whose truth is known.
# Four threads appending to one file through one shared descriptor
# (fixtures/fappend.c) wait on that file's f_pos_lock: the top mutex row
# must read `f_pos_lock of PATH` in every format, its offset the member's
# in the kernel's BTF.  fixtures/objstorm.c's workloads: an mmap storm
# (its process's mmap_lock, by pid), a pipe between processes (its inode,
# a waiter of its own), a TCP connection over loopback (its ports), a fork
# storm (run queues by CPU, tasklist_lock), a cgroup v1 directory read by
# threads (its path), a page-fault storm (its memory cgroup's LRU lock),
# /proc/zoneinfo read by threads (the zones' locks), threads taking
# descriptors and giving them back (their descriptor table's lock), the
# spinlocks where the kernel traces their waits (lock.inc's
# spin_untraced()).  Nothing is lost while rows
# are named (the work is done at a row's first contention).  The slab
# names (&filp) need bpf_get_kmem_cache (6.13+); the rest does not.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock -l names" || finish
"$FRUGAL" lock -l -v -d 0.05 >/dev/null 2>"$_tmp/probe.err"
if ! grep -q "what holds each lock" "$_tmp/probe.err"; then
	skip "lock -l names" "$(grep -- '-l: ' "$_tmp/probe.err" | head -1)"
	finish
fi
slab=0
grep -q "slab cache names from bpf_get_kmem_cache" "$_tmp/probe.err" && slab=1
for f in fappend objstorm; do
	gcc -O2 -o "$_tmp/$f" "$TOP/tests/lock/fixtures/$f.c" -lpthread || {
		fail "lock -l names: fixture $f" "gcc failed"; finish; }
done

# until_row OUT PRED ARGS...: `frugal lock -l -v --json ARGS` into OUT until
# the report has a row R of which PRED holds, at most 5 runs.  Whether a
# lock contends at all in a run is the scheduler's doing (under load two
# tasks may never run at once on it), not frugal's: each run is checked
# whole, and a run without the row says nothing either way.
until_row() {
	local out=$1 pred=$2 i
	shift 2
	for i in 1 2 3 4 5; do
		"$FRUGAL" lock -l -v --json "$@" >"$out" 2>"$out.err" || return 1
		holds "$out" "any($pred for R in d['rows'])" && return 0
	done
	return 1
}

DATA=$(realpath "$_tmp")/data
F="$_tmp/fappend $DATA 4 0.6"
NAME="f_pos_lock of $DATA"

# JSON, with the flame graph and the profile written beside it
"$FRUGAL" lock -l -v --json --svg "$_tmp/f.svg" --pprof "$_tmp/f.pb.gz" -- $F \
	>"$_tmp/f.json" 2>"$_tmp/f.err"
top='max((r for r in d["rows"] if r["type"] == "mutex"), key=lambda r: r["wait_total_ns"])'
check "file: the top mutex row is '$NAME' ($(json "$_tmp/f.json" "$top.get('name')"))" \
	test "$(json "$_tmp/f.json" "$top['name']")" = "$NAME"
check "file: its fields: member, object_type, object" holds "$_tmp/f.json" \
	"($top['member'], $top['object_type'], $top['object']) == ('f_pos_lock', 'struct file', '$DATA')"
if [ $slab = 1 ]; then
	check "file: its symbol is its slab cache, as perf names it" holds "$_tmp/f.json" \
		"$top['symbol'] == '&filp'"
fi
# The offset is the member's in the kernel's BTF (pahole follows the
# anonymous union f_pos_lock sits in): from the slab, or from the probe.
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
check "file: CSV's header has member, object_type, object_offset, object" \
	grep -q '^contended,.*,address,symbol,type,member,object_type,object_offset,object$' "$_tmp/f.csv"
check "file: a CSV row mutex,f_pos_lock,struct file,OFFSET,$DATA" \
	grep -q ",mutex,f_pos_lock,struct file,[0-9]*,$DATA\$" "$_tmp/f.csv"
"$FRUGAL" lock -l --folded -- $F >"$_tmp/f.folded" 2>/dev/null
check "file: a folded stack '$NAME;[mutex]'" grep -q "^$NAME;\[mutex\] [0-9]" "$_tmp/f.folded"

# an mmap storm: its mm's mmap_lock, named by the process
until_row "$_tmp/m.json" 'R.get("member") == "mmap_lock"' -- \
	"$_tmp/objstorm" mmap "$_tmp/m.out" 0.5
pid=$(cat "$_tmp/m.out")
check "mmap: the mmap_lock rows are 'mmap_lock of objstorm (pid $pid)'" holds "$_tmp/m.json" \
	"[r['name'] for r in d['rows'] if r.get('member') == 'mmap_lock'][:1] == ['mmap_lock of objstorm (pid $pid)']"
want=$(pahole -C mm_struct /sys/kernel/btf/vmlinux 2>/dev/null |
	sed -n 's|.*struct rw_semaphore *mmap_lock; */\* *\([0-9]*\) .*|\1|p')
if [ -n "$want" ]; then
	check "mmap: the mmap_lock rows' object_offset is mmap_lock's in struct mm_struct ($want)" \
		holds "$_tmp/m.json" 'all(r["object_offset"] == '"$want"' for r in d["rows"] if r.get("member") == "mmap_lock")'
fi
check_losses "mmap: nothing lost but counted skipped runs" "$_tmp/m.json"

# a pipe: four writer processes and a reader; the waiter is one of them
until_row "$_tmp/p.json" 'R.get("object_type") == "struct pipe_inode_info" and R["type"] == "mutex"' -- \
	"$_tmp/objstorm" pipe "$_tmp/p.out" 0.5
read -r ino reader w1 w2 w3 w4 < "$_tmp/p.out"
check "pipe: its mutex row names the pipe (inode $ino) and a waiter at its own end" \
	python3 - "$_tmp/p.json" "$ino" "$reader" "$w1 $w2 $w3 $w4" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
ino, reader, writers = sys.argv[2], sys.argv[3], sys.argv[4].split()
r = [r for r in d["rows"] if r.get("object_type") == "struct pipe_inode_info" and r["type"] == "mutex"][0]
m = re.fullmatch(r"pipe:\[(\d+)\] (read|written) by objstorm \(pid (\d+)\)( and objstorm \(pid (\d+)\))?", r["object"])
ok = m and r["member"] == "mutex" and m[1] == ino and r["name"] == "mutex of " + r["object"]
ok = ok and (m[3] == reader if m[2] == "read" else m[3] in writers)
ok = ok and (not m[5] or m[5] in writers + [reader])
print(r["name"]) if not ok else None
sys.exit(0 if ok else 1)
EOF
check_losses "pipe: nothing lost but counted skipped runs" "$_tmp/p.json"

# The spinlock rows (a socket's, the run queues', an LRU's, a zone's)
# where this kernel traces spinlock waits at all.
spin=$(spin_untraced)

# TCP over loopback: the sending socket's spinlock, by its ports
if [ -n "$spin" ]; then
	skip "tcp: a socket lock row" "$spin"
else
until_row "$_tmp/t.json" 'R.get("member", "").endswith("sk_lock.slock")' -- \
	"$_tmp/objstorm" tcp "$_tmp/t.out" 0.5
read -r lport sport < "$_tmp/t.out"
check "tcp: a socket lock row names 'tcp 127.0.0.1:$lport -> 127.0.0.1:$sport'" holds "$_tmp/t.json" \
	"any(r['object'] == 'tcp 127.0.0.1:$lport -> 127.0.0.1:$sport' for r in d['rows'] if r.get('member', '').endswith('sk_lock.slock'))"
check_losses "tcp: nothing lost but counted skipped runs" "$_tmp/t.json"
fi

# a fork storm: the run queues by CPU, one CPU each; tasklist_lock by name
rq='re.fullmatch(r"CPU (\d+)'"'"'s run queue", R.get("object", ""))'
ncpu=$(getconf _NPROCESSORS_CONF)
if [ -n "$spin" ]; then
	"$FRUGAL" lock -l -v --json -- "$_tmp/objstorm" fork "$_tmp/k.out" 0.5 >"$_tmp/k.json" 2>"$_tmp/k.err"
	skip "fork: run queue rows" "$spin"
else
until_row "$_tmp/k.json" "$rq" -- "$_tmp/objstorm" fork "$_tmp/k.out" 0.5
check "fork: run queue rows name CPUs below $ncpu, one CPU an address" \
	python3 - "$_tmp/k.json" "$ncpu" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
q = {}
for r in d["rows"]:
	m = re.fullmatch(r"CPU (\d+)'s run queue", r.get("object", ""))
	if m:
		q[r["address"]] = int(m[1])
sys.exit(0 if q and len(set(q.values())) == len(q) and max(q.values()) < int(sys.argv[2]) else 1)
EOF
fi
if grep -q ' tasklist_lock$' /proc/kallsyms; then
	until_row "$_tmp/k2.json" 'R["symbol"] == "tasklist_lock"' -- "$_tmp/objstorm" fork "$_tmp/k.out" 0.5
	check "fork: tasklist_lock's row is named" holds "$_tmp/k2.json" \
		'any(r["symbol"] == "tasklist_lock" and r["type"].startswith("rwlock") for r in d["rows"])'
else
	skip "fork: tasklist_lock's row" "kallsyms lists no data symbols (no CONFIG_KALLSYMS_ALL)"
fi
check_losses "fork: nothing lost but counted skipped runs" "$_tmp/k.json"

# a cgroup v1 directory's cgroup.procs read by threads: its pidlist_mutex,
# by the cgroup's path in its hierarchy (any v1 hierarchy; else one of no
# controller mounted for the test)
v1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/mounts)
if [ -z "$v1" ] && mkdir "$_tmp/v1" && mount -t cgroup -o none,name=frugal-test cgroup "$_tmp/v1" 2>/dev/null; then
	v1=$_tmp/v1
fi
cg=frugal-names-$$
if [ -z "$v1" ]; then
	skip "cgroup: its pidlist_mutex" "no cgroup v1 hierarchy and none can be mounted (pidlist_mutex is v1's)"
elif ! mkdir "$v1/$cg" 2>"$_tmp/mkdir.err"; then
	skip "cgroup: its pidlist_mutex" "no cgroup can be made in $v1: $(head -1 "$_tmp/mkdir.err")"
	[ "$v1" != "$_tmp/v1" ] || umount "$v1"
else
	until_row "$_tmp/c.json" 'R.get("member") == "pidlist_mutex"' -- \
		"$_tmp/objstorm" cgroup "$_tmp/c.out" 0.5 "$v1/$cg"
	# (the path from the hierarchy's root: where the mount is a cgroup
	# below it, as in a container, the path ends in the test's)
	check "cgroup: its pidlist_mutex row is 'pidlist_mutex of cgroup [...]/$cg'" holds "$_tmp/c.json" \
		"any(re.fullmatch(r'pidlist_mutex of cgroup (/[^/]+)*/$cg', r['name']) and r['object_type'] == 'struct cgroup' for r in d['rows'])"
	check_losses "cgroup: nothing lost but counted skipped runs" "$_tmp/c.json"
	rmdir "$v1/$cg"
	[ "$v1" != "$_tmp/v1" ] || umount "$v1"
fi

# processes faulting pages in and freeing them: their memory cgroup's LRU
# lock, by the cgroup's path (as /proc/self/cgroup gives it: the end of
# the path from the hierarchy's root, in a cgroup namespace) and node
if [ -n "$spin" ]; then
	"$FRUGAL" lock -l -v --json -- "$_tmp/objstorm" lru "$_tmp/l.out" 0.5 >"$_tmp/l.json" 2>"$_tmp/l.err"
else
	until_row "$_tmp/l.json" 'R.get("member") == "lruvec.lru_lock"' -- "$_tmp/objstorm" lru "$_tmp/l.out" 0.5
fi
memcg=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
[ -n "$memcg" ] || memcg=$(awk -F: '$1 == 0 { print $3 }' /proc/self/cgroup)
if holds "$_tmp/l.json" 'any(r.get("member") == "lruvec.lru_lock" for r in d["rows"])'; then
	check "lru: its LRU lock row names memory cgroup $memcg and a node of /proc/zoneinfo" \
		python3 - "$_tmp/l.json" "$memcg" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
want = sys.argv[2]
nodes = set(re.findall(r"^Node (\d+),", open("/proc/zoneinfo").read(), re.M))
# A component longer than the program reads (31 bytes, as a container's
# 32- or 64-hex cgroup names are) is cut and ends in "...": it stands for
# any component it begins.
def same(got, want):
	g, w = got.split("/"), want.split("/")
	if len(g) != len(w):
		return False
	return all(a == b or a.endswith("...") and b.startswith(a[:-3]) and len(b) > len(a) - 3
		   for a, b in zip(g, w))
ok = False
for r in d["rows"]:
	m = re.fullmatch(r"memory cgroup (/.*), node (\d+)", r.get("object", ""))
	if r.get("member") == "lruvec.lru_lock" and m:
		got = m[1]
		ok = ok or ((same(got, want) or want != "/" and any(
			same(got[i:], want) for i in range(len(got)) if got[i] == "/")) and m[2] in nodes)
sys.exit(0 if ok else 1)
EOF
else
	why=$spin
	[ -n "$why" ] || why="no memory cgroup's LRU lock contended in 5 runs; make check-kernels checks it in its guests"
	skip "lru: its LRU lock row" "$why"
fi
check_losses "lru: nothing lost but counted skipped runs" "$_tmp/l.json"

# threads reading /proc/zoneinfo, which the kernel prints each zone of
# under the zone's lock
if [ -n "$spin" ]; then
	skip "zone: its lock's row" "$spin"
else
	zoneinfo=$(sed -n 's/^Node \([0-9]*\), zone *\([A-Za-z0-9]*\)$/zone \2, node \1/p' /proc/zoneinfo | tr '\n' '|')
	if until_row "$_tmp/z.json" 'R.get("object_type") == "struct zone"' -- "$_tmp/objstorm" zone "$_tmp/z.out" 0.5; then
		check "zone: its lock's row is 'lock of' a zone of /proc/zoneinfo" holds "$_tmp/z.json" \
			"any(r['name'] == 'lock of ' + r['object'] and r['object'] in '$zoneinfo'.split('|') for r in d['rows'] if r.get('object_type') == 'struct zone')"
	else
		skip "zone: its lock's row" "no zone's lock contended in 5 runs; make check-kernels checks it in its guests"
	fi
	check_losses "zone: nothing lost but counted skipped runs" "$_tmp/z.json"
fi

# threads taking descriptors and giving them back: their process's
# descriptor table's file_lock
if [ -n "$spin" ]; then
	skip "fds: its file_lock row" "$spin"
else
	if until_row "$_tmp/d.json" 'R.get("member") == "file_lock"' -- "$_tmp/objstorm" fds "$_tmp/d.out" 0.5; then
		pid=$(cat "$_tmp/d.out")
		check "fds: its file_lock row is 'file_lock of fd table of objstorm (pid $pid)'" holds "$_tmp/d.json" \
			"any(r['name'] == 'file_lock of fd table of objstorm (pid $pid)' for r in d['rows'])"
	else
		skip "fds: its file_lock row" "no descriptor table's lock contended in 5 runs; make check-kernels checks it in its guests"
	fi
	check_losses "fds: nothing lost but counted skipped runs" "$_tmp/d.json"
fi

# every run: each named row's name is its member of its object (or struct),
# each zone named is one /proc/zoneinfo lists, each super block's
# filesystem one /proc/filesystems lists
zones=$(sed -n 's/^Node \([0-9]*\), zone *\([A-Za-z0-9]*\)$/zone \2, node \1/p' /proc/zoneinfo | tr '\n' '|')
fss=$(awk '{ print $NF }' /proc/filesystems | tr '\n' '|')
for f in f m p t k c l z d; do
	[ -e "$_tmp/$f.json" ] || continue
	check "$f: every row with a member is named 'member of object'" holds "$_tmp/$f.json" \
		'all(r["name"] == r["member"] + " of " + (r.get("object") or r["object_type"]) for r in d["rows"] if r.get("member"))'
	check "$f: every zone row names a zone of /proc/zoneinfo" holds "$_tmp/$f.json" \
		"all(r['object'] in '$zones'.split('|') for r in d['rows'] if r.get('object', '').startswith('zone '))"
	check "$f: every super block row's filesystem is one of /proc/filesystems" holds "$_tmp/$f.json" \
		"all(r['object'].split(' on ')[0] in '$fss'.split('|') for r in d['rows'] if r.get('object_type') == 'struct super_block')"
	check "$f: every dentry row names a name and a filesystem of /proc/filesystems" holds "$_tmp/$f.json" \
		"all(re.fullmatch(r'[^ ].* on \S+ \((\S+)\)', r['object']).group(1) in '$fss'.split('|') for r in d['rows'] if r.get('object_type') == 'struct dentry' and r.get('object'))"
done
finish
