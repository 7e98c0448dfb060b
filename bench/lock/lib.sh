# Helpers of the lock benchmarks (bench/lock.sh, bench/serve.sh), sourced
# once PERF, FRUGAL and tmp are set: the tools' command lines, the
# workloads, the BPF programs' statistics, a traced run, and the
# statistics of the figures.  Each caller defines say and die.
# shellcheck shell=bash

# ---- the tools ---------------------------------------------------------------

# tool_argv TOOL MODE [CMD...]: set ARGV to the command line of TOOL in MODE
# (caller: the default report, by caller; pressure: by task, small maps).
# Without CMD the tool traces system-wide until SIGINT.
tool_argv() {
	local tool=$1 mode=$2
	shift 2
	case $tool/$mode in
	frugal/caller)	 ARGV=("$FRUGAL" lock -a) ;;
	frugal8/caller)	 ARGV=("$FRUGAL" lock -a --max-stack 8) ;;
	floor/caller)	 ARGV=("$FRUGAL" lock -a --floor) ;;
	frugal2/caller)	 ARGV=("$FRUGAL" lock -a --nested) ;;
	floor2/caller)	 ARGV=("$FRUGAL" lock -a --floor --nested) ;;
	frugal/pressure) ARGV=("$FRUGAL" lock -a -t -M "$MAP_ENTRIES" --json) ;;
	perf/caller)	 ARGV=("$PERF" lock contention -b -a) ;;
	perf/pressure)	 ARGV=("$PERF" lock contention -b -a -t --map-nr-entries "$MAP_ENTRIES") ;;
	frugal/owner)	 ARGV=("$FRUGAL" lock -a -o) ;;
	frugal/addr)	 ARGV=("$FRUGAL" lock -a -l) ;;
	# the service (bench/serve.sh), on SERVE_PORT, with SERVE_ARGS
	serve/caller)	 ARGV=("$FRUGAL" lock serve ${SERVE_ARGS:-} --web.listen-address="127.0.0.1:$SERVE_PORT") ;;
	frugalnoobj/addr) ARGV=("$FRUGAL" lock -a -l --no-objects) ;;
	perf612/addr)	 ARGV=("$PERF612" lock contention -b -a -l) ;;
	perf612/owner)	 ARGV=("$PERF612" lock contention -b -a -o) ;;
	bpftrace/caller) ARGV=(bpftrace "$BT_CALLER") ;;
	bpftrace/pressure) ARGV=(env BPFTRACE_MAP_KEYS_MAX="$MAP_ENTRIES" bpftrace "$BT_THREADS") ;;
	esac
	[ $# -eq 0 ] && return
	# bpftrace takes the command as one -c string (with an absolute path).
	if [ "$tool" = bpftrace ]; then ARGV+=(-c "$*"); else ARGV+=(-- "$@"); fi
}

# run_tool TOOL MODE OUT [CMD...]: run the tool to completion under
# /usr/bin/time; its output goes to OUT, its max RSS (KB) to OUT.rss.
run_tool() {
	local out=$3
	tool_argv "$1" "$2" "${@:4}"
	/usr/bin/time -f %M -o "$out.rss" "${ARGV[@]}" >"$out" 2>&1
}

# ---- workloads ---------------------------------------------------------------

WL_EPOLL="$PERF bench epoll wait -r 3 -t 8"
# epoll_ctl from 8 threads on one epoll instance: hundreds of thousands of
# contentions of its mutex a run, where epoll wait contends only thousands
# of times on a guest whose spinlock waits never reach the tracepoint
# (docs/bench.md): the regime where what a tracer adds shows in the workload.
WL_EPOLL_CTL="$PERF bench epoll ctl -r 3 -t 8"
WL_MSG="$PERF bench sched messaging -g 10 -p"
WL_PRESSURE="$PERF bench sched messaging -g 20 -p"

# per_million_ops CMD WHAT: run an epoll bench, print seconds per million of
# the operations its "Averaged N WHAT" line counts.
per_million_ops() {
	local out
	out=$($1 2>&1)
	sed -n "s/^Averaged \([0-9]*\) $2.*/\1/p" <<<"$out" | awk '{ printf "%.6f\n", 1e6 / $1 }'
}

# workload_run NAME: run a workload, print its figure of merit as "cost"
# (bigger = slower): seconds per million epoll operations (per thread, or
# per million adds a thread with epoll ctl's add, mod and del each), or seconds.
workload_run() {
	local out
	case $1 in
	epoll)		per_million_ops "$WL_EPOLL" operations ;;
	epoll-ctl)	per_million_ops "$WL_EPOLL_CTL" "ADD operations" ;;
	messaging)
		out=$($WL_MSG 2>&1)
		sed -n 's/.*Total time: \([0-9.]*\).*/\1/p' <<<"$out" ;;
	esac
}

# ---- BPF program statistics --------------------------------------------------

# tool_progs PID: "id kind" for every BPF program the process holds through a
# program or link fd; kind is begin, end or other (from the link's
# tracepoint, else from the program's name).
tool_progs() {
	local pid=$1 f id tp
	for f in /proc/"$pid"/fdinfo/*; do
		id=$(sed -n 's/^prog_id:\t*//p' "$f" 2>/dev/null) || continue
		[ -n "$id" ] || continue
		tp=$(sed -n 's/^tp_name:\t*//p' "$f" 2>/dev/null)
		echo "$id $tp"
	done | sort -n | awk '
		{ if ($2 != "") tp[$1] = $2; else if (!($1 in tp)) tp[$1] = "" }
		END { for (id in tp) print id, tp[id] }' |
	while read -r id tp; do
		[ -n "$tp" ] || tp=$(bpftool prog show id "$id" --json 2>/dev/null | jq -r '.name // ""')
		case $tp in
		*begi*)	echo "$id begin" ;;
		*end*)	echo "$id end" ;;
		*)	echo "$id other" ;;
		esac
	done
}

