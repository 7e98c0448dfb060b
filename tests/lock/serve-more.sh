#!/usr/bin/env bash
# frugal lock serve beyond tests/lock/serve.sh: its privileges, its options
# and the kernel changing under it.  As nobody with CAP_BPF alone it says
# in one line what is missing and how a service is granted it; with
# CAP_PERFMON too it serves, kernel.kptr_restrict 1 or 2 included.  Over
# one run of the built-in workload, four services at once: -l names locks
# by member and struct (no pid, no path, no address), --export-addresses
# adds the address label, --series-max=2 keeps two series and folds the
# rest into `other` (the kept and the folded contentions are the
# accounting's, the folded label sets those the unbounded service has
# beyond two).  -U with the workload's pthread mutex: user-space rows.
# CPU hotplug and a module's load and unload while serving: ticks go on,
# every counter only grows.  Each check waits on the service's own counts
# (its ticks, its accounting settling), not on a sleep's length.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock serve (more)" || finish
# make static's binary has no web server (lib/web_none.c): it says so in
# one line, before anything is loaded, and that is all there is to test.
if "$FRUGAL" lock serve --web.config.file=/nonexistent 2>&1 | grep -q "has no web server; use the package"; then
	pass "lock serve (more): this binary (the static build) has no web server, and says so"
	finish
fi
if ! command -v curl >/dev/null; then
	skip "lock serve (more)" "curl is not installed (scripts/install-deps.sh, group check)"
	finish
fi

