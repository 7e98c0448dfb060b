#!/usr/bin/env bash
# frugal lock against a hostile /proc and cgroupfs:
#  - cgroups whose paths are longer than the report's name field (160
#    bytes), nested deeper than 16 levels, longer than IODIR_PATH_MAX (4096)
#    in all, and one removed before the report: `-g` stays well-formed (CSV
#    parses, JSON is valid), every row is named by its full path or, when
#    the cgroup cannot be found, as "cgroup:ID" -- never by a wrong path;
#  - tasks that exit while frugal runs: `-t` keeps the comm of exited tasks
#    (captured at their first contention), `-p` refuses a PID already gone
#    and ends by itself, with a report, once its targets have all exited.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/lock/lock.inc"
can_bpf "hostile /proc" || finish
W=$_tmp
ASAN_FRUGAL=$O/asan/frugal
[ -x "$ASAN_FRUGAL" ] || ASAN_FRUGAL=$FRUGAL

# ---- cgroups: long, deep, too long for a path buffer, removed ---------------
# The v2 hierarchy, wherever it is mounted (/sys/fs/cgroup, or .../unified
# on a hybrid system).
CG2=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
HOME_CG=$(sed -n 's/^0:://p' /proc/self/cgroup)
top=${CG2:+$CG2/frugal-hostile.$$}

# Move every process left in our cgroups back where this script runs, then
# remove them deepest first.  Paths past PATH_MAX are reached through
# directory fds, one level at a time.
cg_cleanup() {
	[ -n "$top" ] && [ -d "$top" ] || return 0
	python3 - "$top" "$CG2$HOME_CG/cgroup.procs" <<'EOF'
import os, sys, time
top, home = sys.argv[1], sys.argv[2]
for attempt in range(50):
    try:
        for _, dirs, files, fd in os.fwalk(top, topdown=False):
            if "cgroup.procs" in files:
                with open(os.open("cgroup.procs", os.O_RDONLY, dir_fd=fd)) as f:
                    for pid in f.read().split():
                        try:
                            with open(home, "w") as h:
                                h.write(pid)
                        except OSError:
                            pass
            for d in dirs:
                os.rmdir(d, dir_fd=fd)
        os.rmdir(top)
        break
    except OSError:
        time.sleep(0.1)	# a process still leaving
EOF
}
trap 'cg_cleanup; rm -rf "$_tmp"' EXIT

# mkchain FILE: make the cgroups named in FILE (one per line, each inside the
# previous) under $top, one level at a time; prints the last one's id.
mkchain() {
	(cd "$top" || exit 1
	 while read -r n; do mkdir "$n" && cd "$n" || exit 1; done <"$1"
	 stat -c %i .)
}

# run-in.sh FILE CMD...: run CMD inside the cgroup chain FILE names.
cat >"$W/run-in.sh" <<'EOF'
cd "$TOP_CG" || exit 1
while read -r n; do cd "$n" || exit 1; done <"$1"
echo $$ >cgroup.procs || exit 1
shift
exec "$@"
EOF

cg_ok=
if [ -z "$CG2" ]; then
	skip "cgroups: long and deep paths" "no cgroup v2 hierarchy mounted"
elif ! mkdir "$top" 2>"$W/mk.err"; then
	skip "cgroups: long and deep paths" "cannot create a cgroup: $(head -1 "$W/mk.err")"
else
	cg_ok=1
fi

if [ -n "$cg_ok" ]; then
	l200=$(printf 'L%.0s' $(seq 200))
	d230=$(printf 'D%.0s' $(seq 230))
	printf '%s\n' "a$l200" "b$l200" "c$l200" >"$W/long"		# 600+ bytes
	seq -f 'm%g' 20 >"$W/mid"					# 20 levels
	for i in $(seq 20); do echo "$i$d230"; done >"$W/deep"		# 4,600+ bytes
	echo gone >"$W/gone"		# made by each run, removed before its report
	for c in long mid deep; do
		id=$(mkchain "$W/$c" 2>"$W/mk.err") || { fail "cgroups: make the $c chain" "$(head -1 "$W/mk.err")"; cg_ok=; break; }
		eval "id_$c=$id"
	done
fi

