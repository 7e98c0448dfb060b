#!/usr/bin/env bash
# --pprof: the gzipped profile read back by pprof itself (go tool pprof):
# its samples add up to the JSON rows of the same run (contentions and
# delay), the mmap path's kernel functions are there at kernel addresses
# in the [kernel.kallsyms] mapping, the lock type is the leaf and a
# label, the accounting is in the comments; with -t the task is the root
# and no frame is code.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock --pprof" || finish
GO=$(command -v go || echo /usr/lib/go/bin/go)
if [ ! -x "$GO" ]; then
	skip "lock --pprof" "go (Debian's golang-go, for go tool pprof) is not installed"
	finish
fi
# go keeps a cache and may read settings under HOME: all of it in ours.
export HOME="$_tmp/home" GOCACHE="$_tmp/gocache" GOPATH="$_tmp/gopath" \
	GOTOOLCHAIN=local GOTELEMETRY=off GOFLAGS=
mkdir -p "$HOME"
BENCH="$FRUGAL bench lock -T 4 -P 4 -d 0.7 --delay 0.3"

pprof() { "$GO" tool pprof "$@" 2>>"$_tmp/pprof.err"; }

# raw FILE: "samples contentions delay" summed from `pprof -raw`'s samples
raw_sums() {
	pprof -raw "$1" | awk '
		/^Samples:/ { s = 1; next }
		/^Locations/ { s = 0 }
		s && $2 ~ /^[0-9]+:$/ { n++; c += $1; sub(":", "", $2); d += $2 }
		END { printf "%d %d %.0f\n", n, c, d }	# %d stops at 2^31 in mawk'
}

# top_total FILE INDEX: pprof's own "Total samples" of that sample type, in
# the sample type's unit (ns for delay)
top_total() {
	pprof -top -unit=ns -sample_index="$2" "$1" |
		sed -n 's/.*Total samples = \([0-9]*\)\(ns\)\{0,1\} *\((.*)\)\{0,1\}$/\1/p'
}

# rows_sum FILE KEY: the JSON rows' sum of KEY
rows_sum() { json "$1" "sum(r['$2'] for r in d['rows'])"; }

# ---- caller mode ----
"$FRUGAL" lock --pprof "$_tmp/c.pb.gz" --json -- $BENCH >"$_tmp/c.json" 2>"$_tmp/c.err"
check "caller: the profile is a whole gzip file" gzip -t "$_tmp/c.pb.gz"
check "caller: no temporary file left beside it" test "$(ls -A "$_tmp" | grep -c '^\.c\.pb\.gz\.')" = 0
read -r n c d < <(raw_sums "$_tmp/c.pb.gz")
rows=$(json "$_tmp/c.json" 'len([r for r in d["rows"] if r["contended"]])')
jc=$(rows_sum "$_tmp/c.json" contended)
jd=$(rows_sum "$_tmp/c.json" wait_total_ns)
check "caller: pprof reads it, one sample a row ($n samples, $rows rows)" test "$n" -gt 2 -a "$n" = "$rows"
check "caller: the contentions add up to the JSON rows' ($c vs $jc)" test "$c" = "$jc"
check "caller: the delay adds up to the JSON rows' ($d ns vs $jd)" test "$d" = "$jd"
tc=$(top_total "$_tmp/c.pb.gz" contentions)
td=$(top_total "$_tmp/c.pb.gz" delay)
check "caller: pprof -top's totals are the rows' ($tc, $td ns)" test "$tc" = "$jc" -a "$td" = "$jd"
check "caller: the sample types are Go's mutex profile's, delay the default" \
	grep -qx 'contentions/count delay/nanoseconds\[dflt\]' <(pprof -raw "$_tmp/c.pb.gz")
pprof -top -nodecount=100000 -nodefraction=0 "$_tmp/c.pb.gz" >"$_tmp/c.top"
check "caller: the mmap path's slow path is a function (rwsem_down_write_slowpath)" \
	grep -Eq ' (rwsem_down_write_slowpath|down_write_killable)$' "$_tmp/c.top"