port_of() { wait_for "$1" "listening on" 60 && sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$1" | head -1; }
# msum TEXT NAME LABELS-REGEX: the sum of NAME's samples whose labels match.
msum() { awk -v n="$2" -v re="$3" '$1 ~ "^"n"({|$)" && $1 ~ re { s += $NF } END { printf "%.0f\n", s }' <<<"$1"; }
scrape() { curl -sf --max-time 10 "http://127.0.0.1:$1/metrics"; }
ticks() { msum "$(scrape "$1")" frugal_lock_ticks_total ''; }
# up PORT: until the service has folded its first tick (loaded, attached).
up() {
	local _
	for _ in $(seq 600); do
		[ "$(ticks "$1" 2>/dev/null)" -ge 1 ] 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
# wait_ticks PORT N: until the service has folded N more ticks.
wait_ticks() {
	local t0 t i
	t0=$(ticks "$1") || return 1
	for i in $(seq 300); do
		t=$(ticks "$1") || return 1
		[ "$t" -ge $((t0 + $2)) ] && return 0
		sleep 0.1
	done
	return 1
}
# settle PORT FILE: once two ticks in a row add no contention (the
# workload is parked), the scrape into FILE.
settle() {
	local last="" same=0 cur m _
	for _ in $(seq 200); do
		m=$(scrape "$1") || return 1
		cur="$(msum "$m" frugal_lock_contentions_total '') $(msum "$m" frugal_lock_ticks_total '')"
		if [ "${cur% *}" = "${last% *}" ]; then
			[ "${cur#* }" != "${last#* }" ] && same=$((same + 1))
		else
			same=0
		fi
		if [ $same -ge 2 ]; then printf '%s\n' "$m" >"$2"; return 0; fi
		last=$cur
		sleep 0.2
	done
	return 1
}
# caught_up PORT FILE: until -U's accounting holds (user_completed: the
# kernel's count of ended futex waits, each in rows, filtered or lost), that
# scrape into FILE.
caught_up() {
	local m _
	for _ in $(seq 300); do
		m=$(scrape "$1") || return 1
		if [ "$(msum "$m" frugal_lock_events_total 'outcome="user_completed"')" = \
		     "$(msum "$m" frugal_lock_events_total 'outcome="user_(in_rows|filtered|lost_begin|lost_end|unjoined)"')" ]; then
			printf '%s\n' "$m" >"$2"
			return 0
		fi
		sleep 0.2
	done
	return 1
}
# monotonic BEFORE AFTER: every counter of BEFORE (a _total, or a
# histogram's _bucket, _count, _sum) is in AFTER, no smaller.
monotonic() {
	python3 - "$1" "$2" <<'PY'
import re, sys
def counters(path):
    d = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        head, v = line.rsplit(" ", 1)
        if re.match(r"\w+_(total|bucket|count|sum)(\{|$)", head):
            d[head] = float(v)
    return d
a, b = counters(sys.argv[1]), counters(sys.argv[2])
bad = [k for k in a if k not in b or b[k] < a[k]]
assert a and not bad, bad[:5]
PY
}
# stop PID PROGS LINKS NAME: SIGTERM, exit 0, no program or link of it left.
stop() {
	kill -TERM "$1"; wait "$1"; local rc=$?
	check "$4: SIGTERM: exit 0" [ $rc -eq 0 ]
	check "$4: no program or link of it left" all_gone "$2" "$3"
}

# ---- privileges: as nobody ----
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	# As nobody with CAPS (",+bpf") and no other: "${nobody[@]}" $(caps CAPS) CMD...
	nobody=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
	caps() { echo --inh-caps="-all$1" --ambient-caps="-all$1" --bounding-set="-all$1"; }
	# shellcheck disable=SC2046
	expect_exit "as nobody with CAP_BPF alone: exit 1" 1 \
		"${nobody[@]}" $(caps ,+bpf) "$FRUGAL" lock serve --web.listen-address=127.0.0.1:0 -d 1
	check "... in one line naming CAP_PERFMON and how a service is granted it" \
		bash -c "[ \$(grep -c . <<<'$err') -eq 1 ] && grep -q 'missing CAP_PERFMON: grant' <<<'$err' &&
			grep -q 'AmbientCapabilities=CAP_BPF CAP_PERFMON' <<<'$err' && ! grep -q 'run as root' <<<'$err'"
	kr=$(sysctl -n kernel.kptr_restrict)
	trap 'sysctl -qw kernel.kptr_restrict='"$kr"'; [ -n "${KEEP_TMP:-}" ] || rm -rf "$_tmp"' EXIT
	for v in $kr 1 2; do
		sysctl -qw kernel.kptr_restrict=$v || { skip "kptr_restrict=$v" "sysctl refused"; continue; }
		# shellcheck disable=SC2046
		"${nobody[@]}" $(caps ,+bpf,+perfmon) "$FRUGAL" lock serve \
			--web.listen-address=127.0.0.1:0 2>"$_tmp/nobody.err" & s=$!
		P=$(port_of "$_tmp/nobody.err")
		if ! up "$P"; then
			fail "as nobody with CAP_BPF and CAP_PERFMON (kptr_restrict=$v): attached" \
				"$(tail -3 "$_tmp/nobody.err")"
			kill $s; wait $s
			continue
		fi
		sprogs=$(ids_of_pid prog $s); slinks=$(ids_of_pid link $s)
		"$FRUGAL" bench lock -T 2 -P 2 -d 1 2>/dev/null
		wait_ticks "$P" 2
		scrape "$P" >"$_tmp/nobody.txt"
		# The workload's pipe mutex, by its caller's name: names come from a
		# BPF program, not /proc/kallsyms (zeros to nobody).
		check "as nobody with CAP_BPF and CAP_PERFMON (kptr_restrict=$v): serves the workload's mutexes by caller name" \
			grep -qE '^frugal_lock_contentions_total\{type="mutex",caller="[a-z_]+"\} [1-9]' "$_tmp/nobody.txt"
		stop $s "$sprogs" "$slinks" "as nobody (kptr_restrict=$v)"
	done
	sysctl -qw kernel.kptr_restrict="$kr"
else
	skip "lock serve: privileges" "needs setpriv and the user nobody"
fi

# ---- four services over one run: -l, -l --export-addresses, --series-max=2, the default ----
"$FRUGAL" bench lock -T 4 -P 4 -d 2 --start-on-usr1 --hold 20 2>"$_tmp/bench" & b=$!
pids=$(bench_ready "$_tmp/bench" $b) || fail "the bench said it was ready" "$(cat "$_tmp/bench")"
names="l la sm def"
# The last two only on the sleeping locks the workload takes (mutex, rwsem),
# which happen only in its run: both services see the same waits, exactly.
declare -A opt=([l]="-l" [la]="-l --export-addresses" [sm]="--series-max=2 -Y mutex,rwsem"
	[def]="-Y mutex,rwsem")
declare -A pid port progs links
for n in $names; do
	# shellcheck disable=SC2086
	"$FRUGAL" lock serve ${opt[$n]} -p "$pids" --web.listen-address=127.0.0.1:0 2>"$_tmp/$n.err" &
	pid[$n]=$!
done
for n in $names; do
	port[$n]=$(port_of "$_tmp/$n.err") && up "${port[$n]}" ||
		fail "the service (${opt[$n]}) attached" "$(tail -3 "$_tmp/$n.err")"
	progs[$n]=$(ids_of_pid prog ${pid[$n]}); links[$n]=$(ids_of_pid link ${pid[$n]})
done
kill -USR1 $b
run_over "$_tmp/bench" $b
for n in $names; do
	settle "${port[$n]}" "$_tmp/$n.txt" || fail "the service's (${opt[$n]}) counts settle" "$(tail -3 "$_tmp/$n.err")"
done
# The label values of contentions_total in FILE, one per line: NAME=VALUE.
labels() { sed -n 's/^frugal_lock_contentions_total{\(.*\)} .*/\1/p' "$1" | grep -o '[a-z]*="[^"]*"'; }
labels "$_tmp/l.txt" >"$_tmp/l.labels"
check "-l: the rows are labelled by lock" grep -q '^lock=' "$_tmp/l.labels"
check "-l: the workload's locks by member and struct (mmap_lock of struct mm_struct)" \
	grep -qx 'lock="mmap_lock of struct mm_struct"' "$_tmp/l.labels"
check "-l: no pid, path or address in a lock's name, no address label" \
	bash -c "! grep -E '^lock=\".*(pid [0-9]|/|\\(|0x|ffff[0-9a-f]{8})|^address=' '$_tmp/l.labels'"
check "--export-addresses: every -l row has the lock's address" \
	bash -c "[ \$(grep -c '^frugal_lock_contentions_total{' '$_tmp/la.txt') -eq \
		\$(grep -cE '^frugal_lock_contentions_total\{.*,address=\"(0x)?[0-9a-f]{8,}\"' '$_tmp/la.txt') ]"
check "--export-addresses: the addresses are the kernel's" grep -qE 'address="(0x)?ffff[0-9a-f]{12}"' "$_tmp/la.txt"
for n in l sm def; do
	check "without --export-addresses (${opt[$n]:-the default}): no label value looks like a kernel address" \
		bash -c "! grep -E '^frugal_lock_[a-z_]*\{.*=\"[^\"]*(0x)?ffff[0-9a-f]{12}' '$_tmp/$n.txt'"
done
# --series-max=2: two series of their own, the rest in `other`, each
# contention in exactly one; the label sets folded are those the unbounded
# service has beyond two (both saw the same waits).
SM=$(cat "$_tmp/sm.txt") DEF=$(cat "$_tmp/def.txt")
kept=$(grep -c '^frugal_lock_contentions_total{' <<<"$SM")
check "--series-max=2: two series and other" \
	bash -c "[ $kept -eq 3 ] && grep -q '^frugal_lock_contentions_total{type=\"other\",caller=\"other\"} [1-9]' '$_tmp/sm.txt'"
check "--series-max=2: the kept contentions and other's are the accounting's in_rows" \
	[ "$(msum "$SM" frugal_lock_contentions_total '')" = "$(msum "$SM" frugal_lock_events_total 'outcome="in_rows"')" ]
check "--series-max=2 and the unbounded service saw the same contentions" \
	[ "$(msum "$SM" frugal_lock_contentions_total '')" = "$(msum "$DEF" frugal_lock_contentions_total '')" ]
folded=$(msum "$SM" frugal_lock_series_folded_total '')
sets=$(grep -c '^frugal_lock_contentions_total{' <<<"$DEF")
check "--series-max=2: frugal_lock_series_folded_total ($folded) counts the label sets beyond two ($sets in all)" \
	bash -c "[ $sets -gt 2 ] && [ $folded -eq $((sets - 2)) ]"
for n in $names; do stop ${pid[$n]} "${progs[$n]}" "${links[$n]}" "serve ${opt[$n]:-(default)}"; done
kill $b 2>/dev/null; wait $b 2>/dev/null

# ---- -U: the workload's pthread mutex ----
"$FRUGAL" bench lock -T 1 -P 1 --pthread 4 -d 2 --start-on-usr1 --hold 20 2>"$_tmp/ubench" & b=$!
pids=$(bench_ready "$_tmp/ubench" $b) || fail "the -U bench said it was ready" "$(cat "$_tmp/ubench")"
"$FRUGAL" lock serve -U -p "$pids" --web.listen-address=127.0.0.1:0 2>"$_tmp/u.err" & s=$!
P=$(port_of "$_tmp/u.err")
if up "$P"; then
	sprogs=$(ids_of_pid prog $s); slinks=$(ids_of_pid link $s)
	kill -USR1 $b
	run_over "$_tmp/ubench" $b
	settle "$P" "$_tmp/u.txt" || fail "-U: the counts settle" "$(tail -3 "$_tmp/u.err")"
	# The kernel counts a futex wait as it ends; the unwinder folds it in
	# later (on a loaded machine, ticks later): settled is also when
	# every completed wait is accounted for, as the one-shot run's is.
	caught_up "$P" "$_tmp/u.txt" ||
		fail "-U: every completed wait accounted for" "$(grep 'outcome="user_' "$_tmp/u.txt" | tr '\n' ' ')"
	U=$(cat "$_tmp/u.txt")
	uc=$(msum "$U" frugal_lock_contentions_total 'type="pthread_mutex"')
	check "-U: the workload's pthread mutex in user-space rows ($uc contentions), as the accounting's user_in_rows" \
		bash -c "[ $uc -gt 0 ] && [ $uc -le $(msum "$U" frugal_lock_events_total 'outcome="user_in_rows"') ]"
	check "-U: its rows named by a user-space caller" \
		grep -qE '^frugal_lock_contentions_total\{type="pthread_mutex",caller="[A-Za-z_]' "$_tmp/u.txt"
	check "-U: kernel and user rows together are the accounting's in_rows and user_in_rows" \
		[ "$(msum "$U" frugal_lock_contentions_total '')" = \
		  "$(msum "$U" frugal_lock_events_total 'outcome="(user_)?in_rows"')" ]
	stop $s "$sprogs" "$slinks" "serve -U"
else
	fail "-U: the service attached" "$(tail -3 "$_tmp/u.err")"
	kill $s; wait $s
fi
kill $b 2>/dev/null; wait $b 2>/dev/null

# ---- the kernel changing under the service: CPU hotplug, a module ----
"$FRUGAL" lock serve --web.listen-address=127.0.0.1:0 2>"$_tmp/k.err" & s=$!
P=$(port_of "$_tmp/k.err")
up "$P" || fail "the service attached" "$(tail -3 "$_tmp/k.err")"
sprogs=$(ids_of_pid prog $s); slinks=$(ids_of_pid link $s)
wait_ticks "$P" 1; scrape "$P" >"$_tmp/k0.txt"
cpu=/sys/devices/system/cpu/cpu1/online
if [ -w $cpu ] && [ "$(cat $cpu)" = 1 ] && echo 0 >$cpu 2>/dev/null; then
	"$FRUGAL" bench lock -T 2 -P 2 -d 0.5 2>/dev/null
	wait_ticks "$P" 2; scrape "$P" >"$_tmp/k1.txt"
	echo 1 >$cpu
	"$FRUGAL" bench lock -T 2 -P 2 -d 0.5 2>/dev/null
	wait_ticks "$P" 2; scrape "$P" >"$_tmp/k2.txt"
	check "cpu1 offline: the service ticks on, its counters grow" monotonic "$_tmp/k0.txt" "$_tmp/k1.txt"
	check "cpu1 back online: the same" monotonic "$_tmp/k1.txt" "$_tmp/k2.txt"
	cp "$_tmp/k2.txt" "$_tmp/k0.txt"
else
	[ -e $cpu ] && [ "$(cat $cpu)" = 1 ] && echo 1 >$cpu 2>/dev/null
	skip "serve across CPU hotplug" "$cpu is not there or cannot be written"
fi
mod=
if [ -e /proc/modules ] && command -v modprobe >/dev/null; then
	for m in dummy veth tun loop $(find "/lib/modules/$(uname -r)" -name '*.ko*' 2>/dev/null |
			sed 's|.*/||; s|\.ko.*||' | head -20); do
		grep -q "^$m " /proc/modules && continue
		modprobe -q "$m" 2>/dev/null && { mod=$m; break; }
	done
fi
if [ -n "$mod" ]; then
	wait_ticks "$P" 2; scrape "$P" >"$_tmp/k1.txt"
	rmmod "$mod"
	wait_ticks "$P" 2; scrape "$P" >"$_tmp/k2.txt"
	check "module $mod loaded: the service ticks on, its counters grow" monotonic "$_tmp/k0.txt" "$_tmp/k1.txt"
	check "module $mod unloaded: the same" monotonic "$_tmp/k1.txt" "$_tmp/k2.txt"
elif [ ! -e /proc/modules ]; then
	skip "serve across a module's load and unload" "this kernel has no loadable modules (no /proc/modules)"
else
	skip "serve across a module's load and unload" "no module to load (modprobe, /lib/modules/$(uname -r))"
fi
stop $s "$sprogs" "$slinks" "serve through the kernel's changes"
finish
