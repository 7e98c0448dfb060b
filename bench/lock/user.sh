#!/usr/bin/env bash
# bench-lock's -U part: user-space lock contention (the bench's --pthread
# threads on one pthread mutex), traced by `frugal lock --user-only` and by
# bpftrace running futex.bt (the pmlock/futexctn approach), in one run.
# Figures: the workload's slowdown (mutex operations untraced / traced,
# medians of ROUNDS interleaved pairs), the BPF cost per futex wait in the
# kernel (bpf_stats), frugal's user-space unwinding CPU per stack, each
# profiler's peak RSS, and the share of the wait each names with the
# function that took the lock.  bcc's futexctn is not in Debian 12's
# bpfcc-tools (0.26): n/a.
set -eu
O=${O:-build}
ROUNDS=${ROUNDS:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
FRUGAL=$(realpath "$O/frugal")
BT=$HERE/futex.bt
WL=("$FRUGAL" bench lock -T 0 -P 0 --pthread 4 -d 1)
tmp=$(mktemp -d)
stats_prev=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled="$stats_prev"; rm -rf "$tmp"' EXIT
say() { echo "bench-lock -U: $*" >&2; }

# ops FILE: the mutex operations the bench printed.
ops() { sed -n 's/.*pthread threads (\([0-9]*\) mutex ops).*/\1/p' "$1" | tail -1; }
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "" }'; }

# traced TOOL OUT: the workload under TOOL (timeout-guarded: a hung run is
# marked, never waited for).  OUT.wl: the bench's stderr; OUT.rss: peak KB.
traced() {
	local tool=$1 out=$2 rc=0
	case $tool in
	none)	timeout 60 "${WL[@]}" 2>"$out.wl" || rc=$? ;;
	frugal)	timeout 60 /usr/bin/time -f %M -o "$out.rss" "$FRUGAL" lock --user-only --json \
			--output "$out" -- "${WL[@]}" 2>"$out.wl" >/dev/null || rc=$? ;;
	bpftrace) timeout 60 /usr/bin/time -f %M -o "$out.rss" bpftrace "$BT" \
			-c "${WL[*]}" >"$out" 2>"$out.wl" || rc=$? ;;
	esac
	[ $rc = 124 ] && echo hung >"$out.hung"
	return 0
}

sysctl -qw kernel.bpf_stats_enabled=0
for i in $(seq "$ROUNDS"); do
	for t in none frugal bpftrace; do
		traced $t "$tmp/$t.$i"
		ops "$tmp/$t.$i.wl" >>"$tmp/$t.ops"
		[ -e "$tmp/$t.$i.rss" ] && cat "$tmp/$t.$i.rss" >>"$tmp/$t.rss"
	done
done
base=$(median <"$tmp/none.ops")
slow() { awk -v b="$base" '$1 > 0 { print b / $1 }' "$tmp/$1.ops" | median; }

# The cost runs: BPF statistics on (they cost two clock reads a run).
sysctl -qw kernel.bpf_stats_enabled=1
traced frugal "$tmp/fc"
# bpftrace's programs vanish with it: sample their statistics while it runs.
traced bpftrace "$tmp/bc" &
bpid=$!
: >"$tmp/bc.stats"
while kill -0 $bpid 2>/dev/null; do
	bpftool prog show -j 2>/dev/null | python3 -c '
import json, sys
ps = [p for p in json.load(sys.stdin) if p.get("type") == "tracepoint" and
      p.get("name") in ("sys_enter_futex", "sys_exit_futex")]
if ps:
    print(sum(p.get("run_time_ns", 0) for p in ps), max(p.get("run_cnt", 0) for p in ps))' >>"$tmp/bc.stats" 2>/dev/null || true
	sleep 0.1
done
wait $bpid || true
sysctl -qw kernel.bpf_stats_enabled=0

read -r f_ns f_unwind f_named < <(python3 - "$tmp/fc" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("- - -"); sys.exit()
s, a = d.get("user_bpf_stats") or {}, d["accounting"]
runs = max(s.get("entry_run_cnt", 0), 1)
ns = (s.get("entry_run_time_ns", 0) + s.get("return_run_time_ns", 0)) / max(a["user_completed"], 1)
unwind = d.get("user_unwind_cpu_ns", 0) / max(a["user_stacks_unwound"], 1) / 1000
# of the workers' mutex waits (the main thread's pthread_join is a futex row)
tot = sum(r["wait_total_ns"] for r in d["rows"] if r["type"] == "pthread_mutex")
named = sum(r["wait_total_ns"] for r in d["rows"] if r["type"] == "pthread_mutex" and any(f.startswith("pthread_locked_work+") for f in r["stack"]))
print("%.0f %.1f %.1f" % (ns, unwind, 100 * named / max(tot, 1)))
PY
)
read -r b_ns b_named < <(python3 - "$tmp/bc" "$tmp/bc.stats" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
waits = re.search(r"@waits: (\d+)", text)
stats = [l.split() for l in open(sys.argv[2]) if l.strip()]
ns = "%.0f" % (int(stats[-1][0]) / max(int(waits.group(1)), 1)) if stats and waits else "-"
tot = named = 0
for m in re.finditer(r"@wait\[(.*?)\]: (\d+)", text, re.S):
    v = int(m.group(2)); tot += v
    if "pthread_locked_work" in m.group(1):
        named += v
print(ns, "%.1f" % (100 * named / tot) if tot else "-")
PY
)
kb() { median <"$tmp/$1.rss" | awk '{ printf "%.1f", $1 / 1024 }'; }
hung() { ls "$tmp"/$1.*.hung >/dev/null 2>&1 && echo " (hung run)" || true; }
echo
printf '%-44s %12s %12s\n' "-U: pthread mutex, 4 threads, 2 CPUs" frugal bpftrace
printf '%-44s %12s %12s\n' "mutex ops/s untraced (median)" "$base" ""
printf '%-44s %12s %12s\n' "mutex ops/s traced (median)" "$(median <"$tmp/frugal.ops")" "$(median <"$tmp/bpftrace.ops")"
# A mutex's throughput can rise when its waiters sleep longer (the holder
# keeps taking it back): below 1 is not a speed-up of the program's work.
printf '%-44s %12s %12s\n' "slowdown untraced/traced (ops)" "$(slow frugal)$(hung frugal)" "$(slow bpftrace)$(hung bpftrace)"
printf '%-44s %12s %12s\n' "BPF ns per futex wait (entry+return)" "$f_ns" "$b_ns"
printf '%-44s %12s %12s\n' "user-space unwinding per stack (us CPU)" "$f_unwind" "n/a"
printf '%-44s %12s %12s\n' "max RSS of the profiler (MB)" "$(kb frugal)" "$(kb bpftrace)"
printf '%-44s %12s %12s\n' "wait named pthread_locked_work (%)" "$f_named" "$b_named"
printf '%-44s %12s %12s\n' "bcc futexctn" "" "n/a (not in bpfcc 0.26)"