if [ -n "$cg_ok" ]; then
	rel=${top#"$CG2"}
	path_long=$rel/$(paste -sd/ "$W/long")
	path_mid=$rel/$(paste -sd/ "$W/mid")
	# Three workloads in their cgroups at once; a fourth contends, then its
	# cgroup is removed before the report is made.
	cat >"$W/workload.sh" <<EOF
export TOP_CG="$top"
mkdir "$top/gone" && stat -c %i "$top/gone" >"$W/gone.id" || exit 1
for c in long mid deep; do
	bash "$W/run-in.sh" "$W/\$c" "$FRUGAL" bench lock -T 3 -P 0 -d 0.8 2>/dev/null &
done
bash "$W/run-in.sh" "$W/gone" "$FRUGAL" bench lock -T 3 -P 0 -d 0.3 2>/dev/null
rmdir "$top/gone"
wait
EOF
	# (the JSON run under ASan when there is an ASan build: the walk and the
	# naming must neither overflow nor leak)
	"$FRUGAL" lock -a -g -x , -- bash "$W/workload.sh" >"$W/g.csv" 2>"$W/g.err"
	rc_csv=$?
	id_gone=$(cat "$W/gone.id" 2>/dev/null)
	"$ASAN_FRUGAL" lock -a -g --json -- bash "$W/workload.sh" >"$W/g.json" 2>"$W/gj.err"
	rc_json=$?
	id_gone2=$(cat "$W/gone.id" 2>/dev/null)
	check "cgroups: the CSV run exits 0 (got $rc_csv: $(head -1 "$W/g.err"))" test $rc_csv -eq 0
	check "cgroups: the JSON run exits 0 (got $rc_json: $(grep -v '^$' "$W/gj.err" | head -1))" test $rc_json -eq 0
	check "cgroups: no sanitizer report" bash -c "! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' '$W/gj.err'"

	# verify.py KIND FILE: rows parse; each is named by its true path or as
	# cgroup:ID; ours are there with the expected names.
	cat >"$W/verify.py" <<'EOF'
import csv, io, json, os, sys
kind, path, cg2 = sys.argv[1], sys.argv[2], sys.argv[3]
want = dict(a.split("=", 1) for a in sys.argv[4:])
text = open(path, encoding="latin-1", newline="").read()
if kind == "csv":
    rows = [r for r in csv.reader(io.StringIO(text)) if r and not r[0].startswith("#")]
    head, rows = rows[0], rows[1:]
    if any(len(r) != len(head) for r in rows):
        sys.exit("bad: widths %s" % sorted(set(map(len, rows))))
    names = [r[head.index("cgroup")] for r in rows]
    ids = [None] * len(rows)
else:
    d = json.loads(text)
    names = [r["cgroup"] for r in d["rows"]]
    ids = [r["cgroup_id"] for r in d["rows"]]

def ino(name):
    try:
        return os.stat(cg2 + name).st_ino
    except OSError:
        return None	# removed since (another tool's cgroup)

bad = []
for name, i in zip(names, ids):
    if name.startswith("cgroup:"):
        if not name[7:].isdigit() or (i is not None and int(name[7:]) != i):
            bad.append("id name %s for id %s" % (name, i))
    elif not name.startswith("/"):
        bad.append("not a path: %r" % name[:40])
    elif i is not None and ino(name) not in (None, i):
        bad.append("wrong path %s for id %s" % (name[:60], i))
for what, expect in want.items():
    kind_, _, value = expect.partition(":")
    if kind_ == "path":
        ok = value in names and (ids[names.index(value)] in (None, ino(value)))
    else:
        ok = "cgroup:" + value in names
    if not ok:
        bad.append("no row for %s as %s" % (what, expect[:60]))
print("ok" if not bad else "bad: " + "; ".join(bad))
EOF
	res=$(python3 "$W/verify.py" csv "$W/g.csv" "$CG2" "long=path:$path_long" "mid=path:$path_mid" \
		"deep=id:$id_deep" "gone=id:$id_gone" 2>&1)
	check "cgroups -x ,: parses; a 600-byte path in full, 20 levels in full, a 4.6 KB path and a removed cgroup as cgroup:ID ($res)" \
		test "$res" = ok
	res=$(python3 "$W/verify.py" json "$W/g.json" "$CG2" "long=path:$path_long" "mid=path:$path_mid" \
		"deep=id:$id_deep" "gone=id:$id_gone2" 2>&1)
	check "cgroups --json: valid; the same names, and cgroup_id matches each ($res)" test "$res" = ok
	"$FRUGAL" lock -a -g -- bash "$W/workload.sh" >"$W/g.txt" 2>/dev/null
	check "cgroups: the table prints the 600-byte path whole" grep -qF -- "$path_long" "$W/g.txt"
fi

# ---- tasks that exit while frugal runs ----------------------------------------
cat >"$W/kids.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* Three threads of one process on its mmap lock: contention, then exit. */
static void *work(void *arg)
{
	for (long i = 0; i < (long)arg; i++) {
		char *p = mmap(0, 1 << 16, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		*(volatile char *)p = 1;
		munmap(p, 1 << 16);
	}
	return 0;
}

static void contend(const char *name, long rounds)
{
	pthread_t t[3];

	prctl(PR_SET_NAME, name, 0, 0, 0);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], 0, work, (void *)rounds);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], 0);
	_exit(0);
}

/*
 * kids stream N: N short-lived processes one after another.
 * kids group N: N processes that wait for a line on stdin, then contend for
 * longer and longer and exit one by one; their pids go to stdout first.
 */
