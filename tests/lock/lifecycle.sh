#!/usr/bin/env bash
# Lifecycle: SIGINT and SIGTERM still give a report, the command's exit
# status comes back, and nothing of ours stays in the kernel afterwards.
# Then bad options and missing privileges, with their messages and codes.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"

# usage errors need no BPF
expect_exit "bad: -t with -l" 2 "$FRUGAL" lock -t -l -d 0.1
check "bad: -t with -l message" grep -q "frugal lock: -t, -l and -g cannot be combined" <<<"$err"
expect_exit "bad: -M not a number" 2 "$FRUGAL" lock -M 12x
check "bad: -M message names the option" grep -q "frugal lock: -M: '12x' is not a number" <<<"$err"
expect_exit "bad: -M zero" 2 "$FRUGAL" lock -M 0
expect_exit "bad: unknown -k key" 2 "$FRUGAL" lock -k fastest
expect_exit "bad: unknown -Y type" 2 "$FRUGAL" lock -Y bogus
expect_exit "bad: --json with -x" 2 "$FRUGAL" lock --json -x ,
expect_exit "bad: -p with a command" 2 "$FRUGAL" lock -p 1 -- true
expect_exit "bad: -C beyond this machine" 2 "$FRUGAL" lock -C 100000
expect_exit "bad: unknown option" 2 "$FRUGAL" lock --frobnicate
check "bad: no output on stdout for usage errors" test -z "$out"

# missing privileges: drop every capability, or run as nobody
if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ]; then
	expect_exit "privileges: no capabilities -> exit 1" 1 \
		setpriv --inh-caps=-all --bounding-set=-all "$FRUGAL" lock -d 0.1
	check "privileges: message says what is missing" grep -q "frugal lock: missing CAP_BPF and CAP_PERFMON (run as root)" <<<"$err"
	expect_exit "privileges: CAP_BPF only -> exit 1" 1 \
		setpriv --inh-caps=-all --bounding-set=-all,+bpf --ambient-caps=-all "$FRUGAL" lock -d 0.1
else
	skip "privileges" "needs root and setpriv to drop capabilities"
fi

can_bpf "lock lifecycle" || finish

expect_exit "-p with a process that does not exist: exit 1" 1 "$FRUGAL" lock -p 999999999
check "-p: message names it" grep -q "frugal lock: -p: no process 999999999" <<<"$err"

expect_exit "command not found: exit 127" 127 "$FRUGAL" lock -- no-such-command-here
check "command not found: message" grep -q "frugal lock: no-such-command-here: command not found" <<<"$err"
expect_exit "exit status of the command comes back" 3 "$FRUGAL" lock -x , -- sh -c 'exit 3'
check "exit status: the report is still printed" grep -q '^# contentions completed' <<<"$out"
expect_exit "a command killed by a signal: 128 + signal" 137 "$FRUGAL" lock -x , -- sh -c 'kill -KILL $$'

# stop by signal, mid-run; ids of our programs and links taken while running
for sig in INT TERM; do
	"$FRUGAL" lock -x , -- "$FRUGAL" bench lock -T 2 -P 2 -d 30 >"$_tmp/sig.out" 2>/dev/null &
	pid=$!
	for i in $(seq 40); do [ -n "$(ids_of_pid link $pid)" ] && break; sleep 0.1; done
	progs=$(ids_of_pid prog $pid)
	links=$(ids_of_pid link $pid)
	sleep 0.5
	kill -$sig $pid
	wait $pid
	rc=$?
	check "SIG$sig: programs and links were ours while running" test -n "$progs" -a -n "$links"
	check "SIG$sig: report printed" grep -q '^# contentions completed' "$_tmp/sig.out"
	check "SIG$sig: the command was stopped too (exit $rc)" test $rc -eq 143
	check "SIG$sig: no program or link left behind" all_gone "$progs" "$links"
	sleep 0.2
	check "SIG$sig: none of the command's processes outlives it" \
		test -z "$(pgrep -f 'bench lock -T 2 -P 2 -d 30')"
done

# killed outright: the kernel closes our descriptors, and that is enough
"$FRUGAL" lock -d 10 >/dev/null 2>&1 &
pid=$!
for i in $(seq 50); do [ -n "$(ids_of_pid link $pid)" ] && break; sleep 0.1; done
progs=$(ids_of_pid prog $pid)
links=$(ids_of_pid link $pid)
kill -KILL $pid; wait $pid 2>/dev/null
check "SIGKILL: we had programs and links" test -n "$progs" -a -n "$links"
check "SIGKILL: no program or link left behind" all_gone "$progs" "$links"
finish
