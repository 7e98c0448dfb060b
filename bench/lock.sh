#!/usr/bin/env bash
# bench-lock: `frugal lock` beside its anchor, `perf lock contention -b` from
# perf 6.1 built with BPF skeletons (bench/lock/build-perf.sh), and beside a
# bpftrace script doing the same work (bench/lock/contention.bt), all in one
# run.  See docs/bench.md for what each figure means.
#
# Environment: O (build dir), ROUNDS (interleaved traced/untraced pairs per
# tool and workload for the cost figures, default 5), SLOW_ROUNDS (rounds
# for the slowdown, each one traced and one untraced run per tool, default 14:
# on 2 CPUs one pair's ratio can be off by 30%),
# STARTS (start-up samples, default 5),
# MAP_ENTRIES (map size of the pressure test, default 64), FRUGAL_CACHE.
set -eu
O=${O:-build}
ROUNDS=${ROUNDS:-5}
SLOW_ROUNDS=${SLOW_ROUNDS:-14}
STARTS=${STARTS:-5}
MAP_ENTRIES=${MAP_ENTRIES:-64}
HERE=$(cd "$(dirname "$0")" && pwd)
FRUGAL=$(realpath "$O/frugal")
BT_CALLER=$HERE/lock/contention.bt
BT_THREADS=$HERE/lock/contention-threads.bt
TOOLS="frugal perf bpftrace"
tmp_owner_log=$(mktemp)
# floor: frugal's programs attached but returning at once - what any pair of
# programs on these tracepoints costs, the limit beside every figure.