pprof -raw "$_tmp/c.pb.gz" >"$_tmp/c.raw"
check "caller: its location is a kernel address in the kernel's mapping" \
	grep -Eq '^ +[0-9]+: 0xffff[0-9a-f]{12} M=1 (rwsem_down_write_slowpath|down_write_killable) ' "$_tmp/c.raw"
check "caller: the mapping is [kernel.kallsyms], with functions" \
	grep -Eq '^1: 0xffff[0-9a-f]{12}/0xffffffffffffffff/0x0 \[kernel\.kallsyms\] +\[FN\]' "$_tmp/c.raw"
# -traces: a line of dashes, the labels, then the value and the leaf
read -r traces bad < <(pprof -traces "$_tmp/c.pb.gz" | awk '
	/^-+\+-+$/ { want = 1; next }
	want && /^ *lock_type:/ { next }
	want { want = 0; n++; if ($2 !~ /^\[[a-zA-Z:-]+\]$/) bad++ }
	END { print n + 0, bad + 0 }')
check "caller: the leaf of each sample is its lock type ($bad of $traces not)" \
	test "$traces" -gt 0 -a "$bad" = 0
pprof -tags "$_tmp/c.pb.gz" >"$_tmp/c.tags"
check "caller: the lock type is also a label (lock_type: rwsem:W)" \
	awk '/^ *lock_type:/ { t = 1; next } /^ *[a-z_]+:/ { t = 0 } t && /: rwsem:W$/ { f = 1 }
	     END { exit !f }' "$_tmp/c.tags"
tm=$(pprof -top -nodecount=100000 -nodefraction=0 -sample_index=contentions -tagfocus='lock_type=^mutex$' "$_tmp/c.pb.gz" |
	sed -n 's/^Showing nodes accounting for \([0-9]*\),.*/\1/p')
jm=$(json "$_tmp/c.json" 'sum(r["contended"] for r in d["rows"] if r["type"] == "mutex")')
check "caller: -tagfocus on the label keeps the mutex rows' contentions ($tm vs $jm)" test "$tm" = "$jm"
completed=$(json "$_tmp/c.json" 'd["accounting"]["completed"]')
pprof -comments "$_tmp/c.pb.gz" >"$_tmp/c.comments"
check "caller: the accounting is in the comments (completed $completed)" \
	grep -qx "completed $completed" "$_tmp/c.comments"
check "caller: every accounting line is a comment" test "$(json "$_tmp/c.json" \
	'len(d["accounting"])')" = "$(grep -Ec '^[a-z_]+ [0-9]+$' "$_tmp/c.comments")"

# ---- -t: the task at the root, no code frames ----
"$FRUGAL" lock -t --pprof "$_tmp/t.pb.gz" --json -- $BENCH >"$_tmp/t.json" 2>"$_tmp/t.err"
read -r n c d < <(raw_sums "$_tmp/t.pb.gz")
rows=$(json "$_tmp/t.json" 'len([r for r in d["rows"] if r["contended"]])')
check "task: one sample a task ($n samples, $rows rows)" test "$n" -gt 1 -a "$n" = "$rows"
check "task: the totals are the JSON rows'" \
	test "$c" = "$(rows_sum "$_tmp/t.json" contended)" -a "$d" = "$(rows_sum "$_tmp/t.json" wait_total_ns)"
pprof -raw "$_tmp/t.pb.gz" >"$_tmp/t.raw"
# (pprof makes up an empty mapping when a profile has none, and says so)
check "task: the roots are the tasks (frugal-TID)" \
	grep -Eq '^ +[0-9]+: 0x0 (M=1 )?frugal-[0-9]+ ' "$_tmp/t.raw"
check "task: no kernel address, no kernel mapping" \
	test "$(grep -Ec '^ +[0-9]+: 0x[1-9a-f]' "$_tmp/t.raw")" = 0 -a "$(grep -c kallsyms "$_tmp/t.raw")" = 0
grep -v '^Main binary filename not available\.$' "$_tmp/pprof.err" >"$_tmp/pprof.other"
check "pprof complained of nothing" test ! -s "$_tmp/pprof.other"
sed 's/^/# pprof: /' "$_tmp/pprof.other"
finish