int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0, fd[2];
	char c;

	if (argc > 2 && !strcmp(argv[1], "stream")) {
		for (int i = 0; i < n; i++) {
			if (fork() == 0)
				contend("hp-stream", 300);
			wait(NULL);
		}
		return 0;
	}
	if (pipe(fd))
		return 1;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(fd[1]);
			if (read(fd[0], &c, 1) < 0)
				_exit(1);
			contend("hp-group", 200 * (i + 1));
		}
		printf("%d\n", pid);
	}
	fflush(stdout);
	close(fd[0]);
	if (read(0, &c, 1) < 0)
		return 1;
	close(fd[1]);		/* go */
	while (wait(NULL) > 0)
		;
	return 0;
}
EOF
if ! gcc -O2 -pthread -o "$W/kids" "$W/kids.c" 2>"$W/cc.err"; then
	fail "exiting tasks: build the helper" "$(head -1 "$W/cc.err")"
	finish
fi

# tasks.py FILE COMM MIN: the -t CSV parses, no row lacks a comm, and at
# least MIN rows are tasks named COMM that have all exited by now.
cat >"$W/tasks.py" <<'EOF'
import csv, io, os, sys
text = open(sys.argv[1], encoding="latin-1", newline="").read()
rows = [r for r in csv.reader(io.StringIO(text)) if r and not r[0].startswith("#")]
if len(rows) < 2 or any(len(r) != len(rows[0]) for r in rows):
    sys.exit("bad: %d rows, widths %s" % (len(rows), sorted(set(map(len, rows)))))
pid, comm = rows[0].index("pid"), rows[0].index("comm")
rows = rows[1:]
ours = [r[pid] for r in rows if r[comm] == sys.argv[2]]
alive = [p for p in ours if os.path.exists("/proc/" + p)]
empty = [r[pid] for r in rows if not r[comm]]
ok = len(ours) >= int(sys.argv[3]) and not alive and not empty
print("ok" if ok else "bad: %d %s rows, alive %s, no comm %s" % (len(ours), sys.argv[2], alive[:3], empty[:3]))
EOF

# A stream of short-lived processes under a system-wide -t: 30 of them, 3
# threads each, all gone before the report.
"$FRUGAL" lock -a -t -x , -- "$W/kids" stream 30 >"$W/stream.csv" 2>"$W/stream.err"
rc=$?
check "exiting tasks: -a -t over 30 short-lived processes exits 0 (got $rc: $(head -1 "$W/stream.err"))" test $rc -eq 0
res=$(python3 "$W/tasks.py" "$W/stream.csv" hp-stream 20 2>&1)
check "exiting tasks: CSV parses, exited tasks keep their comm, none without one ($res)" test "$res" = ok

# -p with a PID that has already exited: refused, as a usage of a missing
# process, before anything is loaded.
true &
dead=$!
wait $dead
expect_exit "exiting tasks: -p with an exited PID fails (exit 1)" 1 "$FRUGAL" lock -p "$$,$dead" -d 1
check "exiting tasks: ... with one line naming it" test "$(wc -l <<<"$err")/$(grep -c "^frugal lock: -p: no process $dead\$" <<<"$err")" = 1/1
check "exiting tasks: ... and no report" test -z "$out"

# -p over processes that exit one by one while frugal runs: it ends by itself
# once the last is gone, exit 0, with their rows.
mkfifo "$W/go"
"$W/kids" group 6 <"$W/go" >"$W/group.pids" &
g=$!
exec 9>"$W/go"			# opened only now: the helper's stdin blocks until here
for i in $(seq 2400); do [ "$(wc -l <"$W/group.pids")" -ge 6 ] && break; sleep 0.05; done
pids=$(echo $g $(cat "$W/group.pids") | tr ' ' ,)
"$FRUGAL" lock -v -t -x , -p "$pids" >"$W/group.csv" 2>"$W/group.err" &
f=$!
for i in $(seq 2400); do grep -q attached "$W/group.err" && break; sleep 0.05; done
grep -q attached "$W/group.err" || fail "-p, processes exiting: frugal attached (in 120 s)" "$(tail -3 "$W/group.err")"
echo >&9			# the children start contending
exec 9>&-
for i in $(seq 200); do kill -0 $f 2>/dev/null || break; sleep 0.05; done
if kill -0 $f 2>/dev/null; then
	fail "exiting tasks: -p ends once its processes have all exited" "still running 10 s later"
	kill -INT $f
	wait $f
else
	wait $f
	rc=$?
	check "exiting tasks: -p ends once its processes have all exited, exit 0 (got $rc)" test $rc -eq 0
fi
wait $g
res=$(python3 "$W/tasks.py" "$W/group.csv" hp-group 6 2>&1)
check "exiting tasks: -p report parses, the exited children's rows keep their comm ($res)" test "$res" = ok
check "exiting tasks: -p report ends with the accounting" grep -q '^# contentions completed' "$W/group.csv"
finish