say() { echo "bench-lock: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (BPF programs and kernel.bpf_stats_enabled)"
for c in bpftrace bpftool jq; do
	command -v "$c" >/dev/null || die "$c missing (run scripts/install-deps.sh)"
done
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
# bpftrace 0.17 finds tracepoints in tracefs, which a fresh boot mounts only
# when /sys/kernel/tracing is first looked into.
[ -d /sys/kernel/tracing/events/lock ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
	die "no tracefs at /sys/kernel/tracing (lock tracepoints)"
PERF=$(bash "$HERE/lock/build-perf.sh") || die "could not build perf 6.1"
# Owner mode's anchor: perf 6.12 (perf 6.1 has no -o).  Without it, that
# part of the table says n/a.
PERF612=$(bash "$HERE/lock/build-perf.sh" 6.12 2>"$tmp_owner_log") || PERF612=
# perf 6.12's skeleton needs kernel symbols a newer kernel may lack (6.18
# has no 'runqueues' ksym for it): probe once, under a timeout.
if [ -n "$PERF612" ] && ! timeout 60 "$PERF612" lock contention -b -a -o -- true >"$tmp_owner_log" 2>&1; then
	echo "perf 6.12 lock contention -b does not run on $(uname -r): $(grep -m1 -i 'fail\|error' "$tmp_owner_log")" >"$tmp_owner_log"
	PERF612=
fi
if ! "$FRUGAL" lock --help >/dev/null 2>&1; then
	say "$FRUGAL has no 'lock' command yet: measuring perf and bpftrace only"
	TOOLS="perf bpftrace"
fi

tmp=$(mktemp -d)
stats_prev=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	local p running
	# Everything started here is a job of this shell, or a child of one, or
	# the /usr/bin/time (-> profiler) that traced_run started in a job and
	# named in $tmp/running.  Profilers get SIGINT, on which they detach;
	# wait up to 10 s for that before removing their files.
	running=$(cat "$tmp/running" 2>/dev/null) || true
	for p in $running $(jobs -p); do
		pkill -INT -P "$p" 2>/dev/null || true
		kill -INT "$p" 2>/dev/null || true
	done
	for _ in $(seq 100); do
		[ -n "$running" ] && pgrep -P "$running" >/dev/null || break
		sleep 0.1
	done
	for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	sysctl -qw kernel.bpf_stats_enabled="$stats_prev" || true
	[ -n "${KEEP:-}" ] && echo "kept $tmp" >&2 || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
sysctl -qw kernel.bpf_stats_enabled=1
# The sysctl is shared by everyone on the machine; the BPF_ENABLE_STATS fd
# held by this helper keeps the counters running even if it is reset.
python3 "$HERE/lock/hold-stats.py" >"$tmp/hold" &
hold_pid=$!
for _ in $(seq 50); do [ -s "$tmp/hold" ] && break; sleep 0.1; done
grep -q ok "$tmp/hold" || say "could not hold BPF stats on; relying on the sysctl alone"

# stats_off: the slowdown is measured without BPF statistics, which cost two
# clock reads per program run (~30 ns here), charged to every program: to
# frugal's two runs per contention (four with --nested) as to perf's two.
stats_off() {
	kill "$hold_pid" 2>/dev/null || true
	wait "$hold_pid" 2>/dev/null || true
	sysctl -qw kernel.bpf_stats_enabled=0
}

. "$HERE/lock/lib.sh"


# ---- 1. cost per event, contentions and RSS (statistics on) --------------------

# tools_for WL [slow]: frugal keeps 4 frames by default, perf 8: measure
# frugal's cost with 8 on epoll too; the floor everywhere; and both with
# --nested (two programs per tracepoint), to show what taking nested runs
# costs - except on epoll ctl, whose rows are the default's and the floor's.
tools_for() {
	local tools=$TOOLS
	[ "$1" = epoll ] && [ -z "${2:-}" ] && [[ $TOOLS == *frugal* ]] && tools="$tools frugal8"
	[[ $TOOLS == *frugal* ]] && tools="$tools floor"
	[ "$1" != epoll-ctl ] && [[ $TOOLS == *frugal* ]] && tools="$tools frugal2 floor2"
	echo "$tools"
}

declare -A R	# R[tool.metric] = value
WORKLOADS="epoll epoll-ctl messaging"
for wl in $WORKLOADS; do
	tools=$(tools_for $wl)
	say "$wl: $ROUNDS traced runs for: $tools (BPF statistics on)"
	for r in $(seq "$ROUNDS"); do
		for t in $tools; do
			interruptible "$tmp/res" traced_run "$t" caller "$tmp/$t.$wl" workload_run "$wl"
			res=$(cat "$tmp/res")
			read -r bns bcnt ens ecnt rss <<<"$res"
			echo "$t $wl $r cost begin=$bns/$bcnt end=$ens/$ecnt rss=$rss" >>"$tmp/log"
			[ "$bcnt" -gt 0 ] && echo $((bns / bcnt)) >>"$tmp/$t.$wl.begin"
			[ "$ecnt" -gt 0 ] && echo $((ens / ecnt)) >>"$tmp/$t.$wl.end"
			echo "$bcnt" >>"$tmp/$t.$wl.events"
			echo "$rss" >>"$tmp/$t.rss"
		done
	done
	for t in $tools; do
		R[$t.$wl.begin]=$(cat "$tmp/$t.$wl.begin" 2>/dev/null | median)
		R[$t.$wl.end]=$(cat "$tmp/$t.$wl.end" 2>/dev/null | median)
		R[$t.$wl.events]=$(median <"$tmp/$t.$wl.events")
	done
done

# ---- 2. slowdown: interleaved untraced/traced pairs (statistics off) ------------

# Every round runs each tool once traced, each beside an untraced run (which
# of the two goes first alternates by round, so neither always gets the
# warmer caches), the tools in an order that changes by round (below).  A
# tool's slowdown in a round is its traced figure over the median of all of
# the round's untraced runs: one base for every tool, so comparing two tools
# compares their traced runs of the same round, and the run's drift (it has
# moved by 20% within ten minutes here) is between rounds, not inside the
# comparison.  The ratio to its own pair's untraced run, the method of older
# runs, is kept in the log and in an info row: its base is one run, whose
# noise it adds to every ratio.
stats_off
for wl in $WORKLOADS; do
	tools=$(tools_for $wl slow)
	say "$wl: $SLOW_ROUNDS rounds of untraced/traced pairs for: $tools (BPF statistics off)"
	for r in $(seq "$SLOW_ROUNDS"); do
		# Odd rounds turn the order by one; each even round runs the one
		# before it backwards (pairs too), so a drift within a round
		# favours no tool over two rounds.
		read -ra order <<<"$tools"
		k=$(( (r - 1) / 2 % ${#order[@]} ))
		order=("${order[@]:k}" "${order[@]:0:k}")
		if [ $((r % 2)) -eq 0 ]; then
			for ((i = 0, j = ${#order[@]} - 1; i < j; i++, j--)); do
				t=${order[i]} order[i]=${order[j]} order[j]=$t
			done
		fi
		for t in "${order[@]}"; do
			[ $((r % 2)) -eq 1 ] && interruptible "$tmp/base" workload_run "$wl"
			interruptible "$tmp/res" traced_run "$t" caller "$tmp/$t.$wl" workload_run "$wl"
			[ $((r % 2)) -eq 0 ] && interruptible "$tmp/base" workload_run "$wl"
			base=$(cat "$tmp/base") cost=$(cat "$tmp/$t.$wl.cmd")
			echo "$t $wl $r slowdown base=$base traced=$cost" >>"$tmp/log"
			echo "$r $base" >>"$tmp/$wl.bases"
			echo "$r $cost" >>"$tmp/$t.$wl.traced"
			awk -v t="$cost" -v b="$base" 'BEGIN { printf "%.4f\n", t / b }' >>"$tmp/$t.$wl.pair"
		done
	done
	for t in $tools; do
		per_round "$tmp/$wl.bases" "$tmp/$t.$wl.traced" >"$tmp/$t.$wl.slowr"
		cut -d' ' -f2 "$tmp/$t.$wl.slowr" >"$tmp/$t.$wl.slow"
		R[$t.$wl.slow]=$(median <"$tmp/$t.$wl.slow")
		R[$t.$wl.pair]=$(median <"$tmp/$t.$wl.pair")
	done
done
for t in $TOOLS; do
	# frugal's figure is its default (frugal8 runs are listed in the log).
	R[$t.rss]=$(maxof <"$tmp/$t.rss")
done

# ---- 3. start-up of `TOOL -a -- true` ----------------------------------------

# Timed by the shell itself (EPOCHREALTIME) around the tool alone: spawning
# `date` or `time` costs ~7 ms a process on this VM, as much as a third of
# what is measured.  A watchdog, started once the tool runs, interrupts it
# after START_LIMIT seconds (perf 6.1 has hung here in pause() after its
# `-- true` exited): such a run is counted as hung, left out of the median,
# and shown below the table.
START_LIMIT=${START_LIMIT:-20}
say "start-up: $STARTS runs of '-a -- true' per tool"
declare -A HUNG
for r in $(seq "$STARTS"); do
	for t in $TOOLS; do
		tool_argv "$t" caller /usr/bin/true
		t0=$EPOCHREALTIME
		"${ARGV[@]}" >"$tmp/start.out" 2>&1 &
		pid=$!
		# (its stderr closed: its sleep, killed when the run ends in
		# time, would have it print "Terminated")
		( sleep "$START_LIMIT"; kill -INT $pid 2>/dev/null; sleep 5; kill -KILL $pid 2>/dev/null ) 2>/dev/null &
		dog=$!
		rc=0
		wait $pid || rc=$?
		t1=$EPOCHREALTIME
		pkill -P $dog 2>/dev/null || true; kill $dog 2>/dev/null || true; wait $dog 2>/dev/null || true
		el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }')
		if awk -v e="$el" -v l="$START_LIMIT" 'BEGIN { exit !(e >= l) }'; then
			HUNG[$t]=$(( ${HUNG[$t]:-0} + 1 ))
			echo "$t start $r hung (interrupted after $START_LIMIT s)" >>"$tmp/log"
			continue
		fi
		[ "$rc" -eq 0 ] || die "$t -a -- true failed: $(tail -3 "$tmp/start.out")"
		echo "$el" >>"$tmp/$t.start"
	done
done
for t in $TOOLS; do
	R[$t.start]=$(cat "$tmp/$t.start" 2>/dev/null | median)
done

# ---- 4. map pressure ------------------------------------------------------------

# rows_sum TOOL OUT: contentions the tool's report accounts for, as
# "rows lost": the sum of its rows, and the losses it reports itself.
rows_sum() {
	case $1 in
	perf)
		# Sum the first column of the rows.  perf 6.1 also prints "bad: N"
		# (events whose stack it could not save), but it still counts
		# those in a row, and it counts nothing dropped on a full map.
		awk '$1 ~ /^[0-9]+$/ && NF >= 6 { s += $1 } END { printf "%d 0\n", s }' "$2" ;;
	bpftrace)
		grep -o 'count [0-9]*' "$2" | awk '{ s += $2 } END { printf "%d 0\n", s }' ;;
	frugal)
		# lost_task/lost_nesting end up in lost_no_begin; lost_stack,
		# lost_time and lost_data are events kept in the rows.
		jq -r '"\([.rows[].contended] | add // 0) \(.accounting |
			.lost_no_begin + .lost_ringbuf + .filtered)"' "$2" ;;
	esac
}

say "map pressure: -t with $MAP_ENTRIES-entry maps over 'sched messaging -g 20 -p'"
for t in $TOOLS; do
	out=$tmp/$t.pressure
	# The profiler attaches before the tracepoint counters start and detaches
	# after they stop: it must account for at least every end they count.
	interruptible /dev/null traced_run "$t" pressure "$out" "$PERF" stat -a -x, -o "$out.stat" \
		-e lock:contention_begin,lock:contention_end -- $WL_PRESSURE
	truth=$(awk -F, '$3 == "lock:contention_end" { print $1 }' "$out.stat")
	read -r rows lost <<<"$(rows_sum "$t" "$out")"
	R[$t.p.truth]=$truth
	R[$t.p.rows]=$rows
	R[$t.p.lost]=$lost
	R[$t.p.unacc]=$((truth - rows - lost))
	R[$t.p.badrate]=$(sed -n 's/^bad rate: *\([0-9.]*\).*/\1%/p' "$out" | head -1)
	echo "$t pressure fired=$truth rows=$rows lost=$lost" >>"$tmp/log"
done
if [ -n "${R[frugal.p.rows]:-}" ]; then
	# frugal's own books must balance (every end it saw is in a row,
	# filtered or counted lost), and it must have seen at least every end
	# the tracepoint counters saw while it was attached.
	acct=$tmp/frugal.pressure
	R[frugal.p.seen]=$(jq '.accounting.completed' "$acct")
	R[frugal.p.self]=$(jq '.accounting | .completed - .in_rows - .filtered
		- .lost_no_begin - .lost_ringbuf' "$acct")
	R[frugal.p.overflow]=$(jq '.accounting.merged_from_overflow' "$acct")
	[ "${R[frugal.p.seen]}" -ge "${R[frugal.p.truth]}" ] || R[frugal.p.self]=missed
	jq -c .accounting "$acct" >>"$tmp/log"
fi

# mode_cost MODE WHAT TOOLS...: ROUNDS traced runs of 'sched messaging' for
# each tool in MODE, kernel statistics on; R[TOOL.MODE.begin] and .end: the
# median ns per run of each program.
mode_cost() {
	local mode=$1 what=$2 r t bns bcnt ens ecnt rss
	shift 2
	sysctl -qw kernel.bpf_stats_enabled=1
	say "$what: $ROUNDS traced runs of 'sched messaging' for: $*"
	for r in $(seq "$ROUNDS"); do
		for t in "$@"; do
			interruptible "$tmp/res" traced_run "$t" "$mode" "$tmp/$t.$mode" workload_run messaging
			read -r bns bcnt ens ecnt rss <"$tmp/res"
			echo "$t $mode $r cost begin=$bns/$bcnt end=$ens/$ecnt" >>"$tmp/log"
			[ "$bcnt" -gt 0 ] && echo $((bns / bcnt)) >>"$tmp/$t.$mode.begin"
			[ "$ecnt" -gt 0 ] && echo $((ens / ecnt)) >>"$tmp/$t.$mode.end"
		done
	done
	for t in "$@"; do
		R[$t.$mode.begin]=$(cat "$tmp/$t.$mode.begin" 2>/dev/null | median)
		R[$t.$mode.end]=$(cat "$tmp/$t.$mode.end" 2>/dev/null | median)
	done
	sysctl -qw kernel.bpf_stats_enabled=0
}

# ---- 5. owner mode: frugal -o beside perf 6.12 -o (statistics on) ----------------

owner_tools="frugal"
[ -n "$PERF612" ] && owner_tools="frugal perf612"
# shellcheck disable=SC2086
mode_cost owner "owner mode" $owner_tools

# ---- 6. -l: frugal naming what holds each lock, without, and perf 6.12 -l ----------
# Objects are described once per row, at its first contention: the cost
# per event must stay that of -l without them (--no-objects).  perf 6.1
# has no -l.

addr_tools="frugal frugalnoobj"
[ -n "$PERF612" ] && addr_tools="$addr_tools perf612"
# shellcheck disable=SC2086
mode_cost addr "lock mode (-l)" $addr_tools

# ---- the table ---------------------------------------------------------------

cell() { echo "${R[$1]:-NA}"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {
	if (a !~ /^-?[0-9.]+$/ || b !~ /^-?[0-9.]+$/ || b == 0) print "-"; else printf "%.2fx\n", a / b }'; }
# verdict VALUE OP LIMIT
verdict() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN {
	if (v == "NA" || v == "") { print "n/a"; exit }
	if (v !~ /^-?[0-9.]+$/) { print "MISS"; exit }
	ok = (op == "<=") ? (v + 0 <= l + 0) : (v + 0 == l + 0)
	print ok ? "PASS" : "MISS" }'; }
# against FRUGAL_FILE OTHER_FILE: the verdict of "frugal's median <= the
# other's", where each file holds one figure per round.  A difference the
# run cannot resolve is a TIE, not a PASS or MISS: the resolution is twice
# the standard error of the difference of the two means of log figures
# (messaging's pairs differ by ~18% one from the next, so 13 pairs resolve
# ~14%, while tracing adds under 1% of its run time).  The band is shown.
against() { awk 'FNR == 1 { f++ } $1 > 0 { n[f]++; l = log($1); s[f] += l; q[f] += l * l; v[f, n[f]] = $1 }
	function med(f,  i, j, t, a) {
		for (i = 1; i <= n[f]; i++) a[i] = v[f, i]
		for (i = 2; i <= n[f]; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n[f] % 2 ? a[(n[f] + 1) / 2] : (a[n[f] / 2] + a[n[f] / 2 + 1]) / 2 }
	function var(f,  m) { m = s[f] / n[f]; return (q[f] - n[f] * m * m) / (n[f] - 1) / n[f] }
	END {
		if (n[1] < 2 || n[2] < 2) { print "n/a"; exit }
		d = log(med(1) / med(2)); band = 2 * sqrt(var(1) + var(2))
		w = d <= 0 ? "PASS" : d < band ? "TIE" : "MISS"
		printf "%s (noise +-%.0f%%)\n", w, 100 * (exp(band) - 1) }' "$1" "$2" 2>/dev/null || echo n/a; }
row() {	# metric frugal perf bpftrace target verdict
	printf '%-38s %10s %10s %10s %8s  %-20s %s\n' "$1" "$2" "$3" "$4" "$(ratio "$2" "$3")" "$5" "$6"
}
fmt() { awk -v v="$1" -v s="$2" -v f="$3" 'BEGIN { if (v == "NA" || v == "") print "NA"; else printf f "\n", v / s }'; }

for t in frugal frugal8 floor frugal2 floor2 perf bpftrace; do
	for wl in $WORKLOADS; do
		b=$(cell $t.$wl.begin) e=$(cell $t.$wl.end)
		R[$t.$wl.both]=$(awk -v b="$b" -v e="$e" 'BEGIN { if (b == "NA" || e == "NA") print "NA"; else print b + e }')
	done
done

echo
echo "bench-lock: $(uname -r), $(nproc) CPUs; perf -b from linux-source-6.1 $(cat "$(dirname "$PERF")/version"), bpftrace $(bpftrace --version | awk '{print $2}'); $ROUNDS cost rounds, $SLOW_ROUNDS slowdown pairs, medians"
printf '%-38s %10s %10s %10s %8s  %-20s %s\n' metric frugal perf-6.1 bpftrace frugal/perf target verdict
for wl in $WORKLOADS; do
	ev_lim=$(awk -v p="$(cell perf.$wl.events)" 'BEGIN { if (p == "NA") print "NA"; else print p * 1.1 }')
	row "$wl: contentions per run" "$(cell frugal.$wl.events)" "$(cell perf.$wl.events)" "$(cell bpftrace.$wl.events)" \
		"<= 1.1x perf" "$(verdict "$(cell frugal.$wl.events)" "<=" "$ev_lim")"
	# The same, as a test of the per-round counts: can the run tell them apart?
	row "$wl: contentions, noise-aware" "" "" "" "<= perf" \
		"$(against "$tmp/frugal.$wl.events" "$tmp/perf.$wl.events")"
	row "$wl: ns per begin" "$(cell frugal.$wl.begin)" "$(cell perf.$wl.begin)" "$(cell bpftrace.$wl.begin)" "" ""
	row "$wl: ns per end" "$(cell frugal.$wl.end)" "$(cell perf.$wl.end)" "$(cell bpftrace.$wl.end)" "<= 100 ns" \
		"$(verdict "$(cell frugal.$wl.end)" "<=" 100)"
	# What our end's own code costs: the statistics' clock reads and the
	# dispatch of an empty pair (the floor) taken off.
	row "$wl: ns per end, less the floor's" "$(awk -v f="$(cell frugal.$wl.end)" -v z="$(cell floor.$wl.end)" \
		'BEGIN { if (f == "NA" || z == "NA") print "NA"; else print f - z }')" "" "" "" "info"
	row "$wl: floor (programs doing nothing)" "$(cell floor.$wl.both)" "" "" "" "begin+end ns"
	row "$wl: floor: slowdown" "$(cell floor.$wl.slow)" "" "" "" ""
	# --nested: the second programs that take runs nested in ours; what
	# that costs is the difference.  Shown, not judged: the default is.
	if [[ " $(tools_for "$wl") " == *" frugal2 "* ]]; then
		row "$wl: --nested: ns per begin" "$(cell frugal2.$wl.begin)" "$(cell perf.$wl.begin)" "" "" ""
		row "$wl: --nested: ns per end" "$(cell frugal2.$wl.end)" "$(cell perf.$wl.end)" "" "(<= 100 ns)" \
			"($(verdict "$(cell frugal2.$wl.end)" "<=" 100))"
		row "$wl: --nested: slowdown" "$(cell frugal2.$wl.slow)" "$(cell perf.$wl.slow)" "" "(<= perf)" \
			"($(paired "$tmp/frugal2.$wl.slowr" "$tmp/perf.$wl.slowr"))"
		row "$wl: --nested floor: begin+end" "$(cell floor2.$wl.both)" "" "" "" "ns"
		row "$wl: --nested floor: slowdown" "$(cell floor2.$wl.slow)" "" "" "" ""
	fi
	lim=$(awk -v p="$(cell perf.$wl.both)" 'BEGIN { if (p == "NA") print "NA"; else print p / 2 }')
	v=$([ "$wl" = epoll ] && verdict "$(cell frugal.$wl.both)" "<=" "$lim" || echo info)
	row "$wl: ns per begin+end" "$(cell frugal.$wl.both)" "$(cell perf.$wl.both)" "$(cell bpftrace.$wl.both)" \
		"$([ "$wl" = epoll ] && echo '<= 0.5x perf' || echo)" "$v"
	[ "$wl" = epoll ] && row "epoll: begin+end, frugal --max-stack 8" "$(cell frugal8.epoll.both)" \
		"$(cell perf.epoll.both)" "" "" ""
	row "$wl: slowdown traced/untraced" "$(cell frugal.$wl.slow)" "$(cell perf.$wl.slow)" "$(cell bpftrace.$wl.slow)" \
		"<= perf" "$(paired "$tmp/frugal.$wl.slowr" "$tmp/perf.$wl.slowr")"
	row "$wl: slowdown, each to its own pair" "$(cell frugal.$wl.pair)" "$(cell perf.$wl.pair)" \
		"$(cell bpftrace.$wl.pair)" "" "info: $(against "$tmp/frugal.$wl.pair" "$tmp/perf.$wl.pair")"
done
mb() { fmt "$(cell "$1")" 1024 %.1f; }
row "max RSS of the profiler (MB)" "$(mb frugal.rss)" "$(mb perf.rss)" "$(mb bpftrace.rss)" "<= 8 MB" \
	"$(verdict "$(mb frugal.rss)" "<=" 8)"
row "start-up '-a -- true' (s)" "$(cell frugal.start)" "$(cell perf.start)" "$(cell bpftrace.start)" "<= 0.05 s" \
	"$(verdict "$(cell frugal.start)" "<=" 0.05)"
row "pressure -t -M $MAP_ENTRIES: ends fired" "$(cell frugal.p.truth)" "$(cell perf.p.truth)" "$(cell bpftrace.p.truth)" "" ""
row "pressure: in report rows" "$(cell frugal.p.rows)" "$(cell perf.p.rows)" "$(cell bpftrace.p.rows)" "" ""
row "pressure: counted as lost" "$(cell frugal.p.lost)" "$(cell perf.p.lost)" "$(cell bpftrace.p.lost)" "" ""
row "pressure: fired, not in report" "$(cell frugal.p.unacc)" "$(cell perf.p.unacc)" "$(cell bpftrace.p.unacc)" "<= 0" \
	"$(verdict "$(cell frugal.p.unacc)" "<=" 0)"
row "pressure: ends frugal saw" "$(cell frugal.p.seen)" "" "" "" ""
row "pressure: merged from overflow" "$(cell frugal.p.overflow)" "" "" "" ""
row "pressure: frugal unaccounted" "$(cell frugal.p.self)" "" "" "0" "$(verdict "$(cell frugal.p.self)" "==" 0)"
for t in "${!HUNG[@]}"; do
	echo "start-up: $t hung in ${HUNG[$t]} of $STARTS runs (interrupted after $START_LIMIT s; the median is of the others)"
done
[ -n "$PERF612" ] || say "no perf 6.12 for owner mode: $(tail -1 "$tmp_owner_log")"
rm -f "$tmp_owner_log"
echo
printf '%-38s %10s %10s %10s %8s\n' "owner mode (-o), messaging" frugal perf-6.12 "" frugal/perf
for k in begin end; do
	row "  ns per $k" "$(cell frugal.owner.$k)" "$(cell perf612.owner.$k)" "" "" ""
done
echo
printf '%-38s %10s %10s %10s %8s\n' "lock mode (-l), messaging" frugal no-objects perf-6.12 frugal/no-obj
for k in begin end; do
	row "  ns per $k" "$(cell frugal.addr.$k)" "$(cell frugalnoobj.addr.$k)" "$(cell perf612.addr.$k)" "" ""
done
if [ -n "${R[perf.p.badrate]:-}" ]; then
	echo "perf printed a bad rate of $(cell perf.p.badrate) under map pressure (stacks it could not save)"
fi
cp "$tmp/log" "$O/bench-lock.log" 2>/dev/null && say "per-run figures: $O/bench-lock.log"
# -U: user-space locks, beside bpftrace (bench/lock/user.sh).
O="$O" ROUNDS="$ROUNDS" bash "$HERE/lock/user.sh" || say "-U part failed"