# prog_stats PROGS: "begin_ns begin_cnt end_ns end_cnt": the time summed over
# PROGS, the count of the kind's most run program (frugal --nested has two
# programs on each tracepoint, both run for every event: the events are one
# program's runs, the cost is both programs' time).
prog_stats() {
	local progs=$1 id kind json
	json=$(bpftool prog show --json 2>/dev/null)
	while read -r id kind; do
		[ -n "$id" ] || continue
		jq -r --argjson id "$id" --arg k "$kind" \
			'.[] | select(.id == $id) | "\($k) \(.run_time_ns // 0) \(.run_cnt // 0)"' <<<"$json"
	done <<<"$progs" | awk '
		{ ns[$1] += $2; if ($3 > cnt[$1]) cnt[$1] = $3 }
		END { printf "%d %d %d %d\n", ns["begin"], cnt["begin"], ns["end"], cnt["end"] }'
}

# wait_attached PID: wait (up to 20 s) until PID holds both a begin and an
# end program, then print them.
wait_attached() {
	local pid=$1 i progs
	for i in $(seq 200); do
		kill -0 "$pid" 2>/dev/null || return 1
		progs=$(tool_progs "$pid")
		if grep -q ' begin$' <<<"$progs" && grep -q ' end$' <<<"$progs"; then
			sleep 0.3	# the last attach step may follow the last load
			echo "$progs"
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# stop_tool PID: SIGINT the profiler PID until it exits.  A busy bpftrace
# has been seen to miss one SIGINT that came while it was still setting up,
# so it is repeated every 2 s, up to 20 s.  (PID is a child of
# /usr/bin/time, which reaps it at once: kill -0 fails when it has exited.)
stop_tool() {
	local i
	for i in $(seq 200); do
		[ $((i % 20)) -eq 1 ] && kill -INT "$1" 2>/dev/null
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -TERM "$1" 2>/dev/null || true
}

# traced_run TOOL MODE OUT CMD...: run CMD (its stdout to OUT.cmd) while TOOL
# traces system-wide in MODE; the tool's report goes to OUT, its max RSS to
# OUT.rss.  Prints "begin_ns begin_cnt end_ns end_cnt rss_kb", the BPF
# counters being deltas over CMD alone.
traced_run() {
	local tool=$1 mode=$2 out=$3 tpid pid='' progs s0 s1
	shift 3
	tool_argv "$tool" "$mode"
	/usr/bin/time -f %M -o "$out.rss" "${ARGV[@]}" >"$out" 2>&1 &
	tpid=$!
	echo "$tpid" >"$tmp/running"
	for _ in $(seq 50); do
		pid=$(pgrep -P "$tpid" | head -1) && [ -n "$pid" ] && break
		sleep 0.05
	done
	[ -n "$pid" ] && progs=$(wait_attached "$pid") || {
		[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null
		kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null
		die "$tool did not attach; its output: $(tail -3 "$out")"
	}
	s0=$(prog_stats "$progs")
	"$@" >"$out.cmd"
	s1=$(prog_stats "$progs")
	stop_tool "$pid"
	wait "$tpid" || die "$tool failed; its output: $(tail -3 "$out")"
	rm -f "$tmp/running"
	echo "$(paste -d' ' <(tr ' ' '\n' <<<"$s1") <(tr ' ' '\n' <<<"$s0") |
		awk '{ printf "%d ", $1 - $2 }')$(tail -1 "$out.rss")"
}

# interruptible OUT CMD...: run CMD with its output to OUT, in the background,
# and wait for it: a SIGINT/SIGTERM then reaches the trap (and cleanup) at
# once, where a foreground CMD would delay it until CMD ends.
interruptible() {
	local out=$1
	shift
	"$@" >"$out" &
	wait $!
}

# ---- statistics helpers ------------------------------------------------------

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "NA"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maxof() { sort -g | tail -1; }
# per_round BASES TRACED: "ROUND FIGURE" lines in, "ROUND SLOWDOWN" out: each
# traced figure over the median of its round's untraced figures.
per_round() { sort -k1,1n -k2,2g "$1" | awk 'FNR == 1 { f++ }
	f == 1 { b[$1, ++n[$1]] = $2; next }
	{ k = n[$1]; m = k % 2 ? b[$1, (k + 1) / 2] : (b[$1, k / 2] + b[$1, k / 2 + 1]) / 2
	  if (k && m > 0) printf "%d %.4f\n", $1, $2 / m }' - "$2"; }
now() { date +%s.%N; }

# paired FRUGAL OTHER: the same verdict for the slowdown, from "ROUND
# SLOWDOWN" files whose rounds share one base: the mean over the rounds of
# log(frugal's / the other's) - the log of their traced figures' ratio -
# with twice its standard error as the band.  Shown as a percentage.
paired() { awk 'FNR == 1 { f++ } f == 1 { a[$1] = $2; next }
	($1 in a) && a[$1] > 0 && $2 > 0 { n++; d = log(a[$1] / $2); s += d; q += d * d }
	END {
		if (n < 2) { print "n/a"; exit }
		m = s / n; band = 2 * sqrt((q - n * m * m) / (n - 1) / n)
		w = m <= 0 ? "PASS" : m < band ? "TIE" : "MISS"
		printf "%s (paired %+.1f%%, noise +-%.1f%%)\n", w, 100 * (exp(m) - 1), 100 * (exp(band) - 1) }' "$1" "$2" 2>/dev/null || echo n/a; }
